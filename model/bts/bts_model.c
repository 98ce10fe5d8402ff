// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The branch-recording CPU object: RESET state, CPUID, MSR dispatch to the
 * DS/BTS part (ds_model.c) and the LBR part (lbr_model.c), the branch
 * event entry point, PMIs and the freeze of SDM 17.4.7, BTF. See
 * bts_model.h and Documentation/bts.rst.
 */
#include "model/bts/bts_internal.h"

static const char *const viol_str[BTS_VIOL_NR] = {
	[BTS_VIOL_NONE]			= "none",
	[BTS_VIOL_RESERVED_BIT]		= "reserved bit set",
	[BTS_VIOL_MSR_NOT_ENUMERATED]	= "MSR not enumerated by the profile",
	[BTS_VIOL_NON_CANONICAL]	= "non-canonical address",
	[BTS_VIOL_READ_ONLY_MSR]	= "write to a read-only MSR",
	[BTS_VIOL_DS_ACCESS]		= "DS save area or BTS buffer not mapped",
	[BTS_VIOL_BTS_BUFFER_TOO_SMALL]	= "BTS buffer smaller than one record",
};

const char *bts_model_violation_str(enum bts_model_violation_kind kind)
{
	if ((unsigned int)kind >= BTS_VIOL_NR)
		return "unknown";
	return viol_str[kind];
}

void bts_model_violation(struct bts_model_cpu *cpu, enum bts_model_violation_kind kind,
			 const char *section, const char *what, uint32_t msr,
			 uint64_t value)
{
	struct bts_model_violation v = {
		.kind = kind, .section = section, .what = what,
		.msr = msr, .value = value,
	};

	cpu->stats.violations++;
	if ((unsigned int)kind < BTS_VIOL_NR)
		cpu->stats.by_kind[kind]++;
	if (cpu->ops->log)
		cpu->ops->log(cpu->ctx, cpu, &v);
}

bool bts_model_canonical(const struct bts_model_cpu *cpu, uint64_t addr)
{
	unsigned int bits = cpu->prof->linear_bits;
	int64_t s;

	if (bits == 0 || bits >= 64)
		return true;
	s = (int64_t)(addr << (64 - bits)) >> (64 - bits);
	return (uint64_t)s == addr;
}

bool bts_model_pt_suspends(const struct bts_model_cpu *cpu)
{
	return cpu->prof->lbr_pt_exclusive && cpu->pt_trace_en;
}

static bool profile_ok(const struct bts_model_profile *p)
{
	return p->lbr_depth && p->lbr_depth <= BTS_MODEL_LBR_MAX &&
	       !(p->lbr_depth & (p->lbr_depth - 1)) && p->lbr_format <= LBR_FMT_INFO2;
}

static void arch_reset(struct bts_model_cpu *cpu)
{
	cpu->debugctl = 0;
	cpu->ds_area = 0;
	cpu->lbr_select = 0;
	cpu->tos = 0;
	lbr_model_clear(cpu);
	cpu->ler_from = 0;
	cpu->ler_to = 0;
	cpu->perf_global_status = 0;
	cpu->perf_global_ctrl = 0;
	cpu->last_valid = false;
	cpu->last_from = 0;
	cpu->last_to = 0;
	cpu->pt_trace_en = false;
	cpu->in_pmi = false;
	cpu->pmi_pending = false;
	cpu->pmi_delay = 0;
}

int bts_model_cpu_init(struct bts_model_cpu *cpu, const struct bts_model_profile *prof,
		       const struct bts_model_ops *ops, void *ctx, int id)
{
	if (!cpu || !prof || !ops || !ops->read_lin || !ops->write_lin || !profile_ok(prof))
		return BTS_MODEL_EINVAL;
	memset(cpu, 0, sizeof(*cpu));
	cpu->prof = prof;
	cpu->ops = ops;
	cpu->ctx = ctx;
	cpu->id = id;
	arch_reset(cpu);
	return BTS_MODEL_OK;
}

void bts_model_reset(struct bts_model_cpu *cpu)
{
	if (cpu)
		arch_reset(cpu);
}

