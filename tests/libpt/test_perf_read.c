// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of libpt's perf.data reader (include/lwpt/perf_data.h, issue 24
 * point 1 and 3).
 *
 * Sources: perf.data files built here by tests/libpt/perf_writer.h from the
 * layouts of tools/perf/Documentation/perf.data-file-format.txt (each rule
 * tested names the perf 6.1 source it comes from); the two perf 4.14
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
#include "tests/libpt/perf_writer.h"

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

/* Open @w's bytes; returns the error (0: *@p set). */
static int open_buf(const struct pw *w, size_t n, struct lpt_perf **p)
{
	char *path = write_tmp(w->b, n);
	int err = lpt_perf_open(path, NULL, p);

	unlink(path);
	free(path);
	return err;
}

static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

/* A per-thread recording of thread 42: two AUXTRACE buffers that do not
 * continue each other (a gap), an AUX record with TRUNCATED. */
static void build_per_thread(struct pw *w, bool pipe, bool index)
{
	uint8_t data[64];
	size_t a1, a2;

	memset(data, 0, sizeof(data));
	memcpy(data, psb, sizeof(psb));
	pw_start(w, pipe);
	pw_time_conv(w);
	pw_auxtrace_info(w, false, false, "filter 0x400000/0x100@/bin/true");
	pw_comm(w, 42, 42, "prog", true, 2000);
	pw_mmap2(w, 42, 0x400000, 0x1000, 0, "/bin/true", 2100);
	pw_aux(w, 0, 64, 0, 42, 0, 3000);
	a1 = pw_auxtrace(w, data, 64, 0, 0, 42, (uint32_t)-1);
	pw_aux(w, 64, 32, PERF_AUX_FLAG_TRUNCATED, 42, 0, 4000);
	a2 = pw_auxtrace(w, data, 32, 4096, 0, 42, (uint32_t)-1);
	{
		/* an unknown record type: skipped (STYLE.md 17) */
		size_t at = pw_begin(w, 200, 0);

		pw_u64(w, 0xdeadbeef);
		pw_end(w, at);
	}
	if (index) {
		uint64_t idx[5] = { 2, a1, 48 + 64, a2, 48 + 32 };
		struct pw_feat f = { PERF_HEADER_AUXTRACE, idx, sizeof(idx) };

		pw_finish(w, &f, 1);
	} else {
		pw_finish(w, NULL, 0);
	}
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
	ck_assert_uint_eq(in->pt_config, PW_CONFIG);
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
		struct pw w;

		build_per_thread(&w, pipe, false);
		ck_assert_int_eq(open_buf(&w, w.n, &p), 0);
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
	struct pw w;
	size_t at;

	build_per_thread(&w, false, true);
	ck_assert_int_eq(open_buf(&w, w.n, &p), 0);
	ck_assert(lpt_perf_info(p)->has_index);
	check_per_thread(p);
	lpt_perf_close(p);
	/* the index body is the last 40 bytes: point entry 0 at the header */
	at = w.n - 40 + 8;
	memset(w.b + at, 0, 8);
	ck_assert_int_eq(open_buf(&w, w.n, &p), -LPT_PERF_E_CORRUPT);
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
	struct pw w;
	size_t n;

	pw_start(&w, false);
	pw_auxtrace_info(&w, true, true, NULL);
	pw_switch_cpu_wide(&w, false, 1, 7, 0, 5000);
	pw_switch_cpu_wide(&w, true, 1, 7, 8, 6000);
	pw_aux(&w, 0, 32, PERF_AUX_FLAG_COLLISION, 7, 1, 5500);
	pw_auxtrace(&w, data, 32, 0, 1, (uint32_t)-1, 1);
	pw_aux(&w, 32, 32, PERF_AUX_FLAG_PARTIAL, 7, 1, 6500);
	pw_auxtrace(&w, data, 32, 32, 1, (uint32_t)-1, 1);
	pw_auxtrace(&w, data, 32, 0, 0, (uint32_t)-1, 0);
	pw_finish(&w, NULL, 0);
	ck_assert_int_eq(open_buf(&w, w.n, &p), 0);
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
	struct pw inner = { 0 }, w;
	uint8_t data[16], *z;
	struct lpt_perf *p;
	size_t zn, half, at;
	const struct lpt_perf_map *m;

	memcpy(data, psb, 16);
	inner.n = 0;
	pw_comm(&inner, 9, 9, "zprog", true, 100);
	pw_mmap2(&inner, 9, 0x1000, 0x1000, 0, "/usr/bin/z", 200);
	z = malloc(ZSTD_compressBound(inner.n));
	zn = ZSTD_compress(z, ZSTD_compressBound(inner.n), inner.b, inner.n, 1);
	ck_assert(!ZSTD_isError(zn));
	half = zn / 2;
	pw_start(&w, false);
	pw_auxtrace_info(&w, false, false, NULL);
	at = pw_begin(&w, PERF_RECORD_COMPRESSED, 0);
	pw_put(&w, z, half);
	{
		uint16_t sz = (uint16_t)(w.n - at);

		memcpy(w.b + at + 6, &sz, 2);
	}
	at = pw_begin(&w, PERF_RECORD_COMPRESSED, 0);
	pw_put(&w, z + half, zn - half);
	{
		uint16_t sz = (uint16_t)(w.n - at);

		memcpy(w.b + at + 6, &sz, 2);
	}
	pw_auxtrace(&w, data, 16, 0, 0, 9, (uint32_t)-1);
	pw_finish(&w, NULL, 0);
	ck_assert_int_eq(open_buf(&w, w.n, &p), 0);
	ck_assert(lpt_perf_info(p)->compressed);
	m = lpt_perf_maps(p, &zn);
	ck_assert_uint_eq(zn, 1);
	ck_assert_str_eq(m[0].path, "/usr/bin/z");
	lpt_perf_close(p);
	free(w.b);
	/* garbage in a COMPRESSED record: a clear error */
	pw_start(&w, true);
	at = pw_begin(&w, PERF_RECORD_COMPRESSED, 0);
	pw_put(&w, NULL, 16);
	memset(w.b + at + 8, 0xff, 16);
	pw_end(&w, at);
	ck_assert_int_eq(open_buf(&w, w.n, &p), -LPT_PERF_E_COMPRESS);
	free(z);
	free(inner.b);
	free(w.b);
}
END_TEST

