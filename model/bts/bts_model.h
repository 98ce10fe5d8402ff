/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A software model of one logical processor's branch recording facilities
 * other than Intel PT (SDM Vol. 3B 17.4): IA32_DEBUGCTL, the Branch Trace
 * Store into the DS save area (IA32_DS_AREA, 17.4.9), CPL-qualified BTS
 * (17.4.6), the LBR stack with its TOS pointer, LBR_SELECT filtering and
 * record formats (17.4.8, 17.7), the last exception record (17.4.8.3),
 * freezing LBRs and counters on a PMI (17.4.7), single-step on branches
 * (BTF, 17.4.1), and the CPUID bits and MSR rules of each processor
 * profile.
 *
 * The caller drives it with the execution of the traced code: one call of
 * bts_model_branch() per taken branch, interrupt or exception (or per
 * retired instruction through model/bts/bts_step.h), and
 * bts_model_pmi() when a performance-monitoring interrupt is signalled by
 * something other than the model (a counter overflow, PEBS).
 *
 * Plain C on model/model_env.h only: compiled into lwpt_sim.ko and into the
 * unit tests. The model never signals: an instruction that would #GP
 * returns BTS_MODEL_EGP, counts a violation and calls the log callback.
 * BTS records and the DS buffer management area live in the caller's
 * memory, reached through read_lin/write_lin on linear addresses.
 *
 * Embedding: struct bts_model_cpu is public so it can live in per-CPU
 * data; touch fields only through the functions here. Not thread-safe.
 * Documentation/bts.rst lists every rule with its SDM section and the
 * choices made where the SDM is ambiguous.
 */
#ifndef LWPT_MODEL_BTS_MODEL_H
#define LWPT_MODEL_BTS_MODEL_H

#include "model/model_env.h"
#include "model/x86/x86_cofi.h"
#include <lwpt/bts_arch.h>
#include <lwpt/lbr_arch.h>

/* Results of model operations: 0 or a negative code from this enum. */
enum bts_model_err {
	BTS_MODEL_OK = 0,
	BTS_MODEL_EGP = -1,	/* the instruction would raise #GP; nothing changed */
	BTS_MODEL_ENOMSR = -2,	/* an MSR the model does not implement */
	BTS_MODEL_EINVAL = -3,	/* bad argument from the caller (not a CPU fault) */
};

/* Largest LBR stack the model holds (Table 17-4 goes up to 32). */
#define BTS_MODEL_LBR_MAX	32u

/* --- Profiles ----------------------------------------------------------- */

/*
 * A processor the model pretends to be: the CPUID.01H bits and model-
 * specific facts the rules depend on (Documentation/bts.rst, "Profiles").
 */
struct bts_model_profile {
	const char *name;
	bool ds;			/* CPUID.1:EDX[21] DS */
	bool dtes64;			/* CPUID.1:ECX[2] DTES64 */
	bool ds_cpl;			/* CPUID.1:ECX[4] DS-CPL */
	bool pdcm;			/* CPUID.1:ECX[15] PDCM */
	bool bts_unavailable;		/* IA32_MISC_ENABLE[11] */
	bool pebs_unavailable;		/* IA32_MISC_ENABLE[12] */
	unsigned int perfmon_version;	/* CPUID.0AH:EAX[7:0] */
	unsigned int lbr_depth;		/* Table 17-4: 4, 8, 16 or 32 */
	uint32_t lbr_from_msr;		/* MSR_LASTBRANCH_0_FROM_IP */
	uint32_t lbr_to_msr;		/* MSR_LASTBRANCH_0_TO_IP */
	bool lbr_select;		/* MSR_LBR_SELECT exists (17.7.2) */
	bool lbr_callstack;		/* LBR_SELECT.EN_CALLSTACK exists (17.9) */
	uint8_t lbr_format;		/* IA32_PERF_CAPABILITIES[5:0], 0..7 */
	/*
	 * CPUID.(07H,0):EBX[4] HLE and [11] RTM. Format 4 without TSX:
	 * FROM bits 62:61 are sign bits, not IN_TX/TSX_ABORT, in reads and
	 * in WRMSR (perf's lbr_from_signext_quirk).
	 */
	bool tsx;
	bool freeze_while_smm;		/* IA32_PERF_CAPABILITIES[12] */
	bool uncore_pmi;		/* IA32_DEBUGCTL[13] exists (06_1AH) */
	bool lbr_pt_exclusive;		/* SDM 33.3.1.2: PT suspends LBR/BTS/LER */
	bool erratum_aj106;		/* FREEZE_LBRS_ON_PMI fails with PEBS PMIs */
	unsigned int linear_bits;	/* 48: canonical checks */
	/*
	 * CPUID.1:EAX (DisplayFamily_DisplayModel, SDM Vol. 2A Figure 3-6) of
	 * a part whose LBR depth and MSR addresses (Table 17-4) the profile
	 * has: what the kernel's per-model LBR detection keys on.
	 */
	uint32_t sig;
};

