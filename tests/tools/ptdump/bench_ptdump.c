// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptdump: text output speed of lwpt's ptdump against libipt's ptdump
 * on the real hardware traces (issue 8 point 7: at least 10x).
 *
 * For every *.pt under $LWPT_SHARED/testdata/pt/real (or ../shared):
 *
 *  1. the trace is repeated into a temporary file of at least 16 MiB
 *     (every trace starts with a PSB, so the copies decode as one stream)
 *     so that process start-up does not count; the packet count comes from
 *     `ptdump --stats`;
 *  2. for each mode (default, --no-pad, --raw, --time) both programs run on that
 *     file with stdout to pipes and their output is compared byte for
 *     byte (libipt's ptdump only; a difference is reported with the first
 *     differing line, it is a bug);
 *  3. lwpt's ptdump runs REPS times (default 5), the reference REF_REPS
 *     times (default 3; it runs 10-20 times longer, so it varies less),
 *     interleaved, stdout to /dev/null; the figure is the best CPU time
 *     (user + system) of the child, from wait4(), since wall time on a
 *     shared machine mostly measures the other users.
 *
 *  4. `ptdump --stats` as a whole process (issue 17.1) on STATS_MIB (256)
 *     MiB of the qemu, mruby and avscript traces repeated, written once
 *     to build/bench-data/ (never committed), against ipt_pkt_loop (a
 *     whole process running libipt's pt_pkt_next() over the same file the
 *     way libipt's ptdump loads and loops); packet counts compared first.
 *
 * Printed per trace and mode: MB/s of trace and M packets/s for each
 * program and the ratio of their CPU times. The reference is libipt's
 * ptdump as built by scripts/build-libipt-ptdump (../libipt-ptdump/bin/
 * ptdump next to this program, or $LIBIPT_PTDUMP, or -R). When it is
 * missing, the reference is bench_printf_model (a printf-per-field model
 * of libipt's ptdump on libipt's decoder), labelled as such: a fallback,
 * not libipt's ptdump. Prints figures only; never fails on speed.
 *
 * Usage: bench_ptdump [-r REPS] [-n REF_REPS] [-p PTDUMP] [-R LIBIPT_PTDUMP]
 *                     [-m MODEL] [-o MODES]
 * MODES: comma-separated subset of default,no-pad,raw,time,stats (default:
 * all; stats is step 4).
 */
#include "tests/bench/bench_child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BIG_MIN	(16 << 20)

struct mode {
	const char *name;
	const char *opt;	/* NULL: no option */
	int on;
};

static struct mode modes[] = {
	{ "default", NULL, 1 },
	{ "no-pad", "--no-pad", 1 },
	{ "raw", "--raw", 1 },
	{ "time", "--time", 1 },
};
#define NMODES	((int)(sizeof(modes) / sizeof(modes[0])))

struct prog {
	const char *label;
	char path[PATH_MAX + 64];
};

static struct prog lwpt = { "lwpt", "" }, ref = { "libipt", "" };
static struct prog ipt_loop = { "pt_pkt_next loop", "" };
static int ref_is_model, reps = 5, ref_reps = 3, devnull, stats_on = 1;

/* Geometric mean of the ratios and their minimum, per mode. */
static double log_ratio_sum[NMODES], min_ratio[NMODES];
static int nratios[NMODES], mismatches, compared;

/* Start @prog [@opt] @trace with stdout to @outfd; return the pid. */
static pid_t start(const struct prog *prog, const char *opt,
		   const char *trace, int outfd, int closefd)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	dup2(outfd, STDOUT_FILENO);
	dup2(devnull, STDERR_FILENO);
	if (closefd >= 0)
		close(closefd);
	if (opt)
		execl(prog->path, prog->path, opt, trace, (char *)NULL);
	else
		execl(prog->path, prog->path, trace, (char *)NULL);
	_exit(127);
}

/* Run to /dev/null; return the child's CPU time or a negative value. */
static double timed_run(const struct prog *prog, const char *opt,
			const char *trace)
{
	pid_t pid = start(prog, opt, trace, devnull, -1);
	double cpu;

	if (pid < 0 || bench_child_wait(pid, &cpu) != 0)
		return -1;
	return cpu;
}

