// SPDX-License-Identifier: GPL-2.0
/*
 * bts_test: /dev/bts in the VM (issue 37 point 2).
 *
 *   bts_test flow [user|all]   a BTS capture of this thread around a
 *                              deterministic workload, decoded, against
 *                              ptrace single-stepping of the same workload
 *                              in a child: prints "flow: N instructions,
 *                              M records, equal" and exits 0 when equal
 *   bts_test try PID FLAGS BYTES   one CONFIGURE (FLAGS: user, kernel,
 *                              all); prints "ok" or the errno's name;
 *                              exit 0 if accepted
 *   bts_test args              every bad argument of every ioctl and of
 *                              mmap gets its errno (EINVAL, EFAULT, ESRCH,
 *                              EBUSY, ENODATA, EPERM, ENOTTY), then random
 *                              commands and arguments in /dev/bts's ioctl
 *                              range (no crash, no warning); exit 0 if all
 *                              as expected
 *   bts_test exec WANT PROG ARGS...   a child stopped before it execs PROG
 *                              is recorded (user only); WANT "stop": the
 *                              capture must end at the exec
 *                              (LWPT_BTS_ST_EXEC_STOPPED) and hold no
 *                              address of PROG's text (linked at
 *                              0x30000000); "go": it must hold some
 *   bts_test ring BYTES N      a ring capture (LWPT_BTS_CFG_RING) of a
 *                              child running the workload N times, the
 *                              buffer BYTES: drained as poll(2) wakes,
 *                              decoded, against ptrace single-stepping of
 *                              the same run; prints "ring: ... equal",
 *                              the threshold interrupts and holds, exit 0
 *                              when equal and nothing lost
 *   bts_test ring-wake BYTES   a ring capture of a child that runs the
 *                              workload once, then blocks on a pipe the
 *                              reader writes only after poll(2) reported
 *                              its records: the switch that publishes the
 *                              head must wake the reader (asleep in poll
 *                              first, no interrupt: BYTES far beyond one
 *                              run); the records decoded against ptrace
 *                              single-stepping; prints "ring-wake: ...
 *                              equal", exit 0; the hang guard is 60 s
 *   bts_test ring-sig          a ring capture of a child held for room
 *                              (nothing consumed): SIGSTOP stops it, after
 *                              SIGCONT it is held again, SIGUSR1 is
 *                              delivered and it is held again before the
 *                              handler's first instruction; once drained
 *                              the handler runs and the child runs on;
 *                              prints "ring-sig: ...", exit 0
 *   bts_test ring-limit MS     the ring's hold limit MS: a reader that
 *                              only waits for its child (which fills the
 *                              ring) returns, HOLD_TIMEOUT said; a CONSUME
 *                              after a timeout gives room and holds come
 *                              back; 0 means the default, written back;
 *                              prints "ring-limit: ...", exit 0
 *   bts_test cpu CPU N         a per-CPU capture (LWPT_BTS_IOC_CONFIGURE_CPU)
 *                              of CPU while two children pinned there run
 *                              the workload N times at once (this process
 *                              on another CPU); each child's records, cut
 *                              out by the switch records, decoded, against
 *                              ptrace single-stepping: "cpu: ... equal",
 *                              exit 0
 *   bts_test cpu-mig N         per-CPU captures of CPUs 0 and 1 with
 *                              LWPT_BTS_CFG_SWITCH_TSC (ABI 1.10) while a
 *                              child runs the workload N times on CPU 0,
 *                              N on CPU 1, N on CPU 0 (sched_setaffinity()
 *                              moves it); its pieces of both CPUs in the
 *                              order of their switches' TSC, decoded,
 *                              against single-stepping: "cpu-mig: ...
 *                              equal", exit 0
 *   bts_test cpu-sizes         READ_SWITCHES writes 32-byte records
 *                              without SWITCH_TSC, 40-byte ones with it,
 *                              nothing beyond: "cpu-sizes: ...", exit 0
 *   bts_test cpu-try CPU FLAGS BYTES [hold]   one CONFIGURE_CPU; prints
 *                              "ok", "held" (then, at SIGTERM, "flags "
 *                              and its STATUS flags) or the errno's name
 *                              and bad_field
 *   bts_test hold [PID]        CONFIGURE on itself (or thread PID),
 *                              prints "held", then waits for SIGTERM
 *                              (another CONFIGURE of the same thread is
 *                              EBUSY meanwhile)
 *   bts_test sigframe          a per-thread capture of itself whose
 *                              signal handlers (SIGILL of a UD2, SIGUSR1
 *                              from a child while it runs user code) stop
 *                              the capture: the frames hold no RFLAGS.TF
 *                              of the model's execution follower, and the
 *                              thread runs on after sigreturn without a
 *                              SIGTRAP; prints "sigframe: ...", exit 0
 *   bts_test stop-others       STOP by the recorded thread itself (it
 *                              sleeps in STOP) while another process spins
 *                              in user mode on its CPU, 20 times: none of
 *                              that process's branches in the records or
 *                              (with LWPT_BTS_CFG_LBR) the LBR stack read
 *                              after STOP; prints "stop-others: ...",
 *                              exit 0
 *   bts_test pt thread|cpu PID [hold]   one /dev/pt CONFIGURE, per-thread
 *                              of PID or per-CPU (all CPUs; PID unused);
 *                              prints "ok" or the errno's name; with
 *                              "hold", prints "held" after it and waits
 *                              for SIGTERM (PT and BTS exclusivity)
 *
 * The decoder (Documentation/bts.rst, "Decoding"): the code between one
 * record's "to" and the next record's "from" is linear, so the flow is
 * walked instruction by instruction from each "to" to the next "from",
 * measuring each instruction with model/x86/x86_cofi.c; a record into
 * the kernel (a system call in a user-only trace) resumes after its
 * "from". Only instructions of the workload's own section are compared
 * (before and after it the two runs differ: ioctl and mmap, ptrace).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <uapi/lwpt/bts.h>
#include <uapi/lwpt/pt.h>

#include "model/x86/x86_cofi.h"

#define WL __attribute__((noinline, section("bts_wl")))

extern const char __start_bts_wl[], __stop_bts_wl[];

static volatile unsigned int wl_sink;

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

/* Loops, taken and not-taken branches, direct and indirect calls, returns. */
static WL void workload(void)
{
	unsigned int i, acc = 1;

	for (i = 0; i < 60; i++) {
		acc += wl_table[i & 1](acc + i);
		switch (acc & 3) {
		case 0:
			acc ^= 0x55;
			break;
		case 1:
			acc += wl_leaf(i);
			break;
		default:
			acc -= i;
			break;
		}
	}
	wl_sink = acc;
}

static int in_wl(uint64_t ip)
{
	return ip >= (uintptr_t)__start_bts_wl && ip < (uintptr_t)__stop_bts_wl;
}

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOMEM: return "ENOMEM";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ESRCH: return "ESRCH";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	default: return strerror(e);
	}
}

static uint32_t parse_flags(const char *s)
{
	if (!strcmp(s, "user"))
		return LWPT_BTS_CFG_USER;
	if (!strcmp(s, "kernel"))
		return LWPT_BTS_CFG_KERNEL;
	if (!strcmp(s, "all"))
		return LWPT_BTS_CFG_FLAGS;
	return (uint32_t)strtoul(s, NULL, 0);
}

/*
 * CONFIGURE with the hold limit *@limit (in: 0 for the default; out: the
 * limit in force); the open fd, or -errno.
 */
static int bts_configure_limit(pid_t pid, uint32_t flags, uint64_t bytes,
			       uint32_t *limit)
{
	struct lwpt_bts_config cfg = {
		.size = sizeof(cfg), .flags = flags, .pid = pid,
		.buffer_size = bytes, .hold_limit_ms = *limit,
	};
	int fd = open("/dev/bts", O_RDWR | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, LWPT_BTS_IOC_CONFIGURE, &cfg)) {
		e = errno;
		close(fd);
		return -e;
	}
	*limit = cfg.hold_limit_ms;
	return fd;
}

/*
 * CONFIGURE; the open fd, or -errno. A ring holds its thread without a
 * limit: these readers wait for records whatever the load.
 */
static int bts_configure(pid_t pid, uint32_t flags, uint64_t bytes)
{
	uint32_t limit = (flags & LWPT_BTS_CFG_RING) ? LWPT_BTS_HOLD_LIMIT_NONE : 0;

	return bts_configure_limit(pid, flags, bytes, &limit);
}

/*
 * A user-mode ring of @bytes on child @pid, mapped at *@ring, its status
 * in *@rs; the fd, or -1 with the child killed and the reason printed
 * after "@who: ".
 */
static int ring_attach(const char *who, pid_t pid, uint64_t bytes,
		       const struct lwpt_bts_record **ring, struct lwpt_bts_ring *rs)
{
	int fd = bts_configure(pid, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_RING, bytes);

	if (fd < 0) {
		printf("%s: configure: %s\n", who, errname(-fd));
		kill(pid, SIGKILL);
		return -1;
	}
	*ring = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (*ring == MAP_FAILED || ioctl(fd, LWPT_BTS_IOC_RING_STATUS, rs)) {
		printf("%s: mmap/RING_STATUS: %s\n", who, strerror(errno));
		kill(pid, SIGKILL);
		return -1;
	}
	return fd;
}

/* The workload @n times (the ring's long run). */
static void __attribute__((noinline)) workload_n(unsigned int n)
{
	while (n--)
		workload();
}

/* Pin the calling thread to @cpu; exits 125 if it cannot. */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		exit(125);
}

/*
 * A child, pinned to @cpu unless it is negative, that runs the workload
 * @reps times once a byte comes on the pipe @go (the caller writes it and
 * closes the read end once its children are made); the pid, or -1 (fork
 * failed).
 */
static pid_t spawn_gated_on(int go[2], unsigned int reps, int cpu)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		char c;

		if (cpu >= 0)
			pin(cpu);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		workload_n(reps);
		_exit(0);
	}
	return pid;
}

/* One unpinned gated child (spawn_gated_on()), @go's read end closed. */
static pid_t spawn_gated(int go[2], unsigned int reps)
{
	pid_t pid = spawn_gated_on(go, reps, -1);

	close(go[0]);
	return pid;
}

/*
 * IPs of the workload run @reps times by single-stepping it in a child
 * (its section only).
 */
static size_t ground_truth_n(uint64_t *ips, size_t max, unsigned int reps)
{
	struct user_regs_struct regs;
	size_t n = 0;
	pid_t pid = fork();
	int st;

	if (pid < 0)
		exit(125);
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		workload_n(reps);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
		exit(125);
	for (;;) {
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			exit(125);
		if (in_wl(regs.rip) && n < max)
			ips[n++] = regs.rip;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			exit(125);
		if (waitpid(pid, &st, 0) != pid)
			exit(125);
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
	}
	return n;
}

static size_t ground_truth(uint64_t *ips, size_t max)
{
	return ground_truth_n(ips, max, 1);
}

