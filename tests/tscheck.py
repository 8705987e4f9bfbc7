"""What the Python checks share: PASS/FAIL lines with a closing
"N passed, M failed", and the writers' failure-path helpers (a folder's
digest, temporary files left behind, waiting until writing started)."""
import hashlib
import os
import time

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS", name)
    else:
        failed += 1
        print("FAIL", name, detail)


def summary():
    """Prints the closing line; the exit status for the script."""
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def digest(folder):
    h = hashlib.sha256()
    for n in sorted(os.listdir(folder)):
        p = os.path.join(folder, n)
        if os.path.isfile(p):
            h.update(n.encode())
            with open(p, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
    return h.hexdigest()


def leftovers(folder):
    """The converter's hidden .part files, and GIO's temporary files."""
    return [n for n in os.listdir(folder)
            if n.endswith(".part") or n.startswith(".goutputstream")]


def wait_for_part(out_dir, p, timeout=20):
    """Until the converter has its temporary file open (writing started)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout and p.poll() is None:
        if leftovers(out_dir):
            return True
        time.sleep(0.001)
    return False
