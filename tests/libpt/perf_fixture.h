/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data files for tests and the bench (issue 24), written by libpt's
 * public writer (include/lwpt/perf_write.h) in file or pipe format and
 * read back into memory so that tests can corrupt them. What is fixed
 * here is test data, not format: one intel_pt attr (id 1, config
 * FX_CONFIG) with sample_id_all and TID|TIME|CPU|IDENTIFIER, the decoder
 * parameters fx_auxtrace_info() writes (a 1.2 GHz TSC, MTC period 3,
 * TSC:CTC 100:2, non-turbo ratio 12), and bodies of the records the
 * writer has no function for (MMAP, FORK, ITRACE_START, AUX), whose
 * layouts are <linux/perf_event.h>'s. Every function aborts on an error:
 * a fixture that cannot be built is a broken test.
 */
#ifndef LWPT_TESTS_PERF_FIXTURE_H
#define LWPT_TESTS_PERF_FIXTURE_H

#include <lwpt/perf_file.h>
#include <lwpt/perf_write.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FX_PMU_TYPE	8
#define FX_CONFIG	0x300e601ull	/* pt, branch, tsc, mtc, mtc_period 3 */

struct fx {
	struct lpt_perf_writer *w;
	FILE *f;
	uint8_t *b;	/* the file, after fx_finish() */
	size_t n;
};

static inline void fx_ok(int err)
{
	if (err) {
		fprintf(stderr, "perf fixture: writer error %d\n", err);
		abort();
	}
}

/* Start a file; @workload: the attr of a workload's recording (`perf
 * record -- prog`: enable_on_exec and inherit, util/evsel.c). */
static inline void fx_start_as(struct fx *x, bool pipe, bool workload)
{
	struct perf_event_attr a;

	memset(x, 0, sizeof(*x));
	memset(&a, 0, sizeof(a));
	a.type = FX_PMU_TYPE;
	a.config = FX_CONFIG;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.enable_on_exec = workload;
	a.inherit = workload;
	x->f = tmpfile();
	if (!x->f)
		abort();
	fx_ok((pipe ? lpt_perf_writer_open_pipe : lpt_perf_writer_open)(x->f, &a, "intel_pt//",
									 1, &x->w));
}

static inline void fx_start(struct fx *x, bool pipe)
{
	fx_start_as(x, pipe, false);
}

/* Close the writer and read the file into x->b / x->n. */
static inline void fx_finish(struct fx *x)
{
	long n;

	fx_ok(lpt_perf_writer_close(x->w));
	x->w = NULL;
	if (fseek(x->f, 0, SEEK_END) || (n = ftell(x->f)) < 0)
		abort();
	x->n = (size_t)n;
	x->b = malloc(x->n + 1);
	rewind(x->f);
	if (!x->b || fread(x->b, 1, x->n, x->f) != x->n)
		abort();
	fclose(x->f);
	x->f = NULL;
}

/* A finished file-format file without its HEADER_AUXTRACE index, as perf
 * before 4.4 wrote them: the feature bit cleared (the index is the last
 * feature the writer writes, so the other sections keep their places). */
static inline void fx_drop_index(struct fx *x)
{
	struct perf_file_header h;

	memcpy(&h, x->b, sizeof(h));
	h.features[PERF_HEADER_AUXTRACE / 64] &= ~(1ull << (PERF_HEADER_AUXTRACE % 64));
	memcpy(x->b, &h, sizeof(h));
}

/* The data section of a finished file-format file: its records. */
static inline const uint8_t *fx_records(const struct fx *x, size_t *len)
{
	struct perf_file_header h;

	memcpy(&h, x->b, sizeof(h));
	*len = (size_t)h.data.size;
	return x->b + h.data.offset;
}

/*
 * A finished file-format file as the `data` of a `perf record --threads`
 * directory: HEADER_DIR_FORMAT (bit 24, util/header.c write_dir_format():
 * u64 @version) added. It is above every feature the writer writes, so
 * its table entry goes last: the other entries move 16 bytes (their
 * bodies with them) and its body is appended.
 */
