// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread PT capture (LWPT_PT_SCOPE_THREAD): every thread of the target
 * process has its own ToPA buffer and its own RTIT state, switched at
 * context switch (SDM 33.3.5):
 *
 *   sched-out  at the sched_switch tracepoint, before context_switch():
 *              save: XSAVES of component 8 (SDM 33.3.5.2; it saves
 *              IA32_RTIT_CTL, clears TraceEn, then saves the rest), or
 *              RDMSR CTL, WRMSR CTL without TraceEn, RDMSR the output MSRs
 *              and STATUS (SDM 33.3.5.1);
 *   sched-in   in the thread's preempt notifier (pt_notif.c), called by
 *              finish_task_switch() once the thread runs: restore with
 *              TraceEn=0 in the MSR: XRSTORS, or WRMSR of the output MSRs,
 *              STATUS and filters, IA32_RTIT_CTL last, which sets TraceEn
 *              (SDM 33.3.5.1, 33.2.8.1).
 *
 * So TraceEn is never set while the outgoing task still runs (its kernel
 * code, its CR3): nothing of another task lands in a thread's buffer.
 * Saving stays at the tracepoint, which runs for every switch at the same
 * point as the notifiers' sched_out (both before context_switch(), runqueue
 * lock held): it saves whatever is loaded on the CPU (pc->cur), also a
 * thread START's IPI loaded before its notifier was registered.
 *
 * XSAVES is used where CPUID.(EAX=0DH,ECX=1):EAX[3] and ECX[8] say so
 * (LWPT_PT_CAP_XSAVES). IA32_XSS[8] is set only around our own XSAVES or
 * XRSTORS and the previous value written back at once, with interrupts
 * off: the kernel's own XSAVES (its XCOMP_BV and buffer sizes follow its
 * IA32_XSS) and KVM (which switches IA32_XSS for guests) never see bit 8.
 *
 * A preempt notifier can only be registered by its task: each traced
 * thread registers its own in a task_work before it next returns to user
 * mode, and loads its state there (pt_notif.c); until then it is loaded
 * only if it runs at START. The kernel tracepoints sched_switch (save),
 * sched_process_fork (the threads and, unless LWPT_PT_CFG_NO_INHERIT, the
 * processes a traced thread creates join), sched_process_exec (the
 * permission rule again: pt_config_follow_check(), also at fork) and
 * sched_process_exit carry the rest. A task is traced while it is in
 * pt_thread_hash: only a traced thread's fork adds one, so a thread created
 * by a thread that was detached at an exec (a set-user-ID program's) is
 * never traced. Probes
 * run with preemption off, sched_switch with the runqueue lock held and
 * interrupts off: they never sleep nor print; a thread that joins takes a
 * preallocated buffer (a spare) and a work item allocates the next;
 * without a spare the thread is not traced and counted (status
 * threads_lost).
 *
 * The hold (continuous mode without LWPT_PT_CFG_LOSSY): a thread's buffer
 * never fills while its reader is behind. Wherever a thread's output is
 * accounted on its CPU (the ToPA PMI, a STATUS or RELEASE IPI) and has
 * entered the region before the reader's tail - the watermark of
 * pt_output_hold_due(), ahead of the STOP gate - the CPU's irq_work
 * (pt_cpu.hold_iw, NMI-safe) queues a task_work on the thread
 * (pt_notif_hold(), TWA_RESUME); its sched-in does the same. Before the
 * thread next returns to user mode it waits in the kernel
 * (pt_thread_held()), interruptibly, in its own (hashed) wait queue:
 * RELEASE wakes it once the reader made room, STOP and the end of the
 * capture too, and the session's hold limit ends the wait (the thread then
 * runs on, its buffer stalls at the gate, counted, and it is not held
 * again until its reader releases some data). A signal ends the wait and
 * is handled as usual (a fatal one ends the thread, SIGSTOP and ptrace
 * stops work); its delivery (pt_probe_signal()) queues the hold again.
 * Not inside execve(): the exec probe queues it again. Holds, the time
 * held and the limits reached are counted in the status (holds, held_ns,
 * hold_timeouts). Until it is held the
 * thread writes into the gate's region: the room for the PMI's skid (SDM
 * 33.2.7.2 "ToPA PMI") and for the instructions before the return to user
 * mode. A per-CPU capture cannot hold a CPU: there the gate stops the
 * processor and the loss is counted (pt_output.c).
 *
 * Several per-thread sessions run at once (pt_core.c), each with its own
 * threads, spares and refill work (struct pt_threads); one hash table of
 * the traced threads serves them all, so a thread is in at most one
 * session and the probes find the session from the thread. A session that
 * a privileged capture preempts (pt_thread_preempt()) leaves the table:
 * its buffers stay readable, its threads are no longer traced.
 *
 * A thread's buffer is freed before its session only when the reader says
 * it is done with it (RELEASE with LWPT_PT_REL_DONE, pt_thread_done()):
 * the thread is no longer traced (it exited, or was detached at an exec),
 * the reader's tail is the final head and nothing maps the buffer; its
 * number is then free for the next thread that joins (the lowest free one,
 * with a new serial). Otherwise the trace of an exited thread stays
 * readable until the file is closed or configured again, as before ABI
 * 1.5, and counts against PT_THREAD_MAX. A thread is found by its task
 * pointer only while it lives (the exit probe drops the pointer before the
 * task can be freed and its address reused); tasks are never dereferenced
 * through it. The session holds a reference to the target task, which
 * keeps its signal_struct, the identity of the thread group, allocated.
 */
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <lwpt/pt_rtit.h>

#include "../x86_cpuid.h"
#include "../branch_owner.h"
#include "../hold_wait.h"
#include "pt_int.h"

/* The XSAVES area: legacy region, header, component 8 (compacted). */
#define PT_XSAVES_PT_OFFSET	(X86_XSAVE_HDR_OFFSET + X86_XSAVE_HDR_SIZE)
#define PT_XSAVES_AREA_SIZE	1024	/* power of two: kmalloc aligns it */
#define PT_XCOMP_BV_COMPACTED	BIT_ULL(63)

static_assert(PT_XSAVES_PT_OFFSET + PT_XSAVE_STATE_SIZE <= PT_XSAVES_AREA_SIZE);

/**
 * struct pt_thread - one traced thread
 * @tr: its buffer and accounting
 * @sess: its session
 * @node: in its session's thr.list, in join order
 * @hnode: in pt_thread_hash while @task lives
 * @task: the thread, for lookups only (never dereferenced); NULL after
 *	exit or detach
 * @pid: its pid (a reference), for the status tid
 * @tgid: its thread group's pid (a reference)
 * @ppid: the traced process whose fork created its process (a reference),
 *	NULL for the threads of the configured process
 * @index: buffer number
 * @serial: the thread joined the capture as its @serial-th (status serial)
 * @gp: RCU state when it left pt_thread_hash (get_state_synchronize_rcu()):
 *	the probes' lockless walks that may still see it end before the grace
 *	period it names, which pt_thread_done() waits for before the free
 * @cpu: CPU where its state is loaded, -1 if none
 * @last_cpu: CPU it last ran on, -1 if never
 * @exited: it exited (the trace stays)
 * @execed: it called execve()
 * @detached: it exec'ed a program the caller may not trace: not traced
 * @hold_again: a hold was due but a signal ended or prevented it, or it
 *	came inside an execve(): the delivery of the signal
 *	(pt_probe_signal()) or the exec probe queues it again
 * @stop_reason: LWPT_PT_STOP_*: why it is no longer traced
 * @saved: its RTIT state while not loaded
 * @xsave: XSAVES area (LWPT_PT_CAP_XSAVES), 64-byte aligned
 * @claim: the thread's branch-tracer claim while in pt_thread_hash
 *	(branch_owner.h: never BTS at once)
 * @notif: a preempt notifier entry for the task that joins with this
 *	buffer; handed to the task (NULL) if it had none (pt_notif_want())
 *
 * @tr, @task, @cpu and @saved change under pt_thread_lock; while the
 * thread is loaded on a CPU, @tr also changes in that CPU's PMI. @hnode
 * is added and removed under pt_thread_lock and walked by the probes
 * without it (RCU: threads are freed only after the probes are off).
 */
