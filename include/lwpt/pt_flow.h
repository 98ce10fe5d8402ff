/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libpt flow engine: Intel PT trace bytes + the traced code -> the executed
 * instructions as blocks, and the events between them, in the style of
 * libipt's block decoder (pt_blk_alloc_decoder(), pt_blk_sync_forward(),
 * pt_blk_next(), pt_blk_event(), pt_blk_free_decoder()).
 *
 * It is the coverage decoder's block walk (lwpt/pt_cov.h,
 * Documentation/ptcov.rst) with the blocks it executes reported instead of
 * counted: a block is a run of instructions at consecutive addresses that
 * ends with a branch, an event, or where the trace stops telling. Each
 * block's instruction lengths are cached with the block the first time it
 * is decoded, so a block's instruction addresses come without decoding.
 *
 *	struct lpt_flow_config cfg;
 *	lpt_flow_config_init(&cfg);
 *	struct lpt_flow *f = lpt_flow_alloc(&cfg, img);
 *	int st = lpt_flow_sync(f, trace, len);
 *	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
 *		struct lpt_flow_block b;
 *		struct lpt_flow_event ev;
 *
 *		if (st & LPT_FLOW_EVENT_PENDING)
 *			st = lpt_flow_event(f, &ev);	// handle ev
 *		else
 *			st = lpt_flow_next(f, &b);	// b.ninsn instructions
 *	}
 *	lpt_flow_free(f);
 *
 * Exactness: the instructions, in order, and the events below are those
 * libipt 2.0.5's instruction-flow decoder (pt_insn_next(), pt_insn_event())
 * yields for the same trace and code when its user resynchronises with
 * pt_insn_sync_forward() after each error (tests/libpt/test_pt_flow.c
 * compares them on the real traces of ../shared/testdata/pt/real).
 * Events libipt reports and this engine does not yet: paging (PIP), VMCS,
 * TSX, PTWRITE, power (MWAIT, PWRE, PWRX, EXSTOP), MNT, and status
 * updates after a PSB; see Documentation/ptflow.rst "Engines".
 *
 * Time (LPT_FLOW_F_TIME): each block and event carries libipt's
 * pt_insn_time() as its user reads it after the call that returns the
 * instruction or event: the estimated TSC (SDM 33.8.3, lwpt/pt_time.h)
 * at the last packet libipt's query decoder answered a query with (the
 * TNT of a conditional branch, the TIP of an indirect one, the packet
 * that published an event; libipt fetches an event as soon as its query
 * status says one is next, within the call that returned the branch or
 * event before it), the timing packets read ahead after it not yet.
 * A trace without TSC, TMA, MTC or CYC packets (every packet from the
 * first PSB decoding) has time 0 throughout; lpt_flow_sync() finds that
 * with one scan and then does not track time (the same 0s, faster).
 * LPT_FLOW_F_OFFSET gives, placed the same way, libipt's
 * pt_insn_get_offset() before that call (its query decoder's position
 * after reading ahead).
 *
 * Errors are libpt's enum lpt_error (lwpt/pt_pkt.h) and enum
 * lpt_cov_error (lwpt/pt_cov.h); lpt_cov_errstr() names them.
 */
#ifndef _LWPT_PT_FLOW_H
#define _LWPT_PT_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lwpt/pt_cov.h>
#include <lwpt/pt_time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status flags (>= 0) of lpt_flow_sync(), lpt_flow_next(), lpt_flow_event(). */
#define LPT_FLOW_EVENT_PENDING	0x1	/* lpt_flow_event() next */
#define LPT_FLOW_EOS		0x2	/* the trace is done: nothing follows */

/* What the last instruction of a block is (libipt's enum pt_insn_class,
 * grouped as SDM Table 33-1's branch kinds). */
enum lpt_flow_end {
	LPT_FLOW_END_NONE = 0,	/* no branch: the block ends at an event
				 * or where the trace ends */
	LPT_FLOW_END_JCC,	/* conditional: Jcc, JrCXZ, LOOPcc */
	LPT_FLOW_END_JMP,	/* direct near JMP */
	LPT_FLOW_END_CALL,	/* direct near CALL */
	LPT_FLOW_END_JMP_IND,	/* indirect near JMP */
	LPT_FLOW_END_CALL_IND,	/* indirect near CALL */
	LPT_FLOW_END_RET,	/* near RET */
	LPT_FLOW_END_FAR,	/* far transfer: far JMP/CALL/RET, INT n, INT3,
				 * INT1, INTO, IRET, SYSCALL, SYSRET, SYSENTER,
				 * SYSEXIT, VMLAUNCH, VMRESUME */
};

