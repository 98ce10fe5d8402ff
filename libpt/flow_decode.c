// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The flow engine (lwpt/pt_flow.h): the coverage decoder's block walk
 * (cov_decode.c) through its flow hooks (cov_internal.h), its blocks and
 * events queued in trace order and handed out one at a time.
 *
 * The walk is pushed one packet at a time (cov_flow_step()) until the
 * queue holds what the caller asks for and one item more (the status of a
 * call says what follows it), so the queue stays as short as the longest
 * packet's output (a TNT.64: 47 blocks).
 */
#include <lwpt/pt_flow.h>
#include <lwpt/pt_pkt.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libpt/cov_internal.h"
#include "libpt/flow_time.h"

enum flow_item_kind {
	FI_BLOCK,
	FI_EVENT,
};

struct flow_item {
	struct lpt_flow_block b;	/* FI_BLOCK: as handed out; both kinds:
					 * tsc, end_tsc (a block's last
					 * instruction's time) and query_offset
					 * (libipt's trace offset before the
					 * call that returns the item) */
	uint8_t kind;		/* enum flow_item_kind */
	uint8_t type;		/* FI_EVENT: enum cov_flow_ev */
	bool supp;		/* FI_EVENT: IP suppressed */
	int err;		/* FI_EVENT */
	uint64_t from;		/* FI_EVENT */
	uint64_t ip;		/* FI_EVENT */
	uint64_t off;		/* FI_EVENT: trace offset */
};

/* lpt_flow_block.lens of a block of one instruction: its length in a
 * table that lives as long as the program (the walk's may not). */
static const uint8_t one_len[16] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};

struct lpt_flow {
	struct lpt_flow_config cfg;
	struct lpt_cov *cov;
	bool synced, done;
	bool timed;		/* this decode tracks time or offsets (the
				 * flags, unless the trace has no time) */
	int err;		/* out of memory while queueing */
	/* the queue: a ring of @cap (a power of two) items */
	struct flow_item *q;
	size_t cap, head, n;
	const struct lpt_cov_image *img;
	/* the last instruction handed out, for enabled.resumed */
	uint64_t last_ip;
	uint8_t last_len, last_mode, last_end;
	uint64_t resume_ip;	/* where tracing should resume; 0: unknown */
	/* LPT_FLOW_F_TIME (time_step()) */
	const uint8_t *trace;
	struct flow_clock clk;
	uint64_t vis;		/* libipt's pt_insn_time() now */
	uint64_t vis_pos;	/* libipt's pt_insn_get_offset() now */
	size_t npend;		/* items at the queue's tail whose time waits
				 * for the next packet libipt queries */
	bool pend_q;		/* the first of them is the query item (its
				 * call fetched the next event, if one) */
	/* lpt_flow_blocks() on an untimed decode: the walk's blocks go
	 * straight into the caller's array, @dk of @dmax there, while
	 * nothing is queued */
	struct lpt_flow_block *dst;
	size_t dk, dmax;
};

void lpt_flow_config_init(struct lpt_flow_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->cache_max = LPT_COV_CACHE_MAX;
}

static struct flow_item *q_grow(struct lpt_flow *f);

/* A new item at the tail of the queue; NULL when out of memory. */
static inline struct flow_item *q_push(struct lpt_flow *f)
{
	if (f->n == f->cap)
		return q_grow(f);
	return &f->q[(f->head + f->n++) & (f->cap - 1)];
}

/* q_push() on a full queue: twice the room, the items kept in order. */
static struct flow_item *q_grow(struct lpt_flow *f)
{
	size_t cap = f->cap ? 2 * f->cap : 64;
	struct flow_item *nq = malloc(cap * sizeof(*nq));

	if (!nq) {
		f->err = LPT_ERR_NOMEM;
		return NULL;
	}
	for (size_t i = 0; i < f->n; i++)
		nq[i] = f->q[(f->head + i) & (f->cap - 1)];
	free(f->q);
	f->q = nq;
	f->cap = cap;
	f->head = 0;
	return &f->q[(f->head + f->n++) & (f->cap - 1)];
}

