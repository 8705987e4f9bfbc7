#!/usr/bin/python3
"""Run a libFuzzer target once on every file of the given corpus folders
(seeds and committed regressions), without mutating anything.

usage: replay.py FUZZER DIR...
"""
import os
import subprocess
import sys

BATCH = 200


def main():
    fuzzer, dirs = sys.argv[1], sys.argv[2:]
    files = []
    for d in dirs:
        if os.path.isdir(d):
            files += [os.path.join(d, n) for n in sorted(os.listdir(d))
                      if os.path.isfile(os.path.join(d, n)) and not n.startswith(".")
                      and not n.endswith(".md")]
    if not files:
        print("no inputs in", dirs)
        return 1
    for i in range(0, len(files), BATCH):
        batch = files[i:i + BATCH]
        r = subprocess.run([fuzzer, "-rss_limit_mb=2048", "-timeout=60"] + batch,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            sys.stdout.write(r.stdout.decode(errors="replace")[-20000:])
            print("FAIL: %s crashed on one of %d inputs from %s" % (os.path.basename(fuzzer), len(batch), batch[0]))
            return 1
    print("%s: %d inputs replayed, no crash" % (os.path.basename(fuzzer), len(files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