static uint8_t insn_len(uint64_t ip)
{
	struct x86_cofi c;

	if (x86_cofi_decode((const uint8_t *)(uintptr_t)ip, X86_MAX_INSN_LEN,
			    X86_MODE_64, &c))
		return 0;
	return c.len;
}

/*
 * A record into the kernel whose FROM is not a far transfer (SYSCALL, INT
 * n): an interrupt or a fault taken there; FROM is the instruction not yet
 * executed (SDM 17.4.8; the model's bts_step()).
 */
static bool async_at(uint64_t from)
{
	struct x86_cofi c;

	if (x86_cofi_decode((const uint8_t *)(uintptr_t)from, X86_MAX_INSN_LEN,
			    X86_MODE_64, &c))
		return false;
	return c.kind < X86_COFI_JMP_FAR;
}

#define KERNEL_HALF	0xffff800000000000ull

/* Say where decode() stopped, with the records around it; -1. */
static long undecodable(const struct lwpt_bts_record *r, size_t nrec, size_t i,
			uint64_t ip)
{
	size_t k;

	fprintf(stderr, "record %zu of %zu: no instruction decodes at %#llx\n", i, nrec,
		(unsigned long long)ip);
	for (k = i >= 3 ? i - 3 : 0; k < nrec && k <= i + 3; k++)
		fprintf(stderr, "  record %zu: %#llx -> %#llx flags %#llx\n", k,
			(unsigned long long)r[k].from, (unsigned long long)r[k].to,
			(unsigned long long)r[k].flags);
	return -1;
}

/* Walk from each record's "to" to the next record's "from". */
static long decode(const struct lwpt_bts_record *r, size_t nrec, uint64_t *ips,
		   size_t max)
{
	size_t i, n = 0, guard;
	bool skip_end;

	for (i = 0; i + 1 < nrec; i++) {
		uint64_t ip = r[i].to, end = r[i + 1].from;
		uint8_t len;

		if (ip >= KERNEL_HALF) {
			/*
			 * Into the kernel: user mode resumes after the branch,
			 * or at the instruction an interrupt came before.
			 */
			if (r[i].from >= KERNEL_HALF)
				continue;
			len = insn_len(r[i].from);
			if (!len)
				return undecodable(r, nrec, i, r[i].from);
			ip = r[i].from + (async_at(r[i].from) ? 0 : len);
		}
		if (end >= KERNEL_HALF)
			continue;	/* a kernel record: user-only has none */
		/* Interrupted before @end: it runs after the interrupt. */
		skip_end = r[i + 1].to >= KERNEL_HALF && async_at(end);
		for (guard = 0; ; guard++) {
			if (guard > 100000) {
				fprintf(stderr, "record %zu: no way from %#llx to %#llx\n",
					i, (unsigned long long)r[i].to,
					(unsigned long long)end);
				return -1;
			}
			if (ip == end && skip_end)
				break;
			if (in_wl(ip)) {
				if (n == max)
					return -1;
				ips[n++] = ip;
			}
			if (ip == end)
				break;
			len = insn_len(ip);
			if (!len)
				return undecodable(r, nrec, i, ip);
			ip += len;
		}
	}
	return n;
}

/*
 * Decode @n records (at most @max instructions into @got) and compare
 * with the ground truth @gt (@ngt instructions, not 0); 0 if equal, else
 * says where they part, prefixed with @who.
 */
static int flow_compare(const char *who, const struct lwpt_bts_record *r, size_t n,
			const uint64_t *gt, size_t ngt, uint64_t *got, size_t max)
{
	long ngot = decode(r, n, got, max);
	size_t i;

	if (ngot < 0) {
		printf("%s: decode failed (%zu records)\n", who, n);
		return 1;
	}
	for (i = 0; i < ngt && i < (size_t)ngot; i++)
		if (gt[i] != got[i])
			break;
	if (i != ngt || (size_t)ngot != ngt || !ngt) {
		printf("%s: differs at instruction %zu (ground truth %zu, decoded %ld, records %zu): %#llx vs %#llx\n",
		       who, i, ngt, ngot, n, i < ngt ? (unsigned long long)gt[i] : 0ull,
		       i < (size_t)ngot ? (unsigned long long)got[i] : 0ull);
		return 1;
	}
	return 0;
}

#define FLOW_MAX	200000
#define FLOW_BUF	(4ull << 20)

static int cmd_flow(uint32_t flags)
{
	uint64_t *gt = calloc(FLOW_MAX, sizeof(*gt));
	uint64_t *got = calloc(FLOW_MAX, sizeof(*got));
	struct lwpt_bts_status st = { .size = sizeof(st) };
	const struct lwpt_bts_record *rec;
	size_t ngt, nrec;
	int fd;

	if (!gt || !got)
		return 125;
	ngt = ground_truth(gt, FLOW_MAX);
	fd = bts_configure(0, flags, FLOW_BUF);
	if (fd < 0) {
		printf("configure: %s\n", errname(-fd));
		return 1;
	}
	workload();
	if (ioctl(fd, LWPT_BTS_IOC_STOP) || ioctl(fd, LWPT_BTS_IOC_STATUS, &st)) {
		perror("stop/status");
		return 1;
	}
	rec = mmap(NULL, FLOW_BUF, PROT_READ, MAP_SHARED, fd, 0);
	if (rec == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	nrec = st.head / sizeof(*rec);
	if (flow_compare("flow", rec, nrec, gt, ngt, got, FLOW_MAX)) {
		printf("flow: status flags %#x\n", st.flags);
		return 1;
	}
	printf("flow: %zu instructions, %zu records, equal\n", ngt, nrec);
	return 0;
}

#define RING_MAX_RECS	(1u << 18)

/*
 * RING_STATUS as callers built against ABI 1.7-1.10 issue it (the 56-byte
 * command, size 56): the same answer without hold_timeouts, nothing
 * written past 56 bytes; a 1.11 struct whose size says 56 the same; a
 * command whose size is below version 0 is no RING_STATUS (ENOTTY).
 * @want is the 1.11 answer. 0 if all hold, else 1 with the reason.
 */
static int ring_status_versions(int fd, const struct lwpt_bts_ring *want)
{
	struct lwpt_bts_ring r;
	unsigned int k;

	for (k = 0; k < 2; k++) {
		memset(&r, 0xa5, sizeof(r));
		r.size = LWPT_BTS_RING_SIZE_VER0;
		if (ioctl(fd, k ? LWPT_BTS_IOC_RING_STATUS : LWPT_BTS_IOC_RING_STATUS_VER0, &r) ||
		    r.size != LWPT_BTS_RING_SIZE_VER0 || r.holds != want->holds ||
		    r.records_size != want->records_size ||
		    r.hold_timeouts != 0xa5a5a5a5a5a5a5a5ull) {
			printf("ring-status: version 0 through %s: size %u, holds %llu, byte 56 %#llx\n",
			       k ? "the 1.11 command" : "the 1.10 command", r.size,
			       (unsigned long long)r.holds, (unsigned long long)r.hold_timeouts);
			return 1;
		}
	}
	r.size = sizeof(r);
	if (!ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, LWPT_IOC_MAGIC, 0x74, 32), &r) ||
	    errno != ENOTTY) {
		printf("ring-status: a 32-byte command: %s, want ENOTTY\n", errname(errno));
		return 1;
	}
	return 0;
}

/*
 * A ring capture of a child that waits on a pipe, then runs the workload
 * @reps times: the parent drains it whenever poll(2) says records wait
 * (no timeout: the threshold interrupt or the end wakes it), skipping
 * padding, until POLLHUP and nothing left.
 */
static int cmd_ring(uint64_t bytes, unsigned int reps)
{
	uint64_t *gt = calloc(FLOW_MAX * 4, sizeof(*gt));
	uint64_t *got = calloc(FLOW_MAX * 4, sizeof(*got));
	struct lwpt_bts_record *all = calloc(RING_MAX_RECS, sizeof(*all));
	struct lwpt_bts_ring rs = { .size = sizeof(rs) };
	const struct lwpt_bts_record *ring;
	size_t ngt, nall = 0, pads = 0, drains = 0;
	int go[2], fd, st;
	pid_t pid;

	if (!gt || !got || !all || pipe(go))
		return 125;
	fprintf(stderr, "ring: single-stepping the ground truth (%u runs)\n", reps);
	ngt = ground_truth_n(gt, FLOW_MAX * 4, reps);
	/*
	 * Progress on stderr, which the VM's watcher sees and $(...) does
	 * not take: at a load of 12 a skid-60 run stayed silent past the
	 * case's limit on silence (a slow run, not a hang).
	 */
	fprintf(stderr, "ring: ground truth %zu instructions; recording\n", ngt);
	pid = spawn_gated(go, reps);
	if (pid < 0)
		return 125;
	fd = ring_attach("ring", pid, bytes, &ring, &rs);
	if (fd < 0)
		return 1;
	if (write(go[1], "g", 1) != 1)
		return 125;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t t;

		if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs)) {
			perror("RING_STATUS");
			return 1;
		}
		for (t = rs.tail; t < rs.head; t += sizeof(*ring)) {
			const struct lwpt_bts_record *r = &ring[(t % rs.records_size) / sizeof(*ring)];

			if (!r->from && !r->to) {
				pads++;
				continue;
			}
			if (nall == RING_MAX_RECS) {
				printf("ring: more than %u records\n", RING_MAX_RECS);
				return 1;
			}
			all[nall++] = *r;
		}
		if (t != rs.tail) {
			drains++;
			if (ioctl(fd, LWPT_BTS_IOC_CONSUME, &t)) {
				perror("CONSUME");
				return 1;
			}
			/* A line every 8 laps of the ring. */
			if (t / (8 * rs.records_size) != rs.tail / (8 * rs.records_size))
				fprintf(stderr, "ring: %llu bytes of records drained\n",
					(unsigned long long)t);
		}
		if (!(rs.flags & LWPT_BTS_ST_RECORDING)) {
			/* Ended: one last look after the final head. */
			if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs))
				return 1;
			if (rs.head == t)
				break;
		}
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("ring: child status %#x (%s %d)\n", st,
		       WIFSIGNALED(st) ? "killed by signal" : "exit",
		       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return 1;
	}
	if (flow_compare("ring", all, nall, gt, ngt, got, FLOW_MAX * 4))
		return 1;
	printf("ring: %zu instructions, %zu records (%llu bytes through a %llu-byte ring, margin %llu), %zu padding, %zu drains, %llu interrupts, %llu holds, equal\n",
	       ngt, nall, (unsigned long long)rs.head,
	       (unsigned long long)rs.records_size, (unsigned long long)rs.margin,
	       pads, drains, (unsigned long long)rs.pmis,
	       (unsigned long long)rs.holds);
	if (rs.head <= rs.records_size || !rs.pmis) {
		printf("ring: the run did not go round the ring\n");
		return 1;
	}
	return 0;
}

