// SPDX-License-Identifier: GPL-2.0
/*
 * A real JIT as a liblwp client (issue 18.3): libgccjit (Debian
 * libgccjit-12-dev) compiles at run time
 *
 *	int divide_all(const int *a, const int *d, int n, int *out)
 *	{
 *		int i, sum = 0;
 *
 *		LWPINS  $PHASE_SITE, PHASE_START (Data1), n (Data2)   -> CF
 *		for (i = 0; i < n; i++) {
 *			LWPVAL $VAL_SITE, d[i] (Data1), i (Data2)
 *			out[i] = a[i] / d[i];
 *			sum += out[i];
 *		}
 *		LWPINS  $PHASE_SITE, PHASE_END, n
 *		return sum;
 *	}
 *
 * Each LWP instruction is an extended asm statement
 * (gcc_jit_block_add_extended_asm) whose template is the code
 * lwp_jit_encode() returns for the session's backend, as .byte directives:
 * the call sequence on the emulation, the instruction itself on LWP
 * hardware. The operands are pinned by constraints to the registers the
 * encoded instruction names (Data1 "a" = EAX, Data2 "d" = EDX); LWPINS's
 * CF comes back through the flag output "=@ccc". The sequence is
 * position-independent, so the assembler may place it anywhere.
 *
 * The test checks the records against the values the function was given:
 * with EventInterval1 = 0 the histogram of the sampled divisors (Data1 of
 * the EventId 1 records) equals the histogram of d[], Data2 runs 0..n-1,
 * all samples come from one InstructionAddress; the two phase markers
 * (EventId 255) frame them; with EventInterval1 = 9 every tenth divisor is
 * sampled (43724 §5.3: a record after interval + 1 events).
 * Documentation/liblwp.rst, "A JIT client: libgccjit", walks through it.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libgccjit.h>

#include <lwpt/lwp.h>
#include "tests/check_run.h"

#define VAL_SITE	0x0001u	/* Flags of the LWPVAL records */
#define PHASE_SITE	0x0002u	/* Flags of the LWPINS records */
#define PHASE_START	1u
#define PHASE_END	2u
#define N		10000
#define MAX_DIV		8

typedef int (*divide_all_fn)(const int *a, const int *d, int n, int *out);

/* ---- The example: what a JIT author copies ------------------------------- */

/*
 * Add the LWP instruction @op (Data1 in EAX, Data2 in EDX, 32-bit, Flags =
 * @imm) to @block as extended asm: the bytes lwp_jit_encode() gives for
 * session @s. With @cf (LWPINS), CF is stored into it.
 */
static int add_lwp(gcc_jit_block *block, struct lwp_session *s, uint32_t op, uint32_t imm,
		   gcc_jit_rvalue *data1, gcc_jit_rvalue *data2, gcc_jit_lvalue *cf)
{
	struct lwp_insn insn = {
		.op = op, .opsize = 32, .reg = LWP_REG_RDX, .rm = LWP_REG_RAX,
		.mem = { .base = LWP_REG_NONE, .index = LWP_REG_NONE, .scale = 1 },
		.imm = imm,
	};
	uint8_t code[LWP_JIT_MAX_LEN];
	char text[LWP_JIT_MAX_LEN * 5 + 8], *p = text;
	gcc_jit_extended_asm *ea;
	int len, i;

	len = lwp_jit_encode(s, &insn, NULL, code, sizeof(code));
	if (len < 0)
		return len;
	p += sprintf(p, ".byte ");
	for (i = 0; i < len; i++)
		p += sprintf(p, "%s0x%02x", i ? "," : "", code[i]);
	ea = gcc_jit_block_add_extended_asm(block, NULL, text);
	gcc_jit_extended_asm_set_volatile_flag(ea, 1);
	if (cf)
		gcc_jit_extended_asm_add_output_operand(ea, NULL, "=@ccc", cf);
	gcc_jit_extended_asm_add_input_operand(ea, NULL, "a", data1);
	gcc_jit_extended_asm_add_input_operand(ea, NULL, "d", data2);
	/* The ring is memory the program reads (lwp_read()); CF changes. */
	gcc_jit_extended_asm_add_clobber(ea, "memory");
	gcc_jit_extended_asm_add_clobber(ea, "cc");
	return 0;
}

