// SPDX-License-Identifier: GPL-2.0
/*
 * pt_flow_threads: a deterministic two-threaded program whose trace is many
 * times a small per-thread buffer (issue 27 section 1, 86-ptcap-hold.sh):
 * the main thread and one more each run pt_flow_long's loop (conditional
 * branches, indirect calls, now and then a system call) for ROUNDS rounds,
 * the second with other operands. Their user-mode flows do not depend on
 * timing: the main thread waits for the second in one read() of a pipe
 * (the same instructions whether it blocks or not), the second then
 * blocks in pause() for good and ends with the process (exit_group()), so
 * no join loop and no futex retry enters either flow.
 *
 *   pt_flow_threads [ROUNDS]     (default 2000)
 *
 * Exit status: the main thread's sum modulo 64; 100 if the thread or the
 * pipe could not be made.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pt_flow_ops.h"

static volatile long sink_var[2];
static long rounds;
static int done_pipe[2];

/* pt_flow_long's loop, @k shifting the operand. */
__attribute__((noinline)) static long work(long k)
{
	long sum = k, i;

	for (i = 0; i < rounds; i++) {
		sum = ops[(i + k) & 3](sum, i);
		if (sum & 8)
			sum += 5;
		if ((i & 4095) == 0)
			sum += syscall(SYS_getppid) > 0;
	}
	return sum;
}

static void *second(void *arg)
{
	char c = 1;

	sink_var[1] = work((long)arg);
	if (write(done_pipe[1], &c, 1) != 1)
		_exit(101);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char c;

	rounds = argc > 1 ? atol(argv[1]) : 2000;
	if (pipe(done_pipe) || pthread_create(&t, NULL, second, (void *)1L))
		return 100;
	sink_var[0] = work(0);
	if (read(done_pipe[0], &c, 1) != 1)
		return 100;
	return (int)(sink_var[0] & 0x3f);
}
