// SPDX-License-Identifier: GPL-2.0
/*
 * Which thread has which BTS capture, and the context switches that load
 * and unload its state (Documentation/bts.rst, "/dev/bts").
 *
 * A table keyed by the task (RCU readers, a spinlock for writers) holds
 * the attached sessions. The sched_switch tracepoint, on the switching CPU
 * with interrupts off, unloads the outgoing thread's state and loads the
 * incoming one's: IA32_DEBUGCTL's branch-trace bits and the DS area's BTS
 * fields saved and restored as the thread leaves and enters a CPU, as
 * perf's intel_bts does at its event's del/add. The probe runs before the
 * switch completes: with kernel branches recorded, the tail of the switch
 * (kernel code of the outgoing thread) can land in the incoming thread's
 * buffer; user-only captures (BTS_OFF_OS) are exact.
 *
 * Attaching a running thread loads its state at once on its CPU (an IPI);
 * detaching unloads it wherever it is. sched_process_exit unloads the
 * state of an exiting thread for good; so does sched_process_exec when the
 * new program is one the caller may not trace (perf ends a task's events
 * at such an exec: begin_new_exec() calls perf_event_exit_task()).
 *
 * The hold (ring captures, Documentation/bts.rst "Ring captures"): when
 * the threshold interrupt or a load finds less than a margin of room
 * (bts_ring.c), the session's irq_work queues a task_work (TWA_RESUME) on
 * the thread: before its next user instruction it waits (interruptibly:
 * below) until the caller consumed records or stopped the capture, then
 * takes a fresh stretch (bts_ds_reload()). TWA_RESUME, as PT's hold: no system call of
 * the program is interrupted. The queued work holds a reference to the
 * session and to the module; bts_thread_exit() waits for the return from
 * the last one (synchronize_rcu_tasks(), as PT's pt_notif_exit()).
 *
 * Signals, as PT's hold (Documentation/bts.rst, "Ring captures"): the
 * wait is interruptible. A signal pending when the hold is due, or one
 * that ends the wait, is handled on the way out as usual (a fatal one
 * ends the thread, SIGSTOP and ptrace stops work), and the hold is queued
 * again when the signal is delivered (signal_deliver, after get_signal()
 * ran the task_work): it runs on the same exit to user mode, after the
 * handler's frame is set up and before its first instruction. A stop
 * switches the thread out: its load at the switch in holds it again too.
 */
#include <linux/atomic.h>
#include <linux/binfmts.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/rcupdate_wait.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>

#include <uapi/lwpt/bts.h>

#include "../hold_wait.h"
#include "../perm.h"
#include "bts_int.h"

static DEFINE_HASHTABLE(bts_threads, 6);
static DEFINE_SPINLOCK(bts_thread_lock);	/* writers of bts_threads */
static atomic_t bts_attached = ATOMIC_INIT(0);
static struct tracepoint *bts_tp_switch;
static struct tracepoint *bts_tp_exit;
static struct tracepoint *bts_tp_exec;
static struct tracepoint *bts_tp_signal;

/* The session attached to @t, or NULL. RCU or bts_thread_lock held. */
static struct bts_session *bts_thread_find(struct task_struct *t)
{
	struct bts_session *s;

	hash_for_each_possible_rcu(bts_threads, s, node, (unsigned long)t)
		if (s->task == t)
			return s;
	return NULL;
}

/* sched_switch: runqueue lock held, interrupts off, on the switching CPU. */
static void bts_thread_switch(void *data, bool preempt, struct task_struct *prev,
			      struct task_struct *next, unsigned int prev_state)
{
	struct bts_session *s;

	if (!atomic_read(&bts_attached))
		return;
	rcu_read_lock();
	s = bts_thread_find(prev);
	if (s)
		bts_ds_unload(s);
	s = bts_thread_find(next);
	if (s && READ_ONCE(s->attached) && READ_ONCE(s->loaded_cpu) < 0)
		bts_ds_load(s);
	rcu_read_unlock();
}

