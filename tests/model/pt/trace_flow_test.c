// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the PT packet generator against an independent
 * decoder (lwpt issue 5, point 6), run on the host:
 *
 *   1. fork progs/trace_flow_prog (static, -no-pie) under ptrace and
 *      single-step it to the end, recording every user-mode instruction
 *      (tests/model/step_trace.c): the ground truth;
 *   2. feed the steps to the generator (model/pt/trace.c) under several
 *      IA32_RTIT_CTL configurations;
 *   3. decode the trace with libipt's instruction-flow decoder, using the
 *      program's ELF file as the memory image;
 *   4. require the decoded instruction addresses to equal the ground truth
 *      exactly (or the part of it the configuration traces).
 *
 * The program is found next to this test binary (built by
 * tests/model/pt/trace.mk) or through $LWPT_TRACE_FLOW_PROG. With
 * $LWPT_TRACE_FLOW_DUMP=DIR the raw traces of test_flow_full are kept as
 * DIR/trace_flow_N.pt (for ptdump, ptxed --raw ... etc.).
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lwpt/pt_rtit.h>
#include "model/pt/pt_model.h"
#include "model/pt/pt_trace.h"
#include "tests/check_run.h"
#include "tests/model/step_trace.h"

#define FAKE_CR3	0x1234000ull	/* the traced process's CR3 */
#define TSC_BASE	0x100000ull
#define TSC_PER_STEP	100ull
#define TSC_ART_NUM	308	/* CPUID.15H:EBX of the DynamoRIO sample machine */
#define TSC_ART_DEN	2	/* CPUID.15H:EAX */
#define MTC_FREQ	3	/* IA32_RTIT_CTL.MTCFreq in the MTC case */

/* --- The program and its ground truth ------------------------------------ */

static char prog_path[PATH_MAX];
static struct pt_trace_step *gt;	/* every user-mode instruction, in order */
static size_t gt_n;
static int prog_exit = -1;

struct elf_info {
	uint64_t work_lo, work_hi;	/* [work, work + size - 1] */
	uint64_t recurse_lo, recurse_hi;
	struct { uint64_t off, size, vaddr; } seg[8];
	unsigned int nseg;
};

static struct elf_info elf;

static void *read_file(const char *path, size_t *size)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size))) {
		close(fd);
		return NULL;
	}
	if (read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		close(fd);
		return NULL;
	}
	close(fd);
	*size = (size_t)st.st_size;
	return buf;
}

/* Executable PT_LOAD segments and the two functions' ranges from the ELF. */
static int elf_load(const char *path, struct elf_info *ei)
{
	size_t size, i;
	uint8_t *f = read_file(path, &size);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
	const Elf64_Shdr *sh;

	if (!f)
		return -1;
	memset(ei, 0, sizeof(*ei));
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(f + eh->e_phoff +
							   i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ei->nseg < 8) {
			ei->seg[ei->nseg].off = ph->p_offset;
			ei->seg[ei->nseg].size = ph->p_filesz;
			ei->seg[ei->nseg].vaddr = ph->p_vaddr;
			ei->nseg++;
		}
	}
	sh = (const Elf64_Shdr *)(f + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		const char *str;
		size_t j, n;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		sym = (const Elf64_Sym *)(f + sh[i].sh_offset);
		str = (const char *)(f + sh[sh[i].sh_link].sh_offset);
		n = sh[i].sh_size / sizeof(*sym);
		for (j = 0; j < n; j++) {
			const char *name = str + sym[j].st_name;

			if (ELF64_ST_TYPE(sym[j].st_info) != STT_FUNC)
				continue;
			if (!strcmp(name, "work")) {
				ei->work_lo = sym[j].st_value;
				ei->work_hi = sym[j].st_value + sym[j].st_size - 1;
			} else if (!strcmp(name, "recurse")) {
				ei->recurse_lo = sym[j].st_value;
				ei->recurse_hi = sym[j].st_value + sym[j].st_size - 1;
			}
		}
	}
	free(f);
	return ei->nseg && ei->work_lo && ei->recurse_lo ? 0 : -1;
}

struct capture_buf {
	struct pt_trace_step *v;
	size_t n, cap;
};

static int capture_step(void *ctx, const struct lwpt_step *st)
{
	struct capture_buf *b = ctx;
	struct pt_trace_step *s;

	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1 << 16;
		struct pt_trace_step *more = realloc(b->v, cap * sizeof(*more));

		if (!more)
			return -1;
		b->v = more;
		b->cap = cap;
	}
	s = &b->v[b->n];
	memset(s, 0, sizeof(*s));
	s->ip = st->ip;
	memcpy(s->insn, st->insn, sizeof(s->insn));
	s->insn_size = st->insn_size;
	s->cpl = st->cpl;
	s->mode = st->mode;
	s->cr3 = FAKE_CR3;
	s->next_ip = st->next_ip;
	s->tsc = TSC_BASE + TSC_PER_STEP * (b->n + 1);
	b->n++;
	return 0;
}

