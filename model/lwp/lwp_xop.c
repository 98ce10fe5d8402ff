// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Decoder and executor of the XOP-encoded LWP instructions (43724 §5.1-§5.4)
 * in 64-bit mode.
 */
#include "model/model_env.h"
#include "model/lwp/lwp_xop.h"

const char *lwp_xop_status_str(int status)
{
	switch (status) {
	case LWP_XOP_OK:
		return "ok";
	case LWP_XOP_NOT_LWP:
		return "not an LWP instruction";
	case LWP_XOP_NEED_MORE:
		return "instruction bytes truncated";
	case LWP_XOP_INVALID:
		return "invalid LWP instruction encoding (#UD)";
	}
	return "unknown status";
}

/* Byte i of the instruction, or the status telling why there is none. */
static int fetch(const uint8_t *bytes, size_t len, unsigned int i, uint8_t *out)
{
	if (i >= len)
		return i >= LWP_INSN_MAX_LENGTH ? LWP_XOP_INVALID : LWP_XOP_NEED_MORE;
	*out = bytes[i];
	return LWP_XOP_OK;
}

int lwp_xop_decode(const uint8_t *bytes, size_t len, const struct lwp_xop_regs *regs,
		   struct lwp_xop_insn_info *info)
{
	struct lwp_xop_insn_info d;
	bool bad_prefix = false, rex = false;
	bool rex_x, rex_b;
	uint8_t b, b1, b2, op, modrm, sib;
	unsigned int mod, rm, i = 0, map, reg, k;
	int rc;

	if (!bytes || !info)
		return LWP_XOP_NOT_LWP;
	memset(&d, 0, sizeof(d));
	d.addrsize = 64;
	d.base = -1;
	d.index = -1;
	d.scale = 1;

	/* Legacy prefixes. */
	for (;;) {
		if (i >= LWP_INSN_MAX_LENGTH)
			return LWP_XOP_NOT_LWP;	/* only prefixes: #GP, not ours */
		rc = fetch(bytes, len, i, &b);
		if (rc)
			return rc;
		switch (b) {
		case 0x26:
			d.seg = LWP_XOP_SEG_ES;
			break;
		case 0x2E:
			d.seg = LWP_XOP_SEG_CS;
			break;
		case 0x36:
			d.seg = LWP_XOP_SEG_SS;
			break;
		case 0x3E:
			d.seg = LWP_XOP_SEG_DS;
			break;
		case 0x64:
			d.seg = LWP_XOP_SEG_FS;
			break;
		case 0x65:
			d.seg = LWP_XOP_SEG_GS;
			break;
		case 0x67:
			d.addrsize = 32;
			break;
		case 0x66: case 0xF0: case 0xF2: case 0xF3:
			/* #UD before an XOP prefix (as for VEX). */
			bad_prefix = true;
			break;
		default:
			if ((b & 0xF0) == 0x40) {	/* REX */
				rex = true;
				i++;
				continue;
			}
			goto opcode;
		}
		/*
		 * A REX followed by another prefix does not immediately precede
		 * the escape byte: it is ignored (AMD APM vol. 3, REX prefix), so it
		 * does not make the XOP instruction #UD (objdump agrees).
		 */
		rex = false;
		i++;
	}
opcode:
	if (rex)
		bad_prefix = true;	/* REX right before XOP: #UD, as for VEX */
	if (b != LWP_XOP_ESCAPE)
		return LWP_XOP_NOT_LWP;
	rc = fetch(bytes, len, i + 1, &b1);
	if (rc)
		return rc;
	map = b1 & LWP_XOP_BYTE1_MAP_MASK;
	if (map != LWP_XOP_MAP_LLWPCB && map != LWP_XOP_MAP_LWPINS)
		return LWP_XOP_NOT_LWP;	/* POP r/m (map < 8) or another XOP */
	rc = fetch(bytes, len, i + 2, &b2);
	if (rc)
		return rc;
	rc = fetch(bytes, len, i + 3, &op);
	if (rc)
		return rc;
	if (op != LWP_XOP_OPCODE)
		return LWP_XOP_NOT_LWP;
	rc = fetch(bytes, len, i + 4, &modrm);
	if (rc)
		return rc;
	reg = (modrm & LWP_MODRM_REG_MASK) >> LWP_MODRM_REG_SHIFT;
	if (map == LWP_XOP_MAP_LLWPCB) {
		if (reg == LWP_XOP_MODRM_REG_LLWPCB)
			d.insn = LWP_XOP_LLWPCB;
		else if (reg == LWP_XOP_MODRM_REG_SLWPCB)
			d.insn = LWP_XOP_SLWPCB;
		else
			return LWP_XOP_NOT_LWP;
	} else {
		if (reg == LWP_XOP_MODRM_REG_LWPINS)
			d.insn = LWP_XOP_LWPINS;
		else if (reg == LWP_XOP_MODRM_REG_LWPVAL)
			d.insn = LWP_XOP_LWPVAL;
		else
			return LWP_XOP_NOT_LWP;
	}

