/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lwpt hardware layer: the one door to the processor.
 *
 * Every instruction the LWP and PT subsystems need goes through these
 * functions. Two implementations exist and are linked into two modules built
 * from the same subsystem objects:
 *   hw_native.c    - lwpt.ko: the real instructions and kernel helpers;
 *   sim/hw_sim.c   - lwpt_sim.ko: the software model (model/), which also
 *                    counts spec violations the subsystems commit.
 * Nothing outside these two files executes CPUID, RDMSR/WRMSR, XGETBV/XSETBV
 * or the XSAVE family, so the model sees exactly what hardware would see.
 *
 * "Current CPU" functions must be called with preemption disabled (or from a
 * context bound to one CPU, e.g. a cpuhp callback or smp_call_function).
 * MSR, XCR and XRSTOR functions return 0 or -EIO where the instruction would
 * raise #GP on hardware; the model also counts that as a spec violation.
 */
#ifndef LWPT_KMOD_HW_H
#define LWPT_KMOD_HW_H

#include <linux/bits.h>
#include <linux/types.h>

#include <lwpt/lwp_arch.h>
#include <lwpt/pt_rtit.h>

/*
 * The package version, MODULE_VERSION of both modules (hw_native.c,
 * sim/hw_sim.c: module info stays out of the shared objects): the same as
 * VERSION in the top Makefile and PACKAGE_VERSION in dkms.conf
 * (tests/packaging/install.sh checks).
 */
#define LWPT_PACKAGE_VERSION	"0.1.0"

/**
 * struct lwpt_cpuid_regs - output of one CPUID execution
 * @eax: EAX
 * @ebx: EBX
 * @ecx: ECX
 * @edx: EDX
 */
struct lwpt_cpuid_regs {
	u32 eax;
	u32 ebx;
	u32 ecx;
	u32 edx;
};

/* lwpt_hw_flags(): the layer is the model (lwpt_sim.ko). */
#define LWPT_HW_F_SIM	BIT(0)

/*
 * The XSAVE state components lwpt may save and restore: LWP (component 62,
 * 43724 §7) and PT (component 8, SDM Vol. 1 13.5.6). The others belong to
 * the kernel's FPU code; asking for them is a caller bug (-EINVAL).
 */
#define LWPT_HW_XSTATE_MASK	(LWP_XCR0_MASK | IA32_XSS_PT)

/**
 * lwpt_hw_name - name of the hardware layer ("native" or "model")
 *
 * Return: a static string.
 */
const char *lwpt_hw_name(void);

/**
 * lwpt_hw_flags - LWPT_HW_F_* bits describing the hardware layer
 *
 * Return: the flags; LWPT_HW_F_SIM when running on the model.
 */
u32 lwpt_hw_flags(void);

/**
 * lwpt_hw_init - bring up the hardware layer
 *
 * Called first by module init, before any other lwpt_hw_* function.
 * Native: nothing to do. Model: validates the profile parameters, builds
 * the per-CPU register files and the debugfs directory.
 *
 * Return: 0, -EINVAL for a bad module parameter, -ENOMEM.
 */
int lwpt_hw_init(void);

/**
 * lwpt_hw_exit - tear down what lwpt_hw_init() built
 *
 * Called last by module exit and on a failed module init.
 */
void lwpt_hw_exit(void);

/**
 * lwpt_hw_cpuid - execute CPUID on the current CPU
 * @leaf: EAX input
 * @subleaf: ECX input (ignored by leaves without sub-leaves)
 * @r: filled with EAX, EBX, ECX, EDX
 *
 * Leaves above the maximum standard/extended leaf return what the
 * processor returns for them; callers check the maximum leaf first
 * (lwpt_cpuid_has_leaf()).
 */
void lwpt_hw_cpuid(u32 leaf, u32 subleaf, struct lwpt_cpuid_regs *r);

/**
 * lwpt_hw_rdmsr - read an MSR of the current CPU
 * @msr: MSR index
 * @val: where the 64-bit value goes; untouched on failure
 *
 * Return: 0, or -EIO if RDMSR raised #GP (unsupported MSR).
 */
int lwpt_hw_rdmsr(u32 msr, u64 *val);

/**
 * lwpt_hw_wrmsr - write an MSR of the current CPU
 * @msr: MSR index
 * @val: 64-bit value
 *
 * Return: 0, or -EIO if WRMSR raised #GP (unsupported MSR, reserved bit set,
 * or a value the MSR's rules forbid).
 */
int lwpt_hw_wrmsr(u32 msr, u64 val);