/* Build and compile divide_all(); *@res owns the code. */
static divide_all_fn compile_divide_all(struct lwp_session *s, gcc_jit_result **res)
{
	gcc_jit_context *c = gcc_jit_context_acquire();
	gcc_jit_type *int_t = gcc_jit_context_get_type(c, GCC_JIT_TYPE_INT);
	gcc_jit_type *cint_p = gcc_jit_type_get_pointer(gcc_jit_type_get_const(int_t));
	gcc_jit_type *int_p = gcc_jit_type_get_pointer(int_t);
	gcc_jit_param *pa = gcc_jit_context_new_param(c, NULL, cint_p, "a");
	gcc_jit_param *pd = gcc_jit_context_new_param(c, NULL, cint_p, "d");
	gcc_jit_param *pn = gcc_jit_context_new_param(c, NULL, int_t, "n");
	gcc_jit_param *pout = gcc_jit_context_new_param(c, NULL, int_p, "out");
	gcc_jit_param *params[] = { pa, pd, pn, pout };
	gcc_jit_function *fn = gcc_jit_context_new_function(c, NULL, GCC_JIT_FUNCTION_EXPORTED,
							     int_t, "divide_all", 4, params, 0);
	gcc_jit_lvalue *i = gcc_jit_function_new_local(fn, NULL, int_t, "i");
	gcc_jit_lvalue *sum = gcc_jit_function_new_local(fn, NULL, int_t, "sum");
	gcc_jit_lvalue *cf = gcc_jit_function_new_local(fn, NULL, int_t, "cf");
	gcc_jit_lvalue *div, *quot;
	gcc_jit_block *entry = gcc_jit_function_new_block(fn, "entry");
	gcc_jit_block *cond = gcc_jit_function_new_block(fn, "cond");
	gcc_jit_block *body = gcc_jit_function_new_block(fn, "body");
	gcc_jit_block *done = gcc_jit_function_new_block(fn, "done");
	gcc_jit_rvalue *n = gcc_jit_param_as_rvalue(pn);
	divide_all_fn f = NULL;

	gcc_jit_context_set_int_option(c, GCC_JIT_INT_OPTION_OPTIMIZATION_LEVEL, 2);

	/* entry: sum = 0; i = 0; LWPINS phase start; */
	gcc_jit_block_add_assignment(entry, NULL, sum, gcc_jit_context_zero(c, int_t));
	gcc_jit_block_add_assignment(entry, NULL, i, gcc_jit_context_zero(c, int_t));
	if (add_lwp(entry, s, LWP_INSN_LWPINS, PHASE_SITE,
		    gcc_jit_context_new_rvalue_from_int(c, int_t, PHASE_START), n, cf))
		goto out;
	gcc_jit_block_end_with_jump(entry, NULL, cond);

	/* cond: if (i < n) body else done */
	gcc_jit_block_end_with_conditional(cond, NULL,
		gcc_jit_context_new_comparison(c, NULL, GCC_JIT_COMPARISON_LT,
					       gcc_jit_lvalue_as_rvalue(i), n), body, done);

	/* body: LWPVAL d[i], i; out[i] = a[i] / d[i]; sum += out[i]; i++ */
	div = gcc_jit_context_new_array_access(c, NULL, gcc_jit_param_as_rvalue(pd),
					       gcc_jit_lvalue_as_rvalue(i));
	if (add_lwp(body, s, LWP_INSN_LWPVAL, VAL_SITE, gcc_jit_lvalue_as_rvalue(div),
		    gcc_jit_lvalue_as_rvalue(i), NULL))
		goto out;
	quot = gcc_jit_context_new_array_access(c, NULL, gcc_jit_param_as_rvalue(pout),
						gcc_jit_lvalue_as_rvalue(i));
	gcc_jit_block_add_assignment(body, NULL, quot,
		gcc_jit_context_new_binary_op(c, NULL, GCC_JIT_BINARY_OP_DIVIDE, int_t,
			gcc_jit_lvalue_as_rvalue(gcc_jit_context_new_array_access(c, NULL,
				gcc_jit_param_as_rvalue(pa), gcc_jit_lvalue_as_rvalue(i))),
			gcc_jit_lvalue_as_rvalue(div)));
	gcc_jit_block_add_assignment_op(body, NULL, sum, GCC_JIT_BINARY_OP_PLUS,
					gcc_jit_lvalue_as_rvalue(quot));
	gcc_jit_block_add_assignment_op(body, NULL, i, GCC_JIT_BINARY_OP_PLUS,
					gcc_jit_context_one(c, int_t));
	gcc_jit_block_end_with_jump(body, NULL, cond);

	/* done: LWPINS phase end; return sum */
	if (add_lwp(done, s, LWP_INSN_LWPINS, PHASE_SITE,
		    gcc_jit_context_new_rvalue_from_int(c, int_t, PHASE_END), n, cf))
		goto out;
	gcc_jit_block_end_with_return(done, NULL, gcc_jit_lvalue_as_rvalue(sum));

	*res = gcc_jit_context_compile(c);
	if (*res)
		f = (divide_all_fn)gcc_jit_result_get_code(*res, "divide_all");
	else
		fprintf(stderr, "libgccjit: %s\n", gcc_jit_context_get_first_error(c));
out:
	gcc_jit_context_release(c);
	return f;
}

