// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptcap's symbolic filters (tools/ptcap/symfilter.c, issue
 * 16 point 3) against this test program itself, a position-independent
 * executable, and the C library it loads: a symbol's range is where the
 * function runs (its address in this process), a FILE's executable segment
 * holds it, START/SIZE@FILE is relative to the file's ELF addresses; what
 * matches nothing is an error naming it.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/ptcap/symfilter.h"
#include "tests/check_run.h"

/* Two functions with known sizes to look up. */
int __attribute__((noinline)) ptcap_symfilter_probe(int x);
int __attribute__((noinline)) ptcap_symfilter_probe(int x)
{
	return x * 3 + 1;
}

static int __attribute__((noinline, used)) local_probe(int x)
{
	return x ^ 0x55;
}

static struct ptcap_vma vmas[512];
static size_t nvma;
static char exe[4096];

/* This process's file-backed mappings, as ptcap reads a target's. */
static void read_maps(void)
{
	char line[4400];
	FILE *f = fopen("/proc/self/maps", "r");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_gt(n, 0);
	exe[n] = 0;
	nvma = 0;
	while (fgets(line, sizeof(line), f) && nvma < 512) {
		unsigned long long s, e, off;
		int pos = 0;
		char *nl;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &pos) < 3 ||
		    !pos || line[pos] != '/')
			continue;
		nl = strchr(line + pos, '\n');
		if (nl)
			*nl = 0;
		vmas[nvma].start = s;
		vmas[nvma].end = e;
		vmas[nvma].offset = off;
		vmas[nvma].path = strdup(line + pos);
		nvma++;
	}
	fclose(f);
}

static void free_maps(void)
{
	while (nvma)
		free(vmas[--nvma].path);
}

static int resolve(const char *arg, struct ptcap_range *r, size_t max, char *err)
{
	struct ptcap_spec sp;

	ck_assert_int_eq(ptcap_spec_parse(arg, &sp, err, 256), 0);
	return ptcap_spec_resolve(&sp, exe, vmas, nvma, r, max, err, 256);
}

