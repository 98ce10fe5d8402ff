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

uint32_t ptafl_edge_slot(uint64_t src, uint64_t dst, uint32_t map_size)
{
	uint64_t h = (src * 0x9e3779b97f4a7c15ull) ^ (dst + (dst << 17) + (dst >> 13));

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (uint32_t)h & (map_size - 1);
}