struct pt_thread {
	struct pt_output tr;
	struct pt_session *sess;
	struct list_head node;
	struct hlist_node hnode;
	struct task_struct *task;
	struct pid *pid;
	struct pid *tgid;
	struct pid *ppid;
	u32 index;
	u64 serial;
	unsigned long gp;
	int cpu;
	int last_cpu;
	bool exited;
	bool execed;
	bool detached;
	bool hold_again;
	u32 stop_reason;
	struct pt_rtit_state saved;
	u8 *xsave;
	struct pt_notif *notif;
	struct lwpt_branch_claim claim;
};

static DEFINE_RAW_SPINLOCK(pt_thread_lock);
/*
 * Held threads wait for their reader (pt_thread_held()) in the queue of
 * their struct pt_thread, hashed as wake_up_var() does: a RELEASE wakes
 * the threads of that queue only, not every held thread of the system
 * (each would load and save its state to find it must wait on). A queue
 * shared by two threads costs a spurious wake-up, never a lost one. The
 * queues are static: a waiter never points into a session that may be
 * freed meanwhile.
 */
#define PT_HOLD_WQ_BITS		6
static wait_queue_head_t pt_hold_wqs[1 << PT_HOLD_WQ_BITS];
static struct tracepoint *pt_tp_signal;
/* Every session's traced threads, by task (a thread is in one session). */
static DEFINE_HASHTABLE(pt_thread_hash, 7);
static bool pt_use_xsaves;
/* Per-thread sessions configured (pt_lock); the probes work while > 0. */
static unsigned int pt_probe_users;
static bool pt_probes_on;

static struct tracepoint *pt_tp_fork;
static struct tracepoint *pt_tp_exec;
static struct tracepoint *pt_tp_exit;
static struct tracepoint *pt_tp_switch;

/* The queue @th's thread waits in while held (@th is only hashed). */
static wait_queue_head_t *pt_hold_wq(const struct pt_thread *th)
{
	return &pt_hold_wqs[hash_ptr(th, PT_HOLD_WQ_BITS)];
}

/* STOP, close, preemption: every held thread rechecks (rare). */
static void pt_hold_wake_all(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pt_hold_wqs); i++)
		wake_up_all(&pt_hold_wqs[i]);
}

/* --- Objects -------------------------------------------------------------- */

static void pt_thread_free(struct pt_thread *th)
{
	put_pid(th->pid);
	put_pid(th->tgid);
	put_pid(th->ppid);
	pt_buf_free(&th->tr.buf);
	kfree(th->xsave);
	pt_notif_free(th->notif);
	kfree(th);
}

/*
 * A thread object with its zeroed buffer, charged to the current memory
 * cgroup (pt_mem_enter()); may sleep.
 */
static struct pt_thread *pt_thread_alloc(struct pt_session *s)
{
	struct pt_thread *th = kzalloc(sizeof(*th), GFP_KERNEL_ACCOUNT);

	if (!th)
		return NULL;
	th->notif = pt_notif_alloc(GFP_KERNEL_ACCOUNT);
	if (!th->notif)
		goto err_free;
	if (pt_use_xsaves) {
		th->xsave = kzalloc(PT_XSAVES_AREA_SIZE, GFP_KERNEL_ACCOUNT);
		if (!th->xsave)
			goto err_free;
	}
	if (pt_buf_alloc(&th->tr.buf, s->cfg.buffer_size, s->cfg.region_size,
			 s->cfg.flags & LWPT_PT_CFG_SINGLE_RANGE, NUMA_NO_NODE))
		goto err_free;
	pt_buf_write_topa(&th->tr.buf, s->cfg.mode);
	th->tr.ctl = s->ctl;
	th->tr.sess = s;
	th->sess = s;
	th->tr.configured = true;
	th->cpu = -1;
	th->last_cpu = -1;
	return th;

err_free:
	pt_thread_free(th);
	return NULL;
}

/*
 * The initial RTIT state of a trace (START): its first table, or its single
 * range, at offset 0. Both schemes switch the same two output MSRs.
 */
static void pt_thread_init_state(struct pt_thread *th)
{
	pt_output_reset(&th->tr);
	th->saved.ctl = th->tr.ctl;
	th->saved.status = 0;
	th->saved.output_base = pt_buf_output_base(&th->tr.buf);
	th->saved.output_mask_ptrs = pt_buf_output_mask_ptrs(&th->tr.buf);
}

/*
 * May one more buffer of @s be allocated? At most PT_THREAD_MAX buffers at
 * once (of joined threads not freed, and spares) and, in all, what a
 * per-CPU capture may take (caps.max_buffer_size per possible CPU: half of
 * RAM), so that a process creating threads cannot exhaust memory through
 * the capture (each buffer is charged too, pt_mem.c).
 * pt_thread_lock held.
 */
static bool pt_thread_may_grow(const struct pt_session *s)
{
	u64 n = s->thr.live + s->thr.nr_spares;

	return n < PT_THREAD_MAX &&
	       (n + 1) * s->cfg.buffer_size <=
	       pt_caps.max_buffer_size * num_possible_cpus();
}

/* The pages one thread's buffer of @s may pin (pt_mem.c). */
static unsigned long pt_thread_buf_pages(const struct pt_session *s)
{
	return pt_mem_buf_pages(s->cfg.buffer_size,
				s->cfg.flags & LWPT_PT_CFG_SINGLE_RANGE);
}

/*
 * A charged, allocated thread; NULL if the caller's limit or memory is
 * exhausted. May sleep.
 */
static struct pt_thread *pt_thread_alloc_charged(struct pt_session *s)
{
	struct mem_cgroup *old;
	struct pt_thread *th;

	if (pt_mem_charge(&s->mem, pt_thread_buf_pages(s)))
		return NULL;
	/* The work item allocates for the caller: its memory cgroup. */
	old = pt_mem_enter(&s->mem);
	th = pt_thread_alloc(s);
	pt_mem_exit(old);
	if (!th)
		pt_mem_uncharge(&s->mem, pt_thread_buf_pages(s));
	return th;
}

/*
 * Keep PT_THREAD_SPARES buffers ready (sleeping allocations), each charged
 * to the caller first (pt_mem.c). The work item and RELEASE with
 * LWPT_PT_REL_DONE (pt_thread_done()) may run it at once: a spare is added
 * only below the count.
 */
static void pt_thread_top_up(struct pt_session *s)
{
	struct pt_thread *th;
	unsigned long flags;
	bool more = true;

	while (more) {
		raw_spin_lock_irqsave(&pt_thread_lock, flags);
		more = s->thr.open && s->thr.nr_spares < PT_THREAD_SPARES &&
		       pt_thread_may_grow(s);
		raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
		if (!more)
			break;
		th = pt_thread_alloc_charged(s);
		if (!th)
			break;	/* the next join counts a lost thread */
		raw_spin_lock_irqsave(&pt_thread_lock, flags);
		if (s->thr.open && s->thr.nr_spares < PT_THREAD_SPARES) {
			list_add_tail(&th->node, &s->thr.spares);
			s->thr.nr_spares++;
			th = NULL;
		}
		raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
		if (th) {
			pt_thread_free(th);
			pt_mem_uncharge(&s->mem, pt_thread_buf_pages(s));
			break;
		}
	}
}

/* Work: the spares after joins took some (pt_probe_fork()). */
static void pt_thread_refill(struct work_struct *work)
{
	pt_thread_top_up(container_of(work, struct pt_session, thr.refill));
}

/*
 * The traced thread of @task: under pt_thread_lock, or without it in a
 * probe (RCU, preemption off) as a first test that the lock confirms.
 */
static struct pt_thread *pt_thread_find(struct task_struct *task)
{
	struct pt_thread *th;

	hash_for_each_possible_rcu(pt_thread_hash, th, hnode, (unsigned long)task,
				   lockdep_is_held(&pt_thread_lock))
		if (READ_ONCE(th->task) == task)
			return th;
	return NULL;
}

/* Buffer number @index of @s; pt_thread_lock held. */
static struct pt_thread *pt_thread_by_index(struct pt_session *s, u32 index)
{
	struct pt_thread *th;

	list_for_each_entry(th, &s->thr.list, node)
		if (th->index == index)
			return th;
	return NULL;
}