/* The hang guard of the waits below: far beyond a slow run at load 8. */
#define WAKE_GUARD_S	60

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Whether the thread of /proc directory @dir sleeps (state S) in system
 * call @nr or @nr2 now (/proc/.../syscall: its number first, "running"
 * when it runs).
 */
static bool asleep_in(const char *dir, long nr, long nr2)
{
	char path[96], buf[512], *p;
	long cur;
	FILE *f;

	snprintf(path, sizeof(path), "%s/syscall", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fscanf(f, "%ld", &cur) != 1)
		cur = -1;
	fclose(f);
	if (cur != nr && cur != nr2)
		return false;
	snprintf(path, sizeof(path), "%s/stat", dir);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] == 'S';
}

/*
 * Wait until the thread of @dir sleeps in system call @nr or @nr2 (an
 * event: no time is assumed; WAKE_GUARD_S only bounds a hang).
 */
static bool wait_asleep_in(const char *dir, long nr, long nr2)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	double end = now_s() + WAKE_GUARD_S;

	while (!asleep_in(dir, nr, nr2)) {
		if (now_s() > end)
			return false;
		nanosleep(&ms, NULL);
	}
	return true;
}

/**
 * struct wake_go - what the releasing thread of cmd_ring_wake() needs
 * @reader: /proc/self/task/TID of the thread that polls
 * @go: the pipe end the child waits on
 * @released: the child was let go (the reader was asleep in poll(2))
 */
struct wake_go {
	char reader[64];
	int go;
	bool released;
};

/* Let the child run once the reader sleeps in poll(2) (or ppoll(2)). */
static void *wake_release(void *arg)
{
	struct wake_go *w = arg;

	if (wait_asleep_in(w->reader, SYS_poll, SYS_ppoll) &&
	    write(w->go, "g", 1) == 1)
		w->released = true;
	return NULL;
}

/* Copy records tail..head of a ring out and consume them; false on error. */
static bool ring_take(int fd, const struct lwpt_bts_record *ring,
		      struct lwpt_bts_ring *rs, struct lwpt_bts_record *all,
		      size_t *nall)
{
	uint64_t t;

	if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, rs)) {
		perror("RING_STATUS");
		return false;
	}
	for (t = rs->tail; t < rs->head; t += sizeof(*ring)) {
		const struct lwpt_bts_record *r = &ring[(t % rs->records_size) / sizeof(*ring)];

		if (!r->from && !r->to)
			continue;	/* padding */
		if (*nall == RING_MAX_RECS) {
			printf("ring-wake: more than %u records\n", RING_MAX_RECS);
			return false;
		}
		all[(*nall)++] = *r;
	}
	if (t != rs->tail && ioctl(fd, LWPT_BTS_IOC_CONSUME, &t)) {
		perror("CONSUME");
		return false;
	}
	return true;
}

/*
 * The wake of a switch (Documentation/bts.rst, "Ring captures"): a ring
 * capture of a child that runs the workload once, then blocks reading a
 * pipe this process writes only after poll(2) reported the child's
 * records. One run is far less than the ring's threshold and the child
 * does not end: only the unload of its state as it blocks publishes the
 * head, and the reader, already asleep in poll(2), must be woken by it.
 * The child is let go by a thread of this process once /proc shows the
 * reader asleep in poll(2) (and captured only once asleep in read(2), so
 * that nothing is published before). Then the rest till the end, decoded,
 * equals single-stepping. Exit 0 when woken and equal.
 */
static int cmd_ring_wake(uint64_t bytes)
{
	uint64_t *gt = calloc(FLOW_MAX, sizeof(*gt));
	uint64_t *got = calloc(FLOW_MAX, sizeof(*got));
	struct lwpt_bts_record *all = calloc(RING_MAX_RECS, sizeof(*all));
	struct lwpt_bts_ring rs = { .size = sizeof(rs) };
	const struct lwpt_bts_record *ring;
	struct itimerspec gspec = { .it_value = { .tv_sec = WAKE_GUARD_S } };
	struct pollfd pfd, pfd2[2];
	struct wake_go w = { .released = false };
	int go[2], back[2], fd, st, n, guard;
	char child[64];
	size_t ngt, nall = 0;
	pthread_t th;
	pid_t pid;

	if (!gt || !got || !all || pipe(go) || pipe(back))
		return 125;
	ngt = ground_truth(gt, FLOW_MAX);
	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid) {
		char c;

		close(go[1]);
		close(back[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		workload_n(1);
		if (read(back[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	close(back[0]);
	snprintf(child, sizeof(child), "/proc/%d", (int)pid);
	if (!wait_asleep_in(child, SYS_read, SYS_read)) {
		printf("ring-wake: the child never slept in read(2)\n");
		kill(pid, SIGKILL);
		return 1;
	}
	fd = ring_attach("ring-wake", pid, bytes, &ring, &rs);
	if (fd < 0)
		return 1;
	if (rs.head) {
		printf("ring-wake: %llu bytes published before the child ran\n",
		       (unsigned long long)rs.head);
		kill(pid, SIGKILL);
		return 1;
	}
	snprintf(w.reader, sizeof(w.reader), "/proc/self/task/%ld",
		 (long)syscall(SYS_gettid));
	w.go = go[1];
	guard = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (guard < 0 || timerfd_settime(guard, 0, &gspec, NULL) ||
	    pthread_create(&th, NULL, wake_release, &w))
		return 125;
	/*
	 * The guard is a timerfd beside the capture, not poll(2)'s timeout:
	 * at its timeout poll(2) looks at the file once more and would
	 * report the records the switch published without a wake.
	 */
	pfd2[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	pfd2[1] = (struct pollfd){ .fd = guard, .events = POLLIN };
	n = poll(pfd2, 2, -1);
	pthread_join(th, NULL);
	if (n < 0 || ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs)) {
		perror("ring-wake: poll/RING_STATUS");
		kill(pid, SIGKILL);
		return 1;
	}
	pfd = pfd2[0];
	if (pfd2[1].revents) {
		printf("ring-wake: poll(2) not woken in %d s (child %s, %llu bytes published, %llu interrupts): the switch's head woke nobody\n",
		       WAKE_GUARD_S, w.released ? "let go" : "never let go",
		       (unsigned long long)rs.head, (unsigned long long)rs.pmis);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	if (!(pfd.revents & POLLIN) || !rs.head || rs.pmis ||
	    !(rs.flags & LWPT_BTS_ST_RECORDING)) {
		printf("ring-wake: woken with revents %#x, head %llu, %llu interrupts, flags %#x: not by a switch\n",
		       pfd.revents, (unsigned long long)rs.head,
		       (unsigned long long)rs.pmis, rs.flags);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return 1;
	}
	fprintf(stderr, "ring-wake: woken at %llu bytes published, no interrupt\n",
		(unsigned long long)rs.head);
	if (!ring_take(fd, ring, &rs, all, &nall) || write(back[1], "b", 1) != 1) {
		kill(pid, SIGKILL);
		return 1;
	}
	/* The rest, till the end (exit: the last unload, POLLHUP). */
	for (;;) {
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		n = poll(&pfd, 1, WAKE_GUARD_S * 1000);
		if (n < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		if (!n) {
			printf("ring-wake: no end in %d s\n", WAKE_GUARD_S);
			kill(pid, SIGKILL);
			return 1;
		}
		if (!ring_take(fd, ring, &rs, all, &nall))
			return 1;
		if (!(rs.flags & LWPT_BTS_ST_RECORDING)) {
			uint64_t t = rs.head;

			if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs))
				return 1;
			if (rs.head == t)
				break;
		}
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("ring-wake: child status %#x\n", st);
		return 1;
	}
	if (flow_compare("ring-wake", all, nall, gt, ngt, got, FLOW_MAX))
		return 1;
	printf("ring-wake: woken by the switch, %zu instructions, %zu records, %llu interrupts, equal\n",
	       ngt, nall, (unsigned long long)rs.pmis);
	return 0;
}

/* What the child of cmd_ring_sig() counts, in memory both processes map. */
struct sig_counts {
	volatile unsigned long rounds;	/* workload runs */
	volatile unsigned long sigs;	/* SIGUSR1 handler runs */
};

static struct sig_counts *sig_counts;

static void on_usr1(int sig)
{
	(void)sig;
	sig_counts->sigs++;
}

/*
 * Whether @pid sleeps (state S or D) in the BTS hold's wait
 * (/proc/PID/wchan names bts_thread_hold). Whether signals get through is
 * what SIGSTOP tells.
 */
static bool held_asleep(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool in_hold;

	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	in_hold = fgets(buf, sizeof(buf), f) && !strncmp(buf, "bts_thread_hold", 15);
	fclose(f);
	if (!in_hold)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	p = p ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && (p[2] == 'S' || p[2] == 'D');
}

/*
 * Wait until @pid sleeps in the hold and the ring's holds exceed @holds
 * (RING_STATUS into @rs); false at the hang guard.
 */
static bool wait_held(int fd, pid_t pid, uint64_t holds, struct lwpt_bts_ring *rs)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	double end = now_s() + WAKE_GUARD_S;

	for (;;) {
		if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, rs))
			return false;
		if (rs->holds > holds && held_asleep(pid))
			return true;
		if (now_s() > end)
			return false;
		nanosleep(&ms, NULL);
	}
}

/*
 * Signals during the hold (Documentation/bts.rst, "Ring captures"): a
 * ring capture of a child that runs the workload in a loop, counting its
 * rounds and its SIGUSR1 handler's runs in shared memory, whose reader
 * consumes nothing: the child is held (asleep in the hold). SIGSTOP
 * stops it there; after SIGCONT it is held again (a new hold counted),
 * its rounds unchanged; SIGUSR1 is delivered and the hold queued again at
 * once: held again before the handler's first instruction (handler not
 * run, rounds unchanged). Then the reader drains
 * the ring: the handler runs, the rounds go on. SIGKILL ends it. Exit 0
 * when all as said; the hang guard of each wait is 60 s.
 */
static int cmd_ring_sig(void)
{
	const struct timespec ms = { .tv_nsec = 1000000 };
	struct lwpt_bts_ring rs = { .size = sizeof(rs) };
	unsigned long rounds;
	uint64_t holds, t;
	int go[2], fd, st, r;
	double end;
	pid_t pid;

	sig_counts = mmap(NULL, sizeof(*sig_counts), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sig_counts == MAP_FAILED || pipe(go))
		return 125;
	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid) {
		struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
		char c;

		close(go[1]);
		if (sigaction(SIGUSR1, &sa, NULL) || read(go[0], &c, 1) != 1)
			_exit(1);
		for (;;) {
			workload();
			sig_counts->rounds++;
		}
	}
	close(go[0]);
	/* 8 KiB: a margin of 85 records, beyond the case's skid of 60. */
	fd = bts_configure(pid, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_RING, 8192);
	if (fd < 0) {
		printf("ring-sig: configure: %s\n", errname(-fd));
		kill(pid, SIGKILL);
		return 1;
	}
	if (write(go[1], "g", 1) != 1)
		return 125;
	r = 1;
	if (!wait_held(fd, pid, 0, &rs)) {
		printf("ring-sig: the child never slept in the hold (holds %llu)\n",
		       (unsigned long long)rs.holds);
		goto out;
	}
	rounds = sig_counts->rounds;
	holds = rs.holds;
	kill(pid, SIGSTOP);
	for (end = now_s() + WAKE_GUARD_S;;) {
		pid_t w = waitpid(pid, &st, WNOHANG | WUNTRACED);

		if (w == pid && WIFSTOPPED(st))
			break;
		if (w || now_s() > end) {
			printf("ring-sig: SIGSTOP did not stop the held child (waitpid %d, status %#x): the hold lets no signal through\n",
			       (int)w, w ? st : 0);
			goto out;
		}
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGCONT);
	if (!wait_held(fd, pid, holds, &rs) || sig_counts->rounds != rounds) {
		printf("ring-sig: after SIGCONT: holds %llu (was %llu), rounds %lu (was %lu): not held again\n",
		       (unsigned long long)rs.holds, (unsigned long long)holds,
		       sig_counts->rounds, rounds);
		goto out;
	}
	holds = rs.holds;
	kill(pid, SIGUSR1);
	if (!wait_held(fd, pid, holds, &rs) || sig_counts->rounds != rounds ||
	    sig_counts->sigs) {
		printf("ring-sig: after SIGUSR1: holds %llu (was %llu), rounds %lu (was %lu), handler runs %lu: not held again before the handler\n",
		       (unsigned long long)rs.holds, (unsigned long long)holds,
		       sig_counts->rounds, rounds, sig_counts->sigs);
		goto out;
	}
	holds = rs.holds;
	/* Room: the handler runs, then the rounds go on. */
	for (end = now_s() + WAKE_GUARD_S;;) {
		if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs))
			goto out;
		t = rs.head;
		if (ioctl(fd, LWPT_BTS_IOC_CONSUME, &t)) {
			perror("CONSUME");
			goto out;
		}
		if (sig_counts->sigs == 1 && sig_counts->rounds > rounds + 2)
			break;
		if (now_s() > end) {
			printf("ring-sig: drained, yet handler runs %lu, rounds %lu (was %lu)\n",
			       sig_counts->sigs, sig_counts->rounds, rounds);
			goto out;
		}
		nanosleep(&ms, NULL);
	}
	printf("ring-sig: held, stopped and held again, SIGUSR1 delivered and held again before its handler (%llu holds), ran on once drained\n",
	       (unsigned long long)holds);
	r = 0;
