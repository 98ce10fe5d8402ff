/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A context switch on demand, for the VM programs (issue 39 item 9): a
 * test that needs its thread switched out and back in (a sched-out that
 * saves state, a sched-in that loads it) must not sleep for a while and
 * assume it happened. A short sleep need not switch at all: when its
 * timer fires before schedule() (a vCPU that did not run for a while on
 * a loaded host), the thread never leaves the CPU.
 *
 * cpu_switch_start() forks a partner process pinned to one CPU; the
 * caller pins itself there too. cpu_switch() writes a byte to the
 * partner and reads its answer: the partner can answer only while it
 * runs on that CPU, which the caller holds until it blocks or is
 * preempted, so the answer proves the caller was switched out, and its
 * affinity that it came back on the same CPU. The partner is its own
 * process, forked before any capture is configured: a per-thread capture
 * of the caller's thread group does not trace it.
 */
#ifndef LWPT_TESTS_VM_PROGS_CPU_SWITCH_H
#define LWPT_TESTS_VM_PROGS_CPU_SWITCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/**
 * struct cpu_switch - a partner process on one CPU
 * @cpu:	the CPU both run on
 * @pid:	the partner, 0 if none
 * @to:		pipe to the partner
 * @back:	pipe from the partner
 */
struct cpu_switch {
	int cpu;
	pid_t pid;
	int to[2];
	int back[2];
};

/* Pin the calling thread to @cpu; 0 or -1 (errno from sched_setaffinity). */
static inline int cpu_switch_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/**
 * cpu_switch_start - fork the partner, pinned to @cpu
 * @s:		filled in
 * @cpu:	a CPU number (online)
 *
 * The caller must run pinned to @cpu (cpu_switch_pin()) whenever it calls
 * cpu_switch(). The partner dies with its parent (PR_SET_PDEATHSIG) and
 * holds no file of the caller's but its two pipe ends.
 *
 * Return: 0, or -1 with errno from pipe(), fork() or sched_setaffinity().
 */
static inline int cpu_switch_start(struct cpu_switch *s, int cpu)
{
	char b;

	s->cpu = cpu;
	s->pid = 0;
	if (pipe(s->to))
		return -1;
	if (pipe(s->back)) {
		close(s->to[0]);
		close(s->to[1]);
		return -1;
	}
	s->pid = fork();
	if (s->pid < 0) {
		s->pid = 0;
		return -1;
	}
	if (!s->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/*
		 * Keep only the two pipe ends: a /dev/lwp or /dev/pt file the
		 * caller opened before would otherwise stay open (and lwpt
		 * referenced, so an rmmod right after the test fails) until
		 * the partner's SIGKILL at the caller's death is delivered.
		 */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != s->to[0] && fd != s->back[1])
				close(fd);
		if (cpu_switch_pin(cpu))
			_exit(1);
		while (read(s->to[0], &b, 1) == 1)
			if (write(s->back[1], &b, 1) != 1)
				break;
		_exit(0);
	}
	close(s->to[0]);
	close(s->back[1]);
	return 0;
}

/**
 * cpu_switch - switch the calling thread out and back in on @s->cpu
 * @s:	a started partner; the caller runs pinned to @s->cpu
 *
 * Blocks until the partner ran on the CPU: no limit of its own (a loaded
 * host may keep it from running for long; the case's limit catches a
 * partner that never answers).
 *
 * Return: 0 once the caller was switched out and runs again on @s->cpu;
 * -1 if the partner is gone or the caller is not on @s->cpu.
 */
static inline int cpu_switch(struct cpu_switch *s)
{
	char b = 0;

	if (sched_getcpu() != s->cpu)
		return -1;
	if (write(s->to[1], &b, 1) != 1 || read(s->back[0], &b, 1) != 1)
		return -1;
	return sched_getcpu() == s->cpu ? 0 : -1;
}

/* End the partner (if any) and reap it. */
static inline void cpu_switch_stop(struct cpu_switch *s)
{
	if (!s->pid)
		return;
	close(s->to[1]);
	close(s->back[0]);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
}

#endif
