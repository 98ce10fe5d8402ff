// SPDX-License-Identifier: GPL-2.0
/*
 * pt_flow_sig: pt_flow_threads' two threads, each interrupted by timer
 * signals whose handler runs code (issue 39 item 1, 87-ptcap-hold-sig.sh):
 * a held thread (Documentation/pt.rst, "Continuous mode: the hold") takes
 * SIGALRM and SIGPROF while it waits in the kernel and while it runs.
 *
 *   pt_flow_sig [-c] [-i] ROUNDS USEC9
 *   pt_flow_sig -r
 *
 * USEC9 is an interval in microseconds written with exactly nine digits
 * (000001000 is 1 kHz), read by a loop whose flow does not depend on the
 * digits: a ground truth with timers that never fire (999999999) and a
 * capture with 1 kHz ones then run the same instructions, and have the
 * same stack layout (glibc's start-up takes page-crossing paths by where
 * its strings lie). Each thread arms two timers of USEC9 microseconds
 * (0: none) before its
 * loop and disarms them after it: by default its own (timer_create(2)
 * with SIGEV_THREAD_ID) on CLOCK_MONOTONIC for SIGALRM, which also lands
 * while the thread sleeps, and on CLOCK_THREAD_CPUTIME_ID for SIGPROF;
 * with -i the process's ITIMER_REAL and ITIMER_PROF (setitimer(2), armed
 * by the main thread only, as the reproducer). A thread's 16th
 * signal of a timer disarms it until the thread's next 128 rounds arm it
 * again (SIG_BUDGET, REARM_ROUNDS: the number of signals follows the
 * thread's progress, not the wall clock, so a slow host does not take
 * more of them). Both handlers are
 * installed with SA_RESTART and a restorer of our own, in section
 * "sigtext" with the handler: -r prints that section's bounds ("START
 * END", hex), so that a test drops the signal's instructions from a flow.
 * -c prints the number of signals handled at the end (stderr; another
 * flow). What is left does not depend on where the signals landed, but for a
 * SYSCALL that a signal interrupted and SA_RESTART executes again (and an
 * interrupted REP string instruction that a ground truth prints twice):
 * consecutive repeats of one address are folded (87-ptcap-hold-sig.sh).
 *
 * Exit status: the main thread's sum modulo 64; 100 if a thread, the pipe,
 * a handler or a timer could not be made.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pt_flow_ops.h"

/* The kernel's struct sigaction on x86-64 (rt_sigaction(2)). */
struct k_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

#define K_SA_RESTORER	0x04000000UL

/* The kernel's struct sigevent for SIGEV_THREAD_ID (timer_create(2)). */
struct k_sigevent {
	long value;
	int signo;
	int notify;
	int tid;
	int pad[11];
};

#define K_SIGEV_THREAD_ID	4

extern char __start_sigtext[], __stop_sigtext[];
void sig_restorer(void);

static volatile long sink_var[2];
static volatile long sig_sum;
static volatile long sig_count[2];	/* -c: SIGALRM, SIGPROF handled */
static int count;
static long rounds, usec;
static int itimer;
static int done_pipe[2];
static volatile int second_tid;
static int second_tid_set;

/*
 * Signals a thread takes of each of its timers before the handler disarms
 * that timer; work() arms it again every REARM_ROUNDS rounds (the same
 * system calls in a ground truth whose timers never fire). The number of
 * signals follows the thread's progress, not the wall clock: a slower
 * host (SIGALRM keeps landing while a stepped thread crawls) does not make
 * the run longer still, and the signals still come all along the run, in
 * its holds.
 */
#define SIG_BUDGET	16
#define REARM_ROUNDS	128

static __thread long sig_timer[2];	/* this thread's timer ids */
static __thread int sig_taken[2];	/* its SIGALRM, SIGPROF handled */

/*
 * A system call from sigtext itself (glibc's syscall() would put its own
 * instructions in the flow, outside the section a test drops).
 */
__attribute__((section("sigtext"))) static inline long sig_syscall4(long nr, long a,
								    long b, long c,
								    long d)
{
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall"
			 : "+a"(nr)
			 : "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return nr;
}

/*
 * The handler: code that runs (a loop), in sigtext; the SIG_BUDGET-th
 * signal of a timer disarms it (the process's interval timer with -i).
 */
__attribute__((noinline, section("sigtext"))) static void on_signal(int sig)
{
	static const struct itimerspec its_off;
	static const struct itimerval itv_off;
	long s = sig_sum;
	int i, k = sig == SIGPROF;

	for (i = 0; i < 4; i++)
		s += (s & 1) ? i : sig;
	sig_sum = s;
	sig_count[k]++;
	if (++sig_taken[k] != SIG_BUDGET)
		return;
	if (itimer)
		sig_syscall4(SYS_setitimer, k ? ITIMER_PROF : ITIMER_REAL,
			     (long)&itv_off, 0, 0);
	else
		sig_syscall4(SYS_timer_settime, sig_timer[k], 0, (long)&its_off, 0);
}

