// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The processors the branch-recording model can pretend to be. Stack
 * depths and MSR addresses follow SDM Table 17-4 and Vol. 4 for the
 * family each profile is named after; the LBR format and the other bits
 * are chosen so that together the profiles exercise every rule (see
 * Documentation/bts.rst, "Profiles": they are not claims about a part).
 */
#include "model/bts/bts_model.h"

/*
 * Core 2 (06_0FH): 4 LBRs at 40H/60H, DS-CPL, perfmon v2 (legacy freeze),
 * and erratum AJ106 (perf's intel_clovertown_quirk(): "FREEZE_LBRS_ON_PMI
 * doesn't work in combination with PEBS").
 */
const struct bts_model_profile bts_model_profile_core2 = {
	.name = "core2",
	.ds = true, .dtes64 = true, .ds_cpl = true, .pdcm = true,
	.perfmon_version = 2,
	.erratum_aj106 = true,
	.lbr_depth = 4,
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_CORE,
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_CORE,
	.lbr_format = LBR_FMT_LIP,
	.linear_bits = 48,
	.sig = 0x000006F6,	/* 06_0FH */
};

/* Nehalem (06_1AH): 16 LBRs at 680H/6C0H, LBR_SELECT, format 3, perfmon v3. */
const struct bts_model_profile bts_model_profile_nhm = {
	.name = "nhm",
	.ds = true, .dtes64 = true, .ds_cpl = true, .pdcm = true,
	.perfmon_version = 3,
	.lbr_depth = 16,
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_NHM,
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_NHM,
	.lbr_select = true,
	.lbr_format = LBR_FMT_EIP_FLAGS,
	.freeze_while_smm = true,
	.uncore_pmi = true,
	.linear_bits = 48,
	.sig = 0x000106A5,	/* 06_1AH */
};

/*
 * Perfmon version 4 (streamlined freeze, 17.10.2), 32 LBRs, EN_CALLSTACK,
 * and PT/LBR exclusion as on the processors SDM 33.3.1.2 lists.
 */
const struct bts_model_profile bts_model_profile_pmv4 = {
	.name = "pmv4",
	.ds = true, .dtes64 = true, .ds_cpl = true, .pdcm = true,
	.perfmon_version = 4,
	.lbr_depth = 32,
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_NHM,
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_NHM,
	.lbr_select = true,
	.lbr_callstack = true,
	.lbr_format = LBR_FMT_EIP,
	.freeze_while_smm = true,
	.lbr_pt_exclusive = true,
	.linear_bits = 48,
	.sig = 0x000406E3,	/* 06_4EH Skylake: 32 LBRs */
};

/* DS without DS-CPL, DTES64 or PDCM, perfmon v1: 32-bit LBR format. */
const struct bts_model_profile bts_model_profile_nocpl = {
	.name = "nocpl",
	.ds = true,
	.perfmon_version = 1,
	.lbr_depth = 8,
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_CORE,
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_CORE,
	.lbr_format = LBR_FMT_32,
	.linear_bits = 48,
	.sig = 0x000106C2,	/* 06_1CH Atom: 8 LBRs at 40H */
};

/* DS enumerated, IA32_MISC_ENABLE.BTS_UNAVAILABLE and PEBS_UNAVAILABLE set. */
const struct bts_model_profile bts_model_profile_btsoff = {
	.name = "btsoff",
	.ds = true, .dtes64 = true, .ds_cpl = true, .pdcm = true,
	.bts_unavailable = true, .pebs_unavailable = true,
	.perfmon_version = 2,
	.lbr_depth = 16,
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_NHM,
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_NHM,
	.lbr_select = true,
	.lbr_format = LBR_FMT_LIP,
	.linear_bits = 48,
	.sig = 0x000206A7,	/* 06_2AH Sandy Bridge: 16 LBRs */
};

/* No DS and no PDCM (a virtual machine with LBRs only). */
const struct bts_model_profile bts_model_profile_nods = {
	.name = "nods",
	.perfmon_version = 2,
	.lbr_depth = 16,
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_NHM,
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_NHM,
	.lbr_select = true,
	.lbr_format = LBR_FMT_LIP,
	.linear_bits = 48,
	.sig = 0x000306C3,	/* 06_3CH Haswell: 16 LBRs */
};

static const struct bts_model_profile *const profiles[] = {
	&bts_model_profile_core2, &bts_model_profile_nhm, &bts_model_profile_pmv4,
	&bts_model_profile_nocpl, &bts_model_profile_btsoff, &bts_model_profile_nods,
	NULL
};

const struct bts_model_profile *bts_model_profile_find(const char *name)
{
	const struct bts_model_profile *const *p;

	if (!name)
		return NULL;
	for (p = profiles; *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}
