// SPDX-License-Identifier: GPL-2.0
/*
 * ipt_insn_loop: the reference of bench_ptflow (issue 17.3), a whole
 * process that decodes the instruction flow of a trace with libipt's
 * pt_insn_next() and nothing else: the ELF's PT_LOAD segments as the image
 * (through ptflow_image_add_elf(), as ptflow loads them, so both decode
 * the same image), the trace read into memory, pt_insn_sync_forward(),
 * then pt_insn_next() with pending events drained by pt_insn_event(),
 * resynchronising after an error. Counts instructions; prints
 * "instructions: N" and "errors: N".
 *
 * Usage: ipt_insn_loop TRACE ELF.   Exit: 0 ok, 1 runtime error, 2 usage.
 */
#include "tests/bench/bench_child.h"
#include "tools/ptflow/ptflow_image.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

int main(int argc, char **argv)
{
	struct pt_image_section_cache *iscache;
	struct pt_insn_decoder *dec;
	struct pt_image *image;
	struct pt_config cfg;
	uint64_t insns = 0, errors = 0;
	uint8_t *buf;
	size_t size;
	int st;

	if (argc != 3) {
		fprintf(stderr, "usage: %s TRACE ELF\n", argv[0]);
		return 2;
	}
	buf = bench_load_file(argv[1], &size);
	if (!buf) {
		fprintf(stderr, "%s: cannot read %s: %s\n", argv[0], argv[1],
			strerror(errno));
		return 1;
	}

	iscache = pt_iscache_alloc(NULL);
	image = pt_image_alloc(NULL);
	if (!iscache || !image ||
	    ptflow_image_add_elf(image, iscache, argv[2], false, 0) < 0) {
		fprintf(stderr, "%s: cannot load the image %s\n", argv[0],
			argv[2]);
		return 1;
	}
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + size;
	dec = pt_insn_alloc_decoder(&cfg);
	if (!dec || pt_insn_set_image(dec, image) < 0)
		return 1;
	for (st = pt_insn_sync_forward(dec); st >= 0;
	     st = pt_insn_sync_forward(dec)) {
		for (;;) {
			struct pt_insn insn;

			while (st & pts_event_pending) {
				struct pt_event ev;

				st = pt_insn_event(dec, &ev, sizeof(ev));
				if (st < 0)
					break;
			}
			if (st < 0 || (st & pts_eos))
				break;
			st = pt_insn_next(dec, &insn, sizeof(insn));
			if (st < 0)
				break;
			insns++;
		}
		if (st < 0 && st != -pte_eos)
			errors++;
	}
	printf("instructions: %llu\nerrors: %llu\n", (unsigned long long)insns,
	       (unsigned long long)errors);
	pt_insn_free_decoder(dec);
	pt_image_free(image);
	pt_iscache_free(iscache);
	free(buf);
	return 0;
}
