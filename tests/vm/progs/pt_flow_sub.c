// SPDX-License-Identifier: GPL-2.0
/*
 * pt_flow_sub GT FLOW [FROM]: is FLOW (one hex instruction address a line,
 * as ptflow --no-inst prints them) a contiguous run of GT (the ground truth
 * of pt_flow_gt), starting at line FROM (1-based, default 1) or later? A
 * loop repeats its instructions: FROM keeps successive parts in order. For ptcap --snapshot (84-ptcap-snap.sh): each snapshot
 * must decode to a contiguous part of the program's flow. Prints the line
 * of GT where FLOW starts (1-based) and its length; exit 0 if found, 1 if
 * not, 2 on a usage or read error. Knuth-Morris-Pratt over the addresses:
 * linear in GT + FLOW.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Read every line of @path as a hex number; NULL on error. */
static uint64_t *read_addrs(const char *path, size_t *n)
{
	uint64_t *v = NULL, a;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	*n = 0;
	if (!f) {
		perror(path);
		return NULL;
	}
	while (fscanf(f, "%" SCNx64, &a) == 1) {
		if (*n == cap) {
			uint64_t *nv;

			cap = cap ? 2 * cap : 4096;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				fclose(f);
				return NULL;
			}
			v = nv;
		}
		v[(*n)++] = a;
	}
	fclose(f);
	return v ? v : calloc(1, sizeof(*v));
}

int main(int argc, char **argv)
{
	size_t ng, nf, i, k, from = 1;
	uint64_t *gt, *fl;
	size_t *fail;

	if (argc == 4)
		from = strtoul(argv[3], NULL, 0);
	if (argc < 3 || argc > 4 || !from) {
		fprintf(stderr, "usage: pt_flow_sub GT FLOW [FROM]\n");
		return 2;
	}
	gt = read_addrs(argv[1], &ng);
	fl = read_addrs(argv[2], &nf);
	if (!gt || !fl)
		return 2;
	if (!nf) {
		printf("empty flow\n");
		return 1;
	}
	fail = calloc(nf, sizeof(*fail));
	if (!fail)
		return 2;
	/* fail[i]: length of the longest proper border of fl[0..i]. */
	for (i = 1, k = 0; i < nf; i++) {
		while (k && fl[i] != fl[k])
			k = fail[k - 1];
		if (fl[i] == fl[k])
			k++;
		fail[i] = k;
	}
	for (i = from - 1, k = 0; i < ng; i++) {
		while (k && gt[i] != fl[k])
			k = fail[k - 1];
		if (gt[i] == fl[k])
			k++;
		if (k == nf) {
			printf("at %zu, %zu instructions\n", i + 2 - nf, nf);
			return 0;
		}
	}
	printf("not a contiguous part of the ground truth from line %zu (%zu instructions, "
	       "ground truth %zu)\n", from, nf, ng);
	return 1;
}