extern const struct bts_model_profile bts_model_profile_core2;	/* 06_0FH-like */
extern const struct bts_model_profile bts_model_profile_nhm;	/* 06_1AH-like */
extern const struct bts_model_profile bts_model_profile_pmv4;	/* perfmon v4 */
extern const struct bts_model_profile bts_model_profile_nocpl;	/* DS, no DS-CPL */
extern const struct bts_model_profile bts_model_profile_btsoff;	/* BTS_UNAVAILABLE */
extern const struct bts_model_profile bts_model_profile_nods;	/* no DS, no PDCM */
extern const struct bts_model_profile bts_model_profile_hsw;	/* LBR format 4 */
extern const struct bts_model_profile bts_model_profile_skl;	/* LBR format 5 */
extern const struct bts_model_profile bts_model_profile_glm;	/* LBR format 6 */
extern const struct bts_model_profile bts_model_profile_glp;	/* LBR format 7 */

/**
 * bts_model_profile_find() - look a profile up by name.
 * @name: "core2", "nhm", "pmv4", "nocpl", "btsoff", "nods", "hsw", "skl",
 *        "glm" or "glp".
 * Return: the profile, or NULL if @name is unknown or NULL.
 */
const struct bts_model_profile *bts_model_profile_find(const char *name);

/* --- Violations --------------------------------------------------------- */

enum bts_model_violation_kind {
	BTS_VIOL_NONE = 0,
	BTS_VIOL_RESERVED_BIT,		/* WRMSR with a reserved bit set: #GP */
	BTS_VIOL_MSR_NOT_ENUMERATED,	/* an MSR the profile lacks: #GP */
	BTS_VIOL_NON_CANONICAL,		/* an address MSR written non-canonical: #GP */
	BTS_VIOL_READ_ONLY_MSR,		/* WRMSR of a read-only MSR: #GP */
	BTS_VIOL_DS_ACCESS,		/* the DS area or BTS buffer is not mapped */
	BTS_VIOL_BTS_BUFFER_TOO_SMALL,	/* 17.4.9.3 note: absolute max < base + 24 */
	BTS_VIOL_NR
};

struct bts_model_violation {
	enum bts_model_violation_kind kind;
	const char *section;		/* SDM section, e.g. "SDM 17.4.1" */
	const char *what;		/* short static description */
	uint32_t msr;			/* MSR involved, 0 if none */
	uint64_t value;			/* value written, address, ... */
};

/**
 * bts_model_violation_str() - static text naming a violation kind.
 * @kind: any value.
 * Return: a static string; "unknown" for values outside the enum.
 */
const char *bts_model_violation_str(enum bts_model_violation_kind kind);

/* --- Environment -------------------------------------------------------- */

struct bts_model_cpu;

/*
 * Caller callbacks. read_lin/write_lin move @len bytes at linear address
 * @la (the DS area and the BTS buffer are linear addresses, 17.4.9.1);
 * they return 0, or a negative value when nothing is mapped there. pmi is
 * the PMI the processor signals (LVT performance-monitor vector) for the
 * BTS interrupt threshold, after the freeze of 17.4.7 was applied. log
 * reports each violation. Any callback but read_lin/write_lin may be NULL.
 */
struct bts_model_ops {
	int (*read_lin)(void *ctx, uint64_t la, void *buf, size_t len);
	int (*write_lin)(void *ctx, uint64_t la, const void *buf, size_t len);
	void (*pmi)(void *ctx, struct bts_model_cpu *cpu);
	void (*log)(void *ctx, struct bts_model_cpu *cpu,
		    const struct bts_model_violation *v);
};

struct bts_model_stats {
	uint64_t violations;
	uint64_t by_kind[BTS_VIOL_NR];
	uint64_t branches;		/* events given to bts_model_branch() */
	uint64_t bts_records;		/* BTS records stored */
	uint64_t bts_cpl_skipped;	/* BTMs skipped by BTS_OFF_OS/BTS_OFF_USR */
	uint64_t bts_lost;		/* BTMs not stored: buffer full, DS fault */
	uint64_t bts_wraps;		/* circular wraps to the buffer base */
	uint64_t bts_pmis;		/* threshold interrupts signalled */
	uint64_t lbr_records;		/* LBR entries pushed */
	uint64_t lbr_filtered;		/* branches LBR_SELECT dropped */
	uint64_t ler_updates;
	uint64_t freezes;		/* PMIs that froze LBRs */
};