/* Instructions executed one after another (lpt_flow_next()). */
struct lpt_flow_block {
	uint64_t ip;		/* the first instruction's address */
	uint64_t end_ip;	/* the last instruction's address */
	const uint8_t *lens;	/* @ninsn lengths in bytes (1..15), owned
				 * by the decoder, valid until its next call:
				 * instruction i + 1 is at instruction i's
				 * address + lens[i] */
	uint32_t ninsn;		/* instructions, >= 1 */
	uint8_t mode;		/* 16, 32 or 64 (MODE.Exec, SDM 33.4.2.8) */
	uint8_t end;		/* enum lpt_flow_end: the instruction at
				 * @end_ip */
	uint64_t tsc;		/* LPT_FLOW_F_TIME: the time (TSC ticks) of
				 * every instruction but the last; else 0 */
	uint64_t end_tsc;	/* LPT_FLOW_F_TIME: the last one's (its
				 * query may have read a new packet) */
	uint64_t query_offset;	/* LPT_FLOW_F_OFFSET: libipt's
				 * pt_insn_get_offset() before the call that
				 * returns each of its instructions (its
				 * query decoder's position, after reading
				 * ahead): the same for all of them */
};

/* Event types, named and placed as libipt's enum pt_event_type. */
enum lpt_flow_event_type {
	LPT_FLOW_EV_ENABLED = 1,	/* TIP.PGE (SDM 33.4.2.3): tracing
					 * starts at @ip */
	LPT_FLOW_EV_DISABLED,		/* TIP.PGD (33.4.2.5) after the
					 * block's branch: @ip where it went
					 * (@ip_suppressed: not told) */
	LPT_FLOW_EV_ASYNC_DISABLED,	/* FUP + TIP.PGD: tracing stopped at
					 * @from (not executed); @ip as above */
	LPT_FLOW_EV_ASYNC_BRANCH,	/* FUP + TIP (33.4.2.6): an interrupt,
					 * exception or TSX abort at @from (not
					 * executed) went to @ip */
	LPT_FLOW_EV_OVERFLOW,		/* OVF (33.4.2.16): packets were lost;
					 * tracing resumes at @ip, or is off
					 * (@ip_suppressed) until enabled */
	LPT_FLOW_EV_RESYNC,		/* a decode error (@err, at the packet
					 * at @offset; code missing or bad:
					 * libipt's offset after the failed
					 * pt_insn_next()): what follows is
					 * decoded from the next PSB
					 * (33.4.2.17) on */
	LPT_FLOW_EV_EXEC_MODE,		/* MODE.Exec (33.4.2.8) outside PSB+,
					 * bound to the TIP or TIP.PGE after
					 * it: @mode from the following block on */
	LPT_FLOW_EV_CBR,		/* CBR (33.4.2.10) outside PSB+: the
					 * core:bus ratio @cbr */
	LPT_FLOW_EV_PAGING,		/* PIP (33.4.2.7) outside PSB+ while
					 * tracing is off: @cr3, @non_root */
	LPT_FLOW_EV_VMCS,		/* VMCS (33.4.2.9) outside PSB+ while
					 * tracing is off: the base @vmcs */
};

