/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CR3 value a CPU holds while a process runs in user mode, as the PT
 * CR3 filter compares it (SDM 33.2.4.2: IA32_RTIT_CR3_MATCH[63:5] against
 * CR3[63:5]).
 */
#ifndef LWPT_KMOD_X86_USER_CR3_H
#define LWPT_KMOD_X86_USER_CR3_H

#include <linux/mm_types.h>

#include <asm/cpufeature.h>
#include <asm/page.h>

/**
 * lwpt_user_cr3 - CR3 of @mm's user mode, without PCID bits
 * @mm: the address space
 *
 * The physical address of the PGD; under page-table isolation user mode
 * runs on the user copy one page above the kernel's (PTI_USER_PGTABLE_BIT).
 * The PCID the kernel assigns (CR3[11:0]) is not predictable and is left
 * out (Documentation/pt.rst).
 *
 * Return: the CR3 value, a physical address.
 */
static inline u64 lwpt_user_cr3(const struct mm_struct *mm)
{
	u64 cr3 = __pa(mm->pgd);

#ifdef CONFIG_PAGE_TABLE_ISOLATION
	if (boot_cpu_has(X86_FEATURE_PTI))
		cr3 |= BIT_ULL(PAGE_SHIFT);
#endif
	return cr3;
}

#endif /* LWPT_KMOD_X86_USER_CR3_H */
