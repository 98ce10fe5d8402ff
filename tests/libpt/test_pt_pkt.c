// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libpt's packet decoder (include/lwpt/pt_pkt.h), SDM Vol. 3C
 * 33.4.2. Every decode writes into a packet pre-filled with a poison value
 * so fields the decoder forgets to write show up.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <intel-pt.h>

#include <lwpt/pebs.h>
#include <lwpt/pt_pkt.h>
#include "tests/check_run.h"

#define POISON	0xa5

/* ck_assert*() records every passing check (a write to Check's channel);
 * in loops over millions of packets only report failures. */
#define REQUIRE(cond, ...)						\
	do {								\
		if (!(cond))						\
			ck_abort_msg(__VA_ARGS__);			\
	} while (0)

/* Compare the fields @type selects. Returns 1 if equal. */
static int pkt_eq(const struct lpt_packet *a, const struct lpt_packet *b)
{
	if (a->type != b->type || a->size != b->size)
		return 0;
#define F(m) (a->payload.m == b->payload.m)
	switch (a->type) {
	case LPT_PKT_TNT_8:
	case LPT_PKT_TNT_64:
		return F(tnt.bits) && F(tnt.count);
	case LPT_PKT_TIP: case LPT_PKT_TIP_PGE: case LPT_PKT_TIP_PGD:
	case LPT_PKT_FUP:
		return F(ip.ip) && F(ip.ipc);
	case LPT_PKT_PIP:
		return F(pip.cr3) && F(pip.nr);
	case LPT_PKT_MODE_EXEC:
		return F(mode_exec.csl) && F(mode_exec.csd) &&
		       F(mode_exec.iflag) && F(mode_exec.bits);
	case LPT_PKT_MODE_TSX:
		return F(mode_tsx.intx) && F(mode_tsx.abrt) &&
		       F(mode_tsx.bits);
	case LPT_PKT_CBR:
		return F(cbr.ratio);
	case LPT_PKT_TSC:
		return F(tsc.tsc);
	case LPT_PKT_MTC:
		return F(mtc.ctc);
	case LPT_PKT_TMA:
		return F(tma.ctc) && F(tma.fc);
	case LPT_PKT_CYC:
		return F(cyc.value);
	case LPT_PKT_VMCS:
		return F(vmcs.base);
	case LPT_PKT_MNT:
		return F(mnt.payload);
	case LPT_PKT_PTW:
		return F(ptw.payload) && F(ptw.plc) && F(ptw.bytes) &&
		       F(ptw.ip);
	case LPT_PKT_EXSTOP:
		return F(exstop.ip);
	case LPT_PKT_MWAIT:
		return F(mwait.hints) && F(mwait.ext) && F(mwait.raw);
	case LPT_PKT_PWRE:
		return F(pwre.state) && F(pwre.sub_state) && F(pwre.hw) &&
		       F(pwre.raw);
	case LPT_PKT_PWRX:
		return F(pwrx.last) && F(pwrx.deepest) && F(pwrx.wake);
	case LPT_PKT_BBP:
		return F(bbp.sz) && F(bbp.type) && F(bbp.item_size);
	case LPT_PKT_BIP:
		return F(bip.value) && F(bip.id) && F(bip.bbp_type) &&
		       F(bip.size);
	case LPT_PKT_BEP:
		return F(bep.ip);
	case LPT_PKT_CFE:
		return F(cfe.type) && F(cfe.vector) && F(cfe.ip);
	case LPT_PKT_EVD:
		return F(evd.type) && F(evd.payload);
	case LPT_PKT_TRIG:
		return F(trig.icnt) && F(trig.trbv) && F(trig.ip) &&
		       F(trig.icntv) && F(trig.mult);
	default:
		return 1;
	}
#undef F
}

struct vec {
	const char *name;
	uint8_t len;
	uint8_t bytes[16];
	uint8_t blk_size;	/* block state before: 0 none, 4, 8 */
	struct lpt_packet exp;
	uint8_t blk_after;	/* expected in_block afterwards */
};

#define P(t, s, ...) { .type = LPT_PKT_##t, .size = (s), \
		       .payload = { __VA_ARGS__ } }

/*
 * Vectors transcribed from Linux perf's
 * tools/perf/arch/x86/tests/intel-pt-pkt-decoder-test.c (linux 6.1), with
 * perf's raw payload/count converted to our decoded fields (perf's TNT
 * payload is left-aligned, ours right-aligned; perf's PIP and VMCS are raw
 * payloads, ours are the CR3 and VMCS pointer values). Lengths are the
 * packet sizes.
 */