int bts_model_cpuid(const struct bts_model_cpu *cpu, uint32_t leaf, uint32_t regs[4])
{
	const struct bts_model_profile *p;

	if (!cpu || !regs)
		return BTS_MODEL_EINVAL;
	p = cpu->prof;
	memset(regs, 0, 4 * sizeof(regs[0]));
	if (leaf == 1) {
		if (p->dtes64)
			regs[2] |= BTS_CPUID1_ECX_DTES64;
		if (p->ds_cpl)
			regs[2] |= BTS_CPUID1_ECX_DS_CPL;
		if (p->pdcm)
			regs[2] |= BTS_CPUID1_ECX_PDCM;
		if (p->ds)
			regs[3] |= BTS_CPUID1_EDX_DS;
	} else if (leaf == 0xa) {
		regs[0] = p->perfmon_version & 0xff;
	}
	return BTS_MODEL_OK;
}

/* IA32_PERF_CAPABILITIES as the profile reports it (17.4.8.1). */
static uint64_t perf_capabilities(const struct bts_model_profile *p)
{
	return (p->lbr_format & PERF_CAP_LBR_FMT_MASK) |
	       (p->freeze_while_smm ? PERF_CAP_FREEZE_WHILE_SMM : 0);
}

static int not_enumerated(struct bts_model_cpu *cpu, uint32_t msr, uint64_t val,
			  const char *section, const char *what)
{
	bts_model_violation(cpu, BTS_VIOL_MSR_NOT_ENUMERATED, section, what, msr, val);
	return BTS_MODEL_EGP;
}

static int read_only(struct bts_model_cpu *cpu, uint32_t msr, uint64_t val,
		     const char *section)
{
	bts_model_violation(cpu, BTS_VIOL_READ_ONLY_MSR, section,
			    "WRMSR of a read-only MSR", msr, val);
	return BTS_MODEL_EGP;
}

int bts_model_rdmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t *val)
{
	const struct bts_model_profile *p;
	int ret;

	if (!cpu || !val)
		return BTS_MODEL_EINVAL;
	p = cpu->prof;
	ret = ds_model_rdmsr(cpu, msr, val);
	if (ret != BTS_MODEL_ENOMSR)
		return ret;
	ret = lbr_model_rdmsr(cpu, msr, val);
	if (ret != BTS_MODEL_ENOMSR)
		return ret;
	switch (msr) {
	case IA32_MISC_ENABLE:
		*val = (p->bts_unavailable ? IA32_MISC_ENABLE_BTS_UNAVAILABLE : 0) |
		       (p->pebs_unavailable ? IA32_MISC_ENABLE_PEBS_UNAVAILABLE : 0);
		return BTS_MODEL_OK;
	case IA32_PERF_CAPABILITIES:
		if (!p->pdcm)
			return not_enumerated(cpu, msr, 0, "SDM 17.4.8.1",
					      "IA32_PERF_CAPABILITIES without CPUID.1:ECX.PDCM");
		*val = perf_capabilities(p);
		return BTS_MODEL_OK;
	case IA32_PERF_GLOBAL_STATUS:
	case IA32_PERF_GLOBAL_CTRL:
		if (p->perfmon_version < 2)
			return not_enumerated(cpu, msr, 0, "SDM 18.2.2",
					      "global perfmon MSR below perfmon version 2");
		*val = msr == IA32_PERF_GLOBAL_STATUS ? cpu->perf_global_status :
		       cpu->perf_global_ctrl;
		return BTS_MODEL_OK;
	default:
		return BTS_MODEL_ENOMSR;
	}
}

/* The LVT delivers the threshold PMI: ops->pmi (never nested). */
static void deliver_pmi(struct bts_model_cpu *cpu)
{
	cpu->pmi_pending = false;
	if (cpu->ops->pmi && !cpu->in_pmi) {
		cpu->in_pmi = true;
		cpu->ops->pmi(cpu->ctx, cpu);
		cpu->in_pmi = false;
	}
}

