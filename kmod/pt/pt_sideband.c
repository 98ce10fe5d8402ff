// SPDX-License-Identifier: GPL-2.0
/*
 * Sideband for decoders: the context switches of a per-CPU capture.
 *
 * A decoder of a per-CPU trace (LWPT_PT_SCOPE_CPU) must know which thread
 * ran when: the trace itself names no process (PIP carries CR3 only with
 * OS=1, SDM 33.4.2.7). While such a capture is started, the sched_switch
 * probe appends every context switch of a CPU that has a buffer to that
 * CPU's ring: the TSC (the clock of the TSC packets, SDM 33.4.2.11), prev
 * and next as pid/tid in the configuring process's pid namespace, and
 * whether they are the idle task or kernel threads.
 * LWPT_PT_IOC_READ_SIDEBAND takes the oldest records out. Exec and mmap are
 * not recorded: the capture tool reads /proc/PID/maps (Documentation/pt.rst).
 *
 * The sched_switch probe is registered once while the module is loaded
 * (pt_sched_switch_init()) and returns at once unless a per-CPU capture
 * turned it on (pt_sched_switch_get()); pt_thread.c has its own for the
 * per-thread RTIT switch (see there for why not per capture).
 *
 * Each ring has one writer, the probe on its CPU (runqueue lock held,
 * interrupts off: no allocation, sleeping or printing; a full ring counts
 * a lost record), and one reader, READ_SIDEBAND under pt_lock. They share
 * no lock: head and tail are published with release and read with acquire.
 */
#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include <uapi/lwpt/pt.h>

#include "pt_int.h"

static_assert(sizeof(struct lwpt_pt_switch) == LWPT_PT_SWITCH_SIZE_VER0);
static_assert(sizeof(struct lwpt_pt_sideband) == LWPT_PT_SIDEBAND_SIZE_VER0);
static_assert(offsetof(struct lwpt_pt_switch, prev_pid) == 16);
static_assert(offsetof(struct lwpt_pt_sideband, records) == 8);
static_assert(offsetof(struct lwpt_pt_sideband, lost) == 32);

static struct tracepoint *pt_tp_sched_switch;
static unsigned int pt_switch_users;	/* pt_lock held */
static bool pt_switch_active;		/* the probe works (pt_switch_users) */
static bool pt_sb_probe_on;		/* pt_lock held */
/*
 * The pid namespace of the per-CPU capture (its session holds the
 * reference): set before the probe works, cleared after it idles.
 */
static struct pid_namespace *pt_sb_ns;

/* Which task: the idle task, a kernel thread, or neither. */
static u32 pt_sb_task_flags(struct task_struct *p, u32 idle, u32 kthread)
{
	if (is_idle_task(p))
		return idle;
	return (p->flags & PF_KTHREAD) ? kthread : 0;
}

/* Append one switch to this CPU's ring (interrupts off, runqueue locked). */
static void pt_sb_switch(bool preempt, struct task_struct *prev,
			 struct task_struct *next)
{
	struct pt_sb *sb = this_cpu_ptr(&pt_cpus.sb);
	struct pid_namespace *ns = READ_ONCE(pt_sb_ns);
	struct lwpt_pt_switch *r;
	u64 tsc = lwpt_hw_rdtsc(), head, tail;
	s32 ids[4];

	if (!READ_ONCE(sb->on))
		return;
	lwpt_switch_ids_switch(&sb->ids, ns, prev, next, ids);
	head = sb->head;
	/* Pairs with the release of the tail in READ_SIDEBAND: slots are free. */
	tail = smp_load_acquire(&sb->tail);
	if (head - tail >= PT_SB_RECORDS) {
		WRITE_ONCE(sb->lost, sb->lost + 1);
		return;
	}
	r = &sb->rec[head % PT_SB_RECORDS];
	r->tsc = tsc;
	r->cpu = smp_processor_id();
	r->flags = pt_sb_task_flags(prev, LWPT_PT_SW_PREV_IDLE,
				    LWPT_PT_SW_PREV_KTHREAD) |
		   pt_sb_task_flags(next, LWPT_PT_SW_NEXT_IDLE,
				    LWPT_PT_SW_NEXT_KTHREAD) |
		   (preempt ? LWPT_PT_SW_PREEMPT : 0);
	r->prev_pid = ids[0];
	r->prev_tid = ids[1];
	r->next_pid = ids[2];
	r->next_tid = ids[3];
	/* The record before the head: pairs with the acquire in READ_SIDEBAND. */
	smp_store_release(&sb->head, head + 1);
}

