// SPDX-License-Identifier: GPL-2.0
/*
 * Records of raw LWPINS/LWPVAL (and LLWPCB/SLWPCB) assembled by GNU as, in
 * every operand form, on liblwp's emulation backend (43724 §5.1-§5.4,
 * Figures 2-2 and 2-8).
 *
 * At test time the test writes one function in AT&T syntax that executes
 * each form with register values it chose (all 16 registers as Data2 and as
 * Data1; memory operands with every base incl. RSP and RIP, every index,
 * every scale, disp 0/8/32 bits, absolute and index-only addresses, 32-bit
 * address size with garbage in the upper register halves; 32- and 64-bit
 * operand sizes), assembles it with `as --64`, loads .text at a fixed
 * address below 2 GiB (so that absolute and 32-bit addresses work), runs it,
 * and compares every record with what the spec prescribes: EventId,
 * Flags = imm & 0xffff, Data1 = the 32-bit reg/mem value, Data2 = the vvvv
 * register zero-extended from the operand size, InstructionAddress = the
 * instruction, reserved bytes zero; CF = 0 after each LWPINS, set by STC
 * just before it (§5.4: cleared when the record fits).
 * Skips (passes with a message) if GNU as/objcopy are not installed.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lwpt/lwp.h>
#include "tests/check_run.h"

#define CODE_ADDR	0x20000000ul	/* .text loaded here */
#define CODE_MAX	(8ul << 20)
#define DATA_ADDR	(CODE_ADDR + CODE_MAX)	/* slots, CF bytes, saved regs */
#define DATA_SIZE	(2ul << 20)
#define SAVED_RSP	(DATA_ADDR)
#define LWPCB_SLOT	(DATA_ADDR + 8)
#define SLW_BASE	(DATA_ADDR + 0x100)	/* SLWPCB results, 8 bytes each */
#define CF_BASE		(DATA_ADDR + 0x1000)	/* one byte per form */
#define SLOT_BASE	(DATA_ADDR + 0x40000)	/* 8 bytes per form */
#define STACK_RESERVE	0x1100

static const char *const r64[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};
static const char *const r32[16] = {
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
	"r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d",
};

struct form {
	int ins;		/* 1 LWPINS, 0 LWPVAL */
	unsigned int opsize;
	int vreg, rmreg;	/* rmreg -1: memory */
	uint32_t imm;
	uint64_t d2;		/* expected Data2 (if !d2_rsp) */
	int d2_rsp;		/* Data2 is RSP: from SAVED_RSP */
	uint32_t d1;		/* expected Data1 (if !d1_rsp) */
	int d1_rsp;
	char text[96];
};

static struct form *forms;
static size_t nforms, capforms;
static int nslw;

static uint64_t regval(size_t i, int r)
{
	return (0x0101010101010101ull * (uint64_t)(r + 1)) ^ ((uint64_t)i << 20) ^
	       0x80000000ull;
}

static void emit_movabs(FILE *f, int r, uint64_t v)
{
	fprintf(f, "\tmovabs $0x%llx, %%%s\n", (unsigned long long)v, r64[r]);
}

static struct form *new_form(void)
{
	if (nforms == capforms) {
		capforms = capforms ? 2 * capforms : 1024;
		forms = realloc(forms, capforms * sizeof(*forms));
		ck_assert_ptr_nonnull(forms);
	}
	memset(&forms[nforms], 0, sizeof(forms[nforms]));
	return &forms[nforms];
}

/* Expected Data2 for vvvv = @r holding @v (zero-extended, §5.3/§5.4). */
static void set_d2(struct form *fm, int r, uint64_t v)
{
	fm->d2_rsp = r == 4;
	fm->d2 = fm->opsize == 32 ? (uint32_t)v : v;
}

static void emit_insn(FILE *f, struct form *fm, const char *prefix,
		      const char *rm)
{
	size_t i = nforms;

	snprintf(fm->text, sizeof(fm->text), "%s%s $%d, %s, %%%s", prefix,
		 fm->ins ? "lwpins" : "lwpval", (int32_t)fm->imm, rm,
		 (fm->opsize == 64 ? r64 : r32)[fm->vreg]);
	/* CF set right before each LWPINS: the 0 checked after is its own. */
	if (fm->ins)
		fprintf(f, "\tstc\n");
	fprintf(f, "I%zu:\t%s\n", i, fm->text);
	if (fm->ins)
		fprintf(f, "\tsetc 0x%lx\n", CF_BASE + i);
	nforms++;
}

