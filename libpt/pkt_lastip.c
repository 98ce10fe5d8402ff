// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Last-IP tracking, SDM 33.4.2.2 "IP Compression" and Table 33-18
 * ("FUP/TIP IP Reconstruction").
 */
#include "pkt_internal.h"

void lpt_last_ip_init(struct lpt_last_ip *lip)
{
	if (lip)
		memset(lip, 0, sizeof(*lip));
}

int lpt_last_ip_update(struct lpt_last_ip *lip, uint8_t ipc,
		       uint64_t payload)
{
	uint64_t ip;

	if (!lip)
		return LPT_ERR_INVALID;

	if (ipc == PT_IPBYTES_SUPPRESSED) {
		/* "Last IP is not cleared" (SDM 33.4.2.2). */
		lip->suppressed = 1;
		return 0;
	}
	if (ipc > 7 || !lpt_ip_payload_bits(ipc))
		return LPT_ERR_BAD_PACKET;	/* reserved IPBytes */
	ip = lpt_ip_reconstruct(lip->ip, ipc, payload);
	lip->ip = ip;
	lip->have_ip = 1;
	lip->suppressed = 0;
	return 0;
}

int lpt_last_ip_update_pkt(struct lpt_last_ip *lip,
			   const struct lpt_packet *pkt)
{
	if (!lip || !pkt)
		return LPT_ERR_INVALID;
	switch (pkt->type) {
	case LPT_PKT_TIP:
	case LPT_PKT_TIP_PGE:
	case LPT_PKT_TIP_PGD:
	case LPT_PKT_FUP:
		return lpt_last_ip_update(lip, pkt->payload.ip.ipc,
					  pkt->payload.ip.ip);
	default:
		return LPT_ERR_INVALID;
	}
}

int lpt_last_ip_query(const struct lpt_last_ip *lip, uint64_t *ip)
{
	if (!lip)
		return LPT_ERR_INVALID;
	if (!lip->have_ip) {
		if (ip)
			*ip = 0;
		return LPT_ERR_NOIP;
	}
	if (ip)
		*ip = lip->ip;
	if (lip->suppressed)
		return LPT_ERR_IP_SUPPRESSED;
	return 0;
}
