// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the synthetic traces that resume the flow at the next span
 * (tools/ptflow/ptflow_resume.c; Documentation/ptflow.rst, "System-wide
 * captures", point 4), on a hand-built trace (packet encodings of SDM
 * 33.4.2):
 *
 *   PSB, TSC 1000, MODE.Exec 32-bit, PSBEND, MTC 5, MODE.Exec 64-bit,
 *   TIP.PGE 0x401000 (full), TNT, TIP.PGD, MTC 6,
 *   TIP.PGE 0x2000 (16-bit update: 0x402000), TNT, TIP.PGD,
 *   PSB, TSC 2000, FUP 0x403000 (full), PSBEND
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "tools/ptflow/ptflow_resume.h"
#include "tests/check_run.h"
#include "tests/tools/ptflow/pt_bytes.h"

static uint8_t b[256];
static size_t n, pge1, mtc6, pge2, psb2;

static void build(void)
{
	memset(b, 0, sizeof(b));
	n = put_psb(b);
	n += put_tsc(b + n, 1000);
	b[n++] = 0x99;			/* MODE.Exec (33.4.2.8): CS.D=1 */
	b[n++] = 0x02;
	b[n++] = 0x02;			/* PSBEND (33.4.2.18) */
	b[n++] = 0x23;
	b[n++] = 0x59;			/* MTC (33.4.2.12), CTC 5 */
	b[n++] = 0x05;
	b[n++] = 0x99;			/* MODE.Exec: CS.L=1, 64-bit */
	b[n++] = 0x01;
	pge1 = n;
	n += put_pge(b + n, 6, 0x401000);
	b[n++] = 0x06;			/* TNT (33.4.2.1): one taken */
	b[n++] = 0x01;			/* TIP.PGD, IP suppressed */
	mtc6 = n;
	b[n++] = 0x59;
	b[n++] = 0x06;
	pge2 = n;
	n += put_pge(b + n, 1, 0x2000);
	b[n++] = 0x06;
	b[n++] = 0x01;
	psb2 = n;
	n += put_psb(b + n);
	n += put_tsc(b + n, 2000);
	b[n++] = 0xdd;			/* FUP (33.4.2.6), full IP */
	n += put_le(b + n, 0x403000, 8);
	b[n++] = 0x02;
	b[n++] = 0x23;
}

/* From inside the first span: the second one, with its context. */
START_TEST(next_span)
{
	struct ptflow_resume r;
	uint8_t want[64];
	size_t w = 0;

	build();
	ck_assert_int_eq(ptflow_resume_build(b, n, pge1 + 9, 8, &r), 1);
	ck_assert_uint_eq(r.target, pge2);
	ck_assert_uint_eq(r.skip, pge2 + 3);
	ck_assert_uint_eq(r.next_psb, psb2);
	ck_assert_uint_eq(r.end_ip, 0x403000);

	/* PSB+ without MODE.Exec or FUP, the MTCs, the last MODE.Exec. */
	w = put_psb(want);
	w += put_tsc(want + w, 1000);
	want[w++] = 0x02;
	want[w++] = 0x23;
	want[w++] = 0x59;
	want[w++] = 0x05;
	want[w++] = 0x59;
	want[w++] = 0x06;
	want[w++] = 0x99;
	want[w++] = 0x01;
	w += put_pge(want + w, 6, 0x402000);	/* the full IP */
	ck_assert_uint_eq(r.body, w);
	want[w++] = 0x06;			/* the span's own bytes */
	want[w++] = 0x01;
	ck_assert_uint_eq(r.tail, w);
	w += put_tsc(want + w, 2000);		/* the next PSB+'s TSC */
	want[w++] = 0xdd;			/* FUP + TIP.PGD at the FUP IP */
	w += put_le(want + w, 0x403000, 8);
	want[w++] = 0x01;
	ck_assert_uint_eq(r.len, w);
	ck_assert_mem_eq(r.buf, want, w);
	ck_assert_mem_eq(r.buf + w, "\0\0\0\0\0\0\0\0", 8);	/* the padding */

	/* Offsets of the real trace. */
	ck_assert_uint_eq(ptflow_resume_map(&r, 0), pge2);
	ck_assert_uint_eq(ptflow_resume_map(&r, r.body - 1), pge2);
	ck_assert_uint_eq(ptflow_resume_map(&r, r.body), pge2 + 3);
	ck_assert_uint_eq(ptflow_resume_map(&r, r.body + 1), pge2 + 4);
	ck_assert_uint_eq(ptflow_resume_map(&r, r.tail), psb2);
	ck_assert_uint_eq(ptflow_resume_map(&r, r.len + 5), psb2);
	ptflow_resume_free(&r);
	ck_assert_ptr_null(r.buf);
}
END_TEST

