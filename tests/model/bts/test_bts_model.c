// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the branch-recording model (model/bts/), one rule of SDM
 * Vol. 3B 17.4 per test: the IA32_DEBUGCTL bits each profile accepts
 * (17.4.1, 17.4.6, 17.4.7, 17.4.9; Vol. 4 Table 2-2), IA32_DS_AREA,
 * IA32_MISC_ENABLE and IA32_PERF_CAPABILITIES, BTS records and the BTS
 * index (17.4.9.1), CPL qualification (17.4.6), the threshold interrupt,
 * the full buffer with BTINT and the circular wrap without (17.4.9.3), the
 * LBR stack and TOS (17.4.8), record formats (17.4.8.1; formats 4 to 7
 * and MSR_LBR_INFO_n as perf's arch/x86/events/intel/lbr.c reads them),
 * LBR_SELECT (17.7.2), call-stack mode (17.9), the LER (17.4.8.3), #DB and
 * BTF (17.4.1), freezing on PMI (17.4.7, 17.10.2), PT/LBR exclusion
 * (33.3.1.2), and the retired-instruction adapter (bts_step.h).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model/bts/bts_model.h"
#include "model/bts/bts_step.h"
#include "tests/check_run.h"

/* --- A flat memory: [MEM_BASE, MEM_BASE + MEM_SIZE) is mapped ----------- */

#define MEM_BASE	0x10000ull
#define MEM_SIZE	0x10000ull
#define DS		MEM_BASE		/* the management area */
#define BUF		(MEM_BASE + 0x1000)	/* the BTS buffer */
#define REC		BTS_RECORD_SIZE

struct env {
	uint8_t mem[MEM_SIZE];
	int pmis;
	uint64_t pmi_index;		/* BTS index seen by the last PMI */
	bool pmi_reset_index;		/* the handler drains: index = base */
	uint64_t pmi_debugctl;		/* IA32_DEBUGCTL seen by the last PMI */
	int logs;
	struct bts_model_violation last;
	struct bts_model_cpu cpu;
};

static bool mapped(uint64_t la, size_t len)
{
	return la >= MEM_BASE && la - MEM_BASE <= MEM_SIZE && len <= MEM_SIZE - (la - MEM_BASE);
}

static int rd(void *ctx, uint64_t la, void *buf, size_t len)
{
	struct env *e = ctx;

	if (!mapped(la, len))
		return -1;
	memcpy(buf, e->mem + (la - MEM_BASE), len);
	return 0;
}

static int wr(void *ctx, uint64_t la, const void *buf, size_t len)
{
	struct env *e = ctx;

	if (!mapped(la, len))
		return -1;
	memcpy(e->mem + (la - MEM_BASE), buf, len);
	return 0;
}

static uint64_t mem64(struct env *e, uint64_t la)
{
	uint64_t v;

	ck_assert(mapped(la, 8));
	memcpy(&v, e->mem + (la - MEM_BASE), 8);
	return v;
}

static void set64(struct env *e, uint64_t la, uint64_t v)
{
	ck_assert(mapped(la, 8));
	memcpy(e->mem + (la - MEM_BASE), &v, 8);
}

static void pmi(void *ctx, struct bts_model_cpu *cpu)
{
	struct env *e = ctx;

	e->pmis++;
	e->pmi_index = mem64(e, DS + DS_BTS_INDEX);
	ck_assert_int_eq(bts_model_rdmsr(cpu, IA32_DEBUGCTL, &e->pmi_debugctl), 0);
	if (e->pmi_reset_index)
		set64(e, DS + DS_BTS_INDEX, mem64(e, DS + DS_BTS_BUFFER_BASE));
}

static void logv(void *ctx, struct bts_model_cpu *cpu, const struct bts_model_violation *v)
{
	struct env *e = ctx;

	(void)cpu;
	e->logs++;
	e->last = *v;
}

static const struct bts_model_ops ops = {
	.read_lin = rd, .write_lin = wr, .pmi = pmi, .log = logv,
};

static struct env *env_new(const struct bts_model_profile *p)
{
	struct env *e = calloc(1, sizeof(*e));

	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(bts_model_cpu_init(&e->cpu, p, &ops, e, 0), BTS_MODEL_OK);
	return e;
}

/* The BTS fields of the DS area; IA32_DS_AREA pointed at it. */
static void ds_setup(struct env *e, uint64_t nrec_max, uint64_t thresh)
{
	set64(e, DS + DS_BTS_BUFFER_BASE, BUF);
	set64(e, DS + DS_BTS_INDEX, BUF);
	set64(e, DS + DS_BTS_ABSOLUTE_MAXIMUM, BUF + nrec_max * REC);
	set64(e, DS + DS_BTS_INTERRUPT_THRESHOLD, thresh);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DS_AREA, DS), 0);
}

static void branch(struct env *e, enum bts_branch_kind k, uint64_t from, uint64_t to,
		   uint8_t cpl)
{
	struct bts_branch br = {
		.kind = k, .from = from, .to = to, .cpl = cpl, .mode = X86_MODE_64,
	};

	ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
}

static void rdmsr_eq(struct env *e, uint32_t msr, uint64_t want)
{
	uint64_t v = ~0ull;

	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, msr, &v), 0);
	ck_assert_msg(v == want, "MSR %#x = %#llx, want %#llx", msr,
		      (unsigned long long)v, (unsigned long long)want);
}

static void check_rec(struct env *e, unsigned int slot, uint64_t from, uint64_t to)
{
	uint64_t a = BUF + slot * REC;

	ck_assert_uint_eq(mem64(e, a + BTS_REC_FROM), from);
	ck_assert_uint_eq(mem64(e, a + BTS_REC_TO), to);
	ck_assert_uint_eq(mem64(e, a + BTS_REC_FLAGS), BTS_REC_FLAGS_PREDICTED);
}

#define BTS_ON	(IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS)

/* The IA32_DEBUGCTL bits of each profile, from Vol. 4 Table 2-2 (see below). */
static uint64_t ds_valid_of(const struct bts_model_profile *p)
{
	uint64_t v = 0x43;		/* LBR, BTF, TR */

	if (p->ds && !p->bts_unavailable)
		v |= 0x180;
	if (p->ds_cpl)
		v |= 0x600;
	if (p->pdcm && p->perfmon_version > 1)
		v |= 0x1800;
	if (p->uncore_pmi)
		v |= 0x2000;
	if (p->pdcm && p->freeze_while_smm)
		v |= 0x4000;
	return v;
}

/* --- Profiles, CPUID and the MSRs they enumerate -------------------------- */

START_TEST(test_profiles_cpuid)
{
	static const struct {
		const char *name;
		uint32_t ecx, edx, eax_a;
	} want[] = {
		{ "core2", (1u << 2) | (1u << 4) | (1u << 15), 1u << 21, 2 },
		{ "nhm", (1u << 2) | (1u << 4) | (1u << 15), 1u << 21, 3 },
		{ "pmv4", (1u << 2) | (1u << 4) | (1u << 15), 1u << 21, 4 },
		{ "nocpl", 0, 1u << 21, 1 },
		{ "btsoff", (1u << 2) | (1u << 4) | (1u << 15), 1u << 21, 2 },
		{ "nods", 0, 0, 2 },
		{ "hsw", (1u << 2) | (1u << 4) | (1u << 15), 1u << 21, 3 },
		{ "skl", (1u << 2) | (1u << 4) | (1u << 15), 1u << 21, 4 },
		{ "glm", (1u << 2) | (1u << 4) | (1u << 15), 1u << 21, 4 },
		{ "glp", (1u << 2) | (1u << 4) | (1u << 15), 1u << 21, 4 },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct bts_model_profile *p = bts_model_profile_find(want[i].name);
		struct env *e;
		uint32_t r[4];

		ck_assert_ptr_nonnull(p);
		e = env_new(p);
		ck_assert_int_eq(bts_model_cpuid(&e->cpu, 1, r), 0);
		ck_assert_uint_eq(r[2], want[i].ecx);
		ck_assert_uint_eq(r[3], want[i].edx);
		ck_assert_int_eq(bts_model_cpuid(&e->cpu, 0xa, r), 0);
		ck_assert_uint_eq(r[0], want[i].eax_a);
		free(e);
	}
	ck_assert_ptr_null(bts_model_profile_find("skylake"));
	ck_assert_ptr_null(bts_model_profile_find(NULL));
}
END_TEST

/*
 * Vol. 4 Table 2-2 per profile: the bits a WRMSR of IA32_DEBUGCTL may set;
 * every other bit of 63:0 raises #GP and leaves the MSR unchanged.
 */
