// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the PT unit model (model/pt/pt_model.c), table-driven from
 * Intel SDM Vol. 3C chapter 33: every capability of both profiles (Tables
 * 33-11/33-12), every IA32_RTIT_CTL bit (Table 33-6), the other MSR rules
 * (33.2.8.4-33.2.8.8), ToPA traversal and its errors (33.2.7.2), single-range
 * output (33.2.7.1), ToPA PMI, and XSAVES/XRSTORS (SDM Vol. 1 13.5.6).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/pt/pt_model.h"
#include "tests/check_run.h"

/* --- A sparse physical memory of 4K pages --------------------------------- */

#define PAGE 4096ull
#define MAX_PAGES 256

struct env {
	uint64_t pa[MAX_PAGES];
	uint8_t *page[MAX_PAGES];
	int npages;
	uint64_t restricted_lo, restricted_hi;	/* [lo, hi) refuses access */
	int pmis;
	int pmi_trace_en;		/* TraceEn seen by the last PMI */
	int logs;
	struct pt_model_violation last;
	int en_on, en_off;
	struct pt_model_cpu cpu;
};

static uint8_t *page_of(struct env *e, uint64_t pa, bool alloc)
{
	uint64_t base = pa & ~(PAGE - 1);
	int i;

	for (i = 0; i < e->npages; i++)
		if (e->pa[i] == base)
			return e->page[i];
	if (!alloc || e->npages == MAX_PAGES)
		return NULL;
	e->pa[e->npages] = base;
	e->page[e->npages] = calloc(1, PAGE);
	return e->page[e->npages++];
}

static bool restricted(struct env *e, uint64_t pa, size_t len)
{
	return pa < e->restricted_hi && pa + len > e->restricted_lo;
}

static int rd(void *ctx, uint64_t pa, void *buf, size_t len)
{
	struct env *e = ctx;
	size_t i;

	if (restricted(e, pa, len))
		return -1;
	for (i = 0; i < len; i++) {
		uint8_t *p = page_of(e, pa + i, false);

		if (!p)
			return -1;
		((uint8_t *)buf)[i] = p[(pa + i) & (PAGE - 1)];
	}
	return 0;
}

static int wr(void *ctx, uint64_t pa, const void *buf, size_t len)
{
	struct env *e = ctx;
	size_t i;

	if (restricted(e, pa, len))
		return -1;
	for (i = 0; i < len; i++) {
		uint8_t *p = page_of(e, pa + i, true);

		if (!p)
			return -1;
		p[(pa + i) & (PAGE - 1)] = ((const uint8_t *)buf)[i];
	}
	return 0;
}

static void on_pmi(void *ctx, struct pt_model_cpu *cpu)
{
	struct env *e = ctx;

	e->pmis++;
	e->pmi_trace_en = (int)(pt_model_ctl(cpu) & IA32_RTIT_CTL_TRACEEN);
}

static void on_log(void *ctx, struct pt_model_cpu *cpu, const struct pt_model_violation *v)
{
	struct env *e = ctx;

	(void)cpu;
	e->logs++;
	e->last = *v;
	ck_assert_ptr_nonnull(v->section);
	ck_assert(strstr(v->section, "SDM") != NULL);
	ck_assert_ptr_nonnull(v->what);
}

static void on_trace_en(void *ctx, struct pt_model_cpu *cpu, bool on)
{
	struct env *e = ctx;

	(void)cpu;
	if (on)
		e->en_on++;
	else
		e->en_off++;
}

static const struct pt_model_ops ops = {
	.read_phys = rd, .write_phys = wr, .pmi = on_pmi, .log = on_log,
	.trace_en = on_trace_en,
};

static struct env *env_new(const struct pt_model_profile *p)
{
	struct env *e = calloc(1, sizeof(*e));

	ck_assert_int_eq(pt_model_cpu_init(&e->cpu, p, &ops, e, 0), PT_MODEL_OK);
	return e;
}

static void env_free(struct env *e)
{
	int i;

	for (i = 0; i < e->npages; i++)
		free(e->page[i]);
	free(e);
}

static void put64(struct env *e, uint64_t pa, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	ck_assert_int_eq(wr(e, pa, b, 8), 0);
}

static uint8_t peek(struct env *e, uint64_t pa)
{
	uint8_t *p = page_of(e, pa, false);

	ck_assert_ptr_nonnull(p);
	return p[pa & (PAGE - 1)];
}

static uint64_t rdm(struct env *e, uint32_t msr)
{
	uint64_t v = 0xdeadbeefdeadbeefull;	/* poison: unwritten shows */

	ck_assert_int_eq(pt_model_rdmsr(&e->cpu, msr, &v), PT_MODEL_OK);
	return v;
}

static void wrm_ok(struct env *e, uint32_t msr, uint64_t v)
{
	ck_assert_msg(pt_model_wrmsr(&e->cpu, msr, v) == PT_MODEL_OK,
		      "wrmsr %#x <- %#llx faulted", msr, (unsigned long long)v);
}

static void wrm_gp(struct env *e, uint32_t msr, uint64_t v, enum pt_model_violation_kind k)
{
	uint64_t before = e->cpu.stats.violations;

	ck_assert_msg(pt_model_wrmsr(&e->cpu, msr, v) == PT_MODEL_EGP,
		      "wrmsr %#x <- %#llx did not #GP", msr, (unsigned long long)v);
	ck_assert_uint_eq(e->cpu.stats.violations, before + 1);
	ck_assert_int_eq(e->last.kind, k);
}

static uint64_t out_off(struct env *e)
{
	return rdm(e, IA32_RTIT_OUTPUT_MASK_PTRS) >> 32;
}

static uint64_t tbl_idx(struct env *e)
{
	return (rdm(e, IA32_RTIT_OUTPUT_MASK_PTRS) & 0xffffff80ull) >> 7;
}

static void fill(uint8_t *b, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + seed);
}

#define CTL_TOPA_ON (IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_TOPA | IA32_RTIT_CTL_USER | \
		     IA32_RTIT_CTL_BRANCHEN)

/* --- Profiles: every capability, Tables 33-11 / 33-12 --------------------- */

static const struct {
	enum pt_cpuid_cap cap;
	uint32_t bdw, full;
} cap_table[] = {
	{ PT_CPUID_CAP_MAX_SUBLEAF, 0, 1 },
	{ PT_CPUID_CAP_CR3_FILTER, 1, 1 },
	{ PT_CPUID_CAP_PSB_CYC, 0, 1 },
	{ PT_CPUID_CAP_IP_FILTER, 0, 1 },
	{ PT_CPUID_CAP_MTC, 0, 1 },
	{ PT_CPUID_CAP_PTWRITE, 0, 1 },
	{ PT_CPUID_CAP_POWER_EVENT, 0, 1 },
	{ PT_CPUID_CAP_PSB_PMI_PRESERVE, 0, 1 },
	{ PT_CPUID_CAP_EVENT_TRACE, 0, 1 },
	{ PT_CPUID_CAP_TNT_DISABLE, 0, 1 },
	{ PT_CPUID_CAP_TOPA, 1, 1 },
	{ PT_CPUID_CAP_MENTRY, 0, 1 },
	{ PT_CPUID_CAP_SNGLRGNOUT, 1, 1 },
	{ PT_CPUID_CAP_TRACE_TRANSPORT, 0, 0 },
	{ PT_CPUID_CAP_LIP, 1, 1 },
	{ PT_CPUID_CAP_NUM_RANGES, 0, 4 },
	{ PT_CPUID_CAP_MTC_PERIODS, 0, 0x249 },
	{ PT_CPUID_CAP_CYC_THRESHOLDS, 0, 0x3fff },
	{ PT_CPUID_CAP_PSB_PERIODS, 0, 0x3f },
};

START_TEST(test_profile_caps)
{
	const struct pt_model_profile *bdw = pt_model_profile_find("bdw");
	const struct pt_model_profile *full = pt_model_profile_find("full");
	size_t i;

	ck_assert_ptr_eq(bdw, &pt_model_profile_bdw);
	ck_assert_ptr_eq(full, &pt_model_profile_full);
	ck_assert_ptr_eq(pt_model_profile_find("tgl"), &pt_model_profile_tgl);
	ck_assert(pt_model_profile_tgl.erratum_single_4k && pt_model_profile_bdw.lbr_exclusive);
	ck_assert(!full->erratum_single_4k && !full->lbr_exclusive);
	ck_assert_uint_eq(pt_model_profile_tgl.leaf.regs[0][1] & PT_CPUID_0_EBX_RESERVED, 0);
	ck_assert_uint_eq(pt_model_profile_tgl.leaf.regs[1][0] & PT_CPUID_1_EAX_RESERVED, 0);
	ck_assert_ptr_null(pt_model_profile_find("skl"));
	ck_assert_ptr_null(pt_model_profile_find(NULL));
	ck_assert_uint_eq(sizeof(cap_table) / sizeof(cap_table[0]), PT_CPUID_CAP_NR);
	for (i = 0; i < PT_CPUID_CAP_NR; i++) {
		ck_assert_msg(pt_cpuid_cap(&bdw->leaf, cap_table[i].cap) == cap_table[i].bdw,
			      "bdw %s", pt_cpuid_cap_name(cap_table[i].cap));
		ck_assert_msg(pt_cpuid_cap(&full->leaf, cap_table[i].cap) == cap_table[i].full,
			      "full %s", pt_cpuid_cap_name(cap_table[i].cap));
		ck_assert_ptr_nonnull(pt_cpuid_cap_name(cap_table[i].cap));
	}
	ck_assert_uint_eq(pt_cpuid_cap(&bdw->leaf, PT_CPUID_CAP_NR), 0);
	ck_assert_ptr_null(pt_cpuid_cap_name(PT_CPUID_CAP_NR));
	/* Reserved CPUID bits are 0 in both profiles (Tables 33-11/33-12). */
	ck_assert_uint_eq(full->leaf.regs[0][1] & PT_CPUID_0_EBX_RESERVED, 0);
	ck_assert_uint_eq(full->leaf.regs[0][2] & PT_CPUID_0_ECX_RESERVED, 0);
	ck_assert_uint_eq(full->leaf.regs[1][0] & PT_CPUID_1_EAX_RESERVED, 0);
	ck_assert_uint_eq(full->leaf.regs[1][2] | full->leaf.regs[1][3], 0);
}
END_TEST

