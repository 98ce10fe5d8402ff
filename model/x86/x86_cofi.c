// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * x86 control-flow classifier and instruction length decoder.
 *
 * Opcode facts below are from the SDM Vol. 2 opcode maps (Appendix A):
 * Table A-2 (one-byte map), A-3 (two-byte map), A-4/A-5 (0F 38 / 0F 3A),
 * A-6 (group extensions), and the VEX/EVEX/XOP prefix formats (Vol. 2,
 * 2.3.5, 2.7; AMD APM Vol. 3, 1.8 for XOP). COFI classes follow SDM
 * Table 33-1.
 */
#include "model/x86/x86_cofi.h"

/* Per-opcode attributes of the legacy maps. */
#define OP_IMM_MASK	0x0f
#define OP_I_NONE	0x00
#define OP_I_B		0x01	/* imm8 */
#define OP_I_W		0x02	/* imm16 */
#define OP_I_Z		0x03	/* imm16/imm32 by operand size */
#define OP_I_V		0x04	/* imm16/32/64 by operand size (B8-BF) */
#define OP_I_REL8	0x05	/* rel8 */
#define OP_I_RELZ	0x06	/* rel16/rel32 (rel32 in 64-bit mode) */
#define OP_I_PTR	0x07	/* ptr16:16 / ptr16:32 */
#define OP_I_MOFFS	0x08	/* moffs by address size (A0-A3) */
#define OP_I_ENTER	0x09	/* iw + ib (C8) */
#define OP_I_GRP3B	0x0a	/* F6: ib only for /0 and /1 */
#define OP_I_GRP3Z	0x0b	/* F7: iz only for /0 and /1 */
#define OP_I_EXTRQ	0x0c	/* 0F 78: two imm8 with a 66 or F2 prefix */
#define OP_MODRM	0x10	/* has a ModRM byte */
#define OP_INV64	0x20	/* undefined in 64-bit mode */
#define OP_INV		0x40	/* undefined in every mode */
#define OP_MODREG	0x80	/* ModRM.mod is ignored: register form (0F 20-23) */

#define M	OP_MODRM
#define B	OP_I_B
#define Z	OP_I_Z
#define X	OP_INV64
#define I	OP_INV

/* SDM Vol. 2 Table A-2. Prefix bytes are consumed before this lookup. */
static const uint8_t one_byte_map[256] = {
	/* 00 */ M, M, M, M, B, Z, X, X, M, M, M, M, B, Z, X, 0,
	/* 10 */ M, M, M, M, B, Z, X, X, M, M, M, M, B, Z, X, X,
	/* 20 */ M, M, M, M, B, Z, 0, X, M, M, M, M, B, Z, 0, X,
	/* 30 */ M, M, M, M, B, Z, 0, X, M, M, M, M, B, Z, 0, X,
	/* 40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 60 */ X, X, M | X, M, 0, 0, 0, 0, Z, M | Z, B, M | B, 0, 0, 0, 0,
	/* 70 */ OP_I_REL8, OP_I_REL8, OP_I_REL8, OP_I_REL8,
		 OP_I_REL8, OP_I_REL8, OP_I_REL8, OP_I_REL8,
		 OP_I_REL8, OP_I_REL8, OP_I_REL8, OP_I_REL8,
		 OP_I_REL8, OP_I_REL8, OP_I_REL8, OP_I_REL8,
	/* 80 */ M | B, M | Z, M | B | X, M | B, M, M, M, M,
		 M, M, M, M, M, M, M, M,
	/* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, OP_I_PTR | X, 0, 0, 0, 0, 0,
	/* A0 */ OP_I_MOFFS, OP_I_MOFFS, OP_I_MOFFS, OP_I_MOFFS, 0, 0, 0, 0,
		 B, Z, 0, 0, 0, 0, 0, 0,
	/* B0 */ B, B, B, B, B, B, B, B,
		 OP_I_V, OP_I_V, OP_I_V, OP_I_V, OP_I_V, OP_I_V, OP_I_V, OP_I_V,
	/* C0 */ M | B, M | B, OP_I_W, 0, M | X, M | X, M | B, M | Z,
		 OP_I_ENTER, 0, OP_I_W, 0, 0, B, X, 0,
	/* D0 */ M, M, M, M, B | X, B | X, X, 0, M, M, M, M, M, M, M, M,
	/* E0 */ OP_I_REL8, OP_I_REL8, OP_I_REL8, OP_I_REL8, B, B, B, B,
		 OP_I_RELZ, OP_I_RELZ, OP_I_PTR | X, OP_I_REL8, 0, 0, 0, 0,
	/* F0 */ 0, 0, 0, 0, 0, 0, M | OP_I_GRP3B, M | OP_I_GRP3Z,
		 0, 0, 0, 0, 0, 0, M, M,
};

