// SPDX-License-Identifier: GPL-2.0
/*
 * pt2perf: convert a ptcap directory into a perf.data file that Linux
 * perf's Intel PT decoder (perf script/report/inject --itrace) reads.
 * Documentation/pt2perf.rst says what is written and which perf 6.1
 * source each rule comes from; libpt's perf_write.h serialises it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lwpt/bts_decode.h>
#include <lwpt/perf_data.h>
#include <lwpt/perf_file.h>
#include <lwpt/perf_write.h>
#include <lwpt/ptcap_dir.h>

#include "capture.h"
#include "split.h"

#define PROG "pt2perf"

/*
 * The intel_pt PMU's config bits (arch/x86/events/intel/pt.c
 * PMU_FORMAT_ATTR): the RTIT_CTL bit of the same position (SDM 33.2.8.2)
 * for pt (TraceEn, 0), cyc (1), pwr_evt (4), fup_on_ptw (5), mtc (9),
 * tsc (10), noretcomp (11), ptw (12), branch (13), mtc_period (14-17),
 * cyc_thresh (19-22), psb_period (24-27).
 */
#define PT_CFG_PT		(1ull << 0)
#define PT_CFG_CYC		(1ull << 1)
#define PT_CFG_MTC		(1ull << 9)
#define PT_CFG_TSC		(1ull << 10)
#define PT_CFG_NORETCOMP	(1ull << 11)
#define PT_CFG_BRANCH		(1ull << 13)
#define PT_CFG_FROM_CTL		(PT_CFG_CYC | (3ull << 4) | (0x1ffull << 9) | \
				 (0xfull << 19) | (0xfull << 24))
/* IA32_RTIT_CTL OS and User (SDM 33.2.8.2). */
#define RTIT_CTL_OS		(1ull << 2)
#define RTIT_CTL_USER		(1ull << 3)
/* The PMU type perf finds the intel_pt event by (AUXTRACE_INFO priv[0]
 * and attr.type): /sys/bus/event_source/devices/intel_pt/type. */
#define PT2PERF_PMU_TYPE	8
/* The same for a BTS capture: the intel_bts event's attr.type and
 * AUXTRACE_INFO priv[PMU_TYPE] (/sys/bus/event_source/devices/intel_bts/
 * type; perf finds the event by it, util/intel-bts.c
 * intel_bts_evsel_is_auxtrace()). */
#define PT2PERF_BTS_PMU_TYPE	9
/* The event's id; perf's synthesized samples use id + 1000000000. */
#define PT2PERF_EVENT_ID	1
/* perf 6.1's HAVE_SCHED_SWITCH 2: context_switch attr, SWITCH records. */
#define PT2PERF_SWITCH_EVENTS	2
#define PT2PERF_MAX_BUILD_IDS	4096

struct opts {
	const char *dir;
	const char *out;
	uint64_t tsc_hz;
	bool have_hz;
	bool timeless;
	bool quiet;
	int layout;		/* LAYOUT_* */
	uint32_t pmu_type;
	bool have_pmu_type;
};

/* How a per-CPU capture's traces are written (split.h). */
enum { LAYOUT_AUTO, LAYOUT_PER_CPU, LAYOUT_PER_THREAD };

/* One file of the maps, with its build-id (looked up once). */
struct mapped_file {
	char *path;
	uint8_t id[PERF_BUILD_ID_MAX];
	size_t len;
	bool have_id;
};

/* A thread named by a trace file's config line or a switch. */
struct thread_id {
	uint32_t pid, tid;
};

