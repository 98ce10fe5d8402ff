// SPDX-License-Identifier: GPL-2.0
/*
 * lbr_crash: LBR snapshots of /dev/bts in the VM (issue 37, ABI 1.7).
 *
 *   lbr_crash crash user|all   a child runs a deterministic workload and
 *                              then writes through a NULL pointer; its
 *                              capture (LWPT_BTS_CFG_LBR) is configured by
 *                              this process, which reads the stack at the
 *                              SIGSEGV (LWPT_BTS_LBR_CRASH) once the child
 *                              is dead, and compares its user-mode entries
 *                              with the last taken branches of ptrace
 *                              single-stepping the same code in another
 *                              child. Prints "crash: N last branches equal
 *                              ..." and exits 0 when equal
 *   lbr_crash now              LWPT_BTS_LBR_NOW of this thread after the
 *                              workload: the stack holds workload branches
 *   lbr_crash switch [all]     this thread and an untraced partner process
 *                              pinned to one CPU take turns (a pipe
 *                              ping-pong: each answer proves a switch out
 *                              and back); the partner runs its own code
 *                              (section lbr_other) between the turns. The
 *                              stack read after the turns holds none of the
 *                              partner's branches and still the workload's
 *                              from before the switches (saved at the
 *                              switch out, restored at the switch in);
 *                              "all" records kernel branches too, so that
 *                              kernel FROM values are saved and written
 *                              back (format 4 without TSX: the quirk)
 *   lbr_crash segv             run_and_crash() alone: dies by SIGSEGV (for
 *                              ptcap --lbr-on-crash)
 *   lbr_crash segv-wait        prints "ready", waits for a byte on stdin,
 *                              then as segv (for ptcap --lbr-on-crash -p/-t,
 *                              attached while it waits)
 *   lbr_crash args             every bad argument of LBR_SNAPSHOT and of
 *                              the LBR flag gets its errno; exit 0 if all
 *                              as expected
 *
 * A taken branch in single-stepping is an instruction after which the IP
 * is not the next instruction's (a string instruction that repeats stays
 * on itself: not a branch). Entries whose FROM or TO is a kernel address
 * (the fault's own transfer into the kernel, an interrupt, SDM 17.4.8)
 * are no branch of the program and are left out of the comparison.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/lwpt/bts.h>

#include "model/x86/x86_cofi.h"

#define WL __attribute__((noinline, section("lbr_wl")))

extern const char __start_lbr_wl[], __stop_lbr_wl[];

static volatile unsigned int wl_sink;
static int *volatile wl_null;

static WL unsigned int wl_leaf(unsigned int x)
{
	return (x * 2654435761u) >> 7;
}

static WL unsigned int wl_odd(unsigned int x)
{
	return x % 3 ? wl_leaf(x) : x + 1;
}

static WL unsigned int wl_even(unsigned int x)
{
	unsigned int i, v = x;

	for (i = 0; i < (x & 7); i++)
		v ^= wl_leaf(v + i);
	return v;
}

static unsigned int (*const wl_table[2])(unsigned int) = { wl_even, wl_odd };

static WL void workload(void)
{
	unsigned int i, acc = 1;

	for (i = 0; i < 40; i++) {
		acc += wl_table[i & 1](acc + i);
		if (acc & 1)
			acc ^= 0x55;
		else
			acc += wl_leaf(i);
	}
	wl_sink = acc;
}

/* The workload, then a store through NULL: SIGSEGV. */
static WL void run_and_crash(void)
{
	workload();
	if (wl_sink != 1)
		*wl_null = (int)wl_sink;
	wl_sink = 2;
}

/* The partner's own code: branches that must never enter our stack. */
#define OTHER __attribute__((noinline, section("lbr_other")))

extern const char __start_lbr_other[], __stop_lbr_other[];

static OTHER unsigned int other_work(unsigned int x)
{
	unsigned int i;

	for (i = 0; i < 50; i++)
		x = x & 1 ? x * 3 + 1 : x / 2 + i;
	return x;
}

#define KERNEL_HALF	0xffff800000000000ull
#define GT_KEEP		64

struct branch {
	uint64_t from, to;
};

static uint8_t insn_len(uint64_t ip)
{
	struct x86_cofi c;

	if (x86_cofi_decode((const uint8_t *)(uintptr_t)ip, X86_MAX_INSN_LEN,
			    X86_MODE_64, &c))
		return 0;
	return c.len;
}

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ESRCH: return "ESRCH";
	case EFAULT: return "EFAULT";
	case ENODATA: return "ENODATA";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	default: return strerror(e);
	}
}

