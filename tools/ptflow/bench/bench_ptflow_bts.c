// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptflow_bts: ptflow on a BTS capture against ptflow on a PT capture
 * of the same run (issue 37, "Targets": the BTS decode at least as fast,
 * BTS/PT <= 1).
 *
 * Input: bts_pt_pair's two captures of trace_flow_prog (the program of
 * the flow tests, single-stepped once under ptrace and fed REPEAT times
 * to the PT packet generator and to the BTS model; see bts_pt_pair.c),
 * written to build/bench-data/bts-pt-REPEAT/{pt,bts} and kept until the
 * program or bts_pt_pair is built again.
 *
 * Three decodes: the PT capture with ptflow's default engine (libipt's
 * instruction decoder: "pt"), the PT capture with --engine=lwpt (libpt's
 * flow engine, the faster: "pt-lwpt"), the BTS capture (libpt's BTS
 * decoder: "bts"). First, each one's listing (ptflow --no-inst
 * --no-symbols) is written to a file and compared with pt's address by
 * address (lines starting with '[' are events and skipped): the
 * instruction counts must be equal and the flows the same, else the
 * figures are void (said so, exit 1).
 * --calls must have as many call and as many return lines on all (the
 * event lines differ: PT's "resumed" after a system call is BTS's
 * "enabled" at the return from the kernel), else that figure is void.
 * Then per view (the listing, --calls) ptflow runs as a whole process
 * (start-up, capture and image loading included), stdout to /dev/null,
 * the three interleaved, best of RUNS by the child's CPU time (user +
 * sys: wall time on a shared machine measures the other users). Prints
 * the instruction counts, the three times and BTS/PT against both PT
 * engines with the load average; never fails on speed.
 *
 * Usage: bench_ptflow_bts [-n RUNS] [-r REPEAT]   (defaults 5, 200:
 * about 7.8 M instructions)
 */
#include "tests/bench/bench_child.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Compare the listings @a and @b address by address: their instruction
 * counts in @na and @nb (each counted to its end), the first differing
 * instruction's number in @diff (0: none).
 */
static void compare_ips(const char *a, const char *b, unsigned long long *na,
			unsigned long long *nb, unsigned long long *diff)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	unsigned long long ia = 0, ib = 0;
	bool ha = fa != NULL, hb = fb != NULL;

	*na = *nb = *diff = 0;
	while (ha || hb) {
		if (ha)
			ha = bench_listing_next_ip(fa, &ia);
		if (hb)
			hb = bench_listing_next_ip(fb, &ib);
		*na += ha;
		*nb += hb;
		if (!*diff && (ha != hb || ia != ib) && (ha || hb))
			*diff = (ha ? *na : *nb);
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
}

/* The call and return lines of a --calls output: "call" or "return"
 * after the time and thread columns, counted as 1 and 1 << 32. */
static unsigned long long calls_of(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long long n = 0;
	char line[1024];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, " call "))
			n++;
		else if (strstr(line, " return "))
			n += 1ull << 32;
	}
	fclose(f);
	return n;
}

