// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for libpt's packet decoder (include/lwpt/pt_pkt.h).
 * Build and run: make fuzz-pkt [FUZZ_SECONDS=seconds]; seeds are the real
 * traces and libipt conformance traces under ../shared/testdata/pt.
 *
 * Besides "no crash, no out-of-bounds read, no UB, no hang" it checks
 * invariants: batch decoding equals packet-by-packet decoding; a packet
 * never extends past the buffer; every proper prefix of a decoded packet
 * gives LPT_ERR_EOS; and where libipt's packet decoder accepts a packet we
 * decode it to the same size and fields (libipt is the independent
 * reference; it does not know CFE/EVD/BBP/BIP/BEP/TRIG).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include <lwpt/pt_pkt.h>

#define REQUIRE(c)							\
	do {								\
		if (!(c)) {						\
			fprintf(stderr, "%s:%d: %s\n", __FILE__,	\
				__LINE__, #c);				\
			abort();					\
		}							\
	} while (0)

static void check_prefixes(const uint8_t *p, size_t size, int ret,
			   const struct lpt_pkt_block *blk, uint32_t flags)
{
	size_t n;

	for (n = 0; n < (size_t)ret; n++) {
		struct lpt_pkt_block b = *blk;
		struct lpt_packet pkt;
		uint8_t *copy = malloc(n ? n : 1);
		int r;

		memcpy(copy, p, n);
		r = lpt_pkt_decode(copy, n, &b, &pkt, flags);
		free(copy);
		/* A prefix may be corrupt for a reason the full packet is not
		 * only if the full packet's size depends on it: never. */
		REQUIRE(r == LPT_ERR_EOS);
	}
	(void)size;
}

/* Compare with libipt for the packet types it knows. */
static void check_libipt(const struct pt_packet *p, int r1,
			 const struct lpt_packet *q, int r2)
{
	if (r1 < 0)
		return;
	REQUIRE(r2 == r1);
	switch (p->type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
		REQUIRE(q->payload.tnt.count == p->payload.tnt.bit_size);
		REQUIRE(q->payload.tnt.bits == p->payload.tnt.payload);
		break;
	case ppt_tip: case ppt_tip_pge: case ppt_tip_pgd: case ppt_fup:
		REQUIRE(q->payload.ip.ip == p->payload.ip.ip);
		REQUIRE(q->payload.ip.ipc == (uint8_t)p->payload.ip.ipc);
		break;
	case ppt_pip:
		REQUIRE(q->type == LPT_PKT_PIP);
		REQUIRE(q->payload.pip.cr3 == p->payload.pip.cr3);
		REQUIRE(q->payload.pip.nr == p->payload.pip.nr);
		break;
	case ppt_tsc:
		REQUIRE(q->payload.tsc.tsc == p->payload.tsc.tsc);
		break;
	case ppt_tma:
		REQUIRE(q->payload.tma.ctc == p->payload.tma.ctc);
		REQUIRE(q->payload.tma.fc == p->payload.tma.fc);
		break;
	case ppt_cyc:
		REQUIRE(q->type == LPT_PKT_CYC);
		REQUIRE(q->payload.cyc.value == p->payload.cyc.value);
		break;
	case ppt_vmcs:
		REQUIRE(q->payload.vmcs.base == p->payload.vmcs.base);
		break;
	case ppt_mnt:
		REQUIRE(q->payload.mnt.payload == p->payload.mnt.payload);
		break;
	case ppt_ptw:
		REQUIRE(q->payload.ptw.payload == p->payload.ptw.payload);
		REQUIRE(q->payload.ptw.ip == p->payload.ptw.ip);
		break;
	case ppt_mwait:
		REQUIRE((uint32_t)q->payload.mwait.raw == p->payload.mwait.hints);
		REQUIRE((q->payload.mwait.raw >> 32) == p->payload.mwait.ext);
		break;
	case ppt_mode:
		REQUIRE(q->type == (p->payload.mode.leaf == pt_mol_exec ?
				    LPT_PKT_MODE_EXEC : LPT_PKT_MODE_TSX));
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Flags and the starting offset come from the input's first byte. */
	uint32_t flags = LPT_PKT_F_STRICT_RSVD;
	struct lpt_pkt_decoder *a, *b;
	struct pt_packet_decoder *ref;
	struct pt_config cfg;
	struct lpt_packet batch[13];
	struct lpt_last_ip lip;
	uint64_t off = 0;
	int n, k, guard = 0;

	if (size && (data[0] & 0x80))
		flags |= LPT_PKT_F_ERRATUM_SKD007;

	a = lpt_pkt_alloc(data, size, NULL);
	b = lpt_pkt_alloc(data, size, NULL);
	REQUIRE(a && b);
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)data;
	cfg.end = (uint8_t *)data + size;
	ref = pt_pkt_alloc_decoder(&cfg);
	lpt_last_ip_init(&lip);

	/* 1. Raw decode from offset 0 with the stateless API, with libipt
	 * (strict reserved bits, like libipt) as reference. */
	{
		struct lpt_pkt_block blk = { 0, 0, 0 };
		size_t pos = 0;
		int r1, r2;

		if (ref)
			pt_pkt_sync_set(ref, 0);
		while (pos < size) {
			struct lpt_packet q;
			struct pt_packet p;
			struct lpt_pkt_block before = blk;

			r2 = lpt_pkt_decode(data + pos, size - pos, &blk, &q,
					    flags & ~LPT_PKT_F_ERRATUM_SKD007);
			if (ref && !before.in_block) {
				pt_pkt_sync_set(ref, pos);
				r1 = pt_pkt_next(ref, &p, sizeof(p));
				check_libipt(&p, r1, &q, r2);
			}
			if (r2 < 0)
				break;
			REQUIRE((size_t)r2 <= size - pos);
			REQUIRE(q.size == r2);
			check_prefixes(data + pos, size - pos, r2, &before,
				       flags & ~LPT_PKT_F_ERRATUM_SKD007);
			if (q.type >= LPT_PKT_TIP && q.type <= LPT_PKT_FUP)
				REQUIRE(lpt_last_ip_update_pkt(&lip, &q) == 0);
			lpt_last_ip_query(&lip, &off);
			pos += (size_t)r2;
		}
	}

	/* 2. Decoder object: sync, batch vs single, resync after errors. */
	if (lpt_pkt_sync_forward(a) == 0) {
		REQUIRE(lpt_pkt_sync_forward(b) == 0);
		for (;;) {
			struct lpt_packet one;

			REQUIRE(++guard < 1000000);
			n = lpt_pkt_next_batch(a, batch, 13);
			if (n < 0) {
				REQUIRE(lpt_pkt_next(b, &one) == n);
				if (n == LPT_ERR_EOS)
					break;
				if (lpt_pkt_sync_forward(a) < 0) {
					REQUIRE(lpt_pkt_sync_forward(b) < 0);
					break;
				}
				REQUIRE(lpt_pkt_sync_forward(b) == 0);
				continue;
			}
			REQUIRE(n <= 13);
			for (k = 0; k < n; k++) {
				REQUIRE(lpt_pkt_next(b, &one) == batch[k].size);
				REQUIRE(one.type == batch[k].type);
			}
			REQUIRE(lpt_pkt_get_offset(a, &off) == 0 &&
				off <= size);
		}
	}

	/* 2b. lpt_pkt_count() (ptdump --stats) against lpt_pkt_next() from
	 * offset 0: the same per-type counts, errors and error offsets, also
	 * after each resynchronisation. */
	if (size) {
		struct lpt_pkt_stats sa, sb;
		struct lpt_packet one;
		uint64_t oa, ob;
		int ra, rb;

		memset(&sa, 0, sizeof(sa));
		memset(&sb, 0, sizeof(sb));
		lpt_pkt_set_buffer(a, data, size);
		lpt_pkt_set_buffer(b, data, size);
		REQUIRE(lpt_pkt_sync_set(a, 0) == 0 && lpt_pkt_sync_set(b, 0) == 0);
		guard = 0;
		for (;;) {
			REQUIRE(++guard < 1000000);
			ra = lpt_pkt_count(a, &sa);
			while ((rb = lpt_pkt_next(b, &one)) > 0) {
				sb.count[one.type]++;
				sb.bytes[one.type] += one.size;
			}
			REQUIRE(ra == rb && ra < 0);
			REQUIRE(lpt_pkt_get_offset(a, &oa) == 0 &&
				lpt_pkt_get_offset(b, &ob) == 0 && oa == ob);
			if (ra == LPT_ERR_EOS)
				break;
			ra = lpt_pkt_sync_forward(a);
			rb = lpt_pkt_sync_forward(b);
			REQUIRE(ra == rb);
			if (ra < 0)
				break;
		}
		REQUIRE(!memcmp(&sa, &sb, sizeof(sa)));
	}

	/* 3. Backward sync visits PSBs in reverse, each a valid PSB. */
	lpt_pkt_set_buffer(a, data, size);
	guard = 0;
	while (lpt_pkt_sync_backward(a) == 0) {
		struct lpt_packet p;
		uint64_t prev = off;

		REQUIRE(++guard < 1000000);
		REQUIRE(lpt_pkt_get_offset(a, &off) == 0);
		REQUIRE(guard == 1 || off < prev);
		REQUIRE(lpt_pkt_next(a, &p) == PT_PSB_SIZE);
		REQUIRE(p.type == LPT_PKT_PSB);
		lpt_pkt_sync_set(a, off);
	}

	pt_pkt_free_decoder(ref);
	lpt_pkt_free(a);
	lpt_pkt_free(b);
	return 0;
}
