// SPDX-License-Identifier: GPL-2.0
/*
 * pt_notif: per-thread PT state loaded by each thread's preempt notifier
 * (kmod/pt/pt_notif.c, Documentation/pt.rst "Per-thread capture"), on
 * lwpt_sim.ko. Every line it prints is "ok: ..." or "FAIL: ..." (or a
 * "note:"); the exit status is the number of failures.
 *
 *   pt_notif os ROUNDS   per-thread capture with OS=1 and User=1 of a child
 *                        that ping-pongs ROUNDS times with this untraced
 *                        process on one CPU: TraceEn=1 exactly while the
 *                        child runs, no spec violation (the model's
 *                        pt_switch_check: no state set inside a switch)
 *   pt_notif fork-storm N  a traced child creates N rounds of 4 threads
 *                        that each fork a process that exits at once
 *                        (threads and processes join and leave): no
 *                        violation, every thread accounted for, and the
 *                        module's references back to what they were
 *   pt_notif pipe-hold   a traced child blocks in read() of a pipe: STOP
 *                        and close with it blocked; the module stays
 *                        referenced (its task_work has not run); prints
 *                        "ready", and on SIGUSR1 wakes the child, waits for
 *                        its exit and checks the reference is gone
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_rtit.h>

#include "pt_prog.h"

#define DEBUGFS		"/sys/kernel/debug/lwpt_sim/"
#define REFCNT		"/sys/module/lwpt_sim/refcnt"
#define TBUF		(16 * 1024)

/* A number from a one-line sysfs or debugfs file, -1 if unreadable. */
static long long read_num(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v = -1;

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* The sum over CPUs of pt_msrs field @name, or of one CPU (@cpu >= 0). */
static unsigned long long model_field(int cpu, const char *name)
{
	char line[2048], key[64], pfx[16];
	FILE *f = fopen(DEBUGFS "pt_msrs", "r");
	unsigned long long sum = 0;
	char *p;

	if (!f)
		return ~0ull;
	snprintf(pfx, sizeof(pfx), "cpu%d ", cpu);
	snprintf(key, sizeof(key), " %s=", name);
	while (fgets(line, sizeof(line), f)) {
		if (cpu >= 0 && strncmp(line, pfx, strlen(pfx)))
			continue;
		p = strstr(line, key);
		if (p)
			sum += strtoull(p + strlen(key), NULL, 0);
	}
	fclose(f);
	return sum;
}

static int traceen(int cpu)
{
	return (int)(model_field(cpu, "ctl") & IA32_RTIT_CTL_TRACEEN);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

/* A per-thread capture of @pid with @flags, started; exits 1 if refused. */
static int capture(pid_t pid, uint32_t flags)
{
	struct lwpt_pt_config c;
	int fd = open_pt(), err;

	cfg_init(&c, flags, LWPT_PT_MODE_WRAP, TBUF);
	c.scope = LWPT_PT_SCOPE_THREAD;
	c.pid = pid;
	err = configure(fd, &c);
	check(!err, "configure a per-thread capture of %d (flags %#x): %s", pid, flags,
	      strerror(err));
	if (err)
		exit(1);
	check(!ioctl(fd, LWPT_PT_IOC_START), "start");
	return fd;
}

/* /proc/PID/stat state letter, '?' if unknown. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Poll until @pid sleeps (S); no limit of its own (the case's catches it). */
static void wait_sleeping(pid_t pid)
{
	long n;

	for (n = 1; proc_state(pid) != 'S'; n++) {
		usleep(1000);
		if (n % 10000 == 0)
			printf("note: still waiting for %d to sleep\n", pid);
	}
}

/* --- os ------------------------------------------------------------------ */

static void test_os(long rounds)
{
	int ping[2], pong[2], fd, st, bad = 0;
	unsigned long long v0 = read_num(DEBUGFS "violations");
	struct lwpt_pt_status s;
	pid_t pid;
	char b = 0;
	long i;

	if (pipe(ping) || pipe(pong))
		exit(100);
	pin(0);
	pid = fork();
	if (pid < 0)
		exit(100);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (i = 0; i < rounds; i++) {
			if (read(ping[0], &b, 1) != 1)
				_exit(100);
			/* The traced child runs here: its state is loaded. */
			if (i % 50 == 49 && !traceen(0))
				bad++;
			if (write(pong[1], &b, 1) != 1)
				_exit(100);
		}
		_exit(bad > 99 ? 99 : bad);
	}
	fd = capture(pid, LWPT_PT_CFG_USER | LWPT_PT_CFG_OS | LWPT_PT_CFG_BRANCH);
	for (i = 0; i < rounds; i++) {
		if (write(ping[1], &b, 1) != 1 || read(pong[0], &b, 1) != 1)
			break;
		/* This process is not traced: nothing loaded while it runs. */
		if (i % 50 == 25 && traceen(0))
			bad++;
	}
	check(i == rounds, "os: %ld ping-pong rounds on CPU 0", i);
	check(!bad, "os: TraceEn=0 on CPU 0 while the untraced process runs (%d wrong)", bad);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "os: TraceEn=1 on CPU 0 while the traced child runs (child status %#x)", st);
	check(!ioctl(fd, LWPT_PT_IOC_STOP), "os: stop");
	check(!tstatus(fd, 0, &s) && (s.flags & LWPT_PT_ST_EXITED) &&
	      !(s.flags & (LWPT_PT_ST_BUSY | LWPT_PT_ST_INTERFERED)) && !s.lost,
	      "os: the child's buffer: exited, not busy, nothing lost (flags %#x lost %llu head %llu)",
	      s.flags, (unsigned long long)s.lost, (unsigned long long)s.head);
	close(fd);
	check(model_field(-1, "foreign_state") == 0,
	      "os: no user code ran with a state set for another task (foreign_state %llu)",
	      model_field(-1, "foreign_state"));
	check(read_num(DEBUGFS "violations") == (long long)v0, "os: no spec violation (%lld, %llu before)",
	      read_num(DEBUGFS "violations"), v0);
}

