// SPDX-License-Identifier: GPL-2.0
/*
 * The LBR MSRs of the processor (SDM Vol. 3B 17.4.8, Table 17-4; Vol. 4
 * for the addresses of each family) and the loading and unloading of a
 * thread's stack on a CPU (Documentation/bts.rst, "LBR snapshots").
 *
 * The stack depth and the MSR addresses are model-specific: the table
 * below keys on DisplayFamily_DisplayModel as perf's intel_pmu_init()
 * does when it picks intel_pmu_lbr_init_core/_atom/_slm/_nhm/_snb/_hsw/
 * _skl/_knl() (arch/x86/events/intel/core.c and lbr.c of Linux 6.1). The
 * record format is IA32_PERF_CAPABILITIES[5:0] where CPUID.1:ECX.PDCM is
 * set, else 0, as perf's intel_pmu_init(). The formats 0-7 are handled:
 * 0-3 of 17.4.8.1; 4 (MISPRED, IN_TX and TSX_ABORT in FROM bits 63:61),
 * 5 (the flags and a cycle count in MSR_LBR_INFO_n), 6 (MISPRED in FROM,
 * the cycles in TO bits 63:48) and 7 (5 without TSX flags) as perf's
 * intel_pmu_lbr_init() and intel_pmu_lbr_read_64() read them
 * (Documentation/bts.rst, "LBR formats 4 to 7"), with perf's
 * lbr_from_signext_quirk on format-4 parts without TSX and its Knights
 * Landing rule (format 1 reported, MISPRED in FROM bit 63: read as 3).
 * Architectural LBRs refuse LBR snapshots for now.
 *
 * Saving and restoring the whole stack at each switch is what perf does
 * for an LBR call-stack user (intel_pmu_lbr_save()/_restore()): the
 * stack a thread finds is its own, whatever ran between.
 */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/string.h>

#include <lwpt/bts_arch.h>
#include <lwpt/lbr_arch.h>

#include "../lwpt.h"
#include "../x86_cpuid.h"
#include "lbr_int.h"

/* CPUID.1:ECX[15] PDCM: IA32_PERF_CAPABILITIES exists. */
#define LBR_CPUID1_ECX_PDCM		BIT(15)
/* CPUID.(07H,0):EDX[19]: architectural LBRs (perf's X86_FEATURE_ARCH_LBR). */
#define LBR_CPUID7_EDX_ARCH_LBR		BIT(19)
/* Format 4's FROM: bits 60:59 are sign bits whatever the flags are. */
#define LBR_FROM_SIGNEXT_2MSB		(BIT_ULL(60) | BIT_ULL(59))

/**
 * struct lbr_model - the LBR MSRs of some family-6 models
 * @models: DisplayModel values, 0-terminated
 * @depth: stack entries
 * @from_msr: MSR_LASTBRANCH_0_FROM_IP
 * @to_msr: MSR_LASTBRANCH_0_TO_IP
 * @select: MSR_LBR_SELECT exists (perf sets lbr_sel_mask)
 * @knl: Knights Landing/Mill: format 1 is read as 3 (perf's
 *	intel_pmu_lbr_init_knl())
 */
struct lbr_model {
	u8 models[16];
	u8 depth;
	u16 from_msr;
	u16 to_msr;
	bool select;
	bool knl;
};

