// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The LBR stack (SDM 17.4.8, Table 17-4): N FROM/TO MSR pairs written
 * circularly at the TOS pointer, in the record format of
 * IA32_PERF_CAPABILITIES[5:0] (17.4.8.1; formats 4 to 7 as perf's
 * arch/x86/events/intel/lbr.c reads them, with MSR_LBR_INFO_n for 5 and 7);
 * MSR_LBR_SELECT filtering
 * (17.7.2, Table 17-11) and EN_CALLSTACK (17.9); the last exception
 * record (17.4.8.3); the freeze on PMI (17.4.7, 17.10.2). See bts_model.h
 * and Documentation/bts.rst, "The LBR stack".
 */
#include "model/bts/bts_internal.h"

void lbr_model_clear(struct bts_model_cpu *cpu)
{
	unsigned int i;

	for (i = 0; i < BTS_MODEL_LBR_MAX; i++) {
		cpu->lbr_from[i] = 0;
		cpu->lbr_to[i] = 0;
		cpu->lbr_info[i] = 0;
	}
}

/* 17.4.7: legacy (perfmon v2-3) clears LBR, streamlined (v4) sets LBR_Frz. */
void lbr_model_freeze(struct bts_model_cpu *cpu)
{
	cpu->stats.freezes++;
	if (cpu->prof->perfmon_version >= 4)
		cpu->perf_global_status |= PERF_GLOBAL_STATUS_LBR_FRZ;
	else
		cpu->debugctl &= ~IA32_DEBUGCTL_LBR;
}

/*
 * An address as the LBR MSRs hold it (17.4.8.1): outside 64-bit mode the
 * upper 32 bits are 0; format 0 keeps the 32-bit offset in CS (CS base 0:
 * the model assumes flat code segments, so EIP and LIP are equal too).
 */
static uint64_t lbr_addr(const struct bts_model_cpu *cpu, uint64_t addr, enum x86_mode mode)
{
	if (mode != X86_MODE_64 || cpu->prof->lbr_format == LBR_FMT_32)
		return addr & 0xffffffffull;
	return addr;
}

static uint64_t lbr_from_value(const struct bts_model_cpu *cpu, const struct bts_branch *br)
{
	uint64_t v = lbr_addr(cpu, br->from, br->mode);

	switch (cpu->prof->lbr_format) {
	case LBR_FMT_EIP_FLAGS:
	case LBR_FMT_TIME:
		/*
		 * Table 17-8: bits 62:48 sign-extend bit 47, bit 63 is MISPRED;
		 * so is format 6's FROM (perf's lbr_from_flags).
		 */
		v &= ~LBR_FROM_MISPRED;
		break;
	case LBR_FMT_EIP_FLAGS2:
		/*
		 * Bits 60:48 sign-extend bit 47, 63 MISPRED, 62 IN_TX, 61
		 * TSX_ABORT (perf's lbr.c: LBR_FROM_FLAG_*, and the read that
		 * sign-extends from bit 60). The model runs no transaction:
		 * IN_TX and TSX_ABORT are always 0. Without TSX, 62:61 are
		 * sign bits too (perf's lbr_from_signext_quirk_rd() clears them).
		 */
		v &= cpu->prof->tsx ? ~(LBR_FROM_MISPRED | LBR_FROM_IN_TX | LBR_FROM_TSX_ABORT) :
				      ~LBR_FROM_MISPRED;
		break;
	default:
		/* Formats 0-2, 5 and 7: the address alone (flags in LBR_INFO). */
		return v;
	}
	return br->mispredicted ? v | LBR_FROM_MISPRED : v;
}

/*
 * A TO value: the address; format 6 keeps the cycles since the previous
 * record in bits 63:48 (perf's lbr_to_cycles). *Choice*: the model has no
 * cycle clock, so they are 0 (Documentation/bts.rst, "LBR formats 4 to 7").
 */
static uint64_t lbr_to_value(const struct bts_model_cpu *cpu, uint64_t to)
{
	if (cpu->prof->lbr_format == LBR_FMT_TIME)
		return to & ((1ull << LBR_TO_CYCLES_SHIFT) - 1);
	return to;
}

/* Formats 5 and 7 have MSR_LBR_INFO_n. */
static bool lbr_has_info(const struct bts_model_profile *p)
{
	return p->lbr_format == LBR_FMT_INFO || p->lbr_format == LBR_FMT_INFO2;
}