/*
 * @task joins @s with a spare buffer and the lowest free buffer number, or
 * is counted lost; @ppid: the
 * process that forked it, for a process the capture follows (a reference
 * is taken). A task traced already (by any session) is left where it is;
 * one BTS records is not attached and counted in @s->thr.bts.
 * Its preempt notifier is registered before it next returns to user mode
 * (pt_notif_want()); if that cannot be (it is past exit_task_work()), it
 * is lost too. pt_thread_lock held.
 *
 * Return: it joined (a spare was used).
 */
static bool pt_thread_attach(struct pt_session *s, struct task_struct *task,
			     struct pid *ppid)
{
	unsigned int index = find_first_zero_bit(s->thr.used, PT_THREAD_MAX);
	struct pt_thread *th;

	if (!s->thr.open || pt_thread_find(task))
		return false;
	th = list_first_entry_or_null(&s->thr.spares, struct pt_thread, node);
	/* A spare means a free number (pt_thread_may_grow()): checked anyway. */
	if (!th || index >= PT_THREAD_MAX) {
		s->thr.lost++;
		return false;
	}
	if (lwpt_branch_claim_task(&th->claim, task, LWPT_BRANCH_PT)) {
		s->thr.bts++;
		return false;
	}
	if (pt_notif_want(task, &th->notif)) {
		lwpt_branch_release_task(&th->claim);
		s->thr.lost++;
		return false;
	}
	list_del(&th->node);
	s->thr.nr_spares--;
	th->pid = get_task_pid(task, PIDTYPE_PID);
	th->tgid = get_task_pid(task, PIDTYPE_TGID);
	th->ppid = get_pid(ppid);
	th->index = index;
	__set_bit(index, s->thr.used);
	s->thr.nr = max(s->thr.nr, index + 1);
	s->thr.live++;
	th->serial = ++s->thr.joined;
	pt_thread_init_state(th);
	th->tr.tracing = s->started;
	WRITE_ONCE(th->task, task);
	hash_add_rcu(pt_thread_hash, &th->hnode, (unsigned long)task);
	/* Pairs with the lockless walks (list_for_each_entry_rcu) of START. */
	list_add_tail_rcu(&th->node, &s->thr.list);
	return true;
}

/*
 * The thread is gone or may no longer be traced (@reason, LWPT_PT_STOP_*);
 * its preempt notifier goes (pt_notif_drop()). pt_thread_lock held. The
 * node stays valid for lockless walkers.
 */
static void pt_thread_forget(struct pt_thread *th, u32 reason)
{
	pt_notif_drop(th->task);
	lwpt_branch_release_task(&th->claim);
	hash_del_rcu(&th->hnode);
	/* After this grace period no probe sees it (pt_thread_done()). */
	th->gp = get_state_synchronize_rcu();
	WRITE_ONCE(th->task, NULL);
	th->stop_reason = reason;
	th->tr.tracing = false;
	th->tr.stalled = false;
}

/* --- The RTIT state of a thread on the current CPU (SDM 33.3.5) ---------- */

/* XSAVES (or XRSTORS) with IA32_XSS[8] set only around it. */
static int pt_thread_xs(struct pt_thread *th, bool save)
{
	u64 xss;
	int err;

	if (lwpt_hw_rdmsr(IA32_XSS, &xss) ||
	    lwpt_hw_wrmsr(IA32_XSS, xss | IA32_XSS_PT))
		return -EIO;
	err = save ? lwpt_hw_xsaves(th->xsave, IA32_XSS_PT) :
		     lwpt_hw_xrstors(th->xsave, IA32_XSS_PT);
	if (lwpt_hw_wrmsr(IA32_XSS, xss))
		err = -EIO;
	return err;
}

/* SDM 33.3.5.2: XSAVES of component 8, then the values for accounting. */
static int pt_thread_xsaves(struct pt_thread *th, struct pt_rtit_state *s)
{
	const struct pt_xsave_state *x =
		(const struct pt_xsave_state *)(th->xsave + PT_XSAVES_PT_OFFSET);
	const u64 *hdr = (const u64 *)(th->xsave + X86_XSAVE_HDR_OFFSET);
	int err = pt_thread_xs(th, true);

	if (err)
		return err;
	/* XSTATE_BV[8] = 0: the initial configuration, every MSR 0. */
	if (!(hdr[0] & IA32_XSS_PT)) {
		memset(s, 0, sizeof(*s));
		return 0;
	}
	s->ctl = x->rtit_ctl;
	s->status = x->rtit_status;
	s->output_base = x->rtit_output_base;
	s->output_mask_ptrs = x->rtit_output_mask_ptrs;
	return 0;
}

/*
 * SDM 33.3.5.2: XRSTORS of component 8 in the compacted format (SDM Vol. 1
 * 13.12: XCOMP_BV[63] and [8], XSTATE_BV[8], the rest of the header 0).
 * ADDR2/3 are not in the component: written first, with TraceEn=0.
 */
static int pt_thread_xrstors(struct pt_thread *th, const struct pt_rtit_state *s)
{
	struct pt_xsave_state *x =
		(struct pt_xsave_state *)(th->xsave + PT_XSAVES_PT_OFFSET);
	u64 *hdr = (u64 *)(th->xsave + X86_XSAVE_HDR_OFFSET);
	const struct lwpt_pt_addr_range *a = th->sess->cfg.addr;
	unsigned int n;

	for (n = 2; n < pt_caps.nr_ranges; n++) {
		if (a[n].cfg == LWPT_PT_ADDR_UNUSED)
			continue;
		if (lwpt_hw_wrmsr(IA32_RTIT_ADDRn_A(n), a[n].a) ||
		    lwpt_hw_wrmsr(IA32_RTIT_ADDRn_B(n), a[n].b))
			return -EIO;
	}
	memset(hdr, 0, X86_XSAVE_HDR_SIZE);
	hdr[0] = IA32_XSS_PT;
	hdr[1] = PT_XCOMP_BV_COMPACTED | IA32_XSS_PT;
	x->rtit_ctl = s->ctl;
	x->rtit_output_base = s->output_base;
	x->rtit_output_mask_ptrs = s->output_mask_ptrs;
	x->rtit_status = s->status;
	x->rtit_cr3_match = 0;		/* no CR3 filter per thread */
	x->rtit_addr0_a = a[0].cfg ? a[0].a : 0;
	x->rtit_addr0_b = a[0].cfg ? a[0].b : 0;
	x->rtit_addr1_a = a[1].cfg ? a[1].a : 0;
	x->rtit_addr1_b = a[1].cfg ? a[1].b : 0;
	return pt_thread_xs(th, false);
}

/*
 * Continuous mode, @th not loaded: move the gate before the reader's tail;
 * past it if the processor stopped there and the reader made room since
 * (pt_output_gate()). pt_thread_lock held.
 */
static void pt_thread_regate(struct pt_thread *th)
{
	bool moved = false;

	if (th->sess->cfg.mode == LWPT_PT_MODE_CONTINUOUS &&
	    (th->tr.tracing || th->tr.stalled)) {
		th->tr.stalled = !pt_output_gate(&th->tr, &th->saved, &moved);
		th->tr.tracing = !th->tr.stalled;
	}
}

/*
 * Sched-in: load @th's state on this CPU and set TraceEn (the MSR holds
 * TraceEn=0 here: nothing of ours is loaded). pt_thread_lock held, IRQs off.
 */
static void pt_thread_load(struct pt_cpu *pc, struct pt_thread *th)
{
	struct pt_rtit_state s;
	u64 ctl = 0;
	int err;

	if (th->tr.err || !th->task)
		return;
	pt_thread_regate(th);
	/* The system is going down (pt_quiesce()): never TraceEn again. */
	if (!th->tr.tracing || READ_ONCE(pt_quiesced))
		return;
	pt_cpu_update_begin(pc);
	/* Someone else's trace (perf, a debugger): never take over. */
	if (lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl) || (ctl & IA32_RTIT_CTL_TRACEEN)) {
		th->tr.busy = true;
		goto out;
	}
	/* SDM 33.3.1.2: not with DEBUGCTL.LBR set; tried at the next sched-in. */
	if (pt_output_lbr_refuse(&th->tr))
		goto out;
	s = th->saved;
	s.ctl = th->tr.ctl | IA32_RTIT_CTL_TRACEEN;
	/*
	 * Loaded before TraceEn is set, as perf sets handle_nmi before it
	 * enables: a ToPA PMI taken right after the enabling write finds the
	 * trace (pt_pmi()), instead of nobody claiming it (bit 55 left set,
	 * LVTPC left masked: an unknown NMI, every later PMI lost).
	 */
	pc->cur = th;
	th->cpu = smp_processor_id();
	err = pt_use_xsaves ? pt_thread_xrstors(th, &s) :
			      pt_rtit_restore(&s, th->sess);
	if (err == -EOPNOTSUPP && pt_use_xsaves) {
		/*
		 * CPUID has XSAVES but the kernel runs without it (noxsaves):
		 * nothing was loaded; use RDMSR/WRMSR from now on (every probe
		 * holds pt_thread_lock, so no save is half done).
		 */
		pt_use_xsaves = false;
		err = pt_rtit_restore(&s, th->sess);
	}
	if (err) {
		/* A failed restore leaves TraceEn=0 (CTL is written last). */
		th->tr.err = -EIO;
		th->stop_reason = LWPT_PT_STOP_ERROR;
		th->tr.tracing = false;
		pc->cur = NULL;
		th->cpu = -1;
		goto out;
	}
	th->last_cpu = th->cpu;
