// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The flow engine's clock (flow_time.h): the timing packets (SDM 33.4.2.10
 * CBR, .11 TSC, .12 MTC, .13 TMA, .14 CYC) applied as libipt 2.0.5's query
 * decoder applies them (pt_qry_apply_*(): calibration first, then the
 * estimate; TSC and CBR inside PSB+ with the header calibration; the FCR
 * of a CYC taken before its cycles are counted, which gives the same
 * value since counting does not change the FCR; configuration errors
 * ignored), and which packets publish an event the engine does not report.
 */
#include "libpt/flow_time.h"

#include "libpt/cov_internal.h"

#include <stddef.h>

#include <lwpt/pt_packets.h>
#include <lwpt/pt_pkt.h>

void flow_clock_reset(struct flow_clock *k, const uint8_t *pos, const uint8_t *end)
{
	lpt_time_init(&k->time);
	lpt_tcal_init(&k->tcal);
	k->pos = pos;
	k->end = end;
	k->in_psb = k->psb_ev = k->fup = k->psbend_held = false;
	k->psb_nev = 0;
}

uint64_t flow_clock_tsc(const struct flow_clock *k)
{
	uint64_t tsc = 0;

	(void)lpt_time_query_tsc(&k->time, &tsc, NULL, NULL);
	return tsc;
}

/* One packet; whether it publishes a hidden event (see the header). */
static bool apply(struct flow_clock *k, const struct lpt_packet *pkt)
{
	const struct lpt_time_config *cfg = &k->cfg;
	uint64_t fcr;

	switch (pkt->type) {
	case LPT_PKT_PSB:
		(void)lpt_tcal_update_psb(&k->tcal, cfg);
		k->in_psb = true;
		k->psb_ev = false;
		k->psb_nev = 0;
		k->fup = false;
		return false;
	case LPT_PKT_PSBEND:
		k->in_psb = false;
		k->psbend_held = k->psb_nev > 1;
		return k->psb_ev;
	case LPT_PKT_TSC:
		if (k->in_psb)
			(void)lpt_tcal_header_tsc(&k->tcal, pkt->payload.tsc.tsc, cfg);
		else
			(void)lpt_tcal_update_tsc(&k->tcal, pkt->payload.tsc.tsc, cfg);
		(void)lpt_time_update_tsc(&k->time, pkt->payload.tsc.tsc, cfg);
		return false;
	case LPT_PKT_CBR:
		if (k->in_psb) {
			(void)lpt_tcal_header_cbr(&k->tcal, pkt->payload.cbr.ratio, cfg);
			k->psb_ev = true;
			k->psb_nev++;
		} else {
			(void)lpt_tcal_update_cbr(&k->tcal, pkt->payload.cbr.ratio, cfg);
		}
		(void)lpt_time_update_cbr(&k->time, pkt->payload.cbr.ratio, cfg);
		return false;	/* outside PSB+ the engine's own CBR event */
	case LPT_PKT_TMA:
		(void)lpt_tcal_update_tma(&k->tcal, pkt->payload.tma.ctc,
					  pkt->payload.tma.fc, cfg);
		(void)lpt_time_update_tma(&k->time, pkt->payload.tma.ctc,
					  pkt->payload.tma.fc, cfg);
		return false;
	case LPT_PKT_MTC:
		(void)lpt_tcal_update_mtc(&k->tcal, pkt->payload.mtc.ctc, cfg);
		(void)lpt_time_update_mtc(&k->time, pkt->payload.mtc.ctc, cfg);
		return false;
	case LPT_PKT_CYC:
		if (lpt_tcal_fcr(&k->tcal, &fcr) < 0)
			fcr = 0;
		(void)lpt_tcal_update_cyc(&k->tcal, pkt->payload.cyc.value, cfg);
		(void)lpt_time_update_cyc(&k->time, pkt->payload.cyc.value, cfg, fcr);
		return false;
	case LPT_PKT_MODE_EXEC:
	case LPT_PKT_MODE_TSX:
	case LPT_PKT_MNT:
		if (k->in_psb) {
			k->psb_ev = true;
			k->psb_nev++;
			return false;
		}
		return pkt->type == LPT_PKT_MNT;
	case LPT_PKT_PIP:
	case LPT_PKT_VMCS:
		if (k->in_psb) {
			k->psb_ev = true;
			k->psb_nev++;
			return false;
		}
		/* standalone unless it binds to an async branch's TIP */
		return !k->fup;
	case LPT_PKT_FUP:
		if (!k->in_psb)
			k->fup = true;
		return false;
	case LPT_PKT_OVF:
		/* pt_qry_decode_ovf(): the decoder reset, the time kept,
		 * the calibration not */
		lpt_tcal_init(&k->tcal);
		k->fup = false;
		return false;
	case LPT_PKT_TIP:
	case LPT_PKT_TIP_PGE:
	case LPT_PKT_TIP_PGD:
		k->fup = false;
		return false;
	case LPT_PKT_PWRE:
	case LPT_PKT_PWRX:
	case LPT_PKT_TRACESTOP:
		return true;
	case LPT_PKT_EXSTOP:
		return !pkt->payload.exstop.ip;
	case LPT_PKT_PTW:
		return !pkt->payload.ptw.ip;
	default:
		return false;
	}
}