struct conv {
	const struct opts *o;
	struct p2p_capture cap;
	struct lpt_perf_writer *w;
	struct lpt_perf_tc tc;
	bool timed;
	uint64_t side_tsc;		/* TSC of the sideband before the trace */
	struct mapped_file *files;
	size_t nfiles;
	struct thread_id *thr;		/* threads the capture names */
	size_t nthr;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: pt2perf [<options>] <ptcap-directory> -o <file>|-\n"
"\n"
"Convert a ptcap capture directory into a perf.data file (perf 6.1 file\n"
"format) that perf's Intel PT decoder reads: perf script --itrace=i0ns,\n"
"perf script --itrace=cr, perf report --itrace=i, perf inject. A BTS\n"
"capture (ptcap --bts, format bts) becomes an intel_bts perf.data:\n"
"perf script --itrace=b lists its branches.\n"
"\n"
"  -o, --output <file>   the perf.data to write (replaced when it exists;\n"
"                        written to <file>.tmp first, renamed when complete).\n"
"                        '-': standard output, in perf's pipe format (as\n"
"                        perf record -o -), for perf script -i - etc.\n"
"  --tsc-freq <hz>       TSC frequency for timestamps (default: the\n"
"                        capture's tsc-freq, else nom-freq x 100 MHz).\n"
"  --timeless            no timestamps: perf decodes without time\n"
"                        (per-thread captures only).\n"
"  --per-thread          per-CPU captures: cut each CPU's trace into the\n"
"                        spans of its threads and write one trace per\n"
"                        thread, so that perf names the thread exactly\n"
"                        (the default for ptcap -a captures; spans whose\n"
"                        thread is not known are left out, as ptflow does).\n"
"  --per-cpu             per-CPU captures: write each CPU's trace whole;\n"
"                        perf then gives each piece to a thread by its\n"
"                        time, which lags behind switches without CYC\n"
"                        (the default for other per-CPU captures).\n"
"  --pmu-type <n>        the intel_pt PMU type to write (default %u; a BTS\n"
"                        capture's intel_bts PMU type: default %u).\n"
"  -q, --quiet           no notes on standard error.\n"
"  -h, --help            this text.\n"
"  --version             version.\n"
"\n"
"Exit status: 0 written, 1 error (nothing written), 2 bad usage.\n"
"See pt2perf(1) and Documentation/pt2perf.rst.\n", (unsigned int)PT2PERF_PMU_TYPE,
		(unsigned int)PT2PERF_BTS_PMU_TYPE);
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!s || !*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return (errno || *end) ? -1 : 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum { O_TSC_FREQ = 256, O_TIMELESS, O_PMU_TYPE, O_VERSION, O_PER_CPU, O_PER_THREAD };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "tsc-freq", required_argument, NULL, O_TSC_FREQ },
		{ "timeless", no_argument, NULL, O_TIMELESS },
		{ "pmu-type", required_argument, NULL, O_PMU_TYPE },
		{ "per-cpu", no_argument, NULL, O_PER_CPU },
		{ "per-thread", no_argument, NULL, O_PER_THREAD },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->pmu_type = PT2PERF_PMU_TYPE;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case O_TSC_FREQ:
			if (parse_u64(optarg, &v) || !v) {
				fprintf(stderr, "%s: --tsc-freq: expected a frequency in Hz above 0, got '%s'\n",
					PROG, optarg);
				return 2;
			}
			o->tsc_hz = v;
			o->have_hz = true;
			break;
		case O_TIMELESS:
			o->timeless = true;
			break;
		case O_PMU_TYPE:
			if (parse_u64(optarg, &v) || v > UINT32_MAX) {
				fprintf(stderr, "%s: --pmu-type: expected a number, got '%s'\n",
					PROG, optarg);
				return 2;
			}
			o->pmu_type = (uint32_t)v;
			o->have_pmu_type = true;
			break;
		case O_PER_CPU:
		case O_PER_THREAD:
			if (o->layout && o->layout != (c == O_PER_CPU ? LAYOUT_PER_CPU : LAYOUT_PER_THREAD)) {
				fprintf(stderr, "%s: --per-cpu and --per-thread exclude each other\n",
					PROG);
				return 2;
			}
			o->layout = c == O_PER_CPU ? LAYOUT_PER_CPU : LAYOUT_PER_THREAD;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case O_VERSION:
			printf("pt2perf (lwpt) %s, writes the perf.data file format of perf 6.1\n", LWPT_VERSION);
			exit(0);
		case ':':
			fprintf(stderr, "%s: option %s needs an argument (see --help)\n", PROG,
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "%s: unknown option '%s' (see --help)\n", PROG,
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: expected one ptcap directory, got %d arguments (see --help)\n",
			PROG, argc - optind);
		return 2;
	}
	o->dir = argv[optind];
	if (!o->out) {
		fprintf(stderr, "%s: no output file: give -o <file>, or -o - for standard "
			"output (see --help)\n", PROG);
		return 2;
	}
	if (!strcmp(o->out, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: -o -: standard output is a terminal; pipe it into perf "
			"(pt2perf DIR -o - | perf script -i -) or redirect it\n", PROG);
		return 2;
	}
	return 0;
}

static uint64_t ptime(const struct conv *cv, uint64_t tsc)
{
	return cv->timed ? lpt_perf_tsc_to_time(&cv->tc, tsc) : 0;
}

static struct lpt_perf_sid sid_of(const struct conv *cv, uint32_t pid, uint32_t tid,
				  uint64_t tsc, uint32_t cpu)
{
	struct lpt_perf_sid s = { .pid = pid, .tid = tid, .time = ptime(cv, tsc), .cpu = cpu };

	return s;
}

/*
 * A maps path as perf must open it: absolute as written; relative to the
 * level's directory, else to the top directory (ptcap-format.rst "maps").
 */
static char *resolve(const struct conv *cv, const char *lvdir, const char *path)
{
	char buf[PATH_MAX], *r;

	if (path[0] == '/')
		return strdup(path);
	snprintf(buf, sizeof(buf), "%s/%s", lvdir, path);
	if (access(buf, F_OK)) {
		snprintf(buf, sizeof(buf), "%s/%s", cv->o->dir, path);
	}
	r = realpath(buf, NULL);
	return r ? r : strdup(buf);
}

