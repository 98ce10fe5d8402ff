/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt2perf: a system-wide capture (ptcap -a) written as one trace per
 * thread (Documentation/pt2perf.rst, "Per-CPU captures").
 *
 * perf gives each piece of a CPU's trace to the thread of the last switch
 * before the decoder's time there (util/intel-pt.c, HAVE_SCHED_SWITCH).
 * Without CYC that time comes from the last MTC or TSC and lags behind the
 * switches, so perf decodes pieces after a switch as the thread before it.
 * ptflow knows better which span ran in which thread (ptflow_split.h: a
 * span runs from a TIP.PGE to its TIP.PGD in one thread; the switches'
 * times bound it). pt2perf therefore cuts every CPU's trace into those
 * spans and writes each thread's spans, in time order, as that thread's
 * own trace: perf then decodes a per-thread recording, whose queues name
 * their thread (intel_pt_set_pid_tid_cpu(): queue->tid, no
 * HAVE_SCHED_SWITCH).
 *
 * A span cut out of its CPU's trace is made decodable on its own as ptflow
 * resumes a flow (ptflow_resume.h): the PSB+ before it without its FUP
 * (tracing off, SDM 33.4.2.17), every timing packet since (perf's time at
 * the span is the one of the continuous decoding, SDM 33.8.3), the last
 * MODE.Exec and its TIP.PGE with the full IP (SDM Table 33-18), then its
 * bytes up to and with the TIP.PGD (or OVF) that ends it. One thread's
 * spans one after the other are a valid trace: tracing is off between
 * them, and the processor compresses no RET across a PSB or PacketEn=0
 * (SDM 33.4.2.2).
 */
#ifndef LWPT_TOOLS_PT2PERF_SPLIT_H
#define LWPT_TOOLS_PT2PERF_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "tools/ptflow/ptflow_split.h"

/* What the split kept and left out, in spans and trace bytes. */
struct p2p_split_stats {
	size_t spans, kept;		/* spans found, spans written */
	uint64_t bytes, kept_bytes;	/* their trace bytes */
	size_t why[8];			/* spans left out per
					 * enum ptflow_owner_kind */
	size_t unsynced;		/* no PSB before it in its piece */
	size_t after_ovf;		/* starts at a FUP after an OVF */
	size_t threads;			/* threads written */
};

/**
 * p2p_split_threads() - replace a per-CPU capture's trace files by one
 * trace per thread.
 * @cap:   a loaded per-CPU capture with switches (p2p_capture_load());
 *         on success its files and pieces are the threads' traces (files
 *         with @owned set, their pid and tid, queue per thread; a piece
 *         per span) and @cap->split is set.
 * @st:    receives the counts.
 * @prog:  program name for messages.
 *
 * Spans whose thread is not known (ptflow_split_owner(), with the exec
 * generation rule ptflow_split_gens() when the capture has a processes
 * file), spans before the first PSB of their piece and spans that start
 * after an OVF are left out: ptflow does not decode them either.
 *
 * Return: 0, or -ENOMEM (@cap is then unchanged).
 */
int p2p_split_threads(struct p2p_capture *cap, struct p2p_split_stats *st, const char *prog);

#endif /* LWPT_TOOLS_PT2PERF_SPLIT_H */