/*
 * MSR_LBR_INFO_n of a new record (formats 5 and 7): MISPRED; IN_TX and TSX_ABORT
 * 0 (no transactions). *Choice*: the model has no cycle clock, so CYC_CNT
 * is 0 with CYC_CNT_VALID (bit 60, msr-index.h's LBR_INFO_CYC_CNT_VALID)
 * clear (Documentation/bts.rst, "LBR formats 4 to 7").
 */
static uint64_t lbr_info_value(const struct bts_model_cpu *cpu, const struct bts_branch *br)
{
	/* Format 7 the same, without TSX flags (perf: lbr_has_tsx 0). */
	if (!lbr_has_info(cpu->prof))
		return 0;
	return br->mispredicted ? LBR_INFO_MISPRED : 0;
}

/* MSR_LBR_SELECT bit that suppresses a kind of branch (Table 17-11). */
static uint64_t select_bit(enum bts_branch_kind kind)
{
	switch (kind) {
	case BTS_BR_JCC:
		return LBR_SELECT_JCC;
	case BTS_BR_JMP_REL:
		return LBR_SELECT_NEAR_REL_JMP;
	case BTS_BR_JMP_IND:
		return LBR_SELECT_NEAR_IND_JMP;
	case BTS_BR_CALL_REL:
		return LBR_SELECT_NEAR_REL_CALL;
	case BTS_BR_CALL_IND:
		return LBR_SELECT_NEAR_IND_CALL;
	case BTS_BR_RET:
		return LBR_SELECT_NEAR_RET;
	default:
		return LBR_SELECT_FAR_BRANCH;
	}
}

static bool lbr_filtered(const struct bts_model_cpu *cpu, const struct bts_branch *br)
{
	uint64_t sel = cpu->prof->lbr_select ? cpu->lbr_select : 0;

	if (br->cpl == 0 && (sel & LBR_SELECT_CPL_EQ_0))
		return true;
	if (br->cpl > 0 && (sel & LBR_SELECT_CPL_NEQ_0))
		return true;
	return sel & select_bit(br->kind);
}

void lbr_model_branch(struct bts_model_cpu *cpu, const struct bts_branch *br)
{
	unsigned int mask = cpu->prof->lbr_depth - 1;
	uint64_t from, to;

	if (!(cpu->debugctl & IA32_DEBUGCTL_LBR) ||
	    (cpu->perf_global_status & PERF_GLOBAL_STATUS_LBR_FRZ) ||
	    bts_model_pt_suspends(cpu))
		return;
	from = lbr_addr(cpu, br->from, br->mode);
	to = lbr_addr(cpu, br->to, br->mode);
	/* 17.4.8.3: the LER holds the last branch taken before the event. */
	if ((br->kind == BTS_BR_INTERRUPT || br->kind == BTS_BR_EXCEPTION) && cpu->last_valid) {
		cpu->ler_from = cpu->last_from;
		cpu->ler_to = cpu->last_to;
		cpu->stats.ler_updates++;
	}
	cpu->last_valid = true;
	cpu->last_from = from;
	cpu->last_to = to;
	/* 17.4.1: records are kept "prior to a debug exception"; #DB clears LBR. */
	if (br->kind == BTS_BR_EXCEPTION && br->vector == 1) {
		cpu->debugctl &= ~IA32_DEBUGCTL_LBR;
		return;
	}
	if (lbr_filtered(cpu, br)) {
		cpu->stats.lbr_filtered++;
		return;
	}
	/* 17.9: in call-stack mode a near RET pops the CALL it returns from. */
	if (cpu->prof->lbr_callstack && (cpu->lbr_select & LBR_SELECT_EN_CALLSTACK) &&
	    br->kind == BTS_BR_RET) {
		cpu->lbr_from[cpu->tos] = 0;
		cpu->lbr_to[cpu->tos] = 0;
		cpu->lbr_info[cpu->tos] = 0;
		cpu->tos = (cpu->tos - 1) & mask;
		return;
	}
	cpu->tos = (cpu->tos + 1) & mask;
	cpu->lbr_from[cpu->tos] = lbr_from_value(cpu, br);
	cpu->lbr_to[cpu->tos] = lbr_to_value(cpu, to);
	cpu->lbr_info[cpu->tos] = lbr_info_value(cpu, br);
	cpu->stats.lbr_records++;
}

