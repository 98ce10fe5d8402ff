// SPDX-License-Identifier: GPL-2.0
/*
 * A BTS trace of a real program against single-stepping (issue 37, point
 * 1), run on the host:
 *
 *   1. single-step tests/model/pt/progs/trace_flow_prog (static, -no-pie)
 *      under ptrace (tests/model/step_trace.c): the ground truth;
 *   2. feed each retired instruction to the model (model/bts/bts_step.h)
 *      with BTS into a DS save area in the test's memory;
 *   3. decode the BTS records as ptflow will: the code from one record's
 *      "to" to the next record's "from" is linear (instruction lengths from
 *      the program's ELF file); a record into the kernel resumes after the
 *      instruction, a record from the kernel at its "to";
 *   4. require the decoded instruction addresses to equal the ground truth;
 *   5. decode them again with libpt's BTS decoder (lwpt/bts_decode.h, the
 *      program's ELF file as the image), which ptflow uses: its blocks'
 *      instructions must equal the ground truth too.
 *
 * Configurations: user-only (BTS_OFF_OS, the "kernel address leak" of the
 * transitions into the kernel kept), user and kernel, kernel only
 * (BTS_OFF_USR), a small buffer drained by the threshold PMI (BTINT, as
 * perf's intel_bts driver does), a circular buffer (its content is the
 * tail of the full trace), and the LBR stack at the end (the last 16
 * user-mode records). The program is found next to this binary or through
 * $LWPT_TRACE_FLOW_PROG.
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lwpt/bts_decode.h>

#include "model/bts/bts_model.h"
#include "model/bts/bts_step.h"
#include "tests/check_run.h"
#include "tests/model/step_trace.h"

#define KERNEL_MIN	0xffff800000000000ull
static const struct bts_step_config kcfg = {
	.syscall_entry = 0xffffffff81e00000ull,	/* entry_SYSCALL_64 */
	.sysret_ip = 0xffffffff81e00190ull,
	.idt_entry = 0xffffffff81e01000ull,
	.iret_ip = 0xffffffff81e01100ull,
};

/* --- The program, its ground truth and its code --------------------------- */

static char prog_path[PATH_MAX];
static struct lwpt_step_list gt;
static int prog_exit = -1;
static uint64_t entry;

static struct {
	uint8_t *file;
	size_t size;
	struct { uint64_t off, size, vaddr; } seg[8];
	unsigned int nseg;
} elf;

static int elf_load(const char *path)
{
	struct stat st;
	const Elf64_Ehdr *eh;
	size_t i;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	elf.size = (size_t)st.st_size;
	elf.file = malloc(elf.size);
	if (!elf.file || read(fd, elf.file, elf.size) != (ssize_t)elf.size) {
		close(fd);
		return -1;
	}
	close(fd);
	eh = (const Elf64_Ehdr *)elf.file;
	entry = eh->e_entry;
	for (i = 0; i < eh->e_phnum && elf.nseg < 8; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf.file + eh->e_phoff +
							   i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			elf.seg[elf.nseg].off = ph->p_offset;
			elf.seg[elf.nseg].size = ph->p_filesz;
			elf.seg[elf.nseg].vaddr = ph->p_vaddr;
			elf.nseg++;
		}
	}
	return elf.nseg ? 0 : -1;
}

/* Length of the instruction at @ip in the program's file, or 0. */
static unsigned int insn_len(uint64_t ip)
{
	unsigned int i;

	for (i = 0; i < elf.nseg; i++) {
		struct x86_cofi c;
		uint64_t o = ip - elf.seg[i].vaddr;
		size_t n;

		if (ip < elf.seg[i].vaddr || o >= elf.seg[i].size)
			continue;
		n = elf.seg[i].size - o;
		if (n > X86_MAX_INSN_LEN)
			n = X86_MAX_INSN_LEN;
		if (x86_cofi_decode(elf.file + elf.seg[i].off + o, n, X86_MODE_64, &c))
			return 0;
		return c.len;
	}
	return 0;
}

