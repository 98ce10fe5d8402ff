// SPDX-License-Identifier: GPL-2.0
/*
 * bts_perf_take: perf takes IA32_DS_AREA in the middle of /dev/bts
 * captures (issue 37; Documentation/bts.rst, "Coexistence with perf"), on
 * lwpt_sim.ko, whose debugfs file bts_perf plays perf: "ds" written there
 * points IA32_DS_AREA of every CPU at perf's DS area by IPI, as perf's
 * reserve_ds_buffers() does when its first x86 event is created.
 *
 *   bts_perf_take thread CPU   per-thread captures of three children: B
 *                              loops alone on CPU, A loops on another CPU
 *                              (with this process), C sleeps on a pipe
 *                              there (never loaded). Once A and B recorded
 *                              (their loops went on after CONFIGURE), perf
 *                              takes IA32_DS_AREA. B is stopped while it
 *                              runs (STOP's unload finds perf's area); A
 *                              gets SIGSTOP and is waited for until off its
 *                              CPU (its switch out finds it); C is woken
 *                              (its switch in finds it). Each capture must
 *                              then say LWPT_BTS_ST_DS_TAKEN, not
 *                              RECORDING, with poll(2) POLLHUP; A's and B's
 *                              records from before the take kept (head >
 *                              0), C's none (never loaded)
 *   bts_perf_take cpu CPU      a per-CPU capture of CPU with a child
 *                              looping there; once it recorded, perf takes
 *                              IA32_DS_AREA; the child gets SIGSTOP and is
 *                              waited for until off the CPU (a switch
 *                              there finds perf's area): DS_TAKEN, not
 *                              RECORDING, POLLHUP, head > 0 and the last
 *                              switch record at that head, all before STOP
 *
 * Prints one line per capture and "thread: ok" or "cpu: ok"; exit 0 when
 * every check held. What the MSRs hold afterwards (perf's pointer never
 * overwritten, perf's DS area untouched) is the case's check, through
 * bts_perf and bts_msrs.
 *
 * Waiting for "off its CPU": reading /proc/PID/syscall of a stopped task
 * waits in wait_task_inactive() until the task is no longer on its CPU,
 * that is until its context switch (and the sched_switch probes) ran.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/lwpt/bts.h>

#define PERF_KNOB "/sys/kernel/debug/lwpt_sim/bts_perf"
#define BUF_BYTES (1u << 16)
/* Iterations of a child's loop that prove it ran (and was recorded). */
#define PROGRESS 20

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("FAIL: " __VA_ARGS__);			\
			printf("\n");					\
			failures++;					\
		}							\
	} while (0)

/* One counter per child, shared: its loop's iterations. */
static volatile uint64_t *progress;

static void pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
}

static volatile unsigned int sink;

/* Branches in user mode: a loop with calls, taken and not-taken jumps. */
static unsigned int __attribute__((noinline)) step(unsigned int x)
{
	return x & 1 ? x * 3 + 1 : x / 2;
}

static void __attribute__((noreturn)) loop(unsigned int slot)
{
	unsigned int x = 27, i;

	for (;;) {
		for (i = 0; i < 16; i++)
			x = step(x) + (x == 1);
		sink = x;
		progress[slot]++;
	}
}

/* A child pinned to @cpu that loops (counter @slot). */
static pid_t spawn_loop(unsigned int cpu, unsigned int slot)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid) {
		pin(cpu);
		loop(slot);
	}
	return pid;
}

/* Wait until child @slot's loop went on PROGRESS times from now. */
static void wait_progress(unsigned int slot)
{
	uint64_t from = progress[slot];

	while (progress[slot] - from < PROGRESS)
		usleep(1000);
}

/*
 * Wait until @pid is off its CPU (see the head comment) and, with @nr
 * >= 0, blocked in system call @nr.
 */