/*
 * Which LBR stack MSR @msr is: 0..depth-1 FROM, depth..2*depth-1 TO,
 * 2*depth..3*depth-1 LBR_INFO (formats 5 and 7 only), else -1.
 */
static int lbr_index(const struct bts_model_cpu *cpu, uint32_t msr)
{
	const struct bts_model_profile *p = cpu->prof;

	if (msr >= p->lbr_from_msr && msr - p->lbr_from_msr < p->lbr_depth)
		return (int)(msr - p->lbr_from_msr);
	if (msr >= p->lbr_to_msr && msr - p->lbr_to_msr < p->lbr_depth)
		return (int)(p->lbr_depth + (msr - p->lbr_to_msr));
	if (lbr_has_info(p) && msr >= MSR_LBR_INFO_0 &&
	    msr - MSR_LBR_INFO_0 < p->lbr_depth)
		return (int)(2 * p->lbr_depth + (msr - MSR_LBR_INFO_0));
	return -1;
}

/*
 * @msr is one of MSR_LBR_INFO_0..31 (DC0H..DDFH); asked once lbr_index()
 * found nothing, so one the profile lacks (no format 5 or 7, or at or above
 * the depth). KVM (vmx/pmu_intel.c) treats only n below the depth, with
 * format 5, as LBR MSRs: the others #GP.
 */
static bool lbr_info_absent(uint32_t msr)
{
	return msr >= MSR_LBR_INFO_0 && msr - MSR_LBR_INFO_0 < MSR_LBR_INFO_NR;
}

int lbr_model_rdmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t *val)
{
	bool zero = bts_model_pt_suspends(cpu);	/* 33.3.1.2: reads return 0 */
	int i = lbr_index(cpu, msr);
	unsigned int d = cpu->prof->lbr_depth;

	if (i >= 0) {
		if (zero)
			*val = 0;
		else if ((unsigned int)i < d)
			*val = cpu->lbr_from[i];
		else if ((unsigned int)i < 2 * d)
			*val = cpu->lbr_to[i - d];
		else
			*val = cpu->lbr_info[i - 2 * d];
		return BTS_MODEL_OK;
	}
	if (lbr_info_absent(msr)) {
		bts_model_violation(cpu, BTS_VIOL_MSR_NOT_ENUMERATED, "SDM 17.4.8.1",
				    "MSR_LBR_INFO_n without LBR format 5 or 7, or beyond the depth",
				    msr, 0);
		return BTS_MODEL_EGP;
	}
	switch (msr) {
	case MSR_LASTBRANCH_TOS:
		*val = zero ? 0 : cpu->tos;
		return BTS_MODEL_OK;
	case MSR_LER_FROM_LIP:
		*val = zero ? 0 : cpu->ler_from;
		return BTS_MODEL_OK;
	case MSR_LER_TO_LIP:
		*val = zero ? 0 : cpu->ler_to;
		return BTS_MODEL_OK;
	case MSR_LBR_SELECT:
		if (!cpu->prof->lbr_select) {
			bts_model_violation(cpu, BTS_VIOL_MSR_NOT_ENUMERATED, "SDM 17.7.2",
					    "MSR_LBR_SELECT on a processor without LBR filtering",
					    msr, 0);
			return BTS_MODEL_EGP;
		}
		*val = zero ? 0 : cpu->lbr_select;
		return BTS_MODEL_OK;
	default:
		return BTS_MODEL_ENOMSR;
	}
}

/* The address part of an LBR FROM/TO value is valid for the format. */
static bool lbr_value_ok(const struct bts_model_cpu *cpu, uint64_t v, bool from)
{
	uint8_t format = cpu->prof->lbr_format;

	if (format == LBR_FMT_32)
		return !(v >> 32);
	/* Format 6's TO: bits 63:48 are the cycle count, any value. */
	if (!from && format == LBR_FMT_TIME)
		v = (uint64_t)((int64_t)(v << 16) >> 16);
	if (from && format == LBR_FMT_EIP_FLAGS2 && cpu->prof->tsx) {
		/* Bits 63:61 are the flags, free; 60:48 sign-extend bit 47. */
		v = (uint64_t)((int64_t)(v << 3) >> 3);
	} else if (from && (format == LBR_FMT_EIP_FLAGS || format == LBR_FMT_EIP_FLAGS2 ||
			    format == LBR_FMT_TIME)) {
		/*
		 * Table 17-8: bits 62:48 sign-extend bit 47; bit 63 free. So
		 * is format 4 without TSX: WRMSR wants 62:61 as sign bits
		 * (perf's lbr_from_signext_quirk_wr()).
		 */
		v &= ~LBR_FROM_MISPRED;
		if (v & (1ull << 62))
			v |= LBR_FROM_MISPRED;
	}
	return bts_model_canonical(cpu, v);
}