/* Single-step the program once, before the tests fork. */
static int setup(void)
{
	char self[PATH_MAX];
	const char *env = getenv("LWPT_TRACE_FLOW_PROG");
	char *argv[2] = { prog_path, NULL };
	const struct lwpt_step_opts opts = { .empty_env = true };
	ssize_t n;

	if (env) {
		snprintf(prog_path, sizeof(prog_path), "%s", env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return -1;
		self[n] = '\0';
		snprintf(prog_path, sizeof(prog_path), "%s/trace_flow_prog", dirname(self));
	}
	if (access(prog_path, X_OK) || elf_load(prog_path)) {
		fprintf(stderr, "test_bts_flow: %s not built or not an ELF file\n", prog_path);
		return -1;
	}
	if (lwpt_step_run(argv, &opts, lwpt_step_collect, &gt, &prog_exit) ||
	    gt.n < 1000 || gt.v[0].ip != entry) {
		fprintf(stderr, "test_bts_flow: single-stepping %s failed\n", prog_path);
		return -1;
	}
	return 0;
}

/* --- The model's memory: one flat region of linear addresses -------------- */

#define LA_BASE		0x7e0000000000ull
#define DS_LA		LA_BASE
#define BUF_LA		(LA_BASE + 0x1000)

struct run {
	uint8_t *mem;
	size_t size;
	struct bts_record *out;		/* records drained by the PMI and at the end */
	size_t out_n, out_cap;
	int pmis;
	struct bts_model_cpu cpu;
};

static bool in_mem(const struct run *r, uint64_t la, size_t len)
{
	return la >= LA_BASE && la - LA_BASE <= r->size && len <= r->size - (la - LA_BASE);
}

static int rd(void *ctx, uint64_t la, void *buf, size_t len)
{
	struct run *r = ctx;

	if (!in_mem(r, la, len))
		return -1;
	memcpy(buf, r->mem + (la - LA_BASE), len);
	return 0;
}

static int wr(void *ctx, uint64_t la, const void *buf, size_t len)
{
	struct run *r = ctx;

	if (!in_mem(r, la, len))
		return -1;
	memcpy(r->mem + (la - LA_BASE), buf, len);
	return 0;
}

static uint64_t get64(struct run *r, uint64_t la)
{
	uint64_t v;

	ck_assert(in_mem(r, la, 8));
	memcpy(&v, r->mem + (la - LA_BASE), 8);
	return v;
}

static void put64(struct run *r, uint64_t la, uint64_t v)
{
	ck_assert(in_mem(r, la, 8));
	memcpy(r->mem + (la - LA_BASE), &v, 8);
}

/* Move the records [base, index) to r->out and reset the index (a drain). */
static void drain(struct run *r)
{
	uint64_t base = get64(r, DS_LA + DS_BTS_BUFFER_BASE);
	uint64_t idx = get64(r, DS_LA + DS_BTS_INDEX);
	size_t n = (idx - base) / BTS_RECORD_SIZE, i;

	ck_assert_uint_eq((idx - base) % BTS_RECORD_SIZE, 0);
	if (r->out_n + n > r->out_cap) {
		r->out_cap = 2 * (r->out_n + n);
		r->out = realloc(r->out, r->out_cap * sizeof(*r->out));
		ck_assert_ptr_nonnull(r->out);
	}
	for (i = 0; i < n; i++)
		ck_assert_int_eq(rd(r, base + i * BTS_RECORD_SIZE, &r->out[r->out_n++],
				    BTS_RECORD_SIZE), 0);
	put64(r, DS_LA + DS_BTS_INDEX, base);
}

static void pmi(void *ctx, struct bts_model_cpu *cpu)
{
	struct run *r = ctx;

	(void)cpu;
	r->pmis++;
	drain(r);
}

static const struct bts_model_ops ops = { .read_lin = rd, .write_lin = wr, .pmi = pmi };

/*
 * Run the ground truth through the model: a BTS buffer of @nrec records,
 * the threshold @thresh_rec records from the base (beyond the maximum if
 * larger), DEBUGCTL = @debugctl.
 */
static void run_model(struct run *r, const struct bts_model_profile *prof,
		      uint64_t debugctl, uint64_t lbr_select, size_t nrec, size_t thresh_rec)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->size = 0x1000 + nrec * BTS_RECORD_SIZE;
	r->mem = calloc(1, r->size);
	ck_assert_ptr_nonnull(r->mem);
	ck_assert_int_eq(bts_model_cpu_init(&r->cpu, prof, &ops, r, 0), 0);
	put64(r, DS_LA + DS_BTS_BUFFER_BASE, BUF_LA);
	put64(r, DS_LA + DS_BTS_INDEX, BUF_LA);
	put64(r, DS_LA + DS_BTS_ABSOLUTE_MAXIMUM, BUF_LA + nrec * BTS_RECORD_SIZE);
	put64(r, DS_LA + DS_BTS_INTERRUPT_THRESHOLD, BUF_LA + thresh_rec * BTS_RECORD_SIZE);
	ck_assert_int_eq(bts_model_wrmsr(&r->cpu, IA32_DS_AREA, DS_LA), 0);
	if (lbr_select)
		ck_assert_int_eq(bts_model_wrmsr(&r->cpu, MSR_LBR_SELECT, lbr_select), 0);
	ck_assert_int_eq(bts_model_wrmsr(&r->cpu, IA32_DEBUGCTL, debugctl), 0);
	for (i = 0; i < gt.n; i++) {
		struct bts_step s = {
			.ip = gt.v[i].ip, .insn_size = gt.v[i].insn_size, .cpl = gt.v[i].cpl,
			.mode = gt.v[i].mode, .next_ip = gt.v[i].next_ip,
		};

		memcpy(s.insn, gt.v[i].insn, sizeof(s.insn));
		ck_assert_int_ge(bts_step(&r->cpu, &kcfg, &s), 0);
	}
	ck_assert_uint_eq(r->cpu.stats.violations, 0);
}

