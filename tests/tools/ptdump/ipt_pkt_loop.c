// SPDX-License-Identifier: GPL-2.0
/*
 * ipt_pkt_loop: the reference of bench_pkt_file (issue 17.1), a whole
 * process that does what `ptdump --stats` does with libipt 2.0.5's packet
 * decoder: load FILE as libipt's ptdump loads it (malloc and fread of the
 * whole file, ptdump/src/ptdump.c load_file()), then pt_pkt_sync_forward()
 * and pt_pkt_next() to the end, resynchronising at the next PSB after a
 * decode error (ptdump's dump_packets() loop), counting packets and bytes
 * per type. Prints "packets: N" and "packet bytes: N".
 *
 * Usage: ipt_pkt_loop FILE.   Exit: 0 ok, 1 runtime error, 2 usage.
 */
#include "tests/bench/bench_child.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

int main(int argc, char **argv)
{
	uint64_t count[256] = { 0 }, bytes[256] = { 0 }, np = 0, nb = 0;
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	uint8_t *buf;
	size_t size;
	int err, t;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	buf = bench_load_file(argv[1], &size);
	if (!buf) {
		fprintf(stderr, "%s: cannot read %s: %s\n", argv[0], argv[1],
			strerror(errno));
		return 1;
	}

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + size;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return 1;
	for (err = pt_pkt_sync_forward(dec); err >= 0;
	     err = pt_pkt_sync_forward(dec)) {
		while ((err = pt_pkt_next(dec, &pkt, sizeof(pkt))) >= 0) {
			count[pkt.type & 0xff]++;
			bytes[pkt.type & 0xff] += pkt.size;
		}
		if (err == -pte_eos)
			break;
	}
	for (t = 0; t < 256; t++) {
		np += count[t];
		nb += bytes[t];
	}
	printf("packets: %llu\npacket bytes: %llu\n", (unsigned long long)np,
	       (unsigned long long)nb);
	pt_pkt_free_decoder(dec);
	free(buf);
	return 0;
}
