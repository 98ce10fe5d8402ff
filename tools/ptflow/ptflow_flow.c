// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow's lwpt engine: libpt's flow engine (lwpt/pt_flow.h) over the
 * code of ptflow's image (ptflow_image_read(): the same bytes libipt
 * reads), its blocks and events printed as libipt's engine prints
 * instructions and events (ptflow_emit_*()).
 */
#include "tools/ptflow/ptflow_flow.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/bts_decode.h>
#include <lwpt/pt_chunk.h>
#include <lwpt/pt_flow.h>
#include <lwpt/pt_pkt.h>

#include "tools/ptflow/ptflow_image.h"

struct ptflow_flow {
	struct lpt_cov_image *img;
	struct lpt_flow *f;
	const struct pt_image *image;
	/* -j: the engines of the worker threads (LPT_FLOW_F_CHUNK), kept
	 * with their block caches from piece to piece */
	struct ptflow_flow **w;
	unsigned int nw;
};

/*
 * libipt's image section cache is not thread-safe (pt_iscache_read() maps
 * and unmaps sections): every read of the code through it, the workers'
 * and the printing thread's, takes this lock. The engines read code only
 * where their block caches miss.
 */
static pthread_mutex_t read_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t image_read(const struct pt_image *image, uint64_t addr,
			 uint8_t *buf, size_t size)
{
	size_t n;

	pthread_mutex_lock(&read_lock);
	n = ptflow_image_read(image, addr, buf, size);
	pthread_mutex_unlock(&read_lock);
	return n;
}

const char *ptflow_flow_unsupported(const struct ptflow_options *opt)
{
	(void)opt;
	return NULL;
}

static size_t read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
	return image_read(ctx, addr, buf, size);
}

static void engine_free(void *engine)
{
	struct ptflow_flow *e = engine;

	if (!e)
		return;
	for (unsigned int i = 0; i < e->nw; i++)
		engine_free(e->w[i]);
	free(e->w);
	lpt_flow_free(e->f);
	lpt_cov_image_free(e->img);
	free(e);
}

/* Time where it is shown: --time, the views (SDM 33.8.3). */
static bool time_on(const struct ptflow *pf)
{
	return pf->opt.time || pf->opt.calls || pf->opt.report ||
	       pf->opt.export_chrome;
}

/* A new engine for @pf's image, with @flags added (LPT_FLOW_F_CHUNK). */
static struct ptflow_flow *engine_new(struct ptflow *pf, uint32_t flags)
{
	struct ptflow_flow *e;
	struct lpt_flow_config cfg;

	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->image = pf->image;
	e->img = lpt_cov_image_alloc();
	if (!e->img) {
		free(e);
		return NULL;
	}
	lpt_cov_image_set_read(e->img, read_code, (void *)e->image);
	lpt_flow_config_init(&cfg);
	/* IA32_RTIT_ADDRn with FilterEn (SDM 33.2.5.2): [a, b + 1) */
	for (unsigned int i = 0; i < PTCAP_ADDR_RANGES; i++) {
		const struct ptcap_addr_range *r = &pf->par.addr[i];

		if (r->cfg != PTCAP_ADDR_FILTER || r->b < r->a || r->b == UINT64_MAX)
			continue;
		cfg.filter[cfg.nfilter].start = r->a;
		cfg.filter[cfg.nfilter].end = r->b + 1;
		cfg.nfilter++;
	}
	if (pf->par.has_cpu && pf->par.cpu.vendor == pcv_intel) {
		struct pt_errata errata;

		cfg.cpu.vendor = 1;	/* Intel */
		cfg.cpu.family = pf->par.cpu.family;
		cfg.cpu.model = pf->par.cpu.model;
		cfg.cpu.stepping = pf->par.cpu.stepping;
		/* the time calibration's erratum as libipt's (SKL168) */
		if (pt_cpu_errata(&errata, &pf->par.cpu) >= 0)
			cfg.time.errata_skl168 = errata.skl168;
	}
	if (time_on(pf))
		cfg.flags |= LPT_FLOW_F_TIME;
	if (pf->opt.offset)
		cfg.flags |= LPT_FLOW_F_OFFSET;
	cfg.time.mtc_freq = pf->par.mtc_freq;
	cfg.time.nom_freq = pf->par.nom_freq;
	cfg.time.cpuid_0x15_eax = pf->par.cpuid_15_eax;
	cfg.time.cpuid_0x15_ebx = pf->par.cpuid_15_ebx;
	cfg.flags |= flags;
	e->f = lpt_flow_alloc(&cfg, e->img);
	if (!e->f) {
		lpt_cov_image_free(e->img);
		free(e);
		return NULL;
	}
	return e;
}

