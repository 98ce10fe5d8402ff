// SPDX-License-Identifier: GPL-2.0
/*
 * What happened to one trace buffer of a ptcap capture (outcome.h):
 * outcomes asked for (wrap, TraceStop, stop mode full) apart from data lost
 * (OVF, operational error, stalls and overruns, CPU offline).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include <lwpt/pt_pkt.h>

#include "outcome.h"

/* Packets decoded per lpt_pkt_next_batch() call of the scan. */
#define PTCAP_SCAN_BATCH	256

int ptcap_outcome_scan(struct ptcap_outcome *oc, const uint8_t *buf, size_t len)
{
	struct lpt_packet pkts[PTCAP_SCAN_BATCH];
	struct lpt_pkt_decoder *dec;
	int n, i;

	if (!len)
		return 0;
	dec = lpt_pkt_alloc(buf, len, NULL);
	if (!dec)
		return -ENOMEM;
	/* The bytes before the first PSB (a wrap's cut) cannot be decoded. */
	while (lpt_pkt_sync_forward(dec) == 0) {
		for (;;) {
			n = lpt_pkt_next_batch(dec, pkts, PTCAP_SCAN_BATCH);
			if (n <= 0)
				break;
			for (i = 0; i < n; i++) {
				if (pkts[i].type == LPT_PKT_OVF)
					oc->ovf++;
				else if (pkts[i].type == LPT_PKT_TRACESTOP)
					oc->tracestop_pkts++;
			}
		}
		if (n == LPT_ERR_EOS)
			break;
		/* A bad packet: go on at the next PSB (libipt's ptdump does). */
	}
	lpt_pkt_free(dec);
	return 0;
}

void ptcap_outcome_classify(struct ptcap_outcome *oc, const struct lpt_cap_status *st,
			    uint64_t saved, uint32_t mode, bool stop_range, bool single_range)
{
	oc->written = st->bytes;
	oc->saved = saved;
	oc->at_least = single_range;
	oc->overwritten = 0;
	/*
	 * Wrap mode keeps the newest buffer_size bytes (SDM 33.2.7.2, a ToPA
	 * ring); what the processor wrote before them is gone. Single range
	 * (SDM 33.2.7.1): @bytes counts only the laps the module saw.
	 */
	if (mode == LWPT_PT_MODE_WRAP && (st->wrapped || st->wraps) && st->bytes > saved)
		oc->overwritten = st->bytes - saved;
	oc->error = st->error;
	oc->trace_stop = oc->buffer_full = oc->stopped = false;
	if (st->stopped) {
		bool full = mode == LWPT_PT_MODE_STOP && st->buffer_size &&
			    st->bytes >= st->buffer_size;

		/* A TraceStop packet marks the range (SDM 33.2.5.3). */
		if (oc->tracestop_pkts || (stop_range && !full))
			oc->trace_stop = true;
		else if (full)
			oc->buffer_full = true;
		else
			oc->stopped = true;
	}
	/* The module counts an operational error once in @lost (pt.h). */
	oc->lost = st->lost;
	if (st->error && oc->lost)
		oc->lost--;
	oc->interfered = st->interfered;
}

uint64_t ptcap_outcome_losses(const struct ptcap_outcome *oc)
{
	return oc->ovf + (oc->error ? 1 : 0) + oc->lost + (oc->interfered && !oc->lost);
}

/* Append to @buf at *@pos; false once it did not fit. */
static bool words_add(char *buf, size_t size, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= size)
		return false;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, size - *pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *pos) {
		*pos = size;
		return false;
	}
	*pos += (size_t)n;
	return true;
}

int ptcap_outcome_words(const struct ptcap_outcome *oc, char *buf, size_t size)
{
	size_t pos = 0;
	bool ok = size > 0;

	if (ok)
		buf[0] = 0;
	if (oc->overwritten)
		ok = ok && words_add(buf, size, &pos, " wrapped overwritten%s%" PRIu64,
				     oc->at_least ? ">=" : "=", oc->overwritten);
	if (oc->trace_stop)
		ok = ok && words_add(buf, size, &pos, " trace-stop");
	if (oc->buffer_full)
		ok = ok && words_add(buf, size, &pos, " buffer-full");
	if (oc->stopped)
		ok = ok && words_add(buf, size, &pos, " stopped");
	if (ptcap_outcome_losses(oc)) {
		ok = ok && words_add(buf, size, &pos, " lost");
		if (oc->ovf)
			ok = ok && words_add(buf, size, &pos, " ovf=%" PRIu64, oc->ovf);
		if (oc->error)
			ok = ok && words_add(buf, size, &pos, " error");
		if (oc->lost)
			ok = ok && words_add(buf, size, &pos, " lost=%" PRIu64, oc->lost);
		if (oc->interfered)
			ok = ok && words_add(buf, size, &pos, " interfered");
	}
	if (!pos)
		ok = ok && words_add(buf, size, &pos, " complete");
	if (!ok)
		return -ENOSPC;
	memmove(buf, buf + 1, pos);	/* the leading space */
	return (int)pos - 1;
}

void ptcap_outcome_report(FILE *f, const char *name, const struct ptcap_outcome *oc)
{
	if (oc->overwritten)
		fprintf(f, "ptcap: %s: the buffer wrapped: %sthe first %" PRIu64 " of %" PRIu64
			" bytes written were overwritten (wrap mode keeps the newest %" PRIu64
			"); the trace starts mid-run\n", name, oc->at_least ? "at least " : "",
			oc->overwritten, oc->written, oc->saved);
	if (oc->trace_stop)
		fprintf(f, "ptcap: %s: tracing stopped at a TraceStop range (--stop), as asked\n",
			name);
	if (oc->buffer_full)
		fprintf(f, "ptcap: %s: the buffer filled in stop mode: tracing stopped after %"
			PRIu64 " bytes; the rest of the run is not traced (a larger --size "
			"or --mode=wrap/continuous keeps more)\n", name, oc->saved);
	if (oc->stopped)
		fprintf(f, "ptcap: %s: tracing stopped (IA32_RTIT_STATUS.Stopped)\n", name);
	if (oc->ovf)
		fprintf(f, "ptcap: %s: data lost: %" PRIu64 " internal buffer overflow(s) (OVF "
			"packets, SDM 33.3.8): the processor dropped packets; fewer options "
			"(--cyc, --mtc, --ptw) or a filter make less trace\n", name, oc->ovf);
	if (oc->error)
		fprintf(f, "ptcap: %s: data lost: an operational error stopped tracing "
			"(IA32_RTIT_STATUS.Error, SDM 33.3.10)\n", name);
	if (oc->lost)
		fprintf(f, "ptcap: %s: data lost: %" PRIu64 " time(s) tracing was off: a "
			"continuous-mode stall or overrun (the reader fell behind: a larger "
			"--size) or the CPU went offline\n", name, oc->lost);
	if (oc->interfered)
		fprintf(f, "ptcap: %s: data lost: someone else cleared TraceEn or moved the "
			"output pointers while lwpt traced (another tracer such as perf's "
			"intel_pt, or a VMM); lwpt put them back and counted the gap\n", name);
}