/* SDM Vol. 2 Table A-3 (0F xx). 0F 38 and 0F 3A are handled apart. */
static const uint8_t two_byte_map[256] = {
	/* 00 */ M, M, M, M, I, 0, 0, 0, 0, 0, I, 0, I, M, 0, M | B,
	/* 10 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 20 */ M | OP_MODREG, M | OP_MODREG, M | OP_MODREG, M | OP_MODREG,
		 I, I, I, I, M, M, M, M, M, M, M, M,
	/* 30 */ 0, 0, 0, 0, 0, 0, I, 0, 0, I, 0, I, I, I, I, I,
	/* 40 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 50 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 60 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 70 */ M | B, M | B, M | B, M | B, M, M, M, 0,
		 M | OP_I_EXTRQ, M, I, I, M, M, M, M,
	/* 80 */ OP_I_RELZ, OP_I_RELZ, OP_I_RELZ, OP_I_RELZ,
		 OP_I_RELZ, OP_I_RELZ, OP_I_RELZ, OP_I_RELZ,
		 OP_I_RELZ, OP_I_RELZ, OP_I_RELZ, OP_I_RELZ,
		 OP_I_RELZ, OP_I_RELZ, OP_I_RELZ, OP_I_RELZ,
	/* 90 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* A0 */ 0, 0, 0, M, M | B, M, M, M, 0, 0, 0, M, M | B, M, M, M,
	/* B0 */ M, M, M, M, M, M, M, M, M, M, M | B, M, M, M, M, M,
	/* C0 */ M, M, M | B, M, M | B, M | B, M | B, M,
		 0, 0, 0, 0, 0, 0, 0, 0,
	/* D0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* E0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
	/* F0 */ M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
};

#undef M
#undef B
#undef Z
#undef X
#undef I

/* Decoder state while walking one instruction. */
struct x86_walk {
	const uint8_t *buf;
	size_t size;		/* readable bytes, capped at X86_MAX_INSN_LEN */
	size_t pos;
	enum x86_mode mode;
	bool opsize_prefix;	/* 66 */
	bool adsize_prefix;	/* 67 */
	bool rep_prefix;	/* F2 or F3 seen */
	bool f2_last;		/* F2 is the last of F2/F3 */
	bool rex_w;		/* REX.W in effect (64-bit mode only) */
	bool vex_forbidden;	/* 66/F2/F3/F0/REX seen: VEX/EVEX/XOP #UD */
};

/* Fetch the next byte. Return it, -EAGAIN if none is readable, -EILSEQ past 15. */
static int walk_byte(struct x86_walk *w)
{
	if (w->pos >= X86_MAX_INSN_LEN)
		return -EILSEQ;
	if (w->pos >= w->size)
		return -EAGAIN;
	return w->buf[w->pos++];
}

/* Consume n bytes of operand (displacement or immediate). */
static int walk_skip(struct x86_walk *w, size_t n)
{
	if (w->pos + n > X86_MAX_INSN_LEN)
		return -EILSEQ;
	if (w->pos + n > w->size)
		return -EAGAIN;
	w->pos += n;
	return 0;
}

