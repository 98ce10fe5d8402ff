// SPDX-License-Identifier: GPL-2.0
/*
 * Capstone-based disassembly for ptflow. One Capstone handle per x86 mode,
 * opened on first use, and one reusable cs_insn for cs_disasm_iter().
 */
#include "tools/ptflow/ptflow_disasm.h"

#include <stdio.h>
#include <stdlib.h>

#include <capstone/capstone.h>

enum { PTFLOW_MODE_16, PTFLOW_MODE_32, PTFLOW_MODE_64, PTFLOW_NMODES };

struct ptflow_disasm {
	bool intel;
	bool open[PTFLOW_NMODES];
	csh handle[PTFLOW_NMODES];
	cs_insn *insn[PTFLOW_NMODES];
};

struct ptflow_disasm *ptflow_disasm_alloc(bool intel)
{
	struct ptflow_disasm *d = calloc(1, sizeof(*d));

	if (d)
		d->intel = intel;
	return d;
}

void ptflow_disasm_free(struct ptflow_disasm *d)
{
	int m;

	if (!d)
		return;
	for (m = 0; m < PTFLOW_NMODES; m++) {
		if (!d->open[m])
			continue;
		cs_free(d->insn[m], 1);
		cs_close(&d->handle[m]);
	}
	free(d);
}

/* The Capstone handle for @mode, opened on first use; NULL on failure. */
static bool get_handle(struct ptflow_disasm *d, enum pt_exec_mode mode,
		       int *slot)
{
	static const cs_mode cs_modes[PTFLOW_NMODES] = {
		[PTFLOW_MODE_16] = CS_MODE_16,
		[PTFLOW_MODE_32] = CS_MODE_32,
		[PTFLOW_MODE_64] = CS_MODE_64,
	};
	int m;

	switch (mode) {
	case ptem_16bit: m = PTFLOW_MODE_16; break;
	case ptem_32bit: m = PTFLOW_MODE_32; break;
	case ptem_64bit: m = PTFLOW_MODE_64; break;
	default: return false;
	}

	if (!d->open[m]) {
		if (cs_open(CS_ARCH_X86, cs_modes[m], &d->handle[m]) != CS_ERR_OK)
			return false;
		if (!d->intel &&
		    cs_option(d->handle[m], CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT)
		    != CS_ERR_OK) {
			cs_close(&d->handle[m]);
			return false;
		}
		d->insn[m] = cs_malloc(d->handle[m]);
		if (!d->insn[m]) {
			cs_close(&d->handle[m]);
			return false;
		}
		d->open[m] = true;
	}
	*slot = m;
	return true;
}

int ptflow_disasm_insn(struct ptflow_disasm *d, enum pt_exec_mode mode,
		       const uint8_t *raw, size_t size, uint64_t ip,
		       char *buf, size_t len)
{
	const uint8_t *code = raw;
	uint64_t addr = ip;
	size_t left = size;
	cs_insn *ci;
	int m;

	if (!d || !raw || !buf || !len)
		return -1;

	if (!get_handle(d, mode, &m) ||
	    !cs_disasm_iter(d->handle[m], &code, &left, &addr, d->insn[m])) {
		snprintf(buf, len, "(bad)");
		return -1;
	}

	ci = d->insn[m];
	if (ci->op_str[0])
		snprintf(buf, len, "%s %s", ci->mnemonic, ci->op_str);
	else
		snprintf(buf, len, "%s", ci->mnemonic);
	return 0;
}
