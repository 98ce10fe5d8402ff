// SPDX-License-Identifier: GPL-2.0
/*
 * libpt's BTS decoder (lwpt/bts_decode.h) on a synthetic image and records:
 * blocks from each record's "to" to the next "from", the kernel gap of a
 * user-only capture (DISABLED, then ENABLED after the system call),
 * records that do not follow the code (RESYNC), an unknown start, a
 * trailing partial record, the block cache, bad arguments, random records. The decoder against
 * single-stepping on a real program: tests/model/bts/test_bts_flow.c.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/bts_decode.h>
#include <lwpt/pt_pkt.h>

#include "tests/check_run.h"

#define CODE	0x1000ull
#define KENTRY	0xffffffff81e00000ull

/*
 * 0x1000 nop; 0x1001 je 0x1005; 0x1003 jmp 0x1008; 0x1005 nop;
 * 0x1006 syscall; 0x1008 ret
 */
static const uint8_t code[] = {
	0x90, 0x74, 0x02, 0xeb, 0x03, 0x90, 0x0f, 0x05, 0xc3,
};

struct rec {
	uint64_t from, to, flags;
};

static struct lpt_cov_image *image(void)
{
	struct lpt_cov_image *img = lpt_cov_image_alloc();

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(lpt_cov_image_add(img, CODE, code, sizeof(code)), 0);
	return img;
}

/* What the decoder gives, one line per block or event. */
static void run(struct lpt_bts *d, char *out, size_t size)
{
	size_t used = 0;
	int st = lpt_bts_status(d);

	out[0] = '\0';
	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
		struct lpt_flow_block b;
		struct lpt_flow_event ev;

		if (st & LPT_FLOW_EVENT_PENDING) {
			struct lpt_flow_block dummy;

			ck_assert_int_eq(lpt_bts_next(d, &dummy), LPT_ERR_BAD_CONTEXT);
			st = lpt_bts_event(d, &ev);
			used += (size_t)snprintf(out + used, size - used, "ev%u %#llx%s%s@%llu\n",
						 ev.type, (unsigned long long)ev.ip,
						 ev.resumed ? " resumed" : "",
						 ev.type == LPT_FLOW_EV_RESYNC ? " err" : "",
						 (unsigned long long)ev.offset);
			if (ev.type == LPT_FLOW_EV_RESYNC)
				ck_assert_int_lt(ev.err, 0);
		} else {
			uint64_t ip = b.ip;
			uint32_t k;

			ck_assert_int_eq(lpt_bts_event(d, &ev), LPT_ERR_BAD_CONTEXT);
			st = lpt_bts_next(d, &b);
			ip = b.ip;
			for (k = 0; k + 1 < b.ninsn; k++)
				ip += b.lens[k];
			ck_assert_uint_eq(ip, b.end_ip);
			used += (size_t)snprintf(out + used, size - used, "blk %#llx %u end%u\n",
						 (unsigned long long)b.ip, b.ninsn, b.end);
		}
		ck_assert_uint_lt(used, size);
	}
	ck_assert_int_ge(st, 0);
}

START_TEST(test_blocks_and_kernel_gap)
{
	struct lpt_cov_image *img = image();
	uint8_t buf[6 * sizeof(struct rec) + 10];
	const struct rec r[] = {
		{ 0x1003, 0x1008, 0 },		/* jmp: je not taken before it */
		{ 0x1008, 0x1005, 0 },		/* ret */
		{ 0x1006, KENTRY, 0 },		/* syscall: into the kernel */
		{ 0x1008, 0x1000, 0 },		/* ret, after the system call */
		{ 0x1005, 0x1005, 0 },		/* does not follow: jmp at 0x1003 */
		{ 0x1006, 0x1008, 0 },
	};
	struct lpt_bts *d;
	char out[1024];

	memcpy(buf, r, sizeof(r));
	memset(buf + sizeof(r), 0xff, 10);	/* a partial record: ignored */
	d = lpt_bts_alloc(img, buf, sizeof(buf), CODE);
	ck_assert_ptr_nonnull(d);
	run(d, out, sizeof(out));
	ck_assert_str_eq(out,
			 "blk 0x1000 3 end2\n"
			 "blk 0x1008 1 end6\n"
			 "blk 0x1005 2 end7\n"
			 "ev2 0xffffffff81e00000@48\n"
			 "ev1 0x1008 resumed@72\n"
			 "blk 0x1008 1 end6\n"
			 "ev6 0x1005 err@96\n"
			 "blk 0x1005 2 end7\n");
	lpt_bts_free(d);
	lpt_cov_image_free(img);
}
END_TEST

