// SPDX-License-Identifier: GPL-2.0
/*
 * Detection of LWP and Intel PT, through the hardware layer so that the
 * model is detected exactly as a processor would be.
 */
#include <linux/kernel.h>
#include <linux/preempt.h>
#include <linux/string.h>

#include <lwpt/bts_arch.h>
#include <lwpt/lwp_arch.h>
#include <lwpt/pt_cpuid.h>

#include "lwpt.h"
#include "x86_cpuid.h"

bool lwpt_cpuid_has_leaf(const struct lwpt_caps *caps, u32 leaf)
{
	if (leaf >= X86_CPUID_EXT_BASE)
		return caps->max_ext_leaf >= X86_CPUID_EXT_BASE &&
		       leaf <= caps->max_ext_leaf;
	return leaf <= caps->max_leaf;
}

/* 43724 §3.1, §4.1, §8.7.1. Leaves a reason in caps->no_lwp if absent. */
static void lwpt_detect_lwp(struct lwpt_caps *caps)
{
	struct lwpt_cpuid_regs ext = {}, xs = {}, f1 = {};
	bool bit_ext, bit_xs;

	if (lwpt_cpuid_has_leaf(caps, LWP_CPUID_FN8000_0001))
		lwpt_hw_cpuid(LWP_CPUID_FN8000_0001, 0, &ext);
	if (lwpt_cpuid_has_leaf(caps, LWP_CPUID_FN0000_000D))
		lwpt_hw_cpuid(LWP_CPUID_FN0000_000D, 0, &xs);
	if (lwpt_cpuid_has_leaf(caps, X86_CPUID_FEATURES))
		lwpt_hw_cpuid(X86_CPUID_FEATURES, 0, &f1);

	/* 43724 §3.1: either bit reports LWP; they are copies of each other. */
	bit_ext = ext.ecx & LWP_CPUID_FN8000_0001_ECX_LWP;
	bit_xs = xs.edx & LWP_CPUID_FN0000_000D_X0_EDX_LWP;
	if (!bit_ext && !bit_xs) {
		snprintf(caps->no_lwp, sizeof(caps->no_lwp),
			 "CPUID Fn8000_0001_ECX[15]=0");
		return;
	}
	/* 43724 §8.7.1: LWP is an AMD feature; check the vendor first. */
	if (strcmp(caps->vendor, X86_VENDOR_AMD_STR)) {
		snprintf(caps->no_lwp, sizeof(caps->no_lwp),
			 "vendor \"%s\" is not AuthenticAMD", caps->vendor);
		return;
	}
	/* 43724 §4.1: LWP state is managed only through XSAVE/XRSTOR. */
	if (!(f1.ecx & X86_CPUID_1_ECX_XSAVE)) {
		snprintf(caps->no_lwp, sizeof(caps->no_lwp),
			 "CPUID Fn0000_0001_ECX[XSAVE]=0");
		return;
	}
	if (!(f1.ecx & X86_CPUID_1_ECX_OSXSAVE)) {
		snprintf(caps->no_lwp, sizeof(caps->no_lwp),
			 "CR4.OSXSAVE=0");
		return;
	}
	/* 43724 §3.3: the capabilities are in Fn8000_001C. */
	if (!lwpt_cpuid_has_leaf(caps, LWP_CPUID_FN8000_001C)) {
		snprintf(caps->no_lwp, sizeof(caps->no_lwp),
			 "CPUID Fn8000_001C beyond max extended leaf %#x",
			 caps->max_ext_leaf);
		return;
	}
	lwpt_hw_cpuid(LWP_CPUID_FN8000_001C, 0, &caps->lwp_leaf);
	/*
	 * 43724 Table 3-1: EDX[0] (LwpAvail) says whether the rest of the
	 * leaf means anything; checked before any other field is believed.
	 */
	if (!(caps->lwp_leaf.edx & LWP_CPUID_LWPAVAIL)) {
		snprintf(caps->no_lwp, sizeof(caps->no_lwp),
			 "CPUID Fn8000_001C_EDX[0] (LwpAvail) is 0");
		memset(&caps->lwp_leaf, 0, sizeof(caps->lwp_leaf));
		return;
	}
	caps->lwp = true;
}

