// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * IA32_DEBUGCTL and IA32_DS_AREA with their #GP rules, and the Branch
 * Trace Store: a 24-byte record per taken branch, interrupt and exception
 * (SDM 17.4.9, Figure 17-9), CPL qualification (17.4.6), the BTS index,
 * the interrupt threshold and the absolute maximum (17.4.9.1-17.4.9.3).
 * See bts_model.h and Documentation/bts.rst, "The BTS buffer".
 */
#include "model/bts/bts_internal.h"

/*
 * The IA32_DEBUGCTL bits the profile lets software set (Vol. 4 Table 2-2
 * with the conditions of 17.4.6, 17.4.7 and 17.4.9); every other bit is
 * reserved and a WRMSR setting it raises #GP.
 */
uint64_t ds_model_debugctl_valid(const struct bts_model_profile *p)
{
	uint64_t v = IA32_DEBUGCTL_LBR | IA32_DEBUGCTL_BTF | IA32_DEBUGCTL_TR;

	/* 17.4.9: BTS_UNAVAILABLE=0 is "the ability to set the BTS and BTINT bits". */
	if (p->ds && !p->bts_unavailable)
		v |= IA32_DEBUGCTL_BTS | IA32_DEBUGCTL_BTINT;
	/* 17.4.6: CPL qualification if CPUID.01H:ECX[4]. */
	if (p->ds_cpl)
		v |= IA32_DEBUGCTL_BTS_OFF_OS | IA32_DEBUGCTL_BTS_OFF_USR;
	/* Table 2-2: "If CPUID.01H:ECX[15] = 1 && CPUID.0AH:EAX[7:0] > 1". */
	if (p->pdcm && p->perfmon_version > 1)
		v |= IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI | IA32_DEBUGCTL_FREEZE_PERFMON_ON_PMI;
	if (p->uncore_pmi)
		v |= IA32_DEBUGCTL_ENABLE_UNCORE_PMI;
	/* Table 2-2: "If IA32_PERF_CAPABILITIES[12] = 1". */
	if (p->pdcm && p->freeze_while_smm)
		v |= IA32_DEBUGCTL_FREEZE_WHILE_SMM;
	return v;
}

int ds_model_rdmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t *val)
{
	switch (msr) {
	case IA32_DEBUGCTL:
		*val = cpu->debugctl;
		return BTS_MODEL_OK;
	case IA32_DS_AREA:
		if (!cpu->prof->ds) {
			bts_model_violation(cpu, BTS_VIOL_MSR_NOT_ENUMERATED, "SDM 17.4.9",
					    "IA32_DS_AREA without CPUID.1:EDX.DS", msr, 0);
			return BTS_MODEL_EGP;
		}
		*val = cpu->ds_area;
		return BTS_MODEL_OK;
	default:
		return BTS_MODEL_ENOMSR;
	}
}

int ds_model_wrmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t val)
{
	uint64_t bad;

	switch (msr) {
	case IA32_DEBUGCTL:
		bad = val & ~ds_model_debugctl_valid(cpu->prof);
		if (bad) {
			bts_model_violation(cpu, BTS_VIOL_RESERVED_BIT,
					    "SDM 17.4.1, Vol. 4 Table 2-2",
					    "IA32_DEBUGCTL bit reserved on this processor",
					    msr, val);
			return BTS_MODEL_EGP;
		}
		cpu->debugctl = val;
		return BTS_MODEL_OK;
	case IA32_DS_AREA:
		if (!cpu->prof->ds) {
			bts_model_violation(cpu, BTS_VIOL_MSR_NOT_ENUMERATED, "SDM 17.4.9",
					    "IA32_DS_AREA without CPUID.1:EDX.DS", msr, val);
			return BTS_MODEL_EGP;
		}
		if (!bts_model_canonical(cpu, val)) {
			bts_model_violation(cpu, BTS_VIOL_NON_CANONICAL, "SDM 17.4.9.1",
					    "IA32_DS_AREA is a linear address", msr, val);
			return BTS_MODEL_EGP;
		}
		cpu->ds_area = val;
		return BTS_MODEL_OK;
	default:
		return BTS_MODEL_ENOMSR;
	}
}

