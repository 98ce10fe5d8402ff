// SPDX-License-Identifier: GPL-2.0
/*
 * Exactness of libpt's flow engine (lwpt/pt_flow.h, issue 34 point 1):
 * on the real traces of ../shared/testdata/pt/real/libxdc with their page
 * caches, the engine's blocks expanded into instruction addresses and its
 * events are compared, in order, with what libipt 2.0.5's instruction-flow
 * decoder yields (pt_insn_next(), pt_insn_event(); pt_insn_sync_forward()
 * after each error, as ptflow does): every instruction's address, and the
 * events enabled (with resumed), disabled, async disabled, async branch,
 * overflow, exec mode and cbr (libipt's status updates after a PSB and
 * the event types the engine does not report yet left out), and a resync
 * record at each error. Plus the API's errors.
 */
#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include <lwpt/pt_chunk.h>
#include <lwpt/pt_flow.h>

#include "tests/check_run.h"
#include "tests/libpt/cov_ref.h"
#include "tests/libpt/real_traces.h"

/* One record of a decode: an instruction, an event or a resync. */
enum { R_INSN, R_EV, R_RESYNC };

struct rec {
	uint8_t kind, type, supp;
	uint64_t a, b;
};

struct recs {
	struct rec *r;
	size_t n, cap;
};

static void add(struct recs *s, uint8_t kind, uint8_t type, bool supp,
		uint64_t a, uint64_t b)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1 << 16;
		s->r = realloc(s->r, s->cap * sizeof(*s->r));
		ck_assert_ptr_nonnull(s->r);
	}
	s->r[s->n++] = (struct rec){ kind, type, supp, a, b };
}

/* libipt's records of @trace. */
static void ref_recs(const uint8_t *trace, size_t len, const struct cov_ref_pages *pc,
		     uint64_t fstart, uint64_t fend, struct recs *out)
{
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	struct pt_image *img;
	int st;

	ck_assert_int_eq(cov_ref_config(&cfg, trace, len, fstart, fend, 6, 94, 3), 0);
	d = pt_insn_alloc_decoder(&cfg);
	ck_assert_ptr_nonnull(d);
	img = pt_image_alloc("flow_ref");
	pt_image_set_callback(img, cov_ref_read, (void *)pc);
	pt_insn_set_image(d, img);
	for (uint64_t last = 0, off;;) {
		/* as ptflow's decode_piece(): a failed sync is an error, and
		 * the search goes on while it makes progress */
		st = pt_insn_sync_forward(d);
		if (st == -pte_eos)
			break;
		if (st < 0) {
			if (pt_insn_get_offset(d, &off) < 0 || (last && off <= last))
				break;
			add(out, R_RESYNC, 0, true, 0, 0);
			last = off;
			continue;
		}
		if (pt_insn_get_offset(d, &off) >= 0)
			last = off;
		for (;;) {
			struct pt_insn insn;

			while (st & pts_event_pending) {
				struct pt_event ev;

				st = pt_insn_event(d, &ev, sizeof(ev));
				if (st < 0)
					break;
				if (ev.status_update)
					continue;
				switch (ev.type) {
				case ptev_enabled:	/* a: resumed */
					add(out, R_EV, LPT_FLOW_EV_ENABLED, false,
					    ev.variant.enabled.resumed,
					    ev.variant.enabled.ip);
					break;
				case ptev_exec_mode:
					add(out, R_EV, LPT_FLOW_EV_EXEC_MODE, false, 0,
					    ev.variant.exec_mode.mode == ptem_64bit ? 64 :
					    ev.variant.exec_mode.mode == ptem_32bit ? 32 : 16);
					break;
				case ptev_cbr:
					add(out, R_EV, LPT_FLOW_EV_CBR, false, 0,
					    ev.variant.cbr.ratio);
					break;
				case ptev_paging:	/* a: non-root */
					add(out, R_EV, LPT_FLOW_EV_PAGING, false,
					    ev.variant.paging.non_root,
					    ev.variant.paging.cr3);
					break;
				case ptev_vmcs:
					add(out, R_EV, LPT_FLOW_EV_VMCS, false, 0,
					    ev.variant.vmcs.base);
					break;
				case ptev_disabled:
					add(out, R_EV, LPT_FLOW_EV_DISABLED, ev.ip_suppressed,
					    0, ev.ip_suppressed ? 0 : ev.variant.disabled.ip);
					break;
				case ptev_async_disabled:
					add(out, R_EV, LPT_FLOW_EV_ASYNC_DISABLED,
					    ev.ip_suppressed, ev.variant.async_disabled.at,
					    ev.ip_suppressed ? 0 : ev.variant.async_disabled.ip);
					break;
				case ptev_async_branch:
					add(out, R_EV, LPT_FLOW_EV_ASYNC_BRANCH,
					    ev.ip_suppressed, ev.variant.async_branch.from,
					    ev.ip_suppressed ? 0 : ev.variant.async_branch.to);
					break;
				case ptev_overflow:
					add(out, R_EV, LPT_FLOW_EV_OVERFLOW, ev.ip_suppressed,
					    0, ev.ip_suppressed ? 0 : ev.variant.overflow.ip);
					break;
				default:
					break;
				}
			}
			if (st < 0 || (st & pts_eos))
				break;
			st = pt_insn_next(d, &insn, sizeof(insn));
			if (st < 0)
				break;
			add(out, R_INSN, 0, false, insn.ip, 0);
		}
		if (st < 0)
			add(out, R_RESYNC, 0, true, 0, 0);
	}
	pt_insn_free_decoder(d);
	pt_image_free(img);
}

