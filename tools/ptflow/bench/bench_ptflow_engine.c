// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptflow_engine: ptflow --engine=lwpt (libpt's flow engine) against
 * --engine=libipt (libipt's instruction decoder) and Linux perf's decoder
 * (perf script, where perf is installed) on kAFL's real mruby trace as
 * perf.data (../shared/testdata/perf/kafl/mruby.perf.data, 6,334,131
 * instructions; issue 34 points 1 and 2, its targets), in one run:
 *   - the listing, ptflow --no-inst --no-symbols (one address a line)
 *     against perf script --itrace=i0ns -F ip (target: >= 30x perf);
 *   - the call trace, ptflow --calls against perf script --itrace=cr
 *     (target: >= 10x perf);
 *   - the hot spots, ptflow --report (target: lwpt >= 10x libipt).
 * Each view is first run once per program to a file and the outputs
 * compared: the two engines' byte for byte, perf's listing address for
 * address with ptflow's (its other lines are events); perf's
 * --itrace=cr has another format and is not compared here (that libipt's
 * callees equal perf's is the README's and kafl_perf.sh's). A figure is
 * void where the compared outputs differ: then it says so and prints no
 * ratio. Then each program runs as a
 * whole process (start-up, perf.data reading, image loading included),
 * stdout to /dev/null, the programs interleaved, best of 5 by the child's
 * CPU time (user + sys: wall time on a shared machine measures the other
 * users). Prints the times and the ratios side by side with the load
 * average; never fails on speed.
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

/* Whether listings @a and @b hold the same addresses in the same order. */
static bool same_ips(const char *a, const char *b)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	bool same = fa && fb;
	unsigned long long ia, ib;

	while (same) {
		bool ha = bench_listing_next_ip(fa, &ia);
		bool hb = bench_listing_next_ip(fb, &ib);

		if (ha != hb || (ha && ia != ib))
			same = false;
		if (!ha)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* perf's path on $PATH into @buf; false if there is none. */
static bool find_perf(char *buf, size_t size)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		if (n && n < sizeof(dir)) {
			memcpy(dir, path, n);
			dir[n] = 0;
			snprintf(buf, size, "%s/perf", dir);
			if (!access(buf, X_OK))
				return true;
		}
		path += n + (path[n] == ':');
	}
	return false;
}

enum { P_PERF, P_LIBIPT, P_LWPT, NPROG };

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		const char *opts[3];
		const char *perf[4];	/* perf script's options; none: NULL */
		const char *target;
	} views[] = {
		{ "listing (--no-inst --no-symbols)", { "--no-inst", "--no-symbols", NULL },
		  { "--itrace=i0ns", "-F", "ip", NULL }, "perf/lwpt >= 30" },
		{ "calls (--calls)", { "--calls", NULL, NULL },
		  { "--itrace=cr", NULL, NULL, NULL }, "perf/lwpt >= 10" },
		{ "report (--report)", { "--report", NULL, NULL },
		  { NULL, NULL, NULL, NULL }, "libipt/lwpt >= 10" },
	};
	static const char *const pname[NPROG] = { "perf", "libipt", "lwpt" };
	char self[PATH_MAX], ptflow[PATH_MAX + 32], data[PATH_MAX], symfs[PATH_MAX];
	char perf[PATH_MAX + 8];
	const char *shared = getenv("LWPT_SHARED");
	char tmpl[] = "/tmp/bench_ptflow_engine.XXXXXX";
	bool have_perf;
	double load[3] = { 0 };
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
	have_perf = find_perf(perf, sizeof(perf));
	(void)!getloadavg(load, 3);
	printf("bench_ptflow_engine: kAFL's mruby perf.data (6,334,131 "
	       "instructions), best of %d by CPU time, load %.2f %.2f %.2f%s\n",
	       runs, load[0], load[1], load[2],
	       have_perf ? "" : " (no perf on $PATH: its column skipped)");
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		double best[NPROG] = { 1e30, 1e30, 1e30 };
		char out[NPROG][PATH_MAX + 64], engine[NPROG][32];
		char *args[NPROG][14];
		bool use[NPROG] = { false, true, true };
		bool ok;

		use[P_PERF] = have_perf && views[v].perf[0];
		for (int e = 0; e < NPROG; e++)
			snprintf(out[e], sizeof(out[e]), "%s/%d", tmpl, e);
		for (int e = 0; e < NPROG; e++) {
			int k = 0;

			if (!use[e])
				continue;
			if (e == P_PERF) {
				args[e][k++] = perf;
				args[e][k++] = "script";
				args[e][k++] = "-i";
				args[e][k++] = data;
				args[e][k++] = "--symfs";
				args[e][k++] = symfs;
				for (int o = 0; o < 4 && views[v].perf[o]; o++)
					args[e][k++] = (char *)views[v].perf[o];
				args[e][k] = NULL;
			} else {
				snprintf(engine[e], sizeof(engine[e]), "--engine=%s",
					 pname[e]);
				args[e][k++] = ptflow;
				args[e][k++] = engine[e];
				for (int o = 0; o < 3 && views[v].opts[o]; o++)
					args[e][k++] = (char *)views[v].opts[o];
				args[e][k++] = "--symfs";
				args[e][k++] = symfs;
				args[e][k++] = data;
				args[e][k] = NULL;
			}
			if (bench_child_time(args[e], out[e]) < 0) {
				printf("  %s: %s failed\n", views[v].name, pname[e]);
				use[e] = false;
				if (e != P_PERF)
					goto next;	/* its files go with the next */
			}
		}
		ok = same_files(out[P_LIBIPT], out[P_LWPT]);
		if (use[P_PERF] && v == 0 && !same_ips(out[P_PERF], out[P_LWPT])) {
			printf("  %s: perf's addresses differ: no perf figure\n",
			       views[v].name);
			use[P_PERF] = false;
		}
		for (int e = 0; e < NPROG; e++)
			unlink(out[e]);
		if (!ok) {
			printf("  %s: the engines' outputs differ: no figure\n",
			       views[v].name);
			continue;
		}
		for (int r = 0; r < runs; r++) {
			for (int e = 0; e < NPROG; e++) {
				double t;

				if (!use[e])
					continue;
				t = bench_child_time(args[e], NULL);
				if (t >= 0 && t < best[e])
					best[e] = t;
			}
		}
		printf("  %-34s", views[v].name);
		if (use[P_PERF])
			printf(" perf %7.1f ms", best[P_PERF] * 1e3);
		printf(" libipt %7.1f ms  lwpt %7.1f ms", best[P_LIBIPT] * 1e3,
		       best[P_LWPT] * 1e3);
		if (use[P_PERF])
			printf("  perf/lwpt %.2fx", best[P_LWPT] > 0 ?
			       best[P_PERF] / best[P_LWPT] : 0);
		printf("  libipt/lwpt %.2fx  (target %s; output identical)\n",
		       best[P_LWPT] > 0 ? best[P_LIBIPT] / best[P_LWPT] : 0,
		       views[v].target);
next:
		;
	}
	rmdir(tmpl);
	return 0;
}
