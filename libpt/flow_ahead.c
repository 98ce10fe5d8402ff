// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libipt 2.0.5's read-ahead as the flow hooks follow it (cov_internal.h):
 * which packets libipt's query decoder reads ahead over after a query
 * (pt_query_decoder.c's pt_qry_read_ahead(), the flags of
 * pt_decoder_function.c), which PSB+ it cannot read
 * (pt_qry_read_psb_header()), what an error there loses, and where its
 * user resynchronises (pt_qry_sync_forward()). Packet by packet over the
 * raw trace, independent of the walk; the coverage decoder's flow step
 * (cov_decode.c's cov_flow_step()) asks before each packet.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "libpt/cov_internal.h"
#include "libpt/pkt_internal.h"

/* The class of the packet at @p, from its opcode bytes alone (a packet
 * cut by @end too: libipt's pt_df_fetch() reads opcodes only). */
enum cov_flow_cls cov_flow_class(const struct cov_flow_ahead *a, const uint8_t *p,
				  const uint8_t *end)
{
	uint8_t buf[32] = { 0 };
	struct lpt_packet pkt;
	size_t n = (size_t)(end - p);
	int r;

	if (!n)
		return FC_END;
	memcpy(buf, p, n < sizeof(buf) ? n : sizeof(buf));
	r = lpt_pkt_decode(buf, sizeof(buf), NULL, &pkt, a->pkt_flags);
	if (r == LPT_ERR_BAD_OPCODE || (r >= 0 && (pkt.type >= LPT_PKT_BBP ||
						   pkt.type == LPT_PKT_INVALID)))
		return FC_BAD_OPC;
	if (r < 0)	/* a known opcode, a malformed packet: by the opcode */
		return *p == PT_OPC_EXT && n > 1 && p[1] == PT_EXT_PSB ?
		       FC_STATUS : FC_EVENT;
	switch (pkt.type) {
	case LPT_PKT_TNT_8: case LPT_PKT_TNT_64: case LPT_PKT_TIP:
		return FC_BRANCH;
	case LPT_PKT_FUP:
		return FC_FUP;
	case LPT_PKT_PAD: case LPT_PKT_PSB: case LPT_PKT_PSBEND: case LPT_PKT_TSC:
	case LPT_PKT_TMA: case LPT_PKT_MTC: case LPT_PKT_CYC:
		return FC_STATUS;
	default:
		return FC_EVENT;
	}
}

/*
 * Whether the PSB+ at @p (a PSB) is one libipt cannot read
 * (pt_qry_read_psb_header()): a packet other than PAD, FUP, PIP, MODE,
 * TSC, CBR, TMA, MTC, CYC, VMCS or MNT before its PSBEND, or one that
 * does not decode. Its error, 0 when it reads (or is cut by the end of
 * the trace: libipt's read-ahead ignores that).
 */
int cov_flow_psb_bad(const struct cov_flow_ahead *a, const uint8_t *p,
		     const uint8_t *end)
{
	struct lpt_packet pkt;
	int n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, a->pkt_flags);

	if (n <= 0 || pkt.type != LPT_PKT_PSB)
		return n == LPT_ERR_EOS ? 0 : n < 0 ? n : 0;
	for (p += n; p < end; p += n) {
		n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, a->pkt_flags);
		if (n == LPT_ERR_EOS)
			return 0;
		if (n < 0)
			return n;
		if (pkt.type >= LPT_PKT_BBP || pkt.type == LPT_PKT_INVALID)
			return LPT_ERR_BAD_OPCODE;	/* newer than libipt 2.0.5 */
		switch (pkt.type) {
		case LPT_PKT_PSBEND:
			return 0;
		case LPT_PKT_PAD: case LPT_PKT_FUP: case LPT_PKT_PIP:
		case LPT_PKT_MODE_EXEC: case LPT_PKT_MODE_TSX: case LPT_PKT_TSC:
		case LPT_PKT_CBR: case LPT_PKT_TMA: case LPT_PKT_MTC:
		case LPT_PKT_CYC: case LPT_PKT_VMCS: case LPT_PKT_MNT:
			break;
		default:
			return LPT_ERR_BAD_CONTEXT;
		}
	}
	return 0;
}

/*
 * Whether libipt fails right after the query that consumes the packet of
 * @n bytes at @p. Its query decoder reads ahead after each query
 * (pt_qry_read_ahead(): status packets decoded, a cut one at the end
 * ignored, up to the next branch or event packet; an unknown opcode on the
 * way fails it), and libipt's instruction decoder fetches an event packet
 * found there at once (event_pending() in pt_insn_next() and
 * pt_insn_event()): when that packet does not decode, the call fails, and
 * the instruction or event it was to return is lost.
 */