START_TEST(test_debugctl_reserved_bits)
{
	static const struct {
		const char *name;
		uint64_t valid;
	} want[] = {
		/* LBR BTF TR | BTS BTINT | OFF_OS OFF_USR | FREEZE x2 | 13 | 14 */
		{ "core2", 0x1c3 | 0x600 | 0x1800 },
		{ "nhm", 0x1c3 | 0x600 | 0x1800 | 0x2000 | 0x4000 },
		{ "pmv4", 0x1c3 | 0x600 | 0x1800 | 0x4000 },
		{ "nocpl", 0x1c3 },			/* no DS-CPL, no PDCM */
		{ "btsoff", 0x43 | 0x600 | 0x1800 },	/* BTS_UNAVAILABLE */
		{ "nods", 0x43 },			/* no DS, no PDCM */
		{ "hsw", 0x1c3 | 0x600 | 0x1800 | 0x4000 },
		{ "skl", 0x1c3 | 0x600 | 0x1800 | 0x4000 },
		{ "glm", 0x1c3 | 0x600 | 0x1800 | 0x4000 },
		{ "glp", 0x1c3 | 0x600 | 0x1800 | 0x4000 },
	};
	size_t i;
	unsigned int bit;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct env *e = env_new(bts_model_profile_find(want[i].name));
		uint64_t cur = 0;

		for (bit = 0; bit < 64; bit++) {
			uint64_t v = 1ull << bit;
			int r = bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, v);

			if (want[i].valid & v) {
				ck_assert_msg(r == 0, "%s bit %u refused", want[i].name, bit);
				cur = v;
			} else {
				ck_assert_msg(r == BTS_MODEL_EGP, "%s bit %u accepted",
					      want[i].name, bit);
				ck_assert_int_eq(e->last.kind, BTS_VIOL_RESERVED_BIT);
			}
			rdmsr_eq(e, IA32_DEBUGCTL, cur);	/* #GP: unchanged */
		}
		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, want[i].valid), 0);
		/* A refused write leaves the old value. */
		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, 1ull << 63), BTS_MODEL_EGP);
		rdmsr_eq(e, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR);
		free(e);
	}
}
END_TEST

START_TEST(test_other_msrs)
{
	struct env *e = env_new(&bts_model_profile_nhm);
	uint64_t v;

	/* IA32_MISC_ENABLE bits 11/12 (17.4.9), read-only in the model. */
	rdmsr_eq(e, IA32_MISC_ENABLE, 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_MISC_ENABLE, 0), BTS_MODEL_EGP);
	/* IA32_PERF_CAPABILITIES[5:0] = LBR format, [12] FREEZE_WHILE_SMM. */
	rdmsr_eq(e, IA32_PERF_CAPABILITIES, LBR_FMT_EIP_FLAGS | PERF_CAP_FREEZE_WHILE_SMM);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_PERF_CAPABILITIES, 3), BTS_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_READ_ONLY_MSR);
	/* IA32_DS_AREA: a canonical linear address. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DS_AREA, 0x0000800000000000ull),
			 BTS_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_NON_CANONICAL);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DS_AREA, 0xffff800000001000ull), 0);
	rdmsr_eq(e, IA32_DS_AREA, 0xffff800000001000ull);
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, 0x10, &v), BTS_MODEL_ENOMSR);
	free(e);

	/* IA32_PERF_CAPABILITIES[5:0] of the format 4 and 5 profiles. */
	e = env_new(&bts_model_profile_hsw);
	rdmsr_eq(e, IA32_PERF_CAPABILITIES, LBR_FMT_EIP_FLAGS2 | PERF_CAP_FREEZE_WHILE_SMM);
	free(e);
	e = env_new(&bts_model_profile_skl);
	rdmsr_eq(e, IA32_PERF_CAPABILITIES, LBR_FMT_INFO | PERF_CAP_FREEZE_WHILE_SMM);
	free(e);

	e = env_new(&bts_model_profile_btsoff);
	rdmsr_eq(e, IA32_MISC_ENABLE, IA32_MISC_ENABLE_BTS_UNAVAILABLE |
		 IA32_MISC_ENABLE_PEBS_UNAVAILABLE);
	free(e);

	/* No DS: IA32_DS_AREA does not exist; no PDCM: no PERF_CAPABILITIES. */
	e = env_new(&bts_model_profile_nods);
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, IA32_DS_AREA, &v), BTS_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_MSR_NOT_ENUMERATED);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DS_AREA, DS), BTS_MODEL_EGP);
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, IA32_PERF_CAPABILITIES, &v), BTS_MODEL_EGP);
	free(e);

	/* Perfmon version 1: no IA32_PERF_GLOBAL_* MSRs. */
	e = env_new(&bts_model_profile_nocpl);
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, IA32_PERF_GLOBAL_STATUS, &v), BTS_MODEL_EGP);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_PERF_GLOBAL_CTRL, 1), BTS_MODEL_EGP);
	ck_assert_uint_eq(e->cpu.stats.by_kind[BTS_VIOL_MSR_NOT_ENUMERATED], 2);
	free(e);
}
END_TEST

/* --- BTS ------------------------------------------------------------------ */

/* 17.4.9.1: 24-byte records at the BTS index, which advances by 24. */
START_TEST(test_bts_records)
{
	struct env *e = env_new(&bts_model_profile_core2);
	struct bts_branch br = {
		.kind = BTS_BR_JCC, .from = 0x401000, .to = 0x401100, .cpl = 3,
		.mode = X86_MODE_64, .mispredicted = true,
	};

	ds_setup(e, 16, BUF + 32 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, BTS_ON), 0);
	branch(e, BTS_BR_CALL_REL, 0x401000, 0x402000, 3);
	branch(e, BTS_BR_RET, 0x402010, 0x401005, 3);
	branch(e, BTS_BR_FAR, 0x401020, 0xffffffff81000000ull, 3);
	check_rec(e, 0, 0x401000, 0x402000);
	check_rec(e, 1, 0x402010, 0x401005);
	check_rec(e, 2, 0x401020, 0xffffffff81000000ull);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + 3 * REC);
	/* Figure 17-9: the predicted flag is bit 4 of the third field. */
	ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
	ck_assert_uint_eq(mem64(e, BUF + 3 * REC + BTS_REC_FLAGS), 0);
	ck_assert_uint_eq(e->cpu.stats.bts_records, 4);
	ck_assert_int_eq(e->pmis, 0);
	free(e);
}
END_TEST

/* Table "IA32_DEBUGCTL Flag Encodings": TR=0 is off; TR=1, BTS=0 goes to the bus. */
START_TEST(test_bts_needs_tr_and_bts)
{
	struct env *e = env_new(&bts_model_profile_core2);

	ds_setup(e, 16, BUF + 32 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_BTS), 0);
	branch(e, BTS_BR_JMP_REL, 0x1000, 0x2000, 3);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_TR), 0);
	branch(e, BTS_BR_JMP_REL, 0x1000, 0x2000, 3);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF);
	ck_assert_uint_eq(e->cpu.stats.bts_records, 0);
	free(e);
}
END_TEST

/* 17.4.6: BTS_OFF_OS skips CPL 0, BTS_OFF_USR skips CPL 1, 2 and 3. */
START_TEST(test_bts_cpl_filter)
{
	static const struct {
		uint64_t off;
		bool stored[4];
	} c[] = {
		{ 0, { true, true, true, true } },
		{ IA32_DEBUGCTL_BTS_OFF_OS, { false, true, true, true } },
		{ IA32_DEBUGCTL_BTS_OFF_USR, { true, false, false, false } },
		{ IA32_DEBUGCTL_BTS_OFF_OS | IA32_DEBUGCTL_BTS_OFF_USR, { false } },
	};
	size_t i;
	unsigned int cpl;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct env *e = env_new(&bts_model_profile_nhm);
		unsigned int n = 0;

		ds_setup(e, 16, BUF + 32 * REC);
		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, BTS_ON | c[i].off), 0);
		for (cpl = 0; cpl < 4; cpl++) {
			branch(e, BTS_BR_FAR, 0x1000 + cpl, 0x2000 + cpl, (uint8_t)cpl);
			if (c[i].stored[cpl])
				check_rec(e, n++, 0x1000 + cpl, 0x2000 + cpl);
		}
		ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + n * REC);
		ck_assert_uint_eq(e->cpu.stats.bts_cpl_skipped, 4 - n);
		free(e);
	}
}
END_TEST

/*
 * The threshold PMI is not precise: with a skid of 3 it arrives at the
 * third branch after the store that reached the threshold, two more
 * records stored meanwhile; the freeze of 17.4.7 came with the signal.
 */
START_TEST(test_bts_threshold_skid)
{
	struct env *e = env_new(&bts_model_profile_nhm);

	bts_model_set_pmi_skid(&e->cpu, 3);
	ds_setup(e, 8, BUF + 2 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL,
					 BTS_ON | IA32_DEBUGCTL_BTINT), 0);
	branch(e, BTS_BR_JCC, 1, 2, 3);
	branch(e, BTS_BR_JCC, 3, 4, 3);		/* reaches the threshold */
	ck_assert_uint_eq(e->cpu.stats.bts_pmis, 1);
	ck_assert_int_eq(e->pmis, 0);
	branch(e, BTS_BR_JCC, 5, 6, 3);
	branch(e, BTS_BR_JCC, 7, 8, 3);
	ck_assert_int_eq(e->pmis, 0);
	branch(e, BTS_BR_JCC, 9, 10, 3);	/* delivered before this record */
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_uint_eq(e->pmi_index, BUF + 4 * REC);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + 5 * REC);
	ck_assert_uint_eq(e->cpu.stats.bts_lost, 0);
	free(e);
}
END_TEST

/*
 * A skid longer than the room between the threshold and the absolute
 * maximum loses records (BTINT=1 stops there): why software leaves a
 * margin (perf's BTS_SAFETY_MARGIN).
 */