static void on_insns(void *ctx, uint64_t start, uint64_t last,
		     const uint8_t *lens, uint32_t n, uint8_t mode,
		     unsigned int end)
{
	struct lpt_flow *f = ctx;
	struct lpt_flow_block *b;

	if (f->dst && !f->n && f->dk < f->dmax) {
		b = &f->dst[f->dk++];	/* lpt_flow_blocks(): handed out */
	} else {
		struct flow_item *it = q_push(f);

		if (!it)
			return;
		it->kind = FI_BLOCK;
		b = &it->b;
	}
	/* every field a block's reader reads, no memset (one per block) */
	b->tsc = b->end_tsc = f->vis;
	b->query_offset = f->vis_pos;
	b->mode = mode;
	b->end = (uint8_t)end;
	b->ninsn = n;
	b->ip = start;
	/* the caller's length of a single instruction may not live on */
	b->lens = n == 1 ? &one_len[lens[0] & 15] : lens;
	if (!last) {	/* as libipt: the IP plus the lengths, in any mode */
		last = start;
		for (uint32_t i = 0; i + 1 < n; i++)
			last += lens[i];
	}
	b->end_ip = last;
}

static void on_event(void *ctx, unsigned int type, uint64_t from, uint64_t ip,
		     bool suppressed, int err, uint64_t off)
{
	struct lpt_flow *f = ctx;
	struct flow_item *it = q_push(f);

	if (!it)
		return;
	memset(it, 0, sizeof(*it));
	it->kind = FI_EVENT;
	it->b.tsc = it->b.end_tsc = f->vis;
	it->b.query_offset = f->vis_pos;
	it->type = (uint8_t)type;
	it->supp = suppressed;
	it->err = err;
	it->from = from;
	it->ip = ip;
	it->off = off;
}

/* Block @b without its last instruction (it has more than one). */
static void retract_insn(struct lpt_flow_block *b)
{
	uint32_t n = --b->ninsn;

	b->end_ip = b->ip;
	for (uint32_t i = 0; i + 1 < n; i++)
		b->end_ip += b->lens[i];
	if (n == 1)	/* one instruction: its length kept */
		b->lens = &one_len[b->lens[0] & 15];
	b->end = COV_END_NONE;
}

static void on_retract(void *ctx)
{
	struct lpt_flow *f = ctx;
	struct flow_item *it;

	if (!f->n) {
		/* the step's last item went into lpt_flow_blocks()'s array
		 * (nothing queued after it) */
		if (f->dst && f->dk) {
			if (f->dst[f->dk - 1].ninsn > 1)
				retract_insn(&f->dst[f->dk - 1]);
			else
				f->dk--;
		}
		return;
	}
	it = &f->q[(f->head + f->n - 1) & (f->cap - 1)];
	if (it->kind == FI_BLOCK && it->b.ninsn > 1)
		retract_insn(&it->b);
	else
		f->n--;
}

static const struct cov_flow_ops flow_ops = {
	.insns = on_insns,
	.event = on_event,
	.retract = on_retract,
};

struct lpt_flow *lpt_flow_alloc(const struct lpt_flow_config *cfg,
				const struct lpt_cov_image *img)
{
	struct lpt_cov_config cc;
	struct lpt_flow *f;

	if (!cfg || !img || cfg->size < offsetof(struct lpt_flow_config, cpu) ||
	    cfg->nfilter > LPT_COV_MAX_FILTERS) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	lpt_flow_config_init(&f->cfg);
	memcpy(&f->cfg, cfg, cfg->size < sizeof(*cfg) ? cfg->size : sizeof(*cfg));
	f->cfg.size = sizeof(f->cfg);
	if (!f->cfg.cache_max)
		f->cfg.cache_max = LPT_COV_CACHE_MAX;
	lpt_cov_config_init(&cc);
	cc.flags = LPT_COV_F_NO_PATHS;	/* cached paths walk no blocks */
	if (f->cfg.flags & LPT_FLOW_F_CHUNK)
		cc.flags |= LPT_COV_F_CHUNK;
	cc.nfilter = f->cfg.nfilter;
	memcpy(cc.filter, f->cfg.filter, sizeof(cc.filter));
	cc.cpu = f->cfg.cpu;
	cc.cache_max = f->cfg.cache_max;
	f->img = img;
	f->clk.cfg = f->cfg.time;
	f->cov = lpt_cov_alloc(&cc, img);	/* errno EINVAL, ENOMEM */
	if (!f->cov) {
		free(f);
		return NULL;
	}
	return f;
}

