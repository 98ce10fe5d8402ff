// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU BTS captures (ABI 1.7; Documentation/bts.rst, "Per-CPU
 * captures"): every thread's branches on one CPU into one linear buffer,
 * with the CPU's context switches as sideband so that a reader can cut the
 * records per thread, as /dev/pt's per-CPU captures (pt_sideband.c).
 *
 * The capture's state is loaded on its CPU once, by an IPI, and stays
 * loaded across context switches: the DS area and IA32_DEBUGCTL are the
 * CPU's (SDM 17.4.9.1: a DS save area per logical processor). A
 * sched_switch probe on that CPU, with the runqueue locked and interrupts
 * off, reads the BTS index (the head) and appends a switch record: the
 * records before that head are the outgoing thread's, those after the
 * incoming one's. BTS records carry no time, so the head is the sideband's
 * clock within the CPU; the TSC read with it (lwpt_hw_rdtsc(), as PT's
 * sideband) orders the switches of different CPUs, given to the caller
 * with LWPT_BTS_CFG_SWITCH_TSC (ABI 1.10). With user branches only
 * (BTS_OFF_OS) the cut is exact; with kernel branches the switch code of
 * the probe's side lands before the cut (the outgoing thread's), the rest
 * after it.
 *
 * A CPU going offline (cpuhp teardown, on that CPU) unloads the state for
 * good: recording ends there (LWPT_BTS_ST_EXITED), as perf's per-CPU
 * events end at an offline. So does perf taking IA32_DS_AREA after
 * CONFIGURE_CPU: the probe finds it at the CPU's next switch
 * (bts_ds_sync(); LWPT_BTS_ST_DS_TAKEN), records that last switch, and
 * leaves perf's pointer in place.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include <uapi/lwpt/bts.h>

#include "../hw.h"
#include "../switch_ids.h"
#include "bts_int.h"

/* Records of the switch ring of one capture (128 KiB). */
#define BTS_SB_RECORDS	4096

/**
 * struct bts_sideband - the context switches of a per-CPU capture
 * @head: records appended (the probe, on the capture's CPU)
 * @tail: records taken by READ_SWITCHES
 * @lost: switches dropped because the ring was full
 * @ns: the pid namespace of the process that configured the capture
 * @ids: the running task's ids (kmod/switch_ids.h: an exiting task reaped
 *	on another CPU before its last switch keeps its ids)
 * @rec: BTS_SB_RECORDS records, each with its TSC (READ_SWITCHES copies
 *	the TSC with LWPT_BTS_CFG_SWITCH_TSC only)
 */
struct bts_sideband {
	u64 head;
	u64 tail;
	u64 lost;
	struct pid_namespace *ns;
	struct lwpt_switch_ids ids;
	struct lwpt_bts_switch_tsc rec[BTS_SB_RECORDS];
};

/*
 * The capture of each CPU, or NULL. Set and cleared under bts_cpu_lock;
 * the switch probe reads it with preemption off (an RCU reader): cleared,
 * synchronize_rcu() waits for the probes that may still use it.
 */
static DEFINE_PER_CPU(struct bts_session *, bts_cpu_session);
static DEFINE_MUTEX(bts_cpu_lock);	/* attach, detach, hotplug */
static struct tracepoint *bts_cpu_tp_switch;
static int bts_cpu_hp_state = -1;

/* LWPT_BTS_SW_* of one side of a switch. */
static u32 bts_cpu_task_flags(struct task_struct *p, u32 idle, u32 kthread)
{
	if (is_idle_task(p))
		return idle;
	return (p->flags & PF_KTHREAD) ? kthread : 0;
}

/* sched_switch on any CPU: the capture of this one, if any, gets a record. */
static void bts_cpu_switch(void *data, bool preempt, struct task_struct *prev,
			   struct task_struct *next, unsigned int prev_state)
{
	struct bts_session *s;
	struct bts_sideband *sb;
	struct lwpt_bts_switch_tsc *r;
	u64 head, tail;
	s32 ids[4];