/* @b's instructions into @out. */
static void block_recs(const struct lpt_flow_block *b, struct recs *out)
{
	uint64_t a = b->ip;

	ck_assert_uint_ge(b->ninsn, 1);
	for (uint32_t i = 0; i < b->ninsn; i++) {
		add(out, R_INSN, 0, false, a, 0);
		if (i + 1 == b->ninsn)
			ck_assert_uint_eq(a, b->end_ip);
		a += b->lens[i];
	}
}

/* The blocks of flow_recs(): 0, one at a time (lpt_flow_next()); else
 * up to this many a call (lpt_flow_blocks()). */
static size_t flow_batch;

/* The engine's records of @trace. */
static void flow_recs(struct lpt_flow *f, const uint8_t *trace, size_t len,
		      struct recs *out)
{
	int st = lpt_flow_sync(f, trace, len);

	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
		if (st & LPT_FLOW_EVENT_PENDING) {
			struct lpt_flow_event ev;

			st = lpt_flow_event(f, &ev);
			ck_assert_int_ge(st, 0);
			if (ev.type == LPT_FLOW_EV_RESYNC)
				add(out, R_RESYNC, 0, true, 0, 0);
			else if (ev.type == LPT_FLOW_EV_ENABLED)
				add(out, R_EV, (uint8_t)ev.type, false, ev.resumed, ev.ip);
			else if (ev.type == LPT_FLOW_EV_EXEC_MODE)
				add(out, R_EV, (uint8_t)ev.type, false, 0, ev.mode);
			else if (ev.type == LPT_FLOW_EV_CBR)
				add(out, R_EV, (uint8_t)ev.type, false, 0, ev.cbr);
			else if (ev.type == LPT_FLOW_EV_PAGING)
				add(out, R_EV, (uint8_t)ev.type, false, ev.non_root, ev.cr3);
			else if (ev.type == LPT_FLOW_EV_VMCS)
				add(out, R_EV, (uint8_t)ev.type, false, 0, ev.vmcs);
			else
				add(out, R_EV, (uint8_t)ev.type, ev.ip_suppressed,
				    ev.from, ev.ip);
		} else if (flow_batch) {
			struct lpt_flow_block b[64];
			size_t n = 99;

			ck_assert_uint_le(flow_batch, 64);
			st = lpt_flow_blocks(f, b, flow_batch, &n);
			ck_assert_int_ge(st, 0);
			ck_assert_uint_ge(n, 1);
			ck_assert_uint_le(n, flow_batch);
			/* 0: only with the array full, a block next */
			if (!st)
				ck_assert_uint_eq(n, flow_batch);
			for (size_t i = 0; i < n; i++)
				block_recs(&b[i], out);
		} else {
			struct lpt_flow_block b;

			st = lpt_flow_next(f, &b);
			ck_assert_int_ge(st, 0);
			block_recs(&b, out);
		}
	}
	ck_assert_int_ge(st, 0);
}

static void print_rec(const char *who, size_t i, const struct rec *r)
{
	printf("  %s[%zu]: %s type %u supp %u a %016" PRIx64 " b %016" PRIx64 "\n",
	       who, i, r->kind == R_INSN ? "insn" : r->kind == R_EV ? "event" : "resync",
	       r->type, r->supp, r->a, r->b);
}