START_TEST(test_bts_skid_past_maximum)
{
	struct env *e = env_new(&bts_model_profile_nhm);
	int i;

	bts_model_set_pmi_skid(&e->cpu, 4);
	ds_setup(e, 3, BUF + 2 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL,
					 BTS_ON | IA32_DEBUGCTL_BTINT), 0);
	for (i = 0; i < 6; i++)
		branch(e, BTS_BR_JCC, 1 + 2 * i, 2 + 2 * i, 3);
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_uint_eq(e->pmi_index, BUF + 3 * REC);
	ck_assert_uint_eq(e->cpu.stats.bts_records, 3);
	ck_assert_uint_eq(e->cpu.stats.bts_lost, 3);
	free(e);
}
END_TEST

/*
 * The late PMI: software turns BTS off (or switches IA32_DS_AREA) while
 * the PMI is on its way; it arrives right after the write, to a handler
 * that finds BTS off.
 */
START_TEST(test_bts_late_pmi)
{
	struct env *e = env_new(&bts_model_profile_nhm);

	bts_model_set_pmi_skid(&e->cpu, 100);
	ds_setup(e, 8, BUF + REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL,
					 BTS_ON | IA32_DEBUGCTL_BTINT), 0);
	branch(e, BTS_BR_JCC, 1, 2, 3);
	ck_assert_int_eq(e->pmis, 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, 0), 0);
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_uint_eq(e->pmi_debugctl, 0);
	ck_assert_uint_eq(e->pmi_index, BUF + REC);
	/* Delivered once: a later write brings nothing. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DS_AREA, 0), 0);
	ck_assert_int_eq(e->pmis, 1);
	free(e);
}
END_TEST

/* The DS interrupt when the index reaches the threshold (BTINT=1). */
START_TEST(test_bts_threshold_pmi)
{
	struct env *e = env_new(&bts_model_profile_nhm);
	int i;

	ds_setup(e, 8, BUF + 3 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL,
					 BTS_ON | IA32_DEBUGCTL_BTINT), 0);
	branch(e, BTS_BR_JCC, 1, 2, 3);
	branch(e, BTS_BR_JCC, 3, 4, 3);
	ck_assert_int_eq(e->pmis, 0);
	branch(e, BTS_BR_JCC, 5, 6, 3);		/* the record at the threshold - 24 */
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_uint_eq(e->pmi_index, BUF + 3 * REC);
	branch(e, BTS_BR_JCC, 7, 8, 3);		/* above the threshold: no new PMI */
	ck_assert_int_eq(e->pmis, 1);
	/* A handler that drains (index = base) gets the next one 3 records on. */
	e->pmi_reset_index = true;
	set64(e, DS + DS_BTS_INDEX, BUF);
	for (i = 0; i < 6; i++)
		branch(e, BTS_BR_JCC, 10 + i, 20 + i, 3);
	ck_assert_int_eq(e->pmis, 3);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF);
	ck_assert_uint_eq(e->cpu.stats.bts_pmis, 3);
	ck_assert_uint_eq(e->cpu.stats.bts_lost, 0);
	free(e);
}
END_TEST

/* BTINT=1 at the absolute maximum: the buffer is full, records are lost. */
START_TEST(test_bts_full_stops)
{
	struct env *e = env_new(&bts_model_profile_core2);
	int i;

	ds_setup(e, 4, BUF + 100 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL,
					 BTS_ON | IA32_DEBUGCTL_BTINT), 0);
	for (i = 0; i < 6; i++)
		branch(e, BTS_BR_JMP_IND, 0x100 + i, 0x200 + i, 3);
	for (i = 0; i < 4; i++)
		check_rec(e, i, 0x100 + i, 0x200 + i);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + 4 * REC);
	ck_assert_uint_eq(mem64(e, BUF + 4 * REC), 0);	/* nothing past the maximum */
	ck_assert_uint_eq(e->cpu.stats.bts_lost, 2);
	ck_assert_uint_eq(e->cpu.stats.bts_wraps, 0);
	free(e);
}
END_TEST

/* BTINT=0: circular; the record that does not fit goes to the base. */
START_TEST(test_bts_circular_wrap)
{
	struct env *e = env_new(&bts_model_profile_core2);
	int i;

	ds_setup(e, 4, BUF + 5 * REC);		/* threshold past the maximum */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, BTS_ON), 0);
	for (i = 0; i < 6; i++)
		branch(e, BTS_BR_JMP_IND, 0x100 + i, 0x200 + i, 3);
	check_rec(e, 0, 0x104, 0x204);
	check_rec(e, 1, 0x105, 0x205);
	check_rec(e, 2, 0x102, 0x202);
	check_rec(e, 3, 0x103, 0x203);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + 2 * REC);
	ck_assert_uint_eq(e->cpu.stats.bts_wraps, 1);
	ck_assert_uint_eq(e->cpu.stats.bts_lost, 0);
	ck_assert_int_eq(e->pmis, 0);
	/* An absolute maximum that is not a multiple of 24 wraps just the same. */
	set64(e, DS + DS_BTS_ABSOLUTE_MAXIMUM, BUF + 2 * REC + 5);
	branch(e, BTS_BR_JMP_IND, 0x106, 0x206, 3);
	check_rec(e, 0, 0x106, 0x206);
	ck_assert_uint_eq(e->cpu.stats.bts_wraps, 2);
	free(e);
}
END_TEST

/* 17.4.9.3 note: clearing BTINT alone does not stop the threshold interrupt. */
START_TEST(test_bts_threshold_without_btint)
{
	struct env *e = env_new(&bts_model_profile_core2);
	int i;

	ds_setup(e, 4, BUF + 2 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, BTS_ON), 0);
	for (i = 0; i < 4; i++)
		branch(e, BTS_BR_JMP_REL, i, i + 1, 3);
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_uint_eq(e->pmi_index, BUF + 2 * REC);
	/* Second lap: the index passes the threshold again. */
	for (i = 0; i < 4; i++)
		branch(e, BTS_BR_JMP_REL, i, i + 1, 3);
	ck_assert_int_eq(e->pmis, 2);
	free(e);
}
END_TEST

/* 17.4.9.3 note: a buffer smaller than one record; an unmapped DS area. */
START_TEST(test_bts_bad_buffers)
{
	struct env *e = env_new(&bts_model_profile_core2);

	set64(e, DS + DS_BTS_BUFFER_BASE, BUF);
	set64(e, DS + DS_BTS_INDEX, BUF);
	set64(e, DS + DS_BTS_ABSOLUTE_MAXIMUM, BUF + 10);
	set64(e, DS + DS_BTS_INTERRUPT_THRESHOLD, ~0ull);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DS_AREA, DS), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, BTS_ON), 0);
	branch(e, BTS_BR_JMP_REL, 1, 2, 3);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_BTS_BUFFER_TOO_SMALL);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF);
	/* BTS buffer outside mapped memory: the record is lost, index kept. */
	set64(e, DS + DS_BTS_BUFFER_BASE, 0x900000);
	set64(e, DS + DS_BTS_INDEX, 0x900000);
	set64(e, DS + DS_BTS_ABSOLUTE_MAXIMUM, 0x900000 + 4 * REC);
	branch(e, BTS_BR_JMP_REL, 1, 2, 3);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_DS_ACCESS);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), 0x900000);
	/* The management area itself unmapped. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DS_AREA, 0x800000), 0);
	branch(e, BTS_BR_JMP_REL, 1, 2, 3);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_DS_ACCESS);
	ck_assert_uint_eq(e->cpu.stats.bts_lost, 3);
	ck_assert_uint_eq(e->cpu.stats.bts_records, 0);
	free(e);
}
END_TEST

/* The processor stores at the index as it finds it: no alignment check. */
START_TEST(test_bts_index_as_found)
{
	struct env *e = env_new(&bts_model_profile_core2);

	ds_setup(e, 8, BUF + 100 * REC);
	set64(e, DS + DS_BTS_INDEX, BUF + 5);		/* not a record boundary */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, BTS_ON), 0);
	branch(e, BTS_BR_JMP_REL, 0x1234, 0x5678, 3);
	ck_assert_uint_eq(mem64(e, BUF + 5), 0x1234);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + 5 + REC);
	/* An index beyond the maximum: full; BTINT=0 wraps to the base. */
	set64(e, DS + DS_BTS_INDEX, BUF + 50 * REC);
	branch(e, BTS_BR_JMP_REL, 0x1111, 0x2222, 3);
	check_rec(e, 0, 0x1111, 0x2222);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + REC);
	free(e);
}
END_TEST

/*
 * Random MSR writes and events (fixed seed) never break the invariants:
 * TOS below the depth, IA32_DEBUGCTL within the profile's bits, the BTS
 * index moved by 24 or to base + 24, or not at all.
 */
