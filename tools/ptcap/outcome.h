/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What happened to one trace buffer of a ptcap capture, in words: the
 * outcomes that were asked for (a wrap in wrap mode, a TraceStop range
 * reached, a full buffer in stop mode) kept apart from data that was lost
 * (OVF packets, an operational error, continuous-mode stalls and overruns,
 * a CPU going offline). Issue 19 point 2, issue 16 point 5;
 * Documentation/ptcap.rst, "Outcomes and losses".
 */
#ifndef LWPT_TOOLS_PTCAP_OUTCOME_H
#define LWPT_TOOLS_PTCAP_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <lwpt/pt.h>

/* ptcap's exit statuses (ptcap.1, EXIT STATUS). */
#define PTCAP_EXIT_OK		0	/* captured; nothing lost */
#define PTCAP_EXIT_ERROR	1	/* runtime error: see the message */
#define PTCAP_EXIT_USAGE	2	/* bad command line */
#define PTCAP_EXIT_LOSSES	3	/* captured, but some trace data was lost */

/**
 * struct ptcap_outcome - the end state of one trace buffer.
 * @written:	bytes the processor wrote since start (lpt_cap_status.bytes;
 *		a lower bound with single-range output)
 * @saved:	bytes in the trace file
 * @overwritten: bytes of the start overwritten by a wrap (wrap mode)
 * @at_least:	@overwritten is a lower bound (single-range output wraps
 *		without telling, SDM 33.2.7.1)
 * @trace_stop:	tracing stopped at a TraceStop range (SDM 33.2.5.3)
 * @buffer_full: stop mode: the buffer filled, tracing stopped (ToPA STOP,
 *		SDM 33.2.7.2)
 * @stopped:	IA32_RTIT_STATUS.Stopped for neither reason above
 * @error:	IA32_RTIT_STATUS.Error: an operational error (SDM 33.3.10)
 * @ovf:	OVF packets in the saved trace (SDM 33.3.8, 33.4.2.16)
 * @tracestop_pkts: TraceStop packets in the saved trace (SDM 33.4.2.9)
 * @lost:	other times data was lost, as the module counted them
 *		(continuous-mode stalls and overruns, CPU offline, another agent)
 * @interfered:	someone else cleared TraceEn or moved the output pointers
 *		(another tracer, a VMM: LWPT_PT_ST_INTERFERED); counted in @lost
 */
struct ptcap_outcome {
	uint64_t written;
	uint64_t saved;
	uint64_t overwritten;
	bool at_least;
	bool trace_stop;
	bool buffer_full;
	bool stopped;
	bool error;
	uint64_t ovf;
	uint64_t tracestop_pkts;
	uint64_t lost;
	bool interfered;
};

/**
 * ptcap_outcome_scan() - count OVF and TraceStop packets of a trace.
 * @oc:		outcome to add the counts to (@ovf, @tracestop_pkts)
 * @buf:	the raw trace as saved (SDM 33.4), @len bytes; may be NULL if
 *		@len is 0
 * @len:	bytes at @buf
 *
 * Decodes from the first PSB with libpt's packet decoder; after a bad
 * packet it resynchronises at the next PSB (bytes before the first PSB,
 * left by a wrap, are skipped). Call before ptcap_outcome_classify().
 *
 * Return: 0; -ENOMEM if the decoder cannot be allocated.
 */
int ptcap_outcome_scan(struct ptcap_outcome *oc, const uint8_t *buf, size_t len);

/**
 * ptcap_outcome_classify() - name what happened from the final status.
 * @oc:		filled; @ovf and @tracestop_pkts from ptcap_outcome_scan() kept
 * @st:		lpt_dev_status() after lpt_dev_stop()
 * @saved:	bytes ptcap saved in the file
 * @mode:	LWPT_PT_MODE_* of the capture
 * @stop_range:	an ADDRn range was configured as TraceStop
 * @single_range: single-range output (lpt_dev_single_range())
 *
 * Stopped means a TraceStop range when a TraceStop packet is in the trace
 * or a stop range was set and the buffer is not full; in stop mode a
 * buffer that holds buffer_size bytes is full. The module counts an
 * operational error in @st->lost: it is reported as @error, not again in
 * @lost.
 */
void ptcap_outcome_classify(struct ptcap_outcome *oc, const struct lpt_cap_status *st,
			    uint64_t saved, uint32_t mode, bool stop_range, bool single_range);

/**
 * ptcap_outcome_losses() - how many times data of this buffer was lost.
 * @oc:		a classified outcome
 *
 * Return: OVF packets + operational error (0 or 1) + @lost; 0 when every
 * byte the processor was asked to keep is in the file.
 */
uint64_t ptcap_outcome_losses(const struct ptcap_outcome *oc);

/**
 * ptcap_outcome_words() - the outcome as config-file words.
 * @oc:		a classified outcome
 * @buf:	out: NUL-terminated words, e.g. "complete",
 *		"wrapped overwritten=23616", "trace-stop",
 *		"buffer-full", "lost ovf=1 error lost=2"
 * @size:	bytes at @buf
 *
 * The grammar is in Documentation/ptcap-format.rst ("outcome.<file>").
 *
 * Return: the length written (without the NUL); -ENOSPC if @size is too
 * small (@buf then holds a truncated string).
 */
int ptcap_outcome_words(const struct ptcap_outcome *oc, char *buf, size_t size);

/**
 * ptcap_outcome_report() - say what happened to @name in sentences.
 * @f:		where (stderr)
 * @name:	the trace file, e.g. "tid123.pt"
 * @oc:		a classified outcome
 *
 * One line per fact, each starting "ptcap: NAME: "; data lost starts
 * with "data lost:". A complete capture prints nothing.
 */
void ptcap_outcome_report(FILE *f, const char *name, const struct ptcap_outcome *oc);

#endif /* LWPT_TOOLS_PTCAP_OUTCOME_H */
