/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptflow's call tracker: follows the decoded instructions of one thread
 * (near CALL and RET, far transfers, tracing enabled/disabled, overflows
 * and gaps), keeps its call stack, and feeds the three views built on it:
 * the call/return trace (--calls), the hot spots (--report) and the
 * timeline (--export=chrome). Formats and the depth-recovery rules:
 * Documentation/ptflow.rst, "Call trace".
 */
#ifndef LWPT_TOOLS_PTFLOW_CALLS_H
#define LWPT_TOOLS_PTFLOW_CALLS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <intel-pt.h>

#include <lwpt/pt_flow.h>

#include "tools/ptflow/ptflow_chrome.h"
#include "tools/ptflow/ptflow_report.h"
#include "tools/ptflow/ptflow_sym.h"
#include "tools/ptflow/ptflow_time.h"

/* One open function activation. */
struct ptflow_frame {
	uint64_t key;		/* function identity: ptflow_calls_key() */
	uint64_t entry;		/* address it was entered at */
	uint64_t ret;		/* return address pushed by its CALL; 0 */
	uint64_t tsc;		/* TSC at its entry */
	uint64_t insns;		/* thread instruction count at its entry */
	bool called;		/* entered by a CALL seen in the trace */
};

/* Events of the trace other than instructions. */
enum ptflow_calls_event {
	PTFLOW_CALLS_DISABLED,	/* TIP.PGD (ptev_disabled) */
	PTFLOW_CALLS_INTERRUPT,	/* FUP + TIP.PGD (ptev_async_disabled),
				 * FUP + TIP (ptev_async_branch) */
	PTFLOW_CALLS_ENABLED,	/* TIP.PGE at a new IP */
	PTFLOW_CALLS_RESUMED,	/* TIP.PGE where tracing stopped */
	PTFLOW_CALLS_OVERFLOW,	/* OVF (SDM 33.4.2.16) */
	PTFLOW_CALLS_GAP,	/* a decode error: trace skipped to a PSB */
};

/* The tracker; set the public fields, then ptflow_calls_begin(). */
struct ptflow_calls {
	FILE *out;			/* --calls lines, or NULL */
	struct ptflow_sym *sym;		/* functions of report and timeline */
	struct ptflow_sym *names;	/* names on --calls lines; NULL:
					 * addresses (--no-symbols) */
	struct ptflow_clock *clock;	/* shared by all threads */
	struct ptflow_report *report;	/* per-thread report, or NULL */
	struct ptflow_chrome *chrome;	/* timeline, or NULL */

	/* Private: the current thread. */
	char thread[48];
	size_t thread_len;		/* strlen(thread) */
	char thread_col[64];		/* "  %-10s  " of thread */
	size_t thread_col_len;
	char obuf[8192];		/* --calls lines not yet in @out */
	size_t olen;			/* bytes at @obuf */
	uint32_t pid, tid;
	struct ptflow_frame *stack;
	size_t depth, cap;
	bool have_insn;
	uint64_t last_key, last_tsc, insns;
	uint64_t fn_start, fn_end;	/* cached function range of last_key */
	uint64_t self_insns, self_ticks;	/* of last_key, not yet in
						 * the report */
	bool pending_call, pending_ret, after_far;
	uint64_t call_ret;		/* return address of the pending call */
	int error;			/* -1 after out of memory */
};

/**
 * ptflow_calls_begin() - start a thread (one trace, or one span of it).
 * @c:      the tracker.
 * @thread: its label on --calls lines, e.g. "tid 123" (cut at 47 bytes).
 * @pid:    process id for the timeline (0 unknown).
 * @tid:    thread id for the timeline.
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_calls_begin(struct ptflow_calls *c, const char *thread,
		       uint32_t pid, uint32_t tid);

/**
 * ptflow_calls_insn() - one decoded instruction.
 * @c:    the tracker.
 * @insn: the instruction (ip, size, iclass, raw bytes).
 * @tsc:  libipt's TSC estimate at it (pt_insn_time()).
 */
void ptflow_calls_insn(struct ptflow_calls *c, const struct pt_insn *insn,
		       uint64_t tsc);

/**
 * ptflow_calls_block() - decoded instructions at consecutive addresses, of
 * which only the last may branch (a flow engine's block, lwpt/pt_flow.h),
 * all at one time: the same as ptflow_calls_insn() on each of them, at the
 * cost of one where they stay in one function.
 * @c:     the tracker.
 * @ip:    the first instruction's address.
 * @lens:  @ninsn instruction lengths in bytes: instruction i + 1 is at
 *         instruction i's address + @lens[i].
 * @ninsn: instructions, >= 1.
 * @last:  the last instruction (ip, size, iclass; raw bytes for a far
 *         transfer).
 * @tsc:   the TSC estimate at each of them.
 */
void ptflow_calls_block(struct ptflow_calls *c, uint64_t ip,
			const uint8_t *lens, uint32_t ninsn,
			const struct pt_insn *last, uint64_t tsc);

/**
 * ptflow_calls_blocks() - a flow engine's blocks, in trace order, from
 * the first on: ptflow_calls_block() on each (its last instruction's
 * class from @b[i].end, all of it at @b[i].end_tsc), one loop for all,
 * up to the first block it does not take: one that ends in a far
 * transfer (the caller reads its bytes: ptflow_calls_block()), or whose
 * last instruction's time is not the others' (ptflow_calls_block() on
 * all but the last, then ptflow_calls_insn()).
 * @c: the tracker.
 * @b: @n blocks (lwpt/pt_flow.h).
 * @n: their number.
 *
 * Return: how many blocks from @b[0] on were taken (@n: all).
 */
size_t ptflow_calls_blocks(struct ptflow_calls *c,
			   const struct lpt_flow_block *b, size_t n);

/**
 * ptflow_calls_event() - a trace event between instructions.
 * @c:    the tracker.
 * @ev:   what happened.
 * @ip:   where (the IP of the event; 0 if suppressed or unknown).
 * @tsc:  time of the event.
 * @text: reason of a PTFLOW_CALLS_GAP, else NULL.
 */
void ptflow_calls_event(struct ptflow_calls *c, enum ptflow_calls_event ev,
			uint64_t ip, uint64_t tsc, const char *text);

/**
 * ptflow_calls_end() - the thread's trace ended: close every open frame
 * (timeline, report) at the last time seen.
 * @c: the tracker.
 *
 * Return: 0, or -1 if memory ran out since ptflow_calls_begin().
 */
int ptflow_calls_end(struct ptflow_calls *c);

/**
 * ptflow_calls_fini() - release the tracker's stack.
 * @c: the tracker.
 */
void ptflow_calls_fini(struct ptflow_calls *c);

/**
 * ptflow_calls_key() - the function identity of an address.
 * @sym:  the symbols (NULL: none).
 * @addr: an address.
 * @name: receives the function's name: the symbol, else
 *        "[unknown in <module>]", else "[unknown]"; NULL: not wanted
 *        (no formatting, for a key already named).
 * @size: size of @name in bytes.
 * @lo:   receives the first address with the same identity (or @addr).
 * @hi:   receives the end of that range: the symbol's end; in a module
 *        without a symbol there, the end of the symbol table's piece
 *        (ptflow_sym_span()); else @addr + 1.
 *
 * Return: the symbol's start address; for an address without symbol
 * UINT64_MAX - the module's start address, or UINT64_MAX without module.
 */
uint64_t ptflow_calls_key(struct ptflow_sym *sym, uint64_t addr, char *name,
			  size_t size, uint64_t *lo, uint64_t *hi);

#endif /* LWPT_TOOLS_PTFLOW_CALLS_H */
