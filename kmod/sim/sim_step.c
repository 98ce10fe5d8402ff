// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt_sim.ko: the execution follower. A real PT unit sees every
 * instruction a thread retires; on the model, this file single-steps the
 * user-mode execution of the threads the PT model watches and hands each
 * retired instruction to it (issue 5 point 5; Documentation/pt-model.rst,
 * "Execution in the kernel").
 *
 *  - A user return notifier, registered on every CPU, sees each thread
 *    return to user mode (interrupts off). If the model wants the thread
 *    (its follow operation: TraceEn, User, CR3 filter), the follower sets
 *    RFLAGS.TF in its user registers and notes the IP user mode resumes at;
 *    otherwise it clears a TF it had set.
 *  - With TF=1 the processor raises #DB with DR6.BS after each instruction
 *    (SDM Vol. 3 17.3.1.4). A die notifier (DIE_DEBUG, interrupts off, on
 *    the CPU that ran the instruction) claims it: the instruction at the
 *    noted IP retired and RIP is its successor. The step goes to the model
 *    there and then, so the steps of threads sharing a CPU reach its PT
 *    unit in the order they executed.
 *  - The next instruction's bytes are read at each stop, without faulting;
 *    where that fails, a task_work reads them before the return to user
 *    mode, where page faults are allowed.
 *  - A system call retires at the raw_syscalls:sys_enter probe, on its
 *    CPU; the probe also clears TF in the saved registers, so no thread
 *    sleeps in the kernel with the follower's TF, and the return to user
 *    mode (whose IP starts the next step) sets it again. INT3, INT n, UD2
 *    and the like, which trap or fault into the kernel without sys_enter,
 *    retire at the return to user mode if it resumes elsewhere.
 *  - An asynchronous event (interrupt, signal) needs nothing: the next step
 *    is not where the previous one went, which the packet generator reads
 *    as such an event (pt-model.rst, choice 8).
 *  - The follower's TF never reaches memory the program owns: a signal
 *    delivered on the way out of an interrupt, a fault or a step's #DB
 *    would save it in the handler's frame (the kernel clears TF only in the
 *    registers the handler starts with), and rt_sigreturn would restore it
 *    after the follower let go of the thread (tracing stopped meanwhile,
 *    or the thread moved to a CPU that does not trace): a real
 *    single-step trap, SIGTRAP. The signal_deliver probe, before the frame
 *    is built, takes it off the saved registers (the thread stays stepped:
 *    its return to user mode sets TF again).
 *
 * Each thread the follower ever stepped has an entry until it exits (or
 * the module unloads). All per-thread state is touched only by the thread
 * itself (notifiers, probes and task_work run as current); the table is
 * RCU-protected.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/kdebug.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/ptrace.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/user-return-notifier.h>

#include <asm/debugreg.h>
#include <asm/msr.h>
#include <asm/ptrace.h>

#include "model/pt/pt_trace.h"
#include "model/x86/x86_cofi.h"
#include "model/x86/x86_ptwrite.h"

#include "../lwpt.h"
#include "../x86_user_cr3.h"
#include "sim.h"
#include "sim_step.h"

/* How long sim_step_exit() waits for stepped threads to drop TF. */
#define SIM_STEP_EXIT_WAIT_MS	5000
/* Retired instructions waiting for the LWP model (one per stop, normally). */
#define SIM_STEP_LWP_QUEUE	4