out:
	pt_cpu_update_end(pc);
}

/* Sched-out: save the loaded thread's state, TraceEn=0 after it. */
static void pt_thread_unload(struct pt_cpu *pc)
{
	struct pt_thread *th = pc->cur;
	int err;

	pt_cpu_update_begin(pc);
	err = pt_use_xsaves ? pt_thread_xsaves(th, &th->saved) :
			      pt_rtit_save(&th->saved);
	if (err) {
		th->tr.err = -EIO;
		th->stop_reason = LWPT_PT_STOP_ERROR;
		th->tr.tracing = false;
		/* TraceEn must not survive the thread: clear it by WRMSR. */
		lwpt_hw_wrmsr(IA32_RTIT_CTL, th->tr.ctl);
	} else if (th->tr.tracing) {
		/* TraceEn found clear: someone else's doing (SDM 33.2.9). */
		if (!(th->saved.ctl & IA32_RTIT_CTL_TRACEEN)) {
			th->tr.interfered++;
			th->tr.lost++;
		}
		pt_output_lbr_note(&th->tr);	/* SDM 33.3.1.2 */
		if (pt_output_account(&th->tr, th->saved.output_base,
				      th->saved.output_mask_ptrs, th->saved.status,
				      pt_cpu_pmi_raised(pc) |
				      xchg(&pc->pmi_seen, false)))
			pt_output_saved_put_back(&th->tr, &th->saved);
		if (th->saved.status & (IA32_RTIT_STATUS_ERROR |
					IA32_RTIT_STATUS_STOPPED)) {
			th->tr.tracing = false;
			/* Stopped at the continuous-mode gate: see load. */
			th->tr.stalled = !(th->saved.status & IA32_RTIT_STATUS_ERROR) &&
					 pt_output_gate_stopped(&th->tr);
		}
	}
	WRITE_ONCE(pc->pmi_seen, false);	/* TraceEn=0: nothing more of th's */
	pc->cur = NULL;
	th->cpu = -1;
	pt_cpu_update_end(pc);
}

/* --- The hold (continuous mode) ------------------------------------------- */

/*
 * Must the thread of @th wait for its reader? Its session is started, it
 * is traced (or stalled at the gate) and its output reached the watermark
 * (pt_output_hold_due()). Never a thread of the process that configured
 * the capture: a process tracing itself may be its own reader (the held
 * thread the one that would release), so its threads run on and a full
 * buffer stalls at the gate, counted, as with LWPT_PT_CFG_LOSSY (pt.rst,
 * "Continuous mode: the hold"). pt_thread_lock held.
 */
static bool pt_thread_must_hold(const struct pt_thread *th)
{
	return th->sess->started && th->task && !th->tr.err &&
	       th->tgid != th->sess->owner_tgid &&
	       (th->tr.tracing || th->tr.stalled) && pt_output_hold_due(&th->tr);
}

/* Must current wait (pt_thread_held()'s condition)? */
static bool pt_thread_hold_current(void)
{
	struct pt_thread *th;
	unsigned long flags;
	bool hold;

	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_find(current);
	hold = th && pt_thread_must_hold(th);
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	return hold;
}

/*
 * irq_work (IRQ context, on the CPU whose PMI or IPI found the watermark
 * reached, pt_output.c, or whose PMI came during an update, pt_pmi():
 * the loaded thread's output is accounted first): hold current if it is
 * that thread and still must wait. Current is looked up, never remembered: nothing here outlives a
 * thread or its session.
 */
static void pt_thread_hold_irq(struct irq_work *w)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_thread *th;
	unsigned long flags;
	bool sync = xchg(&pc->hold_sync, false);

	if (current->flags & (PF_KTHREAD | PF_EXITING))
		return;
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_find(current);
	if (sync && th && pc->cur == th && th->tr.tracing) {
		/* pt_pmi(): account what the update did not see. */
		pt_cpu_update_begin(pc);
		pt_output_pause(&th->tr);
		pt_output_continue(&th->tr);
		pt_cpu_update_end(pc);
	}
	if (th && pt_thread_must_hold(th))
		pt_notif_hold(current);
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
}

/* The hold limit of @s in jiffies (lwpt_pt_config.hold_limit_ms). */
static long pt_thread_hold_limit(const struct pt_session *s)
{
	u32 ms = s->cfg.hold_limit_ms;

	if (ms == LWPT_PT_HOLD_LIMIT_NONE)
		return MAX_SCHEDULE_TIMEOUT;
	return max_t(long, 1, msecs_to_jiffies(ms ? ms :
					       LWPT_PT_HOLD_LIMIT_DEFAULT_MS));
}

/*
 * The hold, as current, in pt_notif.c's task_work (TWA_RESUME): before it
 * returns to user mode, wait until the reader made room, the capture
 * stopped or ended, the session's hold limit passed (lwpt_pt_config.
 * hold_limit_ms), or a signal came. Counted in the trace's holds and
 * held_ns, a limit reached in hold_timeouts. The thread is switched out
 * while it waits, which saves its state; RELEASE wakes it and its sched-in
 * loads it with the gate moved.
 *
 * Where: the work runs wherever the kernel runs task_work. On the way to
 * user mode (resume_user_mode_work(), get_signal(), ptrace_notify()) no
 * lock is held, and that is where the hold belongs. Inside execve() it is
 * not: begin_new_exec() runs task_work through io_uring_task_cancel()
 * with cred_guard_mutex and exec_update_lock held, which CONFIGURE, ptrace
 * attach and /proc readers take. A thread in execve() (in_execve, set
 * around the whole of bprm_execve()) is not held there: the exec probe
 * queues the hold again once the new program is committed (the locks are
 * dropped in setup_new_exec()), and it runs on the exit to user mode after
 * the exec. An exiting thread (PF_EXITING, exit_task_work() or
 * io_uring's cancel in do_exit()) is never held (pt_notif.c).
 *
 * Signals: a signal pending when the hold is due, or one that ends the
 * wait, is handled on the way out as usual (a fatal one ends the thread,
 * SIGSTOP and ptrace stops work); the hold is queued again once the
 * signal is delivered (pt_probe_signal(), after get_signal() ran the
 * task_work), so it runs on the next exit to user mode, after the
 * handler's frame is set up. A stop (job control, ptrace, the freezer)
 * switches the thread out: its sched-in queues the hold again too. A
 * task_work queued with TWA_SIGNAL (io_uring) also ends the wait
 * (TIF_NOTIFY_SIGNAL) with no signal behind it: the flag is cleared, as
 * get_signal() and io_uring do before running task_work, and the wait
 * goes on; that work runs after the hold, in the same task_work_run().
 */
static void pt_thread_held(void)
{
	struct pt_thread *th;
	unsigned long flags;
	const void *key = NULL;
	long left = 0, ret;
	u64 t0;

	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_find(current);
	if (th && pt_thread_must_hold(th)) {
		if (current->in_execve || task_sigpending(current)) {
			th->hold_again = true;
		} else {
			th->hold_again = false;
			th->tr.holds++;
			key = th;
			left = pt_thread_hold_limit(th->sess);
		}
	}
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	if (!key)
		return;
	t0 = ktime_get_ns();
	/* TWA_SIGNAL work, no signal: it runs after the hold (hold_wait.h). */
	ret = lwpt_hold_wait(*pt_hold_wq(key), !pt_thread_hold_current(), left);
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_find(current);
	if (th) {
		th->tr.held_ns += ktime_get_ns() - t0;
		if (ret == -ERESTARTSYS) {
			th->hold_again = true;
		} else if (!ret && pt_thread_must_hold(th)) {
			/* The limit: run on, stall at the gate, counted. */
			th->tr.hold_timeouts++;
			th->tr.hold_off = true;
		}
	}
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
}

