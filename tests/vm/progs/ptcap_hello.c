// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap_hello: a small real program for ptcap to trace in the VM: loops,
 * calls and branches (TNT, TIP, FUP material on hardware), then prints.
 * Exit status: the argument, if any (checks that ptcap passes it on).
 * "ptcap_hello -t N": the same work in 3 more threads (per-thread capture).
 * "ptcap_hello -a": print the address of step() and exit (a static, non-PIE
 * program: the same in every run; for ptcap --stop and --filter ranges).
 * "ptcap_hello [-t] -l ROUNDS": a running program to attach to (ptcap -p,
 * -t): print "ready" once every thread runs, then each thread does the
 * work ROUNDS times (0: until killed), 20 ms apart.
 * "ptcap_hello -s ...": the lighter work (shorter single-stepping in the VM).
 * "ptcap_hello -u N": single-threaded, N rounds of a lighter work, each
 * followed by SIGUSR2 to the parent and a 300 ms sleep (ptcap --snapshot
 * takes a snapshot then, at the same point of the program's flow in every
 * run).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned int __attribute__((noinline)) step(unsigned int x)
{
	return x & 1 ? 3 * x + 1 : x / 2;
}

static unsigned int limit = 200;	/* -u: a lighter round */

static void *work(void *arg)
{
	unsigned long *total = arg;
	unsigned int n, x;

	for (n = 1; n < limit; n++)
		for (x = n; x != 1; x = step(x))
			(*total)++;
	return NULL;
}

static int rounds = 1;			/* -l: 0 = forever */
static pthread_barrier_t started;	/* -l: every thread runs */

static void *worker(void *arg)
{
	struct timespec ts = { 0, 20000000 };
	int r;

	/* -l: the main thread says "ready" once all are past the barrier. */
	if (rounds != 1 && pthread_barrier_wait(&started) == PTHREAD_BARRIER_SERIAL_THREAD) {
		printf("ready\n");
		fflush(stdout);
	}
	for (r = 0; !rounds || r < rounds; r++) {
		work(arg);
		if (rounds != 1)
			nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long total[4] = { 0 };
	pthread_t t[3];
	int i, nt = 0;

	if (argc > 1 && !strcmp(argv[1], "-s")) {
		limit = 30;
		argv++;
		argc--;
	}
	if (argc > 1 && !strcmp(argv[1], "-a")) {
		printf("%#lx\n", (unsigned long)(uintptr_t)step);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "-u")) {
		int r, nr = atoi(argv[2]);

		limit = 30;
		for (r = 0; r < nr; r++) {
			struct timespec ts = { 0, 300000000 };

			work(&total[0]);
			/* Untraced code runs at full speed on the model: wait. */
			kill(getppid(), SIGUSR2);
			nanosleep(&ts, NULL);
		}
		printf("ptcap_hello: %lu steps in %d round(s)\n", total[0], nr);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-t")) {
		nt = 3;
		argv++;
		argc--;
	}
	if (argc > 2 && !strcmp(argv[1], "-l")) {
		rounds = atoi(argv[2]);
		argv += 2;
		argc -= 2;
		if (rounds == 1)
			rounds = 2;	/* 1 means "not looping" */
		pthread_barrier_init(&started, NULL, (unsigned int)nt + 1);
	}
	for (i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, worker, &total[i + 1]))
			return 125;
	worker(&total[0]);
	for (i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("ptcap_hello: %lu steps in %d thread(s)\n", total[0], nt + 1);
	return argc > 1 ? atoi(argv[1]) : 0;
}
