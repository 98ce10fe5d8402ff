// SPDX-License-Identifier: GPL-2.0
/*
 * lwp_encode() against GNU as, byte for byte (43724 §5.1-§5.4).
 *
 * The test generates every form of the four LWP instructions: all 16
 * registers in every operand position, 32- and 64-bit operand sizes, memory
 * operands with every base (none, RIP, 16 registers), every index (none, 15
 * registers), every scale, displacements of 0, 8 and 32 bits (and forced
 * disp32 with GNU as's {disp32} pseudo-prefix), 64- and 32-bit address size;
 * writes their AT&T text to a file, assembles it with `as --64` at test
 * time, extracts .text with objcopy, and compares. If as or objcopy is
 * missing the test says so and passes without comparing.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lwpt/lwp.h>
#include "tests/check_run.h"

static const char *const reg64[16] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};
static const char *const reg32[16] = {
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
	"r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d",
};
static const char *const mnem[4] = { "llwpcb", "slwpcb", "lwpins", "lwpval" };

struct form {
	struct lwp_insn insn;
	char text[160];
};

static struct form *forms;
static size_t nforms, capforms;

static void add(const struct lwp_insn *insn, const char *text)
{
	if (nforms == capforms) {
		capforms = capforms ? 2 * capforms : 4096;
		forms = realloc(forms, capforms * sizeof(*forms));
		ck_assert_ptr_nonnull(forms);
	}
	forms[nforms].insn = *insn;
	snprintf(forms[nforms].text, sizeof(forms[nforms].text), "%s", text);
	nforms++;
}

static void mem_text(char *out, size_t n, const struct lwp_mem *m)
{
	const char *const *r = m->addr32 ? reg32 : reg64;
	char disp[24] = "";

	if (m->disp || m->base == LWP_REG_RIP || m->base == LWP_REG_NONE)
		snprintf(disp, sizeof(disp), "%d", m->disp);
	if (m->base == LWP_REG_RIP)
		snprintf(out, n, "%s(%%%s)", disp, m->addr32 ? "eip" : "rip");
	else if (m->base == LWP_REG_NONE && m->index == LWP_REG_NONE)
		snprintf(out, n, "%s", disp);
	else if (m->index == LWP_REG_NONE)
		snprintf(out, n, "%s(%%%s)", disp, r[m->base]);
	else if (m->base == LWP_REG_NONE)
		snprintf(out, n, "%s(,%%%s,%u)", disp, r[m->index], m->scale);
	else
		snprintf(out, n, "%s(%%%s,%%%s,%u)", disp, r[m->base],
			 r[m->index], m->scale);
}

/*
 * The imm32 of the 64-bit forms is sign-extended, so GNU as wants it as a
 * signed value there; the bytes are the same.
 */
static const char *imm_text(const struct lwp_insn *in)
{
	static char buf[24];

	if (in->opsize == 64)
		snprintf(buf, sizeof(buf), "%d", (int32_t)in->imm);
	else
		snprintf(buf, sizeof(buf), "%u", in->imm);
	return buf;
}

