/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Strings kept once each and numbered in the order they came, found by a
 * hash (FNV-1a, open addressing): source file paths and function names of
 * the lcov output, of which a library's debug info has thousands.
 */
#ifndef LWPT_TOOLS_PTCOV_STRTAB_H
#define LWPT_TOOLS_PTCOV_STRTAB_H

#include <stddef.h>
#include <stdint.h>

/* Zero-initialised: empty. s[0..n) are the strings, by index. */
struct cov_strtab {
	char **s;
	size_t n, cap;
	uint32_t *h;		/* index + 1; 0: empty */
	size_t mask;
};

/**
 * cov_strtab_id() - the index of string @s in @t, added (copied) if new.
 * @t: the table.
 * @s: a NUL-terminated string.
 *
 * Indexes are dense, from 0, in the order strings were first added.
 *
 * Return: the index (>= 0), or -1 when out of memory (errno ENOMEM; @t
 * is unchanged but maybe grown).
 */
long cov_strtab_id(struct cov_strtab *t, const char *s);

/**
 * cov_strtab_free() - free the strings and the table's arrays (not @t).
 * @t: the table; zero-initialised again.
 */
void cov_strtab_free(struct cov_strtab *t);

#endif
