// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data's capture model written as a ptcap directory
 * (include/lwpt/perf_data.h lpt_perf_write_ptcap(); the directory format is
 * Documentation/ptcap-format.rst, what comes from which perf record is
 * Documentation/perf-data.rst "As a ptcap directory"). Tools that read a
 * ptcap directory read a perf.data through it.
 */
#include <lwpt/perf_data.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lwpt/ptcap_dir.h>

#include "libpt/perf_internal.h"

struct wctx {
	const struct lpt_perf *p;
	const struct lpt_perf_code_opts *o;
	FILE *warn;
	const char *prog;
	const char **said;	/* paths already named as missing */
	size_t nsaid, cap_said;
	size_t modules;		/* kernel modules without code */
	const char *first_module;
};

static FILE *create(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return fd < 0 ? NULL : fdopen(fd, "w");
}

static int close_file(FILE *f)
{
	int bad = ferror(f);

	if (fclose(f) || bad)
		return -LPT_PERF_E_IO;
	return 0;
}

/*
 * A string of the perf.data (a filter, a comm) into a line of a ptcap
 * file: control characters and the backslash as \xHH (ptcap-format.rst
 * "Strings"), so that no string adds or cuts a line.
 */
static void put_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f || ch == '\\')
			fprintf(f, "\\x%02x", ch);
		else
			fputc(ch, f);
	}
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* Name a file whose code is missing once. */
/* @n bytes of @id as hex into @out; "none" for none. */
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
 * "build-id X recorded, FILE has Y" for mapping @m when the file found
 * for it has another build-id than the perf.data recorded: with @force,
 * the file used (--force); else the one --force would use. Empty when
 * there is none.
 */
static void ids_said(const struct wctx *c, const struct lpt_perf_map *m, const char *used,
		     char *out, size_t size)
{
	struct lpt_perf_code_opts o = *c->o;
	char file[4096], want[41], have[41];
	uint8_t id[20];
	int n;

	out[0] = '\0';
	o.any_build_id = true;
	if (!m->build_id_size)
		return;
	if (used)
		snprintf(file, sizeof(file), "%s", used);
	else if (lpt_perf_find_code(c->p, m, &o, file, sizeof(file)))
		return;
	n = lpt_perf_elf_build_id(file, id);
	if (n <= 0 || (n == m->build_id_size && !memcmp(id, m->build_id, (size_t)n)))
		return;
	id_hex(want, m->build_id, m->build_id_size);
	id_hex(have, id, n);
	snprintf(out, size, "build-id %s recorded in the perf.data, %s has %s", want, file,
		 have);
}

static void say_missing(struct wctx *c, const struct lpt_perf_map *m, int why)
{
	size_t i;
	char ids[4096 + 160];

	for (i = 0; i < c->nsaid; i++)
		if (!strcmp(c->said[i], m->path))
			return;
	if (!lpt_perf_grow(&c->said, &c->cap_said, c->nsaid + 1, sizeof(*c->said)))
		c->said[c->nsaid++] = m->path;
	if ((m->kernel || m->pid == -1) && strncmp(m->path, "[kernel.kallsyms]", 17)) {
		/* Kernel modules: one line for all (below). */
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

/* The kernel's code from an ELF (kcore or vmlinux): one line per part of
 * a PT_LOAD segment inside the mapping. A vmlinux runs relocated (KASLR):
 * its first executable segment is placed at the mapping's start (the
 * [kernel.kallsyms]_text record's address, machine.c
 * machine__set_kernel_mmap), kcore holds run-time addresses. */
static void kernel_lines(FILE *f, const char *file, const struct lpt_perf_map *m,
			 bool relocate)
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
		if (s < e)
			fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", s, e,
				ph.p_offset + (s - vs), file);
	}
	elf_end(elf);
	close(fd);
}

/* One maps line (or several for the kernel) for @m, when its code is
 * found; else @m is named once as unavailable. */
