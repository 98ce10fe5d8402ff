// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware layer of lwpt.ko: the real instructions.
 *
 * Instructions that can fault on a bad operand (XSETBV, XRSTOR, ...) carry an
 * exception-table entry, so a #GP becomes -EIO instead of an oops: a
 * subsystem bug must never take the machine down.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/processor.h>

#include <asm/asm.h>
#include <asm/cpufeature.h>
#include <asm/fpu/xcr.h>
#include <asm/msr.h>
#include <asm/nmi.h>

#include "hw.h"
#include "x86_cpuid.h"

MODULE_LICENSE("GPL");
MODULE_AUTHOR("lwpt developers");
MODULE_DESCRIPTION("AMD Lightweight Profiling and Intel Processor Trace");

/*
 * Execute @insn (operands in RDI, EDX:EAX and ECX) and evaluate to 0, or to
 * the trap number if it faulted: the fixup (EX_TYPE_FAULT) stores the trap
 * number in EAX and resumes after the instruction.
 */
#define LWPT_HW_INSN_SAFE(insn, ptr, lo, hi, idx)			\
({									\
	u32 __err;							\
									\
	asm volatile("1: " insn "\n\t"					\
		     "xor %[e], %[e]\n"					\
		     "2:\n\t"						\
		     _ASM_EXTABLE_TYPE(1b, 2b, EX_TYPE_FAULT)		\
		     : [e] "=a" (__err)					\
		     : "D" (ptr), "a" (lo), "d" (hi), "c" (idx)		\
		     : "memory");					\
	__err;								\
})

const char *lwpt_hw_name(void)
{
	return "native";
}

u32 lwpt_hw_flags(void)
{
	return 0;
}

int lwpt_hw_init(void)
{
	return 0;
}

void lwpt_hw_exit(void)
{
}

void lwpt_hw_cpuid(u32 leaf, u32 subleaf, struct lwpt_cpuid_regs *r)
{
	cpuid_count(leaf, subleaf, &r->eax, &r->ebx, &r->ecx, &r->edx);
}

int lwpt_hw_rdmsr(u32 msr, u64 *val)
{
	u64 v;

	if (rdmsrl_safe(msr, &v))
		return -EIO;
	*val = v;
	return 0;
}

int lwpt_hw_wrmsr(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val) ? -EIO : 0;
}

int lwpt_hw_xgetbv(u32 xcr, u64 *val)
{
	/* SDM Vol. 2 XGETBV: #UD if CR4.OSXSAVE = 0. */
	if (!boot_cpu_has(X86_FEATURE_OSXSAVE))
		return -ENODEV;
	/* #GP for ECX > 1, and for ECX = 1 without XGETBV1: do not execute. */
	if (xcr > 1 || (xcr == 1 && !boot_cpu_has(X86_FEATURE_XGETBV1)))
		return -EIO;
	*val = xgetbv(xcr);
	return 0;
}

int lwpt_hw_xsetbv(u32 xcr, u64 val)
{
	u32 err;

	if (!boot_cpu_has(X86_FEATURE_OSXSAVE))
		return -ENODEV;
	err = LWPT_HW_INSN_SAFE("xsetbv", NULL, lower_32_bits(val),
				upper_32_bits(val), xcr);
	return err ? -EIO : 0;
}

static bool lwpt_hw_area_ok(const void *area)
{
	return IS_ALIGNED((unsigned long)area, X86_XSAVE_ALIGN);
}

/* Components outside LWPT_HW_XSTATE_MASK are the kernel's: a caller bug. */
static bool lwpt_hw_mask_bad(u64 mask)
{
	return WARN_ON_ONCE(mask & ~LWPT_HW_XSTATE_MASK);
}

int lwpt_hw_xsave(void *area, u64 mask)
{
	u32 err;

	if (!boot_cpu_has(X86_FEATURE_OSXSAVE))
		return -ENODEV;
	if (lwpt_hw_mask_bad(mask))
		return -EINVAL;
	if (!lwpt_hw_area_ok(area))
		return -EIO;
	err = LWPT_HW_INSN_SAFE("xsave64 (%%rdi)", area,
				lower_32_bits(mask), upper_32_bits(mask), 0);
	return err ? -EIO : 0;
}