static void no_core(void)
{
	struct rlimit rl = { 0, 0 };

	setrlimit(RLIMIT_CORE, &rl);
}

/*
 * The last taken branches (up to GT_KEEP, oldest first in @gt) of
 * run_and_crash() single-stepped in a child, until its SIGSEGV.
 * Return: how many, or -1.
 */
static int ground_truth(struct branch *gt, uint64_t *fault_ip)
{
	struct user_regs_struct regs;
	uint64_t ip = 0, n = 0;
	bool have = false;
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		no_core();
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		run_and_crash();
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			return -1;
		if (have && regs.rip != ip && regs.rip != ip + insn_len(ip)) {
			gt[n % GT_KEEP] = (struct branch){ ip, regs.rip };
			n++;
		}
		ip = regs.rip;
		have = true;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			return -1;
		if (waitpid(pid, &st, 0) != pid)
			return -1;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return -1;
		if (WIFSTOPPED(st) && WSTOPSIG(st) == SIGSEGV)
			break;
	}
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -1;
	*fault_ip = regs.rip;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	/* Oldest first. */
	if (n > GT_KEEP) {
		struct branch tmp[GT_KEEP];
		unsigned int i;

		for (i = 0; i < GT_KEEP; i++)
			tmp[i] = gt[(n + i) % GT_KEEP];
		memcpy(gt, tmp, sizeof(tmp));
		n = GT_KEEP;
	}
	return (int)n;
}

static int configure(pid_t pid, uint32_t flags)
{
	struct lwpt_bts_config cfg = {
		.size = sizeof(cfg), .flags = flags, .pid = pid,
		.buffer_size = 1ull << 20,
	};
	int fd = open("/dev/bts", O_RDWR | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, LWPT_BTS_IOC_CONFIGURE, &cfg)) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

static int snapshot(int fd, uint32_t which, struct lwpt_bts_lbr *l)
{
	memset(l, 0, sizeof(*l));
	l->size = sizeof(*l);
	l->which = which;
	return ioctl(fd, LWPT_BTS_IOC_LBR_SNAPSHOT, l) ? -errno : 0;
}

/*
 * Print the stack; 1 if an entry says IN_TX or TSX_ABORT: the model runs
 * no transaction, so such a flag is a FROM value read wrong (format 4
 * without TSX keeps sign bits where the flags would be).
 */
static int print_stack(const struct lwpt_bts_lbr *l)
{
	unsigned int i, tx = 0;

	printf("lbr: nr %u depth %u format %u flags %#x signo %d\n", l->nr,
	       l->depth, l->format, l->flags, l->signo);
	for (i = 0; i < l->nr && i < LWPT_LBR_ENTRIES_MAX; i++) {
		uint64_t f = l->entries[i].flags;

		printf("  [%2u] %#llx -> %#llx%s%s%s", i,
		       (unsigned long long)l->entries[i].from,
		       (unsigned long long)l->entries[i].to,
		       f & LWPT_LBR_E_MISPRED ? " mispred" : "",
		       f & LWPT_LBR_E_IN_TX ? " in_tx" : "",
		       f & LWPT_LBR_E_TSX_ABORT ? " abort" : "");
		if (f & LWPT_LBR_E_CYCLES)
			printf(" cycles=%llu", (unsigned long long)((f >> LWPT_LBR_E_CYCLES_SHIFT) &
								   LWPT_LBR_E_CYCLES_MASK));
		putchar('\n');
		tx += !!(f & (LWPT_LBR_E_IN_TX | LWPT_LBR_E_TSX_ABORT));
	}
	if (tx)
		printf("lbr: %u entries with TSX flags, and the model runs no transaction\n", tx);
	return tx ? 1 : 0;
}

