// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the coverage decoder (include/lwpt/pt_cov.h,
 * Documentation/ptcov.rst; issue 36 point 6): every input is a trace
 * decoded over mruby's real page cache (kAFL, ../shared/testdata/pt/real/
 * libxdc/pagecache; an empty image where it is absent) with its IP filter
 * and the Skylake it ran on (errata, as ptcov --cpu 6/94/3), twice with one
 * decoder (the second decode takes the path cache the first filled) and
 * once without the path cache: the three must give the same edges, and the
 * map must hold their counts. A crash, a sanitizer report, a leak, a hang
 * or memory out of proportion to the input is a bug; decode errors are
 * fine. `make fuzz-cov` (FUZZ_SECONDS), seeded with the real traces.
 */
#include <lwpt/pt_cov.h>
#include <lwpt/pt_flow.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_SHARED
#define FUZZ_SHARED "../shared"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct lpt_cov_image *img;
static struct lpt_cov *warm, *cold;
static struct lpt_flow *flow;	/* the flow engine on the same input */
static struct lpt_flow *flow_t;	/* the same with time (LPT_FLOW_F_TIME) */
static uint8_t map[LPT_COV_MAP_SIZE];

static struct lpt_cov *decoder(uint32_t flags)
{
	struct lpt_cov_config cfg;
	struct lpt_cov *cov;

	lpt_cov_config_init(&cfg);
	cfg.flags = LPT_COV_F_EDGES | flags;
	cfg.nfilter = 1;
	cfg.filter[0].start = 0x400000;	/* mruby's ADDR0 (testdata README) */
	cfg.filter[0].end = 0x4b6000;
	cfg.cpu.vendor = 1;	/* Intel */
	cfg.cpu.family = 6;
	cfg.cpu.model = 94;
	cfg.cpu.stepping = 3;
	cfg.cache_max = 16u << 20;
	cov = lpt_cov_alloc(&cfg, img);
	if (!cov)
		abort();
	return cov;
}

static void setup(void)
{
	const char *shared = getenv("LWPT_SHARED");
	char prefix[4096];

	img = lpt_cov_image_alloc();
	if (!img)
		abort();
	snprintf(prefix, sizeof(prefix),
		 "%s/testdata/pt/real/libxdc/pagecache/mruby",
		 shared ? shared : FUZZ_SHARED);
	if (lpt_cov_image_add_pagecache(img, prefix) < 0)
		fprintf(stderr, "fuzz_cov: no page cache %s: empty image\n",
			prefix);
	warm = decoder(0);
	cold = decoder(LPT_COV_F_NO_PATHS);

	struct lpt_flow_config fc;

	lpt_flow_config_init(&fc);
	fc.nfilter = 1;
	fc.filter[0].start = 0x400000;
	fc.filter[0].end = 0x4b6000;
	fc.cpu.vendor = 1;
	fc.cpu.family = 6;
	fc.cpu.model = 94;
	fc.cpu.stepping = 3;
	fc.cache_max = 16u << 20;
	flow = lpt_flow_alloc(&fc, img);
	fc.flags = LPT_FLOW_F_TIME;
	fc.time.mtc_freq = 3;
	fc.time.nom_freq = 37;
	fc.time.cpuid_0x15_eax = 2;
	fc.time.cpuid_0x15_ebx = 308;
	fc.time.errata_skl168 = 1;
	flow_t = lpt_flow_alloc(&fc, img);
	if (!flow || !flow_t)
		abort();
}

/* One more item into a running hash of what the engine gave. */
static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* The flow engine (lwpt/pt_flow.h) over the input: it ends, every status
 * is one, every block holds instructions whose lengths add up to its
 * last address. Return: a hash of its blocks and events (not their time). */
static uint64_t flow_check(struct lpt_flow *flow, const uint8_t *data, size_t size)
{
	int st = lpt_flow_sync(flow, data, size);
	uint64_t h = 0xcbf29ce484222325ull;

	if (st < 0 && st != LPT_ERR_NOSYNC)
		abort();
	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
		if (st & LPT_FLOW_EVENT_PENDING) {
			struct lpt_flow_event ev;

			st = lpt_flow_event(flow, &ev);
			if (st >= 0 && (ev.type < LPT_FLOW_EV_ENABLED ||
					ev.type > LPT_FLOW_EV_VMCS))
				abort();
			if (st >= 0)
				h = mix(mix(mix(h, ev.type), ev.ip), ev.offset);
		} else {
			struct lpt_flow_block b;
			uint64_t a;

			st = lpt_flow_next(flow, &b);
			if (st < 0 || !b.ninsn)
				abort();
			a = b.ip;
			for (uint32_t i = 0; i + 1 < b.ninsn; i++) {
				if (b.lens[i] < 1 || b.lens[i] > 15)
					abort();
				a += b.lens[i];
			}
			if (a != b.end_ip)
				abort();
			h = mix(mix(mix(h, b.ip), b.ninsn), b.end);
		}
	}
	if (st < 0 && st != LPT_ERR_NOSYNC)
		abort();	/* out of memory or a bad state */
	return mix(h, (uint64_t)st);
}

/* The edges of the last decode of @cov, copied. */
static long edges(struct lpt_cov *cov, struct lpt_cov_edge **out)
{
	const struct lpt_cov_edge *e;
	long n = lpt_cov_edges(cov, &e);

	if (n < 0)
		abort();
	*out = malloc((size_t)n * sizeof(**out) + 1);
	if (!*out)
		abort();
	if (n)
		memcpy(*out, e, (size_t)n * sizeof(**out));
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lpt_cov_edge *a, *b;
	long na, nb, i;
	int ra, rb;

	if (!img)
		setup();
	memset(map, 0, sizeof(map));
	ra = lpt_cov_decode(warm, data, size, map);
	na = edges(warm, &a);
	rb = lpt_cov_decode(warm, data, size, NULL);
	nb = edges(warm, &b);
	if (ra != rb || na != nb ||
	    (na && memcmp(a, b, (size_t)na * sizeof(*a))))
		abort();	/* the path cache changed the result */
	free(b);
	rb = lpt_cov_decode(cold, data, size, NULL);
	nb = edges(cold, &b);
	if (ra != rb || na != nb ||
	    (na && memcmp(a, b, (size_t)na * sizeof(*a))))
		abort();	/* the cache and block-by-block differ */
	for (i = 0; i < na; i++)
		if (!map[lpt_cov_slot(a[i].src, a[i].dst, sizeof(map))])
			if (a[i].count % 256)
				abort();	/* an edge missing from the map */
	free(a);
	free(b);
	/* time tracking reads the same packets and changes no block or event */
	if (flow_check(flow, data, size) != flow_check(flow_t, data, size))
		abort();
	return 0;
}
