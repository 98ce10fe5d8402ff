// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware layer of lwpt_sim.ko: the same subsystems as lwpt.ko, on a
 * software model of the processor.
 *
 * Every operation that would raise #GP or #UD on a processor with the
 * simulated CPUID fails here too (-EIO, -ENODEV, -EOPNOTSUPP) and counts a
 * spec violation (sim_base.c), visible at debugfs lwpt_sim/violations.
 * This file is the top of the model layer: it calls the PT unit, the
 * follower and sim_base.c; none of them calls it (issue 28, "Structure":
 * the units register their operations with sim_base.c instead). The LWP and PT
 * semantics (issues 3 and 5) plug in behind these functions; for now the
 * layer keeps a per-CPU register file and checks only the rules below.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <asm/msr.h>

#include <lwpt/bts_arch.h>
#include <lwpt/lbr_arch.h>
#include <lwpt/lwp_arch.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_rtit.h>

#include "model/lwp/lwp_model.h"
#include "model/pt/pt_model.h"

#include "../x86_cpuid.h"
#include "sim.h"
#include "bts_sim.h"
#include "pt_sim.h"
#include "sim_step.h"
#include "sim_ptwrite.h"

MODULE_LICENSE("GPL");
MODULE_AUTHOR("lwpt developers");
MODULE_DESCRIPTION("AMD LWP, Intel PT, BTS and LBR on a software model of the processor");
MODULE_VERSION(LWPT_PACKAGE_VERSION);

static struct dentry *sim_debugfs;

/*
 * Family 15h as field-tested code saw it (issue 14), switchable at run time
 * so that the VM tests run every LWP case both ways.
 */
static bool lwp_xsave_drops_int;
module_param(lwp_xsave_drops_int, bool, 0644);
MODULE_PARM_DESC(lwp_xsave_drops_int,
		 "XSAVE stores the LWP Flags without bit 31 (INT), as rr saw on Family 15h; XRSTOR then restores LWP without threshold interrupts (default off)");

/*
 * Flags bit 31 of the XSAVE image is Reserved in 43724 Table 7-1; the driver
 * sets it to re-arm INT on a part whose XSAVE drops it. What such a part's
 * XRSTOR does with it is not documented (issue 28 §4): load it as INT (0),
 * ignore it (1), or raise #GP (2). A #GP here is the part's refusal, not a
 * violation the driver commits (it cannot know beforehand): -EIO, uncounted.
 */
#define SIM_XRSTOR_INT_LOAD	0
#define SIM_XRSTOR_INT_IGNORE	1
#define SIM_XRSTOR_INT_GP	2
static uint lwp_xrstor_int;
module_param(lwp_xrstor_int, uint, 0644);
MODULE_PARM_DESC(lwp_xrstor_int,
		 "With lwp_xsave_drops_int=1: what XRSTOR does with Flags bit 31 (INT; Reserved in the XSAVE area, 43724 Table 7-1) set in the image: 0 loads it as INT (default), 1 ignores it, 2 raises #GP");

static uint lwp_xcr0_steal;
module_param(lwp_xcr0_steal, uint, 0644);
MODULE_PARM_DESC(lwp_xcr0_steal,
		 "Test aid: the next N XGETBVs with IRQs off (a sched-out) that would see XCR0[62]=1 find it cleared by another kernel user first, LWP_CBADDR zeroed, as after a KVM guest entry or fpu__resume_cpu (default 0)");

static int lwp_cfg_fail_cpu = -1;
module_param(lwp_cfg_fail_cpu, int, 0644);
MODULE_PARM_DESC(lwp_cfg_fail_cpu,
		 "Test aid: on this CPU a non-zero WRMSR LWP_CFG fails, as on a part that refuses the value (default -1: none)");

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
	{ X86_CPUID_PERFMON, 0 },
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

/*
 * The PT unit (pt_sim.c), registered for the layer's shared parts: the
 * follower (sim_step.c) and the PMI's other handler (sim_base.c).
 */
static const struct sim_unit sim_pt_unit = {
	.follow = sim_pt_follow,
	.step = sim_pt_step,
	.user_return = sim_pt_user_return,
	.read_msr = sim_pt_rdmsr,
	.write_msr = sim_pt_wrmsr,
};

/* The branch-recording unit (bts_sim.c): the follower's other client. */
static const struct sim_unit sim_bts_unit = {
	.follow = sim_bts_follow,
	.step = sim_bts_step,
	.syscall_return = sim_bts_resume,
	.read_msr = sim_bts_rdmsr,
	.write_msr = sim_bts_wrmsr,
};

