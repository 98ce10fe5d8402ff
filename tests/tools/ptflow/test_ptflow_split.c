// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the splitting of a system-wide capture by thread
 * (tools/ptflow/ptflow_split.c; Documentation/ptflow.rst, "System-wide
 * captures"): spans found by the packet pass in a hand-built trace (packet
 * encodings of SDM 33.4.2), owners from synthetic switch records, exec
 * generations from synthetic process lists.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "tools/ptflow/ptflow_split.h"
#include "tests/check_run.h"
#include "tests/tools/ptflow/pt_bytes.h"

static void parse_sws(const char *text, struct ptcap_switches *sws)
{
	ck_assert_int_eq(ptcap_switches_parse(text, strlen(text), sws, NULL), 0);
}

static const char switches[] =
	"lwpt-ptcap-switches 1\n"
	"100 0 0/0 10/10 prev-idle\n"
	"200 0 10/10 20/21\n"
	"300 0 20/21 10/10 preempt\n"
	"400 0 10/10 0/0 next-idle\n"
	/* CPU 1: a record lost between the two (31 never switched in). */
	"100 1 0/0 30/30 prev-idle\n"
	"200 1 31/31 32/32\n";

static struct ptflow_span span(uint64_t lo, uint64_t hi)
{
	struct ptflow_span s;

	memset(&s, 0, sizeof(s));
	s.lo = lo;
	s.hi = hi;
	s.has_time = true;
	s.kind = PTFLOW_OWNER_NO_MAPS;	/* poison: must be overwritten */
	return s;
}

/* The thread of the last switch before lo, if none lies in (lo, hi). */
START_TEST(owner_rules)
{
	struct ptcap_switches sws;
	struct ptflow_span s;

	parse_sws(switches, &sws);
	s = span(150, 180);
	ptflow_split_owner(&sws, 0, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_THREAD);
	ck_assert_uint_eq(s.pid, 10);
	ck_assert_uint_eq(s.tid, 10);

	/* A switch at 200 lies between the bounds: either side. */
	s = span(150, 250);
	ptflow_split_owner(&sws, 0, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_AMBIGUOUS);

	/* hi is exclusive: the switch at 200 is after the span. */
	s = span(150, 200);
	ptflow_split_owner(&sws, 0, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_THREAD);
	ck_assert_uint_eq(s.tid, 10);

	/* At a switch's TSC: the thread it switched in. */
	s = span(200, 210);
	ptflow_split_owner(&sws, 0, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_THREAD);
	ck_assert_uint_eq(s.pid, 20);
	ck_assert_uint_eq(s.tid, 21);

	/* Before the first switch of its CPU; no time at all. */
	s = span(50, 60);
	ptflow_split_owner(&sws, 0, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_NO_SWITCH);
	s = span(150, 180);
	s.has_time = false;
	ptflow_split_owner(&sws, 0, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_NO_TIME);

	/* The idle task ran: no user code should be there. */
	s = span(450, UINT64_MAX);
	ptflow_split_owner(&sws, 0, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_NOT_USER);

	/* The last piece with no later time: any later switch is inside. */
	s = span(350, UINT64_MAX);
	ptflow_split_owner(&sws, 0, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_AMBIGUOUS);

	/* CPU 1: 30 switched in, 31 switched out: records were lost. */
	s = span(150, 160);
	ptflow_split_owner(&sws, 1, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_LOST);

	/* A CPU without switches. */
	s = span(150, 160);
	ptflow_split_owner(&sws, 2, &s);
	ck_assert_int_eq(s.kind, PTFLOW_OWNER_NO_SWITCH);
	ptcap_switches_free(&sws);
}
END_TEST

/* A decoder position belongs to the last span starting before it. */
START_TEST(spans_find)
{
	struct ptflow_span s[3];
	struct ptflow_spans sp = { s, 3, 3 };

	memset(s, 0, sizeof(s));
	s[0].offset = 0x10;
	s[1].offset = 0x40;
	s[2].offset = 0x80;
	ck_assert_uint_eq(ptflow_spans_find(&sp, 0x5), SIZE_MAX);
	ck_assert_uint_eq(ptflow_spans_find(&sp, 0x10), SIZE_MAX);
	ck_assert_uint_eq(ptflow_spans_find(&sp, 0x11), 0);
	ck_assert_uint_eq(ptflow_spans_find(&sp, 0x40), 0);
	ck_assert_uint_eq(ptflow_spans_find(&sp, 0x41), 1);
	ck_assert_uint_eq(ptflow_spans_find(&sp, 0x1000), 2);
}
END_TEST