/* Single-step the program to its end (tests/model/step_trace.c). */
static int capture(const char *path, struct pt_trace_step **out, size_t *nout,
		   int *exit_code)
{
	const struct lwpt_step_opts opts = { .empty_env = true };
	char *argv[] = { (char *)path, NULL };
	struct capture_buf b = { 0 };

	if (lwpt_step_run(argv, &opts, capture_step, &b, exit_code)) {
		free(b.v);
		return -1;
	}
	*out = b.v;
	*nout = b.n;
	return 0;
}

/* --- Running the generator ------------------------------------------------ */

struct sink {
	uint8_t *buf;
	size_t len, cap;
	bool refuse;		/* -ENOSPC: the output cannot keep up */
};

static int sink_emit(void *ctx, const uint8_t *p, size_t n)
{
	struct sink *s = ctx;

	if (s->refuse)
		return -ENOSPC;
	if (s->len + n > s->cap) {
		uint8_t *more = realloc(s->buf, (s->cap + n) * 2);

		ck_assert_ptr_nonnull(more);
		s->buf = more;
		s->cap = (s->cap + n) * 2;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

#define CTL_BASE	(IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER | \
			 IA32_RTIT_CTL_BRANCHEN | IA32_RTIT_CTL_TOPA)

struct flow_case {
	const char *name;
	uint64_t ctl;
	bool filter_work;	/* ADDR0 = work() as a FilterEn range */
	bool stop_recurse;	/* ADDR1 = recurse() as a TraceStop range */
	bool cr3_other;		/* CR3_MATCH differs from the process's CR3 */
	bool tnt64;
	size_t ovf_from, ovf_to;	/* steps fed while the sink refuses */
};

static void run_generator(const struct flow_case *fc, struct sink *out,
			  struct pt_trace *tr)
{
	struct pt_trace_config cfg = { 0 };
	size_t i;

	memset(out, 0, sizeof(*out));
	cfg.rtit_ctl = fc->ctl;
	cfg.cr3_match = fc->cr3_other ? FAKE_CR3 + 0x1000 : FAKE_CR3;
	cfg.nr_ranges = 2;
	if (fc->filter_work) {
		cfg.rtit_ctl |= (uint64_t)IA32_RTIT_ADDR_CFG_FILTER <<
				IA32_RTIT_CTL_ADDRn_CFG_SHIFT(0);
		cfg.addr_a[0] = elf.work_lo;
		cfg.addr_b[0] = elf.work_hi;
	}
	if (fc->stop_recurse) {
		cfg.rtit_ctl |= (uint64_t)IA32_RTIT_ADDR_CFG_STOP <<
				IA32_RTIT_CTL_ADDRn_CFG_SHIFT(1);
		cfg.addr_a[1] = elf.recurse_lo;
		cfg.addr_b[1] = elf.recurse_hi;
	}
	cfg.cbr = 0x2a;
	cfg.tsc_art_num = TSC_ART_NUM;
	cfg.tsc_art_den = TSC_ART_DEN;
	cfg.tnt64 = fc->tnt64;
	cfg.emit = sink_emit;
	cfg.emit_ctx = out;

	ck_assert_int_eq(pt_trace_init(tr, &cfg), 0);
	ck_assert_int_eq(pt_trace_enable(tr, TSC_BASE), 0);
	for (i = 0; i < gt_n; i++) {
		out->refuse = i >= fc->ovf_from && i < fc->ovf_to;
		ck_assert_int_eq(pt_trace_step(tr, &gt[i]), 0);
	}
	out->refuse = false;
	ck_assert_int_eq(pt_trace_disable(tr), 0);
}

/* --- Decoding with libipt -------------------------------------------------- */

struct decoded {
	uint64_t *ip;
	size_t n, cap;
	unsigned int enabled, disabled, overflow, stop, exec_mode;
	int err;		/* first libipt error, 0 if none */
	uint64_t err_offset;
	uint64_t time;		/* libipt's time after the last instruction */
	bool time_backwards;	/* time ever decreased */
	uint32_t lost_mtc, lost_cyc;
	unsigned int time_changes;	/* instructions whose time differs from
					 * the one before */
	unsigned int time_off_steps;	/* ... that is no step's TSC */
};

static void dec_push(struct decoded *d, uint64_t ip)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 4096;
		uint64_t *more = realloc(d->ip, cap * sizeof(*d->ip));

		ck_assert_ptr_nonnull(more);
		d->ip = more;
		d->cap = cap;
	}
	d->ip[d->n++] = ip;
}