static const struct vec perf_vecs[] = {
	/* Padding Packet */
	{ "pad", 1, {0}, 0, P(PAD, 1), 0 },
	/* Short Taken/Not Taken Packet */
	{ "tnt8 1", 1, {4}, 0, P(TNT_8, 1, .tnt = { 0, 1 }), 0 },
	{ "tnt8 2", 1, {6}, 0, P(TNT_8, 1, .tnt = { 1, 1 }), 0 },
	{ "tnt8 3", 1, {0x80}, 0, P(TNT_8, 1, .tnt = { 0, 6 }), 0 },
	{ "tnt8 4", 1, {0xfe}, 0, P(TNT_8, 1, .tnt = { 0x3f, 6 }), 0 },
	/* Long Taken/Not Taken Packet */
	{ "tnt64 1", 8, {0x02, 0xa3, 2}, 0, P(TNT_64, 8, .tnt = { 0, 1 }), 0 },
	{ "tnt64 2", 8, {0x02, 0xa3, 3}, 0, P(TNT_64, 8, .tnt = { 1, 1 }), 0 },
	{ "tnt64 3", 8, {0x02, 0xa3, 0, 0, 0, 0, 0, 0x80}, 0,
	  P(TNT_64, 8, .tnt = { 0, 47 }), 0 },
	{ "tnt64 4", 8, {0x02, 0xa3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0,
	  P(TNT_64, 8, .tnt = { 0x7fffffffffffull, 47 }), 0 },
	/* Target IP Packet */
	{ "tip 0", 1, {0x0d}, 0, P(TIP, 1, .ip = { 0, 0 }), 0 },
	{ "tip 1", 3, {0x2d, 1, 2}, 0, P(TIP, 3, .ip = { 0x201, 1 }), 0 },
	{ "tip 2", 5, {0x4d, 1, 2, 3, 4}, 0,
	  P(TIP, 5, .ip = { 0x4030201, 2 }), 0 },
	{ "tip 3", 7, {0x6d, 1, 2, 3, 4, 5, 6}, 0,
	  P(TIP, 7, .ip = { 0x60504030201ull, 3 }), 0 },
	{ "tip 4", 7, {0x8d, 1, 2, 3, 4, 5, 6}, 0,
	  P(TIP, 7, .ip = { 0x60504030201ull, 4 }), 0 },
	{ "tip 6", 9, {0xcd, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
	  P(TIP, 9, .ip = { 0x807060504030201ull, 6 }), 0 },
	/* Packet Generation Enable */
	{ "pge 0", 1, {0x11}, 0, P(TIP_PGE, 1, .ip = { 0, 0 }), 0 },
	{ "pge 1", 3, {0x31, 1, 2}, 0, P(TIP_PGE, 3, .ip = { 0x201, 1 }), 0 },
	{ "pge 2", 5, {0x51, 1, 2, 3, 4}, 0,
	  P(TIP_PGE, 5, .ip = { 0x4030201, 2 }), 0 },
	{ "pge 3", 7, {0x71, 1, 2, 3, 4, 5, 6}, 0,
	  P(TIP_PGE, 7, .ip = { 0x60504030201ull, 3 }), 0 },
	{ "pge 4", 7, {0x91, 1, 2, 3, 4, 5, 6}, 0,
	  P(TIP_PGE, 7, .ip = { 0x60504030201ull, 4 }), 0 },
	{ "pge 6", 9, {0xd1, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
	  P(TIP_PGE, 9, .ip = { 0x807060504030201ull, 6 }), 0 },
	/* Packet Generation Disable */
	{ "pgd 0", 1, {0x01}, 0, P(TIP_PGD, 1, .ip = { 0, 0 }), 0 },
	{ "pgd 1", 3, {0x21, 1, 2}, 0, P(TIP_PGD, 3, .ip = { 0x201, 1 }), 0 },
	{ "pgd 2", 5, {0x41, 1, 2, 3, 4}, 0,
	  P(TIP_PGD, 5, .ip = { 0x4030201, 2 }), 0 },
	{ "pgd 3", 7, {0x61, 1, 2, 3, 4, 5, 6}, 0,
	  P(TIP_PGD, 7, .ip = { 0x60504030201ull, 3 }), 0 },
	{ "pgd 4", 7, {0x81, 1, 2, 3, 4, 5, 6}, 0,
	  P(TIP_PGD, 7, .ip = { 0x60504030201ull, 4 }), 0 },
	{ "pgd 6", 9, {0xc1, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
	  P(TIP_PGD, 9, .ip = { 0x807060504030201ull, 6 }), 0 },
	/* Flow Update Packet */
	{ "fup 0", 1, {0x1d}, 0, P(FUP, 1, .ip = { 0, 0 }), 0 },
	{ "fup 1", 3, {0x3d, 1, 2}, 0, P(FUP, 3, .ip = { 0x201, 1 }), 0 },
	{ "fup 2", 5, {0x5d, 1, 2, 3, 4}, 0,
	  P(FUP, 5, .ip = { 0x4030201, 2 }), 0 },
	{ "fup 3", 7, {0x7d, 1, 2, 3, 4, 5, 6}, 0,
	  P(FUP, 7, .ip = { 0x60504030201ull, 3 }), 0 },
	{ "fup 4", 7, {0x9d, 1, 2, 3, 4, 5, 6}, 0,
	  P(FUP, 7, .ip = { 0x60504030201ull, 4 }), 0 },
	{ "fup 6", 9, {0xdd, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
	  P(FUP, 9, .ip = { 0x807060504030201ull, 6 }), 0 },
	/* Paging Information Packet: payload 0xC0A08060402 / ...403 */
	{ "pip 1", 8, {0x02, 0x43, 2, 4, 6, 8, 10, 12}, 0,
	  P(PIP, 8, .pip = { 0xc0a080604020ull, 0 }), 0 },
	{ "pip 2", 8, {0x02, 0x43, 3, 4, 6, 8, 10, 12}, 0,
	  P(PIP, 8, .pip = { 0xc0a080604020ull, 1 }), 0 },
	/* Mode Exec Packet */
	{ "exec 16", 2, {0x99, 0x00}, 0,
	  P(MODE_EXEC, 2, .mode_exec = { 0, 0, 0, 0 }), 0 },
	{ "exec 64", 2, {0x99, 0x01}, 0,
	  P(MODE_EXEC, 2, .mode_exec = { 1, 0, 0, 1 }), 0 },
	{ "exec 32", 2, {0x99, 0x02}, 0,
	  P(MODE_EXEC, 2, .mode_exec = { 0, 1, 0, 2 }), 0 },
	{ "exec if 16", 2, {0x99, 0x04}, 0,
	  P(MODE_EXEC, 2, .mode_exec = { 0, 0, 1, 4 }), 0 },
	{ "exec if 64", 2, {0x99, 0x05}, 0,
	  P(MODE_EXEC, 2, .mode_exec = { 1, 0, 1, 5 }), 0 },
	{ "exec if 32", 2, {0x99, 0x06}, 0,
	  P(MODE_EXEC, 2, .mode_exec = { 0, 1, 1, 6 }), 0 },
	/* Mode TSX Packet */
	{ "tsx 0", 2, {0x99, 0x20}, 0, P(MODE_TSX, 2, .mode_tsx = { 0, 0, 0 }),
	  0 },
	{ "tsx intx", 2, {0x99, 0x21}, 0,
	  P(MODE_TSX, 2, .mode_tsx = { 1, 0, 1 }), 0 },
	{ "tsx abrt", 2, {0x99, 0x22}, 0,
	  P(MODE_TSX, 2, .mode_tsx = { 0, 1, 2 }), 0 },
	/* Trace Stop Packet */
	{ "stop", 2, {0x02, 0x83}, 0, P(TRACESTOP, 2), 0 },
	/* Core:Bus Ratio Packet */
	{ "cbr", 4, {0x02, 0x03, 0x12, 0}, 0, P(CBR, 4, .cbr = { 0x12 }), 0 },
	/* Timestamp Counter Packet */
	{ "tsc", 8, {0x19, 1, 2, 3, 4, 5, 6, 7}, 0,
	  P(TSC, 8, .tsc = { 0x7060504030201ull }), 0 },
	/* Mini Time Counter Packet */
	{ "mtc", 2, {0x59, 0x12}, 0, P(MTC, 2, .mtc = { 0x12 }), 0 },
	/* TSC / MTC Alignment Packet */
	{ "tma 0", 7, {0x02, 0x73}, 0, P(TMA, 7, .tma = { 0, 0 }), 0 },
	{ "tma ctc", 7, {0x02, 0x73, 1, 2}, 0, P(TMA, 7, .tma = { 0x201, 0 }),
	  0 },
	{ "tma fc", 7, {0x02, 0x73, 0, 0, 0, 0xff, 1}, 0,
	  P(TMA, 7, .tma = { 0, 0x1ff }), 0 },
	{ "tma both", 7, {0x02, 0x73, 0x80, 0xc0, 0, 0xff, 1}, 0,
	  P(TMA, 7, .tma = { 0xc080, 0x1ff }), 0 },
	/* Cycle Count Packet */
	{ "cyc 0", 1, {0x03}, 0, P(CYC, 1, .cyc = { 0 }), 0 },
	{ "cyc 1", 1, {0x0b}, 0, P(CYC, 1, .cyc = { 1 }), 0 },
	{ "cyc 1f", 1, {0xfb}, 0, P(CYC, 1, .cyc = { 0x1f }), 0 },
	{ "cyc 20", 2, {0x07, 2}, 0, P(CYC, 2, .cyc = { 0x20 }), 0 },
	{ "cyc fff", 2, {0xff, 0xfe}, 0, P(CYC, 2, .cyc = { 0xfff }), 0 },
	{ "cyc 1000", 3, {0x07, 1, 2}, 0, P(CYC, 3, .cyc = { 0x1000 }), 0 },
	{ "cyc 7ffff", 3, {0xff, 0xff, 0xfe}, 0,
	  P(CYC, 3, .cyc = { 0x7ffff }), 0 },
	{ "cyc 80000", 4, {0x07, 1, 1, 2}, 0, P(CYC, 4, .cyc = { 0x80000 }), 0 },
	{ "cyc 3ffffff", 4, {0xff, 0xff, 0xff, 0xfe}, 0,
	  P(CYC, 4, .cyc = { 0x3ffffff }), 0 },
	{ "cyc 5a", 5, {0x07, 1, 1, 1, 2}, 0, P(CYC, 5, .cyc = { 0x4000000 }),
	  0 },
	{ "cyc 5b", 5, {0xff, 0xff, 0xff, 0xff, 0xfe}, 0,
	  P(CYC, 5, .cyc = { 0x1ffffffffull }), 0 },
	{ "cyc 6a", 6, {0x07, 1, 1, 1, 1, 2}, 0,
	  P(CYC, 6, .cyc = { 0x200000000ull }), 0 },
	{ "cyc 6b", 6, {0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 0,
	  P(CYC, 6, .cyc = { 0xffffffffffull }), 0 },
	{ "cyc 7a", 7, {0x07, 1, 1, 1, 1, 1, 2}, 0,
	  P(CYC, 7, .cyc = { 0x10000000000ull }), 0 },
	{ "cyc 7b", 7, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 0,
	  P(CYC, 7, .cyc = { 0x7fffffffffffull }), 0 },
	{ "cyc 8a", 8, {0x07, 1, 1, 1, 1, 1, 1, 2}, 0,
	  P(CYC, 8, .cyc = { 0x800000000000ull }), 0 },
	{ "cyc 8b", 8, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}, 0,
	  P(CYC, 8, .cyc = { 0x3fffffffffffffull }), 0 },
	{ "cyc 9a", 9, {0x07, 1, 1, 1, 1, 1, 1, 1, 2}, 0,
	  P(CYC, 9, .cyc = { 0x40000000000000ull }), 0 },
	{ "cyc 9b", 9, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe},
	  0, P(CYC, 9, .cyc = { 0x1fffffffffffffffull }), 0 },
	{ "cyc 10a", 10, {0x07, 1, 1, 1, 1, 1, 1, 1, 1, 2}, 0,
	  P(CYC, 10, .cyc = { 0x2000000000000000ull }), 0 },
	{ "cyc 10b", 10,
	  {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xe}, 0,
	  P(CYC, 10, .cyc = { 0xffffffffffffffffull }), 0 },
	/* Virtual-Machine Control Structure Packet: payload 0x504030201 */
	{ "vmcs", 7, {0x02, 0xc8, 1, 2, 3, 4, 5}, 0,
	  P(VMCS, 7, .vmcs = { 0x504030201000ull }), 0 },
	/* Overflow Packet, also ends a packet block (SDM 33.4.1.1) */
	{ "ovf", 2, {0x02, 0xf3}, 0, P(OVF, 2), 0 },
	{ "ovf blk4", 2, {0x02, 0xf3}, 4, P(OVF, 2), 0 },
	{ "ovf blk8", 2, {0x02, 0xf3}, 8, P(OVF, 2), 0 },
	/* Packet Stream Boundary */
	{ "psb", 16, {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02,
		      0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82}, 0,
	  P(PSB, 16), 0 },
	{ "psb blk4", 16, {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
			   0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82}, 4,
	  P(PSB, 16), 0 },
	{ "psb blk8", 16, {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
			   0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82}, 8,
	  P(PSB, 16), 0 },
	/* PSB End Packet */
	{ "psbend", 2, {0x02, 0x23}, 0, P(PSBEND, 2), 0 },
	/* Maintenance Packet */
	{ "mnt", 11, {0x02, 0xc3, 0x88, 1, 2, 3, 4, 5, 6, 7}, 0,
	  P(MNT, 11, .mnt = { 0x7060504030201ull }), 0 },
	/* Write Data to PT Packet */
	{ "ptw 4", 6, {0x02, 0x12, 1, 2, 3, 4}, 0,
	  P(PTW, 6, .ptw = { 0x4030201, 0, 4, 0 }), 0 },
	{ "ptw 8", 10, {0x02, 0x32, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
	  P(PTW, 10, .ptw = { 0x807060504030201ull, 1, 8, 0 }), 0 },
	{ "ptw 4 ip", 6, {0x02, 0x92, 1, 2, 3, 4}, 0,
	  P(PTW, 6, .ptw = { 0x4030201, 0, 4, 1 }), 0 },
	{ "ptw 8 ip", 10, {0x02, 0xb2, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
	  P(PTW, 10, .ptw = { 0x807060504030201ull, 1, 8, 1 }), 0 },
	/* Execution Stop Packet */
	{ "exstop", 2, {0x02, 0x62}, 0, P(EXSTOP, 2, .exstop = { 0 }), 0 },
	{ "exstop ip", 2, {0x02, 0xe2}, 0, P(EXSTOP, 2, .exstop = { 1 }), 0 },
	/* Monitor Wait Packet: hints = byte 2, ext = byte 6 bits 1:0 */
	{ "mwait 0", 10, {0x02, 0xc2}, 0, P(MWAIT, 10, .mwait = { 0, 0, 0 }),
	  0 },
	{ "mwait 1", 10, {0x02, 0xc2, 1, 2, 3, 4, 5, 6, 7, 8}, 0,
	  P(MWAIT, 10, .mwait = { 1, 1, 0x807060504030201ull }), 0 },
	{ "mwait 2", 10, {0x02, 0xc2, 0xff, 2, 3, 4, 7, 6, 7, 8}, 0,
	  P(MWAIT, 10, .mwait = { 0xff, 3, 0x8070607040302ffull }), 0 },
	/* Power Entry Packet: perf payload 0x0201, 0x3480, 0x5600 */
	{ "pwre 0", 4, {0x02, 0x22}, 0, P(PWRE, 4, .pwre = { 0, 0, 0, 0 }), 0 },
	{ "pwre 1", 4, {0x02, 0x22, 1, 2}, 0,
	  P(PWRE, 4, .pwre = { 0, 2, 0, 0x0201 }), 0 },
	{ "pwre hw", 4, {0x02, 0x22, 0x80, 0x34}, 0,
	  P(PWRE, 4, .pwre = { 3, 4, 1, 0x3480 }), 0 },
	{ "pwre 56", 4, {0x02, 0x22, 0x00, 0x56}, 0,
	  P(PWRE, 4, .pwre = { 5, 6, 0, 0x5600 }), 0 },
	/* Power Exit Packet */
	{ "pwrx 0", 7, {0x02, 0xa2}, 0, P(PWRX, 7, .pwrx = { 0, 0, 0 }), 0 },
	{ "pwrx 1", 7, {0x02, 0xa2, 1, 2, 3, 4, 5}, 0,
	  P(PWRX, 7, .pwrx = { 0, 1, 2 }), 0 },
	{ "pwrx ff", 7, {0x02, 0xa2, 0xff, 0xff, 0xff, 0xff, 0xff}, 0,
	  P(PWRX, 7, .pwrx = { 0xf, 0xf, 0xf }), 0 },
	/* Block Begin Packet */
	{ "bbp 8", 3, {0x02, 0x63, 0x00}, 0,
	  P(BBP, 3, .bbp = { 0, 0, 8 }), 1 },
	{ "bbp 4", 3, {0x02, 0x63, 0x80}, 0,
	  P(BBP, 3, .bbp = { 1, 0, 4 }), 1 },
	{ "bbp 8 1f", 3, {0x02, 0x63, 0x1f}, 0,
	  P(BBP, 3, .bbp = { 0, 0x1f, 8 }), 1 },
	{ "bbp 4 1f", 3, {0x02, 0x63, 0x9f}, 0,
	  P(BBP, 3, .bbp = { 1, 0x1f, 4 }), 1 },
	/* 4-byte Block Item Packet (block type 0 in the perf test) */
	{ "bip4 0", 5, {0x04}, 4, P(BIP, 5, .bip = { 0, 0, 0, 4 }), 1 },
	{ "bip4 1f", 5, {0xfc}, 4, P(BIP, 5, .bip = { 0, 0x1f, 0, 4 }), 1 },
	{ "bip4 v", 5, {0x04, 1, 2, 3, 4}, 4,
	  P(BIP, 5, .bip = { 0x04030201, 0, 0, 4 }), 1 },
	{ "bip4 1f v", 5, {0xfc, 1, 2, 3, 4}, 4,
	  P(BIP, 5, .bip = { 0x04030201, 0x1f, 0, 4 }), 1 },
	/* 8-byte Block Item Packet */
	{ "bip8 0", 9, {0x04}, 8, P(BIP, 9, .bip = { 0, 0, 0, 8 }), 1 },
	{ "bip8 1f", 9, {0xfc}, 8, P(BIP, 9, .bip = { 0, 0x1f, 0, 8 }), 1 },
	{ "bip8 v", 9, {0x04, 1, 2, 3, 4, 5, 6, 7, 8}, 8,
	  P(BIP, 9, .bip = { 0x0807060504030201ull, 0, 0, 8 }), 1 },
	{ "bip8 1f v", 9, {0xfc, 1, 2, 3, 4, 5, 6, 7, 8}, 8,
	  P(BIP, 9, .bip = { 0x0807060504030201ull, 0x1f, 0, 8 }), 1 },
	/* Block End Packet */
	{ "bep blk4", 2, {0x02, 0x33}, 4, P(BEP, 2, .bep = { 0 }), 0 },
	{ "bep ip blk4", 2, {0x02, 0xb3}, 4, P(BEP, 2, .bep = { 1 }), 0 },
	{ "bep blk8", 2, {0x02, 0x33}, 8, P(BEP, 2, .bep = { 0 }), 0 },
	{ "bep ip blk8", 2, {0x02, 0xb3}, 8, P(BEP, 2, .bep = { 1 }), 0 },
	/* Control Flow Event Packet */
	{ "cfe 1", 4, {0x02, 0x13, 0x01, 0x03}, 0,
	  P(CFE, 4, .cfe = { 1, 3, 0 }), 0 },
	{ "cfe 1 ip", 4, {0x02, 0x13, 0x81, 0x03}, 0,
	  P(CFE, 4, .cfe = { 1, 3, 1 }), 0 },
	{ "cfe 1f", 4, {0x02, 0x13, 0x1f, 0x00}, 0,
	  P(CFE, 4, .cfe = { 0x1f, 0, 0 }), 0 },
	{ "cfe 1f ip", 4, {0x02, 0x13, 0x9f, 0xff}, 0,
	  P(CFE, 4, .cfe = { 0x1f, 0xff, 1 }), 0 },
	/* Event Data Packet */
	{ "evd 9", 11, {0x02, 0x53, 0x09, 1, 2, 3, 4, 5, 6, 7}, 0,
	  P(EVD, 11, .evd = { 0x7060504030201ull, 0x09 }), 0 },
	{ "evd 3f", 11, {0x02, 0x53, 0x3f, 2, 3, 4, 5, 6, 7, 8}, 0,
	  P(EVD, 11, .evd = { 0x8070605040302ull, 0x3f }), 0 },
};

/* More vectors from SDM 33.4.2 tables (our own). */
static const struct vec sdm_vecs[] = {
	/* Table 33-18: IPBytes 011b carries 6 bytes, sign extension is the
	 * last-IP helper's business, the raw payload stays 48 bits. */
	{ "tip sext48 neg", 7, {0x6d, 0, 0x10, 0xff, 0xff, 0xff, 0xff}, 0,
	  P(TIP, 7, .ip = { 0xffffffff1000ull, 3 }), 0 },
	/* Table 33-16: TNT-8 stop bit at bit 2 carries one bit. */
	{ "tnt8 taken", 1, {0x06}, 0, P(TNT_8, 1, .tnt = { 1, 1 }), 0 },
	/* Table 33-16: BNs order: 0b1_101101_0 -> B1..B6 = 1,0,1,1,0,1 */
	{ "tnt8 order", 1, {0xda}, 0, P(TNT_8, 1, .tnt = { 0x2d, 6 }), 0 },
	/* Table 33-42: reserved bits of MWAIT kept only in raw. */
	{ "mwait rsvd", 10, {0x02, 0xc2, 0x0b, 0, 0, 0, 0xfd, 0, 0, 0}, 0,
	  P(MWAIT, 10, .mwait = { 0x0b, 1, 0xfd0000000bull }), 0 },
	/* Table 33-44 wake reasons: timer (bit 1), store (bit 2). */
	{ "pwrx timer", 7, {0x02, 0xa2, 0x15, 0x02, 0, 0, 0}, 0,
	  P(PWRX, 7, .pwrx = { 1, 5, PT_PWRX_WAKE_TIMER }), 0 },
	/* Table 33-45/33-46: a BIP in a GPR block with 8-byte items. */
	{ "bip gpr rax", 9, {PT_BIP_HDR(PT_BIP_GPR_RAX), 0x88, 0x77, 0x66,
			     0x55, 0x44, 0x33, 0x22, 0x11}, 8,
	  P(BIP, 9, .bip = { 0x1122334455667788ull, PT_BIP_GPR_RAX, 0, 8 }),
	  1 },
	/* Outside a block xxxxx100b is a TNT-8 (SDM 33.4.1.1). */
	{ "bip byte as tnt", 1, {0x0c}, 0, P(TNT_8, 1, .tnt = { 2, 2 }), 0 },
	/* Table 33-15: a TNT inside a block ends it (it cannot be in one) --
	 * a TNT-8 byte 0x06 has low bits 110b, not a BIP. */
	{ "tnt ends block", 1, {0x06}, 8, P(TNT_8, 1, .tnt = { 1, 1 }), 0 },
	/* CBR/TSC/CFE/EVD inside a block leave it open. */
	{ "cbr in block", 4, {0x02, 0x03, 0x20, 0}, 8,
	  P(CBR, 4, .cbr = { 0x20 }), 1 },
	/* TRIG (libipt's dump-all-packets case). */
	{ "trig", 3, {0xd9, 0x20, 0xa1}, 0,
	  P(TRIG, 3, .trig = { 0, 0xa1, 0, 0, 1 }), 0 },
	{ "trig icnt", 5, {0xd9, 0xe0, 0xa1, 0x17, 0x00}, 0,
	  P(TRIG, 5, .trig = { 0x17, 0xa1, 1, 1, 1 }), 0 },
};

static void check_vec(const struct vec *v)
{
	struct lpt_pkt_block blk = { 0, 0, 0 };
	struct lpt_packet pkt;
	uint8_t buf[64];
	int ret;

	if (v->blk_size) {
		blk.in_block = 1;
		blk.item_size = v->blk_size;
	}
	/* Both the unchecked (buffer >= 16 bytes) and the tail path. */
	memset(buf, 0, sizeof(buf));
	memcpy(buf, v->bytes, v->len);
	memset(&pkt, POISON, sizeof(pkt));
	ret = lpt_pkt_decode(buf, sizeof(buf), &blk, &pkt, 0);
	ck_assert_msg(ret == v->exp.size, "%s: ret %d want %d", v->name, ret,
		      v->exp.size);
	ck_assert_msg(pkt_eq(&pkt, &v->exp), "%s: fields differ (type %s)",
		      v->name, lpt_pkt_type_name(pkt.type));
	ck_assert_msg(blk.in_block == v->blk_after, "%s: block state",
		      v->name);

	memset(&blk, 0, sizeof(blk));
	if (v->blk_size) {
		blk.in_block = 1;
		blk.item_size = v->blk_size;
	}
	memset(&pkt, POISON, sizeof(pkt));
	ret = lpt_pkt_decode(v->bytes, v->len, &blk, &pkt, 0);
	ck_assert_msg(ret == v->exp.size, "%s tail: ret %d", v->name, ret);
	ck_assert_msg(pkt_eq(&pkt, &v->exp), "%s tail: fields", v->name);
}

/* Every proper prefix of every packet is "need more bytes", never
 * corruption, and leaves the output and block state alone. */
static void check_prefixes(const struct vec *v)
{
	unsigned int n;

	for (n = 0; n < v->exp.size; n++) {
		struct lpt_pkt_block blk = { 0, 0, 0 }, before;
		struct lpt_packet pkt, poison;
		uint8_t *heap = malloc(n ? n : 1);
		int ret;

		if (v->blk_size) {
			blk.in_block = 1;
			blk.item_size = v->blk_size;
		}
		before = blk;
		memcpy(heap, v->bytes, n);	/* exact size: ASan sees overreads */
		memset(&pkt, POISON, sizeof(pkt));
		poison = pkt;
		ret = lpt_pkt_decode(heap, n, &blk, &pkt, 0);
		free(heap);
		ck_assert_msg(ret == LPT_ERR_EOS, "%s: prefix %u gives %d (%s)",
			      v->name, n, ret, lpt_errstr(ret));
		ck_assert(!memcmp(&pkt, &poison, sizeof(pkt)));
		ck_assert(!memcmp(&blk, &before, sizeof(blk)));
	}
}

START_TEST(test_perf_vectors)
{
	check_vec(&perf_vecs[_i]);
}
END_TEST

START_TEST(test_perf_prefixes)
{
	check_prefixes(&perf_vecs[_i]);
}
END_TEST

START_TEST(test_sdm_vectors)
{
	check_vec(&sdm_vecs[_i]);
	check_prefixes(&sdm_vecs[_i]);
}
END_TEST

/* Corruption is reported as such, whatever the buffer length. */
struct bad {
	const char *name;
	uint8_t len;
	uint8_t bytes[16];
	int ret;
};

static const struct bad bad_vecs[] = {
	{ "ipbytes 5", 9, {0xad, 1, 2, 3, 4, 5, 6, 7, 8}, LPT_ERR_BAD_PACKET },
	{ "ipbytes 7", 9, {0xfd, 1, 2, 3, 4, 5, 6, 7, 8}, LPT_ERR_BAD_PACKET },
	{ "ipbytes 5 short", 1, {0xb1}, LPT_ERR_BAD_PACKET },
	{ "mode leaf 2", 2, {0x99, 0x40}, LPT_ERR_BAD_PACKET },
	{ "mode leaf 7", 2, {0x99, 0xe0}, LPT_ERR_BAD_PACKET },
	{ "tnt64 no stop", 8, {0x02, 0xa3}, LPT_ERR_BAD_PACKET },
	{ "tnt64 no bits", 8, {0x02, 0xa3, 1}, LPT_ERR_BAD_PACKET },
	{ "ptw plc 2", 10, {0x02, 0x52, 1, 2, 3, 4, 5, 6, 7, 8},
	  LPT_ERR_BAD_PACKET },
	{ "ptw plc 3", 2, {0x02, 0xf2}, LPT_ERR_BAD_PACKET },
	{ "cyc 11 bytes", 11, {0x07, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2},
	  LPT_ERR_BAD_PACKET },
	{ "psb broken", 16, {0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
			     0x02, 0x82, 0x02, 0x82, 0x02, 0x83, 0x02, 0x82},
	  LPT_ERR_BAD_PACKET },
	{ "psb broken short", 5, {0x02, 0x82, 0x02, 0x83, 0x02},
	  LPT_ERR_BAD_PACKET },
	{ "ext 00", 2, {0x02, 0x00}, LPT_ERR_BAD_OPCODE },
	{ "ext ff", 2, {0x02, 0xff}, LPT_ERR_BAD_OPCODE },
	{ "mnt ext2", 11, {0x02, 0xc3, 0x89}, LPT_ERR_BAD_OPCODE },
	{ "opc 0x39", 1, {0x39}, LPT_ERR_BAD_OPCODE },
	{ "opc 0x09", 1, {0x09}, LPT_ERR_BAD_OPCODE },
	{ "opc 0x05", 1, {0x05}, LPT_ERR_BAD_OPCODE },
};

START_TEST(test_bad)
{
	const struct bad *v = &bad_vecs[_i];
	struct lpt_packet pkt, poison;
	uint8_t buf[32];
	int ret;

	memset(&pkt, POISON, sizeof(pkt));
	poison = pkt;
	ret = lpt_pkt_decode(v->bytes, v->len, NULL, &pkt, 0);
	ck_assert_msg(ret == v->ret, "%s: %d", v->name, ret);
	ck_assert(!memcmp(&pkt, &poison, sizeof(pkt)));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, v->bytes, v->len);
	ret = lpt_pkt_decode(buf, sizeof(buf), NULL, &pkt, 0);
	ck_assert_msg(ret == v->ret, "%s (long buffer): %d", v->name, ret);
}
END_TEST

/* Reserved TMA bits: accepted by default (SDM 33.4.2: RSVD bits are not
 * guaranteed 0), rejected with LPT_PKT_F_STRICT_RSVD (libipt), an
 * 8-byte invalid packet under SKZ84. */
START_TEST(test_tma_reserved)
{
	const uint8_t fc[] = { 0x02, 0x73, 0x01, 0x01, 0x00, 0x01, 0x03, 0 };
	const uint8_t ctc[] = { 0x02, 0x73, 0x01, 0x01, 0x01, 0x01, 0x00, 0 };
	struct lpt_cpu skx = { 1, 0x55, 6, 4 };
	struct lpt_packet pkt;

	ck_assert_int_eq(lpt_pkt_decode(fc, 7, NULL, &pkt, 0), 7);
	ck_assert_int_eq(pkt.payload.tma.fc, 0x101);
	ck_assert_int_eq(lpt_pkt_decode(ctc, 7, NULL, &pkt, 0), 7);
	ck_assert_int_eq(lpt_pkt_decode(fc, 7, NULL, &pkt,
					LPT_PKT_F_STRICT_RSVD),
			 LPT_ERR_BAD_PACKET);
	ck_assert_int_eq(lpt_pkt_decode(ctc, 7, NULL, &pkt,
					LPT_PKT_F_STRICT_RSVD),
			 LPT_ERR_BAD_PACKET);
	ck_assert_uint_eq(lpt_cpu_errata(&skx), LPT_PKT_F_ERRATUM_SKZ84);
	ck_assert_int_eq(lpt_pkt_decode(fc, 8, NULL, &pkt,
					LPT_PKT_F_ERRATUM_SKZ84), 8);
	ck_assert_int_eq(pkt.type, LPT_PKT_INVALID);
	ck_assert_int_eq(lpt_pkt_decode(fc, 7, NULL, &pkt,
					LPT_PKT_F_ERRATUM_SKZ84), LPT_ERR_EOS);
}
END_TEST

/* SKD007: CYC "f7 02" + "f3" is an OVF (libipt's skd007 cases). */
START_TEST(test_skd007)
{
	const uint8_t b[] = { 0xf7, 0x02, 0xf3, 0x00 };
	struct lpt_cpu skl = { 1, 0x4e, 6, 3 };
	struct lpt_packet pkt;

	ck_assert_uint_eq(lpt_cpu_errata(&skl), LPT_PKT_F_ERRATUM_SKD007);
	ck_assert_int_eq(lpt_pkt_decode(b, 4, NULL, &pkt,
					LPT_PKT_F_ERRATUM_SKD007), 3);
	ck_assert_int_eq(pkt.type, LPT_PKT_OVF);
	ck_assert_int_eq(lpt_pkt_decode(b, 4, NULL, &pkt, 0), 2);
	ck_assert_int_eq(pkt.type, LPT_PKT_CYC);
	ck_assert_int_eq(pkt.payload.cyc.value, 0x3e);
	/* The decoder object applies the CPU's errata by itself. */
	{
		struct lpt_pkt_config cfg;
		struct lpt_pkt_decoder *dec;

		lpt_pkt_config_init(&cfg);
		cfg.cpu = skl;
		dec = lpt_pkt_alloc(b, sizeof(b), &cfg);
		ck_assert_int_eq(lpt_pkt_sync_set(dec, 0), 0);
		ck_assert_int_eq(lpt_pkt_next(dec, &pkt), 3);
		ck_assert_int_eq(pkt.type, LPT_PKT_OVF);
		lpt_pkt_free(dec);
	}
	/* Without the third byte, no workaround. */
	ck_assert_int_eq(lpt_pkt_decode(b, 2, NULL, &pkt,
					LPT_PKT_F_ERRATUM_SKD007), 2);
	ck_assert_int_eq(pkt.type, LPT_PKT_CYC);
}
END_TEST

/* ---- Encoder round trips (a small encoder from pt_packets.h) ---------- */

static uint64_t rnd_state = 0x123456789abcdefull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Encode @pkt (type and fields) into @buf; returns the size. */
static int encode(const struct lpt_packet *pkt, uint8_t *buf)
{
	const __typeof__(pkt->payload) *pl = &pkt->payload;
	unsigned int n;

	switch (pkt->type) {
	case LPT_PKT_PAD:
		buf[0] = PT_OPC_PAD;
		return PT_PAD_SIZE;
	case LPT_PKT_TNT_8:
		buf[0] = PT_TNT_8_BYTE(pl->tnt.bits, pl->tnt.count);
		return 1;
	case LPT_PKT_TNT_64:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_TNT_64;
		put_le(buf + 2, pl->tnt.bits | (1ull << pl->tnt.count), 6);
		return PT_TNT_64_SIZE;
	case LPT_PKT_TIP: case LPT_PKT_TIP_PGE: case LPT_PKT_TIP_PGD:
	case LPT_PKT_FUP: {
		static const uint8_t opc[] = {
			[LPT_PKT_TIP] = PT_OPC_TIP,
			[LPT_PKT_TIP_PGE] = PT_OPC_TIP_PGE,
			[LPT_PKT_TIP_PGD] = PT_OPC_TIP_PGD,
			[LPT_PKT_FUP] = PT_OPC_FUP,
		};

		n = PT_IPBYTES_PAYLOAD_SIZE(pl->ip.ipc);
		buf[0] = PT_IP_HDR(opc[pkt->type], pl->ip.ipc);
		put_le(buf + 1, pl->ip.ip, n);
		return (int)(1 + n);
	}
	case LPT_PKT_PIP:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_PIP;
		put_le(buf + 2, PT_PIP_CR3_TO_PAYLOAD(pl->pip.cr3) |
			   (pl->pip.nr ? PT_PIP_NR : 0), 6);
		return PT_PIP_SIZE;
	case LPT_PKT_MODE_EXEC:
		buf[0] = PT_OPC_MODE;
		buf[1] = PT_MODE_BYTE(PT_MODE_LEAF_EXEC, pl->mode_exec.bits);
		return PT_MODE_SIZE;
	case LPT_PKT_MODE_TSX:
		buf[0] = PT_OPC_MODE;
		buf[1] = PT_MODE_BYTE(PT_MODE_LEAF_TSX, pl->mode_tsx.bits);
		return PT_MODE_SIZE;
	case LPT_PKT_TRACESTOP:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_TRACESTOP;
		return PT_TRACESTOP_SIZE;
	case LPT_PKT_CBR:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_CBR;
		buf[PT_CBR_RATIO_OFF] = pl->cbr.ratio;
		buf[3] = 0;
		return PT_CBR_SIZE;
	case LPT_PKT_TSC:
		buf[0] = PT_OPC_TSC;
		put_le(buf + PT_TSC_PL_OFF, pl->tsc.tsc, PT_TSC_PL_BYTES);
		return PT_TSC_SIZE;
	case LPT_PKT_MTC:
		buf[0] = PT_OPC_MTC;
		buf[PT_MTC_CTC_OFF] = pl->mtc.ctc;
		return PT_MTC_SIZE;
	case LPT_PKT_TMA:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_TMA;
		put_le(buf + PT_TMA_CTC_OFF, pl->tma.ctc, 2);
		buf[PT_TMA_RSVD_OFF] = 0;
		put_le(buf + PT_TMA_FC_OFF, pl->tma.fc, 2);
		return PT_TMA_SIZE;
	case LPT_PKT_CYC: {
		uint64_t v = pl->cyc.value >> PT_CYC_BITS;

		n = 0;
		buf[n] = (uint8_t)(PT_OPC_CYC |
				   ((pl->cyc.value & 0x1f) << PT_CYC_SHIFT) |
				   (v ? PT_CYC_EXP : 0));
		n++;
		while (v) {
			uint64_t rest = v >> PT_CYCX_BITS;

			buf[n++] = (uint8_t)(((v & 0x7f) << PT_CYCX_SHIFT) |
					     (rest ? PT_CYCX_EXP : 0));
			v = rest;
		}
		return (int)n;
	}
	case LPT_PKT_VMCS:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_VMCS;
		put_le(buf + 2, pl->vmcs.base >> PT_VMCS_SHIFT, 5);
		return PT_VMCS_SIZE;
	case LPT_PKT_OVF:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_OVF;
		return PT_OVF_SIZE;
	case LPT_PKT_PSB:
		for (n = 0; n < PT_PSB_REPEAT; n++) {
			buf[2 * n] = PT_OPC_EXT;
			buf[2 * n + 1] = PT_EXT_PSB;
		}
		return PT_PSB_SIZE;
	case LPT_PKT_PSBEND:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_PSBEND;
		return PT_PSBEND_SIZE;
	case LPT_PKT_MNT:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_MNT;
		buf[2] = PT_EXT2_MNT;
		put_le(buf + PT_MNT_PL_OFF, pl->mnt.payload, 8);
		return PT_MNT_SIZE;
	case LPT_PKT_PTW:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_PTW_EXT(pl->ptw.plc, pl->ptw.ip);
		n = PT_PTW_PAYLOAD_SIZE(pl->ptw.plc);
		put_le(buf + PT_PTW_PL_OFF, pl->ptw.payload, n);
		return (int)(PT_PTW_PL_OFF + n);
	case LPT_PKT_EXSTOP:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_EXSTOP | (pl->exstop.ip ? PT_EXSTOP_IP : 0);
		return PT_EXSTOP_SIZE;
	case LPT_PKT_MWAIT:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_MWAIT;
		put_le(buf + PT_MWAIT_PL_OFF, pl->mwait.raw, 8);
		return PT_MWAIT_SIZE;
	case LPT_PKT_PWRE:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_PWRE;
		put_le(buf + PT_PWRE_HW_OFF, pl->pwre.raw, 2);
		return PT_PWRE_SIZE;
	case LPT_PKT_PWRX:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_PWRX;
		buf[2] = (uint8_t)((pl->pwrx.last << PT_PWRX_LAST_SHIFT) |
				   pl->pwrx.deepest);
		buf[3] = pl->pwrx.wake;
		buf[4] = buf[5] = buf[6] = 0;
		return PT_PWRX_SIZE;
	case LPT_PKT_BBP:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_BBP;
		buf[2] = (uint8_t)((pl->bbp.sz ? PT_BBP_SZ : 0) | pl->bbp.type);
		return PT_BBP_SIZE;
	case LPT_PKT_BIP:
		buf[0] = PT_BIP_HDR(pl->bip.id);
		put_le(buf + 1, pl->bip.value, pl->bip.size);
		return 1 + pl->bip.size;
	case LPT_PKT_BEP:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_BEP | (pl->bep.ip ? PT_BEP_IP : 0);
		return PT_BEP_SIZE;
	case LPT_PKT_CFE:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_CFE;
		buf[2] = (uint8_t)((pl->cfe.ip ? PT_CFE_IP : 0) | pl->cfe.type);
		buf[3] = pl->cfe.vector;
		return PT_CFE_SIZE;
	case LPT_PKT_EVD:
		buf[0] = PT_OPC_EXT;
		buf[1] = PT_EXT_EVD;
		buf[2] = pl->evd.type;
		put_le(buf + PT_EVD_PL_OFF, pl->evd.payload, 8);
		return PT_EVD_SIZE;
	default:
		return -1;
	}
}

/* A random, valid packet of @type, fields normalised as decoded. @blk is
 * the block state the packet will be decoded in. */
static void random_packet(int type, struct lpt_packet *p,
			  const struct lpt_pkt_block *blk)
{
	uint64_t r = rnd(), r2 = rnd();
	__typeof__(p->payload) *pl = &p->payload;

	memset(p, 0, sizeof(*p));
	p->type = (uint8_t)type;
	switch (type) {
	case LPT_PKT_TNT_8:
		pl->tnt.count = (uint8_t)(1 + r % 6);
		pl->tnt.bits = r2 & ((1ull << pl->tnt.count) - 1);
		if (blk->in_block && (PT_TNT_8_BYTE(pl->tnt.bits,
						    pl->tnt.count) & 7) == 4)
			pl->tnt.bits |= 1;	/* avoid a BIP-looking byte */
		break;
	case LPT_PKT_TNT_64:
		pl->tnt.count = (uint8_t)(1 + r % 47);
		pl->tnt.bits = r2 & ((1ull << pl->tnt.count) - 1);
		break;
	case LPT_PKT_TIP: case LPT_PKT_TIP_PGE: case LPT_PKT_TIP_PGD:
	case LPT_PKT_FUP: {
		static const uint8_t ipcs[] = { 0, 1, 2, 3, 4, 6 };
		static const uint64_t m[] = { 0, 0xffff, 0xffffffff,
			0xffffffffffffull, 0xffffffffffffull, 0, ~0ull };

		pl->ip.ipc = ipcs[r % 6];
		pl->ip.ip = r2 & m[pl->ip.ipc];
		break;
	}
	case LPT_PKT_PIP:
		pl->pip.cr3 = r & PT_PIP_CR3_MASK;
		pl->pip.nr = r2 & 1;
		break;
	case LPT_PKT_MODE_EXEC:
		pl->mode_exec.bits = r & 7;
		pl->mode_exec.csl = r & 1;
		pl->mode_exec.csd = (r >> 1) & 1;
		pl->mode_exec.iflag = (r >> 2) & 1;
		break;
	case LPT_PKT_MODE_TSX:
		pl->mode_tsx.bits = r & 3;
		pl->mode_tsx.intx = r & 1;
		pl->mode_tsx.abrt = (r >> 1) & 1;
		break;
	case LPT_PKT_CBR:
		pl->cbr.ratio = (uint8_t)r;
		break;
	case LPT_PKT_TSC:
		pl->tsc.tsc = r & 0x00ffffffffffffffull;
		break;
	case LPT_PKT_MTC:
		pl->mtc.ctc = (uint8_t)r;
		break;
	case LPT_PKT_TMA:
		pl->tma.ctc = (uint16_t)r;
		pl->tma.fc = r2 & PT_TMA_FC_MASK;
		break;
	case LPT_PKT_CYC:
		pl->cyc.value = r >> (r2 % 64);
		break;
	case LPT_PKT_VMCS:
		pl->vmcs.base = r & 0x000ffffffffff000ull;
		break;
	case LPT_PKT_MNT:
		pl->mnt.payload = r;
		break;
	case LPT_PKT_PTW:
		pl->ptw.plc = r2 & 1;
		pl->ptw.bytes = pl->ptw.plc ? 8 : 4;
		pl->ptw.ip = (r2 >> 1) & 1;
		pl->ptw.payload = pl->ptw.plc ? r : (r & 0xffffffff);
		break;
	case LPT_PKT_EXSTOP:
		pl->exstop.ip = r & 1;
		break;
	case LPT_PKT_MWAIT:
		pl->mwait.raw = r;
		pl->mwait.hints = (uint8_t)r;
		pl->mwait.ext = (r >> 32) & 3;
		break;
	case LPT_PKT_PWRE:
		pl->pwre.raw = (uint16_t)r;
		pl->pwre.hw = (r >> 7) & 1;
		pl->pwre.state = (r >> 12) & 0xf;
		pl->pwre.sub_state = (r >> 8) & 0xf;
		break;
	case LPT_PKT_PWRX:
		pl->pwrx.last = r & 0xf;
		pl->pwrx.deepest = (r >> 4) & 0xf;
		pl->pwrx.wake = (r >> 8) & 0xf;
		break;
	case LPT_PKT_BBP:
		pl->bbp.sz = r & 1;
		pl->bbp.type = (r >> 1) & 0x1f;
		pl->bbp.item_size = pl->bbp.sz ? 4 : 8;
		break;
	case LPT_PKT_BIP:
		pl->bip.id = r2 & 0x1f;
		pl->bip.bbp_type = blk->bbp_type;
		pl->bip.size = blk->item_size;
		pl->bip.value = blk->item_size == 4 ? (r & 0xffffffff) : r;
		break;
	case LPT_PKT_BEP:
		pl->bep.ip = r & 1;
		break;
	case LPT_PKT_CFE:
		pl->cfe.type = r & 0x1f;
		pl->cfe.vector = (uint8_t)(r >> 8);
		pl->cfe.ip = (r >> 16) & 1;
		break;
	case LPT_PKT_EVD:
		pl->evd.type = r2 & 0x3f;
		pl->evd.payload = r;
		break;
	default:
		break;
	}
}

/* Random streams of every packet type: encode, decode with the decoder
 * object (fast path and tail), compare. */
START_TEST(test_round_trip)
{
	enum { N = 4000 };
	static struct lpt_packet want[N];
	static uint8_t buf[N * 16];
	struct lpt_pkt_block blk = { 0, 0, 0 };
	struct lpt_pkt_decoder *dec;
	struct lpt_packet got;
	size_t len = 0;
	int i, ret;

	for (i = 0; i < N; i++) {
		int type;

		do {
			type = 1 + (int)(rnd() % (LPT_PKT_TRIG - 1));
		} while (type == LPT_PKT_BIP && !blk.in_block);
		random_packet(type, &want[i], &blk);
		ret = encode(&want[i], buf + len);
		ck_assert_int_gt(ret, 0);
		want[i].size = (uint8_t)ret;
		/* Track block state the way the decoder must. */
		ck_assert_int_eq(lpt_pkt_decode(buf + len, (size_t)ret, &blk,
						&got, 0), ret);
		len += (size_t)ret;
	}

	dec = lpt_pkt_alloc(buf, len, NULL);
	ck_assert_ptr_nonnull(dec);
	ck_assert_int_eq(lpt_pkt_sync_set(dec, 0), 0);
	for (i = 0; i < N; i++) {
		memset(&got, POISON, sizeof(got));
		ret = lpt_pkt_next(dec, &got);
		ck_assert_msg(ret == want[i].size, "#%d %s: ret %d want %d", i,
			      lpt_pkt_type_name(want[i].type), ret,
			      want[i].size);
		ck_assert_msg(pkt_eq(&got, &want[i]), "#%d %s differs", i,
			      lpt_pkt_type_name(want[i].type));
	}
	ck_assert_int_eq(lpt_pkt_next(dec, &got), LPT_ERR_EOS);
	lpt_pkt_free(dec);
}
END_TEST

/* ---- Sync (SDM 33.4.2.17) --------------------------------------------- */

static const uint8_t psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

START_TEST(test_sync)
{
	/* Every offset and every buffer length around a PSB, with "02 82"
	 * look-alike bytes before it. */
	uint8_t buf[96];
	unsigned int at, len;

	for (at = 0; at + 16 + 2 <= sizeof(buf); at++) {
		struct lpt_pkt_decoder *dec;
		struct lpt_packet pkt;
		uint64_t off;

		memset(buf, 0, sizeof(buf));
		if (at >= 3) {
			buf[at - 3] = 0x82;	/* partial look-alike */
			buf[at - 2] = 0x00;
			buf[at - 1] = 0x82;
		}
		memcpy(buf + at, psb, 16);
		buf[at + 16] = 0x02;
		buf[at + 17] = 0x23;	/* PSBEND */
		for (len = at + 16; len <= sizeof(buf); len += 7) {
			dec = lpt_pkt_alloc(buf, len, NULL);
			ck_assert_int_eq(lpt_pkt_next(dec, &pkt),
					 LPT_ERR_NOSYNC);
			ck_assert_int_eq(lpt_pkt_sync_forward(dec), 0);
			ck_assert_int_eq(lpt_pkt_get_offset(dec, &off), 0);
			ck_assert_uint_eq(off, at);
			ck_assert_int_eq(lpt_pkt_next(dec, &pkt), 16);
			ck_assert_int_eq(pkt.type, LPT_PKT_PSB);
			ck_assert_int_eq(lpt_pkt_sync_forward(dec),
					 LPT_ERR_EOS);
			ck_assert_int_eq(lpt_pkt_sync_backward(dec), 0);
			ck_assert_int_eq(lpt_pkt_get_sync_offset(dec, &off),
					 0);
			ck_assert_uint_eq(off, at);
			ck_assert_int_eq(lpt_pkt_sync_backward(dec),
					 LPT_ERR_EOS);
			lpt_pkt_free(dec);
		}
		/* Truncated PSB: no sync. */
		dec = lpt_pkt_alloc(buf, at + 15, NULL);
		ck_assert_int_eq(lpt_pkt_sync_forward(dec), LPT_ERR_EOS);
		ck_assert_int_eq(lpt_pkt_sync_backward(dec), LPT_ERR_EOS);
		lpt_pkt_free(dec);
	}
}
END_TEST

START_TEST(test_sync_many)
{
	/* PSBs at irregular offsets, separated by PADs and an 18-byte "02 82"
	 * run (the PSB is its last 16 bytes). */
	static const unsigned int at[] = { 5, 40, 60, 130, 150 };
	uint8_t buf[256];
	struct lpt_pkt_decoder *dec;
	uint64_t off;
	unsigned int i;

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < 5; i++)
		memcpy(buf + at[i], psb, 16);
	buf[58] = 0x02;
	buf[59] = 0x82;		/* run 58..75, PSB at 60 */
	dec = lpt_pkt_alloc(buf, sizeof(buf), NULL);
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(lpt_pkt_sync_forward(dec), 0);
		lpt_pkt_get_offset(dec, &off);
		ck_assert_uint_eq(off, at[i]);
	}
	ck_assert_int_eq(lpt_pkt_sync_forward(dec), LPT_ERR_EOS);
	lpt_pkt_set_buffer(dec, buf, sizeof(buf));
	for (i = 5; i-- > 0;) {
		ck_assert_int_eq(lpt_pkt_sync_backward(dec), 0);
		lpt_pkt_get_offset(dec, &off);
		ck_assert_uint_eq(off, at[i]);
	}
	ck_assert_int_eq(lpt_pkt_sync_backward(dec), LPT_ERR_EOS);
	lpt_pkt_free(dec);
}
END_TEST

/* After a bad packet the decoder reports its offset, does not move, and
 * resynchronises at the next PSB even if the bad packet overlapped it. */
START_TEST(test_resync)
{
	uint8_t buf[64];
	struct lpt_pkt_decoder *dec;
	struct lpt_packet pkt;
	uint64_t off;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, psb, 16);
	buf[16] = 0x02;
	buf[17] = 0x23;
	buf[18] = 0x02;
	buf[19] = 0x99;		/* bad ext opcode */
	memcpy(buf + 30, psb, 16);
	dec = lpt_pkt_alloc(buf, sizeof(buf), NULL);
	ck_assert_int_eq(lpt_pkt_sync_forward(dec), 0);
	ck_assert_int_eq(lpt_pkt_next(dec, &pkt), 16);
	ck_assert_int_eq(lpt_pkt_next(dec, &pkt), 2);
	ck_assert_int_eq(lpt_pkt_next(dec, &pkt), LPT_ERR_BAD_OPCODE);
	lpt_pkt_get_offset(dec, &off);
	ck_assert_uint_eq(off, 18);
	ck_assert_int_eq(lpt_pkt_next(dec, &pkt), LPT_ERR_BAD_OPCODE);
	ck_assert_int_eq(lpt_pkt_sync_forward(dec), 0);
	lpt_pkt_get_offset(dec, &off);
	ck_assert_uint_eq(off, 30);

	/* Decoding from inside the PSB: sync_forward still finds it. */
	ck_assert_int_eq(lpt_pkt_sync_set(dec, 33), 0);
	ck_assert_int_eq(lpt_pkt_next(dec, &pkt), 1);	/* 0x82: a TNT-8 */
	ck_assert_int_eq(lpt_pkt_sync_forward(dec), 0);
	lpt_pkt_get_offset(dec, &off);
	ck_assert_uint_eq(off, 30);
	ck_assert_int_eq(lpt_pkt_sync_set(dec, sizeof(buf) + 1), LPT_ERR_EOS);
	lpt_pkt_free(dec);
}
END_TEST

/* ---- Last IP, SDM Table 33-18 ----------------------------------------- */

START_TEST(test_last_ip)
{
	struct lpt_last_ip lip;
	uint64_t ip;

	lpt_last_ip_init(&lip);
	ck_assert_int_eq(lpt_last_ip_query(&lip, &ip), LPT_ERR_NOIP);
	/* "Last IP is initialized to zero": 16-bit update against 0. */
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_UPDATE_16, 0x1234),
			 0);
	ck_assert_int_eq(lpt_last_ip_query(&lip, &ip), 0);
	ck_assert_uint_eq(ip, 0x1234);
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_FULL,
					    0xffffffff81000000ull), 0);
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_UPDATE_16, 0xbeef),
			 0);
	lpt_last_ip_query(&lip, &ip);
	ck_assert_uint_eq(ip, 0xffffffff8100beefull);
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_UPDATE_32,
					    0x12345678), 0);
	lpt_last_ip_query(&lip, &ip);
	ck_assert_uint_eq(ip, 0xffffffff12345678ull);
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_UPDATE_48,
					    0x0000ffff00001000ull), 0);
	lpt_last_ip_query(&lip, &ip);
	ck_assert_uint_eq(ip, 0xffffffff00001000ull);
	/* 011b: IP Payload[47] extended. */
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_SEXT_48,
					    0x00007fffffff0000ull), 0);
	lpt_last_ip_query(&lip, &ip);
	ck_assert_uint_eq(ip, 0x00007fffffff0000ull);
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_SEXT_48,
					    0x0000800000000010ull), 0);
	lpt_last_ip_query(&lip, &ip);
	ck_assert_uint_eq(ip, 0xffff800000000010ull);
	/* 000b: suppressed, Last IP kept. */
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_SUPPRESSED, 0), 0);
	ck_assert_int_eq(lpt_last_ip_query(&lip, &ip),
			 LPT_ERR_IP_SUPPRESSED);
	ck_assert_uint_eq(ip, 0xffff800000000010ull);
	ck_assert_int_eq(lpt_last_ip_update(&lip, LPT_IPC_UPDATE_16, 0x20),
			 0);
	ck_assert_int_eq(lpt_last_ip_query(&lip, &ip), 0);
	ck_assert_uint_eq(ip, 0xffff800000000020ull);
	/* Reserved encodings. */
	ck_assert_int_eq(lpt_last_ip_update(&lip, 5, 0), LPT_ERR_BAD_PACKET);
	ck_assert_int_eq(lpt_last_ip_update(&lip, 7, 0), LPT_ERR_BAD_PACKET);
	ck_assert_int_eq(lpt_last_ip_query(&lip, &ip), 0);
	ck_assert_uint_eq(ip, 0xffff800000000020ull);
}
END_TEST

