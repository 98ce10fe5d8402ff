// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap_hello: a small real program for ptcap to trace in the VM: loops,
 * calls and branches (TNT, TIP, FUP material on hardware), then prints.
 * Exit status: the argument, if any (checks that ptcap passes it on).
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned int __attribute__((noinline)) step(unsigned int x)
{
	return x & 1 ? 3 * x + 1 : x / 2;
}

int main(int argc, char **argv)
{
	unsigned long total = 0;
	unsigned int n, x;

	for (n = 1; n < 200; n++)
		for (x = n; x != 1; x = step(x))
			total++;
	printf("ptcap_hello: %lu steps\n", total);
	return argc > 1 ? atoi(argv[1]) : 0;
}