/* The build-id of a mapped file, read once; named once when missing. */
static const struct mapped_file *mapped(struct conv *cv, const char *path)
{
	struct mapped_file *m;
	size_t i;
	int err;

	for (i = 0; i < cv->nfiles; i++)
		if (!strcmp(cv->files[i].path, path))
			return &cv->files[i];
	if (cv->nfiles >= PT2PERF_MAX_BUILD_IDS)
		return NULL;
	m = realloc(cv->files, (cv->nfiles + 1) * sizeof(*m));
	if (!m)
		return NULL;
	cv->files = m;
	m = &cv->files[cv->nfiles];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return NULL;
	cv->nfiles++;
	/* The NT_GNU_BUILD_ID note, read by libpt (perf_data.h). */
	err = lpt_perf_elf_build_id(path, m->id);
	m->have_id = err > 0;
	if (m->have_id) {
		m->len = (size_t)err;
		lpt_perf_add_build_id(cv->w, -1, PERF_RECORD_MISC_USER, m->id, m->len, path);
	} else if (!cv->o->quiet) {
		struct stat st;
		int e = errno;

		fprintf(stderr, "%s: note: %s: %s%s: no build-id written\n", PROG, path,
			err == 0 ? "not an ELF file or no build-id note" : "cannot be read: ",
			err == 0 ? "" : !stat(path, &st) && !S_ISREG(st.st_mode) ?
			"not a regular file (a device, FIFO or directory)" : strerror(e));
	}
	return m;
}

/* MMAP2 records of one maps file for process @pid. */
static int emit_maps(struct conv *cv, const char *lvdir, const struct ptcap_maps *maps,
		     uint32_t pid, uint64_t tsc)
{
	struct lpt_perf_sid sid = sid_of(cv, pid, pid, tsc, 0);
	size_t i;
	int err = 0;

	for (i = 0; i < maps->nmaps && !err; i++) {
		const struct ptcap_map *mp = &maps->map[i];
		char *path = resolve(cv, lvdir, mp->path);
		const struct mapped_file *mf;
		struct lpt_perf_mmap m = {
			.pid = pid, .tid = pid, .start = mp->start, .len = mp->size,
			.pgoff = mp->offset, .prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
		};

		if (!path)
			return -ENOMEM;
		mf = mapped(cv, path);
		if (mf && mf->have_id) {
			m.build_id = mf->id;
			m.build_id_size = mf->len;
		}
		m.filename = path;
		err = lpt_perf_write_mmap2(cv->w, &m, &sid);
		free(path);
	}
	return err;
}

/*
 * The threads the capture names, each once, in order of appearance:
 * per-thread trace files, or both sides of every switch (the idle task
 * and threads of no process, pid 0, left out).
 */
static int collect_threads(struct conv *cv)
{
	size_t l, i, k;

	for (l = 0; l < cv->cap.nlv; l++) {
		const struct ptcap_switches *s = &cv->cap.lv[l].sws;
		size_t n = cv->cap.per_cpu ? 2 * s->n : cv->cap.nfiles;

		for (i = 0; i < n; i++) {
			struct thread_id t, *nt;

			if (!cv->cap.per_cpu) {
				t.pid = cv->cap.files[i].pid;
				t.tid = cv->cap.files[i].tid;
			} else if (i & 1) {
				t.pid = s->sw[i / 2].next_pid;
				t.tid = s->sw[i / 2].next_tid;
			} else {
				t.pid = s->sw[i / 2].prev_pid;
				t.tid = s->sw[i / 2].prev_tid;
			}
			if (!t.pid)
				continue;
			for (k = 0; k < cv->nthr; k++)
				if (cv->thr[k].pid == t.pid && cv->thr[k].tid == t.tid)
					break;
			if (k < cv->nthr)
				continue;
			nt = realloc(cv->thr, (cv->nthr + 1) * sizeof(*nt));
			if (!nt)
				return -ENOMEM;
			cv->thr = nt;
			cv->thr[cv->nthr++] = t;
		}
	}
	return 0;
}

/* COMM of the process's main thread and of the threads the capture names. */
static int emit_comms(struct conv *cv, uint32_t pid, const char *comm, bool exec,
		      uint64_t tsc)
{
	struct lpt_perf_sid sid = sid_of(cv, pid, pid, tsc, 0);
	size_t i;
	int err = lpt_perf_write_comm(cv->w, pid, pid, comm, exec, &sid);

	for (i = 0; i < cv->nthr && !err && !exec; i++) {
		if (cv->thr[i].pid != pid || cv->thr[i].tid == pid)
			continue;
		sid.tid = cv->thr[i].tid;
		err = lpt_perf_write_comm(cv->w, pid, sid.tid, comm, false, &sid);
	}
	return err;
}

/* The last level with a non-empty maps file (snapshots: the newest). */
static const struct p2p_level *maps_level(const struct conv *cv)
{
	size_t l = cv->cap.nlv;

	while (l-- > 0)
		if (cv->cap.lv[l].maps.nmaps)
			return &cv->cap.lv[l];
	return &cv->cap.lv[cv->cap.nlv - 1];
}

/* The last level with a processes file. */
static const struct p2p_level *procs_level(const struct conv *cv)
{
	size_t l = cv->cap.nlv;

	while (l-- > 0)
		if (cv->cap.lv[l].procs.n)
			return &cv->cap.lv[l];
	return NULL;
}