static void run_free(struct run *r)
{
	free(r->mem);
	free(r->out);
}

static bool kernel(uint64_t a)
{
	return a >= KERNEL_MIN;
}

/*
 * The instruction flow the records give, compared with the ground truth
 * instruction by instruction.
 */
static void check_flow(const struct bts_record *rec, size_t n)
{
	uint64_t cur = entry;
	size_t i, g = 0;

	for (i = 0; i < n; i++) {
		if (kernel(rec[i].from)) {	/* back from the kernel */
			cur = rec[i].to;
			continue;
		}
		for (;;) {
			unsigned int len;

			ck_assert_msg(g < gt.n, "record %zu: decoded past the end", i);
			ck_assert_msg(cur == gt.v[g].ip,
				      "record %zu: decoded %#llx, single-stepped %#llx (step %zu)",
				      i, (unsigned long long)cur, (unsigned long long)gt.v[g].ip, g);
			g++;
			if (cur == rec[i].from)
				break;
			len = insn_len(cur);
			ck_assert_msg(len, "no instruction at %#llx", (unsigned long long)cur);
			cur += len;
		}
		cur = kernel(rec[i].to) ? rec[i].from + insn_len(rec[i].from) : rec[i].to;
	}
	ck_assert_uint_eq(g, gt.n);	/* the last record is the exit_group */
}

/*
 * The same through libpt's BTS decoder: blocks and events against the
 * ground truth. A record into the kernel is DISABLED, the code ENABLED
 * again after it.
 */
static void check_decoder(const struct bts_record *rec, size_t n)
{
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct lpt_bts *d;
	size_t g = 0, blocks = 0, disabled = 0, enabled = 0;
	int st;

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(lpt_cov_image_add_elf(img, prog_path, 0), 0);
	d = lpt_bts_alloc(img, rec, n * sizeof(*rec), entry);
	ck_assert_ptr_nonnull(d);
	st = lpt_bts_status(d);
	while (st >= 0 && !(st & LPT_FLOW_EOS)) {
		struct lpt_flow_block b;
		struct lpt_flow_event ev;
		uint64_t ip;
		uint32_t k;

		if (st & LPT_FLOW_EVENT_PENDING) {
			st = lpt_bts_event(d, &ev);
			ck_assert_uint_ne(ev.type, LPT_FLOW_EV_RESYNC);
			if (ev.type == LPT_FLOW_EV_DISABLED) {
				ck_assert(kernel(ev.ip));
				disabled++;
			} else {
				ck_assert_uint_eq(ev.type, LPT_FLOW_EV_ENABLED);
				ck_assert_uint_lt(g, gt.n);
				ck_assert_uint_eq(ev.ip, gt.v[g].ip);
				enabled++;
			}
			continue;
		}
		st = lpt_bts_next(d, &b);
		ck_assert_int_ge(st, 0);
		blocks++;
		for (k = 0, ip = b.ip; k < b.ninsn; ip += b.lens[k++]) {
			ck_assert_msg(g < gt.n, "decoded past the end");
			ck_assert_msg(ip == gt.v[g].ip, "decoded %#llx, single-stepped %#llx (step %zu)",
				      (unsigned long long)ip, (unsigned long long)gt.v[g].ip, g);
			g++;
		}
		ck_assert_uint_eq(ip - b.lens[b.ninsn - 1], b.end_ip);
	}
	ck_assert_int_ge(st, 0);
	ck_assert_uint_eq(g, gt.n);
	ck_assert_uint_gt(blocks, 0);
	/* Into the kernel: its code is not in the image, so a gap either way
	 * (user-only: resumed after the record's "from"; with kernel records:
	 * at the return's "to"); none after exit_group. */
	ck_assert_uint_gt(disabled, 1);
	ck_assert_uint_eq(enabled, disabled - 1);
	lpt_bts_free(d);
	lpt_cov_image_free(img);
}