/**
 * struct sim_step_thread - a thread the follower has single-stepped
 * @node: in sim_step_threads, keyed by @task
 * @task: the thread; its entry goes at its exit, before the task is freed
 * @rcu: for kfree_rcu()
 * @work: task_work that reads the next instruction with page faults allowed
 * @work_queued: @work is queued (the entry is freed by it if @dead)
 * @dead: the thread exited while @work was queued
 * @tf: the follower set RFLAGS.TF in the thread's user registers
 * @syscall: a system call was entered since the last stop
 * @syscall_open: the BTS unit got that system call's entry alone; its
 *	return is due at the return to user mode (sim_unit.syscall_return)
 * @syscall_next: the IP after that system call
 * @deferred: the instruction at @ip retired before its bytes were read;
 *	@work retires it with successor @deferred_next
 * @deferred_next: see @deferred
 * @ip: user-mode IP of the next instruction the thread executes
 * @insn: its bytes, @insn_len of them read (0: not read)
 * @insn_len: see @insn
 * @mode: its code segment's mode
 * @cr3: the thread's user-mode CR3 (lwpt_user_cr3())
 * @lwp: the thread's LWP counts events 2 or 3 (struct sim_unit.follow)
 * @lwp_q: retired instructions for the LWP model, handed over by @work
 * @lwp_n: entries in @lwp_q
 * @ptw_size: the instruction at @ip is a PTWRITE the kernel executed
 *	(sim_step_emulated()) with this operand size, 4 or 8; else 0
 * @ptw_value: its operand
 */
struct sim_step_thread {
	struct hlist_node node;
	struct task_struct *task;
	struct rcu_head rcu;
	struct callback_head work;
	bool work_queued;
	bool dead;
	bool tf;
	bool syscall;
	bool syscall_open;
	u64 syscall_next;
	bool deferred;
	u64 deferred_next;
	u64 ip;
	u8 insn[X86_MAX_INSN_LEN];
	u8 insn_len;
	enum x86_mode mode;
	u64 cr3;
	bool lwp;
	struct sim_step_insn lwp_q[SIM_STEP_LWP_QUEUE];
	unsigned int lwp_n;
	u8 ptw_size;
	u64 ptw_value;
};

/**
 * struct sim_step_stats - the follower's counters, per CPU
 * @steps: instructions handed to the models
 * @lwp: of these, instructions handed to the LWP model as well
 * @deferred: of these, retired by the task_work (bytes not readable at once)
 * @lost: retired instructions whose bytes could not be read at all
 * @no_memory: threads not followed because their entry could not be allocated
 */
struct sim_step_stats {
	u64 steps;
	u64 lwp;
	u64 deferred;
	u64 lost;
	u64 no_memory;
};

static DEFINE_HASHTABLE(sim_step_threads, 8);
static DEFINE_RAW_SPINLOCK(sim_step_lock);	/* writers of the table */
static DEFINE_PER_CPU(struct user_return_notifier, sim_step_urn);
static DEFINE_PER_CPU(struct sim_step_stats, sim_step_stats);
static atomic_t sim_step_tf_threads = ATOMIC_INIT(0);	/* entries with @tf */
static atomic_t sim_step_works = ATOMIC_INIT(0);	/* queued task_works */
static bool sim_step_on;		/* may set TF (cleared at exit) */
static int sim_step_cpuhp = -1;
static struct tracepoint *sim_step_tp_sys_enter;
static struct tracepoint *sim_step_tp_exit;
static struct tracepoint *sim_step_tp_signal;