static int emit_process_gens(struct conv *cv, const struct p2p_level *lv,
			     const struct ptcap_process *p, size_t ngen)
{
	size_t g;
	int err = 0;

	for (g = 0; g < ngen && !err; g++) {
		struct ptcap_maps maps = { 0 };
		char *text;
		size_t len, line = 0;
		uint64_t tsc = cv->side_tsc;

		if (p[g].missing)
			continue;
		/* A later generation: its exec came after the last read of
		 * the one before (ptcap-format.rst "processes"). */
		if (g && p[g - 1].last_tsc + 1 > tsc)
			tsc = p[g - 1].last_tsc + 1;
		err = emit_comms(cv, p[g].pid, p[g].comm, g > 0, tsc);
		if (err)
			break;
		err = ptcap_dir_read_file(lv->dir, p[g].maps, &text, &len);
		if (err == -PTCAP_E_IO && errno == ENOENT) {
			if (!cv->o->quiet)
				fprintf(stderr, "%s: note: %s/%s: %s: process %u has no maps\n",
					PROG, lv->dir, p[g].maps, strerror(errno), p[g].pid);
			err = 0;
			continue;
		}
		if (err) {
			/* there, but not readable: no silent perf.data without it */
			fprintf(stderr, "%s: %s/%s: %s\n", PROG, lv->dir, p[g].maps,
				err == -PTCAP_E_IO ? strerror(errno) : ptcap_dir_strerror(err));
			return -EINVAL;
		}
		err = ptcap_maps_parse(text, len, &maps, &line);
		free(text);
		if (err) {
			fprintf(stderr, "%s: %s/%s line %zu: %s\n", PROG, lv->dir, p[g].maps,
				line, ptcap_dir_strerror(err));
			return -EINVAL;
		}
		err = emit_maps(cv, lv->dir, &maps, p[g].pid, tsc);
		ptcap_maps_free(&maps);
	}
	return err;
}

/* COMM and MMAP2 sideband: every traced process with its maps. */
static int emit_processes(struct conv *cv)
{
	const struct p2p_level *plv = procs_level(cv), *mlv = maps_level(cv);
	const char *comm = cv->cap.command ? cv->cap.command : "unknown";
	size_t i, k;
	int err = 0;

	if (plv) {
		const struct ptcap_processes *ps = &plv->procs;

		for (i = 0; i < ps->n && !err; i = k) {
			for (k = i; k < ps->n && ps->p[k].pid == ps->p[i].pid; k++)
				;
			err = emit_process_gens(cv, plv, &ps->p[i], k - i);
		}
		return err;
	}
	/* One address space (maps) for every process of the trace. */
	for (i = 0; i < cv->nthr && !err; i++) {
		uint32_t p = cv->thr[i].pid;

		for (k = 0; k < i && cv->thr[k].pid != p; k++)
			;
		if (k < i)
			continue;
		err = emit_comms(cv, p, comm, false, cv->side_tsc);
		if (!err)
			err = emit_maps(cv, mlv->dir, &mlv->maps, p, cv->side_tsc);
	}
	return err;
}

/* SWITCH_CPU_WIDE out and in for every line of the switches files. */
static int emit_switches(struct conv *cv)
{
	size_t l, i;
	int err = 0;

	for (l = 0; l < cv->cap.nlv; l++) {
		const struct ptcap_switches *s = &cv->cap.lv[l].sws;

		for (i = 0; i < s->n && !err; i++) {
			const struct ptcap_switch *sw = &s->sw[i];
			struct lpt_perf_sid out = sid_of(cv, sw->prev_pid, sw->prev_tid, sw->tsc, sw->cpu);
			struct lpt_perf_sid in = sid_of(cv, sw->next_pid, sw->next_tid, sw->tsc, sw->cpu);

			err = lpt_perf_write_switch(cv->w, true, sw->flags & PTCAP_SW_PREEMPT,
						    sw->next_pid, sw->next_tid, &out);
			if (!err)
				err = lpt_perf_write_switch(cv->w, false, false, sw->prev_pid,
							    sw->prev_tid, &in);
		}
	}
	return err;
}

/* One AUXTRACE record per contiguous piece, in file order per queue. */
static int emit_trace(struct conv *cv)
{
	uint64_t *offset = calloc(cv->cap.nqueues, sizeof(*offset));
	uint64_t *ref = calloc(cv->cap.nqueues, sizeof(*ref));
	size_t i;
	int err = 0;

	if (!offset || !ref) {
		free(offset);
		free(ref);
		return -ENOMEM;
	}
	for (i = 0; i < cv->cap.nqueues; i++)
		ref[i] = cv->cap.min_tsc;
	for (i = 0; i < cv->cap.npieces && !err; i++) {
		const struct p2p_piece *pc = &cv->cap.pieces[i];
		const struct p2p_file *f = &cv->cap.files[pc->file];
		struct lpt_perf_aux aux = {
			.offset = offset[f->queue],
			.idx = f->queue,
			.tid = cv->cap.per_cpu && !cv->cap.split ? UINT32_MAX : f->tid,
			.cpu = cv->cap.per_cpu && !cv->cap.split ? f->cpu : UINT32_MAX,
		};

		/* Intel PT's reference is a TSC (arch/x86/util/intel-pt.c
		 * intel_pt_reference()): the decoder completes the 7-byte TSC
		 * packets with it (intel-pt-decoder.c). */
		if (pc->have_tsc)
			ref[f->queue] = pc->first_tsc;
		aux.reference = ref[f->queue];
		err = lpt_perf_write_auxtrace(cv->w, f->data + pc->off, pc->len, &aux);
		offset[f->queue] += (pc->len + 7) & ~7ull;
	}
	free(offset);
	free(ref);
	return err;
}