START_TEST(test_cpuid)
{
	struct env *e = env_new(&pt_model_profile_bdw);
	uint32_t r[4];

	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 7, 0, r), 0);
	ck_assert_uint_eq(r[1] & PT_CPUID_07H_EBX_INTEL_PT, PT_CPUID_07H_EBX_INTEL_PT);
	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 0x14, 0, r), 0);
	ck_assert_uint_eq(r[2], 0x80000005u);
	/* bdw: EAX=0, so sub-leaf 1 reads as zero. */
	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 0x14, 1, r), 0);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 0x80000008u, 0, r), 0);
	ck_assert_uint_eq(r[0] & 0xff, 39);
	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 0x14, 0, NULL), PT_MODEL_EINVAL);
	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 0xd, 1, r), 0);
	ck_assert_uint_eq(r[2] & (1u << 8), 0);
	env_free(e);
	e = env_new(&pt_model_profile_full);
	/* SDM Vol. 1 13.2, 13.5.6: XSAVES, IA32_XSS[8], component 8 = 72 bytes. */
	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 0xd, 1, r), 0);
	ck_assert_uint_eq(r[0] & (1u << 3), 1u << 3);
	ck_assert_uint_eq(r[2], 1u << 8);
	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 0xd, 8, r), 0);
	ck_assert_uint_eq(r[0], 72);
	ck_assert_uint_eq(r[2], 1);
	ck_assert_int_eq(pt_model_cpuid(&e->cpu, 0x14, 1, r), 0);
	ck_assert_uint_eq(r[0], 0x02490004u);
	ck_assert_uint_eq(r[1], 0x003f3fffu);
	env_free(e);
}
END_TEST

/* --- IA32_RTIT_CTL: every bit alone, Table 33-6 with Table 33-11 ---------- */

/* Bits (other than TraceEn) a profile accepts when set alone. */
static bool ctl_bit_ok(bool full, unsigned int bit)
{
	switch (bit) {
	case 2: case 3: case 7: case 8: case 10: case 11: case 13:
		return true;	/* OS, User, CR3Filter, ToPA, TSCEn, DisRETC, BranchEn */
	case 1: case 4: case 5: case 9: case 12: case 31: case 55: case 56:
		return full;	/* CYCEn PwrEvtEn FUPonPTW MTCEn PTWEn EventEn DisTNT Inject */
	case 14: case 15: case 16: case 17:
		return false;	/* MTCFreq 1, 2, 4, 8: not in bitmap 0x249 */
	case 19: case 20: case 21: case 22:
		return full;	/* CycThresh 1, 2, 4, 8: in 0x3fff */
	case 24: case 25: case 26:
		return full;	/* PSBFreq 1, 2, 4: in 0x3f */
	case 27:
		return false;	/* PSBFreq 8 */
	case 32: case 33: case 36: case 37: case 40: case 41: case 44: case 45:
		return full;	/* ADDRn_CFG 1 and 2 */
	}
	return false;		/* FabricEn, ADDRn_CFG 4/8, reserved */
}

static void ctl_bits(const struct pt_model_profile *p, bool full)
{
	struct env *e = env_new(p);
	unsigned int bit;

	for (bit = 1; bit < 64; bit++) {
		uint64_t v = 1ull << bit;
		int rc = pt_model_wrmsr(&e->cpu, IA32_RTIT_CTL, v);

		if (ctl_bit_ok(full, bit)) {
			ck_assert_msg(rc == PT_MODEL_OK, "%s: bit %u should be writable", p->name, bit);
			ck_assert_uint_eq(rdm(e, IA32_RTIT_CTL), v);
		} else {
			ck_assert_msg(rc == PT_MODEL_EGP, "%s: bit %u should #GP", p->name, bit);
			ck_assert_uint_eq(rdm(e, IA32_RTIT_CTL), 0);
		}
		wrm_ok(e, IA32_RTIT_CTL, 0);
	}
	env_free(e);
}

START_TEST(test_ctl_bits_bdw) { ctl_bits(&pt_model_profile_bdw, false); }
END_TEST

START_TEST(test_ctl_bits_full) { ctl_bits(&pt_model_profile_full, true); }
END_TEST

/* Every encoding of MTCFreq, CycThresh, PSBFreq, ADDRn_CFG on both profiles. */
START_TEST(test_ctl_encodings)
{
	static const struct {
		const char *name;
		unsigned int shift;
		uint32_t full_ok;	/* bitmap of encodings full accepts */
	} f[] = {
		{ "MTCFreq", IA32_RTIT_CTL_MTCFREQ_SHIFT, 0x249 },
		{ "CycThresh", IA32_RTIT_CTL_CYCTHRESH_SHIFT, 0x3fff },
		{ "PSBFreq", IA32_RTIT_CTL_PSBFREQ_SHIFT, 0x3f },
		{ "ADDR0_CFG", IA32_RTIT_CTL_ADDR0_CFG_SHIFT, 0x7 },
		{ "ADDR1_CFG", IA32_RTIT_CTL_ADDR1_CFG_SHIFT, 0x7 },
		{ "ADDR2_CFG", IA32_RTIT_CTL_ADDR2_CFG_SHIFT, 0x7 },
		{ "ADDR3_CFG", IA32_RTIT_CTL_ADDR3_CFG_SHIFT, 0x7 },
	};
	struct env *b = env_new(&pt_model_profile_bdw), *u = env_new(&pt_model_profile_full);
	unsigned int i, enc;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		for (enc = 0; enc < 16; enc++) {
			uint64_t v = (uint64_t)enc << f[i].shift;
			int want_full = (f[i].full_ok >> enc) & 1;

			ck_assert_msg(pt_model_wrmsr(&u->cpu, IA32_RTIT_CTL, v) ==
				      (want_full ? PT_MODEL_OK : PT_MODEL_EGP),
				      "full %s=%u", f[i].name, enc);
			if (!want_full)
				ck_assert_int_eq(u->last.kind, PT_VIOL_BAD_ENCODING);
			ck_assert_msg(pt_model_wrmsr(&b->cpu, IA32_RTIT_CTL, v) ==
				      (enc == 0 ? PT_MODEL_OK : PT_MODEL_EGP),
				      "bdw %s=%u", f[i].name, enc);
			if (enc)
				ck_assert_int_eq(b->last.kind, PT_VIOL_RESERVED_BIT);
			wrm_ok(u, IA32_RTIT_CTL, 0);
			wrm_ok(b, IA32_RTIT_CTL, 0);
		}
	}
	env_free(b);
	env_free(u);
}
END_TEST

/* The shared predicate of <lwpt/pt_rtit.h> names the offending field. */
START_TEST(test_rtit_ctl_check)
{
	const struct pt_cpuid_leaf *b = &pt_model_profile_bdw.leaf, *f = &pt_model_profile_full.leaf;
	uint64_t bad = 1;

	ck_assert_int_eq(pt_rtit_ctl_check(f, CTL_TOPA_ON, &bad), PT_RTIT_CTL_VALID);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(pt_rtit_ctl_check(b, CTL_TOPA_ON | IA32_RTIT_CTL_MTCEN |
					   IA32_RTIT_CTL_DISTNT, &bad), PT_RTIT_CTL_FAULT_RESERVED);
	ck_assert_uint_eq(bad, IA32_RTIT_CTL_MTCEN | IA32_RTIT_CTL_DISTNT);
	ck_assert_int_eq(pt_rtit_ctl_check(f, 1ull << IA32_RTIT_CTL_MTCFREQ_SHIFT, &bad),
			 PT_RTIT_CTL_FAULT_MTCFREQ);
	ck_assert_uint_eq(bad, IA32_RTIT_CTL_MTCFREQ_MASK);
	ck_assert_int_eq(pt_rtit_ctl_check(f, 14ull << IA32_RTIT_CTL_CYCTHRESH_SHIFT, &bad),
			 PT_RTIT_CTL_FAULT_CYCTHRESH);
	ck_assert_int_eq(pt_rtit_ctl_check(f, 6ull << IA32_RTIT_CTL_PSBFREQ_SHIFT, &bad),
			 PT_RTIT_CTL_FAULT_PSBFREQ);
	ck_assert_int_eq(pt_rtit_ctl_check(f, 3ull << IA32_RTIT_CTL_ADDR2_CFG_SHIFT, &bad),
			 PT_RTIT_CTL_FAULT_ADDR_CFG);
	ck_assert_uint_eq(bad, IA32_RTIT_CTL_ADDR2_CFG_MASK);
	ck_assert_uint_eq(pt_rtit_ctl_writable(b), 0x2d8dull);
	ck_assert_int_eq(pt_rtit_ctl_check(b, 0, NULL), PT_RTIT_CTL_VALID);
}
END_TEST

/* A profile without single-range output and CR3 filtering (33.2.8.2 ToPA note). */
static struct pt_model_profile no_sro;

static void topa_simple(struct env *e, uint64_t table, uint64_t region, unsigned int size);

/* Broadwell erratum BDM106 (bdw only): TraceEn=1 requires BranchEn=1. */
START_TEST(test_bdm106)
{
	struct env *e = env_new(&pt_model_profile_bdw);

	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA | IA32_RTIT_CTL_USER);
	wrm_gp(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_TOPA | IA32_RTIT_CTL_USER,
	       PT_VIOL_ERRATUM);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	env_free(e);
	e = env_new(&pt_model_profile_full);
	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_TOPA | IA32_RTIT_CTL_USER);
	env_free(e);
}
END_TEST

