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
 * The base every profile starts from (btsoff without its two
 * IA32_MISC_ENABLE bits): DS with DTES64, DS-CPL and PDCM, perfmon
 * version 2, 16 LBRs at 680H/6C0H with LBR_SELECT, LBR format 1, 48-bit
 * linear addresses. Each profile below states only what it changes; a
 * later designated initializer replaces the base's (C11 6.7.9p19), which
 * is why this file is built with -Wno-override-init (model/bts/build.mk,
 * kmod/Kbuild).
 */
#define BTS_PROFILE_BASE						\
	.ds = true, .dtes64 = true, .ds_cpl = true, .pdcm = true,	\
	.perfmon_version = 2,						\
	.lbr_depth = 16,						\
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_NHM,			\
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_NHM,			\
	.lbr_select = true,						\
	.lbr_format = LBR_FMT_LIP,					\
	.linear_bits = 48

/*
 * Core 2 (06_0FH): 4 LBRs at 40H/60H without LBR_SELECT, and erratum
 * AJ106 (perf's intel_clovertown_quirk(): "FREEZE_LBRS_ON_PMI doesn't work
 * in combination with PEBS").
 */
const struct bts_model_profile bts_model_profile_core2 = {
	BTS_PROFILE_BASE,
	.name = "core2",
	.lbr_depth = 4,
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_CORE,
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_CORE,
	.lbr_select = false,
	.erratum_aj106 = true,
	.sig = 0x000006F6,	/* 06_0FH */
};

/* Nehalem (06_1AH): format 3, perfmon v3, FREEZE_WHILE_SMM, UNCORE_PMI. */
const struct bts_model_profile bts_model_profile_nhm = {
	BTS_PROFILE_BASE,
	.name = "nhm",
	.perfmon_version = 3,
	.lbr_format = LBR_FMT_EIP_FLAGS,
	.freeze_while_smm = true,
	.uncore_pmi = true,
	.sig = 0x000106A5,	/* 06_1AH */
};

/*
 * Perfmon version 4 (streamlined freeze, 17.10.2), 32 LBRs, EN_CALLSTACK,
 * and PT/LBR exclusion as on the processors SDM 33.3.1.2 lists.
 */
const struct bts_model_profile bts_model_profile_pmv4 = {
	BTS_PROFILE_BASE,
	.name = "pmv4",
	.perfmon_version = 4,
	.lbr_depth = 32,
	.lbr_callstack = true,
	.lbr_format = LBR_FMT_EIP,
	.freeze_while_smm = true,
	.lbr_pt_exclusive = true,
	.sig = 0x000406E3,	/* 06_4EH Skylake: 32 LBRs */
};

/*
 * DS without DS-CPL, DTES64 or PDCM, perfmon v1: 8 LBRs at 40H/60H without
 * LBR_SELECT, 32-bit LBR format.
 */
const struct bts_model_profile bts_model_profile_nocpl = {
	BTS_PROFILE_BASE,
	.name = "nocpl",
	.dtes64 = false, .ds_cpl = false, .pdcm = false,
	.perfmon_version = 1,
	.lbr_depth = 8,
	.lbr_from_msr = MSR_LASTBRANCH_0_FROM_IP_CORE,
	.lbr_to_msr = MSR_LASTBRANCH_0_TO_IP_CORE,
	.lbr_select = false,
	.lbr_format = LBR_FMT_32,
	.sig = 0x000106C2,	/* 06_1CH Atom: 8 LBRs at 40H */
};

/* DS enumerated, IA32_MISC_ENABLE.BTS_UNAVAILABLE and PEBS_UNAVAILABLE set. */
const struct bts_model_profile bts_model_profile_btsoff = {
	BTS_PROFILE_BASE,
	.name = "btsoff",
	.bts_unavailable = true, .pebs_unavailable = true,
	.sig = 0x000206A7,	/* 06_2AH Sandy Bridge: 16 LBRs */
};

/* No DS and no PDCM (a virtual machine with LBRs only). */
const struct bts_model_profile bts_model_profile_nods = {
	BTS_PROFILE_BASE,
	.name = "nods",
	.ds = false, .dtes64 = false, .ds_cpl = false, .pdcm = false,
	.sig = 0x000306C3,	/* 06_3CH Haswell: 16 LBRs */
};

/*
 * Haswell with TSX (06_3FH): LBR format 4 (MISPRED, IN_TX, TSX_ABORT in
 * FROM 63:61), perfmon v3, 16 LBRs at 680H/6C0H with EN_CALLSTACK (17.9:
 * Haswell and later), FREEZE_WHILE_SMM. No PT on Haswell.
 */
const struct bts_model_profile bts_model_profile_hsw = {
	BTS_PROFILE_BASE,
	.name = "hsw",
	.tsx = true,
	.perfmon_version = 3,
	.lbr_callstack = true,
	.lbr_format = LBR_FMT_EIP_FLAGS2,
	.freeze_while_smm = true,
	.sig = 0x000306F2,	/* 06_3FH Haswell-E: 16 LBRs */
};

/*
 * What Skylake and the Goldmonts share (perf's intel_pmu_lbr_init_skl()
 * for all three): perfmon v4, 32 LBRs at 680H/6C0H with EN_CALLSTACK,
 * FREEZE_WHILE_SMM, PT/LBR exclusion as pmv4 (the same family).
 */
#define BTS_PROFILE_SKL_FAMILY						\
	BTS_PROFILE_BASE,						\
	.perfmon_version = 4,						\
	.lbr_depth = 32,						\
	.lbr_callstack = true,						\
	.freeze_while_smm = true,					\
	.lbr_pt_exclusive = true

/* Skylake (06_5EH): LBR format 5 (flags in MSR_LBR_INFO_n at DC0H), TSX. */
const struct bts_model_profile bts_model_profile_skl = {
	BTS_PROFILE_SKL_FAMILY,
	.name = "skl",
	.tsx = true,
	.lbr_format = LBR_FMT_INFO,
	.sig = 0x000506E3,	/* 06_5EH Skylake: 32 LBRs */
};

/*
 * Goldmont (06_5CH): LBR format 6 (MISPRED in FROM bit 63, cycles in TO
 * bits 63:48), no TSX.
 */
const struct bts_model_profile bts_model_profile_glm = {
	BTS_PROFILE_SKL_FAMILY,
	.name = "glm",
	.lbr_format = LBR_FMT_TIME,
	.sig = 0x000506C9,	/* 06_5CH Goldmont: 32 LBRs */
};

/*
 * Goldmont Plus (06_7AH): LBR format 7 (MSR_LBR_INFO_n as format 5, without
 * TSX flags), no TSX.
 */
const struct bts_model_profile bts_model_profile_glp = {
	BTS_PROFILE_SKL_FAMILY,
	.name = "glp",
	.lbr_format = LBR_FMT_INFO2,
	.sig = 0x000706A1,	/* 06_7AH Goldmont Plus: 32 LBRs */
};

static const struct bts_model_profile *const profiles[] = {
	&bts_model_profile_core2, &bts_model_profile_nhm, &bts_model_profile_pmv4,
	&bts_model_profile_nocpl, &bts_model_profile_btsoff, &bts_model_profile_nods,
	&bts_model_profile_hsw, &bts_model_profile_skl,
	&bts_model_profile_glm, &bts_model_profile_glp,
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
