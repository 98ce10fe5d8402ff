// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of libpt's perf.data reader (include/lwpt/perf_data.h, issue 24
 * point 1 and 3).
 *
 * Sources: perf.data files built here by libpt's writer
 * (tests/libpt/perf_fixture.h) in the layouts of
 * tools/perf/Documentation/perf.data-file-format.txt (each rule tested
 * names the perf 6.1 source it comes from); the two perf 4.14
 * recordings of ../shared/testdata/perf (real hardware, file and pipe
 * format), compared with what Debian's perf 6.1 shows of them
 * (`perf script -D`, `perf report --header-only`) when /usr/bin/perf is
 * installed; and a mutation loop over both (truncations, flipped bytes):
 * a clear error or a model, never a crash or a hang.
 */
#include <lwpt/perf_data.h>

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "tests/check_run.h"
#include "tests/libpt/perf_fixture.h"

static char *write_tmp(const void *b, size_t n)
{
	char *path = strdup("/tmp/test_perf_read-XXXXXX");
	int fd;

	ck_assert_ptr_nonnull(path);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, b, n), (ssize_t)n);
	close(fd);
	return path;
}

/* Open @n bytes of @b; returns the error (0: *@p set). */
static int open_buf(const uint8_t *b, size_t n, struct lpt_perf **p)
{
	char *path = write_tmp(b, n);
	int err = lpt_perf_open(path, NULL, p);

	unlink(path);
	free(path);
	return err;
}

static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

/* A per-thread recording of thread 42: two AUXTRACE buffers that do not
 * continue each other (a gap), an AUX record with TRUNCATED. */
/* Delete a directory lpt_perf_write_ptcap() wrote (its files, then it). */
static void remove_dir(const char *dir)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void build_per_thread(struct fx *w, bool pipe, bool index)
{
	uint8_t data[64];

	memset(data, 0, sizeof(data));
	memcpy(data, psb, sizeof(psb));
	fx_start(w, pipe);
	fx_time_conv(w);
	fx_auxtrace_info(w, false, false, "filter 0x400000/0x100@/bin/true");
	fx_comm(w, 42, 42, "prog", true, 2000);
	fx_mmap2(w, 42, 0x400000, 0x1000, 0, "/bin/true", 2100);
	fx_aux(w, 0, 64, 0, 42, 0, 3000);
	fx_auxtrace(w, data, 64, 0, 0, 42, (uint32_t)-1);
	fx_aux(w, 64, 32, PERF_AUX_FLAG_TRUNCATED, 42, 0, 4000);
	fx_auxtrace(w, data, 32, 4096, 0, 42, (uint32_t)-1);
	{
		/* an unknown record type: skipped (STYLE.md 17) */
		uint64_t body = 0xdeadbeef;

		fx_ok(lpt_perf_write_record(w->w, 200, 0, &body, sizeof(body), NULL));
	}
	fx_finish(w);
	if (!index && !pipe)
		fx_drop_index(w);
}

static void check_per_thread(struct lpt_perf *p)
{
	const struct lpt_perf_info *in = lpt_perf_info(p);
	const struct ptcap_config *c = lpt_perf_config(p);
	const struct lpt_perf_trace *t;
	const struct lpt_perf_map *m;
	const struct lpt_perf_task *k;
	uint8_t buf[128];
	size_t n;

	ck_assert(!in->per_cpu);
	ck_assert_str_eq(in->filter, "filter 0x400000/0x100@/bin/true");
	ck_assert_uint_eq(in->unknown_records, 1);
	ck_assert_uint_eq(in->pt_config, FX_CONFIG);
	/* decoder parameters: intel-pt.c intel_pt_process_auxtrace_info */
	ck_assert(c->has & PTCAP_HAS_MTC_FREQ);
	ck_assert_uint_eq(c->mtc_freq, 3);
	ck_assert_uint_eq(c->cpuid_15_eax, 2);
	ck_assert_uint_eq(c->cpuid_15_ebx, 100);
	ck_assert_uint_eq(c->nom_freq, 12);
	/* tsc.c: 1e9 << 31 / 1789569706 */
	ck_assert_uint_eq(c->tsc_freq_hz, 1200000000ull);
	ck_assert_uint_eq(lpt_perf_ntraces(p), 1);
	t = lpt_perf_trace(p, 0);
	ck_assert_str_eq(t->name, "tid42.pt");
	ck_assert_int_eq(t->tid, 42);
	ck_assert_int_eq(t->pid, 42);
	ck_assert_int_eq(t->cpu, -1);
	ck_assert_uint_eq(t->size, 96);
	ck_assert_uint_eq(t->nbufs, 2);
	/* offset 4096 does not continue 0+64: cut at 64 (also TRUNCATED) */
	ck_assert_uint_eq(t->ngaps, 1);
	ck_assert_uint_eq(t->gaps[0], 64);
	ck_assert_uint_eq(t->truncated, 1);
	ck_assert_int_eq(lpt_perf_trace_read(p, 0, 0, buf, sizeof(buf)), 96);
	ck_assert_mem_eq(buf, psb, 16);
	ck_assert_mem_eq(buf + 64, psb, 16);
	ck_assert_int_eq(lpt_perf_trace_read(p, 0, 70, buf, 8), 8);
	ck_assert_int_eq(lpt_perf_trace_read(p, 0, 96, buf, 8), 0);
	m = lpt_perf_maps(p, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(m[0].path, "/bin/true");
	ck_assert_uint_eq(m[0].start, 0x400000);
	ck_assert_uint_eq(m[0].time, 2100);
	k = lpt_perf_tasks(p, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert(k[0].exec);
	ck_assert_str_eq(k[0].comm, "prog");
}

START_TEST(per_thread_file_and_pipe)
{
	int pipe;

	for (pipe = 0; pipe < 2; pipe++) {
		struct lpt_perf *p;
		struct fx w;

		build_per_thread(&w, pipe, false);
		ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
		ck_assert_int_eq(lpt_perf_info(p)->pipe, pipe);
		check_per_thread(p);
		lpt_perf_close(p);
		free(w.b);
	}
}
END_TEST

/* HEADER_AUXTRACE (auxtrace.c auxtrace_index__process): accepted when it
 * names the AUXTRACE records, refused when an entry points elsewhere. */
START_TEST(auxtrace_index)
{
	struct lpt_perf *p;
	struct fx w;
	size_t at;

	build_per_thread(&w, false, true);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
	ck_assert(lpt_perf_info(p)->has_index);
	check_per_thread(p);
	lpt_perf_close(p);
	/* the index body is the last 40 bytes: point entry 0 at the header */
	at = w.n - 40 + 8;
	memset(w.b + at, 0, 8);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_CORRUPT);
	ck_assert_ptr_null(p);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "HEADER_AUXTRACE"));
	free(w.b);
}
END_TEST

/* Per CPU, snapshot mode: every buffer is its own snapshot (gap); AUX
 * PARTIAL cuts at its record's start; COLLISION is counted. */
