// SPDX-License-Identifier: GPL-2.0
/* pt2perf: loading a ptcap directory (capture.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lwpt/capture_src.h>
#include <lwpt/pt_pkt.h>

#include "capture.h"

bool p2p_config_value(const char *text, size_t len, const char *key, char *buf,
		      size_t size)
{
	size_t klen = strlen(key), i = 0;
	bool found = false;

	while (i < len) {
		const char *line = text + i;
		const char *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;

		i += n + 1;
		if (n <= klen || memcmp(line, key, klen) || (line[klen] != ' ' && line[klen] != '\t'))
			continue;
		line += klen;
		n -= klen;
		while (n && (*line == ' ' || *line == '\t')) {
			line++;
			n--;
		}
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t' || line[n - 1] == '\r'))
			n--;
		if (size) {
			if (n >= size)
				n = size - 1;
			memcpy(buf, line, n);
			buf[n] = '\0';
		}
		found = true;
	}
	return found;
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static int load_error(const char *prog, const char *dir, const char *file, int err, size_t line)
{
	if (err == -PTCAP_E_IO)
		fprintf(stderr, "%s: %s/%s: %s\n", prog, dir, file, strerror(errno));
	else if (line)
		fprintf(stderr, "%s: %s/%s line %zu: %s\n", prog, dir, file, line,
			ptcap_dir_strerror(err));
	else
		fprintf(stderr, "%s: %s/%s: %s\n", prog, dir, file, ptcap_dir_strerror(err));
	return -1;
}

/* An optional file: absent is fine, present must parse. */
static int load_optional(const char *prog, struct p2p_level *lv, const char *file,
			 int (*parse)(const char *, size_t, void *, size_t *), void *out)
{
	char *text;
	size_t len, line = 0;
	int err;

	err = ptcap_dir_read_file(lv->dir, file, &text, &len);
	if (err == -PTCAP_E_IO && errno == ENOENT)
		return 0;
	if (err)
		return load_error(prog, lv->dir, file, err, 0);
	err = parse(text, len, out, &line);
	free(text);
	return err ? load_error(prog, lv->dir, file, err, line) : 0;
}

static int parse_switches(const char *t, size_t n, void *out, size_t *line)
{
	return ptcap_switches_parse(t, n, out, line);
}

static int parse_processes(const char *t, size_t n, void *out, size_t *line)
{
	return ptcap_processes_parse(t, n, out, line);
}

static int parse_maps(const char *t, size_t n, void *out, size_t *line)
{
	return ptcap_maps_parse(t, n, out, line);
}

static int load_level(const char *prog, struct p2p_level *lv)
{
	size_t line = 0;
	int err;

	err = ptcap_dir_read_file(lv->dir, PTCAP_CONFIG_FILE, &lv->config, &lv->config_len);
	if (err) {
		if (err == -PTCAP_E_IO && errno == ENOENT) {
			fprintf(stderr, "%s: %s is not a ptcap directory (no config file)\n",
				prog, lv->dir);
			return -1;
		}
		return load_error(prog, lv->dir, PTCAP_CONFIG_FILE, err, 0);
	}
	/* The config itself is parsed by the caller for the top level. */
	(void)line;
	if (load_optional(prog, lv, PTCAP_MAPS_FILE, parse_maps, &lv->maps) ||
	    load_optional(prog, lv, PTCAP_SWITCHES_FILE, parse_switches, &lv->sws) ||
	    load_optional(prog, lv, PTCAP_PROCESSES_FILE, parse_processes, &lv->procs))
		return -1;
	return 0;
}

/* Room for element @n of the array at *@pp; false (array kept) if none. */
static bool grow(void *pp, size_t n, size_t *cap, size_t elem)
{
	void *p;
	size_t c;

	if (n < *cap)
		return true;
	c = *cap ? 2 * *cap : 16;
	p = realloc(*(void **)pp, c * elem);
	if (!p)
		return false;
	*(void **)pp = p;
	*cap = c;
	return true;
}

/* Map a trace file; an empty one maps to nothing. */
static int map_file(const char *prog, const char *path, const uint8_t **data, size_t *size)
{
	struct stat st;
	void *p;
	/* never blocks on a FIFO or device; a sparse file is no trace */
	int fd = ptcap_file_open(NULL, path, 0, PTCAP_FILE_NOT_SPARSE, NULL);

	*data = NULL;
	*size = 0;
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, fd == -PTCAP_E_IO ?
			strerror(errno) : ptcap_dir_strerror(fd));
		return -1;
	}
	if (fstat(fd, &st)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		close(fd);
		return -1;
	}
	if (st.st_size > 0) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
			close(fd);
			return -1;
		}
		*data = p;
		*size = (size_t)st.st_size;
	}
	close(fd);
	return 0;
}