START_TEST(test_ctl_no_output_scheme)
{
	struct env *e;

	no_sro = pt_model_profile_bdw;
	no_sro.name = "no_sro";
	no_sro.leaf.regs[0][2] &= ~PT_CPUID_0_ECX_SNGLRGNOUT;
	no_sro.leaf.regs[0][1] &= ~PT_CPUID_0_EBX_CR3_FILTER;
	e = env_new(&no_sro);
	wrm_gp(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER,
	       PT_VIOL_NO_OUTPUT_SCHEME);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CTL), 0);
	/* CR3_MATCH is not accessible without EBX[0] (33.2.8.6). */
	wrm_gp(e, IA32_RTIT_CR3_MATCH, 0, PT_VIOL_MSR_NOT_ENUMERATED);
	{
		uint64_t v;

		ck_assert_int_eq(pt_model_rdmsr(&e->cpu, IA32_RTIT_CR3_MATCH, &v), PT_MODEL_EGP);
	}
	wrm_gp(e, IA32_RTIT_CTL, IA32_RTIT_CTL_CR3FILTER, PT_VIOL_RESERVED_BIT);
	env_free(e);
}
END_TEST

/* Table 33-11 ECX[0]/ECX[2]: output schemes and the output MSRs. */
static struct pt_model_profile sro_only, no_output;

START_TEST(test_output_scheme_caps)
{
	struct env *e;
	uint64_t v;

	sro_only = pt_model_profile_full;
	sro_only.name = "sro_only";
	sro_only.leaf.regs[0][2] &= ~(PT_CPUID_0_ECX_TOPA | PT_CPUID_0_ECX_MENTRY);
	e = env_new(&sro_only);
	/* ToPA=1 #GPs without ECX[0] (Table 33-6 ToPA note). */
	wrm_gp(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA, PT_VIOL_RESERVED_BIT);
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x20000);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0xfff);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER);
	ck_assert(pt_model_trigger_en(&e->cpu));
	env_free(e);

	no_output = pt_model_profile_full;
	no_output.name = "no_output";
	no_output.leaf.regs[0][2] &= ~(PT_CPUID_0_ECX_TOPA | PT_CPUID_0_ECX_MENTRY |
				       PT_CPUID_0_ECX_SNGLRGNOUT);
	e = env_new(&no_output);
	/* 33.2.8.7, 33.2.8.8: the output MSRs #GP on RDMSR and WRMSR. */
	wrm_gp(e, IA32_RTIT_OUTPUT_BASE, 0, PT_VIOL_MSR_NOT_ENUMERATED);
	wrm_gp(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0, PT_VIOL_MSR_NOT_ENUMERATED);
	ck_assert_int_eq(pt_model_rdmsr(&e->cpu, IA32_RTIT_OUTPUT_BASE, &v), PT_MODEL_EGP);
	ck_assert_int_eq(pt_model_rdmsr(&e->cpu, IA32_RTIT_OUTPUT_MASK_PTRS, &v), PT_MODEL_EGP);
	wrm_gp(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN, PT_VIOL_NO_OUTPUT_SCHEME);
	env_free(e);
}
END_TEST

/* 33.2.8.1, 33.2.8.3: writes while TraceEn=1. */
static void topa_simple(struct env *e, uint64_t table, uint64_t region, unsigned int size)
{
	put64(e, table, topa_entry_make(region, size, 0));
	put64(e, table + 8, topa_entry_make(table, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, table);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
}

START_TEST(test_write_while_tracing)
{
	static const uint32_t cfg[] = {
		IA32_RTIT_STATUS, IA32_RTIT_CR3_MATCH, IA32_RTIT_OUTPUT_BASE,
		IA32_RTIT_OUTPUT_MASK_PTRS, IA32_RTIT_ADDR0_A, IA32_RTIT_ADDR0_B,
		IA32_RTIT_ADDR1_A, IA32_RTIT_ADDR1_B, IA32_RTIT_ADDR2_A, IA32_RTIT_ADDR2_B,
		IA32_RTIT_ADDR3_A, IA32_RTIT_ADDR3_B,
	};
	struct env *e = env_new(&pt_model_profile_full);
	unsigned int i;

	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_int_eq(e->en_on, 1);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_TRIGGEREN);
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++)
		wrm_gp(e, cfg[i], 0, PT_VIOL_WRITE_WHILE_TRACING);
	/* Same value: no #GP (33.2.8.1 note). */
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_int_eq(e->en_on, 1);
	/* Modify another bit while keeping TraceEn: #GP (33.2.8.3). */
	wrm_gp(e, IA32_RTIT_CTL, CTL_TOPA_ON | IA32_RTIT_CTL_TSCEN, PT_VIOL_WRITE_WHILE_TRACING);
	/* A write that clears TraceEn may change other bits too. */
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA | IA32_RTIT_CTL_OS);
	ck_assert_int_eq(e->en_off, 1);
	ck_assert(!(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_TRIGGEREN));
	/* ...but not to reserved values. */
	wrm_gp(e, IA32_RTIT_CTL, 1ull << 18, PT_VIOL_RESERVED_BIT);
	/* Now the config MSRs are writable. */
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++)
		wrm_ok(e, cfg[i], 0);
	ck_assert_uint_eq(e->cpu.stats.violations, sizeof(cfg) / sizeof(cfg[0]) + 2);
	env_free(e);
}
END_TEST

/* 33.2.8.4, Table 33-7. */
START_TEST(test_status_rules)
{
	struct env *b = env_new(&pt_model_profile_bdw), *u = env_new(&pt_model_profile_full);
	unsigned int bit;

	for (bit = 0; bit < 64; bit++) {
		uint64_t v = 1ull << bit;
		bool ro = bit <= 2, rw = bit == 4 || bit == 5;
		bool full_rw = rw || bit == 6 || bit == 7 || (bit >= 32 && bit <= 48);

		if (ro) {	/* writes ignored, no fault */
			wrm_ok(b, IA32_RTIT_STATUS, v);
			wrm_ok(u, IA32_RTIT_STATUS, v);
			ck_assert_uint_eq(rdm(b, IA32_RTIT_STATUS), 0);
			ck_assert_uint_eq(rdm(u, IA32_RTIT_STATUS), 0);
			continue;
		}
		ck_assert_msg(pt_model_wrmsr(&b->cpu, IA32_RTIT_STATUS, v) ==
			      (rw ? PT_MODEL_OK : PT_MODEL_EGP), "bdw status bit %u", bit);
		ck_assert_msg(pt_model_wrmsr(&u->cpu, IA32_RTIT_STATUS, v) ==
			      (full_rw ? PT_MODEL_OK : PT_MODEL_EGP), "full status bit %u", bit);
		ck_assert_uint_eq(rdm(u, IA32_RTIT_STATUS), full_rw ? v : 0);
		wrm_ok(b, IA32_RTIT_STATUS, 0);
		wrm_ok(u, IA32_RTIT_STATUS, 0);
	}
	env_free(b);
	env_free(u);
}
END_TEST