START_TEST(per_cpu_snapshot)
{
	const struct lpt_perf_switch *s;
	const struct lpt_perf_trace *t;
	uint8_t data[32] = { 0 };
	struct lpt_perf *p;
	struct fx w;
	size_t n;

	fx_start(&w, false);
	fx_auxtrace_info(&w, true, true, NULL);
	fx_switch_cpu_wide(&w, false, 1, 7, 0, 5000);
	fx_switch_cpu_wide(&w, true, 1, 7, 8, 6000);
	fx_aux(&w, 0, 32, PERF_AUX_FLAG_COLLISION, 7, 1, 5500);
	fx_auxtrace(&w, data, 32, 0, 1, (uint32_t)-1, 1);
	fx_aux(&w, 32, 32, PERF_AUX_FLAG_PARTIAL, 7, 1, 6500);
	fx_auxtrace(&w, data, 32, 32, 1, (uint32_t)-1, 1);
	fx_auxtrace(&w, data, 32, 0, 0, (uint32_t)-1, 0);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
	ck_assert(lpt_perf_info(p)->snapshot);
	ck_assert(lpt_perf_info(p)->per_cpu);
	ck_assert_uint_eq(lpt_perf_ntraces(p), 2);
	t = lpt_perf_trace(p, 0);
	ck_assert_str_eq(t->name, "cpu0.pt");
	ck_assert_uint_eq(t->ngaps, 0);
	t = lpt_perf_trace(p, 1);
	ck_assert_str_eq(t->name, "cpu1.pt");
	ck_assert_uint_eq(t->ngaps, 1);
	ck_assert_uint_eq(t->gaps[0], 32);
	ck_assert_uint_eq(t->partial, 1);
	ck_assert_uint_eq(t->collision, 1);
	s = lpt_perf_switches(p, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert(!s[0].out && s[0].cpu_wide && s[0].cpu == 1 && s[0].pid == 7);
	ck_assert(s[1].out && s[1].other_pid == 8);
	ck_assert_uint_eq(s[0].time, 5000);
	/* tsc.c round trip within one tick */
	ck_assert_uint_le(lpt_perf_tsc_to_ns(p, s[0].tsc), 5000);
	ck_assert_uint_ge(lpt_perf_tsc_to_ns(p, s[0].tsc + 1), 5000);
	lpt_perf_close(p);
	free(w.b);
}
END_TEST

/* PERF_RECORD_COMPRESSED (session.c, util/zstd.c): sideband compressed as
 * one zstd stream, split over two records mid-record. */
START_TEST(compressed)
{
	static const uint8_t garbage[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct fx inner, w;
	uint8_t data[16], *z;
	const uint8_t *recs;
	struct lpt_perf *p;
	size_t zn, half, nrecs;
	const struct lpt_perf_map *m;

	memcpy(data, psb, 16);
	fx_start(&inner, false);
	fx_comm(&inner, 9, 9, "zprog", true, 100);
	fx_mmap2(&inner, 9, 0x1000, 0x1000, 0, "/usr/bin/z", 200);
	fx_finish(&inner);
	recs = fx_records(&inner, &nrecs);
	z = malloc(ZSTD_compressBound(nrecs));
	zn = ZSTD_compress(z, ZSTD_compressBound(nrecs), recs, nrecs, 1);
	ck_assert(!ZSTD_isError(zn));
	half = zn / 2;
	fx_start(&w, false);
	fx_auxtrace_info(&w, false, false, NULL);
	fx_ok(lpt_perf_write_record(w.w, PERF_RECORD_COMPRESSED, 0, z, half, NULL));
	fx_ok(lpt_perf_write_record(w.w, PERF_RECORD_COMPRESSED, 0, z + half, zn - half, NULL));
	fx_auxtrace(&w, data, 16, 0, 0, 9, (uint32_t)-1);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
	ck_assert(lpt_perf_info(p)->compressed);
	m = lpt_perf_maps(p, &zn);
	ck_assert_uint_eq(zn, 1);
	ck_assert_str_eq(m[0].path, "/usr/bin/z");
	lpt_perf_close(p);
	free(w.b);
	/* garbage in a COMPRESSED record: a clear error */
	fx_start(&w, true);
	fx_ok(lpt_perf_write_record(w.w, PERF_RECORD_COMPRESSED, 0, garbage, sizeof(garbage),
				    NULL));
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_COMPRESS);
	free(z);
	free(inner.b);
	free(w.b);
}
END_TEST

/* Issue 36: the reader's bounds (Documentation/perf-data.rst "Limits"):
 * a COMPRESSED stream that decompresses past 64x + 1 MiB is refused
 * naming the record, unless max_decompressed allows it; a CPU of 8192 or
 * more is refused; two queues of one thread stay two traces. */
START_TEST(bounds)
{
	enum { NREC = 40000 };
	struct lpt_perf_opts po;
	struct fx inner, w;
	const uint8_t *recs;
	uint8_t data[16], *z;
	size_t zn, nrecs, i;
	struct lpt_perf *p;
	uint64_t sz;
	char *path;

	memcpy(data, psb, 16);
	/* 40,000 MMAP2 records (about 4 MB) in a few kB of zstd */
	fx_start(&inner, false);
	for (i = 0; i < NREC; i++)
		fx_mmap2(&inner, 9, 0x1000, 0x1000, 0, "/usr/bin/z", 200);
	fx_finish(&inner);
	recs = fx_records(&inner, &nrecs);
	ck_assert_uint_gt(nrecs, 2u << 20);
	z = malloc(ZSTD_compressBound(nrecs));
	zn = ZSTD_compress(z, ZSTD_compressBound(nrecs), recs, nrecs, 19);
	ck_assert(!ZSTD_isError(zn));
	ck_assert_uint_lt(zn * 64 + (1u << 20), nrecs);
	fx_start(&w, false);
	fx_auxtrace_info(&w, false, false, NULL);
	fx_ok(lpt_perf_write_record(w.w, PERF_RECORD_COMPRESSED, 0, z, zn, NULL));
	fx_auxtrace(&w, data, 16, 0, 0, 9, (uint32_t)-1);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "COMPRESSED record at 0x"));
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "--max-decompressed"));
	path = write_tmp(w.b, w.n);
	lpt_perf_opts_init(&po);
	po.max_decompressed = 1u << 20;
	ck_assert_int_eq(lpt_perf_open(path, &po, &p), -LPT_PERF_E_LIMIT);
	po.max_decompressed = 64u << 20;
	ck_assert_int_eq(lpt_perf_open(path, &po, &p), 0);
	ck_assert_uint_ge(lpt_perf_info(p)->records, NREC);
	lpt_perf_close(p);
	unlink(path);
	free(path);
	free(z);
	free(inner.b);
	free(w.b);

	/* a switch on CPU 9000: refused, named */
	fx_start(&w, false);
	fx_auxtrace_info(&w, true, false, NULL);
	fx_switch_cpu_wide(&w, true, 9000, 5, 6, 100);
	fx_auxtrace(&w, data, 16, 0, 0, (uint32_t)-1, 0);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_CORRUPT);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "cpu 9000"));
	free(w.b);

	/* queues 0 and 1 of thread 9: tid9.pt and tid9.p1.pt */
	fx_start(&w, false);
	fx_auxtrace_info(&w, false, false, NULL);
	fx_auxtrace(&w, data, 16, 0, 0, 9, (uint32_t)-1);
	fx_auxtrace(&w, data, 16, 0, 1, 9, (uint32_t)-1);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
	ck_assert_uint_eq(lpt_perf_ntraces(p), 2);
	ck_assert_str_eq(lpt_perf_trace(p, 0)->name, "tid9.pt");
	ck_assert_str_eq(lpt_perf_trace(p, 1)->name, "tid9.p1.pt");
	lpt_perf_close(p);
	free(w.b);

	ck_assert_int_eq(lpt_perf_parse_size("2G", &sz), 0);
	ck_assert_uint_eq(sz, 2ull << 30);
	ck_assert_int_eq(lpt_perf_parse_size("0", &sz), -LPT_PERF_E_INVAL);
	ck_assert_int_eq(lpt_perf_parse_size("1X", &sz), -LPT_PERF_E_INVAL);
	ck_assert_int_eq(lpt_perf_parse_size("99999999999T", &sz), -LPT_PERF_E_INVAL);
}
END_TEST

