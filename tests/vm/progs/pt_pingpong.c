// SPDX-License-Identifier: GPL-2.0
/*
 * pt_pingpong: two processes on one CPU hand a byte back and forth over two
 * pipes, so that every round trip is two context switches between them
 * (the sideband test of tests/vm/cases/80-ptcap-sim.sh).
 *
 *   pt_pingpong ROUNDS [CPU]    (CPU default 0)
 *
 * Both processes are pinned to CPU before the fork. Prints
 * "pt_pingpong: PARENT CHILD ROUNDS" (both single-threaded: pid = tid) once
 * the rounds are done; exits 0, or 1 on any error.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int bounce(int in, int out, long rounds, int first)
{
	char c = 'x';
	long i;

	for (i = 0; i < rounds; i++) {
		if (first && write(out, &c, 1) != 1)
			return 1;
		if (read(in, &c, 1) != 1)
			return 1;
		if (!first && write(out, &c, 1) != 1)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 100;
	int cpu = argc > 2 ? atoi(argv[2]) : 0;
	int ab[2], ba[2], st;
	cpu_set_t set;
	pid_t child;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (rounds <= 0 || sched_setaffinity(0, sizeof(set), &set) ||
	    pipe(ab) || pipe(ba)) {
		perror("pt_pingpong");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("pt_pingpong: fork");
		return 1;
	}
	if (!child)
		_exit(bounce(ab[0], ba[1], rounds, 0));
	if (bounce(ba[0], ab[1], rounds, 1) || waitpid(child, &st, 0) != child ||
	    !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "pt_pingpong: a round failed\n");
		return 1;
	}
	printf("pt_pingpong: %d %d %ld\n", (int)getpid(), (int)child, rounds);
	return 0;
}
