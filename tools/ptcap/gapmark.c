// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap_gap_mark(): an OVF and PADs at each cut of a raw trace file
 * (gapmark.h). Packet sizes from libpt's packet decoder (lpt_pkt_decode(),
 * SDM 33.4.2).
 */
#include <string.h>

#include <lwpt/pt_packets.h>
#include <lwpt/pt_pkt.h>

#include "gapmark.h"

static const uint8_t psb[PT_PSB_SIZE] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

static int is_psb(const uint8_t *buf, uint64_t size, uint64_t at)
{
	return at + PT_PSB_SIZE <= size && !memcmp(buf + at, psb, PT_PSB_SIZE);
}

uint64_t ptcap_gap_mark(uint8_t *buf, uint64_t size, uint64_t cut)
{
	struct lpt_pkt_block blk = { 0 };
	uint64_t from = 0, at, end, ends[3] = { 0, 0, 0 };
	struct lpt_packet pkt;
	unsigned int n = 0;
	int len;

	if (cut >= size)
		return 0;
	/* The last PSB that starts before the cut and ends at or before it. */
	for (at = cut >= PT_PSB_SIZE ? cut - PT_PSB_SIZE + 1 : 0; at-- > 0;) {
		if (is_psb(buf, size, at)) {
			from = at;
			break;
		}
	}
	/* The ends of the last three whole packets before the cut. */
	ends[n++ % 3] = from;
	for (at = from; at < cut; at += (uint64_t)len) {
		len = lpt_pkt_decode(buf + at, cut - at, &blk, &pkt, 0);
		if (len == LPT_ERR_EOS)
			break;		/* the cut packet: its bytes end at the cut */
		if (len < 0)
			return 0;	/* corrupt before the cut */
		ends[n++ % 3] = at + (uint64_t)len;
	}
	/* At least the two bytes of an OVF before the next PSB. */
	end = cut;
	while (end < size && !is_psb(buf, size, end))
		end++;
	at = ends[(n - 1) % 3];
	if (end - at < PT_OVF_SIZE && n >= 2)
		at = ends[(n - 2) % 3];
	if (end - at < PT_OVF_SIZE && n >= 3)
		at = ends[(n - 3) % 3];
	if (end - at < PT_OVF_SIZE)
		return 0;
	buf[at] = PT_OPC_EXT;
	buf[at + 1] = PT_EXT_OVF;
	memset(buf + at + PT_OVF_SIZE, 0, end - at - PT_OVF_SIZE);
	return end - at;
}
