// SPDX-License-Identifier: GPL-2.0
/*
 * ptafl: an AFL++ fork server that takes coverage from Intel PT (issue 26).
 *
 *   afl-fuzz -i IN -o OUT -- ptafl [options] -- PROGRAM ARGS   (@@ as usual)
 *
 * Processes: afl-fuzz -> ptafl (the fork server: protocol on fds 198/199,
 * afl_fsrv.h; the capture; decoding) -> the spawner (a fork of ptafl that
 * only forks) -> one child per run, which execs PROGRAM. The per-thread
 * capture (Documentation/pt.rst, "Per-thread capture", "Following forks")
 * is configured once on the spawner, so every run's child and its threads
 * and forks join it at their fork; per run ptafl starts it, lets the
 * spawner fork, waits for the child's end, stops it, decodes the run's
 * buffers into afl-fuzz's map (ptafl_cov.h) and frees the buffers of the
 * processes that ended (lpt_dev_buffer_done(), pt.rst "Buffers of threads
 * that ended"), so one capture serves every run. Documentation/ptafl.rst.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lwpt/pt.h>

#include "afl_fsrv.h"
#include "ptafl_cov.h"
#include "step.h"

#ifndef LWPT_VERSION
#define LWPT_VERSION		"unknown"	/* the Makefile passes the package's */
#endif

#define PTAFL_DEFAULT_SIZE	(256u << 10)	/* trace buffer per thread */
#define PTAFL_MAX_SIZE		(64ull << 20)	/* largest enlarged buffer */

enum source { SRC_PT, SRC_PTRACE };

struct opts {
	char *spec_arg[LWPT_PT_ADDR_RANGES];
	struct ptcap_spec spec[LWPT_PT_ADDR_RANGES];
	unsigned int nspec;
	bool no_filter;
	const char *cpu;
	const char *device;
	const char *stats;
	uint64_t size;
	uint32_t map_size;
	enum source src;
	char **argv;
};

/* What went on, for --stats (Documentation/ptafl.rst, "Statistics"). */
struct stats {
	uint64_t runs, timeouts, crashes, exec_failed;
	uint64_t buffers, trace_bytes, truncated, untraced, decode_errors;
	uint64_t enlarged;
	uint64_t buffer_size;
	double run_s, read_s, decode_s;
};

static struct stats st;
static struct opts o;

static void vreport(const char *fmt, va_list ap)
{
	fputs("ptafl: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* An error before or while serving: exit status 1. */
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(1);
}

/* A command-line error: exit status 2, as the other lwpt tools. */
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	exit(2);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: afl-fuzz -i IN -o OUT [afl-fuzz options] -- ptafl [options] -- PROGRAM [ARGS]\n"
"\n"
"An AFL++ fork server: runs PROGRAM for each input, traced per thread with Intel PT\n"
"(/dev/pt, lwpt), and writes its edge coverage into afl-fuzz's map. ARGS may hold @@\n"
"(afl-fuzz puts the input's path there); without @@ PROGRAM reads the input on stdin.\n"
"\n"
"  -f, --filter=SPEC      trace only in SPEC (an IP filter range, as ptcap's --filter:\n"
"                         A-B, SYMBOL, START/SIZE@FILE, or FILE with a '/'); repeat\n"
"                         for several; default: PROGRAM's executable segments\n"
"      --no-filter        trace all user code (needs the decoder to have all of it)\n"
"      --cpu=F/M[/S]      family/model[/stepping] of the traced processor, for the\n"
"                         decoder's errata (default: this one)\n"
"      --size=BYTES       trace buffer per thread (K, M suffixes; default 256K);\n"
"                         doubled on a run whose trace did not fit, up to 64M\n"
"      --map-size=BYTES   coverage map size, a power of two (default 65536, AFL++'s)\n"
"      --stats=FILE       write counters (runs, truncated traces, ...) to FILE\n"
"      --device=PATH      PT device node (default " LPT_DEV_PATH ")\n"
"      --trace-source=pt|ptrace  where edges come from: pt (default), or ptrace\n"
"                         single-stepping, a slow stand-in for tests without PT\n"
"  -h, --help             this help\n"
"      --version          print the lwpt version\n"
"\n"
"Example: afl-fuzz -i seeds -o out -- ptafl -- ./program @@\n"
"See ptafl(1) and Documentation/ptafl.rst.\n");
}