/* --- Probes (no sleeping, no printing) ------------------------------------ */

/*
 * sched_switch, with the runqueue lock held and interrupts off: save the
 * state loaded on this CPU (the outgoing thread's). The incoming thread's
 * is loaded once it runs: pt_thread_sched_in(). Returns at once when
 * nothing is loaded.
 */
static void pt_probe_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);

	if (!READ_ONCE(pc->cur))
		return;
	raw_spin_lock(&pt_thread_lock);
	if (pc->cur)
		pt_thread_unload(pc);
	raw_spin_unlock(&pt_thread_lock);
}

/*
 * Current's preempt notifier (pt_notif.c): it has been switched in (from
 * finish_task_switch(), after the runqueue lock is dropped: IRQs on,
 * preemption off) or has just registered. Load its state if its session
 * is started and nothing is loaded here (START's or RELEASE's IPI may
 * have loaded it between the switch and this call).
 */
static void pt_thread_sched_in(void)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_thread *th;
	unsigned long flags;

	if (!READ_ONCE(pt_probes_on) || READ_ONCE(pc->cur) ||
	    !pt_thread_find(current))
		return;
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_find(current);
	if (!pc->cur && th && th->sess->started) {
		pt_thread_load(pc, th);
		/*
		 * Over the watermark: held before it returns to user mode; with
		 * a signal pending, once it is delivered (pt_thread_held()).
		 */
		if (pt_thread_must_hold(th))
			pt_notif_hold(current);
	}
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
}

/*
 * @parent (current) created @child, before @child first runs: a new thread
 * joins if its creator is traced; a new process too unless
 * LWPT_PT_CFG_NO_INHERIT. Either only if the rule of an exec admits it
 * (pt_config_follow_check(): @parent may have changed its credentials or
 * dumpability since CONFIGURE). A thread no longer traced (detached at an
 * exec, or lost) adds nobody.
 */
static void pt_probe_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
	struct pt_session *s = NULL;
	struct pt_thread *pth;
	unsigned long flags;
	bool attached = false;

	if (!READ_ONCE(pt_probes_on) || !pt_thread_find(parent))
		return;
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	/* Still in the table: its session is open (pt_thread_sess_free()). */
	pth = pt_thread_find(parent);
	if (pth)
		s = pth->sess;
	if (pth && pt_config_follow_check(s, child) != LWPT_PT_STOP_NONE) {
		if (child->signal == parent->signal || s->thr.inherit)
			s->thr.refused++;
		pth = NULL;
	}
	if (pth && child->signal == parent->signal)
		attached = pt_thread_attach(s, child, pth->ppid);
	else if (pth && s->thr.inherit)
		attached = pt_thread_attach(s, child, pth->tgid);
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	/*
	 * @s lives: pt_thread_sess_free() waits for running probes
	 * (synchronize_rcu()) before it cancels the work and frees.
	 */
	if (attached)
		schedule_work(&s->thr.refill);
}

/*
 * A traced thread (current is @p) called execve() (@exec) or exits. Exec:
 * the credentials are committed and no instruction of the new program ran
 * yet; tracing goes on into it only if the permission rule, with the
 * caller's credentials saved at CONFIGURE, admits it
 * (pt_config_follow_check()): never into a set-user-ID, set-group-ID,
 * file-capability or non-dumpable program of an unprivileged caller,
 * whatever fs.suid_dumpable says. Else, and at exit: unload, forget its task
 * pointer; its buffer keeps what it captured and its status says why.
 */
static void pt_probe_leave(struct task_struct *p, bool exec)
{
	struct pt_cpu *pc;
	struct pt_thread *th;
	unsigned long flags;
	u32 reason = LWPT_PT_STOP_EXIT;

	if (!READ_ONCE(pt_probes_on) || !pt_thread_find(p))
		return;
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	pc = this_cpu_ptr(&pt_cpus);
	/* The capture may have ended meanwhile (pt_thread_sess_free()). */
	th = pt_thread_find(p);
	if (!th)
		goto out;
	if (exec) {
		th->execed = true;
		/* A non-leader took over the leader's pid (de_thread()). */
		put_pid(th->pid);
		th->pid = get_task_pid(p, PIDTYPE_PID);
		reason = pt_config_follow_check(th->sess, p);
		if (reason == LWPT_PT_STOP_NONE) {
			/* Not held inside execve(): on the way out of it. */
			if (th->hold_again && pt_thread_must_hold(th))
				pt_notif_hold(p);
			th->hold_again = false;
			goto out;
		}
	}
	if (pc->cur == th)
		pt_thread_unload(pc);
	if (exec)
		th->detached = true;
	else
		th->exited = true;
	pt_thread_forget(th, reason);
out:
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
}

static void pt_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm)
{
	pt_probe_leave(p, true);
}

static void pt_probe_exit(void *data, struct task_struct *p)
{
	pt_probe_leave(p, false);
}

/*
 * signal_deliver, in get_signal() as current (siglock held, IRQs off),
 * after it ran the task_work: a hold that a signal ended or prevented
 * (pt_thread_held()) is queued again, to run on this exit to user mode,
 * once the handler's frame is set up (or the thread stops or exits).
 */
static void pt_probe_signal(void *data, int sig, struct kernel_siginfo *info,
			    struct k_sigaction *ka)
{
	struct pt_thread *th;
	unsigned long flags;

	if (!READ_ONCE(pt_probes_on) || !pt_thread_find(current))
		return;
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_find(current);
	if (th && th->hold_again) {
		th->hold_again = false;
		if (pt_thread_must_hold(th))
			pt_notif_hold(current);
	}
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
}

/*
 * The probes are registered while the module is loaded (pt_thread_init()):
 * registering a probe patches kernel text (text_poke_bp() with INT3), and
 * doing that at every CONFIGURE, on the scheduler's hottest path, is
 * avoidable churn (QEMU's TCG was seen to livelock on it: one vCPU looping
 * on the INT3, the other waiting in the patching IPI). Every probe returns
 * at once while no per-thread session is configured (pt_probes_on).
 * pt_lock held for both.
 */
static void pt_probes_put(struct pt_session *s)
{
	if (!s->thr.probes)
		return;
	s->thr.probes = false;
	if (WARN_ON_ONCE(!pt_probe_users) || --pt_probe_users)
		return;
	WRITE_ONCE(pt_probes_on, false);
	/* Probes run with preemption off: none works for a capture now. */
	synchronize_rcu();
}

static void pt_probes_get(struct pt_session *s)
{
	if (s->thr.probes)
		return;
	s->thr.probes = true;
	if (!pt_probe_users++)
		WRITE_ONCE(pt_probes_on, true);
}

/**
 * pt_thread_init - register the sched_switch, fork, exec, exit and
 *	signal_deliver probes and turn preempt notifiers on (module load)
 *
 * Return: 0; -ENODEV the scheduler tracepoints are missing; the error of
 * tracepoint_probe_register(). Nothing stays registered on error.
 */
int pt_thread_init(void)
{
	unsigned int i;
	int err, cpu;

	/* For the module's lifetime: a thread saved one way is restored so. */
	pt_use_xsaves = pt_has(LWPT_PT_CAP_XSAVES);
	pt_tp_fork = lwpt_tracepoint_find("sched_process_fork");
	pt_tp_exec = lwpt_tracepoint_find("sched_process_exec");
	pt_tp_exit = lwpt_tracepoint_find("sched_process_exit");
	pt_tp_switch = lwpt_tracepoint_find("sched_switch");
	pt_tp_signal = lwpt_tracepoint_find("signal_deliver");
	if (!pt_tp_fork || !pt_tp_exec || !pt_tp_exit || !pt_tp_switch ||
	    !pt_tp_signal)
		return -ENODEV;
	for (i = 0; i < ARRAY_SIZE(pt_hold_wqs); i++)
		init_waitqueue_head(&pt_hold_wqs[i]);
	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(&pt_cpus, cpu)->hold_iw, pt_thread_hold_irq);
	pt_notif_init(pt_thread_sched_in, pt_thread_held);
	err = tracepoint_probe_register(pt_tp_switch, pt_probe_switch, NULL);
	if (err)
		goto err_notif;
	err = tracepoint_probe_register(pt_tp_fork, pt_probe_fork, NULL);
	if (err)
		goto err_switch;
	err = tracepoint_probe_register(pt_tp_exec, pt_probe_exec, NULL);
	if (err)
		goto err_fork;
	err = tracepoint_probe_register(pt_tp_exit, pt_probe_exit, NULL);
	if (err)
		goto err_exec;
	err = tracepoint_probe_register(pt_tp_signal, pt_probe_signal, NULL);
	if (err)
		goto err_exit;
	return 0;

