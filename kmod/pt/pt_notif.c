// SPDX-License-Identifier: GPL-2.0
/*
 * The preempt notifier of each traced task: per-thread RTIT state is loaded
 * when a traced thread has been switched in (the notifier's sched_in runs
 * in finish_task_switch(), after the switch completed, as perf's
 * perf_event_task_sched_in()), not at the sched_switch tracepoint, where
 * the outgoing task still runs (SDM 33.3.5: the state is the thread's).
 *
 * A preempt notifier sits on one task's list and only that task may add
 * or remove it (preempt_notifier_register() and _unregister() act on
 * current). So each traced task registers its own: a task_work queued on
 * it (TWA_RESUME) when it joins a capture runs before it next returns to
 * user mode, registers the notifier and loads its state at once, so that
 * no user instruction of a traced thread runs before its state is
 * loaded. When it leaves a capture, a task_work (TWA_RESUME again)
 * unregisters it, or the task does so itself where it is current (exec,
 * exit). TWA_RESUME, not TWA_SIGNAL: a traced program never sees a system
 * call interrupted (TWA_SIGNAL wakes interruptible sleeps; epoll_wait()
 * and others then return EINTR to the program). Fork does not copy the
 * notifier (__sched_fork()); a new thread queues its own.
 *
 * The same entry carries the hold of a traced thread (pt_thread.c, "The
 * hold"): a second task_work, queued from IRQ context, a switch-in, the
 * exec probe or signal delivery (pt_notif_hold()), that waits in the
 * kernel, as the task, until its reader made room. It is never queued
 * again from inside itself: task_work_run() would run it again at once,
 * in a loop (pt_thread_held() says where it goes instead).
 *
 * Lifetime: a registered notifier and a queued task_work point into this
 * module's text and at their struct pt_notif, which belongs to the task
 * from the moment the work is queued: only the task frees it, after it
 * unregistered, in its task_work or its exit or exec probe. Each entry
 * holds a reference to the module, so rmmod fails (in use, EWOULDBLOCK)
 * while a task that was traced has not yet run its task_work (it sleeps in
 * the kernel, e.g. in read() of a pipe): it succeeds once the task
 * returned to user mode or exited. The preempt notifier static key
 * (preempt_notifier_inc()) is on while the module is loaded: switching it
 * patches kernel text, and doing that at every capture is avoidable churn
 * (see pt_thread.c on probes).
 *
 * The entries are in pt_notif_hash by task under pt_notif_lock (raw,
 * IRQs off), taken inside pt_thread_lock and nothing inside it.
 * task_work_add() with TWA_RESUME takes no lock (it sets
 * TIF_NOTIFY_RESUME and may kick the task's CPU).
 */
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>

#include "pt_int.h"

#ifndef CONFIG_PREEMPT_NOTIFIERS
#error "lwpt's per-thread PT needs CONFIG_PREEMPT_NOTIFIERS (selected by KVM)"
#endif

/**
 * struct pt_notif - the preempt notifier of one task
 * @pn: the notifier, on @task's list while @registered
 * @work: registers or unregisters it, as @task (task_work)
 * @hnode: in pt_notif_hash while @registered or @queued
 * @task: the task (compared; dereferenced only by the task itself)
 * @want: the task is traced: it should be registered
 * @registered: @pn is on the task's list (changed by the task only)
 * @queued: @work is queued on the task
 * @hold: holds the task for its reader (task_work, pt_notif_hold())
 * @hold_queued: @hold is queued on the task
 *
 * All but @pn and @work change under pt_notif_lock.
 */
struct pt_notif {
	struct preempt_notifier pn;
	struct callback_head work;
	struct hlist_node hnode;
	struct task_struct *task;
	bool want;
	bool registered;
	bool queued;
	struct callback_head hold;
	bool hold_queued;
};

static DEFINE_RAW_SPINLOCK(pt_notif_lock);
static DEFINE_HASHTABLE(pt_notif_hash, 6);
static void (*pt_notif_load)(void);
static void (*pt_notif_held)(void);

/* The entry of @task; pt_notif_lock held. */
static struct pt_notif *pt_notif_find(struct task_struct *task)
{
	struct pt_notif *n;

	hash_for_each_possible(pt_notif_hash, n, hnode, (unsigned long)task)
		if (n->task == task)
			return n;
	return NULL;
}

/*
 * Register or unregister the notifier of current (@n's task) as @on says;
 * pt_notif_lock held (IRQs off: no switch walks the list meanwhile).
 */
static void pt_notif_set(struct pt_notif *n, bool on)
{
	if (WARN_ON_ONCE(n->task != current))
		return;
	if (on && !n->registered)
		preempt_notifier_register(&n->pn);
	else if (!on && n->registered)
		preempt_notifier_unregister(&n->pn);
	n->registered = on;
}

