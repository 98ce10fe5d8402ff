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
#include "libpt/perf_model.h"

struct wctx {
	struct lpt_perf_model mo;
	FILE *f;		/* the maps file being written */
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

/* The maps lines of mapping record @j (lpt_perf_model_lines()). */
static void map_line(struct lpt_perf_model *mo, size_t j, void *arg)
{
	FILE *f = arg;
	size_t n, k;
	const struct ptcap_map *m = lpt_perf_model_lines(mo, j, &n);

	for (k = 0; k < n; k++)
		fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", m[k].start,
			m[k].start + m[k].size, m[k].offset, m[k].path);
}

/* maps: per thread, every mapping; per CPU, the kernel's (the processes'
 * own go to maps.<pid>.<gen>). */
static int write_maps(struct wctx *c, const char *dir)
{
	FILE *f = create(dir, PTCAP_MAPS_FILE);

	if (!f)
		return -LPT_PERF_E_IO;
	fprintf(f, "%s %d\n# from perf.data MMAP/MMAP2 records\n", PTCAP_MAPS_MAGIC,
		PTCAP_FORMAT_VERSION);
	lpt_perf_model_top(&c->mo, map_line, f);
	return close_file(f);
}

static int write_config(struct wctx *c, const char *dir)
{
	const struct lpt_perf *p = c->mo.p;
	const struct ptcap_config *cfg = lpt_perf_config(p);
	const struct lpt_perf_info *in = lpt_perf_info(p);
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
		for (i = 0; i < PTCAP_ADDR_RANGES && c->mo.addr[i].cfg; i++)
			fprintf(f, "addr%zu %s 0x%" PRIx64 "-0x%" PRIx64 "\n", i,
				c->mo.addr[i].cfg == PTCAP_ADDR_STOP ? "stop" : "filter",
				c->mo.addr[i].a, c->mo.addr[i].b);
	}
	for (i = 0; i < lpt_perf_ntraces(p); i++) {
		const struct lpt_perf_trace *t = lpt_perf_trace(p, i);

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

		for (i = 0; i < lpt_perf_ntraces(p); i++)
			losses += lpt_perf_trace(p, i)->truncated +
				  lpt_perf_trace(p, i)->partial;
		fprintf(f, "losses %" PRIu64 "\n", losses);
	}
	return close_file(f);
}

/* The trace files, streamed from the mapping 1 MiB at a time. */
static int write_traces(struct wctx *c, const char *dir)
{
	static const size_t chunk = 1u << 20;
	const struct lpt_perf *p = c->mo.p;
	uint8_t *buf = malloc(chunk);
	size_t i;
	int err = 0;

	if (!buf)
		return -LPT_PERF_E_NOMEM;
	for (i = 0; !err && i < lpt_perf_ntraces(p); i++) {
		const struct lpt_perf_trace *t = lpt_perf_trace(p, i);
		FILE *f = create(dir, t->name);
		uint64_t off = 0;

		if (!f) {
			err = -LPT_PERF_E_IO;
			break;
		}
		while (off < t->size) {
			int64_t n = lpt_perf_trace_read(p, i, off, buf, chunk);

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

/* switches (ptcap-format.rst), the model's lines. */
static int write_switches(struct wctx *c, const char *dir)
{
	const struct lpt_perf_info *in = lpt_perf_info(c->mo.p);
	FILE *f = create(dir, PTCAP_SWITCHES_FILE);
	size_t i;

	if (!f)
		return -LPT_PERF_E_IO;
	fprintf(f, "%s %d\n# tsc cpu prev-pid/tid next-pid/tid [flags], from perf.data "
		"SWITCH, SWITCH_CPU_WIDE and ITRACE_START records%s\n", PTCAP_SWITCHES_MAGIC,
		PTCAP_FORMAT_VERSION, in->per_task ?
		"; a workload's recording: the switches between its traced tasks" : "");
	for (i = 0; i < c->mo.nsw; i++) {
		const struct lpt_perf_sw_line *l = &c->mo.sw[i];

		fprintf(f, "%" PRIu64 " %d %d/%d %d/%d%s%s%s\n", l->tsc, l->cpu, l->pp, l->pt,
			l->np, l->nt, l->pp == 0 ? " prev-idle" : "",
			l->np == 0 ? " next-idle" : "", l->preempt ? " preempt" : "");
	}
	return close_file(f);
}

/* processes and one maps.<pid>.<gen> per generation. */
static int write_processes(struct wctx *c, const char *dir)
{
	FILE *f = create(dir, PTCAP_PROCESSES_FILE);
	size_t i;
	int err = 0;

	if (!f)
		return -LPT_PERF_E_IO;
	fprintf(f, "%s %d\n# pid gen first-tsc last-tsc entry maps comm\n",
		PTCAP_PROCESSES_MAGIC, PTCAP_FORMAT_VERSION);
	for (i = 0; !err && i < c->mo.ng; i++) {
		const struct lpt_perf_gen *g = &c->mo.g[i];
		uint64_t first, last;
		char name[64];
		FILE *mf;

		snprintf(name, sizeof(name), "maps.%d.%zu", g->pid, g->gen);
		mf = create(dir, name);
		if (!mf) {
			err = -LPT_PERF_E_IO;
			break;
		}
		fprintf(mf, "%s %d\n", PTCAP_MAPS_MAGIC, PTCAP_FORMAT_VERSION);
		lpt_perf_model_gen(&c->mo, i, map_line, mf);
		if (close_file(mf))
			err = -LPT_PERF_E_IO;
		lpt_perf_model_gen_tsc(&c->mo, i, &first, &last);
		fprintf(f, "%d %zu %" PRIu64 " %" PRIu64 " 0x0 %s ", g->pid, g->gen, first,
			last, name);
		put_text(f, g->comm);
		fputc('\n', f);
	}
	if (close_file(f) && !err)
		err = -LPT_PERF_E_IO;
	return err;
}

int lpt_perf_write_ptcap(const struct lpt_perf *p, const char *dir,
			 const struct lpt_perf_code_opts *o, FILE *warn, const char *prog)
{
	struct wctx c;
	int err;

	if (!p || !dir || !o)
		return -LPT_PERF_E_INVAL;
	err = lpt_perf_model_init(&c.mo, p, o, warn, prog);
	if (!err)
		err = write_config(&c, dir);
	if (!err)
		err = write_maps(&c, dir);
	if (!err && c.mo.sys)
		err = write_switches(&c, dir);
	if (!err && c.mo.sys)
		err = write_processes(&c, dir);
	if (!err)
		err = write_traces(&c, dir);
	lpt_perf_model_summary(&c.mo);
	lpt_perf_model_free(&c.mo);
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