/* 17.4.6: BTS_OFF_OS skips CPL 0, BTS_OFF_USR skips CPL > 0. */
static bool cpl_skipped(uint64_t dbg, uint8_t cpl)
{
	if (cpl == 0)
		return dbg & IA32_DEBUGCTL_BTS_OFF_OS;
	return dbg & IA32_DEBUGCTL_BTS_OFF_USR;
}

static void ds_fault(struct bts_model_cpu *cpu, uint64_t la, const char *what)
{
	cpu->stats.bts_lost++;
	bts_model_violation(cpu, BTS_VIOL_DS_ACCESS, "SDM 17.4.9.2", what, IA32_DS_AREA, la);
}

/*
 * Store one BTS record (17.4.9.1-17.4.9.3). The processor reads the BTS
 * fields of the management area, writes the record at the BTS index and
 * advances the index by 24. Before the store, a record that would not fit
 * below the absolute maximum means the buffer is full: with BTINT=1 the
 * record is not stored (the buffer is not circular; software was told at
 * the threshold); with BTINT=0 the index wraps to the buffer base
 * (circular buffer). After the store, the index reaching the interrupt
 * threshold signals the DS interrupt, whatever BTINT says (17.4.9.3 note:
 * clearing BTINT alone does not prevent it; a circular buffer must put the
 * threshold beyond the absolute maximum).
 */
void ds_model_bts(struct bts_model_cpu *cpu, const struct bts_branch *br)
{
	const struct bts_model_ops *ops = cpu->ops;
	uint64_t dbg = cpu->debugctl;
	struct ds_bts_area a;
	struct bts_record rec;
	uint64_t idx, prev;

	/* 17.4.9.3, IA32_DEBUGCTL flag encodings: TR=0 is BTMs off, BTS=0 to the bus. */
	if (!(dbg & IA32_DEBUGCTL_TR) || !(dbg & IA32_DEBUGCTL_BTS))
		return;
	if (bts_model_pt_suspends(cpu))
		return;
	if (cpl_skipped(dbg, br->cpl)) {
		cpu->stats.bts_cpl_skipped++;
		return;
	}
	if (ops->read_lin(cpu->ctx, cpu->ds_area, &a, sizeof(a))) {
		ds_fault(cpu, cpu->ds_area, "DS buffer management area not readable");
		return;
	}
	idx = a.bts_index;
	if (a.bts_absolute_maximum < BTS_RECORD_SIZE ||
	    idx > a.bts_absolute_maximum - BTS_RECORD_SIZE) {
		if (dbg & IA32_DEBUGCTL_BTINT) {
			cpu->stats.bts_lost++;
			return;
		}
		if (a.bts_absolute_maximum < BTS_RECORD_SIZE ||
		    a.bts_buffer_base > a.bts_absolute_maximum - BTS_RECORD_SIZE) {
			cpu->stats.bts_lost++;
			bts_model_violation(cpu, BTS_VIOL_BTS_BUFFER_TOO_SMALL, "SDM 17.4.9.3",
					    "BTS absolute maximum < base + record size",
					    IA32_DS_AREA, a.bts_absolute_maximum);
			return;
		}
		idx = a.bts_buffer_base;
		cpu->stats.bts_wraps++;
	}
	prev = idx;
	rec.from = br->from;
	rec.to = br->to;
	rec.flags = br->mispredicted ? 0 : BTS_REC_FLAGS_PREDICTED;
	if (ops->write_lin(cpu->ctx, idx, &rec, sizeof(rec))) {
		ds_fault(cpu, idx, "BTS buffer not writable");
		return;
	}
	idx += BTS_RECORD_SIZE;
	if (ops->write_lin(cpu->ctx, cpu->ds_area + DS_BTS_INDEX, &idx, sizeof(idx))) {
		ds_fault(cpu, cpu->ds_area + DS_BTS_INDEX, "BTS index not writable");
		return;
	}
	cpu->stats.bts_records++;
	if (prev < a.bts_interrupt_threshold && idx >= a.bts_interrupt_threshold)
		bts_model_signal_pmi(cpu);
}