/* The records of the user-only trace, for the other cases to compare with. */
static struct bts_record *user_recs;
static size_t user_n;

static void records_of(struct run *r, struct bts_record **out, size_t *n)
{
	drain(r);
	*out = r->out;
	*n = r->out_n;
}

START_TEST(test_flow_user)
{
	struct run r;
	size_t n, i, syscalls = 0;
	struct bts_record *rec;

	run_model(&r, &bts_model_profile_nhm, IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS |
		  IA32_DEBUGCTL_BTS_OFF_OS, 0, 4 * gt.n, 8 * gt.n);
	records_of(&r, &rec, &n);
	ck_assert_int_eq(r.pmis, 0);
	check_flow(rec, n);
	check_decoder(rec, n);
	for (i = 0; i < n; i++) {
		ck_assert(!kernel(rec[i].from));
		syscalls += kernel(rec[i].to);	/* 17.4.6: the leak perf filters */
	}
	ck_assert_uint_gt(syscalls, 1);
	ck_assert_uint_eq(rec[n - 1].to, kcfg.syscall_entry);
	ck_assert_uint_eq(r.cpu.stats.bts_cpl_skipped, syscalls - 1);
	printf("bts flow: %zu instructions, %zu BTS records (%zu into the kernel), %zu bytes\n",
	       gt.n, n, syscalls, n * BTS_RECORD_SIZE);
	run_free(&r);
}
END_TEST

/* The reference trace every other case is compared with. */
static void user_reference(void)
{
	struct run r;

	run_model(&r, &bts_model_profile_nhm, IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS |
		  IA32_DEBUGCTL_BTS_OFF_OS, 0, 4 * gt.n, 8 * gt.n);
	records_of(&r, &user_recs, &user_n);
	r.out = NULL;
	run_free(&r);
}

START_TEST(test_flow_user_and_kernel)
{
	struct run r;
	size_t n, i, u = 0;
	struct bts_record *rec;

	user_reference();
	run_model(&r, &bts_model_profile_core2, IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS,
		  0, 4 * gt.n, 8 * gt.n);
	records_of(&r, &rec, &n);
	check_flow(rec, n);
	check_decoder(rec, n);
	for (i = 0; i < n; i++) {
		if (kernel(rec[i].from)) {
			ck_assert_uint_eq(rec[i].from, kcfg.sysret_ip);
			continue;
		}
		ck_assert_uint_lt(u, user_n);
		ck_assert_mem_eq(&rec[i], &user_recs[u], sizeof(rec[i]));
		u++;
	}
	ck_assert_uint_eq(u, user_n);
	run_free(&r);
}
END_TEST

START_TEST(test_flow_kernel_only)
{
	struct run r;
	size_t n, i, into = 0;
	struct bts_record *rec;

	user_reference();
	for (i = 0; i < user_n; i++)
		into += kernel(user_recs[i].to);
	run_model(&r, &bts_model_profile_nhm, IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS |
		  IA32_DEBUGCTL_BTS_OFF_USR, 0, 4 * gt.n, 8 * gt.n);
	records_of(&r, &rec, &n);
	ck_assert_uint_eq(n, into - 1);		/* every return but exit_group's */
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(rec[i].from, kcfg.sysret_ip);
	run_free(&r);
}
END_TEST

