// SPDX-License-Identifier: GPL-2.0
/*
 * pt_sec: /dev/pt as an unprivileged attacker would use it (issue 13;
 * Documentation/pt.rst, "Permissions"). Started as root, it drops to uid
 * and gid 1000 with no capability before touching /dev/pt (the case makes
 * the node 0666). Every line it prints is "ok: ..." or "FAIL: ..."; the
 * exit status is the number of failures.
 *
 *   pt_sec exec VICTIM SECRET creds|dumpable
 *	traces its own child per thread, starts, lets the child run code of
 *	its own, then exec VICTIM (set-user-ID root, or unreadable), which
 *	reads SECRET and makes an indirect call per bit from a thread it
 *	creates. The child's buffer must say DETACHED with the expected
 *	stop reason, the victim's thread must not have joined, and decoding
 *	every buffer (TIP, TIP.PGE, TIP.PGD, FUP) must show IPs of pt_sec and
 *	none in VICTIM's text.
 *   pt_sec exec-fork VICTIM SECRET
 *	the same through a fork the capture follows: the traced child forks,
 *	the grandchild (a buffer of its own, ppid the child) execs VICTIM and
 *	is detached there; no IP of VICTIM in any buffer.
 *   pt_sec fork-nodump
 *	the traced child makes itself non-dumpable (PR_SET_DUMPABLE 0), then
 *	forks: the grandchild gets no buffer (the rule at fork).
 *   pt_sec race VICTIM SECRET N
 *	N times: a child execs VICTIM at once while CONFIGURE (a large
 *	buffer) races it; whatever the outcome (refused by the ptrace rule,
 *	or detached at the exec) no IP of VICTIM's text may be in a buffer.
 *   pt_sec rules
 *	the errors of each refusal rule at pt_paranoid 2: capability (EPERM),
 *	ptrace (EPERM), each with struct lwpt_pt_config.rule naming it.
 *   pt_sec paranoid
 *	at pt_paranoid 3: a per-thread capture of its own child is EACCES,
 *	rule LWPT_PT_RULE_PARANOID.
 *   pt_sec memlock
 *	memory is charged (issue 13 points 3, 5): with RLIMIT_MEMLOCK 0 a
 *	capture over the pt_mlock_kb allowance is ENOMEM, rule memlock, and
 *	one within it works; with RLIMIT_MEMLOCK 8 MiB the pages beyond the
 *	allowance show as VmPin and go back at close; a child forked after
 *	the mmap cannot read the buffer (SIGSEGV); CONFIGURE again while
 *	mapped is EBUSY; caps.mlock_avail says what may still be pinned.
 *   pt_sec held
 *	concurrent captures (issue 13 point 4; Documentation/pt.rst
 *	"Concurrent captures"), as uid 1000: a file that configured nothing
 *	reaches no other capture (STATUS, START, STOP, RELEASE, READ_SIDEBAND,
 *	mmap: ENODATA); traces itself per thread; a second capture of itself
 *	is EBUSY naming itself as the holder; a capture of its own child on a
 *	second file runs beside the first, charged to the same user (a third
 *	beyond what is left is refused). Prints "tracing", then waits
 *	(no time limit of its own) until a privileged per-CPU capture ends
 *	both: stop reason preempted, the buffer still mapped and readable,
 *	START refused (EBUSY).
 *   pt_sec as-user CMD ARGS...
 *	drop to uid 1000 and exec CMD (for ptcap's messages).
 *   pt_sec setcap FILE
 *	as root: give FILE the file capability CAP_DAC_READ_SEARCH+ep (the
 *	security.capability xattr, VFS_CAP_REVISION_2, as setcap(8) writes
 *	it), then check that uid 1000 running it reads a root 0600 file
 *	(argv[3]) through it.
 *   pt_sec ambient
 *	the commoncap rule (cap_ptrace_access_check(), issue 27 2.1): a
 *	uid 1000 process holding CAP_DAC_READ_SEARCH as an ambient capability
 *	(set up by root: PR_SET_KEEPCAPS, setresuid, capset, PR_CAP_AMBIENT,
 *	exec) is dumpable and of the attacker's uid, yet a per-thread capture
 *	of it by uid 1000 without capabilities is EPERM, rule ptrace; the
 *	same process without the ambient capability may be traced.
 *   pt_sec mixcred PROG DIR
 *	credentials are per thread (issue 39 point 2): PROG (pt_mixcred) runs
 *	as root, its thread A drops to uid 1000 with the raw system call, its
 *	main thread B stays root and runs secret code; uid 1000 traces A's
 *	tid per thread: B is not traced (threads_refused 1), nor C, which B
 *	creates while tracing; A2, which A creates, is. No IP of the secret
 *	code in any buffer; each buffer is written to DIR/buf<N>.pt for
 *	ptflow.
 *   pt_sec wait-stdin
 *	(internal) write "r" on stdout, then wait for stdin's end.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_pkt.h>

#include "pt_prog.h"

#define USER_ID		1000
#define SMALL_BUF	65536ull
#define LARGE_BUF	(8ull << 20)

/*
 * Uid/gid 1000, no supplementary group; setresuid() from 0 drops the
 * capabilities. The credential change made the process non-dumpable
 * (commit_creds()): dumpable again, as a process a user starts is.
 */
static void drop(void)
{
	if (setgroups(0, NULL) || setresgid(USER_ID, USER_ID, USER_ID) ||
	    setresuid(USER_ID, USER_ID, USER_ID) || prctl(PR_SET_DUMPABLE, 1)) {
		perror("drop to uid 1000");
		exit(100);
	}
}

static void cfg_thread(struct lwpt_pt_config *c, pid_t pid, uint64_t size)
{
	cfg_init(c, LWPT_PT_CFG_USER | LWPT_PT_CFG_BRANCH, LWPT_PT_MODE_WRAP, size);
	c->scope = LWPT_PT_SCOPE_THREAD;
	c->pid = pid;
}

