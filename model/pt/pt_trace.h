/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The PT packet generator: the part of the PT model that watches a thread
 * execute and writes the packets an Intel PT unit would (SDM 33.2-33.4).
 *
 * The caller feeds execution one retired user-mode instruction at a time
 * (struct pt_trace_step: IP, bytes, the IP observed after it, CPL, CR3,
 * TSC, mode), for example from ptrace single-stepping. The generator keeps
 * the internal state the SDM describes - TriggerEn, ContextEn, FilterEn,
 * PacketEn (33.2.6), the TNT buffer (33.4.2.1), the 64-entry RET compression
 * stack and Last IP (33.4.2.2), the PSB byte counter (33.4.2.17), overflow
 * (33.3.8) - and writes packets through a sink callback.
 *
 * A step is processed when its successor is known (the next step, or
 * pt_trace_disable()): the successor tells whether the instruction left
 * user mode and what CPL, CR3 and mode execution resumed in.
 *
 * Kernel-mode execution is outside the model: CPL 0 behaves as filtered
 * (ContextEn=0) whatever IA32_RTIT_CTL.OS says. Every simplification is
 * listed in Documentation/pt-model.rst, "Execution and packets".
 *
 * Plain C on model/model_env.h only, for lwpt_sim.ko and user space.
 */
#ifndef LWPT_MODEL_PT_TRACE_H
#define LWPT_MODEL_PT_TRACE_H

#include "model/model_env.h"
#include "model/x86/x86_cofi.h"

/* Depth of the CALL stack for RET compression, SDM 33.4.2.2. */
#define PT_TRACE_RETSTACK_DEPTH	64
/* ADDRn ranges the generator supports (IA32_RTIT_CTL has 4 ADDRn_CFG). */
#define PT_TRACE_MAX_RANGES	4

/*
 * The sink: receives each packet (or a few packets) in trace order.
 * Return 0 when the bytes were accepted; -ENOSPC when the output cannot
 * keep up (internal buffer overflow, SDM 33.3.8: the generator drops
 * packets until the sink accepts an OVF); any other negative value when
 * output stopped for good (ToPA STOP, operational error: the generator
 * clears TriggerEn and writes nothing more until re-enabled).
 */
typedef int (*pt_trace_emit_fn)(void *ctx, const uint8_t *bytes, size_t len);

/*
 * Optional hooks to a processor model (model/pt/pt_model.h); all may be
 * NULL. psb_due/psb_begin replace the generator's own PacketByteCnt
 * (SDM 33.4.2.17); enables reports ContextEn/FilterEn for IA32_RTIT_STATUS
 * (33.2.8.4); trace_stop runs after the TraceStop packet (33.2.5.3).
 */
struct pt_trace_hooks {
	bool (*psb_due)(void *ctx);
	void (*psb_begin)(void *ctx);
	void (*enables)(void *ctx, bool context_en, bool filter_en);
	void (*trace_stop)(void *ctx);
};

/* Configuration, as the MSRs were when TraceEn was set. */
struct pt_trace_config {
	uint64_t rtit_ctl;		/* IA32_RTIT_CTL; TraceEn itself is ignored */
	uint64_t cr3_match;		/* IA32_RTIT_CR3_MATCH */
	uint64_t addr_a[PT_TRACE_MAX_RANGES];	/* IA32_RTIT_ADDRn_A */
	uint64_t addr_b[PT_TRACE_MAX_RANGES];	/* IA32_RTIT_ADDRn_B */
	unsigned int nr_ranges;		/* CPUID.(14H,1):EAX[2:0], 0..4 */
	uint8_t cbr;			/* Core:Bus Ratio reported in CBR packets */
	uint32_t tsc_art_num;		/* CPUID.15H:EBX (TSC/ART numerator) */
	uint32_t tsc_art_den;		/* CPUID.15H:EAX (TSC/ART denominator) */
	bool tnt64;			/* pack up to 47 TNT bits in TNT-64 packets */
	pt_trace_emit_fn emit;
	void *emit_ctx;
	const struct pt_trace_hooks *hooks;	/* optional, called with emit_ctx */
};