/* BTINT with a small buffer, drained at the threshold (perf's intel_bts). */
START_TEST(test_flow_threshold_drain)
{
	struct run r;
	size_t n;
	struct bts_record *rec;

	user_reference();
	run_model(&r, &bts_model_profile_pmv4, IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS |
		  IA32_DEBUGCTL_BTINT | IA32_DEBUGCTL_BTS_OFF_OS, 0, 64, 56);
	records_of(&r, &rec, &n);
	ck_assert_int_eq(r.pmis, (int)(user_n / 56));
	ck_assert_uint_eq(r.cpu.stats.bts_lost, 0);
	ck_assert_uint_eq(n, user_n);
	ck_assert_mem_eq(rec, user_recs, n * sizeof(*rec));
	check_flow(rec, n);
	run_free(&r);
}
END_TEST

/* BTINT=0: a circular buffer of 32 records holds the last 32 of the trace. */
START_TEST(test_flow_circular)
{
	struct run r;
	uint64_t idx;
	size_t slot, i;

	user_reference();
	run_model(&r, &bts_model_profile_core2, IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS |
		  IA32_DEBUGCTL_BTS_OFF_OS, 0, 32, 33);
	ck_assert_int_eq(r.pmis, 0);
	ck_assert_uint_eq(r.cpu.stats.bts_wraps, (user_n - 1) / 32);
	idx = get64(&r, DS_LA + DS_BTS_INDEX);
	slot = (idx - BUF_LA) / BTS_RECORD_SIZE;	/* the oldest record, mod 32 */
	for (i = 0; i < 32; i++) {
		struct bts_record got;

		ck_assert_int_eq(rd(&r, BUF_LA + ((slot + i) % 32) * BTS_RECORD_SIZE, &got,
				    sizeof(got)), 0);
		ck_assert_mem_eq(&got, &user_recs[user_n - 32 + i], sizeof(got));
	}
	run_free(&r);
}
END_TEST

/*
 * The LBR stack at the end: the last depth user-mode branches, TOS newest,
 * decoded as perf's intel_pmu_lbr_read_64() does for the profile's format:
 * nhm format 3 (MISPRED in FROM bit 63), hsw format 4 (FROM bits 63:61
 * flags, the address sign-extended from bit 60), skl format 5 (full
 * addresses, flags and cycles in MSR_LBR_INFO_n: 0 here, the model
 * predicts every branch and has no cycle clock), glm format 6 (MISPRED in
 * FROM bit 63, the cycles in TO bits 63:48: 0), glp format 7 (as 5).
 */
START_TEST(test_flow_lbr)
{
	const struct bts_model_profile *prof[] = {
		&bts_model_profile_nhm, &bts_model_profile_hsw, &bts_model_profile_skl,
		&bts_model_profile_glm, &bts_model_profile_glp,
	};
	const struct bts_model_profile *p = prof[_i];
	unsigned int i, mask = p->lbr_depth - 1;
	struct run r;

	user_reference();
	ck_assert_uint_ge(user_n, p->lbr_depth);
	run_model(&r, p, IA32_DEBUGCTL_LBR, LBR_SELECT_CPL_EQ_0, 1, 2);
	for (i = 0; i < p->lbr_depth; i++) {
		uint64_t tos, from, to, info;
		unsigned int slot;

		ck_assert_int_eq(bts_model_rdmsr(&r.cpu, MSR_LASTBRANCH_TOS, &tos), 0);
		slot = (unsigned int)(tos - i) & mask;
		ck_assert_int_eq(bts_model_rdmsr(&r.cpu, p->lbr_from_msr + slot, &from), 0);
		ck_assert_int_eq(bts_model_rdmsr(&r.cpu, p->lbr_to_msr + slot, &to), 0);
		if (p->lbr_format == LBR_FMT_EIP_FLAGS2) {
			ck_assert_uint_eq(from >> 61, 0);	/* predicted, no TSX */
			from = (uint64_t)((int64_t)(from << 3) >> 3);
		} else if (p->lbr_format == LBR_FMT_INFO || p->lbr_format == LBR_FMT_INFO2) {
			ck_assert_int_eq(bts_model_rdmsr(&r.cpu, MSR_LBR_INFO_0 + slot, &info), 0);
			ck_assert_uint_eq(info, 0);
		} else {
			ck_assert_uint_eq(from >> 63, 0);	/* formats 3, 6: predicted */
		}
		if (p->lbr_format == LBR_FMT_TIME) {
			ck_assert_uint_eq(to >> 48, 0);		/* no cycle clock */
			to = (uint64_t)((int64_t)(to << 16) >> 16);
		}
		ck_assert_uint_eq(from, user_recs[user_n - 1 - i].from);
		ck_assert_uint_eq(to, user_recs[user_n - 1 - i].to);
	}
	run_free(&r);
}
END_TEST