static void decode_at(const struct sink *out, struct decoded *d, uint64_t at);

static void decode(const struct sink *out, struct decoded *d)
{
	decode_at(out, d, ~0ull);
}

/* Decode from the PSB at offset @at (~0: from the start, sync forward). */
static void decode_at(const struct sink *out, struct decoded *d, uint64_t at)
{
	struct pt_insn_decoder *dec;
	struct pt_image *image;
	struct pt_config config;
	unsigned int i;
	int status;

	memset(d, 0, sizeof(*d));
	if (!out->len)
		return;
	pt_config_init(&config);
	config.begin = out->buf;
	config.end = out->buf + out->len;
	/* Timing as the generator was configured (run_generator). */
	config.cpuid_0x15_eax = TSC_ART_DEN;
	config.cpuid_0x15_ebx = TSC_ART_NUM;
	config.mtc_freq = MTC_FREQ;
	/* The model's core clock is the TSC (CYC): P1 = CBR = 0x2a. */
	config.nom_freq = 0x2a;
	dec = pt_insn_alloc_decoder(&config);
	ck_assert_ptr_nonnull(dec);
	image = pt_image_alloc("trace_flow_prog");
	ck_assert_ptr_nonnull(image);
	for (i = 0; i < elf.nseg; i++)
		ck_assert_int_ge(pt_image_add_file(image, prog_path, elf.seg[i].off,
						   elf.seg[i].size, NULL,
						   elf.seg[i].vaddr), 0);
	ck_assert_int_eq(pt_insn_set_image(dec, image), 0);

	for (;;) {
		if (at != ~0ull) {
			status = pt_insn_sync_set(dec, at);
			at = ~0ull;
		} else {
			status = pt_insn_sync_forward(dec);
		}
		if (status < 0)
			break;
		for (;;) {
			struct pt_insn insn;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_insn_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
				switch (ev.type) {
				case ptev_enabled:
					d->enabled++;
					break;
				case ptev_disabled:
				case ptev_async_disabled:
					d->disabled++;
					break;
				case ptev_overflow:
					d->overflow++;
					break;
				case ptev_stop:
					d->stop++;
					break;
				case ptev_exec_mode:
					d->exec_mode++;
					break;
				default:
					break;
				}
			}
			if (status < 0)
				break;
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0)
				break;
			dec_push(d, insn.ip);
			{
				uint64_t tm;
				uint32_t lm = 0, lc = 0;

				if (pt_insn_time(dec, &tm, &lm, &lc) >= 0) {
					if (tm < d->time)
						d->time_backwards = true;
					if (tm != d->time) {
						d->time_changes++;
						if (tm < TSC_BASE ||
						    (tm - TSC_BASE) % TSC_PER_STEP)
							d->time_off_steps++;
					}
					d->time = tm;
					d->lost_mtc = lm;
					d->lost_cyc = lc;
				}
			}
		}
		if (status != -pte_eos && !d->err) {
			d->err = status;
			pt_insn_get_offset(dec, &d->err_offset);
		}
	}
	if (status != -pte_eos && !d->err)
		d->err = status;
	pt_image_free(image);
	pt_insn_free_decoder(dec);
}

/* The decoded flow must be exactly @want[0..n). */
static void assert_flow(const char *name, const struct decoded *d,
			const uint64_t *want, size_t n)
{
	size_t i, m = d->n < n ? d->n : n;

	ck_assert_msg(!d->err, "%s: libipt error %s at trace offset %#llx", name,
		      pt_errstr(pt_errcode(d->err)),
		      (unsigned long long)d->err_offset);
	for (i = 0; i < m; i++)
		if (d->ip[i] != want[i])
			break;
	ck_assert_msg(i == m && d->n == n,
		      "%s: decoded %zu instructions, ground truth %zu; first "
		      "difference at #%zu: decoded %#llx, expected %#llx", name,
		      d->n, n, i, i < d->n ? (unsigned long long)d->ip[i] : 0ull,
		      i < n ? (unsigned long long)want[i] : 0ull);
}

static uint64_t *gt_ips(bool (*keep)(uint64_t ip), size_t *n)
{
	uint64_t *v = calloc(gt_n ? gt_n : 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; i < gt_n; i++)
		if (!keep || keep(gt[i].ip))
			v[(*n)++] = gt[i].ip;
	return v;
}

static bool in_work(uint64_t ip)
{
	return ip >= elf.work_lo && ip <= elf.work_hi;
}