/* What the reader refuses, and how (perf.data-file-format.txt, header.c). */
START_TEST(refusals)
{
	struct lpt_perf *p;
	struct pw w;
	uint64_t swapped = PERF_FILE_MAGIC_SWAPPED;
	size_t cut;

	build_per_thread(&w, false, false);
	memcpy(w.b, &swapped, 8);
	ck_assert_int_eq(open_buf(&w, w.n, &p), -LPT_PERF_E_SWAPPED);
	memcpy(w.b, "PERFFILE", 8);
	ck_assert_int_eq(open_buf(&w, w.n, &p), -LPT_PERF_E_VERSION);
	memcpy(w.b, "NOTPERF!", 8);
	ck_assert_int_eq(open_buf(&w, w.n, &p), -LPT_PERF_E_MAGIC);
	ck_assert_int_eq(open_buf(&w, 3, &p), -LPT_PERF_E_MAGIC);
	free(w.b);

	/* every truncation of a pipe stream: TRUNCATED (or no AUX yet) */
	build_per_thread(&w, true, false);
	for (cut = 16; cut < w.n; cut++) {
		int err = open_buf(&w, cut, &p);

		ck_assert_msg(err == -LPT_PERF_E_TRUNCATED || err == -LPT_PERF_E_NO_AUX ||
			      err == 0, "cut %zu: %d", cut, err);
		if (!err)
			lpt_perf_close(p);
	}
	/* a record of size 0 would loop for ever */
	memset(w.b + 16 + 6, 0, 2);
	ck_assert_int_eq(open_buf(&w, w.n, &p), -LPT_PERF_E_CORRUPT);
	ck_assert_ptr_nonnull(strstr(lpt_perf_last_error(), "size 0"));
	free(w.b);

	/* no AUX data at all */
	pw_start(&w, true);
	pw_comm(&w, 1, 1, "x", false, 1);
	ck_assert_int_eq(open_buf(&w, w.n, &p), -LPT_PERF_E_NO_AUX);
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
		struct pw w = { .b = b };
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
		err = open_buf(&w, n, &p);
		if (!err) {
			struct lpt_perf_code_opts o;
			char dir[] = "/tmp/test_perf_read-dir-XXXXXX";

			ck_assert_ptr_nonnull(mkdtemp(dir));
			lpt_perf_code_opts_init(p, &o);
			o.no_code = true;
			(void)lpt_perf_write_ptcap(p, dir, &o, NULL, "test");
			lpt_perf_close(p);
			lpt_perf_ptcap_remove(strdup(dir));
		} else {
			ck_assert(lpt_perf_last_error()[0]);
		}
	}
	free(b);
}

START_TEST(mutations_synthetic)
{
	struct pw w;

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
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, mutations_synthetic);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tr, 300);
	tcase_add_test(tr, real_file_format);
	tcase_add_test(tr, real_pipe_format);
	tcase_add_test(tr, real_other_build_id);
	tcase_add_test(tr, mutations_real);
	suite_add_tcase(s, tr);
	return lwpt_check_run(s, CK_NORMAL);
}