static uint64_t parse_size(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		die("%s=%s: not a number", opt, s);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		die("%s=%s: trailing '%s' (use K, M or G)", opt, s, end);
	return v;
}

static void parse_args(int argc, char **argv)
{
	enum { O_NOFILT = 256, O_CPU, O_SIZE, O_MAP, O_STATS, O_DEV, O_SRC, O_VERSION };
	static const struct option lo[] = {
		{ "filter", required_argument, NULL, 'f' },
		{ "no-filter", no_argument, NULL, O_NOFILT },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "size", required_argument, NULL, O_SIZE },
		{ "map-size", required_argument, NULL, O_MAP },
		{ "stats", required_argument, NULL, O_STATS },
		{ "device", required_argument, NULL, O_DEV },
		{ "trace-source", required_argument, NULL, O_SRC },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	char err[512];
	unsigned int f, m, s;
	char c;
	int opt;

	o.size = PTAFL_DEFAULT_SIZE;
	o.map_size = AFL_MAP_SIZE_DEFAULT;
	while ((opt = getopt_long(argc, argv, "+f:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (o.nspec >= LWPT_PT_ADDR_RANGES)
				die_usage("--filter: at most %d ranges", LWPT_PT_ADDR_RANGES);
			if (ptcap_spec_parse(optarg, &o.spec[o.nspec], err, sizeof(err)))
				die_usage("--filter=%s: %s", optarg, err);
			o.spec_arg[o.nspec++] = optarg;
			break;
		case O_NOFILT: o.no_filter = true; break;
		case O_CPU:
			if (sscanf(optarg, "%u/%u%c", &f, &m, &c) != 2 &&
			    (sscanf(optarg, "%u/%u/%u%c", &f, &m, &s, &c) != 3))
				die_usage("--cpu=%s: expected FAMILY/MODEL[/STEPPING] in decimal, e.g. 6/85", optarg);
			o.cpu = optarg;
			break;
		case O_SIZE:
			o.size = parse_size("--size", optarg);
			if (o.size < LPT_CAP_MIN_BUFFER || o.size > PTAFL_MAX_SIZE ||
			    (o.size & (o.size - 1)))
				die_usage("--size=%s: a power of two from 4K to 64M", optarg);
			break;
		case O_MAP:
			o.map_size = (uint32_t)parse_size("--map-size", optarg);
			if (o.map_size < 64 || o.map_size > AFL_FS_OPT_MAX_MAPSIZE ||
			    (o.map_size & (o.map_size - 1)))
				die_usage("--map-size=%s: a power of two from 64 to 8M", optarg);
			break;
		case O_STATS: o.stats = optarg; break;
		case O_DEV: o.device = optarg; break;
		case O_SRC:
			if (!strcmp(optarg, "pt"))
				o.src = SRC_PT;
			else if (!strcmp(optarg, "ptrace"))
				o.src = SRC_PTRACE;
			else
				die_usage("--trace-source=%s: pt or ptrace", optarg);
			break;
		case 'h': usage(stdout); exit(0);
		case O_VERSION: printf("ptafl %s (lwpt)\n", LWPT_VERSION); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (o.no_filter && o.nspec)
		die_usage("--no-filter and --filter exclude each other");
	if (optind >= argc)
		die_usage("no PROGRAM: ptafl [options] -- PROGRAM [ARGS] (see --help)");
	o.argv = argv + optind;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void stats_write(void)
{
	FILE *f;

	if (!o.stats)
		return;
	f = fopen(o.stats, "w");
	if (!f)
		return;
	fprintf(f, "runs %" PRIu64 "\ntimeouts %" PRIu64 "\ncrashes %" PRIu64
		"\nexec_failed %" PRIu64 "\nbuffers %" PRIu64 "\ntrace_bytes %" PRIu64
		"\ntruncated %" PRIu64
		"\nuntraced %" PRIu64 "\ndecode_errors %" PRIu64
		"\nenlarged %" PRIu64 "\nbuffer_size %" PRIu64
		"\nrun_seconds %.3f\nread_seconds %.3f\ndecode_seconds %.3f\n",
		st.runs, st.timeouts, st.crashes, st.exec_failed, st.buffers, st.trace_bytes,
		st.truncated,
		st.untraced, st.decode_errors, st.enlarged, st.buffer_size,
		st.run_s, st.read_s, st.decode_s);
	fclose(f);
}

/* ---- PROGRAM's mappings at its exec, and the filter ranges ---------- */

struct image {
	struct ptcap_vma *v;
	size_t n;
	char exe[4096];
	struct ptcap_range r[LWPT_PT_ADDR_RANGES];
	size_t nr;
};

/* The child side of every run: ASLR off (the same addresses as the probe),
 * the protocol's descriptors closed, then PROGRAM. */
static void exec_program(uint8_t *map, bool traceme)
{
	close(AFL_FSRV_CTL_FD);
	close(AFL_FSRV_ST_FD);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (personality(ADDR_NO_RANDOMIZE) < 0)
		_exit(126);
	if (traceme && ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(126);
	execv(o.argv[0], o.argv);
	if (map)
		*(uint32_t *)map = AFL_EXEC_FAIL_SIG;	/* afl-fuzz: exec failed */
	_exit(127);
}

static void image_free(struct image *im)
{
	size_t i;

	for (i = 0; i < im->n; i++)
		free(im->v[i].path);
	free(im->v);
}

static void image_maps(struct image *im, pid_t pid)
{
	char path[64], line[4400];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		int pos = 0;
		char *p;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &off, &pos) < 3 ||
		    !pos || line[pos] != '/')
			continue;
		p = line + pos;
		p[strcspn(p, "\n")] = 0;
		im->v = realloc(im->v, (im->n + 1) * sizeof(*im->v));
		if (!im->v)
			die("out of memory");
		im->v[im->n++] = (struct ptcap_vma){ .start = s, .end = e, .offset = off,
						     .path = strdup(p) };
	}
	fclose(f);
}

/*
 * A run's child executes ptafl's code until its exec: that code must lie
 * outside the filter, or it would be traced as PROGRAM's. It does unless
 * ASLR is off for ptafl too (randomize_va_space 0, setarch -R) and both
 * are position-independent.
 */
static void self_overlap(const struct image *im)
{
	struct image me = { 0 };
	size_t i, k;

	image_maps(&me, getpid());
	for (i = 0; i < me.n; i++)
		for (k = 0; k < im->nr; k++)
			if (me.v[i].start <= im->r[k].b && me.v[i].end > im->r[k].a)
				die("ptafl's own %s is mapped at 0x%" PRIx64 ", inside the filter "
				    "0x%" PRIx64 "-0x%" PRIx64 ": run ptafl with ASLR on "
				    "(kernel.randomize_va_space 2, no setarch -R)", me.v[i].path,
				    me.v[i].start, im->r[k].a, im->r[k].b);
	image_free(&me);
}

/*
 * Run PROGRAM to its exec once (stopped there by ptrace), read its
 * mappings and resolve the filters against them: every run has the same
 * addresses, ASLR being off for PROGRAM.
 */
static void image_probe(struct image *im)
{
	struct ptcap_range r[LWPT_PT_ADDR_RANGES];
	char link[64], err[4608];
	unsigned int i;
	int status, got, k;
	ssize_t len;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid)
		exec_program(NULL, true);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid: %s", strerror(errno));
	if (!WIFSTOPPED(status))
		die("%s: cannot be run (exit status %d): check the path and that it is executable",
		    o.argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	len = readlink(link, im->exe, sizeof(im->exe) - 1);
	if (len < 0)
		die("%s: %s", link, strerror(errno));
	im->exe[len] = 0;
	image_maps(im, pid);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);

	if (o.no_filter)
		return;
	if (!o.nspec) {		/* default: PROGRAM's own executable segments */
		if (ptcap_spec_parse(im->exe, &o.spec[0], err, sizeof(err)))
			die("%s: %s", im->exe, err);
		o.spec_arg[0] = im->exe;
		o.nspec = 1;
	}
	for (i = 0; i < o.nspec; i++) {
		got = ptcap_spec_resolve(&o.spec[i], im->exe, im->v, im->n, r,
					 LWPT_PT_ADDR_RANGES, err, sizeof(err));
		if (got < 0)
			die("--filter=%s: %s%s", o.spec_arg[i], err,
			    got == -ENOENT ? " (only files mapped at PROGRAM's exec: PROGRAM "
					     "and its dynamic loader)" : "");
		for (k = 0; k < got; k++) {
			if (im->nr >= LWPT_PT_ADDR_RANGES)
				die("--filter=%s: more than %d address ranges", o.spec_arg[i],
				    LWPT_PT_ADDR_RANGES);
			im->r[im->nr++] = r[k];
		}
	}
	self_overlap(im);
}

/* ---- the spawner ----------------------------------------------------- */

struct spawner {
	pid_t pid;
	int cmd, rep;	/* ptafl -> spawner, spawner -> ptafl */
};

static int read_i32(int fd, int32_t *v)
{
	uint32_t u;
	int err = afl_fsrv_read4(fd, &u);

	*v = (int32_t)u;
	return err;
}

/* The spawner's loop: per command, fork a child that execs PROGRAM, send
 * its pid, wait for it (single-stepping it with the ptrace source), send
 * its wait status. */
static void spawner_loop(int cmd, int rep, uint8_t *map, struct ptafl_step *step)
{
	uint32_t go;
	int status;
	pid_t pid;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!afl_fsrv_read4(cmd, &go)) {
		pid = fork();
		if (pid < 0) {
			afl_fsrv_write4(rep, (uint32_t)-1);
			continue;
		}
		if (!pid) {
			close(cmd);
			close(rep);
			exec_program(map, step != NULL);
		}
		if (afl_fsrv_write4(rep, (uint32_t)pid))
			_exit(1);
		if (step) {
			if (waitpid(pid, &status, 0) != pid)
				_exit(1);
			if (WIFSTOPPED(status) && ptafl_step_run(step, pid, map, o.map_size,
								 &status)) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
			}
		} else if (waitpid(pid, &status, 0) != pid) {
			_exit(1);
		}
		if (afl_fsrv_write4(rep, (uint32_t)status))
			_exit(1);
	}
	_exit(0);
}