/* 33.2.8.5 ADDRn, 33.2.8.6 CR3_MATCH, 33.2.8.7/8 output MSRs. */
START_TEST(test_other_msrs)
{
	static const struct {
		uint64_t v;
		bool ok;
	} canon[] = {
		{ 0, true }, { 0x00007fffffffffffull, true }, { 0xffff800000000000ull, true },
		{ 0xffffffffffffffffull, true }, { 0x0000800000000000ull, false },
		{ 0xfffe800000000000ull, false }, { 0x8000000000000000ull, false },
		{ 0x7fffffffffffffffull, false },
	};
	struct env *b = env_new(&pt_model_profile_bdw), *u = env_new(&pt_model_profile_full);
	unsigned int n, i;
	uint64_t v;

	for (n = 0; n < 4; n++) {
		/* bdw: no IP filtering, the ADDRn MSRs do not exist for it. */
		wrm_gp(b, IA32_RTIT_ADDRn_A(n), 0, PT_VIOL_MSR_NOT_ENUMERATED);
		wrm_gp(b, IA32_RTIT_ADDRn_B(n), 0, PT_VIOL_MSR_NOT_ENUMERATED);
		ck_assert_int_eq(pt_model_rdmsr(&b->cpu, IA32_RTIT_ADDRn_A(n), &v), PT_MODEL_EGP);
		for (i = 0; i < sizeof(canon) / sizeof(canon[0]); i++) {
			if (canon[i].ok) {
				wrm_ok(u, IA32_RTIT_ADDRn_A(n), canon[i].v);
				wrm_ok(u, IA32_RTIT_ADDRn_B(n), canon[i].v);
				ck_assert_uint_eq(rdm(u, IA32_RTIT_ADDRn_A(n)), canon[i].v);
				ck_assert_uint_eq(rdm(u, IA32_RTIT_ADDRn_B(n)), canon[i].v);
			} else {
				wrm_gp(u, IA32_RTIT_ADDRn_A(n), canon[i].v, PT_VIOL_NON_CANONICAL);
				wrm_gp(u, IA32_RTIT_ADDRn_B(n), canon[i].v, PT_VIOL_NON_CANONICAL);
			}
		}
	}
	ck_assert_int_eq(pt_model_wrmsr(&u->cpu, 0x588, 0), PT_MODEL_ENOMSR);
	/* CR3_MATCH[4:0] reserved. */
	for (i = 0; i < 5; i++)
		wrm_gp(u, IA32_RTIT_CR3_MATCH, 1ull << i, PT_VIOL_RESERVED_BIT);
	wrm_ok(u, IA32_RTIT_CR3_MATCH, 0x12345000ull | 0x20);
	ck_assert_uint_eq(rdm(u, IA32_RTIT_CR3_MATCH), 0x12345020ull);
	wrm_ok(b, IA32_RTIT_CR3_MATCH, 0x1000);
	/* OUTPUT_BASE: 6:0 and 63:MAXPHYADDR reserved; 11:7 accepted. */
	for (i = 0; i < 7; i++)
		wrm_gp(u, IA32_RTIT_OUTPUT_BASE, 1ull << i, PT_VIOL_RESERVED_BIT);
	wrm_gp(u, IA32_RTIT_OUTPUT_BASE, 1ull << 46, PT_VIOL_RESERVED_BIT);
	wrm_ok(u, IA32_RTIT_OUTPUT_BASE, 1ull << 45);
	wrm_gp(b, IA32_RTIT_OUTPUT_BASE, 1ull << 39, PT_VIOL_RESERVED_BIT);
	wrm_ok(b, IA32_RTIT_OUTPUT_BASE, 1ull << 38);
	wrm_ok(u, IA32_RTIT_OUTPUT_BASE, 0xf80);
	/* OUTPUT_MASK_PTRS: LowerMask forced to 1. */
	wrm_ok(u, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	ck_assert_uint_eq(rdm(u, IA32_RTIT_OUTPUT_MASK_PTRS), 0x7f);
	wrm_ok(u, IA32_RTIT_OUTPUT_MASK_PTRS, 0x1234567800000f00ull);
	ck_assert_uint_eq(rdm(u, IA32_RTIT_OUTPUT_MASK_PTRS), 0x1234567800000f7full);
	/* Reset values (Tables 33-6..33-9). */
	{
		struct env *r = env_new(&pt_model_profile_full);

		ck_assert_uint_eq(rdm(r, IA32_RTIT_CTL), 0);
		ck_assert_uint_eq(rdm(r, IA32_RTIT_STATUS), 0);
		ck_assert_uint_eq(rdm(r, IA32_RTIT_OUTPUT_BASE), 0);
		ck_assert_uint_eq(rdm(r, IA32_RTIT_OUTPUT_MASK_PTRS), 0x7f);
		ck_assert_uint_eq(rdm(r, IA32_PERF_GLOBAL_STATUS), 0);
		env_free(r);
	}
	/* Unknown MSRs are not the model's. */
	ck_assert_int_eq(pt_model_rdmsr(&u->cpu, 0x10, &v), PT_MODEL_ENOMSR);
	/* IA32_PERF_GLOBAL_STATUS is read-only; STATUS_SET only on perfmon v4+. */
	wrm_gp(u, IA32_PERF_GLOBAL_STATUS, 0, PT_VIOL_READ_ONLY_MSR);
	wrm_ok(u, IA32_PERF_GLOBAL_STATUS_SET, IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	ck_assert_uint_eq(rdm(u, IA32_PERF_GLOBAL_STATUS), IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	wrm_ok(u, IA32_PERF_GLOBAL_STATUS_RESET, IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	ck_assert_uint_eq(rdm(u, IA32_PERF_GLOBAL_STATUS), 0);
	wrm_gp(b, IA32_PERF_GLOBAL_STATUS_SET, 0, PT_VIOL_MSR_NOT_ENUMERATED);
	env_free(b);
	env_free(u);
}
END_TEST

/* --- ToPA traversal, 33.2.7.2 --------------------------------------------- */

START_TEST(test_topa_multi_entry_wrap)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[3 * 4096 + 100];
	uint64_t t = 0x1000, i;

	fill(buf, sizeof(buf), 1);
	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, 0));
	put64(e, t + 8, topa_entry_make(0x20000, TOPA_SIZE_4K, 0));
	put64(e, t + 16, topa_entry_make(0x30000, TOPA_SIZE_4K, 0));
	put64(e, t + 24, topa_entry_make(t, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4000), 4000);
	ck_assert_uint_eq(tbl_idx(e), 0);
	ck_assert_uint_eq(out_off(e), 4000);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf + 4000, sizeof(buf) - 4000),
			  sizeof(buf) - 4000);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	/* Wrapped through END back to entry 0 of the same table. */
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), t);
	ck_assert_uint_eq(tbl_idx(e), 0);
	ck_assert_uint_eq(out_off(e), 100);
	ck_assert_uint_eq(e->cpu.stats.wraps, 1);
	ck_assert_uint_eq(e->cpu.stats.regions_filled, 3);
	for (i = 0; i < 100; i++)
		ck_assert_uint_eq(peek(e, 0x10000 + i), buf[3 * 4096 + i]);
	for (i = 100; i < 4096; i++)
		ck_assert_uint_eq(peek(e, 0x10000 + i), buf[i]);
	for (i = 0; i < 4096; i++) {
		ck_assert_uint_eq(peek(e, 0x20000 + i), buf[4096 + i]);
		ck_assert_uint_eq(peek(e, 0x30000 + i), buf[8192 + i]);
	}
	/* Output MSRs are stable once TraceEn is clear; output is dropped. */
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 10), 0);
	ck_assert_uint_eq(out_off(e), 100);
	ck_assert_uint_eq(e->cpu.stats.bytes_dropped, 10);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	env_free(e);
}
END_TEST

START_TEST(test_topa_end_to_next_table)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[8192 + 4096 + 8];
	uint64_t a = 0x1000, b = 0x2000;

	fill(buf, sizeof(buf), 3);
	put64(e, a + 0, topa_entry_make(0x10000, TOPA_SIZE_8K, 0));
	put64(e, a + 8, topa_entry_make(b, 0, TOPA_ENTRY_END));
	put64(e, b + 0, topa_entry_make(0x20000, TOPA_SIZE_4K, 0));
	put64(e, b + 8, topa_entry_make(0x30000, TOPA_SIZE_4K, 0));
	put64(e, b + 16, topa_entry_make(a, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, a);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 8192), 8192);
	/* The 8K region is full: the END was followed at once. */
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), b);
	ck_assert_uint_eq(tbl_idx(e), 0);
	ck_assert_uint_eq(out_off(e), 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf + 8192, 4096 + 8), 4096 + 8);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), b);
	ck_assert_uint_eq(tbl_idx(e), 1);
	ck_assert_uint_eq(out_off(e), 8);
	ck_assert_uint_eq(peek(e, 0x20000), buf[8192]);
	ck_assert_uint_eq(peek(e, 0x30007), buf[8192 + 4096 + 7]);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	env_free(e);
}
END_TEST

/* "ToPA STOP": Stopped set, TriggerEn cleared, MSRs on the STOP entry. */
START_TEST(test_topa_stop)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[3 * 4096];
	uint64_t t = 0x1000;

	fill(buf, sizeof(buf), 5);
	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, 0));
	put64(e, t + 8, topa_entry_make(0x11000, TOPA_SIZE_4K, TOPA_ENTRY_STOP));
	put64(e, t + 16, topa_entry_make(t, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, sizeof(buf)), 8192);
	ck_assert(!pt_model_trigger_en(&e->cpu));
	ck_assert_uint_eq(e->cpu.stats.bytes_dropped, 4096);
	ck_assert_uint_eq(e->pmis, 0);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_STATUS) &
			  (IA32_RTIT_STATUS_STOPPED | IA32_RTIT_STATUS_TRIGGEREN |
			   IA32_RTIT_STATUS_ERROR), IA32_RTIT_STATUS_STOPPED);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), t);
	ck_assert_uint_eq(tbl_idx(e), 1);
	ck_assert_uint_eq(out_off(e), 4096);	/* one past the region: see pt-model.rst */
	/* Re-enabling with Stopped still set: TraceEn=1 but no TriggerEn. */
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert(!pt_model_trigger_en(&e->cpu));
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 1), 0);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	/* Clearing Stopped without moving the pointer: operational error. */
	wrm_ok(e, IA32_RTIT_STATUS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert(!pt_model_trigger_en(&e->cpu));
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_ERROR);
	ck_assert_int_eq(e->last.operr, PT_OPERR_TOPA_OUTPUT_OFFSET);
	env_free(e);
}
END_TEST

/* "ToPA PMI": INT regions, IA32_PERF_GLOBAL_STATUS bit 55, INT+STOP order. */
static void pmi_disable_handler(void *ctx, struct pt_model_cpu *cpu)
{
	struct env *e = ctx;
	uint64_t v;

	on_pmi(ctx, cpu);
	/* Table 33-4: the handler checks bit 55, clears TraceEn, re-enables. */
	ck_assert_int_eq(pt_model_rdmsr(cpu, IA32_PERF_GLOBAL_STATUS, &v), 0);
	ck_assert(v & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	v = pt_model_ctl(cpu);
	ck_assert_int_eq(pt_model_wrmsr(cpu, IA32_RTIT_CTL, v & ~IA32_RTIT_CTL_TRACEEN), 0);
	ck_assert_int_eq(pt_model_wrmsr(cpu, IA32_PERF_GLOBAL_STATUS_RESET,
					IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI), 0);
	ck_assert_int_eq(pt_model_wrmsr(cpu, IA32_RTIT_CTL, v), 0);
	(void)e;
}

START_TEST(test_topa_int_pmi)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[4 * 4096];
	static struct pt_model_ops ops2;
	uint64_t t = 0x1000;

	fill(buf, sizeof(buf), 9);
	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_INT));
	put64(e, t + 8, topa_entry_make(0x11000, TOPA_SIZE_4K, 0));
	put64(e, t + 16, topa_entry_make(0x12000, TOPA_SIZE_4K, TOPA_ENTRY_INT | TOPA_ENTRY_STOP));
	put64(e, t + 24, topa_entry_make(t, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4095), 4095);
	ck_assert_int_eq(e->pmis, 0);
	ck_assert_uint_eq(rdm(e, IA32_PERF_GLOBAL_STATUS), 0);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 1), 1);
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_int_eq(e->pmi_trace_en, 1);	/* not frozen on PMI */
	ck_assert_uint_eq(rdm(e, IA32_PERF_GLOBAL_STATUS), IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	wrm_ok(e, IA32_PERF_GLOBAL_STATUS_RESET, IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	ck_assert_uint_eq(rdm(e, IA32_PERF_GLOBAL_STATUS), 0);
	/* INT+STOP: the STOP happens first, the handler sees Stopped. */
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 8192), 8192);
	ck_assert_int_eq(e->pmis, 2);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_STOPPED);
	env_free(e);

	/* A handler that clears and restores TraceEn inside the PMI (Table 33-4). */
	e = env_new(&pt_model_profile_full);
	ops2 = ops;
	ops2.pmi = pmi_disable_handler;
	ck_assert_int_eq(pt_model_cpu_init(&e->cpu, &pt_model_profile_full, &ops2, e, 1), 0);
	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_INT));
	put64(e, t + 8, topa_entry_make(0x11000, TOPA_SIZE_4K, TOPA_ENTRY_INT));
	put64(e, t + 16, topa_entry_make(t, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	/* Two INT regions filled in one burst: the PMI is taken once per fill. */
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 8192 + 16), 8192 + 16);
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_uint_eq(e->cpu.stats.pmis, 2);
	ck_assert(pt_model_trigger_en(&e->cpu));
	ck_assert_uint_eq(tbl_idx(e), 0);
	ck_assert_uint_eq(out_off(e), 16);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	env_free(e);
}
END_TEST

