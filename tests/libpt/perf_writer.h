/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal perf.data writer for tests and the bench (issue 24): builds
 * files in perf's file or pipe format in memory, by the layouts of
 * <lwpt/perf_file.h> (tools/perf/Documentation/perf.data-file-format.txt).
 * One intel_pt attr (id 1) with sample_id_all and TID|TIME|CPU|IDENTIFIER,
 * so every kernel record carries the trailer perf 6.1 needs.
 */
#ifndef LWPT_TESTS_PERF_WRITER_H
#define LWPT_TESTS_PERF_WRITER_H

#include <lwpt/perf_file.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PW_PMU_TYPE	8
#define PW_CONFIG	0x300e601ull	/* pt, branch, tsc, mtc, mtc_period 3 */

struct pw {
	uint8_t *b;
	size_t n, cap;
	bool pipe;
	size_t data_off;	/* file format: start of the data section */
};

static inline void pw_put(struct pw *w, const void *p, size_t n)
{
	if (w->n + n > w->cap) {
		w->cap = (w->n + n) * 2 + 4096;
		w->b = realloc(w->b, w->cap);
		if (!w->b)
			abort();
	}
	if (p)
		memcpy(w->b + w->n, p, n);
	else
		memset(w->b + w->n, 0, n);
	w->n += n;
}

static inline void pw_u64(struct pw *w, uint64_t v) { pw_put(w, &v, 8); }
static inline void pw_u32(struct pw *w, uint32_t v) { pw_put(w, &v, 4); }

static inline size_t pw_begin(struct pw *w, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, 0 };
	size_t at = w->n;

	pw_put(w, &h, sizeof(h));
	return at;
}

/* Pad to 8 and set the header's size. */
static inline void pw_end(struct pw *w, size_t at)
{
	uint16_t size;

	while ((w->n - at) % 8)
		pw_put(w, NULL, 1);
	size = (uint16_t)(w->n - at);
	memcpy(w->b + at + 6, &size, 2);
}

/* The sample id trailer: TID, TIME, CPU, IDENTIFIER (evsel.c order). */
static inline void pw_sid(struct pw *w, uint32_t pid, uint32_t tid, uint64_t time,
			  uint32_t cpu)
{
	pw_u32(w, pid);
	pw_u32(w, tid);
	pw_u64(w, time);
	pw_u32(w, cpu);
	pw_u32(w, 0);
	pw_u64(w, 1);
}

static inline void pw_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PW_PMU_TYPE;
	a->size = sizeof(*a);
	a->config = PW_CONFIG;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_IDENTIFIER;
	a->sample_id_all = 1;
}

/* Start a file: the header (file format: patched by pw_finish) and the
 * attr (pipe format: as a HEADER_ATTR record). */
static inline void pw_start(struct pw *w, bool pipe)
{
	struct perf_event_attr a;

	memset(w, 0, sizeof(*w));
	w->pipe = pipe;
	pw_attr(&a);
	if (pipe) {
		struct perf_pipe_file_header h = { PERF_FILE_MAGIC, sizeof(h) };
		size_t at;

		pw_put(w, &h, sizeof(h));
		at = pw_begin(w, PERF_RECORD_HEADER_ATTR, 0);
		pw_put(w, &a, sizeof(a));
		pw_u64(w, 1);
		pw_end(w, at);
		return;
	}
	pw_put(w, NULL, sizeof(struct perf_file_header));
	/* attrs: one entry, its ids right after */
	pw_put(w, &a, sizeof(a));
	pw_u64(w, sizeof(struct perf_file_header) + sizeof(a) + 16);
	pw_u64(w, 8);
	pw_u64(w, 1);
	w->data_off = w->n;
}

/* Features of a file-format finish: bit -> body. */
struct pw_feat {
	unsigned int bit;
	const void *body;
	size_t len;
};

/* File format: the header, then the feature table and bodies. */
static inline void pw_finish(struct pw *w, const struct pw_feat *f, size_t nf)
{
	struct perf_file_header h;
	size_t i, table, body;

	if (w->pipe)
		return;
	memset(&h, 0, sizeof(h));
	h.magic = PERF_FILE_MAGIC;
	h.size = sizeof(h);
	h.attr_size = sizeof(struct perf_event_attr) + 16;
	h.attrs.offset = sizeof(h);
	h.attrs.size = h.attr_size;
	h.data.offset = w->data_off;
	h.data.size = w->n - w->data_off;
	table = w->n;
	pw_put(w, NULL, 16 * nf);
	for (i = 0; i < nf; i++) {
		struct perf_file_section s;

		h.features[f[i].bit / 64] |= 1ull << (f[i].bit % 64);
		body = w->n;
		pw_put(w, f[i].body, f[i].len);
		s.offset = body;
		s.size = f[i].len;
		memcpy(w->b + table + 16 * i, &s, sizeof(s));
	}
	memcpy(w->b, &h, sizeof(h));
}