/* The engine for @pf's image, set up at the first piece. */
static struct ptflow_flow *engine_get(struct ptflow *pf)
{
	struct ptflow_flow *e = pf->engine;

	if (e)
		return e;
	e = engine_new(pf, 0);
	if (!e)
		return NULL;
	pf->engine = e;
	pf->engine_free = engine_free;
	return e;
}

static enum pt_exec_mode exec_mode(uint8_t mode)
{
	return mode == 64 ? ptem_64bit : mode == 32 ? ptem_32bit : ptem_16bit;
}

/* libipt's class of a far transfer, from its opcode (SDM vol. 2). */
static enum pt_insn_class far_class(const uint8_t *b, unsigned int n)
{
	unsigned int i = 0;

	while (i + 1 < n && ((b[i] >= 0x40 && b[i] <= 0x4f) || b[i] == 0x66 ||
			     b[i] == 0x67 || b[i] == 0xf2 || b[i] == 0xf3))
		i++;
	if (b[i] == 0x0f && i + 1 < n) {
		switch (b[i + 1]) {
		case 0x05: case 0x34:	/* SYSCALL, SYSENTER */
			return ptic_far_call;
		case 0x07: case 0x35:	/* SYSRET, SYSEXIT */
			return ptic_far_return;
		default:		/* VMLAUNCH, VMRESUME */
			return ptic_far_jump;
		}
	}
	switch (b[i]) {
	case 0x9a: case 0xcc: case 0xcd: case 0xce: case 0xf1:
		return ptic_far_call;	/* CALL ptr16, INT3, INT n, INTO, INT1 */
	case 0xca: case 0xcb: case 0xcf:
		return ptic_far_return;	/* RET far, IRET */
	case 0xff:
		if (i + 1 < n && ((b[i + 1] >> 3) & 7) == 3)
			return ptic_far_call;	/* CALL m16:xx */
		return ptic_far_jump;		/* JMP m16:xx */
	default:
		return ptic_far_jump;		/* JMP ptr16 */
	}
}

static enum pt_insn_class insn_class(unsigned int end)
{
	switch (end) {
	case LPT_FLOW_END_JCC:
		return ptic_cond_jump;
	case LPT_FLOW_END_JMP:
	case LPT_FLOW_END_JMP_IND:
		return ptic_jump;
	case LPT_FLOW_END_CALL:
	case LPT_FLOW_END_CALL_IND:
		return ptic_call;
	case LPT_FLOW_END_RET:
		return ptic_return;
	default:
		return ptic_other;
	}
}

/* @len bytes of code at @ip into @buf (zeros where the image has none). */
static void read_bytes(const struct ptflow_flow *e, uint64_t ip, uint8_t *buf,
		       size_t len)
{
	size_t got = 0;

	memset(buf, 0, len);
	while (got < len) {
		size_t n = image_read(e->image, ip + got, buf + got, len - got);

		if (!n)
			break;
		got += n;
	}
}

/* A block where its instructions are not printed: its last one only. */
static bool emit_block_views(struct ptflow *pf, const struct ptflow_flow *e,
			     const struct lpt_flow_block *b)
{
	struct pt_insn last;

	memset(&last, 0, sizeof(last));
	last.mode = exec_mode(b->mode);
	last.ip = b->end_ip;
	last.size = b->lens[b->ninsn - 1];
	last.iclass = insn_class(b->end);
	if (b->end == LPT_FLOW_END_FAR) {
		read_bytes(e, last.ip, last.raw, last.size);
		last.iclass = far_class(last.raw, last.size);
	}
	pf->emit_tsc = b->tsc;
	pf->emit_end_tsc = b->end_tsc;
	return ptflow_emit_block(pf, b->ip, b->lens, b->ninsn, &last);
}

