// SPDX-License-Identifier: GPL-2.0
/*
 * Who may trace what (perm.h): the ptrace read rule of perf_event_open()
 * that /dev/pt and /dev/bts both apply, moved here from pt/pt_config.c so
 * that the BTS subsystem uses the same code, not PT's internals.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/user_namespace.h>

#include "perm.h"

/*
 * __ptrace_may_access()'s credential test: @cred's real UID and GID (the
 * REALCREDS caller ids) equal @tcred's real, effective and saved ones.
 */
bool lwpt_cred_same(const struct cred *cred, const struct cred *tcred)
{
	return uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	       uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	       gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
}

/*
 * The capability test of cap_ptrace_access_check() (security/commoncap.c,
 * the commoncap LSM hook __ptrace_may_access() ends with) for a
 * PTRACE_MODE_REALCREDS access: both in the same user namespace and
 * @tcred's permitted capabilities a subset of @cred's permitted ones.
 * Where it fails, commoncap asks for CAP_SYS_PTRACE over @tcred's user
 * namespace instead (the callers).
 */
bool lwpt_caps_cover(const struct cred *cred, const struct cred *tcred)
{
	return cred->user_ns == tcred->user_ns &&
	       cap_issubset(tcred->cap_permitted, cred->cap_permitted);
}

/*
 * The ptrace read rule of PTRACE_MODE_READ_REALCREDS (__ptrace_may_access()
 * in kernel/ptrace.c), the one perf_event_open() applies to a target task
 * (perf_check_permission() calls ptrace_may_access()): same thread group;
 * or the caller's real UID and GID equal the target's real, effective and
 * saved ones, its permitted capabilities include the target's
 * (cap_ptrace_access_check(), lwpt_caps_cover()), and the target is dumpable;
 * CAP_SYS_PTRACE over the target's user namespace stands in for the first
 * two, over its mm's user namespace for the third. ptrace_may_access() and
 * security_ptrace_access_check() are not exported to modules in 6.1 (its
 * Module.symvers): the commoncap rule is applied here, the other LSMs'
 * ptrace hooks (Yama's ptrace_scope, SELinux, AppArmor) are not consulted
 * (Documentation/pt.rst). Process context. perm.h documents it.
 */
bool lwpt_may_trace(struct task_struct *task, struct mm_struct *mm)
{
	const struct cred *cred = current_cred(), *tcred;
	struct user_namespace *ns;
	bool same;

	if (same_thread_group(task, current))
		return true;
	rcu_read_lock();
	tcred = __task_cred(task);
	same = lwpt_cred_same(cred, tcred) && lwpt_caps_cover(cred, tcred);
	ns = get_user_ns(tcred->user_ns);
	rcu_read_unlock();
	if (!same && !ns_capable(ns, CAP_SYS_PTRACE)) {
		put_user_ns(ns);
		return false;
	}
	put_user_ns(ns);
	if (get_dumpable(mm) != SUID_DUMP_USER &&
	    !ns_capable(mm->user_ns, CAP_SYS_PTRACE))
		return false;
	return true;
}
