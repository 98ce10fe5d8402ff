// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * One instruction of a coverage image, classified as the coverage decoder
 * classifies it (lwpt/pt_cov.h lpt_cov_insn_at()): what tools need to turn
 * the decoder's edges into blocks, instructions and source lines.
 */
#include <lwpt/pt_cov.h>

#include <errno.h>
#include <string.h>

#include "libpt/cov_internal.h"
#include "model/x86/x86_cofi.h"

static uint8_t insn_kind(enum x86_cofi_kind k)
{
	switch (k) {
	case X86_COFI_NONE:
		return LPT_COV_INSN_OTHER;
	case X86_COFI_JCC:
		return LPT_COV_INSN_JCC;
	case X86_COFI_JMP_REL:
		return LPT_COV_INSN_JMP;
	case X86_COFI_CALL_REL:
		return LPT_COV_INSN_CALL;
	case X86_COFI_JMP_IND:
		return LPT_COV_INSN_JMP_IND;
	case X86_COFI_CALL_IND:
		return LPT_COV_INSN_CALL_IND;
	case X86_COFI_RET:
		return LPT_COV_INSN_RET;
	case X86_COFI_UD:
		return LPT_COV_INSN_UD;
	default:
		return LPT_COV_INSN_FAR;
	}
}

int lpt_cov_insn_at(const struct lpt_cov_image *img, uint64_t addr,
		    unsigned int mode, struct lpt_cov_insn *out)
{
	uint8_t buf[X86_MAX_INSN_LEN];
	struct x86_cofi x;
	size_t have;
	int err;

	if (!img || !out || (mode != 16 && mode != 32 && mode != 64))
		return LPT_ERR_INVALID;
	have = lpt_cov_image_read(img, addr, buf, sizeof(buf));
	if (!have)
		return LPT_ERR_COV_NOMAP;
	err = x86_cofi_decode(buf, have, (enum x86_mode)mode, &x);
	if (err == -EAGAIN)
		return LPT_ERR_COV_NOMAP;
	if (err < 0)
		return LPT_ERR_COV_BADINSN;
	out->addr = addr;
	out->len = x.len;
	out->kind = insn_kind(x.kind);
	out->target = (x.kind == X86_COFI_JCC || x.kind == X86_COFI_JMP_REL ||
		       x.kind == X86_COFI_CALL_REL) ? x86_cofi_target(&x, addr) : 0;
	return 0;
}

long lpt_cov_insns_at(const struct lpt_cov_image *img, uint64_t addr,
		      unsigned int mode, struct lpt_cov_insn *out, size_t max)
{
	uint8_t buf[256];
	size_t have = 0, off = 0, n = 0;
	uint64_t a = addr;

	if (!img || (!out && max) || (mode != 16 && mode != 32 && mode != 64))
		return LPT_ERR_INVALID;
	while (n < max) {
		struct x86_cofi x;

		/* as the decoder's blocks read: the window refilled when
		 * fewer bytes than the longest instruction are left */
		if (have - off < X86_MAX_INSN_LEN) {
			memmove(buf, buf + off, have - off);
			have -= off;
			off = 0;
			have += lpt_cov_image_read(img, a + have, buf + have, sizeof(buf) - have);
		}
		if (have == off ||
		    x86_cofi_decode(buf + off, have - off, (enum x86_mode)mode, &x) < 0)
			break;
		out[n].addr = a;
		out[n].len = x.len;
		out[n].kind = insn_kind(x.kind);
		out[n].target = (x.kind == X86_COFI_JCC || x.kind == X86_COFI_JMP_REL ||
				 x.kind == X86_COFI_CALL_REL) ? x86_cofi_target(&x, a) : 0;
		n++;
		a += x.len;
		off += x.len;
	}
	return (long)n;
}
