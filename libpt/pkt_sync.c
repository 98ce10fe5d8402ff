// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * PSB search, SDM 33.4.2.17: the PSB is "02 82" repeated 8 times, a
 * pattern the decoder searches for to find packet boundaries.
 *
 * Word at a time: any 16-byte PSB fully contains the 8 bytes at every
 * position p with psb <= p <= psb + 8, and among any 9 consecutive
 * positions one is reached by stepping 8 bytes at a time. So we compare one
 * 8-byte load per 8 bytes against the two phases of the pattern
 * (PT_PSB_WORD, PT_PSB_WORD_ODD) and only look closer on a hit.
 *
 * A hit is extended to the whole run of "02 82" pairs; the PSB is taken to
 * be the LAST 16 bytes of that run (the bytes before a PSB may happen to
 * look like its pattern, e.g. in an IP payload; what follows a PSB is never
 * another "02 82"), as libipt does. See Documentation/libpt-pkt.rst.
 */
#include "pkt_internal.h"

/* Extend the "02 82" run containing the 8 pattern bytes at @p to its ends;
 * *@run_end is one past its last byte, the return value its first byte
 * (always a 0x02). */
static const uint8_t *psb_run(const uint8_t *begin, const uint8_t *end,
			      const uint8_t *p, const uint8_t **run_end)
{
	const uint8_t *s, *q;

	/* Align on a pair start. */
	s = (*p == PT_OPC_EXT) ? p : p + 1;
	for (q = s; q + 2 <= end && q[0] == PT_OPC_EXT && q[1] == PT_EXT_PSB;
	     q += 2)
		;
	*run_end = q;
	while (s - begin >= 2 && s[-2] == PT_OPC_EXT && s[-1] == PT_EXT_PSB)
		s -= 2;
	return s;
}

static inline int psb_word(const uint8_t *p)
{
	uint64_t w = lpt_ld64(p);

	return w == PT_PSB_WORD || w == PT_PSB_WORD_ODD;
}

const uint8_t *lpt_psb_find_forward(const uint8_t *begin, const uint8_t *end,
				    const uint8_t *from)
{
	const uint8_t *p = from;

	while (end - p >= 8) {
		const uint8_t *s, *run_end, *psb;

		if (LPT_LIKELY(!psb_word(p))) {
			p += 8;
			continue;
		}
		s = psb_run(begin, end, p, &run_end);
		psb = run_end - PT_PSB_SIZE;
		if (run_end - s >= PT_PSB_SIZE && psb >= from)
			return psb;
		/* Too short, or its PSB starts before @from: skip the run. A
		 * PSB starting at or after @from lies beyond it. */
		if (run_end <= p)
			p += 8;
		else
			p = run_end;
	}
	return NULL;
}

const uint8_t *lpt_psb_find_backward(const uint8_t *begin,
				     const uint8_t *end,
				     const uint8_t *before)
{
	const uint8_t *p, *next;

	if (end - begin < PT_PSB_SIZE || before - begin < 1)
		return NULL;
	/* A PSB starting before @before has 8 pattern bytes at a position
	 * <= before - 1 + 8; start there (or at the last full word). */
	p = (end - before >= 15) ? before + 7 : end - 8;

	for (;;) {
		next = p;
		if (psb_word(p)) {
			const uint8_t *s, *run_end, *psb;

			s = psb_run(begin, end, p, &run_end);
			psb = run_end - PT_PSB_SIZE;
			if (run_end - s >= PT_PSB_SIZE && psb < before)
				return psb;
			/* Any earlier PSB lies wholly before this run. */
			if (s < next)
				next = s;
		}
		if (next - begin < 8)
			return NULL;
		p = next - 8;
	}
}