/* The executable PT_LOAD range of an ELF file, [lo, hi). */
static void elf_text(const char *path, uint64_t *lo, uint64_t *hi)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY), i;

	*lo = UINT64_MAX;
	*hi = 0;
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh)) {
		perror(path);
		exit(100);
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * eh.e_phentsize) !=
		    sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (ph.p_vaddr < *lo)
			*lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > *hi)
			*hi = ph.p_vaddr + ph.p_memsz;
	}
	close(fd);
}

/* Decoded IPs of a trace: how many in [lo, hi), how many in all. */
struct ip_count {
	uint64_t in_range;
	uint64_t all;
};

static void scan_ips(const uint8_t *buf, size_t len, uint64_t lo, uint64_t hi,
		     struct ip_count *n)
{
	struct lpt_pkt_decoder *dec = lpt_pkt_alloc(buf, len, NULL);
	struct lpt_last_ip lip;
	struct lpt_packet p;
	uint64_t ip;
	int err;

	if (!dec)
		return;
	lpt_last_ip_init(&lip);
	for (err = lpt_pkt_sync_forward(dec); err >= 0; ) {
		err = lpt_pkt_next(dec, &p);
		if (err == LPT_ERR_BAD_OPCODE || err == LPT_ERR_BAD_PACKET) {
			err = lpt_pkt_sync_forward(dec);
			continue;
		}
		if (err < 0)
			break;
		if (p.type == LPT_PKT_PSB)
			lpt_last_ip_init(&lip);
		if (p.type != LPT_PKT_TIP && p.type != LPT_PKT_TIP_PGE &&
		    p.type != LPT_PKT_TIP_PGD && p.type != LPT_PKT_FUP)
			continue;
		if (lpt_last_ip_update_pkt(&lip, &p) || lpt_last_ip_query(&lip, &ip))
			continue;
		n->all++;
		if (ip >= lo && ip < hi)
			n->in_range++;
	}
	lpt_pkt_free(dec);
}

/*
 * Every buffer of the capture on @fd: decode it, count IPs in the victim's
 * text and in all. Return the number of buffers.
 */
static uint32_t scan_capture(int fd, uint64_t lo, uint64_t hi, struct ip_count *n,
			     struct lwpt_pt_status *st0)
{
	struct lwpt_pt_status st;
	uint32_t b, nr;
	void *p;

	if (tstatus(fd, 0, st0))
		return 0;
	nr = st0->nr_buffers;
	for (b = 0; b < nr; b++) {
		if (tstatus(fd, b, &st))
			continue;
		p = mmap(NULL, st.buffer_size, PROT_READ, MAP_SHARED, fd, st.mmap_offset);
		if (p == MAP_FAILED)
			continue;
		scan_ips(p, st.head < st.buffer_size ? st.head : st.buffer_size, lo, hi, n);
		munmap(p, st.buffer_size);
	}
	return nr;
}

static void helper_fn(void)
{
	static volatile int x;

	x++;
}

static void (*volatile helper)(void) = helper_fn;

/*
 * The child: wait for @rfd (if >= 0), run code of our own, exec @victim
 * (which lingers when @linger).
 */
static void child_exec(int rfd, const char *victim, const char *secret, bool linger)
{
	char c;
	int i;

	if (rfd >= 0 && read(rfd, &c, 1) != 1)
		_exit(120);
	for (i = 0; i < 16; i++)
		helper();
	execl(victim, victim, secret, linger ? "linger" : NULL, (char *)NULL);
	_exit(121);
}

static uint32_t want_reason(const char *s)
{
	return !strcmp(s, "dumpable") ? LWPT_PT_STOP_EXEC_DUMPABLE : LWPT_PT_STOP_EXEC_CREDS;
}

typedef void (*child_fn)(int rfd, const char *victim, const char *secret);

static void child_exec_at_once(int rfd, const char *victim, const char *secret)
{
	child_exec(rfd, victim, secret, false);
}

/*
 * As uid 1000: fork a child that waits, then runs @fn; trace it per thread
 * (started), let it go, wait for it, stop. @fd: out, the capture's file.
 * Return: the child's pid; *@st its wait status.
 */
static pid_t traced_child(const char *what, child_fn fn, const char *victim,
			  const char *secret, int *fd, int *st)
{
	struct lwpt_pt_config c;
	int pfd[2], err;
	pid_t pid;

	drop();
	*fd = open_pt();
	if (pipe(pfd))
		exit(100);
	pid = fork();
	if (!pid)
		fn(pfd[0], victim, secret);
	cfg_thread(&c, pid, SMALL_BUF);
	err = configure(*fd, &c);
	check(err == 0, "%s: configure own child %d: %s", what, (int)pid, strerror(err));
	check(ioctl(*fd, LWPT_PT_IOC_START) == 0, "%s: start", what);
	if (write(pfd[1], "x", 1) != 1)
		exit(100);
	waitpid(pid, st, 0);
	check(WIFEXITED(*st) && WEXITSTATUS(*st) == 0,
	      "%s: the victim ran and read its secret (status %#x)", what, *st);
	check(ioctl(*fd, LWPT_PT_IOC_STOP) == 0, "%s: stop", what);
	return pid;
}

