// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp: encoder of the four LWP instructions for JITs (43724 §5.1-§5.4).
 *
 * The bytes are those GNU as (binutils 2.40) emits for the same operands in
 * 64-bit mode; tests/liblwp/test_lwp_encode.c compares them byte for byte.
 *
 *   [67] 8F  ~R~X~B.mmmmm  W.~vvvv.L.pp  12  ModRM  [SIB]  [disp]  [imm32]
 *
 * mmmmm is 09 for LLWPCB/SLWPCB and 0A for LWPINS/LWPVAL; ModRM.reg is the
 * opcode extension (/0 LLWPCB, LWPINS; /1 SLWPCB, LWPVAL); pp = 00.
 *
 * The L bit: 43724 rev 3.04 lists the 32-bit forms with L = 1 and a 16-bit
 * form with L = 0. GNU as, the AMD64 APM vol. 3 and the hardware use L = 0
 * for the 32-bit forms and have no 16-bit form; we follow them (documented
 * in Documentation/liblwp.rst).
 */
#include <errno.h>
#include <string.h>

#include <lwpt/lwp.h>

/* XOP fields: include/lwpt/lwp_arch.h (43724 §5 "Encoding" tables). */
#define ADDR32_PREFIX		0x67	/* address-size override */

/* ModRM / SIB fields (AMD64 APM vol. 3, §1.4). */
#define MODRM(mod, reg, rm)	((uint8_t)(((mod) << 6) | ((reg) << 3) | (rm)))
#define SIB(ss, idx, base)	((uint8_t)(((ss) << 6) | ((idx) << 3) | (base)))
#define MOD_INDIRECT		0
#define MOD_DISP8		1
#define MOD_DISP32		2
#define MOD_REG			LWP_MODRM_MOD_REG
#define RM_SIB			4	/* rm = 100: a SIB byte follows */
#define RM_DISP32		5	/* mod 00, rm = 101: RIP + disp32 */
#define SIB_NO_INDEX		4	/* index = 100: none */
#define SIB_NO_BASE		5	/* mod 00, base = 101: disp32, no base */

static int reg_ok(int r)
{
	return r >= LWP_REG_RAX && r <= LWP_REG_R15;
}

static int scale_bits(unsigned int scale)
{
	switch (scale) {
	case 1: return 0;
	case 2: return 1;
	case 4: return 2;
	case 8: return 3;
	default: return -1;
	}
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	return p + 4;
}

/*
 * ModRM [SIB] [disp] of a memory operand with ModRM.reg = @ext.
 * Sets the X and B bits in *@p1 (inverted). Returns the end, or NULL.
 */
static uint8_t *encode_mem(uint8_t *p, uint8_t *p1, unsigned int ext,
			   const struct lwp_mem *m)
{
	int base = m->base, index = m->index, ss = 0, mod;

	if (index != LWP_REG_NONE) {
		if (!reg_ok(index) || index == LWP_REG_RSP)
			return NULL;
		ss = scale_bits(m->scale);
		if (ss < 0)
			return NULL;
		if (index & 8)
			*p1 &= (uint8_t)~LWP_XOP_BYTE1_X;
	}

	if (base == LWP_REG_RIP) {
		if (index != LWP_REG_NONE)
			return NULL;
		*p++ = MODRM(MOD_INDIRECT, ext, RM_DISP32);
		return put32(p, (uint32_t)m->disp);
	}

	if (base == LWP_REG_NONE) {
		/* No base: SIB with base 101 and a disp32 (absolute in 64-bit). */
		*p++ = MODRM(MOD_INDIRECT, ext, RM_SIB);
		*p++ = SIB(index == LWP_REG_NONE ? 0 : ss,
			   index == LWP_REG_NONE ? SIB_NO_INDEX : (index & 7),
			   SIB_NO_BASE);
		return put32(p, (uint32_t)m->disp);
	}

	if (!reg_ok(base))
		return NULL;
	if (base & 8)
		*p1 &= (uint8_t)~LWP_XOP_BYTE1_B;

	/* RBP/R13 as base have no mod-00 form: they take a zero disp8. */
	if (m->disp32)
		mod = MOD_DISP32;
	else if (m->disp == 0 && (base & 7) != RM_DISP32)
		mod = MOD_INDIRECT;
	else if (m->disp >= -128 && m->disp <= 127)
		mod = MOD_DISP8;
	else
		mod = MOD_DISP32;

	if (index != LWP_REG_NONE || (base & 7) == RM_SIB) {
		*p++ = MODRM(mod, ext, RM_SIB);
		*p++ = SIB(index == LWP_REG_NONE ? 0 : ss,
			   index == LWP_REG_NONE ? SIB_NO_INDEX : (index & 7),
			   base & 7);
	} else {
		*p++ = MODRM(mod, ext, base & 7);
	}
	if (mod == MOD_DISP8)
		*p++ = (uint8_t)(int8_t)m->disp;
	else if (mod == MOD_DISP32)
		p = put32(p, (uint32_t)m->disp);
	return p;
}

