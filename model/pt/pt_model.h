/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A software model of one logical processor's Intel Processor Trace unit:
 * the CPUID leaf 14H it reports, its IA32_RTIT_* MSRs with the rules of SDM
 * 33.2.8 and 33.3.1, trace output through ToPA or single-range output
 * (33.2.7), the ToPA PMI (IA32_PERF_GLOBAL_STATUS bit 55), and XSAVES /
 * XRSTORS of PT state (SDM Vol. 1 13.5.6).
 *
 * Plain C on model/model_env.h only: compiled into lwpt_sim.ko and into the
 * unit tests. The model never signals: an instruction that would #GP returns
 * PT_MODEL_EGP, counts a spec violation and calls the log callback; an
 * operational error sets IA32_RTIT_STATUS.Error and stops tracing, as the
 * hardware does. The packet generator (model/pt/trace*.c) writes packet
 * bytes with pt_model_output(), which plays the processor's output logic.
 *
 * Embedding: struct pt_model_cpu is public so it can live in per-CPU data;
 * initialise it with pt_model_cpu_init(), touch fields only through the
 * functions here. Not thread-safe: one caller per CPU object at a time.
 * Callbacks may re-enter the model (e.g. the PMI handler clears TraceEn).
 */
#ifndef LWPT_MODEL_PT_MODEL_H
#define LWPT_MODEL_PT_MODEL_H

#include "model/model_env.h"
#include <lwpt/pt_arch.h>

/* Results of model operations: 0 or a negative code from this enum. */
enum pt_model_err {
	PT_MODEL_OK = 0,
	PT_MODEL_EGP = -1,	/* the instruction would raise #GP; nothing changed */
	PT_MODEL_ENOMSR = -2,	/* the MSR is not one the model implements */
	PT_MODEL_EINVAL = -3,	/* bad argument from the caller (not a CPU fault) */
};

/**
 * pt_model_strerror() - text for an enum pt_model_err value.
 * @err: a value returned by a pt_model_* function.
 * Return: a static string; "unknown error" for unknown values.
 */
const char *pt_model_strerror(int err);

/* --- Profiles --------------------------------------------------------- */

/*
 * A processor the model pretends to be: CPUID leaf 14H plus the few other
 * facts the PT rules depend on. See Documentation/pt-model.rst.
 */
struct pt_model_profile {
	const char *name;		/* "bdw", "full" */
	struct pt_cpuid_leaf leaf;	/* CPUID.(EAX=14H, ECX=0 and 1) */
	unsigned int maxphyaddr;	/* CPUID.80000008H:EAX[7:0] */
	unsigned int linear_bits;	/* 48 (4-level) for canonical checks */
	bool xsaves_pt;			/* CPUID.(EAX=0DH,ECX=1):ECX[8]: IA32_XSS[8] */
	unsigned int perfmon_version;	/* >= 4: IA32_PERF_GLOBAL_STATUS_SET exists */
	bool erratum_bdm106;		/* Broadwell BDM106: TraceEn needs BranchEn */
	bool lbr_exclusive;		/* SDM 33.3.1.2: PT and LBRs mutually exclusive */
	bool erratum_single_4k;		/* TGL052/ADL037/RPL017: single range > 4 KiB */
};

/* First generation (Broadwell): single-region ToPA, no PSB/CYC/MTC/IP filter. */
extern const struct pt_model_profile pt_model_profile_bdw;
/* Every feature of Tables 33-11/33-12 except FabricEn (trace transport). */
extern const struct pt_model_profile pt_model_profile_full;
/* Tiger Lake (06_8CH): erratum TGL052, single-range output above 4 KiB. */
extern const struct pt_model_profile pt_model_profile_tgl;

/**
 * pt_model_profile_find() - look a profile up by name.
 * @name: "bdw", "full" or "tgl" (NUL-terminated).
 * Return: the profile, or NULL if @name is unknown or NULL.
 */
const struct pt_model_profile *pt_model_profile_find(const char *name);

/* --- Spec violations and operational errors ---------------------------- */