	s = READ_ONCE(*this_cpu_ptr(&bts_cpu_session));
	if (!s || READ_ONCE(s->loaded_cpu) != smp_processor_id())
		return;
	sb = s->sb;
	lwpt_switch_ids_switch(&sb->ids, sb->ns, prev, next, ids);
	/* The head; the last one if perf took IA32_DS_AREA (unloaded). */
	bts_ds_sync(s);
	head = sb->head;
	/* Pairs with the release of the tail in READ_SWITCHES. */
	tail = smp_load_acquire(&sb->tail);
	if (head - tail >= BTS_SB_RECORDS) {
		WRITE_ONCE(sb->lost, sb->lost + 1);
		return;
	}
	r = &sb->rec[head % BTS_SB_RECORDS];
	/* The time where the head is taken (bts_ds_sync() read it). */
	r->tsc = lwpt_hw_rdtsc();
	r->sw.head = s->head;
	r->sw.cpu = smp_processor_id();
	r->sw.flags = bts_cpu_task_flags(prev, LWPT_BTS_SW_PREV_IDLE,
					 LWPT_BTS_SW_PREV_KTHREAD) |
		      bts_cpu_task_flags(next, LWPT_BTS_SW_NEXT_IDLE,
					 LWPT_BTS_SW_NEXT_KTHREAD) |
		      (preempt ? LWPT_BTS_SW_PREEMPT : 0);
	r->sw.prev_pid = ids[0];
	r->sw.prev_tid = ids[1];
	r->sw.next_pid = ids[2];
	r->sw.next_tid = ids[3];
	/* The record before the head: pairs with the acquire in READ_SWITCHES. */
	smp_store_release(&sb->head, head + 1);
}

static void bts_cpu_ipi_load(void *arg)
{
	struct bts_session *s = arg;

	/* The task running here now, before the probe records a switch. */
	lwpt_switch_ids_start(&s->sb->ids, s->sb->ns);
	bts_ds_load(s);
}

static void bts_cpu_ipi_unload(void *arg)
{
	bts_ds_unload(arg);
}

int bts_cpu_attach(struct bts_session *s)
{
	struct bts_sideband *sb;
	int err;

	sb = kvzalloc(sizeof(*sb), GFP_KERNEL);
	if (!sb)
		return -ENOMEM;
	sb->ns = get_pid_ns(task_active_pid_ns(current));
	s->sb = sb;
	/* The hotplug lock first: the teardown runs under it, then ours. */
	cpus_read_lock();
	mutex_lock(&bts_cpu_lock);
	err = -ENODEV;
	if (!cpu_online(s->cpu))
		goto out_unlock;
	/* Every thread may run there: none may be PT's (branch_owner.h). */
	err = lwpt_branch_claim_cpus(LWPT_BRANCH_BTS);
	if (err)
		goto out_unlock;
	err = bts_ds_claim(s);
	if (err) {
		lwpt_branch_release_cpus(LWPT_BRANCH_BTS);
		goto out_unlock;
	}
	s->loaded_cpu = -1;
	WRITE_ONCE(s->attached, true);
	/* Its fields before the pointer: pairs with the probe's dependency. */
	smp_store_release(per_cpu_ptr(&bts_cpu_session, s->cpu), s);
	smp_call_function_single(s->cpu, bts_cpu_ipi_load, s, 1);
out_unlock:
	mutex_unlock(&bts_cpu_lock);
	cpus_read_unlock();
	return err;
}

