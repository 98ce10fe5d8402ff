/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TEMPORARY: Intel PT MSR indices the model layer needs before
 * include/lwpt/pt_arch.h lands. Each is guarded so that the shared header
 * wins as soon as it exists; delete this file then.
 *
 * Source: Intel SDM Vol. 3C 33.2.8 (Table 33-6), Vol. 4 Table 2-2.
 */
#ifndef LWPT_KMOD_ARCH_COMPAT_H
#define LWPT_KMOD_ARCH_COMPAT_H

#if __has_include(<lwpt/pt_arch.h>)
#include <lwpt/pt_arch.h>
#endif

#ifndef IA32_RTIT_OUTPUT_BASE
#define IA32_RTIT_OUTPUT_BASE		0x00000560u
#endif
#ifndef IA32_RTIT_OUTPUT_MASK_PTRS
#define IA32_RTIT_OUTPUT_MASK_PTRS	0x00000561u
#endif
#ifndef IA32_RTIT_CTL
#define IA32_RTIT_CTL			0x00000570u
#endif
#ifndef IA32_RTIT_STATUS
#define IA32_RTIT_STATUS		0x00000571u
#endif
#ifndef IA32_RTIT_CR3_MATCH
#define IA32_RTIT_CR3_MATCH		0x00000572u
#endif
#ifndef IA32_RTIT_ADDR0_A
#define IA32_RTIT_ADDR0_A		0x00000580u
#endif

#endif /* LWPT_KMOD_ARCH_COMPAT_H */