/* Which thread or CPU a trace file is, from its name and config line. */
static int identify(const char *prog, struct p2p_capture *cap, const struct p2p_level *lv,
		    struct p2p_file *f)
{
	const char *sfx = cap->bts ? PTCAP_BTS_SUFFIX : PTCAP_TRACE_SUFFIX;
	unsigned long n;
	char *end;

	if (!strncmp(f->name, "cpu", 3)) {
		n = strtoul(f->name + 3, &end, 10);
		if (end == f->name + 3 || strcmp(end, sfx) || n > UINT32_MAX)
			goto bad;
		f->cpu = (uint32_t)n;
		if (f->cpu > cap->max_cpu)
			cap->max_cpu = f->cpu;
		return cap->per_cpu ? 0 : (fprintf(stderr, "%s: %s/%s: a per-CPU trace file in a per-thread capture\n",
						   prog, lv->dir, f->name), -1);
	}
	if (cap->per_cpu)
		goto bad;
	if (!ptcap_config_thread(lv->config, lv->config_len, f->name, &f->tid, &f->pid))
		return 0;
	if (strncmp(f->name, "tid", 3))
		goto bad;
	n = strtoul(f->name + 3, &end, 10);
	if (end == f->name + 3 || strcmp(end, sfx) || n > INT32_MAX)
		goto bad;
	f->tid = f->pid = (uint32_t)n;
	return 0;
bad:
	fprintf(stderr, "%s: %s/%s: not a trace file name of a %s capture (%s%s)\n", prog,
		lv->dir, f->name, cap->per_cpu ? "per-CPU" : "per-thread",
		cap->per_cpu ? "cpu<N>" : "tid<N>", sfx);
	return -1;
}

void p2p_piece_scan(struct p2p_capture *cap, const uint8_t *buf, struct p2p_piece *pc)
{
	struct lpt_pkt_decoder *dec = lpt_pkt_alloc(buf + pc->off, pc->len, NULL);
	struct lpt_packet pkt;
	int ret;

	if (!dec)
		return;
	if (lpt_pkt_sync_forward(dec) < 0)
		goto out;
	for (;;) {
		ret = lpt_pkt_next(dec, &pkt);
		if (ret == LPT_ERR_BAD_OPCODE || ret == LPT_ERR_BAD_PACKET) {
			if (lpt_pkt_sync_forward(dec) < 0)
				break;
			continue;
		}
		if (ret < 0)
			break;
		switch (pkt.type) {
		case LPT_PKT_TSC:
			cap->seen_tsc = true;
			if (!pc->have_tsc) {
				pc->have_tsc = true;
				pc->first_tsc = pkt.payload.tsc.tsc;
			}
			break;
		case LPT_PKT_MTC:
			cap->seen_mtc = true;
			break;
		case LPT_PKT_CYC:
			cap->seen_cyc = true;
			break;
		default:
			break;
		}
	}
out:
	lpt_pkt_free(dec);
}

/* Cut file @fi at offsets @gaps (ascending) into pieces. */
static int cut_pieces(const char *prog, struct p2p_capture *cap, size_t fi,
		      const uint64_t *gaps, size_t ngaps, size_t *cap_pieces)
{
	const struct p2p_file *f = &cap->files[fi];
	uint64_t start = 0;
	size_t g;

	for (g = 0; g <= ngaps; g++) {
		uint64_t end = g < ngaps ? gaps[g] : f->size;
		struct p2p_piece *pc;

		if (end > f->size)
			end = f->size;
		if (end <= start)
			continue;
		if (!grow(&cap->pieces, cap->npieces, cap_pieces, sizeof(*cap->pieces))) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return -1;
		}
		pc = &cap->pieces[cap->npieces++];
		memset(pc, 0, sizeof(*pc));
		pc->file = fi;
		pc->off = start;
		pc->len = end - start;
		if (!cap->bts)	/* BTS records carry no time */
			p2p_piece_scan(cap, f->data, pc);
		if (pc->have_tsc && (!cap->have_min_tsc || pc->first_tsc < cap->min_tsc)) {
			cap->have_min_tsc = true;
			cap->min_tsc = pc->first_tsc;
		}
		start = end;
	}
	return 0;
}

