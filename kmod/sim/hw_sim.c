// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware layer of lwpt_sim.ko: the same subsystems as lwpt.ko, on a
 * software model of the processor.
 *
 * Every operation that would raise #GP or #UD on a processor with the
 * simulated CPUID fails here too (-EIO, -ENODEV, -EOPNOTSUPP) and counts a
 * spec violation, visible at debugfs lwpt_sim/violations. The LWP and PT
 * semantics (issues 3 and 5) plug in behind these functions; for now the
 * layer keeps a per-CPU register file and checks only the rules below.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <asm/msr.h>

#include <lwpt/lwp_arch.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_rtit.h>

#include "model/lwp/lwp_model.h"
#include "model/pt/pt_model.h"

#include "../x86_cpuid.h"
#include "sim.h"
#include "pt_sim.h"
#include "sim_step.h"
#include "sim_ptwrite.h"

MODULE_LICENSE("GPL");
MODULE_AUTHOR("lwpt developers");
MODULE_DESCRIPTION("AMD LWP and Intel PT on a software model of the processor");
MODULE_VERSION(LWPT_PACKAGE_VERSION);

static DEFINE_PER_CPU(struct sim_cpu, sim_cpus);
static atomic_t sim_violations = ATOMIC_INIT(0);
static struct dentry *sim_debugfs;

/* Serialises hook registration; the hooks themselves run lock-free. */
static DEFINE_MUTEX(sim_hook_lock);
static lwpt_hw_irq_fn sim_pmi_fn;
static void *sim_pmi_data;
static lwpt_hw_irq_fn sim_lwp_irq_fn;
static void *sim_lwp_irq_data;

/*
 * Family 15h as field-tested code saw it (issue 14), switchable at run time
 * so that the VM tests run every LWP case both ways.
 */
static bool lwp_xsave_drops_int;
module_param(lwp_xsave_drops_int, bool, 0644);
MODULE_PARM_DESC(lwp_xsave_drops_int,
		 "XSAVE stores the LWP Flags without bit 31 (INT), as rr saw on Family 15h; XRSTOR then restores LWP without threshold interrupts (default off)");

static uint lwp_xcr0_steal;
module_param(lwp_xcr0_steal, uint, 0644);
MODULE_PARM_DESC(lwp_xcr0_steal,
		 "Test aid: the next N XGETBVs with IRQs off (a sched-out) that would see XCR0[62]=1 find it cleared by another kernel user first, LWP_CBADDR zeroed, as after a KVM guest entry or fpu__resume_cpu (default 0)");

static int lwp_cfg_fail_cpu = -1;
module_param(lwp_cfg_fail_cpu, int, 0644);
MODULE_PARM_DESC(lwp_cfg_fail_cpu,
		 "Test aid: on this CPU a non-zero WRMSR LWP_CFG fails, as on a part that refuses the value (default -1: none)");

/* The model does not go through the IDT; any fixed vector will do. */
#define SIM_LWP_VECTOR	0xEE

int sim_violation_count(void)
{
	return atomic_read(&sim_violations);
}

void sim_violation(const char *what)
{
	atomic_inc(&sim_violations);
	pr_notice_ratelimited("spec violation: %s\n", what);
}

static void sim_pmi_init(struct dentry *dir);

/* The register file of the executing CPU; callers keep preemption off. */
static struct sim_cpu *sim_this_cpu(void)
{
	lockdep_assert_preemption_disabled();
	return this_cpu_ptr(&sim_cpus);
}

const char *lwpt_hw_name(void)
{
	return "model";
}

u32 lwpt_hw_flags(void)
{
	return LWPT_HW_F_SIM;
}

/* The leaves debugfs lwpt_sim/cpuid shows: what detection and tools read. */
static const struct {
	u32 leaf;
	u32 subleaf;
} sim_cpuid_shown[] = {
	{ X86_CPUID_VENDOR, 0 },
	{ X86_CPUID_FEATURES, 0 },
	{ PT_CPUID_07H, 0 },
	{ LWP_CPUID_FN0000_000D, 0 },
	{ LWP_CPUID_FN0000_000D, 1 },
	{ LWP_CPUID_FN0000_000D, PT_XSTATE_COMPONENT },
	{ LWP_CPUID_FN0000_000D, LWP_CPUID_FN0000_000D_SUBLEAF_LWP },
	{ PT_CPUID_LEAF, 0 },
	{ PT_CPUID_LEAF, 1 },
	{ PT_CPUID_15H, 0 },
	{ X86_CPUID_EXT_MAX, 0 },
	{ LWP_CPUID_FN8000_0001, 0 },
	{ PT_CPUID_80000008H, 0 },
	{ LWP_CPUID_FN8000_001C, 0 },
};