static void setup_capture(void)
{
	if (gt)
		return;
	if (elf_load(prog_path, &elf) ||
	    capture(prog_path, &gt, &gt_n, &prog_exit) || !gt_n) {
		fprintf(stderr, "trace_flow_test: cannot trace %s\n", prog_path);
		gt_n = 0;
	}
}

/* --- Tests ---------------------------------------------------------------- */

static const struct flow_case full_cases[] = {
	{ .name = "BranchEn, RET compression, PSB every 2K",
	  .ctl = CTL_BASE },
	{ .name = "BranchEn, DisRETC",
	  .ctl = CTL_BASE | IA32_RTIT_CTL_DISRETC },
	{ .name = "TSCEn, MTCEn (MTCFreq 3)",
	  .ctl = CTL_BASE | IA32_RTIT_CTL_TSCEN | IA32_RTIT_CTL_MTCEN |
		 ((uint64_t)MTC_FREQ << IA32_RTIT_CTL_MTCFREQ_SHIFT) },
	{ .name = "TNT-64 packets",
	  .ctl = CTL_BASE, .tnt64 = true },
	{ .name = "TSCEn, CYCEn (CycThresh 0)",
	  .ctl = CTL_BASE | IA32_RTIT_CTL_TSCEN | IA32_RTIT_CTL_CYCEN },
	{ .name = "PSBFreq 4K, DisRETC, CR3 filter matching",
	  .ctl = CTL_BASE | IA32_RTIT_CTL_CR3FILTER | IA32_RTIT_CTL_DISRETC |
		 (1ull << IA32_RTIT_CTL_PSBFREQ_SHIFT) },
};

/* Every user-mode instruction, decoded exactly (issue 5, point 6). */
START_TEST(test_flow_full)
{
	const struct flow_case *fc = &full_cases[_i];
	struct pt_trace tr;
	struct sink out;
	struct decoded d;
	uint64_t *want;
	size_t n;

	ck_assert_msg(gt_n > 10000, "no ground truth (ptrace not permitted?)");
	ck_assert_int_eq(prog_exit, 0x3f & prog_exit);
	run_generator(fc, &out, &tr);
	if (getenv("LWPT_TRACE_FLOW_DUMP")) {
		/* Keep the raw trace for ptdump/ptxed: $DIR/trace_flow_<i>.pt */
		char path[PATH_MAX];
		FILE *f;

		snprintf(path, sizeof(path), "%s/trace_flow_%d.pt",
			 getenv("LWPT_TRACE_FLOW_DUMP"), _i);
		f = fopen(path, "wb");
		if (f) {
			fwrite(out.buf, 1, out.len, f);
			fclose(f);
		}
	}
	decode(&out, &d);
	want = gt_ips(NULL, &n);
	assert_flow(fc->name, &d, want, n);

	/* The configuration shows in the packets. */
	fprintf(stderr, "%s: %zu bytes, %llu PSB, %llu TNT, %llu TIP\n", fc->name,
		out.len, (unsigned long long)tr.stats.psb,
		(unsigned long long)tr.stats.tnt, (unsigned long long)tr.stats.tip);
	ck_assert_uint_gt(tr.stats.psb, 1);	/* PSB+ mid-trace */
	ck_assert_uint_gt(tr.stats.tip_pge, 1);	/* back from each syscall */
	if (fc->ctl & IA32_RTIT_CTL_DISRETC)
		ck_assert_uint_eq(tr.stats.ret_compressed, 0);
	else
		ck_assert_uint_gt(tr.stats.ret_compressed, 100);
	if (fc->ctl & IA32_RTIT_CTL_MTCEN) {
		/*
		 * libipt's time from TSC, TMA and MTC (SDM 33.8.3.2) never goes
		 * back, loses no MTC, and ends within two MTC periods of the
		 * TSC of the last step.
		 */
		uint64_t last = gt[gt_n - 1].tsc;
		uint64_t period = (uint64_t)TSC_ART_NUM / TSC_ART_DEN << MTC_FREQ;

		fprintf(stderr, "%s: libipt time at the end %#llx, last step TSC %#llx\n",
			fc->name, (unsigned long long)d.time, (unsigned long long)last);
		ck_assert_uint_gt(tr.stats.mtc, 100);
		ck_assert_uint_eq(tr.stats.tma, tr.stats.psb);
		ck_assert(!d.time_backwards);
		ck_assert_uint_eq(d.lost_mtc, 0);
		ck_assert_msg(d.time + 2 * period >= last && d.time <= last + 2 * period,
			      "libipt time %#llx, last step TSC %#llx",
			      (unsigned long long)d.time, (unsigned long long)last);
	}
	if (fc->ctl & IA32_RTIT_CTL_CYCEN) {
		/*
		 * Cycle-accurate mode (SDM 33.3.6, 33.8.3.2): with the core
		 * clock at the TSC's rate (nom_freq = CBR), libipt's time from
		 * TSC and CYC is, at every instruction, exactly the TSC of a
		 * step (no rounding, nothing lost), never goes back, changes
		 * at least once per two CYC packets and ends at most one step
		 * short of the last step's TSC.
		 */
		uint64_t last = gt[gt_n - 1].tsc;

		fprintf(stderr, "%s: %llu CYC, libipt time changed %u times, "
			"end %#llx, last step TSC %#llx\n", fc->name,
			(unsigned long long)tr.stats.cyc, d.time_changes,
			(unsigned long long)d.time, (unsigned long long)last);
		ck_assert_uint_gt(tr.stats.cyc, 1000);
		ck_assert(!d.time_backwards);
		ck_assert_uint_eq(d.lost_cyc, 0);
		ck_assert_uint_eq(d.time_off_steps, 0);
		ck_assert_uint_ge(2 * (uint64_t)d.time_changes, tr.stats.cyc);
		ck_assert_uint_le(d.time, last);
		ck_assert_uint_ge(d.time + TSC_PER_STEP, last);
	} else {
		ck_assert_uint_eq(tr.stats.cyc, 0);
	}
	if (fc->ctl & IA32_RTIT_CTL_TSCEN)
		ck_assert_uint_eq(tr.stats.tsc, tr.stats.psb);
	else
		ck_assert_uint_eq(tr.stats.tsc, 0);

	/*
	 * PSB+ is self-sufficient (33.3.7): decoding from each later PSB
	 * gives exactly the tail of the ground truth.
	 */
	{
		static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
						 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
		unsigned int tails = 0;
		size_t off;

		for (off = 1; off + sizeof(psb) <= out.len; off++) {
			struct decoded t;

			if (memcmp(out.buf + off, psb, sizeof(psb)))
				continue;
			decode_at(&out, &t, off);
			ck_assert_msg(!t.err, "%s: from PSB at %#zx: %s", fc->name, off,
				      pt_errstr(pt_errcode(t.err)));
			ck_assert_uint_gt(t.n, 0);
			ck_assert_uint_le(t.n, n);
			ck_assert_msg(!memcmp(t.ip, want + (n - t.n), t.n * sizeof(*want)),
				      "%s: decoding from the PSB at %#zx is not a tail "
				      "of the ground truth", fc->name, off);
			free(t.ip);
			tails++;
		}
		ck_assert_uint_eq(tails, tr.stats.psb - 1);
	}
	free(want);
	free(d.ip);
	free(out.buf);
}
END_TEST