/* (a), (c): trace our child across its exec of the victim. */
static void test_exec(const char *victim, const char *secret, const char *reason)
{
	struct lwpt_pt_status st0;
	struct ip_count n = { 0, 0 };
	uint64_t lo, hi, mlo, mhi;
	int fd, status_;
	uint32_t nr;

	elf_text(victim, &lo, &hi);
	elf_text("/proc/self/exe", &mlo, &mhi);
	traced_child("exec", child_exec_at_once, victim, secret, &fd, &status_);
	nr = scan_capture(fd, lo, hi, &n, &st0);
	check(nr == 1 && st0.threads_lost == 0,
	      "exec: the victim's new thread did not join (buffers %u, lost %u)", nr,
	      st0.threads_lost);
	check((st0.flags & (LWPT_PT_ST_EXECED | LWPT_PT_ST_DETACHED)) ==
	      (LWPT_PT_ST_EXECED | LWPT_PT_ST_DETACHED) &&
	      st0.stop_reason == want_reason(reason) && !(st0.flags & LWPT_PT_ST_TRACING),
	      "exec: the child's buffer says DETACHED, stop reason %u (want %u), flags %#x",
	      st0.stop_reason, want_reason(reason), st0.flags);
	check(n.all > n.in_range && st0.head > 0,
	      "exec: the buffer kept what came before the exec: %llu bytes, %llu IPs decoded",
	      (unsigned long long)st0.head, (unsigned long long)n.all);
	n.all = 0;
	n.in_range = 0;
	scan_capture(fd, mlo, mhi, &n, &st0);
	check(n.in_range > 0, "exec: %llu IPs in pt_sec's own text [%#llx, %#llx)",
	      (unsigned long long)n.in_range, (unsigned long long)mlo,
	      (unsigned long long)mhi);
	n.all = 0;
	n.in_range = 0;
	scan_capture(fd, lo, hi, &n, &st0);
	check(n.in_range == 0, "exec: no IP in the victim's text [%#llx, %#llx): %llu",
	      (unsigned long long)lo, (unsigned long long)hi,
	      (unsigned long long)n.in_range);
	close(fd);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The child of exec-fork: wait for @rfd, fork, the grandchild execs. */
static void child_fork_exec(int rfd, const char *victim, const char *secret)
{
	int st;
	pid_t g;
	char c;

	if (read(rfd, &c, 1) != 1)
		_exit(120);
	g = fork();
	if (!g)
		child_exec(-1, victim, secret, false);
	if (g < 0 || waitpid(g, &st, 0) != g)
		_exit(122);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 123);
}

/* A followed fork, then the exec of the victim in the grandchild. */
static void test_exec_fork(const char *victim, const char *secret)
{
	struct lwpt_pt_status st0, st;
	struct ip_count n = { 0, 0 };
	int fd, s, found = 0;
	uint64_t lo, hi;
	uint32_t nr, b;
	pid_t pid;

	elf_text(victim, &lo, &hi);
	pid = traced_child("exec-fork", child_fork_exec, victim, secret, &fd, &s);
	nr = scan_capture(fd, lo, hi, &n, &st0);
	check(nr == 2 && st0.threads_lost == 0,
	      "exec-fork: the child and the grandchild, no victim thread (buffers %u)", nr);
	for (b = 0; b < nr; b++) {
		if (tstatus(fd, b, &st) || st.ppid != pid)
			continue;
		found++;
		check((st.flags & LWPT_PT_ST_DETACHED) &&
		      st.stop_reason == LWPT_PT_STOP_EXEC_CREDS && st.head > 0,
		      "exec-fork: grandchild %d (ppid %d) detached at its exec, %llu bytes kept",
		      (int)st.pid, (int)st.ppid, (unsigned long long)st.head);
	}
	check(found == 1, "exec-fork: one buffer with ppid = the child (%d)", found);
	check(n.in_range == 0, "exec-fork: no IP in the victim's text: %llu (of %llu)",
	      (unsigned long long)n.in_range, (unsigned long long)n.all);
	close(fd);
}

/* The child of fork-nodump: wait, run, make itself non-dumpable, fork. */
static void child_nodump_fork(int rfd, const char *victim, const char *secret)
{
	int st, i;
	pid_t g;
	char c;

	(void)victim;
	(void)secret;
	if (read(rfd, &c, 1) != 1)
		_exit(120);
	for (i = 0; i < 16; i++)
		helper();
	if (prctl(PR_SET_DUMPABLE, 0))
		_exit(124);
	g = fork();
	if (!g) {
		for (i = 0; i < 16; i++)
			helper();
		_exit(0);
	}
	if (g < 0 || waitpid(g, &st, 0) != g)
		_exit(122);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 123);
}

/*
 * The rule at fork (issue 27 2.1): a traced process that made itself
 * non-dumpable after CONFIGURE is not followed into its fork.
 */
static void test_fork_nodump(void)
{
	struct lwpt_pt_status st0;
	int fd, s;

	traced_child("fork-nodump", child_nodump_fork, NULL, NULL, &fd, &s);
	check(tstatus(fd, 0, &st0) == 0 && st0.nr_buffers == 1 && st0.threads_lost == 0 &&
	      st0.head > 0,
	      "fork-nodump: the fork of a process made non-dumpable is not followed (buffers %u, lost %u, %llu bytes of the child)",
	      st0.nr_buffers, st0.threads_lost, (unsigned long long)st0.head);
	check(st0.threads_refused == 1,
	      "fork-nodump: the refused fork is counted (threads_refused %u, want 1)",
	      st0.threads_refused);
	close(fd);
}

/* (b): CONFIGURE with a large buffer races the child's exec. */
static void test_race(const char *victim, const char *secret, int iters)
{
	struct ip_count n = { 0, 0 };
	struct lwpt_pt_status st0;
	struct lwpt_pt_config c;
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	int i, fd, err, refused = 0, late = 0, detached = 0, gone = 0, other = 0, bad = 0, s;
	double t0, ms;
	uint64_t lo, hi;
	pid_t pid;

	elf_text(victim, &lo, &hi);
	/* The buffers, not RLIMIT_MEMLOCK, are what this case is about. */
	setrlimit(RLIMIT_MEMLOCK, &rl);
	drop();
	for (i = 0; i < iters; i++) {
		fd = open_pt();
		pid = fork();
		if (!pid) {
			/* A different moment each time. */
			usleep(i * 150000);
			child_exec(-1, victim, secret, true);
		}
		cfg_thread(&c, pid, LARGE_BUF);
		t0 = now_ms();
		err = configure(fd, &c);
		ms = now_ms() - t0;
		if (!err)
			ioctl(fd, LWPT_PT_IOC_START);
		waitpid(pid, &s, 0);
		if (err == EPERM && c.rule == LWPT_PT_RULE_PTRACE) {
			refused++;
			/* After the allocation: the re-check under exec_update_lock. */
			late += ms > 20;
		} else if (err == ESRCH) {
			gone++;		/* the victim exited first */
		} else if (!err) {
			ioctl(fd, LWPT_PT_IOC_STOP);
			n.in_range = 0;
			scan_capture(fd, lo, hi, &n, &st0);
			bad += n.in_range > 0;
			if (st0.stop_reason == LWPT_PT_STOP_EXEC_CREDS)
				detached++;
			else
				other++;
			if (st0.stop_reason != LWPT_PT_STOP_EXEC_CREDS)
				printf("race %d: buffer 0 flags %#x reason %u\n", i, st0.flags,
				       st0.stop_reason);
		} else {
			printf("race %d: configure: %s rule %u\n", i, strerror(err), c.rule);
			other++;
		}
		close(fd);
	}
	printf("race: %d refused by the ptrace rule (%d after 20 ms: at the re-check), %d detached at the exec, %d exited first, %d other\n",
	       refused, late, detached, gone, other);
	check(bad == 0 && other == 0 && refused + detached + gone == iters,
	      "race: in %d runs no victim IP reached the attacker, each refused or detached",
	      iters);
}