static void wait_blocked(pid_t pid, long nr)
{
	char path[64], buf[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (;;) {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror(path);
			exit(2);
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		/*
		 * "running" (task_current_syscall()'s EAGAIN): on its CPU at
		 * the look. strtol() would read it as 0, SYS_read: C was taken
		 * for asleep in read(2) while it still ran to it, and recorded.
		 */
		if (n > 0) {
			char *end;
			long got;

			buf[n] = '\0';
			got = strtol(buf, &end, 10);
			if (end != buf && (nr < 0 || got == nr))
				return;
		}
		usleep(1000);
	}
}

/* Wait until @pid, sent SIGSTOP, stopped and is off its CPU. */
static void wait_off_cpu(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st)) {
		printf("FAIL: child %d did not stop\n", (int)pid);
		exit(1);
	}
	wait_blocked(pid, -1);
}

static void perf_takes(void)
{
	int fd = open(PERF_KNOB, O_WRONLY);

	if (fd < 0 || write(fd, "ds", 2) != 2) {
		perror(PERF_KNOB);
		exit(2);
	}
	close(fd);
}

static struct lwpt_bts_status status(int fd)
{
	struct lwpt_bts_status st = { .size = sizeof(st) };

	if (ioctl(fd, LWPT_BTS_IOC_STATUS, &st)) {
		perror("LWPT_BTS_IOC_STATUS");
		exit(2);
	}
	return st;
}

static int configure(pid_t pid)
{
	struct lwpt_bts_config cfg = {
		.size = sizeof(cfg), .flags = LWPT_BTS_CFG_USER, .pid = pid,
		.buffer_size = BUF_BYTES,
	};
	int fd = open("/dev/bts", O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, LWPT_BTS_IOC_CONFIGURE, &cfg)) {
		perror("LWPT_BTS_IOC_CONFIGURE");
		exit(2);
	}
	return fd;
}