static unsigned int walk_addr_bits(const struct x86_walk *w)
{
	switch (w->mode) {
	case X86_MODE_64:
		return w->adsize_prefix ? 32 : 64;
	case X86_MODE_32:
		return w->adsize_prefix ? 16 : 32;
	default:
		return w->adsize_prefix ? 32 : 16;
	}
}

/* Operand size for non-stack, non-branch operands (SDM Vol. 2, 2.2.1.2). */
static unsigned int walk_op_bits(const struct x86_walk *w)
{
	if (w->mode == X86_MODE_64) {
		if (w->rex_w)
			return 64;
		return w->opsize_prefix ? 16 : 32;
	}
	if (w->mode == X86_MODE_32)
		return w->opsize_prefix ? 16 : 32;
	return w->opsize_prefix ? 32 : 16;
}

/* Operand size of near branches: 64 in 64-bit mode on Intel (66 ignored). */
static unsigned int walk_branch_bits(const struct x86_walk *w)
{
	if (w->mode == X86_MODE_64)
		return 64;
	return walk_op_bits(w);
}

/*
 * Consume a ModRM byte and its SIB and displacement (SDM Vol. 2, Tables
 * 2-1 to 2-3). Stores the ModRM byte in *modrm. Return 0 or -errno.
 */
static int walk_modrm(struct x86_walk *w, bool force_reg, int *modrm)
{
	int m = walk_byte(w);
	unsigned int mod, rm, disp = 0;

	if (m < 0)
		return m;
	*modrm = m;
	mod = (unsigned int)m >> 6;
	rm = (unsigned int)m & 7;
	if (mod == 3 || force_reg)
		return 0;

	if (walk_addr_bits(w) == 16) {
		if (mod == 1)
			disp = 1;
		else if (mod == 2 || rm == 6)
			disp = 2;
		return walk_skip(w, disp);
	}

	if (rm == 4) {
		int sib = walk_byte(w);

		if (sib < 0)
			return sib;
		if (mod == 0 && (sib & 7) == 5)
			disp = 4;
	}
	if (mod == 1)
		disp = 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		disp = 4;
	return walk_skip(w, disp);
}

/* Read a little-endian signed displacement of n (1, 2 or 4) bytes at pos. */
static int32_t read_disp(const uint8_t *p, unsigned int n)
{
	switch (n) {
	case 1:
		return (int8_t)p[0];
	case 2:
		return (int16_t)(uint16_t)(p[0] | (uint16_t)p[1] << 8);
	default:
		return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
	}
}

/*
 * VEX (C4/C5), EVEX (62) and XOP (8F) encoded instructions: none is a COFI;
 * only their length is needed. @lead is the escape byte already consumed.
 */
static int walk_vex(struct x86_walk *w, int lead, struct x86_cofi *c)
{
	unsigned int map, op, imm = 0;
	int b1, b2, opc, modrm, ret;

	if (w->vex_forbidden)
		return -EILSEQ;	/* SDM Vol. 2, 2.3.2 */

	b1 = walk_byte(w);
	if (b1 < 0)
		return b1;
	if (lead == 0xc5) {
		map = 1;
	} else if (lead == 0xc4 || lead == 0x8f) {
		map = (unsigned int)b1 & 0x1f;
		b2 = walk_byte(w);
		if (b2 < 0)
			return b2;
	} else {	/* 62: EVEX, P0 P1 P2 */
		map = (unsigned int)b1 & 0x07;
		if ((b1 & 0x08) != 0)
			return -EILSEQ;	/* P0[3] must be 0 */
		ret = walk_skip(w, 2);
		if (ret)
			return ret;
	}
	opc = walk_byte(w);
	if (opc < 0)
		return opc;
	op = (unsigned int)opc;

	if (lead == 0x8f) {
		/* AMD XOP maps 8 (imm8), 9 (none), 0Ah (imm32). */
		if (map == 8)
			imm = 1;
		else if (map == 10)
			imm = 4;
		else if (map != 9)
			return -EILSEQ;
	} else {
		switch (map) {
		case 1:	/* 0F */
			if (lead != 0x62 && op == 0x77) {
				/* VZEROUPPER/VZEROALL have no ModRM. */
				goto done;
			}
			if ((op >= 0x70 && op <= 0x73) ||
			    (op >= 0xc4 && op <= 0xc6) || op == 0xc2)
				imm = 1;
			break;
		case 2:	/* 0F 38 */
			break;
		case 3:	/* 0F 3A */
			imm = 1;
			break;
		case 5:	/* EVEX maps 5 and 6 (AVX512-FP16) */
		case 6:
			if (lead != 0x62)
				return -EILSEQ;
			break;
		default:
			return -EILSEQ;
		}
	}
	ret = walk_modrm(w, false, &modrm);
	if (ret)
		return ret;
	ret = walk_skip(w, imm);
	if (ret)
		return ret;
done:
	c->kind = X86_COFI_NONE;
	return 0;
}