	/* From here on it is an LWP opcode: a bad encoding raises #UD. */
	rex_x = !(b1 & LWP_XOP_BYTE1_X);
	rex_b = !(b1 & LWP_XOP_BYTE1_B);
	mod = (modrm & LWP_MODRM_MOD_MASK) >> LWP_MODRM_MOD_SHIFT;
	rm = modrm & LWP_MODRM_RM_MASK;
	/* §5: W selects 64-bit operands. CHOICE: L is ignored (see docs). */
	d.opsize = (b2 & LWP_XOP_BYTE2_W) ? 64 : 32;
	d.vvvv = (~(unsigned int)b2 & LWP_XOP_BYTE2_VVVV_MASK) >> LWP_XOP_BYTE2_VVVV_SHIFT;
	if (bad_prefix || (b2 & LWP_XOP_BYTE2_PP_MASK) != LWP_XOP_PP_NONE)
		return LWP_XOP_INVALID;
	if (d.insn == LWP_XOP_LLWPCB || d.insn == LWP_XOP_SLWPCB) {
		/* §5.1, §5.2: mod must be 11b and vvvv 1111b. */
		if (mod != LWP_MODRM_MOD_REG ||
		    ((b2 & LWP_XOP_BYTE2_VVVV_MASK) >> LWP_XOP_BYTE2_VVVV_SHIFT) !=
		    LWP_XOP_VVVV_NONE)
			return LWP_XOP_INVALID;
		d.vvvv = 0;
	}

	k = i + 5;
	if (mod == LWP_MODRM_MOD_REG) {
		d.reg = rm | (rex_b ? 8u : 0u);
	} else {
		d.rm_is_mem = true;
		if (rm == 4) {
			rc = fetch(bytes, len, k, &sib);
			if (rc)
				return rc;
			k++;
			d.scale = 1u << (sib >> 6);
			d.index = (int)(((sib >> 3) & 7) | (rex_x ? 8u : 0u));
			if (d.index == 4)
				d.index = -1;	/* no index (rsp cannot be one) */
			if ((sib & 7) == 5 && mod == 0) {
				d.base = -1;	/* disp32, no base */
				mod = 2;	/* read a disp32 below */
			} else {
				d.base = (int)((sib & 7) | (rex_b ? 8u : 0u));
			}
		} else if (rm == 5 && mod == 0) {
			d.rip_relative = true;
			mod = 2;
		} else {
			d.base = (int)(rm | (rex_b ? 8u : 0u));
		}
		if (mod == 1) {
			uint8_t d8;

			rc = fetch(bytes, len, k, &d8);
			if (rc)
				return rc;
			d.disp = (int8_t)d8;
			k++;
		} else if (mod == 2) {
			uint8_t db[4];
			unsigned int j;

			for (j = 0; j < 4; j++) {
				rc = fetch(bytes, len, k + j, &db[j]);
				if (rc)
					return rc;
			}
			d.disp = (int32_t)((uint32_t)db[0] | (uint32_t)db[1] << 8 |
					   (uint32_t)db[2] << 16 | (uint32_t)db[3] << 24);
			k += 4;
		}
	}
	if (d.insn == LWP_XOP_LWPINS || d.insn == LWP_XOP_LWPVAL) {
		uint8_t ib[4];
		unsigned int j;

		for (j = 0; j < 4; j++) {
			rc = fetch(bytes, len, k + j, &ib[j]);
			if (rc)
				return rc;
		}
		d.imm = (uint32_t)ib[0] | (uint32_t)ib[1] << 8 | (uint32_t)ib[2] << 16 |
			(uint32_t)ib[3] << 24;
		k += 4;
	}
	if (k > LWP_INSN_MAX_LENGTH)
		return LWP_XOP_INVALID;	/* longer than 15 bytes */
	d.length = k;

