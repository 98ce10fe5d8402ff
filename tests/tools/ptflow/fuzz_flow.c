// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of ptflow's decoder (tools/ptflow/ptflow_decode.h, the
 * flow every view is built on; issue 36 point 6): every input is a trace
 * decoded with libipt over mruby's real page cache (kAFL, ../shared/
 * testdata/pt/real/libxdc/pagecache; an empty image where it is absent)
 * for the Skylake it ran on (errata). The first input byte picks the
 * output: the instruction listing (addresses: Capstone's disassembly is
 * Debian's, and slow under the sanitizers), or the views of --calls and
 * --report (bit 0). A crash, a sanitizer report, a leak, a
 * hang or memory out of proportion to the input is a bug; decode errors
 * are fine. `make fuzz-flow` (FUZZ_SECONDS), seeded with the real traces.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ptflow/ptflow_decode.h"
#include "tools/ptflow/ptflow_image.h"

#ifndef FUZZ_SHARED
#define FUZZ_SHARED "../shared"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* [0]: the listing, [1]: --calls and --report. */
static struct ptflow pf[2];
static bool ready;

/* kAFL's page cache: PREFIX.addr (uint64 page addresses) and PREFIX.dump
 * (the pages in that order); the first entry of a page wins, an address
 * with low bits set is not mapped (testdata/pt/README.md). */
static void add_pagecache(struct ptflow *p, const char *prefix)
{
	uint64_t addr[4096];
	char path[4200];
	size_t n, i, j;
	FILE *f;

	snprintf(path, sizeof(path), "%s.addr", prefix);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fuzz_flow: no page cache %s: empty image\n",
			prefix);
		return;
	}
	n = fread(addr, sizeof(addr[0]), 4096, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s.dump", prefix);
	for (i = 0; i < n; i++) {
		if (addr[i] & 0xfff)
			continue;
		for (j = 0; j < i && addr[j] != addr[i]; j++)
			;
		if (j == i)
			(void)ptflow_image_add_raw(p->image, p->iscache, path,
						   i * 4096, 4096, addr[i]);
	}
}

static void setup(void)
{
	const char *shared = getenv("LWPT_SHARED");
	FILE *null = fopen("/dev/null", "w");
	char prefix[4096];
	int v;

	if (!null)
		abort();
	snprintf(prefix, sizeof(prefix),
		 "%s/testdata/pt/real/libxdc/pagecache/mruby",
		 shared ? shared : FUZZ_SHARED);
	for (v = 0; v < 2; v++) {
		if (ptflow_init(&pf[v], "fuzz_flow", null, null))
			abort();
		pf[v].par.cpu.vendor = pcv_intel;
		pf[v].par.cpu.family = 6;
		pf[v].par.cpu.model = 94;
		pf[v].par.cpu.stepping = 3;
		pf[v].par.has_cpu = true;
		pf[v].opt.no_symbols = true;
		pf[v].opt.no_inst = true;
		pf[v].opt.calls = v == 1;
		pf[v].opt.report = v == 1;
		pf[v].thread = "-";
		add_pagecache(&pf[v], prefix);
		if (ptflow_views_start(&pf[v]))
			abort();
	}
	ready = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;

	if (!ready)
		setup();
	if (size < 1)
		return 0;
	buf = calloc(1, size - 1 + PTFLOW_TRACE_PAD);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	(void)ptflow_decode_buffer(&pf[data[0] & 1], buf, size - 1, "fuzz");
	free(buf);
	return 0;
}
