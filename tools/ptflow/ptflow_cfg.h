/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture's config text indexed by the first token of its lines
 * ("thread.<file>", "gaps.<file>", ...), so that the line of each trace is
 * found without reading the whole text again per trace (issue 36: a
 * perf.data of 20,000 queues is a config of 40,000 lines).
 */
#ifndef PTFLOW_CFG_H
#define PTFLOW_CFG_H

#include <stdbool.h>
#include <stddef.h>

struct ptflow_cfg_line;

struct ptflow_cfg {
	struct ptflow_cfg_line *v;	/* sorted by token, then line order */
	size_t n;
};

/**
 * ptflow_cfg_index() - index @len bytes of config text at @text (kept by
 * the caller while the index is used).
 * @c: filled; release with ptflow_cfg_free().
 *
 * Return: 0, or -1 when out of memory (@c is then empty).
 */
int ptflow_cfg_index(struct ptflow_cfg *c, const char *text, size_t len);

/**
 * ptflow_cfg_line() - the first line whose first token is @key @file
 * (e.g. "thread." "tid7.pt").
 * @c:    the index.
 * @key:  the token's start, with its dot.
 * @file: the rest of the token.
 * @line: receives the line's start (inside the indexed text).
 * @len:  receives its length, without the newline.
 *
 * Return: true when there is one.
 */
bool ptflow_cfg_line(const struct ptflow_cfg *c, const char *key, const char *file,
		     const char **line, size_t *len);

/** ptflow_cfg_free() - release an index (@c may be empty). */
void ptflow_cfg_free(struct ptflow_cfg *c);

#endif