/* A block's instructions, one by one. */
static void emit_block(struct ptflow *pf, const struct ptflow_flow *e,
		       const struct lpt_flow_block *b)
{
	/* the bytes where they are printed (the views need a far
	 * transfer's only): read once per block */
	bool views = pf->opt.calls || pf->opt.report || pf->opt.export_chrome;
	bool raw = !views && (!pf->opt.no_inst || pf->opt.raw_insn);
	uint8_t bytes[4096];
	size_t span = 0, off = 0;
	struct pt_insn insn;
	uint64_t ip = b->ip;

	memset(&insn, 0, sizeof(insn));
	insn.mode = exec_mode(b->mode);
	if (raw) {
		span = (size_t)(b->end_ip - b->ip) + b->lens[b->ninsn - 1];
		if (span <= sizeof(bytes))
			read_bytes(e, b->ip, bytes, span);
		else
			span = 0;	/* a long block: per instruction */
	}
	for (uint32_t i = 0; i < b->ninsn; i++) {
		bool last = i + 1 == b->ninsn, far = last && b->end == LPT_FLOW_END_FAR;

		insn.ip = ip;
		insn.size = b->lens[i];
		insn.iclass = last ? insn_class(b->end) : ptic_other;
		if (raw || far) {
			memset(insn.raw, 0, sizeof(insn.raw));
			if (span)
				memcpy(insn.raw, bytes + off, insn.size);
			else
				read_bytes(e, ip, insn.raw, insn.size);
			if (far)
				insn.iclass = far_class(insn.raw, insn.size);
		}
		pf->emit_tsc = last ? b->end_tsc : b->tsc;
		pf->emit_off = b->query_offset + pf->seg_base;
		ptflow_emit_insn(pf, &insn);
		ip += b->lens[i];
		off += b->lens[i];
	}
}

/* An engine event as libipt's; false for a resync (not an event). */
static bool to_pt_event(const struct lpt_flow_event *ev, struct pt_event *pe)
{
	memset(pe, 0, sizeof(*pe));
	pe->ip_suppressed = ev->ip_suppressed;
	switch (ev->type) {
	case LPT_FLOW_EV_ENABLED:
		pe->type = ptev_enabled;
		pe->variant.enabled.ip = ev->ip;
		pe->variant.enabled.resumed = ev->resumed;
		return true;
	case LPT_FLOW_EV_EXEC_MODE:
		pe->type = ptev_exec_mode;
		pe->variant.exec_mode.mode = exec_mode(ev->mode);
		return true;
	case LPT_FLOW_EV_CBR:
		pe->type = ptev_cbr;
		pe->variant.cbr.ratio = ev->cbr;
		return true;
	case LPT_FLOW_EV_PAGING:
		pe->type = ptev_paging;
		pe->variant.paging.cr3 = ev->cr3;
		pe->variant.paging.non_root = ev->non_root;
		return true;
	case LPT_FLOW_EV_VMCS:
		pe->type = ptev_vmcs;
		pe->variant.vmcs.base = ev->vmcs;
		return true;
	case LPT_FLOW_EV_DISABLED:
		pe->type = ptev_disabled;
		pe->variant.disabled.ip = ev->ip;
		return true;
	case LPT_FLOW_EV_ASYNC_DISABLED:
		pe->type = ptev_async_disabled;
		pe->variant.async_disabled.at = ev->from;
		pe->variant.async_disabled.ip = ev->ip;
		return true;
	case LPT_FLOW_EV_ASYNC_BRANCH:
		pe->type = ptev_async_branch;
		pe->variant.async_branch.from = ev->from;
		pe->variant.async_branch.to = ev->ip;
		return true;
	case LPT_FLOW_EV_OVERFLOW:
		pe->type = ptev_overflow;
		pe->variant.overflow.ip = ev->ip;
		return true;
	default:
		return false;
	}
}

/* libipt's text for an engine's error (as ptflow prints libipt's). */
static const char *error_text(int err)
{
	switch (err) {
	case LPT_ERR_COV_NOMAP:
		return pt_errstr(pte_nomap);
	case LPT_ERR_COV_BADINSN:
		return pt_errstr(pte_bad_insn);
	case LPT_ERR_COV_DESYNC:
		return pt_errstr(pte_bad_query);
	case LPT_ERR_EOS:
		return "unexpected end of trace";
	case LPT_ERR_BAD_OPCODE:
		return pt_errstr(pte_bad_opc);
	case LPT_ERR_BAD_PACKET:
		return pt_errstr(pte_bad_packet);
	case LPT_ERR_BAD_CONTEXT:
		return pt_errstr(pte_bad_context);
	default:
		return lpt_cov_errstr(err);
	}
}

/*
 * What the printing of one piece carries from item to item: PacketEn as
 * the items say (at the end: was the output cut?), and whether the last
 * item was a decode error (then nothing more is said at the end).
 */
struct piece_state {
	bool enabled, clean;
	uint64_t err_off;	/* !clean: the error's offset in the piece */
};