/*
 * Records whose from and to are 0 are no records (perf's intel_bts
 * decoder skips them; pt2perf ends its AUXTRACE buffers with one): the
 * same blocks as without them, anywhere in the trace.
 */
START_TEST(test_zero_records_skipped)
{
	struct lpt_cov_image *img = image();
	const struct rec r[] = {
		{ 0, 0, 0 },
		{ 0x1003, 0x1008, 0 },
		{ 0, 0, 0x10 },			/* flags do not make it a record */
		{ 0x1008, 0x1005, 0 },
		{ 0, 0, 0 },
	};
	struct lpt_bts *d;
	char out[512];

	d = lpt_bts_alloc(img, r, sizeof(r), CODE);
	ck_assert_ptr_nonnull(d);
	run(d, out, sizeof(out));
	ck_assert_str_eq(out,
			 "blk 0x1000 3 end2\n"
			 "blk 0x1008 1 end6\n");
	lpt_bts_free(d);
	lpt_cov_image_free(img);
}
END_TEST

/*
 * An interrupt (or fault) taken in user mode: its record goes into the
 * kernel from the instruction not yet executed (SDM 17.4.8), which runs
 * once user mode resumes there; a SYSCALL's record is the instruction.
 */
START_TEST(test_interrupt_before_insn)
{
	struct lpt_cov_image *img = image();
	const struct rec r[] = {
		{ 0x1001, KENTRY, 0 },		/* interrupt before the je */
		{ 0x1001, 0x1005, 0 },		/* je taken */
		{ 0x1005, KENTRY, 0 },		/* interrupt before the nop */
		{ 0x1006, KENTRY, 0 },		/* syscall */
		{ 0x1008, 0x1000, 0 },		/* ret */
	};
	struct lpt_bts *d;
	char out[1024];

	d = lpt_bts_alloc(img, r, sizeof(r), CODE);
	ck_assert_ptr_nonnull(d);
	run(d, out, sizeof(out));
	ck_assert_str_eq(out,
			 "blk 0x1000 1 end0\n"
			 "ev2 0xffffffff81e00000@0\n"
			 "ev1 0x1001 resumed@24\n"
			 "blk 0x1001 1 end1\n"
			 "ev2 0xffffffff81e00000@48\n"
			 "ev1 0x1005 resumed@72\n"
			 "blk 0x1005 2 end7\n"
			 "ev2 0xffffffff81e00000@72\n"
			 "ev1 0x1008 resumed@96\n"
			 "blk 0x1008 1 end6\n");
	lpt_bts_free(d);
	lpt_cov_image_free(img);
}
END_TEST

START_TEST(test_unknown_start_and_missing_code)
{
	struct lpt_cov_image *img = image();
	const struct rec r[] = {
		{ 0x7000, 0x1005, 0 },		/* before: not followed */
		{ 0x1006, 0x1008, 0 },
		{ 0x1009, 0x1000, 0 },		/* past the image's end */
		{ 0x1003, 0x1008, 0 },
		{ KENTRY, 0x1000, 0 },		/* from the kernel */
		{ 0x1003, 0x1008, 0 },
	};
	struct lpt_bts *d = lpt_bts_alloc(img, r, sizeof(r), 0);
	char out[1024];

	ck_assert_ptr_nonnull(d);
	run(d, out, sizeof(out));
	ck_assert_str_eq(out,
			 "ev1 0x1005@0\n"
			 "blk 0x1005 2 end7\n"
			 "ev6 0x1000 err@48\n"
			 "blk 0x1000 3 end2\n"
			 "ev1 0x1000@96\n"
			 "blk 0x1000 3 end2\n");
	lpt_bts_free(d);
	lpt_cov_image_free(img);
}
END_TEST

/*
 * The block cache (a walk kept by its two ends): a loop run again and
 * again gives the same blocks each time; blocks with the same start and
 * another end are not taken for each other; an interrupt before a cached
 * block's last instruction shortens that block only (the next time the
 * whole block again); every block handed out stays valid while the next
 * is taken.
 */
