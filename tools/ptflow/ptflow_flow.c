// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow's lwpt engine: libpt's flow engine (lwpt/pt_flow.h) over the
 * code of ptflow's image (ptflow_image_read(): the same bytes libipt
 * reads), its blocks and events printed as libipt's engine prints
 * instructions and events (ptflow_emit_*()).
 */
#include "tools/ptflow/ptflow_flow.h"

#include <stdlib.h>
#include <string.h>

#include <lwpt/bts_decode.h>
#include <lwpt/pt_flow.h>

#include "tools/ptflow/ptflow_image.h"

struct ptflow_flow {
	struct lpt_cov_image *img;
	struct lpt_flow *f;
	const struct pt_image *image;
};

const char *ptflow_flow_unsupported(const struct ptflow_options *opt)
{
	(void)opt;
	return NULL;
}

static size_t read_code(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
	return ptflow_image_read(ctx, addr, buf, size);
}

static void engine_free(void *engine)
{
	struct ptflow_flow *e = engine;

	if (!e)
		return;
	lpt_flow_free(e->f);
	lpt_cov_image_free(e->img);
	free(e);
}

/* The engine for @pf's image, set up at the first piece. */
static struct ptflow_flow *engine_get(struct ptflow *pf)
{
	struct ptflow_flow *e = pf->engine;
	struct lpt_flow_config cfg;

	if (e)
		return e;
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
	/* time where it is shown: --time, the views (SDM 33.8.3) */
	if (pf->opt.time || pf->opt.calls || pf->opt.report || pf->opt.export_chrome)
		cfg.flags |= LPT_FLOW_F_TIME;
	if (pf->opt.offset)
		cfg.flags |= LPT_FLOW_F_OFFSET;
	cfg.time.mtc_freq = pf->par.mtc_freq;
	cfg.time.nom_freq = pf->par.nom_freq;
	cfg.time.cpuid_0x15_eax = pf->par.cpuid_15_eax;
	cfg.time.cpuid_0x15_ebx = pf->par.cpuid_15_ebx;
	e->f = lpt_flow_alloc(&cfg, e->img);
	if (!e->f) {
		lpt_cov_image_free(e->img);
		free(e);
		return NULL;
	}
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
		size_t n = ptflow_image_read(e->image, ip + got, buf + got, len - got);

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
 * One piece of a trace (ptflow_decode.c's decode_piece()): the flow and
 * the errors as libipt's engine prints them. 1: not for this engine.
 */
static int flow_piece(struct ptflow *pf, uint8_t *buf, size_t len, uint64_t base,
		      bool cut)
{
	struct ptflow_flow *e;
	bool enabled = false, clean = true;
	int st;

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
			struct pt_event pe;

			st = lpt_flow_event(e->f, &ev);
			if (st < 0)
				break;
			pf->emit_tsc = ev.tsc;
			pf->emit_off = ev.query_offset + pf->seg_base;
			if (!to_pt_event(&ev, &pe)) {
				/* a piece that ends at a gap ends mid-packet */
				if (!(cut && ev.err == LPT_ERR_EOS))
					ptflow_emit_error(pf, ev.offset,
							  error_text(ev.err),
							  ev.ip_suppressed ? 0 : ev.ip);
				enabled = false;
				clean = false;
				continue;
			}
			clean = true;
			if (ev.type == LPT_FLOW_EV_ENABLED)
				enabled = true;
			else if (ev.type == LPT_FLOW_EV_OVERFLOW)
				enabled = !ev.ip_suppressed;
			else if (ev.type == LPT_FLOW_EV_DISABLED ||
				 ev.type == LPT_FLOW_EV_ASYNC_DISABLED)
				enabled = false;
			ptflow_emit_event(pf, &pe);
		} else {
			struct lpt_flow_block b;

			st = lpt_flow_next(e->f, &b);
			if (st < 0)
				break;
			enabled = true;
			clean = true;
			if (!emit_block_views(pf, e, &b))
				emit_block(pf, e, &b);
		}
	}
	if (st < 0) {
		ptflow_emit_error(pf, lpt_flow_offset(e->f), lpt_cov_errstr(st), 0);
		return 0;
	}
	if (!clean)
		return 0;
	/* PacketEn=1 at the end: the output was cut (ptflow_decode.c) */
	if (enabled) {
		if (!cut)
			ptflow_emit_error(pf, len, "trace ends while tracing is "
					  "enabled", 0);
		return 0;
	}
	ptflow_emit_end(pf);
	return 0;
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
