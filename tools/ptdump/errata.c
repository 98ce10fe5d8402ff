// SPDX-License-Identifier: GPL-2.0
/*
 * ptdump: Intel PT errata by processor (family 6 and later Intel cores).
 *
 * Sources: the specification updates of the processors concerned; erratum
 * names are those used there (SKD = 6th gen. Core desktop, SKL = Skylake
 * client, SKZ = Skylake server). The set of known processors matches the
 * one libipt's ptdump accepts without an "unknown cpu" diagnostic.
 */
#include "tools/ptdump/errata.h"

#include <stddef.h>
#include <string.h>

#define E_SKL		(1u << 0)	/* SKL168 */
#define E_SKZ84		(1u << 1)	/* decoder: lpt_cpu_errata() */
#define E_NONE		0u

struct cpu_errata {
	uint16_t family;
	uint8_t model;
	uint8_t errata;
};

static const struct cpu_errata cpu_table[] = {
	/* Broadwell */
	{ 6, 0x3d, E_NONE }, { 6, 0x47, E_NONE }, { 6, 0x4f, E_NONE },
	{ 6, 0x56, E_NONE },
	/* Skylake, Kaby Lake, Coffee Lake, Comet Lake client */
	{ 6, 0x4e, E_SKL }, { 6, 0x5e, E_SKL }, { 6, 0x8e, E_SKL },
	{ 6, 0x9e, E_SKL }, { 6, 0xa5, E_SKL }, { 6, 0xa6, E_SKL },
	/* Skylake, Cascade Lake, Ice Lake, Sapphire/Emerald Rapids server */
	{ 6, 0x55, E_SKZ84 }, { 6, 0x6a, E_SKZ84 }, { 6, 0x6c, E_SKZ84 },
	{ 6, 0x8f, E_SKZ84 }, { 6, 0xad, E_SKZ84 }, { 6, 0xae, E_SKZ84 },
	{ 6, 0xcf, E_SKZ84 }, { 0x13, 0x01, E_SKZ84 },
	/* Cannon Lake, Ice Lake, Tiger Lake client */
	{ 6, 0x66, E_NONE }, { 6, 0x7d, E_NONE }, { 6, 0x7e, E_NONE },
	{ 6, 0x8c, E_NONE }, { 6, 0x8d, E_NONE }, { 6, 0xa7, E_NONE },
	{ 6, 0xa8, E_NONE },
	/* Alder Lake, Raptor Lake, Meteor Lake, Lunar Lake, Arrow Lake, ... */
	{ 6, 0x97, E_NONE }, { 6, 0x9a, E_NONE }, { 6, 0xbf, E_NONE },
	{ 6, 0xb7, E_NONE }, { 6, 0xb5, E_NONE }, { 6, 0xaa, E_NONE },
	{ 6, 0xac, E_NONE }, { 6, 0xba, E_NONE }, { 6, 0xcc, E_NONE },
	{ 6, 0xbd, E_NONE }, { 6, 0xc5, E_NONE }, { 6, 0xc6, E_NONE },
	{ 6, 0xd5, E_NONE },
	/* Goldmont, Goldmont Plus, Tremont, Gracemont, ... (Atom) */
	{ 6, 0x5c, E_NONE }, { 6, 0x5f, E_NONE }, { 6, 0x7a, E_NONE },
	{ 6, 0x86, E_NONE }, { 6, 0x96, E_NONE }, { 6, 0x9c, E_NONE },
	{ 6, 0xb6, E_NONE }, { 6, 0xaf, E_NONE }, { 6, 0xdd, E_NONE },
	/* Family 18 */
	{ 0x12, 0x01, E_NONE }, { 0x12, 0x03, E_NONE },
};

int ptdump_cpu_errata(struct ptdump_errata *errata, uint16_t family,
		      uint8_t model)
{
	size_t i;

	memset(errata, 0, sizeof(*errata));
	for (i = 0; i < sizeof(cpu_table) / sizeof(cpu_table[0]); i++) {
		const struct cpu_errata *c = &cpu_table[i];

		if (c->family != family || c->model != model)
			continue;
		errata->skl168 = !!(c->errata & E_SKL);
		return 0;
	}
	return -1;
}