static const struct lbr_model lbr_models[] = {
	/* intel_pmu_lbr_init_core(): Core 2 (Merom, Penryn, Dunnington). */
	{ { 0x0f, 0x16, 0x17, 0x1d }, 4,
	  MSR_LASTBRANCH_0_FROM_IP_CORE, MSR_LASTBRANCH_0_TO_IP_CORE, false },
	/* intel_pmu_lbr_init_atom(): Bonnell, Saltwell. */
	{ { 0x1c, 0x26, 0x36, 0x27, 0x35 }, 8,
	  MSR_LASTBRANCH_0_FROM_IP_CORE, MSR_LASTBRANCH_0_TO_IP_CORE, false },
	/* intel_pmu_lbr_init_slm(): Silvermont, Airmont. */
	{ { 0x37, 0x4d, 0x4a, 0x4c, 0x5a }, 8,
	  MSR_LASTBRANCH_0_FROM_IP_CORE, MSR_LASTBRANCH_0_TO_IP_CORE, true },
	/* intel_pmu_lbr_init_nhm(): Nehalem, Westmere. */
	{ { 0x1e, 0x1a, 0x2e, 0x25, 0x2c, 0x2f }, 16,
	  MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM, true },
	/* intel_pmu_lbr_init_snb(): Sandy Bridge, Ivy Bridge. */
	{ { 0x2a, 0x2d, 0x3a, 0x3e }, 16,
	  MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM, true },
	/* intel_pmu_lbr_init_hsw(): Haswell, Broadwell. */
	{ { 0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x56, 0x47, 0x4f }, 16,
	  MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM, true },
	/* intel_pmu_lbr_init_knl(): Knights Landing and Mill. */
	{ { 0x57, 0x85 }, 8,
	  MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM, true, true },
	/*
	 * intel_pmu_lbr_init_skl(): Skylake to Rocket Lake, Goldmont (Plus),
	 * Tremont (formats 5-7).
	 */
	{ { 0x55, 0x4e, 0x5e, 0x8e, 0x9e, 0xa6, 0xa5, 0x6a, 0x6c, 0x7e,
	    0x7d, 0x8c, 0x8d, 0xa7 }, 32,
	  MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM, true },
	{ { 0x5c, 0x5f, 0x7a, 0x86, 0x96, 0x9c }, 32,
	  MSR_LASTBRANCH_0_FROM_IP_NHM, MSR_LASTBRANCH_0_TO_IP_NHM, true },
};

static struct lbr_caps lbr_caps;

/**
 * struct lbr_cpu - what a load replaced on one CPU
 * @loaded: the state loaded here, or NULL
 * @saved_debugctl: IA32_DEBUGCTL before the load
 * @saved_select: MSR_LBR_SELECT before the load (if it exists)
 */
struct lbr_cpu {
	struct lbr_state *loaded;
	u64 saved_debugctl;
	u64 saved_select;
};

static DEFINE_PER_CPU(struct lbr_cpu, lbr_cpus);

const struct lbr_caps *lbr_msr_caps(void)
{
	return &lbr_caps;
}

static const struct lbr_model *lbr_model_find(unsigned int model)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(lbr_models); i++)
		for (j = 0; j < ARRAY_SIZE(lbr_models[i].models) &&
		     lbr_models[i].models[j]; j++)
			if (lbr_models[i].models[j] == model)
				return &lbr_models[i];
	return NULL;
}

void lbr_msr_detect(const struct lwpt_caps *caps)
{
	struct lbr_caps *c = &lbr_caps;
	struct lwpt_cpuid_regs r = { };
	const struct lbr_model *m;
	u32 sig = caps->bts_leaf1.eax;
	unsigned int family, model, version = 0;
	bool tsx = false;
	u64 cap = 0;

	memset(c, 0, sizeof(*c));
	/* SDM Vol. 2A CPUID, Figure 3-6: DisplayFamily and DisplayModel. */
	family = (sig >> 8) & 0xf;
	model = (sig >> 4) & 0xf;
	if (family == 0xf)
		family += (sig >> 20) & 0xff;
	if (family == 0x6 || family == 0xf)
		model |= ((sig >> 16) & 0xf) << 4;
	if (family != 6) {
		snprintf(c->why, sizeof(c->why), "family %#x: no LBR table", family);
		return;
	}
	if (caps->max_leaf >= 7) {
		lwpt_hw_cpuid(7, 0, &r);
		if (r.edx & LBR_CPUID7_EDX_ARCH_LBR) {
			snprintf(c->why, sizeof(c->why), "architectural LBRs not handled");
			return;
		}
		tsx = r.ebx & (X86_CPUID_7_EBX_HLE | X86_CPUID_7_EBX_RTM);
	}
	m = lbr_model_find(model);
	if (!m) {
		snprintf(c->why, sizeof(c->why), "06_%02XH: LBR MSRs unknown", model);
		return;
	}
	if (caps->max_leaf >= 0xa) {
		lwpt_hw_cpuid(0xa, 0, &r);
		version = r.eax & 0xff;
	}
	if ((caps->bts_leaf1.ecx & LBR_CPUID1_ECX_PDCM) &&
	    lwpt_hw_rdmsr(IA32_PERF_CAPABILITIES, &cap)) {
		snprintf(c->why, sizeof(c->why), "IA32_PERF_CAPABILITIES unreadable");
		return;
	}
	c->format = cap & PERF_CAP_LBR_FMT_MASK;
	/* intel_pmu_lbr_init_knl(): "Knights Landing does have MISPREDICT bit". */
	if (m->knl && c->format == LBR_FMT_LIP)
		c->format = LBR_FMT_EIP_FLAGS;
	if (c->format > LBR_FMT_INFO2) {
		snprintf(c->why, sizeof(c->why), "LBR format %u not handled", c->format);
		return;
	}
	c->depth = m->depth;
	c->from_msr = m->from_msr;
	c->to_msr = m->to_msr;
	c->select = m->select;
	c->info = c->format == LBR_FMT_INFO || c->format == LBR_FMT_INFO2;
	c->from_quirk = c->format == LBR_FMT_EIP_FLAGS2 && !tsx;
	/* 17.4.7, Vol. 4 Table 2-2: FREEZE_LBRS_ON_PMI with PDCM, version > 1. */
	c->freeze = (caps->bts_leaf1.ecx & LBR_CPUID1_ECX_PDCM) && version >= 2;
	c->streamlined = version >= 4;
	c->present = true;
}

