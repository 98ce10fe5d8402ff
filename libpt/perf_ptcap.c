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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Name a file whose code is missing once. */
static void say_missing(struct wctx *c, const struct lpt_perf_map *m, int why)
{
	size_t i;

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
	if (c->warn)
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
	fd = open(file, O_RDONLY | O_CLOEXEC);
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
	if (r) {
		say_missing(c, m, r);
		return;
	}
	if (m->kernel || m->path[0] == '[') {
		kernel_lines(f, file, m, !c->o->kcore);
		return;
	}
	fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", m->start,
		m->start + m->size, m->pgoff, file);
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
	if (in->filter[0])
		fprintf(f, "perf-filter %s\n", in->filter);
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

/* switches: one line per switch-in of SWITCH_CPU_WIDE (its prev is the
 * record's prev pid/tid, its next the sample's task), plus each CPU's
 * ITRACE_START as the thread running from then on. */
static int write_switches(struct wctx *c, const char *dir)
{
	size_t n, i;
	const struct lpt_perf_switch *s = lpt_perf_switches(c->p, &n);
	FILE *f = create(dir, PTCAP_SWITCHES_FILE);

	if (!f)
		return -LPT_PERF_E_IO;
	fprintf(f, "%s %d\n# tsc cpu prev-pid/tid next-pid/tid [flags], from perf.data "
		"SWITCH_CPU_WIDE (in) and ITRACE_START records\n", PTCAP_SWITCHES_MAGIC,
		PTCAP_FORMAT_VERSION);
	for (i = 0; i < n; i++) {
		int32_t pp, pt;

		if (s[i].cpu < 0 || !s[i].time || (!s[i].itrace_start &&
						   (!s[i].cpu_wide || s[i].out)))
			continue;
		pp = s[i].itrace_start ? 0 : s[i].other_pid;
		pt = s[i].itrace_start ? 0 : s[i].other_tid;
		if (pp < 0 || pt < 0 || s[i].pid < 0 || s[i].tid < 0)
			continue;
		fprintf(f, "%" PRIu64 " %d %d/%d %d/%d%s%s\n", s[i].tsc, s[i].cpu, pp, pt,
			s[i].pid, s[i].tid, pp == 0 ? " prev-idle" : "",
			s[i].pid == 0 ? " next-idle" : "");
	}
	return close_file(f);
}

/* A process's exec generations: COMM records with COMM_EXEC start one. */
struct gen {
	int32_t pid;
	uint64_t from, to;	/* perf time: [from, to) */
	char comm[16];
};