static void map_line(struct wctx *c, FILE *f, const struct lpt_perf_map *m)
{
	char file[4096];
	int r;

	if (c->o->no_code || !m->exec || !m->size || !m->path[0])
		return;
	if (!strcmp(m->path, "//anon") || !strncmp(m->path, "[vdso", 5) ||
	    !strcmp(m->path, "[vsyscall]"))
		return;
	r = lpt_perf_find_code(c->p, m, c->o, file, sizeof(file));
	if (!r && has_control(file))
		r = -LPT_PERF_E_NO_CODE;	/* a maps line holds no newline */
	if (r) {
		say_missing(c, m, r);
		return;
	}
	if (c->o->any_build_id && c->warn) {
		/* --force took a file of another build-id: said once */
		char ids[4096 + 160];
		bool said = false;

		for (size_t i = 0; i < c->nsaid && !said; i++)
			said = !strcmp(c->said[i], m->path);
		ids_said(c, m, file, ids, sizeof(ids));
		if (ids[0] && !said) {
			if (!lpt_perf_grow(&c->said, &c->cap_said, c->nsaid + 1,
					   sizeof(*c->said)))
				c->said[c->nsaid++] = m->path;
			fprintf(c->warn, "%s: warning: %s: %s: used anyway (--force)\n", c->prog,
				m->path, ids);
		}
	}
	if (m->path[0] == '[' || (m->kernel && c->o->kcore)) {
		kernel_lines(f, file, m, !c->o->kcore);
		return;
	}
	/* A kernel module's raw file: perf reads it at ip - start, its
	 * pgoff ignored (lpt_perf_find_code()). */
	fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", m->start,
		m->start + m->size, m->kernel ? 0 : m->pgoff, file);
}

static bool is_kernel(const struct lpt_perf_map *m)
{
	return m->kernel || m->pid == -1;
}

/* maps: per thread, every mapping; per CPU, the kernel's (the processes'
 * own go to maps.<pid>.<gen>). */
static int write_maps(struct wctx *c, const char *dir, bool kernel_only)
{
	size_t n, i;
	const struct lpt_perf_map *m = lpt_perf_maps(c->p, &n);
	FILE *f = create(dir, PTCAP_MAPS_FILE);

	if (!f)
		return -LPT_PERF_E_IO;
	fprintf(f, "%s %d\n# from perf.data MMAP/MMAP2 records\n", PTCAP_MAPS_MAGIC,
		PTCAP_FORMAT_VERSION);
	for (i = 0; i < n; i++)
		if (!kernel_only || is_kernel(&m[i]))
			map_line(c, f, &m[i]);
	return close_file(f);
}

/*
 * The range a filter on file offsets [@off, @off + @size) of @path had in
 * the traced process: its part in the first mapping of @path, by address,
 * that holds any of it (kernel/events/core.c perf_addr_filter_apply() and
 * perf_addr_filter_vma_adjust()). Returns false when no mapping holds it.
 */
static bool file_filter_range(const struct wctx *c, const char *path,
			      uint64_t off, uint64_t size, uint64_t *a,
			      uint64_t *b)
{
	const struct lpt_perf_map *m, *best = NULL;
	size_t n, i;

	m = lpt_perf_maps(c->p, &n);
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
 * "addr<n> filter|stop <a>-<b>" lines (ptcap-format.rst) for the event's
 * address filters (@s: perf's string, "filter|start|stop START[/SIZE]
 * [@FILE]" separated by spaces, commas or newlines, kernel/events/core.c
 * perf_event_parse_addr_filter()), as Intel PT programmed them
 * (arch/x86/events/intel/pt.c pt_event_addr_filters_sync(): ADDRn_A/B
 * inclusive, "stop" as TraceStop; "start" is not Intel PT's). At most
 * PTCAP_ADDR_RANGES; a filter on a file no mapping holds is left out.
 */
static void write_addr_filters(const struct wctx *c, FILE *f, const char *s)
{
	char *copy = strdup(s), *save = NULL, *tok, *spec;
	unsigned int n = 0;

	if (!copy)
		return;
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
			if (!file_filter_range(c, end + 1, start, size, &a, &b))
				continue;
		} else if (start + size - 1 < start) {
			continue;
		} else {
			a = start;
			b = start + size - 1;
		}
		fprintf(f, "addr%u %s 0x%" PRIx64 "-0x%" PRIx64 "\n", n++,
			stop ? "stop" : "filter", a, b);
	}
	free(copy);
}