START_TEST(test_cached_blocks)
{
	enum { LOOPS = 300 };
	static const struct rec tail[] = {
		{ 0x1001, 0x1005, 0 },		/* je taken: 0x1000.. again, shorter */
		{ 0x1005, KENTRY, 0 },		/* interrupt before the nop */
		{ 0x1006, KENTRY, 0 },		/* syscall */
		{ 0x1008, 0x1000, 0 },		/* ret */
		{ 0x1001, KENTRY, 0 },		/* interrupt before the je: cached */
		{ 0x1001, 0x1005, 0 },		/* je taken */
		{ 0x1006, 0x1008, 0 },
		{ 0x1008, 0x1000, 0 },
		{ 0x1001, 0x1005, 0 },		/* the whole cached block again */
	};
	static const char tail_out[] =
		"blk 0x1000 2 end1\n"
		"ev2 0xffffffff81e00000@@1\n"
		"ev1 0x1005 resumed@@2\n"
		"blk 0x1005 2 end7\n"
		"ev2 0xffffffff81e00000@@2\n"
		"ev1 0x1008 resumed@@3\n"
		"blk 0x1008 1 end6\n"
		"blk 0x1000 1 end0\n"
		"ev2 0xffffffff81e00000@@4\n"
		"ev1 0x1001 resumed@@5\n"
		"blk 0x1001 1 end1\n"
		"blk 0x1005 2 end7\n"
		"blk 0x1008 1 end6\n"
		"blk 0x1000 2 end1\n";
	struct lpt_cov_image *img = image();
	size_t n = 2 * LOOPS + sizeof(tail) / sizeof(tail[0]), i, used = 0;
	struct rec *r = calloc(n, sizeof(*r));
	char *out = malloc(64 * n), *exp = malloc(64 * n);
	struct lpt_flow_block prev = { 0 };
	uint64_t prev_sum = 0;
	struct lpt_bts *d;
	int st;

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(exp);
	for (i = 0; i < LOOPS; i++) {
		r[2 * i] = (struct rec){ 0x1003, 0x1008, 0 };	/* jmp */
		r[2 * i + 1] = (struct rec){ 0x1008, 0x1000, 0 };	/* ret */
		used += (size_t)sprintf(exp + used, "blk 0x1000 3 end2\nblk 0x1008 1 end6\n");
	}
	memcpy(r + 2 * LOOPS, tail, sizeof(tail));
	/* The tail's offsets: "@@k" is record 2 * LOOPS + k. */
	for (const char *t = tail_out; *t; t++) {
		if (t[0] == '@' && t[1] == '@') {
			used += (size_t)sprintf(exp + used, "@%llu",
						(unsigned long long)(2 * LOOPS + (t[2] - '0')) *
						LPT_BTS_RECORD_SIZE);
			t += 2;
		} else {
			exp[used++] = *t;
		}
	}
	exp[used] = '\0';
	d = lpt_bts_alloc(img, r, n * sizeof(*r), CODE);
	ck_assert_ptr_nonnull(d);
	run(d, out, 64 * n);
	for (i = 0; out[i] && out[i] == exp[i]; i++)
		;
	/* The first difference, shortly (the whole output is too long for
	 * Check's message). */
	ck_assert_msg(out[i] == exp[i], "at %zu: got \"%.60s\", expected \"%.60s\"", i,
		      out + (i > 20 ? i - 20 : 0), exp + (i > 20 ? i - 20 : 0));
	lpt_bts_free(d);

	/* The previous block's lengths are still there after the next one. */
	d = lpt_bts_alloc(img, r, n * sizeof(*r), CODE);
	ck_assert_ptr_nonnull(d);
	for (st = lpt_bts_status(d); st >= 0 && !(st & LPT_FLOW_EOS);) {
		struct lpt_flow_block b;
		struct lpt_flow_event ev;
		uint64_t sum = 0;
		uint32_t k;

		if (st & LPT_FLOW_EVENT_PENDING) {
			st = lpt_bts_event(d, &ev);
			continue;
		}
		st = lpt_bts_next(d, &b);
		if (prev.lens) {
			for (k = 0; k < prev.ninsn; k++)
				sum += prev.lens[k];
			ck_assert_uint_eq(sum, prev_sum);
		}
		prev = b;
		for (k = 0, prev_sum = 0; k < b.ninsn; k++)
			prev_sum += b.lens[k];
		ck_assert_uint_eq(prev_sum, b.end_ip + b.lens[b.ninsn - 1] - b.ip);
	}
	ck_assert_int_ge(st, 0);
	lpt_bts_free(d);
	free(r);
	free(out);
	free(exp);
	lpt_cov_image_free(img);
}
END_TEST

