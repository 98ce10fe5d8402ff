// SPDX-License-Identifier: GPL-2.0
/*
 * A capture source (include/lwpt/capture_src.h): which backend reads a
 * path, and the calls to it. The backends: libpt/capsrc_dir.c (a ptcap
 * directory), libpt/capsrc_perf.c (a perf.data in place).
 */
#include <lwpt/capture_src.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lwpt/perf_data.h>

#include "libpt/capsrc_internal.h"

struct lpt_capsrc {
	const struct lpt_capsrc_be *be;
	void *state;
	char *path;
	struct lpt_capsrc_at at;
};

void lpt_capsrc_opts_init(struct lpt_capsrc_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	o->err = stderr;
	o->prog = "libpt";
}

int lpt_capsrc_open(const char *path, const struct lpt_capsrc_opts *o,
		    struct lpt_capsrc **out)
{
	struct lpt_capsrc_opts def;
	struct lpt_capsrc *s;
	struct stat st;
	int err;

	*out = NULL;
	lpt_capsrc_opts_init(&def);
	if (o) {
		/* a caller's older, smaller struct: its fields only */
		memcpy(&def, o, o->size && o->size < sizeof(def) ? o->size : sizeof(def));
		def.size = sizeof(def);
		if (!def.prog)
			def.prog = "libpt";
	}
	o = &def;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path))) {
		free(s);
		if (o->err)
			fprintf(o->err, "%s: out of memory\n", o->prog);
		return -1;
	}
	if (!strcmp(path, "-") || lpt_perf_probe(path)) {
		s->be = &lpt_capsrc_perf_be;
		err = lpt_capsrc_perf_open(path, o, &s->state);
	} else if (stat(path, &st) || S_ISDIR(st.st_mode)) {
		/* a path that cannot be looked at: the directory's reads
		 * say why (naming the file and errno) */
		s->be = &lpt_capsrc_dir_be;
		err = lpt_capsrc_dir_open(path, &s->state);
		if (err && o->err)
			fprintf(o->err, "%s: out of memory\n", o->prog);
	} else {
		free(s->path);
		free(s);
		return LPT_CAPSRC_NOT_CAPTURE;
	}
	if (err) {
		free(s->path);
		free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void lpt_capsrc_close(struct lpt_capsrc *s)
{
	if (!s)
		return;
	s->be->close(s->state);
	free(s->path);
	free(s);
}

enum lpt_capsrc_kind lpt_capsrc_kind(const struct lpt_capsrc *s)
{
	return s->be->kind;
}

const char *lpt_capsrc_path(const struct lpt_capsrc *s)
{
	return s->path;
}

const char *lpt_capsrc_where(const struct lpt_capsrc *s, size_t *line)
{
	if (line)
		*line = s->at.line;
	return s->at.file;
}

/* Before each call: no place known. */
static struct lpt_capsrc_at *at(struct lpt_capsrc *s)
{
	s->at.file[0] = '\0';
	s->at.line = 0;
	return &s->at;
}

int lpt_capsrc_config(struct lpt_capsrc *s, const struct ptcap_config **cfg,
		      const struct ptcap_addr_range **addr)
{
	const struct ptcap_addr_range *a;

	return s->be->config(s->state, at(s), cfg, addr ? addr : &a);
}

const char *lpt_capsrc_config_text(struct lpt_capsrc *s, size_t *len)
{
	return s->be->config_text(s->state, len);
}

int lpt_capsrc_traces(struct lpt_capsrc *s, const struct lpt_capsrc_trace **t, size_t *n)
{
	return s->be->traces(s->state, at(s), t, n);
}

int lpt_capsrc_load(struct lpt_capsrc *s, size_t i, uint64_t max, size_t pad,
		    uint8_t **buf, size_t *len)
{
	return s->be->load(s->state, at(s), i, max, pad, buf, len);
}

int lpt_capsrc_maps(struct lpt_capsrc *s, struct ptcap_maps *maps)
{
	return s->be->maps(s->state, at(s), maps);
}

int lpt_capsrc_processes(struct lpt_capsrc *s, const struct ptcap_processes **ps)
{
	return s->be->processes(s->state, at(s), ps);
}

int lpt_capsrc_switches(struct lpt_capsrc *s, const struct ptcap_switches **sws)
{
	return s->be->switches(s->state, at(s), sws);
}

int lpt_capsrc_process_maps(struct lpt_capsrc *s, size_t k, struct ptcap_maps *maps)
{
	return s->be->process_maps(s->state, at(s), k, maps);
}
