/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic x86 CPUID values the module needs for detection and that belong
 * neither to LWP (include/lwpt/lwp_arch.h) nor to PT (include/lwpt/pt_*.h).
 *
 * Sources: Intel SDM Vol. 2A "CPUID" (Table 3-8, Figure 3-7), AMD64 APM
 * Vol. 3 Appendix E (CPUID Fn0000_0000, Fn0000_0001, Fn8000_0000).
 */
#ifndef LWPT_KMOD_X86_CPUID_H
#define LWPT_KMOD_X86_CPUID_H

#include <linux/bits.h>

/* Fn0000_0000: EAX = largest standard leaf, EBX:EDX:ECX = vendor string. */
#define X86_CPUID_VENDOR		0x00000000u
/* Fn8000_0000: EAX = largest extended leaf. */
#define X86_CPUID_EXT_MAX		0x80000000u
/* First extended leaf: leaves at or above it are bounded by Fn8000_0000. */
#define X86_CPUID_EXT_BASE		0x80000000u

/* Vendor strings, as the three registers EBX, EDX, ECX in that order. */
#define X86_VENDOR_AMD_STR		"AuthenticAMD"
#define X86_VENDOR_INTEL_STR		"GenuineIntel"
#define X86_VENDOR_LEN			12

/* Fn0000_0001_ECX: XSAVE (bit 26) and OSXSAVE (CR4.OSXSAVE, bit 27). */
#define X86_CPUID_FEATURES		0x00000001u
/* Leaf 0AH, architectural performance monitoring (SDM Vol. 2A CPUID). */
#define X86_CPUID_PERFMON		0x0000000au
/*
 * Fn0000_0001_EAX, the processor signature (SDM Vol. 2A CPUID, Figure 3-6):
 * DisplayFamily = Family, plus Extended Family if Family is 0FH;
 * DisplayModel = Extended Model << 4 | Model if Family is 06H or 0FH.
 */
#define X86_CPUID_1_EAX_MODEL_SHIFT	4
#define X86_CPUID_1_EAX_MODEL_MASK	0xfu
#define X86_CPUID_1_EAX_FAMILY_SHIFT	8
#define X86_CPUID_1_EAX_FAMILY_MASK	0xfu
#define X86_CPUID_1_EAX_EXT_MODEL_SHIFT	16
#define X86_CPUID_1_EAX_EXT_MODEL_MASK	0xfu
#define X86_CPUID_1_EAX_EXT_FAMILY_SHIFT 20
#define X86_CPUID_1_EAX_EXT_FAMILY_MASK	0xffu
#define X86_CPUID_1_ECX_VMX		BIT(5)
#define X86_CPUID_1_ECX_XSAVE		BIT(26)
#define X86_CPUID_1_ECX_OSXSAVE		BIT(27)
/* CPUID.(07H,0):EBX[4] HLE, [11] RTM: TSX (SDM Vol. 2A, CPUID). */
#define X86_CPUID_7_EBX_HLE		BIT(4)
#define X86_CPUID_7_EBX_RTM		BIT(11)

/* XSAVE header follows the 512-byte legacy region (SDM Vol. 1 13.4.2). */
#define X86_XSAVE_HDR_OFFSET		512
#define X86_XSAVE_HDR_SIZE		64
/* XSAVE areas must be 64-byte aligned (SDM Vol. 1 13.7). */
#define X86_XSAVE_ALIGN			64

#endif /* LWPT_KMOD_X86_CPUID_H */