/* One event (lpt_flow_event()). */
struct lpt_flow_event {
	uint32_t type;		/* enum lpt_flow_event_type */
	bool ip_suppressed;	/* @ip is not known */
	bool resumed;		/* ENABLED: at the IP where tracing was
				 * expected to go on after the last disable
				 * (libipt's enabled.resumed: an async
				 * disable's IP; after a TIP.PGD, a direct
				 * branch's target, the next instruction
				 * after an indirect or far call or a
				 * non-branch) */
	uint8_t mode;		/* EXEC_MODE: 16, 32 or 64 */
	uint8_t cbr;		/* CBR: the ratio */
	int err;		/* LPT_FLOW_EV_RESYNC: the error */
	uint64_t ip;		/* see the types */
	uint64_t from;		/* ASYNC_*: the FUP's IP */
	uint64_t offset;	/* trace offset of the packet that gave it */
	uint64_t tsc;		/* LPT_FLOW_F_TIME: the time (TSC ticks)
				 * libipt's user reads after the event */
	uint64_t query_offset;	/* LPT_FLOW_F_OFFSET: libipt's
				 * pt_insn_get_offset() before the call that
				 * returns the event */
	uint64_t cr3;		/* PAGING: PIP.CR3 (bits 51:5 of CR3) */
	uint64_t vmcs;		/* VMCS: the VMCS base address */
	bool non_root;		/* PAGING: PIP.NR (VMX non-root) */
};

/* Engine configuration; fill with lpt_flow_config_init() first. */
struct lpt_flow_config {
	size_t size;		/* sizeof(struct lpt_flow_config) */
	uint32_t nfilter;	/* ranges in @filter; 0: no IP filtering */
	struct lpt_cov_range filter[LPT_COV_MAX_FILTERS];
	struct lpt_cpu cpu;	/* for errata, as lpt_cov_config.cpu */
	size_t cache_max;	/* memory cap of the block cache in bytes;
				 * default LPT_COV_CACHE_MAX. Checked at each
				 * lpt_flow_sync(): above it, emptied. */
	uint32_t flags;		/* LPT_FLOW_F_* */
	struct lpt_time_config time;	/* LPT_FLOW_F_TIME: the processor's
					 * clocks (MTC frequency, CPUID 15H,
					 * nominal ratio) as libipt's
					 * pt_config (mtc_freq, cpuid_0x15_*,
					 * nom_freq) */
};

/* lpt_flow_config.flags */
#define LPT_FLOW_F_TIME		0x1	/* track time: lpt_flow_block.tsc,
					 * end_tsc and lpt_flow_event.tsc
					 * (the engine reads up to the next
					 * branch or event packet ahead of
					 * what it hands out) */
#define LPT_FLOW_F_OFFSET	0x2	/* libipt's trace offsets:
					 * lpt_flow_block.query_offset and
					 * lpt_flow_event.query_offset (the
					 * same reading ahead) */
#define LPT_FLOW_F_CHUNK	0x4	/* the trace is one chunk of a
					 * larger one (lwpt/pt_chunk.h),
					 * given through the PSB+ of the next
					 * chunk (lpt_chunk_psb_end()): at
					 * that PSB+'s end the walk goes to
					 * its FUP, as a decoder of the whole
					 * trace does there, and stops (the
					 * coverage decoder's LPT_COV_F_CHUNK;
					 * Documentation/libpt-chunk.rst) */

/**
 * lpt_flow_config_init() - the defaults: no filter, no CPU (no errata),
 * LPT_COV_CACHE_MAX.
 * @cfg: configuration to fill; NULL is a no-op.
 */
void lpt_flow_config_init(struct lpt_flow_config *cfg);

struct lpt_flow;

/**
 * lpt_flow_alloc() - a flow engine for traces of one image (libipt's
 * pt_blk_alloc_decoder() with pt_blk_set_image()).
 * @cfg: configuration (copied); cfg->size may be smaller than ours.
 * @img: the code; must outlive the engine. Its blocks stay cached across
 *       lpt_flow_sync()s.
 *
 * Return: the engine, or NULL with errno = EINVAL (NULL argument, a
 * filter range empty or more than LPT_COV_MAX_FILTERS) or ENOMEM.
 */
struct lpt_flow *lpt_flow_alloc(const struct lpt_flow_config *cfg,
				const struct lpt_cov_image *img);

/**
 * lpt_flow_free() - free an engine; NULL is a no-op (pt_blk_free_decoder()).
 * @f: engine.
 */
void lpt_flow_free(struct lpt_flow *f);

/**
 * lpt_flow_sync() - start decoding a trace at its first PSB (SDM 33.4.2.17;
 * libipt's pt_blk_sync_forward() from the start). A PSB+ with a FUP starts
 * inside a span of traced code, as libipt's sync does; its status updates
 * are not events.
 * @f:     engine.
 * @trace: raw Intel PT packets (SDM 33.4); read, never written; must stay
 *         valid until the engine is done with it (the next lpt_flow_sync()
 *         or lpt_flow_free()).
 * @len:   bytes at @trace.
 *
 * Return: status flags (>= 0); LPT_ERR_NOSYNC when the trace has no PSB;
 * LPT_ERR_INVALID for NULL @f, or NULL @trace with @len > 0;
 * LPT_ERR_NOMEM.
 */
