// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptcap's outcome classification (tools/ptcap/outcome.c,
 * issue 19 point 2, issue 16 point 5): a requested stop (TraceStop, stop
 * mode full) and a wrap are not losses; OVF packets (SDM 33.3.8), an
 * operational error (SDM 33.3.10) and the module's stall/offline count
 * are; the config words and stderr sentences say which.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/pt_packets.h>

#include "tools/ptcap/outcome.h"
#include "tests/check_run.h"

#define KB	1024u

/* A trace of packets: PSB, PSBEND, then @tail (SDM 33.4.2.17, .18). */
static size_t trace(uint8_t *buf, const uint8_t *tail, size_t n)
{
	size_t len = 0;
	int i;

	for (i = 0; i < PT_PSB_REPEAT; i++) {
		buf[len++] = PT_OPC_EXT;
		buf[len++] = PT_EXT_PSB;
	}
	buf[len++] = PT_OPC_EXT;
	buf[len++] = PT_EXT_PSBEND;
	memcpy(buf + len, tail, n);
	return len + n;
}

static struct lpt_cap_status status(uint64_t bytes, uint64_t size)
{
	struct lpt_cap_status st;

	memset(&st, 0, sizeof(st));
	st.bytes = bytes;
	st.buffer_size = size;
	if (bytes > size) {
		st.wrapped = true;
		st.wraps = bytes / size;
	}
	return st;
}

static const char *words(const struct ptcap_outcome *oc)
{
	static char buf[128];

	ck_assert_int_ge(ptcap_outcome_words(oc, buf, sizeof(buf)), 0);
	return buf;
}

/* What ptcap_outcome_report() prints. */
static const char *report(const struct ptcap_outcome *oc)
{
	static char buf[2048];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ck_assert_ptr_nonnull(f);
	ptcap_outcome_report(f, "cpu0.pt", oc);
	fclose(f);
	return buf;
}

START_TEST(complete_capture)
{
	struct lpt_cap_status st = status(1000, 16 * KB);
	struct ptcap_outcome oc = { 0 };

	ptcap_outcome_classify(&oc, &st, 1000, LWPT_PT_MODE_WRAP, false, false);
	ck_assert_uint_eq(ptcap_outcome_losses(&oc), 0);
	ck_assert_str_eq(words(&oc), "complete");
	ck_assert_str_eq(report(&oc), "");
}
END_TEST

/* Wrap mode: the start is overwritten, as the mode says; not a loss. */
START_TEST(wrap_is_not_a_loss)
{
	struct lpt_cap_status st = status(40000, 16 * KB);
	struct ptcap_outcome oc = { 0 };

	ptcap_outcome_classify(&oc, &st, 16 * KB, LWPT_PT_MODE_WRAP, false, false);
	ck_assert_uint_eq(oc.overwritten, 40000 - 16 * KB);
	ck_assert_uint_eq(ptcap_outcome_losses(&oc), 0);
	ck_assert_str_eq(words(&oc), "wrapped overwritten=23616");
	ck_assert_ptr_nonnull(strstr(report(&oc), "ptcap: cpu0.pt: the buffer wrapped: the first "
					       "23616 of 40000 bytes written were overwritten"));
	ck_assert_ptr_nonnull(strstr(report(&oc), "the trace starts mid-run"));
	/* Single range: a lower bound (SDM 33.2.7.1). */
	ptcap_outcome_classify(&oc, &st, 16 * KB, LWPT_PT_MODE_WRAP, false, true);
	ck_assert_str_eq(words(&oc), "wrapped overwritten>=23616");
	ck_assert_ptr_nonnull(strstr(report(&oc), "at least the first 23616"));
}
END_TEST

/* Issue 19.2: a TraceStop range reached is what --stop asked for. */
START_TEST(trace_stop_is_not_a_loss)
{
	static const uint8_t stop[] = { PT_OPC_EXT, PT_EXT_TRACESTOP };
	struct lpt_cap_status st = status(500, 16 * KB);
	struct ptcap_outcome oc = { 0 };
	uint8_t buf[64];
	size_t len = trace(buf, stop, sizeof(stop));

	st.stopped = true;
	ck_assert_int_eq(ptcap_outcome_scan(&oc, buf, len), 0);
	ck_assert_uint_eq(oc.tracestop_pkts, 1);
	ptcap_outcome_classify(&oc, &st, len, LWPT_PT_MODE_WRAP, true, false);
	ck_assert(oc.trace_stop && !oc.buffer_full && !oc.stopped);
	ck_assert_uint_eq(ptcap_outcome_losses(&oc), 0);
	ck_assert_str_eq(words(&oc), "trace-stop");
	ck_assert_str_eq(report(&oc), "ptcap: cpu0.pt: tracing stopped at a TraceStop range "
				      "(--stop), as asked\n");
	/* Stop mode, a stop range, not full, no packet seen (flushed late). */
	memset(&oc, 0, sizeof(oc));
	ptcap_outcome_classify(&oc, &st, 500, LWPT_PT_MODE_STOP, true, false);
	ck_assert(oc.trace_stop);
}
END_TEST

