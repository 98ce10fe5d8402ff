/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Splitting a per-CPU trace of a system-wide capture (ptcap -a) by process
 * and thread (issue 15 point 5; Documentation/ptflow.rst, "System-wide
 * captures").
 *
 * With User=1, OS=0 a context switch happens in the kernel, where nothing
 * is traced: in cpuN.pt it falls between a TIP.PGD and the next TIP.PGE
 * (SDM 33.2.6, Table 33-56). Each span from a TIP.PGE to the TIP.PGD that
 * ends it runs in one thread. A packet pass (libpt's packet decoder, last-IP
 * and time tracking, SDM 33.4.2.2 Table 33-18, 33.8.3) finds every span,
 * its trace offset, its first IP and two times that bound it; the switch
 * records name its thread when exactly one switch interval covers those
 * bounds; the exec generation of its process follows from the exec entry
 * points seen in the trace and ptcap's read times (ptcap-format.rst,
 * "processes"). Everything here is pure logic over those inputs, so that
 * it can be tested with synthetic switches and times. pt2perf uses the
 * same rules to write such a capture as one trace per thread
 * (tools/pt2perf/split.h).
 */
#ifndef LWPT_TOOLS_PTFLOW_SPLIT_H
#define LWPT_TOOLS_PTFLOW_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lwpt/pt_time.h>
#include <lwpt/ptcap_dir.h>

/* Who ran a span, or why that is not known; names: ptflow_split_why(). */
enum ptflow_owner_kind {
	PTFLOW_OWNER_THREAD,	/* @pid/@tid, generation @gen of @pid */
	PTFLOW_OWNER_NO_TIME,	/* no timing packet before the span's end */
	PTFLOW_OWNER_NO_SWITCH,	/* before the first switch on its CPU */
	PTFLOW_OWNER_AMBIGUOUS,	/* a switch lies between its time bounds */
	PTFLOW_OWNER_LOST,	/* switch records lost around it */
	PTFLOW_OWNER_NOT_USER,	/* the idle task or a kernel thread ran */
	PTFLOW_OWNER_NO_MAPS,	/* its process has no maps (exited first) */
	PTFLOW_OWNER_EXEC,	/* its exec generation is not known (an exec
				 * between two reads, or before its exec) */
};

/* How a span starts (ptflow_spans_scan()). */
enum ptflow_span_start {
	PTFLOW_START_PGE,	/* a TIP.PGE (SDM 33.4.2.4) */
	PTFLOW_START_PSB,	/* a PSB+ whose FUP says tracing is on
				 * (SDM 33.4.2.17) */
	PTFLOW_START_OVF,	/* the FUP after an OVF (SDM 33.4.2.16) */
};

/* One span of a per-CPU trace. */
struct ptflow_span {
	uint64_t offset;	/* trace offset of its TIP.PGE; of the PSB
				 * for a span that starts enabled; of the FUP
				 * after an OVF */
	enum ptflow_span_start start;	/* which of those it is */
	uint64_t end;		/* trace offset after the TIP.PGD or OVF that
				 * ended it; else where the next span or a
				 * bad packet begins, or the trace's length */
	uint64_t ip;		/* its first IP (TIP.PGE), 0 unknown */
	uint64_t lo;		/* time (TSC) at its end: its last timing
				 * packet's; the span ran at or after @lo */
	uint64_t hi;		/* the first later, greater time after its
				 * end (UINT64_MAX: none), raised by the lag
				 * of the MTC time the next TSC shows: the
				 * span ended before @hi */
	bool has_time;		/* a TSC packet came before its end */
	/* Filled by ptflow_split_owner() and ptflow_split_gens(). */
	enum ptflow_owner_kind kind;
	uint32_t pid, tid;
	size_t gen;		/* index into the process's generations */
};

/* The spans of one trace, in trace order. */
struct ptflow_spans {
	struct ptflow_span *s;
	size_t n, cap;
};

/**
 * ptflow_spans_scan() - find the spans of a per-CPU trace (packet pass).
 * @buf: the raw Intel PT bytes.
 * @len: their number.
 * @tc:  the timing parameters (MTC frequency, CPUID.15H ratio; SDM
 *       33.8.3): times follow TSC, TMA, MTC and CBR packets.
 * @sp:  receives the spans (emptied first); release with
 *       ptflow_spans_free().
 *
 * Decodes from each PSB (SDM 33.4.2.17); after a bad packet it goes on at
 * the next PSB, the span then open ends there. A span starts at a TIP.PGE,
 * or at a PSB+ whose FUP says tracing is on (the trace starts inside a
 * span), and ends at a TIP.PGD, an OVF or the end of the trace.
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_spans_scan(const uint8_t *buf, size_t len,
		      const struct lpt_time_config *tc, struct ptflow_spans *sp);

/**
 * ptflow_spans_free() - release the spans; @sp is left empty.
 * @sp: may be NULL.
 */
void ptflow_spans_free(struct ptflow_spans *sp);

/**
 * ptflow_spans_find() - the span a decoder position belongs to: the last
 * one that starts before @offset.
 * @sp:     the spans of the trace.
 * @offset: a trace offset past the span's TIP.PGE (where libipt's decoder
 *          is when it reports the span's enabled event), or of a PSB.
 *
 * Return: the index, or SIZE_MAX if no span starts before @offset.
 */
size_t ptflow_spans_find(const struct ptflow_spans *sp, uint64_t offset);

/**
 * ptflow_split_owner() - the thread that ran a span, from the switches.
 * @sws: the switch records, sorted (ptcap_switches_parse()).
 * @cpu: the CPU of the trace.
 * @s:   the span; its @kind, @pid and @tid are set.
 *
 * The owner is the next thread of the last switch at or before @s->lo, if
 * no other switch on @cpu lies before @s->hi (else the span may have run
 * on either side of it: PTFLOW_OWNER_AMBIGUOUS), and the switch after it
 * switched that thread out (else records were lost: PTFLOW_OWNER_LOST).
 */
void ptflow_split_owner(const struct ptcap_switches *sws, uint32_t cpu,
			struct ptflow_span *s);

/**
 * ptflow_split_gens() - choose the exec generation of every span's
 * process (ptcap-format.rst, "processes").
 * @ps:     the processes of the capture.
 * @traces: the spans of every trace of the capture (all CPUs: an exec
 *          seen on one CPU decides for the others).
 * @ntraces: their number.
 *
 * An exec is seen where a span of the process starts at the entry point
 * of one of its generations (the first user instruction after execve); a
 * span uses the last generation execed at or before its time. Without
 * such an exec, it uses the last generation ptcap found at or before its
 * time (the first one before any read). A span is PTFLOW_OWNER_EXEC when
 * its time falls before the exec of its process's first generation, or
 * after the last read of its generation while a later one exists (the
 * process execed in between, maybe into a program never read);
 * PTFLOW_OWNER_NO_MAPS when its process is missing or not listed.
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_split_gens(const struct ptcap_processes *ps,
		      struct ptflow_spans *traces, size_t ntraces);

/**
 * ptflow_split_why() - a short text for a span's owner kind.
 * @kind: an enum ptflow_owner_kind value.
 *
 * Return: a static string ("thread", "no time", ...).
 */
const char *ptflow_split_why(enum ptflow_owner_kind kind);

#endif /* LWPT_TOOLS_PTFLOW_SPLIT_H */
