/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The execution follower of lwpt_sim.ko (sim_step.c): single-steps the
 * user-mode execution of the threads the models watch and hands each
 * retired instruction to them.
 */
#ifndef LWPT_KMOD_SIM_STEP_H
#define LWPT_KMOD_SIM_STEP_H

#include <linux/types.h>

struct dentry;

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