static inline void fx_add_dir_format(struct fx *x, uint64_t version)
{
	struct perf_file_header h;
	struct perf_file_section e;
	uint64_t table;
	unsigned int bit, n = 0, i;
	uint8_t *b;

	memcpy(&h, x->b, sizeof(h));
	table = h.data.offset + h.data.size;
	for (bit = 0; bit < PERF_HEADER_FEAT_BITS; bit++)
		n += (h.features[bit / 64] >> (bit % 64)) & 1;
	b = malloc(x->n + 16 + 8);
	if (!b)
		abort();
	memcpy(b, x->b, (size_t)table + 16 * n);
	memcpy(b + table + 16 * (n + 1), x->b + table + 16 * n, x->n - (size_t)table - 16 * n);
	for (i = 0; i < n; i++) {
		memcpy(&e, b + table + 16 * i, sizeof(e));
		e.offset += 16;
		memcpy(b + table + 16 * i, &e, sizeof(e));
	}
	e.offset = x->n + 16;
	e.size = 8;
	memcpy(b + table + 16 * n, &e, sizeof(e));
	memcpy(b + x->n + 16, &version, 8);
	h.features[PERF_HEADER_DIR_FORMAT / 64] |= 1ull << (PERF_HEADER_DIR_FORMAT % 64);
	memcpy(b, &h, sizeof(h));
	free(x->b);
	x->b = b;
	x->n += 24;
}

static inline struct lpt_perf_sid fx_sid(uint32_t pid, uint32_t tid, uint64_t time,
					 uint32_t cpu)
{
	struct lpt_perf_sid s = { .pid = pid, .tid = tid, .time = time, .cpu = cpu };

	return s;
}

/* 1.2 GHz: tsc.c, 1e9 << 31 / 1789569706, time 1000 at TSC 0. */
static inline void fx_time_conv(struct fx *x)
{
	struct lpt_perf_tc tc = { .shift = 31, .mult = 1789569706, .zero = 1000 };

	fx_ok(lpt_perf_write_time_conv(x->w, &tc, true));
}

/* AUXTRACE_INFO for Intel PT, masks as perf_pmu__format_bits() gives; the
 * filter string after the words, NUL-padded to 8 (intel_pt_info_fill). */
static inline void fx_auxtrace_info(struct fx *x, bool per_cpu, bool snapshot,
				    const char *filter)
{
	size_t flen = filter ? strlen(filter) : 0;
	size_t nw = PERF_INTEL_PT_INFO_MAX + (flen ? (flen + 1 + 7) / 8 : 0);
	uint64_t *priv = calloc(nw, sizeof(*priv));

	if (!priv)
		abort();
	priv[PERF_INTEL_PT_PMU_TYPE] = FX_PMU_TYPE;
	priv[PERF_INTEL_PT_TIME_SHIFT] = 31;
	priv[PERF_INTEL_PT_TIME_MULT] = 1789569706;
	priv[PERF_INTEL_PT_TIME_ZERO] = 1000;
	priv[PERF_INTEL_PT_CAP_USER_TIME_ZERO] = 1;
	priv[PERF_INTEL_PT_TSC_BIT] = 0x400;
	priv[PERF_INTEL_PT_NORETCOMP_BIT] = 0x800;
	priv[PERF_INTEL_PT_HAVE_SCHED_SWITCH] = 3;
	priv[PERF_INTEL_PT_SNAPSHOT_MODE] = snapshot;
	priv[PERF_INTEL_PT_PER_CPU_MMAPS] = per_cpu;
	priv[PERF_INTEL_PT_MTC_BIT] = 0x200;
	priv[PERF_INTEL_PT_MTC_FREQ_BITS] = 0x3c000;
	priv[PERF_INTEL_PT_TSC_CTC_N] = 100;
	priv[PERF_INTEL_PT_TSC_CTC_D] = 2;
	priv[PERF_INTEL_PT_CYC_BIT] = 0x2;
	priv[PERF_INTEL_PT_MAX_NONTURBO_RATIO] = 12;
	priv[PERF_INTEL_PT_FILTER_STR_LEN] = flen;
	if (flen)
		memcpy(priv + PERF_INTEL_PT_INFO_MAX, filter, flen);
	fx_ok(lpt_perf_write_auxtrace_info(x->w, PERF_AUXTRACE_INTEL_PT, priv, nw));
	free(priv);
}