/* Cut one file at its gaps.<file> offsets into pieces. */
static int add_pieces(const char *prog, struct p2p_capture *cap, const struct p2p_level *lv,
		      size_t fi, size_t *cap_pieces)
{
	uint64_t *gaps = NULL;
	size_t ngaps = 0;
	int err;

	err = ptcap_config_gaps(lv->config, lv->config_len, cap->files[fi].name, &gaps, &ngaps);
	if (err)
		return load_error(prog, lv->dir, PTCAP_CONFIG_FILE, err, 0);
	err = cut_pieces(prog, cap, fi, gaps, ngaps, cap_pieces);
	free(gaps);
	return err;
}

static void note_tsc(struct p2p_capture *cap, uint64_t tsc)
{
	if (!cap->have_min_tsc || tsc < cap->min_tsc) {
		cap->have_min_tsc = true;
		cap->min_tsc = tsc;
	}
}

/* The trace files of one level, mapped, identified and cut. */
static int load_traces(const char *prog, struct p2p_capture *cap, size_t level,
		       size_t *cap_files, size_t *cap_pieces)
{
	const struct p2p_level *lv = &cap->lv[level];
	char **names = NULL;
	size_t n = 0, i;
	int err = ptcap_dir_list_traces(lv->dir, &names, &n);

	if (err)
		return load_error(prog, lv->dir, ".", err, 0);
	for (i = 0; i < n; i++) {
		struct p2p_file *f;
		char *path;

		if (!grow(&cap->files, cap->nfiles, cap_files, sizeof(*cap->files)))
			goto nomem;
		f = &cap->files[cap->nfiles];
		memset(f, 0, sizeof(*f));
		f->level = level;
		f->name = names[i];
		names[i] = NULL;
		cap->nfiles++;
		path = join(lv->dir, f->name);
		if (!path)
			goto nomem;
		err = map_file(prog, path, &f->data, &f->size);
		free(path);
		if (err || identify(prog, cap, lv, f) ||
		    add_pieces(prog, cap, lv, cap->nfiles - 1, cap_pieces))
			goto fail;
	}
	for (i = 0; i < lv->sws.n; i++) {
		note_tsc(cap, lv->sws.sw[i].tsc);
		if (lv->sws.sw[i].cpu > cap->max_cpu)
			cap->max_cpu = lv->sws.sw[i].cpu;
	}
	for (i = 0; i < lv->procs.n; i++)
		if (!lv->procs.p[i].missing)
			note_tsc(cap, lv->procs.p[i].first_tsc);
	ptcap_dir_free_names(names, n);
	return 0;
nomem:
	fprintf(stderr, "%s: out of memory\n", prog);
fail:
	ptcap_dir_free_names(names, n);
	return -1;
}

/* Queues: one per CPU (per-CPU) or per thread, shared by the levels. */
static void assign_queues(struct p2p_capture *cap)
{
	size_t i, j;

	for (i = 0; i < cap->nfiles; i++) {
		struct p2p_file *f = &cap->files[i];

		f->queue = cap->nqueues;
		for (j = 0; j < i; j++) {
			const struct p2p_file *o = &cap->files[j];

			if (cap->per_cpu ? o->cpu == f->cpu : o->tid == f->tid) {
				f->queue = o->queue;
				break;
			}
		}
		if (f->queue == cap->nqueues)
			cap->nqueues++;
	}
}

