// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt_sim.ko: PTWRITE (SDM Vol. 2 "PTWRITE", SDM 33.2.2) on CPUs that
 * raise #UD on it. The simulated processor enumerates PTWRITE
 * (CPUID.(14H,0):EBX[4], profile "full"), so user code may execute it;
 * QEMU 7.2's TCG raises #UD on F3 [REX.W] 0F AE /4 (tests/vm/progs/
 * pt_ptwrite.c "probe"). A die notifier claims the #UD of a PTWRITE in
 * 64-bit user mode and a task_work, before the return to user mode and
 * with page faults allowed, executes it: it reads the operand (a fault is
 * the #PF the instruction would raise: SIGSEGV), moves RIP past it and
 * hands it to the execution follower (sim_step_emulated()), which gives the
 * PT model the operand for its PTW packet. A thread single-stepped by a
 * debugger gets the trap that follows the instruction (SDM Vol. 3
 * 17.3.1.4). Without EBX[4] (profile "bdw") PTWRITE stays #UD, as on
 * hardware. Documentation/pt-model.rst, "Execution in the kernel".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kdebug.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>

#include <asm/ptrace.h>
#include <asm/traps.h>

#include <lwpt/pt_cpuid.h>

#include "model/x86/x86_ptwrite.h"

#include "../lwpt.h"
#include "sim.h"
#include "sim_step.h"
#include "sim_ptwrite.h"

/**
 * struct sim_ptwrite_work - a PTWRITE that raised #UD, to execute
 * @cb: the task_work
 * @ip: its address; not executed if RIP moved meanwhile (ptrace, signal)
 */
struct sim_ptwrite_work {
	struct callback_head cb;
	u64 ip;
};

static bool sim_ptwrite_on;
static atomic_t sim_ptwrite_works = ATOMIC_INIT(0);

/* task_work: execute the PTWRITE at w->ip in the current thread. */
static void sim_ptwrite_work(struct callback_head *cb)
{
	struct sim_ptwrite_work *w = container_of(cb, struct sim_ptwrite_work, cb);
	struct pt_regs *regs = current_pt_regs();
	u8 bytes[X86_MAX_INSN_LEN];
	struct x86_ptwrite pw;
	u64 gpr[SIM_GPRS], v = 0, ea;
	size_t n;

	if ((current->flags & PF_EXITING) || regs->ip != w->ip)
		goto out;
	n = sizeof(bytes) - copy_from_user(bytes, (const void __user *)w->ip,
					   sizeof(bytes));
	if (x86_ptwrite_decode(bytes, n, X86_MODE_64, &pw)) {
		/* The bytes changed since the #UD: it was no PTWRITE. */
		sim_user_signal(SIGILL, ILL_ILLOPN, w->ip);
		goto out;
	}
	sim_regs_gpr(regs, gpr);
	if (pw.mem) {
		ea = x86_ptwrite_ea(&pw, gpr, w->ip + pw.len);
		if (copy_from_user(&v, (const void __user *)ea, pw.size)) {
			sim_user_segv(ea);
			goto out;
		}
	} else {
		v = gpr[pw.reg];
	}
	if (pw.size == 4)
		v = (u32)v;
	regs->ip = w->ip + pw.len;
	if (!sim_step_emulated(regs, w->ip, pw.size, v) &&
	    (regs->flags & X86_EFLAGS_TF))
		sim_user_signal(SIGTRAP, TRAP_TRACE, w->ip);
out:
	kfree(w);
	atomic_dec(&sim_ptwrite_works);
}

/* DIE_TRAP of #UD: interrupts off, no page faults. */
static int sim_ptwrite_die(struct notifier_block *nb, unsigned long val,
			   void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	u8 bytes[X86_MAX_INSN_LEN];
	struct sim_ptwrite_work *w;
	struct x86_ptwrite pw;
	size_t n;

	if (val != DIE_TRAP || args->trapnr != X86_TRAP_UD ||
	    !user_mode(regs) || !user_64bit_mode(regs))
		return NOTIFY_DONE;
	/* The CPU just fetched them; stop at the end of the page if need be. */
	n = min_t(u64, sizeof(bytes), PAGE_SIZE - offset_in_page(regs->ip));
	if (copy_from_user_nofault(bytes, (const void __user *)regs->ip, n))
		return NOTIFY_DONE;
	if (n < sizeof(bytes) &&
	    !copy_from_user_nofault(bytes + n, (const void __user *)(regs->ip + n),
				    sizeof(bytes) - n))
		n = sizeof(bytes);
	if (x86_ptwrite_decode(bytes, n, X86_MODE_64, &pw))
		return NOTIFY_DONE;
	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (!w)
		return NOTIFY_DONE;
	w->ip = regs->ip;
	init_task_work(&w->cb, sim_ptwrite_work);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		kfree(w);
		return NOTIFY_DONE;
	}
	atomic_inc(&sim_ptwrite_works);
	return NOTIFY_STOP;
}

static struct notifier_block sim_ptwrite_nb = {
	.notifier_call = sim_ptwrite_die,
};

int sim_ptwrite_init(void)
{
	struct lwpt_cpuid_regs r;
	int err;

	if (!sim_has_pt())
		return 0;
	preempt_disable();
	lwpt_hw_cpuid(PT_CPUID_LEAF, 0, &r);
	preempt_enable();
	if (!(r.ebx & PT_CPUID_0_EBX_PTWRITE))
		return 0;
	err = register_die_notifier(&sim_ptwrite_nb);
	if (err)
		return err;
	sim_ptwrite_on = true;
	return 0;
}

void sim_ptwrite_exit(void)
{
	if (!sim_ptwrite_on)
		return;
	unregister_die_notifier(&sim_ptwrite_nb);
	sim_ptwrite_on = false;
	/* Queued task_works point into this module: they run very soon. */
	while (atomic_read(&sim_ptwrite_works))
		msleep(20);
}