/* The sideband's sched_switch probe: records while a per-CPU capture runs. */
static void pt_probe_sched_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next,
				  unsigned int prev_state)
{
	if (READ_ONCE(pt_switch_active))
		pt_sb_switch(preempt, prev, next);
}

/**
 * pt_sched_switch_init - register the sched_switch probe (module load)
 *
 * Return: 0; -ENODEV the kernel has no sched_switch tracepoint; the error
 * of tracepoint_probe_register().
 */
int pt_sched_switch_init(void)
{
	pt_tp_sched_switch = lwpt_tracepoint_find("sched_switch");
	if (!pt_tp_sched_switch)
		return -ENODEV;
	return tracepoint_probe_register(pt_tp_sched_switch,
					 pt_probe_sched_switch, NULL);
}

/**
 * pt_sched_switch_exit - unregister the probe (module unload) and wait
 */
void pt_sched_switch_exit(void)
{
	tracepoint_probe_unregister(pt_tp_sched_switch, pt_probe_sched_switch,
				    NULL);
	tracepoint_synchronize_unregister();
}

/**
 * pt_sched_switch_get - the sched_switch probe works for a capture
 *
 * pt_lock held.
 *
 * Return: 0.
 */
int pt_sched_switch_get(void)
{
	if (!pt_switch_users++)
		WRITE_ONCE(pt_switch_active, true);
	return 0;
}

/**
 * pt_sched_switch_put - the probe idles again (last user); wait for it
 *
 * pt_lock held. May sleep. No probe works for the capture after it
 * returns: probes run with preemption disabled, which synchronize_rcu()
 * waits out.
 */
void pt_sched_switch_put(void)
{
	if (WARN_ON_ONCE(!pt_switch_users) || --pt_switch_users)
		return;
	WRITE_ONCE(pt_switch_active, false);
	synchronize_rcu();
}

/* --- The rings ------------------------------------------------------------ */

/**
 * pt_sb_alloc - a CPU's sideband ring
 * @pc: the CPU's state (its buffer being configured)
 * @node: its NUMA node
 *
 * Return: 0 or -ENOMEM.
 */
int pt_sb_alloc(struct pt_cpu *pc, int node)
{
	pc->sb.rec = kvzalloc_node(PT_SB_RECORDS * sizeof(*pc->sb.rec),
				   GFP_KERNEL, node);
	return pc->sb.rec ? 0 : -ENOMEM;
}

/**
 * pt_sb_free - free a CPU's ring (the probe is unregistered)
 * @pc: the CPU's state
 */
void pt_sb_free(struct pt_cpu *pc)
{
	kvfree(pc->sb.rec);
	memset(&pc->sb, 0, sizeof(pc->sb));
}

/**
 * pt_sb_start - START on this CPU (in its IPI, interrupts off)
 * @pc: the CPU's state
 *
 * Empties the ring and records from now on. The probe cannot run here
 * meanwhile (interrupts off) and the reader holds pt_lock, as START does.
 */
void pt_sb_start(struct pt_cpu *pc)
{
	pc->sb.head = 0;
	pc->sb.tail = 0;
	pc->sb.lost = 0;
	lwpt_switch_ids_start(&pc->sb.ids, READ_ONCE(pt_sb_ns));
	WRITE_ONCE(pc->sb.on, !!pc->sb.rec);
}

/**
 * pt_sb_sess_init - per-CPU capture: the probe and the pid namespace
 * @s: the per-CPU session (there is at most one, pt_core.c)
 *
 * pt_lock held, the rings allocated. Pids are given in the configuring
 * process's pid namespace, as STATUS gives tids.
 *
 * Return: 0, or the error of pt_sched_switch_get().
 */
int pt_sb_sess_init(struct pt_session *s)
{
	int err;

	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	WRITE_ONCE(pt_sb_ns, s->pid_ns);
	err = pt_sched_switch_get();
	if (err) {
		WRITE_ONCE(pt_sb_ns, NULL);
		put_pid_ns(s->pid_ns);
		s->pid_ns = NULL;
		return err;
	}
	pt_sb_probe_on = true;
	return 0;
}

/**
 * pt_sb_sess_free - undo pt_sb_sess_init(); the rings may be freed after
 * @s: the per-CPU session
 *
 * pt_lock held.
 */