static int cmd_crash(uint32_t flags)
{
	struct branch gt[GT_KEEP];
	struct lwpt_bts_lbr l;
	uint64_t fault_ip = 0;
	unsigned int i, k = 0;
	int ngt, fd, st, err;
	pid_t pid;

	ngt = ground_truth(gt, &fault_ip);
	if (ngt <= 0) {
		printf("crash: no ground truth\n");
		return 125;
	}
	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid) {
		no_core();
		kill(getpid(), SIGSTOP);
		run_and_crash();
		_exit(0);
	}
	if (waitpid(pid, &st, WUNTRACED) != pid || !WIFSTOPPED(st))
		return 125;
	fd = configure(pid, flags | LWPT_BTS_CFG_LBR);
	if (fd < 0) {
		printf("crash: configure: %s\n", errname(-fd));
		kill(pid, SIGKILL);
		return 1;
	}
	err = snapshot(fd, LWPT_BTS_LBR_CRASH, &l);
	if (err != -ENODATA) {
		printf("crash: CRASH before the crash: %s, want ENODATA\n", errname(-err));
		return 1;
	}
	kill(pid, SIGCONT);
	if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) || WTERMSIG(st) != SIGSEGV) {
		printf("crash: child did not die by SIGSEGV (status %#x)\n", st);
		return 1;
	}
	err = snapshot(fd, LWPT_BTS_LBR_CRASH, &l);
	if (err) {
		printf("crash: snapshot: %s\n", errname(-err));
		return 1;
	}
	if (print_stack(&l))
		return 1;
	if (l.signo != SIGSEGV || l.size != sizeof(l) || !l.depth || l.nr > l.depth) {
		printf("crash: signo %d size %u depth %u nr %u\n", l.signo, l.size,
		       l.depth, l.nr);
		return 1;
	}
	/* Most recent first: walk the ground truth from its end. */
	for (i = 0; i < l.nr; i++) {
		const struct lwpt_lbr_entry *e = &l.entries[i];
		const struct branch *g;

		if (e->from >= KERNEL_HALF || e->to >= KERNEL_HALF)
			continue;
		if (k == (unsigned int)ngt)
			break;
		g = &gt[ngt - 1 - k];
		if (e->from != g->from || e->to != g->to) {
			printf("crash: entry %u %#llx -> %#llx, ground truth's branch -%u %#llx -> %#llx\n",
			       i, (unsigned long long)e->from, (unsigned long long)e->to,
			       k + 1, (unsigned long long)g->from, (unsigned long long)g->to);
			return 1;
		}
		k++;
	}
	if (k < l.depth / 2) {
		printf("crash: only %u user branches in a stack of %u\n", k, l.depth);
		return 1;
	}
	printf("crash: %u last branches equal the single-stepped ground truth (fault at %#llx, depth %u)\n",
	       k, (unsigned long long)fault_ip, l.depth);
	return 0;
}

