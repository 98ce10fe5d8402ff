/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the model hardware layer (lwpt_sim.ko only).
 *
 * The model is one simulated processor type on every CPU: CPUID comes from
 * the profiles chosen by the module parameters, and each CPU has its own
 * register file (XCR0, LWP MSRs, RTIT MSRs, LWP XSAVE state).
 */
#ifndef LWPT_KMOD_SIM_H
#define LWPT_KMOD_SIM_H

#include <linux/types.h>

#include "../hw.h"

#include <lwpt/lwp_arch.h>

/* 43724 §3.2, §7.1: LWP XSAVE state, version 1: 128 bytes at offset 832. */
#define SIM_LWP_XSAVE_OFFSET	LWP_XSAVE_AREA_OFFSET
#define SIM_LWP_XSAVE_SIZE	LWP_XSAVE_AREA_SIZE

/*
 * CPUID leaf 15H of the simulated processor with PT (the values of a Core
 * i7-6700K: TSC/ART = 334/2, 4.0 GHz at a 100 MHz bus clock), and the
 * Core:Bus ratio its CBR packets report (MSR_PLATFORM_INFO[15:8] there).
 */
#define SIM_CPUID_15H_EAX	2u
#define SIM_CPUID_15H_EBX	334u
#define SIM_CPUID_15H_CBR	40u

/* Number of RTIT MSRs in the register file: see sim_rtit_slot(). */
#define SIM_RTIT_SLOTS		13

/**
 * struct sim_cpu - register file of one simulated CPU
 * @xcr0: XCR0 (XFEATURE_ENABLED_MASK)
 * @lwp_cfg: LWP_CFG MSR (43724 §4, Figure 4-1)
 * @lwp_cbaddr: LWP_CBADDR MSR (43724 §4)
 * @xss: IA32_XSS (with pt_xsaves; the PT model holds a copy)
 * @rtit: IA32_RTIT_* MSRs, indexed by sim_rtit_slot()
 * @lwp_xstate: LWP XSAVE component (43724 Table 7-1), opaque for now
 */
struct sim_cpu {
	u64 xcr0;
	u64 lwp_cfg;
	u64 lwp_cbaddr;
	u64 xss;
	u64 rtit[SIM_RTIT_SLOTS];
	u8 lwp_xstate[SIM_LWP_XSAVE_SIZE];
};

/**
 * sim_this_cpu - the register file of the executing CPU
 *
 * Callers keep preemption off (lockdep checks).
 *
 * Return: the register file.
 */
struct sim_cpu *sim_this_cpu(void);

/**
 * sim_cpu_of - the register file of @cpu (for initialisation)
 * @cpu: a possible CPU
 *
 * Return: the register file.
 */
struct sim_cpu *sim_cpu_of(int cpu);

/**
 * sim_cpuid_init - validate the lwp_profile and pt_profile parameters
 *
 * Return: 0, or -EINVAL (with one log line) for an unknown profile name.
 */
int sim_cpuid_init(void);

/**
 * sim_cpuid - CPUID of the simulated processor
 * @cpu: register file of the executing CPU (XCR0 and LWP_CFG show in
 *	Fn8000_001C_EAX and Fn0000_000D_EBX)
 * @leaf: EAX input
 * @subleaf: ECX input
 * @r: output; all zero for leaves the profile does not define
 */
void sim_cpuid(const struct sim_cpu *cpu, u32 leaf, u32 subleaf,
	       struct lwpt_cpuid_regs *r);

/**
 * sim_has_lwp - does the LWP profile advertise LWP
 *
 * Return: false for lwp_profile=none.
 */
bool sim_has_lwp(void);

/**
 * sim_has_pt - does the PT profile advertise Intel PT
 *
 * Return: false for pt_profile=none.
 */
bool sim_has_pt(void);

/**
 * sim_is_intel - is the simulated processor an Intel one
 *
 * "GenuineIntel" with the PT profile's CPUID.1:EAX signature when there is
 * PT or a branch-recording profile and no LWP (lwp_profile=none);
 * otherwise an AMD family 15h.
 *
 * Return: true for lwp_profile=none with a PT or branch-recording profile.
 */