/* ---- Block state through the decoder object --------------------------- */

START_TEST(test_block_sequence)
{
	/* BBP(GPR, 8-byte) BIP(RAX) BIP(R15) CBR BIP(RIP) BEP(ip) FUP TNT */
	static const uint8_t b[] = {
		0x02, 0x63, PT_BBP_TYPE_GPR,
		PT_BIP_HDR(PT_BIP_GPR_RAX), 1, 0, 0, 0, 0, 0, 0, 0,
		PT_BIP_HDR(PT_BIP_GPR_R15), 2, 0, 0, 0, 0, 0, 0, 0,
		0x02, 0x03, 0x10, 0x00,
		PT_BIP_HDR(PT_BIP_GPR_RIP), 3, 0, 0, 0, 0, 0, 0, 0,
		0x02, 0xb3,
		0x3d, 0x00, 0x10,
		0x0c,
		0x02, 0x63, 0x80 | PT_BBP_TYPE_PEBS_BASIC,
		PT_BIP_HDR(PT_BIP_BASIC_TSC), 4, 0, 0, 0,
		0x02, 0xf3,
		0x0c,
	};
	static const int types[] = {
		LPT_PKT_BBP, LPT_PKT_BIP, LPT_PKT_BIP, LPT_PKT_CBR, LPT_PKT_BIP,
		LPT_PKT_BEP, LPT_PKT_FUP, LPT_PKT_TNT_8, LPT_PKT_BBP,
		LPT_PKT_BIP, LPT_PKT_OVF, LPT_PKT_TNT_8,
	};
	struct lpt_packet pkts[16];
	struct lpt_pkt_decoder *dec = lpt_pkt_alloc(b, sizeof(b), NULL);
	int n, i;

	lpt_pkt_sync_set(dec, 0);
	n = lpt_pkt_next_batch(dec, pkts, 16);
	ck_assert_int_eq(n, 12);
	for (i = 0; i < n; i++)
		ck_assert_msg(pkts[i].type == types[i], "#%d: %s", i,
			      lpt_pkt_type_name(pkts[i].type));
	ck_assert_uint_eq(pkts[1].payload.bip.value, 1);
	ck_assert_str_eq(lpt_bip_name(pkts[1].payload.bip.bbp_type,
				      pkts[1].payload.bip.id), "R/EAX");
	ck_assert_str_eq(lpt_bip_name(pkts[2].payload.bip.bbp_type,
				      pkts[2].payload.bip.id), "R15");
	ck_assert_str_eq(lpt_bip_name(pkts[4].payload.bip.bbp_type,
				      pkts[4].payload.bip.id), "R/EIP");
	ck_assert_int_eq(pkts[9].size, 5);
	ck_assert_str_eq(lpt_bip_name(pkts[9].payload.bip.bbp_type,
				      pkts[9].payload.bip.id), "Timestamp");
	ck_assert_int_eq(lpt_pkt_next_batch(dec, pkts, 16), LPT_ERR_EOS);
	lpt_pkt_free(dec);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(lpt_bip_name(PT_BBP_TYPE_LBR_0, 0),
			 "LBR[TOS-0]_FROM_IP");
	ck_assert_str_eq(lpt_bip_name(PT_BBP_TYPE_LBR_0, 0x1f),
			 "LBR[TOS-10]_TO_IP");
	ck_assert_str_eq(lpt_bip_name(PT_BBP_TYPE_LBR_1, 0x00),
			 "LBR[TOS-10]_INFO");
	ck_assert_str_eq(lpt_bip_name(PT_BBP_TYPE_LBR_1, 0x1f),
			 "LBR[TOS-21]_FROM_IP");
	ck_assert_str_eq(lpt_bip_name(PT_BBP_TYPE_LBR_2, 0x00),
			 "LBR[TOS-21]_TO_IP");
	ck_assert_str_eq(lpt_bip_name(PT_BBP_TYPE_LBR_2, 0x1f),
			 "LBR[TOS-31]_INFO");
	ck_assert_str_eq(lpt_bip_name(PT_BBP_TYPE_XMM, 0x1d), "XMM14_Q1");
	ck_assert_str_eq(lpt_bip_name(PT_BBP_TYPE_PEBS_MEM, 3), "TSXAuxInfo");
	ck_assert_ptr_null(lpt_bip_name(PT_BBP_TYPE_GPR, 0x12));
	ck_assert_ptr_null(lpt_bip_name(2, 0));
	ck_assert_uint_eq(PT_BIP_LBR_ENTRY(PT_BBP_TYPE_LBR_2, 0x1d), 31);
	ck_assert_uint_eq(PT_BIP_LBR_FIELD(PT_BBP_TYPE_LBR_2, 0x1d),
			  PT_BIP_LBR_FROM_IP);
	ck_assert_int_eq(pebs_bip_gpr_to_record_off(PT_BIP_GPR_RCX),
			 PEBS_REC_RCX);
	ck_assert_str_eq(lpt_cfe_type_name(PT_CFE_TYPE_VMEXIT_INTR),
			 "vmexit_intr");
	ck_assert_ptr_null(lpt_cfe_type_name(0xb));
	ck_assert_str_eq(lpt_evd_type_name(PT_EVD_TYPE_VMXR), "vmxr");
	ck_assert_str_eq(lpt_pkt_type_name(LPT_PKT_TRACESTOP), "stop");
	ck_assert_str_eq(lpt_pkt_type_name(999), "invalid");
	ck_assert_str_eq(lpt_errstr(LPT_ERR_EOS), "end of stream");
	ck_assert_str_eq(lpt_errstr(12345), "unknown error");
}
END_TEST

