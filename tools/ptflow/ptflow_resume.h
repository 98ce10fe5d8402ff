/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resuming the instruction flow at the next span instead of the next PSB
 * (Documentation/ptflow.rst, "System-wide captures", point 4).
 *
 * When a span of a per-CPU trace cannot be decoded (its thread or maps are
 * not known), libipt cannot follow it and can only synchronise again at a
 * PSB (SDM 33.4.2.17), so every later span before that PSB would be lost.
 * But tracing is off between two spans (a context switch happens in the
 * kernel, between TIP.PGD and TIP.PGE, SDM 33.2.6), and a TIP.PGE starts a
 * flow that needs nothing from before it except the last IP (for its own
 * IP compression, SDM Table 33-18), the execution mode (MODE.Exec,
 * 33.4.2.8) and the time. ptflow_resume_build() therefore writes a small
 * trace that libipt can synchronise on:
 *
 *   PSB+ of the last PSB before the span, without its FUP (tracing off)
 *   every timing packet (TSC, TMA, MTC, CBR, CYC) since that PSB+
 *   the last MODE.Exec, and the span's TIP.PGE with its full 64-bit IP
 *   the trace bytes after that TIP.PGE, up to the next PSB
 *   the next PSB+'s timing packets and FUP + TIP.PGD at its FUP IP, if
 *   tracing is on there
 *
 * The timing packets are those the continuous decoder would have seen, so
 * libipt's time estimates are the same (SDM 33.8.3), also for the
 * instructions just before the next PSB, to which libipt gives the time of
 * that PSB+'s TSC that it reads ahead; the final FUP +
 * TIP.PGD (an asynchronous disable, SDM Table 33-56) makes libipt stop
 * exactly where the decoder that synchronises at the next PSB starts, after
 * using up the TNT bits before it.
 */
#ifndef LWPT_TOOLS_PTFLOW_RESUME_H
#define LWPT_TOOLS_PTFLOW_RESUME_H

#include <stddef.h>
#include <stdint.h>

/* A synthetic trace from ptflow_resume_build(); offsets are bytes. */
struct ptflow_resume {
	uint8_t *buf;		/* the trace, then PTFLOW_TRACE_PAD zeros */
	size_t len;		/* bytes of trace at @buf */
	uint64_t target;	/* offset of the span's TIP.PGE in the trace */
	uint64_t body;		/* @buf offset of the bytes after that TIP.PGE */
	uint64_t skip;		/* trace offset of those bytes */
	uint64_t tail;		/* @buf offset of the final timing, FUP + TIP.PGD
				 * (@len without them) */
	uint64_t next_psb;	/* trace offset where @buf's copy ends: the
				 * next PSB, or the trace's length */
	uint64_t end_ip;	/* the final FUP's IP */
};

/**
 * ptflow_resume_build() - the synthetic trace of the next span.
 * @buf:   the trace (a piece of it: offsets are relative to @buf).
 * @len:   bytes at @buf.
 * @after: a trace offset inside a span that is skipped: the decoder's
 *         offset when it entered it (a packet boundary not required).
 * @pad:   zero bytes to add after the synthetic trace (libipt reads ahead).
 * @r:     filled on success; release with ptflow_resume_free().
 *
 * Looks for the first TIP.PGE at or after @after, before the next PSB.
 *
 * Return: 1 when built; 0 when there is none (a PSB, OVF or the end comes
 * first, or no PSB precedes @after: decoding goes on at the next PSB as
 * before); -1 when out of memory.
 */
int ptflow_resume_build(const uint8_t *buf, size_t len, uint64_t after,
			size_t pad, struct ptflow_resume *r);

/**
 * ptflow_resume_map() - the trace offset of an offset in @r->buf.
 * @r:   from ptflow_resume_build().
 * @off: an offset in @r->buf (a decoder's).
 *
 * Return: the span's TIP.PGE offset for the header and the TIP.PGE; the
 * corresponding trace offset for the copied bytes; @r->next_psb for the
 * final FUP + TIP.PGD.
 */
uint64_t ptflow_resume_map(const struct ptflow_resume *r, uint64_t off);

/* ptflow_resume_free() - release @r's buffer; @r is left empty. */
void ptflow_resume_free(struct ptflow_resume *r);

#endif /* LWPT_TOOLS_PTFLOW_RESUME_H */
