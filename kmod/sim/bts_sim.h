/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The branch-recording model (model/bts/) behind the model hardware layer:
 * one struct bts_model_cpu per CPU (lwpt_sim.ko only).
 */
#ifndef LWPT_KMOD_SIM_BTS_SIM_H
#define LWPT_KMOD_SIM_BTS_SIM_H

#include <linux/types.h>

struct dentry;
struct pt_trace_step;

/**
 * sim_bts_init - build the per-CPU branch-recording models
 * @dir: the lwpt_sim debugfs directory (may be an error pointer); the file
 *	bts_msrs there shows each CPU's IA32_DEBUGCTL, IA32_DS_AREA, TOS and
 *	the model's counters; writing "ds", "lbr" or "off" to bts_perf makes
 *	perf hold IA32_DS_AREA (its own DS area with a BTS buffer) or
 *	IA32_DEBUGCTL.LBR on every online CPU, or gives both back, at any
 *	time (by IPI, as perf); reading it shows, per CPU, what perf wrote to
 *	IA32_DS_AREA, the MSR now, whether perf's DS area is untouched and
 *	the records others' BTS stored in perf's buffer
 *
 * Does nothing with bts_profile=none. The kernel side of the transitions
 * the model records (a system call's target, the SYSRET back) is this
 * kernel's IA32_LSTAR (Documentation/bts.rst, "lwpt_sim.ko").
 *
 * Return: 0.
 */
int sim_bts_init(struct dentry *dir);

/**
 * sim_bts_exit - stop using the models (module exit)
 */
void sim_bts_exit(void);

/**
 * sim_bts_active - is the branch-recording model in use
 *
 * Return: false with bts_profile=none or outside sim_bts_init()..exit.
 */
bool sim_bts_active(void);

/**
 * sim_bts_rdmsr - RDMSR of a branch-recording MSR on the current CPU
 * @msr: MSR index (IA32_DEBUGCTL, IA32_DS_AREA, the LBR and LER MSRs,
 *	MSR_LBR_SELECT, IA32_MISC_ENABLE, IA32_PERF_CAPABILITIES,
 *	IA32_PERF_GLOBAL_*)
 * @val: out, the value
 *
 * Return: 0; -EIO where the processor raises #GP (violation counted);
 * -ENOENT if @msr is not the model's or the model is not active.
 */
int sim_bts_rdmsr(u32 msr, u64 *val);

/**
 * sim_bts_wrmsr - WRMSR of a branch-recording MSR on the current CPU
 * @msr: MSR index
 * @val: value
 *
 * Return: as sim_bts_rdmsr().
 */
int sim_bts_wrmsr(u32 msr, u64 val);

/**
 * sim_bts_pt_trace_en - IA32_RTIT_CTL.TraceEn of this CPU is now @on
 * @on: TraceEn after a WRMSR or XRSTORS
 *
 * SDM 33.3.1.2 on profiles where PT suspends LBR and BTS.
 */
void sim_bts_pt_trace_en(bool on);

/**
 * sim_bts_follow - does this CPU record branches (struct sim_unit.follow)
 * @cr3: unused (IA32_DEBUGCTL has no CR3 filter)
 *
 * Return: IA32_DEBUGCTL has TR and BTS, or LBR. Preemption off.
 */
bool sim_bts_follow(u64 cr3);

/**
 * sim_bts_step - one user-mode instruction retired on this CPU
 * @step: the instruction and the IP after it
 *
 * To bts_step() (model/bts/bts_step.h): the branches it took become BTS
 * records and LBR entries as IA32_DEBUGCTL says. Interrupts off.
 */
void sim_bts_step(const struct pt_trace_step *step);

/**
 * sim_bts_resume - the current thread, back from a system call, returns to
 *	user mode at @ip on this CPU
 * @ip:     where it resumes
 * @sysret: @ip is the instruction after the system call
 *
 * The follower gives a system call to sim_bts_step() at its entry, when
 * the return is not known yet (a signal handler, a restart, rt_sigreturn's
 * context, a new program), as the into-kernel branch alone; this is the
 * branch back (bts_step_resume()). Interrupts off.
 */
void sim_bts_resume(u64 ip, bool sysret);

#endif /* LWPT_KMOD_SIM_BTS_SIM_H */