/* What the reader refuses, and how (perf.data-file-format.txt, header.c). */
START_TEST(refusals)
{
	struct lpt_perf *p;
	struct fx w;
	uint64_t swapped = PERF_FILE_MAGIC_SWAPPED;
	size_t cut;

	build_per_thread(&w, false, false);
	memcpy(w.b, &swapped, 8);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_SWAPPED);
	memcpy(w.b, "PERFFILE", 8);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_VERSION);
	memcpy(w.b, "NOTPERF!", 8);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_MAGIC);
	ck_assert_int_eq(open_buf(w.b, 3, &p), -LPT_PERF_E_MAGIC);
	free(w.b);

	/* every truncation of a pipe stream: TRUNCATED (or no AUX yet) */
	build_per_thread(&w, true, false);
	for (cut = 16; cut < w.n; cut++) {
		int err = open_buf(w.b, cut, &p);

		ck_assert_msg(err == -LPT_PERF_E_TRUNCATED || err == -LPT_PERF_E_NO_AUX ||
			      err == 0, "cut %zu: %d", cut, err);
		if (!err)
			lpt_perf_close(p);
	}
	/* a record of size 0 would loop for ever */
	memset(w.b + 16 + 6, 0, 2);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_CORRUPT);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "size 0"));
	free(w.b);

	/* no AUX data at all */
	fx_start(&w, true);
	fx_comm(&w, 1, 1, "x", false, 1);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_NO_AUX);
	free(w.b);
}
END_TEST

/*
 * An intel_bts recording (util/intel-bts.c, Documentation/perf-data.rst
 * "Intel BTS"): AUXTRACE_INFO type 2 with @npriv words (6 in perf 6.1,
 * snapshot @snapshot), thread 42's records in two AUXTRACE buffers with a
 * hole between them (a loss), or @per_cpu: the same on CPU 3.
 */
static void mutate_loop(const uint8_t *orig, size_t len, unsigned int rounds);

static void build_bts(struct fx *w, size_t npriv, bool snapshot, bool per_cpu)
{
	uint64_t priv[PERF_INTEL_BTS_INFO_MAX + 2] = { FX_PMU_TYPE, 10, 1 << 10, 0, 1, snapshot };
	uint64_t rec[3 * 4] = {
		0x401000, 0x401020, 0x10,	0x401030, 0x401000, 0x10,
		0x401010, 0xffffffff81000000ull, 0x10, 0, 0, 0,
	};

	fx_start(w, false);
	fx_time_conv(w);
	fx_ok(lpt_perf_write_auxtrace_info(w->w, PERF_AUXTRACE_INTEL_BTS, priv, npriv));
	fx_comm(w, 40, 42, "prog", true, 2000);
	fx_mmap2(w, 40, 0x400000, 0x2000, 0, "/bin/true", 2100);
	fx_auxtrace(w, rec, 48, 0, 0, per_cpu ? (uint32_t)-1 : 42, per_cpu ? 3 : (uint32_t)-1);
	fx_auxtrace(w, rec + 6, 48, 72, 0, per_cpu ? (uint32_t)-1 : 42,
		    per_cpu ? 3 : (uint32_t)-1);
	fx_finish(w);
}

START_TEST(intel_bts)
{
	const struct lpt_perf_trace *t;
	struct lpt_perf *p;
	uint8_t buf[96];
	struct fx w;

	build_bts(&w, PERF_INTEL_BTS_INFO_MAX, false, false);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
	ck_assert(lpt_perf_info(p)->bts);
	ck_assert(!lpt_perf_info(p)->per_cpu);
	ck_assert(!lpt_perf_info(p)->snapshot);
	ck_assert_int_eq(lpt_perf_info(p)->pmu_type, FX_PMU_TYPE);
	ck_assert_int_eq(lpt_perf_config(p)->format, PTCAP_FORMAT_BTS);
	ck_assert_int_eq(lpt_perf_ntraces(p), 1);
	t = lpt_perf_trace(p, 0);
	ck_assert_str_eq(t->name, "tid42.bts");
	ck_assert_int_eq(t->pid, 40);
	/* the second buffer's last record (from 0, to 0) is no branch:
	 * not part of the trace */
	ck_assert_int_eq(t->size, 72);
	/* the hole in the AUX offsets (72 is not 0 + 48): a gap at 48 */
	ck_assert_int_eq(t->ngaps, 1);
	ck_assert_int_eq(t->gaps[0], 48);
	ck_assert_int_eq(lpt_perf_trace_read(p, 0, 0, buf, sizeof(buf)), 72);
	ck_assert_int_eq(buf[48 + 8 + 7], 0xff);	/* 3rd record's "to" */
	lpt_perf_close(p);
	free(w.b);

	/* snapshot mode is priv[5]; every AUXTRACE naming a CPU: per CPU */
	build_bts(&w, PERF_INTEL_BTS_INFO_MAX, true, true);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
	ck_assert(lpt_perf_info(p)->snapshot);
	ck_assert(lpt_perf_info(p)->per_cpu);
	ck_assert_str_eq(lpt_perf_trace(p, 0)->name, "cpu3.bts");
	lpt_perf_close(p);
	free(w.b);

	/* snapshots (perf record -S): each buffer's records that the one
	 * before ends with are its overlap (intel_bts_find_overlap()): left
	 * out, the rest continues without a gap; no overlap: a gap */
	{
		static const uint64_t R[6][3] = {
			{ 0, 0, 0 }, { 0x401000, 0x401020, 0x10 }, { 0x401030, 0x401000, 0x10 },
			{ 0x401010, 0x401040, 0x10 }, { 0x401050, 0x401060, 0x10 },
			{ 0x401070, 0x401080, 0x10 },
		};
		uint64_t priv[PERF_INTEL_BTS_INFO_MAX] = { FX_PMU_TYPE, 10, 1 << 10, 0, 1, 1 };
		uint64_t a[9], b[9], d[3];

		memcpy(a, R[1], 72);		/* R1 R2 R3 */
		memcpy(b, R[2], 72);		/* R2 R3 R4 */
		memcpy(d, R[5], 24);		/* R5 */
		fx_start(&w, false);
		fx_ok(lpt_perf_write_auxtrace_info(w.w, PERF_AUXTRACE_INTEL_BTS, priv,
						   PERF_INTEL_BTS_INFO_MAX));
		fx_comm(&w, 42, 42, "prog", true, 2000);
		fx_auxtrace(&w, a, 72, 0, 0, 42, (uint32_t)-1);
		fx_auxtrace(&w, b, 72, 4096, 0, 42, (uint32_t)-1);
		fx_auxtrace(&w, b, 72, 8192, 0, 42, (uint32_t)-1);	/* all old */
		fx_auxtrace(&w, d, 24, 12288, 0, 42, (uint32_t)-1);
		fx_finish(&w);
		ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
		t = lpt_perf_trace(p, 0);
		ck_assert_int_eq(t->size, 5 * 24);
		ck_assert_int_eq(lpt_perf_trace_read(p, 0, 0, buf, sizeof(buf)), 96);
		ck_assert_int_eq(memcmp(buf, R[1], 96), 0);
		ck_assert_int_eq(t->ngaps, 1);
		ck_assert_int_eq(t->gaps[0], 96);
		lpt_perf_close(p);
		free(w.b);
	}

	/* intel-bts.c needs the six words: five are corrupt */
	build_bts(&w, PERF_INTEL_BTS_INFO_MAX - 1, false, false);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_CORRUPT);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "Intel BTS"));
	free(w.b);

	/* another AUX type (CoreSight): refused, naming PT and BTS */
	fx_start(&w, false);
	{
		uint64_t priv[8] = { 0 };

		fx_ok(lpt_perf_write_auxtrace_info(w.w, PERF_AUXTRACE_CS_ETM, priv, 8));
	}
	fx_auxtrace(&w, psb, 16, 0, 0, 42, (uint32_t)-1);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), -LPT_PERF_E_NOT_PT);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "Intel BTS 2"));
	free(w.b);

	/* every truncation and random flips: an error or a file, no crash */
	build_bts(&w, PERF_INTEL_BTS_INFO_MAX, false, false);
	mutate_loop(w.b, w.n, 2000);
	free(w.b);
}
END_TEST