/* One side of an output comparison. */
struct side {
	int fd;
	char *buf;
	size_t len;
	int eof;
};

#define CMP_BUF	(1 << 20)

static void print_line(const char *who, const char *s, size_t n)
{
	const char *nl = memchr(s, '\n', n);

	if (nl)
		n = (size_t)(nl - s);
	if (n > 100)
		n = 100;
	printf("      %-7s%.*s%s\n", who, (int)n, s, nl ? "" : " [end]");
}

/*
 * Run lwpt's and libipt's ptdump [@opt] on @trace with stdout to pipes and
 * compare the streams. Returns 0 when identical, 1 when not (first
 * differing line printed), -1 when they could not be run.
 */
static int compare_outputs(const char *opt, const char *trace)
{
	struct side s[2];
	unsigned long long line = 1;
	int i, diff = 0, ret = 0;
	pid_t pid[2];

	for (i = 0; i < 2; i++) {
		int p[2];

		if (pipe(p))
			return -1;
		pid[i] = start(i ? &ref : &lwpt, opt, trace, p[1], p[0]);
		close(p[1]);
		s[i].fd = p[0];
		s[i].buf = malloc(CMP_BUF);
		s[i].len = 0;
		s[i].eof = 0;
	}
	while (!diff && !(s[0].eof && s[1].eof)) {
		struct pollfd pfd[2];
		int who[2], np = 0;
		size_t n, k, keep;

		for (i = 0; i < 2; i++)
			if (!s[i].eof && s[i].len < CMP_BUF) {
				pfd[np].fd = s[i].fd;
				pfd[np].events = POLLIN;
				who[np++] = i;
			}
		if (np && poll(pfd, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -1;
			break;
		}
		for (k = 0; k < (size_t)np; k++) {
			struct side *x = &s[who[k]];
			ssize_t r;

			if (!pfd[k].revents)
				continue;
			r = read(x->fd, x->buf + x->len, CMP_BUF - x->len);
			if (r > 0)
				x->len += (size_t)r;
			else if (r == 0 || errno != EINTR)
				x->eof = 1;
		}
		/* Compare what both have; keep the last partial line. */
		n = s[0].len < s[1].len ? s[0].len : s[1].len;
		for (k = 0, keep = 0; k < n; k++) {
			if (s[0].buf[k] != s[1].buf[k]) {
				diff = 1;
				break;
			}
			if (s[0].buf[k] == '\n') {
				line++;
				keep = k + 1;
			}
		}
		/* One ended and everything it printed matched: the other
		 * must have ended there too. */
		for (i = 0; i < 2 && !diff; i++)
			if (s[i].eof && s[i].len == n && s[!i].len > n)
				diff = 1;
		if (!diff && n == CMP_BUF)
			keep = n;	/* no newline in 1 MiB: not ptdump */
		if (diff) {
			printf("    OUTPUT MISMATCH (%s): first difference in line %llu:\n",
			       opt ? opt : "default", line);
			print_line("lwpt", s[0].buf + keep, s[0].len - keep);
			print_line("libipt", s[1].buf + keep, s[1].len - keep);
			break;
		}
		for (i = 0; i < 2; i++) {
			memmove(s[i].buf, s[i].buf + keep, s[i].len - keep);
			s[i].len -= keep;
		}
	}
	for (i = 0; i < 2; i++) {
		close(s[i].fd);
		free(s[i].buf);
		if (diff)
			kill(pid[i], SIGKILL);
		if (bench_child_wait(pid[i], NULL) != 0 && !diff)
			ret = -1;
	}
	return diff ? 1 : ret;
}

#define BIG_NAME_MAX	64

/* Write @path (@size bytes) repeated to at least BIG_MIN bytes. */
static int make_big(const char *path, off_t size, char *name, off_t *big_size)
{
	char *data;
	int in, out;
	off_t done = 0;

	if (size <= 0)
		return -1;
	data = malloc((size_t)size);
	in = open(path, O_RDONLY);
	if (!data || in < 0 || read(in, data, (size_t)size) != size) {
		free(data);
		if (in >= 0)
			close(in);
		return -1;
	}
	close(in);
	snprintf(name, BIG_NAME_MAX, "/tmp/bench_ptdump_big.XXXXXX");
	out = mkstemp(name);
	if (out < 0) {
		free(data);
		return -1;
	}
	while (done < BIG_MIN) {
		if (write(out, data, (size_t)size) != size) {
			close(out);
			unlink(name);
			free(data);
			return -1;
		}
		done += size;
	}
	close(out);
	free(data);
	*big_size = done;
	return 0;
}

#define STATS_MIB	256

/* The traces of issue 17.1, in this order, repeated into the stats file. */
static const char *const stats_traces[] = {
	"libxdc/qemu__trace1.pt", "libxdc/mruby__trace.pt",
	"libxdc/avscript_32__failed_trace_12709_1.pt",
};

/* Append @path to @out; return its size or -1. */
static off_t append_file(int out, const char *path)
{
	static char buf[1 << 16];
	off_t done = 0;
	ssize_t n;
	int in = open(path, O_RDONLY);

	if (in < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
		done += n;
	}
	close(in);
	return n < 0 ? -1 : done;
}

/*
 * @path: the stats traces concatenated and repeated to >= STATS_MIB MiB;
 * kept between runs (regenerated if its size is off). Returns its size or
 * -1.
 */
static off_t make_stats_file(const char *real, const char *path)
{
	char src[PATH_MAX + 64], tmp[PATH_MAX + 72];
	struct stat st;
	off_t one = 0, done = 0, n;
	size_t i;
	int out;

	for (i = 0; i < sizeof(stats_traces) / sizeof(stats_traces[0]); i++) {
		snprintf(src, sizeof(src), "%s/%s", real, stats_traces[i]);
		if (stat(src, &st))
			return -1;
		one += st.st_size;
	}
	if (one <= 0)
		return -1;
	n = ((off_t)STATS_MIB << 20) / one + 1;
	if (!stat(path, &st) && st.st_size == n * one)
		return st.st_size;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return -1;
	while (done < n * one)
		for (i = 0; i < sizeof(stats_traces) / sizeof(stats_traces[0]); i++) {
			off_t r;

			snprintf(src, sizeof(src), "%s/%s", real, stats_traces[i]);
			r = append_file(out, src);
			if (r < 0) {
				close(out);
				unlink(tmp);
				return -1;
			}
			done += r;
		}
	if (close(out) || rename(tmp, path))
		return -1;
	return done;
}

/* "packets: N" from @prog [@opt] @file's output; 0 if none. */
static unsigned long long packets_of(const struct prog *prog, const char *opt,
				     const char *file)
{
	char *argv[] = { (char *)prog->path, (char *)(opt ? opt : file),
			 opt ? (char *)file : NULL, NULL };

	return bench_child_value(argv, "packets");
}

/* Step 4: whole-process ptdump --stats against the pt_pkt_next() loop. */
static void bench_stats(const char *real, const char *dir)
{
	char path[PATH_MAX + 64];
	double best[2] = { 1e30, 1e30 };
	unsigned long long np[2];
	off_t size;
	int r, i;

	snprintf(path, sizeof(path), "%s/../bench-data", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/../bench-data/stats-%dM.pt", dir,
		 STATS_MIB);
	size = make_stats_file(real, path);
	if (size < 0) {
		printf("ptdump --stats: cannot write %s, skipped\n", path);
		return;
	}
	if (access(ipt_loop.path, X_OK)) {
		printf("ptdump --stats: %s not built, skipped\n", ipt_loop.path);
		return;
	}
	np[0] = packets_of(&lwpt, "--stats", path);
	np[1] = packets_of(&ipt_loop, NULL, path);
	for (r = 0; r < 3; r++)
		for (i = 0; i < 2; i++) {
			double t = timed_run(i ? &ipt_loop : &lwpt,
					     i ? NULL : "--stats", path);

			if (t >= 0 && t < best[i])
				best[i] = t;
		}
	printf("\nptdump --stats, whole process, %.0f MiB of the qemu, mruby "
	       "and avscript traces repeated (%s), best of 3 by CPU time:\n",
	       (double)size / (1 << 20), path);
	if (best[0] >= 1e30 || best[1] >= 1e30) {
		printf("  run failed\n");
		return;
	}
	printf("  lwpt ptdump --stats       %6.3f s  %7.1f MB/s\n", best[0],
	       (double)size / best[0] / 1e6);
	printf("  libipt pt_pkt_next() loop %6.3f s  %7.1f MB/s\n", best[1],
	       (double)size / best[1] / 1e6);
	printf("  ratio %.1fx (required >= 4x, goal 8x); packets %llu vs %llu%s\n",
	       best[1] / best[0], np[0], np[1],
	       np[0] == np[1] ? " (equal)" : " - PACKET COUNTS DIFFER");
}

static const char *find_real(char *buf, size_t size)
{
	const char *env = getenv("LWPT_SHARED");
	const char *cands[] = { env, "../shared" };
	size_t i;

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		struct stat st;

		if (!cands[i])
			continue;
		snprintf(buf, size, "%s/testdata/pt/real", cands[i]);
		if (!stat(buf, &st) && S_ISDIR(st.st_mode))
			return buf;
	}
	return NULL;
}

