// SPDX-License-Identifier: GPL-2.0
/*
 * A small deterministic program for the PT flow test (trace_flow_test.c):
 * it is single-stepped under ptrace, its steps are fed to the packet
 * generator, and libipt must decode exactly the same instruction flow.
 *
 * It exercises every kind of user-mode control flow SDM Table 33-1 has:
 * conditional branches and loops (TNT), direct calls and jumps, indirect
 * calls through function pointers and a switch jump table (TIP), returns
 * (RET compression, and recursion deeper than the 64-entry CALL stack of
 * SDM 33.4.2.2), and system calls (TIP.PGD / TIP.PGE). No time, no
 * randomness, no input: the flow is the same on every run.
 *
 * Built with -O1 -static -no-pie so every address is fixed.
 */
#include <sys/syscall.h>
#include <unistd.h>

typedef long (*op_fn)(long a, long b);

__attribute__((noinline)) long op_add(long a, long b)
{
	return a + b;
}

__attribute__((noinline)) long op_xor(long a, long b)
{
	return a ^ (b << 1);
}

__attribute__((noinline)) long op_mul(long a, long b)
{
	return a * (b | 1);
}

static op_fn const ops[] = { op_add, op_xor, op_mul };
volatile long sink_var;

/* Deeper than the 64-entry RET compression stack. */
__attribute__((noinline)) long recurse(long n)
{
	if (n == 0)
		return 1;
	return recurse(n - 1) + (n & 3);
}

/* A switch that GCC turns into a jump table (indirect JMP). */
__attribute__((noinline)) long classify(long x)
{
	switch (x % 9) {
	case 0: return x + 1;
	case 1: return x * 3;
	case 2: return x - 7;
	case 3: return x ^ 0x55;
	case 4: return x << 2;
	case 5: return x >> 1;
	case 6: return ~x;
	case 7: return x | 0x100;
	default: return 42;
	}
}

/* The function the IP-filter configuration traces alone. */
__attribute__((noinline)) long work(long i)
{
	long acc = i;
	long j;

	for (j = 0; j < i % 13; j++) {
		acc = ops[j % 3](acc, j);
		if (acc & 4)
			acc += 3;
	}
	return acc;
}

int main(void)
{
	long sum = 0;
	long i;

	for (i = 0; i < 120; i++) {
		sum += work(i);
		sum += classify(i);
		if (i % 40 == 0)
			sum += recurse(80);
		if (i % 50 == 0)
			sum += syscall(SYS_getppid) > 0;
	}
	sink_var = sum;
	return (int)(sum & 0x3f);
}