static char *slurp_text(const char *dir, const char *name)
{
	char *text;
	size_t len;

	ck_assert_msg(!ptcap_dir_read_file(dir, name, &text, &len), "%s/%s", dir, name);
	return text;
}

/* HEADER_NRCPUS sizes the per-CPU arrays (Documentation/perf-data.rst
 * "Limits"): a record naming a CPU at or above its nr_cpus_avail, or more
 * than 8192 CPUs, is refused as corrupt naming the record; within it the
 * file reads. */
START_TEST(nrcpus_bound)
{
	static const struct {
		uint32_t avail, cpu;
		int err;
		const char *says;
	} c[] = {
		{ 4, 3, 0, "" },
		{ 2, 3, -LPT_PERF_E_CORRUPT, "cpu 3 but HEADER_NRCPUS says 2 CPUs" },
		{ 9000, 0, -LPT_PERF_E_CORRUPT, "HEADER_NRCPUS: 9000 CPUs" },
	};
	uint8_t data[32] = { 0 };
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct lpt_perf *p = NULL;
		struct fx w;

		fx_start(&w, false);
		lpt_perf_set_nrcpus(w.w, c[i].avail, c[i].avail);
		fx_time_conv(&w);
		fx_auxtrace_info(&w, true, false, NULL);
		fx_switch_cpu_wide(&w, true, c[i].cpu, 7, 0, 4000);
		fx_switch_cpu_wide(&w, false, c[i].cpu, 0, 7, 4001);
		fx_auxtrace(&w, data, 32, 0, 0, (uint32_t)-1, c[i].cpu);
		fx_finish(&w);
		ck_assert_int_eq(open_buf(w.b, w.n, &p), c[i].err);
		if (c[i].err)
			ck_assert_msg(strstr(lpt_perf_last_error(), c[i].says), "%s",
				      lpt_perf_last_error());
		else
			ck_assert_uint_eq(lpt_perf_ntraces(p), 1);
		lpt_perf_close(p);
		free(w.b);
	}
}
END_TEST

/* lpt_perf_write_ptcap() per CPU (Documentation/perf-data.rst "The
 * capture model"): switches from SWITCH_CPU_WIDE in-records and
 * ITRACE_START, a process generation per COMM exec, its maps with the
 * kernel's, the kernel's code from --vmlinux placed at _text; and what
 * ptcap_dir.c parses back. */
START_TEST(write_ptcap_per_cpu)
{
	char dir[] = "/tmp/test_perf_read-cap-XXXXXX", *text, exe[4096], line[4200];
	struct ptcap_switches sws = { 0 };
	struct ptcap_processes ps = { 0 };
	struct ptcap_config cfg;
	struct lpt_perf_code_opts o;
	uint8_t data[32] = { 0 };
	struct lpt_perf *p;
	struct fx w;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	fx_start(&w, false);
	fx_time_conv(&w);
	fx_auxtrace_info(&w, true, false, NULL);
	fx_kernel_mmap(&w, 0xffffffff81000000ull, 0x1000000, "[kernel.kallsyms]_text");
	fx_comm(&w, 7, 7, "sh", false, 2000);
	fx_mmap2(&w, 7, 0x400000, 0x1000, 0, exe, 2100);
	fx_itrace_start(&w, 7, 7, 2200);
	fx_fork(&w, 8, 7, 2500);
	fx_comm(&w, 7, 7, "prog", true, 3000);
	fx_mmap2(&w, 7, 0x500000, 0x1000, 0, "/nonexistent/prog", 3100);
	fx_switch_cpu_wide(&w, true, 0, 7, 0, 4000);
	fx_switch_cpu_wide(&w, false, 0, 0, 7, 4001);
	fx_switch_cpu_wide(&w, false, 0, 8, 0, 4500);
	fx_switch_cpu_wide(&w, true, 0, 8, 0, 5000);	/* no in-record follows */
	fx_auxtrace(&w, data, 32, 0, 0, (uint32_t)-1, 0);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	lpt_perf_code_opts_init(p, &o);
	o.vmlinux = exe;
	ck_assert_int_eq(lpt_perf_write_ptcap(p, dir, &o, NULL, "test"), 0);

	text = slurp_text(dir, "config");
	ck_assert_int_eq(ptcap_config_parse(text, strlen(text), &cfg, NULL), 0);
	ck_assert_uint_eq(cfg.mtc_freq, 3);
	ck_assert_uint_eq(cfg.tsc_freq_hz, 1200000000ull);
	ck_assert_ptr_nonnull(strstr(text, "mode per-cpu"));
	free(text);
	text = slurp_text(dir, "switches");
	ck_assert_int_eq(ptcap_switches_parse(text, strlen(text), &sws, NULL), 0);
	free(text);
	/* ITRACE_START (0/0 -> 7/7), the in-record (7/7 -> 0/0, the idle
	 * task; its out-record adds nothing), 0/0 -> 8/8, and an out-record
	 * without in-record (8/8 -> 0/0) */
	ck_assert_uint_eq(sws.n, 4);
	ck_assert_uint_eq(sws.sw[0].next_pid, 7);
	ck_assert_uint_eq(sws.sw[2].next_pid, 8);
	ck_assert_uint_eq(sws.sw[3].prev_pid, 8);
	ck_assert_uint_eq(sws.sw[3].next_pid, 0);
	ck_assert_uint_eq(sws.sw[1].prev_pid, 7);
	ck_assert_uint_eq(sws.sw[1].next_pid, 0);
	ck_assert_uint_eq(lpt_perf_tsc_to_ns(p, sws.sw[1].tsc + 1), 4001);
	ptcap_switches_free(&sws);
	text = slurp_text(dir, "processes");
	ck_assert_int_eq(ptcap_processes_parse(text, strlen(text), &ps, NULL), 0);
	free(text);
	ck_assert_uint_eq(ps.n, 3);
	ck_assert_uint_eq(ps.p[0].gen, 0);
	ck_assert_str_eq(ps.p[0].comm, "sh");
	ck_assert_str_eq(ps.p[1].comm, "prog");
	ck_assert_uint_eq(ps.p[2].pid, 8);
	ptcap_processes_free(&ps);
	/* generation 0 maps the program that exists, with the kernel placed
	 * from the vmlinux; generation 1's program is missing: left out */
	text = slurp_text(dir, "maps.7.0");
	snprintf(line, sizeof(line), "0x400000 0x401000 0x0 %s\n", exe);
	ck_assert_ptr_nonnull(strstr(text, line));
	ck_assert_ptr_nonnull(strstr(text, "0xffffffff81000000 "));
	free(text);
	/* the forked child 8 inherits its parent's maps up to the fork */
	text = slurp_text(dir, "maps.8.0");
	ck_assert_ptr_nonnull(strstr(text, line));
	free(text);
	text = slurp_text(dir, "maps.7.1");
	ck_assert_ptr_null(strstr(text, "prog"));
	free(text);
	text = slurp_text(dir, "cpu0.pt");
	free(text);
	lpt_perf_close(p);
	remove_dir(dir);
	free(w.b);
}
END_TEST

/* A workload's recording (`perf record -e intel_pt// -- prog`: the event
 * follows the workload's tasks, attr.enable_on_exec; kernel/events/core.c
 * schedules it with them): the switches file keeps the switches between
 * traced tasks, those of ITRACE_START and their FORK children; another
 * task's time, which holds no trace, is dropped (Documentation/
 * perf-data.rst "Reading"). */
