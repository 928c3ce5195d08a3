#!/usr/bin/env python3
"""Many requests against vmapstat --listen with basic auth (127.0.0.1 only).

usage: http_soak.py --port P --pid PID --requests N --mix KIND=W,...
                    [--user U --password PW] [--threads T] [--slow S]
                    [--rss-bound-kib K] [--path /metrics]

Each request is a new connection, of one KIND, drawn in turn by weight:
  none     GET without credentials: 401 with exactly one WWW-Authenticate
  wrong    GET with a wrong password (16 different ones, and an unknown
           user, in turn): 401 with exactly one WWW-Authenticate; with
           --distinct-wrong a new password each time, which needs a
           bcrypt: 401, or 503 with Retry-After beyond the pending bound
  good     GET with the right password: 200, a whole exposition, answered
           within 1 s of being sent
  garbage  a first line that is no request line: 400
--slow S adds S clients beside the others, each trickling a good scrape's
header a few bytes at a time over ~1 s, again and again until the others
are done; each of their answers must be a 200 as well.

The server's resident memory (VmRSS of PID) is read every 1000 requests;
after the first 10 % of the requests (allocator and caches warm) it may
grow by at most --rss-bound-kib.  Prints one summary line; exits 1 with
the first failure (the request's number, kind and answer).
"""
import argparse
import base64
import os
import socket
import ssl
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib"))
from checklib import die, finish, ok  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--pid", type=int, required=True)
ap.add_argument("--requests", type=int, required=True)
ap.add_argument("--mix", required=True)
ap.add_argument("--user", default="prometheus")
ap.add_argument("--password", default="")
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--slow", type=int, default=0)
ap.add_argument("--rss-bound-kib", type=int, default=1024)
ap.add_argument("--path", default="/metrics")
ap.add_argument("--time-limit", type=float, default=900)
ap.add_argument("--tls", action="store_true", help="HTTPS (the certificate is not checked)")
ap.add_argument("--sources", type=int, default=1,
                help="client addresses 127.0.0.1 .. 127.0.0.N, one per worker in turn "
                     "(the server holds at most 32 connections per address)")
ap.add_argument("--distinct-wrong", action="store_true",
                help="every wrong password a new one (each needs a bcrypt): 401, or 503 "
                     "with Retry-After when the checks pending are at their bound")
args = ap.parse_args()

kinds = []
for part in args.mix.split(","):
    k, w = part.split("=")
    if k not in ("none", "wrong", "good", "garbage"):
        sys.exit("unknown kind " + k)
    kinds += [k] * int(w)


def auth_line(user, pw):
    tok = base64.b64encode(("%s:%s" % (user, pw)).encode()).decode()
    return "Authorization: Basic %s\r\n" % tok


WRONG = [auth_line(args.user, "wrong-%d" % i) for i in range(16)] + \
        [auth_line("nobody", args.password)]
GOOD = auth_line(args.user, args.password)


def req(extra):
    return ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n"
            % (args.path, extra)).encode()