/*
 * PSB+ (TSC 1000), TIP.PGE 0x401000, TSC 1100, TIP.PGD, TSC 1200,
 * TIP.PGE 0x2000 as a 16-bit update (0x402000), TIP.PGD, TSC 1300;
 * then PSB+ with FUP 0x403000 (tracing on at the PSB: a span starts
 * there), end of trace.
 */
START_TEST(scan_spans)
{
	uint8_t b[256];
	size_t n = 0, pge1, pge2, psb2;
	struct lpt_time_config tc;
	struct ptflow_spans sp = { 0 };

	memset(b, 0, sizeof(b));
	memset(&tc, 0, sizeof(tc));
	n += put_psb(b + n);
	n += put_tsc(b + n, 1000);
	b[n++] = 0x02;			/* PSBEND (33.4.2.18) */
	b[n++] = 0x23;
	pge1 = n;
	n += put_pge(b + n, 6, 0x401000);
	n += put_tsc(b + n, 1100);
	b[n++] = 0x01;			/* TIP.PGD, IP suppressed (33.4.2.5) */
	n += put_tsc(b + n, 1200);
	pge2 = n;
	n += put_pge(b + n, 1, 0x2000);
	b[n++] = 0x01;
	n += put_tsc(b + n, 1300);
	psb2 = n;
	n += put_psb(b + n);
	n += put_tsc(b + n, 1400);
	b[n++] = 0xdd;			/* FUP, full IP (33.4.2.6) */
	n += put_le(b + n, 0x403000, 8);
	b[n++] = 0x02;
	b[n++] = 0x23;

	ck_assert_int_eq(ptflow_spans_scan(b, n, &tc, &sp), 0);
	ck_assert_uint_eq(sp.n, 3);
	ck_assert_uint_eq(sp.s[0].offset, pge1);
	ck_assert_int_eq(sp.s[0].start, PTFLOW_START_PGE);
	ck_assert_uint_eq(sp.s[0].end, pge2 - 8);	/* after the TIP.PGD */
	ck_assert_uint_eq(sp.s[0].ip, 0x401000);
	ck_assert(sp.s[0].has_time);
	ck_assert_uint_eq(sp.s[0].lo, 1100);
	ck_assert_uint_eq(sp.s[0].hi, 1200);
	ck_assert_uint_eq(sp.s[1].offset, pge2);
	ck_assert_uint_eq(sp.s[1].ip, 0x402000);
	ck_assert_uint_eq(sp.s[1].lo, 1200);
	ck_assert_uint_eq(sp.s[1].hi, 1300);
	ck_assert_uint_eq(sp.s[2].offset, psb2);
	ck_assert_int_eq(sp.s[2].start, PTFLOW_START_PSB);
	ck_assert_uint_eq(sp.s[2].end, n);	/* the trace's end */
	ck_assert_uint_eq(sp.s[2].ip, 0x403000);
	ck_assert_uint_eq(sp.s[2].lo, 1400);
	ck_assert_uint_eq(sp.s[2].hi, UINT64_MAX);
	ptflow_spans_free(&sp);

	/* No PSB: no span; a trace cut inside a packet (the TSC after the
	 * 9-byte TIP.PGE) ends the span. */
	ck_assert_int_eq(ptflow_spans_scan(b + 16, 10, &tc, &sp), 0);
	ck_assert_uint_eq(sp.n, 0);
	ck_assert_int_eq(ptflow_spans_scan(b, pge1 + 9 + 3, &tc, &sp), 0);
	ck_assert_uint_eq(sp.n, 1);
	ck_assert_uint_eq(sp.s[0].lo, 1000);
	ptflow_spans_free(&sp);

	/* An OVF ends a span (its end after the OVF); the FUP after it
	 * starts one (SDM 33.4.2.16). */
	n = pge1 + 9;
	b[n++] = 0x02;			/* OVF (33.4.2.16) */
	b[n++] = 0xf3;
	b[n++] = 0xdd;			/* FUP, full IP */
	n += put_le(b + n, 0x404000, 8);
	ck_assert_int_eq(ptflow_spans_scan(b, n, &tc, &sp), 0);
	ck_assert_uint_eq(sp.n, 2);
	ck_assert_int_eq(sp.s[0].start, PTFLOW_START_PGE);
	ck_assert_uint_eq(sp.s[0].end, pge1 + 9 + 2);
	ck_assert_int_eq(sp.s[1].start, PTFLOW_START_OVF);
	ck_assert_uint_eq(sp.s[1].offset, pge1 + 9 + 2);
	ck_assert_uint_eq(sp.s[1].ip, 0x404000);
	ptflow_spans_free(&sp);
}
END_TEST

