// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptflow_engine: ptflow --engine=lwpt (libpt's flow engine) against
 * --engine=libipt (libipt's instruction decoder) on kAFL's real mruby
 * trace as perf.data (../shared/testdata/perf/kafl/mruby.perf.data,
 * 6,334,131 instructions; issue 34 point 1), in one run:
 *   - the listing, ptflow --no-inst --no-symbols (one address a line);
 *   - the call trace, ptflow --calls.
 * Each view is first run once per engine to a file and the two outputs
 * compared (a figure is void where they differ: then it says so and
 * prints no ratio). Then each program runs as a whole process (start-up,
 * perf.data reading, image loading included), stdout to /dev/null, the
 * engines interleaved, best of 5 by the child's CPU time (user + sys:
 * wall time on a shared machine measures the other users). Prints the
 * times and libipt/lwpt (how many times faster lwpt is); never fails on
 * speed.
 *
 * Usage: bench_ptflow_engine [-n RUNS]   (default 5)
 */
#include "tests/bench/bench_child.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether files @a and @b hold the same bytes. */
static bool same_files(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			same = false;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* Run @argv with stdout to @path (NULL: /dev/null); its CPU time or < 0. */
static double run(char *const argv[], const char *path)
{
	int fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	double t = -1;

	if (fd < 0)
		return -1;
	if (bench_child_run(argv, fd, &t) != 0)
		t = -1;
	close(fd);
	return t;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		const char *opts[3];
	} views[] = {
		{ "listing (--no-inst --no-symbols)", { "--no-inst", "--no-symbols", NULL } },
		{ "calls (--calls)", { "--calls", NULL, NULL } },
	};
	char self[PATH_MAX], ptflow[PATH_MAX + 32], data[PATH_MAX], symfs[PATH_MAX];
	const char *shared = getenv("LWPT_SHARED");
	char tmpl[] = "/tmp/bench_ptflow_engine.XXXXXX";
	int runs = 5;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "-n"))
		runs = atoi(argv[2]) > 0 ? atoi(argv[2]) : 5;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	/* build/bench/bench_ptflow_engine -> build/bin/ptflow */
	snprintf(ptflow, sizeof(ptflow), "%s/../bin/ptflow", dirname(self));
	snprintf(data, sizeof(data), "%s/testdata/perf/kafl/mruby.perf.data",
		 shared ? shared : "../shared");
	snprintf(symfs, sizeof(symfs), "%s/testdata/perf/kafl/symfs",
		 shared ? shared : "../shared");
	if (access(data, R_OK) || access(ptflow, X_OK)) {
		printf("bench_ptflow_engine: %s or %s missing: skipped\n", data, ptflow);
		return 0;
	}
	if (!mkdtemp(tmpl))
		return 1;
	printf("bench_ptflow_engine: ptflow on kAFL's mruby perf.data "
	       "(6,334,131 instructions), best of %d by CPU time\n", runs);
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		double best[2] = { 1e30, 1e30 };
		char out[2][PATH_MAX + 64], engine[2][32];
		char *args[2][12];
		bool ok;

		for (int e = 0; e < 2; e++) {
			int k = 0;

			snprintf(engine[e], sizeof(engine[e]), "--engine=%s",
				 e ? "lwpt" : "libipt");
			snprintf(out[e], sizeof(out[e]), "%s/%d", tmpl, e);
			args[e][k++] = ptflow;
			args[e][k++] = engine[e];
			for (int o = 0; o < 3 && views[v].opts[o]; o++)
				args[e][k++] = (char *)views[v].opts[o];
			args[e][k++] = "--symfs";
			args[e][k++] = symfs;
			args[e][k++] = data;
			args[e][k] = NULL;
			if (run(args[e], out[e]) < 0) {
				printf("  %s: ptflow %s failed\n", views[v].name, engine[e]);
				goto next;
			}
		}
		ok = same_files(out[0], out[1]);
		unlink(out[0]);
		unlink(out[1]);
		if (!ok) {
			printf("  %s: the outputs differ: no figure\n", views[v].name);
			continue;
		}
		for (int r = 0; r < runs; r++) {
			for (int e = 0; e < 2; e++) {
				double t = run(args[e], NULL);

				if (t >= 0 && t < best[e])
					best[e] = t;
			}
		}
		printf("  %-34s libipt %7.1f ms  lwpt %7.1f ms  libipt/lwpt %.2fx "
		       "(output identical)\n", views[v].name, best[0] * 1e3,
		       best[1] * 1e3, best[1] > 0 ? best[0] / best[1] : 0);
next:
		;
	}
	rmdir(tmpl);
	return 0;
}