out:
	kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
		printf("ring-sig: child status %#x\n", st);
		r = 1;
	}
	close(fd);
	return r;
}

static int failures;
static int bts_configure_cpu(unsigned int cpu, uint32_t flags, uint64_t bytes,
			     uint32_t *bad);

#define EXPECT(cond, ...) do {						\
	if (!(cond)) {							\
		printf("FAIL: " __VA_ARGS__);				\
		printf("\n");						\
		failures++;						\
	}								\
} while (0)

/* CONFIGURE with @cfg on a new file: 0 or errno. */
static int try_cfg(struct lwpt_bts_config *cfg)
{
	int fd = open("/dev/bts", O_RDWR | O_CLOEXEC), r;

	if (fd < 0)
		return errno;
	r = ioctl(fd, LWPT_BTS_IOC_CONFIGURE, cfg) ? errno : 0;
	close(fd);
	return r;
}

static void on_guard(int sig)
{
	static const char msg[] = "ring-limit: hang guard (60 s): the reader's wait never ended\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/*
 * The hold limit (Documentation/bts.rst, "Ring captures"; PT's rule,
 * issue 39 point 3): a reader that waits for its traced child without
 * consuming. (a) The child runs the workload 10 times through an 8 KiB
 * ring with a limit of @ms; the reader only waitpid()s: the child is held
 * for the limit, runs on without room and ends; the ring says
 * LWPT_BTS_ST_HOLD_TIMEOUT. (b) A child that runs for ever: once its hold
 * timed out, a CONSUME gives it room at once (it may sit on a stretch of
 * length 0, without an interrupt) and it is held again (holds grows).
 * (c) 0 is written back as the default, NONE stays NONE, a linear capture
 * with a limit is EINVAL. Exit 0 when all as said.
 */
static int cmd_ring_limit(uint32_t ms)
{
	const struct timespec nap = { .tv_nsec = 1000000 };
	struct lwpt_bts_ring rs = { .size = sizeof(rs) };
	uint32_t limit = ms, lim0 = 0, limn = LWPT_BTS_HOLD_LIMIT_NONE, liml = 5;
	uint64_t holds, t;
	int go[2], fd, fd0, fdn, st, r = 1;
	double end;
	pid_t pid;

	signal(SIGALRM, on_guard);
	if (pipe(go))
		return 125;
	pid = spawn_gated(go, 10);
	if (pid < 0)
		return 125;
	fd = bts_configure_limit(pid, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_RING, 8192, &limit);
	if (fd < 0 || limit != ms) {
		printf("ring-limit: configure: %s, limit %u\n",
		       errname(fd < 0 ? -fd : 0), limit);
		kill(pid, SIGKILL);
		return 1;
	}
	if (write(go[1], "g", 1) != 1)
		return 125;
	alarm(WAKE_GUARD_S);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
		printf("ring-limit: child status %#x\n", st);
		return 1;
	}
	alarm(0);
	rs.size = sizeof(rs);
	if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs) ||
	    !(rs.flags & LWPT_BTS_ST_HOLD_TIMEOUT) || !rs.holds ||
	    rs.size != LWPT_BTS_RING_SIZE_VER1 || !rs.hold_timeouts ||
	    rs.hold_timeouts > rs.holds) {
		printf("ring-limit: (a) flags %#x, %llu holds, size %u, %llu timeouts: no hold timed out\n",
		       rs.flags, (unsigned long long)rs.holds, rs.size,
		       (unsigned long long)rs.hold_timeouts);
		return 1;
	}
	if (ring_status_versions(fd, &rs))
		return 1;
	printf("ring-limit: (a) a reader waiting for its child without consuming: the child ran on after %u ms (%llu holds, %llu timed out, HOLD_TIMEOUT)\n",
	       ms, (unsigned long long)rs.holds, (unsigned long long)rs.hold_timeouts);
	close(fd);

	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid) {
		for (;;)
			workload();
	}
	limit = ms;
	fd = bts_configure_limit(pid, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_RING, 8192, &limit);
	if (fd < 0) {
		printf("ring-limit: (b) configure: %s\n", errname(-fd));
		goto out;
	}
	for (end = now_s() + WAKE_GUARD_S;;) {
		if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs))
			goto out;
		if (rs.flags & LWPT_BTS_ST_HOLD_TIMEOUT)
			break;
		if (now_s() > end) {
			printf("ring-limit: (b) no hold timed out in %d s (%llu holds)\n",
			       WAKE_GUARD_S, (unsigned long long)rs.holds);
			goto out;
		}
		nanosleep(&nap, NULL);
	}
	holds = rs.holds;
	t = rs.head;
	if (ioctl(fd, LWPT_BTS_IOC_CONSUME, &t)) {
		perror("CONSUME");
		goto out;
	}
	for (end = now_s() + WAKE_GUARD_S;;) {
		if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs))
			goto out;
		if (rs.holds > holds)
			break;
		if (now_s() > end) {
			printf("ring-limit: (b) consumed, yet not held again in %d s (head %llu, tail %llu, %llu holds)\n",
			       WAKE_GUARD_S, (unsigned long long)rs.head,
			       (unsigned long long)rs.tail, (unsigned long long)rs.holds);
			goto out;
		}
		nanosleep(&nap, NULL);
	}
	printf("ring-limit: (b) after the limit, a CONSUME gave the child room and it was held again (%llu holds)\n",
	       (unsigned long long)rs.holds);

	close(fd);
	fd = -1;
	fd0 = bts_configure_limit(pid, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_RING, 8192, &lim0);
	if (fd0 >= 0)
		close(fd0);
	fdn = bts_configure_limit(pid, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_RING, 8192, &limn);
	if (fdn >= 0)
		close(fdn);
	{
		struct lwpt_bts_config c = {
			.size = sizeof(c), .flags = LWPT_BTS_CFG_USER,
			.pid = pid, .buffer_size = 8192, .hold_limit_ms = liml,
		};
		int e = try_cfg(&c);

		if (fd0 < 0 || lim0 != LWPT_BTS_HOLD_LIMIT_DEFAULT_MS || fdn < 0 ||
		    limn != LWPT_BTS_HOLD_LIMIT_NONE || e != EINVAL ||
		    c.bad_field != LWPT_BTS_FIELD_RESERVED) {
			printf("ring-limit: (c) 0: %s limit %u; NONE: %s limit %#x; linear with a limit: %s bad_field %u\n",
			       errname(fd0 < 0 ? -fd0 : 0), lim0,
			       errname(fdn < 0 ? -fdn : 0), limn, errname(e), c.bad_field);
			goto out;
		}
	}
	printf("ring-limit: (c) 0 -> %u ms, NONE stays, linear with a limit EINVAL\n", lim0);
	r = 0;
out:
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (fd >= 0)
		close(fd);
	return r;
}

/*
 * Whether the thread of a ring capture must wait for room before its next
 * user instruction, as of this RING_STATUS: the stretch the kernel gives
 * from the head is no longer than the margin (Documentation/bts.rst,
 * "Ring captures"; kmod/bts/bts_ring.c: the end of the ring is padded
 * when the start has a margin of room more).
 */
static bool ring_must_hold(const struct lwpt_bts_ring *rs)
{
	uint64_t ring = rs->records_size, used = rs->head - rs->tail;
	uint64_t free = ring - (used < ring ? used : ring);
	uint64_t end_room = ring - rs->head % ring;

	if (end_room <= rs->margin && free >= end_room + rs->margin + 24) {
		free -= end_room;
		end_room = ring;
	}
	return (end_room < free ? end_room : free) <= rs->margin;
}

/*
 * The ring ioctls with random arguments on a live ring capture of a child
 * that runs the workload until killed: CONSUME of any value is refused
 * unless a whole-record tail between the last one and the head; then,
 * nothing consumed any more, the child fills the ring and is held: it
 * dies at SIGKILL; closing the file frees it all.
 */
