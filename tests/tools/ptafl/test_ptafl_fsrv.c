// SPDX-License-Identifier: GPL-2.0
/*
 * ptafl against afl-fuzz's side of AFL++ 4.04c's fork-server protocol
 * (issue 26, "Tests"; AFL++ src/afl-forkserver.c afl_fsrv_start() and
 * afl_fsrv_run_target(), include/types.h): this test plays afl-fuzz. It
 * creates the System V map and names it in __AFL_SHM_ID, starts
 * build/bin/ptafl with the control pipe on fd 198 and the status pipe on
 * fd 199, checks the hello word (FS_OPT_ENABLED | FS_OPT_MAPSIZE, the map
 * size), then per run writes the time-out word, reads the child's pid and
 * its wait status, and looks at the map. The trace source is ptrace
 * single-stepping (--trace-source=ptrace: no PT on the host), the target
 * tests/tools/ptafl/ptafl_magic.c. Also the encoding of the hello and
 * error words (afl_fsrv.c) against types.h's macros, by value.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/ptafl/afl_fsrv.h"
#include "tests/check_run.h"

#define MAP	65536

static const char *bin_dir(void)
{
	const char *o = getenv("O");

	return o ? o : "build";
}

START_TEST(words)
{
	/* types.h: FS_OPT_SET_MAPSIZE(x) = (x - 1) << 1, with the enable bits */
	ck_assert_uint_eq(afl_fsrv_hello_word(65536), 0xc001fffeu | 1u);
	ck_assert_uint_eq(afl_fsrv_map_size(afl_fsrv_hello_word(65536)), 65536);
	ck_assert_uint_eq(afl_fsrv_map_size(afl_fsrv_hello_word(1u << 23)), 1u << 23);
	ck_assert_uint_eq(afl_fsrv_map_size(afl_fsrv_hello_word(100)), 100);
	ck_assert_uint_eq(afl_fsrv_hello_word(1), 0);
	ck_assert_uint_eq(afl_fsrv_hello_word((1u << 23) + 1), 0);
	/* FS_OPT_ERROR | FS_OPT_SET_ERROR(FS_ERROR_SHMAT) */
	ck_assert_uint_eq(afl_fsrv_error_word(AFL_FS_ERROR_SHMAT), 0xf800088fu);
	ck_assert_uint_eq(afl_fsrv_map_size(afl_fsrv_error_word(AFL_FS_ERROR_SHMAT)), 0);
	/* afl-fuzz's workaround bits (0x0f000000) must not all be set */
	ck_assert_uint_ne(afl_fsrv_hello_word(1u << 23) & 0x0f000000u, 0x0f000000u);
}
END_TEST

START_TEST(rw)
{
	uint32_t v;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(afl_fsrv_write4(p[1], 0x12345678), 0);
	ck_assert_int_eq(afl_fsrv_read4(p[0], &v), 0);
	ck_assert_uint_eq(v, 0x12345678);
	ck_assert_int_eq(write(p[1], "ab", 2), 2);
	close(p[1]);
	ck_assert_int_eq(afl_fsrv_read4(p[0], &v), -EPROTO);
	ck_assert_int_eq(afl_fsrv_read4(p[0], &v), -ENODATA);
	close(p[0]);
}
END_TEST

/* afl-fuzz's side of one fork server. */
struct peer {
	pid_t pid;
	int ctl, st;	/* our ends: we write ctl (198), read st (199) */
	int shm;
	uint8_t *map;
	char input[64];
	char stats[64];
	int in_fd;	/* >= 0: the input on ptafl's stdin, as afl-fuzz without @@ */
};

static void peer_start(struct peer *p, const char *extra)
{
	char ptafl[256], magic[256], id[32];
	int c[2], s[2];

	snprintf(p->input, sizeof(p->input), "/tmp/ptafl_fsrv_in.%d", (int)getpid());
	snprintf(p->stats, sizeof(p->stats), "/tmp/ptafl_fsrv_st.%d", (int)getpid());
	snprintf(ptafl, sizeof(ptafl), "%s/bin/ptafl", bin_dir());
	snprintf(magic, sizeof(magic), "%s/tests/ptafl_magic", bin_dir());
	p->shm = shmget(IPC_PRIVATE, MAP, IPC_CREAT | IPC_EXCL | 0600);
	ck_assert_int_ge(p->shm, 0);
	p->map = shmat(p->shm, NULL, 0);
	ck_assert_ptr_ne(p->map, (void *)-1);
	shmctl(p->shm, IPC_RMID, NULL);	/* gone once both detached */
	ck_assert_int_eq(pipe(c), 0);
	ck_assert_int_eq(pipe(s), 0);
	p->pid = fork();
	ck_assert_int_ge(p->pid, 0);
	if (!p->pid) {
		snprintf(id, sizeof(id), "%d", p->shm);
		setenv(AFL_SHM_ENV, id, 1);
		setenv("PTAFL_MAGIC_HANG", "1", 1);	/* "LWPH" hangs */
		if (p->in_fd >= 0)
			dup2(p->in_fd, 0);
		dup2(c[0], AFL_FSRV_CTL_FD);
		dup2(s[1], AFL_FSRV_ST_FD);
		close(c[0]); close(c[1]); close(s[0]); close(s[1]);
		if (extra)
			execl(ptafl, ptafl, "--trace-source=ptrace", "--stats", p->stats, extra,
			      "--", magic, p->input, (char *)NULL);
		execl(ptafl, ptafl, "--trace-source=ptrace", "--stats", p->stats, "--", magic,
		      p->in_fd >= 0 ? NULL : p->input, (char *)NULL);
		_exit(127);
	}
	close(c[0]);
	close(s[1]);
	p->ctl = c[1];
	p->st = s[0];
}

