// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The coverage map's slot function and hash (lwpt/pt_cov.h).
 *
 * The slot function is libxdc 7a7894a's (src/trace_cache.c, mix_bits() and
 * generate_result_offset()), so that the libxdc-compatible map is byte
 * identical; the hash is MurmurHash3_x64_128 (Austin Appleby, public
 * domain, SMHasher's MurmurHash3.cpp), written here from its description.
 */
#include <lwpt/pt_cov.h>

#include <string.h>

#include "libpt/cov_internal.h"

static inline uint64_t cov_mix(uint64_t v)
{
	v ^= v >> 31;
	return v * 0x7fb5d329728ea185ull;
}

uint32_t lpt_cov_slot(uint64_t src, uint64_t dst, size_t map_size)
{
	return (uint32_t)(cov_mix(dst) ^ (cov_mix(src) >> 1)) &
	       (uint32_t)(map_size - 1);
}

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

uint64_t lpt_cov_map_hash(const uint8_t *data, size_t len)
{
	const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
	uint64_t h1 = 0xaaaaaaaa, h2 = 0xaaaaaaaa, k1, k2;
	size_t nblocks = len / 16, i;
	const uint8_t *tail;

	for (i = 0; i < nblocks; i++) {
		memcpy(&k1, data + 16 * i, 8);
		memcpy(&k2, data + 16 * i + 8, 8);
		k1 = le64toh(k1);
		k2 = le64toh(k2);
		k1 *= c1; k1 = rotl64(k1, 31); k1 *= c2; h1 ^= k1;
		h1 = rotl64(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
		k2 *= c2; k2 = rotl64(k2, 33); k2 *= c1; h2 ^= k2;
		h2 = rotl64(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
	}
	tail = data + 16 * nblocks;
	k1 = 0;
	k2 = 0;
	for (i = len & 15; i > 8; i--)
		k2 ^= (uint64_t)tail[i - 1] << (8 * (i - 9));
	if (k2) {
		k2 *= c2; k2 = rotl64(k2, 33); k2 *= c1; h2 ^= k2;
	}
	for (i = (len & 15) < 8 ? (len & 15) : 8; i > 0; i--)
		k1 ^= (uint64_t)tail[i - 1] << (8 * (i - 1));
	if (k1) {
		k1 *= c1; k1 = rotl64(k1, 31); k1 *= c2; h1 ^= k1;
	}
	h1 ^= len;
	h2 ^= len;
	h1 += h2;
	h2 += h1;
	h1 = fmix64(h1);
	h2 = fmix64(h2);
	h1 += h2;
	return h1;
}
