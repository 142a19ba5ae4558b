#!/usr/bin/env python3
"""Read the subject and body of a cover letter written by git format-patch.

Usage: cover_letter.py read FILE

Prints the text that 'git format-patch --cover-from-description=subject'
turns back into the same cover letter: the subject, a blank line, the body.
"""
import re
import sys


def read_cover(text):
    head, _, body = text.partition("\n\n")
    subject = re.search(r"^Subject: (.*(?:\n .*)*)", head, re.M)
    if not subject:
        raise ValueError("no Subject: header")
    subject = re.sub(r"\n ", " ", subject.group(1))
    subject = re.sub(r"^\[(?:RFC )?PATCH[^\]]*\] ", "", subject)
    lines = body.split("\n")
    # The body ends where format-patch's shortlog starts: "Name (N):".
    end = len(lines)
    for i, line in enumerate(lines):
        if re.match(r"^\S.* \(\d+\):$", line) and i > 0 and lines[i - 1] == "":
            end = i - 1
            break
    return subject + "\n\n" + "\n".join(lines[:end]).rstrip("\n") + "\n"


def main(argv):
    if len(argv) != 3 or argv[1] != "read":
        sys.stderr.write(__doc__)
        return 2
    with open(argv[2], encoding="utf-8") as f:
        sys.stdout.write(read_cover(f.read()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