/*
 * 33.2.7.2 "ToPA PMI": not precise. With a skid of N bytes the PMI is taken
 * after N more bytes are written, or at once when output stops (STOP,
 * TraceEn=0).
 */
START_TEST(test_pmi_skid)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[4 * 4096];
	uint64_t t = 0x1000;

	fill(buf, sizeof(buf), 3);
	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_INT));
	put64(e, t + 8, topa_entry_make(0x11000, TOPA_SIZE_4K, 0));
	put64(e, t + 16, topa_entry_make(0x12000, TOPA_SIZE_4K, TOPA_ENTRY_INT | TOPA_ENTRY_STOP));
	put64(e, t + 24, topa_entry_make(t, 0, TOPA_ENTRY_END));
	pt_model_set_pmi_skid(&e->cpu, 1000);
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4096), 4096);
	ck_assert_int_eq(e->pmis, 0);
	ck_assert_uint_eq(rdm(e, IA32_PERF_GLOBAL_STATUS), IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 999), 999);
	ck_assert_int_eq(e->pmis, 0);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 1), 1);
	ck_assert_int_eq(e->pmis, 1);
	wrm_ok(e, IA32_PERF_GLOBAL_STATUS_RESET, IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	/* A skid longer than the room left: the STOP region ends it. */
	pt_model_set_pmi_skid(&e->cpu, 65536);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 8192), 7192);
	ck_assert_int_eq(e->pmis, 2);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_STOPPED);
	env_free(e);

	/* Pending at TraceEn 1 -> 0: taken then. */
	e = env_new(&pt_model_profile_full);
	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_INT));
	put64(e, t + 8, topa_entry_make(0x11000, TOPA_SIZE_4K, 0));
	put64(e, t + 16, topa_entry_make(t, 0, TOPA_ENTRY_END));
	pt_model_set_pmi_skid(&e->cpu, 65536);
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4096 + 100), 4096 + 100);
	ck_assert_int_eq(e->pmis, 0);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	env_free(e);
}
END_TEST

/* 33.2.7.2: modifying the current table while TraceEn=1 is reported. */
START_TEST(test_topa_modified_while_tracing)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[4096];

	put64(e, 0x1000, topa_entry_make(0x10000, TOPA_SIZE_4K, 0));
	put64(e, 0x1008, topa_entry_make(0x11000, TOPA_SIZE_4K, 0));
	put64(e, 0x1010, topa_entry_make(0x1000, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x1000);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	put64(e, 0x1000, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_STOP));
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4096), 4096);
	ck_assert_int_eq(e->last.kind, PT_VIOL_TOPA_MODIFIED);
	/* The cached entry (no STOP) was used. */
	ck_assert(pt_model_trigger_en(&e->cpu));
	ck_assert_uint_eq(tbl_idx(e), 1);
	/* With TraceEn cleared first, the same change is fine. */
	wrm_ok(e, IA32_RTIT_CTL, 0);
	put64(e, 0x1008, topa_entry_make(0x11000, TOPA_SIZE_4K, TOPA_ENTRY_STOP));
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4096), 4096);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_STOPPED);
	ck_assert_uint_eq(e->cpu.stats.violations, 1);
	env_free(e);
}
END_TEST

/* "PMI Preservation": PendTopaPMI set on fill, re-pended on TraceEn 0->1. */
START_TEST(test_pmi_preservation)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[4096];
	uint64_t t = 0x1000, ctl = CTL_TOPA_ON | IA32_RTIT_CTL_INJECTPSBPMIONENABLE;

	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_INT));
	put64(e, t + 8, topa_entry_make(0x11000, TOPA_SIZE_4K, 0));
	put64(e, t + 16, topa_entry_make(t, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, ctl);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4096), 4096);
	ck_assert_int_eq(e->pmis, 1);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_PENDTOPAPMI);
	wrm_ok(e, IA32_RTIT_CTL, ctl & ~IA32_RTIT_CTL_TRACEEN);
	wrm_ok(e, IA32_PERF_GLOBAL_STATUS_RESET, IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	/* PendTopaPMI still 1: enabling pends the PMI again. */
	wrm_ok(e, IA32_RTIT_CTL, ctl);
	ck_assert_int_eq(e->pmis, 2);
	ck_assert(rdm(e, IA32_PERF_GLOBAL_STATUS) & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	/* Software clears PendTopaPMI (with TraceEn=0): no more PMIs. */
	wrm_ok(e, IA32_RTIT_CTL, ctl & ~IA32_RTIT_CTL_TRACEEN);
	wrm_ok(e, IA32_RTIT_STATUS, rdm(e, IA32_RTIT_STATUS) & ~IA32_RTIT_STATUS_PENDTOPAPMI);
	wrm_ok(e, IA32_RTIT_CTL, ctl);
	ck_assert_int_eq(e->pmis, 2);
	/* Without InjectPsbPmiOnEnable the bit is neither set nor used. */
	wrm_ok(e, IA32_RTIT_CTL, 0);
	wrm_ok(e, IA32_RTIT_STATUS, IA32_RTIT_STATUS_PENDTOPAPMI);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_int_eq(e->pmis, 2);
	env_free(e);
}
END_TEST

/* "Single Output Region ToPA Implementation" (MENTRY=0), bdw. */
START_TEST(test_topa_mentry0)
{
	struct env *e = env_new(&pt_model_profile_bdw);
	static uint8_t buf[4096 + 50];
	uint64_t t = 0x1000;

	fill(buf, sizeof(buf), 11);
	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_INT));
	put64(e, t + 8, topa_entry_make(t, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert(pt_model_trigger_en(&e->cpu));
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4096 - 513), 4096 - 513);
	ck_assert_int_eq(e->pmis, 0);
	/* The PMI comes before the region is filled. */
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf + 4096 - 513, 1), 1);
	ck_assert_int_eq(e->pmis, 1);
	/* ... and only once for this fill; the region wraps onto itself. */
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf + 4096 - 512, 512 + 50), 512 + 50);
	ck_assert_int_eq(e->pmis, 1);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), t);
	ck_assert_uint_eq(tbl_idx(e), 0);
	ck_assert_uint_eq(out_off(e), 50);
	ck_assert_uint_eq(peek(e, 0x10000), buf[4096]);
	ck_assert_uint_eq(peek(e, 0x10000 + 4095), buf[4095]);
	ck_assert_uint_eq(e->cpu.stats.wraps, 1);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	env_free(e);

	/* INT+STOP on the lone region: one early PMI, then the stop. */
	e = env_new(&pt_model_profile_bdw);
	put64(e, t + 0, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_INT | TOPA_ENTRY_STOP));
	put64(e, t + 8, topa_entry_make(t, 0, TOPA_ENTRY_END));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, sizeof(buf)), 4096);
	ck_assert_int_eq(e->pmis, 1);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_STOPPED);
	ck_assert_uint_eq(tbl_idx(e), 0);
	ck_assert_uint_eq(out_off(e), 4096);
	env_free(e);
}
END_TEST

/* "ToPA Errors" 1-4 (SDM 33.2.7.2), table-driven. */
struct topa_err_case {
	const char *name;
	const struct pt_model_profile *prof;
	uint64_t base;			/* IA32_RTIT_OUTPUT_BASE */
	uint64_t mask_ptrs;		/* IA32_RTIT_OUTPUT_MASK_PTRS */
	uint64_t e[4];			/* table at 0x1000 (entries written as given) */
	size_t out;			/* bytes output after enable */
	enum pt_model_operr want;	/* expected error */
	uint64_t want_idx;		/* table index reported with the error */
};

#define T 0x1000ull
/* Constant-expression forms of topa_entry_make() for the tables. */
#define R(b, s, f) ((uint64_t)(b) | ((uint64_t)(s) << TOPA_ENTRY_SIZE_SHIFT) | (f))
#define END(b) ((uint64_t)(b) | TOPA_ENTRY_END)

