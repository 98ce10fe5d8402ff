// SPDX-License-Identifier: GPL-2.0
/*
 * Reader for perf.data with Intel PT data (include/lwpt/perf_data.h).
 *
 * The rules, and the perf 6.1 source each comes from, are in
 * Documentation/perf-data.rst. In short: the file header and feature
 * sections as tools/perf/util/header.c reads them; the records of the data
 * section (or of the whole pipe stream) one by one, each checked against
 * what remains before its body is read, stepped over by its own size
 * (session.c perf_session__process_events, STYLE.md 17), unknown types
 * skipped; AUXTRACE data left in the mapping (auxtrace.c); Intel PT's
 * AUXTRACE_INFO as util/intel-pt.c intel_pt_process_auxtrace_info() reads
 * it; the time conversion of util/tsc.c.
 */

#include <lwpt/perf_data.h>
#include <lwpt/perf_file.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "libpt/perf_internal.h"

const char *lpt_perf_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case LPT_PERF_OK:		return "success";
	case LPT_PERF_E_MAGIC:		return "not a perf.data file (no PERFILE2 magic)";
	case LPT_PERF_E_VERSION:	return "unsupported perf.data version (PERFFILE, or a newer directory format)";
	case LPT_PERF_E_SWAPPED:	return "perf.data of the other byte order is not supported";
	case LPT_PERF_E_TRUNCATED:	return "perf.data is truncated";
	case LPT_PERF_E_CORRUPT:	return "perf.data is corrupt";
	case LPT_PERF_E_NO_AUX:		return "perf.data holds no Intel PT data";
	case LPT_PERF_E_NOT_PT:		return "perf.data holds AUX data that is not Intel PT";
	case LPT_PERF_E_COMPRESS:	return "a compressed record does not decompress";
	case LPT_PERF_E_IO:		return "cannot read the file";
	case LPT_PERF_E_NOMEM:		return "out of memory";
	case LPT_PERF_E_INVAL:		return "invalid argument";
	case LPT_PERF_E_NO_CODE:	return "code unavailable: file not found";
	case LPT_PERF_E_BUILD_ID:	return "code unavailable: file has another build-id";
	case LPT_PERF_E_OUTSIDE:	return "code refused: the recorded path leads outside --symfs";
	case LPT_PERF_E_LIMIT:		return "past a limit of the reader";
	}
	return "unknown error";
}

static _Thread_local char last_error[256];

const char *lpt_perf_last_error(void)
{
	return last_error;
}

/* Record the detail of an error; returns -@code. */
int lpt_perf_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return -code;
}

#define fail lpt_perf_fail

int lpt_perf_parse_size(const char *s, uint64_t *v)
{
	unsigned int shift = 0;
	unsigned long long n;
	char *end;

	if (!s || !v || *s < '0' || *s > '9')
		return -LPT_PERF_E_INVAL;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || !n)
		return -LPT_PERF_E_INVAL;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	}
	if (*end || n > (UINT64_MAX >> shift))
		return -LPT_PERF_E_INVAL;
	*v = (uint64_t)n << shift;
	return 0;
}

void lpt_perf_opts_init(struct lpt_perf_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
}

/* Grow array *@v (of @elem-byte entries, capacity *@cap) to hold @n. */
int lpt_perf_grow(void *v, size_t *cap, size_t n, size_t elem)
{
	void **pv = v, *nv;
	size_t c = *cap ? *cap : 16;

	if (n <= *cap)
		return 0;
	while (c < n) {
		if (c > SIZE_MAX / 2 / elem)
			return -LPT_PERF_E_NOMEM;
		c *= 2;
	}
	nv = realloc(*pv, c * elem);
	if (!nv)
		return -LPT_PERF_E_NOMEM;
	*pv = nv;
	*cap = c;
	return 0;
}

#define PUSH(arr, n, cap) \
	(lpt_perf_grow(&(arr), &(cap), (n) + 1, sizeof(*(arr))) ? NULL : \
	 memset(&(arr)[(n)++], 0, sizeof(*(arr))))

static uint64_t rd64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

static uint32_t rd32(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, sizeof(v));
	return v;
}

/* ---- Input: map the file, or copy a pipe to an unlinked temporary ---- */

static int spool(int in, struct lpt_perf *p, int *outfd)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	uint8_t buf[1 << 16];
	uint64_t done = 0;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(tmpl, sizeof(tmpl), "%s/lwpt-perf-XXXXXX", dir);
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd < 0)
			return fail(LPT_PERF_E_IO, "cannot create a temporary file in %s: %s",
				    dir, strerror(errno));
		unlink(tmpl);
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			errno = e;
			return fail(LPT_PERF_E_IO, "reading the input: %s", strerror(e));
		}
		if (!n)
			break;
		while (w < n) {
			ssize_t k = write(fd, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				int e = errno;

				close(fd);
				errno = e;
				return fail(LPT_PERF_E_IO, "writing the temporary copy in %s: %s",
					    dir, strerror(e));
			}
			w += k;
		}
		done += (uint64_t)n;
		if (p->opts.progress && !(done & ((1u << 24) - 1)))
			p->opts.progress(p->opts.progress_arg, done, 0);
	}
	*outfd = fd;
	return 0;
}

static int map_input(struct lpt_perf *p, const char *path)
{
	struct stat st;
	char *alt = NULL;
	int fd, err;

	if (!strcmp(path, "-")) {
		err = spool(STDIN_FILENO, p, &fd);
		if (err)
			return err;
	} else {
		if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
			/* perf record --kcore: DIR/data, DIR/kcore_dir/kcore
			 * (builtin-record.c record__kcore_copy). */
			if (asprintf(&alt, "%s/data", path) < 0)
				return fail(LPT_PERF_E_NOMEM, "out of memory");
			if (asprintf(&p->kcore, "%s/kcore_dir/kcore", path) < 0) {
				free(alt);
				return fail(LPT_PERF_E_NOMEM, "out of memory");
			}
			if (access(p->kcore, R_OK)) {
				free(p->kcore);
				p->kcore = NULL;
			}
			p->dir = lpt_perf_strndup(p, path, strlen(path));
			if (!p->dir) {
				free(alt);
				return fail(LPT_PERF_E_NOMEM, "out of memory");
			}
			path = alt;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			err = fail(LPT_PERF_E_IO, "%s: %s", path, strerror(e));
			free(alt);
			errno = e;
			return err;
		}
		free(alt);
		if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
			int in = fd;

			err = spool(in, p, &fd);
			close(in);
			if (err)
				return err;
		}
	}
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		errno = e;
		return fail(LPT_PERF_E_IO, "%s", strerror(e));
	}
	p->len = (uint64_t)st.st_size;
	if (p->len < 8) {
		close(fd);
		return fail(LPT_PERF_E_MAGIC, "%" PRIu64 " bytes: too short for a perf.data",
			    p->len);
	}
	if (p->len > SIZE_MAX) {
		close(fd);
		return fail(LPT_PERF_E_NOMEM, "file too large to map");
	}
	p->map = mmap(NULL, (size_t)p->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		return fail(LPT_PERF_E_IO, "cannot map the file: %s", strerror(errno));
	}
	(void)madvise((void *)p->map, (size_t)p->len, MADV_SEQUENTIAL);
	return 0;
}

int lpt_perf_probe(const char *path)
{
	uint64_t magic = 0;
	struct stat st;
	char *alt = NULL;
	int fd, ok;

	if (!path)
		return 0;
	if (!strcmp(path, "-"))
		return 1;
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		if (asprintf(&alt, "%s/data", path) < 0)
			return 0;
		path = alt;
	}
	/* A pipe (a FIFO, <(perf record -o - ...)) cannot be peeked at
	 * without taking its bytes: ptcap directories and raw traces are
	 * never pipes, so lpt_perf_open() decides. */
	if (!alt && !stat(path, &st) && S_ISFIFO(st.st_mode))
		return 1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	free(alt);
	if (fd < 0)
		return 0;
	ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	     pread(fd, &magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	     (magic == PERF_FILE_MAGIC || magic == PERF_FILE_MAGIC_SWAPPED ||
	      !memcmp(&magic, "PERFFILE", 8));
	close(fd);
	return ok;
}

/* ---- Attributes and the sample id trailer ---- */

static int add_attr(struct lpt_perf *p, const uint8_t *a, uint64_t asize,
		    const uint8_t *ids, uint64_t nids)
{
	struct lpt_perf_attr *e = PUSH(p->attrs, p->nattrs, p->cap_attrs);
	uint64_t i;

	if (!e)
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	memcpy(&e->attr, a, asize < sizeof(e->attr) ? (size_t)asize : sizeof(e->attr));
	for (i = 0; i < nids; i++) {
		struct lpt_perf_id *id = PUSH(p->ids, p->nids, p->cap_ids);

		if (!id)
			return fail(LPT_PERF_E_NOMEM, "out of memory");
		id->id = rd64(ids + 8 * i);
		id->attr = p->nattrs - 1;
		/* the first attr of an ID wins, as the linear search did */
		if (lpt_perf_hash_put(&p->id_index, id->id, p->nids - 1) < 0)
			return fail(LPT_PERF_E_NOMEM, "out of memory");
	}
	return 0;
}

static const struct lpt_perf_attr *attr_of_id(const struct lpt_perf *p, uint64_t id)
{
	size_t i = lpt_perf_hash_get(&p->id_index, id);

	return i == SIZE_MAX ? NULL : &p->attrs[p->ids[i].attr];
}

/* A sample's CPU: -1 (none) or below LPT_PERF_MAX_CPUS; else the record
 * (of @what, at @pos) is refused: per-CPU arrays are sized by it. */