static void gen_forms(void)
{
	static const uint32_t imms[] = { 0, 1, 0xffff, 0x12345678, 0xffffffff };
	static const int32_t disps[] = { 0, 8, -128, 127, 0x80, -0x81,
					 0x12345678, (int32_t)0x80000000 };
	static const unsigned int scales[] = { 1, 2, 4, 8 };
	struct lwp_insn in;
	char text[160], mem[64];
	unsigned int op, sz, k = 0;
	int r, rm, b, x, d, s, a32;

	/* LLWPCB / SLWPCB: every register, both sizes. */
	for (op = LWP_INSN_LLWPCB; op <= LWP_INSN_SLWPCB; op++)
		for (sz = 32; sz <= 64; sz += 32)
			for (r = 0; r < 16; r++) {
				memset(&in, 0, sizeof(in));
				in.op = op;
				in.opsize = sz;
				in.reg = r;
				snprintf(text, sizeof(text), "%s %%%s", mnem[op],
					 (sz == 64 ? reg64 : reg32)[r]);
				add(&in, text);
			}

	/* LWPINS / LWPVAL with register operands: all 16 x 16 pairs. */
	for (op = LWP_INSN_LWPINS; op <= LWP_INSN_LWPVAL; op++)
		for (sz = 32; sz <= 64; sz += 32)
			for (r = 0; r < 16; r++)
				for (rm = 0; rm < 16; rm++) {
					memset(&in, 0, sizeof(in));
					in.op = op;
					in.opsize = sz;
					in.reg = r;
					in.rm = rm;
					in.imm = imms[k++ % 5];
					snprintf(text, sizeof(text),
						 "%s $%s, %%%s, %%%s", mnem[op],
						 imm_text(&in), reg32[rm],
						 (sz == 64 ? reg64 : reg32)[r]);
					add(&in, text);
				}

	/* Memory operands: base x index x scale x disp x address size. */
	for (op = LWP_INSN_LWPINS; op <= LWP_INSN_LWPVAL; op++)
		for (a32 = 0; a32 <= 1; a32++)
			for (b = LWP_REG_NONE; b <= LWP_REG_RIP; b++)
				for (x = LWP_REG_NONE; x < 16; x++) {
					if (x == LWP_REG_RSP)
						continue;
					if (b == LWP_REG_RIP && x != LWP_REG_NONE)
						continue;
					for (s = 0; s < 4; s++) {
						if (x == LWP_REG_NONE && s)
							continue;
						for (d = 0; d < 8; d++) {
							memset(&in, 0, sizeof(in));
							in.op = op;
							sz = (k & 1) ? 64 : 32;
							in.opsize = sz;
							in.reg = (int)(k % 16);
							in.rm = LWP_RM_MEM;
							in.imm = imms[k % 5];
							k++;
							in.mem.base = (int8_t)b;
							in.mem.index = (int8_t)x;
							in.mem.scale = (uint8_t)scales[s];
							in.mem.addr32 = (uint8_t)a32;
							in.mem.disp = disps[d];
							in.mem.disp32 = (d == 0 || d == 1) &&
									(x & 1);
							mem_text(mem, sizeof(mem), &in.mem);
							snprintf(text, sizeof(text),
								 "%s%s%s $%s, %s, %%%s",
								 in.mem.disp32 ? "{disp32} " : "",
								 a32 && b == LWP_REG_NONE &&
								 x == LWP_REG_NONE ? "addr32 " : "",
								 mnem[op], imm_text(&in), mem,
								 (sz == 64 ? reg64 : reg32)[in.reg]);
							add(&in, text);
						}
					}
				}
}

static int have_tool(const char *cmd)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "%s --version >/dev/null 2>&1", cmd);
	return system(buf) == 0;
}