err_exit:
	tracepoint_probe_unregister(pt_tp_exit, pt_probe_exit, NULL);
err_exec:
	tracepoint_probe_unregister(pt_tp_exec, pt_probe_exec, NULL);
err_fork:
	tracepoint_probe_unregister(pt_tp_fork, pt_probe_fork, NULL);
err_switch:
	tracepoint_probe_unregister(pt_tp_switch, pt_probe_switch, NULL);
	tracepoint_synchronize_unregister();
err_notif:
	pt_notif_exit();
	return err;
}

/**
 * pt_thread_exit - unregister the probes (module unload) and wait for them;
 *	preempt notifiers off (none is registered: each holds the module)
 */
void pt_thread_exit(void)
{
	int cpu;

	tracepoint_probe_unregister(pt_tp_signal, pt_probe_signal, NULL);
	tracepoint_probe_unregister(pt_tp_exit, pt_probe_exit, NULL);
	tracepoint_probe_unregister(pt_tp_exec, pt_probe_exec, NULL);
	tracepoint_probe_unregister(pt_tp_fork, pt_probe_fork, NULL);
	tracepoint_probe_unregister(pt_tp_switch, pt_probe_switch, NULL);
	tracepoint_synchronize_unregister();
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&pt_cpus, cpu)->hold_iw);
	pt_notif_exit();
}

/* --- The session ---------------------------------------------------------- */

/**
 * pt_thread_sess_setup - initialise the thread part of a new session
 * @s: the session of a file being opened (zeroed)
 */
void pt_thread_sess_setup(struct pt_session *s)
{
	INIT_LIST_HEAD(&s->thr.list);
	INIT_LIST_HEAD(&s->thr.spares);
	INIT_WORK(&s->thr.refill, pt_thread_refill);
}

/* Free @s's spares and give their charge back; nothing takes them now. */
static void pt_thread_free_spares(struct pt_session *s)
{
	struct pt_thread *th, *tmp;

	list_for_each_entry_safe(th, tmp, &s->thr.spares, node) {
		pt_thread_free(th);
		pt_mem_uncharge(&s->mem, pt_thread_buf_pages(s));
	}
	INIT_LIST_HEAD(&s->thr.spares);
	s->thr.nr_spares = 0;
}

/**
 * pt_thread_holder - the session tracing a thread of @target's process
 * @target: a thread of the process
 *
 * pt_lock held (sessions are freed under it).
 *
 * Return: the session, or NULL if no thread of the process is traced.
 */
struct pt_session *pt_thread_holder(struct task_struct *target)
{
	struct pt_session *holder = NULL;
	struct pt_thread *th;
	struct task_struct *t;
	unsigned long flags;

	rcu_read_lock();
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	for_each_thread(target, t) {
		th = pt_thread_find(t);
		if (th) {
			holder = th->sess;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	rcu_read_unlock();
	return holder;
}

/**
 * pt_thread_sess_init - set up a per-thread capture of @target's process
 * @s: the session (pt_lock held; cfg, ctl, cred and mem filled)
 * @target: a thread of the process (the caller keeps its own reference,
 *	holds its signal->exec_update_lock for reading and checked the
 *	permission under it: pt_ioctl_configure())
 * @cfg: the configuration; bad_field and rule set on refusal (memory)
 *
 * Allocates a buffer for every thread and PT_THREAD_SPARES spares
 * (sleeping), turns the probes on and attaches the existing threads; a
 * thread created meanwhile joins through the fork probe, and an exec after
 * the caller drops the lock meets the exec probe. A thread another
 * session traces stays there (the caller checked that none does:
 * pt_thread_holder()). Nothing is traced before START.
 *
 * Every buffer is charged to the caller before it is allocated (pt_mem.c,
 * @s->mem initialised); the charges are given back with the session.
 *
 * Each thread is attached only if the permission rule admits it against
 * its own credentials (pt_config_permit_thread()); the others are skipped
 * and counted in @s->thr.refused (status threads_refused).
 *
 * Return: 0; -ENOMEM out of memory, or over the caller's allowance and
 * RLIMIT_MEMLOCK (rule memlock); -ESRCH the process exited; -EPERM every
 * thread left was refused (rule ptrace); -EBUSY /dev/bts records one of
 * its threads (branch_owner.h). On error nothing is left
 * (pt_thread_sess_free() is a no-op).
 */
int pt_thread_sess_init(struct pt_session *s, struct task_struct *target,
			struct lwpt_pt_config *cfg)
{
	struct pt_thread_rights rights;
	struct task_struct *t;
	struct pt_thread *th;
	unsigned long flags;
	unsigned int i, n;
	int err;

	n = get_nr_threads(target) + PT_THREAD_SPARES;
	for (i = 0; i < n && pt_thread_may_grow(s); i++) {
		if (pt_mem_charge(&s->mem, pt_thread_buf_pages(s))) {
			err = pt_config_refuse_memlock(cfg);
			goto err_free;
		}
		th = pt_thread_alloc(s);
		if (!th) {
			pt_mem_uncharge(&s->mem, pt_thread_buf_pages(s));
			err = -ENOMEM;
			goto err_free;
		}
		list_add_tail(&th->node, &s->thr.spares);
		s->thr.nr_spares++;
	}
	lockdep_assert_held_read(&target->signal->exec_update_lock);
	pt_probes_get(s);
	get_task_struct(target);
	s->thr.target = target;
	s->thr.inherit = !(cfg->flags & LWPT_PT_CFG_NO_INHERIT);
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	s->thr.open = true;
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);

	/*
	 * A thread past PF_EXITING is not attached: its exit probe may have
	 * run. The lock orders the test against that probe. Every thread
	 * passes the permission rule against its own credentials first
	 * (pt_config_permit_thread()): one that fails is skipped and
	 * counted (status threads_refused), and the threads it creates are
	 * never traced, since only a traced thread's fork adds one.
	 */
	pt_config_thread_rights(&rights, target);
	rcu_read_lock();
	for_each_thread(target, t) {
		raw_spin_lock_irqsave(&pt_thread_lock, flags);
		if (t->flags & PF_EXITING)
			;
		else if (!pt_config_permit_thread(s, t, &rights))
			s->thr.refused++;
		else
			pt_thread_attach(s, t, NULL);
		raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	}
	rcu_read_unlock();
	pt_config_thread_rights_put(&rights);
	/* PT and BTS of one thread are exclusive (Documentation/bts.rst). */
	if (s->thr.bts) {
		cfg->bad_field = LWPT_PT_FIELD_PID;
		pt_thread_sess_free(s);
		return -EBUSY;
	}
	if (!s->thr.nr) {
		err = s->thr.refused ? -EPERM : -ESRCH;
		if (s->thr.refused) {
			cfg->rule = LWPT_PT_RULE_PTRACE;
			cfg->bad_field = LWPT_PT_FIELD_PID;
		}
		pt_thread_sess_free(s);
		return err;
	}
	return 0;

err_free:
	pt_thread_free_spares(s);
	return err;
}

/*
 * Close @s to new threads and take its threads out of the table (@reason
 * in their status); they are no longer traced. pt_lock held, @s stopped.
 */
static void pt_thread_close(struct pt_session *s, u32 reason)
{
	struct pt_thread *th;
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	s->thr.open = false;
	list_for_each_entry(th, &s->thr.list, node)
		if (th->task)
			pt_thread_forget(th, reason);
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	pt_hold_wake_all();
}

/**
 * pt_thread_sess_free - stop and free a per-thread capture
 * @s: the session (pt_lock held); may never have been set up
 *
 * Stops tracing (its threads unloaded on every CPU), takes its threads out
 * of the table, waits for running probes (they walk the table without the
 * lock: RCU, preemption off), then frees every thread's buffer.
 */
void pt_thread_sess_free(struct pt_session *s)
{
	struct pt_thread *th, *tmp;

	pt_thread_stop(s);
	pt_thread_close(s, LWPT_PT_STOP_NONE);
	pt_probes_put(s);
	synchronize_rcu();
	cancel_work_sync(&s->thr.refill);
	list_for_each_entry_safe(th, tmp, &s->thr.list, node)
		pt_thread_free(th);
	INIT_LIST_HEAD(&s->thr.list);
	/* The charge goes back with the session's (pt_mem_free()). */
	list_for_each_entry_safe(th, tmp, &s->thr.spares, node)
		pt_thread_free(th);
	INIT_LIST_HEAD(&s->thr.spares);
	s->thr.nr = 0;
	s->thr.live = 0;
	s->thr.joined = 0;
	bitmap_zero(s->thr.used, PT_THREAD_MAX);
	s->thr.nr_spares = 0;
	s->thr.lost = 0;
	s->thr.refused = 0;
	s->thr.bts = 0;
	s->thr.inherit = false;
	if (s->thr.target)
		put_task_struct(s->thr.target);
	s->thr.target = NULL;
}

/**
 * pt_thread_preempt - end a per-thread capture for a privileged one
 * @s: the session (pt_lock held)
 *
 * Stops it, takes its threads out of the table with stop reason
 * LWPT_PT_STOP_PREEMPTED (they may be traced by another session now) and
 * frees its spares (uncharged). Its buffers stay readable until the file
 * is closed or configured again.
 */
void pt_thread_preempt(struct pt_session *s)
{
	pt_thread_stop(s);
	pt_thread_close(s, LWPT_PT_STOP_PREEMPTED);
	/* No join can take a spare now: none of its threads is in the table. */
	cancel_work_sync(&s->thr.refill);
	pt_thread_free_spares(s);
}

/*
 * IPI: with @arg NULL, refuse if TraceEn is set by someone else (set while
 * another session's thread is loaded here is ours); with @arg a session,
 * load its thread running now.
 */
static void pt_thread_start_cpu(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_session *s = arg;
	struct pt_thread *th;
	u64 ctl = 0;

	raw_spin_lock(&pt_thread_lock);
	if (!s) {
		pc->tr.err = 0;
		if (lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl)) {
			pc->tr.err = -EIO;
		} else if ((ctl & IA32_RTIT_CTL_TRACEEN) && !pc->cur) {
			pc->tr.busy = true;
			pc->tr.err = -EBUSY;
		}
	} else if (!pc->cur) {
		th = pt_thread_find(current);
		if (th && th->sess == s)
			pt_thread_load(pc, th);
	}
	raw_spin_unlock(&pt_thread_lock);
}