static int check_cpu(struct lpt_perf *p, int64_t cpu, const char *what, uint64_t pos)
{
	if (cpu >= -1 && cpu < LPT_PERF_MAX_CPUS) {
		if (cpu >= 0 && (uint32_t)cpu + 1 > p->cpus_seen) {
			p->cpus_seen = (uint32_t)cpu + 1;
			p->cpu_seen_at = pos;
			p->cpu_seen_what = what;
		}
		return 0;
	}
	return fail(LPT_PERF_E_CORRUPT, "%s record at 0x%" PRIx64 ": cpu %" PRId64
		    " (this reader takes CPUs 0 to %d): corrupt", what, pos, cpu,
		    LPT_PERF_MAX_CPUS - 1);
}

/* The sample id trailer of a non-sample kernel record (perf_event.h
 * "struct sample_id", evsel.c perf_evsel__parse_id_sample): read backwards
 * from the record's end. @fixed is the size of the body before it. */
struct sid {
	int32_t pid, tid, cpu;
	uint64_t time;
};

static void read_sid(const struct lpt_perf *p, const uint8_t *rec, uint64_t size,
		     uint64_t fixed, struct sid *s)
{
	const struct lpt_perf_attr *a = p->nattrs ? &p->attrs[0] : NULL;
	uint64_t st, end = size;

	s->pid = s->tid = s->cpu = -1;
	s->time = 0;
	if (!a || !a->attr.sample_id_all)
		return;
	st = a->attr.sample_type;
	if ((st & PERF_SAMPLE_IDENTIFIER) && size >= fixed + 8) {
		const struct lpt_perf_attr *b = attr_of_id(p, rd64(rec + size - 8));

		if (b)
			st = b->attr.sample_type;
	}
#define TAKE(n) (end >= fixed + (n) ? (end -= (n), true) : false)
	if ((st & PERF_SAMPLE_IDENTIFIER) && !TAKE(8))
		return;
	if ((st & PERF_SAMPLE_CPU)) {
		if (!TAKE(8))
			return;
		s->cpu = (int32_t)rd32(rec + end);
	}
	if ((st & PERF_SAMPLE_STREAM_ID) && !TAKE(8))
		return;
	if ((st & PERF_SAMPLE_ID) && !TAKE(8))
		return;
	if ((st & PERF_SAMPLE_TIME)) {
		if (!TAKE(8))
			return;
		s->time = rd64(rec + end);
	}
	if ((st & PERF_SAMPLE_TID)) {
		if (!TAKE(8))
			return;
		s->pid = (int32_t)rd32(rec + end);
		s->tid = (int32_t)rd32(rec + end + 4);
	}
#undef TAKE
}

/* ---- Feature sections (header.c process_*) ---- */

/* A perf_header_string at @b (@len bytes available): its text, or NULL. */
static char *header_string(const uint8_t *b, uint64_t len)
{
	uint32_t n;

	if (len < 4)
		return NULL;
	n = rd32(b);
	if (n > len - 4)
		return NULL;
	return strndup((const char *)b + 4, n);
}