/* The entry of @t, or NULL. Only @t itself (or the exit path) calls it. */
static struct sim_step_thread *sim_step_find(struct task_struct *t)
{
	struct sim_step_thread *st, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(sim_step_threads, st, node, (unsigned long)t) {
		if (st->task == t) {
			found = st;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * Set or clear the follower's TF in the thread's user registers. Setting
 * always writes the bit: a debugger's PTRACE_SETREGS or a POPF may have
 * cleared it.
 */
static void sim_step_set_tf(struct sim_step_thread *st, struct pt_regs *regs,
			    bool on)
{
	if (on)
		regs->flags |= X86_EFLAGS_TF;
	else if (st->tf)
		regs->flags &= ~X86_EFLAGS_TF;
	if (on != st->tf)
		atomic_add(on ? 1 : -1, &sim_step_tf_threads);
	st->tf = on;
}

static int sim_step_copy(void *dst, u64 src, size_t n, bool may_fault)
{
	const void __user *p = (const void __user *)(unsigned long)src;

	if (may_fault)
		return copy_from_user(dst, p, n) ? -EFAULT : 0;
	return copy_from_user_nofault(dst, p, n);
}

/*
 * Read the instruction at st->ip: up to 15 bytes (SDM Vol. 2 2.3.11), fewer
 * where the next page is not readable. Return: true if they hold a whole
 * instruction or a defined fault (-EILSEQ); false if more bytes are needed
 * (retry with page faults allowed).
 */
static bool sim_step_read(struct sim_step_thread *st, bool may_fault)
{
	size_t first = min_t(u64, X86_MAX_INSN_LEN,
			     PAGE_SIZE - offset_in_page(st->ip));
	struct x86_cofi c;

	st->insn_len = 0;
	if (sim_step_copy(st->insn, st->ip, first, may_fault))
		return false;
	st->insn_len = first;
	if (first < X86_MAX_INSN_LEN &&
	    !sim_step_copy(st->insn + first, st->ip + first,
			   X86_MAX_INSN_LEN - first, may_fault))
		st->insn_len = X86_MAX_INSN_LEN;
	return x86_cofi_decode(st->insn, st->insn_len, st->mode, &c) != -EAGAIN;
}

static void sim_step_defer(struct sim_step_thread *st);

/*
 * The operand of a PTWRITE that the CPU executed itself (no #UD, SDM Vol.
 * 2 "PTWRITE"), read at the single-step trap after it: PTWRITE changes no
 * register and no memory. Return: true with @s->ptw_size and ->ptw_value
 * set; false for any other instruction or an operand not readable now.
 */
static bool sim_step_ptw_native(const struct sim_step_thread *st,
				struct pt_trace_step *s)
{
	struct x86_ptwrite pw;
	u64 gpr[SIM_GPRS], v = 0;

	if (x86_ptwrite_decode(st->insn, st->insn_len, st->mode, &pw))
		return false;
	sim_regs_gpr(current_pt_regs(), gpr);
	if (!pw.mem)
		v = gpr[pw.reg];
	else if (copy_from_user_nofault(&v, (const void __user *)
					x86_ptwrite_ea(&pw, gpr, st->ip + pw.len),
					pw.size))
		return false;
	s->ptw_size = pw.size;
	s->ptw_value = pw.size == 4 ? (u32)v : v;
	return true;
}

/*
 * The instruction at st->ip retired; @next_ip is the IP observed after it.
 * To the PT unit of this CPU now; with @lwp (an instruction that executed
 * entirely at CPL 3, 43724 §2.2) to the thread's LWP by the task_work.
 * With @syscall, a system call seen at its entry: @next_ip is the
 * instruction after it, where PT's generator expects it; the BTS unit
 * takes the entry alone and the return when it comes (the thread may
 * return to a signal handler, a restarted system call, the context
 * rt_sigreturn restores or a new program: IRET's branch, not SYSRET's).
 */
static void sim_step_retire(struct sim_step_thread *st, u64 next_ip, bool lwp,
			    bool syscall)
{
	struct sim_step_stats *stats = this_cpu_ptr(&sim_step_stats);
	const struct sim_unit *pt = sim_unit_get(SIM_UNIT_PT);
	const struct sim_unit *bts = sim_unit_get(SIM_UNIT_BTS);
	struct pt_trace_step s = {
		.ip = st->ip,
		.insn_size = st->insn_len,
		.cpl = 3,
		.mode = st->mode,
		.next_ip = next_ip,
		.cr3 = st->cr3,
		.tsc = rdtsc(),
	};
	struct x86_cofi c;

	if (!st->insn_len) {
		stats->lost++;
		return;
	}
	memcpy(s.insn, st->insn, st->insn_len);
	if (st->ptw_size) {
		s.ptw_size = st->ptw_size;
		s.ptw_value = st->ptw_value;
		st->ptw_size = 0;
	} else {
		sim_step_ptw_native(st, &s);
	}
	if (pt)
		pt->step(&s);
	if (bts && syscall && bts->syscall_return) {
		struct pt_trace_step entry = s;

		entry.next_ip = s.ip;	/* into the kernel; no return yet */
		bts->step(&entry);
		st->syscall_open = true;
		st->syscall_next = next_ip;
	} else if (bts) {
		bts->step(&s);
	}
	stats->steps++;
	if (!lwp || !st->lwp ||
	    x86_cofi_decode(st->insn, st->insn_len, st->mode, &c))
		return;
	if (st->lwp_n == SIM_STEP_LWP_QUEUE) {
		stats->lost++;
		return;
	}
	st->lwp_q[st->lwp_n++] = (struct sim_step_insn) {
		.ip = st->ip, .next_ip = next_ip, .len = c.len, .kind = c.kind,
	};
	stats->lwp++;
	sim_step_defer(st);
}

/*
 * Queue st->work, once: it reads the bytes at st->ip where page faults are
 * allowed and hands the queued instructions to LWP, before user mode.
 */
static void sim_step_defer(struct sim_step_thread *st)
{
	if (st->work_queued)
		return;
	if (task_work_add(current, &st->work, TWA_RESUME)) {
		this_cpu_inc(sim_step_stats.lost);
		return;
	}
	st->work_queued = true;
	atomic_inc(&sim_step_works);
}

/* The thread will execute @regs->ip next. */
static void sim_step_at(struct sim_step_thread *st, struct pt_regs *regs)
{
	st->ip = regs->ip;
	st->mode = user_64bit_mode(regs) ? X86_MODE_64 : X86_MODE_32;
	st->syscall = false;
	if (!sim_step_read(st, false))
		sim_step_defer(st);
}

/* task_work: page faults allowed, before the return to user mode. */
static void sim_step_work(struct callback_head *work)
{
	struct sim_step_thread *st = container_of(work, struct sim_step_thread, work);
	const struct sim_unit *lwp_ops = sim_unit_get(SIM_UNIT_LWP);
	struct pt_regs *regs = current_pt_regs();
	unsigned long flags;
	unsigned int i;

	if (st->dead) {
		kfree_rcu(st, rcu);
		atomic_dec(&sim_step_works);
		return;
	}
	if (st->deferred) {
		/* The instruction at st->ip retired before it could be read. */
		st->deferred = false;
		sim_step_read(st, true);
		local_irq_save(flags);
		this_cpu_inc(sim_step_stats.deferred);
		sim_step_retire(st, st->deferred_next, true, false);
		local_irq_restore(flags);
		st->ip = st->deferred_next;
		st->mode = user_64bit_mode(regs) ? X86_MODE_64 : X86_MODE_32;
	}
	sim_step_read(st, true);
	for (i = 0; i < st->lwp_n; i++)
		if (lwp_ops)
			lwp_ops->retired(&st->lwp_q[i]);
	st->lwp_n = 0;
	/* Not earlier: sim_step_retire() above must not queue it again. */
	st->work_queued = false;
	atomic_dec(&sim_step_works);
}

bool sim_step_emulated(struct pt_regs *regs, u64 ip, u8 ptw_size, u64 ptw_value)
{
	struct sim_step_thread *st = sim_step_find(current);
	unsigned long flags;

	if (!st || !st->tf || st->ip != ip || test_thread_flag(TIF_SINGLESTEP))
		return false;
	if (!st->insn_len)
		sim_step_read(st, true);
	st->ptw_size = ptw_size;
	st->ptw_value = ptw_value;
	local_irq_save(flags);
	sim_step_retire(st, regs->ip, true, false);
	local_irq_restore(flags);
	st->ptw_size = 0;
	sim_step_at(st, regs);
	return true;
}

/* Does the (decoded) instruction at st->ip enter the kernel by itself? */
static bool sim_step_enters_kernel(const struct sim_step_thread *st)
{
	struct x86_cofi c;
	int err;

	if (!st->insn_len)
		return false;
	err = x86_cofi_decode(st->insn, st->insn_len, st->mode, &c);
	return !err && x86_cofi_enters_kernel(c.kind);
}

/*
 * A non-branch instruction that traps with RIP unchanged is a REP string
 * instruction between iterations (SDM Vol. 3 17.3.1.4: single-stepping
 * traps after each iteration); it retires once, after the last.
 */
static bool sim_step_rep_iteration(const struct sim_step_thread *st)
{
	struct x86_cofi c;

	return st->insn_len &&
	       !x86_cofi_decode(st->insn, st->insn_len, st->mode, &c) &&
	       c.kind == X86_COFI_NONE;
}

/*
 * Whether the models want @current's user-mode instructions now: this
 * CPU's PT unit or branch-recording unit, or the thread's LWP (*@lwp).
 */
static bool sim_step_wanted(struct sim_step_thread *st, bool *lwp)
{
	const struct sim_unit *lwp_ops = sim_unit_get(SIM_UNIT_LWP);
	const struct sim_unit *pt = sim_unit_get(SIM_UNIT_PT);
	const struct sim_unit *bts = sim_unit_get(SIM_UNIT_BTS);

	*lwp = false;
	if (!READ_ONCE(sim_step_on))
		return false;
	*lwp = lwp_ops && lwp_ops->follow(0);
	return *lwp || (bts && bts->follow(0)) ||
	       (pt && pt->follow(st ? st->cr3 : lwpt_user_cr3(current->mm)));
}

static struct sim_step_thread *sim_step_new(void)
{
	struct sim_step_thread *st = kzalloc(sizeof(*st), GFP_ATOMIC);
	unsigned long flags;

	if (!st) {
		this_cpu_inc(sim_step_stats.no_memory);
		return NULL;
	}
	st->task = current;
	init_task_work(&st->work, sim_step_work);
	raw_spin_lock_irqsave(&sim_step_lock, flags);
	hash_add_rcu(sim_step_threads, &st->node, (unsigned long)current);
	raw_spin_unlock_irqrestore(&sim_step_lock, flags);
	return st;
}

/*
 * Every return to user mode on this CPU (arch_exit_to_user_mode_prepare(),
 * interrupts off, after signal delivery): the one place that decides
 * whether the thread runs with the follower's TF.
 */
static void sim_step_user_return(struct user_return_notifier *urn)
{
	const struct sim_unit *pt = sim_unit_get(SIM_UNIT_PT);
	struct pt_regs *regs = current_pt_regs();
	struct sim_step_thread *st;
	bool want, lwp;

	if (!current->mm)
		return;
	if (pt)
		pt->user_return();
	st = sim_step_find(current);
	if (st && st->syscall) {
		/* Back from a system call (retired at sys_enter); execve too. */
		const struct sim_unit *bts = sim_unit_get(SIM_UNIT_BTS);

		if (st->syscall_open && bts && bts->syscall_return)
			bts->syscall_return(regs->ip, regs->ip == st->syscall_next);
		st->syscall_open = false;
		st->cr3 = lwpt_user_cr3(current->mm);
		sim_step_at(st, regs);
	} else if (st && st->tf && st->ip != regs->ip) {
		/*
		 * A stepped thread resumes elsewhere than its next instruction:
		 * INT3, INT n, UD2 ... there trapped or faulted into the kernel
		 * with this successor; or an interrupt, a signal diverted the
		 * thread before it, which the next step shows.
		 */
		if (sim_step_enters_kernel(st))
			sim_step_retire(st, regs->ip, false, false);
		sim_step_at(st, regs);
	}
	want = sim_step_wanted(st, &lwp);
	if (st)
		st->lwp = lwp;
	if (!want) {
		if (st)
			sim_step_set_tf(st, regs, false);
		return;
	}
	if (!st) {
		st = sim_step_new();
		if (!st)
			return;
		st->lwp = lwp;
	}
	if (!st->tf) {
		/* (Re)start following here. */
		st->cr3 = lwpt_user_cr3(current->mm);
		sim_step_at(st, regs);
	}
	if (test_thread_flag(TIF_SINGLESTEP)) {
		/* A debugger steps the thread: TF is its own. */
		if (st->tf)
			atomic_dec(&sim_step_tf_threads);
		st->tf = false;
		return;
	}
	sim_step_set_tf(st, regs, true);
}

/* #DB from user mode (exc_debug_user(), interrupts off). */
static int sim_step_die(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long *dr6 = (unsigned long *)args->err;
	struct sim_step_thread *st;

	if (val != DIE_DEBUG || !user_mode(regs) || !(*dr6 & DR_STEP))
		return NOTIFY_DONE;
	st = sim_step_find(current);
	if (!st || !st->tf || test_thread_flag(TIF_SINGLESTEP))
		return NOTIFY_DONE;
	/* Ours: no SIGTRAP, and DR6.BS does not show to ptrace. */
	*dr6 &= ~DR_STEP;
	current->thread.virtual_dr6 &= ~DR_STEP;
	if (regs->ip == st->ip && sim_step_rep_iteration(st)) {
		/* One iteration of a REP string instruction: not retired yet. */
	} else if (st->insn_len) {
		sim_step_retire(st, regs->ip, true, false);
		sim_step_at(st, regs);
	} else {
		/* Its bytes could not be read yet: the task_work hands it over. */
		st->deferred = true;
		st->deferred_next = regs->ip;
		st->syscall = false;
		sim_step_defer(st);
		if (!st->work_queued) {
			st->deferred = false;
			sim_step_at(st, regs);
		}
	}
	/* Hardware breakpoints that hit as well still reach their owners. */
	return (*dr6 & DR_TRAP_BITS) ? NOTIFY_DONE : NOTIFY_STOP;
}

static struct notifier_block sim_step_die_nb = {
	.notifier_call = sim_step_die,
};

/*
 * raw_syscalls:sys_enter, in the thread (preemption off): the system call
 * instruction at st->ip retired on this CPU, RIP after it is its nominal
 * successor (the generator learns the real one from the next step). The
 * thread has no TF while in the kernel; the return to user mode sets it.
 */
static void sim_step_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct sim_step_thread *st;
	unsigned long flags;

	if (!user_mode(regs))
		return;
	st = sim_step_find(current);
	if (!st || !st->tf)
		return;
	local_irq_save(flags);
	sim_step_retire(st, regs->ip, false, true);
	local_irq_restore(flags);
	st->syscall = true;
	sim_step_set_tf(st, regs, false);
}

/*
 * signal_deliver, in get_signal() as current (siglock held, interrupts
 * off), before handle_signal() saves the user registers in the handler's
 * frame: the follower's TF out of them, so that rt_sigreturn cannot bring
 * it back once the follower no longer steps the thread. @st->tf stays:
 * the instruction at @st->ip is still the one the thread stopped before
 * (an INT3 or a UD2 whose signal this is retires at the return to user
 * mode), and that return sets TF again if the models want the thread.
 */
static void sim_step_probe_signal(void *data, int sig,
				  struct kernel_siginfo *info,
				  struct k_sigaction *ka)
{
	struct pt_regs *regs = current_pt_regs();
	struct sim_step_thread *st;

