#!/usr/bin/env python3
# durable-floor.py PATH BYTES WORKERS: the least a converter that writes
# BYTES with WORKERS threads and syncs them can take on this disk.  Space
# reserved (fallocate), then WORKERS threads take 4 MiB blocks in turn, as
# the converter's workers do, and write zeros straight to the disk
# (O_DIRECT, nothing to read or encode), then fsync.  Prints the seconds.
import mmap
import os
import sys
import threading
import time

BLOCK = 4 * 1024 * 1024


def main():
    path, total, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    t0 = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o644)
    try:
        os.posix_fallocate(fd, 0, total)
        blocks = (total + BLOCK - 1) // BLOCK
        taken = [0]
        lock = threading.Lock()

        def work():
            buf = mmap.mmap(-1, BLOCK)  # page-aligned, as O_DIRECT needs
            while True:
                with lock:
                    i = taken[0]
                    taken[0] += 1
                if i >= blocks:
                    return
                os.pwrite(fd, buf, i * BLOCK)

        threads = [threading.Thread(target=work) for _ in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        os.ftruncate(fd, total)
        os.fsync(fd)
    finally:
        os.close(fd)
    print(f"{time.perf_counter() - t0:.3f}")


if __name__ == "__main__":
    main()