START_TEST(test_random_ops)
{
	static const uint32_t msrs[] = {
		IA32_DEBUGCTL, IA32_DS_AREA, MSR_LBR_SELECT, MSR_LASTBRANCH_TOS,
		MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM + 7,
		MSR_LER_FROM_LIP, IA32_PERF_GLOBAL_STATUS_RESET, IA32_PERF_GLOBAL_CTRL,
		IA32_MISC_ENABLE, IA32_PERF_CAPABILITIES, MSR_LBR_INFO_0 + 3,
	};
	const struct bts_model_profile *p = bts_model_profile_find((const char *[]){
		"core2", "nhm", "pmv4", "nocpl", "btsoff", "nods", "hsw", "skl", "glm",
		"glp" }[_i]);
	struct env *e = env_new(p);
	uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)_i;
	int n;

	if (p->ds)
		ds_setup(e, 16, BUF + 12 * REC);
	else
		set64(e, DS + DS_BTS_INDEX, BUF);
	e->pmi_reset_index = true;
	for (n = 0; n < 100000; n++) {
		uint64_t before, after, base = BUF, dbg;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if ((x & 7) == 0) {
			uint64_t v = (x >> 8) & 0x7fff;

			if (x & (1ull << 40))
				v |= 1ull << (x >> 58);
			if (x & (1ull << 42))	/* half of them valid for IA32_DEBUGCTL */
				v &= ds_valid_of(p);
			if (msrs[(x >> 24) % (sizeof(msrs) / sizeof(msrs[0]))] == IA32_DS_AREA)
				v = (x & (1ull << 41)) ? DS : v << 32;
			/* Half the resets undo a streamlined freeze, as perf's PMI handler. */
			if (msrs[(x >> 24) % (sizeof(msrs) / sizeof(msrs[0]))] ==
			    IA32_PERF_GLOBAL_STATUS_RESET && (x & (1ull << 43)))
				v |= PERF_GLOBAL_STATUS_LBR_FRZ;
			bts_model_wrmsr(&e->cpu, msrs[(x >> 24) % (sizeof(msrs) /
						       sizeof(msrs[0]))], v);
		} else {
			struct bts_branch br = {
				.kind = (enum bts_branch_kind)((x >> 8) % BTS_BR_NR),
				.from = x >> 20, .to = x >> 24, .cpl = (uint8_t)((x >> 4) & 3),
				.mode = (x & 8) ? X86_MODE_64 : X86_MODE_32,
				.vector = (uint8_t)(x >> 32), .mispredicted = x & 1,
			};

			before = mem64(e, DS + DS_BTS_INDEX);
			e->pmis = 0;
			ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
			after = mem64(e, DS + DS_BTS_INDEX);
			ck_assert(after == before || after == before + REC ||
				  after == base + REC || (e->pmis && after == base));
		}
		ck_assert_uint_lt(e->cpu.tos, p->lbr_depth);
		ck_assert_int_eq(bts_model_rdmsr(&e->cpu, IA32_DEBUGCTL, &dbg), 0);
		ck_assert_uint_eq(dbg & ~ds_valid_of(p), 0);
	}
	/* The walk reached the interesting states. */
	ck_assert_uint_gt(e->cpu.stats.lbr_records, 1000);
	if (p->ds && !p->bts_unavailable) {
		ck_assert_uint_gt(e->cpu.stats.bts_records, 1000);
		ck_assert_uint_gt(e->cpu.stats.bts_wraps + e->cpu.stats.bts_pmis, 10);
	}
	free(e);
}
END_TEST

/* --- LBR ------------------------------------------------------------------ */

/* 17.4.8: TOS advances modulo the depth; the MSRs hold the last N. */
START_TEST(test_lbr_stack_tos)
{
	struct env *e = env_new(&bts_model_profile_core2);	/* 4 entries */
	unsigned int i;

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	for (i = 1; i <= 6; i++)
		branch(e, BTS_BR_JMP_REL, 0x1000 * i, 0x1000 * i + 0x10, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 6 % 4);
	/* Entry TOS is branch 6, TOS-1 branch 5, ... (circular). */
	for (i = 0; i < 4; i++) {
		unsigned int slot = (6 - i) % 4;

		rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_CORE + slot, 0x1000 * (6 - i));
		rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_CORE + slot, 0x1000 * (6 - i) + 0x10);
	}
	/* Only 4 MSRs of each kind exist on this profile. */
	{
		uint64_t v;

		ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_CORE + 4, &v),
				 BTS_MODEL_ENOMSR);
	}
	/* LBR=0: nothing recorded. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, 0), 0);
	branch(e, BTS_BR_JMP_REL, 0x9000, 0x9010, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 2);
	ck_assert_uint_eq(e->cpu.stats.lbr_records, 6);
	free(e);
}
END_TEST

/* 17.4.8.1: format 0 (32-bit), 3 (MISPRED in FROM bit 63), non-64-bit mode. */
START_TEST(test_lbr_formats)
{
	struct env *e = env_new(&bts_model_profile_nhm);
	struct bts_branch br = {
		.kind = BTS_BR_JCC, .from = 0x00007fff12345678ull,
		.to = 0xffffffff81001000ull, .cpl = 3, .mode = X86_MODE_64,
		.mispredicted = true,
	};

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, br.from | LBR_FROM_MISPRED);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 1, br.to);
	br.mispredicted = false;
	br.mode = X86_MODE_32;		/* compatibility mode: upper 32 bits 0 */
	br.from = 0x8048000;
	br.to = 0x8049000;
	ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 2, 0x8048000);
	free(e);

	e = env_new(&bts_model_profile_nocpl);		/* format 0 */
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	br.mode = X86_MODE_64;
	br.from = 0x00007fff12345678ull;
	br.to = 0x0000555500001000ull;
	ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_CORE + 1, 0x12345678);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_CORE + 1, 0x00001000);
	/* Format 0 MSRs hold 32 bits: writing more is #GP. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_TO_IP_CORE, 1ull << 32),
			 BTS_MODEL_EGP);
	free(e);
}
END_TEST

/* A taken JCC in 64-bit mode at CPL 3, mispredicted or not. */
static void branch_mis(struct env *e, uint64_t from, uint64_t to, bool mis)
{
	struct bts_branch br = {
		.kind = BTS_BR_JCC, .from = from, .to = to, .cpl = 3,
		.mode = X86_MODE_64, .mispredicted = mis,
	};

	ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
}

/* Sign-extend @v from bit @b, as perf's intel_pmu_lbr_read_64() reads FROM. */
static uint64_t sext(uint64_t v, unsigned int b)
{
	return (uint64_t)((int64_t)(v << (63 - b)) >> (63 - b));
}

/*
 * Format 4 (perf's LBR_FORMAT_EIP_FLAGS2): FROM bit 63 MISPRED, 62 IN_TX,
 * 61 TSX_ABORT (always 0: the model runs no transaction), 60:0 the address
 * sign-extended from bit 60; TO the full address.
 */
START_TEST(test_lbr_format4_flags)
{
	struct env *e = env_new(&bts_model_profile_hsw);
	uint64_t v;

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch_mis(e, 0xffffffff81001000ull, 0xffffffff81002000ull, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0x9fffffff81001000ull);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 1, 0xffffffff81002000ull);
	branch_mis(e, 0xffffffff81003000ull, 0x00007fff00001000ull, false);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 2, 0x1fffffff81003000ull);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 2, 0x00007fff00001000ull);
	branch_mis(e, 0x00007fff12345678ull, 0x00007fff00002000ull, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 3, LBR_FROM_MISPRED | 0x00007fff12345678ull);
	/* IN_TX and TSX_ABORT are 0; the address comes back sign-extended from 60. */
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, &v), 0);
	ck_assert_uint_eq(v & (LBR_FROM_IN_TX | LBR_FROM_TSX_ABORT), 0);
	ck_assert_uint_eq(sext(v, 60), 0xffffffff81001000ull);
	/* Outside 64-bit mode the address is 32 bits; the flag stays in 63. */
	{
		struct bts_branch br = {
			.kind = BTS_BR_JCC, .from = 0x8048000, .to = 0x8049000,
			.cpl = 3, .mode = X86_MODE_32, .mispredicted = true,
		};

		ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
		rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 4, LBR_FROM_MISPRED | 0x8048000);
	}
	/* No MSR_LBR_INFO_n in format 4. */
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LBR_INFO_0, &v), BTS_MODEL_EGP);
	free(e);
}
END_TEST

/* Format 4 WRMSR: FROM 63:61 free, 60:48 must sign-extend bit 47; TO canonical. */
START_TEST(test_lbr_format4_writes)
{
	struct env *e = env_new(&bts_model_profile_hsw);
	static const uint64_t ok[] = {
		0x1fffffff81001000ull,				/* kernel, no flags */
		0xffffffff81001000ull,				/* kernel, all flags */
		LBR_FROM_IN_TX | LBR_FROM_TSX_ABORT | 0x1234,	/* perf restores as read */
		0x00007fffffffffffull,
	};
	static const uint64_t bad[] = {
		0x1000000000001000ull,		/* bit 60 set, bit 47 clear */
		0x0fff800000000000ull,		/* 59:47 set, bit 60 clear */
		0x0000800000000000ull,		/* bit 47 alone */
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 5, ok[i]),
				 0);
		rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 5, ok[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 5,
						 bad[i]), BTS_MODEL_EGP);
		ck_assert_int_eq(e->last.kind, BTS_VIOL_NON_CANONICAL);
		rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 5, ok[3]);	/* unchanged */
	}
	/* TO has no flags: the value must be canonical. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_TO_IP_NHM + 5,
					 0x1fffffff81001000ull), BTS_MODEL_EGP);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_TO_IP_NHM + 5,
					 0xffffffff81001000ull), 0);
	ck_assert_uint_eq(e->cpu.stats.by_kind[BTS_VIOL_NON_CANONICAL], 4);
	free(e);
}
END_TEST

/*
 * Format 4 without TSX (perf's lbr_from_signext_quirk): FROM bits 62:61
 * read as sign bits, not flags, and WRMSR wants them so: a value with them
 * cleared, as perf's lbr_from_signext_quirk_rd() leaves it, is #GP for a
 * kernel address until lbr_from_signext_quirk_wr() sign-extends it again.
 */
