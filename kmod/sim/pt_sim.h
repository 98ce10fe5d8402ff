/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PT model (model/pt/) behind the model hardware layer: one
 * struct pt_model_cpu per CPU, writing trace output into the physical
 * memory of the kernel's pages (lwpt_sim.ko only).
 */
#ifndef LWPT_KMOD_SIM_PT_SIM_H
#define LWPT_KMOD_SIM_PT_SIM_H

#include <linux/types.h>

struct dentry;

/**
 * sim_pt_init - build the per-CPU PT models and their debugfs files
 * @dir: the lwpt_sim debugfs directory (may be an error pointer)
 *
 * The model's profile is the one the simulated CPUID reports (leaf 14H,
 * 80000008H), so detection and the model agree; its model-specific rules
 * (PT/LBR exclusivity, erratum TGL052) apply only where the simulated CPU
 * is the Intel processor of the profile (sim_is_intel()). Does nothing if the PT
 * profile is "none". debugfs: pt_msrs (per CPU: the RTIT MSRs and the
 * model's counters), pt_inject (write "CPU BYTES": the CPU's processor
 * stores BYTES bytes of a test pattern through its output logic), pt_ovf
 * (write "CPU AFTER BYTES": after AFTER more bytes of packets, the CPU's
 * internal buffer refuses the next BYTES bytes offered: an overflow, OVF,
 * SDM 33.3.8), pt_other_tracer (write "CPU KIND": a neighbour clears
 * TraceEn - 0: another tracer that also points the output MSRs at its own
 * ToPA, 1: VMXON with IA32_VMX_MISC[14] = 0, SDM 33.2.9.4; or touches
 * IA32_DEBUGCTL - 2: an LBR user (perf -b, a debugger) sets LBR, 3: it
 * clears it again; TraceEn untouched, SDM 33.3.1.2).
 *
 * Return: 0, or -ENOMEM (the neighbour's ToPA of pt_other_tracer).
 */
int sim_pt_init(struct dentry *dir);

/**
 * sim_pt_exit - stop using the PT models (module exit)
 */
void sim_pt_exit(void);

/**
 * sim_pt_rdmsr - RDMSR of a PT-model MSR on the current CPU
 * @msr: MSR index
 * @val: out, the value
 *
 * Return: 0, -EIO where the processor raises #GP (violation counted),
 * -ENOENT if @msr is not one the PT model implements (the caller handles it).
 */
int sim_pt_rdmsr(u32 msr, u64 *val);

/**
 * sim_pt_wrmsr - WRMSR of a PT-model MSR on the current CPU
 * @msr: MSR index
 * @val: value
 *
 * Return: as sim_pt_rdmsr().
 */
int sim_pt_wrmsr(u32 msr, u64 val);

struct pt_trace_step;

/**
 * sim_pt_follow - does this CPU's PT unit need the user-mode instructions
 *	of a thread with this CR3
 * @cr3: the thread's user-mode CR3 (lwpt_user_cr3())
 *
 * True while TraceEn=1 with User=1 and the generator runs, unless the CR3
 * filter excludes @cr3 (SDM 33.2.4.2): such a thread writes no packet, so
 * it need not be followed. Call with preemption disabled.
 *
 * Return: whether sim_pt_step() wants the thread's instructions.
 */
bool sim_pt_follow(u64 cr3);

/**
 * sim_pt_step - one user-mode instruction retired on this CPU
 * @step: the instruction, the IP after it, CR3, mode and TSC
 *
 * Feeds this CPU's packet generator (pt_trace_step()), which writes the
 * packets through the model's output logic. Nothing while TraceEn=0.
 * Call with interrupts disabled, on the CPU that retired @step.
 */
void sim_pt_step(const struct pt_trace_step *step);

/**
 * sim_pt_user_return - the current task returns to user mode on this CPU
 *
 * The per-thread state check (module parameter pt_switch_check, default
 * on; SDM 33.3.5): if TraceEn was set inside a context switch - after
 * sched_switch chose the next task, while the outgoing task still ran -
 * and the task now about to run user code with that state is another
 * than the one that ran when it was set, a violation is counted (once per
 * enable; pt_msrs foreign_state). A driver that loads a thread's state
 * before the switch completes traces the rest of the outgoing task's
 * switch (its kernel code, under its CR3) into the incoming thread's
 * buffer. Call with interrupts disabled.
 */
void sim_pt_user_return(void);

struct pt_model_cpu;

/**
 * sim_pt_xsaves_cpu - the current CPU's PT model, with XSAVES of PT state
 *
 * For hw_sim.c with pt_xsaves=1 (IA32_XSS, XSAVES, XRSTORS): also turns on
 * the profile's xsaves_pt, which sim_pt_init() leaves off. Call with
 * interrupts disabled.
 *
 * Return: the model, or NULL without the PT model.
 */
struct pt_model_cpu *sim_pt_xsaves_cpu(void);

#endif /* LWPT_KMOD_SIM_PT_SIM_H */