static int add_build_ids(struct lpt_perf *p, const uint8_t *b, uint64_t len)
{
	uint64_t pos = 0;

	while (pos + sizeof(struct perf_rec_build_id) <= len) {
		struct perf_rec_build_id r;
		struct lpt_perf_build_id *e;
		const char *name;
		size_t nlen;

		memcpy(&r, b + pos, sizeof(r));
		if (r.header.size < sizeof(r) || r.header.size > len - pos)
			return fail(LPT_PERF_E_CORRUPT, "build-id entry at +0x%" PRIx64
				    " has size %u", pos, r.header.size);
		name = (const char *)b + pos + sizeof(r);
		nlen = strnlen(name, r.header.size - sizeof(r));
		e = PUSH(p->bids, p->nbids, p->cap_bids);
		if (!e || !(e->path = lpt_perf_strndup(p, name, nlen)))
			return fail(LPT_PERF_E_NOMEM, "out of memory");
		e->pid = r.pid;
		e->kernel = (r.header.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
			    PERF_RECORD_MISC_KERNEL;
		e->size = PERF_BUILD_ID_MAX;
		if ((r.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) &&
		    r.build_id[PERF_BUILD_ID_MAX] <= PERF_BUILD_ID_MAX)
			e->size = r.build_id[PERF_BUILD_ID_MAX];
		memcpy(e->id, r.build_id, PERF_BUILD_ID_MAX);
		pos += r.header.size;
	}
	return 0;
}

/* HEADER_EVENT_DESC: remember each event's (type, config, name). */
static int event_desc(struct lpt_perf *p, const uint8_t *b, uint64_t len)
{
	struct perf_event_desc_head h;
	uint64_t pos = sizeof(h);
	uint32_t i;

	if (len < sizeof(h))
		return 0;
	memcpy(&h, b, sizeof(h));
	if (h.attr_size < 16)
		return 0;
	for (i = 0; i < h.nr; i++) {
		struct lpt_perf_evname *e;
		uint32_t nids, slen;

		if (len - pos < (uint64_t)h.attr_size + 8)
			return 0;
		e = PUSH(p->evnames, p->nevnames, p->cap_evnames);
		if (!e)
			return fail(LPT_PERF_E_NOMEM, "out of memory");
		e->type = rd32(b + pos);
		e->config = rd64(b + pos + 8);
		pos += h.attr_size;
		nids = rd32(b + pos);
		pos += 4;
		slen = rd32(b + pos);
		if (slen > len - pos - 4)
			return 0;
		snprintf(e->name, sizeof(e->name), "%.*s", (int)strnlen((const char *)b + pos + 4, slen),
			 (const char *)b + pos + 4);
		pos += 4 + (uint64_t)slen;
		if ((len - pos) / 8 < nids)
			return 0;
		pos += 8 * (uint64_t)nids;
	}
	return 0;
}

/* HEADER_AUXTRACE (auxtrace.c auxtrace_index__process): check that every
 * entry names an AUXTRACE record inside the data. */
static int aux_index(struct lpt_perf *p, const uint8_t *b, uint64_t len)
{
	uint64_t nr, i;

	if (len < 8)
		return fail(LPT_PERF_E_CORRUPT, "HEADER_AUXTRACE section too short");
	nr = rd64(b);
	if (nr > (len - 8) / sizeof(struct perf_auxtrace_index_entry))
		return fail(LPT_PERF_E_CORRUPT, "HEADER_AUXTRACE: %" PRIu64
			    " entries do not fit its %" PRIu64 " bytes", nr, len);
	for (i = 0; i < nr; i++) {
		uint64_t off = rd64(b + 8 + 16 * i);
		struct perf_event_header h;

		if (off < p->data_off || off > p->data_end ||
		    p->data_end - off < sizeof(struct perf_rec_auxtrace))
			return fail(LPT_PERF_E_CORRUPT, "HEADER_AUXTRACE entry %" PRIu64
				    " points outside the data (0x%" PRIx64 ")", i, off);
		memcpy(&h, p->map + off, sizeof(h));
		if (h.type != PERF_RECORD_AUXTRACE)
			return fail(LPT_PERF_E_CORRUPT, "HEADER_AUXTRACE entry %" PRIu64
				    " at 0x%" PRIx64 " is a record of type %u, not AUXTRACE",
				    i, off, h.type);
	}
	p->info.has_index = true;
	p->index_entries = nr;
	return 0;
}

/*
 * HEADER_NRCPUS (header.c write_nrcpus(): u32 nr_cpus_avail, u32
 * nr_cpus_online): the CPUs a record may name, what the per-CPU arrays
 * are sized by (lpt_perf_ncpus()). More than LPT_PERF_MAX_CPUS, or none,
 * is corrupt; a record naming a CPU at or above it is refused by finish().
 */
static int nr_cpus(struct lpt_perf *p, const uint8_t *b, uint64_t len)
{
	uint32_t avail;

	if (len < 8)
		return fail(LPT_PERF_E_CORRUPT, "HEADER_NRCPUS of %" PRIu64 " bytes (8 "
			    "expected): corrupt", len);
	memcpy(&avail, b, sizeof(avail));
	if (!avail || avail > LPT_PERF_MAX_CPUS)
		return fail(LPT_PERF_E_CORRUPT, "HEADER_NRCPUS: %" PRIu32 " CPUs (this "
			    "reader takes 1 to %d): corrupt", avail, LPT_PERF_MAX_CPUS);
	p->nrcpus = avail;
	return 0;
}

static int feature(struct lpt_perf *p, unsigned int feat, const uint8_t *b, uint64_t len)
{
	switch (feat) {
	case PERF_HEADER_CPUID:
		free(p->cpuid);
		p->cpuid = header_string(b, len);
		return 0;
	case PERF_HEADER_BUILD_ID:
		return add_build_ids(p, b, len);
	case PERF_HEADER_EVENT_DESC:
		return event_desc(p, b, len);
	case PERF_HEADER_AUXTRACE:
		return p->info.pipe ? 0 : aux_index(p, b, len);
	case PERF_HEADER_DIR_FORMAT:
		return lpt_perf_dir_format(p, b, len);
	case PERF_HEADER_NRCPUS:
		return nr_cpus(p, b, len);
	default:
		return 0;
	}
}

/* ---- Records ---- */

static struct lpt_perf_trace_int *trace_of(struct lpt_perf *p, uint32_t idx,
					   int32_t cpu, int32_t tid)
{
	struct lpt_perf_trace_int *t;
	size_t i = lpt_perf_hash_get(&p->tr_index, idx);

	if (i != SIZE_MAX)
		return &p->tr[i];
	if (lpt_perf_hash_put(&p->tr_index, idx, p->ntr) < 0)
		return NULL;
	t = PUSH(p->tr, p->ntr, p->cap_tr);
	if (!t)
		return NULL;
	t->pub.idx = idx;
	t->pub.cpu = cpu;
	t->pub.tid = tid;
	t->pub.pid = -1;
	return t;
}

static int rec_auxtrace(struct lpt_perf *p, const uint8_t *r, uint64_t pos,
			uint64_t hsize, uint64_t end)
{
	struct perf_rec_auxtrace a;
	struct lpt_perf_trace_int *t;
	struct lpt_perf_buf *b;

	memcpy(&a, r, sizeof(a));
	if (a.cpu != UINT32_MAX && check_cpu(p, a.cpu, "AUXTRACE", pos))
		return -LPT_PERF_E_CORRUPT;
	if (a.size > end - pos - hsize)
		return fail(LPT_PERF_E_TRUNCATED, "AUXTRACE record at 0x%" PRIx64
			    ": its %" PRIu64 " bytes of trace go past the end (0x%"
			    PRIx64 ")", pos, a.size, end);
	t = trace_of(p, a.idx, (int32_t)a.cpu, (int32_t)a.tid);
	if (!t || !(b = PUSH(t->bufs, t->nbufs, t->cap_bufs)))
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	b->foff = pos + hsize;
	b->size = a.size;
	b->span = a.size;
	b->aux_off = a.offset;
	if (p->info.bts && a.size >= 24 && a.size % 24 == 0) {
		/* A last record whose from and to are 0 is no branch (perf's
		 * intel_bts_process_buffer() skips such records, and never
		 * shows a buffer's last one): pt2perf's end of buffer. */
		const uint8_t *z = r + hsize + a.size - 24;

		if (!rd64(z) && !rd64(z + 8))
			b->size -= 24;
	}
	t->pub.size += b->size;
	p->naux++;
	if (a.cpu != UINT32_MAX)
		p->naux_cpu++;
	return 0;
}

static int rec_auxtrace_info(struct lpt_perf *p, const uint8_t *r, uint64_t size,
			     uint64_t pos)
{
	uint64_t n = (size - sizeof(struct perf_rec_auxtrace_info)) / 8, i;
	const uint8_t *pv = r + sizeof(struct perf_rec_auxtrace_info);
	uint32_t type = rd32(r + 8);

	if (type == PERF_AUXTRACE_INTEL_BTS) {
		/* intel-bts.c intel_bts_process_auxtrace_info(): min_sz
		 * covers priv[0..SNAPSHOT_MODE]; no string follows. */
		if (n < PERF_INTEL_BTS_INFO_MAX)
			return fail(LPT_PERF_E_CORRUPT, "AUXTRACE_INFO at 0x%" PRIx64
				    " (Intel BTS) too short (%" PRIu64 " bytes, %u needed)",
				    pos, size, (unsigned int)(sizeof(struct perf_rec_auxtrace_info) +
							      8 * PERF_INTEL_BTS_INFO_MAX));
		memset(p->priv, 0, sizeof(p->priv));
		for (i = 0; i < PERF_INTEL_BTS_INFO_MAX; i++)
			p->priv[i] = rd64(pv + 8 * i);
		p->npriv = PERF_INTEL_BTS_INFO_MAX;
		p->have_info = true;
		p->info.bts = true;
		free(p->filter);
		p->filter = NULL;
		return 0;
	}
	if (type != PERF_AUXTRACE_INTEL_PT)
		return fail(LPT_PERF_E_NOT_PT, "AUXTRACE_INFO at 0x%" PRIx64
			    " is of type %u (Intel PT is %u, Intel BTS %u)", pos, type,
			    PERF_AUXTRACE_INTEL_PT, PERF_AUXTRACE_INTEL_BTS);
	/* intel-pt.c: min_sz covers priv[0..PER_CPU_MMAPS]. */
	if (n < PERF_INTEL_PT_PER_CPU_MMAPS + 1)
		return fail(LPT_PERF_E_CORRUPT, "AUXTRACE_INFO at 0x%" PRIx64
			    " too short (%" PRIu64 " bytes)", pos, size);
	p->info.bts = false;
	memset(p->priv, 0, sizeof(p->priv));
	for (i = 0; i < n && i < PERF_INTEL_PT_INFO_MAX; i++)
		p->priv[i] = rd64(pv + 8 * i);
	p->npriv = (size_t)(n < PERF_INTEL_PT_INFO_MAX ? n : PERF_INTEL_PT_INFO_MAX);
	p->have_info = true;
	free(p->filter);
	p->filter = NULL;
	if (p->npriv > PERF_INTEL_PT_FILTER_STR_LEN && p->priv[PERF_INTEL_PT_FILTER_STR_LEN]) {
		uint64_t len = p->priv[PERF_INTEL_PT_FILTER_STR_LEN];
		uint64_t have = (n - PERF_INTEL_PT_INFO_MAX) * 8, padded;

		if (n < PERF_INTEL_PT_INFO_MAX || len > have)
			return fail(LPT_PERF_E_CORRUPT, "AUXTRACE_INFO at 0x%" PRIx64
				    ": bad filter string length %" PRIu64, pos, len);
		padded = (len + 1 + 7) & ~7ull;	/* intel-pt.c roundup(len + 1, 8) */
		if (padded > have || pv[8 * PERF_INTEL_PT_INFO_MAX + padded - 1])
			return fail(LPT_PERF_E_CORRUPT, "AUXTRACE_INFO at 0x%" PRIx64
				    ": filter string not NUL-terminated", pos);
		p->filter = strndup((const char *)pv + 8 * PERF_INTEL_PT_INFO_MAX, len);
		if (!p->filter)
			return fail(LPT_PERF_E_NOMEM, "out of memory");
	}
	return 0;
}

static int add_map(struct lpt_perf *p, const uint8_t *r, uint64_t size, bool mmap2,
		   uint16_t misc, uint64_t pos)
{
	uint64_t fixed = mmap2 ? 8 + 64 : 8 + 32;
	struct lpt_perf_map *m;
	const char *name;
	struct sid s;
	size_t nlen;

	if (size <= fixed)
		return fail(LPT_PERF_E_CORRUPT, "MMAP record at 0x%" PRIx64
			    " too short (%" PRIu64 " bytes)", pos, size);
	name = (const char *)r + fixed;
	nlen = strnlen(name, (size_t)(size - fixed));
	if (nlen == size - fixed)
		return fail(LPT_PERF_E_CORRUPT, "MMAP record at 0x%" PRIx64
			    ": file name not NUL-terminated", pos);
	read_sid(p, r, size, fixed + ((nlen + 8) & ~7ull), &s);
	m = PUSH(p->maps, p->nmaps, p->cap_maps);
	if (!m || !(m->path = lpt_perf_strndup(p, name, nlen)))
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	m->pid = (int32_t)rd32(r + 8);
	m->tid = (int32_t)rd32(r + 12);
	m->start = rd64(r + 16);
	m->size = rd64(r + 24);
	m->pgoff = rd64(r + 32);
	m->time = s.time;
	m->kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		    (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
	m->exec = true;
	m->prot = 4;	/* PROT_EXEC */
	if (mmap2) {
		m->prot = rd32(r + 8 + 56);
		/* perf synthesizes the kernel's MMAP2 with prot 0 ("---p") */
		m->exec = (m->prot & 4) || m->kernel;
		if ((misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && r[40] <= 20) {
			m->build_id_size = r[40];
			memcpy(m->build_id, r + 44, m->build_id_size);
		}
	} else {
		/* MMAP records are executable maps unless MISC_MMAP_DATA. */
		m->exec = !(misc & PERF_RECORD_MISC_MMAP_DATA);
	}
	return 0;
}

static int add_task(struct lpt_perf *p, const uint8_t *r, uint64_t size,
		    uint32_t type, uint16_t misc, uint64_t pos)
{
	struct lpt_perf_task *t;
	uint64_t fixed;
	struct sid s;

	if (type == PERF_RECORD_COMM) {
		const char *name = (const char *)r + 16;
		size_t nlen;

		if (size <= 16)
			return fail(LPT_PERF_E_CORRUPT, "COMM record at 0x%" PRIx64
				    " too short", pos);
		nlen = strnlen(name, (size_t)(size - 16));
		fixed = 16 + ((nlen + 8) & ~7ull);
		read_sid(p, r, size, fixed > size ? size : fixed, &s);
		t = PUSH(p->tasks, p->ntasks, p->cap_tasks);
		if (!t)
			return fail(LPT_PERF_E_NOMEM, "out of memory");
		t->kind = LPT_PERF_COMM;
		t->pid = (int32_t)rd32(r + 8);
		t->tid = (int32_t)rd32(r + 12);
		t->ppid = t->ptid = -1;
		t->exec = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		snprintf(t->comm, sizeof(t->comm), "%.*s", (int)nlen, name);
		t->time = s.time;
		t->cpu = s.cpu;
		return check_cpu(p, s.cpu, "COMM", pos);
	}
	if (size < 8 + 24)
		return fail(LPT_PERF_E_CORRUPT, "%s record at 0x%" PRIx64 " too short",
			    type == PERF_RECORD_FORK ? "FORK" : "EXIT", pos);
	read_sid(p, r, size, 8 + 24, &s);
	t = PUSH(p->tasks, p->ntasks, p->cap_tasks);
	if (!t)
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	t->kind = type == PERF_RECORD_FORK ? LPT_PERF_FORK : LPT_PERF_EXIT;
	t->pid = (int32_t)rd32(r + 8);
	t->ppid = (int32_t)rd32(r + 12);
	t->tid = (int32_t)rd32(r + 16);
	t->ptid = (int32_t)rd32(r + 20);
	t->time = rd64(r + 24);
	t->cpu = s.cpu;
	return check_cpu(p, s.cpu, type == PERF_RECORD_FORK ? "FORK" : "EXIT", pos);
}

static int add_switch(struct lpt_perf *p, const uint8_t *r, uint64_t size,
		      uint32_t type, uint16_t misc, uint64_t pos)
{
	uint64_t fixed = type == PERF_RECORD_SWITCH ? 8 : 16;
	struct lpt_perf_switch *w;
	struct sid s;

	if (size < fixed)
		return fail(LPT_PERF_E_CORRUPT, "switch record at 0x%" PRIx64 " too short", pos);
	read_sid(p, r, size, fixed, &s);
	if (check_cpu(p, s.cpu, type == PERF_RECORD_SWITCH ? "SWITCH" :
		      type == PERF_RECORD_SWITCH_CPU_WIDE ? "SWITCH_CPU_WIDE" :
		      "ITRACE_START", pos))
		return -LPT_PERF_E_CORRUPT;
	w = PUSH(p->sws, p->nsws, p->cap_sws);
	if (!w)
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	w->time = s.time;
	w->cpu = s.cpu;
	w->pid = s.pid;
	w->tid = s.tid;
	w->other_pid = w->other_tid = -1;
	if (type == PERF_RECORD_ITRACE_START) {
		w->itrace_start = true;
		w->pid = (int32_t)rd32(r + 8);
		w->tid = (int32_t)rd32(r + 12);
		return 0;
	}
	w->out = (misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
	w->preempt = w->out && (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	if (type == PERF_RECORD_SWITCH_CPU_WIDE) {
		w->cpu_wide = true;
		w->other_pid = (int32_t)rd32(r + 8);
		w->other_tid = (int32_t)rd32(r + 12);
	}
	return 0;
}

static int rec_aux(struct lpt_perf *p, const uint8_t *r, uint64_t size, uint64_t pos)
{
	struct lpt_perf_aux *a;
	struct sid s;

	if (size < 8 + 24)
		return fail(LPT_PERF_E_CORRUPT, "AUX record at 0x%" PRIx64 " too short", pos);
	read_sid(p, r, size, 8 + 24, &s);
	if (check_cpu(p, s.cpu, "AUX", pos))
		return -LPT_PERF_E_CORRUPT;
	a = PUSH(p->auxs, p->nauxs, p->cap_auxs);
	if (!a)
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	a->off = rd64(r + 8);
	a->size = rd64(r + 16);
	a->flags = rd64(r + 24);
	a->cpu = s.cpu;
	a->tid = s.tid;
	return 0;
}

static int rec_time_conv(struct lpt_perf *p, const uint8_t *r, uint64_t size, uint64_t pos)
{
	struct perf_rec_time_conv tc;

	if (size < PERF_TIME_CONV_MIN_SIZE)
		return fail(LPT_PERF_E_CORRUPT, "TIME_CONV record at 0x%" PRIx64 " too short", pos);
	memset(&tc, 0, sizeof(tc));
	memcpy(&tc, r, size < sizeof(tc) ? (size_t)size : sizeof(tc));
	if (tc.time_shift >= 64)
		return fail(LPT_PERF_E_CORRUPT, "TIME_CONV at 0x%" PRIx64 ": time_shift %"
			    PRIu64, pos, tc.time_shift);
	p->tc = tc;
	p->have_tc = true;
	return 0;
}

static int records(struct lpt_perf *p, const uint8_t *base, uint64_t pos,
		   uint64_t end, bool nested, uint64_t *consumed);

/* The decompression bound (perf_internal.h LPT_PERF_ZSTD_*): a zstd
 * stream may expand a few hundred bytes into gigabytes of records. */
static int check_zout(struct lpt_perf *p, uint64_t pos, uint64_t size)
{
	uint64_t cap = p->opts.size > offsetof(struct lpt_perf_opts, max_decompressed) &&
		       p->opts.max_decompressed ? p->opts.max_decompressed : 0;
	uint64_t lim = cap;

	if (!cap) {
		lim = p->zin * LPT_PERF_ZSTD_RATIO + LPT_PERF_ZSTD_SLACK;
		if (lim > LPT_PERF_ZSTD_MAX)
			lim = LPT_PERF_ZSTD_MAX;
	}
	if (p->zout <= lim)
		return 0;
	if (cap)
		return fail(LPT_PERF_E_LIMIT, "COMPRESSED record at 0x%" PRIx64 " (%" PRIu64
			    " bytes): the compressed records decompress to more than "
			    "%" PRIu64 " bytes, the --max-decompressed given",
			    pos, size, cap);
	return fail(LPT_PERF_E_LIMIT, "COMPRESSED record at 0x%" PRIx64 " (%" PRIu64
		    " bytes): the compressed records decompress to more than %" PRIu64
		    " bytes (%d times the %" PRIu64 " compressed bytes so far plus 1 MiB, "
		    "at most 1 GiB): a decompression bomb, or records this repetitive: "
		    "give --max-decompressed SIZE", pos, size, lim, LPT_PERF_ZSTD_RATIO,
		    p->zin);
}

/* PERF_RECORD_COMPRESSED (session.c perf_session__process_compressed_event,
 * util/zstd.c zstd_decompress_stream): a zstd stream across records whose
 * output is more records; one may end in the next COMPRESSED record. */
static int rec_compressed(struct lpt_perf *p, const uint8_t *r, uint64_t size, uint64_t pos)
{
	ZSTD_inBuffer in = { r + 8, (size_t)size - 8, 0 };
	int err;

	if (!p->zds) {
		p->zds = ZSTD_createDStream();
		if (!p->zds || ZSTD_isError(ZSTD_initDStream(p->zds)))
			return fail(LPT_PERF_E_NOMEM, "out of memory (zstd)");
	}
	p->info.compressed = true;
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		uint64_t used = 0;
		size_t ret;

		if (lpt_perf_grow(&p->pend, &p->cap_pend, p->npend + (1u << 17), 1))
			return fail(LPT_PERF_E_NOMEM, "out of memory");
		out.dst = p->pend + p->npend;
		out.size = p->cap_pend - p->npend;
		out.pos = 0;
		size_t in_before = in.pos;

		ret = ZSTD_decompressStream(p->zds, &out, &in);
		if (ZSTD_isError(ret))
			return fail(LPT_PERF_E_COMPRESS, "COMPRESSED record at 0x%" PRIx64
				    ": %s", pos, ZSTD_getErrorName(ret));
		p->zin += in.pos - in_before;
		p->zout += out.pos;
		err = check_zout(p, pos, size);
		if (err)
			return err;
		p->npend += out.pos;
		err = records(p, p->pend, 0, p->npend, true, &used);
		if (err)
			return err;
		memmove(p->pend, p->pend + used, (size_t)(p->npend - used));
		p->npend -= (size_t)used;
		if (!out.pos && !ret)
			break;
	}
	return 0;
}

static int record(struct lpt_perf *p, const uint8_t *r, const struct perf_event_header *h,
		  uint64_t pos, bool nested)
{
	uint64_t size = h->size;

	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return add_map(p, r, size, h->type == PERF_RECORD_MMAP2, h->misc, pos);
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return add_task(p, r, size, h->type, h->misc, pos);
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_ITRACE_START:
		return add_switch(p, r, size, h->type, h->misc, pos);
	case PERF_RECORD_AUX:
		return rec_aux(p, r, size, pos);
	case PERF_RECORD_LOST:
		if (size >= 24)
			p->info.lost += rd64(r + 16);
		return 0;
	case PERF_RECORD_SAMPLE:
		return 0;
	case PERF_RECORD_HEADER_ATTR: {
		uint32_t asize;

		if (size < 8 + 8)
			return fail(LPT_PERF_E_CORRUPT, "HEADER_ATTR at 0x%" PRIx64
				    " too short", pos);
		asize = rd32(r + 12);
		if (!asize)
			asize = PERF_ATTR_SIZE_VER0;
		if (asize > size - 8)
			return fail(LPT_PERF_E_CORRUPT, "HEADER_ATTR at 0x%" PRIx64
				    ": attr size %u past the record", pos, asize);
		return add_attr(p, r + 8, asize, r + 8 + asize, (size - 8 - asize) / 8);
	}
	case PERF_RECORD_HEADER_FEATURE:
		if (size < sizeof(struct perf_rec_header_feature))
			return fail(LPT_PERF_E_CORRUPT, "HEADER_FEATURE at 0x%" PRIx64
				    " too short", pos);
		return feature(p, (unsigned int)rd64(r + 8), r + 16, size - 16);
	case PERF_RECORD_HEADER_BUILD_ID:
		return add_build_ids(p, r, size);
	case PERF_RECORD_AUXTRACE_INFO:
		if (size < sizeof(struct perf_rec_auxtrace_info))
			return fail(LPT_PERF_E_CORRUPT, "AUXTRACE_INFO at 0x%" PRIx64
				    " too short", pos);
		return rec_auxtrace_info(p, r, size, pos);
	case PERF_RECORD_AUXTRACE_ERROR:
		p->info.aux_errors++;
		return 0;
	case PERF_RECORD_TIME_CONV:
		return rec_time_conv(p, r, size, pos);
	case PERF_RECORD_COMPRESSED:
		if (nested)
			return fail(LPT_PERF_E_CORRUPT, "COMPRESSED record inside a "
				    "COMPRESSED record");
		return rec_compressed(p, r, size, pos);
	case PERF_RECORD_FINISHED_ROUND:
	case PERF_RECORD_FINISHED_INIT:
	case PERF_RECORD_ID_INDEX:
	case PERF_RECORD_THREAD_MAP:
	case PERF_RECORD_CPU_MAP:
	case PERF_RECORD_EVENT_UPDATE:
	case PERF_RECORD_HEADER_TRACING_DATA:
		return 0;	/* known, nothing the capture model needs */
	default:
		p->info.unknown_records++;
		return 0;
	}
}

/*
 * Read the records in [@pos, @end) of @base. Each header is checked
 * against what remains, then the record against its own size. Nested
 * (decompressed) data may end mid-record: *@consumed then says how far
 * whole records went. HEADER_TRACING_DATA is followed by its payload
 * (header.c perf_event__process_tracing_data): stepped over too.
 */
static int records(struct lpt_perf *p, const uint8_t *base, uint64_t pos,
		   uint64_t end, bool nested, uint64_t *consumed)
{
	uint64_t next_progress = pos + (64u << 20);
	int err;

	while (pos < end) {
		struct perf_event_header h;
		uint64_t step;

		if (end - pos < sizeof(h)) {
			if (nested)
				break;
			return fail(LPT_PERF_E_TRUNCATED, "the data ends inside a record "
				    "header at 0x%" PRIx64, pos);
		}
		memcpy(&h, base + pos, sizeof(h));
		if (h.size < sizeof(h))
			return fail(LPT_PERF_E_CORRUPT, "record at 0x%" PRIx64
				    " (type %u) has size %u", pos, h.type, h.size);
		if (h.size > end - pos) {
			if (nested)
				break;
			return fail(LPT_PERF_E_TRUNCATED, "record at 0x%" PRIx64
				    " (type %u, %u bytes) goes past the end of the data (0x%"
				    PRIx64 ")", pos, h.type, h.size, end);
		}
		p->info.records++;
		step = h.size;
		if (h.type == PERF_RECORD_AUXTRACE) {
			if (nested)
				return fail(LPT_PERF_E_CORRUPT, "AUXTRACE record inside a "
					    "COMPRESSED record (perf never writes one)");
			if (h.size < sizeof(struct perf_rec_auxtrace))
				return fail(LPT_PERF_E_CORRUPT, "AUXTRACE record at 0x%" PRIx64
					    " too short (%u bytes)", pos, h.size);
			err = rec_auxtrace(p, base + pos, pos, h.size, end);
			if (err)
				return err;
			step += rd64(base + pos + 8);
		} else if (h.type == PERF_RECORD_HEADER_TRACING_DATA && h.size >= 12) {
			/* trace_report() output, padded to 8 (header.c
			 * perf_event__process_tracing_data) */
			uint64_t extra = ((uint64_t)rd32(base + pos + 8) + 7) & ~7ull;

			if (extra > end - pos - h.size)
				return fail(LPT_PERF_E_TRUNCATED, "TRACING_DATA at 0x%" PRIx64
					    " goes past the end", pos);
			step += extra;
		} else {
			err = record(p, base + pos, &h, pos, nested);
			if (err) {
				char why[sizeof(last_error)];

				if (!strstr(last_error, "0x")) {
					snprintf(why, sizeof(why), "%s", last_error);
					fail(-err, "record at 0x%" PRIx64 " (type %u): %.180s",
					     pos, h.type, why);
				}
				return err;
			}
		}
		pos += step;
		if (!nested && p->opts.progress && pos >= next_progress) {
			p->opts.progress(p->opts.progress_arg, pos, p->len);
			next_progress = pos + (64u << 20);
		}
	}
	if (consumed)
		*consumed = pos;
	return 0;
}

/* ---- The file header ([fmt], header.c perf_file_header__read) ---- */

static int cmp_section(const void *a, const void *b)
{
	const struct perf_file_section *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Each attr's ids section inside the file, and no two overlapping (perf
 * writes them one after the other, header.c perf_session__write_header):
 * so the sample IDs are at most the file's size / 8, each read once.
 */
static int check_ids(struct lpt_perf *p, const struct perf_file_header *fh, uint64_t nattr)
{
	struct perf_file_section *v;
	uint64_t i, n = 0;

	if (nattr > p->len / fh->attr_size)
		return fail(LPT_PERF_E_CORRUPT, "%" PRIu64 " attrs", nattr);
	v = malloc((size_t)(nattr ? nattr : 1) * sizeof(*v));
	if (!v)
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	for (i = 0; i < nattr; i++) {
		struct perf_file_section ids;

		memcpy(&ids, p->map + fh->attrs.offset + i * fh->attr_size + fh->attr_size -
		       sizeof(ids), sizeof(ids));
		if (ids.offset > p->len || ids.size > p->len - ids.offset) {
			free(v);
			return fail(LPT_PERF_E_TRUNCATED, "attr %" PRIu64 ": ids go past "
				    "the end of the file", i);
		}
		if (ids.size)
			v[n++] = ids;
	}
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_section);
	for (i = 1; i < n; i++)
		if (v[i].offset < v[i - 1].offset + v[i - 1].size) {
			uint64_t a = v[i - 1].offset, b = v[i].offset;

			free(v);
			return fail(LPT_PERF_E_CORRUPT, "the ids sections of two attrs overlap "
				    "(at 0x%" PRIx64 " and 0x%" PRIx64 "): corrupt", a, b);
		}
	free(v);
	return 0;
}

static int read_file_header(struct lpt_perf *p)
{
	struct perf_file_header fh;
	uint64_t i, nattr, feat_off;
	unsigned int bit;
	int err;

	if (p->len < sizeof(fh))
		return fail(LPT_PERF_E_TRUNCATED, "%" PRIu64 " bytes: shorter than the "
			    "perf.data header (%zu)", p->len, sizeof(fh));
	memcpy(&fh, p->map, sizeof(fh));
	if (fh.size < sizeof(fh))
		return fail(LPT_PERF_E_CORRUPT, "header size %" PRIu64, fh.size);
	if (fh.data.offset > p->len || fh.data.size > p->len - fh.data.offset)
		return fail(LPT_PERF_E_TRUNCATED, "the data section (0x%" PRIx64 "+0x%"
			    PRIx64 ") goes past the end of the file (0x%" PRIx64 ")",
			    fh.data.offset, fh.data.size, p->len);
	if (fh.attrs.offset > p->len || fh.attrs.size > p->len - fh.attrs.offset)
		return fail(LPT_PERF_E_TRUNCATED, "the attrs section goes past the end");
	if (fh.attr_size < sizeof(struct perf_file_section) + PERF_ATTR_SIZE_VER0)
		return fail(LPT_PERF_E_CORRUPT, "attr_size %" PRIu64, fh.attr_size);
	p->data_off = fh.data.offset;
	p->data_end = fh.data.offset + fh.data.size;
	nattr = fh.attrs.size / fh.attr_size;
	err = check_ids(p, &fh, nattr);
	if (err)
		return err;
	for (i = 0; i < nattr; i++) {
		const uint8_t *a = p->map + fh.attrs.offset + i * fh.attr_size;
		struct perf_file_section ids;

		memcpy(&ids, a + fh.attr_size - sizeof(ids), sizeof(ids));
		err = add_attr(p, a, fh.attr_size - sizeof(ids), p->map + ids.offset,
			       ids.size / 8);
		if (err)
			return err;
	}
	/* The feature sections' table follows the data (header.c
	 * perf_header__process_sections). */
	feat_off = p->data_end;
	for (bit = 1; bit < PERF_HEADER_FEAT_BITS; bit++) {
		struct perf_file_section s;

		if (!(fh.features[bit / 64] >> (bit % 64) & 1))
			continue;
		if (feat_off > p->len || p->len - feat_off < sizeof(s))
			return fail(LPT_PERF_E_TRUNCATED, "the feature table goes past "
				    "the end of the file");
		memcpy(&s, p->map + feat_off, sizeof(s));
		feat_off += sizeof(s);
		if (s.offset > p->len || s.size > p->len - s.offset)
			return fail(LPT_PERF_E_TRUNCATED, "feature %u's section goes past "
				    "the end of the file", bit);
		err = feature(p, bit, p->map + s.offset, s.size);
		if (err)
			return err;
	}
	return 0;
}

/* ---- After the records: the model ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int add_gap(struct lpt_perf_trace_int *t, uint64_t at)
{
	if (!at || at >= t->pub.size)
		return 0;
	if (lpt_perf_grow(&t->gaps, &t->cap_gaps, t->ngaps + 1, sizeof(*t->gaps)))
		return -LPT_PERF_E_NOMEM;
	t->gaps[t->ngaps++] = at;
	return 0;
}

/* Position in the trace of AUX stream offset @x, or UINT64_MAX. */
static uint64_t trace_pos(const struct lpt_perf_trace_int *t, uint64_t x)
{
	uint64_t at = 0;
	size_t i;

	for (i = 0; i < t->nbufs; i++) {
		const struct lpt_perf_buf *b = &t->bufs[i];

		if (x >= b->aux_off && x <= b->aux_off + b->span)
			return at + (x - b->aux_off < b->size ? x - b->aux_off : b->size);
		at += b->size;
	}
	return UINT64_MAX;
}

/*
 * What finish_trace() looks up, indexed once for all traces: the AUX
 * records sorted by their trace's key (CPU per CPU, else tid), the first
 * ITRACE_START of each CPU, the first task of each tid with a pid.
 */
struct trace_index {
	size_t *aux;			/* positions in p->auxs, by key */
	struct lpt_perf_hash itrace;	/* cpu -> p->sws */
	struct lpt_perf_hash task;	/* tid -> p->tasks */
};

static int64_t aux_key(const struct lpt_perf *p, size_t i)
{
	return p->info.per_cpu ? p->auxs[i].cpu : p->auxs[i].tid;
}

static const struct lpt_perf *sort_p;

static int cmp_aux(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int64_t kx = aux_key(sort_p, x), ky = aux_key(sort_p, y);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x < y ? -1 : x > y;	/* stable: file order */
}

static int index_traces(struct lpt_perf *p, struct trace_index *ix)
{
	size_t i;

	memset(ix, 0, sizeof(*ix));
	ix->aux = malloc((p->nauxs ? p->nauxs : 1) * sizeof(*ix->aux));
	if (!ix->aux)
		return -LPT_PERF_E_NOMEM;
	for (i = 0; i < p->nauxs; i++)
		ix->aux[i] = i;
	sort_p = p;
	if (p->nauxs)
		qsort(ix->aux, p->nauxs, sizeof(*ix->aux), cmp_aux);
	for (i = 0; i < p->nsws; i++)
		if (p->sws[i].itrace_start &&
		    lpt_perf_hash_put(&ix->itrace, (uint64_t)(int64_t)p->sws[i].cpu, i) < 0)
			return -LPT_PERF_E_NOMEM;
	for (i = 0; i < p->ntasks; i++)
		if (p->tasks[i].pid >= 0 &&
		    lpt_perf_hash_put(&ix->task, (uint64_t)(int64_t)p->tasks[i].tid, i) < 0)
			return -LPT_PERF_E_NOMEM;
	return 0;
}

static void index_free(struct trace_index *ix)
{
	free(ix->aux);
	lpt_perf_hash_free(&ix->itrace);
	lpt_perf_hash_free(&ix->task);
}

/*
 * Intel BTS in snapshot mode (perf record -S): each AUXTRACE buffer is the
 * AUX buffer as it was at a snapshot, so it starts with records the one
 * before already holds. As perf's intel_bts_find_overlap()
 * (util/intel-bts.c) the longest run of records that ends buffer @a and
 * starts buffer @b is the overlap, and @b's own data starts after it; it
 * is found here in linear time (the prefix function of @b's records, run
 * over @a's, 24-byte records compared whole), not by trying every offset.
 * Return: the overlap in bytes, or -LPT_PERF_E_NOMEM.
 */
static int64_t bts_overlap(const struct lpt_perf *p, const struct lpt_perf_buf *a,
			   const struct lpt_perf_buf *b)
{
	const uint8_t *ra = p->map + a->foff, *rb = p->map + b->foff;
	size_t na = (size_t)(a->size / 24), nb = (size_t)(b->size / 24), i, q = 0;
	size_t *pi;

	if (!na || !nb)
		return 0;
	pi = malloc(nb * sizeof(*pi));
	if (!pi)
		return -LPT_PERF_E_NOMEM;
	pi[0] = 0;
	for (i = 1; i < nb; i++) {
		while (q && memcmp(rb + 24 * i, rb + 24 * q, 24))
			q = pi[q - 1];
		if (!memcmp(rb + 24 * i, rb + 24 * q, 24))
			q++;
		pi[i] = q;
	}
	/* perf compares from len_a - len_b on: at most all of @b */
	q = 0;
	for (i = na > nb ? na - nb : 0; i < na; i++) {
		while (q && (q == nb || memcmp(ra + 24 * i, rb + 24 * q, 24)))
			q = pi[q - 1];
		if (q < nb && !memcmp(ra + 24 * i, rb + 24 * q, 24))
			q++;
	}
	free(pi);
	return (int64_t)(24 * q);
}

static int finish_trace(struct lpt_perf *p, struct lpt_perf_trace_int *t,
			const struct trace_index *ix)
{
	const char *sfx = p->info.bts ? PTCAP_BTS_SUFFIX : PTCAP_TRACE_SUFFIX;
	int64_t key;
	uint64_t at = 0;
	size_t i, k, lo, hi;

	t->pub.per_cpu = p->info.per_cpu;
	if (!t->pub.per_cpu)
		t->pub.cpu = -1;
	t->pub.nbufs = t->nbufs;
	/* Last to first, so that each overlap is found with the whole buffer
	 * before, as perf compares them. */
	for (i = t->nbufs; p->info.bts && p->info.snapshot && i-- > 1;) {
		/* b's data from after its overlap with a; b continues a */
		struct lpt_perf_buf *b = &t->bufs[i];
		int64_t ov = bts_overlap(p, &t->bufs[i - 1], b);

		if (ov < 0)
			return (int)ov;
		if (!ov)
			continue;
		b->foff += (uint64_t)ov;
		b->size -= (uint64_t)ov;
		b->aux_off += (uint64_t)ov;
		b->span -= (uint64_t)ov;
		b->joined = true;
		t->pub.size -= (uint64_t)ov;
	}
	/* Where one AUXTRACE buffer does not continue the one before (a
	 * snapshot, or data lost between them), the packet stream is cut
	 * (auxtrace.c: each buffer is decoded apart unless its offset
	 * continues the previous one, intel-pt.c intel_pt_get_trace). */
	for (i = 1; i < t->nbufs; i++) {
		at += t->bufs[i - 1].size;
		if ((p->info.snapshot && !t->bufs[i].joined) ||
		    (!t->bufs[i].joined &&
		     t->bufs[i].aux_off != t->bufs[i - 1].aux_off + t->bufs[i - 1].span))
			if (add_gap(t, at))
				return -LPT_PERF_E_NOMEM;
	}
	/* this trace's AUX records: a range of ix->aux */
	key = t->pub.per_cpu ? t->pub.cpu : t->pub.tid;
	for (lo = 0, hi = p->nauxs; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (aux_key(p, ix->aux[mid]) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < p->nauxs && aux_key(p, ix->aux[k]) == key; k++) {
		const struct lpt_perf_aux *a = &p->auxs[ix->aux[k]];
		uint64_t x;

		if (a->flags & PERF_AUX_FLAG_COLLISION)
			t->pub.collision++;
		if (a->flags & PERF_AUX_FLAG_TRUNCATED) {
			t->pub.truncated++;
			/* The data after this record's does not continue it. */
			x = trace_pos(t, a->off + a->size);
			if (x != UINT64_MAX && add_gap(t, x))
				return -LPT_PERF_E_NOMEM;
		}
		if (a->flags & PERF_AUX_FLAG_PARTIAL) {
			t->pub.partial++;
			/* The record's data holds a gap: cut at its start. */
			x = trace_pos(t, a->off);
			if (x != UINT64_MAX && add_gap(t, x))
				return -LPT_PERF_E_NOMEM;
		}
	}
	if (t->ngaps)
		qsort(t->gaps, t->ngaps, sizeof(*t->gaps), cmp_u64);
	for (i = k = 0; i < t->ngaps; i++)
		if (!k || t->gaps[i] != t->gaps[k - 1])
			t->gaps[k++] = t->gaps[i];
	t->ngaps = k;
	t->pub.gaps = t->gaps;
	t->pub.ngaps = t->ngaps;

	if (t->pub.per_cpu) {
		snprintf(t->pub.name, sizeof(t->pub.name), "cpu%d%s", t->pub.cpu, sfx);
		t->pub.pid = t->pub.tid = -1;
		i = lpt_perf_hash_get(&ix->itrace, (uint64_t)(int64_t)t->pub.cpu);
		if (i != SIZE_MAX) {
			t->pub.pid = p->sws[i].pid;
			t->pub.tid = p->sws[i].tid;
		}
	} else {
		snprintf(t->pub.name, sizeof(t->pub.name), "tid%d%s", t->pub.tid, sfx);
		t->pub.pid = t->pub.tid;
		i = lpt_perf_hash_get(&ix->task, (uint64_t)(int64_t)t->pub.tid);
		if (i != SIZE_MAX)
			t->pub.pid = p->tasks[i].pid;
	}
	return 0;
}

/*
 * Two queues of one CPU (or one thread) are two traces: the second and
 * later (in queue order, after cmp_trace()) are named
 * <cpuN|tidN>.p<queue>.pt (p: perf's AUX queue; the tools read
 * "tid<N>.p..." as thread N), so that no trace replaces another.
 */
static void name_duplicates(struct lpt_perf *p)
{
	const char *sfx = p->info.bts ? PTCAP_BTS_SUFFIX : PTCAP_TRACE_SUFFIX;
	size_t i;

	for (i = 1; i < p->ntr; i++) {
		struct lpt_perf_trace *t = &p->tr[i].pub, *prev = &p->tr[i - 1].pub;

		if (t->per_cpu ? t->cpu != prev->cpu : t->tid != prev->tid)
			continue;
		if (t->per_cpu)
			snprintf(t->name, sizeof(t->name), "cpu%d.p%u%s", t->cpu, t->idx, sfx);
		else
			snprintf(t->name, sizeof(t->name), "tid%d.p%u%s", t->tid, t->idx, sfx);
	}
}

static int cmp_bid(const void *a, const void *b)
{
	const struct lpt_perf_build_id *x = *(const struct lpt_perf_build_id *const *)a;
	const struct lpt_perf_build_id *y = *(const struct lpt_perf_build_id *const *)b;
	int c = strcmp(x->path, y->path);

	return c ? c : x < y ? -1 : x > y;	/* the list's first entry first */
}

/* Build-ids of the build-id list for maps that carry none: joined
 * through the list sorted by path. */
static int join_build_ids(struct lpt_perf *p)
{
	const struct lpt_perf_build_id **v;
	size_t i;

	if (!p->nbids)
		return 0;
	v = malloc(p->nbids * sizeof(*v));
	if (!v)
		return -LPT_PERF_E_NOMEM;
	for (i = 0; i < p->nbids; i++)
		v[i] = &p->bids[i];
	qsort(v, p->nbids, sizeof(*v), cmp_bid);
	for (i = 0; i < p->nmaps; i++) {
		struct lpt_perf_map *m = &p->maps[i];
		size_t lo = 0, hi = p->nbids;

		if (m->build_id_size)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(v[mid]->path, m->path) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* the last entry of the path, as the loop over the list
		 * that this replaces kept */
		while (lo + 1 < p->nbids && !strcmp(v[lo + 1]->path, m->path))
			lo++;
		if (lo < p->nbids && !strcmp(v[lo]->path, m->path)) {
			m->build_id_size = v[lo]->size;
			memcpy(m->build_id, v[lo]->id, sizeof(m->build_id));
		}
	}
	free(v);
	return 0;
}

static int cmp_trace(const void *a, const void *b)
{
	const struct lpt_perf_trace_int *x = a, *y = b;
	int64_t kx = x->pub.per_cpu ? x->pub.cpu : x->pub.tid;
	int64_t ky = y->pub.per_cpu ? y->pub.cpu : y->pub.tid;

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->pub.idx < y->pub.idx ? -1 : x->pub.idx > y->pub.idx;
}

/* "GenuineIntel,6,78,3" (header.c HEADER_CPUID on x86). */
static void parse_cpuid(struct lpt_perf *p)
{
	unsigned int fam, model, step = 0;
	const char *c = p->cpuid ? strchr(p->cpuid, ',') : NULL;

	if (!c || strncmp(p->cpuid, "GenuineIntel", 12))
		return;
	if (sscanf(c, ",%u,%u,%u", &fam, &model, &step) < 2 || fam > 0xffff ||
	    model > 0xff || step > 0xff)
		return;
	p->cfg.cpu_family = (uint16_t)fam;
	p->cfg.cpu_model = (uint8_t)model;
	p->cfg.cpu_stepping = (uint8_t)step;
	p->cfg.has |= PTCAP_HAS_CPU;
}

static void finish_config(struct lpt_perf *p)
{
	const uint64_t *pv = p->priv;
	size_t i;

	parse_cpuid(p);
	for (i = 0; i < p->nattrs; i++)
		if (p->attrs[i].attr.type == pv[PERF_INTEL_PT_PMU_TYPE]) {
			p->info.pt_config = p->attrs[i].attr.config;
			/* perf sets enable_on_exec only for a workload it
			 * starts (util/evsel.c evsel__config(), target__none) */
			p->info.per_task = p->attrs[i].attr.enable_on_exec;
			p->info.inherit = p->attrs[i].attr.inherit;
			break;
		}
	for (i = 0; i < p->nevnames; i++)
		if (p->evnames[i].type == pv[PERF_INTEL_PT_PMU_TYPE])
			p->event_name = p->evnames[i].name;
	p->info.pmu_type = (uint32_t)pv[PERF_INTEL_PT_PMU_TYPE];
	p->info.have_sched_switch = (uint32_t)pv[PERF_INTEL_PT_HAVE_SCHED_SWITCH];
	p->info.snapshot = pv[PERF_INTEL_PT_SNAPSHOT_MODE] != 0;
	p->info.per_cpu = pv[PERF_INTEL_PT_PER_CPU_MMAPS] != 0;
	if (p->info.bts) {
		/* intel-bts.c: SNAPSHOT_MODE is priv[5] (PMU type and time
		 * at PT's indices). perf 6.1 records intel_bts per thread
		 * only (arch/x86/util/intel-bts.c refuses per-CPU
		 * recording, its AUXTRACE records have cpu -1): a file
		 * whose every AUXTRACE record names a CPU is read per CPU
		 * (perf-data.rst "Intel BTS"). */
		p->info.snapshot = pv[PERF_INTEL_BTS_SNAPSHOT_MODE] != 0;
		p->info.per_cpu = p->naux && p->naux_cpu == p->naux;
		p->cfg.format = PTCAP_FORMAT_BTS;
	}
	/* intel-pt.c intel_pt_process_auxtrace_info: the MTC..CYC group is
	 * present when CYC_BIT is, MAX_NONTURBO_RATIO on its own. */
	if (p->npriv > PERF_INTEL_PT_CYC_BIT) {
		/* MTC_BIT and MTC_FREQ_BITS are masks of attr.config
		 * (intel-pt.c intel_pt_mtc_period()). */
		uint64_t mtc_bit = pv[PERF_INTEL_PT_MTC_BIT];
		uint64_t freq_bits = pv[PERF_INTEL_PT_MTC_FREQ_BITS];

		if ((p->info.pt_config & mtc_bit) && freq_bits) {
			p->cfg.mtc_freq = (uint8_t)((p->info.pt_config & freq_bits) >>
						    __builtin_ctzll(freq_bits));
			p->cfg.has |= PTCAP_HAS_MTC_FREQ;
		}
		p->info.tsc_ctc_n = (uint32_t)pv[PERF_INTEL_PT_TSC_CTC_N];
		p->info.tsc_ctc_d = (uint32_t)pv[PERF_INTEL_PT_TSC_CTC_D];
		if (p->info.tsc_ctc_n && p->info.tsc_ctc_d) {
			/* TSC:CTC = CPUID.15H EBX:EAX (arch/x86/util/intel-pt.c
			 * intel_pt_tsc_ctc_ratio). */
			p->cfg.cpuid_15_eax = p->info.tsc_ctc_d;
			p->cfg.cpuid_15_ebx = p->info.tsc_ctc_n;
			p->cfg.has |= PTCAP_HAS_CPUID_15_EAX | PTCAP_HAS_CPUID_15_EBX;
		}
	}
	if (p->npriv > PERF_INTEL_PT_MAX_NONTURBO_RATIO &&
	    pv[PERF_INTEL_PT_MAX_NONTURBO_RATIO] &&
	    pv[PERF_INTEL_PT_MAX_NONTURBO_RATIO] <= UINT8_MAX) {
		p->info.max_nonturbo_ratio = (uint32_t)pv[PERF_INTEL_PT_MAX_NONTURBO_RATIO];
		p->cfg.nom_freq = (uint8_t)p->info.max_nonturbo_ratio;
		p->cfg.has |= PTCAP_HAS_NOM_FREQ;
	}
	/* TIME_CONV wins over AUXTRACE_INFO's copy (intel-pt.c takes the
	 * session's time conversion when it has one). */
	if (!p->have_tc && pv[PERF_INTEL_PT_TIME_MULT] &&
	    pv[PERF_INTEL_PT_TIME_SHIFT] < 64) {
		p->tc.time_shift = pv[PERF_INTEL_PT_TIME_SHIFT];
		p->tc.time_mult = pv[PERF_INTEL_PT_TIME_MULT];
		p->tc.time_zero = pv[PERF_INTEL_PT_TIME_ZERO];
		p->have_tc = true;
	}
	if (p->have_tc && p->tc.time_mult) {
		/* ns = tsc * mult >> shift, so Hz = 1e9 << shift / mult. */
		unsigned __int128 hz = ((unsigned __int128)1000000000u << p->tc.time_shift) /
				       p->tc.time_mult;

		if (hz && hz <= UINT64_MAX) {
			p->cfg.tsc_freq_hz = (uint64_t)hz;
			p->cfg.has |= PTCAP_HAS_TSC_FREQ;
		}
	}
	p->info.has_time_conv = p->have_tc && p->tc.time_mult;
	p->info.time_shift = p->tc.time_shift;
	p->info.time_mult = p->tc.time_mult;
	p->info.time_zero = p->tc.time_zero;
}

size_t lpt_perf_ncpus(const struct lpt_perf *p)
{
	return p->nrcpus ? p->nrcpus : p->cpus_seen;
}

static int finish(struct lpt_perf *p)
{
	struct trace_index ix;
	size_t i;
	int err;

	bool need_aux = !(p->opts.flags & LPT_PERF_SIDEBAND_ONLY);

	if (p->nrcpus && p->cpus_seen > p->nrcpus)
		return fail(LPT_PERF_E_CORRUPT, "%s record at 0x%" PRIx64 ": cpu %" PRIu32
			    " but HEADER_NRCPUS says %" PRIu32 " CPUs: corrupt",
			    p->cpu_seen_what, p->cpu_seen_at, p->cpus_seen - 1, p->nrcpus);
	if (need_aux && !p->have_info && !p->naux)
		return fail(LPT_PERF_E_NO_AUX, "no AUXTRACE_INFO and no AUXTRACE records: "
			    "record with perf record -e intel_pt//");
	if (need_aux && !p->have_info)
		return fail(LPT_PERF_E_NO_AUX, "%" PRIu64 " AUXTRACE records but no "
			    "AUXTRACE_INFO: the decoder parameters are unknown", p->naux);
	if (need_aux && !p->naux)
		return fail(LPT_PERF_E_NO_AUX, "AUXTRACE_INFO but no AUXTRACE records: "
			    "nothing was traced");
	if (p->npend)
		return fail(LPT_PERF_E_TRUNCATED, "the compressed records end inside a "
			    "record (%zu bytes left)", p->npend);
	finish_config(p);
	for (i = 0; i < p->nsws + p->ntasks + p->nmaps; i++) {
		uint64_t t = i < p->nsws ? p->sws[i].time : i < p->nsws + p->ntasks ?
			     p->tasks[i - p->nsws].time : p->maps[i - p->nsws - p->ntasks].time;

		if (i < p->nsws)
			p->sws[i].tsc = lpt_perf_ns_to_tsc(p, t);
		if (t && (!p->info.first_time || t < p->info.first_time))
			p->info.first_time = t;
		if (t > p->info.last_time)
			p->info.last_time = t;
	}
	err = index_traces(p, &ix);
	for (i = 0; !err && i < p->ntr; i++)
		err = finish_trace(p, &p->tr[i], &ix);
	index_free(&ix);
	if (err)
		return fail(-err, "out of memory");
	if (p->ntr)
		qsort(p->tr, p->ntr, sizeof(*p->tr), cmp_trace);
	name_duplicates(p);
	if (join_build_ids(p))
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	if (p->index_entries && p->index_entries != p->naux)
		return fail(LPT_PERF_E_CORRUPT, "HEADER_AUXTRACE lists %" PRIu64
			    " AUXTRACE records, the data holds %" PRIu64,
			    p->index_entries, p->naux);
	p->info.filter = p->filter ? p->filter : "";
	p->info.cpuid = p->cpuid ? p->cpuid : "";
	p->info.event_name = p->event_name ? p->event_name : "";
	return 0;
}

/*
 * Directory format (libpt/perf_dir.c): the records of `data`, then of each
 * data.N, each file whole (a COMPRESSED stream does not continue into the
 * next file); then the sideband in time order, as perf's ordered events
 * give it. A `data` file given by its path is read with its directory.
 */
static int read_dir(struct lpt_perf *p, const char *path)
{
	const char *dir = p->dir;
	char *copy, *slash;
	size_t i;
	int err;

	if (p->info.pipe)
		return fail(LPT_PERF_E_CORRUPT, "HEADER_DIR_FORMAT in a pipe");
	if (!dir) {
		copy = lpt_perf_strndup(p, path, strlen(path));
		if (!copy)
			return fail(LPT_PERF_E_NOMEM, "out of memory");
		slash = strrchr(copy, '/');
		if (slash == copy)
			slash[1] = '\0';
		else if (slash)
			*slash = '\0';
		dir = slash ? copy : ".";
	}
	err = lpt_perf_dir_map(p, dir);
	if (err)
		return err;
	err = records(p, p->map, p->data_off, p->data_end, false, NULL);
	for (i = 0; !err && i < p->nparts; i++) {
		if (p->npend)
			break;
		err = records(p, p->map, p->parts[i].off, p->parts[i].off + p->parts[i].size,
			      false, NULL);
		if (err) {
			char why[200];

			snprintf(why, sizeof(why), "%s", lpt_perf_last_error());
			fail(-err, "%s: %s (offsets count from the start of `data`, "
			     "which is mapped first)", p->parts[i].path, why);
		}
	}
	if (!err && p->npend)
		return fail(LPT_PERF_E_TRUNCATED, "the compressed records of a file of %s "
			    "end inside a record", dir);
	return err ? err : lpt_perf_dir_sort(p);
}

int lpt_perf_open(const char *path, const struct lpt_perf_opts *opts,
		  struct lpt_perf **out)
{
	struct lpt_perf *p;
	uint64_t magic, hsize;
	int err;

	last_error[0] = '\0';
	if (!path || !out)
		return fail(LPT_PERF_E_INVAL, "no file or no result pointer");
	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return fail(LPT_PERF_E_NOMEM, "out of memory");
	lpt_perf_opts_init(&p->opts);
	if (opts)
		memcpy(&p->opts, opts, opts->size < sizeof(p->opts) ? opts->size :
		       sizeof(p->opts));
	err = map_input(p, path);
	if (err)
		goto bad;
	magic = rd64(p->map);
	if (magic == PERF_FILE_MAGIC_SWAPPED) {
		err = fail(LPT_PERF_E_SWAPPED, "the magic is byte-swapped: this perf.data "
			   "was written on a big-endian machine; convert it there with "
			   "perf inject, or read it with perf");
		goto bad;
	}
	if (!memcmp(p->map, "PERFFILE", 8)) {
		err = fail(LPT_PERF_E_VERSION, "magic PERFFILE: version 1 of the format, "
			   "written by perf before 2.6.39; rewrite it with a newer "
			   "perf inject");
		goto bad;
	}
	if (magic != PERF_FILE_MAGIC) {
		err = fail(LPT_PERF_E_MAGIC, "first bytes are not PERFILE2");
		goto bad;
	}
	if (p->len < sizeof(struct perf_pipe_file_header)) {
		err = fail(LPT_PERF_E_TRUNCATED, "%" PRIu64 " bytes: no room for the header",
			   p->len);
		goto bad;
	}
	hsize = rd64(p->map + 8);
	/* header.c perf_header__read_pipe / perf_file_header__read: the
	 * header's size tells the two formats apart. */
	if (hsize == sizeof(struct perf_pipe_file_header)) {
		p->info.pipe = true;
		p->data_off = hsize;
		p->data_end = p->len;
	} else {
		err = read_file_header(p);
		if (err)
			goto bad;
	}
	if (p->dir_version) {
		err = read_dir(p, path);
		if (err)
			goto bad;
	} else {
		err = records(p, p->map, p->data_off, p->data_end, false, NULL);
		if (err)
			goto bad;
	}
	err = finish(p);
	if (err)
		goto bad;
	*out = p;
	return 0;
bad:
	lpt_perf_close(p);
	return err;
}

void lpt_perf_close(struct lpt_perf *p)
{
	size_t i;

	if (!p)
		return;
	if (p->map)
		munmap((void *)p->map, (size_t)p->len);
	for (i = 0; i < p->ntr; i++) {
		free(p->tr[i].bufs);
		free(p->tr[i].gaps);
	}
	for (i = 0; i < p->nstrs; i++)
		free(p->strs[i]);
	free(p->strs);
	free(p->tr);
	free(p->attrs);
	free(p->ids);
	free(p->maps);
	free(p->tasks);
	free(p->sws);
	free(p->bids);
	free(p->auxs);
	free(p->evnames);
	free(p->pend);
	free(p->filter);
	free(p->cpuid);
	free(p->kcore);
	free(p->parts);
	if (p->zds)
		ZSTD_freeDStream(p->zds);
	lpt_perf_hash_free(&p->id_index);
	lpt_perf_hash_free(&p->tr_index);
	free(p);
}

char *lpt_perf_strndup(struct lpt_perf *p, const char *s, size_t n)
{
	char *d;

	if (lpt_perf_grow(&p->strs, &p->cap_strs, p->nstrs + 1, sizeof(*p->strs)))
		return NULL;
	d = strndup(s, n);
	if (d)
		p->strs[p->nstrs++] = d;
	return d;
}

/* ---- Accessors ---- */

const struct lpt_perf_info *lpt_perf_info(const struct lpt_perf *p)
{
	return &p->info;
}

const struct ptcap_config *lpt_perf_config(const struct lpt_perf *p)
{
	return &p->cfg;
}

size_t lpt_perf_ntraces(const struct lpt_perf *p)
{
	return p->ntr;
}

const struct lpt_perf_trace *lpt_perf_trace(const struct lpt_perf *p, size_t i)
{
	return i < p->ntr ? &p->tr[i].pub : NULL;
}

int64_t lpt_perf_trace_read(const struct lpt_perf *p, size_t i, uint64_t off,
			    uint8_t *buf, size_t len)
{
	const struct lpt_perf_trace_int *t;
	uint64_t at = 0, done = 0;
	size_t k;

	if (!p || i >= p->ntr || (!buf && len))
		return -LPT_PERF_E_INVAL;
	t = &p->tr[i];
	for (k = 0; k < t->nbufs && done < len; k++) {
		const struct lpt_perf_buf *b = &t->bufs[k];
		uint64_t from, n;

		if (off + done >= at + b->size) {
			at += b->size;
			continue;
		}
		from = off + done - at;
		n = b->size - from;
		if (n > len - done)
			n = len - done;
		memcpy(buf + done, p->map + b->foff + from, (size_t)n);
		done += n;
		at += b->size;
	}
	return (int64_t)done;
}

const struct lpt_perf_map *lpt_perf_maps(const struct lpt_perf *p, size_t *n)
{
	*n = p->nmaps;
	return p->maps;
}

const struct lpt_perf_task *lpt_perf_tasks(const struct lpt_perf *p, size_t *n)
{
	*n = p->ntasks;
	return p->tasks;
}

const struct lpt_perf_switch *lpt_perf_switches(const struct lpt_perf *p, size_t *n)
{
	*n = p->nsws;
	return p->sws;
}

const struct lpt_perf_build_id *lpt_perf_build_ids(const struct lpt_perf *p, size_t *n)
{
	*n = p->nbids;
	return p->bids;
}

/* tools/perf/util/tsc.c tsc_to_perf_time(), perf_time_to_tsc(). */
uint64_t lpt_perf_tsc_to_ns(const struct lpt_perf *p, uint64_t tsc)
{
	const struct perf_rec_time_conv *tc = &p->tc;
	uint64_t quot, rem;

	if (!p->info.has_time_conv)
		return tsc;
	if (tc->cap_user_time_short)
		tsc = tc->time_cycles + ((tsc - tc->time_cycles) & tc->time_mask);
	quot = tsc >> tc->time_shift;
	rem = tsc & ((1ull << tc->time_shift) - 1);
	return tc->time_zero + quot * tc->time_mult +
	       ((rem * tc->time_mult) >> tc->time_shift);
}

uint64_t lpt_perf_ns_to_tsc(const struct lpt_perf *p, uint64_t ns)
{
	const struct perf_rec_time_conv *tc = &p->tc;
	uint64_t t, quot, rem;

	if (!p->info.has_time_conv)
		return ns;
	t = ns - tc->time_zero;
	quot = t / tc->time_mult;
	rem = t % tc->time_mult;
	return (quot << tc->time_shift) + (rem << tc->time_shift) / tc->time_mult;
}
