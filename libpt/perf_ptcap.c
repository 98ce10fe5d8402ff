// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data's capture model written as a ptcap directory
 * (include/lwpt/perf_data.h lpt_perf_write_ptcap(); the directory format is
 * Documentation/ptcap-format.rst, what comes from which perf record is
 * Documentation/perf-data.rst "As a capture"): the model of
 * libpt/perf_model.c as files. The tools read a perf.data in place
 * (include/lwpt/capture_src.h), through the same model; this writer is
 * for keeping a perf.data's capture as a directory, and for checking that
 * both read alike (tests/tools/readers/perf_inplace.sh).
 */
#include <lwpt/perf_data.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lwpt/ptcap_dir.h>

#include "libpt/perf_internal.h"
#include "libpt/perf_model.h"

struct wctx {
	struct lpt_perf_model mo;
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

/* A maps file being written: its lines that carry a build-id, whose
 * "# build-id" comments follow the lines (maps_out_end()). */
struct maps_out {
	FILE *f;
	const struct ptcap_map **id;
	size_t nid, cap_id;
	bool nomem;
};

/* The maps lines of mapping record @j (lpt_perf_model_lines()). */
static void map_line(struct lpt_perf_model *mo, size_t j, void *arg)
{
	struct maps_out *mf = arg;
	size_t n, k;
	const struct ptcap_map *m = lpt_perf_model_lines(mo, j, &n);

	for (k = 0; k < n; k++) {
		fprintf(mf->f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", m[k].start,
			m[k].start + m[k].size, m[k].offset, m[k].path);
		if (!m[k].build_id_size)
			continue;
		if (lpt_perf_grow(&mf->id, &mf->cap_id, mf->nid + 1, sizeof(*mf->id)))
			mf->nomem = true;
		else
			mf->id[mf->nid++] = &m[k];
	}
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp((*(const struct ptcap_map *const *)a)->path,
		      (*(const struct ptcap_map *const *)b)->path);
}

/*
 * After the lines, one "# build-id <hex> <path>" comment per file whose
 * lines carry the build-id the perf.data recorded (lpt_perf_model_lines():
 * the file found has it), as ptcap records them (ptcap-format.rst "maps"):
 * the directory and the perf.data read in place give the same maps. A
 * path carries one id at most (the file's own). Closes the file.
 */
static int maps_out_end(struct maps_out *mf)
{
	size_t i;
	int err = mf->nomem ? -LPT_PERF_E_NOMEM : 0;

	if (mf->nid)
		qsort(mf->id, mf->nid, sizeof(*mf->id), cmp_path);
	for (i = 0; i < mf->nid; i++) {
		const struct ptcap_map *m = mf->id[i];

		if (i && !strcmp(m->path, mf->id[i - 1]->path))
			continue;
		fputs("# build-id ", mf->f);
		for (uint8_t k = 0; k < m->build_id_size; k++)
			fprintf(mf->f, "%02x", m->build_id[k]);
		fprintf(mf->f, " %s\n", m->path);
	}
	free(mf->id);
	if (close_file(mf->f))
		return -LPT_PERF_E_IO;
	return err;
}

/* maps: per thread, every mapping; per CPU, the kernel's (the processes'
 * own go to maps.<pid>.<gen>). */
static int write_maps(struct wctx *c, const char *dir)
{
	struct maps_out mf = { .f = create(dir, PTCAP_MAPS_FILE) };

	if (!mf.f)
		return -LPT_PERF_E_IO;
	fprintf(mf.f, "%s %d\n# from perf.data MMAP/MMAP2 records\n", PTCAP_MAPS_MAGIC,
		PTCAP_FORMAT_VERSION);
	lpt_perf_model_top(&c->mo, map_line, &mf);
	return maps_out_end(&mf);
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
	if (in->bts)
		fprintf(f, "format bts\n");	/* ptcap-format.rst "BTS trace files" */
	else
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
		struct maps_out mo;
		char name[64];
		FILE *mf;

		snprintf(name, sizeof(name), "maps.%d.%zu", g->pid, g->gen);
		mf = create(dir, name);
		if (!mf) {
			err = -LPT_PERF_E_IO;
			break;
		}
		fprintf(mf, "%s %d\n", PTCAP_MAPS_MAGIC, PTCAP_FORMAT_VERSION);
		mo.f = mf;
		mo.id = NULL;
		mo.nid = mo.cap_id = 0;
		mo.nomem = false;
		lpt_perf_model_gen(&c->mo, i, map_line, &mo);
		err = maps_out_end(&mo);
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