START_TEST(write_ptcap_workload)
{
	char dir[] = "/tmp/test_perf_read-wl-XXXXXX", *text;
	struct ptcap_switches sws = { 0 };
	struct lpt_perf_code_opts o;
	uint8_t data[32] = { 0 };
	struct lpt_perf *p;
	struct fx w;

	fx_start_as(&w, false, true);
	fx_time_conv(&w);
	fx_auxtrace_info(&w, true, false, NULL);
	fx_itrace_start(&w, 7, 7, 1000);
	fx_fork(&w, 8, 7, 1500);
	/* CPU 0: 7 -> 20 (not traced) -> 7 -> 8 -> 30 -> 0 */
	fx_switch_cpu_wide(&w, true, 0, 7, 20, 2000);
	fx_switch_cpu_wide(&w, false, 0, 20, 7, 2001);
	fx_switch_cpu_wide(&w, true, 0, 20, 7, 3000);
	fx_switch_cpu_wide(&w, false, 0, 7, 20, 3001);
	fx_switch_cpu_wide(&w, true, 0, 7, 8, 4000);
	fx_switch_cpu_wide(&w, false, 0, 8, 7, 4001);
	fx_switch_cpu_wide(&w, true, 0, 8, 30, 5000);
	fx_switch_cpu_wide(&w, false, 0, 30, 8, 5001);
	fx_switch_cpu_wide(&w, true, 0, 30, 0, 6000);
	fx_switch_cpu_wide(&w, false, 0, 0, 30, 6001);
	/* CPU 1: untraced tasks only */
	fx_switch_cpu_wide(&w, true, 1, 40, 41, 1000);
	fx_switch_cpu_wide(&w, false, 1, 41, 40, 1001);
	fx_auxtrace(&w, data, 32, 0, 0, (uint32_t)-1, 0);
	fx_finish(&w);
	ck_assert_int_eq(open_buf(w.b, w.n, &p), 0);
	ck_assert(lpt_perf_info(p)->per_task && lpt_perf_info(p)->inherit);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	lpt_perf_code_opts_init(p, &o);
	o.no_code = true;
	ck_assert_int_eq(lpt_perf_write_ptcap(p, dir, &o, NULL, "test"), 0);
	text = slurp_text(dir, "switches");
	ck_assert_int_eq(ptcap_switches_parse(text, strlen(text), &sws, NULL), 0);
	free(text);
	/* 0/0 -> 7/7 (ITRACE_START), 7/7 -> 8/8 at the in-record of 8 */
	ck_assert_uint_eq(sws.n, 2);
	ck_assert(sws.sw[0].cpu == 0 && sws.sw[0].prev_pid == 0 && sws.sw[0].next_pid == 7);
	ck_assert(sws.sw[1].prev_pid == 7 && sws.sw[1].next_pid == 8);
	ck_assert_uint_eq(lpt_perf_tsc_to_ns(p, sws.sw[1].tsc + 1), 4001);
	ptcap_switches_free(&sws);
	lpt_perf_close(p);
	remove_dir(dir);
	free(w.b);
}
END_TEST

/* A `perf record --kcore` directory (builtin-record.c record__kcore_copy):
 * DIR/data is the perf.data, DIR/kcore_dir/kcore the kernel's code at its
 * run-time addresses (no relocation); lpt_perf_probe() knows the directory. */
START_TEST(kcore_directory)
{
	char dir[] = "/tmp/test_perf_read-kcore-XXXXXX", path[4200], cmd[8600], *text;
	char out[] = "/tmp/test_perf_read-kcap-XXXXXX";
	struct lpt_perf_code_opts o;
	uint8_t data[16];
	struct lpt_perf *p;
	struct fx w;
	FILE *f;

	memcpy(data, psb, 16);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	fx_start(&w, false);
	fx_auxtrace_info(&w, false, false, NULL);
	fx_kernel_mmap(&w, 0, 0x100000, "[kernel.kallsyms]_text");
	fx_auxtrace(&w, data, 16, 0, 0, 5, (uint32_t)-1);
	fx_finish(&w);
	snprintf(path, sizeof(path), "%s/data", dir);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(w.b, 1, w.n, f), w.n);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "mkdir %s/kcore_dir && cp /proc/self/exe %s/kcore_dir/kcore",
		 dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(lpt_perf_probe(dir), 1);
	ck_assert_int_eq(lpt_perf_open(dir, NULL, &p), 0);
	lpt_perf_code_opts_init(p, &o);
	ck_assert_ptr_nonnull(o.kcore);
	ck_assert_ptr_nonnull(mkdtemp(out));
	ck_assert_int_eq(lpt_perf_write_ptcap(p, out, &o, NULL, "test"), 0);
	text = slurp_text(out, "maps");
	snprintf(path, sizeof(path), " %s/kcore_dir/kcore\n", dir);
	ck_assert_msg(strstr(text, path) != NULL, "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\n0x0 0x"));
	free(text);
	lpt_perf_close(p);
	remove_dir(out);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(w.b);
}
END_TEST

/* ---- Mutations: truncated and corrupted files never crash or hang ---- */

static void mutate_loop(const uint8_t *orig, size_t len, unsigned int rounds)
{
	uint8_t *b = malloc(len);
	unsigned int seed = 24, r;

	ck_assert_ptr_nonnull(b);
	for (r = 0; r < rounds; r++) {
		struct lpt_perf *p;
		size_t n = len, k, flips;
		int err;

		memcpy(b, orig, len);
		if (r % 3 == 0)
			n = (size_t)rand_r(&seed) % len;
		flips = 1 + (size_t)rand_r(&seed) % 8;
		for (k = 0; k < flips && n; k++)
			b[(size_t)rand_r(&seed) % (n < 4096 ? n : 4096 + (size_t)rand_r(&seed) % (n - 4096 + 1))] ^=
				(uint8_t)(1u << (rand_r(&seed) % 8));
		err = open_buf(b, n, &p);
		if (!err) {
			struct lpt_perf_code_opts o;
			char dir[] = "/tmp/test_perf_read-dir-XXXXXX";

			ck_assert_ptr_nonnull(mkdtemp(dir));
			lpt_perf_code_opts_init(p, &o);
			o.no_code = true;
			(void)lpt_perf_write_ptcap(p, dir, &o, NULL, "test");
			lpt_perf_close(p);
			remove_dir(dir);
		} else {
			ck_assert(lpt_perf_last_error()[0]);
		}
	}
	free(b);
}

START_TEST(mutations_synthetic)
{
	struct fx w;

	build_per_thread(&w, false, true);
	mutate_loop(w.b, w.n, 3000);
	free(w.b);
	build_per_thread(&w, true, false);
	mutate_loop(w.b, w.n, 3000);
	free(w.b);
}
END_TEST

/* ---- The perf 4.14 recordings of ../shared/testdata/perf ---- */

static char shared[4096];

static bool find_data(const char *name, char *path, size_t size)
{
	const char *env = getenv("LWPT_SHARED");
	struct stat st;

	snprintf(shared, sizeof(shared), "%s", env && *env ? env : "../shared");
	snprintf(path, size, "%s/testdata/perf/%s", shared, name);
	if (stat(path, &st)) {
		printf("SKIP: %s absent (../shared or $LWPT_SHARED)\n", path);
		return false;
	}
	return true;
}

static bool have_perf(void)
{
	if (access("/usr/bin/perf", X_OK)) {
		printf("SKIP: /usr/bin/perf absent (linux-perf, scripts/install-deps)\n");
		return false;
	}
	return true;
}

struct item {
	char s[1200];
};

static struct item *add_item(struct item **v, size_t *n)
{
	*v = realloc(*v, (*n + 1) * sizeof(**v));
	ck_assert_ptr_nonnull(*v);
	return &(*v)[(*n)++];
}

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->s, ((const struct item *)b)->s);
}

