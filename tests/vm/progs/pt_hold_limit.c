// SPDX-License-Identifier: GPL-2.0
/*
 * pt_hold_limit: a reader that waits on its tracee (issue 39 item 3,
 * 88-pt-hold-limit.sh). The process captures itself per thread in
 * continuous mode (follow-forks, the default; 8 KiB buffers of 4 KiB
 * regions), then system()s a busy command while it reads nothing. Its own
 * threads are never held (it is the reader), but the command's are: held
 * until the reader makes room, the command never ends and system() never
 * returns - unless the hold is bounded (lwpt_pt_config.hold_limit_ms,
 * Documentation/pt.rst "Continuous mode: the hold"). With it the command
 * is held once for the limit, then runs on (its buffer stalls at the gate,
 * a counted loss): system() returns, and the command's buffers say
 * holds >= 1, hold_timeouts >= 1, lost >= 1.
 *
 *   pt_hold_limit MS COMMAND
 *
 * MS: the hold limit to configure (0: the module's default, which the
 * module writes back as LWPT_PT_HOLD_LIMIT_DEFAULT_MS; "none":
 * LWPT_PT_HOLD_LIMIT_NONE, the old unbounded hold, for showing the hang:
 * the process then ends itself with SIGALRM after 120 s).
 * Exit status: 0 as above; 1 a check failed; 2 the device or a call failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <uapi/lwpt/lwpt.h>
#include <uapi/lwpt/pt.h>

static int status(int fd, unsigned int b, struct lwpt_pt_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->query = LWPT_PT_STQ_BUFFER;
	st->buffer = b;
	return ioctl(fd, LWPT_PT_IOC_GET_STATUS, st);
}

int main(int argc, char **argv)
{
	unsigned long long holds = 0, timeouts = 0, lost = 0;
	struct lwpt_pt_config c;
	struct lwpt_pt_status st;
	unsigned int b, n;
	int fd, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: pt_hold_limit MS|none COMMAND\n");
		return 2;
	}
	fd = open("/dev/pt", O_RDWR);
	if (fd < 0) {
		perror("pt_hold_limit: /dev/pt");
		return 2;
	}
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = LWPT_PT_CFG_USER | LWPT_PT_CFG_BRANCH;
	c.mode = LWPT_PT_MODE_CONTINUOUS;
	c.scope = LWPT_PT_SCOPE_THREAD;
	c.pid = getpid();
	c.buffer_size = 8192;
	c.region_size = 4096;
	c.hold_limit_ms = strcmp(argv[1], "none") ? (__u32)atoi(argv[1]) :
						      LWPT_PT_HOLD_LIMIT_NONE;
	if (c.hold_limit_ms == LWPT_PT_HOLD_LIMIT_NONE)
		alarm(120);
	if (ioctl(fd, LWPT_PT_IOC_CONFIGURE, &c)) {
		/* One 8 KiB region without MENTRY (bdw). */
		c.region_size = 0;
		if (ioctl(fd, LWPT_PT_IOC_CONFIGURE, &c)) {
			fprintf(stderr, "pt_hold_limit: configure: %s (field %u)\n",
				strerror(errno), c.bad_field);
			return 2;
		}
	}
	printf("hold limit %u ms\n", c.hold_limit_ms);
	if (ioctl(fd, LWPT_PT_IOC_START)) {
		perror("pt_hold_limit: start");
		return 2;
	}
	/* The reader waits for its tracee and reads nothing meanwhile. */
	rc = system(argv[2]);
	if (status(fd, 0, &st)) {
		perror("pt_hold_limit: status");
		return 2;
	}
	n = st.nr_buffers;
	for (b = 0; b < n; b++) {
		if (status(fd, b, &st))
			return 2;
		printf("buffer %u: tid %d pid %d ppid %d bytes %llu lost %llu holds %llu hold_timeouts %llu\n",
		       b, st.tid, st.pid, st.ppid, (unsigned long long)st.head,
		       (unsigned long long)st.lost, (unsigned long long)st.holds,
		       (unsigned long long)st.hold_timeouts);
		if (st.pid == getpid()) {
			/* The reader's own threads: never held. */
			if (st.holds)
				return 1;
			continue;
		}
		holds += st.holds;
		timeouts += st.hold_timeouts;
		lost += st.lost;
	}
	ioctl(fd, LWPT_PT_IOC_STOP);
	printf("command status %#x: holds %llu, hold_timeouts %llu, lost %llu\n", rc,
	       holds, timeouts, lost);
	return rc == 0 && n > 1 && holds && timeouts && lost &&
	       c.hold_limit_ms == (strcmp(argv[1], "0") ? c.hold_limit_ms :
				   LWPT_PT_HOLD_LIMIT_DEFAULT_MS) ? 0 : 1;
}