void lpt_flow_free(struct lpt_flow *f)
{
	if (!f)
		return;
	lpt_cov_free(f->cov);
	free(f->q);
	free(f);
}

static struct flow_item *q_at(struct lpt_flow *f, size_t i)
{
	return &f->q[(f->head + i) & (f->cap - 1)];
}

static void set_time(struct flow_item *it, uint64_t tsc)
{
	it->b.tsc = it->b.end_tsc = tsc;
}

/* Whether libipt queries a packet for the branch that ends @it (a TNT
 * bit, a TIP): a conditional, indirect or far branch, a return. */
static bool query_block(const struct flow_item *it)
{
	return it->kind == FI_BLOCK && it->b.end != COV_END_NONE &&
	       it->b.end != COV_END_JMP && it->b.end != COV_END_CALL;
}

/*
 * The time of the items queued from @k0 on by the packet just decoded
 * (LPT_FLOW_F_TIME; pt_flow.h "Time"). libipt's time is its query
 * decoder's at the last packet a query read (pt_qry_cond_branch(),
 * pt_qry_indirect_branch(), pt_qry_event() keep it in last_time);
 * pt_insn_next() and pt_insn_event() fetch an event as soon as the status
 * of the query before says one is next (event_pending()), so the items
 * from the last query on take the time of the packet that publishes that
 * event, if the next packet queried is one; else they keep theirs. The
 * clock reads the packets in trace order as the walk does; at a resync
 * it starts again (pt_qry_start() resets the time).
 */
static void time_step(struct lpt_flow *f, size_t k0)
{
	const uint8_t *to = f->trace + cov_flow_offset(f->cov);
	size_t first_q = SIZE_MAX, last_q = SIZE_MAX, from = k0 - f->npend;
	uint64_t p0 = (uint64_t)(f->clk.pos - f->trace), pa, cur;
	size_t nev = 0, last_ev = SIZE_MAX, qb = SIZE_MAX;
	bool resync = false, publish;
	uint64_t t;

	for (size_t i = k0; i < f->n; i++) {
		struct flow_item *it = q_at(f, i);

		if (it->kind == FI_EVENT && it->type == COV_EV_ERROR) {
			resync = true;
		} else if (it->kind == FI_EVENT || query_block(it)) {
			if (first_q == SIZE_MAX)
				first_q = i;
			last_q = i;
			if (it->kind == FI_EVENT) {
				nev++;
				last_ev = i;
			} else if (nev && qb == SIZE_MAX) {
				qb = i;	/* a TIP an event bound to, then read */
			}
		}
	}
	if (resync) {	/* the items keep the time they were queued with */
		f->npend = 0;
		f->pend_q = false;
		f->vis = 0;
		flow_clock_reset(&f->clk, to, f->clk.end);
		f->vis_pos = (uint64_t)(flow_clock_ahead(&f->clk) - f->trace);
		return;
	}
	publish = flow_clock_advance(&f->clk, to);
	t = flow_clock_tsc(&f->clk);
	pa = (uint64_t)(flow_clock_ahead(&f->clk) - f->trace);
	for (size_t i = k0; i < f->n && !publish; i++)
		publish = q_at(f, i)->kind == FI_EVENT;
	if (publish) {
		/*
		 * The event fetched after the last query: its time and the
		 * position after it from there on, the pending items' too.
		 * Events published at one packet leave it unread but for
		 * the last (the call before that one reads it, fetching it);
		 * a TIP that events bind to is read by its branch's call.
		 */
		cur = nev > 1 || qb != SIZE_MAX || f->clk.psbend_held ? p0 : pa;
		for (size_t i = from; i < f->n; i++) {
			struct flow_item *it = q_at(f, i);

			if (i == from && f->pend_q && i < k0) {
				if (it->kind == FI_BLOCK)
					it->b.end_tsc = t;
				else
					it->b.tsc = t;
				continue;
			}
			if (i == last_ev && qb == SIZE_MAX)
				cur = pa;
			set_time(it, t);
			it->b.query_offset = cur;
			if (i == qb)
				cur = pa;
		}
		f->vis = t;
		f->vis_pos = pa;
	} else if (first_q != SIZE_MAX) {
		/* a branch's packet: the pending items keep their time; the
		 * branch that queried it and what follows take the new one */
		for (size_t i = first_q; i < f->n; i++) {
			struct flow_item *it = q_at(f, i);

			if (i == first_q) {
				it->b.end_tsc = t;
			} else {
				set_time(it, t);
				it->b.query_offset = pa;
			}
		}
		f->vis = t;
		f->vis_pos = pa;
	} else {
		f->npend += f->n - k0;	/* wait with the pending ones */
		return;
	}
	if (last_q != SIZE_MAX) {
		f->npend = f->n - last_q;
		f->pend_q = true;
	} else {
		f->npend = 0;
		f->pend_q = false;
	}
}