/*
 * A BTS capture's AUXTRACE records, as perf record writes intel_bts's
 * (the BTS buffer's 24-byte records, SDM Vol. 3B Figure 17-9): one per
 * piece, its whole records, then one record of zeros. perf 6.1's
 * util/intel-bts.c intel_bts_process_buffer() takes a buffer's records
 * while more than one record's bytes remain ("sz > bsz"), so it never
 * shows a buffer's last record, and skips records whose from and to are
 * 0: the zero record is the one it leaves out, every branch of the
 * capture is shown. libpt's BTS decoder skips it too (lwpt/bts_decode.h).
 * A piece after a gap starts one record further in its queue's AUX stream
 * than the one before ended, so a reader sees the loss
 * (Documentation/perf-data.rst "Intel BTS"). Bytes after a piece's last
 * whole record are left out (ptflow ignores them as well). BTS records
 * carry no time; the reference orders buffers against the sideband
 * (intel_bts_process_queues() decodes a queue once an event's TSC reaches
 * it, before the event itself is processed): 1, after the sideband's
 * time 0, so that the COMM and MMAP2 records come first and perf names
 * the thread and finds the code.
 */
static int emit_bts_trace(struct conv *cv)
{
	uint64_t *offset = calloc(cv->cap.nqueues ? cv->cap.nqueues : 1, sizeof(*offset));
	uint8_t *buf = NULL;
	size_t i, cap = 0, odd = 0;
	int err = 0;

	if (!offset)
		return -ENOMEM;
	for (i = 0; i < cv->cap.npieces && !err; i++) {
		const struct p2p_piece *pc = &cv->cap.pieces[i];
		const struct p2p_file *f = &cv->cap.files[pc->file];
		size_t len = (size_t)(pc->len - pc->len % LPT_BTS_RECORD_SIZE);
		struct lpt_perf_aux aux = {
			.offset = offset[f->queue],
			.reference = 1,
			.idx = f->queue,
			.tid = f->tid,
			.cpu = UINT32_MAX,
		};

		odd += (size_t)(pc->len - len);
		if (!len)
			continue;
		if (len + LPT_BTS_RECORD_SIZE > cap) {
			uint8_t *nb = realloc(buf, len + LPT_BTS_RECORD_SIZE);

			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap = len + LPT_BTS_RECORD_SIZE;
		}
		memcpy(buf, f->data + pc->off, len);
		memset(buf + len, 0, LPT_BTS_RECORD_SIZE);
		err = lpt_perf_write_auxtrace(cv->w, buf, len + LPT_BTS_RECORD_SIZE, &aux);
		offset[f->queue] += len + 2 * LPT_BTS_RECORD_SIZE;
	}
	if (odd && !err && !cv->o->quiet)
		fprintf(stderr, "%s: note: %zu bytes after the last whole BTS record of a "
			"piece left out\n", PROG, odd);
	free(buf);
	free(offset);
	return err;
}

/*
 * AUXTRACE_INFO for Intel BTS as arch/x86/util/intel-bts.c
 * intel_bts_info_fill() writes it and util/intel-bts.c
 * intel_bts_process_auxtrace_info() reads it (six words, no snapshot).
 */
static int emit_bts_info(struct conv *cv)
{
	uint64_t priv[PERF_INTEL_BTS_INFO_MAX];

	memset(priv, 0, sizeof(priv));
	priv[PERF_INTEL_BTS_PMU_TYPE] = cv->o->have_pmu_type ? cv->o->pmu_type :
					PT2PERF_BTS_PMU_TYPE;
	priv[PERF_INTEL_BTS_TIME_SHIFT] = cv->tc.shift;
	priv[PERF_INTEL_BTS_TIME_MULT] = cv->tc.mult;
	priv[PERF_INTEL_BTS_TIME_ZERO] = cv->tc.zero;
	priv[PERF_INTEL_BTS_CAP_USER_TIME_ZERO] = cv->timed;
	priv[PERF_INTEL_BTS_SNAPSHOT_MODE] = 0;
	return lpt_perf_write_auxtrace_info(cv->w, PERF_AUXTRACE_INTEL_BTS, priv,
					    PERF_INTEL_BTS_INFO_MAX);
}