/* One engine event, printed (at @pf->seg_base + its offsets). */
static void out_event(struct ptflow *pf, struct piece_state *ps,
		      const struct lpt_flow_event *ev, bool cut)
{
	struct pt_event pe;

	pf->emit_tsc = ev->tsc;
	pf->emit_off = ev->query_offset + pf->seg_base;
	if (!to_pt_event(ev, &pe)) {
		/* a piece that ends at a gap ends mid-packet */
		if (!(cut && ev->err == LPT_ERR_EOS))
			ptflow_emit_error(pf, ev->offset, error_text(ev->err),
					  ev->ip_suppressed ? 0 : ev->ip);
		ps->enabled = false;
		ps->clean = false;
		ps->err_off = ev->offset;
		return;
	}
	ps->clean = true;
	if (ev->type == LPT_FLOW_EV_ENABLED)
		ps->enabled = true;
	else if (ev->type == LPT_FLOW_EV_OVERFLOW)
		ps->enabled = !ev->ip_suppressed;
	else if (ev->type == LPT_FLOW_EV_DISABLED ||
		 ev->type == LPT_FLOW_EV_ASYNC_DISABLED)
		ps->enabled = false;
	ptflow_emit_event(pf, &pe);
}

/* Engine blocks that follow one another (@n >= 1), printed: the views
 * take runs of them whole (ptflow_emit_blocks()), the others one by one. */
static void out_blocks(struct ptflow *pf, const struct ptflow_flow *e,
		       struct piece_state *ps, const struct lpt_flow_block *b,
		       size_t n)
{
	size_t i = 0;

	ps->enabled = true;
	ps->clean = true;
	while (i < n) {
		i += ptflow_emit_blocks(pf, b + i, n - i);
		if (i == n)
			break;
		if (!emit_block_views(pf, e, &b[i]))
			emit_block(pf, e, &b[i]);
		i++;
	}
}

/* Blocks at a time from the engine (lpt_flow_blocks()). */
#define OUT_BLOCKS 64

/* The end of a piece @buf of @len bytes: engine status @st (negative: it
 * stopped at @fail_off), what ptflow_decode.c says at a piece's end. */
static void out_end(struct ptflow *pf, const struct piece_state *ps, int st,
		    uint64_t fail_off, uint8_t *buf, size_t len, bool cut)
{
	if (st < 0) {
		ptflow_emit_error(pf, fail_off, lpt_cov_errstr(st), 0);
		return;
	}
	if (!ps->clean) {
		/* after a decode error: libipt's, if a PSB+ follows */
		if (!cut)
			ptflow_emit_tail(pf, buf, len, true, ps->err_off);
		return;
	}
	/* PacketEn=1 at the end: the output was cut (ptflow_decode.c) */
	if (ps->enabled) {
		if (!cut)
			ptflow_emit_error(pf, len, "trace ends while tracing is "
					  "enabled", 0);
		return;
	}
	if (cut)
		ptflow_emit_end(pf);
	else
		ptflow_emit_tail(pf, buf, len, false, 0);
}

/*
 * A piece on the calling thread with @e, from its first PSB on. @resume:
 * lpt_flow_resume_ip() of a decoder that went on to here (the -j
 * chunks before), for the enables before the piece's first event that
 * sets it; 0 at a piece's start.
 */
static int serial_piece(struct ptflow *pf, struct ptflow_flow *e, uint8_t *buf,
			size_t len, uint64_t base, bool cut, uint64_t resume)
{
	struct piece_state ps = { .enabled = false, .clean = true };
	bool carry = true;
	int st;

	st = lpt_flow_sync(e->f, buf, len);
	if (st == LPT_ERR_NOSYNC) {
		/* a piece after a gap may hold no PSB: not an error */
		if (!base)
			ptflow_emit_error(pf, 0, "no PSB found", 0);
		return 0;
	}
	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
		if (st & LPT_FLOW_EVENT_PENDING) {
			struct lpt_flow_event ev;

			st = lpt_flow_event(e->f, &ev);
			if (st < 0)
				break;
			if (carry && ev.type == LPT_FLOW_EV_ENABLED)
				ev.resumed = resume && resume == ev.ip;
			if (ev.type == LPT_FLOW_EV_DISABLED ||
			    ev.type == LPT_FLOW_EV_ASYNC_DISABLED ||
			    ev.type == LPT_FLOW_EV_OVERFLOW ||
			    ev.type == LPT_FLOW_EV_RESYNC)
				carry = false;
			out_event(pf, &ps, &ev, cut);
		} else {
			struct lpt_flow_block b[OUT_BLOCKS];
			size_t n;

			/* with an error, the blocks before it still count */
			st = lpt_flow_blocks(e->f, b, OUT_BLOCKS, &n);
			if (n)
				out_blocks(pf, e, &ps, b, n);
			if (st < 0)
				break;
		}
	}
	out_end(pf, &ps, st, st < 0 ? lpt_flow_offset(e->f) : 0, buf, len, cut);
	return 0;
}

