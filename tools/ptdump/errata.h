/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptdump: the Intel PT errata that change what ptdump prints, by processor.
 *
 * The packet decoder applies the errata that change packet boundaries
 * (it is given the CPU through lpt_pkt_config.cpu). ptdump needs to know
 * in addition whether the CPU is one the errata tables know at all (libipt
 * reports "unknown cpu" otherwise), SKL168 for time calibration and SKZ84
 * for how a corrupted TMA is shown.
 */
#ifndef PTDUMP_ERRATA_H
#define PTDUMP_ERRATA_H

#include <stdint.h>

struct ptdump_errata {
	uint32_t skd007:1;	/* CYC may hide an OVF (Skylake) */
	uint32_t skl168:1;	/* CYC before PSB may be dropped (Skylake) */
	uint32_t skz84:1;	/* TSC scaling/offsetting corrupts TMA */
};

/*
 * Look up the errata of Intel family @family, model @model.
 * Returns 0, or -1 for a processor the table does not know (then
 * @errata is all zero).
 */
int ptdump_cpu_errata(struct ptdump_errata *errata, uint16_t family,
		      uint8_t model);

#endif /* PTDUMP_ERRATA_H */