static void same_items(struct item *a, size_t na, struct item *b, size_t nb,
		       const char *what)
{
	size_t i;

	qsort(a, na, sizeof(*a), cmp_item);
	qsort(b, nb, sizeof(*b), cmp_item);
	ck_assert_msg(na == nb, "%s: perf shows %zu, the reader %zu", what, na, nb);
	for (i = 0; i < na; i++)
		ck_assert_msg(!strcmp(a[i].s, b[i].s), "%s: perf '%s', reader '%s'", what,
			      a[i].s, b[i].s);
}

/* perf script -D: each CPU's AUXTRACE bytes (its hex dump of the Intel PT
 * data), the MMAP/MMAP2 and SWITCH_CPU_WIDE records; compare. */
static void compare_with_perf_script(const char *file, struct lpt_perf *p)
{
	char cmd[8400], line[4096];
	uint8_t *got = NULL;
	struct item *pm = NULL, *ps = NULL, *om = NULL, *os = NULL;
	size_t npm = 0, nps = 0, nom = 0, nos = 0;
	size_t ngot = 0, cap = 0, nm, ns, k;
	int cpu = -1, tr_checked = 0;
	const struct lpt_perf_map *maps = lpt_perf_maps(p, &nm);
	const struct lpt_perf_switch *sws = lpt_perf_switches(p, &ns);
	FILE *f;

	/* perf 6.1 reads a pipe-format file from a pipe only (-i FILE, and
	 * -i - from a file, stop at "bad event header size") */
	snprintf(cmd, sizeof(cmd), "%s'%s'%s 2>/dev/null",
		 lpt_perf_info(p)->pipe ? "cat " : "/usr/bin/perf script -D -i ", file,
		 lpt_perf_info(p)->pipe ? " | /usr/bin/perf script -D -i -" : "");
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, c, t;
		unsigned int sc, pid, tid;
		char *r, path[1024], io[8];

		if ((r = strstr(line, "PERF_RECORD_AUXTRACE size:"))) {
			ck_assert_int_eq(sscanf(r, "PERF_RECORD_AUXTRACE size: %llx offset: "
						"%llx ref: %llx idx: %u tid: %u cpu: %d",
						&a, &b, &c, &sc, &tid, &cpu), 6);
			ngot = 0;
			continue;
		}
		if (cpu >= 0 && !strncmp(line, ".  ", 3) && strchr(line, ':')) {
			/* ".  00000010:  00 00 00   PAD": bytes of one packet */
			char *q = strchr(line, ':') + 1;
			unsigned int byte;
			int used;

			while (sscanf(q, " %2x%n", &byte, &used) == 1 && used <= 4 &&
			       (q[used] == ' ' || q[used] == '\n')) {
				if (ngot == cap) {
					cap = cap ? cap * 2 : 65536;
					got = realloc(got, cap);
				}
				got[ngot++] = (uint8_t)byte;
				q += used;
			}
			continue;
		}
		if (cpu >= 0 && line[0] != '.') {
			/* end of one AUXTRACE dump: compare with our trace */
			for (k = 0; k < lpt_perf_ntraces(p); k++) {
				const struct lpt_perf_trace *tr = lpt_perf_trace(p, k);
				uint8_t *mine;

				if (tr->cpu != cpu)
					continue;
				ck_assert_uint_eq(tr->size, ngot);
				mine = malloc(ngot + 1);
				ck_assert_int_eq(lpt_perf_trace_read(p, k, 0, mine, ngot),
						 (int64_t)ngot);
				ck_assert_msg(!memcmp(mine, got, ngot),
					      "%s: cpu %d: AUX bytes differ from perf script -D",
					      file, cpu);
				free(mine);
				tr_checked++;
			}
			cpu = -1;
		}
		if ((r = strstr(line, "PERF_RECORD_MMAP "))) {
			int spid;
			struct item *it = add_item(&pm, &npm);

			ck_assert_int_eq(sscanf(r, "PERF_RECORD_MMAP %d/%u: [%llx(%llx) @ %llx]: %*s %1023s",
						&spid, &tid, &a, &b, &c, path), 6);
			snprintf(it->s, sizeof(it->s), "%d %llx %llx %llx %s", spid, a, b, c, path);
		} else if ((r = strstr(line, "PERF_RECORD_MMAP2 "))) {
			struct item *it = add_item(&pm, &npm);

			ck_assert_int_eq(sscanf(r, "PERF_RECORD_MMAP2 %u/%u: [%llx(%llx) @ %llx",
						&pid, &tid, &a, &b, &c), 5);
			r = strstr(r, "]: ");
			ck_assert_ptr_nonnull(r);
			ck_assert_int_eq(sscanf(r, "]: %*s %1023s", path), 1);
			snprintf(it->s, sizeof(it->s), "%d %llx %llx %llx %s", (int)pid, a, b, c, path);
		} else if ((r = strstr(line, "PERF_RECORD_SWITCH_CPU_WIDE "))) {
			struct item *it = add_item(&ps, &nps);
			int scpu;

			ck_assert_int_eq(sscanf(line, "%d %llu", &scpu, &t), 2);
			ck_assert_int_eq(sscanf(r, "PERF_RECORD_SWITCH_CPU_WIDE %7s %*s %*s %u/%u",
						io, &pid, &tid), 3);
			snprintf(it->s, sizeof(it->s), "%d %llu %d %u/%u", scpu, t,
				 !strcmp(io, "OUT"), pid, tid);
		}
	}
	ck_assert_int_eq(pclose(f), 0);
	free(got);
	ck_assert_int_eq(tr_checked, (int)lpt_perf_ntraces(p));
	/* perf shows records in time order (ordered-events.c); the reader
	 * keeps file order: compare as sorted lists. */
	for (k = 0; k < nm; k++)
		snprintf(add_item(&om, &nom)->s, sizeof(om->s), "%d %" PRIx64 " %" PRIx64
			 " %" PRIx64 " %s", maps[k].pid, maps[k].start, maps[k].size,
			 maps[k].pgoff, maps[k].path);
	for (k = 0; k < ns; k++)
		if (!sws[k].itrace_start)
			snprintf(add_item(&os, &nos)->s, sizeof(os->s), "%d %" PRIu64
				 " %d %d/%d", sws[k].cpu, sws[k].time, sws[k].out,
				 sws[k].other_pid, sws[k].other_tid);
	same_items(pm, npm, om, nom, "maps");
	same_items(ps, nps, os, nos, "switches");
	ck_assert_uint_gt(nps, 0);
	free(pm);
	free(ps);
	free(om);
	free(os);
}

/* perf report --header-only: cpuid and the intel_pt event's config. */
static void compare_with_perf_header(const char *file, struct lpt_perf *p)
{
	char cmd[8400], line[8192];
	bool cpuid = false, event = false;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s'%s'%s 2>/dev/null",
		 lpt_perf_info(p)->pipe ? "cat " : "/usr/bin/perf report --header-only -i ",
		 file, lpt_perf_info(p)->pipe ? " | /usr/bin/perf report --header-only -i -" : "");
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *r;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "# cpuid : ", 10)) {
			ck_assert_str_eq(line + 10, lpt_perf_info(p)->cpuid);
			cpuid = true;
		}
		if (strstr(line, "# event : name = intel_pt//") &&
		    (r = strstr(line, "config = "))) {
			ck_assert_uint_eq(strtoull(r + 9, NULL, 16), lpt_perf_info(p)->pt_config);
			event = true;
		}
	}
	pclose(f);
	ck_assert(cpuid);
	if (!lpt_perf_info(p)->pipe)
		ck_assert(event);
}