/* The kinds of branch event the model records. */
enum bts_branch_kind {
	BTS_BR_JCC,		/* taken conditional branch (JCC, LOOP, JrCXZ) */
	BTS_BR_JMP_REL,		/* near relative JMP */
	BTS_BR_JMP_IND,		/* near indirect JMP */
	BTS_BR_CALL_REL,	/* near relative CALL */
	BTS_BR_CALL_IND,	/* near indirect CALL */
	BTS_BR_RET,		/* near RET */
	/* Far JMP/CALL/RET, IRET, SYSCALL/SYSRET, SYSENTER/SYSEXIT, INT n. */
	BTS_BR_FAR,
	BTS_BR_INTERRUPT,	/* external interrupt, NMI */
	BTS_BR_EXCEPTION,	/* fault or trap (vector names which) */
	BTS_BR_NR
};

/* One taken branch, interrupt or exception of the traced code. */
struct bts_branch {
	enum bts_branch_kind kind;
	/* 17.4.8: source; the next IP for interrupts and traps, the IP for faults. */
	uint64_t from;
	uint64_t to;			/* destination */
	uint8_t cpl;			/* CPL the branch occurred at (source) */
	enum x86_mode mode;		/* mode it occurred in (LBR address width) */
	uint8_t vector;			/* BTS_BR_EXCEPTION: vector (1 = #DB) */
	bool mispredicted;		/* predictor's view (Figure 17-9, Table 17-8) */
};

/* One logical processor. Fields are private to model/bts/. */
struct bts_model_cpu {
	const struct bts_model_profile *prof;
	const struct bts_model_ops *ops;
	void *ctx;
	int id;

	/* Architectural state. */
	uint64_t debugctl;		/* IA32_DEBUGCTL */
	uint64_t ds_area;		/* IA32_DS_AREA */
	uint64_t lbr_select;		/* MSR_LBR_SELECT */
	unsigned int tos;		/* MSR_LASTBRANCH_TOS */
	uint64_t lbr_from[BTS_MODEL_LBR_MAX];	/* as the MSRs read */
	uint64_t lbr_to[BTS_MODEL_LBR_MAX];
	uint64_t lbr_info[BTS_MODEL_LBR_MAX];	/* MSR_LBR_INFO_n (formats 5, 7) */
	uint64_t ler_from, ler_to;	/* MSR_LER_FROM_LIP / _TO_LIP */
	uint64_t perf_global_status;	/* only LBR_Frz and CTR_Frz modelled */
	uint64_t perf_global_ctrl;	/* IA32_PERF_GLOBAL_CTRL, stored */

	/* Internal state. */
	bool last_valid;		/* a branch was taken since RESET (LER) */
	uint64_t last_from, last_to;	/* as LBR would store them */
	bool pt_trace_en;		/* IA32_RTIT_CTL.TraceEn (33.3.1.2) */
	bool in_pmi;			/* the pmi callback is running */
	unsigned int pmi_skid;		/* branches between signal and delivery */
	unsigned int pmi_delay;		/* branches left before a pended PMI */
	bool pmi_pending;		/* signalled, not yet delivered */

	struct bts_model_stats stats;
};

/**
 * bts_model_cpu_init() - a CPU in its RESET state.
 * @cpu:  storage.  @prof: the profile (must outlive @cpu).
 * @ops:  callbacks, read_lin and write_lin required (must outlive @cpu).
 * @ctx:  passed to every callback.  @id: caller's CPU number, for logs.
 *
 * IA32_DEBUGCTL, IA32_DS_AREA, MSR_LBR_SELECT (17.7.2: "cleared to zero at
 * RESET"), TOS, the LBR stack and the LER are 0.
 * Return: BTS_MODEL_OK, or BTS_MODEL_EINVAL if a required pointer is NULL
 *         or the profile's lbr_depth is 0 or above BTS_MODEL_LBR_MAX or
 *         not a power of two, or its lbr_format is above 7.
 */
int bts_model_cpu_init(struct bts_model_cpu *cpu, const struct bts_model_profile *prof,
		       const struct bts_model_ops *ops, void *ctx, int id);

/**
 * bts_model_reset() - RESET or INIT of the logical processor (17.4.9:
 * "the recording mechanism ... is cleared on processor RESET and INIT").
 * @cpu: the CPU. Architectural state returns to bts_model_cpu_init()'s;
 * counters are kept.
 */