/* sched_process_exit, in the exiting thread: its capture ends here. */
static void bts_thread_exit_probe(void *data, struct task_struct *p)
{
	struct bts_session *s;
	unsigned long flags;

	if (!atomic_read(&bts_attached))
		return;
	rcu_read_lock();
	s = bts_thread_find(p);
	if (s) {
		local_irq_save(flags);
		bts_ds_unload(s);
		s->exited = true;
		local_irq_restore(flags);
		wake_up_all(&s->wq);
	}
	rcu_read_unlock();
}

static void bts_thread_queue_hold(struct bts_session *s);

/*
 * The rule of CONFIGURE again at an exec, with the caller's credentials
 * saved then: same real, effective and saved IDs, capabilities covered,
 * the new program dumpable (as /dev/pt's pt_config_follow_check()).
 * Atomic context (RCU).
 */
static bool bts_thread_exec_allowed(const struct bts_session *s,
				    struct task_struct *p)
{
	const struct cred *tcred;
	bool same;

	if (s->privileged)
		return true;
	if (!s->cred || !p->mm)
		return false;
	rcu_read_lock();
	tcred = __task_cred(p);
	same = lwpt_cred_same(s->cred, tcred) && lwpt_caps_cover(s->cred, tcred);
	rcu_read_unlock();
	return same && get_dumpable(p->mm) == SUID_DUMP_USER;
}

/*
 * sched_process_exec, in the thread (its new credentials committed, no
 * instruction of the new program run yet).
 */
static void bts_thread_exec_probe(void *data, struct task_struct *p,
				  pid_t old_pid, struct linux_binprm *bprm)
{
	struct bts_session *s;
	unsigned long flags;

	if (!atomic_read(&bts_attached))
		return;
	rcu_read_lock();
	s = bts_thread_find(p);
	if (s && !bts_thread_exec_allowed(s, p)) {
		local_irq_save(flags);
		bts_ds_unload(s);
		s->exec_stopped = true;
		s->exited = true;	/* never loaded again */
		local_irq_restore(flags);
		wake_up_all(&s->wq);
	} else if (s && READ_ONCE(s->hold_again) && xchg(&s->hold_again, false)) {
		/* A hold due inside execve() (bts_thread_hold()), or its reload. */
		bts_thread_queue_hold(s);
	}
	rcu_read_unlock();
}

/*
 * The thread must not run user code before the caller made room. A thread
 * with a fatal signal runs none again: it is not held, and no hold is
 * queued for it (the hold's reload finding no room would queue the next
 * one from the irq_work at once, and task_work_run() would run them
 * forever instead of letting the thread die).
 */
static bool bts_thread_no_room(const struct bts_session *s)
{
	struct bts_region r;

	if (!READ_ONCE(s->attached) || bts_session_ended(s) ||
	    !s->task || fatal_signal_pending(s->task))
		return false;
	bts_ring_region(s, &r);
	return r.hold;
}

/* ... and the hold limit did not let it run on (@hold_off). */
static bool bts_thread_must_hold(const struct bts_session *s)
{
	return !READ_ONCE(s->hold_off) && bts_thread_no_room(s);
}

/* The hold limit of @s in jiffies (lwpt_bts_config.hold_limit_ms). */
static long bts_thread_hold_limit(const struct bts_session *s)
{
	if (s->hold_limit_ms == LWPT_BTS_HOLD_LIMIT_NONE)
		return MAX_SCHEDULE_TIMEOUT;
	return max_t(long, 1, msecs_to_jiffies(s->hold_limit_ms));
}

