// SPDX-License-Identifier: GPL-2.0
/*
 * Which branch tracer records a thread (branch_owner.h): PT and BTS of one
 * thread are exclusive (issue 37; include/uapi/lwpt/bts.h). A table of
 * claims keyed by the task, and counts of each tracer's thread claims and
 * per-CPU captures, under one raw spinlock (PT claims under its own raw
 * spinlock, at fork).
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/hashtable.h>
#include <linux/spinlock.h>

#include "branch_owner.h"

static DEFINE_HASHTABLE(branch_claims, 7);
static DEFINE_RAW_SPINLOCK(branch_lock);	/* the table and the counts */
/* Per-CPU captures of each tracer (enum lwpt_branch_tracer). */
static unsigned int branch_cpu_claims[LWPT_BRANCH_NR];
/* Threads each tracer claims. */
static unsigned int branch_task_claims[LWPT_BRANCH_NR];

/* The other tracer: two exist. */
static enum lwpt_branch_tracer branch_other(enum lwpt_branch_tracer t)
{
	return t == LWPT_BRANCH_PT ? LWPT_BRANCH_BTS : LWPT_BRANCH_PT;
}

int lwpt_branch_claim_task(struct lwpt_branch_claim *c, struct task_struct *task,
			   enum lwpt_branch_tracer tracer)
{
	struct lwpt_branch_claim *o;
	unsigned long flags;
	int err = 0;

	if (WARN_ON_ONCE((unsigned int)tracer >= LWPT_BRANCH_NR))
		return -EINVAL;
	raw_spin_lock_irqsave(&branch_lock, flags);
	if (branch_cpu_claims[branch_other(tracer)]) {
		err = -EBUSY;
		goto out;
	}
	hash_for_each_possible(branch_claims, o, node, (unsigned long)task)
		if (o->task == task && o->tracer != tracer) {
			err = -EBUSY;
			goto out;
		}
	c->task = task;
	c->tracer = tracer;
	hash_add(branch_claims, &c->node, (unsigned long)task);
	branch_task_claims[tracer]++;
out:
	raw_spin_unlock_irqrestore(&branch_lock, flags);
	return err;
}

void lwpt_branch_release_task(struct lwpt_branch_claim *c)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&branch_lock, flags);
	if (c->task) {
		hash_del(&c->node);
		branch_task_claims[c->tracer]--;
		c->task = NULL;
	}
	raw_spin_unlock_irqrestore(&branch_lock, flags);
}

int lwpt_branch_claim_cpus(enum lwpt_branch_tracer tracer)
{
	enum lwpt_branch_tracer o;
	unsigned long flags;
	int err = 0;

	if (WARN_ON_ONCE((unsigned int)tracer >= LWPT_BRANCH_NR))
		return -EINVAL;
	o = branch_other(tracer);
	raw_spin_lock_irqsave(&branch_lock, flags);
	if (branch_task_claims[o] || branch_cpu_claims[o])
		err = -EBUSY;
	else
		branch_cpu_claims[tracer]++;
	raw_spin_unlock_irqrestore(&branch_lock, flags);
	return err;
}

void lwpt_branch_release_cpus(enum lwpt_branch_tracer tracer)
{
	unsigned long flags;

	if (WARN_ON_ONCE((unsigned int)tracer >= LWPT_BRANCH_NR))
		return;
	raw_spin_lock_irqsave(&branch_lock, flags);
	if (!WARN_ON_ONCE(!branch_cpu_claims[tracer]))
		branch_cpu_claims[tracer]--;
	raw_spin_unlock_irqrestore(&branch_lock, flags);
}