static void gen_reg_forms(FILE *f)
{
	char rmtext[16];
	int ins, sz, v, rm;

	for (ins = 0; ins <= 1; ins++)
		for (sz = 32; sz <= 64; sz += 32)
			for (v = 0; v < 16; v++)
				for (rm = 0; rm < 16; rm++) {
					struct form *fm = new_form();
					uint64_t vv = regval(nforms, v);
					uint64_t rv = regval(nforms, rm);

					fm->ins = ins;
					fm->opsize = (unsigned int)sz;
					fm->vreg = v;
					fm->rmreg = rm;
					fm->imm = (uint32_t)(nforms * 0x10003u);
					if (v != 4)
						emit_movabs(f, v, vv);
					if (rm != 4 && rm != v)
						emit_movabs(f, rm, rv);
					if (rm == v)
						rv = vv;
					set_d2(fm, v, vv);
					fm->d1_rsp = rm == 4;
					fm->d1 = (uint32_t)rv;
					snprintf(rmtext, sizeof(rmtext), "%%%s",
						 r32[rm]);
					emit_insn(f, fm, "", rmtext);
				}
}

static void gen_mem_forms(FILE *f)
{
	static const int32_t disps[] = { 0, 0x40, -0x40, 0x1000 };
	static const unsigned int scales[] = { 1, 2, 4, 8 };
	int ins, b, x, s, d, a32;
	char rm[96];

	for (ins = 0; ins <= 1; ins++)
	for (a32 = 0; a32 <= 1; a32++)
	for (b = -2; b < 16; b++)		/* -2 none, -1 RIP */
	for (x = -1; x < 16; x++) {
		if (x == 4 || (b >= 0 && b == x) || (b == -1 && x >= 0))
			continue;
		if (b == 4 && a32)
			continue;	/* the stack is above 4 GiB */
		for (s = 0; s < 4; s++) {
			if (x < 0 && s)
				continue;
			for (d = 0; d < 4; d++) {
				const char *const *ar = a32 ? r32 : r64;
				struct form *fm;
				size_t i = nforms;
				uint64_t addr = SLOT_BASE + 8 * i, vals[16];
				uint32_t slot = 0xC0000000u | (uint32_t)(i * 7);
				uint64_t garbage = a32 ? 0xBAD0000000000000ull : 0;
				int assigned[16] = { 0 }, r;
				unsigned int sc = scales[s];
				int32_t disp = disps[d];

				if (b == -2 && x < 0 && d)
					continue;	/* absolute: one form */
				fm = new_form();
				fm->ins = ins;
				fm->opsize = (i & 1) ? 64 : 32;
				fm->vreg = (int)(i % 16);
				fm->rmreg = -1;
				fm->imm = (uint32_t)(i * 0x10003u);
				fm->d1 = slot;
				for (r = 0; r < 16; r++)
					vals[r] = regval(i, r);
				assigned[fm->vreg] = fm->vreg != 4;

				if (b == -1) {			/* RIP-relative */
					snprintf(rm, sizeof(rm), "R%zu(%%%s)", i,
						 a32 ? "eip" : "rip");
				} else if (b == -2 && x < 0) {	/* absolute */
					fprintf(f, "\tmovl $0x%x, 0x%lx\n", slot,
						(unsigned long)addr);
					snprintf(rm, sizeof(rm), "0x%lx",
						 (unsigned long)addr);
				} else if (b == 4) {		/* RSP base */
					int64_t off = disp < 0 ? 0x100 + disp : disp;

					if (x >= 0) {
						vals[x] = 1;
						assigned[x] = 1;
						off += sc;
					}
					fprintf(f, "\tmovl $0x%x, 0x%llx(%%rsp)\n",
						slot, (long long)(off));
					if (x >= 0)
						snprintf(rm, sizeof(rm),
							 "0x%llx(%%rsp,%%%s,%u)",
							 (long long)(off - sc),
							 r64[x], sc);
					else
						snprintf(rm, sizeof(rm),
							 "0x%llx(%%rsp)",
							 (long long)off);
				} else {
					uint64_t xv = 0;

					fprintf(f, "\tmovl $0x%x, 0x%lx\n", slot,
						(unsigned long)addr);
					if (x >= 0) {
						xv = b < 0 ? (addr - (uint64_t)(int64_t)disp) / sc
							   : 3 + i % 5;
						vals[x] = xv | garbage;
						assigned[x] = 1;
					}
					if (b >= 0) {
						vals[b] = (addr - (uint64_t)(int64_t)disp -
							   xv * sc) | garbage;
						assigned[b] = 1;
					}
					if (b >= 0 && x >= 0)
						snprintf(rm, sizeof(rm), "%d(%%%s,%%%s,%u)",
							 disp, ar[b], ar[x], sc);
					else if (b >= 0)
						snprintf(rm, sizeof(rm), "%d(%%%s)",
							 disp, ar[b]);
					else
						snprintf(rm, sizeof(rm), "%d(,%%%s,%u)",
							 disp, ar[x], sc);
				}
				for (r = 0; r < 16; r++)
					if (assigned[r] && r != 4)
						emit_movabs(f, r, vals[r]);
				set_d2(fm, fm->vreg, vals[fm->vreg]);
				emit_insn(f, fm, b == -2 && x < 0 && a32 ?
					  "addr32 " : "", rm);
			}
		}
	}
}