/* IPI: unload the thread of session @arg loaded here, if any. */
static void pt_thread_stop_cpu(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);

	raw_spin_lock(&pt_thread_lock);
	if (pc->cur && pc->cur->sess == arg)
		pt_thread_unload(pc);
	raw_spin_unlock(&pt_thread_lock);
}

/**
 * pt_thread_start - START of a per-thread capture
 * @s: the session (pt_lock held)
 *
 * Refuses if TraceEn is set on an online CPU where none of our threads is
 * loaded (someone else's trace), zeroes buffers an earlier START wrote,
 * then lets the probes trace its threads and loads those running now.
 *
 * Return: 0, -EBUSY, or -EIO.
 */
int pt_thread_start(struct pt_session *s)
{
	struct pt_thread *th;
	unsigned long flags;
	int cpu, err = 0;

	cpus_read_lock();
	on_each_cpu(pt_thread_start_cpu, NULL, 1);
	for_each_online_cpu(cpu) {
		err = per_cpu_ptr(&pt_cpus, cpu)->tr.err;
		if (err)
			goto out;
	}
	/*
	 * Threads are only appended (and freed under pt_lock, held here);
	 * none of @s is loaded (stopped). The ToPA goes back to its START
	 * markers, as per CPU: an earlier run's gate (pt_output_gate()) left
	 * STOP and INT elsewhere than pt_output_reset()'s gate says.
	 */
	list_for_each_entry_rcu(th, &s->thr.list, node, lockdep_is_held(&pt_lock)) {
		if (READ_ONCE(th->tr.head))
			pt_buf_clear(&th->tr.buf);
		pt_buf_write_topa(&th->tr.buf, s->cfg.mode);
	}
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	list_for_each_entry(th, &s->thr.list, node) {
		pt_thread_init_state(th);
		th->tr.tracing = th->task && !th->tr.err;
	}
	s->started = true;
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	on_each_cpu(pt_thread_start_cpu, s, 1);
out:
	cpus_read_unlock();
	return err;
}

/**
 * pt_thread_stop - STOP of a per-thread capture
 * @s: the session (pt_lock held)
 *
 * The probes stop loading its threads, every loaded one is saved
 * (TraceEn=0); buffers and status stay.
 */
void pt_thread_stop(struct pt_session *s)
{
	struct pt_thread *th;
	unsigned long flags;

	if (!s->started)
		return;
	cpus_read_lock();
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	s->started = false;
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	on_each_cpu(pt_thread_stop_cpu, s, 1);
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	list_for_each_entry(th, &s->thr.list, node) {
		th->tr.tracing = false;
		th->tr.stalled = false;
	}
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	cpus_read_unlock();
	pt_hold_wake_all();	/* held threads go on, untraced */
}

/**
 * pt_thread_cur_trace - the trace loaded on a CPU, for its PMI
 * @pc: the current CPU's state
 *
 * Return: the loaded thread's trace, or NULL.
 */
struct pt_output *pt_thread_cur_trace(struct pt_cpu *pc)
{
	struct pt_thread *th = READ_ONCE(pc->cur);

	return th ? &th->tr : NULL;
}

/* IPI on the CPU where a thread was loaded: exact pointers (status). */
static void pt_thread_sample_cpu(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_thread *th = arg;

	raw_spin_lock(&pt_thread_lock);
	if (pc->cur == th && th->tr.tracing) {
		pt_cpu_update_begin(pc);
		pt_output_pause(&th->tr);
		pt_output_continue(&th->tr);
		pt_cpu_update_end(pc);
	}
	raw_spin_unlock(&pt_thread_lock);
}

/* IPI: the reader made room; a stalled thread running here goes on. */
static void pt_thread_release_cpu(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_thread *th = arg;

	raw_spin_lock(&pt_thread_lock);
	if (pc->cur == th && (th->tr.tracing || th->tr.stalled)) {
		/* Move the gate (pt_output_gate()), past it if stopped. */
		pt_cpu_update_begin(pc);
		if (th->tr.tracing)
			pt_output_pause(&th->tr);
		pt_output_continue(&th->tr);
		pt_cpu_update_end(pc);
	} else if (!pc->cur && th->task == current && th->sess->started) {
		pt_thread_load(pc, th);
	}
	raw_spin_unlock(&pt_thread_lock);
}

/* The CPU where buffer @index of @s has its thread loaded, -1 if none. */
static int pt_thread_where(struct pt_session *s, u32 index,
			   struct pt_thread **thp)
{
	struct pt_thread *th;
	unsigned long flags;
	int cpu = -1;

	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_by_index(s, index);
	if (th)
		/*
		 * Not loaded (e.g. stalled at its switch-in): where the task
		 * runs now, so that RELEASE's IPI finds it as current.
		 */
		cpu = th->cpu >= 0 ? th->cpu : th->task ? (int)task_cpu(th->task) : -1;
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	*thp = th;
	return cpu;
}

/**
 * pt_thread_status - status of a thread's buffer
 * @s: the session (pt_lock held)
 * @index: buffer number
 * @st: the answer (zeroed by the caller)
 *
 * Exact pointers for a running thread (an IPI to its CPU briefly clears
 * TraceEn, SDM 33.2.8.5); otherwise as saved at its last switch out. A
 * number below nr_buffers whose buffer was freed (pt_thread_done()) has
 * LWPT_PT_ST_FREED and only the capture's counts.
 *
 * Return: 0, or -EINVAL for a buffer number not (yet) in use.
 */