void pt_sb_sess_free(struct pt_session *s)
{
	if (pt_sb_probe_on)
		pt_sched_switch_put();	/* waits for running probes */
	pt_sb_probe_on = false;
	if (s->pid_ns) {
		WRITE_ONCE(pt_sb_ns, NULL);
		put_pid_ns(s->pid_ns);
	}
	s->pid_ns = NULL;
}

/* --- LWPT_PT_IOC_READ_SIDEBAND --------------------------------------------- */

/* Take up to @max records out of @sb into @dst; pt_lock held. */
static u32 pt_sb_take(struct pt_sb *sb, struct lwpt_pt_switch *dst, u32 max,
		      u64 *pending)
{
	/* Pairs with the release of the head in the probe: records complete. */
	u64 head = smp_load_acquire(&sb->head), tail = sb->tail;
	u32 n = min_t(u64, head - tail, max), i;

	for (i = 0; i < n; i++)
		dst[i] = sb->rec[(tail + i) % PT_SB_RECORDS];
	/* The copies before the slots are free: pairs with the probe's acquire. */
	smp_store_release(&sb->tail, tail + n);
	*pending = head - tail - n;
	return n;
}

/**
 * pt_ioctl_read_sideband - LWPT_PT_IOC_READ_SIDEBAND: a CPU's switches
 * @file: the file of a per-CPU capture (its session)
 * @arg: struct lwpt_pt_sideband in user space (size-versioned)
 *
 * Takes the oldest records of the CPU's ring (at most @capacity, at most
 * one ring) into a kernel copy under pt_lock, then copies them out without
 * it (a fault there must not happen under pt_lock, which mmap takes with
 * mmap_lock held). Records taken are gone even if that copy faults.
 *
 * Return: 0; -EFAULT; -EINVAL bad size, CPU without a buffer, bad
 * record_size, non-zero out fields; -E2BIG; -ENODATA this file
 * configured no capture; -EOPNOTSUPP per-thread capture; -ENOMEM.
 */
long pt_ioctl_read_sideband(struct file *file, void __user *arg)
{
	struct pt_session *sess = file->private_data;
	struct lwpt_pt_switch *buf = NULL;
	struct lwpt_pt_sideband sbr;
	const u32 ksize = sizeof(*buf);
	u32 usize, max, n = 0, fill, i;
	u64 pending = 0, lost = 0;
	char __user *dst;
	struct pt_sb *sb;
	int err;

	err = pt_copy_in(&sbr, sizeof(sbr), LWPT_PT_SIDEBAND_SIZE_VER0, arg,
			 &usize);
	if (err)
		return err;
	if (sbr.copied || sbr.pending || sbr.lost ||
	    sbr.record_size < LWPT_PT_SWITCH_SIZE_VER0 ||
	    sbr.record_size > PAGE_SIZE)
		return -EINVAL;
	max = min_t(u32, sbr.capacity, PT_SB_RECORDS);
	if (max) {
		buf = kvmalloc_array(max, ksize, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
	}
	mutex_lock(&pt_lock);
	if (!sess->configured) {
		err = -ENODATA;
		goto out_unlock;
	}
	if (sess->cfg.scope != LWPT_PT_SCOPE_CPU) {
		err = -EOPNOTSUPP;
		goto out_unlock;
	}
	if (sbr.cpu >= nr_cpu_ids) {
		err = -EINVAL;
		goto out_unlock;
	}
	sb = &per_cpu_ptr(&pt_cpus, sbr.cpu)->sb;
	if (!sb->rec) {
		err = -EINVAL;
		goto out_unlock;
	}
	n = pt_sb_take(sb, buf, max, &pending);
	lost = READ_ONCE(sb->lost);
out_unlock:
	mutex_unlock(&pt_lock);
	if (err)
		goto out_free;

	fill = min(ksize, sbr.record_size);
	dst = u64_to_user_ptr(sbr.records);
	for (i = 0; i < n; i++, dst += sbr.record_size) {
		if (copy_to_user(dst, &buf[i], fill) ||
		    (sbr.record_size > fill &&
		     clear_user(dst + fill, sbr.record_size - fill))) {
			err = -EFAULT;
			goto out_free;
		}
	}
	sbr.record_size = fill;
	sbr.copied = n;
	sbr.pending = min_t(u64, pending, U32_MAX);
	sbr.lost = lost;
	err = pt_copy_out(arg, &sbr, sizeof(sbr), usize);
out_free:
	kvfree(buf);
	return err;
}