/*
 * The hold, as the thread, before it returns to user mode (task_work,
 * TWA_RESUME). A signal pending, or one that ends the wait, is delivered
 * first (@s->hold_again: bts_thread_signal_probe() queues the hold again;
 * a fatal one ends the thread); the stretch stays the short one, on which
 * no user instruction runs before the hold. A task_work queued with
 * TWA_SIGNAL (io_uring) also ends the wait (TIF_NOTIFY_SIGNAL) with no
 * signal behind it: the flag is cleared, as get_signal() does before it
 * runs task_work, and the wait goes on (as PT's pt_thread_held()). Not
 * inside execve() (io_uring's cancel runs task_work there with
 * cred_guard_mutex held): the exec probe queues it again.
 */
static void bts_thread_hold(struct callback_head *cb)
{
	struct bts_session *s = container_of(cb, struct bts_session, hold_cb);
	unsigned long flags;
	long ret;

	atomic_set(&s->hold_queued, 0);
	if (current == s->task && bts_thread_must_hold(s)) {
		if (current->in_execve || task_sigpending(current)) {
			WRITE_ONCE(s->hold_again, true);
			goto out;
		}
		s->holds++;
		ret = lwpt_hold_wait(s->wq, !bts_thread_must_hold(s),
				     bts_thread_hold_limit(s));
		if (ret == -ERESTARTSYS) {
			WRITE_ONCE(s->hold_again, true);
			goto out;
		}
		if (!ret && bts_thread_must_hold(s)) {
			/*
			 * The limit: run on, on the short stretch (the
			 * processor stops at its end: records lost), not
			 * held again until the caller consumes.
			 */
			WRITE_ONCE(s->hold_timeouts, s->hold_timeouts + 1);
			WRITE_ONCE(s->hold_off, true);
			/*
			 * Pairs with bts_thread_room()'s smp_mb(): a CONSUME
			 * between the check above and @hold_off's store saw
			 * @hold_off clear and gave no room; its tail is seen
			 * here, and the fresh stretch is taken below.
			 */
			smp_mb();
			if (bts_thread_no_room(s))
				goto out;
			WRITE_ONCE(s->hold_off, false);
		}
	}
	/*
	 * A fresh stretch with the room the caller made. Not for a thread
	 * that dies: it runs no user instruction again, and a reload that
	 * still finds no room queues this hold again, which task_work_run()
	 * would run at once, for ever (the SIGKILL never taken).
	 */
	if (current == s->task && fatal_signal_pending(current))
		goto out;
	local_irq_save(flags);
	if (READ_ONCE(s->attached))
		bts_ds_reload(s);
	local_irq_restore(flags);
out:
	bts_session_put(s);
	module_put(THIS_MODULE);
}

/*
 * The session's irq_work (bts_int.h): after a threshold interrupt, a
 * load that found no room or perf's DS area (bts_ds_report()), an unload
 * or per-CPU switch that published a new head (bts_ds_publish()), in IRQ
 * context on that CPU. Wakes poll(2) (the head it publishes noted first:
 * a later unload that finds another one queues this again); queues the hold if the stretch
 * loaded is short (the ring had no room when it was given). Not whether
 * the ring has room now: a reader that consumed since leaves the thread on
 * that short stretch all the same, whose end it overruns (records lost)
 * before the next interrupt; the hold gives it a fresh one, and waits only
 * if there is still no room.
 */
static void bts_thread_notify(struct irq_work *iw)
{
	struct bts_session *s = container_of(iw, struct bts_session, iw);

	bts_ds_report(s);
	WRITE_ONCE(s->woken_head, READ_ONCE(s->head));
	wake_up_all(&s->wq);
	if (s->ring && READ_ONCE(s->region_short) && !READ_ONCE(s->hold_off))
		bts_thread_queue_hold(s);
}

/*
 * Queue the hold (bts_thread_hold()) on @s->task unless queued already or
 * the thread dies. Atomic context (IRQ, a probe).
 */