/*
 * A program built with the first published headers: CONFIGURE and
 * GET_STATUS numbers that encode the version 0 sizes, structs of those
 * sizes (no rule, no stop_reason); the module answers them.
 */
static void test_old_abi(void)
{
	const unsigned long cfg0 = _IOC(_IOC_READ | _IOC_WRITE, LWPT_IOC_MAGIC, 0x41,
					LWPT_PT_CONFIG_SIZE_VER0);
	const unsigned long st1 = _IOC(_IOC_READ | _IOC_WRITE, LWPT_IOC_MAGIC, 0x44,
				       LWPT_PT_STATUS_SIZE_VER1);
	const unsigned long caps0 = _IOC(_IOC_READ | _IOC_WRITE, LWPT_IOC_MAGIC, 0x40,
					 LWPT_PT_CAPS_SIZE_VER0);
	struct lwpt_pt_caps caps;
	struct lwpt_pt_status st;
	struct lwpt_pt_config c;
	int fd = open_pt();

	memset(&caps, 0xa5, sizeof(caps));
	caps.size = LWPT_PT_CAPS_SIZE_VER0;
	check(ioctl(fd, caps0, &caps) == 0 && caps.size == LWPT_PT_CAPS_SIZE_VER0 &&
	      caps.mlock_avail == 0xa5a5a5a5a5a5a5a5ull,
	      "old ABI: GET_CAPS of 80 bytes by its old number (size back %u, nothing beyond)",
	      caps.size);
	cfg_thread(&c, getpid(), SMALL_BUF);
	c.size = LWPT_PT_CONFIG_SIZE_VER0;
	check(ioctl(fd, cfg0, &c) == 0 && c.size == LWPT_PT_CONFIG_SIZE_VER0,
	      "old ABI: CONFIGURE of 152 bytes by its old number (size back %u)", c.size);
	memset(&st, 0, sizeof(st));
	st.size = LWPT_PT_STATUS_SIZE_VER1;
	st.query = LWPT_PT_STQ_BUFFER;
	st.ppid = -1;	/* beyond the caller's struct: must stay */
	check(ioctl(fd, st1, &st) == 0 && st.size == LWPT_PT_STATUS_SIZE_VER1 &&
	      st.nr_buffers >= 1 && st.ppid == -1,
	      "old ABI: GET_STATUS of 112 bytes by its old number (size back %u)", st.size);
	close(fd);
}

static void test_rules(void)
{
	struct lwpt_pt_config c;
	int fd, fd2;

	drop();
	fd = open_pt();
	cfg_thread(&c, 0, SMALL_BUF);
	c.scope = LWPT_PT_SCOPE_CPU;
	refuse_rule(fd, "system-wide", &c, EPERM, LWPT_PT_FIELD_SCOPE, LWPT_PT_RULE_CAPABILITY);
	cfg_thread(&c, getpid(), SMALL_BUF);
	c.flags |= LWPT_PT_CFG_OS;
	refuse_rule(fd, "kernel tracing", &c, EPERM, LWPT_PT_FIELD_OS, LWPT_PT_RULE_CAPABILITY);
	cfg_thread(&c, 1, SMALL_BUF);
	refuse_rule(fd, "another user's process (init)", &c, EPERM, LWPT_PT_FIELD_PID,
	       LWPT_PT_RULE_PTRACE);
	cfg_thread(&c, getpid(), SMALL_BUF);
	check(configure(fd, &c) == 0 && c.rule == LWPT_PT_RULE_NONE,
	      "own process, user mode, per thread: allowed at pt_paranoid 2");
	fd2 = open_pt();
	cfg_thread(&c, getpid(), SMALL_BUF);
	c.holder = 12345;
	check(configure(fd2, &c) == EBUSY && c.holder == getpid(),
	      "a second file: EBUSY, holder %d (want %d)", (int)c.holder, (int)getpid());
	close(fd2);
	close(fd);
	test_old_abi();
}

static void test_paranoid(void)
{
	struct lwpt_pt_config c;
	int fd;

	drop();
	fd = open_pt();
	cfg_thread(&c, getpid(), SMALL_BUF);
	refuse_rule(fd, "own process at pt_paranoid 3", &c, EACCES, LWPT_PT_FIELD_SCOPE,
	       LWPT_PT_RULE_PARANOID);
	close(fd);
}

/* VmPin of /proc/self/status, kB. */
static long vm_pin(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f || fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

/* Run @fn as uid 1000 with RLIMIT_MEMLOCK @lim in a child; its failures. */
static void as_user_limited(void (*fn)(long), rlim_t lim, long allow_pages)
{
	struct rlimit rl = { lim, lim };
	int st;
	pid_t pid = fork();

	if (!pid) {
		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			exit(100);
		drop();
		fn(allow_pages);
		exit(failures);
	}
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "memlock: RLIMIT_MEMLOCK %llu: child passed",
	      (unsigned long long)lim);
}