/*
 * MTC time lags the TSC after wraps no MTC showed (SDM 33.4.2.12, and the
 * model's 256-MTC cap per gap): PSB+ (TSC 1000, TMA CTC 0), TIP.PGE,
 * TIP.PGD, MTC CTC 1 (time 1001 with TSC = CTC and MTCFreq 0: the span's
 * hi), TIP.PGE, TIP.PGD, then PSB+ with TSC 5000: the MTC times were up
 * to 3999 low, so the first span's hi widens to 5000 (a switch at 3000
 * makes it ambiguous); the second, still awaiting, gets hi 5000 exactly.
 */
START_TEST(scan_mtc_lag)
{
	uint8_t b[128];
	size_t n = 0;
	struct lpt_time_config tc;
	struct ptflow_spans sp = { 0 };

	memset(b, 0, sizeof(b));
	memset(&tc, 0, sizeof(tc));
	tc.cpuid_0x15_eax = 1;
	tc.cpuid_0x15_ebx = 1;
	n += put_psb(b + n);
	n += put_tsc(b + n, 1000);
	b[n++] = 0x02;			/* TMA (33.4.2.12): CTC 0, FC 0 */
	b[n++] = 0x73;
	n += 5;
	b[n++] = 0x02;			/* PSBEND */
	b[n++] = 0x23;
	n += put_pge(b + n, 6, 0x401000);
	b[n++] = 0x01;			/* TIP.PGD */
	b[n++] = 0x59;			/* MTC, CTC[7:0] = 1 (33.4.2.11) */
	b[n++] = 0x01;
	n += put_pge(b + n, 6, 0x402000);
	b[n++] = 0x01;
	n += put_psb(b + n);
	n += put_tsc(b + n, 5000);
	b[n++] = 0x02;
	b[n++] = 0x23;

	ck_assert_int_eq(ptflow_spans_scan(b, n, &tc, &sp), 0);
	ck_assert_uint_eq(sp.n, 2);
	ck_assert_uint_eq(sp.s[0].lo, 1000);
	ck_assert_uint_eq(sp.s[0].hi, 5000);
	ck_assert_uint_eq(sp.s[1].lo, 1001);
	ck_assert_uint_eq(sp.s[1].hi, 5000);
	ptflow_spans_free(&sp);
}
END_TEST

/*
 * A lag shorter than one MTC wrap lost none (ptflow.rst): the same trace
 * as scan_mtc_lag with the second TSC at 1100 (lag 99; a wrap is 256 CTC
 * ticks, 255 with the slack) keeps the first span's hi at the MTC's 1001;
 * at 1300 (lag 299) it is raised to 1300.
 */
START_TEST(scan_short_lag)
{
	static const uint64_t tsc2[] = { 1100, 1300 }, hi0[] = { 1001, 1300 };
	uint8_t b[128];
	struct lpt_time_config tc;
	struct ptflow_spans sp = { 0 };
	size_t k;

	memset(&tc, 0, sizeof(tc));
	tc.cpuid_0x15_eax = 1;
	tc.cpuid_0x15_ebx = 1;
	for (k = 0; k < 2; k++) {
		size_t n = 0;

		memset(b, 0, sizeof(b));
		n += put_psb(b + n);
		n += put_tsc(b + n, 1000);
		b[n++] = 0x02;		/* TMA: CTC 0, FC 0 */
		b[n++] = 0x73;
		n += 5;
		b[n++] = 0x02;
		b[n++] = 0x23;
		n += put_pge(b + n, 6, 0x401000);
		b[n++] = 0x01;
		b[n++] = 0x59;		/* MTC, CTC 1 */
		b[n++] = 0x01;
		n += put_pge(b + n, 6, 0x402000);
		b[n++] = 0x01;
		n += put_psb(b + n);
		n += put_tsc(b + n, tsc2[k]);
		b[n++] = 0x02;
		b[n++] = 0x23;
		ck_assert_int_eq(ptflow_spans_scan(b, n, &tc, &sp), 0);
		ck_assert_uint_eq(sp.n, 2);
		ck_assert_uint_eq(sp.s[0].hi, hi0[k]);
		ck_assert_uint_eq(sp.s[1].lo, 1001);
		ck_assert_uint_eq(sp.s[1].hi, tsc2[k]);
		ptflow_spans_free(&sp);
	}
}
END_TEST

