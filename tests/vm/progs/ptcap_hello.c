// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap_hello: a small real program for ptcap to trace in the VM: loops,
 * calls and branches (TNT, TIP, FUP material on hardware), then prints.
 * Exit status: the argument, if any (checks that ptcap passes it on).
 * "ptcap_hello -t N": the same work in 3 more threads (per-thread capture).
 * "ptcap_hello -a": print the address of step() and exit (a static, non-PIE
 * program: the same in every run; for ptcap --stop and --filter ranges).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned int __attribute__((noinline)) step(unsigned int x)
{
	return x & 1 ? 3 * x + 1 : x / 2;
}

static void *work(void *arg)
{
	unsigned long *total = arg;
	unsigned int n, x;

	for (n = 1; n < 200; n++)
		for (x = n; x != 1; x = step(x))
			(*total)++;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long total[4] = { 0 };
	pthread_t t[3];
	int i, nt = 0;

	if (argc > 1 && !strcmp(argv[1], "-a")) {
		printf("%#lx\n", (unsigned long)(uintptr_t)step);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-t")) {
		nt = 3;
		argv++;
		argc--;
	}
	for (i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, work, &total[i + 1]))
			return 125;
	work(&total[0]);
	for (i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("ptcap_hello: %lu steps in %d thread(s)\n", total[0], nt + 1);
	return argc > 1 ? atoi(argv[1]) : 0;
}
