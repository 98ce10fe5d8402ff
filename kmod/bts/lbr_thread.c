// SPDX-License-Identifier: GPL-2.0
/*
 * Which thread has which LBR stack, its context switches, exit, exec and
 * fatal signal, and LWPT_BTS_IOC_LBR_SNAPSHOT (Documentation/bts.rst,
 * "LBR snapshots"; ABI 1.7).
 *
 * A table keyed by the task (RCU readers, a spinlock for writers) holds
 * the attached states, apart from bts_thread.c's so that the two
 * subsystems stay independent: the sched_switch probe here unloads the
 * outgoing thread's stack and loads the incoming one's (lbr_msr.c), as
 * perf saves and restores an LBR call-stack user's stack at its context
 * switches. sched_process_exit ends the stack; sched_process_exec ends it
 * when bts_thread.c's probe, registered before this one (tracepoint
 * probes run in the order of registration), stopped the capture at an
 * exec the caller may not trace.
 *
 * The fatal signal: signal_deliver, in the thread, as get_signal() takes
 * a signal whose action is the default one and kills (or the SIGKILL of
 * a dying thread group). The LBRs are stopped at once and read: the stack
 * as it was when the thread last ran in user mode plus, with kernel
 * branches recorded, the kernel's way from the fault to get_signal()
 * (with user branches only, MSR_LBR_SELECT drops ring-0 branches and the
 * stack ends with the fault's own transfer into the kernel, 17.4.8.3).
 */
#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include <lwpt/bts_arch.h>
#include <lwpt/lbr_arch.h>

#include "bts_int.h"
#include "lbr_int.h"

static DEFINE_HASHTABLE(lbr_threads, 6);
static DEFINE_SPINLOCK(lbr_thread_lock);	/* writers of lbr_threads */
static atomic_t lbr_attached = ATOMIC_INIT(0);
static struct tracepoint *lbr_tp_switch;
static struct tracepoint *lbr_tp_exit;
static struct tracepoint *lbr_tp_exec;
static struct tracepoint *lbr_tp_signal;
static bool lbr_probed;

/* The state attached to @t, or NULL. RCU or lbr_thread_lock held. */
static struct lbr_state *lbr_thread_find(struct task_struct *t)
{
	struct lbr_state *st;

	hash_for_each_possible_rcu(lbr_threads, st, node, (unsigned long)t)
		if (st->task == t)
			return st;
	return NULL;
}

/* sched_switch: runqueue lock held, interrupts off, on the switching CPU. */
static void lbr_thread_switch(void *data, bool preempt, struct task_struct *prev,
			      struct task_struct *next, unsigned int prev_state)
{
	struct lbr_state *st;

	if (!atomic_read(&lbr_attached))
		return;
	rcu_read_lock();
	st = lbr_thread_find(prev);
	if (st)
		lbr_msr_unload(st);
	st = lbr_thread_find(next);
	if (st && READ_ONCE(st->attached) && READ_ONCE(st->loaded_cpu) < 0)
		lbr_msr_load(st);
	rcu_read_unlock();
}

/* Unload @p's stack for good (in @p, interrupts on). */
static void lbr_thread_end(struct task_struct *p)
{
	struct lbr_state *st;
	unsigned long flags;

	rcu_read_lock();
	st = lbr_thread_find(p);
	if (st) {
		local_irq_save(flags);
		lbr_msr_unload(st);
		WRITE_ONCE(st->ended, true);
		local_irq_restore(flags);
	}
	rcu_read_unlock();
}

static void lbr_thread_exit_probe(void *data, struct task_struct *p)
{
	if (atomic_read(&lbr_attached))
		lbr_thread_end(p);
}

/*
 * After bts_thread.c's exec probe: its capture stopped (exited set) at an
 * exec the caller may not trace; the LBRs stop there too.
 */
static void lbr_thread_exec_probe(void *data, struct task_struct *p,
				  pid_t old_pid, struct linux_binprm *bprm)
{
	struct lbr_state *st;
	bool stop = false;

	if (!atomic_read(&lbr_attached))
		return;
	rcu_read_lock();
	st = lbr_thread_find(p);
	if (st)
		stop = READ_ONCE(st->owner->exited);
	rcu_read_unlock();
	if (stop)
		lbr_thread_end(p);
}

/*
 * Does @sig with action @ka kill the thread: the default action of a
 * signal that terminates (with or without a core dump), or SIGKILL
 * (get_signal(): neither ignored nor a stop signal).
 */