/* ADDR0 = work(): only its instructions, entered by CALL, left by CALL/RET. */
START_TEST(test_flow_ip_filter)
{
	struct flow_case fc = { .name = "IP filter on work()", .ctl = CTL_BASE,
				.filter_work = true };
	struct pt_trace tr;
	struct sink out;
	struct decoded d;
	uint64_t *want;
	size_t n;

	ck_assert_msg(gt_n > 10000, "no ground truth");
	run_generator(&fc, &out, &tr);
	decode(&out, &d);
	want = gt_ips(in_work, &n);
	ck_assert_uint_gt(n, 1000);
	assert_flow(fc.name, &d, want, n);
	ck_assert_uint_gt(tr.stats.tip_pgd, 100);	/* calls out of work() */
	free(want);
	free(d.ip);
	free(out.buf);
}
END_TEST

/* ADDR1 = recurse() as TraceStop: the flow up to the CALL into it. */
START_TEST(test_flow_tracestop)
{
	struct flow_case fc = { .name = "TraceStop on recurse()", .ctl = CTL_BASE,
				.stop_recurse = true };
	struct pt_trace tr;
	struct sink out;
	struct decoded d;
	uint64_t *want;
	size_t n, stop;

	ck_assert_msg(gt_n > 10000, "no ground truth");
	for (stop = 0; stop < gt_n; stop++)
		if (gt[stop].ip >= elf.recurse_lo && gt[stop].ip <= elf.recurse_hi)
			break;
	ck_assert_uint_lt(stop, gt_n);
	run_generator(&fc, &out, &tr);
	decode(&out, &d);
	want = gt_ips(NULL, &n);
	assert_flow(fc.name, &d, want, stop);
	ck_assert(pt_trace_stopped(&tr));
	ck_assert_uint_eq(tr.stats.tracestop, 1);
	ck_assert_uint_eq(d.stop, 1);
	free(want);
	free(d.ip);
	free(out.buf);
}
END_TEST

