// SPDX-License-Identifier: GPL-2.0
/*
 * pt_flow_threads: a deterministic two-threaded program whose trace is many
 * times a small per-thread buffer (issue 27 section 1, 86-ptcap-hold.sh):
 * the main thread and one more each run pt_flow_long's loop (conditional
 * branches, indirect calls, now and then a system call) for ROUNDS rounds,
 * the second with other operands. Their user-mode flows do not depend on
 * timing: the main thread waits for the second's work in one read() of a
 * pipe (the same instructions whether it blocks or not); the second then
 * ends itself with the exit system call, its last user instruction, and
 * the main thread waits for that end in one FUTEX_WAIT on the word the
 * kernel clears and wakes at the thread's exit (set_tid_address(2)),
 * issued by an inline SYSCALL whose result no branch reads (the same
 * instructions whether the thread is gone already or not). So no join
 * loop and no futex retry enters either flow, and the process's
 * exit_group() never cuts the second thread short: a thread held for its
 * reader (Documentation/pt.rst, "Continuous mode: the hold") after the
 * write() once lost the instructions up to a pause() that way.
 *
 *   pt_flow_threads [ROUNDS]     (default 2000)
 *
 * Exit status: the main thread's sum modulo 64; 100 if the thread or the
 * pipe could not be made.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pt_flow_ops.h"

static volatile long sink_var[2];
static long rounds;
static int done_pipe[2];
/* The second thread's tid until it has exited, then 0 (CLONE_CHILD_CLEARTID). */
static volatile int second_tid;
static int second_tid_set;	/* the same tid, never cleared */

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

	/* The kernel clears second_tid and wakes its futex when we exit. */
	second_tid_set = (int)syscall(SYS_set_tid_address, &second_tid);
	second_tid = second_tid_set;
	sink_var[1] = work((long)arg);
	if (write(done_pipe[1], &c, 1) != 1)
		_exit(101);
	/* The thread alone ends; its last user instruction is this SYSCALL. */
	syscall(SYS_exit, 0);
	return NULL;
}

/*
 * Wait until the second thread has exited: FUTEX_WAIT on second_tid while
 * it still holds @tid. Returns at once (EAGAIN) if the thread is gone
 * already, else at the kernel's wake-up; the result is not looked at, so
 * the user-mode flow is the same either way.
 */
static void wait_second(int tid)
{
	register long r10 __asm__("r10") = 0;
	long ret = SYS_futex;

	__asm__ volatile("syscall"
			 : "+a"(ret)
			 : "D"(&second_tid), "S"((long)FUTEX_WAIT), "d"((long)tid), "r"(r10)
			 : "rcx", "r11", "memory");
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
	wait_second(second_tid_set);
	return (int)(sink_var[0] & 0x3f);
}