/* The intel_pt event's config: RTIT_CTL's bits, or what the trace shows. */
static uint64_t pt_config(const struct p2p_capture *cap)
{
	uint64_t c = PT_CFG_PT;

	if (cap->have_ctl)
		return c | (cap->rtit_ctl & PT_CFG_FROM_CTL);
	c |= PT_CFG_BRANCH;
	if (cap->seen_tsc)
		c |= PT_CFG_TSC;
	if (cap->seen_mtc)
		c |= PT_CFG_MTC | ((uint64_t)(cap->cfg.mtc_freq & 0xf) << PERF_INTEL_PT_CFG_MTC_PERIOD_SHIFT);
	if (cap->seen_cyc)
		c |= PT_CFG_CYC;
	return c;
}

/*
 * AUXTRACE_INFO for Intel PT as arch/x86/util/intel-pt.c
 * intel_pt_info_fill() writes it and util/intel-pt.c
 * intel_pt_process_auxtrace_info() reads it: the *_BIT entries are the
 * config bits as masks; then the filter string (none) and event_trace.
 */
static int emit_auxtrace_info(struct conv *cv, bool snapshot_mode)
{
	const struct ptcap_config *c = &cv->cap.cfg;
	uint64_t priv[PERF_INTEL_PT_INFO_MAX + 1];

	memset(priv, 0, sizeof(priv));
	priv[PERF_INTEL_PT_PMU_TYPE] = cv->o->pmu_type;
	priv[PERF_INTEL_PT_TIME_SHIFT] = cv->tc.shift;
	priv[PERF_INTEL_PT_TIME_MULT] = cv->tc.mult;
	priv[PERF_INTEL_PT_TIME_ZERO] = cv->tc.zero;
	priv[PERF_INTEL_PT_CAP_USER_TIME_ZERO] = cv->timed;
	priv[PERF_INTEL_PT_TSC_BIT] = PT_CFG_TSC;
	priv[PERF_INTEL_PT_NORETCOMP_BIT] = PT_CFG_NORETCOMP;
	/* Split: per-thread queues name their thread; with HAVE_SCHED_SWITCH
	 * perf would take the CPU's current thread instead
	 * (intel_pt_set_pid_tid_cpu()). */
	priv[PERF_INTEL_PT_HAVE_SCHED_SWITCH] = cv->cap.per_cpu && !cv->cap.split ?
						PT2PERF_SWITCH_EVENTS : 0;
	priv[PERF_INTEL_PT_SNAPSHOT_MODE] = snapshot_mode;
	priv[PERF_INTEL_PT_PER_CPU_MMAPS] = cv->cap.per_cpu && !cv->cap.split;
	priv[PERF_INTEL_PT_MTC_BIT] = PT_CFG_MTC;
	priv[PERF_INTEL_PT_MTC_FREQ_BITS] = PERF_INTEL_PT_CFG_MTC_PERIOD_MASK <<
					    PERF_INTEL_PT_CFG_MTC_PERIOD_SHIFT;
	if ((c->has & PTCAP_HAS_CPUID_15_EAX) && (c->has & PTCAP_HAS_CPUID_15_EBX)) {
		priv[PERF_INTEL_PT_TSC_CTC_N] = c->cpuid_15_ebx;
		priv[PERF_INTEL_PT_TSC_CTC_D] = c->cpuid_15_eax;
	}
	priv[PERF_INTEL_PT_CYC_BIT] = PT_CFG_CYC;
	if (c->has & PTCAP_HAS_NOM_FREQ)
		priv[PERF_INTEL_PT_MAX_NONTURBO_RATIO] = c->nom_freq;
	priv[PERF_INTEL_PT_FILTER_STR_LEN] = 0;
	priv[PERF_INTEL_PT_INFO_MAX] = 0;	/* event_trace: not used */
	return lpt_perf_write_auxtrace_info(cv->w, PERF_AUXTRACE_INTEL_PT, priv,
					    PERF_INTEL_PT_INFO_MAX + 1);
}

/* Decide the time conversion: the capture's TSC frequency, or none. */
static void setup_time(struct conv *cv)
{
	const struct ptcap_config *c = &cv->cap.cfg;
	uint64_t hz = 0;

	if (cv->o->have_hz)
		hz = cv->o->tsc_hz;
	else if (c->has & PTCAP_HAS_TSC_FREQ)
		hz = c->tsc_freq_hz;
	else if ((c->has & PTCAP_HAS_NOM_FREQ) && c->nom_freq)
		hz = (uint64_t)c->nom_freq * 100000000ull;
	cv->timed = !cv->o->timeless && cv->cap.seen_tsc;
	if (!cv->o->timeless && !cv->cap.seen_tsc && !cv->o->quiet && !cv->cap.bts)
		fprintf(stderr, "%s: note: the trace has no TSC packets: perf decodes it "
			"without timestamps\n", PROG);
	if (cv->timed && !hz && !cv->o->quiet)
		fprintf(stderr, "%s: note: TSC frequency unknown (no tsc-freq or nom-freq in "
			"the config, see --tsc-freq): perf's times are TSC ticks\n", PROG);
	lpt_perf_tc_from_hz(&cv->tc, hz);
	cv->side_tsc = cv->cap.have_min_tsc && cv->cap.min_tsc ? cv->cap.min_tsc - 1 : 0;
}

