#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare ptcov's lcov tracefile with gcov's JSON of the same runs (issue 35,
Documentation/ptcov.rst "lcov: the gcov comparison").

Usage: gcov_compare.py RUN.info GCOV.json [GCOV.json...]
       gcov_compare.py --expect SRCDIR GCOV.json... > EXPECT
The second form prints what the comparison checks as records that
tests/vm/cases/86-ptcov-lcov.sh compares in the VM (no Python there):
"DA file line count", "FN file name count", "BR file line min max" (one
per conditional branch: its two outcomes in order).

For every source file gcov reports:
  - every line gcov reports executable: ptcov has a DA for it with the same
    count (so also the same set of executed lines);
  - every function: ptcov's FNDA equals gcov's execution_count;
  - every line whose gcov branches map to conditional branches: the multiset
    of {taken, not taken} pairs of ptcov's BRDA on that line equals gcov's
    pairs of arcs (a gcov line with 2k arcs is k conditional branches, arcs
    paired in gcov's order; gcov's unconditional or call arcs ignored).
Prints one line per difference and a summary; exit 0 when none."""
import json
import os
import re
import sys


def read_info(path):
    files = {}
    cur = None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("SF:"):
            cur = files.setdefault(os.path.basename(line[3:]),
                                   {"da": {}, "fn": {}, "br": {}})
        elif cur is None:
            continue
        elif line.startswith("DA:"):
            ln, cnt = line[3:].split(",")[:2]
            cur["da"][int(ln)] = int(cnt)
        elif line.startswith("FNDA:"):
            cnt, name = line[5:].split(",", 1)
            cur["fn"][name] = int(cnt)
        elif line.startswith("BRDA:"):
            ln, blk, br, taken = line[5:].split(",")
            cur["br"].setdefault((int(ln), int(blk)), {})[int(br)] = \
                0 if taken == "-" else int(taken)
    return files


def expect(srcdir, jsons):
    for j in jsons:
        for gf in json.load(open(j))["files"]:
            name = os.path.basename(gf["file"])
            src = open(os.path.join(srcdir, name)).read().split("\n")
            for fn in gf["functions"]:
                print("FN %s %s %d" % (name, fn["name"], fn["execution_count"]))
            for gl in gf["lines"]:
                ln = gl["line_number"]
                if re.match(r"(case\b.*|default\s*):", src[ln - 1].strip()):
                    continue
                print("DA %s %d %d" % (name, ln, gl["count"]))
                arcs = [b for b in gl["branches"] if not b.get("throw")]
                if not arcs or len(arcs) % 2 or any(
                        arcs[i]["fallthrough"] == arcs[i + 1]["fallthrough"]
                        for i in range(0, len(arcs), 2)):
                    continue
                for i in range(0, len(arcs), 2):
                    a, b = sorted((arcs[i]["count"], arcs[i + 1]["count"]))
                    print("BR %s %d %d %d" % (name, ln, a, b))
    return 0


def main():
    if sys.argv[1] == "--expect":
        return expect(sys.argv[2], sys.argv[3:])
    info = read_info(sys.argv[1])
    gfiles = []
    for j in sys.argv[2:]:
        gfiles += json.load(open(j))["files"]
    diffs = lines = funcs = branches = labels = 0
    for gf in gfiles:
        name = os.path.basename(gf["file"])
        pf = info.get(name)
        if pf is None:
            print("%s: not in ptcov's output" % name)
            diffs += 1
            continue
        for fn in gf["functions"]:
            funcs += 1
            got = pf["fn"].get(fn["name"])
            if got != fn["execution_count"]:
                print("%s: function %s: gcov %d, ptcov %s" %
                      (name, fn["name"], fn["execution_count"], got))
                diffs += 1
        src = None
        for d in (os.path.dirname(sys.argv[1]), "."):
            if os.path.exists(os.path.join(d, name)):
                src = open(os.path.join(d, name)).read().split("\n")
        for gl in gf["lines"]:
            lines += 1
            ln, cnt = gl["line_number"], gl["count"]
            got = pf["da"].get(ln)
            text = src[ln - 1].strip() if src and ln <= len(src) else ""
            if got is None and re.match(r"(case\b.*|default\s*):", text):
                labels += 1     # no code in DWARF: gcc's counter only
                continue
            if got != cnt:
                print("%s:%d: gcov %d, ptcov %s" % (name, ln, cnt, got))
                diffs += 1
            arcs = [b for b in gl["branches"] if not b.get("throw")]
            # conditional branches: arcs in pairs, one falling through
            if not arcs or len(arcs) % 2 or any(
                    arcs[i]["fallthrough"] == arcs[i + 1]["fallthrough"]
                    for i in range(0, len(arcs), 2)):
                continue
            want = sorted(tuple(sorted((arcs[i]["count"], arcs[i + 1]["count"])))
                          for i in range(0, len(arcs), 2))
            have = sorted(tuple(sorted(v.values()))
                          for (l, _), v in pf["br"].items() if l == ln)
            branches += len(want)
            if want != have:
                print("%s:%d: branches gcov %s, ptcov %s" %
                      (name, ln, want, have))
                diffs += 1
    print("gcov_compare: %d lines (%d case labels without code), %d "
          "functions, %d conditional branches compared; %d differences" %
          (lines, labels, funcs, branches, diffs))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
