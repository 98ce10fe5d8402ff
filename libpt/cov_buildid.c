// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id verdicts of the tools that read a capture's code (ptcov,
 * ptflow; lwpt/pt_cov.h lpt_cov_build_ids_*): a file whose GNU build-id is
 * not the one the capture recorded (ptcap's "# build-id" lines, a
 * perf.data's build-id list) is another binary than the one traced, and
 * coverage or a flow read from it is a silent wrong answer. Refused, said
 * once per file with both ids, unless the tool's --force.
 * Documentation/ptcov.rst "Build-ids".
 */
#include <lwpt/pt_cov.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/ptcap_dir.h>

struct lpt_cov_build_ids {
	char *prog;
	FILE *err;
	bool force;
	char **said;		/* paths whose verdict was said */
	size_t nsaid;
	unsigned long refused;
};

struct lpt_cov_build_ids *lpt_cov_build_ids_alloc(const char *prog, FILE *err,
						  unsigned int flags)
{
	struct lpt_cov_build_ids *b;

	if (flags & ~LPT_COV_BUILD_IDS_F_FORCE) {
		errno = EINVAL;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->prog = strdup(prog ? prog : "libpt");
	if (!b->prog) {
		free(b);
		return NULL;
	}
	b->err = err;
	b->force = flags & LPT_COV_BUILD_IDS_F_FORCE;
	return b;
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

/* Was @path's verdict said? If not, it is now (false returned). */
static bool said(struct lpt_cov_build_ids *b, const char *path)
{
	char **n;

	for (size_t i = 0; i < b->nsaid; i++)
		if (!strcmp(b->said[i], path))
			return true;
	n = realloc(b->said, (b->nsaid + 1) * sizeof(*n));
	if (n) {		/* without memory: said again next time */
		b->said = n;
		n[b->nsaid] = strdup(path);
		b->nsaid += n[b->nsaid] != NULL;
	}
	return false;
}

int lpt_cov_build_ids_use(struct lpt_cov_build_ids *b, const struct ptcap_map *m,
			  const char *path)
{
	uint8_t id[PTCAP_BUILD_ID_MAX], n = 0;
	char want[2 * PTCAP_BUILD_ID_MAX + 1], have[2 * PTCAP_BUILD_ID_MAX + 1];

	if (!b || !m || !path)
		return LPT_ERR_INVALID;
	if (lpt_cov_build_id_check(m, path, id, &n) != 1)
		return 1;
	if (said(b, path))
		return b->force;
	hex(want, m->build_id, m->build_id_size);
	hex(have, id, n);
	if (!b->force)
		b->refused++;
	if (b->err)
		fprintf(b->err, "%s: %s%s: build-id %s recorded in the capture, the file has "
			"%s%s: not the binary that was traced: %s\n", b->prog,
			b->force ? "warning: " : "", path, want, n ? "" : "none", have,
			b->force ? "used anyway (--force)" :
			"left out (rebuild it as it was, or --force to use it anyway)");
	return b->force;
}

unsigned long lpt_cov_build_ids_refused(const struct lpt_cov_build_ids *b)
{
	return b ? b->refused : 0;
}

void lpt_cov_build_ids_free(struct lpt_cov_build_ids *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nsaid; i++)
		free(b->said[i]);
	free(b->said);
	free(b->prog);
	free(b);
}
