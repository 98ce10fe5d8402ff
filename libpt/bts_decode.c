// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * BTS records -> the flow engine's blocks and events (lwpt/bts_decode.h):
 * the code between one record's "to" and the next record's "from" is
 * linear (SDM Vol. 3B 17.4.8: a record for every taken branch, interrupt
 * and exception), walked with lpt_cov_insn_at(). Each walk's result is
 * kept by its two ends (the block cache below), so that a stretch of code
 * the trace runs again costs one look-up instead of decoding each of its
 * instructions again, as the flow engine caches its blocks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/bts_decode.h>
#include <lwpt/pt_pkt.h>

/* What a record gives, in order: events and at most one block. */
enum { ITEM_EVENT, ITEM_BLOCK };
#define QUEUE_MAX	6

/*
 * The block cache: walks that succeeded, by their first instruction and
 * their last (the record's "from"): the image does not change while the
 * decoder lives, so the same two ends always give the same block. The
 * lengths live in arena chunks that never move (a block handed out stays
 * valid); once the cache holds LPT_COV_CACHE_MAX bytes it takes no more
 * blocks (the walks go on uncached).
 */
struct bts_cached {
	uint64_t ip, end_ip;	/* ip 0: an empty slot (a block at 0 is not cached) */
	const uint8_t *lens;
	uint32_t ninsn;
	uint8_t end;		/* LPT_FLOW_END_* */
};

#define ARENA_CHUNK	(64u << 10)

struct bts_arena {
	struct bts_arena *next;
	size_t used;
	uint8_t bytes[];
};

struct lpt_bts {
	const struct lpt_cov_image *img;
	const uint8_t *recs;
	size_t n;		/* whole records */
	size_t i;		/* the next record to take */
	uint64_t cur;		/* where the code goes on, if @cur_ok */
	bool cur_ok;
	uint64_t resume;	/* after a disable: where user code goes on */
	bool resume_ok;
	struct lpt_flow_block blk;
	uint8_t *lens[2];	/* two: the block handed out stays valid
				 * while the next record is taken */
	size_t lens_cap[2];
	unsigned int which;	/* the buffer the next walk fills */
	struct {
		int kind;
		struct lpt_flow_event ev;
	} q[QUEUE_MAX];
	unsigned int qhead, qn;
	struct bts_cached *cache;	/* open addressing, cache_cap slots */
	size_t cache_cap, cache_n;
	size_t cache_bytes;		/* slots and arena */
	struct bts_arena *arena;
};

static bool kernel(uint64_t a)
{
	return a >= LPT_BTS_KERNEL_MIN;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	int k;

	for (k = 7; k >= 0; k--)
		v = (v << 8) | p[k];
	return v;
}

static void push_event(struct lpt_bts *d, uint32_t type, uint64_t ip, size_t rec)
{
	unsigned int slot = (d->qhead + d->qn++) % QUEUE_MAX;

	memset(&d->q[slot].ev, 0, sizeof(d->q[slot].ev));
	d->q[slot].kind = ITEM_EVENT;
	d->q[slot].ev.type = type;
	d->q[slot].ev.ip = ip;
	d->q[slot].ev.mode = 64;
	d->q[slot].ev.offset = (uint64_t)rec * LPT_BTS_RECORD_SIZE;
}

static void push_block(struct lpt_bts *d)
{
	unsigned int slot = (d->qhead + d->qn++) % QUEUE_MAX;

	d->q[slot].kind = ITEM_BLOCK;
}

static uint8_t end_of(uint8_t kind)
{
	switch (kind) {
	case LPT_COV_INSN_JCC:		return LPT_FLOW_END_JCC;
	case LPT_COV_INSN_JMP:		return LPT_FLOW_END_JMP;
	case LPT_COV_INSN_CALL:		return LPT_FLOW_END_CALL;
	case LPT_COV_INSN_JMP_IND:	return LPT_FLOW_END_JMP_IND;
	case LPT_COV_INSN_CALL_IND:	return LPT_FLOW_END_CALL_IND;
	case LPT_COV_INSN_RET:		return LPT_FLOW_END_RET;
	case LPT_COV_INSN_FAR:		return LPT_FLOW_END_FAR;
	default:			return LPT_FLOW_END_NONE;
	}
}