/* The checks of an ended capture; @head_min bytes at least recorded. */
static void check_taken(const char *who, int fd, uint64_t head_min, uint64_t head_max)
{
	struct lwpt_bts_status st = status(fd);
	struct pollfd p = { .fd = fd, .events = POLLIN };

	printf("%s: flags %#x head %llu switches %llu\n", who, st.flags,
	       (unsigned long long)st.head, (unsigned long long)st.switches);
	CHECK(st.flags & LWPT_BTS_ST_DS_TAKEN, "%s: no LWPT_BTS_ST_DS_TAKEN", who);
	CHECK(!(st.flags & LWPT_BTS_ST_RECORDING), "%s: still RECORDING", who);
	CHECK(!(st.flags & LWPT_BTS_ST_EXITED), "%s: EXITED", who);
	CHECK(st.head >= head_min && st.head <= head_max && st.head % 24 == 0,
	      "%s: head %llu, want %llu..%llu", who, (unsigned long long)st.head,
	      (unsigned long long)head_min, (unsigned long long)head_max);
	CHECK(poll(&p, 1, 0) == 1 && (p.revents & POLLHUP), "%s: poll %#x, no POLLHUP",
	      who, p.revents);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int cmd_thread(unsigned int cpu, unsigned int other)
{
	struct lwpt_bts_status st;
	int fa, fb, fc, in[2], out[2];
	pid_t a, b, c;
	char ch;

	pin(other);
	if (pipe(in) || pipe(out))
		return 2;
	c = fork();
	if (c < 0)
		return 2;
	if (!c) {
		pin(other);
		/* Woken by the parent: answer, then wait for the end. */
		if (read(in[0], &ch, 1) != 1 || write(out[1], &ch, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	a = spawn_loop(other, 0);
	b = spawn_loop(cpu, 1);
	/* C asleep in read(2) of an empty pipe: not loaded at CONFIGURE. */
	wait_blocked(c, SYS_read);
	fc = configure(c);
	fa = configure(a);
	fb = configure(b);
	wait_progress(0);
	wait_progress(1);
	st = status(fb);
	CHECK(st.flags & LWPT_BTS_ST_RECORDING, "B not recording before the take");
	CHECK(st.switches >= 1, "B never loaded before the take");

	perf_takes();
	/* B: still on its CPU, alone: STOP's unload. */
	if (ioctl(fb, LWPT_BTS_IOC_STOP))
		return 2;
	check_taken("B (STOP while running)", fb, 24, BUF_BYTES);
	/* A: its switch out. */
	kill(a, SIGSTOP);
	wait_off_cpu(a);
	check_taken("A (switch out)", fa, 24, BUF_BYTES);
	/* C: its switch in, before it runs a user instruction. */
	if (write(in[1], "x", 1) != 1 || read(out[0], &ch, 1) != 1)
		return 2;
	check_taken("C (switch in)", fc, 0, 0);
	st = status(fc);
	CHECK(st.switches == 0, "C loaded %llu times", (unsigned long long)st.switches);

	/* Ended for good: A running again is not recorded. */
	st = status(fa);
	kill(a, SIGCONT);
	wait_progress(0);
	CHECK(status(fa).head == st.head && status(fa).switches == st.switches,
	      "A recorded again after the take");
	reap(a);
	reap(b);
	reap(c);
	close(fa);
	close(fb);
	close(fc);
	printf("thread: %s\n", failures ? "FAILED" : "ok");
	return !!failures;
}

static int cmd_cpu(unsigned int cpu, unsigned int other)
{
	struct lwpt_bts_cpu_config cc = {
		.size = sizeof(cc), .flags = LWPT_BTS_CFG_USER, .cpu = cpu,
		.buffer_size = BUF_BYTES,
	};
	struct lwpt_bts_switch rec[64];
	struct lwpt_bts_switches sw = {
		.size = sizeof(sw), .capacity = 64,
		.records = (uintptr_t)rec,
	};
	struct lwpt_bts_status st;
	struct lwpt_bts_switch last = { 0 };
	uint64_t nsw = 0;
	int fd;
	pid_t a;

	pin(other);
	a = spawn_loop(cpu, 0);
	fd = open("/dev/bts", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, LWPT_BTS_IOC_CONFIGURE_CPU, &cc)) {
		perror("LWPT_BTS_IOC_CONFIGURE_CPU");
		return 2;
	}
	wait_progress(0);
	CHECK(status(fd).flags & LWPT_BTS_ST_RECORDING, "not recording before the take");

	perf_takes();
	/* A switch on the CPU: the child stops. */
	kill(a, SIGSTOP);
	wait_off_cpu(a);
	check_taken("cpu (a switch)", fd, 24, BUF_BYTES);
	st = status(fd);
	/* The switch records so far; the last one is at the final head. */
	do {
		sw.copied = sw.pending = 0;
		sw.lost = 0;
		if (ioctl(fd, LWPT_BTS_IOC_READ_SWITCHES, &sw))
			return 2;
		if (sw.copied)
			last = rec[sw.copied - 1];
		nsw += sw.copied;
	} while (sw.pending);
	printf("cpu: %llu switch records, the last at %llu\n", (unsigned long long)nsw,
	       (unsigned long long)last.head);
	CHECK(nsw && last.head == st.head, "last switch at %llu, head %llu",
	      (unsigned long long)last.head, (unsigned long long)st.head);
	/* Nothing more: the CPU's switches go on without the capture. */
	kill(a, SIGCONT);
	wait_progress(0);
	kill(a, SIGSTOP);
	wait_off_cpu(a);
	sw.copied = sw.pending = 0;
	sw.lost = 0;
	CHECK(!ioctl(fd, LWPT_BTS_IOC_READ_SWITCHES, &sw) && !sw.copied && !sw.pending,
	      "switches recorded after the take: %u", sw.copied);
	CHECK(status(fd).head == st.head, "records after the take");
	if (ioctl(fd, LWPT_BTS_IOC_STOP))
		return 2;
	CHECK(status(fd).head == st.head, "STOP changed the head");
	reap(a);
	close(fd);
	printf("cpu: %s\n", failures ? "FAILED" : "ok");
	return !!failures;
}

int main(int argc, char **argv)
{
	unsigned int cpu;

	if (argc != 3) {
		fprintf(stderr, "usage: bts_perf_take thread|cpu CPU\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	progress = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (progress == MAP_FAILED)
		return 2;
	cpu = (unsigned int)strtoul(argv[2], NULL, 0);
	if (!strcmp(argv[1], "thread"))
		return cmd_thread(cpu, !cpu);
	if (!strcmp(argv[1], "cpu"))
		return cmd_cpu(cpu, !cpu);
	fprintf(stderr, "usage: bts_perf_take thread|cpu CPU\n");
	return 2;
}