/* Driver behaviour the spec forbids; each is counted and logged. */
enum pt_model_violation_kind {
	PT_VIOL_NONE = 0,
	PT_VIOL_RESERVED_BIT,		/* 33.2.8.1: reserved or unenumerated bit set */
	PT_VIOL_BAD_ENCODING,		/* 33.2.8.2: MTCFreq/CycThresh/PSBFreq/ADDRn_CFG */
	PT_VIOL_WRITE_WHILE_TRACING,	/* 33.2.8.1/33.2.8.3: config MSR write, TraceEn=1 */
	PT_VIOL_NO_OUTPUT_SCHEME,	/* 33.2.8.2: TraceEn with ToPA=0, no SNGLRGNOUT */
	PT_VIOL_NON_CANONICAL,		/* 33.2.8.5: ADDRn not canonical */
	PT_VIOL_MSR_NOT_ENUMERATED,	/* 33.3.1: access to an MSR CPUID does not report */
	PT_VIOL_READ_ONLY_MSR,		/* write to a read-only MSR (IA32_PERF_GLOBAL_STATUS) */
	PT_VIOL_XRSTORS_TRACING,	/* Vol.1 13.5.6: XRSTORS of PT state with TraceEn=1 */
	PT_VIOL_XSS_UNSUPPORTED,	/* Vol.1 13.3: IA32_XSS[8] without support */
	PT_VIOL_OPERATIONAL_ERROR,	/* 33.3.10: the output configuration was bad */
	PT_VIOL_PMI_STORM,		/* 33.2.7.2: PendTopaPMI left set, PMI re-pended */
	PT_VIOL_TOPA_MODIFIED,		/* 33.2.7.2: current ToPA entry changed, TraceEn=1 */
	PT_VIOL_ERRATUM,		/* a model-specific erratum (BDM106 #GP, TGL052) */
	PT_VIOL_LBR_EXCLUSIVE,		/* 33.3.1.2: TraceEn set with DEBUGCTL.LBR=1 */
	PT_VIOL_NR
};

/* Operational errors (SDM 33.2.7.1, 33.2.7.2 "ToPA Errors", 33.2.7.4). */
enum pt_model_operr {
	PT_OPERR_NONE = 0,
	PT_OPERR_TOPA_RESERVED,		/* 1: entry reserved bit set */
	PT_OPERR_TOPA_TABLE_ALIGN,	/* 2a: table base not 4K aligned */
	PT_OPERR_TOPA_REGION_ALIGN,	/* 2b: region base not aligned to its size */
	PT_OPERR_TOPA_MAXPHYADDR,	/* 2c: base above MAXPHYADDR */
	PT_OPERR_TOPA_OUTPUT_OFFSET,	/* 3: OutputOffset >= region size */
	PT_OPERR_TOPA_END_INT_STOP,	/* 4a: END=1 with INT or STOP */
	PT_OPERR_TOPA_END_ENTRY0,	/* 4b: END in entry 0 of a table */
	PT_OPERR_TOPA_SINGLE_NOT_END,	/* 4c-i: MENTRY=0, entry 1 with END=0 */
	PT_OPERR_TOPA_SINGLE_END_BASE,	/* 4c-ii: MENTRY=0, entry 1 base != table base */
	PT_OPERR_SINGLE_MASK,		/* 33.2.7.1: mask not contiguous */
	PT_OPERR_SINGLE_BASE_MASK,	/* 33.2.7.1: base and mask overlap */
	PT_OPERR_SINGLE_OFFSET,		/* 33.2.7.1: OutputOffset > mask */
	PT_OPERR_RESTRICTED_MEMORY,	/* 33.2.7.4: a table read or store was refused */
	PT_OPERR_NR
};

/* What the log callback receives. */
struct pt_model_violation {
	enum pt_model_violation_kind kind;
	enum pt_model_operr operr;	/* for PT_VIOL_OPERATIONAL_ERROR */
	const char *section;		/* SDM section, e.g. "SDM 33.2.8.2" */
	const char *what;		/* short static description */
	uint32_t msr;			/* MSR involved, 0 if none */
	uint64_t value;			/* value written, entry read, ... */
};