/* Whether the streams are the same; the first difference printed. */
static bool same(const char *name, const struct recs *ref, const struct recs *got,
		 bool brief)
{
	size_t n = ref->n < got->n ? ref->n : got->n, i;

	for (i = 0; i < n; i++) {
		const struct rec *x = &ref->r[i], *y = &got->r[i];

		if (x->kind != y->kind || x->type != y->type || x->supp != y->supp ||
		    x->a != y->a || x->b != y->b)
			break;
	}
	if (i == n && ref->n == got->n)
		return true;
	printf("%s: differs at record %zu (libipt %zu records, lpt_flow %zu)\n",
	       name, i, ref->n, got->n);
	if (brief)
		return false;
	for (size_t j = i > 4 ? i - 4 : 0; j < i + 4; j++) {
		if (j < ref->n)
			print_rec("libipt", j, &ref->r[j]);
		if (j < got->n)
			print_rec("flow  ", j, &got->r[j]);
	}
	return false;
}

static size_t count_kind(const struct recs *s, uint8_t kind)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->r[i].kind == kind;
	return n;
}

/* A real trace and its code, or false (skipped) when not there. */
static bool load_real(const struct real *r, uint8_t **trace, size_t *len,
		      struct cov_ref_pages *pc, struct lpt_cov_image **img)
{
	*trace = real_trace_read(r->file, len);
	if (!*trace)
		return false;
	*img = lpt_cov_image_alloc();
	ck_assert_ptr_nonnull(*img);
	ck_assert_int_eq(real_code_load(r->name, pc, *img), 0);
	return true;
}

static struct lpt_flow *new_flow(const struct lpt_cov_image *img, uint64_t start,
				 uint64_t end)
{
	struct lpt_flow_config cfg;
	struct lpt_flow *f;

	lpt_flow_config_init(&cfg);
	if (start || end) {
		cfg.nfilter = 1;
		cfg.filter[0].start = start;
		cfg.filter[0].end = end;
	}
	cfg.cpu.vendor = 1;	/* Intel */
	cfg.cpu.family = 6;
	cfg.cpu.model = 94;
	cfg.cpu.stepping = 3;
	f = lpt_flow_alloc(&cfg, img);
	ck_assert_ptr_nonnull(f);
	return f;
}

START_TEST(real_traces)
{
	const struct real *r = &reals[_i];
	struct cov_ref_pages pc;
	struct lpt_cov_image *img;
	struct lpt_flow *f;
	struct recs ref = { 0 }, got = { 0 };
	uint8_t *trace;
	size_t len;

	if (!load_real(r, &trace, &len, &pc, &img))
		return;
	f = new_flow(img, r->start, r->end);

	ref_recs(trace, len, &pc, r->start, r->end, &ref);
	flow_recs(f, trace, len, &got);
	printf("%s: libipt %zu instructions, %zu events; lpt_flow %zu, %zu\n", r->name,
	       count_kind(&ref, R_INSN), count_kind(&ref, R_EV),
	       count_kind(&got, R_INSN), count_kind(&got, R_EV));
	ck_assert_msg(same(r->name, &ref, &got, false), "%s: lpt_flow differs from libipt",
		      r->name);
	/* warm: the same again from the cached blocks, one at a time and
	 * in arrays of lpt_flow_blocks() */
	static const size_t batches[] = { 0, 1, 7, 64 };

	for (size_t k = 0; k < sizeof(batches) / sizeof(batches[0]); k++) {
		got.n = 0;
		flow_batch = batches[k];
		flow_recs(f, trace, len, &got);
		ck_assert_msg(same(r->name, &ref, &got, false),
			      "%s warm, %zu a call: lpt_flow differs from libipt",
			      r->name, batches[k]);
	}
	flow_batch = 0;

	lpt_flow_free(f);
	lpt_cov_image_free(img);
	cov_ref_free_pages(&pc);
	free(ref.r);
	free(got.r);
	free(trace);
}
END_TEST

/* @trace[0, @len) through both: whether the same (asserted unless
 * @report_only). */
