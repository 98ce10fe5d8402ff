// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap --bts -p's look at a process's threads (tools/ptcap/tasks.c): the
 * set that grows, the ids of a task directory (a made-up one, and this
 * process's own), and the pidfd that says when a process has exited.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/ptcap/tasks.h"
#include "tests/check_run.h"

START_TEST(set_grows_and_filters)
{
	struct ptcap_tasks s = { 0 }, in = { 0 };
	pid_t i;

	for (i = 1; i <= 1000; i++)
		ck_assert_int_eq(ptcap_tasks_add(&s, i), 0);
	ck_assert_uint_eq(s.n, 1000);
	ck_assert(ptcap_tasks_has(&s, 1) && ptcap_tasks_has(&s, 1000));
	ck_assert(!ptcap_tasks_has(&s, 1001));
	ck_assert_int_eq(ptcap_tasks_add(&in, 700), 0);
	ck_assert_int_eq(ptcap_tasks_add(&in, 3), 0);
	ck_assert_int_eq(ptcap_tasks_add(&in, 5000), 0);
	ptcap_tasks_keep(&s, &in);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_int_eq(s.v[0], 3);	/* the order of @s */
	ck_assert_int_eq(s.v[1], 700);
	ptcap_tasks_free(&s);
	ptcap_tasks_free(&in);
	ck_assert(s.v == NULL && s.n == 0 && s.cap == 0);
}
END_TEST

/* Sorted, the same answers by binary search; an add ends the order. */
START_TEST(sorted_lookups)
{
	struct ptcap_tasks s = { 0 }, in = { 0 };
	size_t k;
	pid_t i;

	for (i = 5000; i >= 1; i -= 3)
		ck_assert_int_eq(ptcap_tasks_add(&s, i), 0);
	ptcap_tasks_sort(&s);
	ck_assert(s.sorted);
	for (k = 1; k < s.n; k++)
		ck_assert_int_lt(s.v[k - 1], s.v[k]);
	for (i = 0; i <= 5001; i++)
		ck_assert(ptcap_tasks_has(&s, i) == (i >= 2 && (5000 - i) % 3 == 0));
	ck_assert_int_eq(ptcap_tasks_add(&s, 7), 0);	/* (5000 - 7) % 3 != 0: new */
	ck_assert(!s.sorted);
	ck_assert(ptcap_tasks_has(&s, 7));
	/* keep() against a sorted set */
	ck_assert_int_eq(ptcap_tasks_add(&in, 4997), 0);
	ck_assert_int_eq(ptcap_tasks_add(&in, 7), 0);
	ptcap_tasks_sort(&in);
	ptcap_tasks_keep(&s, &in);
	ck_assert_uint_eq(s.n, 2);
	ptcap_tasks_free(&s);
	ptcap_tasks_free(&in);
}
END_TEST

/* Only the numeric entries of <proc>/<pid>/task are threads. */
START_TEST(reads_a_task_directory)
{
	char root[] = "/tmp/ptcap_tasks.XXXXXX", path[256];
	static const char *const names[] = { "42", "43", "x1", "0", "-5", "44a" };
	struct ptcap_tasks s = { 0 };
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/42", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/42/task", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(ptcap_tasks_read(&s, root, 42), 0);
	ck_assert_uint_eq(s.n, 0);	/* a process whose threads are gone */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/42/task/%s", root, names[i]);
		ck_assert_int_eq(mkdir(path, 0700), 0);
	}
	ck_assert_int_eq(ptcap_tasks_add(&s, 99), 0);	/* emptied first */
	ck_assert_int_eq(ptcap_tasks_read(&s, root, 42), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert(ptcap_tasks_has(&s, 42) && ptcap_tasks_has(&s, 43));
	ck_assert(!ptcap_tasks_has(&s, 99));
	ck_assert_int_eq(ptcap_tasks_read(&s, root, 41), -ENOENT);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/42/task/%s", root, names[i]);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/42/task", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/42", root);
	rmdir(path);
	rmdir(root);
	ptcap_tasks_free(&s);
}
END_TEST

START_TEST(reads_this_process)
{
	struct ptcap_tasks s = { 0 };

	ck_assert_int_eq(ptcap_tasks_read(&s, "/proc", getpid()), 0);
	ck_assert(ptcap_tasks_has(&s, getpid()));
	ptcap_tasks_free(&s);
}
END_TEST

/* A pidfd is readable once the process exited (a zombie), not before. */
START_TEST(pidfd_says_exit)
{
	int go[2], fd, st;
	struct pollfd p;
	pid_t child;
	char c = 0;

	fd = ptcap_pidfd_open(getpid());
	if (fd == -ENOSYS)
		return;	/* a kernel before 5.3: ptcap falls back */
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(pipe(go), 0);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(go[0]);
	fd = ptcap_pidfd_open(child);
	ck_assert_int_ge(fd, 0);
	p.fd = fd;
	p.events = POLLIN;
	ck_assert_int_eq(poll(&p, 1, 0), 0);	/* it waits for the byte */
	ck_assert_int_eq(write(go[1], &c, 1), 1);
	ck_assert_int_eq(poll(&p, 1, -1), 1);	/* its exit, not reaped yet */
	ck_assert(p.revents & POLLIN);
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fd);
	close(go[1]);
	ck_assert_int_eq(ptcap_pidfd_open(child), -ESRCH);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptcap_tasks");
	TCase *tc = tcase_create("tasks");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, set_grows_and_filters);
	tcase_add_test(tc, sorted_lookups);
	tcase_add_test(tc, reads_a_task_directory);
	tcase_add_test(tc, reads_this_process);
	tcase_add_test(tc, pidfd_says_exit);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
