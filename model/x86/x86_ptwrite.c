// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * PTWRITE's operand, see x86_ptwrite.h. ModRM/SIB addressing in 64-bit
 * mode: SDM Vol. 2, 2.1.5 (Tables 2-2, 2-3), 2.2.1 (REX, RIP-relative).
 */
#include "model/x86/x86_ptwrite.h"

#define PTW_MODRM_REG	4	/* 0F AE /4 */

int x86_ptwrite_decode(const uint8_t *buf, size_t size, enum x86_mode mode,
		       struct x86_ptwrite *out)
{
	struct x86_ptwrite pw = { .base = X86_PTWRITE_NONE,
				  .index = X86_PTWRITE_NONE, .scale = 1 };
	bool f3 = false;
	uint8_t rex = 0, modrm, mod, rm;
	size_t pos = 0;

	if (!buf || !out)
		return -EINVAL;
	if (mode != X86_MODE_64)
		return -ENOENT;
	if (size > X86_MAX_INSN_LEN)
		size = X86_MAX_INSN_LEN;
	for (;; pos++) {
		if (pos >= size)
			return size == X86_MAX_INSN_LEN ? -ENOENT : -EAGAIN;
		if (buf[pos] == 0xf3)
			f3 = true;
		else if (buf[pos] == 0x67)
			pw.addr32 = true;
		else if (buf[pos] != 0x2e && buf[pos] != 0x26 &&
			 buf[pos] != 0x36 && buf[pos] != 0x3e)
			break;
	}
	if ((buf[pos] & 0xf0) == 0x40)
		rex = buf[pos++];
	if (pos + 3 > size)
		return pos + 3 > X86_MAX_INSN_LEN ? -ENOENT : -EAGAIN;
	if (!f3 || buf[pos] != 0x0f || buf[pos + 1] != 0xae)
		return -ENOENT;
	modrm = buf[pos + 2];
	pos += 3;
	if (((modrm >> 3) & 7) != PTW_MODRM_REG)
		return -ENOENT;
	mod = modrm >> 6;
	rm = modrm & 7;
	pw.size = (rex & 0x08) ? 8 : 4;		/* REX.W */
	if (mod == 3) {
		pw.reg = (uint8_t)(rm | ((rex & 0x01) << 3));	/* REX.B */
		goto done;
	}
	pw.mem = true;
	if (rm == 4) {				/* SIB */
		uint8_t sib, idx, base;

		if (pos >= size)
			return -EAGAIN;
		sib = buf[pos++];
		pw.scale = (uint8_t)(1u << (sib >> 6));
		idx = (uint8_t)(((sib >> 3) & 7) | ((rex & 0x02) << 2));	/* REX.X */
		base = (uint8_t)((sib & 7) | ((rex & 0x01) << 3));
		if (idx != 4)
			pw.index = (int8_t)idx;
		if ((sib & 7) == 5 && mod == 0)
			mod = 2;		/* disp32, no base */
		else
			pw.base = (int8_t)base;
	} else if (rm == 5 && mod == 0) {
		pw.base = X86_PTWRITE_RIP;
		mod = 2;			/* disp32 */
	} else {
		pw.base = (int8_t)(rm | ((rex & 0x01) << 3));
	}
	if (mod == 1) {
		if (pos + 1 > size)
			return -EAGAIN;
		pw.disp = (int8_t)buf[pos++];
	} else if (mod == 2) {
		if (pos + 4 > size)
			return pos + 4 > X86_MAX_INSN_LEN ? -ENOENT : -EAGAIN;
		pw.disp = (int32_t)((uint32_t)buf[pos] | (uint32_t)buf[pos + 1] << 8 |
				    (uint32_t)buf[pos + 2] << 16 |
				    (uint32_t)buf[pos + 3] << 24);
		pos += 4;
	}
done:
	if (pos > X86_MAX_INSN_LEN)
		return -ENOENT;
	pw.len = (uint8_t)pos;
	*out = pw;
	return 0;
}

uint64_t x86_ptwrite_ea(const struct x86_ptwrite *pw, const uint64_t gpr[16],
			uint64_t next_ip)
{
	uint64_t ea = (uint64_t)(int64_t)pw->disp;

	if (pw->base == X86_PTWRITE_RIP)
		ea += next_ip;
	else if (pw->base != X86_PTWRITE_NONE)
		ea += gpr[pw->base];
	if (pw->index != X86_PTWRITE_NONE)
		ea += gpr[pw->index] * pw->scale;
	return pw->addr32 ? (uint32_t)ea : ea;
}
