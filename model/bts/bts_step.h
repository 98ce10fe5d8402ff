/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Driving the branch-recording model (bts_model.h) one retired instruction
 * at a time, as the PT packet generator is driven (model/pt/pt_trace.h):
 * the caller gives each user-mode instruction (IP, bytes, CPL, mode) with
 * the IP observed after it, for example from ptrace single-stepping; the
 * adapter classifies it with model/x86/x86_cofi.h and turns it into the
 * taken branches, interrupts and exceptions bts_model_branch() records.
 *
 * Kernel-mode execution is outside the model, as for PT: an instruction
 * that enters the kernel (SYSCALL, SYSENTER, INT n, INT3, INTO, INT1, a
 * faulting UD/SYSRET/SYSEXIT/VMLAUNCH) and comes back at the next
 * instruction becomes two events: the transfer into the kernel at the
 * instruction's CPL, to the configured entry point, and the return from
 * the configured kernel IP at CPL 0 (only the first when the IP after it
 * is its own: the thread ended there, e.g. exit_group). An instruction
 * that is no branch but is followed by another IP than its own end (a
 * signal delivered after it) becomes an interrupt taken after it and the
 * same kind of return.
 *
 * Plain C on model/model_env.h only, for lwpt_sim.ko and user space.
 */
#ifndef LWPT_MODEL_BTS_STEP_H
#define LWPT_MODEL_BTS_STEP_H

#include "model/bts/bts_model.h"

/* One retired instruction of the traced thread. */
struct bts_step {
	uint64_t ip;			/* linear address of the instruction */
	uint8_t insn[X86_MAX_INSN_LEN];	/* its bytes (insn_size valid) */
	uint8_t insn_size;		/* 1..15 */
	uint8_t cpl;			/* CPL it ran at */
	enum x86_mode mode;		/* mode it ran in */
	uint64_t next_ip;		/* IP observed after it retired */
};

/* The kernel addresses the invisible kernel side of a transition uses. */
struct bts_step_config {
	uint64_t syscall_entry;		/* IA32_LSTAR / IA32_SYSENTER_EIP target */
	uint64_t sysret_ip;		/* IP of the SYSRET/SYSEXIT back to user */
	uint64_t idt_entry;		/* handler of INT n, exceptions, interrupts */
	uint64_t iret_ip;		/* IP of the IRET back to user */
};

/**
 * bts_step() - the traced thread retired one instruction.
 * @cpu:  the model CPU.
 * @cfg:  kernel addresses (see struct bts_step_config).
 * @step: the instruction and the IP after it.
 *
 * Calls bts_model_branch() for each event the instruction caused (none
 * for a not-taken JCC or a linear instruction, one for a taken branch, a
 * user-mode far transfer or a last system call, two for a round trip
 * through the kernel). A
 * REP string instruction must be given once, with the IP after its last
 * iteration.
 * Return: the number of events (0..2); -EINVAL if an argument is NULL or
 *         the step is malformed (insn_size 0 or above 15, cpl above 3, bad
 *         mode); -EILSEQ or -EAGAIN from x86_cofi_decode() when the bytes
 *         are no complete instruction.
 */
int bts_step(struct bts_model_cpu *cpu, const struct bts_step_config *cfg,
	     const struct bts_step *step);

/**
 * bts_step_resume() - the thread returns from the kernel to user mode at
 * @ip, where a caller that could not know the return when the thread
 * entered the kernel gave bts_step() the entering instruction with its own
 * IP as next (the into-kernel event alone: a system call seen at its entry,
 * whose return may go to a signal handler, a restarted system call, the
 * context rt_sigreturn restores or a new program).
 * @cpu:    the model CPU the thread returns on.
 * @cfg:    kernel addresses.
 * @ip:     the user-mode IP it returns to.
 * @sysret: it returns to the instruction after the system call (Linux
 *          leaves by SYSRET there; elsewhere by IRET, from cfg->iret_ip).
 *
 * Return: 1 (one far branch from CPL 0, bts_model_branch()); -EINVAL if
 *         @cpu or @cfg is NULL or the model refused the event.
 */
int bts_step_resume(struct bts_model_cpu *cpu, const struct bts_step_config *cfg,
		    uint64_t ip, bool sysret);

#endif /* LWPT_MODEL_BTS_STEP_H */
