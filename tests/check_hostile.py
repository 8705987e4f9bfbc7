#!/usr/bin/python3
# check_hostile.py - run `CLI inspect --json` on the hostile corpus
#
# Copyright 2026 The Tensorscope authors
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: check_hostile.py CLI HOSTILEDIR
#
# HOSTILEDIR is the output of tests/fixtures/gen_hostile.py.  For every
# entry of HOSTILEDIR/expected.json, runs `CLI inspect --json PATH` with a
# 20 s timeout and requires: exit status 1 (not 0, not a signal), stdout
# {"error": {"code": NICK, "message": ...}} with the expected nick, a
# message naming the file, and a peak RSS of at most 512 MB (not checked
# when the environment variable TS_SANITIZER is set: ASan inflates memory).
#
# Cases with a "probe" (unsafe shard names) are run twice more on a copy
# whose index points the bad entry at a FIFO outside the folder, once by
# absolute path and once by "../" path: the answer must still be
# unsafe-shard-name and the FIFO must never be opened (opening a FIFO for
# reading blocks until a writer comes, so a watcher thread sees any open).
#
# Ends with "N passed, M failed"; exits 1 if any failed.

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

TIMEOUT = 20.0
RSS_LIMIT_KB = 512 * 1024


def run(cmd):
    """Run cmd; return (status, stdout, stderr, maxrss_kb, timed_out)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=err)
        deadline = time.monotonic() + TIMEOUT
        timed_out = False
        delay = 0.001
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if time.monotonic() > deadline:
                timed_out = True
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        p.returncode = status      # reaped here; keep Popen from waiting
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read(), ru.ru_maxrss, timed_out


class FifoWatcher(threading.Thread):
    """Records whether anyone opens the FIFO for reading."""

    def __init__(self, fifo):
        super().__init__(daemon=True)
        self.fifo = fifo
        self.opened = False
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno not in (errno.ENXIO, errno.EINTR):
                    raise
                time.sleep(0.0005)
                continue
            self.opened = True
            os.close(fd)           # the reader sees EOF and goes on
            time.sleep(0.001)


def check(cli, path, case, label, watcher=None):
    """Returns a list of failure strings (empty = pass) and the RSS."""
    errors = []
    if watcher:
        watcher.start()
    try:
        status, out, err, rss, timed_out = run([cli, "inspect", "--json",
                                                path])
    finally:
        if watcher:
            watcher.stop.set()
            watcher.join()
    err_s = " ".join(err.decode("utf-8", "replace").split())[:300]
    out_s = " ".join(out.decode("utf-8", "replace").split())[:300]
    if timed_out:
        errors.append("timed out after %g s (killed)" % TIMEOUT)
    elif os.WIFSIGNALED(status):
        errors.append("killed by signal %d (crash); stderr: %s"
                      % (os.WTERMSIG(status), err_s))
    elif os.WEXITSTATUS(status) != 1:
        errors.append("exit status %d, expected 1; stdout: %s; stderr: %s"
                      % (os.WEXITSTATUS(status), out_s, err_s))
    if not timed_out and not os.WIFSIGNALED(status) \
            and os.WEXITSTATUS(status) != 0:
        try:
            doc = json.loads(out.decode("utf-8"))
            error = doc["error"]
            code, message = error["code"], error["message"]
        except (UnicodeDecodeError, ValueError, TypeError, KeyError) as e:
            errors.append("stdout is not {\"error\": {\"code\", \"message\"}} "
                          "(%s): %s" % (type(e).__name__, out_s))
        else:
            if code != case["code"]:
                errors.append("code %r, expected %r; message: %s"
                              % (code, case["code"], message))
            if not isinstance(message, str) or \
                    not any(n in message for n in case["names"]):
                errors.append("message does not name the file (one of %s): "
                              "%r" % (case["names"], message))
            elif "message_contains" in case and case["message_contains"] not in message:
                errors.append("message lacks %r: %r" % (case["message_contains"], message))
    if not os.environ.get("TS_SANITIZER") and rss > RSS_LIMIT_KB:
        errors.append("peak RSS %d MB > %d MB" % (rss // 1024,
                                                 RSS_LIMIT_KB // 1024))
    if watcher and watcher.opened:
        errors.append("opened %s, which the unsafe shard name points at"
                      % watcher.fifo)
    return errors, rss


def probes(cli, hostdir, rel, case):
    """Re-run an unsafe-shard-name case with the name aimed at a FIFO."""
    probe = case["probe"]
    results = []
    tmp = tempfile.mkdtemp(prefix="ts-hostile-probe-")
    try:
        folder = os.path.join(tmp, "case")
        shutil.copytree(os.path.join(hostdir, rel), folder)
        outside = os.path.join(tmp, "outside")
        os.mkdir(outside)
        fifo = os.path.join(outside, "probe.safetensors")
        os.mkfifo(fifo)
        index_path = os.path.join(folder, probe["index"])
        with open(index_path) as f:
            index = json.load(f)
        for how, name in (("absolute", fifo),
                          ("relative", "../outside/probe.safetensors")):
            index["weight_map"][probe["tensor"]] = name
            with open(index_path, "w") as f:
                json.dump(index, f)
            c = dict(case)
            c["names"] = list(case["names"]) + [os.path.basename(folder)]
            label = "%s [probe: FIFO by %s path]" % (rel, how)
            errors, rss = check(cli, folder, c, label, FifoWatcher(fifo))
            results.append((label, errors, rss))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: check_hostile.py CLI HOSTILEDIR\n")
        return 2
    cli, hostdir = sys.argv[1], sys.argv[2]
    with open(os.path.join(hostdir, "expected.json")) as f:
        cases = json.load(f)["cases"]
    if os.environ.get("TS_SANITIZER"):
        print("# TS_SANITIZER is set: peak RSS not checked")
    # a g_return_if_fail() hit (ours or json-glib's) is a crash, not a warning
    os.environ["G_DEBUG"] = ",".join(
        filter(None, [os.environ.get("G_DEBUG"), "fatal-criticals"]))
    passed = failed = 0
    max_rss = 0
    for rel, case in cases.items():
        path = os.path.abspath(os.path.join(hostdir, rel))
        results = [(rel, *check(cli, path, case, rel))]
        if "probe" in case:
            results += probes(cli, hostdir, rel, case)
        for label, errors, rss in results:
            max_rss = max(max_rss, rss)
            if errors:
                failed += 1
                print("FAIL %s  (expected %s: %s)"
                      % (label, case["code"], case["description"]))
                for e in errors:
                    print("    " + e)
            else:
                passed += 1
                print("PASS %s  (%s, %d MB)" % (label, case["code"],
                                               rss // 1024))
            sys.stdout.flush()
    print("# largest peak RSS: %d MB" % (max_rss // 1024))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
