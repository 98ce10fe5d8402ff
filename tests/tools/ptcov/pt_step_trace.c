// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper (issue 35): an Intel PT trace of a program without PT
 * hardware. The program (static, no PIE) is single-stepped to its end with
 * ptrace, as tests/model/pt/trace_flow_test.c does, and every user-mode
 * instruction is fed to the PT packet generator of model/pt (trace.c:
 * user-mode tracing, BranchEn, no timing packets); the raw trace is written
 * to a file that ptcov --pt decodes with --elf PROG.
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
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lwpt/pt_rtit.h>
#include "model/pt/pt_trace.h"
#include "tools/ptcap/buildid.h"

#define FAKE_CR3	0x1234000ull

static FILE *out;

static int emit(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	return fwrite(p, 1, n, out) == n ? 0 : -EIO;
}

static int peek_insn(pid_t pid, uint64_t ip, uint8_t *dst)
{
	uint8_t buf[24];
	uint64_t a = ip & ~7ull;
	unsigned int have = 0, skip = (unsigned int)(ip - a);

	for (unsigned int i = 0; i < 3; i++) {
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(a + 8 * i), NULL);
		if (errno)
			break;
		memcpy(buf + 8 * i, &w, 8);
		have += 8;
	}
	if (have <= skip)
		return -1;
	have -= skip;
	if (have > X86_MAX_INSN_LEN)
		have = X86_MAX_INSN_LEN;
	memcpy(dst, buf + skip, have);
	return (int)have;
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

int main(int argc, char **argv)
{
	const char *maps = NULL;
	bool exiting = false;

	struct pt_trace_config cfg = { 0 };
	struct pt_trace tr;
	uint64_t n = 0;
	int st, code = 125;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-m")) {
		maps = argv[2];
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
	pid = fork();
	if (pid < 0)
		return 125;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);
		if (maps)
			personality(ADDR_NO_RANDOMIZE);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st))
		return 125;
	if (maps && ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACEEXIT) < 0)
		return 125;
	cfg.rtit_ctl = IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER |
		       IA32_RTIT_CTL_BRANCHEN | IA32_RTIT_CTL_TOPA;
	cfg.cr3_match = FAKE_CR3;
	cfg.nr_ranges = 2;
	cfg.cbr = 0x2a;
	cfg.tsc_art_num = 308;
	cfg.tsc_art_den = 2;
	cfg.emit = emit;
	if (pt_trace_init(&tr, &cfg) || pt_trace_enable(&tr, 0x100000))
		goto fail;
	for (;;) {
		struct user_regs_struct r;
		struct pt_trace_step s;
		int got;

		memset(&s, 0, sizeof(s));
		if (ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0)
			goto fail;
		got = peek_insn(pid, r.rip, s.insn);
		if (got < 0)
			goto fail;
		s.ip = r.rip;
		s.insn_size = (uint8_t)got;
		s.cpl = r.cs & 3;
		s.mode = r.cs == 0x23 ? X86_MODE_32 : X86_MODE_64;
		s.cr3 = FAKE_CR3;
		for (;;) {	/* a REP string instruction retires once */
			if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0 ||
			    waitpid(pid, &st, 0) < 0)
				goto fail;
			if (WIFEXITED(st) || WIFSIGNALED(st))
				break;
			if (WIFSTOPPED(st) && (st >> 8) == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
				/* the last instruction: its exit */
				if (write_maps(pid, maps))
					goto fail;
				exiting = true;
				break;
			}
			if (ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0)
				goto fail;
			if (r.rip != s.ip)
				break;
		}
		if (WIFSIGNALED(st))
			goto fail;
		s.next_ip = WIFEXITED(st) || exiting ? s.ip : r.rip;
		s.tsc = 0x100000 + 100 * ++n;
		if (pt_trace_step(&tr, &s))
			goto fail;
		if (exiting) {
			if (ptrace(PTRACE_CONT, pid, NULL, NULL) < 0 || waitpid(pid, &st, 0) < 0 ||
			    !WIFEXITED(st))
				goto fail;
		}
		if (WIFEXITED(st)) {
			code = WEXITSTATUS(st);
			break;
		}
	}
	if (pt_trace_disable(&tr) || fclose(out))
		return 125;
	return code;
fail:
	fprintf(stderr, "pt_step_trace: %s failed after %llu steps\n", argv[2],
		(unsigned long long)n);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 125;
}
