/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who may trace what: the rules /dev/pt and /dev/bts share (perf's rules,
 * Documentation/pt.rst "Permissions" and "Memory"), shared by lwpt.ko and
 * lwpt_sim.ko (perm.c).
 */
#ifndef LWPT_KMOD_PERM_H
#define LWPT_KMOD_PERM_H

#include <linux/types.h>

struct cred;
struct mm_struct;
struct task_struct;

/*
 * The policy knobs, module parameters of both modules (pt/pt_params*.c),
 * for every device: pt_paranoid has the meaning of perf's
 * kernel.perf_event_paranoid (above 2: no unprivileged capture; -1: no
 * RLIMIT_MEMLOCK limit); pt_mlock_kb is the free allowance of locked
 * memory per online CPU (perf_event_mlock_kb).
 */
extern int pt_paranoid;
extern unsigned int pt_mlock_kb;

/**
 * lwpt_cred_same - __ptrace_may_access()'s credential test
 * @cred: the caller's credentials
 * @tcred: the target's
 *
 * Return: @cred's real UID and GID equal @tcred's real, effective and
 * saved ones.
 */
bool lwpt_cred_same(const struct cred *cred, const struct cred *tcred);

/**
 * lwpt_caps_cover - commoncap's capability test of a REALCREDS access
 * @cred: the caller's credentials
 * @tcred: the target's
 *
 * Return: same user namespace and @tcred's permitted capabilities a
 * subset of @cred's (cap_ptrace_access_check()).
 */
bool lwpt_caps_cover(const struct cred *cred, const struct cred *tcred);

/**
 * lwpt_may_trace - the ptrace read rule of perf_event_open()
 * @task: the target thread
 * @mm: its mm (a reference the caller holds)
 *
 * PTRACE_MODE_READ_REALCREDS as __ptrace_may_access() applies it, with
 * commoncap's capability test (perm.c): same thread group; or the
 * caller's real UID and GID equal the target's real, effective and saved
 * ones, its permitted capabilities include the target's, and the target
 * is dumpable; CAP_SYS_PTRACE over the target's user namespace stands in
 * for the first two, over its mm's for the third. Other LSMs' ptrace
 * hooks are not consulted (not exported to modules in 6.1). Process
 * context.
 *
 * Return: true if the caller may trace @task.
 */
bool lwpt_may_trace(struct task_struct *task, struct mm_struct *mm);

#endif /* LWPT_KMOD_PERM_H */
