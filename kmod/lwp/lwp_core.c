// SPDX-License-Identifier: GPL-2.0
/*
 * LWP in the kernel: per-CPU LWP_CFG, per-thread availability, context
 * switch of the LWP state, threshold interrupts, /dev/lwp.
 *
 * Who touches XCR0[62] (43724 §4.1): only this file, and only
 *   - lwp_thread_on():  sched-in of a thread with LWP (preempt notifier), and
 *                       LWP_IOC_ENABLE in that thread;
 *   - lwp_thread_off(): sched-out of such a thread, LWP_IOC_DISABLE, the
 *                       exec and exit hooks of such a thread, and its entry
 *                       into a KVM guest (lwp_guest_entry()).
 * So XCR0[62] is 1 exactly while a thread that enabled LWP runs, and every
 * other thread executing an LWP instruction gets #UD (SIGILL).
 * Everything reaches the processor through hw.h.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/file.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/syscore_ops.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#include <asm/apic.h>

#include <lwpt/lwp_arch.h>
#include <uapi/lwpt/lwp.h>

#include "../x86_cpuid.h"
#include "lwp.h"
#include "lwp_kver.h"

/* The LWP_CFG bits the driver may ever set (43724 §4.2, Figure 4-1). */
#define LWP_CFG_SETTABLE_FEATURES \
	(LWP_CFG_VAL | LWP_CFG_IRE | LWP_CFG_BRE | LWP_CFG_DME | \
	 LWP_CFG_CNH | LWP_CFG_RNH | LWP_CFG_INT)

/* The ABI's first published sizes (include/uapi/lwpt/lwp.h). */
static_assert(sizeof(struct lwp_caps) == LWP_CAPS_SIZE_VER0);
static_assert(offsetof(struct lwp_caps, lwp_cfg) == 56);
static_assert(sizeof(struct lwp_enable) == LWP_ENABLE_SIZE_VER0);
static_assert(sizeof(struct lwp_stats) == LWP_STATS_SIZE_VER1);
static_assert(offsetof(struct lwp_stats, switch_errors) == LWP_STATS_SIZE_VER0);
static_assert(offsetof(struct lwp_stats, interrupts) == 16);

/*
 * Threshold interrupt throttle (issue 13 §3): at most this many interrupts
 * per thread per second are let through. A thread over it has Flags.INT
 * taken out of its LWP state for a second (task_work before its return to
 * user mode, on whatever CPU it runs, and its sched-ins meanwhile), and
 * LWP_CFG.INT cleared on the CPU it runs on, so that its own LLWPCB cannot
 * bring the interrupt back (issue 38 §4, lwp_cfg_throttle()); an
 * hrtimer then lifts the throttle and puts INT back from its LWPCB through
 * the same task_work, so a thread that never sleeps gets its interrupts
 * back too (issue 28 §3). Perf's perf_event_max_sample_rate plays the same
 * role (kernel/events/core.c, __perf_event_overflow()).
 */
#define LWP_IRQ_MAX_PER_SEC	1000
#define LWP_THROTTLE_NS		NSEC_PER_SEC

/* Largest XSAVE area we accept for component 62 (offset + size). */
#define LWP_AREA_MAX		PAGE_SIZE

static struct lwpt_caps lwp_caps;
static bool lwp_up;
/*
 * sigreturn cannot XRSTOR component 62 from a signal frame in this kernel
 * (lwp_kver.h): LWP_IOC_ENABLE is allowed. Set once by lwp_init().
 */
static bool lwp_kernel_safe;
static u32 lwp_area_bytes;
static u32 lwp_area_offset;	/* of component 62 (CPUID Fn0000_000D_x3E EBX) */
static bool lwp_irq_registered;
static bool lwp_unloading;	/* lwp_exit() is removing the cpuhp state */
static int lwp_cpuhp_state = -1;
static struct tracepoint *lwp_tp_exec;
static struct tracepoint *lwp_tp_exit;
static atomic64_t lwp_stray_irqs = ATOMIC64_INIT(0);
static atomic64_t lwp_guest_detaches = ATOMIC64_INIT(0);
/* An XRSTOR refused (#GP) an image with the re-armed Flags.INT: never again. */
static bool lwp_rearm_refused;
/*
 * Failed hardware-layer calls at context switch. The sched-out notifier runs
 * with the runqueue lock held, where printk may deadlock: count, report at
 * unload.
 */
static atomic_t lwp_switch_errors = ATOMIC_INIT(0);

/* LWP_CFG as programmed on each CPU (0 while offline). */
static DEFINE_PER_CPU(u64, lwp_cfg_programmed);
/*
 * This CPU's LWP_CFG has INT cleared for the throttled thread running on it
 * (lwp_cfg_throttle()); the programmed value comes back at its sched-out.
 */
static DEFINE_PER_CPU(bool, lwp_cfg_int_off);
/*
 * The file whose thread last had LWP on this CPU: a threshold interrupt may
 * arrive late (43724 §1), after that thread was switched out, and belongs
 * to it. Written at sched-in with preemption off, read in the interrupt
 * (on the same CPU: a plain store, no tearing); cleared
 * by lwp_release() before an RCU grace period, which the readers (IRQs or
 * preemption off) wait for.
 */
static DEFINE_PER_CPU(struct lwp_file *, lwp_last);

static struct preempt_ops lwp_preempt_ops;

u32 lwp_area_size(void)
{
	return lwp_area_bytes;
}

