// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data writer (include/lwpt/perf_write.h). Layouts: include/lwpt/
 * perf_file.h; where each rule comes from in perf 6.1 is named at the code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <lwpt/perf_file.h>
#include <lwpt/perf_write.h>

/* util/header.h NAME_ALIGN: strings and build-id file names. */
#define PW_NAME_ALIGN	64
/* include/linux/sched.h TASK_COMM_LEN. */
#define PW_COMM_LEN	16
/* The event's one id occupies one u64 before the attrs section. */
#define PW_NR_IDS	1

struct pw_string {
	unsigned int feat;
	char *s;
};

struct pw_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t id[PERF_BUILD_ID_MAX];
	uint8_t len;
	char *filename;
};

struct lpt_perf_writer {
	FILE *f;
	int err;			/* first error, sticky */
	struct perf_event_attr attr;
	char *name;
	uint64_t id;
	uint64_t ids_offset, attrs_offset, data_offset;
	uint64_t pos;			/* bytes written so far */
	struct perf_auxtrace_index_entry *index;
	size_t nindex, index_cap;
	struct pw_build_id *bids;
	size_t nbids, bids_cap;
	struct pw_string strings[PERF_HEADER_LAST_FEATURE];
	size_t nstrings;
	bool have_nrcpus;
	uint32_t nr_avail, nr_online;
	bool pipe;			/* pipe format: nothing is rewritten */
	bool feats_out;			/* pipe: HEADER_FEATURE records written */
};