/* Buffers of a per-thread capture of a 1-thread process: 1 + 8 spares. */
#define NR_BUFS		9
#define BUF_PAGES(size)	((size) / 4096 + (((size) / 4096 + 510) / 511))

/* caps.mlock_avail (size version 1): what the caller may still pin, bytes. */
static uint64_t mlock_avail(int fd)
{
	struct lwpt_pt_caps caps = { .size = sizeof(caps) };

	check(ioctl(fd, LWPT_PT_IOC_GET_CAPS, &caps) == 0 && caps.size == LWPT_PT_CAPS_SIZE_VER2 &&
	      caps.thread_spares == NR_BUFS - 1, "GET_CAPS v2 (size %u, spares %u)", caps.size,
	      caps.thread_spares);
	return caps.mlock_avail;
}

static void memlock_zero(long allow_pages)
{
	struct lwpt_pt_config c;
	uint64_t big = 4096ull * (allow_pages / NR_BUFS + 16), avail;
	int fd = open_pt();

	avail = mlock_avail(fd);
	check(avail == 4096ull * allow_pages, "caps.mlock_avail %llu = the allowance (%ld pages)",
	      (unsigned long long)avail, allow_pages);

	cfg_thread(&c, getpid(), big);
	refuse_rule(fd, "RLIMIT_MEMLOCK 0, over the allowance", &c, ENOMEM, LWPT_PT_FIELD_BUFFER_SIZE,
	       LWPT_PT_RULE_MEMLOCK);
	cfg_thread(&c, getpid(), SMALL_BUF);
	check((long)(NR_BUFS * BUF_PAGES(SMALL_BUF)) <= allow_pages,
	      "memlock: %u pages within the allowance of %ld", NR_BUFS * (unsigned int)BUF_PAGES(SMALL_BUF),
	      allow_pages);
	check(configure(fd, &c) == 0, "RLIMIT_MEMLOCK 0, within the allowance: allowed");
	check(vm_pin() == 0, "memlock: VmPin %ld kB (all within the allowance)", vm_pin());
	avail = mlock_avail(fd);
	check(avail == 4096ull * (allow_pages - NR_BUFS * BUF_PAGES(SMALL_BUF)),
	      "caps.mlock_avail %llu: the allowance less %u pages charged", (unsigned long long)avail,
	      NR_BUFS * (unsigned int)BUF_PAGES(SMALL_BUF));
	close(fd);
}

static void memlock_pinned(long allow_pages)
{
	const uint64_t size = 262144;
	long want = (NR_BUFS * (long)BUF_PAGES(size) - allow_pages) * 4, pin0 = vm_pin(), pin;
	struct lwpt_pt_config c;
	struct lwpt_pt_status st;
	volatile const uint8_t *p;
	int fd = open_pt(), s;
	pid_t pid;

	check(mlock_avail(fd) == 4096ull * allow_pages + (8 << 20),
	      "caps.mlock_avail: the allowance + RLIMIT_MEMLOCK 8 MiB");
	cfg_thread(&c, getpid(), size);
	check(configure(fd, &c) == 0, "RLIMIT_MEMLOCK 8 MiB, %u pages: allowed",
	      NR_BUFS * (unsigned int)BUF_PAGES(size));
	pin = vm_pin();
	check(mlock_avail(fd) == 4096ull * allow_pages + (8 << 20) - 4096ull * NR_BUFS * BUF_PAGES(size),
	      "caps.mlock_avail: less what was charged");
	check(pin - pin0 == want, "memlock: VmPin %ld kB -> %ld kB, want +%ld (beyond the allowance)",
	      pin0, pin, want);
	check(tstatus(fd, 0, &st) == 0, "memlock: status");
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, st.mmap_offset);
	check(p != MAP_FAILED, "memlock: mmap");
	if (p == MAP_FAILED)
		return;
	(void)p[0];
	pid = fork();
	if (!pid) {
		(void)p[0];	/* VM_DONTCOPY: not mapped here */
		_exit(0);
	}
	waitpid(pid, &s, 0);
	check(WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV,
	      "fork after mmap: the child cannot read the buffer (status %#x)", s);
	cfg_thread(&c, getpid(), SMALL_BUF);
	check(configure(fd, &c) == EBUSY, "CONFIGURE again while mapped: EBUSY");
	munmap((void *)p, size);
	close(fd);
	pin = vm_pin();
	check(pin == pin0, "memlock: VmPin back to %ld kB after close (%ld)", pin0, pin);
}

static void test_memlock(void)
{
	long kb = read_long("/sys/module/lwpt_sim/parameters/pt_mlock_kb");
	long allow_pages = kb / 4 * sysconf(_SC_NPROCESSORS_ONLN);

	check(kb == 516, "pt_mlock_kb default %ld (perf_event_mlock_kb's 516)", kb);
	as_user_limited(memlock_zero, 0, allow_pages);
	as_user_limited(memlock_pinned, 8 << 20, allow_pages);
}

/* An ioctl's errno, 0 on success. */
static int pt_ioc(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? errno : 0;
}

