# SPDX-License-Identifier: GPL-2.0
"""The Prometheus HTTP API, as the tests that compare it with vmapstat ask it."""
import json
import urllib.parse
import urllib.request

from checklib import die


def query(base, q, t=None):
    """The result of the instant query q at time t (Prometheus' now if None)."""
    args = {"query": q}
    if t is not None:
        args["time"] = "%.3f" % t
    url = "%s/api/v1/query?%s" % (base, urllib.parse.urlencode(args))
    with urllib.request.urlopen(url, timeout=10) as r:
        d = json.load(r)
    if d.get("status") != "success":
        die("query %s: %s" % (q, d))
    return d["data"]["result"]