static const struct topa_err_case topa_errs[] = {
	{ "reserved bit 1", &pt_model_profile_full, T, 0, { R(0x10000, 0, 0) | 2, END(T) }, 0,
	  PT_OPERR_TOPA_RESERVED, 0 },
	{ "reserved bit 3", &pt_model_profile_full, T, 0, { R(0x10000, 0, 0) | 8, END(T) }, 0,
	  PT_OPERR_TOPA_RESERVED, 0 },
	{ "reserved bit 5", &pt_model_profile_full, T, 0, { R(0x10000, 0, 0) | 0x20, END(T) }, 0,
	  PT_OPERR_TOPA_RESERVED, 0 },
	{ "reserved bit 10", &pt_model_profile_full, T, 0, { R(0x10000, 0, 0) | 0x400, END(T) },
	  0, PT_OPERR_TOPA_RESERVED, 0 },
	{ "reserved bit 11", &pt_model_profile_full, T, 0, { R(0x10000, 0, 0) | 0x800, END(T) },
	  0, PT_OPERR_TOPA_RESERVED, 0 },
	{ "reserved bit in END", &pt_model_profile_full, T, 0, { R(0x10000, 0, 0), END(T) | 2 },
	  4096, PT_OPERR_TOPA_RESERVED, 1 },
	{ "base above MAXPHYADDR 46", &pt_model_profile_full, T, 0,
	  { R(1ull << 46, 0, 0), END(T) }, 0, PT_OPERR_TOPA_MAXPHYADDR, 0 },
	{ "base above MAXPHYADDR 39", &pt_model_profile_bdw, T, 0,
	  { R(1ull << 39, 0, 0), END(T) }, 0, PT_OPERR_TOPA_MAXPHYADDR, 0 },
	{ "table base bits 11:7", &pt_model_profile_full, T + 0x80, 0, { 0 }, 0,
	  PT_OPERR_TOPA_TABLE_ALIGN, 0 },
	{ "8K region at 4K", &pt_model_profile_full, T, 0, { R(0x11000, 1, 0), END(T) }, 0,
	  PT_OPERR_TOPA_REGION_ALIGN, 0 },
	{ "2M region at 1M", &pt_model_profile_full, T, 0,
	  { R(0x10000, 0, 0), R(0x100000, TOPA_SIZE_2M, 0), END(T) }, 4096,
	  PT_OPERR_TOPA_REGION_ALIGN, 1 },
	{ "OutputOffset == size", &pt_model_profile_full, T, 4096ull << 32,
	  { R(0x10000, 0, 0), END(T) }, 0, PT_OPERR_TOPA_OUTPUT_OFFSET, 0 },
	{ "OutputOffset > size", &pt_model_profile_full, T, 0xffffffffull << 32,
	  { R(0x10000, 0, 0), END(T) }, 0, PT_OPERR_TOPA_OUTPUT_OFFSET, 0 },
	{ "END with INT", &pt_model_profile_full, T, 0,
	  { R(0x10000, 0, 0), END(T) | TOPA_ENTRY_INT }, 4096, PT_OPERR_TOPA_END_INT_STOP, 1 },
	{ "END with STOP", &pt_model_profile_full, T, 0,
	  { R(0x10000, 0, 0), END(T) | TOPA_ENTRY_STOP }, 4096, PT_OPERR_TOPA_END_INT_STOP, 1 },
	{ "END in entry 0", &pt_model_profile_full, T, 0, { END(T) }, 0,
	  PT_OPERR_TOPA_END_ENTRY0, 0 },
	{ "END to a table whose entry 0 is END", &pt_model_profile_full, T, 0,
	  { R(0x10000, 0, 0), END(0x2000) }, 4096, PT_OPERR_TOPA_END_ENTRY0, 0 },
	{ "MaskOrTableOffset at a bad entry", &pt_model_profile_full, T, 2ull << 7,
	  { R(0x10000, 0, 0), R(0x11000, 0, 0), R(0x12000, 0, 0) | 2, END(T) }, 0,
	  PT_OPERR_TOPA_RESERVED, 2 },
	{ "bad entry found only when reached", &pt_model_profile_full, T, 0,
	  { R(0x10000, 0, 0), R(0x11000, 0, 0), R(0x12000, 0, 0) | 2, END(T) }, 8192,
	  PT_OPERR_TOPA_RESERVED, 2 },
	{ "MENTRY=0: entry 1 not END", &pt_model_profile_bdw, T, 0,
	  { R(0x10000, 0, 0), R(0x11000, 0, 0), END(T) }, 0, PT_OPERR_TOPA_SINGLE_NOT_END, 1 },
	{ "MENTRY=0: END to another table", &pt_model_profile_bdw, T, 0,
	  { R(0x10000, 0, 0), END(0x3000) }, 0, PT_OPERR_TOPA_SINGLE_END_BASE, 1 },
	{ "MENTRY=0: END in entry 0", &pt_model_profile_bdw, T, 0, { END(T) }, 0,
	  PT_OPERR_TOPA_END_ENTRY0, 0 },
	{ "MENTRY=0: MaskOrTableOffset 2", &pt_model_profile_bdw, T, 2ull << 7,
	  { R(0x10000, 0, 0), END(T) }, 0, PT_OPERR_TOPA_SINGLE_NOT_END, 2 },
};

START_TEST(test_topa_errors)
{
	const struct topa_err_case *c = &topa_errs[_i];
	struct env *e = env_new(c->prof);
	static uint8_t buf[8192 + 16];
	unsigned int k;

	for (k = 0; k < 4; k++)
		put64(e, T + 8 * k, c->e[k]);
	put64(e, 0x2000, END(T));		/* a table that starts with END */
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, c->base);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, c->mask_ptrs);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	if (c->out) {
		ck_assert_msg(pt_model_trigger_en(&e->cpu), "%s: error too early", c->name);
		ck_assert_uint_eq(pt_model_output(&e->cpu, buf, c->out + 16), c->out);
	}
	ck_assert_msg(!pt_model_trigger_en(&e->cpu), "%s: no error", c->name);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_STATUS) &
			  (IA32_RTIT_STATUS_ERROR | IA32_RTIT_STATUS_TRIGGEREN),
			  IA32_RTIT_STATUS_ERROR);
	ck_assert_msg(e->last.kind == PT_VIOL_OPERATIONAL_ERROR && e->last.operr == c->want,
		      "%s: got %s", c->name, pt_model_operr_str(e->last.operr));
	ck_assert_uint_eq(e->cpu.stats.operrs, 1);
	if (c->want != PT_OPERR_TOPA_TABLE_ALIGN)
		ck_assert_msg(tbl_idx(e) == c->want_idx, "%s: index %llu", c->name,
			      (unsigned long long)tbl_idx(e));
	/* Nothing more is written; the error sticks until software clears it. */
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert(!pt_model_trigger_en(&e->cpu));
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 1), 0);
	env_free(e);
}
END_TEST

/* MaskOrTableOffset = 0x1FFFFFF: proc_trace_table_offset 0FFFFFF8H wraps to 0. */
START_TEST(test_topa_max_table_offset)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[8192 + 4];
	uint64_t t = 0x40000000ull;

	fill(buf, sizeof(buf), 13);
	put64(e, t + TOPA_TABLE_OFFSET_MAX - 8, topa_entry_make(0x10000, TOPA_SIZE_4K, 0));
	put64(e, t + TOPA_TABLE_OFFSET_MAX, topa_entry_make(0x11000, TOPA_SIZE_4K, 0));
	put64(e, t, topa_entry_make(0x20000, TOPA_SIZE_4K, 0));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, t);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0xffffffffull);
	ck_assert_uint_eq(tbl_idx(e), 0x1ffffff);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0xffffff7full);
	ck_assert_uint_eq(tbl_idx(e), 0x1fffffe);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4096), 4096);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf + 4096, 4096 + 4), 4096 + 4);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TOPA);
	/* Entries 0x1FFFFFE and 0x1FFFFFF used, then entry 0 of the same table. */
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), t);
	ck_assert_uint_eq(tbl_idx(e), 0);
	ck_assert_uint_eq(out_off(e), 4);
	ck_assert_uint_eq(peek(e, 0x10000), buf[0]);
	ck_assert_uint_eq(peek(e, 0x11000), buf[4096]);
	ck_assert_uint_eq(peek(e, 0x20003), buf[8195]);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	env_free(e);
}
END_TEST

/* 33.2.7.4, Table 33-5: refused stores or table reads are operational errors. */
START_TEST(test_restricted_memory)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[4096];

	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	e->restricted_lo = 0x10800;
	e->restricted_hi = 0x10900;
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 0x800), 0x800);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 16), 0);
	ck_assert_int_eq(e->last.operr, PT_OPERR_RESTRICTED_MEMORY);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_ERROR);
	env_free(e);

	e = env_new(&pt_model_profile_full);
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x5000);	/* table in unbacked memory */
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert(!pt_model_trigger_en(&e->cpu));
	ck_assert_int_eq(e->last.operr, PT_OPERR_RESTRICTED_MEMORY);
	env_free(e);
}
END_TEST

/* --- Single-range output, 33.2.7.1 ---------------------------------------- */

START_TEST(test_single_range_wrap)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[5000];
	uint64_t i;

	fill(buf, sizeof(buf), 17);
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x20000);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0xfffull | (16ull << 32));
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER |
	       IA32_RTIT_CTL_BRANCHEN);
	ck_assert(pt_model_trigger_en(&e->cpu));
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, sizeof(buf)), sizeof(buf));
	wrm_ok(e, IA32_RTIT_CTL, 0);
	/* Started at offset 16; 4080 bytes to the end, then wrapped. */
	ck_assert_uint_eq(out_off(e), 5000 - 4080);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_MASK_PTRS) & 0xffffffffull, 0xfff);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), 0x20000);
	ck_assert_uint_eq(e->cpu.stats.wraps, 1);
	for (i = 0; i < 920; i++)
		ck_assert_uint_eq(peek(e, 0x20000 + i), buf[4080 + i]);
	for (i = 920; i < 4096; i++)
		ck_assert_uint_eq(peek(e, 0x20000 + i), buf[i - 16]);
	/* The smallest range: 128 bytes (mask 7FH). */
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x30080);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 130), 130);
	wrm_ok(e, IA32_RTIT_CTL, 0);
	ck_assert_uint_eq(out_off(e), 2);
	ck_assert_uint_eq(peek(e, 0x30080), buf[128]);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	env_free(e);
}
END_TEST

static const struct {
	const char *name;
	uint64_t base, mask_ptrs;
	enum pt_model_operr want;
} single_errs[] = {
	{ "mask not contiguous", 0x20000, 0x2000ull | 0x7f, PT_OPERR_SINGLE_MASK },
	{ "mask hole at bit 7", 0x20000, 0xf00ull, PT_OPERR_SINGLE_MASK },
	{ "base overlaps mask", 0x20800, 0xfffull, PT_OPERR_SINGLE_BASE_MASK },
	{ "OutputOffset > mask", 0x20000, 0xfffull | (0x1000ull << 32), PT_OPERR_SINGLE_OFFSET },
};

START_TEST(test_single_range_errors)
{
	struct env *e = env_new(&pt_model_profile_full);

	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, single_errs[_i].base);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, single_errs[_i].mask_ptrs);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER);
	ck_assert_msg(!pt_model_trigger_en(&e->cpu), "%s", single_errs[_i].name);
	ck_assert_int_eq(e->last.operr, single_errs[_i].want);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_ERROR);
	env_free(e);
}
END_TEST

/*
 * Errata TGL052/ADL037/RPL017 (tgl): a single range above 4 KiB stores only
 * its first 4 KiB; the pointer moves on as if all were stored. Enabling it
 * is a violation; a 4 KiB range is fine.
 */