START_TEST(test_encode_matches_gnu_as)
{
	char dir[] = "/tmp/lwp-encode-XXXXXX", path[512], cmd[1600];
	uint8_t *want, enc[LWP_INSN_MAX_LEN];
	size_t i, off = 0, n;
	FILE *f;
	long sz;

	if (!have_tool("as") || !have_tool("objcopy")) {
		printf("SKIP: GNU as/objcopy not installed; encoder not compared\n");
		return;
	}
	gen_forms();
	ck_assert_uint_gt(nforms, 10000);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/forms.s", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "\t.text\n");
	for (i = 0; i < nforms; i++)
		fprintf(f, "\t%s\n", forms[i].text);
	ck_assert_int_eq(fclose(f), 0);

	snprintf(cmd, sizeof(cmd),
		 "as --64 -o %s/forms.o %s/forms.s 2>%s/as.err && "
		 "objcopy -O binary -j .text %s/forms.o %s/forms.bin",
		 dir, dir, dir, dir, dir);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "head -5 %s/as.err >&2", dir);
		(void)!system(cmd);
		ck_abort_msg("GNU as failed on %s", path);
	}

	snprintf(path, sizeof(path), "%s/forms.bin", dir);
	f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	want = malloc((size_t)sz);
	ck_assert_ptr_nonnull(want);
	ck_assert_uint_eq(fread(want, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);

	for (i = 0; i < nforms; i++) {
		int len = lwp_encode(enc, &forms[i].insn);

		ck_assert_msg(len > 0, "lwp_encode(%s) = %d", forms[i].text, len);
		n = (size_t)len;
		ck_assert_msg(off + n <= (size_t)sz && !memcmp(enc, want + off, n),
			      "form %zu '%s' differs from GNU as at .text+%zu",
			      i, forms[i].text, off);
		off += n;
	}
	ck_assert_uint_eq(off, (size_t)sz);
	printf("lwp_encode: %zu forms identical to GNU as (%zu bytes)\n",
	       nforms, off);
	free(want);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* Encodings written out by hand from 43724 §5 and checked with objdump. */
START_TEST(test_encode_table)
{
	static const struct {
		struct lwp_insn insn;
		uint8_t len, bytes[LWP_INSN_MAX_LEN];
	} t[] = {
		{ { .op = LWP_INSN_LLWPCB, .opsize = 64, .reg = LWP_REG_RAX },
		  5, { 0x8f, 0xe9, 0xf8, 0x12, 0xc0 } },
		{ { .op = LWP_INSN_SLWPCB, .opsize = 32, .reg = LWP_REG_R9 },
		  5, { 0x8f, 0xc9, 0x78, 0x12, 0xc9 } },
		{ { .op = LWP_INSN_LWPINS, .opsize = 32, .reg = LWP_REG_RBX,
		    .rm = LWP_REG_RAX, .imm = 1 },
		  9, { 0x8f, 0xea, 0x60, 0x12, 0xc0, 1, 0, 0, 0 } },
		{ { .op = LWP_INSN_LWPINS, .opsize = 64, .reg = LWP_REG_R9,
		    .rm = LWP_RM_MEM, .imm = 1,
		    .mem = { .base = LWP_REG_R12, .index = LWP_REG_R13,
			     .scale = 4, .disp = 8 } },
		  11, { 0x8f, 0x8a, 0xb0, 0x12, 0x44, 0xac, 0x08, 1, 0, 0, 0 } },
		{ { .op = LWP_INSN_LWPVAL, .opsize = 64, .reg = LWP_REG_R15,
		    .rm = LWP_REG_R15, .imm = 0xffff },
		  9, { 0x8f, 0xca, 0x80, 0x12, 0xcf, 0xff, 0xff, 0, 0 } },
		{ { .op = LWP_INSN_LWPINS, .opsize = 32, .reg = LWP_REG_RBX,
		    .rm = LWP_RM_MEM, .imm = 1,
		    .mem = { .base = LWP_REG_R13, .index = LWP_REG_R12,
			     .scale = 2, .disp = 4, .addr32 = 1 } },
		  12, { 0x67, 0x8f, 0x8a, 0x60, 0x12, 0x44, 0x65, 0x04,
			1, 0, 0, 0 } },
	};
	uint8_t buf[LWP_INSN_MAX_LEN];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_int_eq(lwp_encode(buf, &t[i].insn), t[i].len);
		ck_assert_mem_eq(buf, t[i].bytes, t[i].len);
	}
}
END_TEST

START_TEST(test_encode_rejects)
{
	struct lwp_insn in = { .op = LWP_INSN_LWPINS, .opsize = 32,
			       .reg = 0, .rm = LWP_RM_MEM,
			       .mem = { .base = 0, .index = LWP_REG_NONE,
					.scale = 1 } };
	uint8_t buf[LWP_INSN_MAX_LEN];

	ck_assert_int_gt(lwp_encode(buf, &in), 0);
	ck_assert_int_eq(lwp_encode(NULL, &in), -EINVAL);
	ck_assert_int_eq(lwp_encode(buf, NULL), -EINVAL);
	in.mem.index = LWP_REG_RSP;			/* RSP cannot index */
	ck_assert_int_eq(lwp_encode(buf, &in), -EINVAL);
	in.mem.index = LWP_REG_RAX;
	in.mem.scale = 3;
	ck_assert_int_eq(lwp_encode(buf, &in), -EINVAL);
	in.mem.scale = 1;
	in.mem.base = LWP_REG_RIP;			/* RIP + index */
	ck_assert_int_eq(lwp_encode(buf, &in), -EINVAL);
	in.mem.base = 17;
	ck_assert_int_eq(lwp_encode(buf, &in), -EINVAL);
	in.mem.base = 0;
	in.opsize = 16;					/* no 16-bit form */
	ck_assert_int_eq(lwp_encode(buf, &in), -EINVAL);
	in.opsize = 64;
	in.reg = 16;
	ck_assert_int_eq(lwp_encode(buf, &in), -EINVAL);
	in.reg = 0;
	in.op = 4;
	ck_assert_int_eq(lwp_encode(buf, &in), -EINVAL);
	in.op = LWP_INSN_LLWPCB;
	in.reg = -1;
	ck_assert_int_eq(lwp_encode(buf, &in), -EINVAL);
}
END_TEST

static Suite *encode_suite(void)
{
	Suite *s = suite_create("lwp_encode");
	TCase *tc = tcase_create("gnu-as");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_encode_table);
	tcase_add_test(tc, test_encode_rejects);
	tcase_add_test(tc, test_encode_matches_gnu_as);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(encode_suite(), CK_NORMAL);
}