static int write_processes(struct wctx *c, const char *dir)
{
	size_t nt, nm, ns, i, k, ng = 0, capg = 0;
	const struct lpt_perf_task *t = lpt_perf_tasks(c->p, &nt);
	const struct lpt_perf_map *m = lpt_perf_maps(c->p, &nm);
	const struct lpt_perf_switch *s = lpt_perf_switches(c->p, &ns);
	struct gen *g = NULL;
	FILE *f;
	int err = 0;

	/* Every pid with user maps or a switch, generation 0 from time 0. */
	for (i = 0; i < nm + ns; i++) {
		int32_t pid = i < nm ? (is_kernel(&m[i]) ? -1 : m[i].pid) : s[i - nm].pid;

		if (pid <= 0)
			continue;
		for (k = 0; k < ng && g[k].pid != pid; k++)
			;
		if (k < ng)
			continue;
		if (lpt_perf_grow(&g, &capg, ng + 1, sizeof(*g))) {
			free(g);
			return -LPT_PERF_E_NOMEM;
		}
		memset(&g[ng], 0, sizeof(g[ng]));
		g[ng].pid = pid;
		g[ng].to = UINT64_MAX;
		ng++;
	}
	/* Comms, and a new generation at each exec. */
	for (i = 0; i < nt; i++) {
		size_t last = SIZE_MAX;

		if (t[i].kind != LPT_PERF_COMM || t[i].pid <= 0 || t[i].pid != t[i].tid)
			continue;
		for (k = 0; k < ng; k++)
			if (g[k].pid == t[i].pid)
				last = k;
		if (last == SIZE_MAX)
			continue;
		if (t[i].exec && t[i].time > g[last].from) {
			if (lpt_perf_grow(&g, &capg, ng + 1, sizeof(*g))) {
				free(g);
				return -LPT_PERF_E_NOMEM;
			}
			g[last].to = t[i].time;
			g[ng] = g[last];
			g[ng].from = t[i].time;
			g[ng].to = UINT64_MAX;
			last = ng++;
		}
		snprintf(g[last].comm, sizeof(g[last].comm), "%s", t[i].comm);
	}
	f = create(dir, PTCAP_PROCESSES_FILE);
	if (!f) {
		free(g);
		return -LPT_PERF_E_IO;
	}
	fprintf(f, "%s %d\n# pid gen first-tsc last-tsc entry maps comm\n",
		PTCAP_PROCESSES_MAGIC, PTCAP_FORMAT_VERSION);
	for (i = 0; !err && i < ng; i++) {
		char name[64];
		size_t gen = 0, j;
		FILE *mf;

		for (k = 0; k < i; k++)
			gen += g[k].pid == g[i].pid;
		snprintf(name, sizeof(name), "maps.%d.%zu", g[i].pid, gen);
		mf = create(dir, name);
		if (!mf) {
			err = -LPT_PERF_E_IO;
			break;
		}
		fprintf(mf, "%s %d\n", PTCAP_MAPS_MAGIC, PTCAP_FORMAT_VERSION);
		for (j = 0; j < nm; j++)
			if (is_kernel(&m[j]) ||
			    (m[j].pid == g[i].pid && m[j].time < g[i].to &&
			     (m[j].time >= g[i].from || !g[i].from)))
				map_line(c, mf, &m[j]);
		if (close_file(mf))
			err = -LPT_PERF_E_IO;
		fprintf(f, "%d %zu %" PRIu64 " %" PRIu64 " 0x0 %s %s\n", g[i].pid, gen,
			lpt_perf_ns_to_tsc(c->p, g[i].from ? g[i].from :
					   lpt_perf_info(c->p)->first_time),
			lpt_perf_ns_to_tsc(c->p, g[i].to == UINT64_MAX ?
					   lpt_perf_info(c->p)->last_time : g[i].to - 1),
			name, g[i].comm);
	}
	free(g);
	if (close_file(f) && !err)
		err = -LPT_PERF_E_IO;
	return err;
}

int lpt_perf_write_ptcap(const struct lpt_perf *p, const char *dir,
			 const struct lpt_perf_code_opts *o, FILE *warn, const char *prog)
{
	struct wctx c = { .p = p, .o = o, .warn = warn, .prog = prog ? prog : "libpt" };
	const struct lpt_perf_info *in;
	size_t ns;
	int err;

	if (!p || !dir || !o)
		return -LPT_PERF_E_INVAL;
	in = lpt_perf_info(p);
	/* Per CPU with switches: decoded per process (ptflow "System-wide
	 * captures"); else one address space. */
	(void)lpt_perf_switches(p, &ns);
	err = write_config(&c, dir);
	if (!err)
		err = write_maps(&c, dir, in->per_cpu && ns);
	if (!err && in->per_cpu && ns)
		err = write_switches(&c, dir);
	if (!err && in->per_cpu && ns)
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

void lpt_perf_ptcap_remove(char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d;

	if (!dir)
		return;
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
			unsigned int flags, FILE *err, const char *prog, char **dir)
{
	struct progress pr = { err, prog, -10 };
	struct lpt_perf_code_opts co;
	struct lpt_perf_opts po;
	const char *tmp = getenv("TMPDIR");
	struct lpt_perf *p;
	char *d;
	int e;

	*dir = NULL;
	lpt_perf_opts_init(&po);
	po.progress = progress;
	po.progress_arg = &pr;
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
	lpt_perf_code_opts_init(p, &co);
	co.symfs = symfs;
	co.vmlinux = vmlinux;
	co.no_code = flags & LPT_PERF_TRACES_ONLY;
	e = lpt_perf_write_ptcap(p, d, &co, err, prog);
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