static void test_held(void)
{
	struct lwpt_pt_release rel = { .size = sizeof(rel) };
	struct lwpt_pt_sideband sb = { .size = sizeof(sb),
				       .record_size = LWPT_PT_SWITCH_SIZE_VER0 };
	struct lwpt_pt_config c;
	struct lwpt_pt_status st;
	int fd, fd2, fd3, err;
	uint64_t avail;
	pid_t child, child2;
	void *p;

	drop();
	child = fork();
	if (!child) {
		for (;;)
			pause();	/* traced through fd3 until killed */
	}
	child2 = fork();
	if (!child2) {
		for (;;)
			pause();	/* a capture of it is refused */
	}
	fd = open_pt();
	fd2 = open_pt();
	fd3 = open_pt();
	check(tstatus(fd2, 0, &st) == ENODATA, "STATUS on a file without a capture: ENODATA");
	check(pt_ioc(fd2, LWPT_PT_IOC_START, NULL) == ENODATA, "START without a capture: ENODATA");
	check(pt_ioc(fd2, LWPT_PT_IOC_STOP, NULL) == ENODATA, "STOP without a capture: ENODATA");
	check(pt_ioc(fd2, LWPT_PT_IOC_RELEASE, &rel) == ENODATA,
	      "RELEASE without a capture: ENODATA");
	check(pt_ioc(fd2, LWPT_PT_IOC_READ_SIDEBAND, &sb) == ENODATA,
	      "READ_SIDEBAND without a capture: ENODATA");
	p = mmap(NULL, SMALL_BUF, PROT_READ, MAP_SHARED, fd2, 0);
	check(p == MAP_FAILED && errno == ENODATA, "mmap without a capture: ENODATA");
	cfg_thread(&c, getpid(), SMALL_BUF);
	check(configure(fd, &c) == 0, "per-thread capture of itself");
	err = pt_ioc(fd, LWPT_PT_IOC_START, NULL);
	check(!err, "START: %s", strerror(err));
	cfg_thread(&c, getpid(), SMALL_BUF);
	c.holder = 12345;
	err = configure(fd2, &c);
	check(err == EBUSY && c.holder == getpid(),
	      "a second capture of the traced process: %s, holder %d (want EBUSY, %d)",
	      strerror(err), (int)c.holder, (int)getpid());
	avail = mlock_avail(fd3);
	cfg_thread(&c, child, SMALL_BUF);
	check(configure(fd3, &c) == 0 && !ioctl(fd3, LWPT_PT_IOC_START),
	      "a capture of its child on another file runs beside it");
	/* Each capture is charged to the same user: the allowance shrinks. */
	check(mlock_avail(fd3) < avail, "the second capture is charged too: %llu -> %llu bytes",
	      (unsigned long long)avail, (unsigned long long)mlock_avail(fd3));
	avail = mlock_avail(fd3);
	if (avail != LWPT_PT_MLOCK_UNLIMITED) {
		/* fd2 refused above: now a capture of a third process beyond it. */
		cfg_thread(&c, child2, (avail / 4 + 4096) & ~4095ull);
		err = configure(fd2, &c);
		check(err == ENOMEM && c.rule == LWPT_PT_RULE_MEMLOCK,
		      "a third capture beyond what is left (%llu bytes): %s, rule %u",
		      (unsigned long long)avail, strerror(err), c.rule);
	}
	err = tstatus(fd, 0, &st);
	check(!err && st.tid == getpid() && st.stop_reason == LWPT_PT_STOP_NONE &&
	      (st.flags & LWPT_PT_ST_TRACING), "its own buffer: tid %d, tracing", (int)st.tid);
	err = tstatus(fd3, 0, &st);
	check(!err && st.tid == child, "the child's buffer: tid %d", (int)st.tid);
	printf("tracing\n");
	/* Until a privileged capture ends it (the case's limit catches a hang). */
	while (!tstatus(fd, 0, &st) && st.stop_reason == LWPT_PT_STOP_NONE)
		usleep(100000);
	check(st.stop_reason == LWPT_PT_STOP_PREEMPTED && !(st.flags & LWPT_PT_ST_TRACING),
	      "ended by the privileged capture: stop reason %u (want %u), flags %#x",
	      st.stop_reason, LWPT_PT_STOP_PREEMPTED, st.flags);
	p = mmap(NULL, SMALL_BUF, PROT_READ, MAP_SHARED, fd, 0);
	check(p != MAP_FAILED, "its buffer is still readable (mmap: %s)",
	      p == MAP_FAILED ? strerror(errno) : "ok");
	if (p != MAP_FAILED) {
		volatile const uint8_t *b = p;

		(void)b[SMALL_BUF - 1];
		munmap(p, SMALL_BUF);
	}
	check(pt_ioc(fd, LWPT_PT_IOC_START, NULL) == EBUSY, "START again: EBUSY");
	err = tstatus(fd3, 0, &st);
	check(!err && st.stop_reason == LWPT_PT_STOP_PREEMPTED,
	      "the child's capture was ended too: stop reason %u", st.stop_reason);
	close(fd);
	close(fd2);
	close(fd3);
	kill(child, SIGKILL);
	kill(child2, SIGKILL);
	waitpid(child, NULL, 0);
	waitpid(child2, NULL, 0);
}

/* capset(2) (glibc has no wrapper): @caps as permitted and inheritable. */
static int set_caps(uint64_t caps)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].permitted = d[0].inheritable = (uint32_t)caps;
	d[1].permitted = d[1].inheritable = (uint32_t)(caps >> 32);
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

/*
 * setcap FILE cap_dac_read_search+ep: the xattr setcap(8) writes
 * (include/uapi/linux/capability.h, struct vfs_cap_data, revision 2), then
 * uid 1000 runs FILE SECRET: it must read the root 0600 file.
 */
static void test_setcap(const char *file, const char *secret)
{
	struct vfs_cap_data v;
	pid_t pid;
	int st;

	memset(&v, 0, sizeof(v));
	v.magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE;
	v.data[0].permitted = 1u << CAP_DAC_READ_SEARCH;
	check(setxattr(file, "security.capability", &v, XATTR_CAPS_SZ_2, 0) == 0,
	      "setcap %s cap_dac_read_search+ep: %s", file, strerror(errno));
	pid = fork();
	if (!pid) {
		drop();
		execl(file, file, secret, (char *)NULL);
		_exit(121);
	}
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "uid 1000 running %s reads root's 0600 %s through its file capability (status %#x)",
	      file, secret, st);
}

/* The capability bits of line @key ("CapPrm:") of /proc/@pid/status. */
static uint64_t proc_caps(pid_t pid, const char *key)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtoull(line + strlen(key), NULL, 16);
	fclose(f);
	return v;
}

