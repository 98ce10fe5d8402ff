/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The execution follower of lwpt_sim.ko (sim_step.c): single-steps the
 * user-mode execution of the threads the models watch and hands each
 * retired instruction to them.
 */
#ifndef LWPT_KMOD_SIM_STEP_H
#define LWPT_KMOD_SIM_STEP_H

#include <linux/types.h>

#include <asm/ptrace.h>

#include "model/x86/x86_cofi.h"

struct dentry;

/* General-purpose registers, numbered as instructions encode them. */
#define SIM_GPRS	16

/**
 * sim_regs_gpr - the user registers in encoding order
 * @regs: saved user-mode registers
 * @gpr: out, RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8 .. R15
 */
static inline void sim_regs_gpr(const struct pt_regs *regs, u64 gpr[SIM_GPRS])
{
	gpr[0] = regs->ax;
	gpr[1] = regs->cx;
	gpr[2] = regs->dx;
	gpr[3] = regs->bx;
	gpr[4] = regs->sp;
	gpr[5] = regs->bp;
	gpr[6] = regs->si;
	gpr[7] = regs->di;
	gpr[8] = regs->r8;
	gpr[9] = regs->r9;
	gpr[10] = regs->r10;
	gpr[11] = regs->r11;
	gpr[12] = regs->r12;
	gpr[13] = regs->r13;
	gpr[14] = regs->r14;
	gpr[15] = regs->r15;
}

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
 * sim_step_emulated - the kernel executed a PTWRITE for the current thread
 * @regs: its user registers, RIP already past the instruction
 * @ip: the PTWRITE's address
 * @ptw_size: its operand size in bytes, 4 or 8
 * @ptw_value: its operand
 *
 * sim_ptwrite.c emulates PTWRITE where the CPU raises #UD, so no
 * single-step trap follows it. If the follower steps the thread and its
 * next instruction is at @ip, the PTWRITE retires here (to this CPU's PT
 * unit, SDM 33.4.2.21, and to LWP) and the next step starts at RIP.
 * Process context of the thread, before its return to user mode.
 *
 * Return: true if the follower took it; false if it does not step the
 * thread (the caller then raises a debugger's single-step trap itself).
 */
bool sim_step_emulated(struct pt_regs *regs, u64 ip, u8 ptw_size, u64 ptw_value);

/**
 * sim_step_init - start following user-mode execution
 * @dir: the lwpt_sim debugfs directory (may be an error pointer); the file
 *	"step" there shows the follower's counters
 *
 * Registers a user return notifier on every online CPU (and on CPUs that
 * come online), a die notifier for the single-step #DB and probes on the
 * raw_syscalls:sys_enter, sched_process_exit and signal:signal_deliver
 * tracepoints.
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