	if (!current->mm || !user_mode(regs))
		return;
	st = sim_step_find(current);
	if (st && st->tf && !test_thread_flag(TIF_SINGLESTEP))
		regs->flags &= ~X86_EFLAGS_TF;
}

/* sched_process_exit, in the exiting thread: its entry goes. */
static void sim_step_probe_exit(void *data, struct task_struct *p)
{
	struct sim_step_thread *st = sim_step_find(p);
	unsigned long flags;

	if (!st)
		return;
	raw_spin_lock_irqsave(&sim_step_lock, flags);
	hash_del_rcu(&st->node);
	raw_spin_unlock_irqrestore(&sim_step_lock, flags);
	if (st->tf)
		atomic_dec(&sim_step_tf_threads);
	st->tf = false;
	if (st->work_queued)
		st->dead = true;	/* sim_step_work() frees it */
	else
		kfree_rcu(st, rcu);
}

static int sim_step_cpu_online(unsigned int cpu)
{
	preempt_disable();
	user_return_notifier_register(this_cpu_ptr(&sim_step_urn));
	preempt_enable();
	return 0;
}

static int sim_step_cpu_offline(unsigned int cpu)
{
	preempt_disable();
	user_return_notifier_unregister(this_cpu_ptr(&sim_step_urn));
	preempt_enable();
	return 0;
}

static int sim_step_show(struct seq_file *m, void *v)
{
	struct sim_step_stats sum = { 0 };
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct sim_step_stats *s = per_cpu_ptr(&sim_step_stats, cpu);

		sum.steps += s->steps;
		sum.lwp += s->lwp;
		sum.deferred += s->deferred;
		sum.lost += s->lost;
		sum.no_memory += s->no_memory;
	}
	seq_printf(m, "stepping=%d steps=%llu lwp=%llu deferred=%llu lost=%llu no_memory=%llu\n",
		   atomic_read(&sim_step_tf_threads), sum.steps, sum.lwp,
		   sum.deferred, sum.lost, sum.no_memory);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_step);

int sim_step_init(struct dentry *dir)
{
	int cpu, err;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(&sim_step_urn, cpu)->on_user_return = sim_step_user_return;
	sim_step_tp_sys_enter = lwpt_tracepoint_find("sys_enter");
	sim_step_tp_exit = lwpt_tracepoint_find("sched_process_exit");
	sim_step_tp_signal = lwpt_tracepoint_find("signal_deliver");
	if (!sim_step_tp_sys_enter || !sim_step_tp_exit || !sim_step_tp_signal) {
		pr_err("no sys_enter/sched_process_exit/signal_deliver tracepoints: cannot follow execution\n");
		return -ENODEV;
	}
	err = tracepoint_probe_register(sim_step_tp_exit, sim_step_probe_exit, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(sim_step_tp_sys_enter,
					sim_step_probe_sys_enter, NULL);
	if (err)
		goto err_exit_tp;
	err = tracepoint_probe_register(sim_step_tp_signal,
					sim_step_probe_signal, NULL);
	if (err)
		goto err_sys_enter_tp;
	err = register_die_notifier(&sim_step_die_nb);
	if (err)
		goto err_signal_tp;
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "lwpt_sim/step:online",
				sim_step_cpu_online, sim_step_cpu_offline);
	if (err < 0)
		goto err_die;
	sim_step_cpuhp = err;
	WRITE_ONCE(sim_step_on, true);
	debugfs_create_file("step", 0444, dir, NULL, &sim_step_fops);
	return 0;

err_die:
	unregister_die_notifier(&sim_step_die_nb);
err_signal_tp:
	tracepoint_probe_unregister(sim_step_tp_signal, sim_step_probe_signal,
				    NULL);
err_sys_enter_tp:
	tracepoint_probe_unregister(sim_step_tp_sys_enter,
				    sim_step_probe_sys_enter, NULL);
err_exit_tp:
	tracepoint_probe_unregister(sim_step_tp_exit, sim_step_probe_exit, NULL);
	tracepoint_synchronize_unregister();
	return err;
}

void sim_step_exit(void)
{
	struct sim_step_thread *st;
	struct hlist_node *tmp;
	unsigned int waited = 0;
	int bkt;

	/* Every followed thread drops TF at its next return to user mode. */
	WRITE_ONCE(sim_step_on, false);
	while ((atomic_read(&sim_step_tf_threads) ||
		atomic_read(&sim_step_works)) && waited < SIM_STEP_EXIT_WAIT_MS) {
		msleep(20);
		waited += 20;
	}
	if (atomic_read(&sim_step_tf_threads))
		pr_warn("%d thread(s) still single-stepped (stopped in the kernel?); they get SIGTRAP after their next instruction\n",
			atomic_read(&sim_step_tf_threads));
	/* Queued task_works point into this module: they run very soon. */
	while (atomic_read(&sim_step_works))
		msleep(20);
	cpuhp_remove_state(sim_step_cpuhp);
	unregister_die_notifier(&sim_step_die_nb);
	tracepoint_probe_unregister(sim_step_tp_signal, sim_step_probe_signal,
				    NULL);
	tracepoint_probe_unregister(sim_step_tp_sys_enter,
				    sim_step_probe_sys_enter, NULL);
	tracepoint_probe_unregister(sim_step_tp_exit, sim_step_probe_exit, NULL);
	tracepoint_synchronize_unregister();
	synchronize_rcu();
	hash_for_each_safe(sim_step_threads, bkt, tmp, st, node) {
		hash_del(&st->node);
		kfree(st);
	}
}