/*
 * A uid 1000 process running "pt_sec wait-stdin", with CAP_DAC_READ_SEARCH
 * as an ambient capability if @ambient; returns once it runs the new
 * program. *@wfd: the write end of its stdin (close it to end it).
 */
static pid_t cap_holder(bool ambient, int *wfd)
{
	int in[2], out[2];
	char c;
	pid_t pid;

	if (pipe(in) || pipe(out))
		exit(100);
	pid = fork();
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
		    setresgid(USER_ID, USER_ID, USER_ID) ||
		    setresuid(USER_ID, USER_ID, USER_ID))
			_exit(120);
		if (ambient &&
		    (set_caps(1ull << CAP_DAC_READ_SEARCH) ||
		     prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0)))
			_exit(122);
		if (!ambient && set_caps(0))
			_exit(122);
		execl("/proc/self/exe", "pt_sec", "wait-stdin", (char *)NULL);
		_exit(121);
	}
	close(in[0]);
	close(out[1]);
	if (read(out[0], &c, 1) != 1) {
		fprintf(stderr, "cap holder did not start\n");
		exit(100);
	}
	close(out[0]);
	*wfd = in[1];
	return pid;
}

/* A line from @f into @buf (newline dropped); exits 100 at its end. */
static void read_line(FILE *f, char *buf, size_t size, const char *what)
{
	if (!fgets(buf, (int)size, f)) {
		fprintf(stderr, "%s: no answer\n", what);
		exit(100);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/* Send @cmd to pt_mixcred and wait for its answer, which begins @want. */
static void mix_cmd(FILE *in, FILE *out, const char *cmd, const char *want, char *ans,
		    size_t size)
{
	fprintf(in, "%s\n", cmd);
	fflush(in);
	read_line(out, ans, size, cmd);
	check(!strncmp(ans, want, strlen(want)), "pt_mixcred %s: %s", cmd, ans);
}

/*
 * Buffer @b of the capture on @fd into @dir/buf<b>.pt (wrap mode, oldest
 * byte first), for ptflow; its IPs in [lo, hi) and [plo, phi) counted
 * (libpt's packet decoder).
 */
static void save_buffer(int fd, uint32_t b, const char *dir, uint64_t lo, uint64_t hi,
			uint64_t plo, uint64_t phi, struct ip_count *sec, struct ip_count *pub)
{
	struct lwpt_pt_status st;
	char path[256];
	uint64_t len, off;
	uint8_t *p;
	FILE *f;

	if (tstatus(fd, b, &st))
		return;
	p = mmap(NULL, st.buffer_size, PROT_READ, MAP_SHARED, fd, st.mmap_offset);
	if (p == MAP_FAILED)
		return;
	/* Wrapped: the oldest byte is at the offset (a decoder syncs at a PSB). */
	off = st.head > st.buffer_size ? st.head % st.buffer_size : 0;
	len = st.head < st.buffer_size ? st.head : st.buffer_size;
	snprintf(path, sizeof(path), "%s/buf%u.pt", dir, b);
	f = fopen(path, "w");
	if (!f || fwrite(p + off, 1, len - off, f) != len - off ||
	    fwrite(p, 1, off, f) != off || fclose(f)) {
		perror(path);
		exit(100);
	}
	scan_ips(p, len, lo, hi, sec);
	scan_ips(p, len, plo, phi, pub);
	munmap(p, st.buffer_size);
}

/*
 * Credentials are per thread (issue 39 point 2; pt.rst "Permissions: every
 * thread"): pt_mixcred runs as root, its thread A drops to uid 1000 with
 * the raw system call, its main thread B stays root and runs secret code.
 * uid 1000 names A's tid: only A is traced, B is skipped and counted
 * (threads_refused), C, a thread B creates while tracing, never joins, A2,
 * one A creates, does. No IP of B's secret code in any buffer (libpt's
 * packet decoder here; ptflow on @dir/buf<N>.pt in the case); A's public
 * code is there.
 */
static void test_mixcred(const char *prog, const char *dir)
{
	int in[2], out[2], fd, err, st_;
	unsigned long long lo, hi, plo, phi;
	struct ip_count sec = { 0, 0 }, pub = { 0, 0 };
	struct lwpt_pt_status st0, st;
	struct lwpt_pt_config c;
	int a, bt, ct = 0, a2 = 0;
	uint32_t nr, b, found_a = 0, found_a2 = 0, others = 0;
	char ans[256];
	FILE *fin, *fout;
	pid_t pid, att;

	if (pipe(in) || pipe(out))
		exit(100);
	pid = fork();
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	fin = fdopen(in[1], "w");
	fout = fdopen(out[0], "r");
	read_line(fout, ans, sizeof(ans), "pt_mixcred");
	if (sscanf(ans, "ready a=%d b=%d secret=%llx-%llx public=%llx-%llx", &a, &bt, &lo, &hi,
		   &plo, &phi) != 6) {
		fprintf(stderr, "pt_mixcred: %s\n", ans);
		exit(100);
	}
	printf("note: %s\n", ans);
	att = fork();
	if (!att) {
		drop();
		fd = open_pt();
		cfg_thread(&c, a, SMALL_BUF);
		err = configure(fd, &c);
		check(err == 0, "mixcred: uid 1000 configures thread A (%d) of a root process: %s",
		      a, strerror(err));
		if (err)
			_exit(failures);
		check(ioctl(fd, LWPT_PT_IOC_START) == 0, "mixcred: start");
		mix_cmd(fin, fout, "r", "round 1", ans, sizeof(ans));
		mix_cmd(fin, fout, "t", "spawned", ans, sizeof(ans));
		if (sscanf(ans, "spawned c=%d a2=%d", &ct, &a2) != 2)
			check(0, "mixcred: the tids of C and A2: %s", ans);
		mix_cmd(fin, fout, "r", "round 2", ans, sizeof(ans));
		check(ioctl(fd, LWPT_PT_IOC_STOP) == 0, "mixcred: stop");
		check(tstatus(fd, 0, &st0) == 0, "mixcred: status");
		nr = st0.nr_buffers;
		for (b = 0; b < nr; b++) {
			if (tstatus(fd, b, &st))
				continue;
			printf("note: buffer %u: tid %d, %llu bytes\n", b, (int)st.tid,
			       (unsigned long long)st.head);
			if (st.tid == a)
				found_a++;
			else if (st.tid == a2)
				found_a2++;
			else
				others++;
			save_buffer(fd, b, dir, lo, hi, plo, phi, &sec, &pub);
		}
		check(found_a == 1 && found_a2 == 1 && others == 0,
		      "mixcred: buffers for A (%d) and A2 (%d) only, none for B (%d) or C (%d): %u buffers, A %u, A2 %u, others %u",
		      a, a2, bt, ct, nr, found_a, found_a2, others);
		check(st0.threads_refused == 1 && st0.threads_lost == 0,
		      "mixcred: B refused at CONFIGURE and counted: threads_refused %u (want 1), threads_lost %u",
		      st0.threads_refused, st0.threads_lost);
		check(sec.in_range == 0,
		      "mixcred: no IP in B's secret code [%#llx, %#llx): %llu of %llu decoded",
		      lo, hi, (unsigned long long)sec.in_range, (unsigned long long)sec.all);
		check(pub.in_range > 0, "mixcred: A's public code [%#llx, %#llx) is there: %llu IPs",
		      plo, phi, (unsigned long long)pub.in_range);
		close(fd);
		_exit(failures);
	}
	waitpid(att, &st_, 0);
	failures += WIFEXITED(st_) ? WEXITSTATUS(st_) : 1;
	fprintf(fin, "q\n");
	fclose(fin);
	fclose(fout);
	waitpid(pid, &st_, 0);
	check(WIFEXITED(st_) && WEXITSTATUS(st_) == 0, "mixcred: pt_mixcred ended (status %#x)",
	      st_);
}

/* uid 1000 configures a per-thread capture of @pid; returns 0 or errno. */
static int configure_as_user(pid_t pid, struct lwpt_pt_config *c)
{
	int p[2], e = 0;
	pid_t a;

	if (pipe(p))
		exit(100);
	a = fork();
	if (!a) {
		int fd;

		drop();
		fd = open_pt();
		cfg_thread(c, pid, SMALL_BUF);
		e = configure(fd, c);
		if (write(p[1], c, sizeof(*c)) != sizeof(*c) ||
		    write(p[1], &e, sizeof(e)) != sizeof(e))
			_exit(100);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], c, sizeof(*c)) != sizeof(*c) || read(p[0], &e, sizeof(e)) != sizeof(e))
		e = -1;
	waitpid(a, NULL, 0);
	close(p[0]);
	return e;
}