/*
 * Take @n out of the table if nothing points at it any more (neither the
 * task's notifier list nor its task_works); pt_notif_lock held.
 * Return: it was taken out: the caller frees it (pt_notif_release()).
 */
static bool pt_notif_unlink(struct pt_notif *n)
{
	if (n->registered || n->queued || n->hold_queued)
		return false;
	hash_del(&n->hnode);
	return true;
}

/*
 * Free an entry taken out of the table and drop its module reference. In
 * the task_work it is the last thing done, but the return to
 * task_work_run() still runs module text after the module may have no
 * reference left, preemptible: pt_notif_exit() waits for it with
 * synchronize_rcu_tasks(). Elsewhere the caller holds another reference
 * (an open file) or runs in a tracepoint probe, which unload waits for.
 */
static void pt_notif_release(struct pt_notif *n)
{
	kfree(n);
	module_put(THIS_MODULE);
}

/* finish_task_switch(), preemption off: the task runs; load its state. */
static void pt_notif_sched_in(struct preempt_notifier *pn, int cpu)
{
	pt_notif_load();
}

/*
 * prepare_task_switch(): nothing. The outgoing thread's state is saved by
 * the sched_switch probe just before (pt_thread.c), which also saves a
 * state loaded for a thread without a notifier (START's IPI).
 */
static void pt_notif_sched_out(struct preempt_notifier *pn,
			       struct task_struct *next)
{
}

static struct preempt_ops pt_notif_ops = {
	.sched_in = pt_notif_sched_in,
	.sched_out = pt_notif_sched_out,
};

/* task_work, as the task: (un)register as wanted, load, free if unused. */
static void pt_notif_work(struct callback_head *cb)
{
	struct pt_notif *n = container_of(cb, struct pt_notif, work);
	unsigned long flags;
	bool load, gone;

	raw_spin_lock_irqsave(&pt_notif_lock, flags);
	n->queued = false;
	/* An exiting task (exit_task_work()) never registers again. */
	pt_notif_set(n, n->want && !(current->flags & PF_EXITING));
	load = n->registered;
	gone = pt_notif_unlink(n);
	raw_spin_unlock_irqrestore(&pt_notif_lock, flags);
	if (load) {
		/* It may have been switched in since it joined: load now. */
		preempt_disable();
		pt_notif_load();
		preempt_enable();
	}
	if (gone)
		pt_notif_release(n);
}

/* task_work, as the task: wait for the reader (pt_thread.c), free if unused. */
static void pt_notif_hold_work(struct callback_head *cb)
{
	struct pt_notif *n = container_of(cb, struct pt_notif, hold);
	unsigned long flags;
	bool gone;

	raw_spin_lock_irqsave(&pt_notif_lock, flags);
	n->hold_queued = false;
	raw_spin_unlock_irqrestore(&pt_notif_lock, flags);
	/* An exiting task (exit_task_work()) is never held. */
	if (!(current->flags & PF_EXITING))
		pt_notif_held();
	raw_spin_lock_irqsave(&pt_notif_lock, flags);
	gone = pt_notif_unlink(n);
	raw_spin_unlock_irqrestore(&pt_notif_lock, flags);
	if (gone)
		pt_notif_release(n);
}

/**
 * pt_notif_alloc - an entry for a task that may join a capture later
 * @gfp: allocation flags (may sleep with GFP_KERNEL)
 *
 * Return: the entry, or NULL out of memory.
 */
struct pt_notif *pt_notif_alloc(gfp_t gfp)
{
	struct pt_notif *n = kzalloc(sizeof(*n), gfp);

	if (!n)
		return NULL;
	preempt_notifier_init(&n->pn, &pt_notif_ops);
	init_task_work(&n->work, pt_notif_work);
	init_task_work(&n->hold, pt_notif_hold_work);
	return n;
}

/**
 * pt_notif_free - free an entry pt_notif_want() did not take
 * @n: the entry, or NULL
 */
void pt_notif_free(struct pt_notif *n)
{
	kfree(n);
}

/**
 * pt_notif_want - @task is traced: its notifier should be registered
 * @task: a live task (not past its exit probe), not necessarily current
 * @spare: an entry from pt_notif_alloc(), taken (set to NULL) if @task has
 *	none yet
 *
 * A task with an entry keeps it (registered, or a task_work queued that
 * registers it now). Otherwise @spare gets a module reference and a
 * task_work (TWA_RESUME) that registers it before the task next returns
 * to user mode. A kernel thread or io_uring worker never runs user code:
 * nothing to do. Any context; takes pt_notif_lock.
 *
 * Return: 0; -ESRCH the task is past exit_task_work(); -ENOMEM no @spare;
 * -ENODEV the module is being unloaded.
 */