/*
 * A FROM value as WRMSR takes it: with the quirk, bits 62:61 (read as 0)
 * sign-extend again (perf's lbr_from_signext_quirk_wr()).
 */
static u64 lbr_msr_from_wr(u64 v)
{
	if (lbr_caps.from_quirk)
		v |= (v & LBR_FROM_SIGNEXT_2MSB) << 2;
	return v;
}

/* Write the stack's MSRs: @st's saved stack, or zeros. */
static void lbr_msr_write_stack(const struct lbr_state *st)
{
	const struct lbr_caps *c = &lbr_caps;
	unsigned int i;

	for (i = 0; i < c->depth; i++) {
		lwpt_hw_wrmsr(c->from_msr + i,
			      st->saved ? lbr_msr_from_wr(st->from[i]) : 0);
		lwpt_hw_wrmsr(c->to_msr + i, st->saved ? st->to[i] : 0);
		if (c->info)
			lwpt_hw_wrmsr(MSR_LBR_INFO_0 + i, st->saved ? st->info[i] : 0);
	}
	lwpt_hw_wrmsr(MSR_LASTBRANCH_TOS, st->saved ? st->tos : 0);
}

/* Read the stack's MSRs into @st (recording off). */
static void lbr_msr_read_stack(struct lbr_state *st)
{
	const struct lbr_caps *c = &lbr_caps;
	unsigned int i;
	u64 v;

	raw_spin_lock(&st->lock);
	for (i = 0; i < c->depth; i++) {
		st->from[i] = lwpt_hw_rdmsr(c->from_msr + i, &v) ? 0 : v;
		/* The quirk: the TSX flags read as 0 (lbr_from_signext_quirk_rd()). */
		if (c->from_quirk)
			st->from[i] &= ~(LBR_FROM_IN_TX | LBR_FROM_TSX_ABORT);
		st->to[i] = lwpt_hw_rdmsr(c->to_msr + i, &v) ? 0 : v;
		st->info[i] = c->info && !lwpt_hw_rdmsr(MSR_LBR_INFO_0 + i, &v) ? v : 0;
	}
	st->tos = lwpt_hw_rdmsr(MSR_LASTBRANCH_TOS, &v) ? 0 : v & (c->depth - 1);
	st->saved = true;
	raw_spin_unlock(&st->lock);
}

/*
 * Was the stack frozen by a PMI (17.4.7)? Legacy: DEBUGCTL.LBR was
 * cleared by the processor; streamlined: LBR_Frz is set, then cleared
 * here through IA32_PERF_GLOBAL_STATUS_RESET (17.10.2), as perf's PMI
 * handler acks it.
 */
static bool lbr_msr_frozen(const struct lbr_state *st, u64 dbg)
{
	u64 status;

	if (!(st->debugctl & IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI))
		return false;
	if (!lbr_caps.streamlined)
		return !(dbg & IA32_DEBUGCTL_LBR);
	if (lwpt_hw_rdmsr(IA32_PERF_GLOBAL_STATUS, &status) ||
	    !(status & PERF_GLOBAL_STATUS_LBR_FRZ))
		return false;
	lwpt_hw_wrmsr(IA32_PERF_GLOBAL_STATUS_RESET, PERF_GLOBAL_STATUS_LBR_FRZ);
	return true;
}

