/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LWP subsystem of lwpt.ko and lwpt_sim.ko (43724 §4, §7, §8):
 * per-CPU LWP_CFG, per-thread opt-in through /dev/lwp, XSAVE/XRSTOR of
 * component 62 at context switch, threshold interrupt delivery.
 * See Documentation/lwp.rst.
 *
 * lwp_core.c is shared by both modules (no module_param, no KBUILD_MODNAME).
 * The per-module part, the "variant", is lwp_native.c (lwpt.ko) or
 * sim/lwp_emu.c (lwpt_sim.ko: #UD emulation of the instructions).
 */
#ifndef LWPT_KMOD_LWP_LWP_H
#define LWPT_KMOD_LWP_LWP_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "../lwpt.h"

struct miscdevice;

/**
 * struct lwp_file - one open file of /dev/lwp, and the LWP context of the
 *	thread that enabled LWP through it
 * @misc: the misc device (for the ioctls common to both devices)
 * @file: the struct file; while @active, the owning thread holds a
 *	reference to it (so the file, and the module, outlive the context)
 * @pn: preempt notifier, on @owner's list while @active
 * @owner: pid of the thread that enabled LWP through this file (set once,
 *	referenced until release, so no later thread can match it)
 * @tid: @owner's thread id in the opener's pid namespace, for statistics
 * @active: LWP is available to @owner; written only by @owner
 * @area: 64-byte aligned XSAVE area for component 62 (lwp_area_size bytes)
 * @emu_area: a second area of the same size for the variant's use
 * @emu_work: task_work of the variant (sim: the #UD emulation)
 * @emu_ip: the variant's RIP of the pending work
 * @emu_flags: the variant's copy of the active LWPCB Flags (sim: as the
 *	model left them after the last emulated instruction; 0 if disabled)
 * @pending: threshold interrupts not yet returned by read()
 * @interrupts: threshold interrupts attributed to this file
 * @saves: XSAVEs at sched-out, written by @owner's notifier only
 * @restores: XRSTORs at sched-in, likewise
 * @emulated: instructions emulated by the variant
 * @switch_errors: failed hardware-layer calls at this thread's switches
 * @xcr0_lost: sched-outs that found XCR0[62] cleared under the thread
 * @int_rearmed: sched-ins that put Flags.INT back into @area
 * @int_lwpcb: LWPCB last seen (in user memory) with Flags.INT, or 0
 * @irq_window: jiffies at the start of the interrupt-rate window
 * @irq_count: threshold interrupts in that window
 * @throttled: threshold interrupts are off until @throttle_timer expires
 * @throttle_timer: lifts the throttle one second after it began
 * @throttles: times the thread was throttled
 * @throttled_irqs: threshold interrupts that arrived while @throttled
 * @throttle_busy: bit 0: @throttle_work is queued
 * @throttle_work: task_work of @owner that makes Flags.INT of its live
 *	state match @throttled (out while throttled, back from the LWPCB after)
 * @wq: readers and pollers waiting for @pending
 * @fasync: O_ASYNC / F_SETOWN / F_SETSIG subscribers
 * @irq_work: wakes @wq and signals @fasync outside the interrupt
 */
struct lwp_file {
	struct miscdevice *misc;
	struct file *file;
	struct preempt_notifier pn;
	struct pid *owner;
	pid_t tid;
	bool active;
	void *area;
	void *emu_area;
	struct callback_head emu_work;
	u64 emu_ip;
	u32 emu_flags;
	atomic64_t pending;
	atomic64_t interrupts;
	u64 saves;
	u64 restores;
	atomic64_t emulated;
	atomic64_t switch_errors;
	u64 xcr0_lost;
	u64 int_rearmed;
	u64 int_lwpcb;
	unsigned long irq_window;
	unsigned int irq_count;
	bool throttled;
	struct hrtimer throttle_timer;
	u64 throttles;
	u32 throttled_irqs;
	unsigned long throttle_busy;
	struct callback_head throttle_work;
	wait_queue_head_t wq;
	struct fasync_struct *fasync;
	struct irq_work irq_work;
};

/* The /dev/lwp file operations (open, release, ioctl, read, poll, fasync). */
extern const struct file_operations lwp_fops;

/**
 * lwp_init - bring up LWP on every online CPU and for later ones
 * @caps: detection result; nothing happens unless @caps->lwp
 *
 * Registers the threshold interrupt hook, the cpuhp state that programs
 * LWP_CFG (43724 §4.2), the syscore resume hook, the exec/exit hooks and the
 * variant (lwp_variant_init()).
 *
 * Return: 0, -ENODEV if a kernel facility LWP needs is missing (logged),
 * -ENOMEM, or a cpuhp error. Nothing stays registered on error.
 */
int lwp_init(const struct lwpt_caps *caps);

/**
 * lwp_exit - undo lwp_init(): LWP_CFG = 0 on every CPU, hooks removed
 *
 * No thread can have LWP here: each one holds a reference to its file,
 * hence to the module.
 */
void lwp_exit(void);

/**
 * lwp_current_file - the /dev/lwp file through which current has LWP
 *
 * Callable in any context of current (IRQs off included).
 *
 * Return: the file's context, or NULL if LWP is not available to current.
 */
struct lwp_file *lwp_current_file(void);

/**
 * lwp_area_size - bytes of an XSAVE area holding component 62
 *
 * Return: CPUID Fn0000_000D_x3E EBX + EAX (offset + size, 43724 §3.2).
 */
u32 lwp_area_size(void);

/**
 * lwp_guest_entry - current is about to enter a KVM guest
 *
 * Called by lwp_guest.c's kvm_entry probe (and by lwpt_sim.ko's model of
 * it, the lwp_kvm_run parameter) in current's context, IRQs off, before
 * KVM loads the guest's XCR0 (43724 §8.2.2); also in the thread that loads
 * kvm.ko, before KVM reads host_xcr0. Any context of current. If current has LWP, takes it
 * away as LWP_IOC_DISABLE would (XCR0[62] cleared, LWP_CBADDR = 0) and
 * logs it: the guest never runs with the thread's LWP state.
 */
void lwp_guest_entry(void);

/**
 * lwp_guest_hook_init - call @fn at every KVM guest entry of the host
 * @fn: called in the vCPU thread's context with IRQs off, before KVM's
 *	kvm_load_guest_xsave_state()
 *
 * Probes KVM's kvm_entry tracepoint, in the kernel or in kvm.ko whenever
 * it loads (lwp_guest.c).
 *
 * Return: 0, or register_tracepoint_module_notifier()'s error.
 */
int lwp_guest_hook_init(void (*fn)(void));

/**
 * lwp_guest_hook_exit - undo lwp_guest_hook_init()
 */
void lwp_guest_hook_exit(void);

/**
 * lwp_variant_init - per-module part of lwp_init()
 *
 * Return: 0 or a negative errno (lwp_init() then fails with it).
 */
int lwp_variant_init(void);

/**
 * lwp_variant_exit - undo lwp_variant_init()
 */
void lwp_variant_exit(void);

/**
 * lwp_variant_feature_policy - LWP_CFG feature bits the administrator allows
 *
 * The lwp_features module parameter of either module (default: all).
 *
 * Return: a mask ANDed with CPUID Fn8000_001C_EDX[31:1] before LWP_CFG is
 * written.
 */
u32 lwp_variant_feature_policy(void);

/**
 * lwp_variant_kernel_unsafe - treat the kernel as below the version gate
 *
 * lwpt_sim.ko's lwp_unsafe_kernel parameter (a test aid, issue 38 §3);
 * lwpt.ko: false. Read once by lwp_init().
 *
 * Return: true to refuse LWP_IOC_ENABLE as on a kernel whose sigreturn
 * does not mask component 62 (kmod/lwp/lwp_kver.h).
 */
bool lwp_variant_kernel_unsafe(void);

#endif /* LWPT_KMOD_LWP_LWP_H */
