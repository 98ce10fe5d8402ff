// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptflow: instruction-flow decoding speed of ptflow against a bare
 * loop over libipt's pt_insn_next() (issue 17.3: ptflow's overhead stays
 * under 1.5x without disassembly).
 *
 * Input: the host generator's traces of trace_flow_prog (the program of
 * the flow tests, tests/model/pt; every instruction equal to its ptrace
 * ground truth in test_pt_trace_flow), written once to
 * build/bench-data/flow/ by `LWPT_TRACE_FLOW_DUMP=DIR test_pt_trace_flow`:
 * trace_flow_0 (BranchEn, RET compression) and trace_flow_2 (with TSC and
 * MTC packets), each repeated REPEAT times into one file (every copy
 * starts with PSB+ and ends with TIP.PGD, so the copies decode as one
 * trace), with the program's ELF as the image.
 *
 * Each program runs as a whole process (start-up, image and trace loading
 * included), stdout to /dev/null, best of 3 by the child's CPU time
 * (user + sys, wait4; wall time on a shared machine measures the other
 * users):
 *   - ipt_insn_loop: pt_insn_next() and pt_insn_event(), counting only;
 *   - ptflow --quiet --stat: the same decoding through ptflow's loop
 *     (progress and error checks, event tracking), no output;
 *   - ptflow --no-inst --no-symbols: one line per instruction (address);
 *   - ptflow --no-inst: the same with " <symbol+0xoff>" (the default);
 *   - ptflow: one line per instruction with Capstone's disassembly.
 * The instruction counts of the reference and ptflow are compared first.
 * Prints figures only; never fails on speed.
 *
 * Usage: bench_ptflow [-n REPEAT]   (default 200: about 8 M instructions)
 */
#include "tests/bench/bench_child.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char bindir[PATH_MAX];

/* Best CPU time of 3 runs of @argv to /dev/null; < 0 if one failed. */
static double best_of_3(char *const argv[])
{
	double best = 1e30, t;
	int i, null = open("/dev/null", O_WRONLY);

	for (i = 0; i < 3; i++) {
		if (bench_child_run(argv, null, &t) != 0) {
			best = -1;
			break;
		}
		if (t < best)
			best = t;
	}
	close(null);
	return best;
}

/* @src repeated @n times into @dst (kept if already there). Size or -1. */
static off_t repeat_file(const char *src, const char *dst, int n)
{
	struct stat st;
	char *buf;
	off_t size;
	int in, out, i, ok = 1;

	if (stat(src, &st) || st.st_size <= 0)
		return -1;
	size = st.st_size;
	if (!stat(dst, &st) && st.st_size == size * n)
		return st.st_size;
	buf = malloc((size_t)size);
	in = open(src, O_RDONLY);
	if (!buf || in < 0 || read(in, buf, (size_t)size) != size) {
		free(buf);
		if (in >= 0)
			close(in);
		return -1;
	}
	close(in);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	for (i = 0; out >= 0 && ok && i < n; i++)
		ok = write(out, buf, (size_t)size) == size;
	free(buf);
	if (out < 0 || close(out) || !ok)
		return -1;
	return size * n;
}

static void bench_one(const char *name, const char *trace, off_t size,
		      char *elf)
{
	char ptflow[PATH_MAX + 16], loop[PATH_MAX + 16];
	char *ref_argv[] = { loop, (char *)trace, elf, NULL };
	char *quiet[] = { ptflow, "--pt", (char *)trace, "--elf", elf,
			  "--quiet", "--stat", NULL };
	char *noinst[] = { ptflow, "--pt", (char *)trace, "--elf", elf,
			   "--no-inst", NULL };
	char *nosym[] = { ptflow, "--pt", (char *)trace, "--elf", elf,
			  "--no-inst", "--no-symbols", NULL };
	char *disasm[] = { ptflow, "--pt", (char *)trace, "--elf", elf, NULL };
	/* The reference of each figure (issue 17.3). */
	struct { const char *label; char **argv; const char *req; } m[] = {
		{ "ipt_insn_loop (pt_insn_next)", ref_argv, " (reference)" },
		{ "ptflow --quiet", quiet, " (required < 1.5x)" },
		{ "ptflow --no-inst --no-symbols", nosym,
		  " (required < 1.5x)" },
		{ "ptflow --no-inst (+ symbols)", noinst,
		  " (target < 1.5x)" },
		{ "ptflow (Capstone disassembly)", disasm,
		  " (no target: Capstone's time)" },
	};
	unsigned long long n_ref, n_pf;
	double t[5];
	int i;

	snprintf(ptflow, sizeof(ptflow), "%s/../bin/ptflow", bindir);
	snprintf(loop, sizeof(loop), "%s/ipt_insn_loop", bindir);
	n_ref = bench_child_value(ref_argv, "instructions");
	n_pf = bench_child_value(quiet, "instructions");
	printf("%s: %.1f MB of trace, %llu instructions (ptflow: %llu%s)\n",
	       name, (double)size / 1e6, n_ref, n_pf,
	       n_ref == n_pf ? ", equal" : " - COUNTS DIFFER");
	for (i = 0; i < 5; i++)
		t[i] = best_of_3(m[i].argv);
	for (i = 0; i < 5; i++) {
		if (t[i] < 0 || t[0] <= 0) {
			printf("  %-30s run failed\n", m[i].label);
			continue;
		}
		printf("  %-30s %6.3f s  %6.1f M insn/s  %6.1f MB/s  %5.2fx%s\n",
		       m[i].label, t[i], (double)n_ref / t[i] / 1e6,
		       (double)size / t[i] / 1e6, t[i] / t[0], m[i].req);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], data[PATH_MAX + 32];
	char elf[PATH_MAX + 32], src[PATH_MAX + 64], big[PATH_MAX + 64];
	static const int traces[] = { 0, 2 };
	int repeat;
	size_t i;

	repeat = bench_repeat_opt(argc, argv, 200);
	if (repeat < 0)
		return 2;
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(bindir, sizeof(bindir), "%s", dirname(self));
	snprintf(elf, sizeof(elf), "%s/../tests/trace_flow_prog", bindir);
	if (bench_flow_data(bindir, data, sizeof(data)) || access(elf, R_OK)) {
		printf("bench_ptflow: no flow traces or %s (make tests; ptrace "
		       "not permitted?), skipped\n", elf);
		return 0;
	}
	printf("instruction flow: ptflow against a bare pt_insn_next() loop, "
	       "whole processes, best of 3 by CPU time (user+sys, wait4)\n");
	for (i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		char name[64];
		off_t size;

		snprintf(src, sizeof(src), "%s/trace_flow_%d.pt", data, traces[i]);
		snprintf(big, sizeof(big), "%s/trace_flow_%d-x%d.pt", data,
			 traces[i], repeat);
		size = repeat_file(src, big, repeat);
		if (size < 0) {
			printf("bench_ptflow: no %s (ptrace not permitted?), "
			       "skipped\n", src);
			continue;
		}
		snprintf(name, sizeof(name), "trace_flow_%d x%d", traces[i],
			 repeat);
		bench_one(name, big, size, elf);
	}
	return 0;
}
