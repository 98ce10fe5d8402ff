// SPDX-License-Identifier: GPL-2.0
/*
 * Resuming the instruction flow at the next span (ptflow_resume.h).
 */
#include "tools/ptflow/ptflow_resume.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/pt_pkt.h>

/* Packet headers written here (SDM 33.4.2): IPBytes 110b, the full IP. */
#define HDR_TIP_PGE_FULL	0xd1	/* TIP.PGE, 33.4.2.3 */
#define HDR_FUP_FULL		0xdd	/* FUP, 33.4.2.5 */
#define HDR_TIP_PGD_NONE	0x01	/* TIP.PGD, IP suppressed, 33.4.2.4 */
#define MODE_EXEC_64		0x99, 0x01	/* MODE.Exec, CS.L=1, 33.4.2.8 */

/* A growing byte buffer. */
struct out {
	uint8_t *b;
	size_t n, cap;
	bool nomem;
};

static void put(struct out *o, const uint8_t *p, size_t n)
{
	if (o->nomem)
		return;
	if (o->n + n > o->cap) {
		size_t nc = o->cap ? 2 * o->cap : 256;
		uint8_t *nb;

		while (nc < o->n + n)
			nc *= 2;
		nb = realloc(o->b, nc);
		if (!nb) {
			o->nomem = true;
			return;
		}
		o->b = nb;
		o->cap = nc;
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put_ip(struct out *o, uint8_t hdr, uint64_t ip)
{
	uint8_t p[9];
	int i;

	p[0] = hdr;
	for (i = 0; i < 8; i++)
		p[1 + i] = (uint8_t)(ip >> (8 * i));
	put(o, p, sizeof(p));
}

static bool timing(enum lpt_pkt_type t)
{
	return t == LPT_PKT_TSC || t == LPT_PKT_TMA || t == LPT_PKT_MTC ||
	       t == LPT_PKT_CBR || t == LPT_PKT_CYC;
}

/*
 * Tracing state at the PSB+ at @psb: its FUP's IP in @ip (true), or false
 * (no FUP: tracing off, SDM 33.4.2.17). Last IP is 0 at a PSB. Its timing
 * packets (TSC, TMA, CBR...) are written to @o when true: libipt reads
 * ahead through the timing packets before the next branch or event packet,
 * so the continuous decoder gives the instructions before the PSB (e.g. a
 * call to the FUP IP) the PSB+'s TSC; the synthetic trace must too.
 */
static bool psb_fup(struct lpt_pkt_decoder *dec, const uint8_t *buf,
		    uint64_t psb, uint64_t *ip, struct out *o)
{
	struct lpt_last_ip lip;
	struct lpt_packet p;
	struct out t = { 0 };
	uint64_t off;
	bool have_ip = false;

	lpt_last_ip_init(&lip);
	if (lpt_pkt_sync_set(dec, psb) < 0)
		return false;
	while (lpt_pkt_get_offset(dec, &off) == 0 &&
	       lpt_pkt_next(dec, &p) >= 0 && p.type != LPT_PKT_PSBEND) {
		if (p.type == LPT_PKT_FUP && !have_ip) {
			(void)lpt_last_ip_update_pkt(&lip, &p);
			have_ip = lpt_last_ip_query(&lip, ip) == 0;
		} else if (timing(p.type)) {
			put(&t, buf + off, p.size);
		}
	}
	if (have_ip && t.n)
		put(o, t.b, t.n);
	if (t.nomem)
		o->nomem = true;
	free(t.b);
	return have_ip;
}

int ptflow_resume_build(const uint8_t *buf, size_t len, uint64_t after,
			size_t pad, struct ptflow_resume *r)
{
	static const uint8_t mode64[] = { MODE_EXEC_64 };
	struct lpt_pkt_decoder *dec;
	struct lpt_last_ip lip;
	struct lpt_packet p;
	struct out o = { 0 };
	uint8_t mode[2];
	uint64_t off = 0, psb = 0, fup_ip = 0, ip = 0;
	bool have_mode = false, in_psb = false, found = false;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (after > len)
		return 0;
	dec = lpt_pkt_alloc(buf, len, NULL);
	if (!dec)
		return -1;
	/* The last PSB before @after: the flow's packet context. */
	if (lpt_pkt_sync_set(dec, after) < 0 || lpt_pkt_sync_backward(dec) < 0 ||
	    lpt_pkt_get_offset(dec, &psb) < 0)
		goto out;
	lpt_last_ip_init(&lip);
	for (;;) {
		if (lpt_pkt_get_offset(dec, &off) < 0 || lpt_pkt_next(dec, &p) < 0)
			goto out;
		switch (p.type) {
		case LPT_PKT_PSB:
			if (off != psb)
				goto out;	/* the next PSB came first */
			in_psb = true;
			put(&o, buf + off, p.size);
			continue;
		case LPT_PKT_PSBEND:
			in_psb = false;
			put(&o, buf + off, p.size);
			continue;
		case LPT_PKT_OVF:
			if (off >= after)
				goto out;	/* a span starting at a FUP */
			continue;
		case LPT_PKT_MODE_EXEC:
			memcpy(mode, buf + off, sizeof(mode));
			have_mode = true;
			continue;
		case LPT_PKT_TIP_PGE:
		case LPT_PKT_TIP_PGD:
		case LPT_PKT_TIP:
		case LPT_PKT_FUP:
			(void)lpt_last_ip_update_pkt(&lip, &p);
			if (p.type == LPT_PKT_TIP_PGE && off >= after && !in_psb)
				found = lpt_last_ip_query(&lip, &ip) == 0;
			break;
		default:
			break;
		}
		if (found)
			break;
		/* PSB+ but its FUP (tracing off); timing packets after it. */
		if ((in_psb && p.type != LPT_PKT_FUP) ||
		    (!in_psb && timing(p.type)))
			put(&o, buf + off, p.size);
	}
	r->target = off;
	r->skip = off + p.size;
	put(&o, have_mode ? mode : mode64, sizeof(mode));
	put_ip(&o, HDR_TIP_PGE_FULL, ip);
	r->body = o.n;
	/*
	 * The rest up to the next PSB, where the caller's decoder goes on: the
	 * first PSB packet from @skip on (it may follow the TIP.PGE at once),
	 * else, past a packet that does not decode, the next PSB pattern.
	 */
	r->next_psb = len;
	if (lpt_pkt_sync_set(dec, r->skip) < 0)
		goto out;
	for (;;) {
		if (lpt_pkt_get_offset(dec, &off) < 0)
			break;
		if (lpt_pkt_next(dec, &p) < 0) {
			if (lpt_pkt_sync_forward(dec) == 0 &&
			    lpt_pkt_get_offset(dec, &off) == 0)
				r->next_psb = off;
			break;
		}
		if (p.type == LPT_PKT_PSB) {
			r->next_psb = off;
			break;
		}
	}
	if (r->next_psb < r->skip)
		goto out;
	put(&o, buf + r->skip, (size_t)(r->next_psb - r->skip));
	r->tail = o.n;
	if (r->next_psb < len &&
	    psb_fup(dec, buf, r->next_psb, &fup_ip, &o)) {
		r->end_ip = fup_ip;
		put_ip(&o, HDR_FUP_FULL, fup_ip);
		put(&o, (const uint8_t[]){ HDR_TIP_PGD_NONE }, 1);
	}
	r->len = o.n;
	while (pad--)
		put(&o, (const uint8_t[]){ 0 }, 1);
	if (o.nomem) {
		ret = -1;
		goto out;
	}
	r->buf = o.b;
	o.b = NULL;
	ret = 1;
out:
	free(o.b);
	lpt_pkt_free(dec);
	if (ret != 1)
		memset(r, 0, sizeof(*r));
	return ret;
}

uint64_t ptflow_resume_map(const struct ptflow_resume *r, uint64_t off)
{
	if (off < r->body)
		return r->target;
	if (off < r->tail)
		return r->skip + (off - r->body);
	return r->next_psb;
}

void ptflow_resume_free(struct ptflow_resume *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}