static Suite *bts_flow_suite(void)
{
	Suite *s = suite_create("bts_flow");
	TCase *tc = tcase_create("single_step");

	tcase_add_test(tc, test_flow_user);
	tcase_add_test(tc, test_flow_user_and_kernel);
	tcase_add_test(tc, test_flow_kernel_only);
	tcase_add_test(tc, test_flow_threshold_drain);
	tcase_add_test(tc, test_flow_circular);
	tcase_add_loop_test(tc, test_flow_lbr, 0, 5);
	/* Single-stepping a program on a loaded, shared machine. */
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * `test_bts_flow --write-capture DIR`: the user-only trace as a `format
 * bts` capture directory (Documentation/ptcap-format.rst "BTS trace
 * files": config with the bts-start line, maps, tid1.bts) for ptflow,
 * DIR/expected: the single-stepped addresses, one "%llx" a line, and
 * DIR/expected.tail: those from the first record's "to" on (where a BTS
 * flow starts without bts-start) (tests/tools/ptflow/ptflow_bts.sh).
 */
static int write_capture(const char *dir)
{
	struct run r;
	struct bts_record *rec;
	char path[PATH_MAX + 32];
	size_t n, g, i;
	FILE *f;

	run_model(&r, &bts_model_profile_nhm, IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS |
		  IA32_DEBUGCTL_BTS_OFF_OS, 0, 4 * gt.n, 8 * gt.n);
	records_of(&r, &rec, &n);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/config", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "lwpt-ptcap-config 1\nformat bts\nmode per-thread\n"
		"command %s\nthread.tid1.bts tid=1 pid=1\nbts-start.tid1.bts %#llx\n",
		prog_path, (unsigned long long)entry);
	if (fclose(f))
		return -1;
	snprintf(path, sizeof(path), "%s/maps", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "lwpt-ptcap-maps 1\n");
	for (i = 0; i < elf.nseg; i++)
		fprintf(f, "%#llx %#llx %#llx %s\n", (unsigned long long)elf.seg[i].vaddr,
			(unsigned long long)(elf.seg[i].vaddr + elf.seg[i].size),
			(unsigned long long)elf.seg[i].off, prog_path);
	if (fclose(f))
		return -1;
	snprintf(path, sizeof(path), "%s/tid1.bts", dir);
	f = fopen(path, "w");
	if (!f || fwrite(rec, sizeof(*rec), n, f) != n || fclose(f))
		return -1;
	snprintf(path, sizeof(path), "%s/expected", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	for (g = 0; g < gt.n; g++)
		fprintf(f, "%llx\n", (unsigned long long)gt.v[g].ip);
	if (fclose(f))
		return -1;
	snprintf(path, sizeof(path), "%s/expected.tail", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	for (g = 0; g < gt.n && gt.v[g].ip != rec[0].from; g++)
		;
	for (g++; g < gt.n; g++)
		fprintf(f, "%llx\n", (unsigned long long)gt.v[g].ip);
	if (fclose(f))
		return -1;
	printf("%s: %zu records, %zu instructions\n", dir, n, gt.n);
	run_free(&r);
	return 0;
}

/* Assertions need a test around them. */
static const char *capture_dir;

START_TEST(test_write_capture)
{
	ck_assert_int_eq(write_capture(capture_dir), 0);
}
END_TEST

int main(int argc, char **argv)
{
	if (setup())
		return EXIT_FAILURE;
	if (argc == 3 && !strcmp(argv[1], "--write-capture")) {
		Suite *s = suite_create("bts_flow_capture");
		TCase *tc = tcase_create("write");

		capture_dir = argv[2];
		tcase_add_test(tc, test_write_capture);
		tcase_set_timeout(tc, 600);
		suite_add_tcase(s, tc);
		return lwpt_check_run(s, CK_SILENT);
	}
	return lwpt_check_run(bts_flow_suite(), CK_NORMAL);
}