/* AUXTRACE with its data (reference: TSC 0x1000). */
static inline void fx_auxtrace(struct fx *x, const void *data, uint64_t size, uint64_t offset,
			       uint32_t idx, uint32_t tid, uint32_t cpu)
{
	struct lpt_perf_aux a = { .offset = offset, .reference = 0x1000, .idx = idx,
				  .tid = tid, .cpu = cpu };

	fx_ok(lpt_perf_write_auxtrace(x->w, data, (size_t)size, &a));
}

static inline void fx_comm(struct fx *x, uint32_t pid, uint32_t tid, const char *comm,
			   bool exec, uint64_t time)
{
	struct lpt_perf_sid s = fx_sid(pid, tid, time, 0);

	fx_ok(lpt_perf_write_comm(x->w, pid, tid, comm, exec, &s));
}

static inline void fx_mmap2(struct fx *x, uint32_t pid, uint64_t start, uint64_t len,
			    uint64_t pgoff, const char *path, uint64_t time)
{
	struct lpt_perf_mmap m = { .pid = pid, .tid = pid, .start = start, .len = len,
				   .pgoff = pgoff, .prot = 5 /* PROT_READ | PROT_EXEC */,
				   .flags = 2 /* MAP_PRIVATE */, .filename = path };
	struct lpt_perf_sid s = fx_sid(pid, pid, time, 0);

	fx_ok(lpt_perf_write_mmap2(x->w, &m, &s));
}

/* PERF_RECORD_MMAP of the kernel (pid -1, cpumode kernel), as perf
 * synthesizes [kernel.kallsyms]_text (pgoff: the address of _text). */
static inline void fx_kernel_mmap(struct fx *x, uint64_t start, uint64_t len, const char *path)
{
	struct fx_mmap {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		char name[256];
	} r;
	struct lpt_perf_sid s = fx_sid((uint32_t)-1, 0, 0, 0);
	size_t n = strlen(path) + 1;

	memset(&r, 0, sizeof(r));
	r.pid = (uint32_t)-1;
	r.start = start;
	r.len = len;
	r.pgoff = start;
	if (n > sizeof(r.name))
		abort();
	memcpy(r.name, path, n);
	fx_ok(lpt_perf_write_record(x->w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, &r,
				    offsetof(struct fx_mmap, name) + ((n + 7) & ~(size_t)7), &s));
}

static inline void fx_fork(struct fx *x, uint32_t pid, uint32_t ppid, uint64_t time)
{
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } r = { pid, ppid, pid, ppid, time };
	struct lpt_perf_sid s = fx_sid(pid, pid, time, 0);

	fx_ok(lpt_perf_write_record(x->w, PERF_RECORD_FORK, 0, &r, sizeof(r), &s));
}

static inline void fx_itrace_start(struct fx *x, uint32_t pid, uint32_t tid, uint64_t time)
{
	uint32_t r[2] = { pid, tid };
	struct lpt_perf_sid s = fx_sid(pid, tid, time, 0);

	fx_ok(lpt_perf_write_record(x->w, PERF_RECORD_ITRACE_START, 0, r, sizeof(r), &s));
}

static inline void fx_aux(struct fx *x, uint64_t off, uint64_t size, uint64_t flags,
			  uint32_t tid, uint32_t cpu, uint64_t time)
{
	uint64_t r[3] = { off, size, flags };
	struct lpt_perf_sid s = fx_sid(tid, tid, time, cpu);

	fx_ok(lpt_perf_write_record(x->w, PERF_RECORD_AUX, 0, r, sizeof(r), &s));
}

static inline void fx_switch_cpu_wide(struct fx *x, bool out, uint32_t cpu, uint32_t pid,
				      uint32_t other, uint64_t time)
{
	struct lpt_perf_sid s = fx_sid(pid, pid, time, cpu);

	fx_ok(lpt_perf_write_switch(x->w, out, false, other, other, &s));
}

#endif
