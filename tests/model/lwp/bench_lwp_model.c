// SPDX-License-Identifier: GPL-2.0
/*
 * Throughput of the LWP model's hot paths: XOP decode, LWPINS, LWPVAL that
 * does not store, instructions-retired counting. Prints ns per operation;
 * never fails on a figure (machines are shared and noisy).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "model/lwp/lwp_xop.h"
#include "tests/model/lwp/lwp_test_env.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define N 2000000

int main(void)
{
	/* lwpins $0x1234,(%rbx,%rcx,4),%r9d */
	static const uint8_t insn[] = { 0x8f, 0xea, 0x30, 0x12, 0x04, 0x8b, 0x34, 0x12, 0, 0 };
	struct test_env *e = env_new(&lwp_model_profile_fx8150);
	struct lwp_xop_regs regs = { .rip = 0x401000 };
	struct lwp_xop_insn_info info;
	struct lwp_model_operand op = { .is_mem = false, .value = 1 };
	volatile unsigned int sink = 0;
	double t;
	long i;

	env_lwpcb(e, ENV_LWPCB, LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_IRE, 32 * 1024,
		  ENV_RING);
	env_event(e, ENV_LWPCB, 1, 0x1FFFFFF, 0x1FFFFFF);
	env_event(e, ENV_LWPCB, 2, 0x1FFFFFF, 0x1FFFFFF);
	if (lwp_model_llwpcb(&e->m, ENV_LWPCB, 64).exc)
		return 1;

	t = now_ns();
	for (i = 0; i < N; i++)
		sink += lwp_xop_decode(insn, sizeof(insn), &regs, &info) + info.length;
	printf("lwp_xop_decode (LWPINS, SIB):   %6.1f ns/insn\n", (now_ns() - t) / N);

	t = now_ns();
	for (i = 0; i < N; i++)
		sink += lwp_model_lwpins(&e->m, 0x401000, 2, op, 3, 64).cf;
	printf("lwp_model_lwpins (ring wraps):  %6.1f ns/record\n", (now_ns() - t) / N);

	t = now_ns();
	for (i = 0; i < N; i++)
		sink += lwp_model_lwpval(&e->m, 0x401000, 2, op, 3, 64).stored;
	printf("lwp_model_lwpval (no store):    %6.1f ns/insn\n", (now_ns() - t) / N);

	t = now_ns();
	for (i = 0; i < N; i++)
		sink += lwp_model_insn_retired(&e->m, 0x401000 + i).stored;
	printf("lwp_model_insn_retired:         %6.1f ns/insn\n", (now_ns() - t) / N);
	(void)sink;
	env_free(e);
	return 0;
}