static bool lbr_signal_fatal(int sig, const struct k_sigaction *ka)
{
	if (sig == SIGKILL)
		return true;
	if (sig < 1 || sig > _NSIG || ka->sa.sa_handler != SIG_DFL)
		return false;
	return !sig_kernel_ignore(sig) && !sig_kernel_stop(sig);
}

/*
 * signal_deliver: in the thread, sighand->siglock held, interrupts off.
 * The first fatal signal keeps the stack for the reader.
 */
static void lbr_thread_signal_probe(void *data, int sig, struct kernel_siginfo *info,
				    struct k_sigaction *ka)
{
	struct lbr_state *st;

	if (!atomic_read(&lbr_attached) || !lbr_signal_fatal(sig, ka))
		return;
	rcu_read_lock();
	st = lbr_thread_find(current);
	if (st && READ_ONCE(st->loaded_cpu) == smp_processor_id()) {
		lbr_msr_unload(st);
		WRITE_ONCE(st->ended, true);
		raw_spin_lock(&st->lock);
		if (!st->crashed) {
			memset(&st->crash, 0, sizeof(st->crash));
			lbr_msr_fill(st, &st->crash);
			st->crash.signo = sig;
			st->crashed = true;
		}
		raw_spin_unlock(&st->lock);
	}
	rcu_read_unlock();
}

static void lbr_thread_ipi_load(void *arg)
{
	struct lbr_state *st = arg;

	if (current == st->task && READ_ONCE(st->attached) &&
	    READ_ONCE(st->loaded_cpu) < 0)
		lbr_msr_load(st);
}

static void lbr_thread_ipi_unload(void *arg)
{
	lbr_msr_unload(arg);
}

static void lbr_thread_ipi_save(void *arg)
{
	lbr_msr_save_live(arg);
}

int lbr_config_check(u32 flags)
{
	const struct lbr_caps *c = lbr_msr_caps();

	if (!c->present)
		return -EOPNOTSUPP;
	/* One CPL only needs the processor's filter (17.7.2, Table 17-11). */
	if (flags != LWPT_BTS_CFG_FLAGS && !c->select)
		return -EOPNOTSUPP;
	return 0;
}

int lbr_alloc(struct bts_session *s, u32 flags)
{
	const struct lbr_caps *c = lbr_msr_caps();
	struct lbr_state *st = kzalloc(sizeof(*st), GFP_KERNEL);

	if (!st)
		return -ENOMEM;
	raw_spin_lock_init(&st->lock);
	st->task = s->task;
	st->owner = s;
	st->loaded_cpu = -1;
	st->debugctl = IA32_DEBUGCTL_LBR;
	if (c->freeze)
		st->debugctl |= IA32_DEBUGCTL_FREEZE_LBRS_ON_PMI;
	/* Table 17-11: a set bit drops branches occurring at that CPL. */
	if (flags == LWPT_BTS_CFG_USER)
		st->select = LBR_SELECT_CPL_EQ_0;
	else if (flags == LWPT_BTS_CFG_KERNEL)
		st->select = LBR_SELECT_CPL_NEQ_0;
	s->lbr = st;
	return 0;
}

void lbr_free(struct bts_session *s)
{
	kfree(s->lbr);
	s->lbr = NULL;
}

void lbr_attach(struct bts_session *s)
{
	struct lbr_state *st = s->lbr;
	struct task_struct *t = st->task;
	unsigned long flags;

	spin_lock(&lbr_thread_lock);
	WRITE_ONCE(st->attached, true);
	hash_add_rcu(lbr_threads, &st->node, (unsigned long)t);
	atomic_inc(&lbr_attached);
	spin_unlock(&lbr_thread_lock);

	if (t == current) {
		local_irq_save(flags);
		if (READ_ONCE(st->loaded_cpu) < 0)
			lbr_msr_load(st);
		local_irq_restore(flags);
	} else {
		smp_call_function_single(task_cpu(t), lbr_thread_ipi_load, st, 1);
	}
}

void lbr_detach(struct bts_session *s)
{
	struct lbr_state *st = s->lbr;
	int cpu;

	if (!st)
		return;
	spin_lock(&lbr_thread_lock);
	if (!st->attached) {
		spin_unlock(&lbr_thread_lock);
		return;
	}
	WRITE_ONCE(st->attached, false);
	spin_unlock(&lbr_thread_lock);
	/*
	 * As bts_thread_detach(): in the table until unloaded, so that the
	 * switch probe unloads it if the thread leaves its CPU in this grace
	 * period; else IA32_DEBUGCTL.LBR would stay on for whatever runs there.
	 */
	synchronize_rcu();
	cpu = READ_ONCE(st->loaded_cpu);
	if (cpu >= 0)
		smp_call_function_single(cpu, lbr_thread_ipi_unload, st, 1);
	spin_lock(&lbr_thread_lock);
	hash_del_rcu(&st->node);
	atomic_dec(&lbr_attached);
	spin_unlock(&lbr_thread_lock);
	synchronize_rcu();
}