/*
 * -j N (issue 34 point 3; Documentation/ptflow.rst "Every core"): a piece
 * cut at PSBs into chunks (lwpt/pt_chunk.h), each decoded by a worker's
 * engine (LPT_FLOW_F_CHUNK: through the next chunk's PSB+, up to its FUP)
 * into a list of its blocks and events; the lists are printed in trace
 * order on the calling thread, through the same out_*() as one engine's
 * items, so that everything that carries state from item to item (the
 * views' call stacks, --report, the timeline, the error count, the
 * instruction line buffer) sees the one stream it sees with -j 1. Memory:
 * lpt_par_run()'s window of chunks, never the trace.
 *
 * A chunk whose decode hit an error (a resync) or whose end is not a
 * whole PSB+ is where a decoder of the whole piece may go on from a state
 * the next PSB+ does not give (libpt-chunk.rst "Errors"): from that
 * chunk on the piece is decoded by one engine, as with -j 1.
 */
enum fj_kind { FJ_BLOCK, FJ_EVENT };

/* One block or event of a chunk, small: a chunk holds ~10 per byte. */
struct fj_rec {
	uint64_t ip;			/* FJ_BLOCK: the first instruction */
	uint32_t n;			/* FJ_BLOCK: instructions; FJ_EVENT:
					 * index in fj_buf.ev */
	uint32_t lens;			/* FJ_BLOCK: offset in fj_buf.lens */
	uint32_t last;			/* FJ_BLOCK: end_ip - ip */
	uint8_t kind, mode, end;	/* enum fj_kind; the block's */
};

/* A block's time and offset, where the engine tracks them. */
struct fj_time {
	uint64_t tsc, end_tsc, query_offset;
};

/* The arrays of a chunk (reused from chunk to chunk). */
struct fj_buf {
	struct fj_rec *r;		/* @capr */
	struct fj_time *tm;		/* @captm, with time or offsets */
	struct lpt_flow_event *ev;
	uint8_t *lens;
	size_t capr, captm, capev, caplens;
};

struct fj_job {
	size_t off, len;		/* in the piece; @len through the
					 * next chunk's PSB+ */
	bool last, bad_end;
	struct fj_buf b;
	size_t n, nev, nlens;
	int st;				/* the engine's last status */
	size_t first_set;		/* the first record that sets the
					 * resume IP (lpt_flow_resume_ip()),
					 * or SIZE_MAX */
	uint64_t end_resume;		/* lpt_flow_resume_ip() at the end */
	uint64_t fail_off;		/* st < 0: where (in the piece) */
	bool nosync, nomem, resync;
};

struct fj_ctx {
	struct ptflow *pf;
	struct ptflow_flow *e;		/* the printing thread's */
	uint8_t *buf;
	size_t len, pos, chunk;
	bool cut;
	bool side;			/* fj_time wanted */
	struct piece_state ps;
	uint64_t resume;		/* lpt_flow_resume_ip() so far */
	bool stopped;			/* print no more chunks */
	bool nomem;
	size_t fallback;		/* stopped at this chunk: decode
					 * from here with one engine */
	bool have_fallback;
	/* the buffers of printed chunks, for the next ones (made and
	 * printed on the calling thread): no page faults per chunk */
	struct fj_buf *pool;
	size_t npool, cappool;
};

static int fj_next(void *vctx, void *vjob)
{
	struct fj_ctx *c = vctx;
	struct fj_job *j = vjob;
	size_t end, pend;

	if (c->pos >= c->len || c->stopped)
		return 0;
	end = lpt_chunk_next(c->buf, c->len, c->pos, c->chunk);
	if (c->npool)
		j->b = c->pool[--c->npool];
	j->off = c->pos;
	j->last = end >= c->len;
	pend = j->last ? c->len : lpt_chunk_psb_end(c->buf, c->len, end);
	j->bad_end = !j->last && pend == end;
	j->len = pend - c->pos;
	c->pos = end;
	return 1;
}

/* Room for @need elements of @size at *@p (capacity *@cap). */
static bool grow(void *p, size_t *cap, size_t need, size_t size, size_t init)
{
	void **pp = p;
	size_t n = *cap ? *cap : init;
	void *q;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	q = realloc(*pp, n * size);
	if (!q)
		return false;
	*pp = q;
	*cap = n;
	return true;
}

/*
 * Whether @len bytes at @buf hold a packet that moves the time (TSC, TMA,
 * MTC, CYC: SDM 33.4.2.11-14; true where the packets cannot be read).
 * A flow decoder's time is not given again by a PSB+ (the MTC and CYC
 * calibration, the core:bus ratio of the last CBR, an MTC-only time), so
 * a chunk cannot start with the time a decoder of the whole trace has
 * there. Without any of them the time is 0 throughout (a CBR alone only
 * scales CYCs), as in kAFL's traces.
 */