int lwp_encode(uint8_t *buf, const struct lwp_insn *insn)
{
	uint8_t tmp[LWP_INSN_MAX_LEN], *p = tmp, *p1;
	unsigned int ext, map, vvvv_field;
	int len;

	if (!buf || !insn)
		return -EINVAL;
	if (insn->opsize != 32 && insn->opsize != 64)
		return -EINVAL;
	if (!reg_ok(insn->reg))
		return -EINVAL;

	switch (insn->op) {
	case LWP_INSN_LLWPCB:
	case LWP_INSN_SLWPCB:
		map = LWP_XOP_MAP_LLWPCB;
		ext = insn->op == LWP_INSN_SLWPCB ? LWP_XOP_MODRM_REG_SLWPCB
						   : LWP_XOP_MODRM_REG_LLWPCB;
		vvvv_field = LWP_XOP_VVVV_NONE;	/* must be 1111b (§5.1) */
		break;
	case LWP_INSN_LWPINS:
	case LWP_INSN_LWPVAL:
		map = LWP_XOP_MAP_LWPINS;
		ext = insn->op == LWP_INSN_LWPVAL ? LWP_XOP_MODRM_REG_LWPVAL
						   : LWP_XOP_MODRM_REG_LWPINS;
		vvvv_field = ~(unsigned int)insn->reg & 0xf; /* inverted */
		if (insn->rm != LWP_RM_MEM && !reg_ok(insn->rm))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}

	if (map == LWP_XOP_MAP_LWPINS && insn->rm == LWP_RM_MEM && insn->mem.addr32)
		*p++ = ADDR32_PREFIX;
	*p++ = LWP_XOP_ESCAPE;
	p1 = p;
	*p++ = LWP_XOP_BYTE1_R | LWP_XOP_BYTE1_X | LWP_XOP_BYTE1_B | map;
	*p++ = (uint8_t)((insn->opsize == 64 ? LWP_XOP_BYTE2_W : 0) |
			 ((vvvv_field << LWP_XOP_BYTE2_VVVV_SHIFT) &
			  LWP_XOP_BYTE2_VVVV_MASK));
	*p++ = LWP_XOP_OPCODE;

	if (map == LWP_XOP_MAP_LLWPCB) {
		/* The register is ModRM.rm with mod = 11b (§5.1, §5.2). */
		if (insn->reg & 8)
			*p1 &= (uint8_t)~LWP_XOP_BYTE1_B;
		*p++ = MODRM(MOD_REG, ext, insn->reg & 7);
	} else {
		if (insn->rm == LWP_RM_MEM) {
			p = encode_mem(p, p1, ext, &insn->mem);
			if (!p)
				return -EINVAL;
		} else {
			if (insn->rm & 8)
				*p1 &= (uint8_t)~LWP_XOP_BYTE1_B;
			*p++ = MODRM(MOD_REG, ext, insn->rm & 7);
		}
		p = put32(p, insn->imm);
	}

	len = (int)(p - tmp);
	memcpy(buf, tmp, (size_t)len);
	return len;
}