static void spawner_start(struct spawner *sp, uint8_t *map, struct ptafl_step *step)
{
	int c[2], r[2];

	if (pipe2(c, O_CLOEXEC) || pipe2(r, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	sp->pid = fork();
	if (sp->pid < 0)
		die("fork: %s", strerror(errno));
	if (!sp->pid) {
		close(c[1]);
		close(r[0]);
		spawner_loop(c[0], r[1], map, step);
	}
	close(c[0]);
	close(r[1]);
	sp->cmd = c[1];
	sp->rep = r[0];
}

static void spawner_stop(struct spawner *sp)
{
	int status;

	close(sp->cmd);
	close(sp->rep);
	kill(sp->pid, SIGKILL);
	waitpid(sp->pid, &status, 0);
}

/* ---- the capture ------------------------------------------------------ */

struct capture {
	struct lpt_dev *dev;
	struct spawner sp;
	struct ptafl_cov *cov;
	const struct image *im;
	uint8_t *map;
	uint64_t size;		/* buffer per thread now */
	bool enlarge, said_trunc, said_untraced;
	uint8_t *buf;		/* one thread's trace */
	size_t len, cap;
	uint64_t serial;	/* the last thread that joined before this run */
	unsigned int *run;	/* the run's buffer numbers */
	unsigned int nrun, caprun;
};

/* A new spawner and a capture configured on it (and on a larger buffer). */
static void capture_open(struct capture *c)
{
	struct lpt_cap_config cfg;
	enum lwpt_pt_field bad = LWPT_PT_FIELD_NONE;
	const struct lwpt_pt_caps *caps;
	uint32_t abi;
	size_t i;
	int err;

	err = lpt_dev_open(o.device, &c->dev);
	if (err)
		die("%s: %s", o.device ? o.device : LPT_DEV_PATH, lpt_dev_strerror(err));
	lpt_dev_abi(c->dev, &abi, NULL);
	if (LWPT_ABI_VERSION_MINOR(abi) < 5)
		die("the lwpt module has ABI %u.%u; ptafl frees each run's buffers, which "
		    "needs 1.5: load the module of this lwpt release", LWPT_ABI_VERSION_MAJOR(abi),
		    LWPT_ABI_VERSION_MINOR(abi));
	caps = lpt_dev_caps(c->dev);
	if (c->im->nr > caps->nr_ranges)
		die("%zu filter range(s) asked, this processor has %u (CPUID.(EAX=14H,ECX=1):EAX[2:0])"
		    "%s", c->im->nr, caps->nr_ranges,
		    caps->nr_ranges ? ": give fewer --filter" : ": use --no-filter");
	if (c->size > caps->max_buffer_size)
		c->size = caps->max_buffer_size;
	spawner_start(&c->sp, c->map, NULL);
	lpt_cap_config_init(&cfg, caps);
	cfg.scope = LWPT_PT_SCOPE_THREAD;
	cfg.mode = LWPT_PT_MODE_WRAP;
	cfg.pid = c->sp.pid;
	cfg.buffer_size = c->size;
	cfg.flags &= ~(uint32_t)LWPT_PT_CFG_TSC;	/* no timing: coverage only */
	for (i = 0; i < c->im->nr; i++) {
		cfg.addr[i].a = c->im->r[i].a;
		cfg.addr[i].b = c->im->r[i].b;
		cfg.addr[i].cfg = LWPT_PT_ADDR_FILTER;
	}
	err = lpt_dev_configure(c->dev, &cfg, &bad);
	if (err)
		die("configuring the capture: %s (field %s)%s%s", lpt_dev_strerror(err),
		    lpt_cap_field_name(bad), lpt_dev_refusal(c->dev) ? ": " : "",
		    lpt_dev_refusal(c->dev) ? lpt_dev_refusal(c->dev) : "");
	c->serial = 0;
	st.buffer_size = c->size;
}

static void capture_close(struct capture *c)
{
	spawner_stop(&c->sp);
	lpt_dev_close(c->dev);
	c->dev = NULL;
}

static int sink(void *arg, const void *b, size_t n)
{
	struct capture *c = arg;

	if (c->len + n > c->cap) {
		size_t nc = (c->len + n) * 2;
		uint8_t *nb = realloc(c->buf, nc);

		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->cap = nc;
	}
	memcpy(c->buf + c->len, b, n);
	c->len += n;
	return 0;
}

static int discard(void *arg, const void *b, size_t n)
{
	(void)arg;
	(void)b;
	(void)n;
	return 0;
}

/*
 * The run's buffers into c->run: the numbers of threads that joined after
 * c->serial (a new thread may take a number freed before, pt.rst);
 * c->serial moves on to the last of them. Return: 0 or a negative errno.
 */
static int run_buffers(struct capture *c)
{
	struct lpt_buf_info in;
	uint64_t last = c->serial;
	unsigned int *nr;
	int n, b, err;

	c->nrun = 0;
	n = lpt_dev_nr_buffers(c->dev);
	if (n < 0)
		return n;
	for (b = 0; b < n; b++) {
		in.size = sizeof(in);
		err = lpt_dev_buffer_info(c->dev, (unsigned int)b, &in);
		if (err)
			return err;
		if (in.freed || in.serial <= c->serial || !lpt_dev_has_buffer(c->dev, (unsigned int)b))
			continue;
		if (c->nrun == c->caprun) {
			nr = realloc(c->run, (c->caprun * 2 + 8) * sizeof(*nr));
			if (!nr)
				return -ENOMEM;
			c->run = nr;
			c->caprun = c->caprun * 2 + 8;
		}
		c->run[c->nrun++] = (unsigned int)b;
		if (in.serial > last)
			last = in.serial;
	}
	c->serial = last;
	return 0;
}

/*
 * Free the buffers of the runs' processes that ended (not the spawner's:
 * the configured process, ppid 0), read or not: a trace not decoded (a
 * loss) is taken first. One still running (a daemon a run left) stays
 * until a later run finds it ended.
 */
static void capture_reap(struct capture *c)
{
	struct lpt_buf_info in;
	int n, b, err;

	n = lpt_dev_nr_buffers(c->dev);
	for (b = 0; b < n; b++) {
		in.size = sizeof(in);
		if (lpt_dev_buffer_info(c->dev, (unsigned int)b, &in) || in.freed || !in.ppid ||
		    !(in.exited || in.detached))
			continue;
		err = lpt_dev_buffer_done(c->dev, (unsigned int)b);
		if (err == -EAGAIN && lpt_dev_read(c->dev, (unsigned int)b, discard, NULL) >= 0)
			err = lpt_dev_buffer_done(c->dev, (unsigned int)b);
		if (err && err != -EBUSY)
			die("freeing a run's trace buffer: %s", lpt_dev_strerror(err));
	}
}

/*
 * Read and decode the run's buffers (c->run) into the map.
 * Return: true if the map holds the run's whole coverage; false if a
 * trace was lost, cut or could not be decoded (the caller clears it).
 */
static bool capture_decode(struct capture *c)
{
	struct lpt_cap_status s;
	bool ok = true;
	unsigned int i, b;
	double t;

	if (!c->nrun) {
		st.untraced++;
		if (!c->said_untraced)
			fprintf(stderr, "ptafl: a run's process got no trace buffer (lwpt's "
				"thread limit): that input gets no coverage; counted in "
				"--stats as untraced\n");
		c->said_untraced = true;
		return false;
	}
	st.buffers += c->nrun;
	for (i = 0; i < c->nrun && ok; i++) {
		b = c->run[i];
		if (lpt_dev_status(c->dev, b, &s) || s.lost) {
			st.untraced++;
			return false;
		}
		if (s.wrapped) {
			st.truncated++;
			if (!c->said_trunc)
				fprintf(stderr, "ptafl: a run's trace did not fit in %" PRIu64
					" bytes: that input gets no coverage; the buffer is "
					"doubled (--size, up to 64M); counted in --stats as "
					"truncated\n", c->size);
			c->said_trunc = true;
			if (!c->enlarge && c->size < PTAFL_MAX_SIZE) {
				c->enlarge = true;
				st.enlarged++;
			}
			return false;
		}
		t = now_s();
		c->len = 0;
		if (lpt_dev_read(c->dev, b, sink, c) < 0) {
			st.untraced++;
			return false;
		}
		st.trace_bytes += c->len;
		st.read_s += now_s() - t;
		t = now_s();
		if (c->len && ptafl_cov_decode(c->cov, c->buf, c->len, c->map)) {
			st.decode_errors++;
			ok = false;
		}
		st.decode_s += now_s() - t;
	}
	return ok;
}

/* ---- the fork server ---------------------------------------------------- */

static void fsrv_fail(uint32_t err, const char *fmt, const char *what)
{
	afl_fsrv_write4(AFL_FSRV_ST_FD, afl_fsrv_error_word(err));
	die(fmt, what);
}

/* One run with the PT source: the run's child is forked by the spawner
 * inside the started capture. Return: 0, or -1 when afl-fuzz is gone. */
static int run_pt(struct capture *c, int32_t *status)
{
	int err;
	int32_t pid;

	if (c->enlarge) {
		c->size *= 2;	/* counted in enlarged when decided */
		c->enlarge = false;
		capture_close(c);
		capture_open(c);
	}
	/* Threads that joined between runs (a daemon's) are not this run's. */
	err = run_buffers(c);
	if (!err)
		err = lpt_dev_start(c->dev);
	if (err)
		die("starting the capture: %s", lpt_dev_strerror(err));
	if (afl_fsrv_write4(c->sp.cmd, 1) || read_i32(c->sp.rep, &pid) || pid <= 0)
		die("the spawner is gone (fork failed?)");
	if (afl_fsrv_write4(AFL_FSRV_ST_FD, (uint32_t)pid))
		return -1;
	if (read_i32(c->sp.rep, status))
		die("the spawner is gone");
	lpt_dev_stop(c->dev);
	err = run_buffers(c);
	if (err)
		die("reading the capture: %s", lpt_dev_strerror(err));
	if (!capture_decode(c))
		memset(c->map, 0, o.map_size);	/* never a partial map */
	capture_reap(c);
	return 0;
}

static int run_ptrace(struct spawner *sp, int32_t *status)
{
	int32_t pid;

	if (afl_fsrv_write4(sp->cmd, 1) || read_i32(sp->rep, &pid) || pid <= 0)
		die("the spawner is gone (fork failed?)");
	if (afl_fsrv_write4(AFL_FSRV_ST_FD, (uint32_t)pid))
		return -1;
	if (read_i32(sp->rep, status))
		die("the spawner is gone");
	return 0;
}

int main(int argc, char **argv)
{
	struct capture cap = { 0 };
	struct ptafl_step *step = NULL;
	struct ptafl_cov_setup cs;
	struct spawner sp;
	struct image im = { 0 };
	uint32_t err, timed_out;
	uint64_t losses, losses_written = 0;
	uint8_t *map;
	char msg[512];
	int32_t status;
	double t;
	int r;

	parse_args(argc, argv);
	if (fcntl(AFL_FSRV_CTL_FD, F_GETFD) < 0 || fcntl(AFL_FSRV_ST_FD, F_GETFD) < 0)
		die("file descriptors %d and %d are not open: ptafl is a fork server for "
		    "afl-fuzz (or afl-showmap); run it as: afl-fuzz -i IN -o OUT -- ptafl -- "
		    "PROGRAM @@", AFL_FSRV_CTL_FD, AFL_FSRV_ST_FD);
	fcntl(AFL_FSRV_CTL_FD, F_SETFD, FD_CLOEXEC);
	fcntl(AFL_FSRV_ST_FD, F_SETFD, FD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	r = afl_fsrv_shm_attach(o.map_size, &map, &err);
	if (r == -ENOSPC)
		fsrv_fail(err, "%s: the map is smaller than --map-size: give AFL_MAP_SIZE to "
			  "afl-fuzz or a smaller --map-size", AFL_SHM_ENV);
	if (r)
		fsrv_fail(err, "%s: no usable shared-memory map from afl-fuzz", AFL_SHM_ENV);
	/* PROGRAM must not see the map (an instrumented one would write it). */
	unsetenv(AFL_SHM_ENV);
	unsetenv("__AFL_SHM_FUZZ_ID");

	image_probe(&im);
	if (o.src == SRC_PT) {
		cs = (struct ptafl_cov_setup){ .vma = im.v, .nvma = im.n, .filter = im.r,
					       .nfilter = im.nr, .cpu = o.cpu,
					       .map_size = o.map_size };
		r = ptafl_cov_new(&cap.cov, &cs, msg, sizeof(msg));
		if (r)
			fsrv_fail(AFL_FS_ERROR_MMAP, "%s (--trace-source=ptrace tests without it)",
				  msg);
		cap.im = &im;
		cap.map = map;
		cap.size = o.size;
		capture_open(&cap);
	} else {
		if (ptafl_step_new(&step, im.r, im.nr))
			fsrv_fail(AFL_FS_ERROR_MMAP, "%s", "cannot set up ptrace stepping");
		spawner_start(&sp, map, step);
	}

	if (afl_fsrv_write4(AFL_FSRV_ST_FD, afl_fsrv_hello_word(o.map_size)))
		die("writing the hello to afl-fuzz (fd %d): is this afl-fuzz?", AFL_FSRV_ST_FD);
	while (!(r = afl_fsrv_read4(AFL_FSRV_CTL_FD, &timed_out))) {
		st.timeouts += timed_out != 0;
		t = now_s();
		if (o.src == SRC_PT)
			r = run_pt(&cap, &status);
		else
			r = run_ptrace(&sp, &status);
		if (r)
			break;
		st.run_s += now_s() - t;
		st.runs++;
		st.crashes += WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL;
		st.exec_failed += *(uint32_t *)map == AFL_EXEC_FAIL_SIG;
		if (afl_fsrv_write4(AFL_FSRV_ST_FD, (uint32_t)status))
			break;
		/* afl-fuzz ends a fork server with SIGKILL: keep FILE current
		 * at the first run, every 256th and at every loss. */
		losses = st.truncated + st.untraced + st.decode_errors;
		if (st.runs == 1 || !(st.runs & 255) || losses != losses_written) {
			stats_write();
			losses_written = losses;
		}
	}
	if (st.runs)	/* a fork server that ran nothing does not overwrite */
		stats_write();
	if (o.src == SRC_PT) {
		capture_close(&cap);
		ptafl_cov_free(cap.cov);
	} else {
		spawner_stop(&sp);
		ptafl_step_free(step);
	}
	free(cap.buf);
	free(cap.run);
	image_free(&im);
	return 0;
}