/* MSR_LBR_INFO_n bits a WRMSR may set: 63:60 and CYC_CNT; 59:16 reserved. */
#define LBR_INFO_WRITABLE (LBR_INFO_MISPRED | LBR_INFO_IN_TX | LBR_INFO_TSX_ABORT | \
			   LBR_INFO_CYC_CNT_VALID | LBR_INFO_CYC_CNT)

int lbr_model_wrmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t val)
{
	const struct bts_model_profile *p = cpu->prof;
	bool drop = bts_model_pt_suspends(cpu);	/* 33.3.1.2: writes dropped */
	int i = lbr_index(cpu, msr);
	uint64_t valid;

	if (i >= 0 && (unsigned int)i >= 2 * p->lbr_depth) {
		if (val & ~LBR_INFO_WRITABLE) {
			bts_model_violation(cpu, BTS_VIOL_RESERVED_BIT, "SDM 17.4.8.1",
					    "MSR_LBR_INFO_n reserved bit (59:16)", msr, val);
			return BTS_MODEL_EGP;
		}
		if (!drop)
			cpu->lbr_info[i - 2 * p->lbr_depth] = val;
		return BTS_MODEL_OK;
	}
	if (i >= 0) {
		if (!lbr_value_ok(cpu, val, (unsigned int)i < p->lbr_depth)) {
			bts_model_violation(cpu, BTS_VIOL_NON_CANONICAL, "SDM 17.4.8.1",
					    "LBR address not in the record format", msr, val);
			return BTS_MODEL_EGP;
		}
		if (drop)
			return BTS_MODEL_OK;
		if ((unsigned int)i < p->lbr_depth)
			cpu->lbr_from[i] = val;
		else
			cpu->lbr_to[i - p->lbr_depth] = val;
		return BTS_MODEL_OK;
	}
	if (lbr_info_absent(msr)) {
		bts_model_violation(cpu, BTS_VIOL_MSR_NOT_ENUMERATED, "SDM 17.4.8.1",
				    "MSR_LBR_INFO_n without LBR format 5 or 7, or beyond the depth",
				    msr, val);
		return BTS_MODEL_EGP;
	}
	switch (msr) {
	case MSR_LASTBRANCH_TOS:
		if (val >= p->lbr_depth) {
			bts_model_violation(cpu, BTS_VIOL_RESERVED_BIT, "SDM 17.4.8",
					    "TOS beyond the LBR stack (Table 17-4)", msr, val);
			return BTS_MODEL_EGP;
		}
		if (!drop)
			cpu->tos = (unsigned int)val;
		return BTS_MODEL_OK;
	case MSR_LER_FROM_LIP:
	case MSR_LER_TO_LIP:
		bts_model_violation(cpu, BTS_VIOL_READ_ONLY_MSR, "SDM 17.4.8.3",
				    "the LER MSRs are written by the processor", msr, val);
		return BTS_MODEL_EGP;
	case MSR_LBR_SELECT:
		if (!p->lbr_select) {
			bts_model_violation(cpu, BTS_VIOL_MSR_NOT_ENUMERATED, "SDM 17.7.2",
					    "MSR_LBR_SELECT on a processor without LBR filtering",
					    msr, val);
			return BTS_MODEL_EGP;
		}
		valid = LBR_SELECT_MASK_NHM | (p->lbr_callstack ? LBR_SELECT_EN_CALLSTACK : 0);
		if (val & ~valid) {
			bts_model_violation(cpu, BTS_VIOL_RESERVED_BIT, "SDM 17.7.2, Table 17-11",
					    "MSR_LBR_SELECT reserved bit", msr, val);
			return BTS_MODEL_EGP;
		}
		if (!drop)
			cpu->lbr_select = val;
		return BTS_MODEL_OK;
	default:
		return BTS_MODEL_ENOMSR;
	}
}
