/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hand-built Intel PT packets for the ptflow unit tests: the encodings of
 * SDM 33.4.2, written at @b; each returns the bytes written.
 */
#ifndef LWPT_TESTS_TOOLS_PTFLOW_PT_BYTES_H
#define LWPT_TESTS_TOOLS_PTFLOW_PT_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline size_t put_psb(uint8_t *b)
{
	size_t i;

	for (i = 0; i < 16; i += 2) {	/* PSB: 02 82 x 8 (33.4.2.17) */
		b[i] = 0x02;
		b[i + 1] = 0x82;
	}
	return 16;
}

static inline size_t put_le(uint8_t *b, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	return n;
}

static inline size_t put_tsc(uint8_t *b, uint64_t tsc)
{
	b[0] = 0x19;			/* TSC (33.4.2.11) */
	return 1 + put_le(b + 1, tsc, 7);
}

/* TIP.PGE (33.4.2.4): IPBytes in bits 7:5; 6 = full 64-bit IP. */
static inline size_t put_pge(uint8_t *b, unsigned int ipbytes, uint64_t ip)
{
	static const size_t len[] = { 0, 2, 4, 6, 6, 0, 8 };

	b[0] = (uint8_t)(ipbytes << 5 | 0x11);
	return 1 + put_le(b + 1, ip, len[ipbytes]);
}

#endif /* LWPT_TESTS_TOOLS_PTFLOW_PT_BYTES_H */