START_TEST(parse)
{
	struct ptcap_spec sp;
	char err[256];

	ck_assert_int_eq(ptcap_spec_parse("0x1000-0x1fff", &sp, err, sizeof(err)), 0);
	ck_assert(sp.kind == PTCAP_SPEC_ADDR && sp.a == 0x1000 && sp.b == 0x1fff);
	ck_assert_int_eq(ptcap_spec_parse("main", &sp, err, sizeof(err)), 0);
	ck_assert(sp.kind == PTCAP_SPEC_SYMBOL && !strcmp(sp.sym, "main") && !sp.file[0]);
	ck_assert_int_eq(ptcap_spec_parse("memcpy@libc.so.6", &sp, err, sizeof(err)), 0);
	ck_assert(sp.kind == PTCAP_SPEC_SYMBOL && !strcmp(sp.sym, "memcpy") &&
		  !strcmp(sp.file, "libc.so.6"));
	ck_assert_int_eq(ptcap_spec_parse("/bin/true", &sp, err, sizeof(err)), 0);
	ck_assert(sp.kind == PTCAP_SPEC_FILE && !strcmp(sp.file, "/bin/true"));
	ck_assert_int_eq(ptcap_spec_parse("0x40/16@/bin/x", &sp, err, sizeof(err)), 0);
	ck_assert(sp.kind == PTCAP_SPEC_OFFSET && sp.a == 0x40 && sp.b == 16 &&
		  !strcmp(sp.file, "/bin/x"));
	/* Errors name the argument. */
	ck_assert_int_eq(ptcap_spec_parse("0x2000-0x1000", &sp, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'0x2000-0x1000': the range ends before it starts"));
	ck_assert_int_eq(ptcap_spec_parse("0x40/0@/bin/x", &sp, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "START/SIZE@FILE"));
	ck_assert_int_eq(ptcap_spec_parse("main@", &sp, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ptcap_spec_parse("@/bin/x", &sp, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ptcap_spec_parse("", &sp, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(ptcap_spec_parse("0x1000", &sp, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'0x1000': expected A-B, SYMBOL"));
}
END_TEST

/* SYMBOL in the main executable (a PIE): where it is in this process. */
START_TEST(symbol_in_pie)
{
	struct ptcap_range r[4];
	char err[256], arg[4200];
	uint64_t f = (uint64_t)(uintptr_t)ptcap_symfilter_probe;

	read_maps();
	ck_assert_int_eq(resolve("ptcap_symfilter_probe", r, 4, err), 1);
	ck_assert_uint_eq(r[0].a, f);
	ck_assert(r[0].b > r[0].a && r[0].b < r[0].a + 64);
	/* A local (static) function too. */
	ck_assert_int_eq(resolve("local_probe", r, 4, err), 1);
	ck_assert_uint_eq(r[0].a, (uint64_t)(uintptr_t)local_probe);
	/* SYMBOL@FILE with the path; FILE: the executable segment holds it. */
	snprintf(arg, sizeof(arg), "ptcap_symfilter_probe@%s", exe);
	ck_assert_int_eq(resolve(arg, r, 4, err), 1);
	ck_assert_uint_eq(r[0].a, f);
	ck_assert_int_ge(resolve(exe, r, 4, err), 1);
	ck_assert(r[0].a <= f && f <= r[0].b);
	free_maps();
}
END_TEST

static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;	/* the first is the program */
	return 1;
}

/* START/SIZE@FILE: the file's own (ELF) addresses, relocated. */
START_TEST(offset_in_pie)
{
	uint64_t f = (uint64_t)(uintptr_t)ptcap_symfilter_probe, bias = 0;
	struct ptcap_range r[1];
	char arg[4200], err[256];

	read_maps();
	dl_iterate_phdr(main_bias, &bias);
	snprintf(arg, sizeof(arg), "0x%" PRIx64 "/8@%s", f - bias, exe);
	ck_assert_int_eq(resolve(arg, r, 1, err), 1);
	ck_assert_uint_eq(r[0].a, f);
	ck_assert_uint_eq(r[0].b, f + 7);
	free_maps();
}
END_TEST

/* A shared library by base name: its exported function. */
START_TEST(symbol_in_library)
{
	uint64_t f = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid");
	struct ptcap_range r[1];
	char err[256];

	read_maps();
	ck_assert_uint_ne(f, 0);
	ck_assert_int_eq(resolve("getpid@libc.so.6", r, 1, err), 1);
	ck_assert_uint_eq(r[0].a, f);
	free_maps();
}
END_TEST

START_TEST(errors)
{
	struct ptcap_range r[1];
	struct ptcap_spec sp;
	char err[256];

	read_maps();
	ck_assert_int_eq(resolve("no_such_function_here", r, 1, err), -ESRCH);
	ck_assert_ptr_nonnull(strstr(err, "no_such_function_here: no function of that name"));
	ck_assert_int_eq(resolve("main@libnotloaded.so.9", r, 1, err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "libnotloaded.so.9: no file of that name is mapped"));
	ck_assert_int_eq(resolve("/no/such/file", r, 1, err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/no/such/file"));
	/* A file on disk that this process does not map. */
	ck_assert_int_eq(resolve("/bin/sh", r, 1, err), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "not mapped in the process"));
	/* Without a process (ptcap -a): no SYMBOL alone, no PIE. */
	ck_assert_int_eq(ptcap_spec_parse("main", &sp, err, sizeof(err)), 0);
	ck_assert_int_eq(ptcap_spec_resolve(&sp, NULL, NULL, 0, r, 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "needs a traced program"));
	ck_assert_int_eq(ptcap_spec_parse(exe, &sp, err, sizeof(err)), 0);
	ck_assert_int_eq(ptcap_spec_resolve(&sp, NULL, NULL, 0, r, 1, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "position-independent"));
	/* Not ELF. */
	ck_assert_int_eq(resolve("x@/proc/self/maps", r, 1, err), -ENOEXEC);
	ck_assert_ptr_nonnull(strstr(err, "/proc/self/maps: not an ELF file"));
	free_maps();
}
END_TEST

static Suite *symfilter_suite(void)
{
	Suite *s = suite_create("ptcap_symfilter");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, parse);
	tcase_add_test(tc, symbol_in_pie);
	tcase_add_test(tc, offset_in_pie);
	tcase_add_test(tc, symbol_in_library);
	tcase_add_test(tc, errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(symfilter_suite(), CK_NORMAL);
}
