/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which branch tracer records a thread: /dev/pt and /dev/bts never record
 * one thread at once (Documentation/bts.rst, "PT and BTS"). Both claim a
 * thread here before they record it and release it after; neither knows
 * the other's internals. Shared by lwpt.ko and lwpt_sim.ko
 * (branch_owner.c).
 */
#ifndef LWPT_KMOD_BRANCH_OWNER_H
#define LWPT_KMOD_BRANCH_OWNER_H

#include <linux/list.h>
#include <linux/types.h>

struct task_struct;

/* Who holds a claim. */
enum lwpt_branch_tracer {
	LWPT_BRANCH_PT,
	LWPT_BRANCH_BTS,
	LWPT_BRANCH_NR,
};

/**
 * struct lwpt_branch_claim - a tracer's claim of one thread
 * @node: in branch_owner.c's table while claimed
 * @task: the claimed thread, a key only (never dereferenced); NULL when
 *	not claimed
 * @tracer: who claims it
 *
 * Embedded in the claimant's per-thread state; zeroed before first use.
 */
struct lwpt_branch_claim {
	struct hlist_node node;
	struct task_struct *task;
	enum lwpt_branch_tracer tracer;
};

/**
 * lwpt_branch_claim_task - claim @task for @tracer
 * @c: an unused claim (@c->task NULL)
 * @task: the thread; the caller keeps its address from being reused until
 *	it releases @c (a task reference, or a release at the thread's
 *	sched_process_exit)
 * @tracer: the claimant
 *
 * Any context (a raw spinlock inside).
 *
 * Return: 0; -EBUSY another tracer claims @task, or a per-CPU capture of
 * the other tracer holds the CPUs (lwpt_branch_claim_cpus()); -EINVAL a
 * bad @tracer. A second claim by the same tracer is the caller's to
 * prevent (it is allowed).
 */
int lwpt_branch_claim_task(struct lwpt_branch_claim *c, struct task_struct *task,
			   enum lwpt_branch_tracer tracer);

/**
 * lwpt_branch_release_task - end a claim of lwpt_branch_claim_task()
 * @c: the claim; unused claims: no effect
 *
 * Any context.
 */
void lwpt_branch_release_task(struct lwpt_branch_claim *c);

/**
 * lwpt_branch_claim_cpus - a per-CPU capture of @tracer claims every
 *	thread that runs on the CPUs
 * @tracer: the claimant (PT's per-CPU scope, BTS's per-CPU captures)
 *
 * Whatever its CPU selection: a thread can migrate onto a selected CPU at
 * any time. Any context.
 *
 * Return: 0; -EBUSY a thread has a claim of the other tracer, or the other
 * tracer has a per-CPU capture; -EINVAL a bad @tracer.
 */
int lwpt_branch_claim_cpus(enum lwpt_branch_tracer tracer);

/**
 * lwpt_branch_release_cpus - end a claim of lwpt_branch_claim_cpus()
 * @tracer: the claimant
 */
void lwpt_branch_release_cpus(enum lwpt_branch_tracer tracer);

#endif /* LWPT_KMOD_BRANCH_OWNER_H */
