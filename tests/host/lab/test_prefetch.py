#!/usr/bin/env python3
"""make check's background builds (mk/prefetch.mk), with stand-ins for the
builds and the suites so that no kernel is needed:

  - the background run starts, at nice 19, in a session of its own, and its
    output goes to the log;
  - it is stopped when the suites end, whether they pass or fail, and when
    make is interrupted (SIGINT to its process group, as a terminal's ^C)
    or terminated (SIGTERM to its process group, as timeout(1) does);
  - the suites' result is make's exit status, whatever the background did;
  - a step that fails does not stop the steps after it, and the run names it.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.environ.get("TOPDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", ".."))
passed = failed = 0


def check(ok, what):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + what)
    if ok:
        passed += 1
    else:
        failed += 1


def make(outdir, evals, goal, marker, preexec=None, new_session=False):
    """Start make in TOP with extra rules; the background stand-in sleeps
    with a unique argument so that it can be found in ps."""
    rules = ["bg-sleep: ; @echo bg-start; sleep %s" % marker] + evals
    args = ["make", "--no-print-directory", "OUTDIR=" + outdir]
    for r in rules:
        args += ["--eval", r]
    return subprocess.Popen(args + [goal], cwd=TOP, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            preexec_fn=preexec, start_new_session=new_session)


def sleepers(marker):
    out = subprocess.run(["ps", "-eo", "pid=,sid=,ni=,args="],
                         capture_output=True, text=True).stdout
    return [l.split(None, 3) for l in out.splitlines()
            if l.split(None, 3)[3:] == ["sleep " + marker]]


def wait_for(pred, timeout=10):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.1)
    return pred()


def default_sigint():
    # Background jobs of a non-interactive shell start with SIGINT
    # ignored; a terminal's make would not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setsid()


def main():
    tmp = tempfile.mkdtemp()
    n = [0]

    def marker():
        n[0] += 1
        return "%d.%d%d" % (1000 + os.getpid() % 1000, n[0], 7)

    # 1. passing suites: background started, niced, own session, stopped
    m = marker()
    p = make(tmp, ["suite-ok: ; @sleep 1; echo suite-ran",
                   "t1: ; $(call run_suites,suite-ok,bg-sleep)"], "t1", m)
    check(wait_for(lambda: sleepers(m)), "the background run starts")
    s = sleepers(m)
    if s:
        pid, sid, ni = s[0][0], s[0][1], s[0][2]
        check(ni == "19", "it runs at nice 19 (ni %s)" % ni)
        check(sid != str(os.getsid(0)) and sid != str(p.pid),
              "it runs in a session of its own")
    out = p.communicate(timeout=60)[0]
    check(p.returncode == 0 and "suites: 1 passed, 0 failed" in out,
          "passing suites: make exits 0 (%s)" % p.returncode)
    check(wait_for(lambda: not sleepers(m)), "the background run is stopped when the suites end")
    log = os.path.join(tmp, "prefetch.log")
    check(os.path.exists(log) and "bg-start" in open(log).read(),
          "the background run's output is in OUTDIR/prefetch.log")

    # 2. a failing suite: make fails, the background is stopped anyway
    m = marker()
    p = make(tmp, ["suite-bad: ; @false",
                   "t2: ; $(call run_suites,suite-bad,bg-sleep)"], "t2", m)
    out = p.communicate(timeout=60)[0]
    check(p.returncode != 0 and "failed suites: suite-bad" in out,
          "a failing suite fails make (%s)" % p.returncode)
    check(wait_for(lambda: not sleepers(m)), "the background run is stopped after a failed suite")

    # 3. ^C: SIGINT to make's process group while a suite runs
    m = marker()
    p = make(tmp, ["suite-long: ; @sleep 60",
                   "t3: ; $(call run_suites,suite-long,bg-sleep)"], "t3", m,
             preexec=default_sigint)
    check(wait_for(lambda: sleepers(m)), "(^C) the background run starts")
    os.killpg(p.pid, signal.SIGINT)
    p.communicate(timeout=30)
    check(p.returncode != 0, "(^C) make exits non-zero (%s)" % p.returncode)
    check(wait_for(lambda: not sleepers(m)), "(^C) the background run is stopped")

    # 4. SIGTERM to make's process group (timeout(1), a CI runner's kill)
    m = marker()
    p = make(tmp, ["suite-long: ; @sleep 60",
                   "t4: ; $(call run_suites,suite-long,bg-sleep)"], "t4", m,
             new_session=True)
    check(wait_for(lambda: sleepers(m)), "(TERM) the background run starts")
    os.killpg(p.pid, signal.SIGTERM)
    p.communicate(timeout=30)
    check(p.returncode != 0, "(TERM) make exits non-zero (%s)" % p.returncode)
    check(wait_for(lambda: not sleepers(m)), "(TERM) the background run is stopped")

    # 5. the steps: one failing does not stop the next, and is named
    p = make(tmp, ["step-a: ; @false", "step-b: ; @echo step-b-ran",
                   "steps: ; $(call prefetch_steps,step-a step-b)"], "steps", marker())
    out = p.communicate(timeout=60)[0]
    check("step-b-ran" in out, "a failed step does not stop the next one")
    check(p.returncode != 0 and "failed: step-a" in out,
          "the run fails and names the failed step (%s)" % p.returncode)

    # 6. the real step lists name targets that exist
    out = subprocess.run(["make", "-n", "--no-print-directory", "OUTDIR=" + tmp,
                          "prefetch-full"], cwd=TOP, capture_output=True, text=True)
    check(out.returncode == 0, "make -n prefetch-full: every step is a target")

    subprocess.run(["rm", "-rf", tmp], check=False)
    print("test_prefetch: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