static int pw_fail(struct lpt_perf_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

static int pw_put(struct lpt_perf_writer *w, const void *p, size_t n)
{
	if (w->err)
		return w->err;
	if (n && fwrite(p, 1, n, w->f) != n)
		return pw_fail(w, errno ? -errno : -EIO);
	w->pos += n;
	return 0;
}

static int pw_zeros(struct lpt_perf_writer *w, size_t n)
{
	static const uint8_t z[PW_NAME_ALIGN];

	while (n && !w->err) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		pw_put(w, z, k);
		n -= k;
	}
	return w->err;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

void lpt_perf_tc_from_hz(struct lpt_perf_tc *tc, uint64_t hz)
{
	unsigned int shift;

	tc->zero = 0;
	if (!hz || hz > 1000000000000000000ull) {
		tc->shift = 0;
		tc->mult = 1;
		return;
	}
	/* The largest shift <= 31 with 1e9 * 2^shift / hz below 2^32. */
	for (shift = 31; shift > 0; shift--) {
		unsigned __int128 m = ((unsigned __int128)1000000000u << shift) / hz;

		if (m <= UINT32_MAX && m > 0)
			break;
	}
	tc->shift = (uint16_t)shift;
	tc->mult = (uint32_t)(((unsigned __int128)1000000000u << shift) / hz);
	if (!tc->mult)
		tc->mult = 1;
}

uint64_t lpt_perf_tsc_to_time(const struct lpt_perf_tc *tc, uint64_t tsc)
{
	/* tools/perf/util/tsc.c tsc_to_perf_time() (cap_user_time_short 0). */
	uint64_t quot = tsc >> tc->shift;
	uint64_t rem = tsc & ((1ull << tc->shift) - 1);

	return tc->zero + quot * tc->mult + ((rem * tc->mult) >> tc->shift);
}

/* The number of trailer bytes perf expects after a kernel record. */
static size_t pw_sid_size(const struct lpt_perf_writer *w)
{
	uint64_t t = w->attr.sample_type;
	size_t n = 0;

	n += (t & PERF_SAMPLE_TID) ? 8 : 0;
	n += (t & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (t & PERF_SAMPLE_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (t & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (t & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

/* The sample_id trailer, in the order of kernel/events/core.c
 * __perf_event__output_id_sample() (perf: evsel.c perf_evsel__parse_id_sample). */
static int pw_sid(struct lpt_perf_writer *w, const struct lpt_perf_sid *sid)
{
	uint64_t t = w->attr.sample_type;
	uint32_t u32[2];

	if (t & PERF_SAMPLE_TID) {
		u32[0] = sid->pid;
		u32[1] = sid->tid;
		pw_put(w, u32, sizeof(u32));
	}
	if (t & PERF_SAMPLE_TIME)
		pw_put(w, &sid->time, 8);
	if (t & PERF_SAMPLE_ID)
		pw_put(w, &w->id, 8);
	if (t & PERF_SAMPLE_STREAM_ID)
		pw_put(w, &w->id, 8);
	if (t & PERF_SAMPLE_CPU) {
		u32[0] = sid->cpu;
		u32[1] = 0;
		pw_put(w, u32, sizeof(u32));
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		pw_put(w, &w->id, 8);
	return w->err;
}

static void pw_pipe_features(struct lpt_perf_writer *w);

/* Before a data record: in pipe format, the features go first. */
static void pw_data(struct lpt_perf_writer *w)
{
	if (w->pipe && !w->feats_out)
		pw_pipe_features(w);
}

static int pw_header(struct lpt_perf_writer *w, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };

	pw_data(w);
	if (size > UINT16_MAX)
		return pw_fail(w, -EINVAL);
	return pw_put(w, &h, sizeof(h));
}

/* The checks and the state both formats share. */
static int pw_new(FILE *f, const struct perf_event_attr *attr, const char *name,
		  uint64_t id, struct lpt_perf_writer **wp)
{
	struct lpt_perf_writer *w;

	if (!f || !attr || !name || !wp || !id || !attr->sample_id_all ||
	    !(attr->sample_type & PERF_SAMPLE_IDENTIFIER))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->name = strdup(name);
	if (!w->name) {
		free(w);
		return -ENOMEM;
	}
	w->f = f;
	w->attr = *attr;
	w->attr.size = sizeof(w->attr);
	w->id = id;
	*wp = w;
	return 0;
}

int lpt_perf_writer_open(FILE *f, const struct perf_event_attr *attr,
			 const char *name, uint64_t id, struct lpt_perf_writer **wp)
{
	struct lpt_perf_writer *w;
	struct perf_file_header fh;
	struct perf_file_section ids;
	int err = pw_new(f, attr, name, id, &w);

	if (err)
		return err;
	if (fseeko(f, 0, SEEK_SET)) {
		err = -errno;
		free(w->name);
		free(w);
		return err;
	}
	/* header (rewritten at close), ids, attrs, then the data. */
	memset(&fh, 0, sizeof(fh));
	pw_put(w, &fh, sizeof(fh));
	w->ids_offset = w->pos;
	pw_put(w, &w->id, sizeof(w->id));
	w->attrs_offset = w->pos;
	ids.offset = w->ids_offset;
	ids.size = PW_NR_IDS * sizeof(uint64_t);
	pw_put(w, &w->attr, sizeof(w->attr));
	pw_put(w, &ids, sizeof(ids));
	w->data_offset = w->pos;
	*wp = w;
	return w->err;
}

/*
 * [fmt] "Pipe-mode data": the 16-byte header, then the attr as
 * PERF_RECORD_HEADER_ATTR with its ids (util/synthetic-events.c
 * perf_event__synthesize_attr(), first in perf_event__synthesize_for_pipe()).
 */
int lpt_perf_writer_open_pipe(FILE *f, const struct perf_event_attr *attr,
			      const char *name, uint64_t id, struct lpt_perf_writer **wp)
{
	struct perf_pipe_file_header ph = { PERF_FILE_MAGIC, sizeof(ph) };
	struct lpt_perf_writer *w;
	struct perf_event_header h = { .type = PERF_RECORD_HEADER_ATTR };
	int err = pw_new(f, attr, name, id, &w);

	if (err)
		return err;
	w->pipe = true;
	h.size = sizeof(h) + sizeof(w->attr) + sizeof(w->id);
	pw_put(w, &ph, sizeof(ph));
	pw_put(w, &h, sizeof(h));
	pw_put(w, &w->attr, sizeof(w->attr));
	pw_put(w, &w->id, sizeof(w->id));
	*wp = w;
	return w->err;
}

int lpt_perf_write_comm(struct lpt_perf_writer *w, uint32_t pid, uint32_t tid,
			const char *comm, bool exec, const struct lpt_perf_sid *sid)
{
	char name[PW_COMM_LEN] = "";
	uint32_t pt[2] = { pid, tid };
	size_t n, padded;

	if (!w || !comm || !sid)
		return -EINVAL;
	/* The kernel's perf_event_comm_event(): the name with its NUL, padded
	 * to 8 bytes. */
	n = strnlen(comm, PW_COMM_LEN - 1);
	memcpy(name, comm, n);
	padded = align_up(n + 1, 8);
	pw_header(w, PERF_RECORD_COMM, PERF_RECORD_MISC_USER |
		  (exec ? PERF_RECORD_MISC_COMM_EXEC : 0),
		  sizeof(struct perf_event_header) + sizeof(pt) + padded + pw_sid_size(w));
	pw_put(w, pt, sizeof(pt));
	pw_put(w, name, n);
	pw_zeros(w, padded - n);
	return pw_sid(w, sid);
}

int lpt_perf_write_mmap2(struct lpt_perf_writer *w, const struct lpt_perf_mmap *m,
			 const struct lpt_perf_sid *sid)
{
	/* PERF_RECORD_MMAP2 after the header (include/uapi/linux/perf_event.h). */
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		union {
			struct {
				uint32_t maj, min;
				uint64_t ino, ino_generation;
			};
			struct {
				uint8_t build_id_size;
				uint8_t reserved1;
				uint16_t reserved2;
				uint8_t build_id[20];
			};
		};
		uint32_t prot, flags;
	} r;
	uint16_t misc = PERF_RECORD_MISC_USER;
	size_t n, padded;

	if (!w || !m || !m->filename || !sid ||
	    (m->build_id && (!m->build_id_size || m->build_id_size > 20)))
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.pid = m->pid;
	r.tid = m->tid;
	r.addr = m->start;
	r.len = m->len;
	r.pgoff = m->pgoff;
	if (m->build_id) {
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		r.build_id_size = (uint8_t)m->build_id_size;
		memcpy(r.build_id, m->build_id, m->build_id_size);
	}
	r.prot = m->prot;
	r.flags = m->flags;
	n = strlen(m->filename);
	padded = align_up(n + 1, 8);
	pw_header(w, PERF_RECORD_MMAP2, misc,
		  sizeof(struct perf_event_header) + sizeof(r) + padded + pw_sid_size(w));
	pw_put(w, &r, sizeof(r));
	pw_put(w, m->filename, n);
	pw_zeros(w, padded - n);
	return pw_sid(w, sid);
}

int lpt_perf_write_switch(struct lpt_perf_writer *w, bool out, bool preempt,
			  uint32_t np_pid, uint32_t np_tid, const struct lpt_perf_sid *sid)
{
	uint32_t np[2] = { np_pid, np_tid };
	uint16_t misc = 0;

	if (!w || !sid)
		return -EINVAL;
	if (out)
		misc |= PERF_RECORD_MISC_SWITCH_OUT |
			(preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0);
	pw_header(w, PERF_RECORD_SWITCH_CPU_WIDE, misc,
		  sizeof(struct perf_event_header) + sizeof(np) + pw_sid_size(w));
	pw_put(w, np, sizeof(np));
	return pw_sid(w, sid);
}

int lpt_perf_write_record(struct lpt_perf_writer *w, uint32_t type, uint16_t misc,
			  const void *body, size_t len, const struct lpt_perf_sid *sid)
{
	size_t size;

	if (!w || (len && !body))
		return -EINVAL;
	size = sizeof(struct perf_event_header) + len + (sid ? pw_sid_size(w) : 0);
	if (size > UINT16_MAX)
		return -EINVAL;
	pw_header(w, type, misc, size);
	pw_put(w, body, len);
	return sid ? pw_sid(w, sid) : w->err;
}

int lpt_perf_write_time_conv(struct lpt_perf_writer *w, const struct lpt_perf_tc *tc,
			     bool cap_user_time_zero)
{
	struct perf_rec_time_conv r;

	if (!w || !tc)
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.header.type = PERF_RECORD_TIME_CONV;
	r.header.size = sizeof(r);
	r.time_shift = tc->shift;
	r.time_mult = tc->mult;
	r.time_zero = tc->zero;
	r.cap_user_time_zero = cap_user_time_zero;
	pw_data(w);
	return pw_put(w, &r, sizeof(r));
}

int lpt_perf_write_auxtrace_info(struct lpt_perf_writer *w, uint32_t type,
				 const uint64_t *priv, size_t n)
{
	struct perf_rec_auxtrace_info r;
	size_t size = sizeof(r) + n * sizeof(uint64_t);

	if (!w || (n && !priv) || size > UINT16_MAX)
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	r.header.type = PERF_RECORD_AUXTRACE_INFO;
	r.header.size = (uint16_t)size;
	r.type = type;
	pw_data(w);
	pw_put(w, &r, sizeof(r));
	return pw_put(w, priv, n * sizeof(uint64_t));
}

int lpt_perf_write_auxtrace(struct lpt_perf_writer *w, const void *data, size_t len,
			    const struct lpt_perf_aux *aux)
{
	struct perf_rec_auxtrace r;
	uint64_t padded = align_up(len, PERF_AUXTRACE_RECORD_ALIGNMENT);

	if (!w || !data || !len || !aux)
		return -EINVAL;
	pw_data(w);
	if (w->pipe)
		goto write;	/* no HEADER_AUXTRACE index in pipe format */
	if (w->nindex == w->index_cap) {
		size_t cap = w->index_cap ? 2 * w->index_cap : 64;
		void *p = realloc(w->index, cap * sizeof(*w->index));

		if (!p)
			return pw_fail(w, -ENOMEM);
		w->index = p;
		w->index_cap = cap;
	}
	w->index[w->nindex].file_offset = w->pos;
	/* auxtrace.c auxtrace_queues__add_indexed_event(): sz is header.size. */
	w->index[w->nindex].sz = sizeof(r);
	w->nindex++;
write:
	memset(&r, 0, sizeof(r));
	r.header.type = PERF_RECORD_AUXTRACE;
	r.header.size = sizeof(r);
	r.size = padded;
	r.offset = aux->offset;
	r.reference = aux->reference;
	r.idx = aux->idx;
	r.tid = aux->tid;
	r.cpu = aux->cpu;
	pw_put(w, &r, sizeof(r));
	pw_put(w, data, len);
	return pw_zeros(w, padded - len);
}

static void pw_build_id(struct lpt_perf_writer *w, const struct pw_build_id *b,
			uint32_t type);

int lpt_perf_add_build_id(struct lpt_perf_writer *w, int32_t pid, uint16_t misc,
			  const uint8_t *id, size_t len, const char *filename)
{
	struct pw_build_id *b, one;

	if (!w || !id || !filename || !len || len > PERF_BUILD_ID_MAX ||
	    strlen(filename) + 1 > UINT16_MAX - sizeof(struct perf_rec_build_id) - PW_NAME_ALIGN)
		return -EINVAL;
	if (w->pipe) {
		/* No feature section to come: a record now. */
		memset(&one, 0, sizeof(one));
		one.pid = pid;
		one.misc = misc;
		one.len = (uint8_t)len;
		memcpy(one.id, id, len);
		one.filename = (char *)filename;
		pw_data(w);
		pw_build_id(w, &one, PERF_RECORD_HEADER_BUILD_ID);
		return w->err;
	}
	if (w->nbids == w->bids_cap) {
		size_t cap = w->bids_cap ? 2 * w->bids_cap : 16;
		void *p = realloc(w->bids, cap * sizeof(*w->bids));

		if (!p)
			return pw_fail(w, -ENOMEM);
		w->bids = p;
		w->bids_cap = cap;
	}
	b = &w->bids[w->nbids];
	memset(b, 0, sizeof(*b));
	b->filename = strdup(filename);
	if (!b->filename)
		return pw_fail(w, -ENOMEM);
	b->pid = pid;
	b->misc = misc;
	b->len = (uint8_t)len;
	memcpy(b->id, id, len);
	w->nbids++;
	return 0;
}

int lpt_perf_set_string(struct lpt_perf_writer *w, unsigned int feat, const char *s)
{
	size_t i;
	char *copy;

	if (!w || !s)
		return -EINVAL;
	switch (feat) {
	case PERF_HEADER_HOSTNAME:
	case PERF_HEADER_OSRELEASE:
	case PERF_HEADER_VERSION:
	case PERF_HEADER_ARCH:
	case PERF_HEADER_CPUDESC:
	case PERF_HEADER_CPUID:
		break;
	default:
		return -EINVAL;
	}
	if (w->feats_out)
		return -EBUSY;
	copy = strdup(s);
	if (!copy)
		return pw_fail(w, -ENOMEM);
	for (i = 0; i < w->nstrings; i++)
		if (w->strings[i].feat == feat) {
			free(w->strings[i].s);
			w->strings[i].s = copy;
			return 0;
		}
	w->strings[w->nstrings].feat = feat;
	w->strings[w->nstrings].s = copy;
	w->nstrings++;
	return 0;
}

void lpt_perf_set_nrcpus(struct lpt_perf_writer *w, uint32_t avail, uint32_t online)
{
	if (!w || w->feats_out)
		return;
	w->have_nrcpus = true;
	w->nr_avail = avail;
	w->nr_online = online;
}

/* util/header.c do_write_string(). */
static void pw_string(struct lpt_perf_writer *w, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t len = (uint32_t)align_up(n, PW_NAME_ALIGN);

	pw_put(w, &len, sizeof(len));
	pw_put(w, s, n);
	pw_zeros(w, len - n);
}

/* One build-id entry: util/build-id.c write_buildid() in the file
 * format's feature, util/synthetic-events.c perf_event__synthesize_build_id()
 * as a PERF_RECORD_HEADER_BUILD_ID record (@type) in pipe format. */
static void pw_build_id(struct lpt_perf_writer *w, const struct pw_build_id *b,
			uint32_t type)
{
	struct perf_rec_build_id r;
	size_t n = strlen(b->filename) + 1;
	size_t len = align_up(n, PW_NAME_ALIGN);

	memset(&r, 0, sizeof(r));
	r.header.type = type;
	r.header.misc = b->misc | PERF_RECORD_MISC_BUILD_ID_SIZE;
	r.header.size = (uint16_t)(sizeof(r) + len);
	r.pid = b->pid;
	memcpy(r.build_id, b->id, b->len);
	r.build_id[PERF_BUILD_ID_MAX] = b->len;
	pw_put(w, &r, sizeof(r));
	pw_put(w, b->filename, n);
	pw_zeros(w, len - n);
}

static void pw_build_ids(struct lpt_perf_writer *w)
{
	size_t i;

	for (i = 0; i < w->nbids; i++)
		pw_build_id(w, &w->bids[i], 0);
}

/* util/header.c write_event_desc(). */
static void pw_event_desc(struct lpt_perf_writer *w)
{
	uint32_t v[2] = { 1, sizeof(w->attr) };
	uint32_t nids = PW_NR_IDS;

	pw_put(w, v, sizeof(v));
	pw_put(w, &w->attr, sizeof(w->attr));
	pw_put(w, &nids, sizeof(nids));
	pw_string(w, w->name);
	pw_put(w, &w->id, sizeof(w->id));
}

/* util/auxtrace.c auxtrace_index__write(): u64 count, then the entries. */
static void pw_aux_index(struct lpt_perf_writer *w)
{
	uint64_t n = w->nindex;

	pw_put(w, &n, sizeof(n));
	pw_put(w, w->index, w->nindex * sizeof(*w->index));
}

static void pw_feature(struct lpt_perf_writer *w, unsigned int feat)
{
	size_t i;

	for (i = 0; i < w->nstrings; i++)
		if (w->strings[i].feat == feat)
			pw_string(w, w->strings[i].s);
	switch (feat) {
	case PERF_HEADER_BUILD_ID:
		pw_build_ids(w);
		break;
	case PERF_HEADER_NRCPUS: {
		uint32_t v[2] = { w->nr_avail, w->nr_online };

		pw_put(w, v, sizeof(v));
		break;
	}
	case PERF_HEADER_EVENT_DESC:
		pw_event_desc(w);
		break;
	case PERF_HEADER_AUXTRACE:
		pw_aux_index(w);
		break;
	default:
		break;
	}
}

static bool pw_has_feature(const struct lpt_perf_writer *w, unsigned int feat)
{
	size_t i;

	for (i = 0; i < w->nstrings; i++)
		if (w->strings[i].feat == feat)
			return true;
	switch (feat) {
	case PERF_HEADER_BUILD_ID:
		return w->nbids > 0;
	case PERF_HEADER_NRCPUS:
		return w->have_nrcpus;
	case PERF_HEADER_EVENT_DESC:
		return true;
	case PERF_HEADER_AUXTRACE:
		return w->nindex > 0;
	default:
		return false;
	}
}

/* The size of a feature's body as pw_feature() writes it. */
static size_t pw_string_size(const char *s)
{
	return sizeof(uint32_t) + align_up(strlen(s) + 1, PW_NAME_ALIGN);
}

static size_t pw_feature_size(const struct lpt_perf_writer *w, unsigned int feat)
{
	size_t i;

	for (i = 0; i < w->nstrings; i++)
		if (w->strings[i].feat == feat)
			return pw_string_size(w->strings[i].s);
	switch (feat) {
	case PERF_HEADER_NRCPUS:
		return 2 * sizeof(uint32_t);
	case PERF_HEADER_EVENT_DESC:
		return 3 * sizeof(uint32_t) + sizeof(w->attr) + pw_string_size(w->name) +
		       PW_NR_IDS * sizeof(uint64_t);
	default:
		return 0;
	}
}

/*
 * Pipe format: the features perf synthesizes as PERF_RECORD_HEADER_FEATURE
 * records, in bit order, then the HEADER_LAST_FEATURE mark
 * (util/synthetic-events.c perf_event__synthesize_features(): only the
 * features whose feat_ops entry is FEAT_OPR, util/header.c; HEADER_BUILD_ID
 * and HEADER_AUXTRACE are not among them). Written once, before the first
 * data record or at close.
 */
static void pw_pipe_features(struct lpt_perf_writer *w)
{
	struct perf_rec_header_feature r;
	unsigned int feat;

	w->feats_out = true;
	for (feat = 1; feat < PERF_HEADER_LAST_FEATURE; feat++) {
		if (feat == PERF_HEADER_BUILD_ID || feat == PERF_HEADER_AUXTRACE ||
		    !pw_has_feature(w, feat))
			continue;
		memset(&r, 0, sizeof(r));
		r.header.type = PERF_RECORD_HEADER_FEATURE;
		r.header.size = (uint16_t)(sizeof(r) + pw_feature_size(w, feat));
		r.feat_id = feat;
		pw_put(w, &r, sizeof(r));
		pw_feature(w, feat);
	}
	memset(&r, 0, sizeof(r));
	r.header.type = PERF_RECORD_HEADER_FEATURE;
	r.header.size = sizeof(r);
	r.feat_id = PERF_HEADER_LAST_FEATURE;
	pw_put(w, &r, sizeof(r));
}

/*
 * [fmt] "Flags section": after the data, one perf_file_section per set
 * feature bit in bit order, then the features (util/header.c
 * perf_header__adds_write()).
 */
static void pw_features(struct lpt_perf_writer *w, struct perf_file_header *fh)
{
	struct perf_file_section sec[PERF_HEADER_LAST_FEATURE];
	unsigned int feat, n = 0;
	uint64_t table = w->pos;

	for (feat = 1; feat < PERF_HEADER_LAST_FEATURE; feat++)
		if (pw_has_feature(w, feat)) {
			fh->features[feat / 64] |= 1ull << (feat % 64);
			n++;
		}
	memset(sec, 0, sizeof(sec));
	pw_put(w, sec, n * sizeof(sec[0]));
	n = 0;
	for (feat = 1; feat < PERF_HEADER_LAST_FEATURE; feat++) {
		if (!pw_has_feature(w, feat))
			continue;
		sec[n].offset = w->pos;
		pw_feature(w, feat);
		sec[n].size = w->pos - sec[n].offset;
		n++;
	}
	if (w->err)
		return;
	if (fseeko(w->f, (off_t)table, SEEK_SET) ||
	    fwrite(sec, sizeof(sec[0]), n, w->f) != n)
		pw_fail(w, errno ? -errno : -EIO);
}

int lpt_perf_writer_close(struct lpt_perf_writer *w)
{
	struct perf_file_header fh;
	int err;
	size_t i;

	if (!w)
		return 0;
	if (w->pipe) {
		pw_data(w);
		if (!w->err && fflush(w->f))
			pw_fail(w, errno ? -errno : -EIO);
		goto out;
	}
	memset(&fh, 0, sizeof(fh));
	fh.magic = PERF_FILE_MAGIC;
	fh.size = sizeof(fh);
	fh.attr_size = sizeof(w->attr) + sizeof(struct perf_file_section);
	fh.attrs.offset = w->attrs_offset;
	fh.attrs.size = fh.attr_size;
	fh.data.offset = w->data_offset;
	fh.data.size = w->pos - w->data_offset;
	pw_features(w, &fh);
	if (!w->err && (fseeko(w->f, 0, SEEK_SET) || fwrite(&fh, sizeof(fh), 1, w->f) != 1 ||
			fflush(w->f)))
		pw_fail(w, errno ? -errno : -EIO);
out:
	err = w->err;
	for (i = 0; i < w->nbids; i++)
		free(w->bids[i].filename);
	for (i = 0; i < w->nstrings; i++)
		free(w->strings[i].s);
	free(w->bids);
	free(w->index);
	free(w->name);
	free(w);
	return err;
}