static bool has_timing(const uint8_t *buf, size_t len)
{
	struct lpt_pkt_decoder *d = lpt_pkt_alloc(buf, len, NULL);
	struct lpt_pkt_stats st;
	uint64_t at = 0, prev;
	int r;

	if (!d)
		return true;
	memset(&st, 0, sizeof(st));
	r = lpt_pkt_sync_forward(d);
	while (r >= 0) {
		r = lpt_pkt_count(d, &st);
		if (r == LPT_ERR_EOS || r == LPT_ERR_NOSYNC)
			break;
		prev = at;
		if (lpt_pkt_get_offset(d, &at) < 0 || (at <= prev && prev))
			break;
		r = lpt_pkt_sync_forward(d);
	}
	lpt_pkt_free(d);
	return st.count[LPT_PKT_TSC] || st.count[LPT_PKT_TMA] ||
	       st.count[LPT_PKT_MTC] || st.count[LPT_PKT_CYC];
}

/* One event of a chunk into @j (false: out of memory). */
static bool fj_event(struct fj_job *j, const struct lpt_flow_event *ev)
{
	struct fj_rec *r;

	if (!grow(&j->b.ev, &j->b.capev, j->nev + 1, sizeof(*ev), 64))
		return false;
	r = &j->b.r[j->n++];
	memset(r, 0, sizeof(*r));
	r->kind = FJ_EVENT;
	r->n = (uint32_t)j->nev;
	j->b.ev[j->nev] = *ev;
	j->b.ev[j->nev].offset += j->off;
	j->b.ev[j->nev].query_offset += j->off;
	j->nev++;
	return true;
}

/* One block of a chunk into @j (false: out of memory). */
static bool fj_block(struct fj_job *j, const struct lpt_flow_block *b, bool side)
{
	struct fj_rec *r;

	if (!grow(&j->b.lens, &j->b.caplens, j->nlens + b->ninsn, 1, 65536))
		return false;
	if (side) {
		struct fj_time *t = &j->b.tm[j->n];

		t->tsc = b->tsc;
		t->end_tsc = b->end_tsc;
		t->query_offset = b->query_offset + j->off;
	}
	r = &j->b.r[j->n++];
	r->kind = FJ_BLOCK;
	r->ip = b->ip;
	r->n = b->ninsn;
	r->lens = (uint32_t)j->nlens;
	r->last = (uint32_t)(b->end_ip - b->ip);
	r->mode = b->mode;
	r->end = b->end;
	memcpy(j->b.lens + j->nlens, b->lens, b->ninsn);
	j->nlens += b->ninsn;
	return true;
}

static void fj_work(void *vctx, unsigned int w, void *vjob)
{
	struct fj_ctx *c = vctx;
	struct fj_job *j = vjob;
	struct lpt_flow *f = c->e->w[w]->f;
	int st;

	j->first_set = SIZE_MAX;
	st = lpt_flow_sync(f, c->buf + j->off, j->len);
	if (st == LPT_ERR_NOSYNC) {
		j->nosync = true;
		return;
	}
	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
		size_t need = j->n + OUT_BLOCKS;

		if (!grow(&j->b.r, &j->b.capr, need, sizeof(*j->b.r), 4096) ||
		    (c->side && !grow(&j->b.tm, &j->b.captm, need,
				      sizeof(*j->b.tm), 4096))) {
			j->nomem = true;
			break;
		}
		if (st & LPT_FLOW_EVENT_PENDING) {
			struct lpt_flow_event ev;

			st = lpt_flow_event(f, &ev);
			if (st < 0)
				break;
			if (!fj_event(j, &ev)) {
				j->nomem = true;
				break;
			}
			if (j->first_set == SIZE_MAX &&
			    (ev.type == LPT_FLOW_EV_DISABLED ||
			     ev.type == LPT_FLOW_EV_ASYNC_DISABLED ||
			     ev.type == LPT_FLOW_EV_OVERFLOW ||
			     ev.type == LPT_FLOW_EV_RESYNC))
				j->first_set = j->n - 1;
			if (ev.type == LPT_FLOW_EV_RESYNC && !j->last) {
				j->resync = true;	/* printed otherwise */
				return;
			}
		} else {
			struct lpt_flow_block b[OUT_BLOCKS];
			size_t n, i;

			/* room for them all: grown above */
			st = lpt_flow_blocks(f, b, OUT_BLOCKS, &n);
			for (i = 0; i < n && fj_block(j, &b[i], c->side); i++)
				;
			if (i < n) {
				j->nomem = true;
				break;
			}
			if (st < 0)
				break;
		}
	}
	j->st = st;
	if (st < 0)
		j->fail_off = lpt_flow_offset(f) + j->off;
	j->end_resume = lpt_flow_resume_ip(f);
}