void lbr_msr_load(struct lbr_state *st)
{
	struct lbr_cpu *c = this_cpu_ptr(&lbr_cpus);
	u64 status;

	lockdep_assert_irqs_disabled();
	if (WARN_ON_ONCE(c->loaded) || st->ended)
		return;
	if (lwpt_hw_rdmsr(IA32_DEBUGCTL, &c->saved_debugctl))
		return;
	/* Recording off while the stack is written (17.4.8: LBR=0). */
	if (c->saved_debugctl & IA32_DEBUGCTL_LBR)
		lwpt_hw_wrmsr(IA32_DEBUGCTL, c->saved_debugctl & ~IA32_DEBUGCTL_LBR);
	if (lbr_caps.select) {
		if (lwpt_hw_rdmsr(MSR_LBR_SELECT, &c->saved_select))
			c->saved_select = 0;
		lwpt_hw_wrmsr(MSR_LBR_SELECT, st->select);
	}
	raw_spin_lock(&st->lock);
	lbr_msr_write_stack(st);
	raw_spin_unlock(&st->lock);
	/* A streamlined freeze left set would keep the stack frozen. */
	if (lbr_caps.streamlined &&
	    (st->debugctl & IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI) &&
	    !lwpt_hw_rdmsr(IA32_PERF_GLOBAL_STATUS, &status) &&
	    (status & PERF_GLOBAL_STATUS_LBR_FRZ))
		lwpt_hw_wrmsr(IA32_PERF_GLOBAL_STATUS_RESET, PERF_GLOBAL_STATUS_LBR_FRZ);
	if (lwpt_hw_wrmsr(IA32_DEBUGCTL, c->saved_debugctl | st->debugctl)) {
		if (lbr_caps.select)
			lwpt_hw_wrmsr(MSR_LBR_SELECT, c->saved_select);
		lwpt_hw_wrmsr(IA32_DEBUGCTL, c->saved_debugctl);
		return;
	}
	c->loaded = st;
	WRITE_ONCE(st->loaded_cpu, smp_processor_id());
}

/* Recording off; note a freeze. Return: IA32_DEBUGCTL as found, or 0. */
static u64 lbr_msr_stop(struct lbr_state *st)
{
	u64 dbg;

	if (lwpt_hw_rdmsr(IA32_DEBUGCTL, &dbg))
		return 0;
	lwpt_hw_wrmsr(IA32_DEBUGCTL, dbg & ~IA32_DEBUGCTL_LBR);
	if (lbr_msr_frozen(st, dbg)) {
		raw_spin_lock(&st->lock);
		st->frozen = true;
		raw_spin_unlock(&st->lock);
	}
	return dbg;
}

/*
 * If @st is loaded on this CPU: stop recording, copy the stack into @st and
 * return true with IA32_DEBUGCTL as it was in *@dbg; else false.
 */
static bool lbr_msr_stop_read(struct lbr_state *st, u64 *dbg)
{
	lockdep_assert_irqs_disabled();
	if (this_cpu_ptr(&lbr_cpus)->loaded != st)
		return false;
	*dbg = lbr_msr_stop(st);
	lbr_msr_read_stack(st);
	return true;
}

void lbr_msr_unload(struct lbr_state *st)
{
	struct lbr_cpu *c = this_cpu_ptr(&lbr_cpus);
	u64 dbg;

	if (!lbr_msr_stop_read(st, &dbg))
		return;
	if (lbr_caps.select)
		lwpt_hw_wrmsr(MSR_LBR_SELECT, c->saved_select);
	/* Our bits back to what they were; any other bit keeps its value. */
	lwpt_hw_wrmsr(IA32_DEBUGCTL, (dbg & ~st->debugctl) |
		      (c->saved_debugctl & st->debugctl));
	c->loaded = NULL;
	WRITE_ONCE(st->loaded_cpu, -1);
}

void lbr_msr_save_live(struct lbr_state *st)
{
	u64 dbg;

	if (!lbr_msr_stop_read(st, &dbg))
		return;
	/* On again, unfrozen (legacy: LBR set again; streamlined: acked). */
	lwpt_hw_wrmsr(IA32_DEBUGCTL, dbg | IA32_DEBUGCTL_LBR);
}

/*
 * The address part of an LBR value (17.4.8.1): format 0 a 32-bit offset;
 * 1, 2, 5 and 7 the address; 3 and 6 bits 62:48 sign-extend bit 47 and
 * bit 63 is MISPRED in FROM (Table 17-8), so bit 62 is copied into bit 63;
 * 4 the three flags out of FROM and bit 60 sign-extended; 6 the cycles
 * out of TO and bit 47 sign-extended (as perf's intel_pmu_lbr_read_64()).
 */
