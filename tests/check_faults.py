#!/usr/bin/python3
"""Fault injection for the writers (converter and layout export), beyond
tests/check_convert.py: cancellation at many random points, the process
killed at random points, a source shard truncated or rewritten while it is
being converted, a read-only target folder, a really full file system, and
layout exports that cannot be written.

After each failure: exit status 1 with a clear message, no file at the target
path, no temporary file left, the source untouched (unless the test changed
it on purpose).

usage: check_faults.py CLI WORKDIR [SEED]

Read-only and full file systems are small tmpfs mounts inside WORKDIR (root
in a container can mount them); where mounting is not allowed, a path through
a regular file ("file-as-directory") stands in for the read-only folder and
the full file system case is skipped.
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import time

from tscheck import check, summary, digest, leftovers, wait_for_part

CLI, WORK = sys.argv[1], sys.argv[2]
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())


def sample(name, *args):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    r = subprocess.run([CLI, "sample", d] + list(args), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return d


def is_complete_gguf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"GGUF" and os.path.getsize(path) > 4096


def convert_async(src, out, *extra):
    return subprocess.Popen([CLI, "convert", src, "-o", out, "--jobs", "1"] + list(extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def random_cancellation(big, out_dir, rng, runs=20):
    before = digest(big)
    target = os.path.join(out_dir, "cancel.gguf")
    # how long a whole conversion takes here, to spread the signals over it
    t0 = time.monotonic()
    r = subprocess.run([CLI, "convert", big, "-o", target, "--outtype", "q8_0", "--jobs", "1"],
                       capture_output=True, text=True)
    span = max(time.monotonic() - t0, 0.2)
    assert r.returncode == 0, r.stderr
    os.remove(target)
    cancelled = finished = 0
    problems = []
    for i in range(runs):
        delay = rng.uniform(0, span * 1.1)
        p = convert_async(big, target, "--outtype", "q8_0")
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=120)
        if p.returncode == 0:
            finished += 1
            if not is_complete_gguf(target):
                problems.append("run %d (%.3f s): exit 0 but an incomplete output" % (i, delay))
            os.remove(target)
        elif p.returncode == -signal.SIGINT and "cancel" not in err.lower() and delay < max(0.05 * span, 0.1):
            # the signal came before the CLI installed its handler: killed
            # before it could write anything (checked below; a handler
            # installed late would leave the .part file). Not 5 % of the span
            # alone: a span of 0.29 s made that 14.5 ms, and a start on a
            # loaded machine took 15 ms
            cancelled += 1
            if os.path.exists(target):
                problems.append("run %d (%.3f s): output left at the target path" % (i, delay))
        elif p.returncode == -signal.SIGINT and "cancel" in err.lower():
            # cleaned up, then ended by the signal it caught
            cancelled += 1
            if os.path.exists(target):
                problems.append("run %d (%.3f s): output left at the target path" % (i, delay))
        else:
            problems.append("run %d (%.3f s): exit %d: %s" % (i, delay, p.returncode, err.strip()))
        if os.path.exists(target):             # one failure must not cascade into the next runs
            os.remove(target)
        if leftovers(out_dir):
            problems.append("run %d (%.3f s): temporary files %s" % (i, delay, leftovers(out_dir)))
            for n in leftovers(out_dir):
                os.remove(os.path.join(out_dir, n))
    if digest(big) != before:
        problems.append("the source changed")
    check("SIGINT at %d random points over %.2f s (%d cancelled, %d had finished)"
          % (runs, span, cancelled, finished),
          not problems and cancelled > 0, "; ".join(problems))
    return span


def interrupt_after_commit(src, out_dir, runs=10):
    """Ctrl+C the moment the CLI reports the output written: the
    conversion is done and committed, so it must still exit 0 with a
    complete file (a handler removed too early would let the default
    action kill a finished run)."""
    target = os.path.join(out_dir, "late.gguf")
    problems = []
    hit = 0
    for i in range(runs):
        p = convert_async(src, target, "--outtype", "f32")
        # the closing "Wrote ..." line: the output is committed and the
        # process is on its way out
        err = p.stderr.readline()
        if p.poll() is None:
            hit += 1
            p.send_signal(signal.SIGINT)
        _, rest = p.communicate(timeout=120)
        err += rest
        if p.returncode != 0:
            problems.append("run %d: exit %d: %s" % (i, p.returncode, err.strip()))
        if not os.path.exists(target) or not is_complete_gguf(target):
            problems.append("run %d: no complete output" % i)
        if os.path.exists(target):
            os.remove(target)
    check("SIGINT just after the output was committed (%d of %d runs still running): exit 0, output kept"
          % (hit, runs), not problems and hit > 0, "; ".join(problems))


def random_kill(big, out_dir, rng, span, runs=5):
    target = os.path.join(out_dir, "killed.gguf")
    problems = []
    for i in range(runs):
        delay = rng.uniform(0, span)
        p = convert_async(big, target, "--outtype", "q8_0")
        time.sleep(delay)
        p.kill()
        p.communicate()
        if os.path.exists(target) and not is_complete_gguf(target):
            problems.append("run %d (%.3f s): a partial file at the target path" % (i, delay))
        if os.path.exists(target):
            os.remove(target)
        for n in leftovers(out_dir):      # a hidden .part may remain after SIGKILL
            os.remove(os.path.join(out_dir, n))
    check("SIGKILL at %d random points: never a partial file at the target" % runs,
          not problems, "; ".join(problems))


def source_changed(out_dir, how):
    """Truncate (or rewrite in place, same size) the last shard as soon as
    writing has started: the converter must notice, not write a mix."""
    for attempt in range(3):
        src = sample("changing", "--layers", "8", "--hidden", "1024", "--heads", "16",
                     "--kv-heads", "4", "--intermediate", "4096", "--shards", "2")
        shard = os.path.join(src, "model-00002-of-00002.safetensors")
        target = os.path.join(out_dir, "changed.gguf")
        p = convert_async(src, target, "--outtype", "f32")
        started = wait_for_part(out_dir, p)
        size = os.path.getsize(shard)
        if how == "truncated":
            os.truncate(shard, size // 2)
        else:
            with open(shard, "r+b") as f:     # same size, other bytes
                f.seek(size - 4096)
                f.write(b"\x7f" * 4096)
        _, err = p.communicate(timeout=120)
        if p.returncode == 0 and not started:
            continue                           # finished before the change: again
        problems = []
        if p.returncode != 1:
            problems.append("exit %d: %s" % (p.returncode, err.strip()))
        if "changed" not in err.lower() and "truncated" not in err.lower():
            problems.append("message does not say the source changed: %s" % err.strip())
        if os.path.exists(target):
            problems.append("output left at the target path")
            os.remove(target)
        if leftovers(out_dir):
            problems.append("temporary files %s" % leftovers(out_dir))
            for n in leftovers(out_dir):
                os.remove(os.path.join(out_dir, n))
        check("shard %s while converting: %s" % (how, err.strip()[:100]),
              not problems, "; ".join(problems))
        return
    check("shard %s while converting" % how, False, "the conversion always won the race")


def mount_tmpfs(path, options):
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tsfaults", path],
                       capture_output=True)
    return r.returncode == 0


def umount(path):
    subprocess.run(["umount", path], capture_output=True)


def unwritable_targets(good, out_dir):
    before = digest(good)
    ro = os.path.join(WORK, "ro")
    full = os.path.join(WORK, "full")
    mounted_ro = mount_tmpfs(ro, "ro,size=64m")
    mounted_full = mount_tmpfs(full, "size=256k")
    if mounted_full:
        # fill it: the space check before converting and the writes of an
        # export must both meet a full file system
        try:
            with open(os.path.join(full, "filler"), "wb") as f:
                while True:
                    f.write(b"\0" * 4096)
                    f.flush()
        except OSError:
            pass
    blocker = os.path.join(out_dir, "a-file")
    with open(blocker, "w") as f:
        f.write("not a folder")
    try:
        targets = [("file-as-directory target", os.path.join(blocker, "x"),
                    ["not a directory"])]
        if mounted_ro:
            targets.append(("read-only target folder (ro tmpfs)", ro, ["read-only"]))
        else:
            print("# cannot mount tmpfs: read-only and full file system cases skipped")
        if mounted_full:
            targets.append(("full file system (256 KiB tmpfs)", full,
                            ["space", "free"]))
        for label, folder, words in targets:
            for kind, args, name in (
                    ("convert", ["convert", good, "--jobs", "1", "-o"], "out.gguf"),
                    ("layout svg", ["layout", good, "-o"], "out.svg"),
                    ("layout png", ["layout", good, "--width", "4000", "-o"], "out.png")):
                target = os.path.join(folder, name)
                r = subprocess.run([CLI] + args + [target], capture_output=True, text=True)
                problems = []
                if r.returncode != 1:
                    problems.append("exit %d" % r.returncode)
                if not any(w in r.stderr.lower() for w in words):
                    problems.append("message lacks %s: %s" % (words, r.stderr.strip()))
                if os.path.exists(target):
                    problems.append("a file at the target path")
                left = leftovers(folder) if os.path.isdir(folder) else []
                if left:
                    problems.append("temporary files %s" % left)
                    for n in left:
                        os.remove(os.path.join(folder, n))
                check("%s: %s (%s)" % (kind, label, r.stderr.strip()[:80]),
                      not problems, "; ".join(problems))
    finally:
        if mounted_ro:
            umount(ro)
        if mounted_full:
            umount(full)
        os.remove(blocker)
    check("sources untouched by the failed writes", digest(good) == before)


def main():
    os.makedirs(WORK, exist_ok=True)
    print("# seed %d (check_faults.py CLI WORKDIR %d reproduces the delays)" % (SEED, SEED))
    rng = random.Random(SEED)
    out_dir = os.path.join(WORK, "out")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    big = sample("big", "--layers", "8", "--hidden", "1024", "--heads", "16",
                 "--kv-heads", "4", "--intermediate", "4096", "--shards", "2")
    span = random_cancellation(big, out_dir, rng)
    random_kill(big, out_dir, rng, span)
    interrupt_after_commit(big, out_dir)
    source_changed(out_dir, "truncated")
    source_changed(out_dir, "rewritten in place")
    good = sample("good")
    unwritable_targets(good, out_dir)
    shutil.rmtree(WORK, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