/* The 0F map, after 0F was consumed. */
static int walk_0f(struct x86_walk *w, struct x86_cofi *c)
{
	unsigned int attr, op, imm = 0;
	int opc, modrm = 0, ret;

	opc = walk_byte(w);
	if (opc < 0)
		return opc;
	op = (unsigned int)opc;

	if (op == 0x38 || op == 0x3a) {		/* Tables */
		opc = walk_byte(w);
		if (opc < 0)
			return opc;
		ret = walk_modrm(w, false, &modrm);
		if (ret)
			return ret;
		return walk_skip(w, op == 0x3a ? 1 : 0);
	}

	attr = two_byte_map[op];
	if (attr & OP_INV)
		return -EILSEQ;
	if (attr & OP_MODRM) {
		ret = walk_modrm(w, attr & OP_MODREG, &modrm);
		if (ret)
			return ret;
	}

	switch (attr & OP_IMM_MASK) {
	case OP_I_B:
		imm = 1;
		break;
	case OP_I_EXTRQ:	/* AMD SSE4a EXTRQ/INSERTQ imm8, imm8 */
		if (w->opsize_prefix || (w->rep_prefix && w->f2_last))
			imm = 2;
		break;
	case OP_I_RELZ:
		c->kind = X86_COFI_JCC;
		c->disp_size = walk_branch_bits(w) == 16 ? 2 : 4;
		c->opsize = (uint8_t)walk_branch_bits(w);
		ret = walk_skip(w, c->disp_size);
		if (ret)
			return ret;
		c->disp = read_disp(w->buf + w->pos - c->disp_size,
				    c->disp_size);
		return 0;
	default:
		break;
	}

	switch (op) {
	case 0x01:
		if (modrm == 0xc2 || modrm == 0xc3)
			c->kind = X86_COFI_VMENTRY;
		break;
	case 0x05:
		c->kind = X86_COFI_SYSCALL;
		break;
	case 0x07:
		c->kind = X86_COFI_SYSRET;
		break;
	case 0x34:
		c->kind = X86_COFI_SYSENTER;
		break;
	case 0x35:
		c->kind = X86_COFI_SYSEXIT;
		break;
	case 0x0b:
	case 0xb9:
	case 0xff:
		c->kind = X86_COFI_UD;
		break;
	default:
		break;
	}
	return walk_skip(w, imm);
}

static int walk_one_byte(struct x86_walk *w, unsigned int op,
			 struct x86_cofi *c)
{
	unsigned int attr = one_byte_map[op];
	unsigned int imm = 0, reg;
	int modrm = 0, ret;

	if ((attr & OP_INV64) && w->mode == X86_MODE_64)
		return -EILSEQ;
	if (attr & OP_MODRM) {
		ret = walk_modrm(w, false, &modrm);
		if (ret)
			return ret;
	}
	reg = ((unsigned int)modrm >> 3) & 7;

