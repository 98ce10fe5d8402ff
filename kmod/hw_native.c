// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware layer of lwpt.ko: the real instructions.
 *
 * Instructions that can fault on a bad operand (XSETBV, XRSTOR, ...) carry an
 * exception-table entry, so a #GP becomes -EIO instead of an oops: a
 * subsystem bug must never take the machine down.
 */
#include <linux/errno.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/processor.h>

#include <asm/apic.h>
#include <asm/asm.h>
#include <asm/cpu_device_id.h>
#include <asm/cpufeature.h>
#include <asm/fpu/xcr.h>
#include <asm/hw_irq.h>
#include <asm/irq_vectors.h>
#include <asm/irqdomain.h>
#include <asm/msr.h>
#include <asm/nmi.h>

#include "hw.h"
#include "x86_cpuid.h"

MODULE_LICENSE("GPL");
MODULE_AUTHOR("lwpt developers");
MODULE_DESCRIPTION("AMD Lightweight Profiling and Intel Processor Trace");
MODULE_VERSION(LWPT_PACKAGE_VERSION);

/*
 * The CPU features lwpt.ko drives (CPUID 8000_0001H:ECX[15] LWP, 43724
 * §3.1; CPUID 07H:EBX[25] Intel PT, SDM 33.3.1): udev loads the module
 * from this alias (x86cpu:...) on a machine that has either. lwpt_sim.ko
 * has none: the model is loaded by hand.
 */
static const struct x86_cpu_id lwpt_cpu_ids[] = {
	X86_MATCH_FEATURE(X86_FEATURE_LWP, NULL),
	X86_MATCH_FEATURE(X86_FEATURE_INTEL_PT, NULL),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, lwpt_cpu_ids);

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

u64 lwpt_hw_rdtsc(void)
{
	return rdtsc();
}

/*
 * A plain RDMSR with an exception-table entry (rdmsrl_safe()). Among the
 * MSRs read: IA32_DEBUGCTL (1D9H, architectural on every family 6
 * processor, so on every one with PT; bit 0 LBR, SDM Vol. 3B 17.4.1), read
 * by pt_config_lbr_check() on the CPU about to set TraceEn, in the IPI,
 * PMI or sched probe that sets it, never cached: another agent (perf's
 * LBR events, KVM, a debugger's BTF/LBR) may change it at any time, which
 * is why it is read at each enable. Reading it has no side effect.
 */
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

/*
 * What every XSAVE-family wrapper checks before the instruction: the
 * instruction exists (@xsaves: XSAVES/XRSTORS, else XSAVE/XRSTOR), @mask
 * names only LWPT_HW_XSTATE_MASK components (others are the kernel's: a
 * caller bug) and @area is aligned as the instruction requires (#GP).
 * Returns 0, or the wrapper's error: -ENODEV no XSAVE, -EOPNOTSUPP no
 * XSAVES, -EINVAL bad mask, -EIO misaligned area.
 */
static int lwpt_hw_xstate_check(const void *area, u64 mask, bool xsaves)
{
	if (!boot_cpu_has(X86_FEATURE_OSXSAVE))
		return xsaves ? -EOPNOTSUPP : -ENODEV;
	if (xsaves && !boot_cpu_has(X86_FEATURE_XSAVES))
		return -EOPNOTSUPP;
	if (WARN_ON_ONCE(mask & ~LWPT_HW_XSTATE_MASK))
		return -EINVAL;
	if (!IS_ALIGNED((unsigned long)area, X86_XSAVE_ALIGN))
		return -EIO;
	return 0;
}

int lwpt_hw_xsave(void *area, u64 mask)
{
	int ret = lwpt_hw_xstate_check(area, mask, false);
	u32 err;

	if (ret)
		return ret;
	err = LWPT_HW_INSN_SAFE("xsave64 (%%rdi)", area,
				lower_32_bits(mask), upper_32_bits(mask), 0);
	return err ? -EIO : 0;
}

