// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper (issue 35): an Intel PT trace of a program without PT
 * hardware. The program (static, no PIE) is single-stepped to its end with
 * ptrace, as tests/model/pt/trace_flow_test.c does, and every user-mode
 * instruction is fed to the PT packet generator of model/pt (trace.c:
 * user-mode tracing, BranchEn, no timing packets); the raw trace is written
 * to a file that ptcov --pt decodes with --elf PROG. The stepping is
 * tests/model/step_trace.c, shared with the model tests.
 *
 * Usage: pt_step_trace [-m MAPS] OUT.pt PROG [ARG]...
 * (exit status: PROG's, or 125). The program's stdout goes to /dev/null;
 * its working directory is ours. With -m the program runs without address
 * space randomisation (a dynamic or PIE program) and its executable
 * file-backed mappings at exit are written to MAPS in the format of a
 * ptcap `maps` file (Documentation/ptcap-format.rst), so that OUT.pt and
 * MAPS in one directory are a capture ptcov reads; the files' build-ids
 * are recorded as ptcap records them (tools/ptcap/buildid.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/pt_rtit.h>
#include "model/pt/pt_trace.h"
#include "tests/model/step_trace.h"
#include "tools/ptcap/buildid.h"

#define FAKE_CR3	0x1234000ull

static FILE *out;

static int emit(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	return fwrite(p, 1, n, out) == n ? 0 : -EIO;
}

/* The executable file mappings of @pid as a ptcap maps file. */
static int write_maps(pid_t pid, const char *path)
{
	char name[64], line[4096];
	FILE *in, *out;

	snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	in = fopen(name, "r");
	out = fopen(path, "w");
	if (!in || !out) {
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return -1;
	}
	char *paths[64];
	size_t np = 0;

	fprintf(out, "lwpt-ptcap-maps 1\n");
	while (fgets(line, sizeof(line), in)) {
		unsigned long long a, b, off;
		char perm[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &a, &b, perm, &off, &n) < 4 ||
		    !n || perm[2] != 'x' || line[n] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		fprintf(out, "0x%llx 0x%llx 0x%llx %s\n", a, b, off, line + n);
		if (np < sizeof(paths) / sizeof(paths[0]))
			paths[np++] = strdup(line + n);
	}
	fclose(in);
	maps_write_build_ids(out, (const char *const *)paths, np);
	while (np)
		free(paths[--np]);
	return fclose(out);
}

struct run {
	struct pt_trace tr;
	const char *maps;
	uint64_t n;
};

static int at_exit_maps(void *ctx, pid_t pid)
{
	struct run *r = ctx;

	return write_maps(pid, r->maps);
}

static int step(void *ctx, const struct lwpt_step *st)
{
	struct run *r = ctx;
	struct pt_trace_step s;

	memset(&s, 0, sizeof(s));
	s.ip = st->ip;
	memcpy(s.insn, st->insn, sizeof(s.insn));
	s.insn_size = st->insn_size;
	s.cpl = st->cpl;
	s.mode = st->mode;
	s.cr3 = FAKE_CR3;
	s.next_ip = st->next_ip;
	s.tsc = 0x100000 + 100 * ++r->n;
	return pt_trace_step(&r->tr, &s);
}

int main(int argc, char **argv)
{
	struct pt_trace_config cfg = { 0 };
	struct lwpt_step_opts opts = { 0 };
	struct run r = { .maps = NULL };
	int code = 125;

	if (argc > 2 && !strcmp(argv[1], "-m")) {
		r.maps = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: pt_step_trace [-m MAPS] OUT.pt PROG [ARG]...\n");
		return 125;
	}
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 125;
	}
	cfg.rtit_ctl = IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER |
		       IA32_RTIT_CTL_BRANCHEN | IA32_RTIT_CTL_TOPA;
	cfg.cr3_match = FAKE_CR3;
	cfg.nr_ranges = 2;
	cfg.cbr = 0x2a;
	cfg.tsc_art_num = 308;
	cfg.tsc_art_den = 2;
	cfg.emit = emit;
	if (pt_trace_init(&r.tr, &cfg) || pt_trace_enable(&r.tr, 0x100000))
		goto fail;
	if (r.maps) {
		opts.no_aslr = true;
		opts.at_exit = at_exit_maps;
	}
	if (lwpt_step_run(argv + 2, &opts, step, &r, &code))
		goto fail;
	if (pt_trace_disable(&r.tr) || fclose(out))
		return 125;
	return code;
fail:
	fprintf(stderr, "pt_step_trace: %s failed after %llu steps\n", argv[2],
		(unsigned long long)r.n);
	return 125;
}