static void bts_thread_queue_hold(struct bts_session *s)
{
	if (fatal_signal_pending(s->task) ||
	    atomic_cmpxchg(&s->hold_queued, 0, 1))
		return;
	refcount_inc(&s->ref);
	__module_get(THIS_MODULE);
	init_task_work(&s->hold_cb, bts_thread_hold);
	if (task_work_add(s->task, &s->hold_cb, TWA_RESUME)) {
		/* Exiting: no user code runs again. The file holds a ref. */
		atomic_set(&s->hold_queued, 0);
		refcount_dec(&s->ref);
		module_put(THIS_MODULE);
	}
}

/*
 * signal_deliver, in get_signal() as current (siglock held, IRQs off),
 * after it ran the task_work: a hold that a signal ended or deferred
 * (@hold_again) is queued again; it runs before the thread's next user
 * instruction, the handler's frame set up (as PT's pt_probe_signal()).
 * Also when the reader made room meanwhile: the stretch loaded may be the
 * short one, and the hold, not waiting then, gives a fresh one.
 */
static void bts_thread_signal_probe(void *data, int sig,
				    struct kernel_siginfo *info,
				    struct k_sigaction *ka)
{
	struct bts_session *s;

	if (!atomic_read(&bts_attached))
		return;
	rcu_read_lock();
	s = bts_thread_find(current);
	if (s && READ_ONCE(s->hold_again) && xchg(&s->hold_again, false))
		bts_thread_queue_hold(s);
	rcu_read_unlock();
}

void bts_thread_session_init(struct bts_session *s)
{
	init_waitqueue_head(&s->wq);
	init_irq_work(&s->iw, bts_thread_notify);
	atomic_set(&s->hold_queued, 0);
	refcount_set(&s->ref, 1);
}

/* IPI on the CPU the thread last ran on: load it if it runs there now. */
static void bts_thread_ipi_load(void *arg)
{
	struct bts_session *s = arg;

	if (current == s->task && READ_ONCE(s->attached) &&
	    READ_ONCE(s->loaded_cpu) < 0)
		bts_ds_load(s);
}

static void bts_thread_ipi_unload(void *arg)
{
	bts_ds_unload(arg);
}

/* IPI: a fresh stretch with the room made, if loaded here. */
static void bts_thread_ipi_reload(void *arg)
{
	bts_ds_reload(arg);
}

void bts_thread_room(struct bts_session *s)
{
	int cpu;

	/*
	 * The tail the caller just wrote before @hold_off is read; pairs with
	 * the hold's smp_mb() after it sets @hold_off (bts_thread_hold()):
	 * one of the two sees the other's store.
	 */
	smp_mb();
	if (!READ_ONCE(s->hold_off))
		return;
	WRITE_ONCE(s->hold_off, false);
	/*
	 * Its stretch may be of length 0, without a threshold: no PMI would
	 * give it the room. Not loaded: its next load does.
	 */
	cpu = READ_ONCE(s->loaded_cpu);
	if (READ_ONCE(s->attached) && cpu >= 0)
		smp_call_function_single(cpu, bts_thread_ipi_reload, s, 1);
}

int bts_thread_attach(struct bts_session *s)
{
	struct task_struct *t = s->task;
	unsigned long flags;

	spin_lock(&bts_thread_lock);
	if (bts_thread_find(t)) {
		spin_unlock(&bts_thread_lock);
		return -EBUSY;
	}
	if (t->flags & PF_EXITING) {
		spin_unlock(&bts_thread_lock);
		return -ESRCH;
	}
	/* Never beside a per-CPU capture: one DS area per CPU. */
	if (bts_ds_claim(s)) {
		spin_unlock(&bts_thread_lock);
		return -EBUSY;
	}
	/* PT and BTS of one thread are exclusive (Documentation/bts.rst). */
	if (lwpt_branch_claim_task(&s->claim, t, LWPT_BRANCH_BTS)) {
		bts_ds_unclaim(s);
		spin_unlock(&bts_thread_lock);
		return -EBUSY;
	}
	s->loaded_cpu = -1;
	WRITE_ONCE(s->attached, true);
	hash_add_rcu(bts_threads, &s->node, (unsigned long)t);
	atomic_inc(&bts_attached);
	spin_unlock(&bts_thread_lock);

	if (t == current) {
		local_irq_save(flags);
		if (READ_ONCE(s->loaded_cpu) < 0)
			bts_ds_load(s);
		local_irq_restore(flags);
	} else {
		/* Running elsewhere: load it there now; else at its switch in. */
		smp_call_function_single(task_cpu(t), bts_thread_ipi_load, s, 1);
	}
	return 0;
}