static bool compare(const char *name, struct lpt_flow *f, const uint8_t *trace,
		    size_t len, const struct cov_ref_pages *pc, uint64_t start,
		    uint64_t end, bool report_only)
{
	bool ok;
	struct recs ref = { 0 }, got = { 0 }, arr = { 0 };
	uint8_t *copy = malloc(len + 64);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, trace, len);
	memset(copy + len, 0, 64);	/* libipt's PSB search reads on */
	ref_recs(copy, len, pc, start, end, &ref);
	flow_recs(f, copy, len, &got);
	ok = same(name, &ref, &got, report_only && !getenv("TEST_PT_FLOW_VERBOSE"));
	ck_assert_msg(ok || report_only, "%s: lpt_flow differs from libipt", name);
	/* lpt_flow_blocks(): what lpt_flow_next() gives, errors too */
	flow_batch = 3;
	flow_recs(f, copy, len, &arr);
	flow_batch = 0;
	ck_assert_msg(same(name, &got, &arr, false),
		      "%s: lpt_flow_blocks() differs from lpt_flow_next()", name);
	free(arr.r);
	free(ref.r);
	free(got.r);
	free(copy);
	return ok;
}

/*
 * foo and Unzip cut at offsets across the trace (inside packets, PSB+,
 * TNT runs): the end of a trace that libipt decodes on from (the engine's
 * decode_end()), each against libipt.
 */
START_TEST(cut_traces)
{
	for (int k = 0; k < 2; k++) {
		const struct real *r = &reals[k];
		struct cov_ref_pages pc;
		struct lpt_cov_image *img;
		struct lpt_flow *f;
		uint8_t *trace;
		size_t len;
		char name[64];

		if (!load_real(r, &trace, &len, &pc, &img))
			return;
		f = new_flow(img, r->start, r->end);
		for (size_t cut = 17; cut < len; cut += len / 97 + 1) {
			snprintf(name, sizeof(name), "%s cut at %zu", r->name, cut);
			compare(name, f, trace, cut, &pc, r->start, r->end, false);
		}
		lpt_flow_free(f);
		lpt_cov_image_free(img);
		cov_ref_free_pages(&pc);
		free(trace);
	}
}
END_TEST

/*
 * Unzip with bytes changed at random (a fixed seed): corrupt packets,
 * wrong TNT bits and IPs, each against libipt.
 */
START_TEST(mutations)
{
	const struct real *r = &reals[0];
	struct cov_ref_pages pc;
	struct lpt_cov_image *img;
	struct lpt_flow *f;
	uint8_t *trace, *mut;
	size_t len;
	char name[128];
	unsigned int seed = 34;
	int nsame = 0;

	if (!load_real(r, &trace, &len, &pc, &img))
		return;
	f = new_flow(img, r->start, r->end);
	mut = malloc(len);
	ck_assert_ptr_nonnull(mut);
	for (int i = 0; i < 200; i++) {
		memcpy(mut, trace, len);
		int m = snprintf(name, sizeof(name), "%s mutation %d at", r->name, i);

		for (int k = 0; k < 1 + i % 4; k++) {
			size_t at = (size_t)rand_r(&seed) % len;

			m += snprintf(name + m, sizeof(name) - (size_t)m, " %zx", at);
			mut[at] = (uint8_t)(i & 1 ? (unsigned int)rand_r(&seed) : mut[at] ^ (1u << (k % 8)));
		}
		nsame += compare(name, f, mut, len, &pc, r->start, r->end, true);
	}
	printf("Unzip mutations: %d of 200 the same as libipt\n", nsame);
	free(mut);
	lpt_flow_free(f);
	lpt_cov_image_free(img);
	cov_ref_free_pages(&pc);
	free(trace);
}
END_TEST

/*
 * The real traces that have no page cache, decoded without code: every
 * span ends at its first instruction (libipt's -pte_nomap) and both go on
 * at the next PSB.
 */
START_TEST(no_code)
{
	static const char *const files[] = {
		"Kernel__trace.pt", "qemu__trace1.pt", "dyn_test__sample_raw_0.pt",
		"avscript_32__failed_trace_12709_1.pt",
		"infinite_loop_linux__loop_trace_26023_0.pt",
	};
	struct cov_ref_pages pc = { 0 };
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_flow *f = new_flow(img, 0, 0);

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint8_t *trace;
		size_t len;

		trace = real_trace_read(files[i], &len);
		if (!trace)
			continue;
		compare(files[i], f, trace, len, &pc, 0, 0, false);
		free(trace);
	}
	lpt_flow_free(f);
	lpt_cov_image_free(img);
}
END_TEST

/*
 * PIP and VMCS outside PSB+ while tracing is off (SDM 33.4.2.7, 33.4.2.9):
 * libipt's standalone paging and vmcs events, between the disable and the
 * enable, as the engine's; in PSB+ status updates, reported by neither.
 * No code: the span ends at its first instruction.
 */
