// SPDX-License-Identifier: GPL-2.0
/*
 * bts_late: a process that creates a thread after ptcap attached
 * (97-bts-ptcap-late.sh, issue 37: ptcap --bts -p records the threads a
 * process creates after the attach). Its stdin is the test's FIFO:
 *
 *   1. it prints "ready" and waits for a byte on stdin;
 *   2. it creates a thread, which prints "tid <N>" and waits for a second
 *      byte (the test sends it once ptcap's tid<N>.bts exists), then runs
 *      late_work() (a loop of taken branches, ROUNDS times) and returns;
 *   3. the main thread ends itself (pthread_exit) once the thread exists:
 *      every thread ptcap recorded at the attach is gone while the process
 *      lives on in the new one, which ends the process when it returns.
 *
 *   bts_late [ROUNDS]     (default 1000)
 *
 * Exit status: 0; 100 if the thread could not be made or stdin ended early.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long sink;
static long rounds = 1000;

/* One byte from stdin, or the process ends with 100. */
static void wait_byte(void)
{
	char c;

	if (read(0, &c, 1) != 1)
		_exit(100);
}

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		_exit(100);
}

/* The workload the test looks for in the new thread's flow. */
__attribute__((noinline)) static long late_work(long n)
{
	long s = 1, i;

	for (i = 0; i < n; i++) {
		if ((s ^ i) & 4)
			s = s * 3 + i;
		else
			s += 7;
		sink = s;
	}
	return s;
}

static void *late_thread(void *arg)
{
	char line[64];

	(void)arg;
	snprintf(line, sizeof(line), "tid %ld\n", (long)syscall(SYS_gettid));
	say(line);
	wait_byte();
	sink = late_work(rounds);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		rounds = strtol(argv[1], NULL, 0);
	say("ready\n");
	wait_byte();
	if (pthread_create(&t, NULL, late_thread, NULL))
		return 100;
	pthread_exit(NULL);
}
