/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Coverage decoder internals shared by libpt/cov_*.c and libpt/flow_*.c,
 * and with ptcov (tools/ptcov, linked with the static libpt): the edges
 * with their destination blocks. Not exported by libpt.so (libpt.map).
 */
#ifndef _LIBPT_COV_INTERNAL_H
#define _LIBPT_COV_INTERNAL_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>

#include <lwpt/pt_cov.h>

/*
 * The flow hooks: the coverage decoder's block walk (cov_decode.c) tells
 * an observer (the flow engine, flow_decode.c) which instructions it
 * executed and which events it met, in trace order, as it goes. The walk
 * stays the coverage decoder's (libipt 2.0.5's instruction-flow semantics,
 * Documentation/ptcov.rst); the observer only listens. Blocks come from
 * the block cache, with the lengths of their instructions cached once
 * (cov_flow_begin() turns that on), so the observer never decodes an
 * instruction.
 */

/* What ends the instructions handed to cov_flow_ops.insns. */
enum cov_flow_end {
	COV_END_NONE = 0,	/* no branch: the run stops before one */
	COV_END_JCC,		/* conditional branch (Jcc, JrCXZ, LOOPcc) */
	COV_END_JMP,		/* direct near JMP */
	COV_END_CALL,		/* direct near CALL */
	COV_END_JMP_IND,	/* indirect near JMP */
	COV_END_CALL_IND,	/* indirect near CALL */
	COV_END_RET,		/* near RET */
	COV_END_FAR,		/* far transfer (SDM Table 33-1) */
};

/* Events, named as libipt's enum pt_event_type. */
enum cov_flow_ev {
	COV_EV_ENABLED,		/* TIP.PGE: @ip */
	COV_EV_DISABLED,	/* TIP.PGD: @ip (0 with @suppressed) */
	COV_EV_ASYNC_DISABLED,	/* FUP + TIP.PGD: at @from, to @ip */
	COV_EV_ASYNC_BRANCH,	/* FUP + TIP: from @from to @ip */
	COV_EV_OVERFLOW,	/* OVF: resumed at @ip (@suppressed: off) */
	COV_EV_ERROR,		/* a decode error (@err); the walk goes on
				 * at the next PSB as libipt's user does */
	COV_EV_EXEC_MODE,	/* MODE.Exec bound to a TIP/TIP.PGE: mode @ip */
	COV_EV_CBR,		/* CBR outside PSB+: ratio @ip */
	COV_EV_PAGING,		/* PIP while tracing is off: CR3 @ip,
				 * @from 1 with PIP.NR */
	COV_EV_VMCS,		/* VMCS while tracing is off: base @ip */
};

struct cov_flow_ops {
	/*
	 * @n instructions executed from @start in @mode (enum x86_mode), the
	 * length of each at @lens (bytes); the last of them, at @last
	 * (start plus the lengths before it, as libipt adds them), is a
	 * branch of kind @end (enum cov_flow_end) or none. @last is 0 where
	 * it is not at hand (then the receiver adds the lengths).
	 */
	void (*insns)(void *ctx, uint64_t start, uint64_t last,
		      const uint8_t *lens, uint32_t n, uint8_t mode,
		      unsigned int end);
	/* An event (enum cov_flow_ev) at trace offset @off (the packet
	 * that gave it). */
	void (*event)(void *ctx, unsigned int type, uint64_t from, uint64_t ip,
		      bool suppressed, int err, uint64_t off);
	/* Take back the last instruction or event reported (libipt loses
	 * it: the call that was to return it fails). */
	void (*retract)(void *ctx);
};

/**
 * cov_flow_begin() - start a step-by-step decode of @trace with the flow
 * hooks: every later decode of @c reports to @ops (@ctx passed back).
 * @c:     a decoder allocated with LPT_COV_F_NO_PATHS (cached paths do not
 *         walk blocks).
 * @trace, @len: raw Intel PT; must stay valid until the decode ends.
 *
 * Return: 0 when a PSB was found, LPT_ERR_NOSYNC when the trace has none.
 */
int cov_flow_begin(struct lpt_cov *c, const uint8_t *trace, size_t len,
		   const struct cov_flow_ops *ops, void *ctx);

/**
 * cov_flow_step() - decode the next packet (or resynchronise at the next
 * PSB after an error).
 * @c: after cov_flow_begin().
 *
 * Return: 1 while there is more, 0 at the end of the trace (after the
 * end's instructions were reported).
 */
int cov_flow_step(struct lpt_cov *c);

/**
 * cov_flow_offset() - the offset in the trace of the packet the next
 * cov_flow_step() decodes.
 * @c: after cov_flow_begin().
 */
uint64_t cov_flow_offset(const struct lpt_cov *c);

/* ---- edges with their destination blocks (ptcov's flow) ---------------- */

struct cov_blk;