/* CR3 filter not matching, or BranchEn=0: no instruction is traced. */
START_TEST(test_flow_nothing)
{
	static const struct flow_case cases[] = {
		{ .name = "CR3 mismatch", .ctl = CTL_BASE | IA32_RTIT_CTL_CR3FILTER,
		  .cr3_other = true },
		{ .name = "BranchEn=0", .ctl = CTL_BASE & ~IA32_RTIT_CTL_BRANCHEN },
	};
	const struct flow_case *fc = &cases[_i];
	struct pt_trace tr;
	struct sink out;
	struct decoded d;

	ck_assert_msg(gt_n > 10000, "no ground truth");
	run_generator(fc, &out, &tr);
	decode(&out, &d);
	ck_assert_uint_eq(d.n, 0);
	ck_assert_uint_eq(tr.stats.tip_pge + tr.stats.tip + tr.stats.fup +
			  tr.stats.tnt, 0);
	ck_assert_uint_ge(tr.stats.psb, 1);	/* PSB+ does not need PacketEn */
	free(d.ip);
	free(out.buf);
}
END_TEST

/*
 * The sink refuses packets for a while (SDM 33.3.8): OVF, then FUP at the
 * step where output resumed. The decoded flow is a prefix of the ground
 * truth, then exactly the ground truth from that step on.
 */
START_TEST(test_flow_overflow)
{
	struct flow_case fc = { .name = "overflow", .ctl = CTL_BASE };
	struct pt_trace tr;
	struct sink out;
	struct decoded d;
	uint64_t *want;
	size_t n, i, resume;

	ck_assert_msg(gt_n > 10000, "no ground truth");
	fc.ovf_from = gt_n / 2;
	fc.ovf_to = gt_n / 2 + 500;
	resume = fc.ovf_to;
	run_generator(&fc, &out, &tr);
	decode(&out, &d);
	want = gt_ips(NULL, &n);
	ck_assert_msg(!d.err, "libipt: %s", pt_errstr(pt_errcode(d.err)));
	ck_assert_uint_eq(tr.stats.ovf, 1);
	ck_assert_uint_eq(d.overflow, 1);
	for (i = 0; i < d.n && i < fc.ovf_from; i++)
		if (d.ip[i] != want[i])
			break;
	ck_assert_uint_gt(i, 0);
	ck_assert_uint_eq(d.n - i, n - resume);
	ck_assert_int_eq(memcmp(d.ip + i, want + resume,
				(n - resume) * sizeof(*want)), 0);
	free(want);
	free(d.ip);
	free(out.buf);
}
END_TEST

/* --- Through the core model: single-range output into "memory" ------------ */

#define PHYS_BASE	0x100000ull
#define PHYS_SIZE	(1u << 20)
static uint8_t *phys;

static int phys_rd(void *ctx, uint64_t pa, void *buf, size_t len)
{
	(void)ctx;
	if (pa < PHYS_BASE || pa + len > PHYS_BASE + PHYS_SIZE)
		return -1;
	memcpy(buf, phys + (pa - PHYS_BASE), len);
	return 0;
}

static int phys_wr(void *ctx, uint64_t pa, const void *buf, size_t len)
{
	(void)ctx;
	if (pa < PHYS_BASE || pa + len > PHYS_BASE + PHYS_SIZE)
		return -1;
	memcpy(phys + (pa - PHYS_BASE), buf, len);
	return 0;
}

/*
 * The generator bound to the core model (pt_trace_model_config()): packets
 * go through IA32_RTIT_OUTPUT_BASE/MASK_PTRS single-range output (33.2.7.1)
 * into memory; the PSB period is the core's PacketByteCnt. Same flow.
 */
START_TEST(test_flow_core_model)
{
	static const struct pt_model_ops ops = { .read_phys = phys_rd,
						 .write_phys = phys_wr };
	struct pt_model_cpu cpu;
	struct pt_trace_config cfg;
	struct pt_trace tr;
	struct sink out = { 0 };
	struct decoded d;
	uint64_t *want, v;
	size_t n, i;

	ck_assert_msg(gt_n > 10000, "no ground truth");
	phys = calloc(1, PHYS_SIZE);
	ck_assert_ptr_nonnull(phys);
	ck_assert_int_eq(pt_model_cpu_init(&cpu, &pt_model_profile_full, &ops,
					   NULL, 0), 0);
	ck_assert_int_eq(pt_model_wrmsr(&cpu, IA32_RTIT_OUTPUT_BASE, PHYS_BASE), 0);
	ck_assert_int_eq(pt_model_wrmsr(&cpu, IA32_RTIT_OUTPUT_MASK_PTRS,
					PHYS_SIZE - 1), 0);
	ck_assert_int_eq(pt_model_wrmsr(&cpu, IA32_RTIT_CTL,
					IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER |
					IA32_RTIT_CTL_BRANCHEN), 0);
	ck_assert_int_eq(pt_trace_model_config(&cfg, &cpu, 0x2a, 0, 0), 0);
	ck_assert_int_eq(pt_trace_init(&tr, &cfg), 0);
	ck_assert_int_eq(pt_trace_enable(&tr, TSC_BASE), 0);
	for (i = 0; i < gt_n; i++)
		ck_assert_int_eq(pt_trace_step(&tr, &gt[i]), 0);
	ck_assert_int_eq(pt_trace_disable(&tr), 0);
	ck_assert_int_eq(pt_model_wrmsr(&cpu, IA32_RTIT_CTL, 0), 0);
	ck_assert_int_eq(pt_model_rdmsr(&cpu, IA32_RTIT_OUTPUT_MASK_PTRS, &v), 0);
	out.buf = phys;
	out.len = v >> IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT;
	ck_assert_uint_eq(out.len, tr.stats.bytes);
	ck_assert_uint_eq(pt_model_get_stats(&cpu)->violations, 0);
	decode(&out, &d);
	want = gt_ips(NULL, &n);
	assert_flow("core model, single-range output", &d, want, n);
	ck_assert_uint_gt(tr.stats.psb, 1);
	free(want);
	free(d.ip);
	free(phys);
}
END_TEST