bool flow_clock_advance(struct flow_clock *k, const uint8_t *to)
{
	bool hidden = false;

	k->psbend_held = false;
	if (to > k->end)
		to = k->end;
	while (k->pos < to) {
		struct lpt_packet pkt;
		uint8_t b = *k->pos, ipc = b & PT_OPM_IP, ipb = b >> PT_IPBYTES_SHIFT;
		int n;

		/* the hot ones without decoding: TNT.8, PAD, the TIP family */
		if (!(b & PT_OPM_TNT_8) && b != PT_OPC_EXT) {
			k->pos++;
			continue;
		}
		if ((ipc == PT_OPC_TIP || ipc == PT_OPC_TIP_PGE || ipc == PT_OPC_TIP_PGD ||
		     ipc == PT_OPC_FUP) && ipb != PT_IPBYTES_RSVD_5 &&
		    ipb != PT_IPBYTES_RSVD_7 &&
		    (size_t)(k->end - k->pos) > PT_IPBYTES_PAYLOAD_SIZE(ipb)) {
			if (ipc != PT_OPC_FUP)
				k->fup = false;
			else if (!k->in_psb)
				k->fup = true;
			k->pos += 1 + PT_IPBYTES_PAYLOAD_SIZE(ipb);
			continue;
		}
		n = lpt_pkt_decode(k->pos, (size_t)(k->end - k->pos), NULL, &pkt, 0);

		if (n <= 0) {	/* not a packet: the walk resynchronises */
			k->pos = to;
			break;
		}
		hidden |= apply(k, &pkt);
		k->pos += n;
	}
	return hidden;
}

const uint8_t *flow_clock_ahead(const struct flow_clock *k)
{
	const uint8_t *p = k->pos;
	bool in_psb = k->in_psb, psb_ev = k->psb_ev;

	while (p < k->end) {
		struct lpt_packet pkt;
		uint8_t b = *p;
		int n;

		if (b == PT_OPC_PAD) {
			p++;
			continue;
		}
		if (!(b & PT_OPM_TNT_8) && b != PT_OPC_EXT)
			return p;	/* TNT.8 */
		n = lpt_pkt_decode(p, (size_t)(k->end - p), NULL, &pkt, 0);
		if (n == LPT_ERR_EOS) {
			/* a status packet (or PSB+) cut by the end: ignored */
			struct cov_flow_ahead a = { 0, p, k->end, 0, NULL };

			return in_psb || cov_flow_class(&a, p, k->end) == FC_STATUS ?
			       k->end : p;
		}
		if (n <= 0)
			return p;
		switch (pkt.type) {
		case LPT_PKT_TSC: case LPT_PKT_TMA: case LPT_PKT_MTC: case LPT_PKT_CYC:
			break;
		case LPT_PKT_PSB:
			in_psb = true;
			psb_ev = false;
			break;
		case LPT_PKT_PSBEND:
			if (psb_ev)
				return p;	/* its status events next */
			in_psb = false;
			break;
		case LPT_PKT_FUP:
			break;	/* decoded: binds to the TIP after it */
		case LPT_PKT_MODE_EXEC: case LPT_PKT_MODE_TSX: case LPT_PKT_PIP:
		case LPT_PKT_VMCS: case LPT_PKT_CBR: case LPT_PKT_MNT:
			if (!in_psb)
				return p;
			psb_ev = true;
			break;
		default:
			return p;	/* a branch or an event */
		}
		p += n;
	}
	return k->end;
}

bool flow_clock_none(const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		struct lpt_packet pkt;
		uint8_t b = *p, ipc = b & PT_OPM_IP, ipb = b >> PT_IPBYTES_SHIFT;
		int n;

		/* the hot ones without decoding, as flow_clock_advance() */
		if (!(b & PT_OPM_TNT_8) && b != PT_OPC_EXT) {
			p++;
			continue;
		}
		if ((ipc == PT_OPC_TIP || ipc == PT_OPC_TIP_PGE || ipc == PT_OPC_TIP_PGD ||
		     ipc == PT_OPC_FUP) && ipb != PT_IPBYTES_RSVD_5 &&
		    ipb != PT_IPBYTES_RSVD_7 &&
		    (size_t)(end - p) > PT_IPBYTES_PAYLOAD_SIZE(ipb)) {
			p += 1 + PT_IPBYTES_PAYLOAD_SIZE(ipb);
			continue;
		}
		n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, 0);
		if (n <= 0)
			return false;
		switch (pkt.type) {
		case LPT_PKT_TSC: case LPT_PKT_TMA: case LPT_PKT_MTC: case LPT_PKT_CYC:
			return false;
		default:
			break;
		}
		p += n;
	}
	return true;
}
