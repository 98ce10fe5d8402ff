// SPDX-License-Identifier: GPL-2.0
/*
 * The perf.data reader's index (libpt/perf_internal.h struct
 * lpt_perf_hash): 64-bit keys to array positions, open addressing with
 * linear probing, at most half full. Sample IDs, AUXTRACE queues, CPUs and
 * threads are looked up through it, so that reading a file is linear in
 * its records (issue 36).
 */
#include <stdlib.h>

#include "libpt/perf_internal.h"

static size_t slot_of(const struct lpt_perf_hash *h, uint64_t key)
{
	/* Fibonacci hashing: the top bits of key * 2^64/phi. */
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - h->bits));
}

static int rehash(struct lpt_perf_hash *h, unsigned int bits)
{
	struct lpt_perf_hash n = { .bits = bits };
	size_t i, cap = (size_t)1 << bits;

	n.keys = malloc(cap * sizeof(*n.keys));
	n.vals = malloc(cap * sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		free(n.keys);
		free(n.vals);
		return -LPT_PERF_E_NOMEM;
	}
	for (i = 0; i < cap; i++)
		n.vals[i] = SIZE_MAX;
	for (i = 0; h->vals && i < ((size_t)1 << h->bits); i++) {
		size_t s;

		if (h->vals[i] == SIZE_MAX)
			continue;
		for (s = slot_of(&n, h->keys[i]); n.vals[s] != SIZE_MAX; s = (s + 1) & (cap - 1))
			;
		n.keys[s] = h->keys[i];
		n.vals[s] = h->vals[i];
	}
	n.n = h->n;
	free(h->keys);
	free(h->vals);
	*h = n;
	return 0;
}

int lpt_perf_hash_put(struct lpt_perf_hash *h, uint64_t key, size_t val)
{
	size_t s, mask;

	if (!h->vals || 2 * (h->n + 1) > ((size_t)1 << h->bits)) {
		if (h->bits >= sizeof(size_t) * 8 - 2)
			return -LPT_PERF_E_NOMEM;
		if (rehash(h, h->vals ? h->bits + 1 : 4))
			return -LPT_PERF_E_NOMEM;
	}
	mask = ((size_t)1 << h->bits) - 1;
	for (s = slot_of(h, key); h->vals[s] != SIZE_MAX; s = (s + 1) & mask)
		if (h->keys[s] == key)
			return 1;
	h->keys[s] = key;
	h->vals[s] = val;
	h->n++;
	return 0;
}

size_t lpt_perf_hash_get(const struct lpt_perf_hash *h, uint64_t key)
{
	size_t s, mask;

	if (!h->vals)
		return SIZE_MAX;
	mask = ((size_t)1 << h->bits) - 1;
	for (s = slot_of(h, key); h->vals[s] != SIZE_MAX; s = (s + 1) & mask)
		if (h->keys[s] == key)
			return h->vals[s];
	return SIZE_MAX;
}

void lpt_perf_hash_free(struct lpt_perf_hash *h)
{
	free(h->keys);
	free(h->vals);
	h->keys = NULL;
	h->vals = NULL;
	h->n = 0;
	h->bits = 0;
}