/* Decode until @want items are queued (with their time final) or the
 * trace is done. */
static int fill_slow(struct lpt_flow *f, size_t want);

static inline int fill(struct lpt_flow *f, size_t want)
{
	if (f->n - f->npend >= want || f->err)
		return f->err;	/* queued already (one call per item) */
	return fill_slow(f, want);
}

static int fill_slow(struct lpt_flow *f, size_t want)
{
	if (!f->timed) {
		while (f->n < want && !f->done && !f->err)
			if (!cov_flow_step(f->cov))
				f->done = true;
		return f->err;
	}
	while (f->n - f->npend < want && !f->err) {
		size_t k0 = f->n;

		if (f->done) {
			f->npend = 0;	/* no packet follows */
			break;
		}
		if (!cov_flow_step(f->cov))
			f->done = true;
		if (!f->err)
			time_step(f, k0);
	}
	return f->err;
}

/* Whether the far transfer at the last instruction is a far call, INT n,
 * SYSCALL or SYSENTER (libipt's ptic_far_call; SDM vol. 2 opcodes). */
static bool far_call(const struct lpt_flow *f)
{
	uint8_t b[16] = { 0 };
	size_t n = lpt_cov_image_read(f->img, f->last_ip, b, f->last_len), i = 0;

	while (i + 1 < n && ((b[i] >= 0x40 && b[i] <= 0x4f) || b[i] == 0x66 ||
			     b[i] == 0x67 || b[i] == 0xf2 || b[i] == 0xf3))
		i++;
	if (b[i] == 0x0f)
		return b[i + 1] == 0x05 || b[i + 1] == 0x34;
	if (b[i] == 0xff)
		return ((b[i + 1] >> 3) & 7) == 3;
	return b[i] == 0x9a || b[i] == 0xcc || b[i] == 0xcd || b[i] == 0xce ||
	       b[i] == 0xf1;
}

/*
 * Where libipt expects tracing to resume after a TIP.PGD that followed the
 * last instruction (pt_insn_check_insn_event(): pt_insn_next_ip(), the
 * next instruction after a call): a direct branch's target, the next
 * instruction after a non-branch or an indirect or far call; else unknown.
 */
static uint64_t resume_after_last(const struct lpt_flow *f)
{
	struct lpt_cov_insn in;
	uint64_t next = f->last_ip + f->last_len;

	if (!f->last_len)
		return 0;
	switch (f->last_end) {
	case COV_END_NONE:
	case COV_END_CALL_IND:
		return next;
	case COV_END_JMP:
	case COV_END_CALL:
		return lpt_cov_insn_at(f->img, f->last_ip, f->last_mode, &in) ? 0 :
		       in.target;
	case COV_END_FAR:
		return far_call(f) ? next : 0;
	default:
		return 0;
	}
}

/* The status after the item just taken: what comes next. */
static inline int status(struct lpt_flow *f)
{
	int err = fill(f, 1);

	if (err)
		return err;
	if (!f->n)
		return LPT_FLOW_EOS;
	return f->q[f->head].kind == FI_EVENT ? LPT_FLOW_EVENT_PENDING : 0;
}

static inline void q_pop(struct lpt_flow *f)
{
	f->head = (f->head + 1) & (f->cap - 1);
	f->n--;
}