int p2p_capture_load(const char *dir, struct p2p_capture *cap, const char *prog)
{
	char val[256];
	size_t line = 0, nsnap = 0, i, cap_files = 0, cap_pieces = 0;
	struct p2p_level *top;
	int err;

	memset(cap, 0, sizeof(*cap));
	/* Levels: snap.0 .. snap.<n-1>, then the top directory. */
	cap->lv = calloc(1, sizeof(*cap->lv));
	if (!cap->lv)
		goto nomem;
	cap->nlv = 1;
	cap->lv[0].dir = strdup(dir);
	if (!cap->lv[0].dir || load_level(prog, &cap->lv[0]))
		return cap->lv[0].dir ? -1 : (fprintf(stderr, "%s: out of memory\n", prog), -1);
	top = &cap->lv[0];
	err = ptcap_config_parse(top->config, top->config_len, &cap->cfg, &line);
	if (err)
		return load_error(prog, dir, PTCAP_CONFIG_FILE, err, line);
	cap->bts = cap->cfg.format == PTCAP_FORMAT_BTS;
	if (p2p_config_value(top->config, top->config_len, "mode", val, sizeof(val)))
		cap->per_cpu = !strcmp(val, "per-cpu");
	if (p2p_config_value(top->config, top->config_len, "rtit-ctl", val, sizeof(val))) {
		char *end;

		cap->rtit_ctl = strtoull(val, &end, 0);
		cap->have_ctl = end != val && !*end;
	}
	if (p2p_config_value(top->config, top->config_len, "capture-mode", val, sizeof(val)))
		cap->wrapped = !strcmp(val, "wrap");
	if (p2p_config_value(top->config, top->config_len, "command", val, sizeof(val)) &&
	    *val) {
		char *sp = strpbrk(val, " \t"), *slash;

		if (sp)
			*sp = '\0';
		slash = strrchr(val, '/');
		cap->command = strdup(slash ? slash + 1 : val);
	}
	if (p2p_config_value(top->config, top->config_len, "snapshots", val, sizeof(val))) {
		char *end;
		unsigned long n = strtoul(val, &end, 10);

		if (end == val || *end || n > 100000) {
			fprintf(stderr, "%s: %s/config: bad snapshots line '%s'\n", prog, dir, val);
			return -1;
		}
		nsnap = n;
		cap->snapshot = nsnap > 0;
	}
	if (nsnap) {
		struct p2p_level *lv = realloc(cap->lv, (nsnap + 1) * sizeof(*lv));

		if (!lv)
			goto nomem;
		cap->lv = lv;
		/* The top directory goes last (it holds what came after). */
		lv[nsnap] = lv[0];
		memset(lv, 0, nsnap * sizeof(*lv));
		cap->nlv = nsnap + 1;
		for (i = 0; i < nsnap; i++) {
			snprintf(val, sizeof(val), "snap.%zu", i);
			lv[i].dir = join(dir, val);
			if (!lv[i].dir)
				goto nomem;
			if (load_level(prog, &lv[i]))
				return -1;
		}
	}
	top = &cap->lv[cap->nlv - 1];
	/* No mode key (a hand-made directory): per-CPU if it has cpu files. */
	if (!p2p_config_value(top->config, top->config_len, "mode", val, sizeof(val))) {
		char **names = NULL;
		size_t n = 0;

		if (!ptcap_dir_list_traces(dir, &names, &n) && n &&
		    !strncmp(names[0], "cpu", 3))
			cap->per_cpu = true;
		ptcap_dir_free_names(names, n);
	}
	for (i = 0; i < cap->nlv; i++)
		if (load_traces(prog, cap, i, &cap_files, &cap_pieces))
			return -1;
	if (!cap->npieces) {
		fprintf(stderr, "%s: %s: no trace data (no non-empty *%s file)\n", prog, dir,
			cap->bts ? PTCAP_BTS_SUFFIX : PTCAP_TRACE_SUFFIX);
		return -1;
	}
	assign_queues(cap);
	return 0;
nomem:
	fprintf(stderr, "%s: out of memory\n", prog);
	return -1;
}

/* A copy of the processes @ps into @out. -1 when out of memory. */
static int copy_processes(const struct ptcap_processes *ps, struct ptcap_processes *out)
{
	size_t i;

	out->p = calloc(ps->n ? ps->n : 1, sizeof(*out->p));
	if (!out->p)
		return -1;
	for (i = 0; i < ps->n; i++) {
		out->p[out->n] = ps->p[i];
		out->p[out->n].maps = ps->p[i].maps ? strdup(ps->p[i].maps) : NULL;
		out->p[out->n].comm = ps->p[i].comm ? strdup(ps->p[i].comm) : NULL;
		out->n++;
		if ((ps->p[i].maps && !out->p[i].maps) || (ps->p[i].comm && !out->p[i].comm))
			return -1;
	}
	return 0;
}