START_TEST(test_lbr_format4_no_tsx)
{
	static struct bts_model_profile notsx;
	struct env *e;
	uint64_t v;

	notsx = bts_model_profile_hsw;
	notsx.tsx = false;
	e = env_new(&notsx);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch_mis(e, 0xffffffff81001000ull, 0xffffffff81002000ull, false);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0x7fffffff81001000ull);
	branch_mis(e, 0xffffffff81003000ull, 0x00007fff00001000ull, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 2, 0xffffffff81003000ull);
	branch_mis(e, 0x00007fff12345678ull, 0x00007fff00002000ull, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 3, LBR_FROM_MISPRED | 0x00007fff12345678ull);
	/* What perf's quirk read makes of a kernel FROM: refused as written. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 5,
					 0x1fffffff81001000ull), BTS_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_NON_CANONICAL);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 5,
					 LBR_FROM_IN_TX | 0x1234), BTS_MODEL_EGP);
	/* Sign-extended again (the quirk's write), with or without MISPRED. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 5,
					 0x7fffffff81001000ull), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 6,
					 0xffffffff81001000ull), 0);
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 5, &v), 0);
	ck_assert_uint_eq(v, 0x7fffffff81001000ull);
	ck_assert_uint_eq(e->cpu.stats.by_kind[BTS_VIOL_NON_CANONICAL], 2);
	free(e);
}
END_TEST

/*
 * Format 6 (perf's LBR_FORMAT_TIME): FROM bit 63 MISPRED, 62:48 sign
 * bits; TO bits 63:48 the cycles since the previous record (0: no cycle
 * clock), 47:0 the address. WRMSR: FROM as format 3; TO's 63:48 free.
 */
START_TEST(test_lbr_format6)
{
	struct env *e = env_new(&bts_model_profile_glm);
	uint64_t v;

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch_mis(e, 0xffffffff81001000ull, 0xffffffff81002000ull, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0xffffffff81001000ull);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 1, 0x0000ffff81002000ull);
	branch_mis(e, 0xffffffff81003000ull, 0x00007fff00001000ull, false);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 2, 0x7fffffff81003000ull);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 2, 0x00007fff00001000ull);
	/* TO with a cycle count written back; FROM must sign-extend bit 47. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_TO_IP_NHM + 3,
					 0x1234ffff81002000ull), 0);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 3, 0x1234ffff81002000ull);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 3,
					 0x1fffffff81001000ull), BTS_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_NON_CANONICAL);
	/* No MSR_LBR_INFO_n in format 6. */
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LBR_INFO_0, &v), BTS_MODEL_EGP);
	free(e);
}
END_TEST

/* Format 7 (perf's LBR_FORMAT_INFO2): as 5, MISPRED in MSR_LBR_INFO_n. */
START_TEST(test_lbr_format7)
{
	struct env *e = env_new(&bts_model_profile_glp);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch_mis(e, 0xffffffff81001000ull, 0xffffffff81002000ull, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0xffffffff81001000ull);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 1, 0xffffffff81002000ull);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 1, LBR_INFO_MISPRED);
	branch_mis(e, 0x00007fff12345678ull, 0x00007fff00002000ull, false);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 2, 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 3,
					 LBR_INFO_MISPRED | LBR_INFO_CYC_CNT_VALID | 7), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 3, 1ull << 40),
			 BTS_MODEL_EGP);
	free(e);
}
END_TEST

/* Format 5: FROM and TO hold the full sign-extended address, no flags. */
START_TEST(test_lbr_format5_addresses)
{
	struct env *e = env_new(&bts_model_profile_skl);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch_mis(e, 0xffffffff81001000ull, 0x00007fff00001000ull, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0xffffffff81001000ull);
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 1, 0x00007fff00001000ull);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 1, LBR_INFO_MISPRED);
	branch_mis(e, 0x00007fff12345678ull, 0xffffffff81002000ull, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 2, 0x00007fff12345678ull);	/* no bit 63 */
	rdmsr_eq(e, MSR_LASTBRANCH_0_TO_IP_NHM + 2, 0xffffffff81002000ull);
	/* Bit 63 of FROM is the sign, not a flag: FROM must be canonical. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM,
					 LBR_FROM_MISPRED | 0x1234), BTS_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_NON_CANONICAL);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM,
					 0xffff800000000000ull), 0);
	free(e);
}
END_TEST

/* MSR_LBR_INFO_n is written with record n: it rotates with the TOS. */
START_TEST(test_lbr_info_rotates_with_tos)
{
	struct env *e = env_new(&bts_model_profile_skl);	/* 32 entries */
	unsigned int i;

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_TOS, 29), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	/* 40 branches: every third mispredicted; the stack wraps. */
	for (i = 1; i <= 40; i++)
		branch_mis(e, 0x1000 * i, 0x1000 * i + 0x10, i % 3 == 0);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, (29 + 40) % 32);
	for (i = 0; i < 32; i++) {
		unsigned int n = 40 - i, slot = (29 + n) % 32;

		rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + slot, 0x1000 * n);
		rdmsr_eq(e, MSR_LBR_INFO_0 + slot, n % 3 == 0 ? LBR_INFO_MISPRED : 0);
	}
	free(e);
}
END_TEST

/*
 * *Choice*: the model has no cycle clock: CYC_CNT (15:0) is 0 and
 * CYC_CNT_VALID (bit 60) clear in every record; IN_TX/TSX_ABORT are 0 (no
 * transactions). No saturation to test.
 */
START_TEST(test_lbr_info_no_cycles)
{
	struct env *e = env_new(&bts_model_profile_skl);
	unsigned int i;

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	for (i = 0; i < 100; i++) {
		uint64_t v;

		branch_mis(e, 0x1000 + i, 0x2000 + i, i & 1);
		ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LBR_INFO_0 + e->cpu.tos, &v), 0);
		ck_assert_uint_eq(v & ~LBR_INFO_MISPRED, 0);
		ck_assert_uint_eq(!!(v & LBR_INFO_MISPRED), i & 1);
	}
	free(e);
}
END_TEST

/*
 * MSR_LBR_INFO_n WRMSR/RDMSR: 63:60 and 15:0 writable, 59:16 reserved
 * (#GP, unchanged); DC0H-DDFH #GP without format 5 (KVM's
 * intel_pmu_is_valid_lbr_msr()), DE0H outside the model.
 */
START_TEST(test_lbr_info_msrs)
{
	static const uint64_t all = LBR_INFO_MISPRED | LBR_INFO_IN_TX | LBR_INFO_TSX_ABORT |
				    LBR_INFO_CYC_CNT_VALID | LBR_INFO_CYC_CNT;
	struct env *e = env_new(&bts_model_profile_skl);
	unsigned int bit;
	uint64_t v;

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 31, all), 0);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 31, all);
	for (bit = 16; bit < 60; bit++) {
		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 31, 1ull << bit),
				 BTS_MODEL_EGP);
		ck_assert_int_eq(e->last.kind, BTS_VIOL_RESERVED_BIT);
	}
	rdmsr_eq(e, MSR_LBR_INFO_0 + 31, all);
	ck_assert_uint_eq(e->cpu.stats.by_kind[BTS_VIOL_RESERVED_BIT], 44);
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LBR_INFO_0 + MSR_LBR_INFO_NR, &v),
			 BTS_MODEL_ENOMSR);
	free(e);

	/* Formats 3 and 4, and pmv4 (32 LBRs, format 2): no LBR_INFO. */
	{
		const struct bts_model_profile *p[] = {
			&bts_model_profile_nhm, &bts_model_profile_hsw, &bts_model_profile_pmv4,
		};
		size_t i;

		for (i = 0; i < 3; i++) {
			e = env_new(p[i]);
			ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LBR_INFO_0, &v),
					 BTS_MODEL_EGP);
			ck_assert_int_eq(e->last.kind, BTS_VIOL_MSR_NOT_ENUMERATED);
			ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 31, 0),
					 BTS_MODEL_EGP);
			ck_assert_uint_eq(e->cpu.stats.by_kind[BTS_VIOL_MSR_NOT_ENUMERATED], 2);
			free(e);
		}
	}
}
END_TEST

