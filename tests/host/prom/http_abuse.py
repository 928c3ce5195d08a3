#!/usr/bin/env python3
"""Misbehaving HTTP clients against vmapstat --listen (127.0.0.1 only).

usage: http_abuse.py PORT TIMEOUT_S
  - 20 clients send GET /metrics and vanish after reading a few bytes,
    half of them with a TCP reset (SO_LINGER 0), 5 before reading at all;
  - 6 half-open / stalled clients (nothing, or half a request line) must
    be closed by the server between TIMEOUT_S/2 and TIMEOUT_S + 3 s, while
    a normal scrape made meanwhile is answered at once;
  - 40 scrapes from 20 threads at once all get a complete 200 response;
  - 64 clients trickling a request header do not keep a scrape waiting;
  - a garbage request line is answered 400 at once.
Prints one "ok - ..." line per check; exits 1 on the first failure.
"""
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checklib import die, finish, ok  # noqa: E402

PORT = int(sys.argv[1])
TIMEOUT = float(sys.argv[2])


def connect():
    return socket.create_connection(("127.0.0.1", PORT), timeout=30)


def scrape():
    s = connect()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        data += c
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return head, body


def complete(head, body):
    return (head.startswith(b"HTTP/1.1 200") and
            b"vmapscope_purged_areas_total " in body and body.endswith(b"\n"))


# 1. clients vanishing mid-response
for i in range(25):
    s = connect()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    if i < 20:
        s.recv(100)
    if i % 2 or i >= 20:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
head, body = scrape()
if not complete(head, body):
    die("scrape after vanishing clients: %r" % head[:80])
ok("25 clients vanished mid-response (10 + 5 with a reset); next scrape complete")

# 2. half-open and stalled clients time out; others are served meanwhile
idle = []
for i in range(6):
    s = connect()
    if i % 2:
        s.sendall(b"GET /metr")
    idle.append(s)
t0 = time.monotonic()
head, body = scrape()
if not complete(head, body) or time.monotonic() - t0 > 1.0:
    die("scrape beside idle clients: %.2f s, %r" % (time.monotonic() - t0, head[:80]))
for s in idle:
    s.settimeout(TIMEOUT + 3)
    try:
        got = s.recv(4096)
    except socket.timeout:
        die("an idle client was not closed within %.1f s" % (TIMEOUT + 3))
    except ConnectionResetError:
        got = b""
    if got:
        die("idle client got data: %r" % got[:80])
    s.close()
waited = time.monotonic() - t0
if waited < TIMEOUT / 2:
    die("idle clients closed after %.2f s, before the %.1f s timeout" % (waited, TIMEOUT))
ok("6 half-open/stalled clients closed after %.1f s (timeout %.0f s); "
      "a scrape meanwhile answered at once" % (waited, TIMEOUT))

# 3. concurrent scrapes
results = []
lock = threading.Lock()


def worker():
    for _ in range(2):
        r = complete(*scrape())
        with lock:
            results.append(r)


threads = [threading.Thread(target=worker) for _ in range(20)]
for t in threads:
    t.start()
for t in threads:
    t.join()
if len(results) != 40 or not all(results):
    die("concurrent scrapes: %d of %d complete" % (sum(results), len(results)))
ok("40 concurrent scrapes from 20 threads all complete")

# 4. 64 clients trickling a request header a byte at a time (bounded: 3 s)
#    hold every slot 127.0.0.1 may use; a scrape still gets through at once
trick = [connect() for _ in range(64)]
req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 64
for k in range(3):
    for s in trick:
        try:
            s.sendall(req[k:k + 1])
        except OSError:
            pass
    time.sleep(0.3)
t0 = time.monotonic()
head, body = scrape()
took = time.monotonic() - t0
if not complete(head, body) or took > 1.0:
    die("scrape beside 64 trickling clients: %.2f s, %r" % (took, head[:80]))
for s in trick:
    s.close()
ok("64 trickling clients; a scrape beside them answered in %.3f s" % took)

# 5. a first line that is no HTTP request line: 400 at once
for junk in (b"GARBAGE\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"):
    s = connect()
    s.settimeout(1.0)
    t0 = time.monotonic()
    s.sendall(junk)
    try:
        got = s.recv(4096)
    except socket.timeout:
        die("%r: no answer within 1 s" % junk[:12])
    except ConnectionResetError:
        got = b""
    s.close()
    if not got.startswith(b"HTTP/1.1 400 "):
        die("%r: got %r, not 400" % (junk[:12], got[:40]))
ok("garbage request lines answered 400 at once")
sys.exit(finish())