/* One retired instruction of the traced thread. */
struct pt_trace_step {
	uint64_t ip;			/* linear address of the instruction */
	uint8_t insn[X86_MAX_INSN_LEN];	/* its bytes (insn_size valid) */
	uint8_t insn_size;		/* 1..15: bytes valid in insn[] */
	uint8_t cpl;			/* CPL it ran at: 3 for user mode */
	enum x86_mode mode;		/* CS.L/CS.D mode it ran in */
	uint64_t next_ip;		/* IP observed after it retired */
	uint64_t cr3;			/* CR3 while it ran */
	uint64_t tsc;			/* TSC when it retired (TSC, MTC, TMA, CYC) */
	uint8_t ptw_size;		/* PTWRITE operand bytes (4, 8), else 0 */
	uint64_t ptw_value;		/* the PTWRITE operand (ptw_size bytes) */
};

/* Packets written, by type, and other counters. */
struct pt_trace_stats {
	uint64_t steps;
	uint64_t bytes;			/* accepted by the sink */
	uint64_t dropped_bytes;		/* offered during overflow */
	uint64_t psb, tnt, tip, tip_pge, tip_pgd, fup, mode_exec;
	uint64_t tsc, tma, mtc, cbr, ovf, tracestop, pip, cyc, ptw;
	uint64_t tnt_bits, ret_compressed;
};

/* Generator state. Embed it; touch fields only through pt_trace_*(). */
struct pt_trace {
	struct pt_trace_config cfg;
	uint64_t psb_period;		/* bytes between PSBs (PSBFreq) */
	uint64_t bytes_since_psb;	/* PacketByteCnt since the last PSB */

	bool trace_en;			/* IA32_RTIT_CTL.TraceEn */
	bool trigger_en;		/* SDM 33.2.6.2 */
	bool context_en;		/* SDM 33.2.6.3 */
	bool filter_en;			/* SDM 33.2.6.5 */
	bool packet_en;			/* SDM 33.2.6.1 */
	bool stopped;			/* IA32_RTIT_STATUS.Stopped by TraceStop */
	bool error;			/* the sink stopped output */
	int sink_err;			/* its error code */
	bool overflow;			/* packets are being dropped */
	bool enter_pending;		/* next step re-enters user mode */

	bool have_prev;
	struct pt_trace_step prev;	/* retired, packets not yet decided */
	bool cur_ip_valid;
	uint64_t cur_ip;		/* IP of the next user instruction */
	uint64_t cur_cr3;		/* CR3 of the traced context (PIP) */

	uint64_t last_ip;		/* Last IP, SDM 33.4.2.2 IP compression */
	bool ip_full_next;		/* next IP uncompressed (after OVF) */
	bool mode_valid;		/* a MODE.Exec was sent since the last PSB */
	uint8_t mode_sent;		/* its payload */
	uint64_t tnt_bits;		/* pending TNT bits, oldest highest */
	unsigned int tnt_n;

	uint64_t retstack[PT_TRACE_RETSTACK_DEPTH];
	unsigned int rs_top;		/* index of the next push */
	unsigned int rs_n;		/* valid entries */

	bool ctc_valid;
	uint64_t ctc;			/* ART >> MTCFreq at the last MTC/TMA */

	uint64_t now;			/* TSC of the packets being written */
	uint64_t cyc_ref;		/* TSC where the cycle counter was 0 */
	uint64_t cyc_thresh;		/* CycThresh in cycles (33.3.6.3) */

	struct pt_trace_stats stats;
};

/**
 * pt_trace_init() - check a configuration and reset the generator.
 * @tr:  storage for the generator.
 * @cfg: configuration; copied.
 *
 * Tracing starts with pt_trace_enable(). Supported IA32_RTIT_CTL fields:
 * OS, User, BranchEn, TSCEn, MTCEn/MTCFreq, PSBFreq, CYCEn/CycThresh
 * (33.3.6: the core clock is the TSC, one cycle per TSC tick), PTWEn and
 * FUPonPTW (33.2.2), DisRETC, CR3Filter, ADDRn_CFG (FilterEn and TraceStop
 * ranges), DisTNT, ToPA/FabricEn (output routing, not the generator's
 * business) and InjectPsbPmiOnEnable.
 *
 * Return: 0; -EINVAL if @tr, @cfg or cfg->emit is NULL, a reserved bit of
 *         IA32_RTIT_CTL (Table 33-6) is set, an ADDRn_CFG is reserved (3..15)
 *         or configures a range beyond cfg->nr_ranges, nr_ranges > 4, or
 *         MTCEn is set without a TSC/ART ratio; -EOPNOTSUPP if PwrEvtEn or
 *         EventEn is set (power event and event trace packets are not
 *         modelled).
 */
