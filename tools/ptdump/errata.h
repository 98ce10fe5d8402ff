/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptdump: the Intel PT errata that change what ptdump prints, by processor.
 *
 * libpt's packet decoder applies the errata that change packets (SKD007,
 * SKZ84; it is given the CPU through lpt_pkt_config.cpu, see
 * lpt_cpu_errata()). ptdump needs to know in addition whether the CPU is
 * one the errata tables know at all (libipt reports "unknown cpu"
 * otherwise) and SKL168, which concerns time calibration.
 */
#ifndef PTDUMP_ERRATA_H
#define PTDUMP_ERRATA_H

#include <stdint.h>

struct ptdump_errata {
	uint32_t skl168:1;	/* CYC before PSB may be dropped (Skylake) */
};

/*
 * Look up the errata of Intel family @family, model @model.
 * Returns 0, or -1 for a processor the table does not know (then
 * @errata is all zero).
 */
int ptdump_cpu_errata(struct ptdump_errata *errata, uint16_t family,
		      uint8_t model);

#endif /* PTDUMP_ERRATA_H */