/**
 * cov_edges_dst() - lpt_cov_edges(), and for each edge the decoder's cached
 * block at its destination in 64-bit mode (what lpt_cov_block_lens(@c,
 * dst, 64) finds), so that a user walking the destinations' blocks
 * (tools/ptcov/cov_flow.c) probes no cache: each edge's block is looked up
 * once while the cache lives, not once per call.
 * @c:   a decoder with LPT_COV_F_EDGES, after lpt_cov_decode().
 * @out: receives the edges, in lpt_cov_edges()' order (by source, then
 *       destination); @c's, valid until the next decode or call.
 * @dst: receives per edge its destination's block, NULL where the cache
 *       has none; valid while cov_gen(@c) is *@gen (read with
 *       cov_blk_lens()).
 * @gen: receives cov_gen(@c).
 *
 * Return: the number of edges, LPT_ERR_INVALID (a NULL argument, no
 * LPT_COV_F_EDGES), LPT_ERR_NOMEM.
 */
long cov_edges_dst(struct lpt_cov *c, const struct lpt_cov_edge **out,
		   const struct cov_blk *const **dst, uint64_t *gen);

/**
 * cov_gen() - a count that changes whenever @c decodes, is flushed or
 * starts a flow decode: cov_edges_dst()' blocks and edges stay valid
 * while it stays the same.
 */
uint64_t cov_gen(const struct lpt_cov *c);

/**
 * cov_blk_lens() - a block cov_edges_dst() gave, as lpt_cov_block_lens()
 * gives it: @out filled, *@lens its instructions' lengths or NULL (the
 * decoder kept none: no LPT_COV_F_LENS, or no instruction).
 */
void cov_blk_lens(const struct cov_blk *b, struct lpt_cov_block *out,
		  const uint8_t **lens);

/* ---- libipt's read-ahead (flow_ahead.c) -------------------------------- */

/* How libipt 2.0.5 treats a packet (pt_decoder_function.c's flags). */
enum cov_flow_cls {
	FC_END,		/* no byte left */
	FC_BAD_OPC,	/* an opcode libipt does not know */
	FC_BRANCH,	/* TNT, TIP (pdff_tnt, pdff_tip) */
	FC_FUP,		/* FUP (pdff_fup) */
	FC_EVENT,	/* pdff_event: TIP.PGE/PGD, PIP, OVF, MODE, CBR,
			 * TRACESTOP, VMCS, MNT, EXSTOP, MWAIT, PWRE, PWRX, PTW */
	FC_STATUS,	/* PAD, PSB, PSBEND, TSC, TMA, MTC, CYC */
};

/* What libipt loses at a packet (cov_flow_loss()). */
enum cov_flow_loss {
	FL_NONE,
	FL_BEFORE,	/* an event packet: fail before it */
	FL_LAST,	/* a query's packet (TNT, TIP, TIP.PGD): the last
			 * instruction or event it gives is lost */
};

/* The trace and what the last cov_flow_loss() found. */
struct cov_flow_ahead {
	uint32_t pkt_flags;		/* lpt_pkt_decode()'s flags */
	const uint8_t *begin, *end;	/* the trace */
	int err;			/* the error libipt meets there */
	const uint8_t *bad_psb;		/* the PSB+ it is in, or NULL */
};

/**
 * cov_flow_class() - libipt's class of the packet at @p, from its opcode
 * bytes alone (libipt's pt_df_fetch(): a packet cut by @end too).
 * @a: the trace.
 * @p, @end: the packet and the end of the trace.
 *
 * Return: enum cov_flow_cls.
 */
enum cov_flow_cls cov_flow_class(const struct cov_flow_ahead *a, const uint8_t *p,
				  const uint8_t *end);

/**
 * cov_flow_psb_bad() - whether libipt cannot read the PSB+ at @p
 * (pt_qry_read_psb_header(): a packet other than PAD, FUP, PIP, MODE, TSC,
 * CBR, TMA, MTC, CYC, VMCS, MNT before its PSBEND, or one that does not
 * decode).
 * @a: the trace.
 * @p, @end: a PSB and the end of the trace.
 *
 * Return: the error libipt meets (LPT_ERR_BAD_CONTEXT, a decode error), 0
 * when it reads or is cut by the end (libipt's read-ahead ignores that).
 */
int cov_flow_psb_bad(const struct cov_flow_ahead *a, const uint8_t *p,
		     const uint8_t *end);

/**
 * cov_flow_loss() - what libipt loses at the packet at @p: its query
 * decoder reads ahead after each query, and its instruction decoder
 * fetches an event packet found there at once (event_pending()); when
 * that does not decode, the call fails and the instruction or event it
 * was to return is lost.
 * @a:      the trace; receives the error (@a->err) and the PSB+ it is in
 *          (@a->bad_psb) when not FL_NONE.
 * @in_psb: the walk is inside a PSB+ (no query there).
 * @p, @end: the packet and the end of the trace.
 *
 * Return: enum cov_flow_loss.
 */
enum cov_flow_loss cov_flow_loss(struct cov_flow_ahead *a, bool in_psb,
				 const uint8_t *p, const uint8_t *end);

/**
 * cov_flow_resync() - where libipt's user goes on after an error at the
 * packets before @p: after libipt's read-ahead (status packets, a PSB+ up
 * to its PSBEND), the next PSB from 15 bytes before (pt_qry_sync_forward()).
 * @a: the trace.
 * @p: where the walk stands.
 *
 * Return: the PSB, or the end of the trace.
 */
const uint8_t *cov_flow_resync(const struct cov_flow_ahead *a, const uint8_t *p);

#endif /* _LIBPT_COV_INTERNAL_H */
