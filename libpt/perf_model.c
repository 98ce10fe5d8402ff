// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data's capture in ptcap's terms, in memory (libpt/perf_model.h;
 * what comes from which perf record: Documentation/perf-data.rst "As a
 * capture").
 */
#include "libpt/perf_model.h"

#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

void lpt_perf_model_escape(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	if (!size)
		return;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f || ch == '\\') {
			if (o + 4 >= size)
				break;
			snprintf(buf + o, 5, "\\x%02x", ch);
			o += 4;
		} else {
			if (o + 1 >= size)
				break;
			buf[o++] = (char)ch;
		}
	}
	buf[o] = '\0';
}

static bool is_kernel(const struct lpt_perf_map *m)
{
	return m->kernel || m->pid == -1;
}

/* @n bytes of @id as hex into @out (41 bytes); "none" for none. */
static void id_hex(char *out, const uint8_t *id, int n)
{
	if (n <= 0) {
		strcpy(out, "none");
		return;
	}
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/*
 * The GNU build-id of @file (lpt_perf_elf_build_id()) into @id, read once
 * per file for the model (the same file serves many mapping records).
 * Returns its length, 0 none (or not ELF), < 0 unreadable.
 */
static int file_id(struct lpt_perf_model *c, const char *file, uint8_t id[20])
{
	struct lpt_perf_file_id *e;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t i;

	for (const char *s = file; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	i = lpt_perf_hash_get(&c->id_of, h);
	if (i != SIZE_MAX && !strcmp(c->ids[i].file, file)) {
		memcpy(id, c->ids[i].id, sizeof(c->ids[i].id));
		return c->ids[i].n;
	}
	if (i != SIZE_MAX || lpt_perf_grow(&c->ids, &c->cap_ids, c->nids + 1, sizeof(*c->ids)))
		return lpt_perf_elf_build_id(file, id);	/* not kept */
	e = &c->ids[c->nids];
	e->file = strdup(file);
	if (!e->file || lpt_perf_hash_put(&c->id_of, h, c->nids)) {
		free(e->file);
		return lpt_perf_elf_build_id(file, id);
	}
	e->n = lpt_perf_elf_build_id(file, e->id);
	c->nids++;
	memcpy(id, e->id, sizeof(e->id));
	return e->n;
}

/*
 * "build-id X recorded in the perf.data, FILE has Y" for mapping @m when
 * @file (the one found, or with @file NULL the one --force would take)
 * has another build-id than the perf.data recorded; empty when not.
 */
static void ids_said(struct lpt_perf_model *c, const struct lpt_perf_map *m, const char *file,
		     char *out, size_t size)
{
	struct lpt_perf_code_opts o = c->o;
	char other[4096], want[41], have[41];
	uint8_t id[20];
	int n;

	out[0] = '\0';
	o.any_build_id = true;
	if (!m->build_id_size)
		return;
	if (!file) {
		if (lpt_perf_find_code(c->p, m, &o, other, sizeof(other)))
			return;
		file = other;
	}
	n = file_id(c, file, id);
	if (n <= 0 || (n == m->build_id_size && !memcmp(id, m->build_id, (size_t)n)))
		return;
	id_hex(want, m->build_id, m->build_id_size);
	id_hex(have, id, n);
	snprintf(out, size, "build-id %s recorded in the perf.data, %s has %s", want, file,
		 have);
}

/* Whether @m's path was named already; else it is from now on. */
static bool said(struct lpt_perf_model *c, const struct lpt_perf_map *m)
{
	size_t i;

	for (i = 0; i < c->nsaid; i++)
		if (!strcmp(c->said[i], m->path))
			return true;
	if (!lpt_perf_grow(&c->said, &c->cap_said, c->nsaid + 1, sizeof(*c->said)))
		c->said[c->nsaid++] = m->path;
	return false;
}

/* Name a file whose code is missing once. */
static void say_missing(struct lpt_perf_model *c, const struct lpt_perf_map *m, int why)
{
	char ids[4096 + 160];

	if (said(c, m))
		return;
	if (is_kernel(m) && strncmp(m->path, "[kernel.kallsyms]", 17)) {
		/* Kernel modules: one line for all (lpt_perf_model_summary()). */
		if (!c->modules++)
			c->first_module = m->path;
		return;
	}
	if (c->warn && has_control(m->path))
		fprintf(c->warn, "%s: a mapped file whose name has control characters: "
			"%s\n", c->prog, lpt_perf_strerror(why));
	else if (c->warn && why == -LPT_PERF_E_BUILD_ID &&
		 (ids_said(c, m, NULL, ids, sizeof(ids)), ids[0]))
		fprintf(c->warn, "%s: %s: %s (%s: not the binary that was traced; "
			"--force uses it)\n", c->prog, m->path, lpt_perf_strerror(why), ids);
	else if (c->warn)
		fprintf(c->warn, "%s: %s: %s%s\n", c->prog, m->path,
			lpt_perf_strerror(why),
			why == -LPT_PERF_E_NO_CODE && !(m->kernel || m->path[0] == '[') ?
			" (give --symfs DIR, or perf buildid-cache -a it)" :
			why == -LPT_PERF_E_NO_CODE ? " (kernel: give --vmlinux FILE or "
			"record with perf record --kcore)" : "");
}

void lpt_perf_model_summary(const struct lpt_perf_model *mo)
{
	if (mo->modules && mo->warn)
		fprintf(mo->warn, "%s: %zu kernel modules (%s%s): code unavailable (record "
			"with perf record --kcore)\n", mo->prog, mo->modules, mo->first_module,
			mo->modules > 1 ? ", ..." : "");
}

static int add_line(struct lpt_perf_lines *l, uint64_t start, uint64_t size,
		    uint64_t offset, const char *file)
{
	struct ptcap_map *n = realloc(l->m, (l->n + 1) * sizeof(*n));

	if (!n)
		return -LPT_PERF_E_NOMEM;
	l->m = n;
	memset(&n[l->n], 0, sizeof(n[l->n]));
	n[l->n].start = start;
	n[l->n].size = size;
	n[l->n].offset = offset;
	n[l->n].path = strdup(file);
	if (!n[l->n].path)
		return -LPT_PERF_E_NOMEM;
	l->n++;
	return 0;
}

/* The kernel's code from an ELF (kcore or vmlinux): one line per part of
 * a PT_LOAD segment inside the mapping. A vmlinux runs relocated (KASLR):
 * its first executable segment is placed at the mapping's start (the
 * [kernel.kallsyms]_text record's address, machine.c
 * machine__set_kernel_mmap), kcore holds run-time addresses. */
static void kernel_lines(struct lpt_perf_lines *l, const char *file,
			 const struct lpt_perf_map *m, bool relocate)
{
	size_t n, i;
	int64_t delta = 0;
	bool first = true;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	fd = ptcap_file_open(NULL, file, 0, 0, NULL);	/* no FIFO, no device */
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getphdrnum(elf, &n)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return;
	}
	for (i = 0; i < n; i++) {
		uint64_t s, e, vs, ve;
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		if (relocate && first && (ph.p_flags & PF_X)) {
			delta = (int64_t)(m->start - ph.p_vaddr);
			first = false;
		}
		vs = ph.p_vaddr + (uint64_t)delta;
		ve = vs + ph.p_filesz;
		s = vs > m->start ? vs : m->start;
		e = ve < m->start + m->size ? ve : m->start + m->size;
		if (s < e && add_line(l, s, e - s, ph.p_offset + (s - vs), file))
			break;
	}
	elf_end(elf);
	close(fd);
}

/* The lines of @m, when its code is found; else @m is named once as
 * unavailable. */
static void map_lines(struct lpt_perf_model *c, struct lpt_perf_lines *l,
		      const struct lpt_perf_map *m)
{
	char file[4096];
	uint8_t id[20];
	int r;

	if (c->o.no_code || !m->exec || !m->size || !m->path[0])
		return;
	if (!strcmp(m->path, "//anon") || !strncmp(m->path, "[vdso", 5) ||
	    !strcmp(m->path, "[vsyscall]"))
		return;
	r = lpt_perf_find_code(c->p, m, &c->o, file, sizeof(file));
	if (!r && has_control(file))
		r = -LPT_PERF_E_NO_CODE;	/* a maps line holds no newline */
	if (r) {
		say_missing(c, m, r);
		return;
	}
	if (m->path[0] == '[' || (m->kernel && c->o.kcore)) {
		kernel_lines(l, file, m, !c->o.kcore);
		return;
	}
	/* A kernel module's raw file: perf reads it at ip - start, its
	 * pgoff ignored (lpt_perf_find_code()). */
	if (add_line(l, m->start, m->size, m->kernel ? 0 : m->pgoff, file) || is_kernel(m) ||
	    !m->build_id_size)
		return;
	/* A user file, compared with the recorded build-id by
	 * lpt_perf_find_code(): the line carries the id when the file has
	 * it (a tool may compare again, lpt_cov_build_id_check()). A file
	 * --force took with another id carries none: said here once, with
	 * both ids; one without a note is used as perf uses it. */
	r = file_id(c, file, id);
	if (r == m->build_id_size && !memcmp(id, m->build_id, (size_t)r)) {
		memcpy(l->m[l->n - 1].build_id, id, (size_t)r);
		l->m[l->n - 1].build_id_size = (uint8_t)r;
	} else if (r > 0 && c->o.any_build_id && c->warn) {
		char ids[4096 + 160];

		ids_said(c, m, file, ids, sizeof(ids));
		if (ids[0] && !said(c, m))
			fprintf(c->warn, "%s: warning: %s: %s: used anyway (--force)\n", c->prog,
				m->path, ids);
	}
}

const struct ptcap_map *lpt_perf_model_lines(struct lpt_perf_model *mo, size_t j,
					     size_t *n)
{
	size_t nm;
	const struct lpt_perf_map *m = lpt_perf_maps(mo->p, &nm);
	struct lpt_perf_lines *l = &mo->lines[j];

	if (!l->done) {
		l->done = true;
		map_lines(mo, l, &m[j]);
	}
	*n = l->n;
	return l->n ? l->m : NULL;
}

void lpt_perf_model_top(struct lpt_perf_model *mo,
			void (*fn)(struct lpt_perf_model *mo, size_t j, void *arg), void *arg)
{
	size_t n, i;
	const struct lpt_perf_map *m = lpt_perf_maps(mo->p, &n);

	for (i = 0; i < n; i++)
		if (!mo->sys || is_kernel(&m[i]))
			fn(mo, i, arg);
}

/*
 * The range a filter on file offsets [@off, @off + @size) of @path had in
 * the traced process: its part in the first mapping of @path, by address,
 * that holds any of it (kernel/events/core.c perf_addr_filter_apply() and
 * perf_addr_filter_vma_adjust()). Returns false when no mapping holds it.
 */
static bool file_filter_range(const struct lpt_perf *p, const char *path,
			      uint64_t off, uint64_t size, uint64_t *a, uint64_t *b)
{
	const struct lpt_perf_map *m, *best = NULL;
	size_t n, i;

	m = lpt_perf_maps(p, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(m[i].path, path) && m[i].pgoff < off + size &&
		    off < m[i].pgoff + m[i].size &&
		    (!best || m[i].start < best->start))
			best = &m[i];
	if (!best)
		return false;
	if (off < best->pgoff) {
		*a = best->start;
		size -= best->pgoff - off;
	} else {
		*a = best->start + (off - best->pgoff);
	}
	if (size > best->start + best->size - *a)
		size = best->start + best->size - *a;
	*b = *a + size - 1;
	return true;
}

/*
 * The IP filter ranges of the event's address filters (@s: perf's string,
 * "filter|start|stop START[/SIZE][@FILE]" separated by spaces, commas or
 * newlines, kernel/events/core.c perf_event_parse_addr_filter()), as Intel
 * PT programmed them (arch/x86/events/intel/pt.c
 * pt_event_addr_filters_sync(): ADDRn_A/B inclusive, "stop" as TraceStop;
 * "start" is not Intel PT's). At most PTCAP_ADDR_RANGES; a filter on a
 * file no mapping holds is left out.
 */
static int addr_filters(struct lpt_perf_model *mo, const char *s)
{
	char *copy = strdup(s), *save = NULL, *tok, *spec;
	unsigned int n = 0;

	if (!copy)
		return -LPT_PERF_E_NOMEM;
	for (tok = strtok_r(copy, " ,\n", &save); tok && n < PTCAP_ADDR_RANGES;
	     tok = strtok_r(NULL, " ,\n", &save)) {
		bool stop = !strcmp(tok, "stop") || !strcmp(tok, "tracestop");
		uint64_t start, size = 0, a, b;
		char *end;

		if (!stop && strcmp(tok, "filter"))
			continue;
		spec = strtok_r(NULL, " ,\n", &save);
		if (!spec)
			break;
		errno = 0;
		start = strtoull(spec, &end, 0);
		if (*end == '/')
			size = strtoull(end + 1, &end, 0);
		if (errno || (*end && *end != '@'))
			continue;
		if (!size)
			size = 1;
		if (*end == '@') {
			if (!file_filter_range(mo->p, end + 1, start, size, &a, &b))
				continue;
		} else if (start + size - 1 < start) {
			continue;
		} else {
			a = start;
			b = start + size - 1;
		}
		mo->addr[n].cfg = stop ? PTCAP_ADDR_STOP : PTCAP_ADDR_FILTER;
		mo->addr[n].a = a;
		mo->addr[n].b = b;
		n++;
	}
	free(copy);
	return 0;
}

struct sw_lines {
	struct lpt_perf_sw_line *l;
	size_t n, cap;
	int err;
};

static void switch_line(struct sw_lines *v, uint64_t tsc, int32_t cpu, int32_t pp, int32_t pt,
			int32_t np, int32_t nt, bool preempt)
{
	if (pp < 0 || pt < 0 || np < 0 || nt < 0 || v->err)
		return;
	if (lpt_perf_grow(&v->l, &v->cap, v->n + 1, sizeof(*v->l))) {
		v->err = -LPT_PERF_E_NOMEM;
		return;
	}
	v->l[v->n++] = (struct lpt_perf_sw_line){ tsc, cpu, pp, pt, np, nt, preempt };
}

/* A SWITCH_CPU_WIDE out-record not yet matched by its in-record. */
static void out_line(struct sw_lines *v, const struct lpt_perf_switch *o)
{
	switch_line(v, o->tsc, o->cpu, o->pid, o->tid, o->other_pid, o->other_tid, o->preempt);
}

/* The pids the intel_pt event of a workload recording follows: those of
 * ITRACE_START (the event's first run in a task, kernel/events/core.c
 * perf_log_itrace_start()) and, with inherit, their children (FORK
 * records in time order). A set (*@tr); -LPT_PERF_E_NOMEM. */
static int traced_pids(const struct lpt_perf *p, struct lpt_perf_hash *tr)
{
	size_t nsw, nt, i;
	const struct lpt_perf_switch *s = lpt_perf_switches(p, &nsw);
	const struct lpt_perf_task *t = lpt_perf_tasks(p, &nt);

	for (i = 0; i < nsw; i++)
		if (s[i].itrace_start && s[i].pid > 0 &&
		    lpt_perf_hash_put(tr, (uint64_t)s[i].pid, 0) < 0)
			return -LPT_PERF_E_NOMEM;
	for (i = 0; i < nt && lpt_perf_info(p)->inherit; i++) {
		if (t[i].kind != LPT_PERF_FORK ||
		    lpt_perf_hash_get(tr, (uint64_t)(int64_t)t[i].ppid) == SIZE_MAX)
			continue;
		if (lpt_perf_hash_put(tr, (uint64_t)(int64_t)t[i].pid, 0) < 0)
			return -LPT_PERF_E_NOMEM;
	}
	return 0;
}

static bool is_traced(const struct lpt_perf_hash *tr, int32_t pid)
{
	return lpt_perf_hash_get(tr, (uint64_t)(int64_t)pid) != SIZE_MAX;
}

/*
 * A workload's recording (lpt_perf_info() per_task): its intel_pt event
 * runs only while a task it follows is on the CPU (perf's per-task events
 * are scheduled with their task), so the time of any other task holds no
 * trace. Such a task is dropped from the switches: "X -> other" then
 * "other -> X" on a CPU is nothing (X's trace only paused: without this,
 * every piece of X ends at a switch, perf writes an AUX record at each
 * sched-out, and the piece is ambiguous), "X -> other" then "other -> Y"
 * becomes "X -> Y" at the time of the second, and the first traced task
 * of a CPU comes from the idle task (0/0). Each CPU's lines stay a chain:
 * a line's prev is the previous line's next. @ncpu: the CPUs' array size.
 */
static void keep_traced(const struct lpt_perf *p, struct sw_lines *v, size_t ncpu)
{
	struct lpt_perf_hash tr = { 0 };
	struct lpt_perf_sw_line *cur;
	size_t i, out = 0;

	if (traced_pids(p, &tr)) {
		lpt_perf_hash_free(&tr);
		v->err = -LPT_PERF_E_NOMEM;
		return;
	}
	cur = calloc(ncpu ? ncpu : 1, sizeof(*cur));	/* each CPU's traced task */
	if (!cur) {
		lpt_perf_hash_free(&tr);
		v->err = -LPT_PERF_E_NOMEM;
		return;
	}
	for (i = 0; i < v->n; i++) {
		struct lpt_perf_sw_line l = v->l[i], *c = &cur[l.cpu];

		if (!is_traced(&tr, l.np) || (l.np == c->np && l.nt == c->nt))
			continue;	/* untraced, or the same task back */
		l.pp = c->np;
		l.pt = c->nt;
		l.preempt = false;
		*c = l;
		v->l[out++] = l;
	}
	v->n = out;
	free(cur);
	lpt_perf_hash_free(&tr);
}

/*
 * The switches (ptcap-format.rst): perf writes each CPU-wide switch twice,
 * an out-record on the CPU (the sample's task leaves, next_prev is the
 * next) and an in-record (the sample's task enters, next_prev was the
 * previous; kernel/events/core.c perf_event_switch_output). One line per
 * switch: the in-record, or an out-record no in-record follows on its CPU.
 * SWITCH records (not CPU-wide, a traced task only) give "0/0 -> task" and
 * "task -> 0/0": the other side is not traced. Each CPU's ITRACE_START is
 * the thread running from then on. A workload's recording keeps the
 * switches between the tasks it traces only (keep_traced()). The per-CPU
 * arrays have lpt_perf_ncpus() entries (the reader refuses larger CPUs).
 */
static int build_switches(struct lpt_perf_model *mo)
{
	size_t n, i, ncpu = lpt_perf_ncpus(mo->p);
	const struct lpt_perf_switch *s = lpt_perf_switches(mo->p, &n);
	const struct lpt_perf_switch **pend;
	struct sw_lines v = { 0 };

	pend = calloc(ncpu ? ncpu : 1, sizeof(*pend));
	if (!pend)
		return -LPT_PERF_E_NOMEM;
	for (i = 0; i < n; i++) {
		const struct lpt_perf_switch *w = &s[i], **o;

		if (w->cpu < 0 || (size_t)w->cpu >= ncpu || !w->time)
			continue;
		o = &pend[w->cpu];
		if (w->itrace_start) {
			switch_line(&v, w->tsc, w->cpu, 0, 0, w->pid, w->tid, false);
		} else if (!w->cpu_wide) {
			if (w->out)
				switch_line(&v, w->tsc, w->cpu, w->pid, w->tid, 0, 0, w->preempt);
			else
				switch_line(&v, w->tsc, w->cpu, 0, 0, w->pid, w->tid, false);
		} else if (w->out) {
			if (*o)
				out_line(&v, *o);
			*o = w;
		} else {
			bool pair = *o && (*o)->other_tid == w->tid && (*o)->tid == w->other_tid;

			if (*o && !pair)
				out_line(&v, *o);
			switch_line(&v, w->tsc, w->cpu, w->other_pid, w->other_tid, w->pid,
				    w->tid, pair && (*o)->preempt);
			*o = NULL;
		}
	}
	for (i = 0; i < ncpu; i++)
		if (pend[i])
			out_line(&v, pend[i]);
	free(pend);
	if (!v.err && lpt_perf_info(mo->p)->per_task)
		keep_traced(mo->p, &v, ncpu);
	if (v.err) {
		free(v.l);
		return v.err;
	}
	mo->sw = v.l;
	mo->nsw = v.n;
	return 0;
}

static int cmp_user(const void *a, const void *b, void *arg)
{
	const struct lpt_perf_map *m = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int32_t px = m[x].pid, py = m[y].pid;

	if (px != py)
		return px < py ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The maps of each pid, and the kernel's, each in file order: what the
 * generations join (no scan of every map per generation). */
static int index_maps(struct lpt_perf_model *mo, const struct lpt_perf_map *m, size_t nm)
{
	size_t i;

	mo->user = malloc((nm ? nm : 1) * sizeof(*mo->user));
	mo->kern = malloc((nm ? nm : 1) * sizeof(*mo->kern));
	if (!mo->user || !mo->kern)
		return -LPT_PERF_E_NOMEM;
	for (i = 0; i < nm; i++) {
		if (is_kernel(&m[i]))
			mo->kern[mo->nkern++] = i;
		else
			mo->user[mo->nuser++] = i;
	}
	if (mo->nuser)
		qsort_r(mo->user, mo->nuser, sizeof(*mo->user), cmp_user, (void *)m);
	for (i = 0; i < mo->nuser; i++)
		if (lpt_perf_hash_put(&mo->first, (uint64_t)(int64_t)m[mo->user[i]].pid, i) < 0)
			return -LPT_PERF_E_NOMEM;
	return 0;
}

/* The positions in mo->user of @pid's maps: [*@lo, *@hi). */
static void user_range(const struct lpt_perf_model *mo, const struct lpt_perf_map *m,
		       int32_t pid, size_t *lo, size_t *hi)
{
	size_t i = pid > 0 ? lpt_perf_hash_get(&mo->first, (uint64_t)(int64_t)pid) : SIZE_MAX;

	*lo = *hi = 0;
	if (i == SIZE_MAX)
		return;
	*lo = i;
	for (*hi = i; *hi < mo->nuser && m[mo->user[*hi]].pid == pid; (*hi)++)
		;
}

void lpt_perf_model_gen(struct lpt_perf_model *mo, size_t gi,
			void (*fn)(struct lpt_perf_model *mo, size_t j, void *arg), void *arg)
{
	const struct lpt_perf_gen *g = &mo->g[gi];
	size_t nm, a, ae, b, be, k = 0;
	const struct lpt_perf_map *m = lpt_perf_maps(mo->p, &nm);

	user_range(mo, m, g->pid, &a, &ae);
	if (g->ppid > 0)
		user_range(mo, m, g->ppid, &b, &be);
	else
		b = be = 0;
	for (;;) {
		size_t ja = a < ae ? mo->user[a] : SIZE_MAX;
		size_t jb = b < be ? mo->user[b] : SIZE_MAX;
		size_t jk = k < mo->nkern ? mo->kern[k] : SIZE_MAX;
		size_t j = ja < jb ? (ja < jk ? ja : jk) : (jb < jk ? jb : jk);

		if (j == SIZE_MAX)
			break;
		if (j == jk) {
			k++;
			fn(mo, j, arg);
		} else if (j == ja) {
			a++;
			if (m[j].time < g->to && (m[j].time >= g->from || !g->from))
				fn(mo, j, arg);
		} else {
			b++;
			if (m[j].time <= g->fork_time)
				fn(mo, j, arg);
		}
	}
}

void lpt_perf_model_gen_tsc(const struct lpt_perf_model *mo, size_t gi, uint64_t *first,
			    uint64_t *last)
{
	const struct lpt_perf_gen *g = &mo->g[gi];
	const struct lpt_perf_info *in = lpt_perf_info(mo->p);

	*first = lpt_perf_ns_to_tsc(mo->p, g->from ? g->from : in->first_time);
	*last = lpt_perf_ns_to_tsc(mo->p, g->to == UINT64_MAX ? in->last_time : g->to - 1);
}

/* The processes: every pid with user maps or a switch, generation 0 from
 * time 0; a forked process inherits its parent's maps; a new generation
 * at each exec (COMM with COMM_EXEC). */
static int build_gens(struct lpt_perf_model *mo)
{
	size_t nt, nm, ns, i, k, ng = 0, capg = 0;
	const struct lpt_perf_task *t = lpt_perf_tasks(mo->p, &nt);
	const struct lpt_perf_map *m = lpt_perf_maps(mo->p, &nm);
	const struct lpt_perf_switch *s = lpt_perf_switches(mo->p, &ns);
	struct lpt_perf_hash gen0 = { 0 };	/* pid -> its generation 0 */
	struct lpt_perf_gen *g = NULL;
	int err;

	err = index_maps(mo, m, nm);
	for (i = 0; !err && i < nm + ns; i++) {
		int32_t pid = i < nm ? (is_kernel(&m[i]) ? -1 : m[i].pid) : s[i - nm].pid;
		int r;

		if (pid <= 0)
			continue;
		r = lpt_perf_hash_put(&gen0, (uint64_t)(int64_t)pid, ng);
		if (r > 0)
			continue;
		if (r < 0 || lpt_perf_grow(&g, &capg, ng + 1, sizeof(*g))) {
			err = -LPT_PERF_E_NOMEM;
			break;
		}
		memset(&g[ng], 0, sizeof(g[ng]));
		g[ng].pid = pid;
		g[ng].to = UINT64_MAX;
		g[ng].ppid = -1;
		g[ng].last = ng;
		ng++;
	}
	/* A new process (FORK with pid != ppid) starts with its parent's
	 * maps (machine.c machine__process_fork_event: thread__fork). */
	for (i = 0; !err && i < nt; i++) {
		if (t[i].kind != LPT_PERF_FORK || t[i].pid == t[i].ppid)
			continue;
		k = lpt_perf_hash_get(&gen0, (uint64_t)(int64_t)t[i].pid);
		if (k != SIZE_MAX && g[k].ppid < 0) {
			g[k].ppid = t[i].ppid;
			g[k].fork_time = t[i].time;
		}
	}
	for (i = 0; !err && i < nt; i++) {
		size_t first, last;

		if (t[i].kind != LPT_PERF_COMM || t[i].pid <= 0 || t[i].pid != t[i].tid)
			continue;
		first = lpt_perf_hash_get(&gen0, (uint64_t)(int64_t)t[i].pid);
		if (first == SIZE_MAX)
			continue;
		last = g[first].last;
		if (t[i].exec && t[i].time > g[last].from) {
			if (lpt_perf_grow(&g, &capg, ng + 1, sizeof(*g))) {
				err = -LPT_PERF_E_NOMEM;
				break;
			}
			g[last].to = t[i].time;
			g[ng] = g[last];
			g[ng].from = t[i].time;
			g[ng].to = UINT64_MAX;
			g[ng].ppid = -1;
			g[ng].gen = g[last].gen + 1;
			last = g[first].last = ng++;
		}
		snprintf(g[last].comm, sizeof(g[last].comm), "%s", t[i].comm);
	}
	lpt_perf_hash_free(&gen0);
	mo->g = g;
	mo->ng = ng;
	return err;
}

/* Per-thread traces of threads of more than one process. */
static bool several_processes(const struct lpt_perf *p)
{
	int32_t pid = 0;
	size_t i;

	for (i = 0; i < lpt_perf_ntraces(p); i++) {
		const struct lpt_perf_trace *t = lpt_perf_trace(p, i);

		if (t->per_cpu || t->pid <= 0)
			continue;
		if (pid && t->pid != pid)
			return true;
		pid = t->pid;
	}
	return false;
}

int lpt_perf_model_init(struct lpt_perf_model *mo, const struct lpt_perf *p,
			const struct lpt_perf_code_opts *o, FILE *warn, const char *prog)
{
	const struct lpt_perf_info *in = lpt_perf_info(p);
	size_t nm, ns;
	int err;

	memset(mo, 0, sizeof(*mo));
	mo->p = p;
	mo->o = *o;
	mo->warn = warn;
	mo->prog = prog ? prog : "libpt";
	/* The maps name files as found: absolute, so that they mean the
	 * same from any directory (a ptcap directory's relative paths are
	 * relative to it). */
	if (o->symfs && o->symfs[0] != '/') {
		mo->abs_symfs = realpath(o->symfs, NULL);
		if (mo->abs_symfs)
			mo->o.symfs = mo->abs_symfs;
	}
	if (o->vmlinux && o->vmlinux[0] != '/') {
		mo->abs_vmlinux = realpath(o->vmlinux, NULL);
		if (mo->abs_vmlinux)
			mo->o.vmlinux = mo->abs_vmlinux;
	}
	(void)lpt_perf_maps(p, &nm);
	mo->lines = calloc(nm ? nm : 1, sizeof(*mo->lines));
	if (!mo->lines)
		return -LPT_PERF_E_NOMEM;
	if (in->filter[0] && (err = addr_filters(mo, in->filter)))
		return err;
	/* Per CPU with switches, or per thread with threads of more than one
	 * process (pt2perf's split of a ptcap -a capture): decoded per
	 * process (ptflow "System-wide captures"); else one address space. */
	(void)lpt_perf_switches(p, &ns);
	mo->sys = in->per_cpu ? ns > 0 : several_processes(p);
	if (!mo->sys)
		return 0;
	err = build_switches(mo);
	return err ? err : build_gens(mo);
}

void lpt_perf_model_free(struct lpt_perf_model *mo)
{
	size_t nm, i, k;

	if (mo->lines) {
		(void)lpt_perf_maps(mo->p, &nm);
		for (i = 0; i < nm; i++) {
			for (k = 0; k < mo->lines[i].n; k++)
				free(mo->lines[i].m[k].path);
			free(mo->lines[i].m);
		}
	}
	free(mo->lines);
	free(mo->said);
	for (i = 0; i < mo->nids; i++)
		free(mo->ids[i].file);
	free(mo->ids);
	lpt_perf_hash_free(&mo->id_of);
	free(mo->sw);
	free(mo->g);
	free(mo->user);
	free(mo->kern);
	lpt_perf_hash_free(&mo->first);
	free(mo->abs_symfs);
	free(mo->abs_vmlinux);
	memset(mo, 0, sizeof(*mo));
}