long lbr_ioctl_snapshot(struct bts_session *s, void __user *arg)
{
	struct lbr_state *st = s->lbr;
	struct lwpt_bts_lbr *out;
	u32 usize, which, reserved;
	unsigned long flags;
	long err = 0;
	int cpu;

	if (get_user(usize, (u32 __user *)arg) ||
	    get_user(which, (u32 __user *)((u8 __user *)arg +
				offsetof(struct lwpt_bts_lbr, which))) ||
	    get_user(reserved, (u32 __user *)((u8 __user *)arg +
				offsetof(struct lwpt_bts_lbr, reserved))))
		return -EFAULT;
	if (usize < LWPT_BTS_LBR_SIZE_VER0 || reserved ||
	    (which != LWPT_BTS_LBR_NOW && which != LWPT_BTS_LBR_CRASH))
		return -EINVAL;
	if (!st)
		return -ENODATA;
	if (which == LWPT_BTS_LBR_NOW) {
		/* Loaded somewhere: read it there (itself if it is the caller). */
		cpu = READ_ONCE(st->loaded_cpu);
		if (cpu >= 0)
			smp_call_function_single(cpu, lbr_thread_ipi_save, st, 1);
	}
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	raw_spin_lock_irqsave(&st->lock, flags);
	if (which == LWPT_BTS_LBR_CRASH) {
		if (st->crashed)
			*out = st->crash;
		else
			err = -ENODATA;
	} else if (!st->saved && (READ_ONCE(st->ended) || !READ_ONCE(st->attached))) {
		err = -ESRCH;
	} else {
		lbr_msr_fill(st, out);
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
	if (!err) {
		out->size = sizeof(*out);
		out->which = which;
		if (copy_to_user(arg, out, sizeof(*out)))
			err = -EFAULT;
	}
	kfree(out);
	return err;
}

int lbr_init(const struct lwpt_caps *caps)
{
	const struct lbr_caps *c;
	int err;

	lbr_msr_detect(caps);
	c = lbr_msr_caps();
	if (!c->present) {
		pr_info(LWPT_PR_PREFIX "/dev/bts: no LBR snapshots: %s\n", c->why);
		return 0;
	}
	lbr_tp_switch = lwpt_tracepoint_find("sched_switch");
	lbr_tp_exit = lwpt_tracepoint_find("sched_process_exit");
	lbr_tp_exec = lwpt_tracepoint_find("sched_process_exec");
	lbr_tp_signal = lwpt_tracepoint_find("signal_deliver");
	if (!lbr_tp_switch || !lbr_tp_exit || !lbr_tp_exec || !lbr_tp_signal)
		return -ENODEV;
	err = tracepoint_probe_register(lbr_tp_switch, lbr_thread_switch, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(lbr_tp_exit, lbr_thread_exit_probe, NULL);
	if (err)
		goto err_switch;
	err = tracepoint_probe_register(lbr_tp_exec, lbr_thread_exec_probe, NULL);
	if (err)
		goto err_exit;
	err = tracepoint_probe_register(lbr_tp_signal, lbr_thread_signal_probe, NULL);
	if (err)
		goto err_exec;
	lbr_probed = true;
	return 0;

err_exec:
	tracepoint_probe_unregister(lbr_tp_exec, lbr_thread_exec_probe, NULL);
err_exit:
	tracepoint_probe_unregister(lbr_tp_exit, lbr_thread_exit_probe, NULL);
err_switch:
	tracepoint_probe_unregister(lbr_tp_switch, lbr_thread_switch, NULL);
	tracepoint_synchronize_unregister();
	return err;
}

void lbr_exit(void)
{
	if (!lbr_probed)
		return;
	tracepoint_probe_unregister(lbr_tp_signal, lbr_thread_signal_probe, NULL);
	tracepoint_probe_unregister(lbr_tp_exec, lbr_thread_exec_probe, NULL);
	tracepoint_probe_unregister(lbr_tp_exit, lbr_thread_exit_probe, NULL);
	tracepoint_probe_unregister(lbr_tp_switch, lbr_thread_switch, NULL);
	tracepoint_synchronize_unregister();
	lbr_probed = false;
}
