#!/usr/bin/env python3
"""Prints the sha256 of CUDA C files, in order, each normalized as
internal/testhelp.NormalizeC normalizes it (comments, blanks at line ends,
runs of blanks outside literals and empty lines do not count), the hash that a committed
PTX file's first line records (scripts/gpu-ptx.sh). testhelp's tests hold
the two to the same answers.

    scripts/ptx-sources-hash.py FILE...
"""
import hashlib
import sys


def normalize(src):
    out = []
    line = False  # the current line has kept something
    blank = False  # blanks since the last thing kept

    def keep(s):
        nonlocal line, blank
        if blank and line:
            out.append(" ")
        out.append(s)
        line, blank = True, False

    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "\n":
            if line:
                out.append("\n")
            line, blank = False, False
            i += 1
        elif c in " \t\r\v\f":
            blank = True
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                if src[j] == "\\":
                    j += 1
                j += 1
            j = min(j + 1, n)
            keep(src[i:j])
            i = j
        elif src.startswith("//", i):
            while i < n and src[i] != "\n":
                i += 1
        elif src.startswith("/*", i):
            end = src.find("*/", i + 2)
            i = n if end < 0 else end + 2
            blank = True
        else:
            keep(c)
            i += 1
    if line:
        out.append("\n")
    return "".join(out)


def main(files):
    h = hashlib.sha256()
    for f in files:
        with open(f, encoding="utf-8", newline="") as fh:
            h.update(normalize(fh.read()).encode("utf-8"))
    print(h.hexdigest())


if __name__ == "__main__":
    main(sys.argv[1:])