START_TEST(test_empty_and_bad_arguments)
{
	struct lpt_cov_image *img = image();
	struct lpt_flow_block b;
	struct lpt_flow_event ev;
	struct lpt_bts *d;

	errno = 0;
	ck_assert_ptr_null(lpt_bts_alloc(NULL, "", 0, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(lpt_bts_alloc(img, NULL, 24, 0));
	d = lpt_bts_alloc(img, NULL, 0, CODE);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(lpt_bts_status(d), LPT_FLOW_EOS);
	ck_assert_int_eq(lpt_bts_next(d, &b), LPT_ERR_BAD_CONTEXT);
	ck_assert_int_eq(lpt_bts_event(d, &ev), LPT_ERR_BAD_CONTEXT);
	ck_assert_int_eq(lpt_bts_next(d, NULL), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_bts_event(NULL, &ev), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_bts_status(NULL), LPT_ERR_INVALID);
	lpt_bts_free(d);
	lpt_bts_free(NULL);
	lpt_cov_image_free(img);
}
END_TEST

/*
 * Random records (addresses in and around the code, in the kernel, and
 * anywhere): the decoder ends, every block is whole code of the image
 * ending at a record's "from", every event is one of its three.
 */
START_TEST(test_random_records)
{
	static const uint64_t pick[] = {
		0x1000, 0x1001, 0x1003, 0x1005, 0x1006, 0x1008, 0x1009, 0x0fff,
		KENTRY, 0, UINT64_MAX, 0x7fffffffffffull,
	};
	struct lpt_cov_image *img = image();
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned int round;

	for (round = 0; round < 2000; round++) {
		struct rec r[16];
		size_t n = 1 + round % 16, i, blocks = 0, events = 0;
		struct lpt_bts *d;
		int st;

		for (i = 0; i < n; i++) {
			uint64_t *f[2] = { &r[i].from, &r[i].to };

			for (unsigned int k = 0; k < 2; k++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				*f[k] = (seed >> 60) < 12 ? pick[seed >> 60] : seed;
			}
			r[i].flags = seed;
		}
		d = lpt_bts_alloc(img, r, n * sizeof(r[0]) + round % 24,
				  round % 3 ? CODE : 0);
		ck_assert_ptr_nonnull(d);
		st = lpt_bts_status(d);
		while (st >= 0 && !(st & LPT_FLOW_EOS)) {
			struct lpt_flow_block b;
			struct lpt_flow_event ev;

			ck_assert_uint_le(blocks + events, 4 * n + 1);
			if (st & LPT_FLOW_EVENT_PENDING) {
				st = lpt_bts_event(d, &ev);
				ck_assert(ev.type == LPT_FLOW_EV_ENABLED ||
					  ev.type == LPT_FLOW_EV_DISABLED ||
					  ev.type == LPT_FLOW_EV_RESYNC);
				events++;
			} else {
				uint64_t ip;
				uint32_t k;

				st = lpt_bts_next(d, &b);
				ck_assert_uint_ge(b.ninsn, 1);
				ck_assert_uint_ge(b.ip, CODE);
				for (k = 0, ip = b.ip; k + 1 < b.ninsn; k++)
					ip += b.lens[k];
				ck_assert_uint_eq(ip, b.end_ip);
				ck_assert_uint_le(b.end_ip + b.lens[b.ninsn - 1], CODE + sizeof(code));
				blocks++;
			}
		}
		ck_assert_int_ge(st, 0);
		lpt_bts_free(d);
	}
	lpt_cov_image_free(img);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bts_decode");
	TCase *tc = tcase_create("synthetic");

	tcase_add_test(tc, test_blocks_and_kernel_gap);
	tcase_add_test(tc, test_zero_records_skipped);
	tcase_add_test(tc, test_interrupt_before_insn);
	tcase_add_test(tc, test_unknown_start_and_missing_code);
	tcase_add_test(tc, test_cached_blocks);
	tcase_add_test(tc, test_empty_and_bad_arguments);
	tcase_add_test(tc, test_random_records);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