START_TEST(paging_vmcs)
{
	static const uint8_t psb[] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	};
	/* PIP CR3 0x1234000 NR; VMCS base 0xabcde000; PSBEND */
	static const uint8_t status[] = {
		0x02, 0x43, 0x01, 0x34, 0x12, 0x00, 0x00, 0x00,
		0x02, 0xc8, 0xde, 0xbc, 0x0a, 0x00, 0x00,
		0x02, 0x23,
	};
	static const uint8_t off[] = {
		0x02, 0x43, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,	/* PIP 0x100000 */
		0x02, 0xc8, 0x11, 0x00, 0x00, 0x00, 0x00,	/* VMCS 0x11000 */
		0x99, 0x01,					/* MODE.Exec 64 */
		0x71, 0x00, 0x10, 0x40, 0x00, 0x00, 0x00,	/* TIP.PGE 0x401000 */
		0x04,						/* TNT.8 N */
		0x01,						/* TIP.PGD */
	};
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_flow *f = new_flow(img, 0, 0);
	struct cov_ref_pages pc = { 0 };
	struct recs got = { 0 };
	uint8_t trace[2 * (sizeof(psb) + sizeof(status) + sizeof(off))];
	size_t n = 0, npaging = 0, nvmcs = 0;

	for (int k = 0; k < 2; k++) {
		memcpy(trace + n, psb, sizeof(psb));
		n += sizeof(psb);
		memcpy(trace + n, status, sizeof(status));
		n += sizeof(status);
		memcpy(trace + n, off, sizeof(off));
		n += sizeof(off);
	}
	compare("paging_vmcs", f, trace, n, &pc, 0, 0, false);
	flow_recs(f, trace, n, &got);
	for (size_t i = 0; i < got.n; i++) {
		const struct rec *r = &got.r[i];

		if (r->kind != R_EV)
			continue;
		if (r->type == LPT_FLOW_EV_PAGING) {
			ck_assert_uint_eq(r->b, 0x100000);
			ck_assert_uint_eq(r->a, 0);	/* not NR */
			npaging++;
		} else if (r->type == LPT_FLOW_EV_VMCS) {
			ck_assert_uint_eq(r->b, 0x11000);
			nvmcs++;
		}
	}
	ck_assert_uint_eq(npaging, 2);
	ck_assert_uint_eq(nvmcs, 2);
	free(got.r);
	lpt_flow_free(f);
	lpt_cov_image_free(img);
}
END_TEST

START_TEST(api_errors)
{
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_flow_config cfg;
	struct lpt_flow_block b;
	struct lpt_flow_event ev;
	struct lpt_flow *f;
	static const uint8_t nopsb[] = { 0, 0, 0, 0 };
	size_t n;

	lpt_flow_config_init(&cfg);
	ck_assert_ptr_null(lpt_flow_alloc(NULL, img));
	ck_assert_ptr_null(lpt_flow_alloc(&cfg, NULL));
	cfg.nfilter = LPT_COV_MAX_FILTERS + 1;
	ck_assert_ptr_null(lpt_flow_alloc(&cfg, img));
	cfg.nfilter = 1;	/* empty range */
	ck_assert_ptr_null(lpt_flow_alloc(&cfg, img));
	cfg.nfilter = 0;
	f = lpt_flow_alloc(&cfg, img);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(lpt_flow_next(f, &b), LPT_ERR_NOSYNC);
	n = 5;
	ck_assert_int_eq(lpt_flow_blocks(f, &b, 1, &n), LPT_ERR_NOSYNC);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(lpt_flow_blocks(NULL, &b, 1, &n), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_flow_blocks(f, NULL, 1, &n), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_flow_blocks(f, &b, 0, &n), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_flow_blocks(f, &b, 1, NULL), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_flow_event(f, &ev), LPT_ERR_NOSYNC);
	ck_assert_int_eq(lpt_flow_next(NULL, &b), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_flow_next(f, NULL), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_flow_sync(NULL, nopsb, sizeof(nopsb)), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_flow_sync(f, NULL, 4), LPT_ERR_INVALID);
	ck_assert_int_eq(lpt_flow_sync(f, nopsb, sizeof(nopsb)), LPT_ERR_NOSYNC);
	ck_assert_int_eq(lpt_flow_sync(f, NULL, 0), LPT_ERR_NOSYNC);
	ck_assert_int_eq(lpt_flow_next(f, &b), LPT_ERR_BAD_CONTEXT);
	ck_assert_int_eq(lpt_flow_blocks(f, &b, 1, &n), LPT_ERR_BAD_CONTEXT);
	ck_assert_int_eq(lpt_flow_event(f, &ev), LPT_ERR_BAD_CONTEXT);
	ck_assert_uint_eq(lpt_flow_offset(NULL), 0);
	lpt_flow_free(f);
	lpt_flow_free(NULL);
	lpt_cov_image_free(img);
}
END_TEST

