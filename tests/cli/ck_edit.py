#!/usr/bin/env python3
"""Edits a checkpoint the way a damaged disk or a curious user would (tests/cli/cli_checkpoint.sh).

  ck_edit.py checksum CK                     the FNV-1a 64 of CK's text before its checksum line
  ck_edit.py seal CK                         CK's checksum line made right again (after an edit)
  ck_edit.py set CK OUT BLOCK AT HEX [seal]  OUT: CK with the hex digits of BLOCK's value from
                                             digit AT replaced by HEX; with "seal", its checksum
                                             line made right again
  ck_edit.py cut CK OUT BLOCK KEEP [seal]    OUT: CK with BLOCK's hex digits cut to KEEP
"""
import sys

MARK = b"\nchecksum fnv1a64 "


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def body(text):
    return text[: text.rindex(MARK) + 1]


def seal(text):
    b = body(text)
    return b + b"checksum fnv1a64 " + fnv1a64(b).encode() + b"\nend\n"


def block(text, name):
    """(start, end) of the hex digits of block `name`."""
    line = text.index(b"\n" + name.encode() + b" ") + 1
    start = line
    for _ in range(3):
        start = text.index(b" ", start) + 1
    return start, text.index(b"\n", start)


def main(argv):
    text = open(argv[1], "rb").read()
    if argv[0] == "checksum":
        print(fnv1a64(body(text)))
        return
    if argv[0] == "seal":
        open(argv[1], "wb").write(seal(text))
        return
    out, name = argv[2], argv[3]
    start, end = block(text, name)
    if argv[0] == "set":
        at, digits = int(argv[4]), argv[5].encode()
        text = text[: start + at] + digits + text[start + at + len(digits):]
    else:
        text = text[: start + int(argv[4])] + text[end:]
    if argv[-1] == "seal":
        text = seal(text)
    open(out, "wb").write(text)


main(sys.argv[1:])