START_TEST(test_api_errors)
{
	struct lpt_pkt_config cfg;
	struct lpt_packet pkt;
	uint64_t off;
	struct lpt_pkt_decoder *dec;

	ck_assert_ptr_null(lpt_pkt_alloc(NULL, 4, NULL));
	ck_assert_int_eq(errno, EINVAL);
	lpt_pkt_config_init(&cfg);
	cfg.flags = 0x100;
	ck_assert_ptr_null(lpt_pkt_alloc(psb, 16, &cfg));
	cfg.flags = 0;
	cfg.size = 2;
	ck_assert_ptr_null(lpt_pkt_alloc(psb, 16, &cfg));
	lpt_pkt_config_init(&cfg);
	dec = lpt_pkt_alloc(NULL, 0, &cfg);
	ck_assert_ptr_nonnull(dec);
	ck_assert_int_eq(lpt_pkt_get_offset(dec, &off), LPT_ERR_NOSYNC);
	ck_assert_int_eq(lpt_pkt_sync_forward(dec), LPT_ERR_EOS);
	ck_assert_int_eq(lpt_pkt_sync_backward(dec), LPT_ERR_EOS);
	ck_assert_int_eq(lpt_pkt_sync_set(dec, 0), 0);
	ck_assert_int_eq(lpt_pkt_next(dec, &pkt), LPT_ERR_EOS);
	ck_assert_int_eq(lpt_pkt_next(NULL, &pkt), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_pkt_next(dec, NULL), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_pkt_next_batch(dec, &pkt, 0), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_pkt_decode(NULL, 1, NULL, &pkt, 0),
			 LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_pkt_decode(psb, 0, NULL, &pkt, 0), LPT_ERR_EOS);
	lpt_pkt_free(dec);
	lpt_pkt_free(NULL);
}
END_TEST

