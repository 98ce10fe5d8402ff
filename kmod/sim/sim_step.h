/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The execution follower of lwpt_sim.ko (sim_step.c): single-steps the
 * user-mode execution of the threads the models watch and hands each
 * retired instruction to them.
 */
#ifndef LWPT_KMOD_SIM_STEP_H
#define LWPT_KMOD_SIM_STEP_H

#include <linux/types.h>

#include "model/x86/x86_cofi.h"

struct dentry;

/**
 * struct sim_step_insn - a user-mode instruction that retired
 * @ip: its address
 * @next_ip: the address of the instruction executed after it
 * @len: its length in bytes
 * @kind: its control-flow class (x86_cofi_decode())
 */
struct sim_step_insn {
	u64 ip;
	u64 next_ip;
	u8 len;
	enum x86_cofi_kind kind;
};

/**
 * lwp_emu_follow - does the current thread's LWP count events 2 or 3
 *
 * True if the thread has LWP (/dev/lwp) and its active LWPCB enables
 * instructions retired or branches retired (43724 §2.2, §2.3), as the last
 * emulated LWP instruction left it. Interrupts may be off.
 *
 * Return: whether the follower should single-step the thread for LWP.
 */
bool lwp_emu_follow(void);

/**
 * lwp_emu_retired - an instruction of the current thread retired (LWP)
 * @r: the instruction
 *
 * Counts event 2 and, for the branches of 43724 §2.3, event 3 on the
 * model with this CPU's LWP state, storing records in the thread's ring
 * (TKN from @r, FUS = 0, PRV = 0, TargetAddress = @r->next_ip; Figures 2-3,
 * 2-4). Process context of the thread (page faults allowed); a fault on the
 * ring is signalled as the hardware's #PF or #GP would be.
 */
void lwp_emu_retired(const struct sim_step_insn *r);

/**
 * sim_step_init - start following user-mode execution
 * @dir: the lwpt_sim debugfs directory (may be an error pointer); the file
 *	"step" there shows the follower's counters
 *
 * Registers a user return notifier on every online CPU (and on CPUs that
 * come online), a die notifier for the single-step #DB and probes on the
 * raw_syscalls:sys_enter and sched_process_exit tracepoints.
 *
 * Return: 0; -ENODEV if the kernel lacks one of the tracepoints; the error
 * of the notifier or CPU hotplug registration. Nothing stays registered on
 * error.
 */
int sim_step_init(struct dentry *dir);

/**
 * sim_step_exit - stop following and wait until no thread is stepped
 *
 * Stops setting RFLAGS.TF, waits (at most a few seconds, with a log line
 * naming what is left) until every followed thread has cleared it at its
 * next return to user mode, then unregisters everything.
 */
void sim_step_exit(void);

#endif /* LWPT_KMOD_SIM_STEP_H */
