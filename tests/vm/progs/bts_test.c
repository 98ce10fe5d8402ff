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
 *   bts_test hold              CONFIGURE on itself, prints "held", then
 *                              waits for SIGTERM (another CONFIGURE of the
 *                              same thread is EBUSY meanwhile)
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
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/lwpt/bts.h>

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

/* CONFIGURE; the open fd, or -errno. */
static int bts_configure(pid_t pid, uint32_t flags, uint64_t bytes)
{
	struct lwpt_bts_config cfg = {
		.size = sizeof(cfg), .flags = flags, .pid = pid,
		.buffer_size = bytes,
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

/* IPs of the workload by single-stepping it in a child (its section only). */
static size_t ground_truth(uint64_t *ips, size_t max)
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
		workload();
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

static uint8_t insn_len(uint64_t ip)
{
	struct x86_cofi c;

	if (x86_cofi_decode((const uint8_t *)(uintptr_t)ip, X86_MAX_INSN_LEN,
			    X86_MODE_64, &c))
		return 0;
	return c.len;
}

#define KERNEL_HALF	0xffff800000000000ull

/* Walk from each record's "to" to the next record's "from". */
static long decode(const struct lwpt_bts_record *r, size_t nrec, uint64_t *ips,
		   size_t max)
{
	size_t i, n = 0, guard;

	for (i = 0; i + 1 < nrec; i++) {
		uint64_t ip = r[i].to, end = r[i + 1].from;
		uint8_t len;

		if (ip >= KERNEL_HALF) {
			/* Into the kernel: user mode resumes after the branch. */
			if (r[i].from >= KERNEL_HALF)
				continue;
			len = insn_len(r[i].from);
			if (!len)
				return -1;
			ip = r[i].from + len;
		}
		if (end >= KERNEL_HALF)
			continue;	/* a kernel record: user-only has none */
		for (guard = 0; ; guard++) {
			if (guard > 100000) {
				fprintf(stderr, "record %zu: no way from %#llx to %#llx\n",
					i, (unsigned long long)r[i].to,
					(unsigned long long)end);
				return -1;
			}
			if (in_wl(ip)) {
				if (n == max)
					return -1;
				ips[n++] = ip;
			}
			if (ip == end)
				break;
			len = insn_len(ip);
			if (!len)
				return -1;
			ip += len;
		}
	}
	return n;
}

#define FLOW_MAX	200000
#define FLOW_BUF	(4ull << 20)

static int cmd_flow(uint32_t flags)
{
	uint64_t *gt = calloc(FLOW_MAX, sizeof(*gt));
	uint64_t *got = calloc(FLOW_MAX, sizeof(*got));
	struct lwpt_bts_status st = { .size = sizeof(st) };
	const struct lwpt_bts_record *rec;
	size_t ngt, nrec, i;
	long ngot;
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
	ngot = decode(rec, nrec, got, FLOW_MAX);
	if (ngot < 0) {
		printf("flow: decode failed (%zu records, flags %#x)\n", nrec, st.flags);
		return 1;
	}
	for (i = 0; i < ngt && i < (size_t)ngot; i++)
		if (gt[i] != got[i])
			break;
	if (i != ngt || (size_t)ngot != ngt) {
		printf("flow: differs at instruction %zu (ground truth %zu, decoded %ld, records %zu): %#llx vs %#llx\n",
		       i, ngt, ngot, nrec, i < ngt ? (unsigned long long)gt[i] : 0ull,
		       i < (size_t)ngot ? (unsigned long long)got[i] : 0ull);
		return 1;
	}
	if (!ngt) {
		printf("flow: empty ground truth\n");
		return 1;
	}
	printf("flow: %zu instructions, %zu records, equal\n", ngt, nrec);
	return 0;
}

static void on_term(int sig)
{
	(void)sig;
	_exit(0);
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
	if (argc == 2 && !strcmp(argv[1], "hold")) {
		signal(SIGTERM, on_term);
		fd = bts_configure(0, LWPT_BTS_CFG_USER, 1ull << 16);
		printf("%s\n", fd < 0 ? errname(-fd) : "held");
		fflush(stdout);
		if (fd < 0)
			return 1;
		for (;;)
			pause();
	}
	fprintf(stderr, "usage: bts_test flow [user|all] | try PID FLAGS BYTES | hold\n");
	return 2;
}
