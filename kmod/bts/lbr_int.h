/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LBR stack of a /dev/bts capture (issue 37, ABI 1.7): the thread's
 * last branch records (SDM Vol. 3B 17.4.8), saved and restored at its
 * context switches, read on request and at its fatal signal
 * (Documentation/bts.rst, "LBR snapshots"):
 *   lbr_msr.c    - which LBR MSRs the processor has (per model, as perf's
 *                  intel_pmu_lbr_init_*()), loading and unloading a
 *                  thread's stack on a CPU;
 *   lbr_thread.c - which thread has which stack, the context switches,
 *                  exit, exec and fatal signals, the snapshot ioctl.
 */
#ifndef LWPT_KMOD_BTS_LBR_INT_H
#define LWPT_KMOD_BTS_LBR_INT_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <uapi/lwpt/bts.h>

struct bts_session;
struct lwpt_caps;
struct task_struct;

/**
 * struct lbr_caps - the LBR facilities of the processor (boot CPU)
 * @present: the LBR MSRs below are known and the format is handled
 * @depth: entries of the stack (Table 17-4)
 * @from_msr: MSR_LASTBRANCH_0_FROM_IP
 * @to_msr: MSR_LASTBRANCH_0_TO_IP
 * @format: IA32_PERF_CAPABILITIES[5:0] (0 without PDCM, as perf)
 * @select: MSR_LBR_SELECT exists (17.7.2)
 * @freeze: FREEZE_LBRS_ON_PMI may be set: PDCM and perfmon version 2 or
 *	later (17.4.7; Vol. 4 Table 2-2)
 * @streamlined: perfmon version 4: the freeze sets
 *	IA32_PERF_GLOBAL_STATUS.LBR_Frz instead of clearing DEBUGCTL.LBR
 *	(17.10.2)
 * @info: formats 5 and 7: each entry n has MSR_LBR_INFO_n (flags, cycles)
 * @from_quirk: format 4 on a processor without TSX (no HLE, no RTM):
 *	FROM reads with IN_TX and TSX_ABORT 0 but WRMSR wants bits 62:61 as
 *	sign bits (perf's lbr_from_signext_quirk)
 * @why: why @present is false, for the log
 */
struct lbr_caps {
	bool present;
	unsigned int depth;
	u32 from_msr;
	u32 to_msr;
	u8 format;
	bool select;
	bool freeze;
	bool streamlined;
	bool info;
	bool from_quirk;
	char why[64];
};

/**
 * struct lbr_state - the LBR stack of one capture's thread
 * @lock: guards @from, @to, @tos, @saved, @frozen and @crash; taken with
 *	interrupts off, never with another lock of this file taken after it
 * @node: in lbr_thread.c's table, keyed by @task, while attached
 * @task: the thread (the session's reference)
 * @owner: the session the state belongs to
 * @debugctl: IA32_DEBUGCTL bits the capture sets (LBR, FREEZE_LBRS_ON_PMI)
 * @select: MSR_LBR_SELECT while loaded (the CPL filter)
 * @loaded_cpu: the CPU whose LBR MSRs hold the stack, or -1
 * @attached: in the table: loaded at the thread's switches
 * @ended: exit, an exec the caller may not trace, or the fatal signal:
 *	never loaded again
 * @saved: @from/@to/@tos hold a stack saved from the MSRs
 * @frozen: a PMI froze the LBRs while the stack was loaded
 * @crashed: @crash holds the stack at the fatal signal
 * @tos: MSR_LASTBRANCH_TOS as saved
 * @from: MSR_LASTBRANCH_n_FROM_IP as saved (raw, flags included)
 * @to: MSR_LASTBRANCH_n_TO_IP as saved
 * @info: MSR_LBR_INFO_n as saved (formats 5 and 7; else 0)
 * @crash: the answer to LWPT_BTS_LBR_CRASH
 */
struct lbr_state {
	raw_spinlock_t lock;	/* the saved stack and @crash */
	struct hlist_node node;
	struct task_struct *task;
	const struct bts_session *owner;
	u64 debugctl;
	u64 select;
	int loaded_cpu;
	bool attached;
	bool ended;
	bool saved;
	bool frozen;
	bool crashed;
	unsigned int tos;
	u64 from[LWPT_LBR_ENTRIES_MAX];
	u64 to[LWPT_LBR_ENTRIES_MAX];
	u64 info[LWPT_LBR_ENTRIES_MAX];
	struct lwpt_bts_lbr crash;
};

/* lbr_msr.c */