/* The same recording rewritten by perf 6.1 (`perf inject`, file format
 * with perf 6.1's header, features and HEADER_AUXTRACE index): the same
 * traces, byte for byte, and the same sideband. */
static void same_after_inject(const char *file, struct lpt_perf *p)
{
	char out[] = "/tmp/test_perf_read-inject-XXXXXX", cmd[8600];
	struct lpt_perf *q;
	size_t k, n1, n2;
	int fd = mkstemp(out);

	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/perf inject -i '%s' -o '%s' 2>/dev/null",
		 file, out);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_msg(lpt_perf_open(out, NULL, &q) == 0, "%s", lpt_perf_last_error());
	ck_assert(lpt_perf_info(q)->has_index);
	ck_assert_uint_eq(lpt_perf_ntraces(q), lpt_perf_ntraces(p));
	for (k = 0; k < lpt_perf_ntraces(p); k++) {
		const struct lpt_perf_trace *a = lpt_perf_trace(p, k), *b = lpt_perf_trace(q, k);
		uint8_t *x = malloc(a->size + 1), *y = malloc(b->size + 1);

		ck_assert_str_eq(a->name, b->name);
		ck_assert_uint_eq(a->size, b->size);
		ck_assert_int_eq(lpt_perf_trace_read(p, k, 0, x, a->size), (int64_t)a->size);
		ck_assert_int_eq(lpt_perf_trace_read(q, k, 0, y, b->size), (int64_t)b->size);
		ck_assert(!memcmp(x, y, a->size));
		free(x);
		free(y);
	}
	(void)lpt_perf_maps(p, &n1);
	(void)lpt_perf_maps(q, &n2);
	ck_assert_uint_eq(n1, n2);
	(void)lpt_perf_switches(p, &n1);
	(void)lpt_perf_switches(q, &n2);
	ck_assert_uint_eq(n1, n2);
	ck_assert_uint_eq(lpt_perf_config(p)->tsc_freq_hz, lpt_perf_config(q)->tsc_freq_hz);
	lpt_perf_close(q);
	unlink(out);
}

static void real_file(const char *name, bool pipe)
{
	char path[4400];
	const struct ptcap_config *c;
	struct lpt_perf_code_opts o;
	const struct lpt_perf_map *m;
	struct lpt_perf *p;
	char where[4096];
	size_t n, k;
	int missing = 0;

	if (!find_data(name, path, sizeof(path)))
		return;
	ck_assert_msg(lpt_perf_open(path, NULL, &p) == 0, "%s: %s", path,
		      lpt_perf_last_error());
	ck_assert_int_eq(lpt_perf_info(p)->pipe, pipe);
	ck_assert(lpt_perf_info(p)->per_cpu);
	/* The README: CPUID GenuineIntel,6,78,3, AUX data of CPUs 0 and 3,
	 * config 0x300e601 (mtc_period 3); perf script -D's AUXTRACE_INFO:
	 * TSC:CTC 100/2, max non-turbo ratio 12. */
	c = lpt_perf_config(p);
	ck_assert_uint_eq(c->cpu_family, 6);
	ck_assert_uint_eq(c->cpu_model, 78);
	ck_assert_uint_eq(c->cpu_stepping, 3);
	ck_assert_uint_eq(c->mtc_freq, 3);
	ck_assert_uint_eq(c->cpuid_15_ebx, 100);
	ck_assert_uint_eq(c->cpuid_15_eax, 2);
	ck_assert_uint_eq(c->nom_freq, 12);
	ck_assert_uint_eq(lpt_perf_ntraces(p), 2);
	ck_assert_int_eq(lpt_perf_trace(p, 0)->cpu, 0);
	ck_assert_int_eq(lpt_perf_trace(p, 1)->cpu, 3);
	/* the binaries are absent: every lookup says so, none is guessed */
	lpt_perf_code_opts_init(p, &o);
	o.symfs = "/nonexistent-symfs";
	m = lpt_perf_maps(p, &n);
	for (k = 0; k < n; k++)
		if (lpt_perf_find_code(p, &m[k], &o, where, sizeof(where)) ==
		    -LPT_PERF_E_NO_CODE)
			missing++;
	ck_assert_int_eq(missing, (int)n);
	if (have_perf()) {
		compare_with_perf_script(path, p);
		compare_with_perf_header(path, p);
		if (!pipe)
			same_after_inject(path, p);
	}
	lpt_perf_close(p);
}

START_TEST(real_file_format)
{
	real_file("perf.data.intel_pt-4.14", false);
}
END_TEST

START_TEST(real_pipe_format)
{
	real_file("perf.data.piped.intel_pt-4.14", true);
}
END_TEST

/* A file at the recorded path with another build-id is not used
 * (symbol.c), and is said to be so. */
START_TEST(real_other_build_id)
{
	char path[4400], where[4096], dir[] = "/tmp/test_perf_read-symfs-XXXXXX";
	char cmd[9000];
	struct lpt_perf_code_opts o;
	const struct lpt_perf_map *m;
	struct lpt_perf *p;
	size_t n, k;

	if (!find_data("perf.data.intel_pt-4.14", path, sizeof(path)))
		return;
	ck_assert_int_eq(lpt_perf_open(path, NULL, &p), 0);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* any ELF with a build-id stands in for /lib64/libc-2.23.so */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/lib64 && cp /proc/self/exe %s/lib64/libc-2.23.so",
		 dir, dir);
	ck_assert_int_eq(system(cmd), 0);
	lpt_perf_code_opts_init(p, &o);
	o.symfs = dir;
	m = lpt_perf_maps(p, &n);
	for (k = 0; k < n && strcmp(m[k].path, "/lib64/libc-2.23.so"); k++)
		;
	ck_assert_uint_lt(k, n);
	ck_assert_uint_eq(m[k].build_id_size, 20);
	ck_assert_int_eq(lpt_perf_find_code(p, &m[k], &o, where, sizeof(where)),
			 -LPT_PERF_E_BUILD_ID);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	lpt_perf_close(p);
}
END_TEST

/* A perf.data of Debian's perf recording `true` with a software event and
 * @opt, into @out (a mkstemp() template): false, said, where perf cannot
 * record here (perf_event_paranoid, no perf). No build-id cache update. */
static bool perf_record(const char *opt, char *out)
{
	char cmd[8600];
	int fd;

	if (!have_perf())
		return false;
	fd = mkstemp(out);
	ck_assert_int_ge(fd, 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/perf record -q -N %s -e dummy -o '%s' -- "
		 "/usr/bin/true >/dev/null 2>&1", opt, out);
	if (system(cmd)) {
		printf("SKIP: perf record %s -e dummy failed here (perf_event_paranoid?)\n",
		       opt);
		unlink(out);
		return false;
	}
	return true;
}

/* PERF_RECORD_COMPRESSED as Debian's perf 6.1 writes it (`perf record -z`,
 * a software event: no PT hardware needed): the decompressed COMM and MMAP
 * records equal perf script -D's. Skips where perf cannot record. */
