// SPDX-License-Identifier: GPL-2.0
/*
 * The capture source (include/lwpt/capture_src.h):
 * - a ptcap directory: traces in version order with their thread. and
 *   gaps. lines (the first of each file, CRLF tolerated, a malformed gaps
 *   line kept as that trace's error), maps paths joined to the directory,
 *   no processes file, loading with padding and a size limit, where a
 *   parse error is;
 * - a perf.data read in place against the ptcap directory
 *   lpt_perf_write_ptcap() writes from it: the same config, filter ranges,
 *   traces and bytes, maps, processes (a comm with a newline escaped),
 *   switches and each process's maps, per CPU and per thread (two queues
 *   of one thread: two traces).
 */
#include <lwpt/capture_src.h>
#include <lwpt/perf_data.h>

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/check_run.h"
#include "tests/libpt/perf_fixture.h"

static void put(const char *dir, const char *name, const void *b, size_t n)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

static void put_text(const char *dir, const char *name, const char *text)
{
	put(dir, name, text, strlen(text));
}

static void remove_dir(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static struct lpt_capsrc *open_src(const char *path)
{
	struct lpt_capsrc_opts o;
	struct lpt_capsrc *s = NULL;

	lpt_capsrc_opts_init(&o);
	o.err = NULL;
	o.prog = "test";
	ck_assert_int_eq(lpt_capsrc_open(path, &o, &s), 0);
	return s;
}

START_TEST(directory)
{
	char dir[] = "/tmp/test_capture_src-XXXXXX", path[4200];
	const struct lpt_capsrc_trace *t;
	const struct ptcap_processes *ps;
	const struct ptcap_addr_range *addr;
	const struct ptcap_config *cfg;
	struct ptcap_maps maps;
	struct lpt_capsrc *s;
	uint8_t bytes[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, *buf;
	size_t n, len, line;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	put_text(dir, "config", "lwpt-ptcap-config 1\nmode per-thread\nmtc-freq 3\n"
		 "addr0 filter 0x1000-0x1fff\n"
		 "thread.tid5.pt tid=6 pid=1\r\n"
		 "thread.tid5.pt tid=99 pid=99\n"	/* not the first: ignored */
		 "gaps.tid10.pt 4 6\n"
		 "gaps.tid2.pt 6 4\n"			/* not ascending */
		 "thread.tid7.pt tid=7 pid=3\n");	/* no such trace */
	put_text(dir, "maps", "lwpt-ptcap-maps 1\n0x400000 0x401000 0x0 prog\n"
		 "0x500000 0x501000 0x10 /abs/lib\n");
	put(dir, "tid10.pt", bytes, 8);
	put(dir, "tid5.pt", bytes, 4);
	put(dir, "tid2.pt", bytes, 2);
	s = open_src(dir);
	ck_assert_int_eq(lpt_capsrc_kind(s), LPT_CAPSRC_PTCAP_DIR);
	ck_assert_int_eq(lpt_capsrc_config(s, &cfg, &addr), 0);
	ck_assert_uint_eq(cfg->mtc_freq, 3);
	ck_assert_uint_eq(addr[0].cfg, PTCAP_ADDR_FILTER);
	ck_assert_uint_eq(addr[0].b, 0x1fff);
	ck_assert_int_eq(lpt_capsrc_traces(s, &t, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(t[0].name, "tid2.pt");
	ck_assert_str_eq(t[1].name, "tid5.pt");
	ck_assert_str_eq(t[2].name, "tid10.pt");
	ck_assert(!t[0].has_thread);
	ck_assert_int_eq(t[0].gaps_err, -PTCAP_E_SYNTAX);
	ck_assert(t[1].has_thread);
	ck_assert_uint_eq(t[1].tid, 6);
	ck_assert_uint_eq(t[1].pid, 1);
	ck_assert_uint_eq(t[2].ngaps, 2);
	ck_assert_uint_eq(t[2].gaps[1], 6);
	ck_assert_int_eq(lpt_capsrc_load(s, 2, 0, 16, &buf, &len), 0);
	ck_assert_uint_eq(len, 8);
	ck_assert_mem_eq(buf, bytes, 8);
	ck_assert_uint_eq(buf[8] | buf[23], 0);
	free(buf);
	ck_assert_int_eq(lpt_capsrc_load(s, 2, 7, 0, &buf, &len), -PTCAP_E_TOO_LARGE);
	ck_assert_str_eq(lpt_capsrc_where(s, NULL), "tid10.pt");
	ck_assert_int_eq(lpt_capsrc_maps(s, &maps), 0);
	ck_assert_uint_eq(maps.nmaps, 2);
	snprintf(path, sizeof(path), "%s/prog", dir);
	ck_assert_str_eq(maps.map[0].path, path);
	ck_assert_str_eq(maps.map[1].path, "/abs/lib");
	ck_assert_uint_eq(maps.map[1].offset, 0x10);
	ptcap_maps_free(&maps);
	ck_assert_int_eq(lpt_capsrc_processes(s, &ps), 1);
	ck_assert_ptr_nonnull(lpt_capsrc_config_text(s, &len));
	ck_assert_uint_gt(len, 0);
	lpt_capsrc_close(s);

	/* a maps line that does not parse: where it is */
	put_text(dir, "maps", "lwpt-ptcap-maps 1\n# c\n0x2000 0x1000 0 x\n");
	s = open_src(dir);
	ck_assert_int_eq(lpt_capsrc_maps(s, &maps), -PTCAP_E_RANGE);
	ck_assert_str_eq(lpt_capsrc_where(s, &line), "maps");
	ck_assert_uint_eq(line, 3);
	lpt_capsrc_close(s);
	remove_dir(dir);
}
END_TEST

static char *write_tmp(const void *b, size_t n)
{
	char *path = strdup("/tmp/test_capture_src-XXXXXX");
	int fd;

	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b, n), (ssize_t)n);
	close(fd);
	return path;
}

static void same_maps(const struct ptcap_maps *a, const struct ptcap_maps *b)
{
	size_t i;

	ck_assert_uint_eq(a->nmaps, b->nmaps);
	for (i = 0; i < a->nmaps; i++) {
		ck_assert_uint_eq(a->map[i].start, b->map[i].start);
		ck_assert_uint_eq(a->map[i].size, b->map[i].size);
		ck_assert_uint_eq(a->map[i].offset, b->map[i].offset);
		ck_assert_str_eq(a->map[i].path, b->map[i].path);
		/* in place: the line's own; directory: its "# build-id" */
		ck_assert_uint_eq(a->map[i].build_id_size, b->map[i].build_id_size);
		ck_assert_mem_eq(a->map[i].build_id, b->map[i].build_id,
				 a->map[i].build_id_size);
	}
}

/* Everything @a (a perf.data in place) gives equals what @b (its ptcap
 * directory) gives. */
static void same_capture(struct lpt_capsrc *a, struct lpt_capsrc *b, bool sys)
{
	const struct ptcap_config *ca, *cb;
	const struct ptcap_addr_range *ra, *rb;
	const struct lpt_capsrc_trace *ta, *tb;
	const struct ptcap_processes *pa, *pb;
	const struct ptcap_switches *sa, *sb;
	struct ptcap_maps ma, mb;
	size_t na, nb, i, la, lb;
	uint8_t *ba, *bb;

	ck_assert_int_eq(lpt_capsrc_kind(a), LPT_CAPSRC_PERF_DATA);
	ck_assert_ptr_null(lpt_capsrc_config_text(a, &la));	/* a perf.data has none */
	ck_assert_int_eq(lpt_capsrc_config(a, &ca, &ra), 0);
	ck_assert_int_eq(lpt_capsrc_config(b, &cb, &rb), 0);
	ck_assert_mem_eq(ca, cb, sizeof(*ca));
	ck_assert_mem_eq(ra, rb, PTCAP_ADDR_RANGES * sizeof(*ra));
	ck_assert_int_eq(lpt_capsrc_traces(a, &ta, &na), 0);
	ck_assert_int_eq(lpt_capsrc_traces(b, &tb, &nb), 0);
	ck_assert_uint_eq(na, nb);
	for (i = 0; i < na; i++) {
		ck_assert_str_eq(ta[i].name, tb[i].name);
		ck_assert_int_eq(ta[i].per_cpu, tb[i].per_cpu);
		ck_assert_uint_eq(ta[i].cpu, tb[i].cpu);
		ck_assert_int_eq(ta[i].has_thread, tb[i].has_thread);
		ck_assert_uint_eq(ta[i].tid, tb[i].tid);
		ck_assert_uint_eq(ta[i].pid, tb[i].pid);
		ck_assert_uint_eq(ta[i].ngaps, tb[i].ngaps);
		if (ta[i].ngaps)
			ck_assert_mem_eq(ta[i].gaps, tb[i].gaps, ta[i].ngaps * sizeof(uint64_t));
		ck_assert_int_eq(lpt_capsrc_load(a, i, 0, 8, &ba, &la), 0);
		ck_assert_int_eq(lpt_capsrc_load(b, i, 0, 8, &bb, &lb), 0);
		ck_assert_uint_eq(la, lb);
		ck_assert_mem_eq(ba, bb, la + 8);
		free(ba);
		free(bb);
	}
	ck_assert_int_eq(lpt_capsrc_maps(a, &ma), 0);
	ck_assert_int_eq(lpt_capsrc_maps(b, &mb), 0);
	same_maps(&ma, &mb);
	ptcap_maps_free(&ma);
	ptcap_maps_free(&mb);
	ck_assert_int_eq(lpt_capsrc_processes(a, &pa), sys ? 0 : 1);
	ck_assert_int_eq(lpt_capsrc_processes(b, &pb), sys ? 0 : 1);
	if (!sys)
		return;
	ck_assert_uint_eq(pa->n, pb->n);
	for (i = 0; i < pa->n; i++) {
		ck_assert_uint_eq(pa->p[i].pid, pb->p[i].pid);
		ck_assert_uint_eq(pa->p[i].gen, pb->p[i].gen);
		ck_assert_uint_eq(pa->p[i].first_tsc, pb->p[i].first_tsc);
		ck_assert_uint_eq(pa->p[i].last_tsc, pb->p[i].last_tsc);
		ck_assert_str_eq(pa->p[i].maps, pb->p[i].maps);
		ck_assert_str_eq(pa->p[i].comm, pb->p[i].comm);
		ck_assert_int_eq(lpt_capsrc_process_maps(a, i, &ma), 0);
		ck_assert_int_eq(lpt_capsrc_process_maps(b, i, &mb), 0);
		same_maps(&ma, &mb);
		ptcap_maps_free(&ma);
		ptcap_maps_free(&mb);
	}
	ck_assert_int_eq(lpt_capsrc_switches(a, &sa), 0);
	ck_assert_int_eq(lpt_capsrc_switches(b, &sb), 0);
	ck_assert_uint_eq(sa->n, sb->n);
	if (sa->n)
		ck_assert_mem_eq(sa->sw, sb->sw, sa->n * sizeof(*sa->sw));
}

/* Write @w's file, its ptcap directory, and compare both sources. */
static void check_file(struct fx *w, bool sys, size_t nprocs, size_t ntraces)
{
	char dir[] = "/tmp/test_capture_src-XXXXXX";
	const struct ptcap_processes *ps;
	const struct lpt_capsrc_trace *t;
	struct lpt_perf_code_opts o;
	struct lpt_capsrc *a, *b;
	struct lpt_perf *p;
	char *path = write_tmp(w->b, w->n);
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(lpt_perf_open(path, NULL, &p), 0);
	lpt_perf_code_opts_init(p, &o);
	ck_assert_int_eq(lpt_perf_write_ptcap(p, dir, &o, NULL, "test"), 0);
	lpt_perf_close(p);
	a = open_src(path);
	b = open_src(dir);
	same_capture(a, b, sys);
	ck_assert_int_eq(lpt_capsrc_traces(a, &t, &n), 0);
	ck_assert_uint_eq((size_t)n, ntraces);
	if (sys) {
		ck_assert_int_eq(lpt_capsrc_processes(a, &ps), 0);
		ck_assert_uint_eq(ps->n, nprocs);
	}
	lpt_capsrc_close(a);
	lpt_capsrc_close(b);
	unlink(path);
	free(path);
	remove_dir(dir);
}

START_TEST(perf_per_cpu)
{
	uint8_t data[32] = { 2, 0x82, 2, 0x82 };
	char exe[4096];
	struct fx w;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	fx_start(&w, false);
	fx_time_conv(&w);
	fx_auxtrace_info(&w, true, false, "filter 0x400000/0x100");
	fx_kernel_mmap(&w, 0xffffffff81000000ull, 0x1000000, "[kernel.kallsyms]_text");
	fx_comm(&w, 7, 7, "sh", false, 2000);
	fx_mmap2(&w, 7, 0x400000, 0x1000, 0, exe, 2100);
	fx_itrace_start(&w, 7, 7, 2200);
	fx_fork(&w, 8, 7, 2500);
	fx_comm(&w, 7, 7, "a\nb", true, 3000);	/* escaped as in the file */
	fx_mmap2(&w, 7, 0x500000, 0x1000, 0, exe, 3100);
	fx_switch_cpu_wide(&w, true, 0, 7, 0, 4000);
	fx_switch_cpu_wide(&w, false, 0, 0, 7, 4001);
	fx_switch_cpu_wide(&w, false, 1, 8, 0, 4500);
	fx_switch_cpu_wide(&w, true, 1, 8, 0, 5000);
	fx_auxtrace(&w, data, 32, 0, 0, (uint32_t)-1, 0);
	fx_auxtrace(&w, data, 16, 0, 1, (uint32_t)-1, 1);
	fx_auxtrace(&w, data, 16, 64, 1, (uint32_t)-1, 1);	/* a gap */
	fx_finish(&w);
	check_file(&w, true, 3, 2);	/* 7 gen 0 and 1, 8; cpu0, cpu1 */
	free(w.b);
}
END_TEST

START_TEST(perf_per_thread)
{
	uint8_t data[32] = { 2, 0x82, 2, 0x82 };
	char exe[4096];
	struct fx w;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	fx_start(&w, false);
	fx_time_conv(&w);
	fx_auxtrace_info(&w, false, false, NULL);
	fx_comm(&w, 42, 42, "prog", true, 1000);
	fx_mmap2(&w, 42, 0x400000, 0x1000, 0, exe, 1100);
	fx_mmap2(&w, 42, 0x600000, 0x1000, 0, "/nonexistent/lib", 1200);
	fx_comm(&w, 42, 43, "prog", false, 1300);	/* a second thread */
	fx_auxtrace(&w, data, 32, 0, 0, 42, (uint32_t)-1);
	fx_auxtrace(&w, data, 16, 0, 1, 43, (uint32_t)-1);
	fx_auxtrace(&w, data, 8, 0, 2, 42, (uint32_t)-1);	/* 42's second queue */
	fx_finish(&w);
	check_file(&w, false, 0, 3);	/* tid42, tid42.p2, tid43 */
	free(w.b);
}
END_TEST

/* What a perf.data's source says on err when opened with @flags; in
 * *@after, all it said once its maps were asked for too (free() both). */
static char *said(const char *path, unsigned int flags, char **after)
{
	struct lpt_capsrc_opts o;
	struct lpt_capsrc *s = NULL;
	const struct lpt_capsrc_trace *t;
	struct ptcap_maps maps;
	char *buf = NULL, *open_text;
	size_t len = 0, n;
	FILE *err = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(err);
	lpt_capsrc_opts_init(&o);
	o.err = err;
	o.prog = "test";
	o.flags = flags;
	ck_assert_int_eq(lpt_capsrc_open(path, &o, &s), 0);
	ck_assert_int_eq(fflush(err), 0);
	open_text = strdup(buf);
	ck_assert_ptr_nonnull(open_text);
	ck_assert_int_eq(lpt_capsrc_traces(s, &t, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(lpt_capsrc_maps(s, &maps), 0);
	ptcap_maps_free(&maps);
	ck_assert_int_eq(fclose(err), 0);
	*after = buf;
	lpt_capsrc_close(s);
	return open_text;
}

/*
 * LPT_CAPSRC_NO_CODE (ptdump's): the open looks no code up and says nothing
 * of the missing file; the maps, asked for, look it up and name it. Without
 * the flag the open names it.
 */
START_TEST(perf_no_code)
{
	uint8_t data[32] = { 2, 0x82, 2, 0x82 };
	struct fx w;
	char *path, *now, *later;

	fx_start(&w, false);
	fx_time_conv(&w);
	fx_auxtrace_info(&w, false, false, NULL);
	fx_comm(&w, 42, 42, "prog", true, 1000);
	fx_mmap2(&w, 42, 0x600000, 0x1000, 0, "/nonexistent/lib", 1200);
	fx_comm(&w, 42, 43, "prog", false, 1300);
	fx_auxtrace(&w, data, 32, 0, 0, 42, (uint32_t)-1);
	fx_auxtrace(&w, data, 16, 0, 1, 43, (uint32_t)-1);
	fx_auxtrace(&w, data, 8, 0, 2, 42, (uint32_t)-1);
	fx_finish(&w);
	path = write_tmp(w.b, w.n);
	now = said(path, LPT_CAPSRC_NO_CODE, &later);
	ck_assert_msg(!strstr(now, "/nonexistent/lib"), "NO_CODE open said: %s", now);
	ck_assert_msg(strstr(later, "/nonexistent/lib") != NULL, "NO_CODE maps said: %s", later);
	free(now);
	free(later);
	now = said(path, 0, &later);
	ck_assert_msg(strstr(now, "/nonexistent/lib") != NULL, "open said: %s", now);
	free(now);
	free(later);
	unlink(path);
	free(path);
	free(w.b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("capture_src");
	TCase *tc = tcase_create("sources");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, directory);
	tcase_add_test(tc, perf_per_cpu);
	tcase_add_test(tc, perf_per_thread);
	tcase_add_test(tc, perf_no_code);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