static int ahead_bad(struct cov_flow_ahead *a, const uint8_t *p, int n,
		     const uint8_t *end)
{
	struct lpt_packet pkt;

	for (p += n;;) {
		uint8_t b, ipc;
		unsigned int ipb;

		if (p == end)
			return 0;
		b = *p;
		if ((!(b & PT_OPM_TNT_8) && b != PT_OPC_EXT && b != PT_OPC_PAD) ||
		    (b & PT_OPM_IP) == PT_OPC_TIP)
			return 0;	/* TNT.8, TIP: the fast way */
		if (b == PT_OPC_PAD) {
			p++;		/* a status packet, read over */
			continue;
		}
		if (b == PT_OPC_EXT && end - p >= PT_TNT_64_SIZE &&
		    p[1] == PT_EXT_TNT_64) {
			uint64_t v = 0;

			for (int i = PT_TNT_64_SIZE - 1; i >= 2; i--)
				v = v << 8 | p[i];
			if (v >= 2)
				return 0;	/* a TNT.64 that decodes */
		}
		ipc = b & PT_OPM_IP;
		ipb = b >> PT_IPBYTES_SHIFT;
		if ((ipc == PT_OPC_TIP_PGE || ipc == PT_OPC_TIP_PGD || ipc == PT_OPC_FUP) &&
		    ipb != PT_IPBYTES_RSVD_5 && ipb != PT_IPBYTES_RSVD_7 &&
		    (size_t)(end - p) > PT_IPBYTES_PAYLOAD_SIZE(ipb)) {
			/* whole and valid, so they decode: a TIP.PGE or
			 * TIP.PGD is an event that does, a FUP is read */
			if (ipc != PT_OPC_FUP)
				return 0;
			p += 1 + PT_IPBYTES_PAYLOAD_SIZE(ipb);
			continue;
		}
		switch (cov_flow_class(a, p, end)) {
		case FC_END: case FC_BRANCH:
			return 0;
		case FC_BAD_OPC:
			return LPT_ERR_BAD_OPCODE;
		case FC_EVENT:
			n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, a->pkt_flags);
			return n < 0 ? n : 0;
		default:
			n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, a->pkt_flags);
			if (n == LPT_ERR_EOS)
				return 0;
			if (n < 0)
				return n;
			if (pkt.type == LPT_PKT_PSB) {
				/* read as a whole; up to its PSBEND if it reads */
				int err = cov_flow_psb_bad(a, p, end);

				if (err)
					a->bad_psb = p;
				return err;
			}
			p += n;
		}
	}
}

enum cov_flow_loss cov_flow_loss(struct cov_flow_ahead *a, bool in_psb,
				 const uint8_t *p, const uint8_t *end)
{
	struct lpt_packet pkt;
	uint8_t b = *p;
	int n;

	if (b == PT_OPC_PAD || in_psb || (b & PT_OPM_IP) == PT_OPC_FUP)
		return FL_NONE;	/* a FUP is no query's (FC_FUP; one that
				 * does not decode: FC_EVENT, n <= 0) */
	if (!(b & PT_OPM_TNT_8) && b != PT_OPC_EXT)
		return (a->err = ahead_bad(a, p, 1, end)) ? FL_LAST : FL_NONE;
	if ((b & PT_OPM_IP) == PT_OPC_TIP || (b & PT_OPM_IP) == PT_OPC_TIP_PGE ||
	    (b & PT_OPM_IP) == PT_OPC_TIP_PGD) {	/* the common ones, fast */
		unsigned int ipb = b >> PT_IPBYTES_SHIFT;

		n = 1 + (int)PT_IPBYTES_PAYLOAD_SIZE(ipb);
		if (ipb == PT_IPBYTES_RSVD_5 || ipb == PT_IPBYTES_RSVD_7 || end - p < n ||
		    !(a->err = ahead_bad(a, p, n, end)))
			return FL_NONE;
		return (b & PT_OPM_IP) == PT_OPC_TIP_PGE ? FL_BEFORE : FL_LAST;
	}
	switch (cov_flow_class(a, p, end)) {
	case FC_BRANCH:
	case FC_EVENT:
		break;
	default:
		return FL_NONE;
	}
	n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, a->pkt_flags);
	if (n <= 0 || !(a->err = ahead_bad(a, p, n, end)))
		return FL_NONE;
	if (pkt.type == LPT_PKT_TIP_PGE)
		return FL_BEFORE;
	return pkt.type == LPT_PKT_TNT_64 || pkt.type == LPT_PKT_TIP ||
	       pkt.type == LPT_PKT_TIP_PGD ? FL_LAST : FL_BEFORE;
}

/*
 * Where libipt's user goes on after an error at the packets before @p:
 * libipt's query decoder has read ahead over status packets (PADs, timing;
 * pt_qry_read_ahead()) to the next branch or event packet, or into a PSB+
 * up to its PSBEND (which publishes the PSB+'s status events), and
 * pt_qry_sync_forward() searches the next PSB from 15 bytes before that
 * (a PSB partly consumed by a preceding packet).
 */
const uint8_t *cov_flow_resync(const struct cov_flow_ahead *a, const uint8_t *p)
{
	const uint8_t *end = a->end, *q;

	while (p < end) {
		struct lpt_packet pkt;
		enum cov_flow_cls k = cov_flow_class(a, p, end);
		int n;

		if (k != FC_STATUS && k != FC_FUP)
			break;
		n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, a->pkt_flags);
		if (n <= 0)
			break;
		if (pkt.type == LPT_PKT_PSB) {	/* the PSB+ up to its PSBEND */
			q = p + n;
			while (q < end && (n = lpt_pkt_decode(q, (size_t)(end - q), NULL,
							      &pkt, a->pkt_flags)) > 0 &&
			       pkt.type != LPT_PKT_PSBEND && pkt.type != LPT_PKT_PSB)
				q += n;
			if (n > 0 && q < end && pkt.type == LPT_PKT_PSBEND)
				p = q;
			break;
		}
		p += n;
	}
	p = p - a->begin >= 15 ? p - 15 : a->begin;
	q = lpt_psb_find_forward(a->begin, end, p);
	return q ? q : end;
}

