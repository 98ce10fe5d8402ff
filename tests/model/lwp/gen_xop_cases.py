#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate tests/model/lwp/lwp_xop_cases.h: LWP instructions assembled by
GNU as (`as --64`), with the operands the generator asked for as the
expected decode. Usage: gen_xop_cases.py [output]  (default: stdout).
The check-in copy is verified by tests/model/lwp/xop_cases.sh."""
import os
import re
import subprocess
import sys
import tempfile

R64 = ["rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
       "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
R32 = ["eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
       "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"]
SEGS = {"": "LWP_XOP_SEG_NONE", "%fs:": "LWP_XOP_SEG_FS", "%gs:": "LWP_XOP_SEG_GS",
        "%es:": "LWP_XOP_SEG_ES", "%ds:": "LWP_XOP_SEG_DS", "%ss:": "LWP_XOP_SEG_SS",
        "%cs:": "LWP_XOP_SEG_CS"}
INSN = {"llwpcb": "LWP_XOP_LLWPCB", "slwpcb": "LWP_XOP_SLWPCB",
        "lwpins": "LWP_XOP_LWPINS", "lwpval": "LWP_XOP_LWPVAL"}


def cases():
    out = []
    # LLWPCB / SLWPCB: every register, 32- and 64-bit (43724 §5.1, §5.2).
    for m in ("llwpcb", "slwpcb"):
        for r in range(16):
            for size, names in ((32, R32), (64, R64)):
                out.append(dict(src="%s %%%s" % (m, names[r]), insn=m, opsize=size,
                                reg=r, vvvv=0, mem=None, imm=0))
    # LWPINS / LWPVAL, register forms: every vvvv x every rm (§5.3, §5.4).
    for m in ("lwpins", "lwpval"):
        for size, names in ((32, R32), (64, R64)):
            for v in range(16):
                for r in range(16):
                    imm = (0x1234 + 17 * v + r) if size == 32 else (0x7ABCDE00 ^ (v << 4 | r))
                    out.append(dict(src="%s $0x%x, %%%s, %%%s" % (m, imm, R32[r], names[v]),
                                    insn=m, opsize=size, reg=r, vvvv=v, mem=None, imm=imm))
    # Memory forms.
    mems = []
    for b in range(16):
        for disp in (None, 0x7f, -0x80, 0x12345678, -0x1000):
            mems.append(dict(base=b, index=-1, scale=1, disp=disp))
    for i in range(16):
        if i == 4:
            continue
        for s in (1, 2, 4, 8):
            mems.append(dict(base=0, index=i, scale=s, disp=None))
            mems.append(dict(base=13, index=i, scale=s, disp=-8))
            mems.append(dict(base=-1, index=i, scale=s, disp=0x1000))
    mems.append(dict(base=-1, index=-1, scale=1, disp=0x123456))
    mems.append(dict(rip=True, disp=0x10))
    mems.append(dict(rip=True, disp=-0x200))
    for mm in list(mems):
        pass
    k = 0
    for m in ("lwpins", "lwpval"):
        for mm in mems:
            for size, names in ((32, R32), (64, R64)):
                v = (k * 7) % 16
                k += 1
                imm = 0xffff if k % 3 == 0 else (0x10000 + k)
                out.append(dict(src=None, insn=m, opsize=size, reg=0, vvvv=v,
                                mem=dict(mm, seg="", a32=False), imm=imm, names=names))
    # Segment and address-size prefixes.
    # GNU as drops a redundant %ds: prefix, so it is not listed.
    for seg in ("%fs:", "%gs:", "%es:", "%ss:", "%cs:"):
        for m in ("lwpins", "lwpval"):
            out.append(dict(src=None, insn=m, opsize=64, reg=0, vvvv=3, imm=0x55,
                            mem=dict(base=6, index=2, scale=4, disp=0x40, seg=seg, a32=False),
                            names=R64))
    for m in ("lwpins", "lwpval"):
        for mm in (dict(base=0, index=-1, scale=1, disp=None),
                   dict(base=3, index=1, scale=8, disp=-4),
                   dict(base=12, index=13, scale=2, disp=0x1000),
                   dict(rip=True, disp=0x20)):
            out.append(dict(src=None, insn=m, opsize=32, reg=0, vvvv=9, imm=0x77,
                            mem=dict(mm, seg="", a32=True), names=R32))
        out.append(dict(src=None, insn=m, opsize=64, reg=0, vvvv=1, imm=0x78,
                        mem=dict(base=5, index=-1, scale=1, disp=8, seg="%fs:", a32=True),
                        names=R64))
    for c in out:
        if c["src"] is None:
            c["src"] = "%s $0x%x, %s, %%%s" % (c["insn"], c["imm"], memstr(c["mem"]),
                                              c["names"][c["vvvv"]])
    return out


def memstr(mm):
    regs = R32 if mm["a32"] else R64
    d = mm.get("disp")
    ds = "" if d is None else ("-0x%x" % -d if d < 0 else "0x%x" % d)
    if mm.get("rip"):
        return "%s%s(%%%s)" % (mm["seg"], ds, "eip" if mm["a32"] else "rip")
    inner = ""
    if mm["base"] >= 0:
        inner = "%" + regs[mm["base"]]
    if mm["index"] >= 0:
        inner += ",%%%s,%d" % (regs[mm["index"]], mm["scale"])
    if not inner:
        return "%s%s" % (mm["seg"], ds)
    return "%s%s(%s)" % (mm["seg"], ds, inner)


def assemble(lines):
    with tempfile.TemporaryDirectory() as d:
        s = os.path.join(d, "x.s")
        o = os.path.join(d, "x.o")
        with open(s, "w") as f:
            f.write("\t.text\n" + "".join(l + "\n" for l in lines))
        subprocess.run(["as", "--64", "-o", o, s], check=True)
        dump = subprocess.run(["objdump", "-d", "-w", "--insn-width=16", o], check=True,
                              capture_output=True, text=True).stdout
    res = []
    for line in dump.splitlines():
        m = re.match(r"^\s*[0-9a-f]+:\t((?:[0-9a-f]{2} )+)\s*\t?", line)
        if m:
            res.append(bytes.fromhex(m.group(1).replace(" ", "")))
    if len(res) != len(lines):
        raise SystemExit("objdump returned %d instructions for %d lines" % (len(res), len(lines)))
    return res


def main():
    cs = cases()
    enc = assemble([c["src"] for c in cs])
    o = []
    o.append("/* SPDX-License-Identifier: GPL-2.0 */")
    o.append("/* GENERATED by tests/model/lwp/gen_xop_cases.py from `%s`: do not edit." %
             subprocess.run(["as", "--version"], capture_output=True, text=True)
             .stdout.splitlines()[0])
    o.append(" * Each entry: bytes emitted by GNU as for the source line in its comment,")
    o.append(" * and the operands that line asked for (43724 §5.1-§5.4). */")
    o.append("static const struct xop_case xop_cases[] = {")
    for c, b in zip(cs, enc):
        mm = c["mem"]
        o.append("\t/* %s */" % c["src"])
        o.append("\t{ { %s }, %d, %s, %d, %d, %d, %d, %d, %d, %d, %d, %d, %s, %d, 0x%xu }," % (
            ", ".join("0x%02x" % x for x in b), len(b), INSN[c["insn"]], c["opsize"],
            c["reg"], c["vvvv"], 1 if mm else 0,
            (mm.get("base", -1) if mm and not mm.get("rip") else -1),
            (mm.get("index", -1) if mm and not mm.get("rip") else -1),
            (mm.get("scale", 1) if mm and not mm.get("rip") else 1),
            (1 if mm and mm.get("rip") else 0),
            ((mm.get("disp") or 0) if mm else 0),
            SEGS[mm["seg"]] if mm else "LWP_XOP_SEG_NONE",
            (32 if mm and mm["a32"] else 64),
            c["imm"] & 0xffffffff if c["insn"] in ("lwpins", "lwpval") else 0))
    o.append("};")
    text = "\n".join(o) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