/* debugfs lwpt_sim/cpuid: the model's CPUID as this CPU reports it now. */
static int sim_cpuid_show(struct seq_file *m, void *v)
{
	struct lwpt_cpuid_regs r;
	size_t i;
	int cpu;

	for (i = 0; i < ARRAY_SIZE(sim_cpuid_shown); i++) {
		cpu = get_cpu();
		lwpt_hw_cpuid(sim_cpuid_shown[i].leaf, sim_cpuid_shown[i].subleaf,
			      &r);
		put_cpu();
		seq_printf(m, "cpu%d %08x.%02x: eax=%08x ebx=%08x ecx=%08x edx=%08x\n",
			   cpu, sim_cpuid_shown[i].leaf, sim_cpuid_shown[i].subleaf,
			   r.eax, r.ebx, r.ecx, r.edx);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_cpuid);

int lwpt_hw_init(void)
{
	int cpu, err;

	err = sim_cpuid_init();
	if (err)
		return err;
	atomic_set(&sim_violations, 0);
	for_each_possible_cpu(cpu) {
		struct sim_cpu *c = per_cpu_ptr(&sim_cpus, cpu);

		memset(c, 0, sizeof(*c));
		/* x87 and SSE are enabled as on any running x86-64 kernel. */
		c->xcr0 = sim_xcr0_supported() & ~LWP_XCR0_MASK;
	}
	/* debugfs is optional: errors leave the module working without it. */
	sim_debugfs = debugfs_create_dir("lwpt_sim", NULL);
	debugfs_create_atomic_t("violations", 0444, sim_debugfs,
				&sim_violations);
	debugfs_create_file("cpuid", 0444, sim_debugfs, NULL, &sim_cpuid_fops);
	sim_pmi_init(sim_debugfs);
	sim_selftest_debugfs(sim_debugfs);
	/* The PT model behind the RTIT MSRs (issue 5). */
	err = sim_pt_init(sim_debugfs);
	/* Single-stepping of the user-mode execution the models watch. */
	if (!err)
		err = sim_step_init(sim_debugfs);
	if (!err) {
		/* PTWRITE where the CPU raises #UD on it (QEMU TCG). */
		err = sim_ptwrite_init();
		if (err)
			sim_step_exit();
	}
	if (err) {
		sim_pt_exit();
		debugfs_remove_recursive(sim_debugfs);
		sim_debugfs = NULL;
		return err;
	}
	return 0;
}

void lwpt_hw_exit(void)
{
	sim_ptwrite_exit();
	sim_step_exit();
	sim_pt_exit();
	debugfs_remove_recursive(sim_debugfs);
	sim_debugfs = NULL;
}

void lwpt_hw_cpuid(u32 leaf, u32 subleaf, struct lwpt_cpuid_regs *r)
{
	sim_cpuid(sim_this_cpu(), leaf, subleaf, r);
}

/* Pointer to the MSR in the register file, NULL if the MSR does not exist. */
static u64 *sim_msr(struct sim_cpu *c, u32 msr)
{
	int slot;

	if (sim_has_lwp()) {
		if (msr == LWP_MSR_CFG)
			return &c->lwp_cfg;
		if (msr == LWP_MSR_CBADDR)
			return &c->lwp_cbaddr;
	}
	slot = sim_rtit_slot(msr);
	return slot < 0 ? NULL : &c->rtit[slot];
}

/*
 * IA32_XSS (SDM Vol. 1 13.3): exists with XSAVES; only the bits of
 * CPUID.(0DH,1):EDX:ECX may be set. The PT model keeps a copy for its
 * XSAVES/XRSTORS rules.
 */
static int sim_xss_write(struct sim_cpu *c, u64 val)
{
	struct pt_model_cpu *m;
	unsigned long flags;
	int err = 0;

	if (!sim_has_pt_xsaves() || (val & ~sim_xss_supported())) {
		sim_violation("WRMSR IA32_XSS: no XSAVES or unsupported bit (#GP)");
		return -EIO;
	}
	local_irq_save(flags);
	m = sim_pt_xsaves_cpu();
	if (m && pt_model_wrmsr(m, IA32_XSS, val) != PT_MODEL_OK)
		err = -EIO;
	local_irq_restore(flags);
	if (!err)
		c->xss = val;
	return err;
}

/* The model's PT units stamp packets with the host's TSC (sim_step.c). */
u64 lwpt_hw_rdtsc(void)
{
	return rdtsc();
}

int lwpt_hw_rdmsr(u32 msr, u64 *val)
{
	u64 *reg = sim_msr(sim_this_cpu(), msr);
	int err;

	if (msr == IA32_XSS && sim_has_pt_xsaves()) {
		*val = sim_this_cpu()->xss;
		return 0;
	}
	err = sim_pt_rdmsr(msr, val);

	/* The PT model's MSRs (pt_sim.c) first. */
	if (err != -ENOENT)
		return err;

	if (!reg) {
		sim_violation("RDMSR of an MSR the CPUID profile does not enumerate (#GP)");
		return -EIO;
	}
	*val = *reg;
	return 0;
}

int lwpt_hw_wrmsr(u32 msr, u64 val)
{
	u64 *reg = sim_msr(sim_this_cpu(), msr);
	int err;

	/* lwp_cfg_fail_cpu: a refusal of the part, not a driver bug. */
	if (msr == LWP_MSR_CFG && val &&
	    READ_ONCE(lwp_cfg_fail_cpu) == (int)smp_processor_id())
		return -EIO;

	if (msr == IA32_XSS)
		return sim_xss_write(sim_this_cpu(), val);
	err = sim_pt_wrmsr(msr, val);

	/* The PT model's MSRs (pt_sim.c) first. */
	if (err != -ENOENT)
		return err;

	if (!reg) {
		sim_violation("WRMSR of an MSR the CPUID profile does not enumerate (#GP)");
		return -EIO;
	}
	*reg = val;
	return 0;
}

/*
 * lwp_xcr0_steal: another kernel user sets XCR0 without bit 62 and back
 * to its own idea of XCR0, also without it (KVM's guest XCR0 switch,
 * fpu__resume_cpu()): 43724 §4.1, LWP_CBADDR and the state are gone.
 */
static void sim_lwp_xcr0_steal(struct sim_cpu *c)
{
	unsigned int n = READ_ONCE(lwp_xcr0_steal);

	if (!n || !irqs_disabled() || !(c->xcr0 & LWP_XCR0_MASK) ||
	    cmpxchg(&lwp_xcr0_steal, n, n - 1) != n)
		return;
	c->xcr0 &= ~LWP_XCR0_MASK;
	c->lwp_cbaddr = 0;
	memset(c->lwp_xstate, 0, SIM_LWP_XSAVE_SIZE);
}

int lwpt_hw_xgetbv(u32 xcr, u64 *val)
{
	/* SDM Vol. 2 XGETBV: only XCR0 without XGETBV1 (not modelled). */
	if (xcr != 0) {
		sim_violation("XGETBV with ECX != 0 (#GP)");
		return -EIO;
	}
	sim_lwp_xcr0_steal(sim_this_cpu());
	*val = sim_this_cpu()->xcr0;
	return 0;
}

int lwpt_hw_xsetbv(u32 xcr, u64 val)
{
	struct sim_cpu *c = sim_this_cpu();

	/* SDM Vol. 2 XSETBV: #GP for ECX != 0, XCR0[0] = 0, unsupported bits. */
	if (xcr != 0 || !(val & 1) || (val & ~sim_xcr0_supported())) {
		sim_violation("XSETBV with an invalid index or value (#GP)");
		return -EIO;
	}
	/* 43724 §4.1: clearing XCR0[62] stores 0 into LWP_CBADDR. */
	if (!(val & LWP_XCR0_MASK))
		c->lwp_cbaddr = 0;
	c->xcr0 = val;
	return 0;
}

static u64 *sim_xsave_hdr(void *area)
{
	return (u64 *)((u8 *)area + X86_XSAVE_HDR_OFFSET);
}

/* Alignment and the components lwpt may save; 0 or an error. */
static int sim_xsave_check(const void *area, u64 mask)
{
	if (!IS_ALIGNED((unsigned long)area, X86_XSAVE_ALIGN)) {
		sim_violation("XSAVE area not 64-byte aligned (#GP)");
		return -EIO;
	}
	/* x87/SSE are the kernel's state: asking for them is a caller bug. */
	if (WARN_ON_ONCE(mask & ~LWPT_HW_XSTATE_MASK))
		return -EINVAL;
	return 0;
}

static int sim_xsave(void *area, u64 mask, bool quirks)
{
	struct sim_cpu *c = sim_this_cpu();
	u64 rfbm = mask & c->xcr0;
	u64 *hdr = sim_xsave_hdr(area);
	int err;

	err = sim_xsave_check(area, mask);
	if (err)
		return err;
	/* SDM Vol. 1 13.7: XSTATE_BV bits outside RFBM are not written. */
	hdr[0] &= ~rfbm;
	if (rfbm & LWP_XCR0_MASK) {
		memcpy((u8 *)area + SIM_LWP_XSAVE_OFFSET, c->lwp_xstate,
		       SIM_LWP_XSAVE_SIZE);
		if (memchr_inv(c->lwp_xstate, 0, SIM_LWP_XSAVE_SIZE))
			hdr[0] |= LWP_XCR0_MASK;
		if (quirks && READ_ONCE(lwp_xsave_drops_int))
			lwp_model_xsave_drop_int((void *)((u8 *)area +
							  SIM_LWP_XSAVE_OFFSET));
	}
	return 0;
}

int lwpt_hw_xsave(void *area, u64 mask)
{
	return sim_xsave(area, mask, true);
}

int hw_sim_lwp_state_get(void *area)
{
	return sim_xsave(area, LWP_XCR0_MASK, false);
}

int lwpt_hw_xrstor(const void *area, u64 mask)
{
	struct sim_cpu *c = sim_this_cpu();
	u64 rfbm = mask & c->xcr0;
	const u64 *hdr = sim_xsave_hdr((void *)area);
	int err, i;

	err = sim_xsave_check(area, mask);
	if (err)
		return err;
	/*
	 * SDM Vol. 1 13.8: #GP if XCOMP_BV is not zero (no XSAVEC here), if
	 * XSTATE_BV has bits outside XCR0, or if header bytes 16-63 are not
	 * zero.
	 */
	for (i = 2; i < X86_XSAVE_HDR_SIZE / 8; i++)
		if (hdr[i])
			break;
	if (hdr[1] || (hdr[0] & ~c->xcr0) || i < X86_XSAVE_HDR_SIZE / 8) {
		sim_violation("XRSTOR with an invalid XSAVE header (#GP)");
		return -EIO;
	}
	if (!(rfbm & LWP_XCR0_MASK))
		return 0;
	if (hdr[0] & LWP_XCR0_MASK) {
		memcpy(c->lwp_xstate, (const u8 *)area + SIM_LWP_XSAVE_OFFSET,
		       SIM_LWP_XSAVE_SIZE);
	} else {
		/* 43724 §8.7.2: XSTATE_BV[62] = 0 turns LWP off. */
		memset(c->lwp_xstate, 0, SIM_LWP_XSAVE_SIZE);
		c->lwp_cbaddr = 0;
	}
	return 0;
}

/*
 * The compacted format (SDM Vol. 1 13.4.3): after the legacy region and
 * the header, the components of XCOMP_BV in order, none of ours aligned
 * (CPUID.(0DH,i):ECX[1] = 0): PT (8) at 576, then LWP (62).
 */
static size_t sim_xsaves_offset(u64 xcomp_bv, unsigned int comp)
{
	size_t off = X86_XSAVE_HDR_OFFSET + X86_XSAVE_HDR_SIZE;

	if (comp == LWP_XSTATE_COMPONENT && (xcomp_bv & IA32_XSS_PT))
		off += PT_XSAVE_STATE_SIZE;
	return off;
}

/* #UD without XSAVES; alignment and the components lwpt may name. */
static int sim_xsaves_check(const void *area, u64 mask, const char *insn)
{
	if (!sim_has_pt_xsaves()) {
		/* CPUID.(0DH,1):EAX[3] = 0: XSAVES and XRSTORS raise #UD. */
		sim_violation(insn);
		return -EOPNOTSUPP;
	}
	return sim_xsave_check(area, mask);
}

int lwpt_hw_xsaves(void *area, u64 mask)
{
	struct sim_cpu *c = sim_this_cpu();
	u64 rfbm = mask & (c->xcr0 | c->xss);
	u64 *hdr = sim_xsave_hdr(area);
	struct pt_model_cpu *m;
	unsigned long flags;
	bool saved = false;
	int err;

	err = sim_xsaves_check(area, mask,
			       "XSAVES without CPUID.(0DH,1):EAX[3] (#UD)");
	if (err)
		return err;
	/*
	 * SDM Vol. 1 13.11: XSTATE_BV[i] = 0 for i not in RFBM and for
	 * components in their initial state; XCOMP_BV = bit 63 | RFBM.
	 */
	hdr[0] = 0;
	hdr[1] = BIT_ULL(63) | rfbm;
	if (rfbm & IA32_XSS_PT) {
		struct pt_xsave_state *pt = (struct pt_xsave_state *)
			((u8 *)area + sim_xsaves_offset(rfbm, PT_XSTATE_COMPONENT));

		local_irq_save(flags);
		m = sim_pt_xsaves_cpu();
		if (m && pt_model_xsaves(m, rfbm, pt, &saved) != PT_MODEL_OK)
			err = -EIO;
		local_irq_restore(flags);
		if (saved)
			hdr[0] |= IA32_XSS_PT;
	}
	if (rfbm & LWP_XCR0_MASK) {
		memcpy((u8 *)area + sim_xsaves_offset(rfbm, LWP_XSTATE_COMPONENT),
		       c->lwp_xstate, SIM_LWP_XSAVE_SIZE);
		if (memchr_inv(c->lwp_xstate, 0, SIM_LWP_XSAVE_SIZE))
			hdr[0] |= LWP_XCR0_MASK;
	}
	return err;
}

int lwpt_hw_xrstors(const void *area, u64 mask)
{
	struct sim_cpu *c = sim_this_cpu();
	u64 rfbm = mask & (c->xcr0 | c->xss);
	const u64 *hdr = sim_xsave_hdr((void *)area);
	struct pt_model_cpu *m;
	unsigned long flags;
	int err, i;

	err = sim_xsaves_check(area, mask,
			       "XRSTORS without CPUID.(0DH,1):EAX[3] (#UD)");
	if (err)
		return err;
	/*
	 * SDM Vol. 1 13.12: #GP if XCOMP_BV[63] = 0, if XCOMP_BV has a bit
	 * outside XCR0 | IA32_XSS, if XSTATE_BV has a bit outside XCOMP_BV,
	 * or if header bytes 16-63 are not zero.
	 */
	for (i = 2; i < X86_XSAVE_HDR_SIZE / 8; i++)
		if (hdr[i])
			break;
	if (!(hdr[1] & BIT_ULL(63)) ||
	    (hdr[1] & ~BIT_ULL(63) & ~(c->xcr0 | c->xss)) ||
	    (hdr[0] & ~hdr[1]) || i < X86_XSAVE_HDR_SIZE / 8) {
		sim_violation("XRSTORS with an invalid XSAVE header (#GP)");
		return -EIO;
	}
	if (rfbm & IA32_XSS_PT) {
		local_irq_save(flags);
		m = sim_pt_xsaves_cpu();
		if (m && pt_model_xrstors(m, rfbm, (const struct pt_xsave_state *)
					  ((const u8 *)area +
					   sim_xsaves_offset(hdr[1], PT_XSTATE_COMPONENT)),
					  hdr[0] & IA32_XSS_PT) != PT_MODEL_OK)
			err = -EIO;
		local_irq_restore(flags);
		if (err)
			return err;
	}
	if (!(rfbm & LWP_XCR0_MASK))
		return 0;
	if (hdr[0] & LWP_XCR0_MASK) {
		memcpy(c->lwp_xstate, (const u8 *)area +
		       sim_xsaves_offset(hdr[1], LWP_XSTATE_COMPONENT),
		       SIM_LWP_XSAVE_SIZE);
	} else {
		/* 43724 §8.7.2: XSTATE_BV[62] = 0 turns LWP off. */
		memset(c->lwp_xstate, 0, SIM_LWP_XSAVE_SIZE);
		c->lwp_cbaddr = 0;
	}
	return 0;
}

int lwpt_hw_pmi_register(lwpt_hw_irq_fn fn, void *data)
{
	int err = 0;

	mutex_lock(&sim_hook_lock);
	if (sim_pmi_fn) {
		err = -EBUSY;
	} else {
		sim_pmi_data = data;
		/* Pairs with the smp_load_acquire() in hw_sim_raise_pmi(). */
		smp_store_release(&sim_pmi_fn, fn);
	}
	mutex_unlock(&sim_hook_lock);
	return err;
}

void lwpt_hw_pmi_unregister(void)
{
	WRITE_ONCE(sim_pmi_fn, NULL);
	/* The model raises PMIs with preemption disabled: wait them out. */
	synchronize_rcu();
}

/**
 * struct sim_pmi - the local APIC's LVT performance-counter entry of a CPU
 * @masked: its mask bit (SDM Vol. 3A 11.5.1): set by every delivery
 * @delivered: PMIs delivered
 * @dropped: PMIs raised while @masked: not received, lost (their
 *	IA32_PERF_GLOBAL_STATUS bit stays set)
 * @acked_by_other: deliveries where the other handler (pt_nmi_first_acker)
 *	found and acknowledged IA32_PERF_GLOBAL_STATUS bits
 * @unmask_req: lwpt's hook asked for the unmask (lwpt_hw_pmi_rearm()),
 *	done once every handler of this NMI ran
 * @perf_overflow: a perf counter overflowed (debugfs pt_other_tracer kind
 *	4): an NMI that is the other handler's, not lwpt's
 * @unknown: deliveries no handler claimed ("NMI received for unknown
 *	reason"; a panic with kernel.unknown_nmi_panic=1)
 * @early_unmask: LVTPC found unmasked before the other handler (perf,
 *	pt_nmi_first_acker 2) ran: perf's late unmask undone (spurious NMIs)
 * @foreign_claimed: perf's NMIs (@perf_overflow, bit 55 clear) that
 *	lwpt's hook claimed
 */
struct sim_pmi {
	bool masked;
	bool unmask_req;
	bool perf_overflow;
	u64 delivered;
	u64 dropped;
	u64 acked_by_other;
	u64 unknown;
	u64 early_unmask;
	u64 foreign_claimed;
};

static DEFINE_PER_CPU(struct sim_pmi, sim_pmis);

/*
 * Other handlers on the NMI_LOCAL list (arch/x86/kernel/nmi.c nmi_handle()
 * calls them in list order; register_nmi_handler() puts NMI_FLAG_FIRST
 * ones at the head). The other handler is perf's intel_pmu_handle_irq(),
 * which runs whenever a perf event exists (Debian's NMI watchdog is one):
 * it acknowledges every bit of IA32_PERF_GLOBAL_STATUS, bit 55 included,
 * and unmasks LVTPC at its end (late ack).
 *   0  no perf event: nobody but lwpt acknowledges or unmasks anything;
 *   1  a handler that acknowledges like perf runs before lwpt's hook (for
 *      example one registered with NMI_FLAG_FIRST after lwpt): lwpt's hook
 *      never sees bit 55 and must go by the output pointers alone;
 *   2  perf, registered at boot without NMI_FLAG_FIRST: after lwpt's hook,
 *      which hw_native.c registers with NMI_FLAG_FIRST (late ack; default:
 *      a stock server with the NMI watchdog, once lwpt registers first).
 * Read at each PMI.
 */
static int pt_nmi_first_acker = 2;
module_param(pt_nmi_first_acker, int, 0644);
MODULE_PARM_DESC(pt_nmi_first_acker,
		 "Another NMI handler acking IA32_PERF_GLOBAL_STATUS and unmasking LVTPC: 0 none, 1 before lwpt's, 2 after lwpt's (perf behind NMI_FLAG_FIRST, default)");

/*
 * perf's intel_pmu_handle_irq() as lwpt meets it: ack all, claim what it
 * found (its own counter's overflow included), unmask (late ack).
 */
static bool sim_pmi_other_handler(struct sim_pmi *p)
{
	bool handled = p->perf_overflow;
	u64 gs = 0;

	if (!sim_pt_rdmsr(IA32_PERF_GLOBAL_STATUS, &gs) && gs) {
		/* intel_pmu_ack_status(): IA32_PERF_GLOBAL_STATUS_RESET. */
		sim_pt_wrmsr(IA32_PERF_GLOBAL_STATUS_RESET, gs);
		p->acked_by_other++;
		handled = true;
	}
	p->perf_overflow = false;
	p->masked = false;	/* apic_write(APIC_LVTPC, APIC_DM_NMI) */
	return handled;
}

void hw_sim_raise_pmi(void)
{
	struct sim_pmi *p = this_cpu_ptr(&sim_pmis);
	/* Pairs with the smp_store_release() in lwpt_hw_pmi_register(). */
	lwpt_hw_irq_fn fn = smp_load_acquire(&sim_pmi_fn);
	bool handled = false, perf = p->perf_overflow;
	u64 gs = 0;
	int acker;

	/* SDM Vol. 3A 11.5.1: a masked LVT entry inhibits reception. */
	if (p->masked) {
		p->dropped++;
		return;
	}
	p->masked = true;
	p->delivered++;
	acker = READ_ONCE(pt_nmi_first_acker);
	if (perf)
		sim_pt_rdmsr(IA32_PERF_GLOBAL_STATUS, &gs);
	if (acker == 1)
		handled |= sim_pmi_other_handler(p);
	if (fn && fn(sim_pmi_data)) {
		handled = true;
		if (perf && !(gs & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI))
			p->foreign_claimed++;
	}
	if (acker == 2) {
		if (!p->masked)
			p->early_unmask++;
		handled |= sim_pmi_other_handler(p);
	}
	/* nmi.c: every handler ran; then lwpt's late one unmasks. */
	if (p->unmask_req) {
		p->unmask_req = false;
		p->masked = false;
	}
	if (!handled)
		p->unknown++;
}

/**
 * hw_sim_raise_perf_pmi - a perf counter of this CPU overflows: its PMI
 *
 * An NMI that is not lwpt's: IA32_PERF_GLOBAL_STATUS gets no PT bit; the
 * other handler (pt_nmi_first_acker 1 or 2, perf) claims it. Interrupts
 * off.
 */
void hw_sim_raise_perf_pmi(void)
{
	this_cpu_ptr(&sim_pmis)->perf_overflow = true;
	hw_sim_raise_pmi();
}

void lwpt_hw_pmi_rearm(void)
{
	/* Done when every handler of this NMI ran (hw_sim_raise_pmi()). */
	this_cpu_ptr(&sim_pmis)->unmask_req = true;
}

/* debugfs lwpt_sim/pmi: each CPU's LVTPC entry and PMI counts. */
static int sim_pmi_show(struct seq_file *m, void *v)
{
	int cpu;

	for_each_online_cpu(cpu) {
		const struct sim_pmi *p = per_cpu_ptr(&sim_pmis, cpu);

		seq_printf(m, "cpu%d lvtpc_masked=%d delivered=%llu dropped=%llu acked_by_other=%llu unknown=%llu early_unmask=%llu foreign_claimed=%llu\n",
			   cpu, p->masked, p->delivered, p->dropped,
			   p->acked_by_other, p->unknown, p->early_unmask,
			   p->foreign_claimed);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_pmi);

static void sim_pmi_init(struct dentry *dir)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&sim_pmis, cpu), 0, sizeof(struct sim_pmi));
	debugfs_create_file("pmi", 0444, dir, NULL, &sim_pmi_fops);
}