START_TEST(test_single_range_erratum_4k)
{
	struct env *e = env_new(&pt_model_profile_tgl);
	static uint8_t buf[6000];
	uint64_t i;

	fill(buf, sizeof(buf), 5);
	/* 8 KiB range: a violation at enable, bytes 4096.. never stored. */
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x40000);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0x1fffull);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER |
	       IA32_RTIT_CTL_BRANCHEN);
	ck_assert_uint_eq(e->cpu.stats.violations, 1);
	ck_assert_int_eq(e->last.kind, PT_VIOL_ERRATUM);
	ck_assert(pt_model_trigger_en(&e->cpu));
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, sizeof(buf)), sizeof(buf));
	wrm_ok(e, IA32_RTIT_CTL, 0);
	ck_assert_uint_eq(out_off(e), sizeof(buf));
	ck_assert_uint_eq(e->cpu.stats.bytes_written, 4096);
	ck_assert_uint_eq(e->cpu.stats.erratum_dropped, sizeof(buf) - 4096);
	ck_assert_uint_eq(e->cpu.stats.bytes_dropped, sizeof(buf) - 4096);
	for (i = 0; i < 4096; i++)
		ck_assert_uint_eq(peek(e, 0x40000 + i), buf[i]);
	ck_assert_ptr_null(page_of(e, 0x41000, false));
	/* 4 KiB: what a driver that caps it uses; no violation, all stored. */
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x50000);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0xfffull);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 5000), 5000);
	wrm_ok(e, IA32_RTIT_CTL, 0);
	ck_assert_uint_eq(e->cpu.stats.violations, 1);
	ck_assert_uint_eq(e->cpu.stats.erratum_dropped, sizeof(buf) - 4096);
	ck_assert_uint_eq(peek(e, 0x50000), buf[4096]);
	env_free(e);
	/* full: no erratum, 8 KiB stored whole. */
	e = env_new(&pt_model_profile_full);
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x40000);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0x1fffull);
	wrm_ok(e, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, sizeof(buf)), sizeof(buf));
	ck_assert_uint_eq(peek(e, 0x41000), buf[4096]);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	env_free(e);
}
END_TEST

/*
 * SDM 33.3.1.2 (bdw, 06_3DH): PT and LBRs mutually exclusive. TraceEn set
 * while IA32_DEBUGCTL.LBR=1 is a violation (by WRMSR and by XRSTORS); LBR
 * set by someone else while TraceEn=1 is counted as an overlap only.
 */
START_TEST(test_lbr_exclusive)
{
	struct env *e = env_new(&pt_model_profile_bdw);
	struct pt_xsave_state x;

	ck_assert_uint_eq(rdm(e, IA32_DEBUGCTL), 0);
	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	/* Another agent sets LBR mid-trace: accepted, an overlap. */
	wrm_ok(e, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR);
	ck_assert_uint_eq(rdm(e, IA32_DEBUGCTL), IA32_DEBUGCTL_LBR);
	ck_assert_uint_eq(e->cpu.stats.lbr_overlaps, 1);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON & ~IA32_RTIT_CTL_TRACEEN);
	/* Setting TraceEn now is the driver's violation; it takes effect. */
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(e->cpu.stats.violations, 1);
	ck_assert_int_eq(e->last.kind, PT_VIOL_LBR_EXCLUSIVE);
	ck_assert(pt_model_ctl(&e->cpu) & IA32_RTIT_CTL_TRACEEN);
	wrm_ok(e, IA32_RTIT_CTL, 0);
	/* LBR clear: no violation. */
	wrm_ok(e, IA32_DEBUGCTL, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(e->cpu.stats.violations, 1);
	wrm_ok(e, IA32_RTIT_CTL, 0);
	env_free(e);
	/* full: PT and LBRs coexist; nothing counted. */
	e = env_new(&pt_model_profile_full);
	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	wrm_ok(e, IA32_DEBUGCTL, 0);
	wrm_ok(e, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR);
	ck_assert_uint_eq(e->cpu.stats.violations, 0);
	ck_assert_uint_eq(e->cpu.stats.lbr_overlaps, 0);
	/* XRSTORS enabling TraceEn with LBR set on an exclusive model. */
	wrm_ok(e, IA32_RTIT_CTL, 0);
	env_free(e);
	{
		struct pt_model_profile p = pt_model_profile_full;

		p.lbr_exclusive = true;
		e = env_new(&p);
		topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
		wrm_ok(e, IA32_XSS, IA32_XSS_PT);
		wrm_ok(e, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR);
		memset(&x, 0, sizeof(x));
		x.rtit_ctl = CTL_TOPA_ON;
		x.rtit_output_base = 0x1000;
		ck_assert_int_eq(pt_model_xrstors(&e->cpu, IA32_XSS_PT, &x, true), PT_MODEL_OK);
		ck_assert_uint_eq(e->cpu.stats.violations, 1);
		ck_assert_int_eq(e->last.kind, PT_VIOL_LBR_EXCLUSIVE);
		env_free(e);
	}
}
END_TEST

/* --- XSAVES / XRSTORS, SDM Vol. 1 13.5.6 ---------------------------------- */

START_TEST(test_xsaves_xrstors)
{
	struct env *e = env_new(&pt_model_profile_full);
	struct pt_xsave_state s, bad;
	static uint8_t buf[100];
	bool saved = true;

	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_RTIT_CR3_MATCH, 0xabc000);
	wrm_ok(e, IA32_RTIT_ADDR1_B, 0x401000);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 40), 40);

	/* Without IA32_XSS[8], XSAVES does not touch PT state. */
	memset(&s, 0xa5, sizeof(s));
	ck_assert_int_eq(pt_model_xsaves(&e->cpu, IA32_XSS_PT, &s, &saved), 0);
	ck_assert(!saved);
	ck_assert(pt_model_trigger_en(&e->cpu));
	/* IA32_XSS is written while tracing: not a PT configuration MSR. */
	wrm_ok(e, IA32_XSS, IA32_XSS_PT);
	ck_assert_int_eq(pt_model_xsaves(&e->cpu, 0, &s, &saved), 0);
	ck_assert(!saved);

	ck_assert_int_eq(pt_model_xsaves(&e->cpu, IA32_XSS_PT, &s, &saved), 0);
	ck_assert(saved);
	ck_assert_uint_eq(s.rtit_ctl, CTL_TOPA_ON);		/* saved before clearing */
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CTL), CTL_TOPA_ON & ~IA32_RTIT_CTL_TRACEEN);
	ck_assert_int_eq(e->en_off, 1);
	ck_assert_uint_eq(s.rtit_status & IA32_RTIT_STATUS_TRIGGEREN, 0);
	ck_assert_uint_eq(s.rtit_output_base, 0x1000);
	ck_assert_uint_eq(s.rtit_output_mask_ptrs, (40ull << 32) | 0x7f);
	ck_assert_uint_eq(s.rtit_cr3_match, 0xabc000);
	ck_assert_uint_eq(s.rtit_addr0_a, 0);
	ck_assert_uint_eq(s.rtit_addr1_b, 0x401000);

	/* Another context runs: XRSTORS of the init state (XSTATE_BV[8]=0). */
	ck_assert_int_eq(pt_model_xrstors(&e->cpu, IA32_XSS_PT, NULL, false), 0);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CTL), 0);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CR3_MATCH), 0);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_ADDR1_B), 0);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), 0);

	/* An invalid saved value: #GP and nothing modified. */
	bad = s;
	bad.rtit_cr3_match |= 1;
	wrm_ok(e, IA32_RTIT_CR3_MATCH, 0x5000);
	ck_assert_int_eq(pt_model_xrstors(&e->cpu, IA32_XSS_PT, &bad, true), PT_MODEL_EGP);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CR3_MATCH), 0x5000);
	bad = s;
	bad.rtit_ctl |= 1ull << 18;
	ck_assert_int_eq(pt_model_xrstors(&e->cpu, IA32_XSS_PT, &bad, true), PT_MODEL_EGP);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), 0);

	/* Restore: CTL loaded last, tracing resumes where it stopped. */
	ck_assert_int_eq(pt_model_xrstors(&e->cpu, IA32_XSS_PT, &s, true), 0);
	ck_assert(pt_model_trigger_en(&e->cpu));
	ck_assert_int_eq(e->en_on, 2);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CR3_MATCH), 0xabc000);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 10), 10);
	/* XRSTORS with TraceEn=1: #GP before modifying PT state. */
	ck_assert_int_eq(pt_model_xrstors(&e->cpu, IA32_XSS_PT, NULL, false), PT_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, PT_VIOL_XRSTORS_TRACING);
	ck_assert(pt_model_trigger_en(&e->cpu));
	wrm_ok(e, IA32_RTIT_CTL, 0);
	ck_assert_uint_eq(out_off(e), 50);
	ck_assert_uint_eq(e->cpu.stats.violations, 3);
	env_free(e);

	/* bdw: XSAVES does not manage PT state; IA32_XSS[8] #GPs. */
	e = env_new(&pt_model_profile_bdw);
	wrm_gp(e, IA32_XSS, IA32_XSS_PT, PT_VIOL_XSS_UNSUPPORTED);
	ck_assert_int_eq(pt_model_xsaves(&e->cpu, ~0ull, &s, &saved), 0);
	ck_assert(!saved);
	env_free(e);
}
END_TEST

/* --- PSB accounting, PacketByteCnt (33.2.8.4, Table 33-11 EBX[1]) ---------- */

START_TEST(test_psb_due)
{
	struct env *e = env_new(&pt_model_profile_full);
	static uint8_t buf[4096];

	put64(e, 0x1000, topa_entry_make(0x100000, TOPA_SIZE_1M, 0));
	put64(e, 0x1008, END(0x1000));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x1000);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	/* PSBFreq=1: every 4K bytes. */
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON | (1ull << IA32_RTIT_CTL_PSBFREQ_SHIFT) |
	       IA32_RTIT_CTL_INJECTPSBPMIONENABLE);
	ck_assert(pt_model_psb_due(&e->cpu));		/* PacketByteCnt = 0 */
	pt_model_psb_begin(&e->cpu);
	ck_assert(!pt_model_psb_due(&e->cpu));
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4095), 4095);
	ck_assert(!pt_model_psb_due(&e->cpu));
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 1), 1);
	ck_assert(pt_model_psb_due(&e->cpu));
	/* Disabled before the PSB was written: PendPSB keeps it (33.3.7). */
	wrm_ok(e, IA32_RTIT_CTL, rdm(e, IA32_RTIT_CTL) & ~IA32_RTIT_CTL_TRACEEN);
	ck_assert_uint_eq((rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_PACKETBYTECNT_MASK) >>
			  IA32_RTIT_STATUS_PACKETBYTECNT_SHIFT, 4096);
	ck_assert(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_PENDPSB);
	ck_assert(!pt_model_psb_due(&e->cpu));
	wrm_ok(e, IA32_RTIT_CTL, rdm(e, IA32_RTIT_CTL) | IA32_RTIT_CTL_TRACEEN);
	ck_assert(pt_model_psb_due(&e->cpu));
	pt_model_psb_begin(&e->cpu);
	ck_assert(!(rdm(e, IA32_RTIT_STATUS) & IA32_RTIT_STATUS_PENDPSB));
	/* Re-enable with PacketByteCnt != 0 and no PendPSB: no PSB (33.2.8.3). */
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 100), 100);
	wrm_ok(e, IA32_RTIT_CTL, rdm(e, IA32_RTIT_CTL) & ~IA32_RTIT_CTL_TRACEEN);
	wrm_ok(e, IA32_RTIT_CTL, rdm(e, IA32_RTIT_CTL) | IA32_RTIT_CTL_TRACEEN);
	ck_assert(!pt_model_psb_due(&e->cpu));
	env_free(e);

	/* bdw: a PSB at every enable, and every 2K bytes. */
	e = env_new(&pt_model_profile_bdw);
	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert(pt_model_psb_due(&e->cpu));
	pt_model_psb_begin(&e->cpu);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 2047), 2047);
	ck_assert(!pt_model_psb_due(&e->cpu));
	wrm_ok(e, IA32_RTIT_CTL, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	ck_assert(pt_model_psb_due(&e->cpu));
	env_free(e);
}
END_TEST

