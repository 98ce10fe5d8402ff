/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ids a per-CPU capture's context-switch record gives (PT's sideband,
 * kmod/pt/pt_sideband.c; BTS's, kmod/bts/bts_cpu.c): the previous and the
 * next task's process and thread ids in the capture's pid namespace.
 *
 * A task that exits can be reaped by its parent on another CPU (its pids
 * detached, release_task()) before its last switch, in do_task_dead(), is
 * recorded on its own: task_pid_nr_ns() is 0 by then, and that last piece
 * of its trace would be filed under no thread. So each CPU keeps the ids
 * it recorded when the running task was switched in (or when recording
 * started, for the task running then), and a switch out of that task gives
 * those.
 */
#ifndef LWPT_KMOD_SWITCH_IDS_H
#define LWPT_KMOD_SWITCH_IDS_H

#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/types.h>

/**
 * struct lwpt_switch_ids - one CPU's running task and its ids
 * @cur: the task switched in last (or running at the start), or NULL
 * @pid: its process id in the capture's namespace
 * @tid: its thread id there
 */
struct lwpt_switch_ids {
	struct task_struct *cur;
	s32 pid;
	s32 tid;
};

/**
 * lwpt_switch_ids_start - the task running on this CPU now is @cur
 * @c:  the CPU's state (this CPU's, interrupts off)
 * @ns: the capture's pid namespace (NULL: every id 0)
 */
static inline void lwpt_switch_ids_start(struct lwpt_switch_ids *c,
					 struct pid_namespace *ns)
{
	c->cur = current;
	c->pid = ns ? task_tgid_nr_ns(current, ns) : 0;
	c->tid = ns ? task_pid_nr_ns(current, ns) : 0;
}

/**
 * lwpt_switch_ids_switch - the ids of a switch from @prev to @next
 * @c:    the CPU's state (its sched_switch probe, runqueue locked)
 * @ns:   the capture's pid namespace (NULL: every id 0)
 * @prev: the task switched out
 * @next: the task switched in
 * @ids:  receives prev's pid and tid, next's pid and tid
 *
 * Call it at every switch the probe sees, also one whose record is then
 * dropped (a full ring), so that @c follows the CPU.
 */
static inline void lwpt_switch_ids_switch(struct lwpt_switch_ids *c,
					  struct pid_namespace *ns,
					  struct task_struct *prev,
					  struct task_struct *next, s32 ids[4])
{
	if (prev == c->cur) {
		ids[0] = c->pid;
		ids[1] = c->tid;
	} else {
		ids[0] = ns ? task_tgid_nr_ns(prev, ns) : 0;
		ids[1] = ns ? task_pid_nr_ns(prev, ns) : 0;
	}
	ids[2] = ns ? task_tgid_nr_ns(next, ns) : 0;
	ids[3] = ns ? task_pid_nr_ns(next, ns) : 0;
	c->cur = next;
	c->pid = ids[2];
	c->tid = ids[3];
}

#endif /* LWPT_KMOD_SWITCH_IDS_H */