static void bench_trace(const char *name, const char *path, off_t size)
{
	char big[BIG_NAME_MAX], label[24];
	unsigned long long pkts;
	off_t big_size;
	int m;

	if (make_big(path, size, big, &big_size))
		return;
	pkts = packets_of(&lwpt, "--stats", big);
	snprintf(label, sizeof(label), "%.22s", name);
	if (strlen(name) > 22)
		memcpy(label + 19, "...", 4);
	for (m = 0; m < NMODES; m++) {
		const char *opt = modes[m].opt;
		double best[2] = { 1e30, 1e30 }, ratio;
		const char *same = "";
		int r, i;

		if (!modes[m].on)
			continue;
		if (!ref_is_model) {
			int c = compare_outputs(opt, big);

			compared++;
			if (c > 0)
				mismatches++;
			same = c == 0 ? "identical" : c > 0 ? "DIFFERENT" :
			       "run failed";
		}
		/* Interleaved, so that load changes hit both alike. */
		for (r = 0; r < reps || r < ref_reps; r++)
			for (i = 0; i < 2; i++) {
				double t;

				if (r >= (i ? ref_reps : reps))
					continue;
				t = timed_run(i ? &ref : &lwpt, opt, big);

				if (t >= 0 && t < best[i])
					best[i] = t;
			}
		if (best[0] >= 1e30 || best[1] >= 1e30) {
			printf("%-22s %-7s run failed\n", label,
			       modes[m].name);
			continue;
		}
		ratio = best[1] / best[0];
		printf("%-22s %-7s %7.1f %7.2f %9.1f %7.2f %7.1fx  %s\n",
		       label, modes[m].name,
		       (double)big_size / best[0] / 1e6,
		       (double)pkts / best[0] / 1e6,
		       (double)big_size / best[1] / 1e6,
		       (double)pkts / best[1] / 1e6, ratio, same);
		fflush(stdout);
		log_ratio_sum[m] += log(ratio);
		if (!nratios[m] || ratio < min_ratio[m])
			min_ratio[m] = ratio;
		nratios[m]++;
	}
	unlink(big);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The traces of @dir and its subdirectories, in name order per directory. */
static void bench_dir(const char *dir)
{
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char **nn;

		if (e->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], base[NAME_MAX + 1];
		size_t len = strlen(names[i]);
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (!stat(path, &st) && S_ISDIR(st.st_mode))
			bench_dir(path);
		else if (!stat(path, &st) && len > 3 &&
			 !strcmp(names[i] + len - 3, ".pt")) {
			snprintf(base, sizeof(base), "%.*s", (int)(len - 3),
				 names[i]);
			bench_trace(base, path, st.st_size);
		}
		free(names[i]);
	}
	free(names);
}