int lpt_flow_sync(struct lpt_flow *f, const uint8_t *trace, size_t len);

/**
 * lpt_flow_next() - the next block (pt_blk_next()).
 * @f:   engine, after lpt_flow_sync().
 * @blk: receives the block.
 *
 * Return: status flags (>= 0) for what comes after the block;
 * LPT_ERR_BAD_CONTEXT when an event is pending (lpt_flow_event() first)
 * or the trace is done; LPT_ERR_NOSYNC before lpt_flow_sync();
 * LPT_ERR_INVALID for NULL arguments; LPT_ERR_NOMEM.
 */
int lpt_flow_next(struct lpt_flow *f, struct lpt_flow_block *blk);

/**
 * lpt_flow_blocks() - the next blocks, as many as follow one another up to
 * the next event or the trace's end, at most @max: what lpt_flow_next()
 * would return called again and again while its status is 0 (the same
 * blocks, @blk[i].lens valid until the engine's next call), at the cost
 * of one call (no libipt equivalent: pt_blk_next() returns one block).
 * @f:   engine, after lpt_flow_sync() or a status without
 *       LPT_FLOW_EVENT_PENDING and LPT_FLOW_EOS.
 * @blk: receives the blocks, @max of them at most.
 * @max: room at @blk, in blocks; >= 1.
 * @n:   receives the number of blocks written (0 on the errors of the
 *       call itself).
 *
 * Return: status flags (>= 0) for what comes after the last block: 0
 * only where @max blocks were written and another block is next;
 * LPT_ERR_BAD_CONTEXT when an event is pending (lpt_flow_event() first)
 * or the trace is done; LPT_ERR_NOSYNC before lpt_flow_sync();
 * LPT_ERR_INVALID for NULL arguments or @max 0; LPT_ERR_NOMEM (decoding
 * past the blocks written: *@n of them were still handed out).
 */
int lpt_flow_blocks(struct lpt_flow *f, struct lpt_flow_block *blk, size_t max,
		    size_t *n);

/**
 * lpt_flow_event() - the next event (pt_blk_event()).
 * @f:  engine, after a status with LPT_FLOW_EVENT_PENDING.
 * @ev: receives the event.
 *
 * Return: status flags (>= 0) for what comes after the event;
 * LPT_ERR_BAD_CONTEXT when no event is pending; LPT_ERR_NOSYNC before
 * lpt_flow_sync(); LPT_ERR_INVALID for NULL arguments; LPT_ERR_NOMEM.
 */
int lpt_flow_event(struct lpt_flow *f, struct lpt_flow_event *ev);

/**
 * lpt_flow_offset() - where in the trace the engine is: the offset of the
 * first packet it has not read yet (it reads ahead of the block or event
 * returned last, up to the packet that gave what comes next).
 * @f: engine.
 *
 * Return: the offset in bytes; 0 before lpt_flow_sync() or for NULL.
 */
uint64_t lpt_flow_offset(const struct lpt_flow *f);

/**
 * lpt_flow_resume_ip() - where the engine expects tracing to resume after
 * the items handed out so far (what decides lpt_flow_event.resumed of an
 * ENABLED event): set by a DISABLED, ASYNC_DISABLED, OVERFLOW or RESYNC
 * event, kept across blocks and PSBs, 0 after lpt_flow_sync().
 * @f: engine.
 *
 * A user decoding a trace in chunks (LPT_FLOW_F_CHUNK) carries it from
 * chunk to chunk: an ENABLED event of a chunk before the chunk's first
 * event of those four is resumed when its @ip is the value at the end of
 * the chunks before (Documentation/libpt-chunk.rst).
 *
 * Return: the address, or 0 when not known (or @f is NULL).
 */
uint64_t lpt_flow_resume_ip(const struct lpt_flow *f);

#ifdef __cplusplus
}
#endif

#endif /* _LWPT_PT_FLOW_H */