int pt_trace_init(struct pt_trace *tr, const struct pt_trace_config *cfg);

/**
 * pt_trace_enable() - IA32_RTIT_CTL.TraceEn goes 0 -> 1 (SDM 33.2.8.3).
 * @tr:  the generator.
 * @tsc: TSC at the WRMSR, for the TSC and TMA packets.
 *
 * Writes PSB+ (PSB, TSC if TSCEn, TMA if TSCEn and MTCEn, CBR, PSBEND); the
 * first step then gets MODE.Exec and TIP.PGE if PacketEn rises there.
 * TriggerEn stays 0 while the generator is stopped (TraceStop) or the sink
 * failed, until pt_trace_init() again.
 *
 * Return: 0; -EINVAL if @tr is NULL; -EBUSY if tracing is already enabled.
 */
int pt_trace_enable(struct pt_trace *tr, uint64_t tsc);

/**
 * pt_trace_step() - the traced thread retired one instruction.
 * @tr:   the generator.
 * @step: the instruction; copied.
 *
 * Decides the packets of the previous step now that its successor is known
 * (TNT bit, TIP, TIP.PGE/PGD, FUP, MODE.Exec, TraceStop, MTC, CYC, PTW,
 * PSB+, OVF; SDM Tables 33-55 to 33-57). Steps while tracing is disabled
 * are ignored.
 *
 * Return: 0; -EINVAL if @tr or @step is NULL, insn_size is 0 or above 15,
 *         cpl above 3, mode not an enum x86_mode, the bytes end before
 *         the instruction does, or ptw_size is not 0, 4 or 8 (nothing
 *         changed in all these cases).
 */
int pt_trace_step(struct pt_trace *tr, const struct pt_trace_step *step);

/**
 * pt_trace_disable() - IA32_RTIT_CTL.TraceEn goes 1 -> 0 (SDM 33.2.8.3).
 * @tr: the generator.
 *
 * Finishes the last step as if the thread was interrupted after it: if
 * PacketEn is 1, FUP(next IP) and TIP.PGD() (Table 33-56, case 7), and
 * flushes the TNT buffer.
 *
 * Return: 0; -EINVAL if @tr is NULL. Disabling twice is harmless.
 */
int pt_trace_disable(struct pt_trace *tr);

/**
 * pt_trace_get_stats() - counters of packets written.
 * @tr: the generator.
 * Return: the counters, or NULL if @tr is NULL.
 */
const struct pt_trace_stats *pt_trace_get_stats(const struct pt_trace *tr);

/**
 * pt_trace_stopped() - IA32_RTIT_STATUS.Stopped set by a TraceStop range.
 * @tr: the generator.
 * Return: true once a TraceStop range was entered (SDM 33.2.5.3).
 */
bool pt_trace_stopped(const struct pt_trace *tr);

struct pt_model_cpu;

/**
 * pt_trace_model_config() - a configuration that drives the core model.
 * @cfg: out, the configuration for pt_trace_init().
 * @cpu: the model CPU (model/pt/pt_model.h) whose MSRs are read now, at
 *       TraceEn 0->1: IA32_RTIT_CTL, CR3_MATCH, ADDRn_A/B, and RANGECNT
 *       from its CPUID leaf 14H.
 * @cbr: Core:Bus ratio for CBR packets.
 * @tsc_art_num, @tsc_art_den: CPUID.15H EBX and EAX (TSC/ART ratio), used
 *       only with MTCEn.
 *
 * Packets go to pt_model_output() (ToPA or single-range output, 33.2.7);
 * a short store means output stopped (STOP, operational error): the
 * generator stops too. PSB+ follows the core's PacketByteCnt
 * (pt_model_psb_due()/pt_model_psb_begin()); ContextEn/FilterEn and TraceStop
 * are reported to the core (pt_model_set_enables(), pt_model_trace_stop()).
 *
 * Return: 0; -EINVAL if @cfg or @cpu is NULL.
 */
int pt_trace_model_config(struct pt_trace_config *cfg, struct pt_model_cpu *cpu,
			  uint8_t cbr, uint32_t tsc_art_num, uint32_t tsc_art_den);

#endif /* LWPT_MODEL_PT_TRACE_H */
