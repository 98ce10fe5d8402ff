// SPDX-License-Identifier: GPL-2.0
/*
 * bts_pt_pair: a PT capture and a BTS capture of the same run, for
 * bench_ptflow_bts (issue 37, "Targets": ptflow decodes a BTS capture at
 * least as fast as a PT capture of the same run). No PT or BTS hardware:
 * the program (static, no PIE; trace_flow_prog of the flow tests) is
 * single-stepped once under ptrace (tests/model/step_trace.c), and the
 * retired instructions are fed, REPEAT times in a row, to both models:
 *
 *   - the PT packet generator (model/pt/pt_trace.h), configured as
 *     ptcov's pt_step_trace: user-mode tracing, BranchEn, no timing
 *     packets, RET compression;
 *   - the BTS model (model/bts/bts_step.h) with DEBUGCTL.TR|BTS (user and
 *     kernel records), its DS save area in this program's memory, the
 *     buffer drained to the file after each repetition.
 *
 * Between two repetitions the program's last instruction (its exit_group
 * SYSCALL) is followed by the program's entry point, as if the kernel had
 * started it again (an execve): PT writes TIP.PGD at the SYSCALL and
 * TIP.PGE at the entry; BTS records the SYSCALL into the kernel and the
 * return from the kernel to the entry. A user-only BTS trace cannot say
 * where user code goes on after the kernel (its decoder resumes after the
 * SYSCALL), which is why the BTS side records the kernel's side too: one
 * more record per system call, the decoder's hot path (linear code between
 * records) is the same.
 *
 * Writes PTDIR (config, maps, tid1.pt) and BTSDIR (config with `format
 * bts` and the bts-start line, maps, tid1.bts): ptcap directories
 * (Documentation/ptcap-format.rst) that ptflow decodes with the program's
 * file as the image. Prints "instructions: N" (the steps fed to each
 * model), "pt-bytes: N" and "bts-records: N".
 *
 * Usage: bts_pt_pair [-n REPEAT] PTDIR BTSDIR PROG   (default REPEAT 1)
 * Exit status 0, or 1 with a message on stderr.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lwpt/pt_rtit.h>

#include "model/bts/bts_model.h"
#include "model/bts/bts_step.h"
#include "model/pt/pt_trace.h"
#include "tests/model/step_trace.h"

#define FAKE_CR3	0x1234000ull

/* The kernel side of a transition, as test_bts_flow's. */
static const struct bts_step_config kcfg = {
	.syscall_entry = 0xffffffff81e00000ull,	/* entry_SYSCALL_64 */
	.sysret_ip = 0xffffffff81e00190ull,
	.idt_entry = 0xffffffff81e01000ull,
	.iret_ip = 0xffffffff81e01100ull,
};

static struct lwpt_step_list gt;

/* The program's executable PT_LOAD segments as a ptcap maps file in @dir. */
static int write_maps(const char *dir, const char *prog, uint64_t *entry)
{
	char path[PATH_MAX + 16];
	Elf64_Ehdr eh;
	FILE *in = fopen(prog, "rb"), *out;
	int ok = 0;

	if (!in)
		return -1;
	snprintf(path, sizeof(path), "%s/maps", dir);
	out = fopen(path, "w");
	if (!out || fread(&eh, sizeof(eh), 1, in) != 1 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	*entry = eh.e_entry;
	fprintf(out, "lwpt-ptcap-maps 1\n");
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (fseek(in, (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize), SEEK_SET) ||
		    fread(&ph, sizeof(ph), 1, in) != 1)
			goto out;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		fprintf(out, "%#llx %#llx %#llx %s\n", (unsigned long long)ph.p_vaddr,
			(unsigned long long)(ph.p_vaddr + ph.p_filesz),
			(unsigned long long)ph.p_offset, prog);
		ok++;
	}
out:
	fclose(in);
	if (out && fclose(out))
		ok = 0;
	return ok ? 0 : -1;
}

