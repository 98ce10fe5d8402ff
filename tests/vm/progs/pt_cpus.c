// SPDX-License-Identifier: GPL-2.0
/*
 * pt_cpus: the CPU selection of a per-CPU capture (lwpt_pt_config size
 * version 2, cpu_mask; Documentation/pt.rst "CPU selection") through raw
 * ioctls. Every line it prints is "ok: ..." or "FAIL: ..."; the exit
 * status is the number of failures.
 *
 *   pt_cpus select
 *	as root: CPU 0 only: CPU 0's buffer is CONFIGURED and TRACING after
 *	START and takes the trace of a loop pinned to it; every other CPU has
 *	no status flag, no mmap, no sideband (EINVAL); a version 1 (160-byte)
 *	configuration still means every online CPU.
 *   pt_cpus refuse
 *	as root, each refusal with its errno and bad_field: a bit at
 *	nr_cpus, an empty selection, size 0, a pointer without size, a size
 *	over LWPT_PT_CPU_MASK_MAX, an unreadable pointer (EFAULT), thread
 *	scope, reserved2 set.
 *   pt_cpus offline CPU
 *	as root, with CPU offline (the case offlines it): ENODEV, bad_field
 *	cpu_mask.
 *   pt_cpus hostile
 *	as uid 1000 without capabilities: a huge size, a bad user pointer, a
 *	kernel pointer, bits past nr_cpus: EINVAL or EFAULT naming cpu_mask
 *	(no rule), never a crash; a valid selection: EPERM, the capability
 *	rule (system-wide capture).
 */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <uapi/lwpt/pt.h>

#include "pt_prog.h"

#define USER_ID		1000
#define BUF		65536ull

_Static_assert(sizeof(struct lwpt_pt_config) == LWPT_PT_CONFIG_SIZE_VER3, "config v3");

static uint64_t mask[2];

static void cfg_cpu(struct lwpt_pt_config *c, uint64_t m0)
{
	cfg_init(c, LWPT_PT_CFG_USER | LWPT_PT_CFG_BRANCH, LWPT_PT_MODE_WRAP, BUF);
	c->scope = LWPT_PT_SCOPE_CPU;
	mask[0] = m0;
	mask[1] = 0;
	c->cpu_mask = (uintptr_t)mask;
	c->cpu_mask_size = sizeof(mask[0]);
}

static uint32_t nr_cpus(int fd)
{
	struct lwpt_pt_caps caps = { .size = sizeof(caps) };

	if (ioctl(fd, LWPT_PT_IOC_GET_CAPS, &caps))
		return 0;
	return caps.nr_cpus;
}

static int status_cpu(int fd, uint32_t cpu, struct lwpt_pt_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->cpu = cpu;
	return ioctl(fd, LWPT_PT_IOC_GET_STATUS, st) ? errno : 0;
}

/* A loop on CPU 0 for the model to trace (it follows CPUs with TraceEn). */
static void run_on_cpu0(void)
{
	pid_t p = fork();

	if (!p) {
		cpu_set_t s;
		volatile unsigned long x = 0;
		int i;

		CPU_ZERO(&s);
		CPU_SET(0, &s);
		sched_setaffinity(0, sizeof(s), &s);
		for (i = 0; i < 2000; i++)
			x += (unsigned long)i * 3;
		_exit(0);
	}
	waitpid(p, NULL, 0);
}

static void test_select(void)
{
	struct lwpt_pt_sideband sb = { .size = sizeof(sb),
				       .record_size = LWPT_PT_SWITCH_SIZE_VER0 };
	struct lwpt_pt_config c;
	struct lwpt_pt_status st;
	int fd = open_pt(), e;
	uint32_t n = nr_cpus(fd), cpu, others = 0;
	void *p;

	check(n >= 2, "caps.nr_cpus %u (the case needs 2 CPUs)", n);
	cfg_cpu(&c, 1);
	check(configure(fd, &c) == 0, "CPU 0 selected: configured (bad_field %u)", c.bad_field);
	e = status_cpu(fd, 0, &st);
	check(!e && (st.flags & LWPT_PT_ST_CONFIGURED) && st.buffer_size == BUF,
	      "CPU 0: CONFIGURED, %llu bytes (%s)", (unsigned long long)st.buffer_size,
	      strerror(e));
	check(ioctl(fd, LWPT_PT_IOC_START) == 0, "START");
	run_on_cpu0();
	e = status_cpu(fd, 0, &st);
	check(!e && (st.flags & LWPT_PT_ST_TRACING) && st.head > 0,
	      "CPU 0: TRACING, %llu bytes written by a loop pinned there (%s)",
	      (unsigned long long)st.head, strerror(e));
	for (cpu = 1; cpu < n; cpu++) {
		e = status_cpu(fd, cpu, &st);
		if (e || st.flags || st.buffer_size || st.head)
			others++;
		sb.cpu = cpu;
		if (ioctl(fd, LWPT_PT_IOC_READ_SIDEBAND, &sb) == 0 || errno != EINVAL)
			others++;
		p = mmap(NULL, BUF, PROT_READ, MAP_SHARED, fd, (off_t)(cpu * BUF));
		if (p != MAP_FAILED) {
			others++;
			munmap(p, BUF);
		}
	}
	check(others == 0, "CPUs 1-%u: no status flag, no buffer, no sideband, no mmap", n - 1);
	p = mmap(NULL, BUF, PROT_READ, MAP_SHARED, fd, 0);
	check(p != MAP_FAILED, "CPU 0's buffer maps");
	check(ioctl(fd, LWPT_PT_IOC_STOP) == 0, "STOP");
	if (p != MAP_FAILED)
		munmap(p, BUF);
	close(fd);

	/* A program built before version 2: every online CPU. */
	fd = open_pt();
	cfg_cpu(&c, 0);
	c.cpu_mask = 0;
	c.cpu_mask_size = 0;
	c.size = LWPT_PT_CONFIG_SIZE_VER1;
	check(configure(fd, &c) == 0 && c.size == LWPT_PT_CONFIG_SIZE_VER1,
	      "a 160-byte configuration (size version 1) is accepted");
	for (others = 0, cpu = 0; cpu < n; cpu++)
		if (status_cpu(fd, cpu, &st) || !(st.flags & LWPT_PT_ST_CONFIGURED))
			others++;
	check(others == 0, "... and every CPU (0-%u) has a buffer", n - 1);
	close(fd);
}