/* AUXTRACE_INFO for Intel PT, masks as perf_pmu__format_bits() gives. */
static inline void pw_auxtrace_info(struct pw *w, bool per_cpu, bool snapshot,
				    const char *filter)
{
	uint64_t priv[PERF_INTEL_PT_INFO_MAX] = { 0 };
	size_t at = pw_begin(w, PERF_RECORD_AUXTRACE_INFO, 0), flen = 0;

	priv[PERF_INTEL_PT_PMU_TYPE] = PW_PMU_TYPE;
	priv[PERF_INTEL_PT_TIME_SHIFT] = 31;
	priv[PERF_INTEL_PT_TIME_MULT] = 1789569706;	/* 1.2 GHz */
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
	if (filter)
		flen = strlen(filter);
	priv[PERF_INTEL_PT_FILTER_STR_LEN] = flen;
	pw_u32(w, PERF_AUXTRACE_INTEL_PT);
	pw_u32(w, 0);
	pw_put(w, priv, sizeof(priv));
	if (flen) {
		pw_put(w, filter, flen);
		pw_put(w, NULL, ((flen + 1 + 7) & ~7ul) - flen);
	}
	pw_end(w, at);
}

/* AUXTRACE with its data; returns the record's file offset. */
static inline size_t pw_auxtrace(struct pw *w, const void *data, uint64_t size,
				 uint64_t offset, uint32_t idx, uint32_t tid, uint32_t cpu)
{
	size_t at = pw_begin(w, PERF_RECORD_AUXTRACE, 0);
	uint16_t hs = sizeof(struct perf_rec_auxtrace);

	pw_u64(w, size);
	pw_u64(w, offset);
	pw_u64(w, 0x1000);
	pw_u32(w, idx);
	pw_u32(w, tid);
	pw_u32(w, cpu);
	pw_u32(w, 0);
	memcpy(w->b + at + 6, &hs, 2);
	pw_put(w, data, (size_t)size);
	return at;
}

static inline void pw_comm(struct pw *w, uint32_t pid, uint32_t tid, const char *comm,
			   bool exec, uint64_t time)
{
	size_t at = pw_begin(w, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	size_t n = strlen(comm) + 1;

	pw_u32(w, pid);
	pw_u32(w, tid);
	pw_put(w, comm, n);
	pw_put(w, NULL, ((n + 7) & ~7ul) - n);
	pw_sid(w, pid, tid, time, 0);
	pw_end(w, at);
}

static inline void pw_mmap2(struct pw *w, uint32_t pid, uint64_t start, uint64_t len,
			    uint64_t pgoff, const char *path, uint64_t time)
{
	size_t at = pw_begin(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	size_t n = strlen(path) + 1;

	pw_u32(w, pid);
	pw_u32(w, pid);
	pw_u64(w, start);
	pw_u64(w, len);
	pw_u64(w, pgoff);
	pw_put(w, NULL, 24);	/* maj, min, ino, ino_generation */
	pw_u32(w, 5);		/* PROT_READ | PROT_EXEC */
	pw_u32(w, 2);		/* MAP_PRIVATE */
	pw_put(w, path, n);
	pw_put(w, NULL, ((n + 7) & ~7ul) - n);
	pw_sid(w, pid, pid, time, 0);
	pw_end(w, at);
}

static inline void pw_aux(struct pw *w, uint64_t off, uint64_t size, uint64_t flags,
			  uint32_t tid, uint32_t cpu, uint64_t time)
{
	size_t at = pw_begin(w, PERF_RECORD_AUX, 0);

	pw_u64(w, off);
	pw_u64(w, size);
	pw_u64(w, flags);
	pw_sid(w, tid, tid, time, cpu);
	pw_end(w, at);
}

static inline void pw_switch_cpu_wide(struct pw *w, bool out, uint32_t cpu, uint32_t pid,
				      uint32_t other, uint64_t time)
{
	size_t at = pw_begin(w, PERF_RECORD_SWITCH_CPU_WIDE,
			     out ? PERF_RECORD_MISC_SWITCH_OUT : 0);

	pw_u32(w, other);
	pw_u32(w, other);
	pw_sid(w, pid, pid, time, cpu);
	pw_end(w, at);
}

static inline void pw_time_conv(struct pw *w)
{
	size_t at = pw_begin(w, PERF_RECORD_TIME_CONV, 0);

	pw_u64(w, 31);
	pw_u64(w, 1789569706);
	pw_u64(w, 1000);
	pw_end(w, at);
}

#endif