int lwpt_hw_xrstor(const void *area, u64 mask)
{
	int ret = lwpt_hw_xstate_check(area, mask, false);
	u32 err;

	if (ret)
		return ret;
	err = LWPT_HW_INSN_SAFE("xrstor64 (%%rdi)", area,
				lower_32_bits(mask), upper_32_bits(mask), 0);
	return err ? -EIO : 0;
}

/*
 * XSAVES/XRSTORS (SDM Vol. 2; Vol. 1 13.11, 13.12): CPL 0 only, #UD without
 * CR4.OSXSAVE or CPUID.(0DH,1):EAX[3], #GP for an area not 64-byte aligned.
 * RFBM = (XCR0 | IA32_XSS) & EDX:EAX; the compacted format (XCOMP_BV[63]).
 * XRSTORS also #GPs on a bad header (XCOMP_BV[63] clear, XCOMP_BV outside
 * XCR0 | IA32_XSS, XSTATE_BV outside XCOMP_BV, bytes 16-63 not zero) or a
 * component value WRMSR would refuse (PT: TraceEn set, SDM Vol. 1 13.5.6):
 * the exception-table entry turns that into -EIO.
 */
int lwpt_hw_xsaves(void *area, u64 mask)
{
	int ret = lwpt_hw_xstate_check(area, mask, true);
	u32 err;

	if (ret)
		return ret;
	err = LWPT_HW_INSN_SAFE("xsaves64 (%%rdi)", area,
				lower_32_bits(mask), upper_32_bits(mask), 0);
	return err ? -EIO : 0;
}

int lwpt_hw_xrstors(const void *area, u64 mask)
{
	int ret = lwpt_hw_xstate_check(area, mask, true);
	u32 err;

	if (ret)
		return ret;
	err = LWPT_HW_INSN_SAFE("xrstors64 (%%rdi)", area,
				lower_32_bits(mask), upper_32_bits(mask), 0);
	return err ? -EIO : 0;
}

/* Serialises hook registration; the hooks themselves run lock-free. */
static DEFINE_MUTEX(lwpt_hw_hook_lock);

/**
 * struct lwpt_hw_pmi_hook - one consumer of the PMI
 * @fn: its hook, NULL while the slot is free
 * @data: the hook's argument
 */
struct lwpt_hw_pmi_hook {
	lwpt_hw_irq_fn fn;
	void *data;
};

static struct lwpt_hw_pmi_hook lwpt_hw_pmi_hooks[LWPT_HW_PMI_NR];
/* Slots in use; the NMI handlers are registered while it is not 0. */
static unsigned int lwpt_hw_pmi_users;
/* This CPU's PMI hook asked for LVTPC to be unmasked (lwpt_hw_pmi_rearm()). */
static DEFINE_PER_CPU(bool, lwpt_hw_pmi_unmask);

/*
 * Last on the NMI_LOCAL list (registered after perf's, without
 * NMI_FLAG_FIRST): unmask LVTPC if lwpt's hook asked, after every other
 * handler ran. Never claims the NMI.
 */
static int lwpt_hw_nmi_late(unsigned int type, struct pt_regs *regs)
{
	if (this_cpu_read(lwpt_hw_pmi_unmask)) {
		this_cpu_write(lwpt_hw_pmi_unmask, false);
		/*
		 * SDM 33.2.7.2 "ToPA PMI" step 1 and Vol. 3A 11.5.1: delivery
		 * mode NMI, mask bit clear, as perf's intel_pmu_handle_irq()
		 * writes it.
		 */
		apic_write(APIC_LVTPC, APIC_DM_NMI);
	}
	return NMI_DONE;
}

/*
 * Every consumer, whatever the others answered: one NMI may carry a ToPA
 * PMI and a BTS threshold (hw.h, enum lwpt_hw_pmi_consumer).
 */
static int lwpt_hw_nmi(unsigned int type, struct pt_regs *regs)
{
	bool handled = false;
	int i;

	for (i = 0; i < LWPT_HW_PMI_NR; i++) {
		struct lwpt_hw_pmi_hook *h = &lwpt_hw_pmi_hooks[i];
		/* Pairs with the smp_store_release() in lwpt_hw_pmi_register(). */
		lwpt_hw_irq_fn fn = smp_load_acquire(&h->fn);

		if (fn && fn(READ_ONCE(h->data)))
			handled = true;
	}
	return handled ? NMI_HANDLED : NMI_DONE;
}

