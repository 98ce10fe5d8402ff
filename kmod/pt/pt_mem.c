// SPDX-License-Identifier: GPL-2.0
/*
 * What trace buffers cost their user (Documentation/pt.rst, "Memory"):
 * pinned pages, charged before they are allocated.
 *
 * Like perf's buffers (perf_mmap(): sysctl_perf_event_mlock, RLIMIT_MEMLOCK)
 * each user has a free allowance, the module parameter pt_mlock_kb times the
 * online CPUs (perf_event_mlock_kb's default and scaling); pages beyond it
 * are charged to the user's locked_vm against the RLIMIT_MEMLOCK the caller
 * had at CONFIGURE, and shown in the caller's mm as pinned (VmPin), as
 * io_uring charges its fixed buffers (__io_account_mem(), io_account_mem()).
 * CAP_IPC_LOCK, or pt_paranoid -1 (perf_is_paranoid()), lifts the limit,
 * not the charge. The allowance in use is counted per user here (perf keeps
 * its own in user_struct.perf_mlock, which lwpt leaves to perf). Pages are
 * also charged to the caller's memory cgroup (__GFP_ACCOUNT in pt_buf.c,
 * and pt_mem_enter() for allocations a work item makes for it).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "pt_int.h"

/*
 * Free allowance per user, KiB per online CPU (module parameter,
 * pt_params.c): perf_event_mlock_kb's default, 512 KiB + one page.
 */
unsigned int pt_mlock_kb = 512 + (PAGE_SIZE / 1024);

/**
 * struct pt_mem_user - one user's use of the allowance
 * @node: in pt_mem_users
 * @uid: the user
 * @pages: pages of the allowance in use
 * @refs: captures charging this user
 */
struct pt_mem_user {
	struct list_head node;
	kuid_t uid;
	unsigned long pages;
	unsigned int refs;
};

static DEFINE_SPINLOCK(pt_mem_lock);
static LIST_HEAD(pt_mem_users);

/**
 * pt_mem_buf_pages - the pages a buffer may pin at most
 * @size: buffer bytes (a multiple of PAGE_SIZE)
 * @single: single-range output (no ToPA table)
 *
 * Return: its pages plus one ToPA table per PT_TOPA_REGIONS_PER_TABLE
 * regions of one page each (the worst case).
 */
unsigned long pt_mem_buf_pages(u64 size, bool single)
{
	unsigned long pages = size >> PAGE_SHIFT;

	return pages + (single ? 0 : DIV_ROUND_UP(pages, PT_TOPA_REGIONS_PER_TABLE));
}

/**
 * pt_mem_init - start charging the calling process
 * @m: the capture's account, zeroed
 *
 * Takes references on the caller's user, mm (for VmPin) and memory cgroup,
 * and reads its RLIMIT_MEMLOCK. May sleep.
 *
 * Return: 0, or -ENOMEM.
 */
int pt_mem_init(struct pt_mem *m)
{
	struct pt_mem_user *u, *nu = kzalloc(sizeof(*nu), GFP_KERNEL_ACCOUNT);

	if (!nu)
		return -ENOMEM;
	m->user = get_current_user();
	m->uid = current_uid();
	if (current->mm) {
		m->mm = current->mm;
		mmgrab(m->mm);
		m->memcg = get_mem_cgroup_from_mm(m->mm);
	}
	m->limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	if (capable(CAP_IPC_LOCK) || READ_ONCE(pt_paranoid) < 0)
		m->limit = ULONG_MAX;
	spin_lock(&pt_mem_lock);
	list_for_each_entry(u, &pt_mem_users, node)
		if (uid_eq(u->uid, m->uid))
			goto found;
	u = nu;
	nu = NULL;
	u->uid = m->uid;
	list_add(&u->node, &pt_mem_users);
found:
	u->refs++;
	m->mu = u;
	spin_unlock(&pt_mem_lock);
	kfree(nu);
	return 0;
}

/* The free allowance in pages: pt_mlock_kb per online CPU. */
static unsigned long pt_mem_allowance(void)
{
	unsigned long allow = (unsigned long)READ_ONCE(pt_mlock_kb) >> (PAGE_SHIFT - 10);

	return allow * num_online_cpus();
}

/**
 * pt_mem_avail - what the calling process may still pin, for GET_CAPS
 *
 * What is left of its user's free allowance plus RLIMIT_MEMLOCK less the
 * user's locked_vm: the sum pt_mem_charge() would accept now (tools size
 * their default buffers by it, as perf record sizes its default buffers by
 * perf_event_mlock_kb: perf_event_mlock_kb_in_pages() in tools/perf/util/
 * evlist.c). Any context that may take a spinlock.
 *
 * Return: bytes (whole pages); LWPT_PT_MLOCK_UNLIMITED when no limit
 * applies (CAP_IPC_LOCK, pt_paranoid -1, RLIMIT_MEMLOCK infinity).
 */
