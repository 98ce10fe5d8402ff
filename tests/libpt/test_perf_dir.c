// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of libpt's reader on perf.data in directory format (`perf record
 * --threads`; libpt/perf_dir.c, Documentation/perf-data.rst "Directory
 * format").
 *
 * Sources: perf 6.1's layout (util/data.c perf_data__create_dir() and
 * perf_data__open_dir(), util/header.c write_dir_format(), util/session.c
 * __perf_session__process_dir_events()); a per-CPU Intel PT directory built
 * here with libpt's writer (tests/libpt/perf_fixture.h) and split over
 * data.N files as perf record --threads splits a recording (the header's
 * sideband in `data`, each CPU's records in its thread's file), checked
 * against what Debian's perf 6.1 shows of it (`perf report --header-only`,
 * `perf report -D`); and, where perf can record here, a real `perf record
 * --threads` of a software event, whose record counts the reader must
 * equal perf's (`perf report -D` statistics).
 */
#include <lwpt/perf_data.h>

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "tests/libpt/perf_fixture.h"

static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

static void spit(const char *dir, const char *name, const void *b, size_t n)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

/* The records of one recording thread's file: a fixture's data section. */
static void spit_records(const char *dir, const char *name, struct fx *x)
{
	const uint8_t *r;
	size_t n;

	fx_finish(x);
	r = fx_records(x, &n);
	spit(dir, name, r, n);
	free(x->b);
}

/*
 * DIR/data: TIME_CONV, AUXTRACE_INFO (per CPU), COMM and MMAP2 of pid 7
 * at 1000/1100; DIR/data.0: CPU 0's thread (a switch in at 5000, an MMAP2
 * at 3000, 32 bytes of trace); DIR/data.1: CPU 1's (a switch in at 4000,
 * an MMAP2 at 2000, 48 bytes); an empty data.2 and a directory data.3,
 * which perf skips. @version: HEADER_DIR_FORMAT's.
 */
static void build_dir(const char *dir, uint64_t version)
{
	uint8_t t0[32] = { 0 }, t1[48] = { 0 };
	char sub[4200];
	struct fx x;

	memcpy(t0, psb, 16);
	memcpy(t1 + 16, psb, 16);
	t1[47] = 0x55;
	fx_start(&x, false);
	fx_time_conv(&x);
	fx_auxtrace_info(&x, true, false, NULL);
	fx_comm(&x, 7, 7, "prog", true, 1000);
	fx_mmap2(&x, 7, 0x400000, 0x1000, 0, "/usr/bin/prog", 1100);
	fx_finish(&x);
	fx_add_dir_format(&x, version);
	spit(dir, "data", x.b, x.n);
	free(x.b);

	fx_start(&x, false);
	fx_switch_cpu_wide(&x, false, 0, 7, 0, 5000);
	fx_mmap2(&x, 7, 0x500000, 0x1000, 0, "/usr/lib/lib0.so", 3000);
	fx_auxtrace(&x, t0, sizeof(t0), 0, 0, (uint32_t)-1, 0);
	spit_records(dir, "data.0", &x);

	fx_start(&x, false);
	fx_switch_cpu_wide(&x, false, 1, 7, 0, 4000);
	fx_mmap2(&x, 7, 0x600000, 0x1000, 0, "/usr/lib/lib1.so", 2000);
	fx_auxtrace(&x, t1, sizeof(t1), 0, 1, (uint32_t)-1, 1);
	spit_records(dir, "data.1", &x);

	spit(dir, "data.2", "", 0);
	snprintf(sub, sizeof(sub), "%s/data.3", dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
}

static void rm_rf(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void check_dir(struct lpt_perf *p)
{
	const struct lpt_perf_switch *s;
	const struct lpt_perf_map *m;
	const struct lpt_perf_trace *t;
	uint8_t buf[64];
	size_t n;

	ck_assert_uint_eq(lpt_perf_info(p)->dir_files, 2);
	ck_assert(lpt_perf_info(p)->per_cpu);
	ck_assert_uint_eq(lpt_perf_ntraces(p), 2);
	t = lpt_perf_trace(p, 0);
	ck_assert_int_eq(t->cpu, 0);
	ck_assert_uint_eq(t->size, 32);
	ck_assert_int_eq(lpt_perf_trace_read(p, 0, 0, buf, sizeof(buf)), 32);
	ck_assert_mem_eq(buf, psb, 16);
	t = lpt_perf_trace(p, 1);
	ck_assert_int_eq(t->cpu, 1);
	ck_assert_uint_eq(t->size, 48);
	ck_assert_int_eq(lpt_perf_trace_read(p, 1, 0, buf, sizeof(buf)), 48);
	ck_assert_mem_eq(buf + 16, psb, 16);
	ck_assert_uint_eq(buf[47], 0x55);
	/* the sideband of the three files in time order */
	m = lpt_perf_maps(p, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(m[0].time, 1100);
	ck_assert_str_eq(m[1].path, "/usr/lib/lib1.so");
	ck_assert_uint_eq(m[1].time, 2000);
	ck_assert_str_eq(m[2].path, "/usr/lib/lib0.so");
	s = lpt_perf_switches(p, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert(s[0].cpu == 1 && s[0].time == 4000);
	ck_assert(s[1].cpu == 0 && s[1].time == 5000);
}

START_TEST(synthetic_directory)
{
	char dir[] = "/tmp/test_perf_dir-XXXXXX", path[4200];
	struct lpt_perf *p;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	build_dir(dir, 1);
	ck_assert_int_eq(lpt_perf_probe(dir), 1);
	ck_assert_msg(lpt_perf_open(dir, NULL, &p) == 0, "%s", lpt_perf_last_error());
	check_dir(p);
	lpt_perf_close(p);
	/* DIR/data by its path: read with its directory */
	snprintf(path, sizeof(path), "%s/data", dir);
	ck_assert_msg(lpt_perf_open(path, NULL, &p) == 0, "%s", lpt_perf_last_error());
	check_dir(p);
	lpt_perf_close(p);
	/* data.1 cut inside a record: TRUNCATED, naming the file */
	snprintf(path, sizeof(path), "%s/data.1", dir);
	ck_assert_int_eq(truncate(path, 20), 0);
	ck_assert_int_eq(lpt_perf_open(dir, NULL, &p), -LPT_PERF_E_TRUNCATED);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "data.1"));
	rm_rf(dir);
	/* a DIR_FORMAT version perf 6.1 does not know */
	ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/test_perf_dir-XXXXXX")));
	build_dir(dir, 2);
	ck_assert_int_eq(lpt_perf_open(dir, NULL, &p), -LPT_PERF_E_VERSION);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "DIR_FORMAT"));
	rm_rf(dir);
}
END_TEST

/* Flipped bytes and cuts in data.0 and data.1: an error or a model, never
 * a crash or a read outside the files (each is mapped on its own pages). */
START_TEST(mutations)
{
	char dir[] = "/tmp/test_perf_dir-m-XXXXXX", path[4200];
	uint8_t orig[2][512], b[512];
	size_t len[2];
	unsigned int seed = 24, r;
	int k;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	build_dir(dir, 1);
	for (k = 0; k < 2; k++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/data.%d", dir, k);
		f = fopen(path, "rb");
		ck_assert_ptr_nonnull(f);
		len[k] = fread(orig[k], 1, sizeof(orig[k]), f);
		fclose(f);
		ck_assert_uint_gt(len[k], 0);
	}
	for (r = 0; r < 400; r++) {
		struct lpt_perf *p;
		size_t n;
		int err;

		k = (int)(r % 2);
		n = len[k];
		memcpy(b, orig[k], n);
		if (r % 3 == 0)
			n = (size_t)rand_r(&seed) % n;
		if (n)
			b[(size_t)rand_r(&seed) % n] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
		snprintf(path, sizeof(path), "data.%d", k);
		spit(dir, path, b, n);
		err = lpt_perf_open(dir, NULL, &p);
		if (!err) {
			const struct lpt_perf_trace *t;
			uint8_t buf[64];
			size_t i;

			for (i = 0; i < lpt_perf_ntraces(p); i++) {
				t = lpt_perf_trace(p, i);
				ck_assert_int_ge(lpt_perf_trace_read(p, i, 0, buf, sizeof(buf)), 0);
				ck_assert_uint_le(t->size, len[0] + len[1]);
			}
			lpt_perf_close(p);
		} else {
			ck_assert(lpt_perf_last_error()[0]);
		}
		spit(dir, path, orig[k], len[k]);
	}
	rm_rf(dir);
}
END_TEST

static bool have_perf(void)
{
	if (access("/usr/bin/perf", X_OK)) {
		printf("SKIP: /usr/bin/perf absent (linux-perf, scripts/install-deps)\n");
		return false;
	}
	return true;
}

/* Lines of @cmd's output holding @what. */
static unsigned int count_lines(const char *cmd, const char *what)
{
	char line[4096];
	unsigned int n = 0;
	FILE *f = popen(cmd, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	pclose(f);
	return n;
}

/* perf 6.1 on the same directory: the header names the format, and
 * perf report -D shows the sideband of all files (its MMAP2 and switch
 * records, in time order as ours; perf script -D wants a sample IP this
 * attr has not). perf 6.1 reads the AUXTRACE data of a data.N file from
 * `data` (util/session.c perf_session__process_user_event() seeks
 * perf_data__fd(), the header file, to the record's offset in data.N), so
 * its trace is not compared: its dump shows bytes of `data`. */
START_TEST(synthetic_directory_perf)
{
	char dir[] = "/tmp/test_perf_dir-XXXXXX", cmd[4400], line[4096];
	const struct lpt_perf_map *m;
	struct lpt_perf *p;
	unsigned long long t, prev = 0;
	size_t n, k = 0;
	FILE *f;

	if (!have_perf())
		return;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	build_dir(dir, 1);
	ck_assert_int_eq(lpt_perf_open(dir, NULL, &p), 0);
	snprintf(cmd, sizeof(cmd), "/usr/bin/perf report --header-only -i '%s' 2>&1", dir);
	ck_assert_uint_eq(count_lines(cmd, "# directory data version : 1"), 1);
	snprintf(cmd, sizeof(cmd), "/usr/bin/perf report -D -i '%s' 2>/dev/null", dir);
	ck_assert_uint_eq(count_lines(cmd, "PERF_RECORD_SWITCH_CPU_WIDE"), 2);
	m = lpt_perf_maps(p, &n);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *r = strstr(line, "PERF_RECORD_MMAP2 "), path[1024];
		int cpu;

		if (!r)
			continue;
		/* "CPU TIME OFFSET [SIZE]: PERF_RECORD_MMAP2 ... PATH" */
		ck_assert_int_eq(sscanf(line, "%d %llu", &cpu, &t), 2);
		ck_assert_int_eq(sscanf(strstr(r, "]: "), "]: %*s %1023s", path), 1);
		ck_assert_uint_lt(k, n);
		ck_assert_uint_ge(t, prev);
		ck_assert_uint_eq(m[k].time, t);
		ck_assert_str_eq(m[k].path, path);
		prev = t;
		k++;
	}
	pclose(f);
	ck_assert_uint_eq(k, n);
	lpt_perf_close(p);
	rm_rf(dir);
}
END_TEST

/* "   COMM events:  129  ( 4.1%)" of perf report -D's statistics: the
 * first block (the whole session), 0 when absent. */
static unsigned long stat_of(const char *file, const char *name)
{
	char line[4096], want[64];
	unsigned long v;
	FILE *f = fopen(file, "r");

	ck_assert_ptr_nonnull(f);
	snprintf(want, sizeof(want), "%s events: %%lu", name);
	while (fgets(line, sizeof(line), f)) {
		char *q = line;

		while (*q == ' ')
			q++;
		if (sscanf(q, want, &v) == 1) {
			fclose(f);
			return v;
		}
	}
	fclose(f);
	return 0;
}

/* A real `perf record --threads` of a software event (no PT hardware
 * needed): the reader sees every record perf counts, from `data` and the
 * data.N files, the sideband in time order. Skips where perf cannot
 * record. */
START_TEST(real_threads)
{
	char dir[] = "/tmp/test_perf_dir-r-XXXXXX", out[4200], cmd[9000], stats[4300];
	const struct lpt_perf_map *m;
	const struct lpt_perf_task *t;
	struct lpt_perf_opts o;
	struct lpt_perf *p;
	size_t nm, nt, k;

	if (!have_perf())
		return;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/p.data", dir);
	snprintf(cmd, sizeof(cmd), "/usr/bin/perf record -q -N --threads -e cpu-clock "
		 "-o '%s' -- /bin/sh -c 'for i in 1 2 3 4; do /bin/true; done' "
		 ">/dev/null 2>&1", out);
	if (system(cmd)) {
		printf("SKIP: perf record --threads failed here (perf_event_paranoid?)\n");
		rm_rf(dir);
		return;
	}
	snprintf(stats, sizeof(stats), "%s/stats", dir);
	snprintf(cmd, sizeof(cmd), "/usr/bin/perf report -D -i '%s' 2>/dev/null | "
		 "grep ' events: ' > '%s'", out, stats);
	ck_assert_int_eq(system(cmd), 0);
	lpt_perf_opts_init(&o);
	o.flags = LPT_PERF_SIDEBAND_ONLY;
	ck_assert_msg(lpt_perf_open(out, &o, &p) == 0, "%s", lpt_perf_last_error());
	ck_assert_uint_ge(lpt_perf_info(p)->dir_files, 1);
	ck_assert_uint_eq(lpt_perf_info(p)->records, stat_of(stats, "TOTAL"));
	m = lpt_perf_maps(p, &nm);
	t = lpt_perf_tasks(p, &nt);
	ck_assert_uint_eq(nm, stat_of(stats, "MMAP") + stat_of(stats, "MMAP2"));
	ck_assert_uint_eq(nt, stat_of(stats, "COMM") + stat_of(stats, "FORK") +
			  stat_of(stats, "EXIT"));
	ck_assert_uint_gt(nt, 0);
	for (k = 1; k < nm; k++)
		ck_assert_uint_ge(m[k].time, m[k - 1].time);
	for (k = 1; k < nt; k++)
		ck_assert_uint_ge(t[k].time, t[k - 1].time);
	lpt_perf_close(p);
	rm_rf(dir);
}
END_TEST

static Suite *perf_dir_suite(void)
{
	Suite *s = suite_create("perf_dir");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, synthetic_directory);
	tcase_add_test(tc, synthetic_directory_perf);
	tcase_add_test(tc, mutations);
	tcase_add_test(tc, real_threads);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(perf_dir_suite(), CK_NORMAL);
}