/* 17.9 call-stack mode: the RET's pop clears the entry's LBR_INFO too. */
START_TEST(test_lbr_info_callstack)
{
	struct env *e = env_new(&bts_model_profile_skl);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_SELECT, LBR_SELECT_EN_CALLSTACK |
					 LBR_SELECT_JCC | LBR_SELECT_NEAR_REL_JMP |
					 LBR_SELECT_NEAR_IND_JMP | LBR_SELECT_FAR_BRANCH), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	{
		struct bts_branch call = {
			.kind = BTS_BR_CALL_IND, .from = 0x100, .to = 0x1000, .cpl = 3,
			.mode = X86_MODE_64, .mispredicted = true,
		};

		ck_assert_int_eq(bts_model_branch(&e->cpu, &call), 0);
	}
	rdmsr_eq(e, MSR_LBR_INFO_0 + 1, LBR_INFO_MISPRED);
	branch(e, BTS_BR_RET, 0x1010, 0x105, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 0);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 1, 0);
	free(e);
}
END_TEST

/* Frozen (LBR_Frz, perfmon v4) LBRs leave LBR_INFO as it was, as the stack. */
START_TEST(test_lbr_info_freeze)
{
	struct env *e = env_new(&bts_model_profile_skl);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR |
					 IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI), 0);
	branch_mis(e, 0x10, 0x20, true);
	bts_model_pmi(&e->cpu, BTS_PMI_COUNTER);
	rdmsr_eq(e, IA32_PERF_GLOBAL_STATUS, PERF_GLOBAL_STATUS_LBR_FRZ);
	branch_mis(e, 0x30, 0x40, false);		/* frozen: not recorded */
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 1);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 1, LBR_INFO_MISPRED);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 2, 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_PERF_GLOBAL_STATUS_RESET,
					 PERF_GLOBAL_STATUS_LBR_FRZ), 0);
	branch_mis(e, 0x50, 0x60, true);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 2, LBR_INFO_MISPRED);
	free(e);
}
END_TEST

/*
 * LBR_INFO is cleared as the stack: TraceEn 1 -> 0 (33.3.1.2) and RESET;
 * while PT suspends LBRs it reads 0 and writes are dropped.
 */
START_TEST(test_lbr_info_cleared)
{
	struct env *e = env_new(&bts_model_profile_skl);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch_mis(e, 0x10, 0x20, true);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 7, LBR_INFO_CYC_CNT), 0);
	bts_model_set_pt_trace_en(&e->cpu, true);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 1, 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 2, LBR_INFO_MISPRED), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 2, 1ull << 40),
			 BTS_MODEL_EGP);	/* still #GP */
	bts_model_set_pt_trace_en(&e->cpu, false);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 1, 0);		/* the array was reset */
	rdmsr_eq(e, MSR_LBR_INFO_0 + 2, 0);		/* the write was dropped */
	rdmsr_eq(e, MSR_LBR_INFO_0 + 7, 0);
	branch_mis(e, 0x30, 0x40, true);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_INFO_0 + 7, LBR_INFO_CYC_CNT), 0);
	bts_model_reset(&e->cpu);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 2, 0);
	rdmsr_eq(e, MSR_LBR_INFO_0 + 7, 0);
	free(e);
}
END_TEST

/* 17.7.2 Table 17-11: each bit suppresses its branches, and only those. */
START_TEST(test_lbr_select)
{
	static const struct {
		uint64_t bit;
		enum bts_branch_kind kind;
	} m[] = {
		{ LBR_SELECT_JCC, BTS_BR_JCC },
		{ LBR_SELECT_NEAR_REL_CALL, BTS_BR_CALL_REL },
		{ LBR_SELECT_NEAR_IND_CALL, BTS_BR_CALL_IND },
		{ LBR_SELECT_NEAR_RET, BTS_BR_RET },
		{ LBR_SELECT_NEAR_IND_JMP, BTS_BR_JMP_IND },
		{ LBR_SELECT_NEAR_REL_JMP, BTS_BR_JMP_REL },
		{ LBR_SELECT_FAR_BRANCH, BTS_BR_FAR },
		{ LBR_SELECT_FAR_BRANCH, BTS_BR_INTERRUPT },
		{ LBR_SELECT_FAR_BRANCH, BTS_BR_EXCEPTION },
	};
	size_t i;
	int k;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct env *e = env_new(&bts_model_profile_nhm);
		uint64_t n = 0;

		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
		ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_SELECT, m[i].bit), 0);
		for (k = 0; k < BTS_BR_NR; k++) {
			struct bts_branch br = {
				.kind = (enum bts_branch_kind)k, .from = 0x100 + k,
				.to = 0x200 + k, .cpl = 3, .mode = X86_MODE_64,
				.vector = 14,
			};

			ck_assert_int_eq(bts_model_branch(&e->cpu, &br), 0);
			if (m[i].bit == LBR_SELECT_FAR_BRANCH ?
			    (k == BTS_BR_FAR || k == BTS_BR_INTERRUPT || k == BTS_BR_EXCEPTION) :
			    k == (int)m[i].kind)
				continue;
			n++;
			rdmsr_eq(e, MSR_LASTBRANCH_TOS, n);
			rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + n, 0x100 + k);
		}
		ck_assert_uint_eq(e->cpu.stats.lbr_filtered, BTS_BR_NR - n);
		free(e);
	}
}
END_TEST

START_TEST(test_lbr_select_cpl_and_reserved)
{
	struct env *e = env_new(&bts_model_profile_nhm);
	uint64_t v;

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_SELECT, LBR_SELECT_CPL_EQ_0), 0);
	branch(e, BTS_BR_JMP_REL, 0x10, 0x20, 0);	/* ring 0: not captured */
	branch(e, BTS_BR_JMP_REL, 0x30, 0x40, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 1);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0x30);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_SELECT, LBR_SELECT_CPL_NEQ_0), 0);
	branch(e, BTS_BR_JMP_REL, 0x50, 0x60, 1);	/* ring 1, 3: not captured */
	branch(e, BTS_BR_JMP_REL, 0x50, 0x60, 3);
	branch(e, BTS_BR_JMP_REL, 0x70, 0x80, 0);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 2);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 2, 0x70);
	/* 63:9 reserved on Nehalem (EN_CALLSTACK is Haswell's, 17.9). */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_SELECT, LBR_SELECT_EN_CALLSTACK),
			 BTS_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_RESERVED_BIT);
	rdmsr_eq(e, MSR_LBR_SELECT, LBR_SELECT_CPL_NEQ_0);
	free(e);
	/* Core 2 has no MSR_LBR_SELECT. */
	e = env_new(&bts_model_profile_core2);
	ck_assert_int_eq(bts_model_rdmsr(&e->cpu, MSR_LBR_SELECT, &v), BTS_MODEL_EGP);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_SELECT, 0), BTS_MODEL_EGP);
	free(e);
}
END_TEST

/* 17.9: call-stack mode, a RET pops the CALL's record. */
START_TEST(test_lbr_callstack)
{
	struct env *e = env_new(&bts_model_profile_pmv4);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_SELECT, LBR_SELECT_EN_CALLSTACK |
					 LBR_SELECT_JCC | LBR_SELECT_NEAR_REL_JMP |
					 LBR_SELECT_NEAR_IND_JMP | LBR_SELECT_FAR_BRANCH), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch(e, BTS_BR_CALL_REL, 0x100, 0x1000, 3);
	branch(e, BTS_BR_JCC, 0x1004, 0x1010, 3);
	branch(e, BTS_BR_CALL_IND, 0x1020, 0x2000, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 2);
	branch(e, BTS_BR_RET, 0x2010, 0x1022, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 1);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0x100);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 2, 0);
	free(e);
}
END_TEST

/* 17.4.8.3: the LER holds the last branch before an interrupt/exception. */
START_TEST(test_ler)
{
	struct env *e = env_new(&bts_model_profile_nhm);
	struct bts_branch ex = {
		.kind = BTS_BR_EXCEPTION, .from = 0x3000, .to = 0xffffffff81000e00ull,
		.cpl = 3, .mode = X86_MODE_64, .vector = 14,
	};

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch(e, BTS_BR_CALL_REL, 0x1000, 0x2000, 3);
	branch(e, BTS_BR_JMP_IND, 0x2004, 0x3000, 3);
	ck_assert_int_eq(bts_model_branch(&e->cpu, &ex), 0);
	rdmsr_eq(e, MSR_LER_FROM_LIP, 0x2004);
	rdmsr_eq(e, MSR_LER_TO_LIP, 0x3000);
	branch(e, BTS_BR_INTERRUPT, 0xffffffff81000e10ull, 0xffffffff81000f00ull, 0);
	rdmsr_eq(e, MSR_LER_FROM_LIP, 0x3000);
	rdmsr_eq(e, MSR_LER_TO_LIP, 0xffffffff81000e00ull);
	ck_assert_uint_eq(e->cpu.stats.ler_updates, 2);
	/* The LER MSRs are the processor's: WRMSR #GP in the model. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LER_FROM_LIP, 0), BTS_MODEL_EGP);
	ck_assert_int_eq(e->last.kind, BTS_VIOL_READ_ONLY_MSR);
	free(e);
}
END_TEST

/* 17.4.1: #DB is not recorded and clears LBR; BTF single-steps on branches. */
START_TEST(test_db_and_btf)
{
	struct env *e = env_new(&bts_model_profile_core2);
	struct bts_branch db = {
		.kind = BTS_BR_EXCEPTION, .from = 0x2000, .to = 0xffffffff81000100ull,
		.cpl = 3, .mode = X86_MODE_64, .vector = 1,
	};

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch(e, BTS_BR_JMP_REL, 0x1000, 0x2000, 3);
	ck_assert_int_eq(bts_model_branch(&e->cpu, &db), 0);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 1);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_CORE + 1, 0x1000);
	rdmsr_eq(e, IA32_DEBUGCTL, 0);
	rdmsr_eq(e, MSR_LER_FROM_LIP, 0x1000);

	ck_assert(!bts_model_single_step_trap(&e->cpu, false, true));
	ck_assert(bts_model_single_step_trap(&e->cpu, true, false));
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_BTF), 0);
	ck_assert(!bts_model_single_step_trap(&e->cpu, true, false));
	ck_assert(bts_model_single_step_trap(&e->cpu, true, true));
	free(e);
}
END_TEST