bool sim_is_intel(void);

/**
 * sim_pt_profile_name - the pt_profile in use ("bdw", "full", "tgl", "none")
 *
 * Return: a static string.
 */
const char *sim_pt_profile_name(void);

struct bts_model_profile;

/**
 * sim_bts_profile - the branch-recording profile (bts_profile parameter)
 *
 * Return: the model's profile, or NULL for bts_profile=none.
 */
const struct bts_model_profile *sim_bts_profile(void);

/**
 * sim_has_pt_xsaves - does the processor have XSAVES of PT state
 *
 * CPUID.(0DH,1):EAX[3] and ECX[8] (module parameter pt_xsaves).
 *
 * Return: false without PT or with pt_xsaves=0.
 */
bool sim_has_pt_xsaves(void);

/**
 * sim_xss_supported - IA32_XSS bits the simulated processor supports
 *
 * Return: bit 8 (PT) with sim_has_pt_xsaves(), else 0 (no IA32_XSS).
 */
u64 sim_xss_supported(void);

/**
 * sim_xcr0_supported - XCR0 bits the simulated processor supports
 *
 * Return: x87 | SSE, plus bit 62 if LWP is advertised (43724 §3.1).
 */
u64 sim_xcr0_supported(void);

/**
 * sim_rtit_slot - register-file slot of an IA32_RTIT_* MSR
 * @msr: MSR index
 *
 * Only MSRs the PT profile enumerates exist (SDM 33.3.1, Table 33-11:
 * CR3_MATCH needs CR3 filtering, ADDRn_A/B need n < RANGECNT, the output
 * MSRs need ToPA or single-range output).
 *
 * Return: the slot, or -1 if RDMSR/WRMSR of @msr would raise #GP.
 */
int sim_rtit_slot(u32 msr);

/**
 * sim_violation - count one spec violation committed by a subsystem
 * @what: what was violated, for the (rate-limited) log
 *
 * The count is readable at debugfs lwpt_sim/violations; the VM tests
 * require it to stay 0.
 */
void sim_violation(const char *what);

/**
 * sim_violation_count - spec violations counted since the module loaded
 *
 * Return: the count.
 */
int sim_violation_count(void);

struct dentry;
struct sim_step_insn;
struct pt_trace_step;

/**
 * enum sim_unit_id - the units of the model layer
 * @SIM_UNIT_LWP: the LWP emulation (lwp_emu.c, registered by itself)
 * @SIM_UNIT_PT: the PT model (pt_sim.c, registered by hw_sim.c)
 * @SIM_UNIT_BTS: the branch-recording model (bts_sim.c, registered by
 *	hw_sim.c)
 * @SIM_UNITS: their number
 */
enum sim_unit_id {
	SIM_UNIT_LWP,
	SIM_UNIT_PT,
	SIM_UNIT_BTS,
	SIM_UNITS,
};

/**
 * struct sim_unit - what a unit offers the layer's shared parts
 * @follow: should the follower (sim_step.c) single-step the current
 *	thread for this unit: LWP, its LWPCB counts events 2 or 3 (43724
 *	§2.2, §2.3) as the last emulated instruction left it; PT, this CPU's
 *	unit traces user mode at @cr3 (TraceEn, User, CR3 filter, SDM
 *	33.2.4.2); BTS, this CPU's IA32_DEBUGCTL records branches (TR and
 *	BTS, or LBR). Preemption or IRQs off.
 * @retired: (LWP) an instruction of the current thread retired: counts
 *	event 2 and, for the branches of §2.3, event 3 on the model with
 *	this CPU's LWP state, storing records in the thread's ring (TKN from
 *	the instruction, FUS = 0, PRV = 0, TargetAddress = its next_ip;
 *	Figures 2-3, 2-4). Process context (page faults allowed); a fault on
 *	the ring is signalled as the hardware's #PF or #GP would be.
 * @step: (PT, BTS) one user-mode instruction retired on this CPU (IRQs off);
 *	a system call is given at its entry, its next_ip the instruction
 *	after it (what PT's generator expects), except to a unit with
 *	@syscall_return, which gets its own IP as next_ip (no return yet)
 * @syscall_return: (BTS) the current task, back from a system call,
 *	returns to user mode at @ip, @sysret: the instruction after the
 *	system call (IRQs off)
 * @user_return: (PT) the current task returns to user mode (IRQs off)
 * @read_msr: (PT) read one of the unit's MSRs: 0, -ENOENT if not the unit's
 * @write_msr: (PT) write one, as @read_msr
 *
 * Members a unit does not have are NULL.
 */