/* --- Against a real Intel trace -------------------------------------------- */

/* A control-flow packet with its IP reconstructed (Table 33-18). */
struct cf_pkt {
	enum pt_packet_type type;
	uint64_t ip;		/* 0 when suppressed */
	unsigned int mode;	/* MODE.Exec: csl | csd << 1 */
};

/* The FUP, TIP, TIP.PGE, TIP.PGD and MODE.Exec packets, decoded by libipt. */
static size_t cf_packets(const uint8_t *buf, size_t len, struct cf_pkt *out,
			 size_t max)
{
	struct pt_packet_decoder *pd;
	struct pt_config config;
	struct pt_packet pkt;
	uint64_t last = 0;
	size_t n = 0;

	pt_config_init(&config);
	config.begin = (uint8_t *)buf;
	config.end = (uint8_t *)buf + len;
	pd = pt_pkt_alloc_decoder(&config);
	ck_assert_ptr_nonnull(pd);
	ck_assert_int_ge(pt_pkt_sync_forward(pd), 0);
	while (n < max && pt_pkt_next(pd, &pkt, sizeof(pkt)) >= 0) {
		uint64_t ip = pkt.payload.ip.ip;

		switch (pkt.type) {
		case ppt_psb:
			last = 0;
			break;
		case ppt_mode:
			if (pkt.payload.mode.leaf != pt_mol_exec)
				break;
			out[n].type = ppt_mode;
			out[n].ip = 0;
			out[n++].mode = pkt.payload.mode.bits.exec.csl |
					pkt.payload.mode.bits.exec.csd << 1;
			break;
		case ppt_fup:
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			switch (pkt.payload.ip.ipc) {
			case pt_ipc_suppressed:
				ip = 0;
				break;
			case pt_ipc_update_16:
				ip = last = (last & ~0xffffull) | (ip & 0xffff);
				break;
			case pt_ipc_update_32:
				ip = last = (last & ~0xffffffffull) | (ip & 0xffffffff);
				break;
			case pt_ipc_update_48:
				ip = last = (last & ~0xffffffffffffull) |
					    (ip & 0xffffffffffffull);
				break;
			case pt_ipc_sext_48:
				ip = last = ip & (1ull << 47) ? ip | 0xffff000000000000ull :
						ip & 0xffffffffffffull;
				break;
			default:
				last = ip;
				break;
			}
			out[n].type = pkt.type;
			out[n].mode = 0;
			out[n++].ip = ip;
			break;
		default:
			break;
		}
	}
	pt_pkt_free_decoder(pd);
	return n;
}

/*
 * DynamoRIO's drpt2trace sample (testdata/pt/real/dynamorio): the static
 * program "hello" traced by a real Intel processor (family 6 model 85).
 * Single-stepping the same binary and tracing it with the model must give
 * the same control-flow packets with the same IPs: MODE.Exec, TIP.PGE at
 * _start, TIP.PGD() at each SYSCALL (no FUP, SDM Table 33-56 case 6),
 * TIP.PGE after it. The real trace also has FUP(CLIP), TIP.PGD(),
 * TIP.PGE(CLIP) for a page fault on the first instruction, which single-
 * stepping cannot see; that triple is removed before comparing. IPBytes
 * may differ (the real processor does not compress after a PSB).
 */
