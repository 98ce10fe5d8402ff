/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The coverage decoder's hot packet scanning (libpt/cov_decode.c): runs of
 * one-byte packets (PAD and TNT.8, SDM 33.4.2.1 and 33.4.2.14) eight bytes
 * at a time, and the IP of a TIP or TIP.PGD (SDM 33.4.2.2, Table 33-18)
 * without a branch on IPBytes.
 *
 * A warm decode is mostly these bytes (mruby, a kAFL trace: 245 000 PAD
 * and 84 000 TNT.8 bytes of 713 000). Looked at one at a time, whether a
 * byte is a PAD or a TNT.8 is a branch the predictor cannot learn; here a
 * word's bytes are classified at once and the TNT.8 bytes among the PADs
 * packed with one PEXT (BMI2), or a fixed loop without branches where
 * PEXT is missing or slow.
 */
#ifndef _LIBPT_COV_SCAN_H
#define _LIBPT_COV_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include <lwpt/pt_packets.h>

#include "libpt/pkt_internal.h"

#define COV_B8(x)	(0x0101010101010101ull * (uint8_t)(x))

/* 0x80 in each byte of @w that is zero, 0 elsewhere (exact: no carry
 * crosses a byte). */
static inline uint64_t cov_zero_bytes(uint64_t w)
{
	uint64_t t = (w & COV_B8(0x7f)) + COV_B8(0x7f);

	return ~(t | w | COV_B8(0x7f));
}

/* PEXT (BMI2): the bits of @v under @mask, packed at the bottom. Only
 * called when the CPU has it fast (cov_decode.c's pext_fast()). */
static inline uint64_t cov_pext(uint64_t v, uint64_t mask)
{
#if defined(__x86_64__)
	uint64_t r;

	__asm__("pextq %2, %1, %0" : "=r"(r) : "r"(v), "rm"(mask));
	return r;
#else
	(void)v;
	(void)mask;
	return 0;
#endif
}

/* The bytes of @w under @nz (0x80 marks a byte), packed at the bottom in
 * order; without PEXT: eight steps and no branch. */
static inline uint64_t cov_pack_bytes(uint64_t w, uint64_t nz, bool pext)
{
	uint64_t sel = (nz >> 7) * 0xff, r = 0;
	unsigned int s = 0;

	if (pext)
		return cov_pext(w, sel);
	w &= sel;
	for (unsigned int i = 0; i < 8; i++) {
		uint64_t b = (w >> (8 * i)) & 0xff;

		r |= b << (s & 63);
		s += b ? 8 : 0;
	}
	return r;
}

/* A run of PAD and TNT.8 packets (cov_tnt_run()). */
struct cov_run {
	uint64_t tnt;		/* the TNT.8 bytes, the first at bits 7:0 */
	unsigned int n;		/* how many (at most @max) */
	const uint8_t *q;	/* the first byte after the run */
	unsigned int hdr;	/* the byte at @q, or 256: not read */
};

/*
 * The PAD and TNT.8 packets from @p on, up to @max (1..8) TNT.8 bytes: a
 * run ends at another packet, at @end, or right after its @max'th TNT.8.
 * PAD is 0x00, TNT.8 any other byte with bit 0 clear but 0x02 (the
 * extended opcodes), SDM 33.4.2 Table 33-3. Eight bytes per step.
 */
static inline __attribute__((always_inline))
void cov_tnt_run(const uint8_t *p, const uint8_t *end, unsigned int max,
		 bool pext, struct cov_run *r)
{
	uint64_t tnt = 0;
	unsigned int n = 0, hdr = 256;
	const uint8_t *q = p;

	for (;;) {
		uint64_t w, rej, pre, nz;
		unsigned int cnt;

		if (end - q >= 8) {
			w = lpt_ld64(q);
		} else {	/* the last bytes; 0x01 (odd) ends the run */
			w = COV_B8(0x01);
			for (unsigned int i = 0; q + i < end; i++)
				w = (w & ~(0xffull << (8 * i))) | (uint64_t)q[i] << (8 * i);
		}
		/* bytes that are neither: odd ones, and 0x02 */
		rej = ((w & COV_B8(0x01)) << 7) | cov_zero_bytes(w ^ COV_B8(0x02));
		pre = rej ? (rej & -rej) - 1 : ~0ull;	/* the bytes before */
		nz = ~cov_zero_bytes(w) & COV_B8(0x80) & pre;	/* TNT.8s */
		/* how many (one bit a byte: a multiply adds them up; no
		 * libgcc call where the build has no POPCNT) */
		cnt = (unsigned int)(((nz >> 7) * COV_B8(0x01)) >> 56);
		if (n + cnt >= max) {
			/* the first max - n of them, and the run ends there */
			while (n + cnt > max) {
				nz &= ~(1ull << (63 - __builtin_clzll(nz)));
				cnt--;
			}
			tnt |= cov_pack_bytes(w, nz, pext) << ((8 * n) & 63);
			n += cnt;
			/* nz is not 0: n < max on every step */
			q += ((63 - __builtin_clzll(nz)) >> 3) + 1;
			break;
		}
		tnt |= cov_pack_bytes(w, nz, pext) << ((8 * n) & 63);
		n += cnt;
		if (rej) {
			unsigned int bit = (unsigned int)__builtin_ctzll(rej);

			q += bit >> 3;
			hdr = (unsigned int)(w >> (bit - 7)) & 0xff;
			break;
		}
		q += 8;
	}
	if (q >= end) {		/* ended by the 0x01s past the end */
		q = end;
		hdr = 256;
	}
	r->tnt = tnt;
	r->n = n;
	r->q = q;
	r->hdr = hdr;
}

/*
 * The IP of a TIP-family packet whose IPBytes @ipb (1, 2, 3, 4 or 6) has a
 * payload at @pl, with at least 8 bytes readable there, after Last IP
 * @last_ip (lpt_ip_reconstruct(), SDM Table 33-18): one load.
 */
static inline uint64_t cov_ip_fast(const uint8_t *pl, unsigned int ipb,
				   uint64_t last_ip)
{
	return lpt_ip_reconstruct(last_ip, ipb, lpt_ld64(pl));
}

#endif /* _LIBPT_COV_SCAN_H */