int lpt_flow_sync(struct lpt_flow *f, const uint8_t *trace, size_t len)
{
	struct lpt_cov_stats st;
	int err;

	if (!f || (!trace && len))
		return LPT_ERR_INVALID;
	if (!lpt_cov_stats(f->cov, &st) && st.cache_bytes > f->cfg.cache_max &&
	    lpt_cov_invalidate(f->cov, 0, UINT64_MAX) < 0)
		return LPT_ERR_INTERNAL;
	f->head = f->n = 0;
	f->err = 0;
	f->done = false;
	f->last_len = 0;
	f->resume_ip = 0;
	f->synced = true;
	f->trace = trace ? trace : (const uint8_t *)"";
	f->vis = 0;
	f->npend = 0;
	f->pend_q = false;
	err = cov_flow_begin(f->cov, f->trace, len, &flow_ops, f);
	flow_clock_reset(&f->clk, f->trace + cov_flow_offset(f->cov), f->trace + len);
	f->vis_pos = (uint64_t)(flow_clock_ahead(&f->clk) - f->trace);
	/*
	 * Time without offsets on a trace without timing packets: every
	 * time is 0 (flow_clock_none()), so the blocks and events take the
	 * 0 they are queued with, and no packet is timed (time_step()).
	 */
	f->timed = (f->cfg.flags & LPT_FLOW_F_OFFSET) ||
		   ((f->cfg.flags & LPT_FLOW_F_TIME) &&
		    !flow_clock_none(f->clk.pos, f->clk.end));
	if (err < 0) {
		f->done = true;
		return err;
	}
	return status(f);
}

/*
 * The head of the queue when it is an item of @kind (the preamble of
 * lpt_flow_next() and lpt_flow_event()): *@it set and 0, else the error
 * to return (NULL @out, not synced, out of memory, another kind next).
 */
static inline int q_head(struct lpt_flow *f, const void *out, enum flow_item_kind kind,
		  const struct flow_item **it)
{
	int err;

	if (!f || !out)
		return LPT_ERR_INVALID;
	if (!f->synced)
		return LPT_ERR_NOSYNC;
	err = fill(f, 1);
	if (err)
		return err;
	if (!f->n || f->q[f->head].kind != kind)
		return LPT_ERR_BAD_CONTEXT;
	*it = &f->q[f->head];
	return 0;
}

/* The last instruction handed out: @b's (for enabled.resumed). */
static inline void set_last(struct lpt_flow *f, const struct lpt_flow_block *b)
{
	f->last_ip = b->end_ip;
	f->last_len = b->lens[b->ninsn - 1];
	f->last_mode = b->mode;
	f->last_end = b->end;
}

int lpt_flow_next(struct lpt_flow *f, struct lpt_flow_block *blk)
{
	const struct flow_item *it;
	int err = q_head(f, blk, FI_BLOCK, &it);

	if (err)
		return err;
	*blk = it->b;
	set_last(f, blk);
	q_pop(f);
	return status(f);
}

int lpt_flow_blocks(struct lpt_flow *f, struct lpt_flow_block *blk, size_t max,
		    size_t *n)
{
	const struct flow_item *it;
	size_t k = 0;
	int err;

	if (n)
		*n = 0;
	if (!n || !max)
		return LPT_ERR_INVALID;
	err = q_head(f, blk, FI_BLOCK, &it);
	if (err)
		return err;
	/* the blocks queued, and more decoded while the next is a block */
	do {
		blk[k++] = it->b;
		q_pop(f);
		if (k == max)
			break;
		if (!f->n && !f->timed && !f->done && !f->err) {
			/* nothing queued, no time to wait for: the walk's
			 * blocks into @blk (on_insns()) until it is full or
			 * anything else comes (then queued) */
			f->dst = blk;
			f->dk = k;
			f->dmax = max;
			while (f->dk < max && !f->n && !f->done && !f->err)
				if (!cov_flow_step(f->cov))
					f->done = true;
			k = f->dk;
			f->dst = NULL;
			if (k == max)
				break;
		}
		if (fill(f, 1) || !f->n)
			break;
		it = &f->q[f->head];
	} while (it->kind == FI_BLOCK);
	set_last(f, &blk[k - 1]);
	*n = k;
	return status(f);
}