/* TOS and LBR FROM/TO writes; TOS beyond the stack is #GP. */
START_TEST(test_lbr_msr_writes)
{
	struct env *e = env_new(&bts_model_profile_nhm);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_TOS, 15), 0);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 15);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_TOS, 16), BTS_MODEL_EGP);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	branch(e, BTS_BR_JMP_REL, 0x10, 0x20, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 0);
	/* Format 3 FROM: bit 63 is MISPRED, 62:47 must agree. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 3,
					 LBR_FROM_MISPRED | 0x1234), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 3,
					 0x7fff800000000000ull), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_FROM_IP_NHM + 3,
					 0x0000800000000000ull), BTS_MODEL_EGP);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_0_TO_IP_NHM + 3,
					 0x0000800000000000ull), BTS_MODEL_EGP);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 3, 0x7fff800000000000ull);
	free(e);
}
END_TEST

/* 17.4.7 legacy (perfmon v2-3): the PMI clears DEBUGCTL.LBR and GLOBAL_CTRL. */
START_TEST(test_freeze_legacy)
{
	struct env *e = env_new(&bts_model_profile_nhm);

	ds_setup(e, 8, BUF + 1 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_PERF_GLOBAL_CTRL, 0x70000000full), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, BTS_ON | IA32_DEBUGCTL_BTINT |
					 IA32_DEBUGCTL_LBR |
					 IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI |
					 IA32_DEBUGCTL_FREEZE_PERFMON_ON_PMI), 0);
	branch(e, BTS_BR_JMP_REL, 0x10, 0x20, 3);	/* reaches the threshold */
	ck_assert_int_eq(e->pmis, 1);
	ck_assert_uint_eq(e->pmi_debugctl & IA32_DEBUGCTL_LBR, 0);	/* frozen first */
	rdmsr_eq(e, IA32_PERF_GLOBAL_CTRL, 0);
	rdmsr_eq(e, IA32_PERF_GLOBAL_STATUS, 0);
	branch(e, BTS_BR_JMP_REL, 0x30, 0x40, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 1);		/* the LBR kept the first only */
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0x10);
	ck_assert_uint_eq(e->cpu.stats.bts_records, 2);	/* BTS is not frozen */
	/* An external PMI without the freeze bits changes nothing. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	bts_model_pmi(&e->cpu, BTS_PMI_COUNTER);
	rdmsr_eq(e, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR);
	free(e);
}
END_TEST

/* Erratum AJ106 (core2): a PEBS PMI does not freeze the LBRs; a counter's does. */
START_TEST(test_freeze_erratum_aj106)
{
	static const uint64_t on = IA32_DEBUGCTL_LBR | IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI;
	struct env *e = env_new(&bts_model_profile_core2);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, on), 0);
	bts_model_pmi(&e->cpu, BTS_PMI_PEBS);
	rdmsr_eq(e, IA32_DEBUGCTL, on);
	bts_model_pmi(&e->cpu, BTS_PMI_NR);		/* unknown source: nothing */
	rdmsr_eq(e, IA32_DEBUGCTL, on);
	bts_model_pmi(&e->cpu, BTS_PMI_COUNTER);
	rdmsr_eq(e, IA32_DEBUGCTL, IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI);
	free(e);
	/* Without the erratum a PEBS PMI freezes as any other. */
	e = env_new(&bts_model_profile_nhm);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, on), 0);
	bts_model_pmi(&e->cpu, BTS_PMI_PEBS);
	rdmsr_eq(e, IA32_DEBUGCTL, IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI);
	free(e);
}
END_TEST

/* 17.4.7/17.10.2 streamlined (perfmon v4): LBR_Frz and CTR_Frz, LBR bit kept. */
START_TEST(test_freeze_streamlined)
{
	struct env *e = env_new(&bts_model_profile_pmv4);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_PERF_GLOBAL_CTRL, 0xf), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR |
					 IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI |
					 IA32_DEBUGCTL_FREEZE_PERFMON_ON_PMI), 0);
	branch(e, BTS_BR_JMP_REL, 0x10, 0x20, 3);
	bts_model_pmi(&e->cpu, BTS_PMI_COUNTER);		/* a counter overflowed */
	rdmsr_eq(e, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR | IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI |
		 IA32_DEBUGCTL_FREEZE_PERFMON_ON_PMI);
	rdmsr_eq(e, IA32_PERF_GLOBAL_STATUS, PERF_GLOBAL_STATUS_LBR_FRZ |
		 PERF_GLOBAL_STATUS_CTR_FRZ);
	rdmsr_eq(e, IA32_PERF_GLOBAL_CTRL, 0xf);
	branch(e, BTS_BR_JMP_REL, 0x30, 0x40, 3);	/* frozen: not recorded */
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 1);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_PERF_GLOBAL_STATUS, 0), BTS_MODEL_EGP);
	/* Writing 1 to bit 58 of IA32_PERF_GLOBAL_STATUS_RESET unfreezes. */
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_PERF_GLOBAL_STATUS_RESET,
					 PERF_GLOBAL_STATUS_LBR_FRZ), 0);
	rdmsr_eq(e, IA32_PERF_GLOBAL_STATUS, PERF_GLOBAL_STATUS_CTR_FRZ);
	branch(e, BTS_BR_JMP_REL, 0x50, 0x60, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 2);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 2, 0x50);
	free(e);
}
END_TEST

/* 33.3.1.2: TraceEn=1 suspends LBR/BTS/LER; reads 0; clearing resets LBRs. */
START_TEST(test_pt_exclusive)
{
	struct env *e = env_new(&bts_model_profile_pmv4);

	ds_setup(e, 8, BUF + 100 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR | BTS_ON), 0);
	branch(e, BTS_BR_JMP_REL, 0x10, 0x20, 3);
	bts_model_set_pt_trace_en(&e->cpu, true);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LASTBRANCH_TOS, 5), 0);	/* dropped */
	branch(e, BTS_BR_JMP_REL, 0x30, 0x40, 3);
	rdmsr_eq(e, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR | BTS_ON);	/* unchanged */
	ck_assert_uint_eq(e->cpu.stats.bts_records, 1);
	bts_model_set_pt_trace_en(&e->cpu, false);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 1);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0);	/* the array was reset */
	free(e);
	/* Other profiles: no effect. */
	e = env_new(&bts_model_profile_nhm);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR), 0);
	bts_model_set_pt_trace_en(&e->cpu, true);
	branch(e, BTS_BR_JMP_REL, 0x10, 0x20, 3);
	rdmsr_eq(e, MSR_LASTBRANCH_0_FROM_IP_NHM + 1, 0x10);
	free(e);
}
END_TEST

/* 17.4.9: RESET and INIT clear the recording state. */
START_TEST(test_reset)
{
	struct env *e = env_new(&bts_model_profile_nhm);

	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, IA32_DEBUGCTL_LBR | BTS_ON), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DS_AREA, DS), 0);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, MSR_LBR_SELECT, 3), 0);
	branch(e, BTS_BR_JMP_REL, 0x10, 0x20, 0);
	bts_model_reset(&e->cpu);
	rdmsr_eq(e, IA32_DEBUGCTL, 0);
	rdmsr_eq(e, IA32_DS_AREA, 0);
	rdmsr_eq(e, MSR_LBR_SELECT, 0);
	rdmsr_eq(e, MSR_LASTBRANCH_TOS, 0);
	ck_assert_uint_eq(e->cpu.stats.branches, 1);
	free(e);
}
END_TEST

/* --- The retired-instruction adapter (bts_step.h) --------------------------- */

static struct bts_step mkstep(uint64_t ip, const uint8_t *b, uint8_t n, uint64_t next)
{
	struct bts_step s = { .ip = ip, .insn_size = n, .cpl = 3, .mode = X86_MODE_64,
			      .next_ip = next };

	memcpy(s.insn, b, n);
	return s;
}