/* ---- The test ------------------------------------------------------------ */

static int a[N], d[N], out[N];
static struct lwp_event ev[N + 16];

static void check_run(int32_t interval)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	gcc_jit_result *res = NULL;
	divide_all_fn f;
	unsigned int want[MAX_DIV + 1] = { 0 }, got[MAX_DIV + 1] = { 0 };
	uint64_t val_ip = 0;
	int i, sum = 0, nval = 0;
	ssize_t n, k;

	cfg.buffer_records = 2 * N;
	cfg.interval[LWP_EVENT_VAL] = interval;
	ck_assert_int_eq(lwp_open(&s, &cfg), 0);
	f = compile_divide_all(s, &res);
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < N; i++) {
		a[i] = 1000 + i;	/* the sum stays below INT_MAX */
		d[i] = 1 + (i * 7 + i / 13) % MAX_DIV;
		if (i % (interval + 1) == interval)
			want[d[i]]++;
		sum += a[i] / d[i];
	}
	ck_assert_int_eq(lwp_start(s), 0);
	ck_assert_int_eq(f(a, d, N, out), sum);
	ck_assert_int_eq(lwp_stop(s), 0);
	n = lwp_read(s, ev, N + 16);
	ck_assert_int_ge(n, 2);

	/* Phase markers first and last (Figure 2-8). */
	ck_assert_uint_eq(ev[0].event_id, LWP_EVENT_INS);
	ck_assert_uint_eq(lwp_event_value(&ev[0]), PHASE_START);
	ck_assert_uint_eq(lwp_event_reg(&ev[0]), N);
	ck_assert_uint_eq(lwp_event_imm(&ev[0]), PHASE_SITE);
	ck_assert_uint_eq(ev[n - 1].event_id, LWP_EVENT_INS);
	ck_assert_uint_eq(lwp_event_value(&ev[n - 1]), PHASE_END);
	ck_assert_uint_ne(ev[0].inst_addr, ev[n - 1].inst_addr);

	/* Samples (Figure 2-2): the divisor, its index, one site. */
	for (k = 1; k < n - 1; k++) {
		uint32_t v = lwp_event_value(&ev[k]);

		ck_assert_uint_eq(ev[k].event_id, LWP_EVENT_VAL);
		ck_assert_uint_eq(lwp_event_imm(&ev[k]), VAL_SITE);
		ck_assert_uint_le(v, MAX_DIV);
		ck_assert_uint_eq(v, (uint32_t)d[lwp_event_reg(&ev[k])]);
		ck_assert_uint_eq(lwp_event_reg(&ev[k]) % (uint64_t)(interval + 1),
				  (uint64_t)interval);
		if (!val_ip)
			val_ip = ev[k].inst_addr;
		ck_assert_uint_eq(ev[k].inst_addr, val_ip);
		got[v]++;
		nval++;
	}
	ck_assert_int_eq(nval, N / (interval + 1));
	ck_assert_mem_eq(got, want, sizeof(got));
	ck_assert_uint_eq(lwp_missed(s), 0);
	gcc_jit_result_release(res);
	lwp_close(s);
}

START_TEST(test_gccjit_every_divisor)
{
	check_run(0);
}
END_TEST

START_TEST(test_gccjit_every_tenth_divisor)
{
	check_run(9);
}
END_TEST

/*
 * make SANITIZE=1: libgccjit keeps some of its compiler's allocations for
 * the life of the process; LeakSanitizer reads this list (unused otherwise).
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libgccjit.so\n";
}

static Suite *gccjit_suite(void)
{
	Suite *s = suite_create("lwp_gccjit");
	TCase *tc = tcase_create("divide_all");

	/* One libgccjit compilation (runs gcc and as) per test. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_gccjit_every_divisor);
	tcase_add_test(tc, test_gccjit_every_tenth_divisor);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(gccjit_suite(), CK_NORMAL);
}