/* A printed chunk's buffers: to the pool, or freed. */
static void fj_done(struct fj_ctx *c, struct fj_job *j)
{
	if (grow(&c->pool, &c->cappool, c->npool + 1, sizeof(*c->pool), 8)) {
		c->pool[c->npool++] = j->b;
	} else {
		free(j->b.r);
		free(j->b.tm);
		free(j->b.ev);
		free(j->b.lens);
	}
	memset(&j->b, 0, sizeof(j->b));
}

static int fj_emit(void *vctx, void *vjob)
{
	struct fj_ctx *c = vctx;
	struct fj_job *j = vjob;
	struct ptflow *pf = c->pf;

	if (c->stopped) {
		fj_done(c, j);
		return 0;
	}
	if (j->nomem) {
		c->nomem = true;
		c->stopped = true;
		fj_done(c, j);
		return -1;
	}
	if (j->resync || j->bad_end) {
		c->fallback = j->off;
		c->have_fallback = true;
		c->stopped = true;
		fj_done(c, j);
		return -1;
	}
	if (j->nosync) {
		/* only a piece without any PSB is one chunk without one */
		if (!j->off && !pf->seg_base)
			ptflow_emit_error(pf, 0, "no PSB found", 0);
		c->stopped = true;
		fj_done(c, j);
		return 0;
	}
	for (size_t i = 0; i < j->n;) {
		const struct fj_rec *r = &j->b.r[i];
		struct lpt_flow_block b[OUT_BLOCKS];
		size_t nb = 0;

		if (r->kind == FJ_EVENT) {
			struct lpt_flow_event *ev = &j->b.ev[r->n];

			/* the resume IP the chunk's engine did not know */
			if (i < j->first_set && ev->type == LPT_FLOW_EV_ENABLED)
				ev->resumed = c->resume && c->resume == ev->ip;
			out_event(pf, &c->ps, ev, c->cut);
			i++;
			continue;
		}
		/* the blocks up to the next event, OUT_BLOCKS at a time */
		for (; i < j->n && nb < OUT_BLOCKS && j->b.r[i].kind == FJ_BLOCK;
		     i++, nb++) {
			struct lpt_flow_block *k = &b[nb];

			r = &j->b.r[i];
			k->ip = r->ip;
			k->end_ip = r->ip + r->last;
			k->lens = j->b.lens + r->lens;
			k->ninsn = r->n;
			k->mode = r->mode;
			k->end = r->end;
			if (c->side) {
				k->tsc = j->b.tm[i].tsc;
				k->end_tsc = j->b.tm[i].end_tsc;
				k->query_offset = j->b.tm[i].query_offset;
			} else {
				k->tsc = k->end_tsc = k->query_offset = 0;
			}
		}
		out_blocks(pf, c->e, &c->ps, b, nb);
	}
	if (j->first_set < j->n)
		c->resume = j->end_resume;
	if (j->st < 0 || j->last) {
		/* the whole decoder stops at an engine failure, too */
		out_end(pf, &c->ps, j->st, j->fail_off, c->buf, c->len, c->cut);
		c->stopped = true;
	}
	fj_done(c, j);
	return 0;
}

/* The worker engines of @e, @n of them. */
static int workers_get(struct ptflow *pf, struct ptflow_flow *e, unsigned int n)
{
	struct ptflow_flow **w;

	if (e->nw >= n)
		return 0;
	w = realloc(e->w, n * sizeof(*w));
	if (!w)
		return -1;
	e->w = w;
	for (; e->nw < n; e->nw++) {
		e->w[e->nw] = engine_new(pf, LPT_FLOW_F_CHUNK);
		if (!e->w[e->nw])
			return -1;
	}
	return 0;
}

/* The chunk size of -j for a piece of @len bytes on @jobs threads. */
static size_t chunk_size(const struct ptflow *pf, size_t len, unsigned int jobs)
{
	size_t sz = len / (4 * (size_t)jobs);

	if (pf->chunk)
		return pf->chunk;
	if (sz < (16u << 10))
		sz = 16u << 10;
	if (sz > (128u << 10))
		sz = 128u << 10;
	return sz;
}