def rss_kib():
    with open("/proc/%d/status" % args.pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


local = threading.local()
TLS = ssl.create_default_context()
TLS.check_hostname = False
TLS.verify_mode = ssl.CERT_NONE


def exchange(data, trickle=False):
    src = ("127.0.0.%d" % getattr(local, "source", 1), 0)
    s = socket.create_connection(("127.0.0.1", args.port), timeout=30, source_address=src)
    if args.tls:
        s = TLS.wrap_socket(s, server_hostname="127.0.0.1")
    t0 = time.monotonic()
    if trickle:
        step = max(1, len(data) // 8)
        for i in range(0, len(data), step):
            s.sendall(data[i:i + step])
            time.sleep(0.12)
    else:
        s.sendall(data)
    got = []
    while True:
        try:
            c = s.recv(65536)
        except (ConnectionResetError, ssl.SSLError):
            break
        if not c:
            break
        got.append(c)
    took = time.monotonic() - t0
    s.close()
    return b"".join(got), took


lock = threading.Lock()
state = {"next": 0, "done": 0, "failed": None, "max_good": 0.0,
         "counts": {}, "rss0": None, "rss_max": 0, "rss_last": 0, "slow": 0}
deadline = time.monotonic() + args.time_limit


def failure(msg):
    with lock:
        if not state["failed"]:
            state["failed"] = msg


def check(n, kind, resp, took):
    head = resp.partition(b"\r\n\r\n")[0]
    status = head[:12]
    nauth = sum(1 for line in head.split(b"\r\n")[1:]
                if line.lower().startswith(b"www-authenticate:"))
    if kind == "wrong" and args.distinct_wrong and status.startswith(b"HTTP/1.1 503"):
        if b"\r\nretry-after: 1" not in head.lower():
            return "503 without Retry-After: %r" % head[:80]
        return None
    if kind in ("none", "wrong"):
        if not status.startswith(b"HTTP/1.1 401") or nauth != 1:
            return "got %r with %d WWW-Authenticate headers" % (head[:60], nauth)
    elif kind == "good":
        body = resp.partition(b"\r\n\r\n")[2]
        if not status.startswith(b"HTTP/1.1 200") or b"vmapscope_build_info" not in body:
            return "got %r" % head[:60]
        if took > 1.0:
            return "a good scrape took %.3f s" % took
    elif kind == "garbage":
        if not status.startswith(b"HTTP/1.1 400"):
            return "got %r" % head[:60]
    return None


def worker(i):
    local.source = 1 + i % args.sources
    while True:
        with lock:
            n = state["next"]
            if n >= args.requests or state["failed"]:
                return
            state["next"] = n + 1
        if time.monotonic() > deadline:
            failure("time limit of %.0f s reached after %d requests" % (args.time_limit, n))
            return
        kind = kinds[n % len(kinds)]
        if kind == "none":
            data = req("")
        elif kind == "wrong" and args.distinct_wrong:
            data = req(auth_line(args.user, "wrong-%d" % n))
        elif kind == "wrong":
            data = req(WRONG[(n // len(kinds)) % len(WRONG)])
        elif kind == "good":
            data = req(GOOD)
        else:
            data = b"GARBAGE\x01\r\n\r\n"
        try:
            resp, took = exchange(data)
        except OSError as e:
            failure("request %d (%s): %s" % (n, kind, e))
            return
        bad = check(n, kind, resp, took)
        if bad:
            failure("request %d (%s): %s" % (n, kind, bad))
            return
        if kind == "wrong" and resp.startswith(b"HTTP/1.1 503"):
            kind = "wrong-503"
        with lock:
            state["counts"][kind] = state["counts"].get(kind, 0) + 1
            if kind == "good":
                state["max_good"] = max(state["max_good"], took)
            state["done"] += 1
            done = state["done"]
        if done % 1000 == 0:
            r = rss_kib()
            with lock:
                state["rss_last"] = r
                if done >= args.requests // 10:
                    if state["rss0"] is None:
                        state["rss0"] = r
                    state["rss_max"] = max(state["rss_max"], r)


stop_slow = threading.Event()


def slow_client():
    while not stop_slow.is_set():
        try:
            resp, took = exchange(req(GOOD), trickle=True)
        except OSError as e:
            failure("slow client: %s" % e)
            return
        bad = check(-1, "good", resp, 0)
        if bad:
            failure("slow client: %s" % bad)
            return
        with lock:
            state["slow"] += 1


t_start = time.monotonic()
slow = [threading.Thread(target=slow_client) for _ in range(args.slow)]
for t in slow:
    t.start()
threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.threads)]
for t in threads:
    t.start()
for t in threads:
    t.join()
stop_slow.set()
for t in slow:
    t.join()
elapsed = time.monotonic() - t_start

if state["failed"]:
    die(state["failed"])
growth = state["rss_max"] - (state["rss0"] or 0)
counts = " ".join("%s=%d" % kv for kv in sorted(state["counts"].items()))
ok("soak: %d requests (%s%s) in %.1f s; RSS %d KiB after %d, at most %d KiB after, "
      "growth %d KiB (bound %d); slowest good scrape %.3f s"
      % (state["done"], counts, ", slow=%d" % state["slow"] if args.slow else "",
         elapsed, state["rss0"] or 0, args.requests // 10, state["rss_max"], growth,
         args.rss_bound_kib, state["max_good"]))
if growth > args.rss_bound_kib:
    die("RSS grew by %d KiB, bound %d KiB" % (growth, args.rss_bound_kib))
sys.exit(finish())
