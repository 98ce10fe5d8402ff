// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap's "# build-id" lines of a maps file (tools/ptcap/buildid.c,
 * issue 35 "Errors"): one per distinct absolute path of an ELF file with a
 * GNU build-id, the id readelf -n shows (binutils: not our reader); what
 * ptcap_maps_parse() reads back, and lpt_cov_build_id_check() on the same
 * and on another binary.
 */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lwpt/pt_cov.h>
#include <lwpt/ptcap_dir.h>

#include "tools/ptcap/buildid.h"
#include "tests/check_run.h"

/* readelf -n's "Build ID:" of @path into @hex (NUL-terminated), or "". */
static void readelf_id(const char *path, char hex[64])
{
	char cmd[PATH_MAX + 64], line[256];
	FILE *p;

	hex[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p)) {
		const char *b = strstr(line, "Build ID: ");

		if (b && sscanf(b + 10, "%63s", hex) == 1)
			break;
	}
	pclose(p);
}

/* This test's own binary and another one, both with build-ids. */
static char self[PATH_MAX], other[PATH_MAX];

static void setup(void)
{
	char hex[64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	ck_assert_ptr_nonnull(realpath("/bin/true", other));
	readelf_id(self, hex);
	ck_assert_msg(hex[0], "%s has no build-id (linked without --build-id?)", self);
}

START_TEST(written_once_per_file)
{
	const char *paths[] = { self, "vdso.so", self, "/nonexistent/x", "/dev/null",
				"/etc/passwd", other, "jit-1.dump" };
	char *text = NULL, want[2 * PATH_MAX + 256], hex[64], hex2[64];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_uint_eq(maps_write_build_ids(f, paths, sizeof(paths) / sizeof(paths[0])), 2);
	fclose(f);
	readelf_id(self, hex);
	readelf_id(other, hex2);
	snprintf(want, sizeof(want), "# build-id %s %s\n# build-id %s %s\n", hex, self, hex2,
		 other);
	ck_assert_str_eq(text, want);
	free(text);
	ck_assert_uint_eq(maps_write_build_ids(stdout, NULL, 0), 0);
}
END_TEST

START_TEST(read_back_and_checked)
{
	const char *paths[] = { self, other };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct ptcap_maps maps;
	uint8_t id[PTCAP_BUILD_ID_MAX], n = 99;

	fprintf(f, "lwpt-ptcap-maps 1\n0x400000 0x401000 0x0 %s\n"
		"0x500000 0x501000 0x0 vdso.so\n", self);
	maps_write_build_ids(f, paths, 1);
	fclose(f);
	ck_assert_int_eq(ptcap_maps_parse(text, len, &maps, NULL), 0);
	ck_assert_uint_eq(maps.nmaps, 2);
	ck_assert_uint_gt(maps.map[0].build_id_size, 0);
	ck_assert_uint_eq(maps.map[1].build_id_size, 0);
	/* the same file: 0, its id given back */
	ck_assert_int_eq(lpt_cov_build_id_check(&maps.map[0], self, id, &n), 0);
	ck_assert_uint_eq(n, maps.map[0].build_id_size);
	ck_assert_mem_eq(id, maps.map[0].build_id, n);
	/* another binary at that path: 1, with its own id */
	ck_assert_int_eq(lpt_cov_build_id_check(&maps.map[0], other, id, &n), 1);
	ck_assert_uint_gt(n, 0);
	/* a file without a note where one was recorded: 1, no id */
	ck_assert_int_eq(lpt_cov_build_id_check(&maps.map[0], "/etc/passwd", id, &n), 1);
	ck_assert_uint_eq(n, 0);
	/* nothing recorded: nothing to compare */
	ck_assert_int_eq(lpt_cov_build_id_check(&maps.map[1], other, NULL, NULL), 0);
	/* unreadable: not compared */
	ck_assert_int_eq(lpt_cov_build_id_check(&maps.map[0], "/nonexistent/x", NULL, NULL),
			 LPT_ERR_NOT_SUPPORTED);
	ck_assert_int_eq(lpt_cov_build_id_check(NULL, self, NULL, NULL), LPT_ERR_INVALID);
	ptcap_maps_free(&maps);
	free(text);
}
END_TEST

/* A hostile or cut file never reads outside itself (ASan under
 * SANITIZE=1): cut at every length up to 8 KiB, and with bytes of its
 * headers and notes overwritten, it is checked without a crash: the same
 * or another id, never an error. */
START_TEST(cut_and_corrupt)
{
	char tmpl[] = "/tmp/test_ptcap_buildid.XXXXXX";
	int fd = mkstemp(tmpl);
	FILE *in = fopen(self, "rb");
	static uint8_t buf[8192];
	size_t n;
	struct ptcap_map m = { .path = self };
	uint8_t id[PTCAP_BUILD_ID_MAX], len;
	const char *paths[] = { self };
	char *text = NULL;
	size_t tl = 0;
	FILE *f = open_memstream(&text, &tl);
	struct ptcap_maps maps;

	ck_assert_int_ge(fd, 0);
	ck_assert_ptr_nonnull(in);
	n = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	fprintf(f, "lwpt-ptcap-maps 1\n0x1000 0x2000 0x0 %s\n", self);
	maps_write_build_ids(f, paths, 1);
	fclose(f);
	ck_assert_int_eq(ptcap_maps_parse(text, tl, &maps, NULL), 0);
	m = maps.map[0];
	for (size_t cut = 0; cut <= n; cut += cut < 1024 ? 1 : 61) {
		ck_assert_int_eq(ftruncate(fd, 0), 0);
		ck_assert_int_eq(pwrite(fd, buf, cut, 0), (ssize_t)cut);
		int r = lpt_cov_build_id_check(&m, tmpl, id, &len);

		ck_assert(r == 0 || r == 1);
		ck_assert_uint_le(len, PTCAP_BUILD_ID_MAX);
	}
	for (size_t at = 16; at < 1024; at += 3) {
		uint8_t save = buf[at];

		buf[at] ^= 0xa5;
		ck_assert_int_eq(ftruncate(fd, 0), 0);
		ck_assert_int_eq(pwrite(fd, buf, n, 0), (ssize_t)n);
		int r = lpt_cov_build_id_check(&m, tmpl, id, &len);

		ck_assert(r == 0 || r == 1);
		buf[at] = save;
	}
	unlink(tmpl);
	close(fd);
	ptcap_maps_free(&maps);
	free(text);
}
END_TEST

static Suite *buildid_suite(void)
{
	Suite *s = suite_create("ptcap_buildid");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_unchecked_fixture(tc, setup, NULL);
	tcase_add_test(tc, written_once_per_file);
	tcase_add_test(tc, read_back_and_checked);
	tcase_add_test(tc, cut_and_corrupt);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(buildid_suite(), CK_NORMAL);
}