static void fuzz_ring(void)
{
	struct lwpt_bts_ring rs = { .size = sizeof(rs) };
	unsigned int i;
	int fd, st;
	pid_t pid = fork();

	if (pid < 0)
		return;
	if (!pid) {
		for (;;)
			workload();
	}
	fd = bts_configure(pid, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_RING, 4096);
	EXPECT(fd >= 0, "ring of a child: %s", errname(fd < 0 ? -fd : 0));
	for (i = 0; fd >= 0 && i < 2000; i++) {
		unsigned char junk[64];
		unsigned int j;
		uint64_t t;
		int r;

		for (j = 0; j < sizeof(junk); j++)
			junk[j] = rand();
		ioctl(fd, _IOC(rand() % 4, LWPT_IOC_MAGIC, 0x73 + rand() % 5,
			       rand() % 64), junk);
		if (ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs)) {
			EXPECT(0, "RING_STATUS: %s", strerror(errno));
			break;
		}
		memcpy(&t, junk, sizeof(t));
		r = ioctl(fd, LWPT_BTS_IOC_CONSUME, &t);
		EXPECT(r ? errno == EINVAL : (t % 24 == 0 && t >= rs.tail),
		       "CONSUME %#llx: %d", (unsigned long long)t, r ? errno : 0);
		if (i % 3 == 0) {
			/* Now and then all of it: the held child goes on. */
			t = rs.head;
			EXPECT(!ioctl(fd, LWPT_BTS_IOC_CONSUME, &t), "CONSUME head");
		}
	}
	/*
	 * Nothing consumed any more: once the head published leaves the
	 * child no stretch longer than a margin, it holds before its next
	 * user instruction, and only the signal ends that.
	 */
	while (fd >= 0 && !ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs) &&
	       (rs.flags & LWPT_BTS_ST_RECORDING) && !ring_must_hold(&rs))
		sched_yield();
	EXPECT(fd < 0 || ring_must_hold(&rs), "child held: flags %#x head %llu tail %llu",
	       rs.flags, (unsigned long long)rs.head, (unsigned long long)rs.tail);
	kill(pid, SIGKILL);
	EXPECT(waitpid(pid, &st, 0) == pid && WIFSIGNALED(st), "child killed");
	if (fd >= 0)
		close(fd);
}

static int cmd_args(void)
{
	struct lwpt_bts_config good = {
		.size = sizeof(good), .flags = LWPT_BTS_CFG_USER,
		.buffer_size = 1 << 16,
	}, c;
	struct lwpt_bts_status st = { .size = sizeof(st) };
	unsigned int i;
	void *p;
	int fd, r;

	c = good; c.size = 16;
	EXPECT(try_cfg(&c) == EINVAL, "size 16");
	c = good; c.reserved0 = 1;
	EXPECT(try_cfg(&c) == EINVAL && c.bad_field == LWPT_BTS_FIELD_RESERVED,
	       "reserved0: bad_field %u", c.bad_field);
	c = good; c.reserved1 = 1;
	EXPECT(try_cfg(&c) == EINVAL, "reserved1");
	c = good; c.flags = 0;
	EXPECT(try_cfg(&c) == EINVAL && c.bad_field == LWPT_BTS_FIELD_FLAGS, "flags 0");
	c = good; c.flags = 4;
	EXPECT(try_cfg(&c) == EINVAL, "flags 4");
	c = good; c.buffer_size = 0;
	EXPECT(try_cfg(&c) == EINVAL && c.bad_field == LWPT_BTS_FIELD_BUFFER_SIZE,
	       "buffer 0");
	c = good; c.buffer_size = 4095;
	EXPECT(try_cfg(&c) == EINVAL, "buffer 4095");
	c = good; c.buffer_size = 6000;
	EXPECT(try_cfg(&c) == EINVAL, "buffer 6000");
	c = good; c.buffer_size = 128ull << 20;
	EXPECT(try_cfg(&c) == EINVAL, "buffer 128 MiB");
	c = good; c.buffer_size = ~0ull & ~4095ull;
	EXPECT(try_cfg(&c) == EINVAL, "buffer huge");
	c = good; c.pid = -1;
	EXPECT(try_cfg(&c) == EINVAL && c.bad_field == LWPT_BTS_FIELD_PID, "pid -1");
	c = good; c.pid = 0x3fffffff;
	EXPECT(try_cfg(&c) == ESRCH, "pid none");
	c = good; c.pid = 2;	/* kthreadd */
	EXPECT(try_cfg(&c) == EINVAL, "kernel thread");

	fd = open("/dev/bts", O_RDWR | O_CLOEXEC);
	EXPECT(fd >= 0, "open");
	EXPECT(ioctl(fd, LWPT_BTS_IOC_CONFIGURE, NULL) && errno == EFAULT, "NULL");
	EXPECT(ioctl(fd, LWPT_BTS_IOC_CONFIGURE, (void *)16) && errno == EFAULT, "bad pointer");
	EXPECT(ioctl(fd, LWPT_BTS_IOC_STATUS, NULL) && errno == EFAULT, "STATUS NULL");
	EXPECT(ioctl(fd, LWPT_BTS_IOC_STOP) && errno == ENODATA, "STOP before CONFIGURE");
	p = mmap(NULL, 1 << 16, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(p == MAP_FAILED && errno == ENODATA, "mmap before CONFIGURE");
	EXPECT(!ioctl(fd, LWPT_BTS_IOC_STATUS, &st) && st.flags == 0, "STATUS before");
	st.size = 8;
	EXPECT(ioctl(fd, LWPT_BTS_IOC_STATUS, &st) && errno == EINVAL, "STATUS size 8");
	c = good;
	EXPECT(!ioctl(fd, LWPT_BTS_IOC_CONFIGURE, &c), "CONFIGURE: %s", strerror(errno));
	c = good;
	EXPECT(ioctl(fd, LWPT_BTS_IOC_CONFIGURE, &c) && errno == EBUSY, "CONFIGURE twice");
	r = try_cfg(&good);
	EXPECT(r == EBUSY, "a second capture of the same thread: %s", errname(r));
	p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT(p == MAP_FAILED && errno == EPERM, "writable mmap");
	p = mmap(NULL, 1 << 17, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(p == MAP_FAILED && errno == EINVAL, "mmap beyond the buffer");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096);
	EXPECT(p == MAP_FAILED && errno == EINVAL, "mmap at an offset");
	p = mmap(NULL, 1 << 16, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT(p != MAP_FAILED, "mmap");
	if (p != MAP_FAILED) {
		EXPECT(mprotect(p, 4096, PROT_READ | PROT_WRITE) && errno == EACCES,
		       "mprotect writable");
		munmap(p, 1 << 16);
	}
	st.size = sizeof(st);
	EXPECT(!ioctl(fd, LWPT_BTS_IOC_STATUS, &st) &&
	       (st.flags & LWPT_BTS_ST_RECORDING) && st.buffer_size == 1 << 16,
	       "STATUS while recording: flags %#x", st.flags);
	EXPECT(!ioctl(fd, LWPT_BTS_IOC_STOP), "STOP");
	EXPECT(!ioctl(fd, LWPT_BTS_IOC_STOP), "STOP again");
	EXPECT(!ioctl(fd, LWPT_BTS_IOC_STATUS, &st) &&
	       !(st.flags & LWPT_BTS_ST_RECORDING) && st.head % 24 == 0,
	       "STATUS after STOP: flags %#x head %llu", st.flags,
	       (unsigned long long)st.head);
	EXPECT(ioctl(fd, _IO(LWPT_IOC_MAGIC, 0x7f)) && errno == ENOTTY, "unknown");
	/* ABI 1.7: the ring ioctls on a linear capture, before CONFIGURE. */
	{
		struct lwpt_bts_ring rs = { .size = sizeof(rs) };
		uint64_t t = 0;
		int h;

		EXPECT(ioctl(fd, LWPT_BTS_IOC_CONSUME, &t) && errno == EINVAL,
		       "CONSUME on a linear capture");
		EXPECT(ioctl(fd, LWPT_BTS_IOC_RING_STATUS, &rs) && errno == EINVAL,
		       "RING_STATUS on a linear capture");
		EXPECT(ioctl(fd, LWPT_BTS_IOC_CONSUME, NULL) && errno == EFAULT,
		       "CONSUME NULL");
		h = open("/dev/bts", O_RDWR | O_CLOEXEC);
		EXPECT(ioctl(h, LWPT_BTS_IOC_CONSUME, &t) && errno == ENODATA,
		       "CONSUME before CONFIGURE");
		EXPECT(ioctl(h, LWPT_BTS_IOC_RING_STATUS, &rs) && errno == ENODATA,
		       "RING_STATUS before CONFIGURE");
		rs.size = 8;
		EXPECT(ioctl(h, LWPT_BTS_IOC_RING_STATUS, &rs) && errno == EINVAL,
		       "RING_STATUS size 8");
		close(h);
		c = good;
		c.flags |= LWPT_BTS_CFG_RING;
		EXPECT(try_cfg(&c) == EINVAL && c.bad_field == LWPT_BTS_FIELD_PID,
		       "a ring of the calling thread");
		c = good;
		c.flags = LWPT_BTS_CFG_USER | LWPT_BTS_CFG_SWITCH_TSC;
		EXPECT(try_cfg(&c) == EINVAL && c.bad_field == LWPT_BTS_FIELD_FLAGS,
		       "flag bit 3 (SWITCH_TSC: per-CPU only)");
	}
	/* ABI 1.7: per-CPU captures and their switch records. */
	{
		struct lwpt_bts_switches rd = { .size = sizeof(rd) };
		struct lwpt_bts_switch one;
		uint32_t bad;
		bool priv = geteuid() == 0;
		int h = bts_configure_cpu(0, LWPT_BTS_CFG_USER, 1 << 16, &bad);

		EXPECT(ioctl(fd, LWPT_BTS_IOC_READ_SWITCHES, &rd) && errno == EINVAL,
		       "READ_SWITCHES of a per-thread capture");
		if (!priv) {
			EXPECT(h == -EPERM && bad == LWPT_BTS_FIELD_CPU,
			       "per-CPU unprivileged: %d bad_field %u", h, bad);
		} else {
			EXPECT(h >= 0, "per-CPU as root: %s", errname(h < 0 ? -h : 0));
			rd.records = (uintptr_t)&one;
			rd.capacity = 1;
			EXPECT(h < 0 || !ioctl(h, LWPT_BTS_IOC_READ_SWITCHES, &rd),
			       "READ_SWITCHES: %s", strerror(errno));
			memset(&rd, 0, sizeof(rd));
			rd.size = sizeof(rd);
			rd.capacity = 1000;
			rd.records = 16;
			EXPECT(h < 0 || ioctl(h, LWPT_BTS_IOC_READ_SWITCHES, &rd) == 0 ||
			       errno == EFAULT, "READ_SWITCHES to a bad pointer");
			rd.copied = 1;
			EXPECT(h < 0 || (ioctl(h, LWPT_BTS_IOC_READ_SWITCHES, &rd) &&
					 errno == EINVAL), "READ_SWITCHES copied != 0");
			rd.copied = 0;
			rd.size = 8;
			EXPECT(h < 0 || (ioctl(h, LWPT_BTS_IOC_READ_SWITCHES, &rd) &&
					 errno == EINVAL), "READ_SWITCHES size 8");
			EXPECT(h < 0 || (ioctl(h, LWPT_BTS_IOC_READ_SWITCHES, NULL) &&
					 errno == EFAULT), "READ_SWITCHES NULL");
			EXPECT(h < 0 || !ioctl(h, LWPT_BTS_IOC_STOP), "per-CPU STOP");
			if (h >= 0)
				close(h);
		}
		h = open("/dev/bts", O_RDWR | O_CLOEXEC);
		memset(&rd, 0, sizeof(rd));
		rd.size = sizeof(rd);
		EXPECT(ioctl(h, LWPT_BTS_IOC_READ_SWITCHES, &rd) && errno == ENODATA,
		       "READ_SWITCHES before CONFIGURE");
		EXPECT(ioctl(h, LWPT_BTS_IOC_CONFIGURE_CPU, NULL) && errno == EFAULT,
		       "CONFIGURE_CPU NULL");
		close(h);
	}
	/* Random commands and arguments in the range (the fuzz of issue 37). */
	srand(37);
	for (i = 0; i < 2000; i++) {
		unsigned char junk[64];
		unsigned int nr = 0x70 + rand() % 0x20, dir = rand() % 4;
		unsigned int size = rand() % 64, j;
		int g;

		for (j = 0; j < sizeof(junk); j++)
			junk[j] = rand();
		if (rand() % 2) {
			/* A plausible CONFIGURE: size right, the rest random. */
			memcpy(junk, &good.size, 4);
			size = sizeof(good);
		}
		g = open("/dev/bts", O_RDWR | O_CLOEXEC);
		if (g < 0)
			continue;
		ioctl(g, _IOC(dir, LWPT_IOC_MAGIC, nr, size), junk);
		ioctl(g, LWPT_BTS_IOC_CONFIGURE, junk);
		ioctl(g, LWPT_BTS_IOC_STATUS, junk);
		ioctl(g, LWPT_BTS_IOC_CONSUME, junk);
		ioctl(g, LWPT_BTS_IOC_RING_STATUS, junk);
		ioctl(g, LWPT_BTS_IOC_READ_SWITCHES, junk);
		if (rand() % 2) {
			/* A plausible CONFIGURE_CPU: size right, the rest random. */
			uint32_t sz = sizeof(struct lwpt_bts_cpu_config);

			memcpy(junk, &sz, 4);
		}
		ioctl(g, LWPT_BTS_IOC_CONFIGURE_CPU, junk);
		ioctl(g, LWPT_BTS_IOC_READ_SWITCHES, junk);
		close(g);
	}
	fuzz_ring();
	close(fd);
	printf("args: %d failure(s)\n", failures);
	return !!failures;
}

#define VICTIM_LO	0x30000000ull
#define VICTIM_HI	0x40000000ull

static int cmd_exec(int stop, char **argv)
{
	struct lwpt_bts_status st = { .size = sizeof(st) };
	const struct lwpt_bts_record *r;
	size_t i, n, victim = 0;
	pid_t pid = fork();
	int fd, ws;

	if (pid < 0)
		return 125;
	if (!pid) {
		raise(SIGSTOP);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &ws, WUNTRACED) != pid || !WIFSTOPPED(ws))
		return 125;
	fd = bts_configure(pid, LWPT_BTS_CFG_USER, FLOW_BUF);
	if (fd < 0) {
		printf("configure: %s\n", errname(-fd));
		kill(pid, SIGKILL);
		return 1;
	}
	kill(pid, SIGCONT);
	if (waitpid(pid, &ws, 0) != pid)
		return 125;
	if (ioctl(fd, LWPT_BTS_IOC_STATUS, &st))
		return 125;
	r = mmap(NULL, FLOW_BUF, PROT_READ, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED)
		return 125;
	n = st.head / sizeof(*r);
	for (i = 0; i < n; i++)
		if ((r[i].from >= VICTIM_LO && r[i].from < VICTIM_HI) ||
		    (r[i].to >= VICTIM_LO && r[i].to < VICTIM_HI))
			victim++;
	printf("exec: flags %#x, %zu records, %zu in the program's text\n",
	       st.flags, n, victim);
	if (stop)
		return !(st.flags & LWPT_BTS_ST_EXEC_STOPPED) || victim;
	return (st.flags & LWPT_BTS_ST_EXEC_STOPPED) || !victim;
}

#define RFLAGS_TF	0x100ull	/* SDM Vol. 1 3.4.3.3 */

static int sf_fd = -1;
static volatile sig_atomic_t sf_got;
static volatile uint64_t sf_rflags[2];

/*
 * The handlers of cmd_sigframe(): the RFLAGS the frame saved, then STOP,
 * so that the capture no longer wants the thread when sigreturn restores
 * that RFLAGS (a SIGILL returns past its UD2).
 */
static void sf_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int k = sig == SIGUSR1;

	(void)si;
	sf_rflags[k] = (uint64_t)uc->uc_mcontext.gregs[REG_EFL];
	if (!k)
		uc->uc_mcontext.gregs[REG_RIP] += 2;
	ioctl(sf_fd, LWPT_BTS_IOC_STOP);
	sf_got |= 1 << k;
}

