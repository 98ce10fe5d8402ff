// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptflow_calls_block() (tools/ptflow/ptflow_calls.h): a run
 * of instructions handed to the call tracker as one block gives the same
 * --calls lines, --report table and --export=chrome timeline, byte for
 * byte, as the same instructions handed one by one to
 * ptflow_calls_insn() (the libipt engine's path), and so do arrays of
 * such blocks handed to ptflow_calls_blocks() (the flow engine's
 * lpt_flow_blocks(): a far transfer through ptflow_calls_block() as
 * ptflow_flow.c does), on pseudo-random blocks
 * that stay in one function, cross from one function into the next, run
 * through addresses without a symbol, and end in calls, returns, jumps and
 * far transfers, with time advancing between blocks and events
 * (disabled, enabled, overflow, gap) between them.
 */
#include "tools/ptflow/ptflow_calls.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/check_run.h"

/* Functions: [0x1000, 0x1010) f1, [0x1010, 0x1040) f2, [0x2000, 0x2100)
 * g; 0x3000-0x3040 has no symbol. */
static const struct {
	const char *name;
	uint64_t start, size;
} funcs[] = {
	{ "f1", 0x1000, 0x10 }, { "f2", 0x1010, 0x30 }, { "g", 0x2000, 0x100 },
};
static const uint64_t starts[] = {
	0x1000, 0x1008, 0x100c, 0x1010, 0x1030, 0x2000, 0x20f0, 0x3000, 0x3020,
};

/* One tracker writing to memory. */
struct side {
	char *calls, *report, *json;
	size_t calls_len, report_len, json_len;
	FILE *out;
	struct ptflow_calls c;
	struct ptflow_clock clk;
};

static void side_open(struct side *s, struct ptflow_sym *sym, bool chrome)
{
	memset(s, 0, sizeof(*s));
	s->out = open_memstream(&s->calls, &s->calls_len);
	ck_assert_ptr_nonnull(s->out);
	ptflow_clock_init(&s->clk, 1000000000ull, 0);
	s->c.out = s->out;
	s->c.sym = sym;
	s->c.names = sym;
	s->c.clock = &s->clk;
	s->c.report = ptflow_report_alloc();
	ck_assert_ptr_nonnull(s->c.report);
	if (chrome) {
		s->c.chrome = ptflow_chrome_alloc();
		ck_assert_ptr_nonnull(s->c.chrome);
	}
	ck_assert_int_eq(ptflow_calls_begin(&s->c, "tid 1", 1, 1), 0);
}

static void side_close(struct side *s)
{
	FILE *f;

	ck_assert_int_eq(ptflow_calls_end(&s->c), 0);
	fclose(s->out);
	f = open_memstream(&s->report, &s->report_len);
	ck_assert_ptr_nonnull(f);
	ptflow_report_print(s->c.report, f, "tid 1", s->clk.hz);
	fclose(f);
	if (s->c.chrome) {
		f = open_memstream(&s->json, &s->json_len);
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(ptflow_chrome_write(s->c.chrome, f), 0);
		fclose(f);
		ptflow_chrome_free(s->c.chrome);
	}
	ptflow_report_free(s->c.report);
	ptflow_calls_fini(&s->c);
}

static void side_free(struct side *s)
{
	free(s->calls);
	free(s->report);
	free(s->json);
}

static uint32_t rnd(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return (*state >> 8) & 0xffffff;
}

/* Direct or indirect call (the tracker treats both alike). */
static bool rnd_cls_ind(uint32_t n)
{
	return n & 1;
}

/* Blocks for ptflow_calls_blocks(), their lengths kept until handed. */
struct pend {
	struct lpt_flow_block b[64];
	uint8_t lens[64][16];
	size_t n;
};

/* The pending blocks through ptflow_calls_blocks(), a far transfer's
 * through ptflow_calls_block() (its bytes: INT n, IRET, far JMP). */
static void pend_flush(struct ptflow_calls *c, struct pend *p)
{
	size_t i = 0;

	while (i < p->n) {
		i += ptflow_calls_blocks(c, p->b + i, p->n - i);
		if (i < p->n) {
			const struct lpt_flow_block *k = &p->b[i];
			struct pt_insn last;

			ck_assert_uint_eq(k->end, LPT_FLOW_END_FAR);
			memset(&last, 0, sizeof(last));
			last.mode = ptem_64bit;
			last.ip = k->end_ip;
			last.size = k->lens[k->ninsn - 1];
			last.iclass = (enum pt_insn_class)k->query_offset;
			last.raw[0] = last.iclass == ptic_far_call ? 0xcd :
				      last.iclass == ptic_far_return ? 0xcf : 0xea;
			ptflow_calls_block(c, k->ip, k->lens, k->ninsn, &last,
					   k->end_tsc);
			i++;
		}
	}
	p->n = 0;
}

/* A block as the flow engine gives it (@cls: its last instruction's). */
static void pend_add(struct ptflow_calls *c, struct pend *p, uint64_t ip,
		     const uint8_t *lens, uint32_t n, enum pt_insn_class cls,
		     uint64_t tsc)
{
	struct lpt_flow_block *k;
	uint64_t last = ip;

	if (p->n == 64)
		pend_flush(c, p);
	k = &p->b[p->n];
	memset(k, 0, sizeof(*k));
	memcpy(p->lens[p->n], lens, n);
	for (uint32_t i = 0; i + 1 < n; i++)
		last += lens[i];
	k->ip = ip;
	k->end_ip = last;
	k->lens = p->lens[p->n];
	k->ninsn = n;
	k->mode = 64;
	k->tsc = k->end_tsc = tsc;
	switch (cls) {
	case ptic_call:
		k->end = rnd_cls_ind(n) ? LPT_FLOW_END_CALL_IND : LPT_FLOW_END_CALL;
		break;
	case ptic_return:
		k->end = LPT_FLOW_END_RET;
		break;
	case ptic_jump:
		k->end = LPT_FLOW_END_JMP;
		break;
	case ptic_cond_jump:
		k->end = LPT_FLOW_END_JCC;
		break;
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		k->end = LPT_FLOW_END_FAR;
		k->query_offset = cls;	/* for pend_flush() */
		break;
	default:
		k->end = LPT_FLOW_END_NONE;
		break;
	}
	p->n++;
}

static void run_random(uint32_t seed, bool chrome, bool with_sym)
{
	struct ptflow_sym *sym = NULL;
	struct side a, b, d;
	struct pend *p = calloc(1, sizeof(*p));
	uint64_t tsc = 1000;
	uint32_t st = seed;

	ck_assert_ptr_nonnull(p);

	if (with_sym) {
		sym = ptflow_sym_alloc(NULL, "test");
		ck_assert_ptr_nonnull(sym);
		for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
			ck_assert_int_eq(ptflow_sym_add_symbol(sym, funcs[i].name,
					 funcs[i].start, funcs[i].size, "test.so"), 0);
	}
	side_open(&a, sym, chrome);
	side_open(&b, sym, chrome);
	side_open(&d, sym, chrome);
	for (int k = 0; k < 2000; k++) {
		uint8_t lens[40];
		uint32_t n = 1 + rnd(&st) % 12, r = rnd(&st) % 16;
		uint64_t ip = starts[rnd(&st) % (sizeof(starts) / sizeof(starts[0]))];
		uint64_t first;
		struct pt_insn insn;

		if (r == 0) {	/* an event between blocks */
			static const enum ptflow_calls_event evs[] = {
				PTFLOW_CALLS_DISABLED, PTFLOW_CALLS_ENABLED,
				PTFLOW_CALLS_RESUMED, PTFLOW_CALLS_OVERFLOW,
				PTFLOW_CALLS_INTERRUPT, PTFLOW_CALLS_GAP,
			};
			enum ptflow_calls_event ev = evs[rnd(&st) % 6];
			uint64_t eip = rnd(&st) % 2 ? ip : 0;

			ptflow_calls_event(&a.c, ev, eip, tsc, "lost");
			ptflow_calls_event(&b.c, ev, eip, tsc, "lost");
			pend_flush(&d.c, p);
			ptflow_calls_event(&d.c, ev, eip, tsc, "lost");
			continue;
		}
		first = ip;
		memset(&insn, 0, sizeof(insn));
		insn.mode = ptem_64bit;
		for (uint32_t i = 0; i < n; i++)
			lens[i] = (uint8_t)(1 + rnd(&st) % 5);
		/* one by one */
		for (uint32_t i = 0; i < n; i++) {
			insn.ip = ip;
			insn.size = lens[i];
			insn.iclass = ptic_other;
			if (i + 1 == n) {
				static const enum pt_insn_class cls[] = {
					ptic_other, ptic_call, ptic_return,
					ptic_jump, ptic_cond_jump, ptic_far_call,
					ptic_far_return, ptic_far_jump,
				};

				insn.iclass = cls[r % 8];
				insn.raw[0] = insn.iclass == ptic_far_call ? 0xcd :
					      insn.iclass == ptic_far_return ? 0xcf : 0xea;
				break;
			}
			ptflow_calls_insn(&a.c, &insn, tsc);
			ip += lens[i];
		}
		ptflow_calls_insn(&a.c, &insn, tsc);
		/* as one block */
		ptflow_calls_block(&b.c, first, lens, n, &insn, tsc);
		/* in arrays of blocks */
		pend_add(&d.c, p, first, lens, n, insn.iclass, tsc);
		tsc += rnd(&st) % 3 ? rnd(&st) % 50 : 0;
	}
	pend_flush(&d.c, p);
	side_close(&a);
	side_close(&b);
	side_close(&d);
	ck_assert_uint_eq(a.calls_len, d.calls_len);
	ck_assert_mem_eq(a.calls, d.calls, a.calls_len);
	ck_assert_str_eq(a.report, d.report);
	if (chrome)
		ck_assert_str_eq(a.json, d.json);
	side_free(&d);
	free(p);
	ck_assert_uint_eq(a.calls_len, b.calls_len);
	ck_assert_mem_eq(a.calls, b.calls, a.calls_len);
	ck_assert_str_eq(a.report, b.report);
	if (chrome)
		ck_assert_str_eq(a.json, b.json);
	ck_assert_uint_gt(a.calls_len, 1000);
	side_free(&a);
	side_free(&b);
	ptflow_sym_free(sym);
}

START_TEST(test_block_as_insns)
{
	for (uint32_t seed = 1; seed <= 20; seed++)
		run_random(seed, seed % 2, true);
}
END_TEST

START_TEST(test_block_no_symbols)
{
	for (uint32_t seed = 21; seed <= 30; seed++)
		run_random(seed, true, false);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptflow_calls_block");
	TCase *tc = tcase_create("same");

	tcase_add_test(tc, test_block_as_insns);
	tcase_add_test(tc, test_block_no_symbols);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
