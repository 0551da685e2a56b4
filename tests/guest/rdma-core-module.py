#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Run the modules of rdma-core's Python test suite (as a distribution ships
it, e.g. Debian's /usr/share/doc/rdma-core/tests, unpacked) each in its own
process, so that a crash costs only that module.

    rdma-core-module.py TESTS_DIR RESULTS [--test-timeout S]
        [--module-timeout S] [--dev DEV] [--port N] [--gid N] MODULE...

A MODULE may name some of its tests, MODULE:CLASS.TEST[,CLASS.TEST...]
(test_qp:QPTest.test_create_qp): then only those run, in that process.

This process imports pyverbs and the suite's shared modules (tests.utils,
which pulls in base, mlx5_base and efa_base, in the order that avoids
their import cycle) once, and opens no device; then, for each MODULE,
a forked child imports the module and runs its tests (about 11 s per
module saved under emulation against a fresh python each time).  Every
event is appended to RESULTS at once, one per line:

    module <name>
    start <test id>
    ok|skip|fail|error|xfail|xpass <test id>[: reason]
    done <number of tests run>
    exit <status: the child's exit code, 128+N if killed by signal N,
          124 if killed after --module-timeout> <seconds the module took>

The child writes "done" when its run is over, then collects garbage (where
pyverbs' leftover objects are freed) and ends; a crash after "done" is
told apart from a crash in a test.  A test still running after
--test-timeout seconds is interrupted (SIGALRM) and counts as an error.

DOORBELL_SUITE_SKIP="GLOB=REASON[;GLOB=REASON...]": each test whose id
matches GLOB (fnmatch) skips with REASON, whichever provider serves; for
what the device lacks (tests/guest/mlx5/check-roce-suite.sh).

A test the suite skips because it could not open an mlx5 direct-verbs
context ("mlx5 context", "mlx5 DevX context") or use an mlx5dv_ call is
checked in its process:
if mlx5dv_open_device() fails there on --dev (the device's provider is not
libmlx5: doorbell offers no mlx5dv), the reason says so first,
"mlx5dv: mlx5dv_open_device(DEV) fails in this process (WHY): ...", then
the suite's own words (tests/guest/rdma-core-choices.txt lists it).
"""
import argparse
import fnmatch
import gc
import importlib
import os
import random
import re
import signal
import sys
import time
import types
import unittest


class Timeout(Exception):
    pass


def on_alarm(signum, frame):
    raise Timeout("still running after the per-test timeout")


MLX5DV_SKIP = re.compile(r"mlx5 (DevX )?context|mlx5dv_")


def mlx5dv_refusal(dev):
    """Why mlx5dv_open_device(dev) fails in this process, None if it works."""
    try:
        from pyverbs.providers.mlx5.mlx5dv import (Mlx5Context,
                                                    Mlx5DVContextAttr)
    except Exception as e:
        return f"pyverbs has no mlx5dv: {e!r}"
    try:
        ctx = Mlx5Context(Mlx5DVContextAttr(), name=dev)
    except Exception as e:
        return " ".join(f"{type(e).__name__}: {e}".split())
    ctx.close()
    return None


def flat(suite):
    """The test cases of a (nested) unittest suite."""
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flat(t)
        else:
            yield t


def run_module(a, name, only, emit):
    """In the child: import and run one module (only the tests ONLY names,
    if any); returns the exit code."""
    try:
        mod = importlib.import_module("tests." + name)
        loader = unittest.defaultTestLoader
        if only:
            suite = loader.loadTestsFromNames(only, mod)
        else:
            suite = loader.loadTestsFromModule(mod)
    except Exception as e:  # a module that cannot load: one error
        emit("error", "tests." + name, f"import failed: {e!r}")
        emit("done", "0")
        return 1

    for rule in filter(None, os.environ.get("DOORBELL_SUITE_SKIP", "").split(";")):
        glob, _, why = rule.partition("=")
        for t in flat(suite):
            if fnmatch.fnmatchcase(t.id(), glob):
                m = t._testMethodName
                setattr(t, m, unittest.skip(why)(getattr(t, m)))

    probe = {}  # mlx5dv_refusal(a.dev), asked once

    def fmt(err):
        # "PyverbsRDMAError: Failed to ... Errno: 95"
        return f"{err[0].__name__}: {err[1]}"

    class Result(unittest.TextTestResult):
        def startTest(self, test):
            emit("start", test)
            # The suite draws QP caps and flags at random: with a seed,
            # each test draws the same under every provider.
            if a.seed is not None:
                random.seed(f"{a.seed}:{test.id()}")
            if a.test_timeout:
                signal.alarm(a.test_timeout)
            super().startTest(test)

        def stopTest(self, test):
            signal.alarm(0)
            super().stopTest(test)

        def addSuccess(self, test):
            super().addSuccess(test)
            emit("ok", test)

        def addFailure(self, test, err):
            super().addFailure(test, err)
            emit("fail", test, fmt(err))

        def addError(self, test, err):
            super().addError(test, err)
            emit("error", test, fmt(err))

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            if a.dev and MLX5DV_SKIP.search(str(reason)):
                if "mlx5dv" not in probe:
                    probe["mlx5dv"] = mlx5dv_refusal(a.dev)
                why = probe["mlx5dv"]
                if why:
                    reason = (f"mlx5dv: mlx5dv_open_device({a.dev}) fails in "
                              f"this process ({why}): its provider offers "
                              f"no mlx5 direct verbs; the suite: {reason}")
            emit("skip", test, reason)

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            emit("xfail", test)

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            emit("xpass", test)

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                bad = issubclass(err[0], test.failureException)
                emit("fail" if bad else "error", subtest, fmt(err))

    signal.signal(signal.SIGALRM, on_alarm)
    runner = unittest.TextTestRunner(verbosity=2, resultclass=Result,
                                     stream=sys.stderr)
    res = runner.run(suite)
    emit("done", str(res.testsRun))
    # What interpreter teardown would free (pyverbs objects the tests
    # left behind) is freed here, so that a crash there shows.
    del suite, runner, res
    gc.collect()
    return 0 if not a._bad else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tests_dir")
    ap.add_argument("results")
    ap.add_argument("modules", nargs="+")
    ap.add_argument("--test-timeout", type=int, default=0)
    ap.add_argument("--module-timeout", type=int, default=0)
    ap.add_argument("--dev")
    ap.add_argument("--port", default="1")
    ap.add_argument("--gid")
    ap.add_argument("--seed")
    a = ap.parse_args()
    a._bad = False

    out = open(a.results, "a", buffering=1)

    def emit(kind, test, why=""):
        tid = test if isinstance(test, str) else test.id()
        why = " ".join(str(why).split())[:300]
        if kind in ("fail", "error", "xpass"):
            a._bad = True
        out.write(f"{kind} {tid}{': ' + why if why else ''}\n")
        out.flush()

    # The suite's own argument parser reads sys.argv (dev, port, gid).
    sys.path.insert(0, a.tests_dir)
    sys.argv = [sys.argv[0], "--port", a.port]
    if a.dev:
        sys.argv += ["--dev", a.dev]
    if a.gid is not None:
        sys.argv += ["--gid", a.gid]
    from args_parser import parser
    parser.parse_args()

    pkg = types.ModuleType("tests")
    pkg.__path__ = [a.tests_dir]
    pkg.__file__ = os.path.join(a.tests_dir, "__init__.py")
    sys.modules["tests"] = pkg
    try:
        importlib.import_module("tests.utils")
    except Exception as e:
        print(f"rdma-core-module: importing tests.utils: {e!r}",
              file=sys.stderr)

    for arg in a.modules:
        name, _, only = arg.partition(":")
        emit("module", name)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 2
            try:
                code = run_module(a, name, [t for t in only.split(",") if t],
                                  emit)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        started = time.monotonic()
        deadline = started + a.module_timeout
        status = None
        while status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            elif a.module_timeout and time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                status = -1
            else:
                time.sleep(0.2)
        if status == -1:
            code = 124
        elif os.WIFSIGNALED(status):
            code = 128 + os.WTERMSIG(status)
        else:
            code = os.WEXITSTATUS(status)
        emit("exit", f"{code} {time.monotonic() - started:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