int pt_thread_status(struct pt_session *s, u32 index, struct lwpt_pt_status *st)
{
	struct pt_thread *th;
	unsigned long flags;
	struct pid *tid;
	int cpu, err = 0;

	cpu = pt_thread_where(s, index, &th);
	if (!th) {
		raw_spin_lock_irqsave(&pt_thread_lock, flags);
		if (index < s->thr.nr) {
			st->flags = LWPT_PT_ST_THREAD | LWPT_PT_ST_FREED;
			st->cpu = U32_MAX;
			st->nr_buffers = s->thr.nr;
			st->threads_lost = s->thr.lost;
			st->threads_refused = s->thr.refused;
			st->joined = s->thr.joined;
		} else {
			err = -EINVAL;
		}
		raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
		return err;
	}
	cpus_read_lock();
	if (cpu >= 0 && s->started && cpu_online(cpu))
		smp_call_function_single(cpu, pt_thread_sample_cpu, th, 1);
	cpus_read_unlock();
	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	pt_output_status(&th->tr, st);
	st->flags |= LWPT_PT_ST_THREAD |
		     (th->exited ? LWPT_PT_ST_EXITED : 0) |
		     (th->execed ? LWPT_PT_ST_EXECED : 0) |
		     (th->detached ? LWPT_PT_ST_DETACHED : 0);
	st->cpu = th->last_cpu >= 0 ? th->last_cpu : U32_MAX;
	st->nr_buffers = s->thr.nr;
	st->threads_lost = s->thr.lost;
	st->threads_refused = s->thr.refused;
	st->serial = th->serial;
	st->joined = s->thr.joined;
	st->stop_reason = th->stop_reason;
	/* The exec probe may replace (and put) th->pid once the lock drops. */
	tid = get_pid(th->pid);
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	/* Translated in the caller's pid namespace (0 if not visible). */
	st->tid = pid_vnr(tid);
	put_pid(tid);
	st->pid = pid_vnr(th->tgid);
	st->ppid = pid_vnr(th->ppid);
	st->mmap_offset = (u64)index * s->cfg.buffer_size;
	return 0;
}

/**
 * pt_thread_release - continuous mode: the reader consumed @tail bytes
 * @s: the session (pt_lock held)
 * @index: buffer number
 * @tail: bytes consumed since START (at most head)
 *
 * A held thread is woken (pt_thread_held()); a stalled thread resumes at
 * once wherever it runs now: its CPU is read under the same lock as the
 * tail is written, so an IPI that misses it (it was switched out first)
 * leaves it to its next sched-in, which sees the new tail. A thread not
 * loaded has its gate moved here (a held one waits on the result).
 *
 * Return: 0, or -EINVAL (no such buffer, @tail beyond head).
 */
int pt_thread_release(struct pt_session *s, u32 index, u64 tail)
{
	struct pt_thread *th;
	unsigned long flags;
	int cpu = -1, err = 0;

	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_by_index(s, index);
	if (!th || tail > READ_ONCE(th->tr.head)) {
		err = -EINVAL;
	} else {
		if (tail > th->tr.tail) {
			WRITE_ONCE(th->tr.tail, tail);
			/* The reader is back: hold it again (the limit). */
			th->tr.hold_off = false;
		}
		if (th->cpu >= 0) {
			cpu = th->cpu;
		} else if (th->task && s->started) {
			pt_thread_regate(th);
			/* Running but not loaded yet: the IPI loads it. */
			cpu = task_cpu(th->task);
		}
	}
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	if (err)
		return err;
	/* @th is only hashed: the thread may have exited meanwhile. */
	wake_up_all(pt_hold_wq(th));
	cpus_read_lock();
	if (cpu >= 0 && s->started && cpu_online(cpu))
		smp_call_function_single(cpu, pt_thread_release_cpu, th, 1);
	cpus_read_unlock();
	return 0;
}

/**
 * pt_thread_done - the reader is done with a buffer (RELEASE with
 *	LWPT_PT_REL_DONE)
 * @s: the session (pt_lock held)
 * @index: buffer number
 * @tail: bytes the reader took since START: must be the buffer's head
 *
 * The buffer of a thread no longer traced (it exited, was detached at an
 * exec, or the capture was preempted: nothing is written into it again),
 * which the reader took to its head and nobody maps, is freed and its
 * charge given back (pt_mem.c); its number goes to the next thread that
 * joins (pt_thread_attach()). A mapping counts until munmap() (pt_mmap()
 * counts them per buffer under pt_lock, held here), so no page is freed
 * or written by another thread under a user's view. The probes walk the
 * thread table without the lock: the free waits for the grace period that
 * began when the thread left it (pt_thread_forget()), long past in the
 * usual case. Documentation/pt.rst, "Buffers of threads that ended".
 *
 * Return: 0; -EINVAL no such buffer (or freed already), or @tail is not
 * its head (bytes not read); -EBUSY its thread is still traced, or the
 * buffer is mapped.
 */
int pt_thread_done(struct pt_session *s, u32 index, u64 tail)
{
	struct pt_thread *th;
	unsigned long flags;
	int err = 0;

	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_by_index(s, index);
	if (!th) {
		err = -EINVAL;
	} else if (th->task || th->cpu >= 0) {
		err = -EBUSY;
	} else if (tail != READ_ONCE(th->tr.head)) {
		err = -EINVAL;
	} else if (atomic_read(&th->tr.maps)) {
		err = -EBUSY;
	} else {
		/* Walked under pt_lock (START) or this lock only: not RCU. */
		list_del_rcu(&th->node);
		__clear_bit(index, s->thr.used);
		s->thr.live--;
	}
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	if (err)
		return err;
	cond_synchronize_rcu(th->gp);
	pt_thread_free(th);
	pt_mem_uncharge(&s->mem, pt_thread_buf_pages(s));
	/*
	 * The charge came back, and the number: the spares may be short (a
	 * burst of joins took them, the limit kept the work from refilling).
	 * Refilled before RELEASE returns, not by the work item some time
	 * later: a thread created once the reader freed a buffer finds a
	 * spare (a reader that frees as it reads keeps a forking process
	 * traced; 66-pt-fork-reap lost a child to a refill not yet run).
	 */
	pt_thread_top_up(s);
	return 0;
}

/**
 * pt_thread_output - the buffer of a thread, for mmap
 * @s: the session (pt_lock held: threads are freed only under it)
 * @index: buffer number
 *
 * Return: its output (buffer and mapping count), or NULL: no such buffer,
 * or it was freed (pt_thread_done()).
 */
struct pt_output *pt_thread_output(struct pt_session *s, u32 index)
{
	struct pt_thread *th;
	unsigned long flags;

	raw_spin_lock_irqsave(&pt_thread_lock, flags);
	th = pt_thread_by_index(s, index);
	raw_spin_unlock_irqrestore(&pt_thread_lock, flags);
	return th ? &th->tr : NULL;
}

/**
 * pt_thread_cpu_down - a CPU goes offline (on it, IRQs off)
 * @pc: its state
 *
 * Its threads were switched out (saved) before they migrate; nothing of
 * ours should be loaded here. If something is, it is saved now.
 */
void pt_thread_cpu_down(struct pt_cpu *pc)
{
	raw_spin_lock(&pt_thread_lock);
	if (pc->cur)
		pt_thread_unload(pc);
	raw_spin_unlock(&pt_thread_lock);
}

/**
 * pt_thread_suspend - syscore suspend (boot CPU, IRQs off)
 * @pc: its state
 *
 * Saves the loaded thread (the one suspending the system, if traced).
 */
void pt_thread_suspend(struct pt_cpu *pc)
{
	raw_spin_lock(&pt_thread_lock);
	pc->suspended = pc->cur;
	if (pc->cur)
		pt_thread_unload(pc);
	raw_spin_unlock(&pt_thread_lock);
}

/**
 * pt_thread_resume - syscore resume (boot CPU, IRQs off)
 * @pc: its state
 *
 * Loads again the thread pt_thread_suspend() saved: every RTIT MSR is
 * written, so state lost in S3 does not matter.
 */
void pt_thread_resume(struct pt_cpu *pc)
{
	struct pt_thread *th;

	raw_spin_lock(&pt_thread_lock);
	th = pc->suspended;
	pc->suspended = NULL;
	if (th && !pc->cur && th->task == current && th->sess->started)
		pt_thread_load(pc, th);
	raw_spin_unlock(&pt_thread_lock);
}