void bts_model_reset(struct bts_model_cpu *cpu);

/**
 * bts_model_cpuid() - the CPUID bits the profile reports.
 * @cpu: the CPU.  @leaf: 01H or 0AH (others read as 0).
 * @regs: out, EAX EBX ECX EDX: leaf 01H only ECX[2], ECX[4], ECX[15] and
 *        EDX[21]; leaf 0AH only EAX[7:0] (perfmon version).
 * Return: BTS_MODEL_OK, or BTS_MODEL_EINVAL if @cpu or @regs is NULL.
 */
int bts_model_cpuid(const struct bts_model_cpu *cpu, uint32_t leaf, uint32_t regs[4]);

/**
 * bts_model_rdmsr() - RDMSR of a branch-recording MSR.
 * @cpu: the CPU.  @msr: address.  @val: out.
 *
 * IA32_DEBUGCTL, IA32_DS_AREA (#GP without DS), IA32_MISC_ENABLE (only
 * bits 11 and 12), IA32_PERF_CAPABILITIES (#GP without PDCM; [5:0] the LBR
 * format, [12] FREEZE_WHILE_SMM), MSR_LBR_SELECT (#GP where the profile
 * has none), MSR_LASTBRANCH_TOS, MSR_LASTBRANCH_n_FROM_IP/TO_IP for n below
 * the stack depth, MSR_LBR_INFO_n (DC0H + n, n below the depth, formats 5
 * and 7 only: #GP for DC0H-DDFH otherwise), MSR_LER_FROM_LIP/TO_LIP,
 * IA32_PERF_GLOBAL_STATUS and
 * IA32_PERF_GLOBAL_CTRL (#GP below perfmon version 2). While PT suspends
 * LBRs (profile lbr_pt_exclusive, TraceEn=1) the LBR (LBR_INFO too), TOS,
 * LBR_SELECT and LER MSRs read 0 (SDM 33.3.1.2).
 * Return: BTS_MODEL_OK; BTS_MODEL_EGP (violation counted) for an MSR the
 *         profile does not enumerate; BTS_MODEL_ENOMSR for MSRs outside the
 *         model; BTS_MODEL_EINVAL for a NULL pointer.
 */
int bts_model_rdmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t *val);

/**
 * bts_model_wrmsr() - WRMSR of a branch-recording MSR, with its #GP rules.
 * @cpu: the CPU.  @msr: address.  @val: value written.
 *
 * IA32_DEBUGCTL: reserved bits (Vol. 4 Table 2-2) #GP; BTS and BTINT need
 * DS and IA32_MISC_ENABLE.BTS_UNAVAILABLE=0 (17.4.9); BTS_OFF_OS/USR need
 * DS-CPL (17.4.6); FREEZE_LBRS_ON_PMI and FREEZE_PERFMON_ON_PMI need PDCM
 * and perfmon version > 1 (17.4.7, Table 2-2); bit 13 a profile with the
 * uncore PMI; bit 14 IA32_PERF_CAPABILITIES[12]. IA32_DS_AREA: needs DS
 * and a canonical address. MSR_LBR_SELECT: bits 63:9 (63:10 with
 * EN_CALLSTACK) reserved. MSR_LASTBRANCH_TOS: a value at or above the depth
 * #GP. LBR FROM/TO: the address part must be canonical (formats 1-7;
 * format 3 and 6 FROM bits 62:48, format 4 FROM bits 60:48 (62:48
 * without TSX) sign-extend bit 47; format 6 TO bits 63:48 are free) or fit
 * 32 bits (format 0). MSR_LBR_INFO_n (formats 5 and 7): bits 59:16
 * reserved (#GP); DC0H-DDFH the profile lacks #GP. LER, IA32_MISC_ENABLE
 * and IA32_PERF_CAPABILITIES
 * are read-only here (#GP). IA32_PERF_GLOBAL_STATUS is read-only; writing
 * 1 to bit 58/59 of IA32_PERF_GLOBAL_STATUS_RESET (390H) clears LBR_Frz /
 * CTR_Frz (perfmon v4, 17.10.2). Writes to LBR MSRs while PT suspends them
 * are dropped (33.3.1.2).
 * Return: BTS_MODEL_OK; BTS_MODEL_EGP (state unchanged, violation counted);
 *         BTS_MODEL_ENOMSR; BTS_MODEL_EINVAL for a NULL @cpu.
 */
int bts_model_wrmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t val);