int lwpt_hw_xrstor(const void *area, u64 mask)
{
	u32 err;

	if (!boot_cpu_has(X86_FEATURE_OSXSAVE))
		return -ENODEV;
	if (lwpt_hw_mask_bad(mask))
		return -EINVAL;
	if (!lwpt_hw_area_ok(area))
		return -EIO;
	err = LWPT_HW_INSN_SAFE("xrstor64 (%%rdi)", area,
				lower_32_bits(mask), upper_32_bits(mask), 0);
	return err ? -EIO : 0;
}

int lwpt_hw_xsaves(void *area, u64 mask)
{
	u32 err;

	if (!boot_cpu_has(X86_FEATURE_XSAVES))
		return -EOPNOTSUPP;
	if (lwpt_hw_mask_bad(mask))
		return -EINVAL;
	if (!lwpt_hw_area_ok(area))
		return -EIO;
	err = LWPT_HW_INSN_SAFE("xsaves64 (%%rdi)", area,
				lower_32_bits(mask), upper_32_bits(mask), 0);
	return err ? -EIO : 0;
}

int lwpt_hw_xrstors(const void *area, u64 mask)
{
	u32 err;

	if (!boot_cpu_has(X86_FEATURE_XSAVES))
		return -EOPNOTSUPP;
	if (lwpt_hw_mask_bad(mask))
		return -EINVAL;
	if (!lwpt_hw_area_ok(area))
		return -EIO;
	err = LWPT_HW_INSN_SAFE("xrstors64 (%%rdi)", area,
				lower_32_bits(mask), upper_32_bits(mask), 0);
	return err ? -EIO : 0;
}

/* Serialises hook registration; the hooks themselves run lock-free. */
static DEFINE_MUTEX(lwpt_hw_hook_lock);
static lwpt_hw_irq_fn lwpt_hw_pmi_fn;
static void *lwpt_hw_pmi_data;

static int lwpt_hw_nmi(unsigned int type, struct pt_regs *regs)
{
	/* Pairs with the smp_store_release() in lwpt_hw_pmi_register(). */
	lwpt_hw_irq_fn fn = smp_load_acquire(&lwpt_hw_pmi_fn);

	if (fn && fn(lwpt_hw_pmi_data))
		return NMI_HANDLED;
	return NMI_DONE;
}

int lwpt_hw_pmi_register(lwpt_hw_irq_fn fn, void *data)
{
	int err;

	mutex_lock(&lwpt_hw_hook_lock);
	if (lwpt_hw_pmi_fn) {
		err = -EBUSY;
		goto out_unlock;
	}
	lwpt_hw_pmi_data = data;
	/* Pairs with the smp_load_acquire() in lwpt_hw_nmi(). */
	smp_store_release(&lwpt_hw_pmi_fn, fn);
	err = register_nmi_handler(NMI_LOCAL, lwpt_hw_nmi, 0, "lwpt_pmi");
	if (err)
		WRITE_ONCE(lwpt_hw_pmi_fn, NULL);
out_unlock:
	mutex_unlock(&lwpt_hw_hook_lock);
	return err;
}

void lwpt_hw_pmi_unregister(void)
{
	mutex_lock(&lwpt_hw_hook_lock);
	if (lwpt_hw_pmi_fn) {
		/* Waits for running handlers (synchronize_rcu()). */
		unregister_nmi_handler(NMI_LOCAL, "lwpt_pmi");
		WRITE_ONCE(lwpt_hw_pmi_fn, NULL);
	}
	mutex_unlock(&lwpt_hw_hook_lock);
}

int lwpt_hw_lwp_irq_register(lwpt_hw_irq_fn fn, void *data, u8 *vector)
{
	/* Issue 4 allocates the LWP threshold vector (43724 §8.7.1). */
	return -EOPNOTSUPP;
}

void lwpt_hw_lwp_irq_unregister(void)
{
}