/* ---- Shared test data: real traces, libipt conformance traces --------- */

static char shared_dir[8192];

/* The repository root: walk up from the test binary (build/tests or
 * build/sanitize/tests) to the directory holding include/lwpt/pt_pkt.h. */
static int find_root(char *root, size_t size)
{
	char path[4096];
	struct stat st;
	ssize_t n;
	int up;

	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = 0;
	for (up = 0; up < 5; up++) {
		char probe[4200];
		char *slash = strrchr(path, '/');

		if (!slash || slash == path)
			return 0;
		*slash = 0;
		snprintf(probe, sizeof(probe), "%s/include/lwpt/pt_pkt.h", path);
		if (stat(probe, &st) == 0) {
			snprintf(root, size, "%s", path);
			return 1;
		}
	}
	return 0;
}

/* Shared test data: $LWPT_SHARED, else ../shared relative to the repository
 * root. */
static int find_shared(void)
{
	const char *env = getenv("LWPT_SHARED");
	char root[4096];
	struct stat st;

	if (env && *env)
		snprintf(shared_dir, sizeof(shared_dir), "%s", env);
	else if (find_root(root, sizeof(root)))
		snprintf(shared_dir, sizeof(shared_dir), "%s/../shared", root);
	else
		snprintf(shared_dir, sizeof(shared_dir), "../shared");
	return stat(shared_dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* libipt packet -> our packet, for the types both know. Returns 0 if
 * libipt's type has no counterpart to compare. */
static int from_libipt(const struct pt_packet *p, struct lpt_packet *q)
{
	memset(q, 0, sizeof(*q));
	q->size = p->size;
	switch (p->type) {
	case ppt_pad: q->type = LPT_PKT_PAD; break;
	case ppt_psb: q->type = LPT_PKT_PSB; break;
	case ppt_psbend: q->type = LPT_PKT_PSBEND; break;
	case ppt_ovf: q->type = LPT_PKT_OVF; break;
	case ppt_stop: q->type = LPT_PKT_TRACESTOP; break;
	case ppt_tnt_8:
	case ppt_tnt_64:
		q->type = p->type == ppt_tnt_8 ? LPT_PKT_TNT_8 : LPT_PKT_TNT_64;
		q->payload.tnt.bits = p->payload.tnt.payload;
		q->payload.tnt.count = p->payload.tnt.bit_size;
		break;
	case ppt_tip: case ppt_tip_pge: case ppt_tip_pgd: case ppt_fup:
		q->type = p->type == ppt_tip ? LPT_PKT_TIP :
			  p->type == ppt_tip_pge ? LPT_PKT_TIP_PGE :
			  p->type == ppt_tip_pgd ? LPT_PKT_TIP_PGD : LPT_PKT_FUP;
		q->payload.ip.ip = p->payload.ip.ip;
		q->payload.ip.ipc = (uint8_t)p->payload.ip.ipc;
		break;
	case ppt_pip:
		q->type = LPT_PKT_PIP;
		q->payload.pip.cr3 = p->payload.pip.cr3;
		q->payload.pip.nr = p->payload.pip.nr;
		break;
	case ppt_cbr:
		q->type = LPT_PKT_CBR;
		q->payload.cbr.ratio = p->payload.cbr.ratio;
		break;
	case ppt_tsc:
		q->type = LPT_PKT_TSC;
		q->payload.tsc.tsc = p->payload.tsc.tsc;
		break;
	case ppt_mtc:
		q->type = LPT_PKT_MTC;
		q->payload.mtc.ctc = p->payload.mtc.ctc;
		break;
	case ppt_tma:
		q->type = LPT_PKT_TMA;
		q->payload.tma.ctc = p->payload.tma.ctc;
		q->payload.tma.fc = p->payload.tma.fc;
		break;
	case ppt_cyc:
		q->type = LPT_PKT_CYC;
		q->payload.cyc.value = p->payload.cyc.value;
		break;
	case ppt_vmcs:
		q->type = LPT_PKT_VMCS;
		q->payload.vmcs.base = p->payload.vmcs.base;
		break;
	case ppt_mnt:
		q->type = LPT_PKT_MNT;
		q->payload.mnt.payload = p->payload.mnt.payload;
		break;
	case ppt_exstop:
		q->type = LPT_PKT_EXSTOP;
		q->payload.exstop.ip = p->payload.exstop.ip;
		break;
	case ppt_mwait:
		q->type = LPT_PKT_MWAIT;
		q->payload.mwait.raw = p->payload.mwait.hints |
				       ((uint64_t)p->payload.mwait.ext << 32);
		q->payload.mwait.hints = p->payload.mwait.hints & 0xff;
		q->payload.mwait.ext = p->payload.mwait.ext & 3;
		break;
	case ppt_pwrx:
		q->type = LPT_PKT_PWRX;
		q->payload.pwrx.last = p->payload.pwrx.last;
		q->payload.pwrx.deepest = p->payload.pwrx.deepest;
		q->payload.pwrx.wake =
			(p->payload.pwrx.interrupt ? PT_PWRX_WAKE_INTERRUPT :
			 0) | (p->payload.pwrx.store ? PT_PWRX_WAKE_STORE : 0) |
			(p->payload.pwrx.autonomous ? PT_PWRX_WAKE_HW : 0);
		break;
	case ppt_ptw:
		q->type = LPT_PKT_PTW;
		q->payload.ptw.payload = p->payload.ptw.payload;
		q->payload.ptw.plc = p->payload.ptw.plc;
		q->payload.ptw.bytes = p->payload.ptw.plc ? 8 : 4;
		q->payload.ptw.ip = p->payload.ptw.ip;
		break;
	case ppt_mode:
		if (p->payload.mode.leaf == pt_mol_exec) {
			q->type = LPT_PKT_MODE_EXEC;
			q->payload.mode_exec.csl =
				p->payload.mode.bits.exec.csl;
			q->payload.mode_exec.csd =
				p->payload.mode.bits.exec.csd;
		} else {
			q->type = LPT_PKT_MODE_TSX;
			q->payload.mode_tsx.intx =
				p->payload.mode.bits.tsx.intx;
			q->payload.mode_tsx.abrt =
				p->payload.mode.bits.tsx.abrt;
		}
		break;
	default:
		return 0;	/* pwre (HW bit differs), unknown, ... */
	}
	return 1;
}

/* Compare with libipt, ignoring fields libipt 2.0 does not have. */
static int same_as_libipt(const struct lpt_packet *ours,
			  const struct lpt_packet *ref)
{
	struct lpt_packet a = *ours;

	if (a.type == LPT_PKT_MODE_EXEC) {
		a.payload.mode_exec.iflag = 0;
		a.payload.mode_exec.bits = 0;
	} else if (a.type == LPT_PKT_MODE_TSX) {
		a.payload.mode_tsx.bits = 0;
	} else if (a.type == LPT_PKT_PWRX) {
		a.payload.pwrx.wake &= ~PT_PWRX_WAKE_TIMER;
	}
	return pkt_eq(&a, ref);
}

/*
 * Decode @path with our decoder and with libipt's pt_pkt_decoder, packet by
 * packet from the first PSB, resynchronising both after errors. Packets
 * both decode must agree; libipt 2.0.5 does not know CFE/EVD/TRIG/BBP/...
 * so where it fails and we succeed, skip ahead to our next PSB in both.
 */
static void diff_libipt(const char *path, int expect_clean, long *npkts)
{
	struct pt_packet_decoder *ref;
	struct lpt_pkt_decoder *dec;
	struct pt_config cfg;
	size_t len;
	uint8_t *buf = slurp(path, &len);
	int r1, r2, errors = 0;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	ref = pt_pkt_alloc_decoder(&cfg);
	dec = lpt_pkt_alloc(buf, len, NULL);
	ck_assert(ref && dec);

	r1 = pt_pkt_sync_forward(ref);
	r2 = lpt_pkt_sync_forward(dec);
	REQUIRE((r1 < 0) == (r2 < 0), "%s: sync %d %d", path, r1, r2);
	while (r2 >= 0) {
		struct pt_packet p;
		struct lpt_packet q, want;
		uint64_t o1, o2;

		pt_pkt_get_offset(ref, &o1);
		lpt_pkt_get_offset(dec, &o2);
		REQUIRE(o1 == o2, "%s: offsets %llx %llx", path,
			      (unsigned long long)o1, (unsigned long long)o2);
		memset(&q, POISON, sizeof(q));
		r1 = pt_pkt_next(ref, &p, sizeof(p));
		r2 = lpt_pkt_next(dec, &q);
		if (r2 == LPT_ERR_EOS && r1 == -pte_eos)
			break;
		if (r1 >= 0 && r2 >= 0) {
			REQUIRE(r1 == r2, "%s@%llx: size %d vs %d", path,
				      (unsigned long long)o2, r1, r2);
			if (from_libipt(&p, &want))
				REQUIRE(same_as_libipt(&q, &want),
					      "%s@%llx: %s fields differ", path,
					      (unsigned long long)o2,
					      lpt_pkt_type_name(q.type));
			(*npkts)++;
			continue;
		}
		/* Both fail, or only libipt (packet newer than 2.0.5, or
		 * reserved bits libipt rejects). */
		REQUIRE(r1 < 0 && (r2 < 0 || r1 == -pte_bad_opc ||
					 r1 == -pte_bad_packet),
			      "%s@%llx: libipt %d, lpt %d", path,
			      (unsigned long long)o2, r1, r2);
		if (r2 < 0)
			errors++;
		r2 = lpt_pkt_sync_forward(dec);
		if (r2 < 0)
			break;
		lpt_pkt_get_offset(dec, &o2);
		r1 = pt_pkt_sync_set(ref, o2);
		REQUIRE(r1 == 0, "sync_set");
	}
	if (expect_clean)
		REQUIRE(errors == 0, "%s: %d decode errors", path, errors);
	pt_pkt_free_decoder(ref);
	lpt_pkt_free(dec);
	free(buf);
}

static void for_each_trace(const char *pattern, int expect_clean)
{
	char pat[8400];
	glob_t g;
	long npkts = 0;
	size_t i;

	if (!find_shared()) {
		printf("SKIP: %s: no shared test data (set LWPT_SHARED)\n",
		       pattern);
		return;
	}
	snprintf(pat, sizeof(pat), "%s/%s", shared_dir, pattern);
	if (glob(pat, 0, NULL, &g) != 0) {
		printf("SKIP: no files match %s\n", pat);
		return;
	}
	for (i = 0; i < g.gl_pathc; i++)
		diff_libipt(g.gl_pathv[i], expect_clean, &npkts);
	ck_assert_int_gt(npkts, 0);
	printf("%s: %zu traces, %ld packets identical to libipt\n", pattern,
	       g.gl_pathc, npkts);
	globfree(&g);
}

START_TEST(test_real_traces)
{
	for_each_trace("testdata/pt/real/*/*.pt", 1);
}
END_TEST

START_TEST(test_libipt_ptt)
{
	for_each_trace("testdata/pt/libipt-ptt/*.pt", 0);
}
END_TEST

/* Batch decoding gives exactly what single-packet decoding gives, on every
 * real trace, from every starting offset modulo a stride. */
START_TEST(test_batch_equals_next)
{
	char pat[8400];
	glob_t g;
	size_t i;

	if (!find_shared()) {
		printf("SKIP: batch test: no shared test data\n");
		return;
	}
	snprintf(pat, sizeof(pat), "%s/testdata/pt/real/*/*.pt", shared_dir);
	if (glob(pat, 0, NULL, &g) != 0)
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		size_t len;
		uint8_t *buf = slurp(g.gl_pathv[i], &len);
		struct lpt_pkt_decoder *a = lpt_pkt_alloc(buf, len, NULL);
		struct lpt_pkt_decoder *b = lpt_pkt_alloc(buf, len, NULL);
		struct lpt_packet batch[37], one;
		int n, k;

		ck_assert_int_eq(lpt_pkt_sync_forward(a), 0);
		ck_assert_int_eq(lpt_pkt_sync_forward(b), 0);
		for (;;) {
			n = lpt_pkt_next_batch(a, batch, 37);
			if (n < 0) {
				ck_assert_int_eq(lpt_pkt_next(b, &one), n);
				if (n == LPT_ERR_EOS)
					break;
				if (lpt_pkt_sync_forward(a) < 0)
					break;
				ck_assert_int_eq(lpt_pkt_sync_forward(b), 0);
				continue;
			}
			for (k = 0; k < n; k++) {
				REQUIRE(lpt_pkt_next(b, &one) ==
					batch[k].size, "batch size");
				REQUIRE(pkt_eq(&one, &batch[k]), "batch fields");
			}
		}
		lpt_pkt_free(a);
		lpt_pkt_free(b);
		free(buf);
	}
	globfree(&g);
}
END_TEST

/*
 * lpt_pkt_count() against lpt_pkt_next() on @buf: from offset 0 without
 * sync (so corrupt input is hit), resynchronising after each error; the
 * same per-type counts and bytes, the same errors at the same offsets.
 */
static void count_vs_next(const uint8_t *buf, size_t len, const char *what)
{
	struct lpt_pkt_decoder *a = lpt_pkt_alloc(buf, len, NULL);
	struct lpt_pkt_decoder *b = lpt_pkt_alloc(buf, len, NULL);
	struct lpt_pkt_stats sa, sb;
	struct lpt_packet one;
	uint64_t oa, ob;
	int ra, rb, t, stops = 0;

	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	ck_assert_int_eq(lpt_pkt_count(a, &sa), LPT_ERR_NOSYNC);
	ck_assert_int_eq(lpt_pkt_count(NULL, &sa), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_pkt_sync_set(a, 0), 0);
	ck_assert_int_eq(lpt_pkt_sync_set(b, 0), 0);
	for (;;) {
		ra = lpt_pkt_count(a, &sa);
		while ((rb = lpt_pkt_next(b, &one)) > 0) {
			sb.count[one.type]++;
			sb.bytes[one.type] += one.size;
		}
		lpt_pkt_get_offset(a, &oa);
		lpt_pkt_get_offset(b, &ob);
		REQUIRE(ra == rb && oa == ob, "%s: stop %d: count %d at %llu, next %d at %llu",
			what, stops, ra, (unsigned long long)oa, rb,
			(unsigned long long)ob);
		stops++;
		if (ra == LPT_ERR_EOS)
			break;
		ra = lpt_pkt_sync_forward(a);
		rb = lpt_pkt_sync_forward(b);
		REQUIRE(ra == rb, "%s: resync %d vs %d", what, ra, rb);
		if (ra < 0)
			break;
	}
	for (t = 0; t < LPT_PKT_NR; t++)
		REQUIRE(sa.count[t] == sb.count[t] && sa.bytes[t] == sb.bytes[t],
			"%s: type %d: count %llu/%llu bytes %llu/%llu", what, t,
			(unsigned long long)sa.count[t], (unsigned long long)sb.count[t],
			(unsigned long long)sa.bytes[t], (unsigned long long)sb.bytes[t]);
	lpt_pkt_free(a);
	lpt_pkt_free(b);
}

/* lpt_pkt_count() (ptdump --stats) equals lpt_pkt_next(): real traces,
 * libipt's conformance cases, a packet block with PADs and BIPs whose
 * header looks like TNT-8 (SDM 33.4.1.1), and random corruptions. */
START_TEST(test_count_equals_next)
{
	static const uint8_t block[] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,	/* PSB */
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x23,			/* PSBEND */
		0x06, 0x00, 0x00,		/* TNT-8, PAD, PAD */
		0x02, 0x63, 0x00, 0x00,		/* BBP SZ=0 (8-byte items), type 0 */
		0x04, 1, 2, 3, 4, 5, 6, 7, 8,	/* BIP id 0 */
		0x00,				/* PAD inside the block */
		0x0c, 1, 2, 3, 4, 5, 6, 7, 8,	/* BIP id 1 */
		0x02, 0x33, 0x00,		/* BEP */
		0x04, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	char pat[8400];
	uint64_t seed = 0x243f6a8885a308d3ull;
	glob_t g;
	size_t i, k;

	count_vs_next(block, sizeof(block), "block");
	if (!find_shared()) {
		printf("SKIP: count test on shared data: no shared test data\n");
		return;
	}
	snprintf(pat, sizeof(pat), "%s/testdata/pt/*/*/*.pt", shared_dir);
	if (glob(pat, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			size_t len;
			uint8_t *buf = slurp(g.gl_pathv[i], &len);

			count_vs_next(buf, len, g.gl_pathv[i]);
			/* The same with bytes overwritten at random. */
			for (k = 0; len && k < 1 + len / 512; k++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				buf[(seed >> 33) % len] = (uint8_t)(seed >> 17);
			}
			count_vs_next(buf, len, g.gl_pathv[i]);
			free(buf);
		}
		globfree(&g);
	}
	snprintf(pat, sizeof(pat), "%s/testdata/pt/libipt-ptt/*.pt", shared_dir);
	if (glob(pat, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			size_t len;
			uint8_t *buf = slurp(g.gl_pathv[i], &len);

			count_vs_next(buf, len, g.gl_pathv[i]);
			free(buf);
		}
		globfree(&g);
	}
}
END_TEST

/*
 * lpt_pkt_count()'s fast paths (issue 17.1) against lpt_pkt_next(): runs
 * of 0 to 19 PAD (counted a word at a time, SDM 33.4.2.20) before TNT-8
 * and before IP packets of every IPBytes (sized by their first byte, SDM
 * Table 33-18; the reserved 101b and 111b are errors), PSB+ packets (PSB,
 * MODE, PIP, VMCS, CBR, PSBEND; a bad MODE leaf and a cut PSB are errors),
 * a TIP that closes a packet block (SDM 33.4.1.1), and every end of the
 * buffer in the last 64 bytes, so that runs and packets meet the
 * bounds-checked tail.
 */
START_TEST(test_count_runs)
{
	static const uint8_t psb[] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x23,			/* PSBEND */
	};
	static const uint8_t ip_opc[] = { 0x0d, 0x11, 0x01, 0x1d };
	static const uint8_t block[] = {
		0x02, 0x63, 0x01, 0x00,		/* BBP SZ=1 (4-byte items) */
		0x04, 1, 2, 3, 4,		/* BIP id 0 */
		0x0d, 0x10, 0x20,		/* TIP, 16-bit update: ends it */
	};
	/* A PSB+ as the libxdc traces have them (SDM 33.4.2.17). */
	static const uint8_t psb_plus[] = {
		0x99, 0x00,			/* MODE.Exec, 64-bit */
		0x99, 0x20,			/* MODE.TSX */
		0x02, 0x43, 0x00, 0x90, 0xc8, 0x48, 0x00, 0x00,	/* PIP */
		0x00, 0x00,
		0x02, 0xc8, 0x00, 0xe0, 0x56, 0x3b, 0x00,	/* VMCS */
		0x02, 0x03, 0x26, 0x00,		/* CBR */
		0x02, 0x23,			/* PSBEND */
	};
	uint8_t buf[2048];
	size_t len = 0, cut;
	unsigned int k, i, ipb;

	memcpy(buf, psb, sizeof(psb));
	len = sizeof(psb);
	for (k = 0; k < 20; k++) {
		if (k % 5 == 4) {
			memcpy(buf + len, psb, 16);
			len += 16;
			memcpy(buf + len, psb_plus, sizeof(psb_plus));
			len += sizeof(psb_plus);
		}
		for (i = 0; i < k; i++)
			buf[len++] = 0x00;		/* PAD */
		buf[len++] = (uint8_t)(0x04 + 2 * (k & 0x78)) | 0x80;	/* TNT-8 */
		for (i = 0; i < k; i++)
			buf[len++] = 0x00;
		ipb = k % 8;
		if (ipb == 5 || ipb == 7)	/* reserved: in the last part */
			ipb = 6;
		buf[len++] = (uint8_t)(ipb << 5 | ip_opc[k % 4]);
		for (i = 0; i < 8; i++)		/* payload, at most 8 bytes */
			buf[len++] = (uint8_t)(0x11 * (i + 1));
	}
	memcpy(buf + len, block, sizeof(block));
	len += sizeof(block);
	for (k = 0; k < 24; k++)
		buf[len++] = 0x00;
	ck_assert_uint_lt(len + 64, sizeof(buf));
	for (cut = len - 64; cut <= len; cut++)
		count_vs_next(buf, cut, "runs");
	/* Reserved IPBytes 101b, 111b (SDM Table 33-18), a MODE of leaf 2
	 * (33.4.2.8), a PSB cut short (33.4.2.17): a decode error after a
	 * PAD run, then a resync to the end. */
	for (k = 0; k < 4; k++) {
		static const uint8_t bad[4][3] = {
			{ 0xad, 0, 0 }, { 0xed, 0, 0 }, { 0x99, 0x40, 0 },
			{ 0x02, 0x82, 0x02 },
		};
		size_t l = len;
		uint8_t *p = buf + l;

		for (i = 0; i < 9; i++)
			*p++ = 0x00;
		memcpy(p, bad[k], 3);
		p += 3;
		for (i = 0; i < 24; i++)
			*p++ = 0x00;
		memcpy(p, psb, sizeof(psb));
		p += sizeof(psb);
		*p++ = 0x06;
		l = (size_t)(p - buf);
		count_vs_next(buf, l, "reserved IPBytes");
	}
}
END_TEST