/* ---------------------------------------------------------------------- */
/* Per-CPU setup                                                            */
/* ---------------------------------------------------------------------- */

/*
 * LWP_CFG for the current CPU (43724 §4.2): the features CPUID
 * Fn8000_001C_EDX supports, within the settable whitelist and the
 * administrator's policy; INT only with a vector; COREID the low 8 bits of
 * the local APIC ID (COREID is 8 bits wide: with APIC IDs above 255 two
 * CPUs can report the same CoreId in their records, see lwp.rst); VECTOR.
 */
static u64 lwp_cfg_value(int cpu)
{
	u64 cfg = lwp_caps.lwp_leaf.edx & LWP_CFG_SETTABLE_FEATURES &
		  lwp_variant_feature_policy();
	u32 apicid = cpu_physical_id(cpu);
	u8 vector = 0;

	/* INT only with a vector of this CPU (43724 §8.7.1). */
	if (!lwp_irq_registered || lwpt_hw_lwp_irq_vector(cpu, &vector))
		vector = 0;
	if (!vector)
		cfg &= ~LWP_CFG_INT;
	if (apicid > (LWP_CFG_COREID_MASK >> LWP_CFG_COREID_SHIFT))
		pr_info_once(LWPT_PR_PREFIX "LWP: APIC ID %u above 255: LWP_CFG.COREID holds its low 8 bits\n",
			     apicid);
	cfg |= ((u64)apicid << LWP_CFG_COREID_SHIFT) & LWP_CFG_COREID_MASK;
	cfg |= ((u64)vector << LWP_CFG_VECTOR_SHIFT) & LWP_CFG_VECTOR_MASK;
	return cfg;
}

/*
 * Program LWP_CFG on this CPU and read it back: RDMSR LWP_CFG must return
 * what was written, and CPUID Fn8000_001C_EAX[31:1] must mirror
 * LWP_CFG[31:1] (43724 §3.3). A part that ignores some bits (VirtualBox's
 * FX-8150 entry: ignore mask ffff0000_00000001h) would show it here.
 * Return: 0, the hardware layer's error, or -EIO on a mismatch.
 */
static int lwp_cfg_program(u64 cfg, u64 *got, u32 *eax)
{
	struct lwpt_cpuid_regs r;
	int err;

	err = lwpt_hw_wrmsr(LWP_MSR_CFG, cfg);
	if (err)
		return err;
	err = lwpt_hw_rdmsr(LWP_MSR_CFG, got);
	if (err)
		return err;
	lwpt_hw_cpuid(LWP_CPUID_FN8000_001C, 0, &r);
	*eax = r.eax;
	if (*got != cfg || (r.eax & LWP_CFG_FEATURES_MASK) !=
	    (cfg & LWP_CFG_FEATURES_MASK))
		return -EIO;
	return 0;
}

/*
 * A CPU comes online. A failed or mismatching LWP_CFG leaves LWP off on
 * that CPU (LWP_CFG = 0: no event is available there, 43724 §4.2, so an
 * LWP thread scheduled on it counts nothing) with a log line; the CPU's
 * online and the module's load go on (issue 14 §2.4).
 */
static int lwp_cpu_online(unsigned int cpu)
{
	u64 cfg = lwp_cfg_value(cpu), got = 0;
	u32 eax = 0;
	int err;

	preempt_disable();
	err = lwp_cfg_program(cfg, &got, &eax);
	if (err)
		lwpt_hw_wrmsr(LWP_MSR_CFG, 0);
	this_cpu_write(lwp_cfg_programmed, err ? 0 : cfg);
	this_cpu_write(lwp_cfg_int_off, false);
	preempt_enable();
	if (err)
		pr_err(LWPT_PR_PREFIX "LWP: cpu%u: LWP_CFG=%#llx not taken (%d, read back %#llx, Fn8000_001C_EAX %#x): LWP is off on this CPU\n",
		       cpu, cfg, err, got, eax);
	return 0;
}

/*
 * CPU going down, or module unload (cpuhp_remove_state()). At unload no
 * thread has LWP (each holds a module reference): LWP_CFG = 0, nothing stays
 * programmed. On hotplug LWP_CFG is left as it is: this callback runs while
 * the dying CPU can still switch an LWP thread in (balance_push() migrates
 * it only after the switch), and XRSTOR keeps only the events LWP_CFG makes
 * available (43724 §7.4), so a zero LWP_CFG here would silently disable the
 * thread's events for good. An offline CPU executes nothing; the online
 * callback programs LWP_CFG again before the CPU schedules user threads.
 */
static int lwp_cpu_offline(unsigned int cpu)
{
	if (!READ_ONCE(lwp_unloading))
		return 0;
	preempt_disable();
	lwpt_hw_wrmsr(LWP_MSR_CFG, 0);
	this_cpu_write(lwp_cfg_programmed, 0);
	this_cpu_write(lwp_cfg_int_off, false);
	preempt_enable();
	return 0;
}

/*
 * Resume from suspend: the boot CPU comes back with LWP_CFG reset; the
 * other CPUs went offline and come back through lwp_cpu_online().
 */
static void lwp_syscore_resume(void)
{
	u64 cfg = this_cpu_read(lwp_cfg_programmed);

	if (cfg)
		lwpt_hw_wrmsr(LWP_MSR_CFG, cfg);
	this_cpu_write(lwp_cfg_int_off, false);
}

static struct syscore_ops lwp_syscore_ops = {
	.resume = lwp_syscore_resume,
};

