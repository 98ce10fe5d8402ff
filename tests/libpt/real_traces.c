// SPDX-License-Identifier: GPL-2.0
/*
 * The real traces of ../shared/testdata/pt/real/libxdc and their page
 * caches for the tests (tests/libpt/real_traces.h).
 */
#include "tests/libpt/real_traces.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <lwpt/pt_cov.h>

/* ../shared/testdata/pt/README.md, table of real/libxdc. */
const struct real reals[REAL_NTRACES] = {
	{ "Unzip", "Unzip__trace.pt", 0x400000, 0x427000, 0x15b89190dfa291b2ull },
	{ "foo", "foo__trace.pt", 0x7ffff7819000, 0x7ffff79ca000, 0xa76b8b44c4d3fe97ull },
	{ "mruby", "mruby__trace.pt", 0x400000, 0x4b6000, 0x988aae1ab68920a4ull },
	{ "icelake_tip", "icelake_tip__ptlog.pt", 0x1000, 0xfffffffffffff000ull,
	  0xeb2a5b786860a79full },
};

const char *real_dir(void)
{
	static char dir[4096];

	if (!dir[0]) {
		const char *shared = getenv("LWPT_SHARED");

		snprintf(dir, sizeof(dir), "%s/testdata/pt/real/libxdc",
			 shared ? shared : "../shared");
	}
	return dir;
}

uint8_t *real_trace_read(const char *file, size_t *len)
{
	char path[4200];
	uint8_t *b;

	snprintf(path, sizeof(path), "%s/%s", real_dir(), file);
	b = cov_ref_slurp(path, len);
	if (!b)
		printf("%s: %s missing: skipped\n", program_invocation_short_name, path);
	return b;
}

int real_code_load(const char *name, struct cov_ref_pages *pc, struct lpt_cov_image *img)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/pagecache/%s", real_dir(), name);
	if (pc && cov_ref_load_pages(pc, path))
		return -1;
	if (img && lpt_cov_image_add_pagecache(img, path) < 1) {
		if (pc)
			cov_ref_free_pages(pc);
		return -1;
	}
	return 0;
}
