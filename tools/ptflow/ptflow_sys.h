/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding a system-wide capture (ptcap -a) per process and thread (issue
 * 15 point 5; Documentation/ptflow.rst, "System-wide captures"): each
 * per-CPU trace is split into spans (ptflow_split.h), each span decoded
 * with the image of its process's exec generation (one libipt pt_image per
 * generation, built on first use and kept), its lines labelled with
 * pid/tid/comm, the views (--calls, --report, --export) kept per thread.
 * Spans that cannot be attributed or have no maps are skipped and counted.
 */
#ifndef LWPT_TOOLS_PTFLOW_SYS_H
#define LWPT_TOOLS_PTFLOW_SYS_H

#include <stddef.h>
#include <stdint.h>

#include <lwpt/capture_src.h>

#include "tools/ptflow/ptflow_decode.h"

struct ptflow_sys;

/**
 * ptflow_sys_open() - read the switches and processes of a capture.
 * @pf:      the session (its parameters are used for the packet pass).
 * @src:     the capture (a ptcap directory or a perf.data); kept by the
 *           caller until ptflow_sys_free().
 * @sel_pid: --pid, or -1.
 * @sel_tid: --tid, or -1.
 * @sys:     receives the state on success.
 *
 * Return: 0 for a system-wide capture (lpt_capsrc_processes(): a
 * `processes` file, or a perf.data decoded per process); 1 when not (decode as one address space); -1 after a message
 * for a file that cannot be read or parsed, or out of memory.
 */
int ptflow_sys_open(struct ptflow *pf, struct lpt_capsrc *src, int64_t sel_pid,
		    int64_t sel_tid, struct ptflow_sys **sys);

/**
 * ptflow_sys_scan() - the packet pass over every trace, then the owners
 * and exec generations of all spans.
 * @sys:   the state.
 * @pf:    the session.
 * @tr:    the traces (lpt_capsrc_traces(): a per-CPU trace gives the CPU;
 *         every span of a tid<N>.pt is that thread's, as its thread line
 *         says: a per-thread capture of several processes, such as
 *         pt2perf's split of a ptcap -a capture read back from perf.data).
 * @bufs:  their contents (as ptflow_decode_buffer() takes them).
 * @lens:  their lengths.
 * @n:     the number of traces.
 *
 * Return: 0, or -1 after a message (out of memory).
 */
int ptflow_sys_scan(struct ptflow_sys *sys, struct ptflow *pf,
		    const struct lpt_capsrc_trace *tr, uint8_t **bufs, const size_t *lens,
		    size_t n);

/**
 * ptflow_sys_decode() - decode trace @i of those scanned, per span.
 * @sys:  the state.
 * @pf:   the session.
 * @i:    the trace's index in ptflow_sys_scan()'s arrays.
 * @name: its name.
 * @buf:  its contents.
 * @len:  its length.
 *
 * Return: as ptflow_decode_buffer().
 */
int ptflow_sys_decode(struct ptflow_sys *sys, struct ptflow *pf, size_t i,
		      const char *name, uint8_t *buf, size_t len);

/**
 * ptflow_sys_finish() - end every thread's views (their reports) and say
 * how many spans were decoded, skipped (and why) and lost, on @pf->err and,
 * with --stat, on @pf->out.
 * @sys: the state.
 * @pf:  the session.
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_sys_finish(struct ptflow_sys *sys, struct ptflow *pf);

/**
 * ptflow_sys_free() - release the state; restores @pf's own symbols.
 * @sys: may be NULL.
 * @pf:  the session.
 */
void ptflow_sys_free(struct ptflow_sys *sys, struct ptflow *pf);

#endif /* LWPT_TOOLS_PTFLOW_SYS_H */
