/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libpt's perf.data reader, internals shared by its files: perf_read.c
 * (records to model), perf_code.c (where the code is), perf_model.c (the
 * capture in ptcap's terms), perf_ptcap.c (that model as a ptcap
 * directory), capsrc_perf.c (that model as a capture source).
 */
#ifndef LWPT_LIBPT_PERF_INTERNAL_H
#define LWPT_LIBPT_PERF_INTERNAL_H

#include <lwpt/perf_data.h>
#include <lwpt/perf_file.h>

/* One AUXTRACE record's data: @size bytes of trace at file offset @foff,
 * at position @aux_off of its AUX buffer's stream, which the record covers
 * for @span bytes (@size, but for a BTS buffer's trailing zero record,
 * which is not part of the trace: Documentation/perf-data.rst "Intel
 * BTS"). */
struct lpt_perf_buf {
	uint64_t foff, size, aux_off, span;
	bool joined;		/* BTS snapshot: its overlap with the buffer
				 * before removed, it continues that one */
};

struct lpt_perf_trace_int {
	struct lpt_perf_trace pub;
	struct lpt_perf_buf *bufs;
	size_t nbufs, cap_bufs;
	uint64_t *gaps;
	size_t ngaps, cap_gaps;
};

/*
 * An index of 64-bit keys to positions (libpt/perf_hash.c): zeroed is
 * empty. lpt_perf_hash_put() adds @key -> @val unless @key is there
 * (returns 1, the first value kept), 0 when added, -LPT_PERF_E_NOMEM;
 * lpt_perf_hash_get() gives the value or SIZE_MAX. Memory: 2 x 16 bytes
 * per entry at most.
 */
struct lpt_perf_hash {
	uint64_t *keys;
	size_t *vals;		/* SIZE_MAX: free slot */
	size_t n;
	unsigned int bits;	/* 1 << bits slots */
};

int lpt_perf_hash_put(struct lpt_perf_hash *h, uint64_t key, size_t val);
size_t lpt_perf_hash_get(const struct lpt_perf_hash *h, uint64_t key);
void lpt_perf_hash_free(struct lpt_perf_hash *h);

/*
 * Limits of the reader (Documentation/perf-data.rst "Limits"): CPU
 * numbers (perf's MAX_NR_CPUS is 4096 in 6.1); a COMPRESSED stream's
 * output, at most LPT_PERF_ZSTD_RATIO times the compressed bytes read so
 * far plus LPT_PERF_ZSTD_SLACK, and at most LPT_PERF_ZSTD_MAX in all
 * unless struct lpt_perf_opts max_decompressed sets another cap (which
 * then replaces both).
 */
#define LPT_PERF_MAX_CPUS	8192
#define LPT_PERF_ZSTD_RATIO	64
#define LPT_PERF_ZSTD_SLACK	(1ull << 20)
#define LPT_PERF_ZSTD_MAX	(1ull << 30)

struct lpt_perf_attr {
	struct perf_event_attr attr;
};

struct lpt_perf_id {
	uint64_t id;
	size_t attr;
};

/* A PERF_RECORD_AUX: where in which AUX stream, with which flags. */
struct lpt_perf_aux {
	uint64_t off, size, flags;
	int32_t cpu, tid;
};

struct lpt_perf_evname {
	uint32_t type;
	uint64_t config;
	char name[64];
};

/* Directory format: one data.N file at @off of the mapping. */
struct lpt_perf_part {
	uint64_t off, size;
	const char *path;
};

struct lpt_perf {
	struct lpt_perf_opts opts;
	const uint8_t *map;
	uint64_t len;
	uint64_t data_off, data_end;
	char *kcore;
	const char *dir;		/* the directory given to lpt_perf_open() */
	uint64_t dir_version;		/* HEADER_DIR_FORMAT, 0 none */
	struct lpt_perf_part *parts;	/* directory format: data.N, by N */
	size_t nparts, cap_parts;
	struct lpt_perf_info info;
	struct ptcap_config cfg;
	struct perf_rec_time_conv tc;
	bool have_tc, have_info;
	uint64_t priv[PERF_INTEL_PT_INFO_MAX];
	size_t npriv;
	uint64_t naux, index_entries;
	uint64_t naux_cpu;		/* AUXTRACE records naming a CPU */
	char *filter, *cpuid;
	const char *event_name;

	struct lpt_perf_attr *attrs;
	size_t nattrs, cap_attrs;
	struct lpt_perf_id *ids;
	size_t nids, cap_ids;
	struct lpt_perf_trace_int *tr;
	size_t ntr, cap_tr;
	struct lpt_perf_map *maps;
	size_t nmaps, cap_maps;
	struct lpt_perf_task *tasks;
	size_t ntasks, cap_tasks;
	struct lpt_perf_switch *sws;
	size_t nsws, cap_sws;
	struct lpt_perf_build_id *bids;
	size_t nbids, cap_bids;
	struct lpt_perf_aux *auxs;
	size_t nauxs, cap_auxs;
	struct lpt_perf_evname *evnames;
	size_t nevnames, cap_evnames;
	char **strs;
	size_t nstrs, cap_strs;

	/* PERF_RECORD_COMPRESSED: the stream and its undigested output;
	 * bytes in and out so far. */
	void *zds;
	uint8_t *pend;
	size_t npend, cap_pend;
	uint64_t zin, zout;

	uint32_t nrcpus;		/* HEADER_NRCPUS nr_cpus_avail, 0 none */
	uint32_t cpus_seen;		/* largest CPU of a record + 1 */
	uint64_t cpu_seen_at;		/* ... that record's offset */
	const char *cpu_seen_what;	/* ... and its type */

	struct lpt_perf_hash id_index;	/* sample ID -> ids[] */
	struct lpt_perf_hash tr_index;	/* AUXTRACE idx -> tr[] */
};

/* The size of the per-CPU arrays of a capture: HEADER_NRCPUS's
 * nr_cpus_avail where present (lpt_perf_open() refused a record naming a
 * CPU at or above it), else the largest CPU a record names + 1; at most
 * LPT_PERF_MAX_CPUS either way. */
size_t lpt_perf_ncpus(const struct lpt_perf *p);

/* Grow array *@v (entries of @elem bytes, capacity *@cap) to hold @n
 * entries. Returns 0 or -LPT_PERF_E_NOMEM. */
int lpt_perf_grow(void *v, size_t *cap, size_t n, size_t elem);

/* A copy of @s[0..@n) owned by @p (freed by lpt_perf_close()). */
char *lpt_perf_strndup(struct lpt_perf *p, const char *s, size_t n);

/* Keep the detail of an error for lpt_perf_last_error(); returns -@code. */
int lpt_perf_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* libpt/perf_dir.c: HEADER_DIR_FORMAT's body (@len bytes at @b); map the
 * data.N files of @dir after `data` (p->map, p->len, p->parts); sort the
 * sideband by time. Each returns 0 or a negative LPT_PERF_E_* code. */
int lpt_perf_dir_format(struct lpt_perf *p, const uint8_t *b, uint64_t len);
int lpt_perf_dir_map(struct lpt_perf *p, const char *dir);
int lpt_perf_dir_sort(struct lpt_perf *p);

#endif