/* --- Enables and TraceStop (33.2.6, 33.2.5.3) ----------------------------- */

START_TEST(test_enables_and_tracestop)
{
	struct env *e = env_new(&pt_model_profile_full);
	uint64_t st;

	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	pt_model_set_enables(&e->cpu, true, true);	/* TriggerEn=0: ignored */
	ck_assert_uint_eq(rdm(e, IA32_RTIT_STATUS), 0);
	/* ADDR0 as a filter range: FilterEn starts clear and follows the generator. */
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON |
	       ((uint64_t)IA32_RTIT_ADDR_CFG_FILTER << IA32_RTIT_CTL_ADDR0_CFG_SHIFT));
	st = rdm(e, IA32_RTIT_STATUS);
	ck_assert_uint_eq(st & 7, IA32_RTIT_STATUS_TRIGGEREN);
	pt_model_set_enables(&e->cpu, true, true);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_STATUS) & 7, 7);
	pt_model_set_enables(&e->cpu, true, false);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_STATUS) & 7, 6);
	pt_model_trace_stop(&e->cpu);
	st = rdm(e, IA32_RTIT_STATUS);
	ck_assert(st & IA32_RTIT_STATUS_STOPPED);
	ck_assert(!(st & IA32_RTIT_STATUS_TRIGGEREN));
	wrm_ok(e, IA32_RTIT_CTL, 0);
	/* Without filter ranges, FilterEn is always 1. */
	wrm_ok(e, IA32_RTIT_STATUS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	pt_model_set_enables(&e->cpu, false, false);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_STATUS) & 7, 5);
	env_free(e);
}
END_TEST

/* A PMI handler that re-enables without clearing PendTopaPMI (33.2.7.2). */
static void pmi_storm_handler(void *ctx, struct pt_model_cpu *cpu)
{
	uint64_t v = pt_model_ctl(cpu);

	on_pmi(ctx, cpu);
	ck_assert_int_eq(pt_model_wrmsr(cpu, IA32_RTIT_CTL, v & ~IA32_RTIT_CTL_TRACEEN), 0);
	ck_assert_int_eq(pt_model_wrmsr(cpu, IA32_RTIT_CTL, v), 0);
}

START_TEST(test_pmi_storm)
{
	struct env *e = env_new(&pt_model_profile_full);
	static struct pt_model_ops ops3;
	static uint8_t buf[4096];

	ops3 = ops;
	ops3.pmi = pmi_storm_handler;
	ck_assert_int_eq(pt_model_cpu_init(&e->cpu, &pt_model_profile_full, &ops3, e, 0), 0);
	put64(e, 0x1000, topa_entry_make(0x10000, TOPA_SIZE_4K, TOPA_ENTRY_INT));
	put64(e, 0x1008, topa_entry_make(0x11000, TOPA_SIZE_4K, 0));
	put64(e, 0x1010, END(0x1000));
	wrm_ok(e, IA32_RTIT_OUTPUT_BASE, 0x1000);
	wrm_ok(e, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON | IA32_RTIT_CTL_INJECTPSBPMIONENABLE);
	ck_assert_uint_eq(pt_model_output(&e->cpu, buf, 4096), 4096);
	ck_assert_int_eq(e->pmis, PT_MODEL_PMI_STORM_LIMIT);
	ck_assert_int_eq(e->last.kind, PT_VIOL_PMI_STORM);
	ck_assert_uint_eq(e->cpu.stats.by_kind[PT_VIOL_PMI_STORM], 1);
	env_free(e);
}
END_TEST

/* SDM 33.2.8.1, 33.3.4: cold and warm RESET. */
START_TEST(test_reset)
{
	struct env *e = env_new(&pt_model_profile_full);

	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_RTIT_ADDR0_A, 0x400000);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	pt_model_reset(&e->cpu, true);		/* EBX[2]=1: only TraceEn cleared */
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CTL), CTL_TOPA_ON & ~IA32_RTIT_CTL_TRACEEN);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), 0x1000);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_ADDR0_A), 0x400000);
	ck_assert(!pt_model_trigger_en(&e->cpu));
	pt_model_reset(&e->cpu, false);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CTL), 0);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), 0);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_MASK_PTRS), 0x7f);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_ADDR0_A), 0);
	env_free(e);

	e = env_new(&pt_model_profile_bdw);		/* EBX[2]=0: all cleared */
	topa_simple(e, 0x1000, 0x10000, TOPA_SIZE_4K);
	wrm_ok(e, IA32_RTIT_CTL, CTL_TOPA_ON);
	pt_model_reset(&e->cpu, true);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_CTL), 0);
	ck_assert_uint_eq(rdm(e, IA32_RTIT_OUTPUT_BASE), 0);
	env_free(e);
}
END_TEST

START_TEST(test_strings_and_args)
{
	struct pt_model_cpu cpu;
	unsigned int i;
	uint64_t v;

	for (i = 0; i < PT_VIOL_NR + 1; i++)
		ck_assert_ptr_nonnull(pt_model_violation_str(i));
	for (i = 0; i < PT_OPERR_NR + 1; i++)
		ck_assert_ptr_nonnull(pt_model_operr_str(i));
	ck_assert_str_eq(pt_model_strerror(PT_MODEL_EGP), "general-protection fault (#GP)");
	ck_assert_str_eq(pt_model_strerror(42), "unknown error");
	ck_assert_int_eq(pt_model_cpu_init(&cpu, &pt_model_profile_full, NULL, NULL, 0),
			 PT_MODEL_EINVAL);
	ck_assert_int_eq(pt_model_cpu_init(NULL, &pt_model_profile_full, &ops, NULL, 0),
			 PT_MODEL_EINVAL);
	ck_assert_int_eq(pt_model_cpu_init(&cpu, &pt_model_profile_full, &ops, NULL, 0), 0);
	ck_assert_int_eq(pt_model_rdmsr(&cpu, IA32_RTIT_CTL, NULL), PT_MODEL_EINVAL);
	ck_assert_int_eq(pt_model_rdmsr(NULL, IA32_RTIT_CTL, &v), PT_MODEL_EINVAL);
	ck_assert_int_eq(pt_model_wrmsr(NULL, IA32_RTIT_CTL, 0), PT_MODEL_EINVAL);
	ck_assert_uint_eq(pt_model_output(&cpu, NULL, 5), 0);
	ck_assert_int_eq(pt_model_xsaves(&cpu, 0, NULL, NULL), PT_MODEL_EINVAL);
	ck_assert_int_eq(pt_model_xrstors(&cpu, ~0ull, NULL, true), PT_MODEL_EINVAL);
}
END_TEST

static Suite *pt_model_suite(void)
{
	Suite *s = suite_create("pt_model");
	TCase *tc = tcase_create("sdm33");

	tcase_add_test(tc, test_profile_caps);
	tcase_add_test(tc, test_cpuid);
	tcase_add_test(tc, test_ctl_bits_bdw);
	tcase_add_test(tc, test_ctl_bits_full);
	tcase_add_test(tc, test_ctl_encodings);
	tcase_add_test(tc, test_rtit_ctl_check);
	tcase_add_test(tc, test_bdm106);
	tcase_add_test(tc, test_ctl_no_output_scheme);
	tcase_add_test(tc, test_output_scheme_caps);
	tcase_add_test(tc, test_write_while_tracing);
	tcase_add_test(tc, test_status_rules);
	tcase_add_test(tc, test_other_msrs);
	tcase_add_test(tc, test_topa_multi_entry_wrap);
	tcase_add_test(tc, test_topa_end_to_next_table);
	tcase_add_test(tc, test_topa_stop);
	tcase_add_test(tc, test_topa_int_pmi);
	tcase_add_test(tc, test_pmi_skid);
	tcase_add_test(tc, test_pmi_preservation);
	tcase_add_test(tc, test_topa_modified_while_tracing);
	tcase_add_test(tc, test_topa_mentry0);
	tcase_add_loop_test(tc, test_topa_errors, 0, sizeof(topa_errs) / sizeof(topa_errs[0]));
	tcase_add_test(tc, test_topa_max_table_offset);
	tcase_add_test(tc, test_restricted_memory);
	tcase_add_test(tc, test_single_range_wrap);
	tcase_add_loop_test(tc, test_single_range_errors, 0,
			    sizeof(single_errs) / sizeof(single_errs[0]));
	tcase_add_test(tc, test_single_range_erratum_4k);
	tcase_add_test(tc, test_lbr_exclusive);
	tcase_add_test(tc, test_xsaves_xrstors);
	tcase_add_test(tc, test_psb_due);
	tcase_add_test(tc, test_enables_and_tracestop);
	tcase_add_test(tc, test_pmi_storm);
	tcase_add_test(tc, test_reset);
	tcase_add_test(tc, test_strings_and_args);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(pt_model_suite(), CK_NORMAL);
}