/* Static strings naming a violation kind / an operational error. */
const char *pt_model_violation_str(enum pt_model_violation_kind kind);
const char *pt_model_operr_str(enum pt_model_operr operr);

/*
 * SDM 33.2.7.2 "ToPA PMI and Single Output Region ToPA Implementation": with
 * MENTRY=0 the PMI of an INT region comes before the region is filled. The
 * model raises it when fewer than this many bytes of the region remain
 * (perf's intel_pt driver assumes the same 512-byte margin).
 */
#define PT_MODEL_MENTRY0_PMI_MARGIN	512u

/* SDM 33.3.7: PSB period in bytes when PSBFreq is not configurable (EBX[1]=0). */
#define PT_MODEL_FIXED_PSB_PERIOD	2048u

/* --- The environment the model runs in --------------------------------- */

struct pt_model_cpu;

/*
 * Caller callbacks. read_phys and write_phys move @len bytes between the
 * model and "physical memory"; they return 0 or a negative value when the
 * address is not backed (treated as restricted memory, 33.2.7.4). pmi is the
 * PMI the processor would deliver on the LVT performance-monitor vector;
 * IA32_PERF_GLOBAL_STATUS.Trace_ToPA_PMI is already set when it runs. log
 * reports each spec violation. trace_en is told, with the model consistent,
 * after TraceEn goes 0->1 (@on true, TriggerEn already set) and before it
 * goes 1->0 (@on false, output still possible: the packet generator's TIP.PGD).
 * On 0->1 TriggerEn is set unless IA32_RTIT_STATUS.Stopped or Error is set or
 * an operational error was detected at enable.
 * Any callback except read_phys/write_phys may be NULL.
 */
struct pt_model_ops {
	int (*read_phys)(void *ctx, uint64_t pa, void *buf, size_t len);
	int (*write_phys)(void *ctx, uint64_t pa, const void *buf, size_t len);
	void (*pmi)(void *ctx, struct pt_model_cpu *cpu);
	void (*log)(void *ctx, struct pt_model_cpu *cpu, const struct pt_model_violation *v);
	void (*trace_en)(void *ctx, struct pt_model_cpu *cpu, bool on);
};

/* Counters kept per CPU; plain reads are fine. */
struct pt_model_stats {
	uint64_t violations;		/* spec violations, all kinds */
	uint64_t by_kind[PT_VIOL_NR];
	uint64_t bytes_written;		/* packet bytes stored to memory */
	uint64_t bytes_dropped;		/* bytes offered while output was impossible */
	uint64_t wraps;			/* END entries followed / single-range wraps */
	uint64_t regions_filled;	/* ToPA regions filled */
	uint64_t pmis;			/* ToPA PMIs raised */
	uint64_t operrs;		/* operational errors */
	uint64_t lbr_overlaps;		/* DEBUGCTL.LBR set while TraceEn=1 (33.3.1.2) */
	uint64_t erratum_dropped;	/* of bytes_dropped: lost to TGL052 (single range) */
};

/* One logical processor. Fields are private to model/pt/. */
struct pt_model_cpu {
	const struct pt_model_profile *prof;
	const struct pt_model_ops *ops;
	void *ctx;
	int id;				/* caller's CPU number, for logs */

	/* Architectural state, SDM 33.2.8. */
	uint64_t ctl;
	uint64_t status;
	uint64_t output_base;
	uint64_t output_mask_ptrs;
	uint64_t cr3_match;
	uint64_t addr_a[PT_ADDR_RANGES_MAX];
	uint64_t addr_b[PT_ADDR_RANGES_MAX];
	uint64_t xss;
	uint64_t perf_global_status;	/* only bit 55 is modelled */
	uint64_t debugctl;		/* IA32_DEBUGCTL; only LBR (bit 0) has an effect */