int pt_notif_want(struct task_struct *task, struct pt_notif **spare)
{
	struct pt_notif *n;
	unsigned long flags;
	int err = 0;

	if (task->flags & (PF_KTHREAD | PF_IO_WORKER))
		return 0;
	raw_spin_lock_irqsave(&pt_notif_lock, flags);
	n = pt_notif_find(task);
	if (n) {
		n->want = true;
		goto out;
	}
	n = *spare;
	if (!n) {
		err = -ENOMEM;
		goto out;
	}
	if (!try_module_get(THIS_MODULE)) {
		err = -ENODEV;
		goto out;
	}
	n->task = task;
	n->want = true;
	n->registered = false;
	err = task_work_add(task, &n->work, TWA_RESUME);
	if (err) {
		/* The caller holds the module too (an open file). */
		module_put(THIS_MODULE);
		goto out;
	}
	n->queued = true;
	hash_add(pt_notif_hash, &n->hnode, (unsigned long)task);
	*spare = NULL;
out:
	raw_spin_unlock_irqrestore(&pt_notif_lock, flags);
	return err;
}

/**
 * pt_notif_hold - hold a traced task before it next returns to user mode
 * @task: a task that wants its notifier (pt_notif_want()), normally current
 *
 * Queues the hold task_work (TWA_RESUME: no interruptible sleep of the
 * task is woken) unless it is queued already; it calls the hold function
 * of pt_notif_init() as the task. Any context with IRQs off or on, not NMI
 * (pt_notif_lock); pt_thread_lock may be held.
 *
 * Return: 0 queued (or queued already); -ENOENT @task has no entry or no
 * longer wants it; -ESRCH it is exiting (task_work_add()).
 */
int pt_notif_hold(struct task_struct *task)
{
	struct pt_notif *n;
	unsigned long flags;
	int err = 0;

	raw_spin_lock_irqsave(&pt_notif_lock, flags);
	n = pt_notif_find(task);
	if (!n || !n->want) {
		err = -ENOENT;
	} else if (!n->hold_queued) {
		err = task_work_add(task, &n->hold, TWA_RESUME);
		n->hold_queued = !err;
	}
	raw_spin_unlock_irqrestore(&pt_notif_lock, flags);
	return err;
}

/**
 * pt_notif_drop - @task is no longer traced: unregister its notifier
 * @task: a live task (not past its exit probe)
 *
 * If @task is current (its exec or exit probe, or it closes its own
 * capture) the notifier goes at once and the entry is freed; else a
 * task_work (TWA_RESUME) does so before it next returns to user mode, or
 * at its exit. Any context (IRQs may be off); takes pt_notif_lock. The
 * caller holds a module reference (an open file) or runs in a probe.
 */
void pt_notif_drop(struct task_struct *task)
{
	struct pt_notif *n;
	unsigned long flags;
	bool gone = false;

	raw_spin_lock_irqsave(&pt_notif_lock, flags);
	n = pt_notif_find(task);
	if (!n)
		goto out;
	n->want = false;
	if (task == current) {
		pt_notif_set(n, false);
		gone = pt_notif_unlink(n);
	} else if (n->registered && !n->queued &&
		   !task_work_add(task, &n->work, TWA_RESUME)) {
		n->queued = true;
	}
out:
	raw_spin_unlock_irqrestore(&pt_notif_lock, flags);
	if (gone)
		pt_notif_release(n);
}

/**
 * pt_notif_init - turn preempt notifiers on (module load)
 * @load: loads current's RTIT state on this CPU if it is traced and
 *	nothing is loaded (preemption off; IRQs on or off)
 * @hold: holds current, a traced thread, until its reader made room (task
 *	context, may sleep; pt_notif_hold())
 */
void pt_notif_init(void (*load)(void), void (*hold)(void))
{
	pt_notif_load = load;
	pt_notif_held = hold;
	preempt_notifier_inc();
}

/**
 * pt_notif_exit - turn preempt notifiers off (module unload)
 *
 * Every entry holds a module reference, so none is left here. A task_work
 * that dropped the last reference (pt_notif_release()) may still be
 * returning through this module's text, possibly preempted there: wait
 * until every task has passed a voluntary context switch, user mode or
 * idle (an RCU-tasks grace period, the wait ftrace and BPF trampolines use
 * before their text is freed, kernel/rcu/tasks.h); a task preempted in our
 * text is not in such a state until it left it. Without CONFIG_TASKS_RCU
 * (no preemption) it is synchronize_rcu(), for which such code is a
 * read-side section (include/linux/rcupdate.h).
 */
void pt_notif_exit(void)
{
	WARN_ON_ONCE(!hash_empty(pt_notif_hash));
	preempt_notifier_dec();
	synchronize_rcu_tasks();
}