/* Decoding a real trace split at every byte with set_buffer: the first
 * part ends in EOS exactly at a split packet, the second continues. */
START_TEST(test_split_stitch)
{
	char path[8400];
	size_t len, cut;
	uint64_t start;
	uint8_t *buf;
	long whole = 0;

	if (!find_shared()) {
		printf("SKIP: split test: no shared test data\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/testdata/pt/real/dynamorio/"
		 "dynamorio.pt", shared_dir);
	buf = slurp(path, &len);
	{
		struct lpt_pkt_decoder *d = lpt_pkt_alloc(buf, len, NULL);
		struct lpt_packet p;
		int ret;

		ck_assert_int_eq(lpt_pkt_sync_forward(d), 0);
		lpt_pkt_get_offset(d, &start);
		while ((ret = lpt_pkt_next(d, &p)) > 0)
			whole++;
		ck_assert_int_eq(ret, LPT_ERR_EOS);
		lpt_pkt_free(d);
	}
	for (cut = start + 1; cut < len && cut < start + 700; cut++) {
		struct lpt_pkt_decoder *d = lpt_pkt_alloc(buf, cut, NULL);
		struct lpt_packet p;
		uint64_t off;
		long n = 0;
		int ret;

		lpt_pkt_sync_set(d, start);
		while ((ret = lpt_pkt_next(d, &p)) > 0)
			n++;
		REQUIRE(ret == LPT_ERR_EOS, "cut %zu: %d", cut, ret);
		lpt_pkt_get_offset(d, &off);
		/* Continue with the rest, starting at the split packet. */
		lpt_pkt_set_buffer(d, buf + off, len - off);
		lpt_pkt_sync_set(d, 0);
		while ((ret = lpt_pkt_next(d, &p)) > 0)
			n++;
		REQUIRE(ret == LPT_ERR_EOS, "cut %zu: rest %d", cut, ret);
		REQUIRE(n == whole, "cut %zu: %ld packets, want %ld", cut, n,
			whole);
		lpt_pkt_free(d);
	}
	free(buf);
}
END_TEST

static Suite *pkt_suite(void)
{
	Suite *s = suite_create("pt_pkt");
	TCase *tc = tcase_create("decode");
	TCase *td = tcase_create("shared-data");

	tcase_add_loop_test(tc, test_perf_vectors, 0,
			    sizeof(perf_vecs) / sizeof(perf_vecs[0]));
	tcase_add_loop_test(tc, test_perf_prefixes, 0,
			    sizeof(perf_vecs) / sizeof(perf_vecs[0]));
	tcase_add_loop_test(tc, test_sdm_vectors, 0,
			    sizeof(sdm_vecs) / sizeof(sdm_vecs[0]));
	tcase_add_loop_test(tc, test_bad, 0,
			    sizeof(bad_vecs) / sizeof(bad_vecs[0]));
	tcase_add_test(tc, test_tma_reserved);
	tcase_add_test(tc, test_skd007);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_sync);
	tcase_add_test(tc, test_sync_many);
	tcase_add_test(tc, test_resync);
	tcase_add_test(tc, test_last_ip);
	tcase_add_test(tc, test_block_sequence);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_api_errors);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tcase_set_timeout(td, 120);
	tcase_add_test(td, test_real_traces);
	tcase_add_test(td, test_libipt_ptt);
	tcase_add_test(td, test_batch_equals_next);
	tcase_add_test(td, test_count_equals_next);
	tcase_add_test(td, test_count_runs);
	tcase_add_test(td, test_split_stitch);
	suite_add_tcase(s, td);
	return s;
}

int main(void)
{
	return lwpt_check_run(pkt_suite(), CK_ENV);
}
