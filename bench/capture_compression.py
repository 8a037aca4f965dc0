#!/usr/bin/env python3
"""Whether compressing capture blobs would pay: zlib (the library capture already links for
CRC-32) against writing the bytes as they are, on the kinds of data a capture holds.

    python3 bench/capture_compression.py [--mib 64] [--dir /tmp]

Prints, per kind of data, zlib level 1's throughput and ratio, and the throughput of writing the
same bytes to a file in --dir (with fsync, so the page cache does not hide the disk). Compression
pays only where the compressed write (compress time + compressed bytes / disk speed) beats the
plain write. Needs numpy.
"""
import argparse
import os
import tempfile
import time
import zlib

import numpy as np


def write_speed(data: bytes, where: str) -> float:
    fd, path = tempfile.mkstemp(dir=where)
    try:
        t = time.perf_counter()
        os.write(fd, data)
        os.fsync(fd)
        return len(data) / (time.perf_counter() - t)
    finally:
        os.close(fd)
        os.unlink(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64, help="size of each sample (default 64)")
    ap.add_argument("--dir", default=tempfile.gettempdir(), help="where the write test writes")
    a = ap.parse_args()
    n = a.mib * (1 << 20) // 4
    rng = np.random.default_rng(1)
    x, y = rng.uniform(-1, 1, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32)
    cases = {
        "uniform(-1,1) floats (an input)": x,
        "2x + y (a computed output)": (2 * x + y).astype(np.float32),
        "iota floats": np.arange(n, dtype=np.float32),
        "int labels 0..255": rng.integers(0, 256, n).astype(np.int32),
        "all 1.0f (a filled buffer)": np.ones(n, dtype=np.float32),
        "zeros (a fresh output)": np.zeros(n, dtype=np.float32),
    }
    disk = write_speed(x.tobytes(), a.dir)
    print(f"plain write with fsync in {a.dir}: {disk / 1e6:.0f} MB/s ({a.mib} MiB)")
    print(f"{'data':34s} {'zlib-1 MB/s':>11s} {'ratio':>7s} {'compressed write MB/s':>22s}  pays?")
    for name, arr in cases.items():
        b = arr.tobytes()
        t = time.perf_counter()
        z = zlib.compress(b, 1)
        dt = time.perf_counter() - t
        # effective speed of compress-then-write, per input byte
        eff = len(b) / (dt + len(z) / disk)
        print(f"{name:34s} {len(b) / dt / 1e6:11.0f} {len(b) / len(z):7.2f} {eff / 1e6:22.0f}  {'yes' if eff > disk else 'no'}")


if __name__ == "__main__":
    main()