/* ---------------------------------------------------------------------- */
/* Per-thread availability and context switch                               */
/* ---------------------------------------------------------------------- */

/*
 * Is @lf's thread throttled (no threshold interrupts) right now? Set by the
 * interrupt, cleared by @lf->throttle_timer.
 */
static bool lwp_throttled(struct lwp_file *lf)
{
	return READ_ONCE(lf->throttled);
}

static void lwp_switch_error(struct lwp_file *lf)
{
	atomic_inc(&lwp_switch_errors);
	/* Visible in LWP_IOC_GET_STATS at once. */
	atomic64_inc(&lf->switch_errors);
}

/*
 * Make this CPU's LWP_CFG.INT match @lf's throttle (issue 38 §4): cleared
 * while @lf's thread is throttled and runs here, the programmed value
 * otherwise. The thread cannot undo it: LLWPCB ANDs Flags with the
 * features available in LWP_CFG (43724 §5.1 step 6), XRSTOR enables only
 * those (§7.4), and a threshold crossing interrupts only if LWP_CFG makes
 * the interrupt available (§6, Table 6-1, Threshold). Only this CPU's
 * register; preemption or IRQs off.
 */
static void lwp_cfg_throttle(struct lwp_file *lf)
{
	u64 cfg = this_cpu_read(lwp_cfg_programmed);
	bool off = lwp_throttled(lf) && (cfg & LWP_CFG_INT);

	if (off == this_cpu_read(lwp_cfg_int_off))
		return;
	if (lwpt_hw_wrmsr(LWP_MSR_CFG, off ? cfg & ~LWP_CFG_INT : cfg))
		lwp_switch_error(lf);
	else
		this_cpu_write(lwp_cfg_int_off, off);
}

/* @lf's thread leaves this CPU: the programmed LWP_CFG back. */
static void lwp_cfg_unthrottle(struct lwp_file *lf)
{
	if (!this_cpu_read(lwp_cfg_int_off))
		return;
	if (lwpt_hw_wrmsr(LWP_MSR_CFG, this_cpu_read(lwp_cfg_programmed)))
		lwp_switch_error(lf);
	else
		this_cpu_write(lwp_cfg_int_off, false);
}

static u64 *lwp_area_xstate_bv(struct lwp_file *lf)
{
	return (u64 *)((u8 *)lf->area + X86_XSAVE_HDR_OFFSET);
}

/*
 * Family 15h XSAVE stores Flags without INT (rr, src/LWP.cc,
 * LWP::lwp_xsave_to_lwpcb(): "Family 15h revision 00h-0fh: flag 0x80000000
 * cleared"; saved Flags 0x8 for LWPCB Flags 0x80000008), so XRSTOR would
 * bring the thread back without threshold interrupts. Before XRSTOR, put
 * INT back from the thread's own configuration: the LWPCB's Flags, which
 * LLWPCB wrote back masked with LWP_CFG (43724 §5.1 step 6), read without
 * faulting; if the page is not resident, the last answer for the same
 * LWPCB. XRSTOR masks Flags with the available features again (§7.4), so a
 * thread gets no more than its LLWPCB gave it. Preemption or IRQs off.
 *
 * Bit 31 of the image's Flags is Reserved in 43724 Table 7-1: how XRSTOR
 * treats it on a part that drops it is not documented (issue 28 §4). If
 * XRSTOR faults on it, lwp_area_load() restores without it and re-arming
 * stops for good (lwp_rearm_refused); if XRSTOR ignores it, nothing here
 * can tell (XSAVE drops it again). Documentation/lwp.rst.
 * Return: true if INT was put back.
 */
static bool lwp_area_rearm_int(struct lwp_file *lf)
{
	struct lwp_xsave_area *a = (void *)((u8 *)lf->area + lwp_area_offset);
	u32 flags;

	if (lwp_throttled(lf)) {
		a->flags &= ~LWP_LWPCB_FLAGS_INT;
		return false;
	}
	if (!(*lwp_area_xstate_bv(lf) & LWP_XCR0_MASK) || !a->lwpcb_address ||
	    (a->flags & LWP_LWPCB_FLAGS_INT) || READ_ONCE(lwp_rearm_refused) ||
	    !(this_cpu_read(lwp_cfg_programmed) & LWP_CFG_INT))
		return false;
	if (copy_from_user_nofault(&flags, (const void __user *)
				   (uintptr_t)(a->lwpcb_address + LWP_LWPCB_OFF_FLAGS),
				   sizeof(flags)))
		flags = lf->int_lwpcb == a->lwpcb_address ? LWP_LWPCB_FLAGS_INT : 0;
	else
		lf->int_lwpcb = flags & LWP_LWPCB_FLAGS_INT ? a->lwpcb_address : 0;
	if (!(flags & LWP_LWPCB_FLAGS_INT))
		return false;
	a->flags |= LWP_LWPCB_FLAGS_INT;
	return true;
}

/*
 * XRSTOR @lf's image, INT re-armed (lwp_area_rearm_int()). If the part
 * refuses the re-armed image (#GP: -EIO from the hardware layer), restore
 * it without the bit - the thread keeps LWP and its records, without
 * threshold interrupts - and stop re-arming on this machine: one fault,
 * one log line. GET_CAPS then no longer reports LWP_CAPS_F_INT.
 * Preemption off. Return: 0 or the hardware layer's error.
 */
