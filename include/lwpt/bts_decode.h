/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libpt BTS decoder: Branch Trace Store records + the traced code -> the
 * executed instructions as the flow engine's blocks and events
 * (lwpt/pt_flow.h), so ptflow's views take a BTS capture as a PT one.
 *
 * A BTS record (SDM Vol. 3B 17.4.8, 17.4.9.1, Figure 17-9; lwpt/bts_arch.h)
 * tells one taken branch: "from" (the branch's address) and "to" (its
 * target). The code from one record's "to" to the next record's "from" ran
 * without a taken branch: it is linear, walked here with the coverage
 * decoder's instruction lengths (lpt_cov_insn_at(), SDM Vol. 2 Chapter 2)
 * over the capture's image. One block per record: from the previous "to"
 * (or the start address) to the record's "from", its end kind the branch
 * at "from". Each block walked is cached by its two ends (up to
 * LPT_COV_CACHE_MAX bytes a decoder), so code the trace runs again is not
 * decoded again, as the flow engine caches its blocks.
 *
 * A user-only capture (DEBUGCTL.BTS_OFF_OS, 17.4.9.3) keeps the records
 * that go into the kernel (SYSCALL, interrupts, exceptions: "to" a kernel
 * address) and drops the ones inside it and back. Such a record is a
 * LPT_FLOW_EV_DISABLED event after its block (@ip the kernel target), and
 * the code goes on, enabled again (LPT_FLOW_EV_ENABLED, resumed), at the
 * instruction after "from" (a system call returns there). A record "from"
 * the kernel (a capture with kernel branches) ends the kernel code's gap:
 * ENABLED at its "to". Records that do not follow the code (a taken branch
 * between "to" and the next "from", a "from" never reached, code missing
 * from the image) give LPT_FLOW_EV_RESYNC and the walk goes on at the
 * record's "to", as PT's flow engine goes on at the next PSB. A record
 * whose "from" and "to" are both 0 is no record and is skipped, as perf's
 * intel_bts decoder skips it (pt2perf pads AUXTRACE buffers with one).
 *
 *	struct lpt_bts *d = lpt_bts_alloc(img, recs, len, start_ip);
 *	int st = 0;
 *	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
 *		if (st & LPT_FLOW_EVENT_PENDING)
 *			st = lpt_bts_event(d, &ev);
 *		else
 *			st = lpt_bts_next(d, &b);
 *	}
 *	lpt_bts_free(d);
 *
 * Only 64-bit code is decoded (the 64-bit record format, 17.4.9.1).
 */
#ifndef _LWPT_BTS_DECODE_H
#define _LWPT_BTS_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include <lwpt/pt_cov.h>
#include <lwpt/pt_flow.h>

/* Size of one record in a BTS trace file (SDM Figure 17-9). */
#define LPT_BTS_RECORD_SIZE	24u

/* The lowest kernel address (the upper canonical half, 48-bit linear
 * addresses, SDM Vol. 1 3.3.7.1): a record's address at or above it is
 * the kernel's. */
#define LPT_BTS_KERNEL_MIN	0xffff800000000000ull

/* The longest linear stretch walked for one record, in instructions: a
 * longer one is a RESYNC (LPT_ERR_OVERFLOW), so a bad record never walks
 * the image for ever. */
#define LPT_BTS_BLOCK_MAX	(1u << 22)

struct lpt_bts;

/**
 * lpt_bts_alloc() - a BTS decoder over a trace of records.
 * @img:      the traced code; must outlive the decoder and not change
 *            while it lives (its blocks are cached).
 * @recs:     the raw records (24 bytes each, little-endian, SDM Figure
 *            17-9); must outlive the decoder. A trailing partial record
 *            is ignored.
 * @len:      bytes at @recs.
 * @start_ip: where the code started before the first record (a program's
 *            entry point), or 0 when not known: then the first block
 *            starts at the first record's "to" (an ENABLED event there).
 *
 * Return: the decoder, or NULL with errno EINVAL (NULL @img, NULL @recs
 * with @len) or ENOMEM.
 */
struct lpt_bts *lpt_bts_alloc(const struct lpt_cov_image *img, const void *recs,
			      size_t len, uint64_t start_ip);

/**
 * lpt_bts_free() - free a decoder; NULL is a no-op.
 * @d: decoder.
 */
void lpt_bts_free(struct lpt_bts *d);

/**
 * lpt_bts_next() - the next block of executed instructions.
 * @d: decoder; its status must have neither LPT_FLOW_EVENT_PENDING nor
 *     LPT_FLOW_EOS.
 * @b: filled; b->lens is valid until the next call on @d.
 *
 * Return: the status (LPT_FLOW_EVENT_PENDING, LPT_FLOW_EOS bits, as
 * lpt_flow_next()); LPT_ERR_BAD_CONTEXT when an event is pending or the
 * trace is done; LPT_ERR_INVALID for NULL arguments.
 */
int lpt_bts_next(struct lpt_bts *d, struct lpt_flow_block *b);

/**
 * lpt_bts_event() - the pending event (ENABLED, DISABLED or RESYNC; see
 * the top of this file).
 * @d:  decoder with LPT_FLOW_EVENT_PENDING in its status.
 * @ev: filled; ev->offset is the byte offset of the record that gave it.
 *
 * Return: the status as lpt_bts_next(); LPT_ERR_BAD_CONTEXT when no
 * event is pending; LPT_ERR_INVALID for NULL arguments.
 */
int lpt_bts_event(struct lpt_bts *d, struct lpt_flow_event *ev);

/**
 * lpt_bts_status() - the decoder's status before the first call: an
 * event may be pending (ENABLED at the first record's "to" without a
 * start address), or the trace may hold no record (LPT_FLOW_EOS).
 * @d: decoder.
 *
 * Return: the status bits; LPT_ERR_INVALID for NULL @d.
 */
int lpt_bts_status(struct lpt_bts *d);

#endif /* _LWPT_BTS_DECODE_H */