/*
 * A signal whose frame the kernel builds while the model's execution
 * follower single-steps the thread (a fault, an interrupt or the
 * follower's own #DB, never a system call: sys_enter takes the
 * follower's TF off), and whose handler ends the capture: sigreturn must
 * not bring back a TF nobody owns (a SIGTRAP after the next instruction).
 * Two captures in turn: a UD2's SIGILL (synchronous) and a SIGUSR1 that a
 * child sends while this thread spins in user mode on sf_got.
 */
static int cmd_sigframe(void)
{
	struct sigaction sa = { .sa_sigaction = sf_handler, .sa_flags = SA_SIGINFO };
	int go[2], st, k;
	pid_t pid;
	char c;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGILL, &sa, NULL) || sigaction(SIGUSR1, &sa, NULL) ||
	    pipe(go))
		return 125;
	for (k = 0; k < 2; k++) {
		sf_fd = bts_configure(0, LWPT_BTS_CFG_USER, 1ull << 16);
		if (sf_fd < 0) {
			printf("sigframe: configure: %s\n", errname(-sf_fd));
			return 1;
		}
		workload();
		if (!k) {
			__asm__ volatile("ud2");
		} else {
			pid = fork();
			if (pid < 0)
				return 125;
			if (!pid) {
				if (read(go[0], &c, 1) != 1)
					_exit(1);
				kill(getppid(), SIGUSR1);
				_exit(0);
			}
			if (write(go[1], "g", 1) != 1)
				return 125;
			/* User mode only until the handler ran. */
			while (!(sf_got & 2))
				;
			if (waitpid(pid, &st, 0) != pid)
				return 125;
		}
		/* Instructions after sigreturn: a stray TF traps at the first. */
		workload();
		close(sf_fd);
	}
	printf("sigframe: SIGILL frame rflags %#llx, SIGUSR1 frame rflags %#llx, no SIGTRAP after sigreturn\n",
	       (unsigned long long)sf_rflags[0], (unsigned long long)sf_rflags[1]);
	if ((sf_rflags[0] | sf_rflags[1]) & RFLAGS_TF) {
		printf("sigframe: RFLAGS.TF in a signal frame\n");
		return 1;
	}
	return 0;
}

static void on_term(int sig)
{
	(void)sig;
	_exit(0);
}

/*
 * One /dev/pt CONFIGURE, user branches, stop mode, 8 KiB: per-thread of
 * @pid (@thread) or per-CPU on every CPU. Holds it until SIGTERM if @hold.
 */
static int cmd_pt(int thread, pid_t pid, int hold)
{
	struct lwpt_pt_config c;
	int fd = open("/dev/pt", O_RDWR | O_CLOEXEC), r = 0;

	if (fd < 0) {
		printf("%s\n", errname(errno));
		return 1;
	}
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = LWPT_PT_CFG_USER | LWPT_PT_CFG_BRANCH;
	c.mode = LWPT_PT_MODE_STOP;
	c.scope = thread ? LWPT_PT_SCOPE_THREAD : LWPT_PT_SCOPE_CPU;
	c.pid = thread ? pid : 0;
	c.buffer_size = 8192;
	c.region_size = 4096;
	if (ioctl(fd, LWPT_PT_IOC_CONFIGURE, &c)) {
		r = errno;
		/* One 8 KiB region without MENTRY (bdw). */
		c.region_size = 0;
		if (r == EOPNOTSUPP || r == EINVAL)
			r = ioctl(fd, LWPT_PT_IOC_CONFIGURE, &c) ? errno : 0;
	}
	printf("%s\n", r ? errname(r) : hold ? "held" : "ok");
	fflush(stdout);
	if (r || !hold) {
		close(fd);
		return !!r;
	}
	for (;;)
		pause();
}

/* CONFIGURE_CPU; the open fd, or -errno (*bad the bad_field). */
static int bts_configure_cpu(unsigned int cpu, uint32_t flags, uint64_t bytes,
			     uint32_t *bad)
{
	struct lwpt_bts_cpu_config cc = {
		.size = sizeof(cc), .flags = flags, .cpu = cpu, .buffer_size = bytes,
	};
	int fd = open("/dev/bts", O_RDWR | O_CLOEXEC), e;

	*bad = 0;
	if (fd < 0)
		return -errno;
	if (ioctl(fd, LWPT_BTS_IOC_CONFIGURE_CPU, &cc)) {
		e = errno;
		*bad = cc.bad_field;
		close(fd);
		return -e;
	}
	return fd;
}

#define CPU_MAX_SW	65536

/*
 * The records of thread @tid in a per-CPU capture: the buffer cut at each
 * switch's head (before it, prev's records), the pieces of @tid joined.
 * Returns the count; *segs the pieces, *others records of other threads;
 * -1 if the switch records contradict each other.
 */
static long cpu_records_of(const struct lwpt_bts_record *rec, uint64_t end,
			   const struct lwpt_bts_switch *sw, size_t nsw, pid_t tid,
			   struct lwpt_bts_record *out, size_t max, size_t *segs,
			   size_t *others)
{
	uint64_t from = 0;
	size_t i, n = 0;
	pid_t owner = -1;

	*segs = 0;
	*others = 0;
	for (i = 0; i <= nsw; i++) {
		uint64_t to = i < nsw ? sw[i].head : end, b;
		pid_t who = i < nsw ? sw[i].prev_tid : sw[nsw - 1].next_tid;

		if (i < nsw && owner >= 0 && owner != sw[i].prev_tid) {
			printf("cpu: switch %zu: prev %d, but %d was switched in\n",
			       i, sw[i].prev_tid, owner);
			return -1;
		}
		if (to < from || to > end) {
			printf("cpu: switch %zu: head %llu out of order\n", i,
			       (unsigned long long)to);
			return -1;
		}
		for (b = from; b < to; b += sizeof(*rec)) {
			if (who != tid) {
				(*others)++;
				continue;
			}
			if (n == max)
				return -1;
			out[n++] = rec[b / sizeof(*rec)];
		}
		if (who == tid && to > from)
			(*segs)++;
		from = to;
		if (i < nsw)
			owner = sw[i].next_tid;
	}
	return n;
}