START_TEST(test_real_hello)
{
	const char *dir = getenv("LWPT_PT_TESTDATA");
	char hello[PATH_MAX], real[PATH_MAX];
	struct pt_trace_step *steps = NULL;
	struct cf_pkt want[64], got[64];
	struct flow_case fc = { .name = "hello",
				.ctl = CTL_BASE | IA32_RTIT_CTL_TSCEN |
				       IA32_RTIT_CTL_MTCEN |
				       ((uint64_t)MTC_FREQ << IA32_RTIT_CTL_MTCFREQ_SHIFT) };
	size_t nsteps = 0, nreal, nw = 0, ng, i, rlen;
	struct pt_trace_step *saved_gt = gt;
	size_t saved_n = gt_n;
	struct pt_trace tr;
	struct sink out;
	uint8_t *rbuf;
	int code = -1;

	snprintf(hello, sizeof(hello), "%s/real/dynamorio/hello",
		 dir ? dir : "../shared/testdata/pt");
	snprintf(real, sizeof(real), "%s/real/dynamorio/dynamorio.pt",
		 dir ? dir : "../shared/testdata/pt");
	if (access(hello, R_OK) || access(real, R_OK)) {
		fprintf(stderr, "test_real_hello: %s not found: skipped\n", hello);
		return;
	}
	{
		/* testdata is read-only and not executable: run a copy. */
		char exe[] = "/tmp/lwpt-hello-XXXXXX";
		size_t len;
		uint8_t *img = read_file(hello, &len);
		int fd = mkstemp(exe);

		ck_assert_ptr_nonnull(img);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, img, len), (ssize_t)len);
		ck_assert_int_eq(fchmod(fd, 0700), 0);
		close(fd);
		free(img);
		ck_assert_int_eq(capture(exe, &steps, &nsteps, &code), 0);
		unlink(exe);
	}
	ck_assert_uint_eq(nsteps, 8);	/* testdata README: 8 instructions */
	ck_assert_int_eq(code, 0);

	/* Our trace. */
	gt = steps;
	gt_n = nsteps;
	run_generator(&fc, &out, &tr);
	gt = saved_gt;
	gt_n = saved_n;
	ng = cf_packets(out.buf, out.len, got, 64);

	/* The real one, without the page-fault triple. */
	rbuf = read_file(real, &rlen);
	ck_assert_ptr_nonnull(rbuf);
	nreal = cf_packets(rbuf, rlen, want, 64);
	for (i = 0; i < nreal; i++) {
		if (i + 2 < nreal && want[i].type == ppt_fup &&
		    want[i + 1].type == ppt_tip_pgd && !want[i + 1].ip &&
		    want[i + 2].type == ppt_tip_pge && want[i + 2].ip == want[i].ip) {
			i += 2;
			continue;
		}
		want[nw++] = want[i];
	}
	ck_assert_uint_eq(nw, 5);
	ck_assert_uint_eq(ng, nw);
	for (i = 0; i < nw; i++) {
		ck_assert_msg(got[i].type == want[i].type && got[i].ip == want[i].ip &&
			      got[i].mode == want[i].mode,
			      "packet %zu: model type %d ip %#llx, real type %d ip %#llx",
			      i, got[i].type, (unsigned long long)got[i].ip,
			      want[i].type, (unsigned long long)want[i].ip);
	}
	fprintf(stderr, "test_real_hello: %zu control-flow packets as in the real "
		"trace (%zu steps)\n", nw, nsteps);
	free(rbuf);
	free(out.buf);
	free(steps);
}
END_TEST

static void find_prog(const char *argv0)
{
	const char *env = getenv("LWPT_TRACE_FLOW_PROG");
	char self[PATH_MAX];
	ssize_t r;

	(void)argv0;
	if (env) {
		snprintf(prog_path, sizeof(prog_path), "%s", env);
		return;
	}
	r = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (r < 0)
		r = 0;
	self[r] = 0;
	snprintf(prog_path, sizeof(prog_path), "%s/trace_flow_prog", dirname(self));
}

int main(int argc, char **argv)
{
	Suite *s = suite_create("pt_trace_flow");
	TCase *tc = tcase_create("libipt");
	int failed;

	(void)argc;
	find_prog(argv[0]);
	/* Captured once, in the parent: every forked test sees it. */
	setup_capture();
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_flow_full, 0,
			    sizeof(full_cases) / sizeof(full_cases[0]));
	tcase_add_test(tc, test_flow_ip_filter);
	tcase_add_test(tc, test_flow_tracestop);
	tcase_add_loop_test(tc, test_flow_nothing, 0, 2);
	tcase_add_test(tc, test_flow_overflow);
	tcase_add_test(tc, test_flow_core_model);
	tcase_add_test(tc, test_real_hello);
	suite_add_tcase(s, tc);
	failed = lwpt_check_run(s, CK_NORMAL);
	free(gt);
	return failed;
}