/**
 * lwpt_hw_rdtsc - read the time stamp counter of the current CPU
 *
 * The clock of Intel PT's TSC packets (SDM 33.4.2.11); the model's
 * packets use the processor's own TSC too. Not serialising (RDTSC).
 *
 * Return: the TSC.
 */
u64 lwpt_hw_rdtsc(void);

/**
 * lwpt_hw_xgetbv - read an extended control register of the current CPU
 * @xcr: XCR index (0 = XCR0, XFEATURE_ENABLED_MASK)
 * @val: where the value goes
 *
 * Return: 0, -EIO if XGETBV raised #GP (unsupported index), -ENODEV if
 * CR4.OSXSAVE is clear (XGETBV would raise #UD).
 */
int lwpt_hw_xgetbv(u32 xcr, u64 *val);

/**
 * lwpt_hw_xsetbv - write an extended control register of the current CPU
 * @xcr: XCR index
 * @val: new value
 *
 * Setting XCR0[62] makes LWP available (43724 §4.1); clearing it stores 0
 * into LWP_CBADDR. Native: the kernel owns XCR0, so callers must restore the
 * kernel's value before returning to any other code.
 *
 * Return: 0, -EIO if XSETBV raised #GP (reserved or unsupported bit,
 * invalid combination), -ENODEV if CR4.OSXSAVE is clear.
 */
int lwpt_hw_xsetbv(u32 xcr, u64 val);

/**
 * lwpt_hw_xsave - XSAVE (standard format) of selected state components
 * @area: 64-byte aligned XSAVE area, at least the size CPUID
 *        Fn0000_000D_EBX_x0 reports for the current XCR0
 * @mask: requested-feature bitmap (EDX:EAX), within LWPT_HW_XSTATE_MASK;
 *        components not enabled in XCR0 are not saved (SDM Vol. 1 13.7)
 *
 * Return: 0, -EIO on #GP (misaligned area), -EINVAL (and a warning) if
 * @mask has bits outside LWPT_HW_XSTATE_MASK.
 */
int lwpt_hw_xsave(void *area, u64 mask);

/**
 * lwpt_hw_xrstor - XRSTOR (standard format) of selected state components
 * @area: 64-byte aligned XSAVE area written by lwpt_hw_xsave()
 * @mask: requested-feature bitmap
 *
 * Return: 0, -EIO if XRSTOR raised #GP (bad header, reserved bits),
 * -EINVAL as for lwpt_hw_xsave().
 */
int lwpt_hw_xrstor(const void *area, u64 mask);

/**
 * lwpt_hw_xsaves - XSAVES (compacted format, supervisor components)
 * @area: 64-byte aligned area, at least CPUID.(0DH,1):EBX bytes
 * @mask: requested-feature bitmap; supervisor bits must be set in IA32_XSS
 *
 * Return: 0, -EIO on #GP, -EOPNOTSUPP if XSAVES is not supported,
 * -EINVAL as for lwpt_hw_xsave().
 */
int lwpt_hw_xsaves(void *area, u64 mask);

/**
 * lwpt_hw_xrstors - XRSTORS (compacted format)
 * @area: area written by lwpt_hw_xsaves()
 * @mask: requested-feature bitmap
 *
 * Return: 0, -EIO if XRSTORS raised #GP, -EOPNOTSUPP or -EINVAL as
 * lwpt_hw_xsaves().
 */
int lwpt_hw_xrstors(const void *area, u64 mask);

/**
 * typedef lwpt_hw_irq_fn - interrupt hook of a subsystem
 * @data: the pointer given at registration
 *
 * Runs in hard-IRQ or NMI context on the CPU that raised the interrupt.
 *
 * Return: true if the interrupt was the subsystem's and was handled.
 */
typedef bool (*lwpt_hw_irq_fn)(void *data);

/**
 * enum lwpt_hw_pmi_consumer - the subsystems that share the PMI
 * @LWPT_HW_PMI_PT: Intel PT's ToPA PMI (SDM 33.2.7.2; kmod/pt)
 * @LWPT_HW_PMI_BTS: the BTS threshold interrupt, the "DS interrupt" of
 *	SDM 17.4.9.3 (kmod/bts); it has no IA32_PERF_GLOBAL_STATUS bit
 * @LWPT_HW_PMI_NR: number of consumers
 *
 * Every consumer is called for every PMI, in this order: one NMI can carry
 * a ToPA PMI and a BTS threshold at once (the local APIC delivers one NMI
 * for conditions raised while its LVT entry is masked or the NMI is being
 * handled).
 */
enum lwpt_hw_pmi_consumer {
	LWPT_HW_PMI_PT,
	LWPT_HW_PMI_BTS,
	LWPT_HW_PMI_NR,
};