/* SDM 33.3.1. Leaves a reason in caps->no_pt if absent. */
static void lwpt_detect_pt(struct lwpt_caps *caps)
{
	struct lwpt_cpuid_regs l7 = {};

	if (lwpt_cpuid_has_leaf(caps, PT_CPUID_07H))
		lwpt_hw_cpuid(PT_CPUID_07H, 0, &l7);
	if (!(l7.ebx & PT_CPUID_07H_EBX_INTEL_PT)) {
		snprintf(caps->no_pt, sizeof(caps->no_pt),
			 "CPUID.07H:EBX[25]=0");
		return;
	}
	if (!lwpt_cpuid_has_leaf(caps, PT_CPUID_LEAF)) {
		snprintf(caps->no_pt, sizeof(caps->no_pt),
			 "CPUID leaf 14H beyond max leaf %#x", caps->max_leaf);
		return;
	}
	lwpt_hw_cpuid(PT_CPUID_LEAF, 0, &caps->pt_leaf[0]);
	/* SDM 33.3.1: sub-leaf 1 exists only if sub-leaf 0 EAX is non-zero. */
	if (caps->pt_leaf[0].eax & PT_CPUID_0_EAX_MAX_SUBLEAF_MASK)
		lwpt_hw_cpuid(PT_CPUID_LEAF, 1, &caps->pt_leaf[1]);
	caps->pt = true;
}

/*
 * SDM 17.4.9 (BTS), 17.4.9.1 (DTES64), 17.4.6 (DS-CPL). Leaves a reason
 * in caps->no_bts if BTS cannot be used. As perf's intel_ds_init(): no
 * BTS without the 64-bit DS format (DTES64), and none where
 * IA32_MISC_ENABLE.BTS_UNAVAILABLE (bit 11) is set.
 */
static void lwpt_detect_bts(struct lwpt_caps *caps)
{
	struct lwpt_cpuid_regs f1 = {};
	u64 misc;

	if (strcmp(caps->vendor, X86_VENDOR_INTEL_STR)) {
		snprintf(caps->no_bts, sizeof(caps->no_bts),
			 "vendor \"%s\" is not GenuineIntel", caps->vendor);
		return;
	}
	if (lwpt_cpuid_has_leaf(caps, X86_CPUID_FEATURES))
		lwpt_hw_cpuid(X86_CPUID_FEATURES, 0, &f1);
	caps->bts_leaf1 = f1;
	if (!(f1.edx & BTS_CPUID1_EDX_DS)) {
		snprintf(caps->no_bts, sizeof(caps->no_bts), "CPUID.1:EDX[21] (DS)=0");
		return;
	}
	if (!(f1.ecx & BTS_CPUID1_ECX_DTES64)) {
		snprintf(caps->no_bts, sizeof(caps->no_bts),
			 "CPUID.1:ECX[2] (DTES64)=0: no 64-bit DS save area");
		return;
	}
	if (lwpt_hw_rdmsr(IA32_MISC_ENABLE, &misc) ||
	    (misc & IA32_MISC_ENABLE_BTS_UNAVAILABLE)) {
		snprintf(caps->no_bts, sizeof(caps->no_bts),
			 "IA32_MISC_ENABLE.BTS_UNAVAILABLE=1");
		return;
	}
	caps->bts = true;
}

void lwpt_detect(struct lwpt_caps *caps)
{
	struct lwpt_cpuid_regs r;

	memset(caps, 0, sizeof(*caps));
	preempt_disable();
	lwpt_hw_cpuid(X86_CPUID_VENDOR, 0, &r);
	caps->max_leaf = r.eax;
	/* The vendor string is EBX, EDX, ECX in that order. */
	memcpy(&caps->vendor[0], &r.ebx, 4);
	memcpy(&caps->vendor[4], &r.edx, 4);
	memcpy(&caps->vendor[8], &r.ecx, 4);
	caps->vendor[X86_VENDOR_LEN] = '\0';
	lwpt_hw_cpuid(X86_CPUID_EXT_MAX, 0, &r);
	caps->max_ext_leaf = r.eax;

	lwpt_detect_lwp(caps);
	lwpt_detect_pt(caps);
	lwpt_detect_bts(caps);
	preempt_enable();
}