	/* Internal output state (proc_trace_*, cached ToPA entry). */
	bool entry_valid;		/* entry caches the current ToPA entry */
	uint64_t entry;
	bool pmi_pending;		/* raise the PMI when the model is consistent */
	bool mentry0_pmi_sent;		/* MENTRY=0: early PMI sent for this fill */
	bool psb_due;			/* a PSB+ should be written (33.3.7) */
	uint64_t psb_count;		/* PacketByteCnt when EBX[1]=0 (not visible) */
	bool in_pmi;			/* the PMI callback is running (LVT masked) */
	uint64_t pmi_skid;		/* bytes written after an INT fill before the PMI */
	uint64_t skid_left;		/* of pmi_skid, still to write before delivery */

	struct pt_model_stats stats;
};

/**
 * pt_model_cpu_init() - put a CPU in its RESET state (every RTIT MSR 0).
 * @cpu:  storage for the CPU.
 * @prof: the profile; must outlive @cpu.
 * @ops:  callbacks; read_phys and write_phys are required; must outlive @cpu.
 * @ctx:  passed to every callback.
 * @id:   the caller's number for this CPU (appears nowhere architectural).
 *
 * Return: PT_MODEL_OK, or PT_MODEL_EINVAL if a required pointer is NULL.
 */
int pt_model_cpu_init(struct pt_model_cpu *cpu, const struct pt_model_profile *prof,
		      const struct pt_model_ops *ops, void *ctx, int id);

/**
 * pt_model_reset() - RESET of the logical processor (SDM 33.2.8.1, 33.3.4).
 * @cpu:  the CPU.
 * @warm: false for power-on (cold) RESET: every RTIT MSR is cleared. true for
 *        warm RESET: with CPUID.(14H,0):EBX[2] only TraceEn (and with it
 *        TriggerEn) is cleared and the other values are kept; without
 *        EBX[2] every RTIT MSR is cleared. Counters and IA32_XSS are kept
 *        (IA32_XSS is cleared too on cold RESET).
 * No callback runs (nothing is flushed: RESET loses buffered packets).
 */
void pt_model_reset(struct pt_model_cpu *cpu, bool warm);

/*
 * PMIs re-pended by the PMI handler itself, back to back, before the model
 * stops re-delivering and reports PT_VIOL_PMI_STORM (a handler that re-enables
 * tracing without clearing PendTopaPMI would otherwise loop for ever).
 */
#define PT_MODEL_PMI_STORM_LIMIT	16u

/**
 * pt_model_cpuid() - CPUID as the model's processor answers it.
 * @cpu:  the CPU.
 * @leaf: 07H, 0DH, 14H or 80000008H (others return all zero).
 * @subleaf: ECX.
 * @regs: out, EAX EBX ECX EDX. Leaf 07H reports only EBX[25] (PT); leaf 0DH
 *        only the PT bits (sub-leaf 1 EAX[3] XSAVES and ECX[8], sub-leaf 8
 *        size 72 and ECX[0]) when the profile has XSAVES for PT; leaf 14H
 *        sub-leaves above the maximum read as 0.
 * Return: PT_MODEL_OK, or PT_MODEL_EINVAL if @regs is NULL.
 */
int pt_model_cpuid(const struct pt_model_cpu *cpu, uint32_t leaf, uint32_t subleaf,
		   uint32_t regs[4]);

/**
 * pt_model_rdmsr() - RDMSR of a PT MSR.
 * @cpu: the CPU.  @msr: MSR address.  @val: out, the value.
 *
 * Implements IA32_RTIT_* (SDM 33.2.8), IA32_XSS, IA32_PERF_GLOBAL_STATUS,
 * IA32_DEBUGCTL (stored as written; only its LBR bit matters, below).
 * Return: PT_MODEL_OK; PT_MODEL_EGP (and a violation) for an MSR the profile
 * does not enumerate (CR3_MATCH without EBX[0], ADDRn beyond RANGECNT, output
 * MSRs without ToPA or single-range output); PT_MODEL_ENOMSR for MSRs the
 * model does not implement (nothing counted).
 */
