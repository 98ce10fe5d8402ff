// SPDX-License-Identifier: GPL-2.0
/*
 * pt_ptwrite: a program that executes PTWRITE (SDM Vol. 2 "PTWRITE", F3
 * [REX.W] 0F AE /4; SDM 33.2.2) for the PTW flow test (64-pt-ptw-cyc.sh).
 *
 *   pt_ptwrite          run the workload: a loop whose iterations execute
 *                       PTWRITE r64, r32, m64 and m32 with values that
 *                       depend on the iteration, between branches; then
 *                       print every value written, one per line as "IP
 *                       SIZE VALUE" (IP in 16 hex digits as ptflow prints
 *                       it, SIZE in bytes, VALUE in hex): the ground truth
 *                       of the PTW packets
 *   pt_ptwrite probe    execute one PTWRITE and say whether the CPU raised
 *                       #UD (SIGILL) or executed it
 *
 * The PTWRITE addresses come from the labels of the asm statements, so the
 * program names the instruction each value belongs to. Static, not PIE.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static sigjmp_buf probe_env;

static void on_sigill(int sig)
{
	(void)sig;
	siglongjmp(probe_env, 1);
}

/* PTWRITE r64 / r32 / m64 / m32 (GNU as knows the mnemonic). */
#define PTW_ASM(label, insn, ...) \
	__asm__ volatile(".globl " label "\n" label ":\n\t" insn :: __VA_ARGS__ : "memory")

extern const char ptw_r64[], ptw_r32[], ptw_m64[], ptw_m32[];

__attribute__((noinline, noclone))
static void ptwrites(uint64_t v, volatile uint64_t *m64, volatile uint32_t *m32)
{
	PTW_ASM("ptw_r64", "ptwriteq %0", "r"(v));
	PTW_ASM("ptw_r32", "ptwritel %0", "r"((uint32_t)(v >> 3)));
	*m64 = v * 0x9e3779b97f4a7c15ull;
	PTW_ASM("ptw_m64", "ptwriteq %0", "m"(*m64));
	*m32 = (uint32_t)v ^ 0xa5a5a5a5u;
	PTW_ASM("ptw_m32", "ptwritel %0", "m"(*m32));
}

/* The ground truth, printed once at the end (cheap to single-step). */
static char out[4096];
static size_t out_len;

/* @v in hex, at least @digits digits. */
static void put_hex(uint64_t v, int digits)
{
	char d[16];
	int n = 0;

	do {
		d[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v || n < digits);
	while (n && out_len < sizeof(out))
		out[out_len++] = d[--n];
}

static void put_line(const char *ip, unsigned int size, uint64_t v)
{
	put_hex((uintptr_t)ip, 16);
	out[out_len++] = ' ';
	out[out_len++] = (char)('0' + size);
	out[out_len++] = ' ';
	put_hex(v, 1);
	out[out_len++] = '\n';
}

int main(int argc, char **argv)
{
	static volatile uint64_t m64;
	static volatile uint32_t m32;
	uint64_t v, sum = 0;
	int i;

	if (argc > 1 && !strcmp(argv[1], "probe")) {
		signal(SIGILL, on_sigill);
		if (sigsetjmp(probe_env, 1)) {
			printf("ptwrite: #UD\n");
			return 1;
		}
		ptwrites(1, &m64, &m32);
		printf("ptwrite: executed\n");
		return 0;
	}
	for (i = 0; i < 24; i++) {
		v = (uint64_t)i * 0x0123456789abcdefull + (uint64_t)i;
		if (i % 3 == 0)
			sum += v;
		else
			sum ^= v >> 7;
		if (i % 4 == 1)
			continue;	/* no PTWRITE on these iterations */
		ptwrites(v, &m64, &m32);
		put_line(ptw_r64, 8, v);
		put_line(ptw_r32, 4, (uint32_t)(v >> 3));
		put_line(ptw_m64, 8, v * 0x9e3779b97f4a7c15ull);
		put_line(ptw_m32, 4, (uint32_t)v ^ 0xa5a5a5a5u);
	}
	if (write(1, out, out_len) != (ssize_t)out_len)
		return 125;
	return (int)(sum & 0x3f);
}