START_TEST(test_step_adapter)
{
	static const uint8_t jz[] = { 0x74, 0x10 }, call[] = { 0xe8, 0, 1, 0, 0 };
	static const uint8_t syscall[] = { 0x0f, 0x05 }, nop[] = { 0x90 };
	static const uint8_t ret[] = { 0xc3 }, ud2[] = { 0x0f, 0x0b };
	const struct bts_step_config cfg = {
		.syscall_entry = 0xffffffff81a00000ull, .sysret_ip = 0xffffffff81a00100ull,
		.idt_entry = 0xffffffff81b00000ull, .iret_ip = 0xffffffff81b00100ull,
	};
	struct env *e = env_new(&bts_model_profile_nhm);
	struct bts_step s;

	ds_setup(e, 32, BUF + 100 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL,
					 BTS_ON | IA32_DEBUGCTL_BTS_OFF_OS), 0);
	s = mkstep(0x1000, jz, 2, 0x1002);			/* not taken */
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 0);
	s = mkstep(0x1002, jz, 2, 0x1014);			/* taken */
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 1);
	s = mkstep(0x1014, call, 5, 0x1119);
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 1);
	s = mkstep(0x1119, syscall, 2, 0x111b);		/* into the kernel and back */
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 2);
	s = mkstep(0x111b, nop, 1, 0x111c);
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 0);
	s = mkstep(0x111c, nop, 1, 0x5000);			/* a signal handler */
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 2);
	s = mkstep(0x5000, ret, 1, 0x1019);
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 1);
	s = mkstep(0x1019, ud2, 2, 0x6000);			/* #UD, SIGILL handler */
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 2);
	check_rec(e, 0, 0x1002, 0x1014);
	check_rec(e, 1, 0x1014, 0x1119);
	check_rec(e, 2, 0x1119, cfg.syscall_entry);	/* CPL 3: kept, kernel TO */
	check_rec(e, 3, 0x111d, cfg.idt_entry);		/* interrupt: FROM = next IP */
	check_rec(e, 4, 0x5000, 0x1019);
	check_rec(e, 5, 0x1019, cfg.idt_entry);
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + 6 * REC);
	ck_assert_uint_eq(e->cpu.stats.bts_cpl_skipped, 3);	/* the three returns */
	s.insn_size = 0;
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), -EINVAL);
	free(e);
}
END_TEST

/*
 * A system call given at its entry alone (its own IP as next), then its
 * return with bts_step_resume(): to the next instruction from SYSRET's IP,
 * elsewhere (a signal handler) from IRET's; user and kernel branches.
 */
START_TEST(test_step_resume)
{
	static const uint8_t syscall[] = { 0x0f, 0x05 };
	const struct bts_step_config cfg = {
		.syscall_entry = 0xffffffff81a00000ull, .sysret_ip = 0xffffffff81a00100ull,
		.idt_entry = 0xffffffff81b00000ull, .iret_ip = 0xffffffff81b00100ull,
	};
	struct env *e = env_new(&bts_model_profile_nhm);
	struct bts_step s;

	ds_setup(e, 32, BUF + 100 * REC);
	ck_assert_int_eq(bts_model_wrmsr(&e->cpu, IA32_DEBUGCTL, BTS_ON), 0);
	s = mkstep(0x1000, syscall, 2, 0x1000);		/* the entry alone */
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 1);
	ck_assert_int_eq(bts_step_resume(&e->cpu, &cfg, 0x1002, true), 1);
	s = mkstep(0x1002, syscall, 2, 0x1002);
	ck_assert_int_eq(bts_step(&e->cpu, &cfg, &s), 1);
	ck_assert_int_eq(bts_step_resume(&e->cpu, &cfg, 0x5000, false), 1);
	check_rec(e, 0, 0x1000, cfg.syscall_entry);
	check_rec(e, 1, cfg.sysret_ip, 0x1002);
	check_rec(e, 2, 0x1002, cfg.syscall_entry);
	check_rec(e, 3, cfg.iret_ip, 0x5000);		/* to the handler, by IRET */
	ck_assert_uint_eq(mem64(e, DS + DS_BTS_INDEX), BUF + 4 * REC);
	ck_assert_int_eq(bts_step_resume(NULL, &cfg, 0x5000, false), -EINVAL);
	ck_assert_int_eq(bts_step_resume(&e->cpu, NULL, 0x5000, false), -EINVAL);
	free(e);
}
END_TEST

START_TEST(test_args)
{
	struct bts_model_cpu cpu;
	struct bts_model_profile bad = bts_model_profile_nhm;
	struct bts_branch br = { .kind = BTS_BR_NR, .mode = X86_MODE_64 };
	uint64_t v;
	uint32_t r[4];

	ck_assert_int_eq(bts_model_cpu_init(NULL, &bts_model_profile_nhm, &ops, NULL, 0),
			 BTS_MODEL_EINVAL);
	ck_assert_int_eq(bts_model_cpu_init(&cpu, NULL, &ops, NULL, 0), BTS_MODEL_EINVAL);
	bad.lbr_depth = 12;
	ck_assert_int_eq(bts_model_cpu_init(&cpu, &bad, &ops, NULL, 0), BTS_MODEL_EINVAL);
	bad.lbr_depth = 64;
	ck_assert_int_eq(bts_model_cpu_init(&cpu, &bad, &ops, NULL, 0), BTS_MODEL_EINVAL);
	ck_assert_int_eq(bts_model_cpu_init(&cpu, &bts_model_profile_nhm, &ops, NULL, 0), 0);
	ck_assert_int_eq(bts_model_rdmsr(&cpu, IA32_DEBUGCTL, NULL), BTS_MODEL_EINVAL);
	ck_assert_int_eq(bts_model_rdmsr(NULL, IA32_DEBUGCTL, &v), BTS_MODEL_EINVAL);
	ck_assert_int_eq(bts_model_wrmsr(NULL, IA32_DEBUGCTL, 0), BTS_MODEL_EINVAL);
	ck_assert_int_eq(bts_model_branch(&cpu, &br), BTS_MODEL_EINVAL);
	br.kind = BTS_BR_JCC;
	br.cpl = 4;
	ck_assert_int_eq(bts_model_branch(&cpu, &br), BTS_MODEL_EINVAL);
	ck_assert_int_eq(bts_model_branch(&cpu, NULL), BTS_MODEL_EINVAL);
	ck_assert_int_eq(bts_model_cpuid(&cpu, 1, NULL), BTS_MODEL_EINVAL);
	ck_assert_int_eq(bts_model_cpuid(&cpu, 7, r), 0);
	ck_assert_uint_eq(r[0] | r[1] | r[2] | r[3], 0);
	ck_assert_uint_eq(cpu.stats.branches, 0);
	ck_assert_str_eq(bts_model_violation_str(BTS_VIOL_DS_ACCESS),
			 "DS save area or BTS buffer not mapped");
	ck_assert_str_eq(bts_model_violation_str(BTS_VIOL_NR), "unknown");
	ck_assert_ptr_null(bts_model_get_stats(NULL));
}
END_TEST

static Suite *bts_model_suite(void)
{
	Suite *s = suite_create("bts_model");
	TCase *tc = tcase_create("sdm17_4");

	tcase_add_test(tc, test_profiles_cpuid);
	tcase_add_test(tc, test_debugctl_reserved_bits);
	tcase_add_test(tc, test_other_msrs);
	tcase_add_test(tc, test_bts_records);
	tcase_add_test(tc, test_bts_needs_tr_and_bts);
	tcase_add_test(tc, test_bts_cpl_filter);
	tcase_add_test(tc, test_bts_threshold_pmi);
	tcase_add_test(tc, test_bts_threshold_skid);
	tcase_add_test(tc, test_bts_skid_past_maximum);
	tcase_add_test(tc, test_bts_late_pmi);
	tcase_add_test(tc, test_bts_full_stops);
	tcase_add_test(tc, test_bts_circular_wrap);
	tcase_add_test(tc, test_bts_threshold_without_btint);
	tcase_add_test(tc, test_bts_bad_buffers);
	tcase_add_test(tc, test_bts_index_as_found);
	tcase_add_loop_test(tc, test_random_ops, 0, 10);
	tcase_add_test(tc, test_lbr_stack_tos);
	tcase_add_test(tc, test_lbr_formats);
	tcase_add_test(tc, test_lbr_format4_flags);
	tcase_add_test(tc, test_lbr_format4_writes);
	tcase_add_test(tc, test_lbr_format4_no_tsx);
	tcase_add_test(tc, test_lbr_format6);
	tcase_add_test(tc, test_lbr_format7);
	tcase_add_test(tc, test_lbr_format5_addresses);
	tcase_add_test(tc, test_lbr_info_rotates_with_tos);
	tcase_add_test(tc, test_lbr_info_no_cycles);
	tcase_add_test(tc, test_lbr_info_msrs);
	tcase_add_test(tc, test_lbr_info_callstack);
	tcase_add_test(tc, test_lbr_info_freeze);
	tcase_add_test(tc, test_lbr_info_cleared);
	tcase_add_test(tc, test_lbr_select);
	tcase_add_test(tc, test_lbr_select_cpl_and_reserved);
	tcase_add_test(tc, test_lbr_callstack);
	tcase_add_test(tc, test_ler);
	tcase_add_test(tc, test_db_and_btf);
	tcase_add_test(tc, test_lbr_msr_writes);
	tcase_add_test(tc, test_freeze_legacy);
	tcase_add_test(tc, test_freeze_erratum_aj106);
	tcase_add_test(tc, test_freeze_streamlined);
	tcase_add_test(tc, test_pt_exclusive);
	tcase_add_test(tc, test_reset);
	tcase_add_test(tc, test_step_adapter);
	tcase_add_test(tc, test_step_resume);
	tcase_add_test(tc, test_args);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(bts_model_suite(), CK_NORMAL);
}