int pt_model_rdmsr(struct pt_model_cpu *cpu, uint32_t msr, uint64_t *val);

/**
 * pt_model_wrmsr() - WRMSR of a PT MSR, with every rule of SDM 33.2.8.
 * @cpu: the CPU.  @msr: MSR address.  @val: value written.
 *
 * Writing IA32_RTIT_CTL with TraceEn 0->1 starts output (and may detect an
 * operational error at once, 33.3.10); 1->0 ends it with the output MSRs
 * stable. Writing 1 to bit 55 of IA32_PERF_GLOBAL_STATUS_RESET clears
 * Trace_ToPA_PMI. Callbacks may run before this returns.
 *
 * PT and LBRs on a profile with lbr_exclusive (SDM 33.3.1.2): setting
 * TraceEn (WRMSR or XRSTORS) while IA32_DEBUGCTL.LBR=1 is a violation
 * (PT_VIOL_LBR_EXCLUSIVE; the write takes effect, LBRs suspended, as the
 * SDM describes for the restricted processors). Setting LBR by WRMSR
 * IA32_DEBUGCTL while TraceEn=1 is accepted and counted in
 * stats.lbr_overlaps: it is another agent's write (lwpt never writes
 * IA32_DEBUGCTL), and the hazard (an SMI/RSM with both set shuts the
 * platform down, SDM 33.2.9.3) lasts until TraceEn is cleared.
 * Return: PT_MODEL_OK; PT_MODEL_EGP (state unchanged, violation counted) where
 * the processor raises #GP; PT_MODEL_ENOMSR for MSRs the model does not
 * implement.
 */
int pt_model_wrmsr(struct pt_model_cpu *cpu, uint32_t msr, uint64_t val);

/**
 * pt_model_output() - the processor stores packet bytes (the output sink).
 * @cpu:   the CPU.
 * @bytes: packet bytes, in trace order.
 * @len:   number of bytes.
 *
 * Writes through ToPA (multi-entry, END, STOP, INT) or single-range output
 * and advances IA32_RTIT_OUTPUT_BASE / OUTPUT_MASK_PTRS exactly as the
 * processor does (33.2.7); increments PacketByteCnt and marks a PSB due when
 * PSBFreq bytes have been sent. Bytes offered while TriggerEn=0 are dropped
 * and counted. A STOP region filled, an operational error or a failed store
 * stops tracing part way; the rest of @bytes is dropped. A ToPA PMI raised
 * while writing is delivered (callback) before this returns.
 *
 * Erratum TGL052/ADL037/RPL017 (profile erratum_single_4k): a single range
 * larger than 4 KiB stores only the bytes that fall in its first 4 KiB;
 * the others are dropped (stats.bytes_dropped and erratum_dropped) while
 * OutputOffset advances as if they were stored - the trace reads back as
 * PAD bytes (zeroes) there. Enabling such a range is a PT_VIOL_ERRATUM.
 * Return: the number of bytes stored to memory (0..@len), erratum-dropped
 * bytes included (the processor believes it stored them).
 */
size_t pt_model_output(struct pt_model_cpu *cpu, const uint8_t *bytes, size_t len);

/**
 * pt_model_xsaves() - XSAVES of PT state (component 8).
 * @cpu:  the CPU.
 * @rfbm: requested-feature bitmap (EDX:EAX); PT state is saved only if
 *        IA32_XSS[8] and @rfbm[8] are 1.
 * @area: out, the PT state component (72 bytes).
 * @saved: out (may be NULL), XSTATE_BV[8]: true if PT state was written.
 *
 * Saves IA32_RTIT_CTL, then clears TraceEn (a full disable: output flushed,
 * trace_en callback), then saves the other eight MSRs (SDM Vol. 1 13.5.6).
 * Return: PT_MODEL_OK, or PT_MODEL_EINVAL if @area is NULL.
 */
int pt_model_xsaves(struct pt_model_cpu *cpu, uint64_t rfbm, struct pt_xsave_state *area,
		    bool *saved);

