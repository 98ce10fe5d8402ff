// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: ptcov -j, ptdump -j and ptflow -j (the lwpt engine) on one
 * large trace (issue 34 point 3).
 *
 * The trace: kAFL's mruby trace (../shared/testdata/pt/real/libxdc, with
 * its page cache, so that ptcov decodes real code) repeated to >= 256 MiB,
 * and to 64 MiB for the memory figure; written once to build/bench-data/
 * (never committed). For each tool:
 *   1. the output of -j 1 and -j N compared (ptcov --edges: the bytes;
 *      ptdump: an FNV-1a hash of its whole text, read from a pipe);
 *   2. wall time of -j 1 and -j N, the minimum of 3 interleaved runs, and
 *      the speed-up (target: >= 0.8 x N), with the CPU time and the load
 *      average (a shared machine: wall time also measures the others);
 *   3. the peak RSS (wait4's ru_maxrss) of -j N on 64 MiB and on 256 MiB:
 *      it must not grow with the trace's size beyond the trace itself,
 *      which both tools read into memory (shown as RSS - trace size).
 * ptflow (--engine=lwpt --calls, and --quiet) on 32 MiB and 16 MiB of the
 * same: its views cost far more per byte than a coverage map.
 * N = the online CPUs (sysconf), or -j N; a tool name as argument runs
 * that tool only (bench_par [-j N] [ptcov|ptdump|ptflow]). Figures only;
 * nothing asserts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char bindir[PATH_MAX], real[PATH_MAX + 64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct res {
	double wall, cpu;
	long maxrss_kib;
	uint64_t hash;
	int status;
};

/* Run @argv with stdout to @outfd, or hashed from a pipe when @outfd < 0. */
static int run(char *const argv[], int outfd, struct res *r)
{
	int pfd[2] = { -1, -1 }, st;
	struct rusage ru;
	double t0 = now();
	pid_t pid;

	if (outfd < 0 && pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(outfd < 0 ? pfd[1] : outfd, 1);
		dup2(null, 2);
		if (pfd[0] >= 0) {
			close(pfd[0]);
			close(pfd[1]);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	r->hash = 0xcbf29ce484222325ull;
	if (outfd < 0) {
		static unsigned char buf[1 << 16];
		ssize_t n;

		close(pfd[1]);
		while ((n = read(pfd[0], buf, sizeof(buf))) > 0)
			for (ssize_t i = 0; i < n; i++)
				r->hash = (r->hash ^ buf[i]) * 0x100000001b3ull;
		close(pfd[0]);
	}
	if (wait4(pid, &st, 0, &ru) != pid)
		return -1;
	r->wall = now() - t0;
	r->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	r->maxrss_kib = ru.ru_maxrss;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return 0;
}

/* @path: mruby's trace repeated to >= @mib MiB (kept between runs). */
static off_t make_trace(const char *path, unsigned int mib)
{
	char src[PATH_MAX + 128];
	static unsigned char buf[1 << 20];
	struct stat st;
	size_t n;
	off_t one, want, done = 0;
	FILE *in, *out;

	snprintf(src, sizeof(src), "%s/libxdc/mruby__trace.pt", real);
	if (stat(src, &st) || !st.st_size)
		return -1;
	one = st.st_size;
	want = ((((off_t)mib << 20) + one - 1) / one) * one;
	if (!stat(path, &st) && st.st_size == want)
		return want;
	in = fopen(src, "rb");
	out = fopen(path, "wb");
	if (!in || !out || (n = fread(buf, 1, sizeof(buf), in)) != (size_t)one) {
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return -1;
	}
	fclose(in);
	while (done < want) {
		if (fwrite(buf, 1, n, out) != n)
			break;
		done += (off_t)n;
	}
	if (fclose(out) || done != want)
		return -1;
	return want;
}

static int find_real(void)
{
	const char *env = getenv("LWPT_SHARED");
	char exe[PATH_MAX], *s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return -1;
	exe[n] = 0;
	s = strrchr(exe, '/');
	*s = 0;
	snprintf(bindir, sizeof(bindir), "%s", exe);	/* build/bench */
	if (env)
		snprintf(real, sizeof(real), "%s/testdata/pt/real", env);
	else
		snprintf(real, sizeof(real), "%s/../../../shared/testdata/pt/real", bindir);
	return access(real, R_OK) ? -1 : 0;
}

struct tool {
	const char *name;
	const char *label;	/* in the figures, else @name */
	int hashed;		/* output hashed from a pipe (else a file) */
	int nargs;
	char *args[400];	/* ptflow: a --raw per page */
};

/* argv of @t on @trace with -j @jobs (first: both tools take it there) */
static void make_argv(const struct tool *t, char *trace, char *jobs, char **argv)
{
	int k = 0;

	argv[k++] = t->args[0];
	argv[k++] = "-j";
	argv[k++] = jobs;
	for (int i = 1; i < t->nargs; i++)
		argv[k++] = strcmp(t->args[i], "TRACE") ? t->args[i] : trace;
	argv[k] = NULL;
}

static void bench_tool(const struct tool *t, char *big, off_t bigsize, char *small,
		       off_t smallsize, unsigned int jobs)
{
	char j1[] = "1", jn[16], *argv[410], outp[2][PATH_MAX + 32];
	struct res r[2], best[2] = { { .wall = 1e30 }, { .wall = 1e30 } }, m[2];
	double cpu[2] = { 0, 0 };
	double load[3] = { 0, 0, 0 };
	const char *lab = t->label ? t->label : t->name;

	snprintf(jn, sizeof(jn), "%u", jobs);
	/* 1. the outputs, compared */
	for (int i = 0; i < 2; i++) {
		int fd = -1;

		make_argv(t, big, i ? jn : j1, argv);
		if (!t->hashed) {
			snprintf(outp[i], sizeof(outp[i]), "%s/../bench-data/par-%s-%d.out",
				 bindir, t->name, i);
			fd = open(outp[i], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		}
		if (run(argv, fd, &r[i]) || r[i].status) {
			printf("%s: -j %s failed (exit %d), skipped\n", lab,
			       i ? jn : j1, r[i].status);
			return;
		}
		if (fd >= 0)
			close(fd);
	}
	if (t->hashed && r[0].hash != r[1].hash) {
		printf("%s: -j 1 and -j %u print different text: figures void\n",
		       lab, jobs);
		return;
	}
	if (!t->hashed) {
		char cmd[2 * PATH_MAX + 128];

		snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", outp[0], outp[1]);
		if (system(cmd)) {
			printf("%s: -j 1 and -j %u print different text: figures void\n",
			       lab, jobs);
			return;
		}
	}
	printf("%s: -j 1 and -j %u outputs identical (%s)\n", lab, jobs,
	       t->hashed ? "FNV-1a of the text" : "cmp");
	/* 2. times, interleaved */
	for (int rep = 0; rep < 3; rep++)
		for (int i = 0; i < 2; i++) {
			int null = open("/dev/null", O_WRONLY);
			struct res x;

			make_argv(t, big, i ? jn : j1, argv);
			if (!run(argv, null, &x) && !x.status && x.wall < best[i].wall) {
				best[i] = x;
				cpu[i] = x.cpu;
			}
			close(null);
		}
	getloadavg(load, 3);
	printf("%s on %.0f MiB (mruby x %lld): -j 1 %.3f s (cpu %.3f s), -j %u %.3f s "
	       "(cpu %.3f s): %.2fx = %.2f x N (target >= 0.8 x N); load average "
	       "%.2f %.2f %.2f on %ld online CPUs\n",
	       lab, (double)bigsize / 1048576.0, (long long)(bigsize / 713168),
	       best[0].wall, cpu[0], jobs, best[1].wall, cpu[1],
	       best[0].wall / best[1].wall, best[0].wall / best[1].wall / jobs,
	       load[0], load[1], load[2], sysconf(_SC_NPROCESSORS_ONLN));
	/* 3. peak memory for two sizes */
	for (int i = 0; i < 2; i++) {
		int null = open("/dev/null", O_WRONLY);

		make_argv(t, i ? big : small, jn, argv);
		run(argv, null, &m[i]);
		close(null);
	}
	printf("%s -j %u max RSS: %.1f MiB on %.0f MiB, %.1f MiB on %.0f MiB; "
	       "minus the trace read in: %.1f MiB, %.1f MiB\n",
	       lab, jobs, m[0].maxrss_kib / 1024.0, (double)smallsize / 1048576.0,
	       m[1].maxrss_kib / 1024.0, (double)bigsize / 1048576.0,
	       m[0].maxrss_kib / 1024.0 - (double)smallsize / 1048576.0,
	       m[1].maxrss_kib / 1024.0 - (double)bigsize / 1048576.0);
}

/* ptflow's --raw arguments for the page cache @pc (.addr, .dump): the
 * first entry of a page wins (libipt: the last added, so in reverse); an
 * address with low bits set is a page not mapped (ptflow_engine.sh). */
static int raw_args(const char *pc, struct tool *t)
{
	char path[PATH_MAX + 16];
	uint64_t *addr = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s.addr", pc);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	addr = malloc(4096 * sizeof(*addr));
	if (addr)
		n = fread(addr, sizeof(*addr), 4096, f);
	fclose(f);
	for (size_t i = n; i-- > 0;) {
		char *a = malloc(PATH_MAX + 96);

		if (addr[i] & 0xfff)
			continue;
		if (!a || t->nargs + 2 >= (int)(sizeof(t->args) / sizeof(t->args[0]))) {
			free(a);
			break;
		}
		snprintf(a, PATH_MAX + 96, "%s.dump:%zu-%zu:0x%llx", pc, i * 4096,
			 (i + 1) * 4096, (unsigned long long)addr[i]);
		t->args[t->nargs++] = "--raw";
		t->args[t->nargs++] = a;
	}
	free(addr);
	return n ? 0 : -1;
}

int main(int argc, char **argv)
{
	char big[PATH_MAX + 64], small[PATH_MAX + 64], ptcov[PATH_MAX + 16],
	     ptdump[PATH_MAX + 16], pc[PATH_MAX + 128], ptflow[PATH_MAX + 16],
	     fbig[PATH_MAX + 64], fsmall[PATH_MAX + 64];
	unsigned int jobs = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	off_t bigsize, smallsize, fbigsize, fsmallsize;
	const char *only = NULL;
	int a = 1;

	if (argc >= 3 && !strcmp(argv[1], "-j")) {
		jobs = (unsigned int)atoi(argv[2]);
		a = 3;
	}
	if (a < argc)
		only = argv[a];
	if (jobs < 2)
		jobs = 2;
	if (find_real()) {
		printf("bench_par: no shared test data, skipped\n");
		return 0;
	}
	snprintf(big, sizeof(big), "%s/../bench-data", bindir);
	mkdir(big, 0755);
	snprintf(big, sizeof(big), "%s/../bench-data/par-mruby-256M.pt", bindir);
	snprintf(small, sizeof(small), "%s/../bench-data/par-mruby-64M.pt", bindir);
	snprintf(fbig, sizeof(fbig), "%s/../bench-data/par-mruby-32M.pt", bindir);
	snprintf(fsmall, sizeof(fsmall), "%s/../bench-data/par-mruby-16M.pt", bindir);
	bigsize = !only || strcmp(only, "ptflow") ? make_trace(big, 256) : 0;
	smallsize = !only || strcmp(only, "ptflow") ? make_trace(small, 64) : 0;
	fbigsize = make_trace(fbig, 32);
	fsmallsize = make_trace(fsmall, 16);
	if (bigsize < 0 || smallsize < 0 || fbigsize < 0 || fsmallsize < 0) {
		printf("bench_par: cannot write the traces, skipped\n");
		return 0;
	}
	snprintf(ptcov, sizeof(ptcov), "%s/../bin/ptcov", bindir);
	snprintf(ptdump, sizeof(ptdump), "%s/../bin/ptdump", bindir);
	snprintf(ptflow, sizeof(ptflow), "%s/../bin/ptflow", bindir);
	snprintf(pc, sizeof(pc), "%s/libxdc/pagecache/mruby", real);
	{
		struct tool cov = { "ptcov", NULL, 0, 8, { ptcov, "--pt", "TRACE",
			"--pagecache", pc, "--filter", "400000-4b6000", "--edges" } };
		struct tool dump = { "ptdump", NULL, 1, 3, { ptdump, "--lastip", "TRACE" } };
		struct tool calls = { "ptflow", "ptflow --calls", 1, 7, { ptflow,
			"--engine=lwpt", "--calls", "--cpu", "6/94/3", "--pt", "TRACE" } };
		struct tool quiet = { "ptflow", "ptflow --quiet --stat", 1, 8, { ptflow,
			"--engine=lwpt", "--quiet", "--stat", "--cpu", "6/94/3", "--pt",
			"TRACE" } };

		if (!only || !strcmp(only, "ptcov"))
			bench_tool(&cov, big, bigsize, small, smallsize, jobs);
		if (!only || !strcmp(only, "ptdump"))
			bench_tool(&dump, big, bigsize, small, smallsize, jobs);
		if ((!only || !strcmp(only, "ptflow")) &&
		    !raw_args(pc, &calls) && !raw_args(pc, &quiet)) {
			bench_tool(&calls, fbig, fbigsize, fsmall, fsmallsize, jobs);
			bench_tool(&quiet, fbig, fbigsize, fsmall, fsmallsize, jobs);
		}
	}
	return 0;
}