	switch (attr & OP_IMM_MASK) {
	case OP_I_B:
		imm = 1;
		break;
	case OP_I_W:
		imm = 2;
		break;
	case OP_I_Z:
		imm = walk_op_bits(w) == 16 ? 2 : 4;
		break;
	case OP_I_V:
		imm = walk_op_bits(w) / 8;
		break;
	case OP_I_PTR:
		imm = (walk_op_bits(w) == 16 ? 2 : 4) + 2;
		break;
	case OP_I_MOFFS:
		imm = walk_addr_bits(w) / 8;
		break;
	case OP_I_ENTER:
		imm = 3;
		break;
	case OP_I_GRP3B:
		imm = reg < 2 ? 1 : 0;
		break;
	case OP_I_GRP3Z:
		if (reg < 2)
			imm = walk_op_bits(w) == 16 ? 2 : 4;
		break;
	case OP_I_REL8:
	case OP_I_RELZ:
		if ((attr & OP_IMM_MASK) == OP_I_REL8)
			c->disp_size = 1;
		else
			c->disp_size = walk_branch_bits(w) == 16 ? 2 : 4;
		c->opsize = (uint8_t)walk_branch_bits(w);
		ret = walk_skip(w, c->disp_size);
		if (ret)
			return ret;
		c->disp = read_disp(w->buf + w->pos - c->disp_size,
				    c->disp_size);
		if (op == 0xe8)
			c->kind = X86_COFI_CALL_REL;
		else if (op == 0xe9 || op == 0xeb)
			c->kind = X86_COFI_JMP_REL;
		else
			c->kind = X86_COFI_JCC;
		return 0;
	default:
		break;
	}
	ret = walk_skip(w, imm);
	if (ret)
		return ret;

	switch (op) {
	case 0xc2:
	case 0xc3:
		c->kind = X86_COFI_RET;
		c->opsize = (uint8_t)walk_branch_bits(w);
		break;
	case 0xca:
	case 0xcb:
		c->kind = X86_COFI_RET_FAR;
		break;
	case 0xcf:
		c->kind = X86_COFI_IRET;
		break;
	case 0xcc:
		c->kind = X86_COFI_INT3;
		break;
	case 0xcd:
		c->kind = X86_COFI_INT;
		break;
	case 0xce:
		c->kind = X86_COFI_INTO;
		break;
	case 0xf1:
		c->kind = X86_COFI_INT1;
		break;
	case 0x9a:
		c->kind = X86_COFI_CALL_FAR;
		break;
	case 0xea:
		c->kind = X86_COFI_JMP_FAR;
		break;
	case 0xff:
		switch (reg) {
		case 2:
			c->kind = X86_COFI_CALL_IND;
			c->opsize = (uint8_t)walk_branch_bits(w);
			break;
		case 4:
			c->kind = X86_COFI_JMP_IND;
			c->opsize = (uint8_t)walk_branch_bits(w);
			break;
		case 3:
		case 5:
			if ((modrm >> 6) == 3)
				return -EILSEQ;	/* far forms need memory */
			c->kind = reg == 3 ? X86_COFI_CALL_FAR : X86_COFI_JMP_FAR;
			break;
		case 7:
			return -EILSEQ;
		default:
			break;
		}
		break;
	case 0xfe:
		if (reg > 1)
			return -EILSEQ;
		break;
	default:
		break;
	}
	return 0;
}

int x86_cofi_decode(const uint8_t *buf, size_t size, enum x86_mode mode,
		    struct x86_cofi *out)
{
	struct x86_walk w = { 0 };
	struct x86_cofi c = { 0 };
	int b, ret;

	if (!buf || !out)
		return -EINVAL;
	if (mode != X86_MODE_16 && mode != X86_MODE_32 && mode != X86_MODE_64)
		return -EINVAL;

	w.buf = buf;
	w.size = size < X86_MAX_INSN_LEN ? size : X86_MAX_INSN_LEN;
	w.mode = mode;