static int lwp_area_load(struct lwp_file *lf)
{
	struct lwp_xsave_area *a = (void *)((u8 *)lf->area + lwp_area_offset);
	bool rearmed = lwp_area_rearm_int(lf);
	int err = lwpt_hw_xrstor(lf->area, LWP_XCR0_MASK);

	if (!rearmed)
		return err;
	if (!err) {
		lf->int_rearmed++;
		return 0;
	}
	a->flags &= ~LWP_LWPCB_FLAGS_INT;
	err = lwpt_hw_xrstor(lf->area, LWP_XCR0_MASK);
	if (!err && !xchg(&lwp_rearm_refused, true))
		pr_warn(LWPT_PR_PREFIX "LWP: XRSTOR refuses Flags bit 31 (Reserved, 43724 Table 7-1): threshold interrupts are not re-armed after context switches on this processor (Documentation/lwp.rst)\n");
	return err;
}

/*
 * Make LWP available on this CPU and load @lf's state (43724 §7.4: XRSTOR at
 * CPL 0 loads without validation). Preemption or IRQs off.
 */
static void lwp_thread_on(struct lwp_file *lf)
{
	u64 xcr0;

	if (lwpt_hw_xgetbv(0, &xcr0) ||
	    lwpt_hw_xsetbv(0, xcr0 | LWP_XCR0_MASK)) {
		lwp_switch_error(lf);
		return;
	}
	lwp_cfg_throttle(lf);
	if (lwp_area_load(lf)) {
		lwp_switch_error(lf);
		return;
	}
	lf->restores++;
	/* Read locklessly by lwp_threshold_irq() on this CPU. */
	WRITE_ONCE(*this_cpu_ptr(&lwp_last), lf);
}

/*
 * Save @lf's state if @save (43724 §7.3), then clear XCR0[62], which stores
 * 0 into LWP_CBADDR (43724 §4.1): LWP unavailable, nothing left behind on
 * the CPU. Preemption or IRQs off.
 */
static void lwp_thread_off(struct lwp_file *lf, bool save)
{
	u64 xcr0;

	if (lwpt_hw_xgetbv(0, &xcr0)) {
		lwp_switch_error(lf);
		lwp_cfg_unthrottle(lf);
		return;
	}
	if (save && !(xcr0 & LWP_XCR0_MASK)) {
		/*
		 * XCR0[62] was cleared under the thread (a KVM vCPU thread
		 * entering a guest, fpu__resume_cpu() restoring the kernel's
		 * XCR0): LWP_CBADDR is 0 (43724 §4.1) and XSAVE would not
		 * write component 62 nor its XSTATE_BV bit (SDM Vol. 1 13.7),
		 * leaving the previous image to be restored stale. Mark the
		 * image empty (§7.5: XRSTOR then disables LWP) and count it.
		 */
		*lwp_area_xstate_bv(lf) &= ~LWP_XCR0_MASK;
		lf->xcr0_lost++;
	} else if (save) {
		if (lwpt_hw_xsave(lf->area, LWP_XCR0_MASK))
			lwp_switch_error(lf);
		else
			lf->saves++;
	}
	if (lwpt_hw_xsetbv(0, xcr0 & ~LWP_XCR0_MASK))
		lwp_switch_error(lf);
	lwp_cfg_unthrottle(lf);
}

/*
 * 6.1: finish_task_switch() calls fire_sched_in_preempt_notifiers() after
 * finish_lock_switch() released the runqueue lock and enabled IRQs, with
 * preemption still off (kernel/sched/core.c). Nothing here relies on IRQs
 * being off: a threshold interrupt that lwp_thread_on() lets in reads
 * lwp_last, which is written last. sched_out, by contrast, runs from
 * prepare_task_switch() with the runqueue lock held and IRQs off.
 */
static void lwp_sched_in(struct preempt_notifier *pn, int cpu)
{
	lwp_thread_on(container_of(pn, struct lwp_file, pn));
}

static void lwp_sched_out(struct preempt_notifier *pn, struct task_struct *next)
{
	lwp_thread_off(container_of(pn, struct lwp_file, pn), true);
}

static struct preempt_ops lwp_preempt_ops = {
	.sched_in = lwp_sched_in,
	.sched_out = lwp_sched_out,
};

struct lwp_file *lwp_current_file(void)
{
	struct preempt_notifier *pn;

	/* Only current adds to or removes from its own list. */
	hlist_for_each_entry(pn, &current->preempt_notifiers, link)
		if (pn->ops == &lwp_preempt_ops)
			return container_of(pn, struct lwp_file, pn);
	return NULL;
}

/*
 * Take LWP away from current (owner of @lf): off the notifier list, XCR0[62]
 * clear (LWP_CBADDR = 0), drop the thread's file reference. Any context of
 * current; the reference may be the last (fput() defers the release).
 */
static void lwp_thread_detach(struct lwp_file *lf)
{
	preempt_disable();
	preempt_notifier_unregister(&lf->pn);
	lwp_thread_off(lf, false);
	WRITE_ONCE(lf->active, false);
	preempt_enable();
	fput(lf->file);
}

void lwp_guest_entry(void)
{
	struct lwp_file *lf = lwp_current_file();

	if (!lf)
		return;
	lwp_thread_detach(lf);
	atomic64_inc(&lwp_guest_detaches);
	pr_notice_ratelimited(LWPT_PR_PREFIX "LWP: %s[%d] enters a KVM guest (or loads KVM): LWP taken away from the thread (43724 §8.2.2, Documentation/lwp.rst)\n",
			      current->comm, task_pid_nr(current));
}

