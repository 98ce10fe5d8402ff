// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptcap -a's process records (tools/ptcap/procs.c) on this
 * host's own processes, read back with libpt's parser
 * (include/lwpt/ptcap_dir.h; Documentation/ptcap-format.rst, "processes"):
 * this test's own maps and exec entry, a process that is gone (missing),
 * and a child that execs (a new generation).
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lwpt/ptcap_dir.h>

#include "tools/ptcap/procs.h"
#include "tests/check_run.h"

static void read_processes(const char *dir, struct ptcap_processes *ps)
{
	char *text;
	size_t len;

	ck_assert_int_eq(ptcap_dir_read_file(dir, PTCAP_PROCESSES_FILE, &text, &len), 0);
	ck_assert_int_eq(ptcap_processes_parse(text, len, ps, NULL), 0);
	free(text);
}

static void rm_dir(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Ourselves: maps with our executable, an entry point, comm. */
START_TEST(self_and_missing)
{
	char dir[] = "/tmp/test_ptcap_procs.XXXXXX", exe[4096];
	struct ptcap_procs *ps = ptcap_procs_alloc();
	struct ptcap_processes rd;
	struct ptcap_maps maps;
	const struct ptcap_process *p;
	unsigned int missing = 9;
	size_t n, i, len;
	char *text;
	ssize_t el;
	bool found = false;

	ck_assert_ptr_nonnull(ps);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(el, 0);
	exe[el] = '\0';
	ptcap_procs_round(ps);
	ck_assert_int_eq(ptcap_procs_note(ps, getpid(), 100), 0);
	ck_assert_int_eq(ptcap_procs_note(ps, getpid(), 150), 0);	/* same round */
	ck_assert_int_eq(ptcap_procs_note(ps, 0, 150), 0);		/* idle: ignored */
	/* A pid that does not exist (above pid_max): missing. */
	ck_assert_int_eq(ptcap_procs_note(ps, 0x7ffffff0, 150), 0);
	ptcap_procs_round(ps);
	ck_assert_int_eq(ptcap_procs_note(ps, getpid(), 160), 0);
	ck_assert_int_eq(ptcap_procs_refresh(ps, 200), 0);
	ck_assert_int_eq(ptcap_procs_write(ps, dir, NULL, 0, &missing), 2);
	ck_assert_uint_eq(missing, 1);

	read_processes(dir, &rd);
	p = ptcap_processes_find(&rd, (uint32_t)getpid(), &n);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(p->gen, 0);
	ck_assert_uint_eq(p->first_tsc, 100);
	ck_assert_uint_eq(p->last_tsc, 200);
	ck_assert_uint_ne(p->entry, 0);
	ck_assert_str_eq(p->comm, "test_ptcap_proc");	/* comm: 15 bytes */
	p = ptcap_processes_find(&rd, 0x7ffffff0, &n);
	ck_assert(p && p->missing);

	/* Its maps file: our executable's mappings, in the maps format. */
	p = ptcap_processes_find(&rd, (uint32_t)getpid(), NULL);
	ck_assert_int_eq(ptcap_dir_read_file(dir, p->maps, &text, &len), 0);
	ck_assert_int_eq(ptcap_maps_parse(text, len, &maps, NULL), 0);
	free(text);
	for (i = 0; i < maps.nmaps; i++)
		found |= !strcmp(maps.map[i].path, exe);
	ck_assert_msg(found, "%s not in %s/%s", exe, dir, p->maps);
	ptcap_maps_free(&maps);
	ptcap_processes_free(&rd);
	ptcap_procs_free(ps);
	rm_dir(dir);
}
END_TEST

/*
 * A busy machine's capture: tens of thousands of processes, most gone by
 * the time their switches are read, each named by many records of a
 * round. Every one is kept once (missing), found again through the pid
 * index as it grows, and ourselves among them.
 */
START_TEST(many_gone)
{
	char dir[] = "/tmp/test_ptcap_procs.XXXXXX";
	struct ptcap_procs *ps = ptcap_procs_alloc();
	struct ptcap_processes rd;
	const pid_t base = 0x7f000000;	/* above any pid_max */
	const int count = 20000;
	unsigned int missing = 0;
	int i, k;

	ck_assert_ptr_nonnull(ps);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (k = 0; k < 3; k++) {
		ptcap_procs_round(ps);
		for (i = 0; i < count; i++) {
			ck_assert_int_eq(ptcap_procs_note(ps, base + i, 10 + k), 0);
			ck_assert_int_eq(ptcap_procs_note(ps, base + i, 10 + k), 0);
		}
		ck_assert_int_eq(ptcap_procs_note(ps, getpid(), 10 + k), 0);
	}
	ck_assert_int_eq(ptcap_procs_refresh(ps, 20), 0);
	ck_assert_int_eq(ptcap_procs_write(ps, dir, NULL, 0, &missing), count + 1);
	ck_assert_uint_eq(missing, count);
	read_processes(dir, &rd);
	ck_assert(ptcap_processes_find(&rd, (uint32_t)base, NULL)->missing);
	ck_assert(ptcap_processes_find(&rd, (uint32_t)(base + count - 1), NULL)->missing);
	ck_assert(!ptcap_processes_find(&rd, (uint32_t)getpid(), NULL)->missing);
	ptcap_processes_free(&rd);
	ptcap_procs_free(ps);
	rm_dir(dir);
}
END_TEST

/* A child that execs: generation 0 is us, generation 1 the new program. */
START_TEST(exec_generation)
{
	char dir[] = "/tmp/test_ptcap_procs.XXXXXX", path[64], exe[4096];
	struct ptcap_procs *ps = ptcap_procs_alloc();
	struct ptcap_processes rd;
	const struct ptcap_process *p;
	unsigned int missing, tries;
	int go[2], st;
	pid_t child;
	size_t n;

	ck_assert_ptr_nonnull(ps);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(pipe(go), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	ptcap_procs_round(ps);
	ck_assert_int_eq(ptcap_procs_note(ps, child, 10), 0);
	ck_assert_int_eq(write(go[1], "x", 1), 1);
	close(go[1]);
	/* Until the exec happened (its exe changes). */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)child);
	for (tries = 0; tries < 1000; tries++) {
		ssize_t el = readlink(path, exe, sizeof(exe) - 1);

		if (el > 0) {
			exe[el] = '\0';
			if (strstr(exe, "sleep"))
				break;
		}
		usleep(10000);
	}
	ck_assert_msg(strstr(exe, "sleep"), "child did not exec: %s", exe);
	ptcap_procs_round(ps);
	ck_assert_int_eq(ptcap_procs_note(ps, child, 20), 0);
	ptcap_procs_round(ps);
	ck_assert_int_eq(ptcap_procs_note(ps, child, 30), 0);
	ck_assert_int_eq(ptcap_procs_write(ps, dir, NULL, 0, &missing), 1);
	kill(child, SIGKILL);
	waitpid(child, &st, 0);

	read_processes(dir, &rd);
	p = ptcap_processes_find(&rd, (uint32_t)child, &n);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(p[0].first_tsc, 10);
	ck_assert_uint_eq(p[0].last_tsc, 10);
	ck_assert_str_eq(p[1].comm, "sleep");
	ck_assert_uint_eq(p[1].first_tsc, 20);
	ck_assert_uint_eq(p[1].last_tsc, 30);
	ck_assert_uint_ne(p[1].entry, 0);
	ck_assert_uint_ne(p[1].entry, p[0].entry);
	ptcap_processes_free(&rd);
	ptcap_procs_free(ps);
	rm_dir(dir);
}
END_TEST

static Suite *procs_suite(void)
{
	Suite *s = suite_create("ptcap_procs");
	TCase *tc = tcase_create("proc");

	tcase_add_test(tc, self_and_missing);
	tcase_add_test(tc, exec_generation);
	tcase_add_test(tc, many_gone);
	/* Wall-clock limit for a loaded, shared machine. */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(procs_suite(), CK_NORMAL);
}