/* The commoncap rule at CONFIGURE: see the header. */
static void test_ambient(void)
{
	struct lwpt_pt_config c;
	struct stat sb;
	char path[64];
	int wfd, e;
	pid_t pid;

	pid = cap_holder(true, &wfd);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	check(proc_caps(pid, "CapPrm:") == 1ull << CAP_DAC_READ_SEARCH &&
	      proc_caps(pid, "CapAmb:") == 1ull << CAP_DAC_READ_SEARCH,
	      "holder %d: CapPrm %#llx, CapAmb %#llx (want CAP_DAC_READ_SEARCH)", (int)pid,
	      (unsigned long long)proc_caps(pid, "CapPrm:"),
	      (unsigned long long)proc_caps(pid, "CapAmb:"));
	/* /proc/PID files belong to the task's euid only while it is dumpable. */
	check(stat(path, &sb) == 0 && sb.st_uid == USER_ID,
	      "holder is dumpable and uid 1000 (%s owned by %u)", path, (unsigned int)sb.st_uid);
	e = configure_as_user(pid, &c);
	check(e == EPERM && c.bad_field == LWPT_PT_FIELD_PID && c.rule == LWPT_PT_RULE_PTRACE,
	      "uid 1000 tracing a uid 1000 process with an ambient capability: %s, bad_field %u, rule %u (want EPERM, pid, ptrace)",
	      e > 0 ? strerror(e) : "?", c.bad_field, c.rule);
	close(wfd);
	waitpid(pid, NULL, 0);

	pid = cap_holder(false, &wfd);
	e = configure_as_user(pid, &c);
	check(e == 0 && proc_caps(pid, "CapPrm:") == 0,
	      "the same process without capabilities may be traced: %s",
	      e > 0 ? strerror(e) : e ? "?" : "ok");
	close(wfd);
	waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "exec") && argc == 5) {
		test_exec(argv[2], argv[3], argv[4]);
	} else if (!strcmp(cmd, "exec-fork") && argc == 4) {
		test_exec_fork(argv[2], argv[3]);
	} else if (!strcmp(cmd, "fork-nodump")) {
		test_fork_nodump();
	} else if (!strcmp(cmd, "race") && argc == 5) {
		test_race(argv[2], argv[3], atoi(argv[4]));
	} else if (!strcmp(cmd, "rules")) {
		test_rules();
	} else if (!strcmp(cmd, "memlock")) {
		test_memlock();
	} else if (!strcmp(cmd, "paranoid")) {
		test_paranoid();
	} else if (!strcmp(cmd, "held")) {
		test_held();
	} else if (!strcmp(cmd, "setcap") && argc == 4) {
		test_setcap(argv[2], argv[3]);
	} else if (!strcmp(cmd, "mixcred") && argc == 4) {
		test_mixcred(argv[2], argv[3]);
	} else if (!strcmp(cmd, "ambient")) {
		test_ambient();
	} else if (!strcmp(cmd, "wait-stdin")) {
		char c;

		if (write(1, "r", 1) != 1)
			return 100;
		while (read(0, &c, 1) > 0)
			;
	} else if (!strcmp(cmd, "as-user") && argc > 2) {
		drop();
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	} else {
		fprintf(stderr, "usage: pt_sec exec|race|rules|paranoid|held|setcap|ambient|as-user ... (see the source)\n");
		return 100;
	}
	return failures;
}
