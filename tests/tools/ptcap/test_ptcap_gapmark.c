// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ptcap_gap_mark() (tools/ptcap/gapmark.c, issue 27 section
 * 1): at a cut of a raw trace file the cut packet and the bytes up to the
 * next PSB become OVF (SDM 33.4.2.16) and PADs (33.4.2.20), which libipt's
 * packet decoder then reads as such; whole packets before the cut stay.
 * Hand-built streams: PSB (33.4.2.17), PSBEND (02 23), short TNT, TIP.
 */
#include <check.h>
#include <intel-pt.h>
#include <stdint.h>
#include <string.h>

#include "tools/ptcap/gapmark.h"
#include "tests/check_run.h"

static const uint8_t psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

/* Append @n bytes of @p to @buf at *@len. */
static void put(uint8_t *buf, size_t *len, const uint8_t *p, size_t n)
{
	memcpy(buf + *len, p, n);
	*len += n;
}

/* libipt's packet types of @buf, in order, into @types; their number. */
static int ipt_types(uint8_t *buf, size_t len, enum pt_packet_type *types, int max)
{
	struct pt_config cfg;
	struct pt_packet_decoder *d;
	struct pt_packet pkt;
	int n = 0;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_ge(pt_pkt_sync_set(d, 0), 0);
	while (n < max && pt_pkt_next(d, &pkt, sizeof(pkt)) >= 0)
		types[n++] = pkt.type;
	pt_pkt_free_decoder(d);
	return n;
}

/* A TIP cut after 3 of its 7 bytes, two bytes of new output, then a PSB. */
START_TEST(cut_mid_packet)
{
	static const uint8_t head[] = { 0x02, 0x23, 0x0a };	/* PSBEND, TNT */
	static const uint8_t tip3[] = { 0x6d, 0x11, 0x22 };	/* TIP, 6-byte IP, cut */
	static const uint8_t junk[] = { 0x0a, 0x0a };
	enum pt_packet_type t[16];
	uint8_t buf[64];
	size_t len = 0;
	int n;

	put(buf, &len, psb, sizeof(psb));
	put(buf, &len, head, sizeof(head));
	put(buf, &len, tip3, sizeof(tip3));
	put(buf, &len, junk, sizeof(junk));
	put(buf, &len, psb, sizeof(psb));
	ck_assert_uint_eq(ptcap_gap_mark(buf, len, 22), 5);
	ck_assert_uint_eq(buf[19], 0x02);
	ck_assert_uint_eq(buf[20], 0xf3);
	ck_assert_uint_eq(buf[21] | buf[22] | buf[23], 0);
	ck_assert_mem_eq(buf + 24, psb, sizeof(psb));
	ck_assert_uint_eq(buf[18], 0x0a);	/* the TNT before stays */
	n = ipt_types(buf, len, t, 16);
	ck_assert_int_ge(n, 8);
	ck_assert_int_eq(t[0], ppt_psb);
	ck_assert_int_eq(t[1], ppt_psbend);
	ck_assert_int_eq(t[2], ppt_tnt_8);
	ck_assert_int_eq(t[3], ppt_ovf);
	ck_assert_int_eq(t[4], ppt_pad);
	ck_assert_int_eq(t[6], ppt_pad);
	ck_assert_int_eq(t[7], ppt_psb);
}
END_TEST

/* A cut right at a PSB after two TNTs: room made by going back a packet. */
START_TEST(cut_at_boundary)
{
	static const uint8_t body[] = { 0x02, 0x23, 0x0a, 0x0a };
	uint8_t buf[64];
	size_t len = 0;

	put(buf, &len, psb, sizeof(psb));
	put(buf, &len, body, sizeof(body));
	put(buf, &len, psb, sizeof(psb));
	ck_assert_uint_eq(ptcap_gap_mark(buf, len, 20), 2);
	ck_assert_uint_eq(buf[18], 0x02);
	ck_assert_uint_eq(buf[19], 0xf3);
	ck_assert_mem_eq(buf + 20, psb, sizeof(psb));
}
END_TEST

/* No PSB after the cut: PADs to the end. Nothing to do past the end. */
START_TEST(cut_to_end_and_out_of_range)
{
	static const uint8_t body[] = { 0x02, 0x23, 0x0a, 0x6d, 0x11, 0x0a, 0x0a, 0x0a };
	uint8_t buf[64];
	size_t len = 0, i;

	put(buf, &len, psb, sizeof(psb));
	put(buf, &len, body, sizeof(body));
	ck_assert_uint_eq(ptcap_gap_mark(buf, len, len), 0);
	ck_assert_uint_eq(ptcap_gap_mark(buf, len, 21), len - 19);
	ck_assert_uint_eq(buf[19], 0x02);
	ck_assert_uint_eq(buf[20], 0xf3);
	for (i = 21; i < len; i++)
		ck_assert_uint_eq(buf[i], 0);
}
END_TEST

/* A bad opcode before the cut: a corrupt file is left alone. */
START_TEST(corrupt_left_alone)
{
	static const uint8_t body[] = { 0x02, 0x23, 0x02, 0xff, 0x0a, 0x0a };
	uint8_t buf[64], copy[64];
	size_t len = 0;

	put(buf, &len, psb, sizeof(psb));
	put(buf, &len, body, sizeof(body));
	memcpy(copy, buf, len);
	ck_assert_uint_eq(ptcap_gap_mark(buf, len, 21), 0);
	ck_assert_mem_eq(buf, copy, len);
}
END_TEST

static Suite *gapmark_suite(void)
{
	Suite *s = suite_create("ptcap_gapmark");
	TCase *tc = tcase_create("gapmark");

	tcase_add_test(tc, cut_mid_packet);
	tcase_add_test(tc, cut_at_boundary);
	tcase_add_test(tc, cut_to_end_and_out_of_range);
	tcase_add_test(tc, corrupt_left_alone);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(gapmark_suite(), CK_NORMAL);
}
