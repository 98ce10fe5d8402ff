// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptcap's output directory rules (tools/ptcap/outdir.c,
 * issue 16 point 6): new and empty directories are used; a capture is
 * refused unless --force, which moves it to DIR.old (replacing an older
 * DIR.old capture); other files are never touched.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/ptcap/outdir.h"
#include "tests/check_run.h"

static char top[64];

static const char *path(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, name);
	return buf[k];
}

static void touch(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
}

static bool exists(const char *p)
{
	struct stat sb;

	return !stat(p, &sb);
}

static void setup(void)
{
	strcpy(top, "/tmp/ptcap-outdir.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(top));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(new_and_empty)
{
	enum ptcap_outdir_state st;
	bool moved = true;

	ck_assert_int_eq(ptcap_outdir_check(path("new"), &st), 0);
	ck_assert_int_eq(st, PTCAP_OUTDIR_NONE);
	ck_assert_int_eq(ptcap_outdir_prepare(path("new"), false, &moved), 0);
	ck_assert(!moved);
	ck_assert_int_eq(ptcap_outdir_check(path("new"), &st), 0);
	ck_assert_int_eq(st, PTCAP_OUTDIR_EMPTY);
	ck_assert_int_eq(ptcap_outdir_prepare(path("new"), false, NULL), 0);
	touch(path("file"));
	ck_assert_int_eq(ptcap_outdir_check(path("file"), &st), -ENOTDIR);
	ck_assert_int_eq(ptcap_outdir_prepare(path("file"), true, NULL), -ENOTDIR);
}
END_TEST

START_TEST(capture_refused_then_moved)
{
	enum ptcap_outdir_state st;
	bool moved = false;

	ck_assert_int_eq(mkdir(path("cap"), 0777), 0);
	touch(path("cap/config"));
	touch(path("cap/tid5.pt"));
	ck_assert_int_eq(ptcap_outdir_check(path("cap"), &st), 0);
	ck_assert_int_eq(st, PTCAP_OUTDIR_CAPTURE);
	ck_assert_int_eq(ptcap_outdir_prepare(path("cap"), false, &moved), -EEXIST);
	ck_assert(!moved && exists(path("cap/tid5.pt")));
	ck_assert_int_eq(ptcap_outdir_prepare(path("cap"), true, &moved), 0);
	ck_assert(moved);
	ck_assert(exists(path("cap.old/tid5.pt")) && exists(path("cap.old/config")));
	ck_assert_int_eq(ptcap_outdir_check(path("cap"), &st), 0);
	ck_assert_int_eq(st, PTCAP_OUTDIR_EMPTY);
	/* Again: the older cap.old (with a snapshot directory) is replaced. */
	ck_assert_int_eq(mkdir(path("cap.old/snap.1"), 0777), 0);
	touch(path("cap.old/snap.1/cpu0.pt"));
	touch(path("cap/cpu1.pt"));
	/* ptcap -a's processes and maps.<pid>.<gen> are a capture's too. */
	touch(path("cap/processes"));
	touch(path("cap/maps.243.0"));
	ck_assert_int_eq(ptcap_outdir_check(path("cap"), &st), 0);
	ck_assert_int_eq(st, PTCAP_OUTDIR_CAPTURE);
	ck_assert_int_eq(ptcap_outdir_prepare(path("cap"), true, &moved), 0);
	ck_assert(moved && exists(path("cap.old/cpu1.pt")) && !exists(path("cap.old/tid5.pt")));
	ck_assert(exists(path("cap.old/maps.243.0")));
}
END_TEST

/* Files that are not a capture are never written into, moved or removed. */
START_TEST(other_files_untouched)
{
	enum ptcap_outdir_state st;

	ck_assert_int_eq(mkdir(path("home"), 0777), 0);
	touch(path("home/notes.txt"));
	touch(path("home/config"));
	ck_assert_int_eq(ptcap_outdir_check(path("home"), &st), 0);
	ck_assert_int_eq(st, PTCAP_OUTDIR_OTHER);
	ck_assert_int_eq(ptcap_outdir_prepare(path("home"), true, NULL), -ENOTEMPTY);
	ck_assert(exists(path("home/notes.txt")) && !exists(path("home.old")));
	/* A DIR.old that is not a capture blocks --force. */
	ck_assert_int_eq(mkdir(path("c"), 0777), 0);
	touch(path("c/maps"));
	ck_assert_int_eq(mkdir(path("c.old"), 0777), 0);
	touch(path("c.old/precious"));
	ck_assert_int_eq(ptcap_outdir_prepare(path("c"), true, NULL), -ENOTEMPTY);
	ck_assert(exists(path("c.old/precious")) && exists(path("c/maps")));
}
END_TEST

static Suite *outdir_suite(void)
{
	Suite *s = suite_create("ptcap_outdir");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 10);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, new_and_empty);
	tcase_add_test(tc, capture_refused_then_moved);
	tcase_add_test(tc, other_files_untouched);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(outdir_suite(), CK_NORMAL);
}