int lwpt_hw_init(void)
{
	int cpu, err;

	err = sim_cpuid_init();
	if (err)
		return err;
	for_each_possible_cpu(cpu) {
		struct sim_cpu *c = sim_cpu_of(cpu);

		memset(c, 0, sizeof(*c));
		/* x87 and SSE are enabled as on any running x86-64 kernel. */
		c->xcr0 = sim_xcr0_supported() & ~LWP_XCR0_MASK;
	}
	/* debugfs is optional: errors leave the module working without it. */
	sim_debugfs = debugfs_create_dir("lwpt_sim", NULL);
	sim_base_init(sim_debugfs);
	debugfs_create_file("cpuid", 0444, sim_debugfs, NULL, &sim_cpuid_fops);
	sim_selftest_debugfs(sim_debugfs);
	/* The PT model behind the RTIT MSRs (issue 5). */
	err = sim_pt_init(sim_debugfs);
	if (!err)
		sim_unit_register(SIM_UNIT_PT, &sim_pt_unit);
	/* DEBUGCTL, the DS area, BTS and the LBRs (issue 37). */
	if (!err)
		err = sim_bts_init(sim_debugfs);
	if (!err && sim_bts_active())
		sim_unit_register(SIM_UNIT_BTS, &sim_bts_unit);
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
		sim_unit_register(SIM_UNIT_BTS, NULL);
		sim_bts_exit();
		sim_unit_register(SIM_UNIT_PT, NULL);
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
	sim_unit_register(SIM_UNIT_BTS, NULL);
	sim_bts_exit();
	sim_unit_register(SIM_UNIT_PT, NULL);
	sim_pt_exit();
	debugfs_remove_recursive(sim_debugfs);
	sim_debugfs = NULL;
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

/*
 * IA32_PERF_GLOBAL_STATUS: the PT model's bits (ToPA PMI) and the
 * branch-recording model's (LBR_Frz, CTR_Frz), each model the owner of
 * its own.
 */
static int sim_global_status(u64 *val)
{
	u64 pt = 0, bts = 0;
	int e1 = sim_pt_rdmsr(IA32_PERF_GLOBAL_STATUS, &pt);
	int e2 = sim_bts_rdmsr(IA32_PERF_GLOBAL_STATUS, &bts);

	if (e1 && e2)
		return e1 == -ENOENT ? e2 : e1;
	*val = pt | bts;
	return 0;
}

int lwpt_hw_rdmsr(u32 msr, u64 *val)
{
	u64 *reg = sim_msr(sim_this_cpu(), msr);
	int err;

	if (msr == IA32_XSS && sim_has_pt_xsaves()) {
		*val = sim_this_cpu()->xss;
		return 0;
	}
	/* IA32_DEBUGCTL: the branch-recording model applies its bits. */
	if (msr == IA32_DEBUGCTL && sim_bts_active())
		return sim_bts_rdmsr(msr, val);
	if (msr == IA32_PERF_GLOBAL_STATUS && sim_bts_active())
		return sim_global_status(val);
	err = sim_pt_rdmsr(msr, val);

	/* The PT model's MSRs (pt_sim.c) first, then the BTS model's. */
	if (err == -ENOENT)
		err = sim_bts_rdmsr(msr, val);
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
	/*
	 * IA32_DEBUGCTL is one register that both models hold
	 * (Documentation/bts.rst, "lwpt_sim.ko"): the branch-recording model
	 * checks the profile's bits and applies them, the PT model keeps its
	 * copy for the PT/LBR rule of SDM 33.3.1.2.
	 */
	if (msr == IA32_DEBUGCTL && sim_bts_active()) {
		err = sim_bts_wrmsr(msr, val);
		if (err)
			return err;
		err = sim_pt_wrmsr(msr, val);
		return err == -ENOENT ? 0 : err;
	}
	/* Writing 1s to IA32_PERF_GLOBAL_STATUS_RESET clears both models' bits. */
	if (msr == IA32_PERF_GLOBAL_STATUS_RESET && sim_bts_active()) {
		int e1 = sim_pt_wrmsr(msr, val);
		int e2 = sim_bts_wrmsr(msr, val);

		if (e1 && e2)
			return e1 == -ENOENT ? e2 : e1;
		return 0;
	}
	err = sim_pt_wrmsr(msr, val);
	/* SDM 33.3.1.2: TraceEn suspends LBR and BTS on some processors. */
	if (!err && msr == IA32_RTIT_CTL)
		sim_bts_pt_trace_en(val & IA32_RTIT_CTL_TRACEEN);

	/* The PT model's MSRs (pt_sim.c) first, then the BTS model's. */
	if (err == -ENOENT)
		err = sim_bts_wrmsr(msr, val);
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
	/*
	 * 43724 §4.1: clearing XCR0[62] stores 0 into LWP_CBADDR: LWP is
	 * disabled, its state gone (as lwp_xcr0_steal models it), so an
	 * XRSTOR that fails after XCR0[62] is set again leaves LWP off, not
	 * the state of the thread that ran before.
	 */
	if (!(val & LWP_XCR0_MASK)) {
		c->lwp_cbaddr = 0;
		memset(c->lwp_xstate, 0, SIM_LWP_XSAVE_SIZE);
	}
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

static int sim_xrstor(const void *area, u64 mask, bool quirks)
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
		const struct lwp_xsave_area *la = (const void *)
			((const u8 *)area + SIM_LWP_XSAVE_OFFSET);
		unsigned int rsvd = quirks && READ_ONCE(lwp_xsave_drops_int) &&
				    (la->flags & LWP_LWPCB_FLAGS_INT) ?
				    READ_ONCE(lwp_xrstor_int) : SIM_XRSTOR_INT_LOAD;

		if (rsvd == SIM_XRSTOR_INT_GP)
			return -EIO;
		memcpy(c->lwp_xstate, la, SIM_LWP_XSAVE_SIZE);
		if (rsvd == SIM_XRSTOR_INT_IGNORE)
			((struct lwp_xsave_area *)c->lwp_xstate)->flags &=
				~LWP_LWPCB_FLAGS_INT;
	} else {
		/* 43724 §8.7.2: XSTATE_BV[62] = 0 turns LWP off. */
		memset(c->lwp_xstate, 0, SIM_LWP_XSAVE_SIZE);
		c->lwp_cbaddr = 0;
	}
	return 0;
}

int lwpt_hw_xrstor(const void *area, u64 mask)
{
	return sim_xrstor(area, mask, true);
}

int hw_sim_lwp_state_set(const void *area)
{
	return sim_xrstor(area, LWP_XCR0_MASK, false);
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
		if (sim_bts_active()) {
			u64 ctl = 0;

			if (!sim_pt_rdmsr(IA32_RTIT_CTL, &ctl))
				sim_bts_pt_trace_en(ctl & IA32_RTIT_CTL_TRACEEN);
		}
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