int lwpt_hw_pmi_register(enum lwpt_hw_pmi_consumer who, lwpt_hw_irq_fn fn,
			 void *data)
{
	struct lwpt_hw_pmi_hook *h;
	int err = 0;

	if ((unsigned int)who >= LWPT_HW_PMI_NR || !fn)
		return -EINVAL;
	h = &lwpt_hw_pmi_hooks[who];
	mutex_lock(&lwpt_hw_hook_lock);
	if (h->fn) {
		err = -EBUSY;
		goto out_unlock;
	}
	if (!lwpt_hw_pmi_users) {
		/*
		 * First on the NMI_LOCAL list: perf's perf_event_nmi_handler()
		 * (via intel_pmu_handle_irq()) acknowledges all of
		 * IA32_PERF_GLOBAL_STATUS whenever a perf event exists (the NMI
		 * watchdog is one), and nmi.c's nmi_handle() calls the handlers
		 * in list order.
		 */
		err = register_nmi_handler(NMI_LOCAL, lwpt_hw_nmi, NMI_FLAG_FIRST,
					   "lwpt_pmi");
		/* Last on the list (list_add_tail_rcu()): after perf's handler. */
		if (!err) {
			err = register_nmi_handler(NMI_LOCAL, lwpt_hw_nmi_late, 0,
						   "lwpt_pmi_late");
			if (err)
				unregister_nmi_handler(NMI_LOCAL, "lwpt_pmi");
		}
		if (err)
			goto out_unlock;
	}
	WRITE_ONCE(h->data, data);
	/* Pairs with the smp_load_acquire() in lwpt_hw_nmi(). */
	smp_store_release(&h->fn, fn);
	lwpt_hw_pmi_users++;
out_unlock:
	mutex_unlock(&lwpt_hw_hook_lock);
	return err;
}

void lwpt_hw_pmi_rearm(void)
{
	this_cpu_write(lwpt_hw_pmi_unmask, true);
}

void lwpt_hw_pmi_unregister(enum lwpt_hw_pmi_consumer who)
{
	struct lwpt_hw_pmi_hook *h;

	if ((unsigned int)who >= LWPT_HW_PMI_NR)
		return;
	h = &lwpt_hw_pmi_hooks[who];
	mutex_lock(&lwpt_hw_hook_lock);
	if (h->fn) {
		WRITE_ONCE(h->fn, NULL);
		if (!--lwpt_hw_pmi_users) {
			/* Waits for running handlers (synchronize_rcu()). */
			unregister_nmi_handler(NMI_LOCAL, "lwpt_pmi");
			unregister_nmi_handler(NMI_LOCAL, "lwpt_pmi_late");
		} else {
			/* nmi_handle() runs the handlers under rcu_read_lock(). */
			synchronize_rcu();
		}
	}
	mutex_unlock(&lwpt_hw_hook_lock);
}

/*
 * The LWP threshold interrupt (43724 §8.5, §8.7.1: "the operating system
 * must assign a vector for LWP threshold interrupts and fill in the
 * corresponding entry in the interrupt-descriptor table").
 *
 * LWP raises it through the local APIC of the CPU whose ring crossed the
 * threshold, with LWP_CFG.VECTOR of that CPU. A module cannot take a system
 * vector (alloc_intr_gate() is not exported), so each possible CPU gets one
 * interrupt of its own in the kernel's x86 vector domain, managed and bound
 * to that CPU: the vector allocator reserves a vector on it, the IDT entry is
 * the kernel's (common_interrupt -> vector_irq -> this irq_desc), the
 * lapic_controller chip sends the EOI, and the core shuts the interrupt down
 * when the CPU goes offline and starts it (maybe on another vector) when it
 * comes back, before CPUHP_AP_ONLINE_DYN callbacks read the vector again
 * (lwpt_hw_lwp_irq_vector()). Not verified on hardware (none here).
 */