/**
 * bts_model_branch() - the traced code took a branch, interrupt or exception.
 * @cpu: the CPU.  @br: the event; copied.
 *
 * In this order: the LER takes the last branch record if @br is an
 * interrupt or exception (17.4.8.3); the LBR stack records @br if
 * DEBUGCTL.LBR=1, LBRs are not frozen (LBR_Frz) and LBR_SELECT does not
 * filter it (17.4.8, 17.7.2); a BTS record is stored if DEBUGCTL.TR=1 and
 * BTS=1 and the CPL qualification lets it through (17.4.6, 17.4.9), with
 * the buffer rules of 17.4.9.3 (Documentation/bts.rst, "The BTS buffer");
 * the threshold PMI is delivered before this returns. A #DB (vector 1)
 * is not recorded in the LBR stack and clears DEBUGCTL.LBR (17.4.1).
 * Return: BTS_MODEL_OK, or BTS_MODEL_EINVAL if @cpu or @br is NULL, the
 *         kind or mode is out of range or cpl above 3 (nothing changed).
 */
int bts_model_branch(struct bts_model_cpu *cpu, const struct bts_branch *br);

/* What signalled a PMI (17.4.7's list of the conditions that freeze). */
enum bts_pmi_source {
	BTS_PMI_COUNTER,	/* a counter overflowed with its PMI bit set */
	BTS_PMI_PEBS,		/* the PEBS buffer reached its threshold */
	BTS_PMI_BTS,		/* the BTS buffer reached its threshold (the model) */
	BTS_PMI_NR
};

/**
 * bts_model_pmi() - a PMI is signalled (17.4.7).
 * @cpu: the CPU.
 * @src: what signalled it; the model signals BTS_PMI_BTS itself.
 *
 * Applies the freeze: with FREEZE_LBRS_ON_PMI, perfmon version 2-3 clears
 * DEBUGCTL.LBR (legacy), version 4 sets IA32_PERF_GLOBAL_STATUS.LBR_Frz
 * (streamlined); with FREEZE_PERFMON_ON_PMI, version 2-3 clears
 * IA32_PERF_GLOBAL_CTRL, version 4 sets CTR_Frz. Erratum AJ106 (profile
 * erratum_aj106, Core 2 06_0FH as perf's intel_clovertown_quirk() lists
 * it): a PEBS PMI does not freeze the LBRs. Unknown @src: no effect.
 */
void bts_model_pmi(struct bts_model_cpu *cpu, enum bts_pmi_source src);

/**
 * bts_model_single_step_trap() - whether EFLAGS.TF traps after an
 * instruction (17.4.1 BTF, 17.4.3).
 * @cpu: the CPU.  @tf: EFLAGS.TF while the instruction ran.
 * @branch: the instruction was a taken branch, or an interrupt or
 *          exception was delivered after it.
 * Return: true if a single-step #DB follows: TF=1 and (BTF=0 or @branch).
 */
bool bts_model_single_step_trap(const struct bts_model_cpu *cpu, bool tf, bool branch);

/**
 * bts_model_set_pmi_skid() - how late the BTS threshold interrupt arrives.
 * @cpu: the CPU.  @branches: the PMI is delivered at the @branches-th
 *       branch of the traced code after the store that reached the
 *       threshold, before that branch is recorded (@branches - 1 more
 *       records land first); 0 (the RESET value) delivers it at once.
 *
 * The DS interrupt is not precise (17.4.9.3: it is a performance-
 * monitoring interrupt through the LVT; 17.4.9.5's PEBS note on skid
 * holds for it too): software must leave room for records after the
 * threshold (perf's BTS_SAFETY_MARGIN). A WRMSR of IA32_DEBUGCTL or
 * IA32_DS_AREA delivers a pended PMI right after the write took effect:
 * the interrupt reaches a handler that already turned BTS off or switched
 * the DS area (the late PMI).
 */
void bts_model_set_pmi_skid(struct bts_model_cpu *cpu, unsigned int branches);

/**
 * bts_model_set_pt_trace_en() - IA32_RTIT_CTL.TraceEn changed (33.3.1.2).
 * @cpu: the CPU.  @on: the new TraceEn.
 *
 * On a profile with lbr_pt_exclusive, TraceEn=1 suspends LBR, BTS, BTM and
 * LER updates (DEBUGCTL keeps its value) and makes the LBR MSRs read 0 and
 * drop writes; TraceEn 1->0 resets the LBR array. No effect on other
 * profiles.
 */
void bts_model_set_pt_trace_en(struct bts_model_cpu *cpu, bool on);

/* bts_model_get_stats() - the CPU's counters (never NULL for a valid @cpu). */
const struct bts_model_stats *bts_model_get_stats(const struct bts_model_cpu *cpu);

#endif /* LWPT_MODEL_BTS_MODEL_H */
