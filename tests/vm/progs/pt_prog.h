/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the /dev/pt VM programs (pt_test.c, pt_sec.c) share: the "ok:" /
 * "FAIL:" lines the cases count (tests/vm/lib.sh), and the device calls
 * every check starts from. One program per translation unit: the state is
 * static.
 */
#ifndef LWPT_TESTS_VM_PROGS_PT_PROG_H
#define LWPT_TESTS_VM_PROGS_PT_PROG_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <uapi/lwpt/pt.h>

/* Failed checks so far: the program's exit status. */
static int failures;

/* Print "ok: ..." or "FAIL: ..." (printf @fmt); count a failure. */
static inline __attribute__((format(printf, 2, 3))) void check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf(cond ? "ok: " : "FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		failures++;
}

/* /dev/pt, read-write; exits 100 (the harness's "not run") if it cannot. */
static inline int open_pt(void)
{
	int fd = open("/dev/pt", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("/dev/pt");
		exit(100);
	}
	return fd;
}

/* A zeroed config of this ABI's size: @flags, @mode, @size bytes. */
static inline void cfg_init(struct lwpt_pt_config *c, uint32_t flags, uint32_t mode,
			    uint64_t size)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = flags;
	c->mode = mode;
	c->buffer_size = size;
}

/* cfg_init() for thread @pid (LWPT_PT_SCOPE_THREAD). */
static inline void cfg_init_thread(struct lwpt_pt_config *c, uint32_t flags, uint32_t mode,
				   uint64_t size, pid_t pid)
{
	cfg_init(c, flags, mode, size);
	c->scope = LWPT_PT_SCOPE_THREAD;
	c->pid = pid;
}

/* LWPT_PT_IOC_CONFIGURE; returns 0 or errno. */
static inline int configure(int fd, struct lwpt_pt_config *c)
{
	return ioctl(fd, LWPT_PT_IOC_CONFIGURE, c) ? errno : 0;
}

/* GET_STATUS of buffer @buffer (LWPT_PT_STQ_BUFFER); returns 0 or errno. */
static inline int tstatus(int fd, uint32_t buffer, struct lwpt_pt_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->query = LWPT_PT_STQ_BUFFER;
	st->buffer = buffer;
	return ioctl(fd, LWPT_PT_IOC_GET_STATUS, st) ? errno : 0;
}

/*
 * check() of @cond once @read (a call that returns 0 or an errno and fills
 * what @cond and the message look at, e.g. tstatus()) was made: check()'s
 * arguments are evaluated in no set order, and GCC reads the message's
 * values before it calls a function inside the condition, so a failure
 * printed them as they were before @read.
 */
#define check_read(read, cond, ...)					\
	do {								\
		int check_read_err_ = (read);				\
									\
		check(!check_read_err_ && (cond), __VA_ARGS__);		\
	} while (0)

/* CONFIGURE @c expecting refusal @err naming @field and rule @rule. */
static inline void refuse_rule(int fd, const char *name, struct lwpt_pt_config *c,
			  int err, uint32_t field, uint32_t rule)
{
	int e = configure(fd, c);

	check(e == err && c->bad_field == field && c->rule == rule,
	      "%s: %s, bad_field %u, rule %u (want %s, %u, %u)", name, strerror(e),
	      c->bad_field, c->rule, strerror(err), field, rule);
}

#endif /* LWPT_TESTS_VM_PROGS_PT_PROG_H */