u64 pt_mem_avail(void)
{
	unsigned long allow = pt_mem_allowance(), used = 0, rlim, locked;
	struct pt_mem_user *u;
	kuid_t uid = current_uid();

	/* A question, not a use of the capability: no audit record. */
	rlim = rlimit(RLIMIT_MEMLOCK);
	if (rlim == RLIM_INFINITY || READ_ONCE(pt_paranoid) < 0 ||
	    ns_capable_noaudit(&init_user_ns, CAP_IPC_LOCK))
		return LWPT_PT_MLOCK_UNLIMITED;
	rlim >>= PAGE_SHIFT;
	spin_lock(&pt_mem_lock);
	list_for_each_entry(u, &pt_mem_users, node)
		if (uid_eq(u->uid, uid)) {
			used = u->pages;
			break;
		}
	spin_unlock(&pt_mem_lock);
	/* current's credentials cannot change under it: no reference. */
	locked = atomic_long_read(&current_user()->locked_vm);
	return ((u64)(allow > used ? allow - used : 0) +
		(rlim > locked ? rlim - locked : 0)) << PAGE_SHIFT;
}

/**
 * pt_mem_charge - charge @pages pinned pages before allocating them
 * @m: the capture's account (pt_mem_init())
 * @pages: pages (pt_mem_buf_pages() per buffer)
 *
 * The free allowance first, then the user's locked_vm up to the limit
 * saved at pt_mem_init(). Any context that may take a spinlock.
 *
 * Return: 0, or -ENOMEM (nothing charged): over the allowance and
 * RLIMIT_MEMLOCK.
 */
int pt_mem_charge(struct pt_mem *m, unsigned long pages)
{
	unsigned long allow, free, extra, cur;
	int err = 0;

	if (!m->mu)
		return -ENOMEM;
	allow = pt_mem_allowance();
	spin_lock(&pt_mem_lock);
	free = allow > m->mu->pages ? min(pages, allow - m->mu->pages) : 0;
	extra = pages - free;
	cur = atomic_long_read(&m->user->locked_vm);
	do {
		if (extra && m->limit != ULONG_MAX && cur + extra > m->limit) {
			err = -ENOMEM;
			goto out;
		}
	} while (!atomic_long_try_cmpxchg(&m->user->locked_vm, &cur, cur + extra));
	if (m->mm)
		atomic64_add(extra, &m->mm->pinned_vm);
	m->mu->pages += free;
	m->free += free;
	m->locked += extra;
out:
	spin_unlock(&pt_mem_lock);
	return err;
}

/**
 * pt_mem_uncharge - give back pages charged by pt_mem_charge()
 * @m: the account
 * @pages: pages, at most what is charged
 *
 * locked_vm (and VmPin) first, then the allowance.
 */
void pt_mem_uncharge(struct pt_mem *m, unsigned long pages)
{
	unsigned long locked, free;

	if (!m->mu)
		return;
	spin_lock(&pt_mem_lock);
	locked = min(pages, m->locked);
	free = min(pages - locked, m->free);
	atomic_long_sub(locked, &m->user->locked_vm);
	if (m->mm)
		atomic64_sub(locked, &m->mm->pinned_vm);
	m->locked -= locked;
	m->free -= free;
	m->mu->pages -= free;
	spin_unlock(&pt_mem_lock);
}

/**
 * pt_mem_free - give back everything and drop the references
 * @m: the account (may be zeroed: no-op); zeroed after
 *
 * Called once the buffers are freed and unmapped (the file is closed or
 * configured again).
 */
void pt_mem_free(struct pt_mem *m)
{
	struct pt_mem_user *u = m->mu;

	if (!u)
		return;
	pt_mem_uncharge(m, m->locked + m->free);
	spin_lock(&pt_mem_lock);
	if (--u->refs)
		u = NULL;
	else
		list_del(&u->node);
	spin_unlock(&pt_mem_lock);
	kfree(u);
	if (m->memcg)
		mem_cgroup_put(m->memcg);
	if (m->mm)
		mmdrop(m->mm);
	free_uid(m->user);
	memset(m, 0, sizeof(*m));
}

/**
 * pt_mem_enter - charge the allocations that follow to @m's memory cgroup
 * @m: the account
 *
 * For a work item allocating for the capture. Pair with pt_mem_exit().
 *
 * Return: the previous active memcg, for pt_mem_exit().
 */
struct mem_cgroup *pt_mem_enter(struct pt_mem *m)
{
	return set_active_memcg(m->memcg);
}

/**
 * pt_mem_exit - end pt_mem_enter()
 * @old: its return value
 */
void pt_mem_exit(struct mem_cgroup *old)
{
	set_active_memcg(old);
}