static int write_config(const char *dir, const char *text)
{
	char path[PATH_MAX + 16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/config", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Step @g of repetition @rep of @reps: the last one's exit goes on at the
 * entry point unless it is the last repetition. */
static uint64_t next_ip(size_t g, int rep, int reps, uint64_t entry)
{
	if (g == gt.n - 1 && rep != reps - 1)
		return entry;
	return gt.v[g].next_ip;
}

/* --- PT ------------------------------------------------------------------- */

static FILE *pt_out;

static int pt_emit(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	return fwrite(p, 1, n, pt_out) == n ? 0 : -EIO;
}

static int trace_pt(const char *dir, int reps, uint64_t entry, unsigned long long *bytes)
{
	static struct pt_trace tr;
	struct pt_trace_config cfg = { 0 };
	char path[PATH_MAX + 16];
	uint64_t tsc = 0x100000;
	bool done = false;

	snprintf(path, sizeof(path), "%s/tid1.pt", dir);
	pt_out = fopen(path, "wb");
	if (!pt_out)
		return -1;
	cfg.rtit_ctl = IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER |
		       IA32_RTIT_CTL_BRANCHEN | IA32_RTIT_CTL_TOPA;
	cfg.cr3_match = FAKE_CR3;
	cfg.nr_ranges = 2;
	cfg.cbr = 0x2a;
	cfg.tsc_art_num = 308;
	cfg.tsc_art_den = 2;
	cfg.emit = pt_emit;
	if (pt_trace_init(&tr, &cfg) || pt_trace_enable(&tr, tsc))
		goto fail;
	for (int rep = 0; rep < reps; rep++) {
		for (size_t g = 0; g < gt.n; g++) {
			struct pt_trace_step s;

			memset(&s, 0, sizeof(s));
			s.ip = gt.v[g].ip;
			memcpy(s.insn, gt.v[g].insn, sizeof(s.insn));
			s.insn_size = gt.v[g].insn_size;
			s.cpl = gt.v[g].cpl;
			s.mode = gt.v[g].mode;
			s.cr3 = FAKE_CR3;
			s.next_ip = next_ip(g, rep, reps, entry);
			s.tsc = tsc += 100;
			if (pt_trace_step(&tr, &s))
				goto fail;
		}
	}
	if (pt_trace_disable(&tr))
		goto fail;
	*bytes = (unsigned long long)pt_trace_get_stats(&tr)->bytes;
	done = true;
fail:
	/* one fclose() on every path (cppcheck's useClosedFile otherwise) */
	return fclose(pt_out) || !done ? -1 : 0;
}

/* --- BTS: the DS save area and the buffer in one flat region -------------- */

#define LA_BASE		0x7e0000000000ull
#define DS_LA		LA_BASE
#define BUF_LA		(LA_BASE + 0x1000)

static uint8_t *mem;
static size_t mem_size;

static int rd(void *ctx, uint64_t la, void *buf, size_t len)
{
	(void)ctx;
	if (la < LA_BASE || la - LA_BASE > mem_size || len > mem_size - (la - LA_BASE))
		return -1;
	memcpy(buf, mem + (la - LA_BASE), len);
	return 0;
}

static int wr(void *ctx, uint64_t la, const void *buf, size_t len)
{
	(void)ctx;
	if (la < LA_BASE || la - LA_BASE > mem_size || len > mem_size - (la - LA_BASE))
		return -1;
	memcpy(mem + (la - LA_BASE), buf, len);
	return 0;
}

static uint64_t get64(uint64_t la)
{
	uint64_t v;

	memcpy(&v, mem + (la - LA_BASE), 8);
	return v;
}

static void put64(uint64_t la, uint64_t v)
{
	memcpy(mem + (la - LA_BASE), &v, 8);
}

static const struct bts_model_ops bts_ops = { .read_lin = rd, .write_lin = wr };

/* Append the records [base, index) to @f and reset the index. */
static int drain(FILE *f, unsigned long long *nrec)
{
	uint64_t idx = get64(DS_LA + DS_BTS_INDEX);
	size_t n = (idx - BUF_LA) / BTS_RECORD_SIZE;

	if (fwrite(mem + (BUF_LA - LA_BASE), BTS_RECORD_SIZE, n, f) != n)
		return -1;
	*nrec += n;
	put64(DS_LA + DS_BTS_INDEX, BUF_LA);
	return 0;
}

static int trace_bts(const char *dir, int reps, uint64_t entry, unsigned long long *nrec)
{
	static struct bts_model_cpu cpu;
	/* Every step a branch, and two for a round trip through the kernel:
	 * at most 2 * gt.n records a repetition; the threshold beyond the
	 * maximum (no BTINT anyway): the buffer never wraps. */
	size_t cap = 2 * gt.n + 2;
	char path[PATH_MAX + 16];
	bool done = false;
	FILE *f;

	mem_size = 0x1000 + cap * BTS_RECORD_SIZE;
	mem = calloc(1, mem_size);
	snprintf(path, sizeof(path), "%s/tid1.bts", dir);
	f = fopen(path, "wb");
	if (!mem || !f || bts_model_cpu_init(&cpu, &bts_model_profile_core2, &bts_ops, NULL, 0))
		goto fail;
	put64(DS_LA + DS_BTS_BUFFER_BASE, BUF_LA);
	put64(DS_LA + DS_BTS_INDEX, BUF_LA);
	put64(DS_LA + DS_BTS_ABSOLUTE_MAXIMUM, BUF_LA + cap * BTS_RECORD_SIZE);
	put64(DS_LA + DS_BTS_INTERRUPT_THRESHOLD, BUF_LA + (cap + 1) * BTS_RECORD_SIZE);
	if (bts_model_wrmsr(&cpu, IA32_DS_AREA, DS_LA) ||
	    bts_model_wrmsr(&cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS))
		goto fail;
	for (int rep = 0; rep < reps; rep++) {
		for (size_t g = 0; g < gt.n; g++) {
			struct bts_step s = {
				.ip = gt.v[g].ip, .insn_size = gt.v[g].insn_size,
				.cpl = gt.v[g].cpl, .mode = gt.v[g].mode,
				.next_ip = next_ip(g, rep, reps, entry),
			};

			memcpy(s.insn, gt.v[g].insn, sizeof(s.insn));
			if (bts_step(&cpu, &kcfg, &s) < 0)
				goto fail;
		}
		if (drain(f, nrec))
			goto fail;
	}
	if (cpu.stats.violations || cpu.stats.bts_lost || cpu.stats.bts_wraps)
		goto fail;
	done = true;
fail:
	free(mem);
	/* one fclose() on every path (cppcheck's useClosedFile otherwise) */
	return (f && fclose(f)) || !done ? -1 : 0;
}

int main(int argc, char **argv)
{
	const struct lwpt_step_opts opts = { .empty_env = true };
	unsigned long long pt_bytes = 0, bts_recs = 0;
	char cfg[PATH_MAX + 512];
	uint64_t entry = 0;
	int reps = 1, code = -1, c;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n')
			goto usage;
		reps = atoi(optarg);
		if (reps < 1)
			goto usage;
	}
	if (argc - optind != 3)
		goto usage;
	const char *ptdir = argv[optind], *btsdir = argv[optind + 1];
	/* The maps name it by its absolute path (a relative one would be
	 * taken from the capture directory). */
	char *prog = realpath(argv[optind + 2], NULL);
	char *step_argv[] = { prog, NULL };

	if (!prog) {
		fprintf(stderr, "bts_pt_pair: %s: %s\n", argv[optind + 2], strerror(errno));
		return 1;
	}
	if ((mkdir(ptdir, 0755) && errno != EEXIST) || (mkdir(btsdir, 0755) && errno != EEXIST) ||
	    write_maps(ptdir, prog, &entry) || write_maps(btsdir, prog, &entry)) {
		fprintf(stderr, "bts_pt_pair: %s: %s, or not a 64-bit ELF program\n", prog,
			strerror(errno));
		return 1;
	}
	if (lwpt_step_run(step_argv, &opts, lwpt_step_collect, &gt, &code) || !gt.n ||
	    gt.v[0].ip != entry || gt.v[gt.n - 1].next_ip != gt.v[gt.n - 1].ip) {
		fprintf(stderr, "bts_pt_pair: single-stepping %s failed\n", prog);
		return 1;
	}
	snprintf(cfg, sizeof(cfg), "lwpt-ptcap-config 1\nmode per-thread\ncommand %s\n"
		 "thread.tid1.pt tid=1 pid=1\n", prog);
	if (write_config(ptdir, cfg) || trace_pt(ptdir, reps, entry, &pt_bytes)) {
		fprintf(stderr, "bts_pt_pair: the PT trace of %s failed\n", prog);
		return 1;
	}
	snprintf(cfg, sizeof(cfg), "lwpt-ptcap-config 1\nformat bts\nmode per-thread\n"
		 "command %s\nthread.tid1.bts tid=1 pid=1\nbts-start.tid1.bts %#llx\n",
		 prog, (unsigned long long)entry);
	if (write_config(btsdir, cfg) || trace_bts(btsdir, reps, entry, &bts_recs)) {
		fprintf(stderr, "bts_pt_pair: the BTS trace of %s failed\n", prog);
		return 1;
	}
	printf("instructions: %llu\npt-bytes: %llu\nbts-records: %llu\n",
	       (unsigned long long)gt.n * (unsigned long long)reps, pt_bytes, bts_recs);
	return 0;
usage:
	fprintf(stderr, "usage: bts_pt_pair [-n REPEAT] PTDIR BTSDIR PROG\n");
	return 1;
}