	/* Legacy prefixes, then REX (SDM Vol. 2, 2.1.1 and 2.2.1). */
	for (;;) {
		b = walk_byte(&w);
		if (b < 0)
			return b;
		if (mode == X86_MODE_64 && (b & 0xf0) == 0x40) {
			/* REX counts only directly before the opcode. */
			w.rex_w = (b & 0x08) != 0;
			w.vex_forbidden = true;
			b = walk_byte(&w);
			if (b < 0)
				return b;
			if ((b & 0xf0) == 0x40) {
				w.pos--;	/* another REX: loop again */
				continue;
			}
			if (b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 ||
			    b == 0xf3 || b == 0x26 || b == 0x2e || b == 0x36 ||
			    b == 0x3e || b == 0x64 || b == 0x65)
				w.rex_w = false;	/* REX ignored */
			else
				break;
		}
		switch (b) {
		case 0x66:
			w.opsize_prefix = true;
			w.vex_forbidden = true;
			continue;
		case 0x67:
			w.adsize_prefix = true;
			continue;
		case 0xf2:
		case 0xf3:
			w.rep_prefix = true;
			w.f2_last = b == 0xf2;
			w.vex_forbidden = true;
			continue;
		case 0xf0:
			w.vex_forbidden = true;
			continue;
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
		case 0x64:
		case 0x65:
			continue;
		default:
			break;
		}
		break;
	}

	if (b == 0x0f) {
		ret = walk_0f(&w, &c);
	} else if (b == 0xc4 || b == 0xc5 || b == 0x62 || b == 0x8f) {
		/*
		 * VEX/EVEX in 64-bit mode; outside it only when the next byte
		 * would be a register-form ModRM (else LES/LDS/BOUND). XOP when
		 * the map field is >= 8 (else POP r/m, 8F /0).
		 */
		int next;

		if (w.pos >= w.size)
			return w.pos >= X86_MAX_INSN_LEN ? -EILSEQ : -EAGAIN;
		next = w.buf[w.pos];
		if (b == 0x8f ? (next & 0x1f) >= 8 :
		    (mode == X86_MODE_64 || (next & 0xc0) == 0xc0))
			ret = walk_vex(&w, b, &c);
		else
			ret = walk_one_byte(&w, (unsigned int)b, &c);
	} else {
		ret = walk_one_byte(&w, (unsigned int)b, &c);
	}
	if (ret)
		return ret;

	c.len = (uint8_t)w.pos;
	if (!c.opsize)
		c.opsize = (uint8_t)walk_op_bits(&w);
	*out = c;
	return 0;
}

uint64_t x86_cofi_target(const struct x86_cofi *c, uint64_t ip)
{
	uint64_t next;

	if (!c)
		return ip;
	next = ip + c->len;
	if (c->kind != X86_COFI_JCC && c->kind != X86_COFI_JMP_REL &&
	    c->kind != X86_COFI_CALL_REL)
		return next;
	next += (uint64_t)(int64_t)c->disp;
	if (c->opsize == 16)
		next &= 0xffff;
	else if (c->opsize == 32)
		next &= 0xffffffff;
	return next;
}

const char *x86_cofi_kind_name(enum x86_cofi_kind kind)
{
	static const char *const names[X86_COFI_NR_KINDS] = {
		[X86_COFI_NONE] = "none",
		[X86_COFI_JCC] = "jcc",
		[X86_COFI_JMP_REL] = "jmp_rel",
		[X86_COFI_CALL_REL] = "call_rel",
		[X86_COFI_JMP_IND] = "jmp_ind",
		[X86_COFI_CALL_IND] = "call_ind",
		[X86_COFI_RET] = "ret",
		[X86_COFI_JMP_FAR] = "jmp_far",
		[X86_COFI_CALL_FAR] = "call_far",
		[X86_COFI_RET_FAR] = "ret_far",
		[X86_COFI_IRET] = "iret",
		[X86_COFI_INT] = "int",
		[X86_COFI_INT3] = "int3",
		[X86_COFI_INT1] = "int1",
		[X86_COFI_INTO] = "into",
		[X86_COFI_SYSCALL] = "syscall",
		[X86_COFI_SYSRET] = "sysret",
		[X86_COFI_SYSENTER] = "sysenter",
		[X86_COFI_SYSEXIT] = "sysexit",
		[X86_COFI_VMENTRY] = "vmentry",
		[X86_COFI_UD] = "ud",
	};

	if ((unsigned int)kind >= X86_COFI_NR_KINDS)
		return "?";
	return names[kind];
}