/**
 * lwpt_hw_pmi_register - hook the performance-monitoring interrupt
 * @who: the consumer's slot (enum lwpt_hw_pmi_consumer)
 * @fn: called for every PMI; returns true if the PMI was the consumer's
 *	(the NMI is then claimed: NMI_HANDLED)
 * @data: passed to @fn
 *
 * Native: one NMI_LOCAL handler registered with NMI_FLAG_FIRST while any
 * consumer is registered, so that it runs before perf's (which
 * acknowledges every bit of IA32_PERF_GLOBAL_STATUS, bit 55 included); a
 * consumer must still not depend on seeing its status bit (another
 * NMI_FLAG_FIRST handler may come first), and BTS has none. The handler
 * calls every registered consumer, whatever the earlier ones answered.
 * Model: called when the model raises a PMI, with the "other handler" of
 * the pt_nmi_first_acker parameter before it (1) or after it (2, perf).
 * A consumer's hook never calls another consumer: each answers for its own
 * state only.
 *
 * Return: 0, -EINVAL if @who is out of range, -EBUSY if the slot is taken,
 * or register_nmi_handler()'s error.
 */
int lwpt_hw_pmi_register(enum lwpt_hw_pmi_consumer who, lwpt_hw_irq_fn fn,
			 void *data);

/**
 * lwpt_hw_pmi_rearm - unmask the LVT performance-monitor entry of this CPU
 *
 * Delivering a PMI sets the mask bit of the local APIC's LVT
 * performance-counter entry (SDM Vol. 3A 11.5.1); no further PMI reaches
 * the CPU until it is cleared, and a PMI raised meanwhile is lost (its
 * IA32_PERF_GLOBAL_STATUS bit stays set). perf clears it in
 * intel_pmu_handle_irq() only while perf events exist, so the PMI hook
 * has it cleared, as the ToPA PMI setup of SDM 33.2.7.2 asks ("Enable
 * PMI via the LVT Performance Monitor register ... set all fields to 0,
 * save for the interrupt vector"): NMI delivery. Call from the PMI hook,
 * after PendTopaPMI is cleared (SDM 33.2.7.2 "PMI Preservation").
 *
 * The unmask itself happens after every other handler of the NMI ran
 * (native: a second NMI_LOCAL handler, last on the list; model: after the
 * pt_nmi_first_acker handler): perf unmasks only after it reset its
 * overflowed counters ("This avoids spurious NMIs on Haswell CPUs",
 * intel_pmu_handle_irq() with late_ack), and an unmask by lwpt's hook,
 * which runs first, would undo that.
 */
void lwpt_hw_pmi_rearm(void);

/**
 * lwpt_hw_pmi_unregister - remove the hook of lwpt_hw_pmi_register()
 * @who: the consumer's slot
 *
 * Waits until no CPU runs the hook any more. Unregistering an empty slot
 * does nothing.
 */
void lwpt_hw_pmi_unregister(enum lwpt_hw_pmi_consumer who);

/**
 * lwpt_hw_lwp_irq_register - hook the LWP threshold interrupt
 * @fn: called for each threshold interrupt (43724 §2.4, LWP_CFG.VECTOR)
 * @data: passed to @fn
 * @vector: where the IDT vector to program into LWP_CFG.VECTOR goes
 *
 * @vector is the model's single vector; natively it is 0 and each CPU's
 * vector comes from lwpt_hw_lwp_irq_vector().
 *
 * Return: 0, -EBUSY if a hook is registered, -EOPNOTSUPP if the layer
 * cannot deliver the interrupt, or the error of the vector allocation.
 */
int lwpt_hw_lwp_irq_register(lwpt_hw_irq_fn fn, void *data, u8 *vector);

/**
 * lwpt_hw_lwp_irq_unregister - remove the hook of lwpt_hw_lwp_irq_register()
 */
void lwpt_hw_lwp_irq_unregister(void);

/**
 * lwpt_hw_lwp_irq_vector - the threshold vector of one CPU
 * @cpu: the CPU whose LWP_CFG.VECTOR is being programmed
 * @vector: where the vector goes (32..255)
 *
 * Native: every CPU has its own vector from the kernel's x86 vector domain;
 * it can change when the CPU goes offline and online, so read it in the
 * CPU's online callback (CPUHP_AP_ONLINE_DYN or later). Model: the one
 * vector of lwpt_hw_lwp_irq_register().
 *
 * Return: 0, or -ENODEV if no hook is registered or @cpu has no vector now.
 */
int lwpt_hw_lwp_irq_vector(unsigned int cpu, u8 *vector);

#endif /* LWPT_KMOD_HW_H */