static struct ptflow_span owned(uint32_t pid, uint64_t lo, uint64_t ip)
{
	struct ptflow_span s = span(lo, lo + 1);

	s.kind = PTFLOW_OWNER_THREAD;
	s.pid = pid;
	s.tid = pid;
	s.ip = ip;
	s.gen = 99;
	return s;
}

/* Exec generations: by the execs seen, else by ptcap's read times. */
START_TEST(gens)
{
	static const char text[] =
		"lwpt-ptcap-processes 1\n"
		"10 0 500 600 0x401000 maps.10.0 sh\n"
		"10 1 900 1000 0x402000 maps.10.1 prog\n"
		"20 missing\n"
		"40 0 100 200 0x1000 maps.40.0 a\n"
		"40 1 400 500 0x2000 maps.40.1 b\n";
	struct ptcap_processes ps;
	struct ptflow_span s[9];
	struct ptflow_spans sp = { s, 9, 9 };

	ck_assert_int_eq(ptcap_processes_parse(text, strlen(text), &ps, NULL), 0);
	s[0] = owned(10, 800, 0x402000);	/* exec into gen 1 seen at 800 */
	s[1] = owned(10, 850, 0x402100);	/* after it: gen 1 */
	s[2] = owned(10, 550, 0x401100);	/* before it, in a read: gen 0 */
	s[3] = owned(10, 300, 0x401100);	/* before any read: gen 0 */
	s[4] = owned(20, 300, 0x1);		/* missing */
	s[5] = owned(30, 300, 0x1);		/* not listed */
	s[6] = owned(40, 300, 0x5);		/* between reads, no exec seen */
	s[7] = owned(40, 450, 0x5);		/* read of gen 1 */
	s[8] = owned(40, 150, 0x5);		/* read of gen 0 */
	ck_assert_int_eq(ptflow_split_gens(&ps, &sp, 1), 0);
	ck_assert_int_eq(s[0].kind, PTFLOW_OWNER_THREAD);
	ck_assert_uint_eq(s[0].gen, 1);
	ck_assert_uint_eq(s[1].gen, 1);
	ck_assert_int_eq(s[2].kind, PTFLOW_OWNER_THREAD);
	ck_assert_uint_eq(s[2].gen, 0);
	ck_assert_uint_eq(s[3].gen, 0);
	ck_assert_int_eq(s[4].kind, PTFLOW_OWNER_NO_MAPS);
	ck_assert_int_eq(s[5].kind, PTFLOW_OWNER_NO_MAPS);
	ck_assert_int_eq(s[6].kind, PTFLOW_OWNER_EXEC);
	ck_assert_int_eq(s[7].kind, PTFLOW_OWNER_THREAD);
	ck_assert_uint_eq(s[7].gen, 1);
	ck_assert_uint_eq(s[8].gen, 0);

	/* Between the last read of gen 0 and the exec into gen 1 (seen):
	 * another program may have run (execed, never read). */
	s[0] = owned(10, 800, 0x402000);
	s[1] = owned(10, 700, 0x401100);
	sp.n = 2;
	ck_assert_int_eq(ptflow_split_gens(&ps, &sp, 1), 0);
	ck_assert_uint_eq(s[0].gen, 1);
	ck_assert_int_eq(s[1].kind, PTFLOW_OWNER_EXEC);

	/* An exec into the first generation seen: earlier pieces are not it. */
	s[0] = owned(40, 120, 0x1000);
	s[1] = owned(40, 110, 0x7);
	sp.n = 2;
	ck_assert_int_eq(ptflow_split_gens(&ps, &sp, 1), 0);
	ck_assert_uint_eq(s[0].gen, 0);
	ck_assert_int_eq(s[1].kind, PTFLOW_OWNER_EXEC);
	ptcap_processes_free(&ps);
}
END_TEST

static Suite *split_suite(void)
{
	Suite *s = suite_create("ptflow_split");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, owner_rules);
	tcase_add_test(tc, spans_find);
	tcase_add_test(tc, scan_spans);
	tcase_add_test(tc, scan_mtc_lag);
	tcase_add_test(tc, scan_short_lag);
	tcase_add_test(tc, gens);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(split_suite(), CK_NORMAL);
}