static struct perf_event_attr make_attr(const struct conv *cv)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = cv->o->pmu_type;
	a.size = sizeof(a);
	a.config = pt_config(&cv->cap);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER | (cv->timed ? PERF_SAMPLE_TIME : 0);
	a.disabled = 1;
	a.exclude_kernel = cv->cap.have_ctl ? !(cv->cap.rtit_ctl & RTIT_CTL_OS) : 1;
	a.exclude_user = cv->cap.have_ctl ? !(cv->cap.rtit_ctl & RTIT_CTL_USER) : 0;
	a.exclude_hv = 1;
	a.exclude_guest = 1;
	a.mmap = 1;
	a.comm = 1;
	a.task = 1;
	a.mmap2 = 1;
	a.comm_exec = 1;
	a.sample_id_all = 1;
	a.context_switch = cv->cap.per_cpu;	/* also split: the switches stay */
	if (cv->cap.bts) {
		/* The intel_bts event (arch/x86/events/intel/bts.c: config
		 * 0; exclude_kernel/exclude_user are BTS_OFF_OS/BTS_OFF_USR,
		 * 17.4.6): ptcap's bts-branches line, user only without. */
		const struct p2p_level *top = &cv->cap.lv[cv->cap.nlv - 1];
		char val[64];

		a.type = cv->o->have_pmu_type ? cv->o->pmu_type : PT2PERF_BTS_PMU_TYPE;
		a.config = 0;
		a.exclude_kernel = 1;
		a.exclude_user = 0;
		if (p2p_config_value(top->config, top->config_len, "bts-branches", val,
				     sizeof(val))) {
			a.exclude_kernel = !strstr(val, "kernel");
			a.exclude_user = !strstr(val, "user");
		}
		a.context_switch = 0;
	}
	return a;
}

/* @pipe: perf's pipe format (perf.data-file-format.txt "Pipe-mode data"),
 * for an output that cannot seek. */
static int convert(struct conv *cv, FILE *f, bool pipe)
{
	const struct ptcap_config *c = &cv->cap.cfg;
	struct perf_event_attr attr;
	bool snapshot_mode = cv->cap.snapshot && !cv->cap.split;
	char buf[64];
	size_t i;
	int err;

	if (cv->cap.bts && cv->cap.per_cpu) {
		fprintf(stderr, "%s: %s: a per-CPU BTS capture: perf's intel_bts records and "
			"decodes per thread only (arch/x86/util/intel-bts.c refuses per-CPU "
			"recording), so pt2perf writes per-thread BTS captures only\n", PROG,
			cv->o->dir);
		return -EINVAL;
	}
	if (cv->cap.per_cpu && !cv->timed) {
		fprintf(stderr, "%s: %s: a per-CPU capture needs timestamps (TSC packets, no "
			"--timeless): perf finds the thread of each piece by the time of the "
			"switches\n", PROG, cv->o->dir);
		return -EINVAL;
	}
	/* Pieces after a gap do not continue the one before: only snapshot
	 * mode makes perf start again at the next PSB (intel-pt.c
	 * intel_pt_get_buffer(), consecutive false). A thread's spans after a
	 * split continue each other (split.h), also across snapshots, and in
	 * snapshot mode perf would cut overlaps it finds by their PSBs' TSC
	 * (intel_pt_find_overlap_tsc()): spans after the same PSB start with
	 * the same replayed PSB+. */
	for (i = 1; i < cv->cap.npieces && !cv->cap.split && !cv->cap.bts; i++)
		if (cv->cap.pieces[i].file == cv->cap.pieces[i - 1].file ||
		    cv->cap.files[cv->cap.pieces[i].file].queue ==
		    cv->cap.files[cv->cap.pieces[i - 1].file].queue)
			snapshot_mode = true;
	attr = make_attr(cv);
	snprintf(buf, sizeof(buf), "%s//%s", cv->cap.bts ? "intel_bts" : "intel_pt",
		 attr.exclude_kernel ? "u" :
		 attr.exclude_user ? "k" : "");
	err = (pipe ? lpt_perf_writer_open_pipe : lpt_perf_writer_open)(f, &attr, buf,
									PT2PERF_EVENT_ID, &cv->w);
	if (err)
		return err;
	lpt_perf_set_string(cv->w, PERF_HEADER_ARCH, "x86_64");
	lpt_perf_set_nrcpus(cv->w, cv->cap.max_cpu + 1, cv->cap.max_cpu + 1);
	if (c->has & PTCAP_HAS_CPU) {
		snprintf(buf, sizeof(buf), "GenuineIntel,%u,%u,%u", c->cpu_family, c->cpu_model,
			 c->cpu_stepping);
		lpt_perf_set_string(cv->w, PERF_HEADER_CPUID, buf);
	}
	lpt_perf_set_string(cv->w, PERF_HEADER_VERSION, "6.1 (pt2perf)");
	err = collect_threads(cv);
	if (!err)
		err = cv->cap.bts ? emit_bts_info(cv) : emit_auxtrace_info(cv, snapshot_mode);
	if (!err)
		err = lpt_perf_write_time_conv(cv->w, &cv->tc, cv->timed);
	if (!err)
		err = emit_processes(cv);
	if (!err)
		err = emit_switches(cv);
	if (!err)
		err = cv->cap.bts ? emit_bts_trace(cv) : emit_trace(cv);
	i = lpt_perf_writer_close(cv->w);
	cv->w = NULL;
	return err ? err : (int)i;
}

