// SPDX-License-Identifier: GPL-2.0
/* A capture's config indexed by line keys (ptflow_cfg.h). */
#include "tools/ptflow/ptflow_cfg.h"

#include <stdlib.h>
#include <string.h>

struct ptflow_cfg_line {
	const char *tok;	/* first token */
	size_t tlen;
	const char *line;	/* the whole line, no newline */
	size_t len;
};

static int cmp_tok(const char *a, size_t na, const char *b, size_t nb)
{
	int c = memcmp(a, b, na < nb ? na : nb);

	return c ? c : na < nb ? -1 : na > nb;
}

static int cmp_line(const void *a, const void *b)
{
	const struct ptflow_cfg_line *x = a, *y = b;
	int c = cmp_tok(x->tok, x->tlen, y->tok, y->tlen);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

int ptflow_cfg_index(struct ptflow_cfg *c, const char *text, size_t len)
{
	const char *p = text, *end;
	size_t cap = 0;

	c->v = NULL;
	c->n = 0;
	if (!text)
		return 0;	/* no config: no lines */
	end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *kb = p, *ke;

		while (kb < e && (*kb == ' ' || *kb == '\t'))
			kb++;
		for (ke = kb; ke < e && *ke != ' ' && *ke != '\t'; ke++)
			;
		if (ke > kb && memchr(kb, '.', (size_t)(ke - kb))) {
			if (c->n == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct ptflow_cfg_line *nv = realloc(c->v, ncap * sizeof(*nv));

				if (!nv) {
					ptflow_cfg_free(c);
					return -1;
				}
				c->v = nv;
				cap = ncap;
			}
			c->v[c->n++] = (struct ptflow_cfg_line){ kb, (size_t)(ke - kb), p,
								 (size_t)(e - p) };
		}
		p = nl ? nl + 1 : end;
	}
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_line);
	return 0;
}

bool ptflow_cfg_line(const struct ptflow_cfg *c, const char *key, const char *file,
		     const char **line, size_t *len)
{
	size_t kl = strlen(key), fl = strlen(file), lo = 0, hi = c->n;
	char *tok = malloc(kl + fl + 1);

	if (!tok)
		return false;
	memcpy(tok, key, kl);
	memcpy(tok + kl, file, fl + 1);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_tok(c->v[mid].tok, c->v[mid].tlen, tok, kl + fl) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->n && !cmp_tok(c->v[lo].tok, c->v[lo].tlen, tok, kl + fl)) {
		*line = c->v[lo].line;
		*len = c->v[lo].len;
		free(tok);
		return true;
	}
	free(tok);
	return false;
}

void ptflow_cfg_free(struct ptflow_cfg *c)
{
	free(c->v);
	c->v = NULL;
	c->n = 0;
}