void bts_cpu_detach(struct bts_session *s)
{
	int cpu;

	cpus_read_lock();
	mutex_lock(&bts_cpu_lock);
	if (!s->attached) {
		mutex_unlock(&bts_cpu_lock);
		cpus_read_unlock();
		return;
	}
	WRITE_ONCE(*per_cpu_ptr(&bts_cpu_session, s->cpu), NULL);
	WRITE_ONCE(s->attached, false);
	/* The switch probe (RCU-sched readers) is done with it. */
	synchronize_rcu();
	cpu = READ_ONCE(s->loaded_cpu);
	if (cpu >= 0)
		smp_call_function_single(cpu, bts_cpu_ipi_unload, s, 1);
	irq_work_sync(&s->iw);
	bts_ds_unclaim(s);
	lwpt_branch_release_cpus(LWPT_BRANCH_BTS);
	mutex_unlock(&bts_cpu_lock);
	cpus_read_unlock();
	wake_up_all(&s->wq);
}

void bts_cpu_free(struct bts_session *s)
{
	if (!s->sb)
		return;
	put_pid_ns(s->sb->ns);
	kvfree(s->sb);
	s->sb = NULL;
}

long bts_cpu_read_switches(struct bts_session *s, void __user *arg)
{
	struct lwpt_bts_switches a;
	struct bts_sideband *sb = s->sb;
	u8 __user *out;
	size_t rsize;
	u64 head, tail;
	u32 n = 0;
	int err = 0;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.size < LWPT_BTS_SWITCHES_SIZE_VER0 || a.copied || a.pending || a.lost)
		return -EINVAL;
	out = u64_to_user_ptr(a.records);
	/* The TSC after the 32-byte record with LWPT_BTS_CFG_SWITCH_TSC only. */
	rsize = s->switch_tsc ? sizeof(struct lwpt_bts_switch_tsc) :
				sizeof(struct lwpt_bts_switch);
	/* Pairs with the release in the probe: the records are written. */
	head = smp_load_acquire(&sb->head);
	tail = sb->tail;
	while (tail + n < head && n < a.capacity) {
		if (copy_to_user(out + (size_t)n * rsize,
				 &sb->rec[(tail + n) % BTS_SB_RECORDS], rsize)) {
			err = -EFAULT;
			n++;	/* taken: lost to the caller */
			break;
		}
		n++;
	}
	/* The slots are free for the probe again. */
	smp_store_release(&sb->tail, tail + n);
	if (err)
		return err;
	a.copied = n;
	a.pending = head - tail - n;
	a.lost = READ_ONCE(sb->lost);
	if (copy_to_user(arg, &a, sizeof(a)))
		return -EFAULT;
	return 0;
}

/* cpuhp teardown, on the CPU going offline: its capture ends here. */
static int bts_cpu_offline(unsigned int cpu)
{
	struct bts_session *s;
	unsigned long flags;

	mutex_lock(&bts_cpu_lock);
	s = READ_ONCE(*per_cpu_ptr(&bts_cpu_session, cpu));
	if (s) {
		local_irq_save(flags);
		bts_ds_unload(s);
		s->exited = true;	/* never loaded again */
		local_irq_restore(flags);
		wake_up_all(&s->wq);
	}
	mutex_unlock(&bts_cpu_lock);
	return 0;
}

int bts_cpu_init(void)
{
	int err;

	bts_cpu_tp_switch = lwpt_tracepoint_find("sched_switch");
	if (!bts_cpu_tp_switch)
		return -ENODEV;
	err = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "lwpt/bts:online",
					NULL, bts_cpu_offline);
	if (err < 0)
		return err;
	bts_cpu_hp_state = err;
	err = tracepoint_probe_register(bts_cpu_tp_switch, bts_cpu_switch, NULL);
	if (err) {
		cpuhp_remove_state_nocalls(bts_cpu_hp_state);
		bts_cpu_hp_state = -1;
	}
	return err;
}

void bts_cpu_exit(void)
{
	tracepoint_probe_unregister(bts_cpu_tp_switch, bts_cpu_switch, NULL);
	tracepoint_synchronize_unregister();
	if (bts_cpu_hp_state >= 0)
		cpuhp_remove_state_nocalls(bts_cpu_hp_state);
	bts_cpu_hp_state = -1;
}