	if (d.rm_is_mem && regs) {
		uint64_t ea = 0;
		uint64_t amask = d.addrsize == 32 ? 0xFFFFFFFFull : ~0ull;

		if (d.rip_relative)
			ea = regs->rip + d.length;
		if (d.base >= 0)
			ea += regs->gpr[d.base] & amask;
		if (d.index >= 0)
			ea += (regs->gpr[d.index] & amask) * d.scale;
		ea += (uint64_t)(int64_t)d.disp;
		ea &= amask;
		if (d.seg == LWP_XOP_SEG_FS)
			ea += regs->fs_base;
		else if (d.seg == LWP_XOP_SEG_GS)
			ea += regs->gs_base;
		d.mem_addr = ea;
	}
	*info = d;
	return LWP_XOP_OK;
}

void lwp_xop_write_gpr(struct lwp_xop_regs *regs, unsigned int reg, uint64_t value,
		       unsigned int opsize)
{
	if (!regs || reg >= 16)
		return;
	if (opsize == 64)
		regs->gpr[reg] = value;
	else if (opsize == 32)
		regs->gpr[reg] = value & 0xFFFFFFFFull;
	else if (opsize == 16)
		regs->gpr[reg] = (regs->gpr[reg] & ~0xFFFFull) | (value & 0xFFFFull);
}

struct lwp_model_result lwp_xop_execute(struct lwp_model *m, const struct lwp_xop_insn_info *info,
					struct lwp_xop_regs *regs)
{
	struct lwp_model_result r;
	struct lwp_model_operand src2;
	uint64_t ip;

	if (!m || !info || !regs) {
		memset(&r, 0, sizeof(r));
		r.exc = LWP_MODEL_EXC_UD;
		return r;
	}
	ip = regs->rip;
	switch (info->insn) {
	case LWP_XOP_LLWPCB:
		r = lwp_model_llwpcb(m, regs->gpr[info->reg & 15], info->opsize);
		break;
	case LWP_XOP_SLWPCB:
		r = lwp_model_slwpcb(m, info->opsize);
		if (r.exc == LWP_MODEL_EXC_NONE)
			lwp_xop_write_gpr(regs, info->reg & 15, r.value, info->opsize);
		break;
	case LWP_XOP_LWPINS:
	case LWP_XOP_LWPVAL:
		memset(&src2, 0, sizeof(src2));
		src2.is_mem = info->rm_is_mem;
		if (info->rm_is_mem)
			src2.addr = info->mem_addr;
		else
			src2.value = (uint32_t)regs->gpr[info->reg & 15];
		if (info->insn == LWP_XOP_LWPINS) {
			r = lwp_model_lwpins(m, ip, regs->gpr[info->vvvv & 15], src2, info->imm,
					     info->opsize);
			if (r.exc == LWP_MODEL_EXC_NONE) {
				if (r.cf)
					regs->rflags |= LWP_XOP_RFLAGS_CF;
				else
					regs->rflags &= ~LWP_XOP_RFLAGS_CF;
			}
		} else {
			r = lwp_model_lwpval(m, ip, regs->gpr[info->vvvv & 15], src2, info->imm,
					     info->opsize);
		}
		break;
	default:
		memset(&r, 0, sizeof(r));
		r.exc = LWP_MODEL_EXC_UD;
		return r;
	}
	if (r.exc == LWP_MODEL_EXC_NONE) {
		struct lwp_model_result ret;

		regs->rip = ip + info->length;
		/*
		 * §2.2, §5.3/§5.4 Notes: LWP instructions count as retired. A
		 * #PF storing that record leaves it pending (§8.6).
		 */
		ret = lwp_model_insn_retired(m, ip);
		(void)ret;
	}
	return r;
}