/**
 * pt_model_xrstors() - XRSTORS of PT state (component 8).
 * @cpu:  the CPU.
 * @rfbm: requested-feature bitmap; PT state is touched only if IA32_XSS[8]
 *        and @rfbm[8] are 1.
 * @area: the PT state component, or NULL with @xstate_bv_pt false.
 * @xstate_bv_pt: XSTATE_BV[8]: true loads @area, false initialises PT state
 *        (all nine MSRs 0).
 *
 * #GP if TraceEn=1 or if any value would make WRMSR fault; on #GP nothing is
 * modified. IA32_RTIT_CTL is loaded last, so TraceEn=1 starts tracing.
 * Return: PT_MODEL_OK, PT_MODEL_EGP (violation counted), or PT_MODEL_EINVAL.
 */
int pt_model_xrstors(struct pt_model_cpu *cpu, uint64_t rfbm,
		     const struct pt_xsave_state *area, bool xstate_bv_pt);

/**
 * pt_model_set_pmi_skid() - how late the ToPA PMI is taken (SDM 33.2.7.2).
 * @cpu:   the CPU.
 * @bytes: after the output logic raises a ToPA PMI (an INT region filled,
 *         or the early PMI of a MENTRY=0 region), it goes on writing this
 *         many more bytes before the PMI is delivered: "This interrupt is
 *         not precise, and it is thus likely that writes to the next region
 *         will occur by the time the interrupt is taken". A pending PMI is
 *         delivered at once when output stops (STOP, operational error,
 *         TraceEn=0). 0: delivered after the instruction that raised it.
 */
void pt_model_set_pmi_skid(struct pt_model_cpu *cpu, uint64_t bytes);

/* --- Queries and hooks for the packet generator (model/pt/trace*.c) ---- */

/* pt_model_trigger_en() - IA32_RTIT_STATUS.TriggerEn (33.2.6.2). */
bool pt_model_trigger_en(const struct pt_model_cpu *cpu);

/* pt_model_ctl() - the current IA32_RTIT_CTL value. */
uint64_t pt_model_ctl(const struct pt_model_cpu *cpu);

/**
 * pt_model_set_enables() - the processor updates ContextEn and FilterEn.
 * @cpu: the CPU.  @context_en, @filter_en: new values (33.2.6.3, 33.2.6.5).
 *
 * Ignored while TriggerEn=0 (the processor does not update them then).
 * FilterEn stays 1 when no ADDRn range is configured as a filter or the
 * profile lacks IP filtering (33.2.6.5).
 */
void pt_model_set_enables(struct pt_model_cpu *cpu, bool context_en, bool filter_en);

/**
 * pt_model_trace_stop() - a TraceStop range was entered (33.2.5.3).
 * @cpu: the CPU. Sets IA32_RTIT_STATUS.Stopped, clearing TriggerEn. The
 * packet generator writes its TIP.PGD and TraceStop packets *before* calling
 * this. No effect while TriggerEn=0.
 */
void pt_model_trace_stop(struct pt_model_cpu *cpu);

/**
 * pt_model_psb_due() - whether a PSB+ should be written now (33.3.7).
 * True after TraceEn 0->1 with PacketByteCnt=0 (always without EBX[1]) or
 * with PendPSB=1 and InjectPsbPmiOnEnable=1, and each time PacketByteCnt
 * reaches the PSBFreq period (2K bytes without EBX[1]).
 */
bool pt_model_psb_due(const struct pt_model_cpu *cpu);

/**
 * pt_model_psb_begin() - the generator starts writing a PSB+ now.
 * Resets the byte count towards the next PSB and clears PendPSB.
 */
void pt_model_psb_begin(struct pt_model_cpu *cpu);

/* pt_model_get_stats() - the CPU's counters (never NULL for a valid @cpu). */
const struct pt_model_stats *pt_model_get_stats(const struct pt_model_cpu *cpu);

#endif /* LWPT_MODEL_PT_MODEL_H */
