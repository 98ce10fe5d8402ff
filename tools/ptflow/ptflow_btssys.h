/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding a per-CPU BTS capture (ptcap --bts -a, issue 37) per process and
 * thread (Documentation/ptflow.rst, "Per-CPU BTS captures"): each
 * cpu<N>.bts is cut at the byte positions of its CPU's context switches
 * (the `switches` file, whose first column is the position in the CPU's
 * records, not a TSC: Documentation/ptcap-format.rst); the pieces of one
 * thread are joined in time, by the TSC of their switches (the tsc= word,
 * ABI 1.10), and decoded as one BTS trace with the maps of its process
 * (the `processes` file, its last exec generation). BTS records carry no
 * time: where a switch has no tsc= word (a module before 1.10), the pieces
 * are joined CPU by CPU, each CPU's in the order they were recorded, and
 * where a thread ran on several CPUs the order of its pieces of different
 * CPUs is not known (said once; the join between two CPUs may show a
 * resync). Pieces of the idle task, kernel threads, of processes without
 * maps, or of a CPU without switches are not decoded and counted.
 */
#ifndef LWPT_TOOLS_PTFLOW_BTSSYS_H
#define LWPT_TOOLS_PTFLOW_BTSSYS_H

#include <stdint.h>

#include <lwpt/capture_src.h>

#include "tools/ptflow/ptflow_decode.h"

struct ptflow_btssys;

/**
 * ptflow_btssys_decode() - decode a `format bts` capture with a `processes`
 * file per thread.
 * @pf:      the session; its piece engine is BTS (ptflow_flow_bts_use()).
 * @src:     the capture directory.
 * @tr:      its traces (lpt_capsrc_traces()): cpu<N>.bts files.
 * @n:       their number.
 * @sel_pid: --pid, or -1.
 * @sel_tid: --tid, or -1.
 * @out:     receives the state (images and symbols the views name until
 *           they are written): free it with ptflow_btssys_free() after
 *           ptflow_views_finish().
 *
 * Return: 0 decoded (decode errors are counted in @pf); 1 not a per-CPU
 * capture (no `processes` file: decode per trace file); -1 after a message
 * for a file that cannot be read or parsed (a bad `switches` or
 * `processes`, a switch position that is not a record boundary), a
 * selection that matches no thread, or out of memory.
 */
int ptflow_btssys_decode(struct ptflow *pf, struct lpt_capsrc *src,
			 const struct lpt_capsrc_trace *tr, size_t n, int64_t sel_pid,
			 int64_t sel_tid, struct ptflow_btssys **out);

/**
 * ptflow_btssys_free() - release the state; NULL is a no-op.
 * @bs: the state.
 * @pf: the session (its own image and symbols are put back).
 */
void ptflow_btssys_free(struct ptflow_btssys *bs, struct ptflow *pf);

#endif /* LWPT_TOOLS_PTFLOW_BTSSYS_H */
