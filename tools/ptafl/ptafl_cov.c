// SPDX-License-Identifier: GPL-2.0
/*
 * ptafl's door to the coverage decoder (ptafl_cov.h). Until libpt has the
 * decoder of issue 25 this ptafl is built without it: ptafl_cov_new()
 * says so and ptafl refuses --trace-source=pt.
 */
#include "ptafl_cov.h"

#include <errno.h>
#include <stdio.h>

int ptafl_cov_new(struct ptafl_cov **cp, const struct ptafl_cov_setup *s, char *err,
		  size_t errlen)
{
	(void)cp;
	(void)s;
	snprintf(err, errlen, "this ptafl was built without libpt's coverage decoder");
	return -ENOSYS;
}

int ptafl_cov_decode(struct ptafl_cov *c, const void *trace, size_t len, uint8_t *map)
{
	(void)c;
	(void)trace;
	(void)len;
	(void)map;
	return -ENOSYS;
}

void ptafl_cov_free(struct ptafl_cov *c)
{
	(void)c;
}

/* The coverage decoder's slot function as Documentation/ptcov.rst gives it
 * (libxdc 7a7894a's): mix(v) = (v ^ (v >> 31)) * 0x7fb5d329728ea185. */
static uint64_t slot_mix(uint64_t v)
{
	return (v ^ (v >> 31)) * 0x7fb5d329728ea185ull;
}

uint32_t ptafl_edge_slot(uint64_t src, uint64_t dst, uint32_t map_size)
{
	return (uint32_t)(slot_mix(dst) ^ (slot_mix(src) >> 1)) & (map_size - 1);
}
