#!/usr/bin/env python3
"""Runs a command to its end and prints its wall time and the peak resident memory of the
largest process it ran (getrusage of the children), for commands whose memory is the figure.

    measure.py COMMAND [ARG...]
"""
import resource
import subprocess
import sys
import time


def main():
    began = time.perf_counter()
    done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
    spent = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"{sys.argv[1]} failed with {done.returncode}")
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"seconds={spent:.2f} peak_mib={peak_kib / 1024:.1f}")


if __name__ == "__main__":
    main()
