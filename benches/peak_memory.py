#!/usr/bin/env python3
"""Runs a command and prints the peak of its anonymous resident memory (heap, stacks, the
buffers it allocated: /proc/PID/status RssAnon), sampled every millisecond, beside the peak
of all its resident memory (VmHWM, which also counts the pages of files it maps).

    python3 benches/peak_memory.py [--quiet] [--stdin FILE] -- COMMAND [ARG ...]

The command's standard output is thrown away, its standard error kept; with --stdin, FILE
is its standard input; with --quiet, the two peaks are printed alone, in MiB, separated by
a tab. Linux only.
"""
import subprocess
import sys
import time


def field(pid, name):
    """The value in kB of `name` in /proc/PID/status, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None
    return 0


def main():
    args = sys.argv[1:]
    quiet = args[:1] == ["--quiet"]
    if quiet:
        args = args[1:]
    stdin = None
    if args[:1] == ["--stdin"]:
        stdin = open(args[1], "rb")
        args = args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    child = subprocess.Popen(args, stdin=stdin, stdout=subprocess.DEVNULL)
    peak_anon = peak_all = 0
    while child.poll() is None:
        anon = field(child.pid, "RssAnon")
        hwm = field(child.pid, "VmHWM")
        if anon is not None:
            peak_anon = max(peak_anon, anon)
        if hwm is not None:
            peak_all = max(peak_all, hwm)
        time.sleep(0.001)
    line = f"peak anonymous memory {peak_anon / 1024:.1f} MiB, peak resident {peak_all / 1024:.1f} MiB, exit {child.returncode}"
    print(line if not quiet else f"{peak_anon / 1024:.1f}\t{peak_all / 1024:.1f}")


if __name__ == "__main__":
    main()
