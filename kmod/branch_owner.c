// SPDX-License-Identifier: GPL-2.0
/*
 * Which branch tracer records a thread (branch_owner.h): PT and BTS of one
 * thread are exclusive (issue 37; include/uapi/lwpt/bts.h). A table of
 * claims keyed by the task, and a count of per-CPU PT captures, under one
 * raw spinlock (PT claims under its own raw spinlock, at fork).
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/hashtable.h>
#include <linux/spinlock.h>

#include "branch_owner.h"

static DEFINE_HASHTABLE(branch_claims, 7);
static DEFINE_RAW_SPINLOCK(branch_lock);	/* the table and the counts */
static unsigned int branch_cpu_claims;		/* per-CPU PT captures */
static unsigned int branch_bts_claims;		/* threads BTS claims */

int lwpt_branch_claim_task(struct lwpt_branch_claim *c, struct task_struct *task,
			   enum lwpt_branch_tracer tracer)
{
	struct lwpt_branch_claim *o;
	unsigned long flags;
	int err = 0;

	raw_spin_lock_irqsave(&branch_lock, flags);
	if (tracer == LWPT_BRANCH_BTS && branch_cpu_claims) {
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
	if (tracer == LWPT_BRANCH_BTS)
		branch_bts_claims++;
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
		if (c->tracer == LWPT_BRANCH_BTS)
			branch_bts_claims--;
		c->task = NULL;
	}
	raw_spin_unlock_irqrestore(&branch_lock, flags);
}

int lwpt_branch_claim_cpus(void)
{
	unsigned long flags;
	int err = 0;

	raw_spin_lock_irqsave(&branch_lock, flags);
	if (branch_bts_claims)
		err = -EBUSY;
	else
		branch_cpu_claims++;
	raw_spin_unlock_irqrestore(&branch_lock, flags);
	return err;
}

void lwpt_branch_release_cpus(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&branch_lock, flags);
	if (!WARN_ON_ONCE(!branch_cpu_claims))
		branch_cpu_claims--;
	raw_spin_unlock_irqrestore(&branch_lock, flags);
}