/*
 * Two children pinned to @cpu run the workload @reps times at once, so
 * that the CPU switches between them; each one's records, cut out by the
 * switch records, must decode to the single-stepped run.
 */
static int cmd_cpu(unsigned int cpu, unsigned int reps)
{
	uint64_t *gt = calloc(FLOW_MAX * 4, sizeof(*gt));
	uint64_t *got = calloc(FLOW_MAX * 4, sizeof(*got));
	struct lwpt_bts_record *mine = calloc(RING_MAX_RECS, sizeof(*mine));
	struct lwpt_bts_switch *sw = calloc(CPU_MAX_SW, sizeof(*sw));
	struct lwpt_bts_status st = { .size = sizeof(st) };
	struct lwpt_bts_switches rd;
	const struct lwpt_bts_record *rec;
	size_t ngt, nsw = 0, segs[2], others[2];
	long n[2];
	uint64_t lost = 0;
	int go[2], fd, stt, k;
	pid_t pid[2];
	uint32_t bad;

	if (!gt || !got || !mine || !sw || pipe(go))
		return 125;
	ngt = ground_truth_n(gt, FLOW_MAX * 4, reps);
	pin(cpu ? 0 : 1);
	for (k = 0; k < 2; k++) {
		pid[k] = spawn_gated_on(go, reps, (int)cpu);
		if (pid[k] < 0)
			return 125;
	}
	close(go[0]);
	fd = bts_configure_cpu(cpu, LWPT_BTS_CFG_USER, FLOW_BUF, &bad);
	if (fd < 0) {
		printf("cpu: configure: %s (bad_field %u)\n", errname(-fd), bad);
		kill(pid[0], SIGKILL);
		kill(pid[1], SIGKILL);
		return 1;
	}
	if (write(go[1], "gg", 2) != 2)
		return 125;
	for (k = 0; k < 2; k++)
		if (waitpid(pid[k], &stt, 0) != pid[k] || !WIFEXITED(stt) ||
		    WEXITSTATUS(stt)) {
			printf("cpu: child status %#x\n", stt);
			return 1;
		}
	if (ioctl(fd, LWPT_BTS_IOC_STOP) || ioctl(fd, LWPT_BTS_IOC_STATUS, &st)) {
		perror("cpu: stop/status");
		return 1;
	}
	if (st.flags & LWPT_BTS_ST_FULL) {
		printf("cpu: the buffer filled\n");
		return 1;
	}
	for (;;) {
		memset(&rd, 0, sizeof(rd));
		rd.size = sizeof(rd);
		rd.capacity = CPU_MAX_SW - nsw;
		rd.records = (uintptr_t)&sw[nsw];
		if (ioctl(fd, LWPT_BTS_IOC_READ_SWITCHES, &rd)) {
			perror("cpu: READ_SWITCHES");
			return 1;
		}
		nsw += rd.copied;
		lost = rd.lost;
		if (!rd.copied || nsw == CPU_MAX_SW)
			break;
	}
	if (lost || !nsw) {
		printf("cpu: %zu switches, %llu lost\n", nsw, (unsigned long long)lost);
		return 1;
	}
	for (k = 0; k < (int)nsw; k++)
		if (sw[k].cpu != cpu) {
			printf("cpu: switch %d on cpu %u\n", k, sw[k].cpu);
			return 1;
		}
	rec = mmap(NULL, FLOW_BUF, PROT_READ, MAP_SHARED, fd, 0);
	if (rec == MAP_FAILED) {
		perror("cpu: mmap");
		return 1;
	}
	for (k = 0; k < 2; k++) {
		n[k] = cpu_records_of(rec, st.head, sw, nsw, pid[k], mine,
				      RING_MAX_RECS, &segs[k], &others[k]);
		if (n[k] < 0 || flow_compare(k ? "cpu: child 2" : "cpu: child 1", mine, n[k],
					    gt, ngt, got, FLOW_MAX * 4))
			return 1;
	}
	printf("cpu: %zu instructions each, children's records %ld in %zu stretches and %ld in %zu, %zu of other threads, %zu switches, equal\n",
	       ngt, n[0], segs[0], n[1], segs[1], others[0] - (size_t)n[1], nsw);
	return 0;
}

/* Read every switch record of per-CPU capture @fd (@rsize bytes each). */
static long cpu_read_all(int fd, void *out, size_t rsize, size_t max, uint64_t *lost)
{
	struct lwpt_bts_switches rd;
	size_t n = 0;

	for (;;) {
		memset(&rd, 0, sizeof(rd));
		rd.size = sizeof(rd);
		rd.capacity = max - n;
		rd.records = (uintptr_t)((char *)out + n * rsize);
		if (ioctl(fd, LWPT_BTS_IOC_READ_SWITCHES, &rd))
			return -errno;
		n += rd.copied;
		*lost = rd.lost;
		if (!rd.copied || n == max)
			return n;
	}
}

/* One stretch of a thread's records on one CPU, placed in time. */
struct mig_piece {
	unsigned int cpu;
	uint64_t from, to;	/* byte positions in the CPU's buffer */
	uint64_t time;		/* TSC of the switch ending it (of the last: beginning it) */
};

/*
 * A child migrates itself CPU 0 -> CPU 1 -> CPU 0 (sched_setaffinity()
 * between three runs of the workload) while both CPUs have a per-CPU
 * capture with LWPT_BTS_CFG_SWITCH_TSC (ABI 1.10). Its pieces of both
 * CPUs, ordered by the TSC of their switches, joined and decoded, must
 * equal the single-stepped run; it must have run on both CPUs.
 */
static int cmd_cpu_mig(unsigned int reps)
{
	uint64_t *gt = calloc(FLOW_MAX * 4, sizeof(*gt));
	uint64_t *got = calloc(FLOW_MAX * 4, sizeof(*got));
	struct lwpt_bts_record *mine = calloc(RING_MAX_RECS, sizeof(*mine));
	struct lwpt_bts_switch_tsc *sw[2];
	struct mig_piece pc[512], t;
	const struct lwpt_bts_record *rec[2];
	struct lwpt_bts_status st[2];
	size_t ngt, nsw[2], npc = 0, n = 0, on[2] = { 0, 0 }, i, j;
	uint64_t lost, from;
	int go[2], fd[2], stt, c;
	uint32_t bad;
	long r;
	pid_t pid;

	sw[0] = calloc(CPU_MAX_SW, sizeof(*sw[0]));
	sw[1] = calloc(CPU_MAX_SW, sizeof(*sw[1]));
	if (!gt || !got || !mine || !sw[0] || !sw[1] || pipe(go))
		return 125;
	ngt = ground_truth_n(gt, FLOW_MAX * 4, 3 * reps);
	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid) {
		char ch;

		pin(0);
		close(go[1]);
		if (read(go[0], &ch, 1) != 1)
			_exit(1);
		workload_n(reps);
		pin(1);		/* moved there before the call returns */
		workload_n(reps);
		pin(0);
		workload_n(reps);
		_exit(0);
	}
	close(go[0]);
	for (c = 0; c < 2; c++) {
		fd[c] = bts_configure_cpu(c, LWPT_BTS_CFG_USER | LWPT_BTS_CFG_SWITCH_TSC,
					  FLOW_BUF, &bad);
		if (fd[c] < 0) {
			printf("cpu-mig: configure cpu %d: %s (bad_field %u)\n", c,
			       errname(-fd[c]), bad);
			kill(pid, SIGKILL);
			return 1;
		}
	}
	if (write(go[1], "g", 1) != 1)
		return 125;
	if (waitpid(pid, &stt, 0) != pid || !WIFEXITED(stt) || WEXITSTATUS(stt)) {
		printf("cpu-mig: child status %#x\n", stt);
		return 1;
	}
	for (c = 0; c < 2; c++) {
		memset(&st[c], 0, sizeof(st[c]));
		st[c].size = sizeof(st[c]);
		if (ioctl(fd[c], LWPT_BTS_IOC_STOP) || ioctl(fd[c], LWPT_BTS_IOC_STATUS, &st[c])) {
			perror("cpu-mig: stop/status");
			return 1;
		}
		if (st[c].flags & LWPT_BTS_ST_FULL) {
			printf("cpu-mig: cpu %d: the buffer filled\n", c);
			return 1;
		}
		r = cpu_read_all(fd[c], sw[c], sizeof(*sw[c]), CPU_MAX_SW, &lost);
		if (r <= 0 || lost) {
			printf("cpu-mig: cpu %d: %ld switches, %llu lost\n", c, r,
			       (unsigned long long)lost);
			return 1;
		}
		nsw[c] = (size_t)r;
		for (i = 0; i < nsw[c]; i++)
			if (sw[c][i].sw.cpu != (uint32_t)c || !sw[c][i].tsc ||
			    (i && (sw[c][i].tsc < sw[c][i - 1].tsc ||
				   sw[c][i].sw.head < sw[c][i - 1].sw.head))) {
				printf("cpu-mig: cpu %d: switch %zu: cpu %u tsc %llu head %llu\n",
				       c, i, sw[c][i].sw.cpu, (unsigned long long)sw[c][i].tsc,
				       (unsigned long long)sw[c][i].sw.head);
				return 1;
			}
		rec[c] = mmap(NULL, FLOW_BUF, PROT_READ, MAP_SHARED, fd[c], 0);
		if (rec[c] == MAP_FAILED) {
			perror("cpu-mig: mmap");
			return 1;
		}
		/* The child's pieces of this CPU (as cpu_records_of()). */
		from = 0;
		for (i = 0; i <= nsw[c]; i++) {
			uint64_t to = i < nsw[c] ? sw[c][i].sw.head : st[c].head;
			pid_t who = i < nsw[c] ? sw[c][i].sw.prev_tid :
				    sw[c][nsw[c] - 1].sw.next_tid;

			if (to < from || to > st[c].head) {
				printf("cpu-mig: cpu %d: switch %zu: head %llu out of order\n",
				       c, i, (unsigned long long)to);
				return 1;
			}
			if (who == pid && to > from) {
				if (npc == sizeof(pc) / sizeof(pc[0])) {
					printf("cpu-mig: more than %zu pieces\n", npc);
					return 1;
				}
				pc[npc].cpu = (unsigned int)c;
				pc[npc].from = from;
				pc[npc].to = to;
				pc[npc++].time = sw[c][i < nsw[c] ? i : nsw[c] - 1].tsc;
				on[c]++;
			}
			from = to;
		}
	}
	if (!on[0] || !on[1]) {
		printf("cpu-mig: the child's pieces: %zu on cpu 0, %zu on cpu 1\n", on[0], on[1]);
		return 1;
	}
	/* In time: the pieces of one thread never overlap. */
	for (i = 1; i < npc; i++)
		for (j = i; j > 0 && pc[j - 1].time > pc[j].time; j--) {
			t = pc[j];
			pc[j] = pc[j - 1];
			pc[j - 1] = t;
		}
	for (i = 0; i < npc; i++)
		for (from = pc[i].from; from < pc[i].to; from += sizeof(*mine)) {
			if (n == RING_MAX_RECS)
				return 1;
			mine[n++] = rec[pc[i].cpu][from / sizeof(*mine)];
		}
	if (flow_compare("cpu: the migrating child", mine, n, gt, ngt, got, FLOW_MAX * 4))
		return 1;
	printf("cpu-mig: %zu instructions, records %zu in %zu pieces (%zu on cpu 0, %zu on cpu 1), %zu + %zu switches, in TSC order equal\n",
	       ngt, n, npc, on[0], on[1], nsw[0], nsw[1]);
	return 0;
}

