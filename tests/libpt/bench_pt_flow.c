// SPDX-License-Identifier: GPL-2.0
/*
 * bench_pt_flow: libpt's flow engine (lwpt/pt_flow.h) against libipt
 * 2.0.5's instruction decoder (pt_insn_next()) in one process, on the
 * real mruby trace with its page cache (../shared/testdata/pt/real/libxdc,
 * 6,334,131 instructions, cpu 6/94/3, filter 0x400000-0x4b6000), both
 * yielding every instruction's address (summed, and the sums compared:
 * a figure is void where they differ):
 *   - libipt: the pages as sections of one image through an image
 *     section cache (as ptflow loads code), pt_insn_next() and
 *     pt_insn_event() to the end, resynchronising after errors;
 *   - lwpt cold: a new engine (empty block cache) per run;
 *   - lwpt warm: the same engine again (blocks cached).
 * Best of 5 by thread CPU time; prints the times and libipt/lwpt. Never
 * fails on speed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <intel-pt.h>

#include <lwpt/pt_flow.h>

#include "tests/libpt/cov_ref.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t run_libipt(const uint8_t *trace, size_t len, struct pt_image *img,
			   uint64_t *n)
{
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	uint64_t sum = 0;
	int st;

	*n = 0;
	if (cov_ref_config(&cfg, trace, len, 0x400000, 0x4b6000, 6, 94, 3) < 0)
		return 0;
	d = pt_insn_alloc_decoder(&cfg);
	if (!d)
		return 0;
	pt_insn_set_image(d, img);
	while ((st = pt_insn_sync_forward(d)) >= 0) {
		for (;;) {
			struct pt_insn insn;

			while (st & pts_event_pending) {
				struct pt_event ev;

				st = pt_insn_event(d, &ev, sizeof(ev));
				if (st < 0)
					break;
			}
			if (st < 0 || (st & pts_eos))
				break;
			st = pt_insn_next(d, &insn, sizeof(insn));
			if (st < 0)
				break;
			sum += insn.ip;
			++*n;
		}
	}
	pt_insn_free_decoder(d);
	return sum;
}

static uint64_t run_lwpt(struct lpt_flow *f, const uint8_t *trace, size_t len,
			 uint64_t *n)
{
	int st = lpt_flow_sync(f, trace, len);
	uint64_t sum = 0;

	*n = 0;
	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
		if (st & LPT_FLOW_EVENT_PENDING) {
			struct lpt_flow_event ev;

			st = lpt_flow_event(f, &ev);
		} else {
			struct lpt_flow_block b;
			uint64_t a;

			st = lpt_flow_next(f, &b);
			if (st < 0)
				break;
			a = b.ip;
			for (uint32_t i = 0; i < b.ninsn; i++) {
				sum += a;
				a += b.lens[i];
			}
			*n += b.ninsn;
		}
	}
	return sum;
}

static struct lpt_flow *new_flow(const struct lpt_cov_image *img)
{
	struct lpt_flow_config cfg;

	lpt_flow_config_init(&cfg);
	cfg.nfilter = 1;
	cfg.filter[0].start = 0x400000;
	cfg.filter[0].end = 0x4b6000;
	cfg.cpu.vendor = 1;	/* Intel */
	cfg.cpu.family = 6;
	cfg.cpu.model = 94;
	cfg.cpu.stepping = 3;
	return lpt_flow_alloc(&cfg, img);
}

int main(void)
{
	const char *shared = getenv("LWPT_SHARED");
	char path[4200], dump[4300];
	struct cov_ref_pages pc;
	struct pt_image_section_cache *isc;
	struct pt_image *pimg;
	struct lpt_cov_image *img;
	double best[3] = { 1e30, 1e30, 1e30 };
	uint64_t sum[3] = { 0 }, n[3] = { 0 };
	uint8_t *trace;
	size_t len;
	long sz;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/testdata/pt/real/libxdc/mruby__trace.pt",
		 shared ? shared : "../shared");
	fp = fopen(path, "rb");
	if (!fp) {
		printf("bench_pt_flow: %s missing: skipped\n", path);
		return 0;
	}
	fseek(fp, 0, SEEK_END);
	sz = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	len = sz > 0 ? (size_t)sz : 0;
	trace = calloc(1, len + 64);	/* zero padding for libipt */
	if (!trace || fread(trace, 1, len, fp) != len) {
		fclose(fp);
		return 1;
	}
	fclose(fp);
	snprintf(path, sizeof(path), "%s/testdata/pt/real/libxdc/pagecache/mruby",
		 shared ? shared : "../shared");
	snprintf(dump, sizeof(dump), "%s.dump", path);
	if (cov_ref_load_pages(&pc, path))
		return 1;
	img = lpt_cov_image_alloc();
	isc = pt_iscache_alloc(NULL);
	pimg = pt_image_alloc(NULL);
	if (!img || !isc || !pimg || lpt_cov_image_add_pagecache(img, path) < 0)
		return 1;
	/* libipt: the last added wins, the page cache's first entry does */
	for (size_t i = pc.n; i-- > 0;) {
		uint64_t a;
		int isid;

		memcpy(&a, &pc.addr[i], sizeof(a));
		if (a & 0xfff)
			continue;
		isid = pt_iscache_add_file(isc, dump, i * 4096, 4096, a);
		if (isid < 0 || pt_image_add_cached(pimg, isc, isid, NULL) < 0)
			return 1;
	}

	struct lpt_flow *warm = new_flow(img);

	if (!warm)
		return 1;
	(void)run_lwpt(warm, trace, len, &n[2]);	/* fills the cache */
	for (int r = 0; r < 5; r++) {
		struct lpt_flow *cold = new_flow(img);
		double t0, t1;

		t0 = cpu_now();
		sum[0] = run_libipt(trace, len, pimg, &n[0]);
		t1 = cpu_now();
		if (t1 - t0 < best[0])
			best[0] = t1 - t0;
		t0 = cpu_now();
		sum[1] = run_lwpt(cold, trace, len, &n[1]);
		t1 = cpu_now();
		if (t1 - t0 < best[1])
			best[1] = t1 - t0;
		lpt_flow_free(cold);
		t0 = cpu_now();
		sum[2] = run_lwpt(warm, trace, len, &n[2]);
		t1 = cpu_now();
		if (t1 - t0 < best[2])
			best[2] = t1 - t0;
	}
	printf("bench_pt_flow: mruby, %" PRIu64 " instructions, best of 5 by CPU time\n",
	       n[0]);
	if (sum[0] != sum[1] || sum[0] != sum[2] || n[0] != n[1] || n[0] != n[2]) {
		printf("  the instruction streams differ (libipt %" PRIu64 ", lwpt %"
		       PRIu64 "): no figure\n", n[0], n[1]);
	} else {
		printf("  libipt pt_insn_next()  %7.1f ms\n", best[0] * 1e3);
		printf("  lwpt cold              %7.1f ms  libipt/lwpt %.1fx\n",
		       best[1] * 1e3, best[0] / best[1]);
		printf("  lwpt warm              %7.1f ms  libipt/lwpt %.1fx\n",
		       best[2] * 1e3, best[0] / best[2]);
	}
	lpt_flow_free(warm);
	lpt_cov_image_free(img);
	pt_image_free(pimg);
	pt_iscache_free(isc);
	cov_ref_free_pages(&pc);
	free(trace);
	return 0;
}
