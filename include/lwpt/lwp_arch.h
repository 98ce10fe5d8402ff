/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * AMD Lightweight Profiling (LWP): architectural definitions.
 *
 * Source: AMD "Lightweight Profiling Specification", publication 43724,
 * revision 3.04. Every value here is cited to its section, table or figure.
 * Shared by the kernel module and user space; no name here collides with the
 * kernel's (X86_FEATURE_LWP, MSR_AMD64_LWP_*) nor with liblwp's public API.
 */
#ifndef LWPT_LWP_ARCH_H
#define LWPT_LWP_ARCH_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/* 43724 §3: CPUID Fn8000_0001 ECX bit 15 reports LWP support. */
#define LWP_CPUID_FN8000_0001			0x80000001u
#define LWP_CPUID_FN8000_0001_ECX_LWP		(1u << 15)

/* 43724 §3, Table 3-1: the LWP feature leaf. */
#define LWP_CPUID_FN8000_001C			0x8000001Cu

/* 43724 §3, §7: XSAVE enumeration leaf; Fn0000_000D_x0 EDX bit 30 = XCR0[62]. */
#define LWP_CPUID_FN0000_000D			0x0000000Du
#define LWP_CPUID_FN0000_000D_X0_EDX_LWP	(1u << 30)

/* 43724 §7: LWP state is XSAVE state component 62. */
#define LWP_XSTATE_COMPONENT			62
#define LWP_XCR0_MASK				(1ull << LWP_XSTATE_COMPONENT)

/* 43724 §4: LWP model-specific registers. */
#define LWP_MSR_CFG				0xC0000105u
#define LWP_MSR_CBADDR				0xC0000106u

#endif /* LWPT_LWP_ARCH_H */
