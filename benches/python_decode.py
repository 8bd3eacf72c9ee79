#!/usr/bin/env python3
"""Decodes a name list read on standard input with Python's own codec (IDNA 2003, the
standard library's `idna` encoding), one name a line, as a peer of `idnscope decode`; a
name that the codec refuses is written as it is."""
import sys

out = sys.stdout
for line in sys.stdin:
    name = line.rstrip("\n")
    try:
        out.write(name.encode("ascii").decode("idna"))
    except (UnicodeError, ValueError):
        out.write(name)
    out.write("\n")