/* Issue 19.2: stop mode stops when full, as configured. */
START_TEST(stop_mode_full_is_not_a_loss)
{
	struct lpt_cap_status st = status(16 * KB, 16 * KB);
	struct ptcap_outcome oc = { 0 };

	st.stopped = true;
	ptcap_outcome_classify(&oc, &st, 16 * KB, LWPT_PT_MODE_STOP, false, false);
	ck_assert(oc.buffer_full && !oc.trace_stop);
	ck_assert_uint_eq(oc.overwritten, 0);
	ck_assert_uint_eq(ptcap_outcome_losses(&oc), 0);
	ck_assert_str_eq(words(&oc), "buffer-full");
	ck_assert_ptr_nonnull(strstr(report(&oc), "the buffer filled in stop mode: tracing "
					       "stopped after 16384 bytes"));
	/* Full with a stop range set but no TraceStop packet: full wins. */
	ptcap_outcome_classify(&oc, &st, 16 * KB, LWPT_PT_MODE_STOP, true, false);
	ck_assert(oc.buffer_full && !oc.trace_stop);
	/* Stopped for no known reason (another owner, a new cause). */
	st.bytes = 100;
	ptcap_outcome_classify(&oc, &st, 100, LWPT_PT_MODE_WRAP, false, false);
	ck_assert(oc.stopped && !oc.buffer_full && !oc.trace_stop);
	ck_assert_str_eq(words(&oc), "stopped");
}
END_TEST

/* OVF packets (SDM 33.3.8) are data lost; after a bad packet the scan resyncs. */
START_TEST(ovf_is_a_loss)
{
	static const uint8_t tail[] = {
		PT_OPC_EXT, PT_EXT_OVF, PT_OPC_PAD,
		0xc9, 0xc9, 0xc9,	/* not a packet: resync at the PSB after it */
		PT_OPC_EXT, PT_EXT_PSB, PT_OPC_EXT, PT_EXT_PSB, PT_OPC_EXT, PT_EXT_PSB,
		PT_OPC_EXT, PT_EXT_PSB, PT_OPC_EXT, PT_EXT_PSB, PT_OPC_EXT, PT_EXT_PSB,
		PT_OPC_EXT, PT_EXT_PSB, PT_OPC_EXT, PT_EXT_PSB,
		PT_OPC_EXT, PT_EXT_OVF,
	};
	struct lpt_cap_status st = status(100, 16 * KB);
	struct ptcap_outcome oc = { 0 };
	uint8_t buf[128];
	size_t len;

	/* Garbage before the first PSB (a wrap's cut) is skipped. */
	buf[0] = 0xc9;
	len = 1 + trace(buf + 1, tail, sizeof(tail));
	ck_assert_int_eq(ptcap_outcome_scan(&oc, buf, len), 0);
	ck_assert_uint_eq(oc.ovf, 2);
	ptcap_outcome_classify(&oc, &st, len, LWPT_PT_MODE_WRAP, false, false);
	ck_assert_uint_eq(ptcap_outcome_losses(&oc), 2);
	ck_assert_str_eq(words(&oc), "lost ovf=2");
	ck_assert_ptr_nonnull(strstr(report(&oc), "ptcap: cpu0.pt: data lost: 2 internal "
					       "buffer overflow(s)"));
	/* Empty and PSB-less traces: nothing found, no error. */
	memset(&oc, 0, sizeof(oc));
	ck_assert_int_eq(ptcap_outcome_scan(&oc, NULL, 0), 0);
	ck_assert_int_eq(ptcap_outcome_scan(&oc, tail, 3), 0);
	ck_assert_uint_eq(oc.ovf + oc.tracestop_pkts, 0);
}
END_TEST

/* An operational error, counted once (the module puts it in lost too). */
START_TEST(error_and_stalls)
{
	struct lpt_cap_status st = status(100, 16 * KB);
	struct ptcap_outcome oc = { 0 };
	const char *r;

	st.error = true;
	st.lost = 1;
	ptcap_outcome_classify(&oc, &st, 100, LWPT_PT_MODE_WRAP, false, false);
	ck_assert_uint_eq(oc.lost, 0);
	ck_assert_uint_eq(ptcap_outcome_losses(&oc), 1);
	ck_assert_str_eq(words(&oc), "lost error");
	ck_assert_ptr_nonnull(strstr(report(&oc), "data lost: an operational error"));
	/* Continuous mode: 3 stalls. */
	st.error = false;
	st.lost = 3;
	ptcap_outcome_classify(&oc, &st, 100, LWPT_PT_MODE_CONTINUOUS, false, false);
	ck_assert_uint_eq(ptcap_outcome_losses(&oc), 3);
	ck_assert_str_eq(words(&oc), "lost lost=3");
	r = report(&oc);
	ck_assert_ptr_nonnull(strstr(r, "data lost: 3 time(s) tracing was off"));
	/* A continuous capture far beyond its buffer did not wrap. */
	st = status(100 * KB, 16 * KB);
	ptcap_outcome_classify(&oc, &st, 100 * KB, LWPT_PT_MODE_CONTINUOUS, false, false);
	ck_assert_uint_eq(oc.overwritten, 0);
	ck_assert_str_eq(words(&oc), "complete");
}
END_TEST

START_TEST(words_too_small)
{
	struct ptcap_outcome oc = { 0 };
	char buf[8];

	oc.ovf = 12345;
	oc.error = true;
	ck_assert_int_eq(ptcap_outcome_words(&oc, buf, sizeof(buf)), -ENOSPC);
	ck_assert_int_eq(ptcap_outcome_words(&oc, buf, 0), -ENOSPC);
	ck_assert_int_eq(ptcap_outcome_words(&oc, buf, 2), -ENOSPC);
}
END_TEST

static Suite *outcome_suite(void)
{
	Suite *s = suite_create("ptcap_outcome");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, complete_capture);
	tcase_add_test(tc, wrap_is_not_a_loss);
	tcase_add_test(tc, trace_stop_is_not_a_loss);
	tcase_add_test(tc, stop_mode_full_is_not_a_loss);
	tcase_add_test(tc, ovf_is_a_loss);
	tcase_add_test(tc, error_and_stalls);
	tcase_add_test(tc, words_too_small);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(outcome_suite(), CK_NORMAL);
}
