// SPDX-License-Identifier: GPL-2.0
/*
 * The gcov oracle's program (issue 35, Documentation/ptcov.rst "lcov"):
 * loops, a switch, function pointers, recursion, early returns and a
 * second source file (cov_prog2.c). Deterministic; the input is argv[1].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int classify(int c);
int fold(const int *v, int n, int (*op)(int, int));

static int add(int a, int b)
{
	return a + b;
}

static int mul(int a, int b)
{
	if (a == 0)
		return 0;	/* early return */
	return (a * b) % 1000003;
}

static int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

static int never(int x)
{
	return x * 3;
}

int main(int argc, char **argv)
{
	const char *in = argc > 1 ? argv[1] : "";
	int v[64], n = 0, r = 0;
	int (*op)(int, int) = add;

	if (argc > 2)
		return never(argc);
	for (size_t i = 0; in[i] && n < 64; i++)
		v[n++] = classify(in[i]);
	switch (n % 4) {
	case 0:
		op = mul;
		break;
	case 1:
		r += 7;
		/* fall through */
	case 2:
		r += fib(n + 3);
		break;
	default:
		r -= 1;
	}
	for (int i = 0; i < n; i++) r += v[i] & 1;
	r += fold(v, n, op);
	printf("%d\n", r);
	return 0;
}