/* bts_pt_pair's captures in @dir/pt and @dir/bts, written if missing. */
static int captures(const char *bindir, const char *dir, int repeat)
{
	char pair[PATH_MAX + 128], prog[PATH_MAX + 128], pt[PATH_MAX + 128];
	char bts[PATH_MAX + 128];
	char done[PATH_MAX + 128], reps[16];
	char *argv[] = { pair, "-n", reps, pt, bts, prog, NULL };
	struct stat sd, sp, sh;
	int fd;

	snprintf(done, sizeof(done), "%s/done", dir);
	snprintf(pair, sizeof(pair), "%s/bts_pt_pair", bindir);
	snprintf(prog, sizeof(prog), "%s/../tests/trace_flow_prog", bindir);
	/* Kept unless the program or the helper was built again since. */
	if (!stat(done, &sd) && !stat(prog, &sp) && !stat(pair, &sh) &&
	    sd.st_mtime >= sp.st_mtime && sd.st_mtime >= sh.st_mtime)
		return 0;
	unlink(done);
	snprintf(pt, sizeof(pt), "%s/pt", dir);
	snprintf(bts, sizeof(bts), "%s/bts", dir);
	snprintf(reps, sizeof(reps), "%d", repeat);
	if (access(pair, X_OK) || access(prog, X_OK))
		return -1;
	fd = open("/dev/null", O_WRONLY);
	if (bench_child_run(argv, fd, NULL) != 0) {
		close(fd);
		return -1;
	}
	close(fd);
	fd = open(done, O_WRONLY | O_CREAT, 0644);	/* complete: keep them */
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The decodes timed: the PT capture with each engine, the BTS capture
 * (libpt's BTS decoder whatever the engine). */
enum { PT, PT_LWPT, BTS, NRUN };

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		const char *opts[3];
	} views[] = {
		{ "listing (--no-inst --no-symbols)", { "--no-inst", "--no-symbols", NULL } },
		{ "calls (--calls)", { "--calls", NULL, NULL } },
	};
	static const char *const rname[NRUN] = { "pt", "pt-lwpt", "bts" };
	static const char *const engine[NRUN] = { NULL, "--engine=lwpt", NULL };
	char self[PATH_MAX], bindir[PATH_MAX], ptflow[PATH_MAX + 32];
	char dir[PATH_MAX + 64], cap[NRUN][PATH_MAX + 72];
	char tmpl[] = "/tmp/bench_ptflow_bts.XXXXXX", out[NRUN][64];
	unsigned long long n[NRUN], diff[NRUN];
	double load[3] = { 0 };
	int runs = 5, repeat = 200, c, status = 0;
	ssize_t len;

	while ((c = getopt(argc, argv, "n:r:")) != -1) {
		if (c == 'n') {
			runs = atoi(optarg) > 0 ? atoi(optarg) : 1;
		} else if (c == 'r') {
			repeat = atoi(optarg) > 0 ? atoi(optarg) : 1;
		} else {
			fprintf(stderr, "usage: %s [-n RUNS] [-r REPEAT]\n", argv[0]);
			return 2;
		}
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return 1;
	self[len] = 0;
	snprintf(bindir, sizeof(bindir), "%s", dirname(self));
	/* build/bench/bench_ptflow_bts -> build/bin/ptflow */
	snprintf(ptflow, sizeof(ptflow), "%s/../bin/ptflow", bindir);
	snprintf(dir, sizeof(dir), "%s/../bench-data", bindir);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/../bench-data/bts-pt-%d", bindir, repeat);
	mkdir(dir, 0755);
	if (access(ptflow, X_OK) || captures(bindir, dir, repeat)) {
		printf("bench_ptflow_bts: ptflow, bts_pt_pair or trace_flow_prog not built, "
		       "or ptrace not permitted: skipped\n");
		return 0;
	}
	for (int k = 0; k < NRUN; k++)
		snprintf(cap[k], sizeof(cap[k]), "%s/%s", dir, k == BTS ? "bts" : "pt");
	if (!mkdtemp(tmpl))
		return 1;
	for (int k = 0; k < NRUN; k++)
		snprintf(out[k], sizeof(out[k]), "%s/%s", tmpl, rname[k]);
	(void)!getloadavg(load, 3);
	printf("bench_ptflow_bts: trace_flow_prog x %d, the PT model's and the BTS model's "
	       "capture of the same run, best of %d by CPU time, load %.2f %.2f %.2f\n",
	       repeat, runs, load[0], load[1], load[2]);
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		double best[NRUN] = { 1e30, 1e30, 1e30 };
		char *args[NRUN][7];

		for (int k = 0; k < NRUN; k++) {
			int a = 0;

			args[k][a++] = ptflow;
			if (engine[k])
				args[k][a++] = (char *)engine[k];
			for (int o = 0; o < 3 && views[v].opts[o]; o++)
				args[k][a++] = (char *)views[v].opts[o];
			args[k][a++] = cap[k];
			args[k][a] = NULL;
			if (bench_child_time(args[k], out[k]) < 0) {
				printf("  %s: ptflow (%s) failed: no figure\n",
				       views[v].name, rname[k]);
				status = 1;
				goto next;
			}
		}
		if (v == 0) {
			compare_ips(out[PT], out[BTS], &n[PT], &n[BTS], &diff[BTS]);
			compare_ips(out[PT], out[PT_LWPT], &n[PT], &n[PT_LWPT], &diff[PT_LWPT]);
			printf("  instructions decoded: pt %llu  pt-lwpt %llu  bts %llu\n",
			       n[PT], n[PT_LWPT], n[BTS]);
			if (n[PT] != n[BTS] || n[PT] != n[PT_LWPT] || diff[BTS] ||
			    diff[PT_LWPT] || !n[PT]) {
				printf("  the flows differ (instruction %llu): "
				       "the figures are void\n",
				       diff[BTS] ? diff[BTS] : diff[PT_LWPT]);
				status = 1;
				break;
			}
		} else if (calls_of(out[PT]) != calls_of(out[BTS]) ||
			   calls_of(out[PT]) != calls_of(out[PT_LWPT]) || !calls_of(out[PT])) {
			printf("  %s: the call and return lines differ: no figure\n",
			       views[v].name);
			status = 1;
			continue;
		}
		for (int r = 0; r < runs; r++) {
			for (int k = 0; k < NRUN; k++) {
				double t = bench_child_time(args[k], NULL);

				if (t >= 0 && t < best[k])
					best[k] = t;
			}
		}
		if (best[PT] >= 1e30 || best[PT_LWPT] >= 1e30 || best[BTS] >= 1e30) {
			printf("  %s: a timed run failed: no figure\n", views[v].name);
			status = 1;
			continue;
		}
		printf("  %-34s pt %7.1f ms  pt-lwpt %7.1f ms  bts %7.1f ms  "
		       "bts/pt %.2fx  bts/pt-lwpt %.2fx  (target <= 1)\n",
		       views[v].name, best[PT] * 1e3, best[PT_LWPT] * 1e3, best[BTS] * 1e3,
		       best[PT] > 0 ? best[BTS] / best[PT] : 0,
		       best[PT_LWPT] > 0 ? best[BTS] / best[PT_LWPT] : 0);
next:
		;
	}
	for (int k = 0; k < NRUN; k++)
		unlink(out[k]);
	rmdir(tmpl);
	return status;
}
