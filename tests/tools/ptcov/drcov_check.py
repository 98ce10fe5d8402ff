#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a drcov file by the published version 2 layout (DynamoRIO
clients/drcov: "DRCOV VERSION: 2", "DRCOV FLAVOR: ...", "Module Table:
version 2, count N", a "Columns:" line naming the columns, N module lines,
"BB Table: M bbs", M binary records <uint32 start, uint16 size, uint16
mod_id> little-endian, start relative to the module's base), and compare
its blocks with those of ptflow's instruction flow (issue 35).

Usage: drcov_check.py FILE.drcov [PTFLOW.txt]
PTFLOW.txt: `ptflow --no-symbols --raw-insn` output of the same traces.
A ptflow block starts at the first instruction after [enabled]/[resumed]
or after a branch, and ends after the next branch (branch: an instruction
whose successor in the flow is not the next address, or a jump/call/ret/
far transfer). Prints the counts; exit 0 when the sets are equal."""
import re
import struct
import sys


def read_drcov(path):
    data = open(path, "rb").read()
    pos = 0

    def line():
        nonlocal pos
        end = data.index(b"\n", pos)
        s = data[pos:end].decode()
        pos = end + 1
        return s

    assert line() == "DRCOV VERSION: 2", "version"
    assert line().startswith("DRCOV FLAVOR: "), "flavor"
    m = re.fullmatch(r"Module Table: version 2, count (\d+)", line())
    assert m, "module table header"
    nmod = int(m.group(1))
    cols = line()
    assert cols.startswith("Columns: "), "columns"
    cols = [c.strip() for c in cols[len("Columns: "):].split(",")]
    mods = []
    for _ in range(nmod):
        f = [x.strip() for x in line().split(",", len(cols) - 1)]
        rec = dict(zip(cols, f))
        assert int(rec["id"]) == len(mods), "module ids in order"
        mods.append((int(rec["base"], 16), int(rec["end"], 16), rec["path"]))
    m = re.fullmatch(r"BB Table: (\d+) bbs", line())
    assert m, "BB table header"
    nbb = int(m.group(1))
    assert len(data) - pos == 8 * nbb, "BB table size: %d bytes for %d bbs" % (
        len(data) - pos, nbb)
    bbs = set()
    for i in range(nbb):
        start, size, mod = struct.unpack_from("<IHH", data, pos + 8 * i)
        assert mod < nmod and size > 0, "bb %d" % i
        base = mods[mod][0]
        assert base + start + size <= mods[mod][1] + 16, "bb %d beyond its module" % i
        bbs.add((base + start, base + start + size))
    return mods, bbs


BRANCH = re.compile(r"\s(j\w+|call\w*|ret\w*|syscall|sysenter|int\w*|iret\w*|"
                    r"ljmp\w*|lcall\w*|lret\w*|ud[012])\b")


def ptflow_blocks(path):
    blocks = set()
    start = None
    prev = None             # (addr, len, is_branch)
    for ln in open(path):
        if ln.startswith("["):
            if re.match(r"\[(enabled|resumed)", ln):
                start = None
            continue
        m = re.match(r"([0-9a-f]+)\s+((?:[0-9a-f]{2} )+)\s*(.*)", ln)
        if not m:
            continue
        addr = int(m.group(1), 16)
        n = len(m.group(2).split())
        br = bool(BRANCH.search(" " + m.group(3)))
        if prev and start is not None and not prev[2] and prev[0] + prev[1] != addr:
            start = None
        if start is None:
            start = addr
        if br:
            blocks.add((start, addr + n))
            start = None
        prev = (addr, n, br)
    return blocks


def main():
    mods, bbs = read_drcov(sys.argv[1])
    print("drcov_check: %d modules, %d blocks" % (len(mods), len(bbs)))
    if len(sys.argv) < 3:
        return 0
    want = ptflow_blocks(sys.argv[2])
    extra, missing = bbs - want, want - bbs
    for b in sorted(missing)[:10]:
        print("ptflow block %x-%x not in drcov" % b)
    for b in sorted(extra)[:10]:
        print("drcov block %x-%x not in ptflow" % b)
    print("drcov_check: ptflow %d blocks; %d missing, %d extra" %
          (len(want), len(missing), len(extra)))
    return 1 if missing or extra else 0


if __name__ == "__main__":
    sys.exit(main())