/*
 * Per-CPU captures: one trace per thread (split.h) for ptcap -a captures
 * (a processes file) or --per-thread, each CPU's trace whole otherwise.
 */
static int choose_layout(struct conv *cv)
{
	struct p2p_capture *cap = &cv->cap;
	struct p2p_split_stats st;
	bool want = cv->o->layout == LAYOUT_PER_THREAD;
	size_t l, nsw = 0, k;
	int err;

	if (!cap->per_cpu || cv->o->layout == LAYOUT_PER_CPU || !cv->timed ||
	    (!want && !procs_level(cv)))
		return 0;
	for (l = 0; l < cap->nlv; l++)
		nsw += cap->lv[l].sws.n;
	if (!nsw || (cap->have_ctl && (cap->rtit_ctl & RTIT_CTL_OS))) {
		if (!want)
			return 0;
		fprintf(stderr, "%s: %s: --per-thread needs %s: a thread's spans are found "
			"between TIP.PGD and TIP.PGE of a user-mode trace and the switches\n",
			PROG, cv->o->dir, nsw ? "a trace without the kernel (rtit-ctl OS=0)" :
			"the capture's switches file");
		return -EINVAL;
	}
	err = p2p_split_threads(cap, &st, PROG);
	if (err)
		return err;
	if (!st.kept) {
		fprintf(stderr, "%s: %s: none of the %zu spans of user-mode trace could be "
			"given to a thread (see ptflow's messages on this capture); --per-cpu "
			"writes each CPU's trace whole\n", PROG, cv->o->dir, st.spans);
		return -EINVAL;
	}
	if (cv->o->quiet)
		return 0;
	fprintf(stderr, "%s: note: one trace per thread: %zu of %zu spans (%llu of %llu "
		"bytes) in %zu threads", PROG, st.kept, st.spans,
		(unsigned long long)st.kept_bytes, (unsigned long long)st.bytes, st.threads);
	if (st.kept < st.spans) {
		const char *sep = "; left out: ";

		for (k = 0; k < sizeof(st.why) / sizeof(st.why[0]); k++) {
			if (!st.why[k] || k == PTFLOW_OWNER_THREAD)
				continue;
			fprintf(stderr, "%s%zu %s", sep, st.why[k], ptflow_split_why(k));
			sep = ", ";
		}
		if (st.unsynced) {
			fprintf(stderr, "%s%zu before a PSB", sep, st.unsynced);
			sep = ", ";
		}
		if (st.after_ovf)
			fprintf(stderr, "%s%zu after an overflow", sep, st.after_ovf);
		fprintf(stderr, " (ptflow does not decode them either, pt2perf.rst)");
	}
	fprintf(stderr, "\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct conv cv;
	char *tmp;
	size_t i;
	FILE *f;
	int rc, err;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc;
	memset(&cv, 0, sizeof(cv));
	cv.o = &o;
	if (p2p_capture_load(o.dir, &cv.cap, PROG)) {
		p2p_capture_free(&cv.cap);
		return 1;
	}
	setup_time(&cv);
	if (choose_layout(&cv)) {
		p2p_capture_free(&cv.cap);
		return 1;
	}
	if (!strcmp(o.out, "-")) {
		/* Pipe format on standard output: nothing to rename or remove;
		 * after an error the stream ends early and perf reports it cut. */
		tmp = NULL;
		err = convert(&cv, stdout, true);
		if (fflush(stdout) && !err)
			err = -errno;
		if (err) {
			if (err != -EINVAL)
				fprintf(stderr, "%s: writing standard output: %s\n", PROG,
					strerror(-err));
			rc = 1;
		}
		goto out;
	}
	tmp = malloc(strlen(o.out) + 5);
	if (!tmp) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		p2p_capture_free(&cv.cap);
		return 1;
	}
	sprintf(tmp, "%s.tmp", o.out);
	f = fopen(tmp, "w+b");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", PROG, tmp, strerror(errno));
		rc = 1;
		goto out;
	}
	err = convert(&cv, f, false);
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, o.out))
		err = -errno;
	if (err) {
		if (err != -EINVAL)
			fprintf(stderr, "%s: writing %s: %s\n", PROG, o.out, strerror(-err));
		unlink(tmp);
		rc = 1;
	}
out:
	for (i = 0; i < cv.nfiles; i++)
		free(cv.files[i].path);
	free(cv.files);
	free(cv.thr);
	free(tmp);
	p2p_capture_free(&cv.cap);
	return rc;
}