/**
 * lbr_msr_detect - find the LBR MSRs of the processor
 * @caps: detection result (vendor, CPUID.1 signature and PDCM)
 *
 * DisplayFamily_DisplayModel (SDM Vol. 2A, CPUID) picks the stack depth
 * and MSR addresses as perf's intel_pmu_lbr_init_core/_atom/_slm/_nhm/
 * _snb/_hsw/_skl/_knl() do for family 6; IA32_PERF_CAPABILITIES[5:0]
 * gives the format (17.4.8.1); CPUID.0AH the perfmon version.
 * Architectural LBRs (CPUID.(07H,0):EDX[19]) and formats above 7 are not
 * handled: LBR snapshots are then refused. Process context.
 */
void lbr_msr_detect(const struct lwpt_caps *caps);

/**
 * lbr_msr_caps - the result of lbr_msr_detect()
 *
 * Return: the capabilities (never NULL).
 */
const struct lbr_caps *lbr_msr_caps(void);

/**
 * lbr_msr_load - load @st's stack and LBR recording on this CPU
 * @st: an attached state of the thread that runs next here
 *
 * Saves the CPU's IA32_DEBUGCTL and MSR_LBR_SELECT, writes @st's filter,
 * its saved stack (or zeros: no other thread's branches), clears a
 * streamlined freeze (17.10.2) and sets @st->debugctl. Interrupts off.
 */
void lbr_msr_load(struct lbr_state *st);

/**
 * lbr_msr_unload - save @st's stack and stop LBR recording on this CPU
 * @st: the state loaded here (else: no effect)
 *
 * Clears DEBUGCTL.LBR first, notes a freeze, saves TOS and the stack,
 * restores the CPU's MSR_LBR_SELECT and its IA32_DEBUGCTL bits.
 * Interrupts off.
 */
void lbr_msr_unload(struct lbr_state *st);

/**
 * lbr_msr_save_live - save @st's stack from the MSRs, recording goes on
 * @st: the state loaded on this CPU (else: no effect)
 *
 * Recording is paused while the MSRs are read (DEBUGCTL.LBR cleared,
 * then set again). Interrupts off.
 */
void lbr_msr_save_live(struct lbr_state *st);

/**
 * lbr_msr_fill - turn @st's saved stack into a snapshot
 * @st: the state, @st->lock held
 * @out: the snapshot: depth, format, flags, nr and entries set, most
 *	recent first; the address part of each entry as 17.4.8.1 defines
 *	it for the format, MISPRED as a flag (Table 17-8)
 */
void lbr_msr_fill(const struct lbr_state *st, struct lwpt_bts_lbr *out);

/* lbr_thread.c */

/**
 * lbr_init - detect the LBR MSRs and probe sched_switch,
 *	sched_process_exit, sched_process_exec and signal_deliver
 * @caps: detection result
 *
 * Return: 0 (also where the processor's LBRs are not handled);
 * -ENODEV if a tracepoint is missing, or the probe's error.
 */
int lbr_init(const struct lwpt_caps *caps);

/* lbr_exit - remove the probes (no state attached). */
void lbr_exit(void);

/**
 * lbr_config_check - may a capture with these flags record the LBRs
 * @flags: struct lwpt_bts_config.flags without LWPT_BTS_CFG_LBR
 *
 * Return: 0; -EOPNOTSUPP the processor's LBRs are not handled, or only
 * one of USER and KERNEL was asked and MSR_LBR_SELECT does not exist.
 */
int lbr_config_check(u32 flags);

/**
 * lbr_alloc - give @s an LBR state for its thread
 * @s: the session (@s->task set), not yet attached
 * @flags: its flags without LWPT_BTS_CFG_LBR
 *
 * Return: 0 or -ENOMEM.
 */
int lbr_alloc(struct bts_session *s, u32 flags);

/* lbr_free - free @s's LBR state (detached), if any. */
void lbr_free(struct bts_session *s);

/**
 * lbr_attach - record @s->task's LBRs from now on
 * @s: a session with an LBR state whose BTS capture is attached (one
 *	capture per thread: no other LBR state for the thread)
 *
 * Enters the table; loads the stack at once if the thread is current or
 * runs on another CPU (an IPI), else at its next switch in.
 */
void lbr_attach(struct bts_session *s);

/**
 * lbr_detach - stop recording @s->task's LBRs; the saved stack stays
 * @s: the session (without an attached LBR state: no effect)
 *
 * Process context.
 */
void lbr_detach(struct bts_session *s);

/**
 * lbr_ioctl_snapshot - LWPT_BTS_IOC_LBR_SNAPSHOT
 * @s: the session (its lock held)
 * @arg: struct lwpt_bts_lbr in user memory
 *
 * Return: 0; -EFAULT; -EINVAL size, which or reserved wrong; -ENODATA no
 * LBR state, or no fatal signal taken (CRASH); -ESRCH (NOW) recording
 * ended before any stack was saved.
 */
long lbr_ioctl_snapshot(struct bts_session *s, void __user *arg);

#endif /* LWPT_KMOD_BTS_LBR_INT_H */
