// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CPUID leaf 14H profiles of the PT model (SDM 33.3.1, Tables 33-11/33-12).
 * Values are plausible for real parts; no machine here has PT, so none of
 * them was read from hardware. See Documentation/pt-model.rst.
 */
#include "model/pt/pt_model.h"

/*
 * bdw: the first generation (Broadwell, DisplayFamily_DisplayModel 06_3DH).
 *  14H.0 EAX = 0            no sub-leaf 1 (no ranges, no encoding bitmaps)
 *  14H.0 EBX = 0x00000001   [0] CR3 filtering; no configurable PSB/CYC [1],
 *                           no IP filtering [2], no MTC [3], no PTWRITE [4],
 *                           no power events [5], no PSB/PMI preservation [6],
 *                           no event trace [7], no TNT disable [8]
 *  14H.0 ECX = 0x80000005   [0] ToPA output, [1] MENTRY=0 (one output region
 *                           followed by END), [2] single-range output,
 *                           [3] no trace transport, [31] LIP payloads
 *  MAXPHYADDR 39 (client Broadwell), 48-bit linear addresses, no XSAVES of
 *  PT state (IA32_XSS[8] unsupported), architectural perfmon version 3.
 *  Erratum BDM106: WRMSR IA32_RTIT_CTL with TraceEn=1 and BranchEn=0 #GPs
 *  (Linux perf's intel_pt driver forces BranchEn on Broadwell for it).
 *  SDM 33.3.1.2: on 06_3DH PT and LBRs are mutually exclusive.
 */
const struct pt_model_profile pt_model_profile_bdw = {
	.name = "bdw",
	.leaf = { .regs = {
		{ 0x00000000u, 0x00000001u, 0x80000005u, 0x00000000u },
		{ 0x00000000u, 0x00000000u, 0x00000000u, 0x00000000u },
	} },
	.maxphyaddr = 39,
	.linear_bits = 48,
	.xsaves_pt = false,
	.perfmon_version = 3,
	.erratum_bdm106 = true,
	.lbr_exclusive = true,
};

/*
 * full: every capability of Table 33-11 except the trace transport subsystem.
 *  14H.0 EAX = 1            sub-leaf 1 valid
 *  14H.0 EBX = 0x000001ff   [0] CR3 filtering, [1] configurable PSB and CYC,
 *                           [2] IP filtering/TraceStop, [3] MTC, [4] PTWRITE,
 *                           [5] power event trace, [6] PSB and PMI
 *                           preservation, [7] event trace, [8] TNT disable
 *  14H.0 ECX = 0x80000007   [0] ToPA, [1] multi-entry ToPA, [2] single-range
 *                           output, [3] no trace transport, [31] LIP
 *  14H.1 EAX = 0x02490004   [2:0] 4 address ranges; [31:16] MTCFreq
 *                           encodings 0, 3, 6, 9 (as Skylake reports 0x249)
 *  14H.1 EBX = 0x003f3fff   [15:0] CycThresh encodings 0..13;
 *                           [31:16] PSBFreq encodings 0..5 (2K..64K)
 *  MAXPHYADDR 46, 48-bit linear addresses, XSAVES manages PT state,
 *  architectural perfmon version 5.
 */
const struct pt_model_profile pt_model_profile_full = {
	.name = "full",
	.leaf = { .regs = {
		{ 0x00000001u, 0x000001ffu, 0x80000007u, 0x00000000u },
		{ 0x02490004u, 0x003f3fffu, 0x00000000u, 0x00000000u },
	} },
	.maxphyaddr = 46,
	.linear_bits = 48,
	.xsaves_pt = true,
	.perfmon_version = 5,
};

/*
 * tgl: Tiger Lake (DisplayFamily_DisplayModel 06_8CH), second-generation
 * features without event trace and TNT disable (Alder Lake's).
 *  14H.0 EAX = 1            sub-leaf 1 valid
 *  14H.0 EBX = 0x0000007f   [0] CR3 filtering, [1] configurable PSB and CYC,
 *                           [2] IP filtering/TraceStop, [3] MTC, [4] PTWRITE,
 *                           [5] power event trace, [6] PSB and PMI
 *                           preservation
 *  14H.0 ECX = 0x80000007   [0] ToPA, [1] multi-entry ToPA, [2] single-range
 *                           output, [31] LIP
 *  14H.1 EAX = 0x02490002   [2:0] 2 address ranges; MTCFreq 0, 3, 6, 9
 *  14H.1 EBX = 0x003f3fff   CycThresh 0..13, PSBFreq 0..5
 *  MAXPHYADDR 39, XSAVES manages PT state, perfmon version 5.
 *  Erratum TGL052 (and ADL037, RPL017 on its successors): single-range
 *  output larger than 4 KiB is unreliable (Linux perf's
 *  pt_buffer_try_single() uses single range only for one page for it).
 */
const struct pt_model_profile pt_model_profile_tgl = {
	.name = "tgl",
	.leaf = { .regs = {
		{ 0x00000001u, 0x0000007fu, 0x80000007u, 0x00000000u },
		{ 0x02490002u, 0x003f3fffu, 0x00000000u, 0x00000000u },
	} },
	.maxphyaddr = 39,
	.linear_bits = 48,
	.xsaves_pt = true,
	.perfmon_version = 5,
	.erratum_single_4k = true,
};

const struct pt_model_profile *pt_model_profile_find(const char *name)
{
	if (!name)
		return NULL;
	if (!strcmp(name, pt_model_profile_bdw.name))
		return &pt_model_profile_bdw;
	if (!strcmp(name, pt_model_profile_full.name))
		return &pt_model_profile_full;
	if (!strcmp(name, pt_model_profile_tgl.name))
		return &pt_model_profile_tgl;
	return NULL;
}