/* execve(): the new program starts without LWP and without the old state. */
static void lwp_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct lwp_file *lf = lwp_current_file();

	if (lf)
		lwp_thread_detach(lf);
}

/* Thread exit: LWP_CBADDR zeroed, the context released with the file. */
static void lwp_probe_exit(void *data, struct task_struct *p)
{
	struct lwp_file *lf = lwp_current_file();

	if (lf)
		lwp_thread_detach(lf);
}

static int lwp_hooks_register(void)
{
	int err;

	lwp_tp_exec = lwpt_tracepoint_find("sched_process_exec");
	lwp_tp_exit = lwpt_tracepoint_find("sched_process_exit");
	if (!lwp_tp_exec || !lwp_tp_exit) {
		pr_err(LWPT_PR_PREFIX "LWP: no sched_process_exec/exit tracepoints\n");
		return -ENODEV;
	}
	err = tracepoint_probe_register(lwp_tp_exec, lwp_probe_exec, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(lwp_tp_exit, lwp_probe_exit, NULL);
	if (err) {
		tracepoint_probe_unregister(lwp_tp_exec, lwp_probe_exec, NULL);
		tracepoint_synchronize_unregister();
	}
	return err;
}

static void lwp_hooks_unregister(void)
{
	tracepoint_probe_unregister(lwp_tp_exit, lwp_probe_exit, NULL);
	tracepoint_probe_unregister(lwp_tp_exec, lwp_probe_exec, NULL);
	tracepoint_synchronize_unregister();
}

/* ---------------------------------------------------------------------- */
/* Threshold interrupt (43724 §2.4 LwpInt, §8.5)                           */
/* ---------------------------------------------------------------------- */

/*
 * Task work of the owner, before it returns to user mode: make Flags.INT of
 * its live LWP state match the throttle (XSAVE, lwp_area_rearm_int(), XRSTOR
 * of component 62, as a sched-out and sched-in would; nothing of LWP changes
 * while the thread is in the kernel). The busy bit is cleared first, so that
 * a throttle change after this point queues the work again.
 */
static void lwp_throttle_work(struct callback_head *cb)
{
	struct lwp_file *lf = container_of(cb, struct lwp_file, throttle_work);

	clear_bit(0, &lf->throttle_busy);
	smp_mb__after_atomic();	/* busy clear before the throttle is read */
	preempt_disable();
	if (lwp_current_file() == lf) {
		lwp_cfg_throttle(lf);
		if (lwpt_hw_xsave(lf->area, LWP_XCR0_MASK) || lwp_area_load(lf))
			lwp_switch_error(lf);
	}
	preempt_enable();
	fput(lf->file);
}

/*
 * Queue lwp_throttle_work() on @lf's owner, wherever it runs: TWA_RESUME,
 * and a kick if it runs on another CPU so that it enters the kernel (a
 * thread in a user-mode loop on a nohz_full CPU would not otherwise). A
 * thread that sleeps runs it when it returns to user mode, after its
 * sched-in already did the same. Any context, IRQs included; the work holds
 * a file reference, taken only while the file is alive.
 */
static void lwp_throttle_queue(struct lwp_file *lf)
{
	struct pid *owner = READ_ONCE(lf->owner);
	struct task_struct *task;

	if (!owner || test_and_set_bit(0, &lf->throttle_busy))
		return;
	rcu_read_lock();
	task = pid_task(owner, PIDTYPE_PID);
	if (!task || !READ_ONCE(lf->active) || !get_file_rcu(lf->file))
		goto unbusy;
	init_task_work(&lf->throttle_work, lwp_throttle_work);
	if (task_work_add(task, &lf->throttle_work, TWA_RESUME)) {
		fput(lf->file);
		goto unbusy;
	}
	kick_process(task);
	rcu_read_unlock();
	return;
unbusy:
	rcu_read_unlock();
	clear_bit(0, &lf->throttle_busy);
}

/* One second after the throttle began: threshold interrupts back. */
static enum hrtimer_restart lwp_throttle_expired(struct hrtimer *t)
{
	struct lwp_file *lf = container_of(t, struct lwp_file, throttle_timer);

	WRITE_ONCE(lf->throttled, false);
	lwp_throttle_queue(lf);
	return HRTIMER_NORESTART;
}

/*
 * Count an interrupt of @lf in its one-second window; over the limit,
 * throttle the thread for LWP_THROTTLE_NS, whether it runs on this CPU or,
 * for a late interrupt (43724 §1), on another one. IRQ context; approximate
 * under races (two CPUs can only meet here for a late interrupt), which the
 * limit tolerates.
 */
static void lwp_irq_throttle(struct lwp_file *lf)
{
	unsigned long now = jiffies;

	/* Late ones only, if the throttle holds (lwp_cfg_throttle()). */
	if (lwp_throttled(lf) && READ_ONCE(lf->throttled_irqs) != U32_MAX)
		WRITE_ONCE(lf->throttled_irqs, READ_ONCE(lf->throttled_irqs) + 1);
	if (time_after(now, READ_ONCE(lf->irq_window) + HZ)) {
		WRITE_ONCE(lf->irq_window, now);
		WRITE_ONCE(lf->irq_count, 0);
	}
	WRITE_ONCE(lf->irq_count, READ_ONCE(lf->irq_count) + 1);
	if (READ_ONCE(lf->irq_count) <= LWP_IRQ_MAX_PER_SEC || lwp_throttled(lf))
		return;
	WRITE_ONCE(lf->throttled, true);
	lf->throttles++;
	hrtimer_start(&lf->throttle_timer, ns_to_ktime(LWP_THROTTLE_NS),
		      HRTIMER_MODE_REL_HARD);
	lwp_throttle_queue(lf);
}

static bool lwp_threshold_irq(void *data)
{
	struct lwp_file *lf;

	rcu_read_lock();
	lf = READ_ONCE(*this_cpu_ptr(&lwp_last));
	if (lf) {
		atomic64_inc(&lf->interrupts);
		atomic64_inc(&lf->pending);
		lwp_irq_throttle(lf);
		irq_work_queue(&lf->irq_work);
	} else {
		atomic64_inc(&lwp_stray_irqs);
	}
	rcu_read_unlock();
	return true;
}

static void lwp_irq_work(struct irq_work *work)
{
	struct lwp_file *lf = container_of(work, struct lwp_file, irq_work);

	wake_up_interruptible_poll(&lf->wq, EPOLLIN | EPOLLRDNORM);
	kill_fasync(&lf->fasync, SIGIO, POLL_IN);
}

/* ---------------------------------------------------------------------- */
/* /dev/lwp                                                                 */
/* ---------------------------------------------------------------------- */

static int lwp_open(struct inode *inode, struct file *file)
{
	struct lwp_file *lf;

	if (!lwp_up)
		return -ENODEV;
	/* Charged to the opener's memory cgroup (issue 13 §3). */
	lf = kzalloc(sizeof(*lf), GFP_KERNEL_ACCOUNT);
	if (!lf)
		return -ENOMEM;
	/* kmalloc of a power of two is naturally aligned: 64 bytes at least. */
	lf->area = kzalloc(roundup_pow_of_two(2 * lwp_area_bytes),
			   GFP_KERNEL_ACCOUNT);
	if (!lf->area) {
		kfree(lf);
		return -ENOMEM;
	}
	lf->emu_area = lf->area + lwp_area_bytes;
	lf->misc = file->private_data;	/* set by misc_open() */
	lf->file = file;
	preempt_notifier_init(&lf->pn, &lwp_preempt_ops);
	init_waitqueue_head(&lf->wq);
	init_irq_work(&lf->irq_work, lwp_irq_work);
	hrtimer_init(&lf->throttle_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	lf->throttle_timer.function = lwp_throttle_expired;
	file->private_data = lf;
	return nonseekable_open(inode, file);
}

static int lwp_release(struct inode *inode, struct file *file)
{
	struct lwp_file *lf = file->private_data;
	int cpu;

	/* No thread has LWP through @lf: it would hold a file reference. */
	WARN_ON_ONCE(READ_ONCE(lf->active));
	for_each_possible_cpu(cpu)
		cmpxchg(per_cpu_ptr(&lwp_last, cpu), lf, NULL);
	/* Pairs with rcu_read_lock() in lwp_threshold_irq(). */
	synchronize_rcu();
	/* No interrupt starts it any more; its queued work holds the file. */
	hrtimer_cancel(&lf->throttle_timer);
	irq_work_sync(&lf->irq_work);
	put_pid(lf->owner);
	kfree(lf->area);
	kfree(lf);
	return 0;
}

static ssize_t lwp_read(struct file *file, char __user *buf, size_t count,
			loff_t *ppos)
{
	struct lwp_file *lf = file->private_data;
	u64 n;
	int err;

	if (count < sizeof(n))
		return -EINVAL;
	for (;;) {
		n = atomic64_xchg(&lf->pending, 0);
		if (n)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(lf->wq,
					       atomic64_read(&lf->pending));
		if (err)
			return err;
	}
	if (copy_to_user(buf, &n, sizeof(n))) {
		atomic64_add(n, &lf->pending);
		return -EFAULT;
	}
	return sizeof(n);
}

static __poll_t lwp_poll(struct file *file, poll_table *wait)
{
	struct lwp_file *lf = file->private_data;

	poll_wait(file, &lf->wq, wait);
	return atomic64_read(&lf->pending) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int lwp_fasync(int fd, struct file *file, int on)
{
	struct lwp_file *lf = file->private_data;

	return fasync_helper(fd, file, on, &lf->fasync);
}

/*
 * Read the size and flags header of a size-versioned struct. @out_flags are
 * the bits the kernel writes into @flags of an output struct: accepted and
 * ignored on input, so that a struct a call filled in can be passed again
 * unchanged (issue 28 §6; 0 still works as before). Return 0, -EFAULT, or
 * -EINVAL for a size below @ver0 or above PAGE_SIZE (the zero-tail check of
 * a larger struct would read that much user memory), or any other flag set.
 */
static int lwp_uhdr(void __user *arg, u32 ver0, u32 out_flags, u32 *usize)
{
	u32 hdr[2];

	if (copy_from_user(hdr, arg, sizeof(hdr)))
		return -EFAULT;
	if (hdr[0] < ver0 || hdr[0] > PAGE_SIZE || (hdr[1] & ~out_flags))
		return -EINVAL;
	*usize = hdr[0];
	return 0;
}

static long lwp_ioctl_caps(struct lwp_file *lf, void __user *arg)
{
	struct lwpt_cpuid_regs r;
	struct lwp_caps c;
	u32 usize;
	int err;

	err = lwp_uhdr(arg, LWP_CAPS_SIZE_VER0, LWP_CAPS_F_SIM | LWP_CAPS_F_INT |
		       LWP_CAPS_F_ENABLED | LWP_CAPS_F_REFUSED, &usize);
	if (err)
		return err;
	memset(&c, 0, sizeof(c));
	c.size = min_t(u32, usize, sizeof(c));
	c.abi_version = LWPT_ABI_VERSION;
	if (lwpt_hw_flags() & LWPT_HW_F_SIM)
		c.flags |= LWP_CAPS_F_SIM;
	if (lwp_irq_registered && !READ_ONCE(lwp_rearm_refused))
		c.flags |= LWP_CAPS_F_INT;
	if (READ_ONCE(lf->active) && READ_ONCE(lf->owner) == task_pid(current))
		c.flags |= LWP_CAPS_F_ENABLED;
	if (!lwp_kernel_safe)
		c.flags |= LWP_CAPS_F_REFUSED;
	preempt_disable();
	c.cpu = smp_processor_id();
	lwpt_hw_cpuid(LWP_CPUID_FN8000_001C, 0, &r);
	c.fn8000_001c[0] = r.eax;
	c.fn8000_001c[1] = r.ebx;
	c.fn8000_001c[2] = r.ecx;
	c.fn8000_001c[3] = r.edx;
	lwpt_hw_cpuid(LWP_CPUID_FN0000_000D, 0, &r);
	c.fn0000_000d_x0[0] = r.eax;
	c.fn0000_000d_x0[1] = r.ebx;
	c.fn0000_000d_x0[2] = r.ecx;
	c.fn0000_000d_x0[3] = r.edx;
	lwpt_hw_cpuid(LWP_CPUID_FN0000_000D, LWP_CPUID_FN0000_000D_SUBLEAF_LWP,
		      &r);
	c.xsave_size = r.eax;
	c.xsave_offset = r.ebx;
	c.lwp_cfg = this_cpu_read(lwp_cfg_programmed);
	preempt_enable();
	if (copy_to_user(arg, &c, c.size))
		return -EFAULT;
	return 0;
}

static long lwp_ioctl_enable(struct lwp_file *lf, void __user *arg)
{
	struct lwp_enable e;
	struct pid *pid;
	u32 usize;
	int err;

	err = lwp_uhdr(arg, LWP_ENABLE_SIZE_VER0, 0, &usize);
	if (err)
		return err;
	err = copy_struct_from_user(&e, sizeof(e), arg, usize);
	if (err)
		return err == -E2BIG ? -EINVAL : err;
	/* LWP counts user mode only (43724 §1.1): a user thread's own. */
	if (current->flags & (PF_KTHREAD | PF_IO_WORKER))
		return -EPERM;
	/* Below the version gate: said once by lwp_init(). */
	if (!lwp_kernel_safe)
		return -EOPNOTSUPP;
	if (READ_ONCE(lf->owner) == task_pid(current) && READ_ONCE(lf->active))
		return 0;
	if (lwp_current_file())
		return -EBUSY;
	/* The first thread to enable owns the file for good. */
	pid = get_pid(task_pid(current));
	if (cmpxchg(&lf->owner, NULL, pid)) {
		put_pid(pid);
		if (READ_ONCE(lf->owner) != task_pid(current))
			return -EPERM;
	}
	lf->tid = task_pid_vnr(current);
	/* XSTATE_BV = 0: the first XRSTOR leaves LWP disabled (§7.5). */
	memset(lf->area, 0, lwp_area_bytes);
	get_file(lf->file);
	preempt_disable();
	preempt_notifier_register(&lf->pn);
	WRITE_ONCE(lf->active, true);
	lwp_thread_on(lf);
	preempt_enable();
	return 0;
}

static long lwp_ioctl_disable(struct lwp_file *lf, unsigned long arg)
{
	if (arg)
		return -EINVAL;
	if (READ_ONCE(lf->owner) != task_pid(current))
		return -EPERM;
	if (READ_ONCE(lf->active))
		lwp_thread_detach(lf);
	return 0;
}

static long lwp_ioctl_stats(struct lwp_file *lf, void __user *arg)
{
	struct lwp_stats s;
	u32 usize;
	int err;

	err = lwp_uhdr(arg, LWP_STATS_SIZE_VER0, LWP_CAPS_F_ENABLED, &usize);
	if (err)
		return err;
	memset(&s, 0, sizeof(s));
	s.size = min_t(u32, usize, sizeof(s));
	if (READ_ONCE(lf->active))
		s.flags |= LWP_CAPS_F_ENABLED;
	s.tid = lf->tid;
	s.interrupts = atomic64_read(&lf->interrupts);
	s.saves = READ_ONCE(lf->saves);
	s.restores = READ_ONCE(lf->restores);
	s.emulated = atomic64_read(&lf->emulated);
	s.switch_errors = atomic64_read(&lf->switch_errors);
	s.xcr0_lost = READ_ONCE(lf->xcr0_lost);
	s.int_rearmed = READ_ONCE(lf->int_rearmed);
	s.throttles = READ_ONCE(lf->throttles);
	s.throttled_irqs = READ_ONCE(lf->throttled_irqs);
	if (copy_to_user(arg, &s, s.size))
		return -EFAULT;
	return 0;
}

static long lwp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct lwp_file *lf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case LWP_IOC_GET_CAPS:
		return lwp_ioctl_caps(lf, uarg);
	case LWP_IOC_ENABLE:
		return lwp_ioctl_enable(lf, uarg);
	case LWP_IOC_DISABLE:
		return lwp_ioctl_disable(lf, arg);
	case LWP_IOC_GET_STATS:
	case LWP_IOC_GET_STATS_VER0:
		return lwp_ioctl_stats(lf, uarg);
	default:
		return lwpt_dev_ioctl_misc(lf->misc, cmd, arg);
	}
}

const struct file_operations lwp_fops = {
	.owner = THIS_MODULE,
	.open = lwp_open,
	.release = lwp_release,
	.read = lwp_read,
	.poll = lwp_poll,
	.fasync = lwp_fasync,
	.unlocked_ioctl = lwp_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

/* ---------------------------------------------------------------------- */
/* Init and exit                                                            */
/* ---------------------------------------------------------------------- */

/* CPUID Fn0000_000D_x3E (43724 §3.2): the area we save component 62 in. */
static int lwp_area_init(void)
{
	struct lwpt_cpuid_regs r;

	preempt_disable();
	lwpt_hw_cpuid(LWP_CPUID_FN0000_000D, LWP_CPUID_FN0000_000D_SUBLEAF_LWP,
		      &r);
	preempt_enable();
	/* The component follows the 512-byte legacy area and 64-byte header. */
	if (r.eax < sizeof(struct lwp_xsave_area) ||
	    r.ebx < X86_XSAVE_HDR_OFFSET + X86_XSAVE_HDR_SIZE ||
	    r.ebx + r.eax > LWP_AREA_MAX) {
		pr_err(LWPT_PR_PREFIX "LWP: XSAVE component 62 at %u, %u bytes: unusable\n",
		       r.ebx, r.eax);
		return -ENODEV;
	}
	lwp_area_bytes = ALIGN(r.ebx + r.eax, 64);
	lwp_area_offset = r.ebx;
	return 0;
}

int lwp_init(const struct lwpt_caps *caps)
{
	u8 vector;	/* per CPU: lwpt_hw_lwp_irq_vector() */
	int err;

	if (!caps->lwp)
		return 0;
	lwp_caps = *caps;
	err = lwp_area_init();
	if (err)
		return err;
	lwp_kernel_safe = lwp_kver_sigreturn_masked(LINUX_VERSION_MAJOR,
						    LINUX_VERSION_PATCHLEVEL,
						    LINUX_VERSION_SUBLEVEL) &&
			  !lwp_variant_kernel_unsafe();
	if (!lwp_kernel_safe)
		pr_warn(LWPT_PR_PREFIX "LWP: Linux %u.%u.%u%s: sigreturn may XRSTOR XSAVE component 62 from a forged signal frame (fixed in 6.1.79 by d877550eaf2d), so /dev/lwp will not enable LWP; PT is unaffected (Documentation/lwp.rst, \"Kernel version gate\")\n",
			LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL,
			LINUX_VERSION_SUBLEVEL,
			lwp_variant_kernel_unsafe() ? " (lwp_unsafe_kernel=1)" : "");
	err = lwpt_hw_lwp_irq_register(lwp_threshold_irq, NULL, &vector);
	if (err) {
		pr_info(LWPT_PR_PREFIX "LWP: no threshold interrupt on this hardware layer (%d): LWP_CFG.INT stays 0\n",
			err);
	} else {
		lwp_irq_registered = true;
	}
	err = lwp_hooks_register();
	if (err)
		goto err_irq;
	err = lwp_guest_hook_init(lwp_guest_entry);
	if (err)
		goto err_hooks;
	err = lwp_variant_init();
	if (err)
		goto err_guest;
	preempt_notifier_inc();
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "lwpt/lwp:online",
				lwp_cpu_online, lwp_cpu_offline);
	if (err < 0)
		goto err_notifier;
	lwp_cpuhp_state = err;
	register_syscore_ops(&lwp_syscore_ops);
	lwp_up = true;
	return 0;

err_notifier:
	preempt_notifier_dec();
	lwp_variant_exit();
err_guest:
	lwp_guest_hook_exit();
err_hooks:
	lwp_hooks_unregister();
err_irq:
	if (lwp_irq_registered)
		lwpt_hw_lwp_irq_unregister();
	lwp_irq_registered = false;
	return err;
}

void lwp_exit(void)
{
	if (!lwp_up)
		return;
	lwp_up = false;
	unregister_syscore_ops(&lwp_syscore_ops);
	WRITE_ONCE(lwp_unloading, true);
	cpuhp_remove_state(lwp_cpuhp_state);
	WRITE_ONCE(lwp_unloading, false);
	preempt_notifier_dec();
	lwp_variant_exit();
	lwp_guest_hook_exit();
	lwp_hooks_unregister();
	if (lwp_irq_registered)
		lwpt_hw_lwp_irq_unregister();
	lwp_irq_registered = false;
	WRITE_ONCE(lwp_rearm_refused, false);
	if (atomic_read(&lwp_switch_errors))
		pr_err(LWPT_PR_PREFIX "LWP: %d failed XCR0/XSAVE/XRSTOR calls at context switch\n",
		       atomic_read(&lwp_switch_errors));
	if (atomic64_read(&lwp_guest_detaches))
		pr_info(LWPT_PR_PREFIX "LWP: taken away from %lld threads entering a KVM guest\n",
			(long long)atomic64_read(&lwp_guest_detaches));
	if (atomic64_read(&lwp_stray_irqs))
		pr_info(LWPT_PR_PREFIX "LWP: %lld threshold interrupts without an owner\n",
			(long long)atomic64_read(&lwp_stray_irqs));
}
