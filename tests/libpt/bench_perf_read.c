// SPDX-License-Identifier: GPL-2.0
/*
 * bench_perf_read: what reading a perf.data costs over decoding the
 * equivalent ptcap directory (issue 24 "Done when": at most 1.2x).
 *
 * Input: the flow generator's trace_flow_0 repeated REPEAT times (the
 * input of bench_ptflow, built/bench-data/flow, generated here the same
 * way when absent) with trace_flow_prog as its code. Written twice:
 *   - a ptcap directory: config (the decoder parameters below), maps (the
 *     program's PT_LOAD segments), tid1.pt;
 *   - a perf.data in file format by libpt's writer
 *     (tests/libpt/perf_fixture.h) with the
 *     same parameters in AUXTRACE_INFO, the same maps as MMAP2 records and
 *     the trace as AUXTRACE records of 4 MiB (contiguous offsets, as perf
 *     writes one per mmap read).
 * Both go through `ptflow --quiet --stat` as whole processes (best of 5,
 * alternating, by the child's CPU time, user + sys); the instruction counts are
 * compared first. Prints the ratio; never fails on speed.
 *
 * Usage: bench_perf_read [-n REPEAT]   (default 200)
 */
#include "tests/bench/bench_child.h"
#include "tests/libpt/perf_fixture.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Best CPU time of 5 runs of @a and of @b, alternating (a loaded machine
 * slows both alike); *@ta or *@tb < 0 if one failed. */
static void best_of_5(char *const a[], char *const b[], double *ta, double *tb)
{
	int i, null = open("/dev/null", O_WRONLY);
	double t;

	*ta = *tb = 1e30;
	for (i = 0; i < 5; i++) {
		if (bench_child_run(a, null, &t) != 0) {
			*ta = -1;
			break;
		}
		if (t < *ta)
			*ta = t;
		if (bench_child_run(b, null, &t) != 0) {
			*tb = -1;
			break;
		}
		if (t < *tb)
			*tb = t;
	}
	close(null);
}

static int spit(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(b, 1, n, f) == n;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

struct seg {
	uint64_t start, end, off;
};

/* The executable PT_LOAD segments of @elf (a non-PIE program). */
static size_t segments(const char *elf, struct seg *s, size_t max)
{
	size_t n = 0, i, ph;
	int fd = open(elf, O_RDONLY);
	Elf *e;

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && !elf_getphdrnum(e, &ph))
		for (i = 0; i < ph && n < max; i++) {
			GElf_Phdr p;

			if (gelf_getphdr(e, (int)i, &p) && p.p_type == PT_LOAD &&
			    (p.p_flags & PF_X)) {
				s[n].start = p.p_vaddr;
				s[n].end = p.p_vaddr + p.p_filesz;
				s[n].off = p.p_offset;
				n++;
			}
		}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], bin[PATH_MAX], data[PATH_MAX + 64], elf[PATH_MAX + 64];
	char src[PATH_MAX + 128] = "", dir[PATH_MAX + 128], path[PATH_MAX + 256];
	char perf[PATH_MAX + 128], ptflow[PATH_MAX + 64];
	struct seg seg[8];
	size_t nseg, len = 0, i, off;
	uint8_t *trace, *big;
	int repeat;
	struct fx w;
	FILE *f;

	repeat = bench_repeat_opt(argc, argv, 200);
	if (repeat < 0)
		return 2;
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(bin, sizeof(bin), "%s", dirname(self));
	snprintf(elf, sizeof(elf), "%s/../tests/trace_flow_prog", bin);
	snprintf(ptflow, sizeof(ptflow), "%s/../bin/ptflow", bin);
	if (!bench_flow_data(bin, data, sizeof(data)))
		snprintf(src, sizeof(src), "%s/trace_flow_0.pt", data);
	trace = bench_load_file(src, &len);
	nseg = segments(elf, seg, 8);
	if (!trace || !nseg) {
		printf("bench_perf_read: no %s or %s (make tests; ptrace not "
		       "permitted?), skipped\n", src, elf);
		return 0;
	}
	big = malloc(len * (size_t)repeat);
	if (!big)
		return 1;
	for (i = 0; i < (size_t)repeat; i++)
		memcpy(big + i * len, trace, len);
	len *= (size_t)repeat;

	/* The ptcap directory. */
	snprintf(dir, sizeof(dir), "%s/../bench-data/perf-read-dir", bin);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/config", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "lwpt-ptcap-config 1\nmode per-thread\nmtc-freq 3\nnom-freq 12\n"
		"cpuid-0x15.eax 2\ncpuid-0x15.ebx 100\ntsc-freq 1200000000\n"
		"thread.tid1.pt tid=1 pid=1\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/maps", dir);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "lwpt-ptcap-maps 1\n");
	for (i = 0; i < nseg; i++)
		fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", seg[i].start,
			seg[i].end, seg[i].off, realpath(elf, path) ? path : elf);
	fclose(f);
	snprintf(path, sizeof(path), "%s/tid1.pt", dir);
	if (spit(path, big, len))
		return 1;

	/* The perf.data. */
	if (!realpath(elf, path))
		return 1;
	fx_start(&w, false);
	fx_time_conv(&w);
	fx_auxtrace_info(&w, false, false, NULL);
	fx_comm(&w, 1, 1, "trace_flow_prog", true, 1000);
	for (i = 0; i < nseg; i++)
		fx_mmap2(&w, 1, seg[i].start, seg[i].end - seg[i].start, seg[i].off, path,
			 1100);
	for (off = 0; off < len; off += 4u << 20) {
		size_t n = len - off < (4u << 20) ? len - off : (4u << 20);

		fx_auxtrace(&w, big + off, n, off, 0, 1, (uint32_t)-1);
	}
	fx_finish(&w);
	snprintf(perf, sizeof(perf), "%s/../bench-data/perf-read.data", bin);
	if (spit(perf, w.b, w.n))
		return 1;
	free(w.b);
	free(big);
	free(trace);

	{
		char *dir_argv[] = { ptflow, "--quiet", "--stat", dir, NULL };
		char *perf_argv[] = { ptflow, "--quiet", "--stat", perf, NULL };
		unsigned long long n_dir = bench_child_value(dir_argv, "instructions");
		unsigned long long n_perf = bench_child_value(perf_argv, "instructions");
		double td, tp;

		printf("perf.data reading: ptflow on a perf.data against the equivalent "
		       "ptcap directory, best of 5 alternating, by CPU time (user+sys, wait4)\n");
		printf("trace_flow_0 x%d: %.1f MB of trace, %llu instructions (perf.data: "
		       "%llu%s)\n", repeat, (double)len / 1e6, n_dir, n_perf,
		       n_dir == n_perf ? ", equal" : " - COUNTS DIFFER");
		best_of_5(dir_argv, perf_argv, &td, &tp);
		if (td <= 0 || tp < 0) {
			printf("  run failed\n");
			return 0;
		}
		printf("  %-34s %6.3f s  1.00x (reference)\n", "ptflow --quiet DIR", td);
		printf("  %-34s %6.3f s  %4.2fx (required <= 1.2x)\n",
		       "ptflow --quiet perf.data", tp, tp / td);
	}
	return 0;
}