static int write_config(struct wctx *c, const char *dir)
{
	const struct ptcap_config *cfg = lpt_perf_config(c->p);
	const struct lpt_perf_info *in = lpt_perf_info(c->p);
	FILE *f = create(dir, PTCAP_CONFIG_FILE);
	size_t i, g;

	if (!f)
		return -LPT_PERF_E_IO;
	fprintf(f, "%s %d\n# from a perf.data (libpt lpt_perf_write_ptcap)\n",
		PTCAP_CONFIG_MAGIC, PTCAP_FORMAT_VERSION);
	fprintf(f, "mode %s\n", in->per_cpu ? "per-cpu" : "per-thread");
	if (cfg->has & PTCAP_HAS_CPU)
		fprintf(f, "cpu %u/%u/%u\n", cfg->cpu_family, cfg->cpu_model, cfg->cpu_stepping);
	if (cfg->has & PTCAP_HAS_MTC_FREQ)
		fprintf(f, "mtc-freq %u\n", cfg->mtc_freq);
	if (cfg->has & PTCAP_HAS_NOM_FREQ)
		fprintf(f, "nom-freq %u\n", cfg->nom_freq);
	if (cfg->has & PTCAP_HAS_CPUID_15_EAX)
		fprintf(f, "cpuid-0x15.eax %u\n", cfg->cpuid_15_eax);
	if (cfg->has & PTCAP_HAS_CPUID_15_EBX)
		fprintf(f, "cpuid-0x15.ebx %u\n", cfg->cpuid_15_ebx);
	if (cfg->has & PTCAP_HAS_TSC_FREQ)
		fprintf(f, "tsc-freq %" PRIu64 "\n", cfg->tsc_freq_hz);
	fprintf(f, "rtit-ctl 0x%" PRIx64 "\n", in->pt_config);
	if (in->filter[0]) {
		fputs("perf-filter ", f);
		put_text(f, in->filter);
		fputc('\n', f);
		write_addr_filters(c, f, in->filter);
	}
	for (i = 0; i < lpt_perf_ntraces(c->p); i++) {
		const struct lpt_perf_trace *t = lpt_perf_trace(c->p, i);

		if (!t->per_cpu)
			fprintf(f, "thread.%s tid=%d pid=%d buffer=%u\n", t->name, t->tid,
				t->pid, t->idx);
		if (t->ngaps) {
			fprintf(f, "gaps.%s", t->name);
			for (g = 0; g < t->ngaps; g++)
				fprintf(f, " %" PRIu64, t->gaps[g]);
			fputc('\n', f);
		}
		if (t->truncated || t->partial)
			fprintf(f, "outcome.%s lost lost=%" PRIu64 "\n", t->name,
				t->truncated + t->partial);
	}
	/* losses: ptcap's count of the whole capture; here AUX records that
	 * lost data, AUXTRACE_ERROR records and lost sideband records */
	{
		uint64_t losses = in->aux_errors + in->lost;

		for (i = 0; i < lpt_perf_ntraces(c->p); i++)
			losses += lpt_perf_trace(c->p, i)->truncated +
				  lpt_perf_trace(c->p, i)->partial;
		fprintf(f, "losses %" PRIu64 "\n", losses);
	}
	return close_file(f);
}