void bts_thread_detach(struct bts_session *s)
{
	int cpu;

	spin_lock(&bts_thread_lock);
	if (!s->attached) {
		spin_unlock(&bts_thread_lock);
		return;
	}
	WRITE_ONCE(s->attached, false);
	spin_unlock(&bts_thread_lock);
	/*
	 * No probe loads it again once every one that saw it attached is
	 * done. It stays in the table until it is unloaded: the switch probe
	 * must still unload it when the thread leaves its CPU meanwhile (this
	 * grace period sleeps, so a thread that stops its own capture always
	 * does), else its IA32_DEBUGCTL and DS area would record whatever
	 * runs there next, other users' programs too, into its buffer.
	 */
	synchronize_rcu();
	cpu = READ_ONCE(s->loaded_cpu);
	if (cpu >= 0)
		smp_call_function_single(cpu, bts_thread_ipi_unload, s, 1);
	spin_lock(&bts_thread_lock);
	hash_del_rcu(&s->node);
	atomic_dec(&bts_attached);
	spin_unlock(&bts_thread_lock);
	/* @s->task's reference outlives the claim: no address reuse. */
	lwpt_branch_release_task(&s->claim);
	/* No probe finds it any more once every reader that found it is done. */
	synchronize_rcu();
	/* No PMI of it runs now (the unload): its irq_work is the last. */
	irq_work_sync(&s->iw);
	wake_up_all(&s->wq);
	/* Unloaded everywhere: a per-CPU capture may load now. */
	bts_ds_unclaim(s);
}

int bts_thread_init(void)
{
	int err;

	bts_tp_switch = lwpt_tracepoint_find("sched_switch");
	bts_tp_exit = lwpt_tracepoint_find("sched_process_exit");
	bts_tp_exec = lwpt_tracepoint_find("sched_process_exec");
	bts_tp_signal = lwpt_tracepoint_find("signal_deliver");
	if (!bts_tp_switch || !bts_tp_exit || !bts_tp_exec || !bts_tp_signal)
		return -ENODEV;
	err = tracepoint_probe_register(bts_tp_switch, bts_thread_switch, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(bts_tp_exit, bts_thread_exit_probe, NULL);
	if (err)
		goto err_switch;
	err = tracepoint_probe_register(bts_tp_exec, bts_thread_exec_probe, NULL);
	if (err)
		goto err_exit;
	err = tracepoint_probe_register(bts_tp_signal, bts_thread_signal_probe, NULL);
	if (err)
		goto err_exec;
	return 0;

err_exec:
	tracepoint_probe_unregister(bts_tp_exec, bts_thread_exec_probe, NULL);
err_exit:
	tracepoint_probe_unregister(bts_tp_exit, bts_thread_exit_probe, NULL);
err_switch:
	tracepoint_probe_unregister(bts_tp_switch, bts_thread_switch, NULL);
	tracepoint_synchronize_unregister();
	return err;
}

void bts_thread_exit(void)
{
	tracepoint_probe_unregister(bts_tp_signal, bts_thread_signal_probe, NULL);
	tracepoint_probe_unregister(bts_tp_exec, bts_thread_exec_probe, NULL);
	tracepoint_probe_unregister(bts_tp_exit, bts_thread_exit_probe, NULL);
	tracepoint_probe_unregister(bts_tp_switch, bts_thread_switch, NULL);
	tracepoint_synchronize_unregister();
	/* The return of the last hold's task_work into task_work_run(). */
	synchronize_rcu_tasks();
}