/*
 * LPT_FLOW_F_CHUNK (lwpt/pt_chunk.h): the real traces cut at every PSB and
 * into chunks of 3000 bytes, each chunk decoded by an engine of its own
 * through the next chunk's PSB+; the records in chunk order, with the
 * enables before a chunk's first disable, overflow or resync decided from
 * lpt_flow_resume_ip() at the end of the chunks before (as ptflow -j does),
 * are libipt's on the whole trace. Traces whose decode resyncs are where
 * ptflow -j decodes on with one engine: compared up to there only.
 */
START_TEST(chunks)
{
	const struct real *r = &reals[_i];
	static const size_t target[] = { 1, 3000 };
	struct cov_ref_pages pc;
	struct lpt_cov_image *img;
	struct recs ref = { 0 };
	uint8_t *trace;
	size_t len;

	if (!load_real(r, &trace, &len, &pc, &img))
		return;
	ref_recs(trace, len, &pc, r->start, r->end, &ref);
	for (size_t t = 0; t < sizeof(target) / sizeof(target[0]); t++) {
		struct lpt_flow_config cfg;
		struct lpt_flow *f;
		struct recs got = { 0 };
		uint64_t resume = 0;
		size_t nchunk = 0, pos = 0;
		bool resynced = false;
		char name[96];

		lpt_flow_config_init(&cfg);
		if (r->start || r->end) {
			cfg.nfilter = 1;
			cfg.filter[0].start = r->start;
			cfg.filter[0].end = r->end;
		}
		cfg.cpu.vendor = 1;
		cfg.cpu.family = 6;
		cfg.cpu.model = 94;
		cfg.cpu.stepping = 3;
		cfg.flags = LPT_FLOW_F_CHUNK;
		while (pos < len && !resynced) {
			size_t end = lpt_chunk_next(trace, len, pos, target[t]);
			size_t stop = end < len ? lpt_chunk_psb_end(trace, len, end) : len;
			size_t first = got.n;
			bool carry = true;

			f = lpt_flow_alloc(&cfg, img);	/* knows nothing */
			ck_assert_ptr_nonnull(f);
			flow_recs(f, trace + pos, stop - pos, &got);
			for (size_t i = first; i < got.n; i++) {
				struct rec *x = &got.r[i];

				if (x->kind == R_RESYNC) {
					resynced = end < len;
					carry = false;
				} else if (x->kind == R_EV && carry &&
					   x->type == LPT_FLOW_EV_ENABLED) {
					x->a = resume && resume == x->b;
				} else if (x->kind == R_EV &&
					   (x->type == LPT_FLOW_EV_DISABLED ||
					    x->type == LPT_FLOW_EV_ASYNC_DISABLED ||
					    x->type == LPT_FLOW_EV_OVERFLOW)) {
					carry = false;
				}
			}
			if (!carry)
				resume = lpt_flow_resume_ip(f);
			lpt_flow_free(f);
			nchunk++;
			pos = end;
		}
		snprintf(name, sizeof(name), "%s in chunks of %zu", r->name, target[t]);
		printf("%s: %zu chunks, %zu records%s\n", name, nchunk, got.n,
		       resynced ? " (up to the first resync)" : "");
		if (resynced) {
			struct recs part = ref;

			while (got.n && got.r[got.n - 1].kind != R_RESYNC)
				got.n--;
			part.n = got.n;
			ck_assert_msg(same(name, &part, &got, false),
				      "%s: chunks differ from libipt", name);
		} else {
			ck_assert_msg(same(name, &ref, &got, false),
				      "%s: chunks differ from libipt", name);
		}
		free(got.r);
	}
	lpt_cov_image_free(img);
	cov_ref_free_pages(&pc);
	free(ref.r);
	free(trace);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pt_flow");
	TCase *tc = tcase_create("flow");

	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, real_traces, 0, REAL_NTRACES);
	tcase_add_loop_test(tc, chunks, 0, REAL_NTRACES);
	tcase_add_test(tc, cut_traces);
	tcase_add_test(tc, mutations);
	tcase_add_test(tc, no_code);
	tcase_add_test(tc, paging_vmcs);
	tcase_add_test(tc, api_errors);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