/*
 * The size of the switch records: 32 bytes without LWPT_BTS_CFG_SWITCH_TSC
 * (what callers before ABI 1.10 get), 40 with it, never a byte more.
 */
static int cmd_cpu_sizes(void)
{
	unsigned char buf[4 * sizeof(struct lwpt_bts_switch_tsc)];
	size_t rsize, i;
	uint64_t lost;
	int k, fd, stt;
	uint32_t bad;
	long r;
	pid_t pid;

	for (k = 0; k < 2; k++) {
		int go[2];

		rsize = k ? sizeof(struct lwpt_bts_switch_tsc) : sizeof(struct lwpt_bts_switch);
		if (pipe(go))
			return 125;
		pid = fork();
		if (pid < 0)
			return 125;
		if (!pid) {
			char ch;

			pin(0);
			close(go[1]);
			_exit(read(go[0], &ch, 1) != 1);
		}
		close(go[0]);
		fd = bts_configure_cpu(0, LWPT_BTS_CFG_USER | (k ? LWPT_BTS_CFG_SWITCH_TSC : 0),
				       1 << 16, &bad);
		if (fd < 0) {
			printf("cpu-sizes: configure: %s (bad_field %u)\n", errname(-fd), bad);
			kill(pid, SIGKILL);
			return 1;
		}
		/* The child runs on CPU 0 and exits there: switches there. */
		if (write(go[1], "g", 1) != 1 || waitpid(pid, &stt, 0) != pid)
			return 125;
		close(go[1]);
		if (ioctl(fd, LWPT_BTS_IOC_STOP)) {
			perror("cpu-sizes: stop");
			return 1;
		}
		memset(buf, 0xaa, sizeof(buf));
		r = cpu_read_all(fd, buf, rsize, 3, &lost);
		close(fd);
		if (r < 2) {
			printf("cpu-sizes: %zu-byte records: %ld read\n", rsize, r);
			return 1;
		}
		for (i = (size_t)r * rsize; i < sizeof(buf); i++)
			if (buf[i] != 0xaa) {
				printf("cpu-sizes: %zu-byte records: %ld read, byte %zu written\n",
				       rsize, r, i);
				return 1;
			}
		for (i = 0; i < (size_t)r; i++) {
			struct lwpt_bts_switch_tsc s = { 0 };

			memcpy(&s, buf + i * rsize, rsize);
			if (s.sw.cpu != 0 || (k && !s.tsc)) {
				printf("cpu-sizes: %zu-byte record %zu: cpu %u tsc %llu\n", rsize,
				       i, s.sw.cpu, (unsigned long long)s.tsc);
				return 1;
			}
		}
		printf("cpu-sizes: %ld records of %zu bytes\n", r, rsize);
	}
	return 0;
}

static int cmd_cpu_try(unsigned int cpu, uint32_t flags, uint64_t bytes, int hold)
{
	uint32_t bad;
	int fd = bts_configure_cpu(cpu, flags, bytes, &bad);

	if (fd < 0) {
		printf("%s %u\n", errname(-fd), bad);
		return 1;
	}
	struct lwpt_bts_status st = { .size = sizeof(st) };
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("%s\n", hold ? "held" : "ok");
	fflush(stdout);
	if (!hold) {
		close(fd);
		return 0;
	}
	/* At SIGTERM: the capture's STATUS flags, then exit. */
	if (sigwait(&set, &sig) || ioctl(fd, LWPT_BTS_IOC_STATUS, &st))
		return 1;
	printf("flags %#x\n", st.flags);
	return 0;
}

#define SPIN __attribute__((noinline, section("bts_spin")))

extern const char __start_bts_spin[], __stop_bts_spin[];

/* The other process's loop: its branches must never reach a capture. */
static SPIN void spin_forever(volatile unsigned long *count)
{
	for (;;)
		++*count;
}

static int in_spin(uint64_t ip)
{
	return ip >= (uintptr_t)__start_bts_spin && ip < (uintptr_t)__stop_bts_spin;
}

#define STOP_OTHERS_ROUNDS	20

/*
 * STOP as the capture's own thread, with another process spinning in user
 * mode on the same CPU: STOP sleeps (it waits for a grace period), the
 * other process runs meanwhile, and not one of its branches may land in
 * the buffer or, with an LBR stack, in the stack read after STOP.
 */
static int cmd_stop_others(void)
{
	volatile unsigned long *count = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	size_t nrec = 0, leaked = 0, lbr_leaked = 0, ran = 0, k;
	uint32_t flags = LWPT_BTS_CFG_USER | LWPT_BTS_CFG_LBR;
	unsigned int round;
	int fd, st;
	pid_t pid;

	if (count == MAP_FAILED)
		return 125;
	pin(0);
	pid = fork();
	if (pid < 0)
		return 125;
	if (!pid)
		spin_forever(count);
	while (!*count)
		sched_yield();
	for (round = 0; round < STOP_OTHERS_ROUNDS; round++) {
		struct lwpt_bts_status bs = { .size = sizeof(bs) };
		struct lwpt_bts_lbr l = { .size = sizeof(l), .which = LWPT_BTS_LBR_NOW };
		const struct lwpt_bts_record *rec;
		unsigned long before;

		fd = bts_configure(0, flags, 1ull << 20);
		if (fd == -EOPNOTSUPP && (flags & LWPT_BTS_CFG_LBR)) {
			flags &= ~LWPT_BTS_CFG_LBR;	/* no LBR on this profile */
			fd = bts_configure(0, flags, 1ull << 20);
		}
		if (fd < 0) {
			printf("stop-others: configure: %s\n", errname(-fd));
			kill(pid, SIGKILL);
			return 1;
		}
		workload();
		before = *count;
		if (ioctl(fd, LWPT_BTS_IOC_STOP) || ioctl(fd, LWPT_BTS_IOC_STATUS, &bs)) {
			perror("stop/status");
			kill(pid, SIGKILL);
			return 1;
		}
		ran += *count != before;
		rec = mmap(NULL, 1ull << 20, PROT_READ, MAP_SHARED, fd, 0);
		if (rec == MAP_FAILED) {
			perror("mmap");
			kill(pid, SIGKILL);
			return 1;
		}
		for (k = 0; k < bs.head / sizeof(*rec); k++)
			leaked += in_spin(rec[k].from) || in_spin(rec[k].to);
		nrec += bs.head / sizeof(*rec);
		if ((flags & LWPT_BTS_CFG_LBR) && !ioctl(fd, LWPT_BTS_IOC_LBR_SNAPSHOT, &l))
			for (k = 0; k < l.nr && k < LWPT_LBR_ENTRIES_MAX; k++)
				lbr_leaked += in_spin(l.entries[k].from) ||
					      in_spin(l.entries[k].to);
		munmap((void *)rec, 1ull << 20);
		close(fd);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	printf("stop-others: %u stops, the other process ran during %zu, %zu records, %zu of its branches recorded, %zu in the LBR stack%s\n",
	       STOP_OTHERS_ROUNDS, ran, nrec, leaked, lbr_leaked,
	       (flags & LWPT_BTS_CFG_LBR) ? "" : " (no LBR)");
	return leaked || lbr_leaked || !ran || !nrec;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc >= 2 && !strcmp(argv[1], "flow"))
		return cmd_flow(argc >= 3 ? parse_flags(argv[2]) : LWPT_BTS_CFG_USER);
	if (argc == 5 && !strcmp(argv[1], "try")) {
		fd = bts_configure(atoi(argv[2]), parse_flags(argv[3]),
				   strtoull(argv[4], NULL, 0));
		printf("%s\n", fd < 0 ? errname(-fd) : "ok");
		return fd < 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "exec"))
		return cmd_exec(!strcmp(argv[2], "stop"), argv + 3);
	if (argc == 4 && !strcmp(argv[1], "ring"))
		return cmd_ring(strtoull(argv[2], NULL, 0),
				(unsigned int)strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "ring-wake"))
		return cmd_ring_wake(strtoull(argv[2], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "ring-limit"))
		return cmd_ring_limit((uint32_t)strtoul(argv[2], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "ring-sig"))
		return cmd_ring_sig();
	if (argc == 4 && !strcmp(argv[1], "cpu"))
		return cmd_cpu((unsigned int)strtoul(argv[2], NULL, 0),
			       (unsigned int)strtoul(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "cpu-mig"))
		return cmd_cpu_mig((unsigned int)strtoul(argv[2], NULL, 0));
	if (argc == 2 && !strcmp(argv[1], "cpu-sizes"))
		return cmd_cpu_sizes();
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "cpu-try"))
		return cmd_cpu_try((unsigned int)strtoul(argv[2], NULL, 0),
				   parse_flags(argv[3]), strtoull(argv[4], NULL, 0),
				   argc == 6);
	if (argc == 2 && !strcmp(argv[1], "sigframe"))
		return cmd_sigframe();
	if (argc == 2 && !strcmp(argv[1], "args"))
		return cmd_args();
	if (argc == 2 && !strcmp(argv[1], "stop-others"))
		return cmd_stop_others();
	if (argc >= 4 && argc <= 5 && !strcmp(argv[1], "pt")) {
		signal(SIGTERM, on_term);
		return cmd_pt(!strcmp(argv[2], "thread"), atoi(argv[3]),
			      argc == 5 && !strcmp(argv[4], "hold"));
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "hold")) {
		signal(SIGTERM, on_term);
		fd = bts_configure(argc == 3 ? atoi(argv[2]) : 0,
				   LWPT_BTS_CFG_USER, 1ull << 16);
		printf("%s\n", fd < 0 ? errname(-fd) : "held");
		fflush(stdout);
		if (fd < 0)
			return 1;
		for (;;)
			pause();
	}
	fprintf(stderr, "usage: bts_test flow [user|all] | ring BYTES N | ring-wake BYTES | ring-sig | ring-limit MS | cpu CPU N | cpu-mig N | cpu-sizes | cpu-try CPU FLAGS BYTES [hold] | try PID FLAGS BYTES | sigframe | stop-others | args | hold [PID] | pt thread|cpu PID [hold]\n");
	return 2;
}