/* Nothing to resume: the PSB comes first, an OVF, no PSB before. */
START_TEST(nothing)
{
	struct ptflow_resume r;

	build();
	ck_assert_int_eq(ptflow_resume_build(b, n, pge2 + 3, 8, &r), 0);
	ck_assert_ptr_null(r.buf);
	ck_assert_int_eq(ptflow_resume_build(b, n, n + 1, 8, &r), 0);
	ck_assert_int_eq(ptflow_resume_build(b + 16, n - 16, pge1 - 16 + 9, 8, &r), 0);
	/* OVF (33.4.2.16) instead of MTC 6: the next span starts at a FUP. */
	b[mtc6] = 0x02;
	b[mtc6 + 1] = 0xf3;
	ck_assert_int_eq(ptflow_resume_build(b, n, pge1 + 9, 8, &r), 0);
}
END_TEST

/* The trace ends before a PSB: copied to the end, no FUP + TIP.PGD. */
START_TEST(to_the_end)
{
	struct ptflow_resume r;

	build();
	ck_assert_int_eq(ptflow_resume_build(b, psb2, pge1 + 9, 0, &r), 1);
	ck_assert_uint_eq(r.target, pge2);
	ck_assert_uint_eq(r.next_psb, psb2);
	ck_assert_uint_eq(r.tail, r.len);
	ck_assert_uint_eq(r.len, r.body + 2);
	ptflow_resume_free(&r);
	/* A span that was entered at its very TIP.PGE offset. */
	ck_assert_int_eq(ptflow_resume_build(b, n, pge2, 0, &r), 1);
	ck_assert_uint_eq(r.target, pge2);
	ptflow_resume_free(&r);
}
END_TEST

/*
 * A PSB right after the span's TIP.PGE (tracing on there): nothing of the
 * span is copied, the synthetic trace ends at once with the next PSB+'s
 * timing packets and FUP + TIP.PGD,
 * and the caller's decoder goes on at that PSB, not at a later one
 * (81-ptflow-sys once decoded a span twice that way).
 */
START_TEST(psb_right_after)
{
	struct ptflow_resume r;
	size_t at, psb;

	memset(b, 0, sizeof(b));
	n = put_psb(b);
	n += put_tsc(b + n, 1000);
	b[n++] = 0x02;
	b[n++] = 0x23;
	n += put_pge(b + n, 6, 0x401000);
	b[n++] = 0x01;
	at = n;
	n += put_pge(b + n, 6, 0x402000);
	psb = n;
	n += put_psb(b + n);
	n += put_tsc(b + n, 2000);
	b[n++] = 0xdd;
	n += put_le(b + n, 0x402000, 8);
	b[n++] = 0x02;
	b[n++] = 0x23;
	b[n++] = 0x06;
	b[n++] = 0x01;
	n += put_psb(b + n);	/* a later PSB, which must not be taken */
	b[n++] = 0x02;
	b[n++] = 0x23;
	ck_assert_int_eq(ptflow_resume_build(b, n, 16 + 8 + 2 + 9, 0, &r), 1);
	ck_assert_uint_eq(r.target, at);
	ck_assert_uint_eq(r.skip, psb);
	ck_assert_uint_eq(r.next_psb, psb);
	ck_assert_uint_eq(r.tail, r.body);
	ck_assert_uint_eq(r.end_ip, 0x402000);
	/*
	 * Before the FUP + TIP.PGD: the next PSB+'s TSC, as the continuous
	 * decoder reads it ahead (ptflow_calls.sh once saw a call before the
	 * PSB 56 ns earlier after a skipped span than without the skip).
	 */
	ck_assert_uint_eq(r.len, r.tail + 8 + 10);
	ck_assert_mem_eq(r.buf + r.tail, b + psb + 16, 8);
	ck_assert_uint_eq(r.buf[r.tail + 8], 0xdd);
	ptflow_resume_free(&r);
}
END_TEST

static Suite *resume_suite(void)
{
	Suite *s = suite_create("ptflow_resume");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, next_span);
	tcase_add_test(tc, nothing);
	tcase_add_test(tc, to_the_end);
	tcase_add_test(tc, psb_right_after);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(resume_suite(), CK_NORMAL);
}