static DEFINE_PER_CPU(int, lwpt_hw_lwp_irq);
static lwpt_hw_irq_fn lwpt_hw_lwp_fn;
static void *lwpt_hw_lwp_data;

static irqreturn_t lwpt_hw_lwp_isr(int irq, void *dev)
{
	return lwpt_hw_lwp_fn(lwpt_hw_lwp_data) ? IRQ_HANDLED : IRQ_NONE;
}

static void lwpt_hw_lwp_irqs_free(void)
{
	int cpu, irq;

	for_each_possible_cpu(cpu) {
		irq = per_cpu(lwpt_hw_lwp_irq, cpu);
		if (irq <= 0)
			continue;
		if (irq_has_action(irq))
			free_irq(irq, &lwpt_hw_lwp_fn);
		irq_dispose_mapping(irq);
		per_cpu(lwpt_hw_lwp_irq, cpu) = 0;
	}
}

/* A managed interrupt in the x86 vector domain, bound to @cpu. */
static int lwpt_hw_lwp_irq_alloc(int cpu)
{
	struct irq_affinity_desc aff = { .is_managed = 1 };
	struct irq_alloc_info info;
	int irq, err;

	memset(&info, 0, sizeof(info));
	cpumask_copy(&aff.mask, cpumask_of(cpu));
	irq = __irq_domain_alloc_irqs(x86_vector_domain, -1, 1, cpu_to_node(cpu),
				      &info, false, &aff);
	if (irq < 0)
		return irq;
	per_cpu(lwpt_hw_lwp_irq, cpu) = irq;
	irq_set_handler(irq, handle_edge_irq);
	err = request_irq(irq, lwpt_hw_lwp_isr, IRQF_NOBALANCING, "lwpt-lwp",
			  &lwpt_hw_lwp_fn);
	return err;
}

int lwpt_hw_lwp_irq_register(lwpt_hw_irq_fn fn, void *data, u8 *vector)
{
	int cpu, err = 0;

	mutex_lock(&lwpt_hw_hook_lock);
	if (lwpt_hw_lwp_fn) {
		err = -EBUSY;
		goto out_unlock;
	}
	lwpt_hw_lwp_data = data;
	/* Before request_irq(): the handler may run at once. */
	WRITE_ONCE(lwpt_hw_lwp_fn, fn);
	for_each_possible_cpu(cpu) {
		err = lwpt_hw_lwp_irq_alloc(cpu);
		if (err)
			break;
	}
	if (err) {
		lwpt_hw_lwp_irqs_free();
		WRITE_ONCE(lwpt_hw_lwp_fn, NULL);
	}
	/* One vector per CPU: see lwpt_hw_lwp_irq_vector(). */
	*vector = 0;
out_unlock:
	mutex_unlock(&lwpt_hw_hook_lock);
	return err;
}

void lwpt_hw_lwp_irq_unregister(void)
{
	mutex_lock(&lwpt_hw_hook_lock);
	if (lwpt_hw_lwp_fn) {
		/* free_irq() waits for running handlers. */
		lwpt_hw_lwp_irqs_free();
		WRITE_ONCE(lwpt_hw_lwp_fn, NULL);
	}
	mutex_unlock(&lwpt_hw_hook_lock);
}

int lwpt_hw_lwp_irq_vector(unsigned int cpu, u8 *vector)
{
	int irq = per_cpu(lwpt_hw_lwp_irq, cpu);
	struct irq_data *d = irq > 0 ? irq_get_irq_data(irq) : NULL;
	struct irq_cfg *cfg = d ? irqd_cfg(d) : NULL;

	unsigned int v = cfg ? READ_ONCE(cfg->vector) : 0;

	/* No vector of its own while the interrupt is shut down (offline). */
	if (!d || v < FIRST_EXTERNAL_VECTOR ||
	    v == MANAGED_IRQ_SHUTDOWN_VECTOR ||
	    !cpumask_test_cpu(cpu, irq_data_get_effective_affinity_mask(d)))
		return -ENODEV;
	*vector = v;
	return 0;
}