/* LLWPCB in every register (64-bit), SLWPCB in every register, both sizes. */
static void gen_cb_forms(FILE *f)
{
	int r, sz;

	for (r = 0; r < 16; r++) {
		if (r == 4)
			continue;
		fprintf(f, "\tmov 0x%lx, %%%s\n\tllwpcb %%%s\n",
			LWPCB_SLOT, r64[r], r64[r]);
	}
	for (sz = 32; sz <= 64; sz += 32)
		for (r = 0; r < 16; r++) {
			if (r == 4)
				continue;
			emit_movabs(f, r, 0x5555555555555555ull);
			fprintf(f, "\tslwpcb %%%s\n\tmov %%%s, 0x%lx\n",
				(sz == 64 ? r64 : r32)[r], r64[r],
				SLW_BASE + 8ul * (unsigned long)nslw++);
		}
}

static int have_tools(void)
{
	return system("as --version >/dev/null 2>&1") == 0 &&
	       system("objcopy --version >/dev/null 2>&1") == 0;
}

/* Assemble @dir/f.s, return .text bytes (malloc) and their size. */
static uint8_t *assemble(const char *dir, size_t *size)
{
	char cmd[1024], path[512];
	uint8_t *buf;
	FILE *f;
	long sz;

	snprintf(cmd, sizeof(cmd),
		 "as --64 -o %s/f.o %s/f.s 2>%s/as.err && "
		 "objcopy -O binary -j .text %s/f.o %s/f.bin || "
		 "{ head -5 %s/as.err >&2; exit 1; }",
		 dir, dir, dir, dir, dir, dir);
	if (system(cmd) != 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/f.bin", dir);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	buf = malloc((size_t)sz);
	if (buf && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = (size_t)sz;
	return buf;
}

START_TEST(test_raw_forms_records)
{
	char dir[] = "/tmp/lwp-forms-XXXXXX", path[512];
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct lwp_event *ev;
	uint8_t *text, *code, *data;
	uint32_t *ipoff;
	size_t size, i;
	uint64_t rsp, cb;
	ssize_t n;
	FILE *f;
	int nrip = 0;

	if (!have_tools()) {
		printf("SKIP: GNU as/objcopy not installed\n");
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f.s", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "\t.text\nF:\n\tpush %%rbx\n\tpush %%rbp\n\tpush %%r12\n"
		"\tpush %%r13\n\tpush %%r14\n\tpush %%r15\n"
		"\tsub $0x%x, %%rsp\n\tmov %%rsp, 0x%lx\n\tmov %%rdi, 0x%lx\n",
		STACK_RESERVE, SAVED_RSP, LWPCB_SLOT);
	gen_cb_forms(f);
	gen_reg_forms(f);
	gen_mem_forms(f);
	fprintf(f, "\tadd $0x%x, %%rsp\n\tpop %%r15\n\tpop %%r14\n\tpop %%r13\n"
		"\tpop %%r12\n\tpop %%rbp\n\tpop %%rbx\n\tret\n\t.p2align 3\n",
		STACK_RESERVE);
	/* RIP-relative operands read these; then the IP offset table. */
	for (i = 0; i < nforms; i++)
		fprintf(f, "R%zu:\t.long 0x%x\n", i,
			0xC0000000u | (uint32_t)(i * 7));
	fprintf(f, "IPS:\n");
	for (i = 0; i < nforms; i++)
		fprintf(f, "\t.long I%zu - F\n", i);
	ck_assert_int_eq(fclose(f), 0);
	(void)nrip;

	text = assemble(dir, &size);
	ck_assert_msg(text != NULL, "GNU as failed on %s", path);
	ck_assert_uint_le(size, CODE_MAX);
	ipoff = (uint32_t *)(void *)(text + size - 4 * nforms);

	code = mmap((void *)CODE_ADDR, CODE_MAX, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ck_assert_msg(code == (void *)CODE_ADDR, "cannot map code at %#lx", CODE_ADDR);
	data = mmap((void *)DATA_ADDR, DATA_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ck_assert_msg(data == (void *)DATA_ADDR, "cannot map data at %#lx", DATA_ADDR);
	memcpy(code, text, size);
	ck_assert_int_eq(mprotect(code, CODE_MAX, PROT_READ | PROT_EXEC), 0);

	cfg.buffer_records = (uint32_t)nforms + 64;
	cfg.interval[LWP_EVENT_VAL] = 0;	/* every LWPVAL stores */
	ck_assert_int_eq(lwp_open(&s, &cfg), 0);
	ck_assert_int_eq(lwp_start(s), 0);
	cb = (uint64_t)(uintptr_t)lwp_lwpcb(s, NULL);
	((void (*)(uint64_t))(uintptr_t)code)(cb);

	rsp = *(uint64_t *)(uintptr_t)SAVED_RSP;
	for (i = 0; i < (size_t)nslw; i++) {
		uint64_t got = ((uint64_t *)(uintptr_t)SLW_BASE)[i];
		uint64_t want = i < (size_t)nslw / 2 ? (uint32_t)cb : cb;

		ck_assert_msg(got == want, "SLWPCB form %zu: %#llx, want %#llx (§5.2)",
			      i, (unsigned long long)got, (unsigned long long)want);
	}

	ev = calloc(nforms + 1, sizeof(*ev));
	ck_assert_ptr_nonnull(ev);
	n = lwp_read(s, ev, nforms + 1);
	ck_assert_int_eq(n, (ssize_t)nforms);
	ck_assert_uint_eq(lwp_missed(s), 0);
	for (i = 0; i < nforms; i++) {
		const struct form *fm = &forms[i];
		uint64_t d2 = fm->d2_rsp ? (fm->opsize == 32 ? (uint32_t)rsp : rsp)
					 : fm->d2;
		uint32_t d1 = fm->d1_rsp ? (uint32_t)rsp : fm->d1;

		ck_assert_msg(ev[i].event_id == (fm->ins ? LWP_EVENT_INS : LWP_EVENT_VAL) &&
			      ev[i].flags == (uint16_t)fm->imm &&
			      ev[i].data1 == d1 && ev[i].data2 == d2 &&
			      ev[i].inst_addr == CODE_ADDR + ipoff[i] &&
			      ev[i].reserved == 0,
			      "form %zu '%s': id %u flags %#x data1 %#x data2 %#llx "
			      "ip %#llx; want id %u flags %#x data1 %#x data2 %#llx "
			      "ip %#llx (43724 Fig. 2-2/2-8)",
			      i, fm->text, ev[i].event_id, ev[i].flags, ev[i].data1,
			      (unsigned long long)ev[i].data2,
			      (unsigned long long)ev[i].inst_addr,
			      fm->ins ? 255 : 1, (uint16_t)fm->imm, d1,
			      (unsigned long long)d2,
			      (unsigned long long)(CODE_ADDR + ipoff[i]));
		if (fm->ins)
			ck_assert_msg(((uint8_t *)(uintptr_t)CF_BASE)[i] == 0,
				      "form %zu: CF = 1 with room in the ring (§5.4)", i);
	}
	printf("raw forms: %zu LWPINS/LWPVAL records and %d SLWPCB results match 43724\n",
	       nforms, nslw);
	ck_assert_int_eq(lwp_stop(s), 0);
	lwp_close(s);
	free(ev);
	free(text);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lwp_forms");
	TCase *tc = tcase_create("gnu-as");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_raw_forms_records);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