static void select_modes(const char *list)
{
	int m;

	for (m = 0; m < NMODES; m++) {
		const char *p = strstr(list, modes[m].name);
		size_t n = strlen(modes[m].name);

		modes[m].on = p && (p == list || p[-1] == ',') &&
			      (p[n] == ',' || !p[n]);
	}
	stats_on = strstr(list, "stats") != NULL;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
	const char *env = getenv("LIBIPT_PTDUMP");
	char model[PATH_MAX + 64] = "";
	int c, m;

	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(dir, sizeof(dir), "%s", dirname(self));
	snprintf(lwpt.path, sizeof(lwpt.path), "%s/../bin/ptdump", dir);
	if (env && *env)
		snprintf(ref.path, sizeof(ref.path), "%s", env);
	else
		snprintf(ref.path, sizeof(ref.path),
			 "%s/../libipt-ptdump/bin/ptdump", dir);
	snprintf(model, sizeof(model), "%s/bench_printf_model", dir);
	snprintf(ipt_loop.path, sizeof(ipt_loop.path), "%s/ipt_pkt_loop", dir);

	while ((c = getopt(argc, argv, "r:n:p:R:m:o:")) != -1) {
		switch (c) {
		case 'r':
			reps = atoi(optarg) > 0 ? atoi(optarg) : 1;
			break;
		case 'n':
			ref_reps = atoi(optarg) > 0 ? atoi(optarg) : 1;
			break;
		case 'p':
			snprintf(lwpt.path, sizeof(lwpt.path), "%s", optarg);
			break;
		case 'R':
			snprintf(ref.path, sizeof(ref.path), "%s", optarg);
			break;
		case 'm':
			snprintf(model, sizeof(model), "%s", optarg);
			break;
		case 'o':
			select_modes(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-r REPS] [-n REF_REPS] "
				"[-p PTDUMP] "
				"[-R LIBIPT_PTDUMP] [-m MODEL] "
				"[-o default,no-pad,raw,time,stats]\n", argv[0]);
			return 1;
		}
	}

	if (access(lwpt.path, X_OK)) {
		printf("bench_ptdump: %s not built, skipped\n", lwpt.path);
		return 0;
	}
	if (!find_real(real, sizeof(real))) {
		printf("bench_ptdump: no shared test data, skipped\n");
		return 0;
	}
	if (access(ref.path, X_OK)) {
		printf("bench_ptdump: libipt's ptdump (%s) is not available "
		       "(scripts/build-libipt-ptdump could not build it)\n",
		       ref.path);
		if (access(model, X_OK)) {
			printf("bench_ptdump: nor is %s; lwpt only\n", model);
			snprintf(model, sizeof(model), "%s", lwpt.path);
		}
		printf("FALLBACK: comparing with %s, a printf-per-field model "
		       "of libipt's ptdump on libipt's pt_pkt_next() - NOT "
		       "libipt's ptdump, a lower bound for its time\n", model);
		snprintf(ref.path, sizeof(ref.path), "%s", model);
		ref.label = "model";
		ref_is_model = 1;
	}
	devnull = open("/dev/null", O_WRONLY);
	if (devnull < 0)
		return 1;

	for (m = 0; m < NMODES && !modes[m].on; m++)
		;
	if (m < NMODES) {
		printf("ptdump text output: %s vs %s\n", lwpt.path, ref.path);
		printf("each trace repeated to >= 16 MiB, stdout to /dev/null, best "
		       "of %d (lwpt) and %d (%s) runs by the child's CPU time "
		       "(user+sys, wait4)%s\n", reps, ref_reps, ref.label,
		       ref_is_model ? "" :
		       "; outputs compared byte for byte first");
		printf("%-22s %-7s %7s %7s %9s %7s %8s  %s\n", "", "", "lwpt",
		       "lwpt", ref.label, ref.label, "", "");
		printf("%-22s %-7s %7s %7s %9s %7s %8s  %s\n", "trace", "mode",
		       "MB/s", "Mpkt/s", "MB/s", "Mpkt/s", "ratio",
		       ref_is_model ? "" : "output");
		bench_dir(real);
	}

	for (m = 0; m < NMODES; m++)
		if (nratios[m])
			printf("%-7s ratio lwpt/%s: min %.1fx, geometric mean "
			       "%.1fx over %d traces%s\n", modes[m].name,
			       ref.label, min_ratio[m],
			       exp(log_ratio_sum[m] / nratios[m]), nratios[m],
			       ref_is_model ? "" : " (required: min >= 10x)");
	if (!ref_is_model && compared)
		printf("outputs: %d of %d identical%s\n",
		       compared - mismatches, compared,
		       mismatches ? " - OUTPUT MISMATCH, see above" : "");
	if (stats_on)
		bench_stats(real, dir);
	close(devnull);
	return 0;
}