/* --- fork-storm ---------------------------------------------------------- */

static void *storm_thread(void *arg)
{
	pid_t p = fork();

	(void)arg;
	if (p == 0)
		_exit(0);
	if (p > 0)
		waitpid(p, NULL, 0);
	return NULL;
}

static void storm_child(int go, long n)
{
	pthread_t t[4];
	char b;
	long i;
	int k;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(go, &b, 1) != 1)
		_exit(100);
	for (i = 0; i < n; i++) {
		for (k = 0; k < 4; k++)
			if (pthread_create(&t[k], NULL, storm_thread, NULL))
				_exit(100);
		for (k = 0; k < 4; k++)
			pthread_join(t[k], NULL);
	}
	_exit(0);
}

static void test_fork_storm(long n)
{
	unsigned long long v0 = read_num(DEBUGFS "violations");
	long long ref0 = read_num(REFCNT);
	struct lwpt_pt_status s;
	int go[2], fd, st;
	uint32_t b, exited = 0;
	pid_t pid;

	if (pipe(go))
		exit(100);
	pid = fork();
	if (pid < 0)
		exit(100);
	if (!pid)
		storm_child(go[0], n);
	fd = capture(pid, LWPT_PT_CFG_USER | LWPT_PT_CFG_BRANCH);
	if (write(go[1], "g", 1) != 1)
		exit(100);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork-storm: %ld rounds done (status %#x)",
	      n, st);
	check(!ioctl(fd, LWPT_PT_IOC_STOP), "fork-storm: stop");
	check(!tstatus(fd, 0, &s), "fork-storm: status");
	for (b = 0; b < s.nr_buffers; b++) {
		struct lwpt_pt_status t;

		if (!tstatus(fd, b, &t) && (t.flags & LWPT_PT_ST_EXITED))
			exited++;
	}
	printf("note: fork-storm: %u buffers, %u threads lost\n", s.nr_buffers, s.threads_lost);
	/* A lost thread's own forks are not seen at all: <= then. */
	check(s.threads_lost ? s.nr_buffers + s.threads_lost <= 1 + 8 * (uint32_t)n :
	      s.nr_buffers == 1 + 8 * (uint32_t)n,
	      "fork-storm: every thread and process joined or was counted lost (%u + %u of %ld)",
	      s.nr_buffers, s.threads_lost, 1 + 8 * n);
	check(exited == s.nr_buffers, "fork-storm: every joined one exited (%u of %u)", exited,
	      s.nr_buffers);
	close(fd);
	/* Every task unregistered at its exit: no reference stays. */
	check(read_num(REFCNT) == ref0, "fork-storm: module references back to %lld (%lld)", ref0,
	      read_num(REFCNT));
	check(read_num(DEBUGFS "violations") == (long long)v0,
	      "fork-storm: no spec violation (%lld, %llu before)", read_num(DEBUGFS "violations"),
	      v0);
}

/* --- pipe-hold ----------------------------------------------------------- */

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1 = 1;
}

static void test_pipe_hold(void)
{
	long long ref0 = read_num(REFCNT), ref;
	int in[2], ack[2], fd, st;
	struct lwpt_pt_status s;
	sigset_t set, old;
	pid_t pid;
	char b;

	if (pipe(in) || pipe(ack))
		exit(100);
	signal(SIGUSR1, on_usr1);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid = fork();
	if (pid < 0)
		exit(100);
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (read(in[0], &b, 1) == 1 && b != 'q')
			if (write(ack[1], &b, 1) != 1)
				_exit(100);
		_exit(b == 'q' ? 0 : 100);
	}
	wait_sleeping(pid);		/* in read(), before CONFIGURE */
	fd = capture(pid, LWPT_PT_CFG_USER | LWPT_PT_CFG_BRANCH);
	/* Once back in user mode it registered; then it blocks again. */
	if (write(in[1], "a", 1) != 1 || read(ack[0], &b, 1) != 1)
		exit(100);
	wait_sleeping(pid);
	check(!ioctl(fd, LWPT_PT_IOC_STOP), "pipe-hold: stop while the thread is blocked in read()");
	check(!tstatus(fd, 0, &s) && !(s.flags & LWPT_PT_ST_TRACING) && !s.lost,
	      "pipe-hold: its buffer stopped, nothing lost (flags %#x)", s.flags);
	close(fd);
	ref = read_num(REFCNT);
	check(ref == ref0 + 1,
	      "pipe-hold: after close the blocked thread's notifier still holds the module (%lld, %lld before)",
	      ref, ref0);
	printf("ready\n");
	fflush(stdout);
	while (!usr1)
		sigsuspend(&old);
	/* Wake it: it unregisters before it returns to user mode. */
	if (write(in[1], "q", 1) != 1)
		exit(100);
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "pipe-hold: the thread woke and exited");
	check(read_num(REFCNT) == ref0, "pipe-hold: module references back to %lld (%lld)", ref0,
	      read_num(REFCNT));
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "os") && argc > 2)
		test_os(atol(argv[2]));
	else if (!strcmp(cmd, "fork-storm") && argc > 2)
		test_fork_storm(atol(argv[2]));
	else if (!strcmp(cmd, "pipe-hold"))
		test_pipe_hold();
	else {
		fprintf(stderr, "usage: pt_notif os ROUNDS|fork-storm N|pipe-hold\n");
		return 100;
	}
	printf("pt_notif %s: %d failed\n", cmd, failures);
	return failures ? 1 : 0;
}