int bts_model_wrmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t val)
{
	const struct bts_model_profile *p;
	int ret;

	if (!cpu)
		return BTS_MODEL_EINVAL;
	p = cpu->prof;
	ret = ds_model_wrmsr(cpu, msr, val);
	if (ret != BTS_MODEL_ENOMSR) {
		/* The late PMI: delivered after the write took effect. */
		if (cpu->pmi_pending)
			deliver_pmi(cpu);
		return ret;
	}
	ret = lbr_model_wrmsr(cpu, msr, val);
	if (ret != BTS_MODEL_ENOMSR)
		return ret;
	switch (msr) {
	case IA32_MISC_ENABLE:
		return read_only(cpu, msr, val, "SDM 17.4.9");
	case IA32_PERF_CAPABILITIES:
		if (!p->pdcm)
			return not_enumerated(cpu, msr, val, "SDM 17.4.8.1",
					      "IA32_PERF_CAPABILITIES without CPUID.1:ECX.PDCM");
		return read_only(cpu, msr, val, "SDM 17.4.8.1");
	case IA32_PERF_GLOBAL_STATUS:
		if (p->perfmon_version < 2)
			return not_enumerated(cpu, msr, val, "SDM 18.2.2",
					      "global perfmon MSR below perfmon version 2");
		return read_only(cpu, msr, val, "SDM 18.2.2");
	case IA32_PERF_GLOBAL_CTRL:
		if (p->perfmon_version < 2)
			return not_enumerated(cpu, msr, val, "SDM 18.2.2",
					      "global perfmon MSR below perfmon version 2");
		cpu->perf_global_ctrl = val;
		return BTS_MODEL_OK;
	case IA32_PERF_GLOBAL_STATUS_RESET:
		if (p->perfmon_version < 2)
			return not_enumerated(cpu, msr, val, "SDM 18.2.2",
					      "global perfmon MSR below perfmon version 2");
		/* Only the freeze bits are modelled (17.10.2, 18.2.4). */
		cpu->perf_global_status &= ~(val & (PERF_GLOBAL_STATUS_LBR_FRZ |
						    PERF_GLOBAL_STATUS_CTR_FRZ));
		return BTS_MODEL_OK;
	default:
		return BTS_MODEL_ENOMSR;
	}
}

void bts_model_pmi(struct bts_model_cpu *cpu, enum bts_pmi_source src)
{
	const struct bts_model_profile *p;

	if (!cpu || (unsigned int)src >= BTS_PMI_NR)
		return;
	p = cpu->prof;
	if ((cpu->debugctl & IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI) &&
	    !(src == BTS_PMI_PEBS && p->erratum_aj106))
		lbr_model_freeze(cpu);
	if (cpu->debugctl & IA32_DEBUGCTL_FREEZE_PERFMON_ON_PMI) {
		if (p->perfmon_version >= 4)
			cpu->perf_global_status |= PERF_GLOBAL_STATUS_CTR_FRZ;
		else
			cpu->perf_global_ctrl = 0;
	}
}

/*
 * The freeze of 17.4.7 happens when the PMI is signalled; its delivery
 * comes pmi_skid branches later (bts_model_set_pmi_skid()). A second
 * signal while one is pended is the same interrupt (one LVT request).
 */
void bts_model_signal_pmi(struct bts_model_cpu *cpu)
{
	cpu->stats.bts_pmis++;
	bts_model_pmi(cpu, BTS_PMI_BTS);
	if (cpu->pmi_pending)
		return;
	cpu->pmi_pending = true;
	cpu->pmi_delay = cpu->pmi_skid;
	if (!cpu->pmi_delay)
		deliver_pmi(cpu);
}

void bts_model_set_pmi_skid(struct bts_model_cpu *cpu, unsigned int branches)
{
	if (cpu)
		cpu->pmi_skid = branches;
}

int bts_model_branch(struct bts_model_cpu *cpu, const struct bts_branch *br)
{
	if (!cpu || !br || (unsigned int)br->kind >= BTS_BR_NR || br->cpl > 3 ||
	    (br->mode != X86_MODE_16 && br->mode != X86_MODE_32 && br->mode != X86_MODE_64))
		return BTS_MODEL_EINVAL;
	cpu->stats.branches++;
	/* A PMI signalled by an earlier store: its skid runs out here. */
	if (cpu->pmi_pending && !--cpu->pmi_delay)
		deliver_pmi(cpu);
	lbr_model_branch(cpu, br);
	ds_model_bts(cpu, br);
	return BTS_MODEL_OK;
}

bool bts_model_single_step_trap(const struct bts_model_cpu *cpu, bool tf, bool branch)
{
	if (!cpu || !tf)
		return false;
	return !(cpu->debugctl & IA32_DEBUGCTL_BTF) || branch;
}

void bts_model_set_pt_trace_en(struct bts_model_cpu *cpu, bool on)
{
	if (!cpu || !cpu->prof->lbr_pt_exclusive)
		return;
	/* 33.3.1.2: "When TraceEn is cleared, the LBR array is reset". */
	if (cpu->pt_trace_en && !on)
		lbr_model_clear(cpu);
	cpu->pt_trace_en = on;
}

const struct bts_model_stats *bts_model_get_stats(const struct bts_model_cpu *cpu)
{
	return cpu ? &cpu->stats : NULL;
}