/* The trace files, streamed from the mapping 1 MiB at a time. */
static int write_traces(struct wctx *c, const char *dir)
{
	static const size_t chunk = 1u << 20;
	uint8_t *buf = malloc(chunk);
	size_t i;
	int err = 0;

	if (!buf)
		return -LPT_PERF_E_NOMEM;
	for (i = 0; !err && i < lpt_perf_ntraces(c->p); i++) {
		const struct lpt_perf_trace *t = lpt_perf_trace(c->p, i);
		FILE *f = create(dir, t->name);
		uint64_t off = 0;

		if (!f) {
			err = -LPT_PERF_E_IO;
			break;
		}
		while (off < t->size) {
			int64_t n = lpt_perf_trace_read(c->p, i, off, buf, chunk);

			if (n <= 0 || fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
				err = -LPT_PERF_E_IO;
				break;
			}
			off += (uint64_t)n;
		}
		if (close_file(f) && !err)
			err = -LPT_PERF_E_IO;
	}
	free(buf);
	return err;
}

/* One switch: on @cpu at @tsc, prev stopped and next ran. */
struct sw_line {
	uint64_t tsc;
	int32_t cpu, pp, pt, np, nt;
	bool preempt;
};

struct sw_lines {
	struct sw_line *l;
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
	v->l[v->n++] = (struct sw_line){ tsc, cpu, pp, pt, np, nt, preempt };
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
 * a line's prev is the previous line's next.
 */
static void keep_traced(const struct lpt_perf *p, struct sw_lines *v)
{
	struct lpt_perf_hash tr = { 0 };
	size_t i, out = 0, ncpu = 0;
	struct sw_line *cur;

	if (traced_pids(p, &tr)) {
		lpt_perf_hash_free(&tr);
		v->err = -LPT_PERF_E_NOMEM;
		return;
	}
	for (i = 0; i < v->n; i++)
		if ((size_t)v->l[i].cpu >= ncpu)
			ncpu = (size_t)v->l[i].cpu + 1;
	cur = calloc(ncpu ? ncpu : 1, sizeof(*cur));	/* each CPU's traced task */
	if (!cur) {
		lpt_perf_hash_free(&tr);
		v->err = -LPT_PERF_E_NOMEM;
		return;
	}
	for (i = 0; i < v->n; i++) {
		struct sw_line l = v->l[i], *c = &cur[l.cpu];

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
 * switches (ptcap-format.rst): perf writes each CPU-wide switch twice, an
 * out-record on the CPU (the sample's task leaves, next_prev is the next)
 * and an in-record (the sample's task enters, next_prev was the previous;
 * kernel/events/core.c perf_event_switch_output). One line per switch:
 * the in-record, or an out-record no in-record follows on its CPU.
 * SWITCH records (not CPU-wide, a traced task only) give "0/0 -> task" and
 * "task -> 0/0": the other side is not traced. Each CPU's ITRACE_START is
 * the thread running from then on. A workload's recording keeps the
 * switches between the tasks it traces only (keep_traced()).
 */
static int write_switches(struct wctx *c, const char *dir)
{
	size_t n, i, ncpu = 0;
	const struct lpt_perf_switch *s = lpt_perf_switches(c->p, &n);
	const struct lpt_perf_switch **pend;
	struct sw_lines v = { 0 };
	FILE *f;

	for (i = 0; i < n; i++)
		if (s[i].cpu >= 0 && (size_t)s[i].cpu >= ncpu)
			ncpu = (size_t)s[i].cpu + 1;
	pend = calloc(ncpu ? ncpu : 1, sizeof(*pend));
	if (!pend)
		return -LPT_PERF_E_NOMEM;
	for (i = 0; i < n; i++) {
		const struct lpt_perf_switch *w = &s[i], **o;

		if (w->cpu < 0 || !w->time)
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
	if (!v.err && lpt_perf_info(c->p)->per_task)
		keep_traced(c->p, &v);
	if (v.err) {
		free(v.l);
		return v.err;
	}
	f = create(dir, PTCAP_SWITCHES_FILE);
	if (!f) {
		free(v.l);
		return -LPT_PERF_E_IO;
	}
	fprintf(f, "%s %d\n# tsc cpu prev-pid/tid next-pid/tid [flags], from perf.data "
		"SWITCH, SWITCH_CPU_WIDE and ITRACE_START records%s\n", PTCAP_SWITCHES_MAGIC,
		PTCAP_FORMAT_VERSION, lpt_perf_info(c->p)->per_task ?
		"; a workload's recording: the switches between its traced tasks" : "");
	for (i = 0; i < v.n; i++) {
		const struct sw_line *l = &v.l[i];

		fprintf(f, "%" PRIu64 " %d %d/%d %d/%d%s%s%s\n", l->tsc, l->cpu, l->pp, l->pt,
			l->np, l->nt, l->pp == 0 ? " prev-idle" : "",
			l->np == 0 ? " next-idle" : "", l->preempt ? " preempt" : "");
	}
	free(v.l);
	return close_file(f);
}

/* A process's exec generations: COMM records with COMM_EXEC start one. */
struct gen {
	int32_t pid;
	uint64_t from, to;	/* perf time: [from, to) */
	int32_t ppid;		/* generation 0 of a forked process: its
				 * parent, whose maps it inherits; else -1 */
	uint64_t fork_time;
	size_t gen;		/* its number */
	size_t last;		/* generation 0: the pid's last generation */
	char comm[16];
};

/* The maps of each pid, and the kernel's, each in file order: what
 * write_processes() joins with the generations (no scan of every map per
 * generation). */
struct map_index {
	size_t *user;			/* user maps, by pid then file order */
	size_t nuser;
	size_t *kern;			/* kernel maps, file order */
	size_t nkern;
	struct lpt_perf_hash first;	/* pid -> its first position in user */
};

static const struct lpt_perf_map *sort_maps;

static int cmp_user(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int32_t px = sort_maps[x].pid, py = sort_maps[y].pid;

	if (px != py)
		return px < py ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int index_maps(const struct lpt_perf_map *m, size_t nm, struct map_index *ix)
{
	size_t i;

	memset(ix, 0, sizeof(*ix));
	ix->user = malloc((nm ? nm : 1) * sizeof(*ix->user));
	ix->kern = malloc((nm ? nm : 1) * sizeof(*ix->kern));
	if (!ix->user || !ix->kern)
		return -LPT_PERF_E_NOMEM;
	for (i = 0; i < nm; i++) {
		if (is_kernel(&m[i]))
			ix->kern[ix->nkern++] = i;
		else
			ix->user[ix->nuser++] = i;
	}
	sort_maps = m;
	if (ix->nuser)
		qsort(ix->user, ix->nuser, sizeof(*ix->user), cmp_user);
	for (i = 0; i < ix->nuser; i++)
		if (lpt_perf_hash_put(&ix->first, (uint64_t)(int64_t)m[ix->user[i]].pid, i) < 0)
			return -LPT_PERF_E_NOMEM;
	return 0;
}

static void map_index_free(struct map_index *ix)
{
	free(ix->user);
	free(ix->kern);
	lpt_perf_hash_free(&ix->first);
}

/* The positions in ix->user of @pid's maps: [*@lo, *@hi). */
static void user_range(const struct map_index *ix, const struct lpt_perf_map *m,
		       int32_t pid, size_t *lo, size_t *hi)
{
	size_t i = pid > 0 ? lpt_perf_hash_get(&ix->first, (uint64_t)(int64_t)pid) : SIZE_MAX;

	*lo = *hi = 0;
	if (i == SIZE_MAX)
		return;
	*lo = i;
	for (*hi = i; *hi < ix->nuser && m[ix->user[*hi]].pid == pid; (*hi)++)
		;
}

/* maps.<pid>.<gen>: the kernel's maps, the generation's own, a forked
 * process's parent's before the fork; in file order (three sorted lists
 * merged). */
static void gen_maps(struct wctx *c, FILE *mf, const struct lpt_perf_map *m,
		     const struct map_index *ix, const struct gen *g)
{
	size_t a, ae, b, be, k = 0;

	user_range(ix, m, g->pid, &a, &ae);
	if (g->ppid > 0)
		user_range(ix, m, g->ppid, &b, &be);
	else
		b = be = 0;
	for (;;) {
		size_t ja = a < ae ? ix->user[a] : SIZE_MAX;
		size_t jb = b < be ? ix->user[b] : SIZE_MAX;
		size_t jk = k < ix->nkern ? ix->kern[k] : SIZE_MAX;
		size_t j = ja < jb ? (ja < jk ? ja : jk) : (jb < jk ? jb : jk);

		if (j == SIZE_MAX)
			break;
		if (j == jk) {
			k++;
			map_line(c, mf, &m[j]);
		} else if (j == ja) {
			a++;
			if (m[j].time < g->to && (m[j].time >= g->from || !g->from))
				map_line(c, mf, &m[j]);
		} else {
			b++;
			if (m[j].time <= g->fork_time)
				map_line(c, mf, &m[j]);
		}
	}
}

static int write_processes(struct wctx *c, const char *dir)
{
	size_t nt, nm, ns, i, k, ng = 0, capg = 0;
	const struct lpt_perf_task *t = lpt_perf_tasks(c->p, &nt);
	const struct lpt_perf_map *m = lpt_perf_maps(c->p, &nm);
	const struct lpt_perf_switch *s = lpt_perf_switches(c->p, &ns);
	struct lpt_perf_hash gen0 = { 0 };	/* pid -> its generation 0 */
	struct map_index ix;
	struct gen *g = NULL;
	FILE *f = NULL;
	int err = 0;

	err = index_maps(m, nm, &ix);
	/* Every pid with user maps or a switch, generation 0 from time 0. */
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
	/* Comms, and a new generation at each exec. */
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
	if (!err) {
		f = create(dir, PTCAP_PROCESSES_FILE);
		if (!f)
			err = -LPT_PERF_E_IO;
	}
	if (f)
		fprintf(f, "%s %d\n# pid gen first-tsc last-tsc entry maps comm\n",
			PTCAP_PROCESSES_MAGIC, PTCAP_FORMAT_VERSION);
	for (i = 0; !err && i < ng; i++) {
		char name[64];
		FILE *mf;

		snprintf(name, sizeof(name), "maps.%d.%zu", g[i].pid, g[i].gen);
		mf = create(dir, name);
		if (!mf) {
			err = -LPT_PERF_E_IO;
			break;
		}
		fprintf(mf, "%s %d\n", PTCAP_MAPS_MAGIC, PTCAP_FORMAT_VERSION);
		gen_maps(c, mf, m, &ix, &g[i]);
		if (close_file(mf))
			err = -LPT_PERF_E_IO;
		fprintf(f, "%d %zu %" PRIu64 " %" PRIu64 " 0x0 %s ", g[i].pid, g[i].gen,
			lpt_perf_ns_to_tsc(c->p, g[i].from ? g[i].from :
					   lpt_perf_info(c->p)->first_time),
			lpt_perf_ns_to_tsc(c->p, g[i].to == UINT64_MAX ?
					   lpt_perf_info(c->p)->last_time : g[i].to - 1),
			name);
		put_text(f, g[i].comm);
		fputc('\n', f);
	}
	free(g);
	map_index_free(&ix);
	lpt_perf_hash_free(&gen0);
	if (f && close_file(f) && !err)
		err = -LPT_PERF_E_IO;
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

int lpt_perf_write_ptcap(const struct lpt_perf *p, const char *dir,
			 const struct lpt_perf_code_opts *o, FILE *warn, const char *prog)
{
	struct wctx c = { .p = p, .o = o, .warn = warn, .prog = prog ? prog : "libpt" };
	const struct lpt_perf_info *in;
	size_t ns;
	bool sys;
	int err;

	if (!p || !dir || !o)
		return -LPT_PERF_E_INVAL;
	in = lpt_perf_info(p);
	/* Per CPU with switches, or per thread with threads of more than one
	 * process (pt2perf's split of a ptcap -a capture): decoded per
	 * process (ptflow "System-wide captures"); else one address space. */
	(void)lpt_perf_switches(p, &ns);
	sys = in->per_cpu ? ns > 0 : several_processes(p);
	err = write_config(&c, dir);
	if (!err)
		err = write_maps(&c, dir, sys);
	if (!err && sys)
		err = write_switches(&c, dir);
	if (!err && sys)
		err = write_processes(&c, dir);
	if (!err)
		err = write_traces(&c, dir);
	if (c.modules && c.warn)
		fprintf(c.warn, "%s: %zu kernel modules (%s%s): code unavailable (record "
			"with perf record --kcore)\n", c.prog, c.modules, c.first_module,
			c.modules > 1 ? ", ..." : "");
	free(c.said);
	return err;
}

/*
 * Nothing left behind (issue 36 item 5): while a temporary directory
 * exists, SIGINT, SIGTERM, SIGHUP and SIGPIPE (those whose action is the
 * default, which ends the process) first remove it, with system calls
 * only (async-signal-safe: getdents64, unlinkat, rmdir), then end the
 * process by the same signal. One directory at a time: the last made.
 */
static const int cleanup_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
static char cleanup_dir[PATH_MAX];
static volatile sig_atomic_t cleanup_armed;
static struct sigaction cleanup_old[4];
static bool cleanup_set[4];

static void cleanup_dir_now(void)
{
	char buf[4096] __attribute__((aligned(8)));
	int fd = open(cleanup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool again = fd >= 0;

	while (again) {
		long n;

		again = false;
		(void)lseek(fd, 0, SEEK_SET);
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			long off = 0;

			while (off < n) {
				/* struct linux_dirent64: ino, off, reclen, type, name */
				unsigned short reclen;
				const char *name = buf + off + 19;

				memcpy(&reclen, buf + off + 16, sizeof(reclen));
				if (strcmp(name, ".") && strcmp(name, "..") &&
				    !unlinkat(fd, name, 0))
					again = true;
				off += reclen;
			}
		}
	}
	if (fd >= 0)
		close(fd);
	(void)rmdir(cleanup_dir);
}

static void cleanup_on_signal(int sig)
{
	if (cleanup_armed) {
		cleanup_armed = 0;
		cleanup_dir_now();
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void cleanup_arm(const char *dir)
{
	struct sigaction sa;
	size_t i;

	if (strlen(dir) >= sizeof(cleanup_dir))
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = cleanup_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 4; i++)
		sigaddset(&sa.sa_mask, cleanup_sigs[i]);
	cleanup_armed = 0;
	memcpy(cleanup_dir, dir, strlen(dir) + 1);
	for (i = 0; i < 4; i++) {
		struct sigaction cur;

		cleanup_set[i] = false;
		if (sigaction(cleanup_sigs[i], NULL, &cur) || cur.sa_handler != SIG_DFL ||
		    (cur.sa_flags & SA_SIGINFO))
			continue;	/* the program's own handling stays */
		if (!sigaction(cleanup_sigs[i], &sa, &cleanup_old[i]))
			cleanup_set[i] = true;
	}
	cleanup_armed = 1;
}

static void cleanup_disarm(const char *dir)
{
	size_t i;

	if (!cleanup_armed || strcmp(dir, cleanup_dir))
		return;
	cleanup_armed = 0;
	for (i = 0; i < 4; i++)
		if (cleanup_set[i])
			sigaction(cleanup_sigs[i], &cleanup_old[i], NULL);
}

void lpt_perf_ptcap_remove(char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d;

	if (!dir)
		return;
	cleanup_disarm(dir);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%.200s", dir, e->d_name);
		(void)unlink(path);
	}
	if (d)
		closedir(d);
	(void)rmdir(dir);
	free(dir);
}

struct progress {
	FILE *err;
	const char *prog;
	int last;
};

static void progress(void *arg, uint64_t done, uint64_t total)
{
	struct progress *pr = arg;
	int pct = total ? (int)(done * 100 / total) : -1;

	if (total < (64u << 20) && total)
		return;
	if (pct >= 0 && pct / 10 == pr->last / 10)
		return;
	pr->last = pct;
	if (pct >= 0)
		fprintf(pr->err, "%s: reading perf.data: %d%%\n", pr->prog, pct);
	else
		fprintf(pr->err, "%s: copying perf.data from the pipe: %" PRIu64 " MiB\n",
			pr->prog, done >> 20);
}

int lpt_perf_ptcap_temp(const char *path, const char *symfs, const char *vmlinux,
			unsigned int flags, uint64_t max_decompressed, FILE *err,
			const char *prog, char **dir)
{
	struct progress pr = { err, prog, -10 };
	struct lpt_perf_code_opts co;
	struct lpt_perf_opts po;
	const char *tmp = getenv("TMPDIR");
	char *abs_symfs, *abs_vmlinux;
	struct lpt_perf *p;
	char *d;
	int e;

	*dir = NULL;
	lpt_perf_opts_init(&po);
	po.progress = progress;
	po.progress_arg = &pr;
	po.max_decompressed = max_decompressed;
	e = lpt_perf_open(path, &po, &p);
	if (e) {
		fprintf(err, "%s: %s: %s: %s\n", prog, path, lpt_perf_strerror(e),
			lpt_perf_last_error());
		if (e == -LPT_PERF_E_NO_AUX)
			fprintf(err, "%s: record Intel PT with perf record -e intel_pt// "
				"(or capture with ptcap)\n", prog);
		return -1;
	}
	if (asprintf(&d, "%s/lwpt-perf-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		lpt_perf_close(p);
		fprintf(err, "%s: out of memory\n", prog);
		return -1;
	}
	if (!mkdtemp(d)) {
		fprintf(err, "%s: %s: cannot create a temporary directory: %s\n", prog, d,
			strerror(errno));
		free(d);
		lpt_perf_close(p);
		return -1;
	}
	cleanup_arm(d);
	lpt_perf_code_opts_init(p, &co);
	/* The maps name files as found: relative --symfs or --vmlinux paths
	 * would be read relative to the temporary directory. */
	abs_symfs = symfs && symfs[0] != '/' ? realpath(symfs, NULL) : NULL;
	abs_vmlinux = vmlinux && vmlinux[0] != '/' ? realpath(vmlinux, NULL) : NULL;
	co.symfs = abs_symfs ? abs_symfs : symfs;
	co.vmlinux = abs_vmlinux ? abs_vmlinux : vmlinux;
	co.no_code = flags & LPT_PERF_TRACES_ONLY;
	co.any_build_id = flags & LPT_PERF_ANY_BUILD_ID;
	e = lpt_perf_write_ptcap(p, d, &co, err, prog);
	free(abs_symfs);
	free(abs_vmlinux);
	lpt_perf_close(p);
	if (e) {
		fprintf(err, "%s: %s: writing its traces to %s: %s%s%s\n", prog, path, d,
			lpt_perf_strerror(e), e == -LPT_PERF_E_IO ? ": " : "",
			e == -LPT_PERF_E_IO ? strerror(errno) : "");
		lpt_perf_ptcap_remove(d);
		return -1;
	}
	*dir = d;
	return 0;
}