static u64 lbr_msr_addr(u64 v, bool from)
{
	switch (lbr_caps.format) {
	case LBR_FMT_32:
		return v & 0xffffffffull;
	case LBR_FMT_TIME:
		if (!from)	/* the cycles out of bits 63:48 */
			return (u64)((s64)(v << 16) >> 16);
		fallthrough;
	case LBR_FMT_EIP_FLAGS:
		if (!from)
			return v;
		v &= ~LBR_FROM_MISPRED;
		return v | ((v & BIT_ULL(62)) << 1);
	case LBR_FMT_EIP_FLAGS2:
		return from ? (u64)((s64)(v << 3) >> 3) : v;
	default:
		return v;
	}
}

/*
 * LWPT_LBR_E_* of the entry whose raw values are @from, @to and @info:
 * FROM's bits 63:61 in formats 3, 4 and 6, format 6's cycles in TO bits
 * 63:48; the MSR_LBR_INFO_n of formats 5 and 7 (TSX flags in 5 only),
 * whose cycle count is given only where CYC_CNT_VALID says it is one.
 */
static u64 lbr_msr_entry_flags(u64 from, u64 to, u64 info)
{
	u64 f = 0;

	switch (lbr_caps.format) {
	case LBR_FMT_TIME:
		f = LWPT_LBR_E_CYCLES | ((to >> LBR_TO_CYCLES_SHIFT) & LBR_TO_CYCLES_MASK) <<
					LWPT_LBR_E_CYCLES_SHIFT;
		if (from & LBR_FROM_MISPRED)
			f |= LWPT_LBR_E_MISPRED;
		return f;
	case LBR_FMT_EIP_FLAGS2:
		if (from & LBR_FROM_IN_TX)
			f |= LWPT_LBR_E_IN_TX;
		if (from & LBR_FROM_TSX_ABORT)
			f |= LWPT_LBR_E_TSX_ABORT;
		fallthrough;
	case LBR_FMT_EIP_FLAGS:
		if (from & LBR_FROM_MISPRED)
			f |= LWPT_LBR_E_MISPRED;
		return f;
	case LBR_FMT_INFO:
	case LBR_FMT_INFO2:
		if (info & LBR_INFO_MISPRED)
			f |= LWPT_LBR_E_MISPRED;
		if (lbr_caps.format == LBR_FMT_INFO && (info & LBR_INFO_IN_TX))
			f |= LWPT_LBR_E_IN_TX;
		if (lbr_caps.format == LBR_FMT_INFO && (info & LBR_INFO_TSX_ABORT))
			f |= LWPT_LBR_E_TSX_ABORT;
		if (info & LBR_INFO_CYC_CNT_VALID)
			f |= LWPT_LBR_E_CYCLES |
			     (info & LBR_INFO_CYC_CNT) << LWPT_LBR_E_CYCLES_SHIFT;
		return f;
	default:
		return 0;
	}
}

void lbr_msr_fill(const struct lbr_state *st, struct lwpt_bts_lbr *out)
{
	const struct lbr_caps *c = &lbr_caps;
	unsigned int i, n = 0, slot;

	out->depth = c->depth;
	out->format = c->format;
	out->flags = st->frozen ? LWPT_BTS_LBR_F_FROZEN : 0;
	if (c->format >= LBR_FMT_EIP_FLAGS)
		out->flags |= LWPT_BTS_LBR_F_MISPRED;
	if (c->format == LBR_FMT_EIP_FLAGS2 || c->format == LBR_FMT_INFO)
		out->flags |= LWPT_BTS_LBR_F_TSX;
	out->nr = 0;
	if (!st->saved)
		return;
	/*
	 * From the TOS (the most recent, 17.4.8) backwards; a zero pair is a
	 * slot not written since the stack was zeroed at the first load.
	 */
	for (i = 0; i < c->depth; i++) {
		struct lwpt_lbr_entry *e = &out->entries[n];

		slot = (st->tos - i) & (c->depth - 1);
		if (!st->from[slot] && !st->to[slot])
			break;
		e->from = lbr_msr_addr(st->from[slot], true);
		e->to = lbr_msr_addr(st->to[slot], false);
		e->flags = lbr_msr_entry_flags(st->from[slot], st->to[slot], st->info[slot]);
		n++;
	}
	out->nr = n;
}