static size_t slot_of(uint64_t ip, uint64_t end_ip, size_t cap)
{
	uint64_t h = (ip ^ (end_ip * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	return (size_t)(h >> 32) & (cap - 1);
}

/* The cached block from @ip to @end_ip, or NULL. */
static const struct bts_cached *cache_find(const struct lpt_bts *d, uint64_t ip,
					   uint64_t end_ip)
{
	size_t i;

	if (!d->cache_n)
		return NULL;
	for (i = slot_of(ip, end_ip, d->cache_cap);; i = (i + 1) & (d->cache_cap - 1)) {
		const struct bts_cached *c = &d->cache[i];

		if (!c->ip)
			return NULL;
		if (c->ip == ip && c->end_ip == end_ip)
			return c;
	}
}

static bool cache_grow(struct lpt_bts *d)
{
	size_t cap = d->cache_cap ? 2 * d->cache_cap : 1024, i;
	struct bts_cached *t;

	if (d->cache_bytes + cap * sizeof(*t) > LPT_COV_CACHE_MAX)
		return false;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return false;
	for (i = 0; i < d->cache_cap; i++) {
		size_t k;

		if (!d->cache[i].ip)
			continue;
		k = slot_of(d->cache[i].ip, d->cache[i].end_ip, cap);
		while (t[k].ip)
			k = (k + 1) & (cap - 1);
		t[k] = d->cache[i];
	}
	d->cache_bytes += cap * sizeof(*t);
	d->cache_bytes -= d->cache_cap * sizeof(*t);
	free(d->cache);
	d->cache = t;
	d->cache_cap = cap;
	return true;
}

/* Keep d->blk (just walked) in the cache; nothing when it is full. */
static void cache_add(struct lpt_bts *d)
{
	size_t n = d->blk.ninsn, i;
	struct bts_arena *a = d->arena;
	uint8_t *lens;

	if (!d->blk.ip || (2 * (d->cache_n + 1) > d->cache_cap && !cache_grow(d)))
		return;
	if (!a || a->used + n > ARENA_CHUNK) {
		size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		if (d->cache_bytes + size > LPT_COV_CACHE_MAX)
			return;
		a = malloc(sizeof(*a) + size);
		if (!a)
			return;
		a->next = d->arena;
		a->used = 0;
		d->arena = a;
		d->cache_bytes += size;
	}
	lens = a->bytes + a->used;
	memcpy(lens, d->blk.lens, n);
	a->used += n;
	for (i = slot_of(d->blk.ip, d->blk.end_ip, d->cache_cap); d->cache[i].ip;
	     i = (i + 1) & (d->cache_cap - 1))
		;
	d->cache[i].ip = d->blk.ip;
	d->cache[i].end_ip = d->blk.end_ip;
	d->cache[i].lens = lens;
	d->cache[i].ninsn = d->blk.ninsn;
	d->cache[i].end = d->blk.end;
	d->cache_n++;
	/* Hand out the cached copy: the walk buffer is reused. */
	d->blk.lens = lens;
}

/*
 * Walk the linear code from d->cur to @from into d->blk; the length of the
 * instruction at @from in *@last_len. Return 0 or a negative LPT_ERR_*.
 */
static int walk(struct lpt_bts *d, uint64_t from, unsigned int *last_len)
{
	uint64_t addr = d->cur;
	size_t cnt = 0;
	unsigned int w = d->which;
	const struct bts_cached *c;

	if (addr > from)
		return LPT_ERR_BAD_CONTEXT;
	c = cache_find(d, addr, from);
	if (c) {
		d->blk.ip = addr;
		d->blk.end_ip = from;
		d->blk.lens = c->lens;
		d->blk.ninsn = c->ninsn;
		d->blk.mode = 64;
		d->blk.end = c->end;
		*last_len = c->lens[c->ninsn - 1];
		return 0;
	}
	for (;;) {
		struct lpt_cov_insn in;
		int err;

		if (cnt == LPT_BTS_BLOCK_MAX)
			return LPT_ERR_OVERFLOW;
		err = lpt_cov_insn_at(d->img, addr, 64, &in);
		if (err < 0)
			return err;
		if (cnt == d->lens_cap[w]) {
			size_t cap = d->lens_cap[w] ? 2 * d->lens_cap[w] : 256;
			uint8_t *more = realloc(d->lens[w], cap);

			if (!more)
				return LPT_ERR_NOMEM;
			d->lens[w] = more;
			d->lens_cap[w] = cap;
		}
		d->lens[w][cnt++] = in.len;
		if (addr == from) {
			d->blk.ip = d->cur;
			d->blk.end_ip = from;
			d->blk.lens = d->lens[w];
			d->which ^= 1;
			d->blk.ninsn = (uint32_t)cnt;
			d->blk.mode = 64;
			d->blk.end = end_of(in.kind);
			*last_len = in.len;
			cache_add(d);
			return 0;
		}
		/* A branch that is always taken, or #UD, cannot be passed. */
		if (in.kind != LPT_COV_INSN_OTHER && in.kind != LPT_COV_INSN_JCC)
			return LPT_ERR_BAD_CONTEXT;
		addr += in.len;
		if (addr > from)
			return LPT_ERR_BAD_CONTEXT;
	}
}

/* Take record d->i: queue what it gives. */
static void take(struct lpt_bts *d)
{
	size_t i = d->i++;
	const uint8_t *r = d->recs + i * LPT_BTS_RECORD_SIZE;
	uint64_t from = get64(r), to = get64(r + 8);
	unsigned int len = 0;
	int err;

	/* No record: perf's intel_bts decoder skips a record whose from and
	 * to are 0 (util/intel-bts.c intel_bts_process_buffer()); pt2perf
	 * ends each AUXTRACE buffer with one (Documentation/pt2perf.rst). */
	if (!from && !to)
		return;
	if (!d->cur_ok && d->resume_ok && !kernel(from)) {
		/* Back from the kernel where it was left. */
		d->cur = d->resume;
		d->cur_ok = true;
		d->resume_ok = false;
		push_event(d, LPT_FLOW_EV_ENABLED, d->cur, i);
		d->q[(d->qhead + d->qn - 1) % QUEUE_MAX].ev.resumed = true;
	}
	if (!d->cur_ok || kernel(from)) {
		/* Code not followed (the kernel's, or before the first
		 * record): the record only says where it goes on. */
		d->cur_ok = !kernel(to);
		d->resume_ok = false;
		if (d->cur_ok) {
			d->cur = to;
			push_event(d, LPT_FLOW_EV_ENABLED, to, i);
		}
		return;
	}
	err = walk(d, from, &len);
	if (err < 0) {
		push_event(d, LPT_FLOW_EV_RESYNC, to, i);
		d->q[(d->qhead + d->qn - 1) % QUEUE_MAX].ev.err = err;
		d->cur_ok = !kernel(to);
		d->cur = to;
		d->resume_ok = false;
		return;
	}
	if (kernel(to) && d->blk.end != LPT_FLOW_END_FAR) {
		/*
		 * Not a branch at @from: an interrupt or a fault taken there
		 * (SDM 17.4.8: FROM is the instruction not yet executed, as
		 * the model's bts_step() records it). The instruction runs
		 * once user mode resumes there, not before.
		 */
		if (--d->blk.ninsn) {
			d->blk.end_ip = from - d->blk.lens[d->blk.ninsn - 1];
			d->blk.end = LPT_FLOW_END_NONE;
			push_block(d);
		}
		push_event(d, LPT_FLOW_EV_DISABLED, to, i);
		d->cur_ok = false;
		d->resume = from;
		d->resume_ok = true;
		return;
	}
	push_block(d);
	if (kernel(to)) {
		push_event(d, LPT_FLOW_EV_DISABLED, to, i);
		d->cur_ok = false;
		d->resume = from + len;
		d->resume_ok = true;
	} else {
		d->cur = to;
	}
}

static int status(struct lpt_bts *d)
{
	while (!d->qn && d->i < d->n)
		take(d);
	if (!d->qn)
		return LPT_FLOW_EOS;
	return d->q[d->qhead].kind == ITEM_EVENT ? LPT_FLOW_EVENT_PENDING : 0;
}

struct lpt_bts *lpt_bts_alloc(const struct lpt_cov_image *img, const void *recs,
			      size_t len, uint64_t start_ip)
{
	struct lpt_bts *d;

	if (!img || (!recs && len)) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->img = img;
	d->recs = recs;
	d->n = len / LPT_BTS_RECORD_SIZE;
	d->cur = start_ip;
	d->cur_ok = start_ip != 0;
	return d;
}

void lpt_bts_free(struct lpt_bts *d)
{
	if (!d)
		return;
	free(d->lens[0]);
	free(d->lens[1]);
	free(d->cache);
	while (d->arena) {
		struct bts_arena *next = d->arena->next;

		free(d->arena);
		d->arena = next;
	}
	free(d);
}

int lpt_bts_status(struct lpt_bts *d)
{
	if (!d)
		return LPT_ERR_INVALID;
	return status(d);
}

int lpt_bts_next(struct lpt_bts *d, struct lpt_flow_block *b)
{
	int st;

	if (!d || !b)
		return LPT_ERR_INVALID;
	st = status(d);
	if (st)
		return LPT_ERR_BAD_CONTEXT;
	*b = d->blk;
	d->qhead = (d->qhead + 1) % QUEUE_MAX;
	d->qn--;
	return status(d);
}

int lpt_bts_event(struct lpt_bts *d, struct lpt_flow_event *ev)
{
	if (!d || !ev)
		return LPT_ERR_INVALID;
	if (status(d) != LPT_FLOW_EVENT_PENDING)
		return LPT_ERR_BAD_CONTEXT;
	*ev = d->q[d->qhead].ev;
	d->qhead = (d->qhead + 1) % QUEUE_MAX;
	d->qn--;
	return status(d);
}