/*
 * libipt's pt_insn_get_offset() after a pt_insn_next() that fails to
 * decode the instruction at the IP (no code mapped, a bad instruction),
 * the engine's error being at the packet at @off, the one that made the
 * walk go there. pt_insn_next() fetches the event its query decoder's
 * status said was next before it decodes (pt_insn_check_ip_event():
 * event_pending()): at an event packet that publishes at once (a TIP.PGD,
 * TIP.PGE, PIP, VMCS, CBR, ...) libipt stands after it and after its
 * read-ahead (a PSB+ to its PSBEND, ...: flow_clock_ahead()); at a branch
 * packet it stands there.
 */
static uint64_t insn_error_offset(const struct lpt_flow *f, uint64_t off)
{
	const uint8_t *p = f->trace + off, *end = f->clk.end;
	struct flow_clock k;
	struct lpt_packet pkt;
	int n;

	if (p >= end)
		return off;
	n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, 0);
	if (n <= 0)
		return off;
	switch (pkt.type) {
	case LPT_PKT_TIP_PGD: case LPT_PKT_TIP_PGE: case LPT_PKT_PIP:
	case LPT_PKT_VMCS: case LPT_PKT_CBR: case LPT_PKT_MNT:
	case LPT_PKT_TRACESTOP: case LPT_PKT_PWRE: case LPT_PKT_PWRX:
		break;
	default:	/* a branch, or an event that binds to a later packet */
		return off;
	}
	k = f->clk;
	k.pos = p + n;
	k.in_psb = false;
	k.psb_ev = false;
	k.fup = false;
	return (uint64_t)(flow_clock_ahead(&k) - f->trace);
}

int lpt_flow_event(struct lpt_flow *f, struct lpt_flow_event *ev)
{
	const struct flow_item *it;
	int err = q_head(f, ev, FI_EVENT, &it);

	if (err)
		return err;
	memset(ev, 0, sizeof(*ev));
	switch (it->type) {
	case COV_EV_ENABLED:
		ev->type = LPT_FLOW_EV_ENABLED;
		ev->resumed = f->resume_ip && f->resume_ip == it->ip;
		break;
	case COV_EV_DISABLED:
		ev->type = LPT_FLOW_EV_DISABLED;
		f->resume_ip = resume_after_last(f);
		break;
	case COV_EV_ASYNC_DISABLED:
		ev->type = LPT_FLOW_EV_ASYNC_DISABLED;
		f->resume_ip = it->from;
		break;
	case COV_EV_ASYNC_BRANCH:
		ev->type = LPT_FLOW_EV_ASYNC_BRANCH;
		break;
	case COV_EV_OVERFLOW:
		ev->type = LPT_FLOW_EV_OVERFLOW;
		f->resume_ip = it->supp ? 0 : it->ip;
		break;
	case COV_EV_EXEC_MODE:
		ev->type = LPT_FLOW_EV_EXEC_MODE;
		ev->mode = (uint8_t)it->ip;
		break;
	case COV_EV_CBR:
		ev->type = LPT_FLOW_EV_CBR;
		ev->cbr = (uint8_t)it->ip;
		break;
	case COV_EV_PAGING:
		ev->type = LPT_FLOW_EV_PAGING;
		ev->cr3 = it->ip;
		ev->non_root = it->from != 0;
		break;
	case COV_EV_VMCS:
		ev->type = LPT_FLOW_EV_VMCS;
		ev->vmcs = it->ip;
		break;
	default:
		ev->type = LPT_FLOW_EV_RESYNC;
		f->resume_ip = 0;
		break;
	}
	ev->ip_suppressed = it->supp;
	ev->err = it->err;
	if (ev->type != LPT_FLOW_EV_PAGING && ev->type != LPT_FLOW_EV_VMCS) {
		ev->ip = it->ip;
		ev->from = it->from;
	}
	ev->offset = it->off;
	if (it->type == COV_EV_ERROR &&
	    (it->err == LPT_ERR_COV_NOMAP || it->err == LPT_ERR_COV_BADINSN))
		ev->offset = insn_error_offset(f, it->off);
	ev->tsc = it->b.tsc;
	ev->query_offset = it->b.query_offset;
	q_pop(f);
	return status(f);
}

uint64_t lpt_flow_resume_ip(const struct lpt_flow *f)
{
	return f ? f->resume_ip : 0;
}

uint64_t lpt_flow_offset(const struct lpt_flow *f)
{
	return f && f->synced ? cov_flow_offset(f->cov) : 0;
}