static int cmd_now(void)
{
	struct lwpt_bts_lbr l;
	unsigned int i;
	bool wl = false;
	int fd, err;

	fd = configure(0, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_LBR);
	if (fd < 0) {
		printf("now: configure: %s\n", errname(-fd));
		return 1;
	}
	workload();
	err = snapshot(fd, LWPT_BTS_LBR_NOW, &l);
	if (err) {
		printf("now: snapshot: %s\n", errname(-err));
		return 1;
	}
	if (print_stack(&l))
		return 1;
	for (i = 0; i < l.nr; i++)
		if (l.entries[i].from >= (uintptr_t)__start_lbr_wl &&
		    l.entries[i].from < (uintptr_t)__stop_lbr_wl)
			wl = true;
	if (!wl || l.signo) {
		printf("now: no workload branch in the stack\n");
		return 1;
	}
	err = snapshot(fd, LWPT_BTS_LBR_CRASH, &l);
	if (err != -ENODATA) {
		printf("now: CRASH without a fatal signal: %s\n", errname(-err));
		return 1;
	}
	if (ioctl(fd, LWPT_BTS_IOC_STOP) || snapshot(fd, LWPT_BTS_LBR_NOW, &l) || !l.nr) {
		printf("now: the stack saved at STOP is gone\n");
		return 1;
	}
	printf("now: %u entries, workload branches among them\n", l.nr);
	return 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static bool in_section(uint64_t a, const char *b, const char *e)
{
	return a >= (uintptr_t)b && a < (uintptr_t)e;
}

static int cmd_switch(uint32_t flags)
{
	int to[2], back[2], fd, err, round;
	struct lwpt_bts_lbr l;
	bool wl = false;
	unsigned int i;
	pid_t pid;
	char c = 0;

	if (pipe(to) || pipe(back) || pin(0))
		return 125;
	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid) {
		unsigned int x = 7;

		/* Only its ends: EOF on @to once the caller closes its end. */
		close(to[1]);
		close(back[0]);
		if (pin(0))
			_exit(125);
		while (read(to[0], &c, 1) == 1) {
			x = other_work(x + (unsigned char)c);
			c = (char)x;
			if (write(back[1], &c, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(to[0]);
	close(back[1]);
	fd = configure(0, flags | LWPT_BTS_CFG_LBR);
	if (fd < 0) {
		printf("switch: configure: %s\n", errname(-fd));
		kill(pid, SIGKILL);
		return 1;
	}
	for (round = 0; round < 3; round++) {
		workload();
		if (write(to[1], &c, 1) != 1 || read(back[0], &c, 1) != 1) {
			kill(pid, SIGKILL);
			return 125;
		}
	}
	err = snapshot(fd, LWPT_BTS_LBR_NOW, &l);
	close(to[1]);
	waitpid(pid, NULL, 0);
	if (err) {
		printf("switch: snapshot: %s\n", errname(-err));
		return 1;
	}
	if (print_stack(&l))
		return 1;
	for (i = 0; i < l.nr; i++) {
		const struct lwpt_lbr_entry *e = &l.entries[i];

		if (in_section(e->from, __start_lbr_other, __stop_lbr_other) ||
		    in_section(e->to, __start_lbr_other, __stop_lbr_other)) {
			printf("switch: entry %u is the partner's branch\n", i);
			return 1;
		}
		if (in_section(e->from, __start_lbr_wl, __stop_lbr_wl))
			wl = true;
	}
	if (!wl) {
		printf("switch: the workload's branches from before the switch are gone\n");
		return 1;
	}
	printf("switch: %u entries across 3 switches, none of the partner's, the workload's kept\n",
	       l.nr);
	return 0;
}

static int failures;

#define EXPECT(cond, what) do { \
	if (!(cond)) { \
		printf("args: %s: errno %s\n", what, errname(errno)); \
		failures++; \
	} \
} while (0)

static int cmd_args(void)
{
	struct lwpt_bts_lbr l;
	int fd, err;

	/* Not configured, configured without the flag. */
	fd = open("/dev/bts", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 125;
	EXPECT(snapshot(fd, LWPT_BTS_LBR_NOW, &l) == -ENODATA, "unconfigured");
	close(fd);
	fd = configure(0, LWPT_BTS_CFG_USER);
	EXPECT(fd >= 0, "configure without LBR");
	EXPECT(snapshot(fd, LWPT_BTS_LBR_NOW, &l) == -ENODATA, "no LBR flag");
	close(fd);
	/* Reserved config bits 2, 3 and 5 up. */
	err = configure(0, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_LBR | (1u << 3));
	EXPECT(err == -EINVAL, "reserved flag bit 3");
	err = configure(0, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_LBR | (1u << 5));
	EXPECT(err == -EINVAL, "reserved flag bit 5");
	err = configure(0, LWPT_BTS_CFG_LBR);
	EXPECT(err == -EINVAL, "LBR without USER or KERNEL");

	fd = configure(0, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_LBR);
	EXPECT(fd >= 0, "configure with LBR");
	if (fd < 0)
		return 1;
	memset(&l, 0, sizeof(l));
	l.size = 32;
	EXPECT(ioctl(fd, LWPT_BTS_IOC_LBR_SNAPSHOT, &l) && errno == EINVAL, "size 32");
	l.size = sizeof(l);
	l.which = 2;
	EXPECT(ioctl(fd, LWPT_BTS_IOC_LBR_SNAPSHOT, &l) && errno == EINVAL, "which 2");
	l.which = LWPT_BTS_LBR_NOW;
	l.reserved = 1;
	EXPECT(ioctl(fd, LWPT_BTS_IOC_LBR_SNAPSHOT, &l) && errno == EINVAL, "reserved 1");
	EXPECT(ioctl(fd, LWPT_BTS_IOC_LBR_SNAPSHOT, (void *)16) && errno == EFAULT,
	       "bad pointer");
	EXPECT(snapshot(fd, LWPT_BTS_LBR_CRASH, &l) == -ENODATA, "CRASH, no crash");
	EXPECT(snapshot(fd, LWPT_BTS_LBR_NOW, &l) == 0 && l.depth, "NOW");
	close(fd);
	if (failures)
		return 1;
	printf("args: all as expected\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "crash"))
		return cmd_crash(!strcmp(argv[2], "all") ? LWPT_BTS_CFG_FLAGS :
				 LWPT_BTS_CFG_USER);
	if (argc == 2 && !strcmp(argv[1], "now"))
		return cmd_now();
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "switch"))
		return cmd_switch(argc == 3 && !strcmp(argv[2], "all") ? LWPT_BTS_CFG_FLAGS :
				  LWPT_BTS_CFG_USER);
	if (argc == 2 && (!strcmp(argv[1], "segv") || !strcmp(argv[1], "segv-wait"))) {
		char c;

		no_core();
		if (argv[1][4] && (printf("ready\n") < 0 || read(0, &c, 1) != 1))
			return 2;
		run_and_crash();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "args"))
		return cmd_args();
	fprintf(stderr, "usage: lbr_crash crash user|all | now | switch [all] | segv | segv-wait | args\n");
	return 2;
}
