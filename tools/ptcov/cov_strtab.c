// SPDX-License-Identifier: GPL-2.0
/*
 * Strings numbered once each (cov_strtab.h).
 */
#include "tools/ptcov/cov_strtab.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a */
static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

long cov_strtab_id(struct cov_strtab *t, const char *s)
{
	size_t j;

	/* at most half full: every probe ends at an empty slot */
	if (!t->h || 2 * (t->n + 1) > t->mask + 1) {
		size_t cap = t->h ? 2 * (t->mask + 1) : 256;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return -1;
		for (size_t i = 0; i < t->n; i++) {
			for (j = str_hash(t->s[i]) & (cap - 1); h[j]; j = (j + 1) & (cap - 1))
				;
			h[j] = (uint32_t)i + 1;
		}
		free(t->h);
		t->h = h;
		t->mask = cap - 1;
	}
	for (j = str_hash(s) & t->mask; t->h[j]; j = (j + 1) & t->mask)
		if (!strcmp(t->s[t->h[j] - 1], s))
			return (long)t->h[j] - 1;
	if (t->n == t->cap) {
		size_t c = t->cap ? 2 * t->cap : 64;
		char **n = realloc(t->s, c * sizeof(*n));

		if (!n)
			return -1;
		t->s = n;
		t->cap = c;
	}
	t->s[t->n] = strdup(s);
	if (!t->s[t->n])
		return -1;
	t->h[j] = (uint32_t)t->n + 1;
	return (long)t->n++;
}

void cov_strtab_free(struct cov_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->h);
	memset(t, 0, sizeof(*t));
}