int p2p_capture_from_src(struct lpt_capsrc *src, struct p2p_capture *cap, const char *prog)
{
	const struct lpt_capsrc_trace *tr;
	const struct ptcap_processes *ps;
	const struct ptcap_switches *sws;
	const struct ptcap_config *cfg;
	size_t ntr, i, cap_files = 0, cap_pieces = 0;
	struct p2p_level *lv;
	int err;

	memset(cap, 0, sizeof(*cap));
	cap->lv = calloc(1, sizeof(*cap->lv));
	if (!cap->lv)
		goto nomem;
	cap->nlv = 1;
	lv = &cap->lv[0];
	lv->dir = strdup(lpt_capsrc_path(src));
	if (!lv->dir)
		goto nomem;
	err = lpt_capsrc_config(src, &cfg, NULL);
	if (!err)
		cap->cfg = *cfg;
	if (!err)
		err = lpt_capsrc_traces(src, &tr, &ntr);
	if (!err)
		err = lpt_capsrc_maps(src, &lv->maps);
	if (!err) {
		err = lpt_capsrc_processes(src, &ps);
		if (!err)
			err = lpt_capsrc_switches(src, &sws);
		if (!err) {
			lv->sws.sw = malloc((sws->n ? sws->n : 1) * sizeof(*sws->sw));
			if (!lv->sws.sw || copy_processes(ps, &lv->procs))
				goto nomem;
			memcpy(lv->sws.sw, sws->sw, sws->n * sizeof(*sws->sw));
			lv->sws.n = sws->n;
		}
		if (err > 0)
			err = 0;	/* not decoded per process */
	}
	if (err) {
		size_t line;
		const char *file = lpt_capsrc_where(src, &line);

		return load_error(prog, lv->dir, file, err, line);
	}
	for (i = 0; i < ntr; i++) {
		struct p2p_file *f;
		uint8_t *data;
		unsigned int n;
		size_t len;
		char c;

		if (!grow(&cap->files, cap->nfiles, &cap_files, sizeof(*cap->files)))
			goto nomem;
		f = &cap->files[cap->nfiles];
		memset(f, 0, sizeof(*f));
		f->name = strdup(tr[i].name);
		if (!f->name)
			goto nomem;
		cap->nfiles++;
		err = lpt_capsrc_load(src, i, PTCAP_DATA_MAX, 0, &data, &len);
		if (err)
			return load_error(prog, lv->dir, tr[i].name, err, 0);
		f->data = data;
		f->size = len;
		f->owned = true;
		if (tr[i].per_cpu) {
			cap->per_cpu = true;
			f->cpu = tr[i].cpu;
			if (f->cpu > cap->max_cpu)
				cap->max_cpu = f->cpu;
		} else if (tr[i].has_thread) {
			f->tid = tr[i].tid;
			f->pid = tr[i].pid;
		} else if (sscanf(tr[i].name, "tid%u.p%c", &n, &c) == 2) {
			f->tid = f->pid = n;
		}
		if (tr[i].gaps_err)
			return load_error(prog, lv->dir, PTCAP_CONFIG_FILE, tr[i].gaps_err, 0);
		if (cut_pieces(prog, cap, cap->nfiles - 1, tr[i].gaps, tr[i].ngaps, &cap_pieces))
			return -1;
	}
	for (i = 0; i < lv->sws.n; i++) {
		note_tsc(cap, lv->sws.sw[i].tsc);
		if (lv->sws.sw[i].cpu > cap->max_cpu)
			cap->max_cpu = lv->sws.sw[i].cpu;
	}
	for (i = 0; i < lv->procs.n; i++)
		if (!lv->procs.p[i].missing)
			note_tsc(cap, lv->procs.p[i].first_tsc);
	if (!cap->npieces) {
		fprintf(stderr, "%s: %s: no trace data (no non-empty trace)\n", prog, lv->dir);
		return -1;
	}
	assign_queues(cap);
	return 0;
nomem:
	fprintf(stderr, "%s: out of memory\n", prog);
	return -1;
}

void p2p_files_free(struct p2p_file *files, size_t n)
{
	size_t i;

	for (i = 0; files && i < n; i++) {
		if (files[i].owned)
			free((void *)files[i].data);
		else if (files[i].data)
			munmap((void *)files[i].data, files[i].size);
		free(files[i].name);
	}
	free(files);
}

void p2p_capture_free(struct p2p_capture *cap)
{
	size_t i;

	for (i = 0; i < cap->nlv; i++) {
		free(cap->lv[i].dir);
		free(cap->lv[i].config);
		ptcap_maps_free(&cap->lv[i].maps);
		ptcap_switches_free(&cap->lv[i].sws);
		ptcap_processes_free(&cap->lv[i].procs);
	}
	p2p_files_free(cap->files, cap->nfiles);
	free(cap->lv);
	free(cap->pieces);
	free(cap->command);
	memset(cap, 0, sizeof(*cap));
}
