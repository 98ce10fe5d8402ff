// SPDX-License-Identifier: GPL-2.0
/*
 * pt_gt_edges: the ground truth of a program's edges (issue 25 point 3, in
 * the VM), from pt_flow_gt's single-stepped instruction addresses.
 *
 *   pt_gt_edges DIR < gt.txt
 *
 * Reads the addresses (16 hex digits per line, every user-mode instruction
 * executed, in order) and classifies each with model/x86's
 * x86_cofi_decode() over the code of the ptcap capture directory DIR (its
 * maps, lpt_cov_image_add_ptcap()). Every branch followed by another
 * instruction makes the edge (branch, next address); far transfers are
 * left out, since a user-mode trace stops at them (TIP.PGD at the CPL
 * change) and the next instruction is not their destination. Prints the
 * distinct edges as "SRC DST COUNT", sorted, as `ptcov --edges`.
 * Exit status: 0, 1 on a read error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <lwpt/pt_cov.h>

#include "model/x86/x86_cofi.h"

struct e {
	uint64_t src, dst;
};

static int cmp(const void *a, const void *b)
{
	const struct e *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

int main(int argc, char **argv)
{
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct e *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t prev = 0, ip;
	int have = 0;

	if (argc != 2 || !img || lpt_cov_image_add_ptcap(img, argv[1], NULL, NULL) <= 0) {
		fprintf(stderr, "usage: pt_gt_edges DIR < gt.txt (DIR: a ptcap directory with maps)\n");
		return 1;
	}
	while (scanf("%" SCNx64, &ip) == 1) {
		if (have) {
			uint8_t buf[X86_MAX_INSN_LEN];
			size_t got = lpt_cov_image_read(img, prev, buf, sizeof(buf));
			struct x86_cofi c;

			if (got && !x86_cofi_decode(buf, got, X86_MODE_64, &c) &&
			    c.kind != X86_COFI_NONE && c.kind != X86_COFI_UD &&
			    !x86_cofi_is_far(c.kind)) {
				if (n == cap) {
					cap = cap ? 2 * cap : 4096;
					v = realloc(v, cap * sizeof(*v));
					if (!v)
						return 1;
				}
				v[n++] = (struct e){ prev, ip };
			}
		}
		prev = ip;
		have = 1;
	}
	qsort(v, n, sizeof(*v), cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && v[j].src == v[i].src && v[j].dst == v[i].dst)
			j++;
		printf("%" PRIx64 " %" PRIx64 " %zu\n", v[i].src, v[i].dst, j - i);
		i = j;
	}
	lpt_cov_image_free(img);
	free(v);
	return 0;
}