START_TEST(real_compressed)
{
	char out[] = "/tmp/test_perf_read-z-XXXXXX", cmd[8600], line[4096];
	const struct lpt_perf_map *m;
	struct lpt_perf_opts po;
	struct lpt_perf *p;
	size_t n, k, nperf = 0;
	bool exec = false;
	FILE *f;

	if (!perf_record("-z", out))
		return;
	ck_assert_int_eq(lpt_perf_open(out, NULL, &p), -LPT_PERF_E_NO_AUX);
	lpt_perf_opts_init(&po);
	po.flags = LPT_PERF_SIDEBAND_ONLY;
	ck_assert_msg(lpt_perf_open(out, &po, &p) == 0, "%s", lpt_perf_last_error());
	ck_assert(lpt_perf_info(p)->compressed);
	ck_assert_uint_eq(lpt_perf_ntraces(p), 0);
	m = lpt_perf_maps(p, &n);
	snprintf(cmd, sizeof(cmd), "/usr/bin/perf script -D -i '%s' 2>/dev/null", out);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		char *r = strstr(line, "PERF_RECORD_MMAP");

		if (!r || !(r = strchr(r, '[')) || sscanf(r, "[%llx(%llx)", &a, &b) != 2)
			continue;
		for (k = 0; k < n && !(m[k].start == a && m[k].size == b); k++)
			;
		ck_assert_msg(k < n, "perf's map 0x%llx+0x%llx not read", a, b);
		nperf++;
	}
	pclose(f);
	ck_assert_uint_eq(nperf, n);
	{
		const struct lpt_perf_task *t = lpt_perf_tasks(p, &k);

		while (k--)
			exec |= t[k].exec && !strcmp(t[k].comm, "true");
	}
	ck_assert(exec);
	lpt_perf_close(p);
	unlink(out);
}
END_TEST

/* Build-ids as perf 6.1 records them in MMAP2 (`perf record
 * --buildid-mmap`, PERF_RECORD_MISC_MMAP_BUILD_ID) and where the code is
 * found (symbol.c dso__load): the recorded path when its build-id matches,
 * the build-id cache .build-id/xx/rest/elf, and not a --symfs file with
 * another build-id. Skips where perf cannot record. */
START_TEST(real_build_id_lookup)
{
	char out[] = "/tmp/test_perf_read-b-XXXXXX", dir[] = "/tmp/test_perf_read-c-XXXXXX";
	char cmd[9000], where[4096], hex[41];
	const struct lpt_perf_map *m;
	struct lpt_perf_code_opts o;
	struct lpt_perf_opts po;
	struct lpt_perf *p;
	uint8_t id[20];
	size_t n, k;
	int i;

	if (!perf_record("--buildid-mmap", out))
		return;
	lpt_perf_opts_init(&po);
	po.flags = LPT_PERF_SIDEBAND_ONLY;
	ck_assert_int_eq(lpt_perf_open(out, &po, &p), 0);
	m = lpt_perf_maps(p, &n);
	for (k = 0; k < n && strcmp(m[k].path, "/usr/bin/true"); k++)
		;
	ck_assert_uint_lt(k, n);
	ck_assert_int_eq(lpt_perf_elf_build_id("/usr/bin/true", id), 20);
	ck_assert_uint_eq(m[k].build_id_size, 20);
	ck_assert_mem_eq(m[k].build_id, id, 20);
	/* an empty build-id cache (perf record fills $HOME/.debug): the
	 * recorded path, whose build-id matches */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	lpt_perf_code_opts_init(p, &o);
	o.buildid_dir = dir;
	ck_assert_int_eq(lpt_perf_find_code(p, &m[k], &o, where, sizeof(where)), 0);
	ck_assert_str_eq(where, "/usr/bin/true");
	/* --symfs with /usr/bin/false in its place: another build-id */
	for (i = 0; i < 20; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/usr/bin %s/.build-id/%.2s/%s && "
		 "cp /usr/bin/false %s/usr/bin/true", dir, dir, hex, hex + 2, dir);
	ck_assert_int_eq(system(cmd), 0);
	o.symfs = dir;
	ck_assert_int_eq(lpt_perf_find_code(p, &m[k], &o, where, sizeof(where)),
			 -LPT_PERF_E_BUILD_ID);
	/* ... and the build-id cache has the right one */
	snprintf(cmd, sizeof(cmd), "cp /usr/bin/true %s/.build-id/%.2s/%s/elf", dir, hex, hex + 2);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(lpt_perf_find_code(p, &m[k], &o, where, sizeof(where)), 0);
	ck_assert_ptr_nonnull(strstr(where, "/.build-id/"));
	/* the kernel's MMAP2 (prot 0 as perf synthesizes it) is a code map */
	for (k = 0; k < n && strncmp(m[k].path, "[kernel.kallsyms]", 17); k++)
		;
	if (k < n)
		ck_assert(m[k].exec && m[k].kernel);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	lpt_perf_close(p);
	unlink(out);
}
END_TEST

/*
 * kAFL's perf.data files (testdata/perf/kafl): the IP filter of their
 * AUXTRACE_INFO ("filter 0x0/SIZE@/NAME.dump", file offsets) becomes the
 * ADDR0 range the trace was recorded with (testdata/pt/README.md), placed
 * through the MMAP2 records as the kernel placed it.
 */
START_TEST(real_kafl_filter)
{
	static const struct { const char *name, *line; } want[] = {
		{ "Unzip", "addr0 filter 0x400000-0x426fff\n" },
		{ "foo", "addr0 filter 0x7ffff7819000-0x7ffff79c9fff\n" },
		{ "mruby", "addr0 filter 0x400000-0x4b5fff\n" },
	};
	struct ptcap_addr_range r[PTCAP_ADDR_RANGES];
	char path[4200], name[64], *text;
	struct lpt_perf_code_opts o;
	struct lpt_perf *p;
	size_t i, len;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char dir[] = "/tmp/test_perf_read-kafl-XXXXXX";

		snprintf(name, sizeof(name), "kafl/%s.perf.data", want[i].name);
		if (!find_data(name, path, sizeof(path)))
			return;
		ck_assert_int_eq(lpt_perf_open(path, NULL, &p), 0);
		ck_assert_ptr_nonnull(mkdtemp(dir));
		lpt_perf_code_opts_init(p, &o);
		o.no_code = true;
		ck_assert_int_eq(lpt_perf_write_ptcap(p, dir, &o, NULL, "t"), 0);
		ck_assert_int_eq(ptcap_dir_read_file(dir, "config", &text, &len), 0);
		ck_assert_msg(strstr(text, want[i].line), "%s: no '%s' in:\n%s",
			      want[i].name, want[i].line, text);
		ck_assert_int_eq(ptcap_config_addr(text, len, r), 0);
		ck_assert_uint_eq(r[0].cfg, PTCAP_ADDR_FILTER);
		ck_assert_uint_eq(r[1].cfg, PTCAP_ADDR_UNUSED);
		free(text);
		lpt_perf_close(p);
		remove_dir(dir);
	}
}
END_TEST

START_TEST(mutations_real)
{
	char path[4400];
	uint8_t *b;
	FILE *f;
	long len;

	if (!find_data("perf.data.piped.intel_pt-4.14", path, sizeof(path)))
		return;
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	b = malloc((size_t)len);
	ck_assert_int_eq(fread(b, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	mutate_loop(b, (size_t)len, 400);
	free(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("perf_read");
	TCase *tc = tcase_create("synthetic");
	TCase *tr = tcase_create("perf-4.14");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, per_thread_file_and_pipe);
	tcase_add_test(tc, auxtrace_index);
	tcase_add_test(tc, per_cpu_snapshot);
	tcase_add_test(tc, compressed);
	tcase_add_test(tc, bounds);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, write_ptcap_per_cpu);
	tcase_add_test(tc, nrcpus_bound);
	tcase_add_test(tc, write_ptcap_workload);
	tcase_add_test(tc, kcore_directory);
	tcase_add_test(tc, mutations_synthetic);
	tcase_add_test(tc, intel_bts);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tr, 300);
	tcase_add_test(tr, real_file_format);
	tcase_add_test(tr, real_pipe_format);
	tcase_add_test(tr, real_other_build_id);
	tcase_add_test(tr, real_compressed);
	tcase_add_test(tr, real_build_id_lookup);
	tcase_add_test(tr, real_kafl_filter);
	tcase_add_test(tr, mutations_real);
	suite_add_tcase(s, tr);
	return lwpt_check_run(s, CK_NORMAL);
}