static void test_refuse(void)
{
	struct lwpt_pt_config c;
	int fd = open_pt();
	uint32_t n = nr_cpus(fd);

	cfg_cpu(&c, 0);
	mask[n / 64] = 1ull << (n % 64);
	c.cpu_mask_size = sizeof(mask);
	refuse_rule(fd, "CPU nr_cpus selected", &c, EINVAL, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 0);
	refuse_rule(fd, "empty selection", &c, EINVAL, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	c.cpu_mask_size = 0;
	refuse_rule(fd, "a pointer with size 0", &c, EINVAL, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	c.cpu_mask = 0;
	refuse_rule(fd, "a size without pointer", &c, EINVAL, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	c.cpu_mask_size = LWPT_PT_CPU_MASK_MAX + 1;
	refuse_rule(fd, "size over LWPT_PT_CPU_MASK_MAX", &c, EINVAL, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	c.cpu_mask = 8;
	refuse_rule(fd, "unreadable pointer", &c, EFAULT, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	c.scope = LWPT_PT_SCOPE_THREAD;
	c.pid = getpid();
	refuse_rule(fd, "thread scope with a selection", &c, EINVAL, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	c.reserved2 = 1;
	refuse_rule(fd, "reserved2 set", &c, EINVAL, LWPT_PT_FIELD_RESERVED, 0);
	close(fd);
}

static void test_offline(int cpu)
{
	struct lwpt_pt_config c;
	int fd = open_pt();

	cfg_cpu(&c, 1ull << cpu);
	refuse_rule(fd, "an offline CPU selected", &c, ENODEV, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	check(configure(fd, &c) == 0, "an online CPU beside it: configured");
	close(fd);
}

static void test_hostile(void)
{
	struct lwpt_pt_config c;
	int fd;

	if (setgroups(0, NULL) || setresgid(USER_ID, USER_ID, USER_ID) ||
	    setresuid(USER_ID, USER_ID, USER_ID) || prctl(PR_SET_DUMPABLE, 1)) {
		perror("drop to uid 1000");
		exit(100);
	}
	fd = open_pt();
	cfg_cpu(&c, 1);
	c.cpu_mask_size = 0xffffffffu;
	refuse_rule(fd, "uid 1000: size 4 GiB", &c, EINVAL, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	c.cpu_mask = 0x1000;
	refuse_rule(fd, "uid 1000: bad user pointer", &c, EFAULT, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	c.cpu_mask = 0xffff888000000000ull;
	refuse_rule(fd, "uid 1000: kernel pointer", &c, EFAULT, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, ~0ull);
	mask[1] = ~0ull;
	c.cpu_mask_size = sizeof(mask);
	refuse_rule(fd, "uid 1000: every bit past nr_cpus", &c, EINVAL, LWPT_PT_FIELD_CPU_MASK, 0);
	cfg_cpu(&c, 1);
	refuse_rule(fd, "uid 1000: a valid selection", &c, EPERM, LWPT_PT_FIELD_SCOPE,
	       LWPT_PT_RULE_CAPABILITY);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "select"))
		test_select();
	else if (!strcmp(cmd, "refuse"))
		test_refuse();
	else if (!strcmp(cmd, "offline") && argc == 3)
		test_offline(atoi(argv[2]));
	else if (!strcmp(cmd, "hostile"))
		test_hostile();
	else {
		fprintf(stderr, "usage: pt_cpus select|refuse|offline CPU|hostile\n");
		return 100;
	}
	return failures;
}