int lwpt_hw_lwp_irq_register(lwpt_hw_irq_fn fn, void *data, u8 *vector)
{
	int err = 0;

	mutex_lock(&sim_hook_lock);
	if (sim_lwp_irq_fn) {
		err = -EBUSY;
	} else {
		sim_lwp_irq_data = data;
		/* Pairs with the smp_load_acquire() in hw_sim_raise_lwp_irq(). */
		smp_store_release(&sim_lwp_irq_fn, fn);
		*vector = SIM_LWP_VECTOR;
	}
	mutex_unlock(&sim_hook_lock);
	return err;
}

void lwpt_hw_lwp_irq_unregister(void)
{
	WRITE_ONCE(sim_lwp_irq_fn, NULL);
	synchronize_rcu();
}

int lwpt_hw_lwp_irq_vector(unsigned int cpu, u8 *vector)
{
	/* The model does not go through the IDT: one vector everywhere. */
	if (!READ_ONCE(sim_lwp_irq_fn))
		return -ENODEV;
	*vector = SIM_LWP_VECTOR;
	return 0;
}

void hw_sim_raise_lwp_irq(void)
{
	/* Pairs with the smp_store_release() in lwpt_hw_lwp_irq_register(). */
	lwpt_hw_irq_fn fn = smp_load_acquire(&sim_lwp_irq_fn);

	if (fn)
		fn(sim_lwp_irq_data);
}