static void peer_stop(struct peer *p)
{
	int status;

	close(p->ctl);		/* ptafl sees end of file and exits 0 */
	close(p->st);
	ck_assert_int_eq(waitpid(p->pid, &status, 0), p->pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	shmdt(p->map);
	unlink(p->input);
	unlink(p->stats);
}

static unsigned int map_bytes(const struct peer *p)
{
	unsigned int i, n = 0;

	for (i = 0; i < MAP; i++)
		n += p->map[i] != 0;
	return n;
}

/* One run as afl_fsrv_run_target() does it; returns the wait status. */
static int peer_run(struct peer *p, const char *input, uint32_t timed_out, int kill_after_ms)
{
	uint32_t pid, status;
	FILE *f;

	if (p->in_fd >= 0) {	/* afl_fsrv_write_to_testcase() without @@ */
		ck_assert_int_eq(ftruncate(p->in_fd, 0), 0);
		ck_assert_int_eq(pwrite(p->in_fd, input, strlen(input), 0), (ssize_t)strlen(input));
		ck_assert_int_eq(lseek(p->in_fd, 0, SEEK_SET), 0);
	} else {
		f = fopen(p->input, "w");
		ck_assert_ptr_nonnull(f);
		fputs(input, f);
		fclose(f);
	}
	memset(p->map, 0, MAP);
	ck_assert_int_eq(afl_fsrv_write4(p->ctl, timed_out), 0);
	ck_assert_int_eq(afl_fsrv_read4(p->st, &pid), 0);
	ck_assert_int_gt((int32_t)pid, 0);
	if (kill_after_ms) {		/* afl-fuzz's time-out: kill the child */
		usleep(kill_after_ms * 1000);
		kill((pid_t)pid, SIGKILL);
	}
	ck_assert_int_eq(afl_fsrv_read4(p->st, &status), 0);
	return (int)status;
}

START_TEST(protocol)
{
	struct peer p = { .in_fd = -1 };
	uint32_t hello;
	unsigned int plain, one;
	int status;

	peer_start(&p, NULL);
	ck_assert_int_eq(afl_fsrv_read4(p.st, &hello), 0);
	ck_assert_uint_eq(hello & AFL_FS_OPT_ENABLED, AFL_FS_OPT_ENABLED);
	ck_assert_uint_eq(afl_fsrv_map_size(hello), MAP);

	status = peer_run(&p, "AAAA", 0, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	plain = map_bytes(&p);
	ck_assert_uint_gt(plain, 0);

	/* one more right byte of the magic: one more edge */
	status = peer_run(&p, "LAAA", 0, 0);
	ck_assert(WIFEXITED(status));
	one = map_bytes(&p);
	ck_assert_uint_gt(one, plain);

	/* the same input again: the same map */
	status = peer_run(&p, "AAAA", 0, 0);
	ck_assert_uint_eq(map_bytes(&p), plain);

	status = peer_run(&p, "LWPT", 0, 0);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGSEGV);

	/* a hang, killed by "afl-fuzz"; the next request says it timed out */
	status = peer_run(&p, "LWPH", 0, 300);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGKILL);
	status = peer_run(&p, "AAAA", 1, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_uint_eq(map_bytes(&p), plain);
	peer_stop(&p);
}
END_TEST

/* The input on standard input (afl-fuzz without @@): the same outcomes. */
START_TEST(stdin_input)
{
	struct peer p = { .in_fd = -1 };
	char path[64];
	uint32_t hello;
	int status;

	snprintf(path, sizeof(path), "/tmp/ptafl_fsrv_stdin.%d", (int)getpid());
	p.in_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(p.in_fd, 0);
	unlink(path);
	peer_start(&p, NULL);
	ck_assert_int_eq(afl_fsrv_read4(p.st, &hello), 0);
	status = peer_run(&p, "LWAA", 0, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_uint_gt(map_bytes(&p), 0);
	status = peer_run(&p, "LWPT", 0, 0);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGSEGV);
	peer_stop(&p);
	close(p.in_fd);
}
END_TEST

/* --map-size: the hello announces it; closing the pipes ends ptafl. */
START_TEST(map_size_option)
{
	struct peer p = { .in_fd = -1 };
	uint32_t hello;
	int status;

	peer_start(&p, "--map-size=1024");
	ck_assert_int_eq(afl_fsrv_read4(p.st, &hello), 0);
	ck_assert_uint_eq(afl_fsrv_map_size(hello), 1024);
	close(p.ctl);
	close(p.st);
	ck_assert_int_eq(waitpid(p.pid, &status, 0), p.pid);
	ck_assert(WIFEXITED(status));
	shmdt(p.map);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptafl_fsrv");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, words);
	tcase_add_test(tc, rw);
	tcase_add_test(tc, protocol);
	tcase_add_test(tc, stdin_input);
	tcase_add_test(tc, map_size_option);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