struct sim_unit {
	bool (*follow)(u64 cr3);
	void (*retired)(const struct sim_step_insn *r);
	void (*step)(const struct pt_trace_step *step);
	void (*syscall_return)(u64 ip, bool sysret);
	void (*user_return)(void);
	int (*read_msr)(u32 msr, u64 *val);
	int (*write_msr)(u32 msr, u64 val);
};

/**
 * sim_unit_register - make a unit's operations known to the shared parts
 * @id: the unit
 * @unit: its operations (static), or NULL to take them away
 *
 * The operations must stay callable until the module is gone (a caller may
 * still be inside one).
 */
void sim_unit_register(enum sim_unit_id id, const struct sim_unit *unit);

/**
 * sim_unit_get - a unit's registered operations
 * @id: the unit
 *
 * Return: the operations, or NULL if the unit is not registered.
 */
const struct sim_unit *sim_unit_get(enum sim_unit_id id);

/**
 * sim_base_init - reset the violation count and the PMI state, and create
 *	debugfs lwpt_sim/violations and lwpt_sim/pmi
 * @dir: the lwpt_sim debugfs directory
 */
void sim_base_init(struct dentry *dir);

/**
 * sim_selftest_debugfs - create debugfs lwpt_sim/selftest
 * @dir: the lwpt_sim debugfs directory
 *
 * Reading the file runs the model layer's self-test (sim_selftest.c).
 */
void sim_selftest_debugfs(struct dentry *dir);

/**
 * hw_sim_raise_pmi - the model signals a PMI on the current CPU
 *
 * Calls every hook registered with lwpt_hw_pmi_register().
 */
void hw_sim_raise_pmi(void);
/* A perf counter's PMI on the current CPU, not lwpt's (hw_sim.c). */
void hw_sim_raise_perf_pmi(void);
/*
 * A KVM guest's ToPA PMI on the current CPU (bit 55 set by the caller):
 * not lwpt's (hw_sim.c).
 */
void hw_sim_raise_guest_pmi(void);

/**
 * hw_sim_lwp_state_get - the LWP state of this CPU as the unit holds it
 * @area: 64-byte aligned XSAVE area (header and component 62 written)
 *
 * An XSAVE of component 62 without the Family 15h quirks of the
 * architectural one (lwp_xsave_drops_int): the #UD emulation reads the
 * unit's internal state through it, which real LWP instructions never
 * save. Preemption off.
 *
 * Return: 0 or an error as lwpt_hw_xsave().
 */
int hw_sim_lwp_state_get(void *area);

/**
 * hw_sim_lwp_state_set - load the LWP state of this CPU into the unit
 * @area: 64-byte aligned XSAVE area (header and component 62)
 *
 * An XRSTOR of component 62 without the Family 15h quirks of the
 * architectural one (lwp_xrstor_int): the #UD emulation stores the unit's
 * internal state back through it. Preemption off.
 *
 * Return: 0 or an error as lwpt_hw_xrstor().
 */
int hw_sim_lwp_state_set(const void *area);

/**
 * hw_sim_raise_lwp_irq - the model signals an LWP threshold interrupt
 *
 * Calls the hook registered with lwpt_hw_lwp_irq_register(), if any.
 */
void hw_sim_raise_lwp_irq(void);

/* sim_user.c: the signals of an emulated instruction's faults. */
void sim_user_signal(int sig, int code, u64 addr);
void sim_user_segv(u64 addr);

#endif /* LWPT_KMOD_SIM_H */