/* -j N on a piece; 1: one chunk only, decode it on the calling thread. */
static int par_piece(struct ptflow *pf, struct ptflow_flow *e, uint8_t *buf,
		     size_t len, uint64_t base, bool cut, unsigned int jobs)
{
	static const struct lpt_par_ops ops = {
		.next = fj_next, .work = fj_work, .emit = fj_emit,
	};
	struct fj_ctx c = {
		.pf = pf, .e = e, .buf = buf, .len = len, .cut = cut,
		.ps = { .enabled = false, .clean = true },
		.side = time_on(pf) || pf->opt.offset,
	};
	int r;

	c.chunk = chunk_size(pf, len, jobs);
	if (lpt_chunk_next(buf, len, 0, c.chunk) >= len)
		return 1;
	/* time shown, and a time to track: one engine (has_timing()) */
	if (time_on(pf) && has_timing(buf, len))
		return 1;
	if (workers_get(pf, e, jobs)) {
		fprintf(pf->err, "%s: out of memory\n", pf->prog);
		return -1;
	}
	r = lpt_par_run(&ops, &c, jobs, sizeof(struct fj_job), 0);
	for (size_t i = 0; i < c.npool; i++) {
		free(c.pool[i].r);
		free(c.pool[i].tm);
		free(c.pool[i].ev);
		free(c.pool[i].lens);
	}
	free(c.pool);
	if (c.nomem || r == -ENOMEM || r == -EAGAIN) {
		fprintf(pf->err, "%s: %s\n", pf->prog, c.nomem || r == -ENOMEM ?
			"out of memory" : "cannot start a thread");
		return -1;
	}
	if (c.have_fallback) {
		size_t fb = c.fallback;

		pf->seg_base = base + fb;
		r = serial_piece(pf, e, buf + fb, len - fb, base + fb, cut,
				 c.resume);
		pf->seg_base = base;
		return r;
	}
	return 0;
}

/*
 * One piece of a trace (ptflow_decode.c's decode_piece()): the flow and
 * the errors as libipt's engine prints them. 1: not for this engine.
 */
static int flow_piece(struct ptflow *pf, uint8_t *buf, size_t len, uint64_t base,
		      bool cut)
{
	struct ptflow_flow *e;
	unsigned int jobs;

	e = pf->engine;
	if (pf->span_cb || pf->syn || (e && e->image != pf->image)) {
		static bool said;	/* once per run */

		/* per-process images, resumed spans: libipt's for now */
		if (!said) {
			said = true;
			fprintf(pf->err, "%s: --engine=lwpt: a system-wide "
				"capture is decoded with libipt\n", pf->prog);
		}
		return 1;
	}
	e = engine_get(pf);
	if (!e) {
		fprintf(pf->err, "%s: out of memory\n", pf->prog);
		return -1;
	}
	/* -j not given: 1 (ptflow.rst "Every core": the printing thread
	 * does most of the work on the traces at hand) */
	jobs = pf->jobs ? lpt_par_jobs(pf->jobs) : 1;
	if (jobs > 1) {
		int r = par_piece(pf, e, buf, len, base, cut, jobs);

		if (r != 1)
			return r;
	}
	return serial_piece(pf, e, buf, len, base, cut, 0);
}

void ptflow_flow_use(struct ptflow *pf)
{
	pf->piece = flow_piece;
}

/*
 * A `format bts` trace (ptcap-format.rst "BTS trace files"): libpt's BTS
 * decoder over the same image, its blocks and events printed as the flow
 * engine's. Never libipt's (1): it reads no BTS.
 */
static int bts_piece(struct ptflow *pf, uint8_t *buf, size_t len, uint64_t base,
		     bool cut)
{
	struct ptflow_flow *e = engine_get(pf);
	struct lpt_bts *d;
	int st;

	(void)base;
	(void)cut;
	d = e ? lpt_bts_alloc(e->img, buf, len, pf->bts_start) : NULL;
	if (!d) {
		fprintf(pf->err, "%s: out of memory\n", pf->prog);
		return -1;
	}
	st = lpt_bts_status(d);
	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
		if (st & LPT_FLOW_EVENT_PENDING) {
			struct lpt_flow_event ev;
			struct pt_event pe;

			st = lpt_bts_event(d, &ev);
			if (st < 0)
				break;
			if (!to_pt_event(&ev, &pe))
				ptflow_emit_error(pf, ev.offset, error_text(ev.err), ev.ip);
			else
				ptflow_emit_event(pf, &pe);
		} else {
			struct lpt_flow_block b;

			st = lpt_bts_next(d, &b);
			if (st < 0)
				break;
			if (!emit_block_views(pf, e, &b))
				emit_block(pf, e, &b);
		}
	}
	lpt_bts_free(d);
	if (st < 0) {
		ptflow_emit_error(pf, len, lpt_cov_errstr(st), 0);
		return 0;
	}
	/* BTS stops when the buffer is full, or at the thread's end. */
	ptflow_emit_end(pf);
	return 0;
}

void ptflow_flow_bts_use(struct ptflow *pf)
{
	pf->piece = bts_piece;
}