/* rt_sigreturn, in sigtext too (glibc's __restore_rt is elsewhere). */
__asm__(".pushsection sigtext, \"ax\", @progbits\n"
	".globl sig_restorer\n"
	"sig_restorer:\n"
	"	movq $15, %rax\n"
	"	syscall\n"
	"	hlt\n"
	".popsection\n");

static int handle(int sig)
{
	struct k_sigaction sa = {
		.handler = on_signal,
		.flags = SA_RESTART | K_SA_RESTORER,
		.restorer = sig_restorer,
	};

	return syscall(SYS_rt_sigaction, sig, &sa, NULL, 8) ? -1 : 0;
}

/* Nine decimal digits, the same instructions whatever they are. */
static long parse9(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; i < 9; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

enum timer_op {
	T_CREATE,	/* make this thread's two timers, armed with usec */
	T_REARM,	/* arm them again, their budget new (SIG_BUDGET) */
	T_DELETE,	/* delete them (-i: disarm the process's) */
};

/* @op on this thread's two timers @t[2] (nothing where usec is 0). */
static int timers(long *t, enum timer_op op)
{
	static const int clk[2] = { CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID };
	static const int sig[2] = { SIGALRM, SIGPROF };
	long us = op == T_DELETE ? 0 : usec;
	struct itimerspec its = {
		.it_interval = { us / 1000000, (us % 1000000) * 1000 },
		.it_value = { us / 1000000, (us % 1000000) * 1000 },
	};
	struct itimerval itv = {
		.it_interval = { us / 1000000, us % 1000000 },
		.it_value = { us / 1000000, us % 1000000 },
	};
	int i, tid = (int)syscall(SYS_gettid);

	if (!usec)
		return 0;
	if (op == T_REARM) {
		sig_taken[0] = 0;
		sig_taken[1] = 0;
	}
	if (itimer) {
		if (tid != getpid())
			return 0;
		return setitimer(ITIMER_REAL, &itv, NULL) ||
		       setitimer(ITIMER_PROF, &itv, NULL) ? -1 : 0;
	}
	for (i = 0; i < 2; i++) {
		struct k_sigevent ev = {
			.signo = sig[i], .notify = K_SIGEV_THREAD_ID, .tid = tid,
		};
		int id;

		if (op == T_DELETE) {
			if (syscall(SYS_timer_delete, t[i]))
				return -1;
			continue;
		}
		if (op == T_CREATE) {
			if (syscall(SYS_timer_create, clk[i], &ev, &id))
				return -1;
			t[i] = id;
			sig_timer[i] = id;
		}
		if (syscall(SYS_timer_settime, t[i], 0, &its, NULL))
			return -1;
	}
	return 0;
}

/* pt_flow_long's loop, @k shifting the operand, with the timers armed. */
__attribute__((noinline)) static long work(long k)
{
	long sum = k, i, t[2];

	if (timers(t, T_CREATE))
		_exit(100);
	for (i = 0; i < rounds; i++) {
		sum = ops[(i + k) & 3](sum, i);
		if (sum & 8)
			sum += 5;
		if ((i & 1023) == 0)
			sum += syscall(SYS_getppid) > 0;
		if (i % REARM_ROUNDS == REARM_ROUNDS - 1 && timers(t, T_REARM))
			_exit(100);
	}
	if (timers(t, T_DELETE))
		_exit(100);
	return sum;
}

static void *second(void *arg)
{
	char c = 1;

	second_tid_set = (int)syscall(SYS_set_tid_address, &second_tid);
	second_tid = second_tid_set;
	sink_var[1] = work((long)arg);
	if (write(done_pipe[1], &c, 1) != 1)
		_exit(101);
	syscall(SYS_exit, 0);
	return NULL;
}

/* pt_flow_threads' wait for the second thread's end: one FUTEX_WAIT. */
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
	int a = 1;

	if (argc > 1 && !strcmp(argv[1], "-r")) {
		printf("%016lx %016lx\n", (unsigned long)__start_sigtext,
		       (unsigned long)__stop_sigtext);
		return 0;
	}
	if (argc > a && !strcmp(argv[a], "-c")) {
		count = 1;
		a++;
	}
	if (argc > a && !strcmp(argv[a], "-i")) {
		itimer = 1;
		a++;
	}
	rounds = argc > a ? atol(argv[a]) : 2000;
	if (argc < a + 2 || strlen(argv[a + 1]) != 9)
		return 100;
	usec = parse9(argv[a + 1]);
	if (handle(SIGALRM) || handle(SIGPROF) || pipe(done_pipe) ||
	    pthread_create(&t, NULL, second, (void *)1L))
		return 100;
	sink_var[0] = work(0);
	if (read(done_pipe[0], &c, 1) != 1)
		return 100;
	wait_second(second_tid_set);
	if (count)
		fprintf(stderr, "pt_flow_sig: %ld SIGALRM, %ld SIGPROF\n", sig_count[0],
			sig_count[1]);
	return (int)(sink_var[0] & 0x3f);
}
