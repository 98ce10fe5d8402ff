/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * lwp_model: a software model of one AMD LWP unit (43724 rev 3.04).
 *
 * One struct lwp_model is one logical CPU: its LWP_CFG and XCR0[62] (per CPU,
 * §4) and the LWP state of the thread running on it (LWP_CBADDR and the
 * internal state of §8.2 / §8.3, switched with XSAVE/XRSTOR, §7). The model
 * never touches memory directly: every access to the LWPCB, the ring buffer
 * and memory operands goes through the caller's read/write callbacks, and
 * every exception is returned as a struct lwp_model_result (the model never
 * signals, sleeps, allocates or longjmps). It is plain C over
 * model/model_env.h and builds in the kernel and in user space.
 *
 * Not thread-safe: the caller serialises operations on one struct lwp_model.
 * Execution mode modelled: 64-bit mode, flat DS (base 0, no limit); the CPL
 * is set by the caller (default 3). See Documentation/lwp-model.rst for every
 * choice made where the specification leaves freedom.
 */
#ifndef LWPT_MODEL_LWP_MODEL_H
#define LWPT_MODEL_LWP_MODEL_H

#include "model/model_env.h"
#include <lwpt/lwp_arch.h>

/* ---------------------------------------------------------------------- */
/* Results                                                                 */
/* ---------------------------------------------------------------------- */

/* The exception an operation raised (the architectural outcome). */
enum lwp_model_exc {
	LWP_MODEL_EXC_NONE = 0,	/* completed */
	LWP_MODEL_EXC_UD,	/* #UD: LWP not supported/available, bad encoding */
	LWP_MODEL_EXC_GP,	/* #GP(0) */
	LWP_MODEL_EXC_PF,	/* #PF at pf_addr; pf_write tells the access */
};

/*
 * The outcome of every model operation. When exc != NONE, the operation had
 * no architectural effect other than the one the spec describes for that
 * fault (e.g. LLWPCB leaves LWP disabled after a #GP on the new LWPCB).
 */
struct lwp_model_result {
	enum lwp_model_exc exc;
	bool pf_write;		/* #PF: the faulting access was a write */
	uint64_t pf_addr;	/* #PF: linear address (CR2) */
	uint64_t value;		/* SLWPCB address, RDMSR/XGETBV value */
	bool cf;		/* LWPINS: the new CF (§5.4) */
	bool stored;		/* a record was written (maybe over the last) */
	bool missed;		/* ring full: MissedEvents++ (Table 6-1) */
};

/* Text for an exception kind ("none", "#UD", "#GP", "#PF"); never NULL. */
const char *lwp_model_exc_str(enum lwp_model_exc exc);

/* ---------------------------------------------------------------------- */
/* CPUID profiles (data)                                                   */
/* ---------------------------------------------------------------------- */

/*
 * A profile is the constant part of the LWP CPUID (Table 3-1 EBX/ECX/EDX,
 * §3.1 presence) plus the implementation choices of that part. EAX of
 * Fn8000_001C is not constant: bit 0 mirrors XCR0[62], bits 31:1 mirror
 * LWP_CFG (§3.3).
 */
struct lwp_model_profile {
	const char *name;
	bool lwp_supported;		/* Fn8000_0001_ECX[15], Fn0000_000D_x0 EDX[30] */
	uint32_t fn8000_001c_ebx;	/* Table 3-1 EBX */
	uint32_t fn8000_001c_ecx;	/* Table 3-1 ECX */
	uint32_t fn8000_001c_edx;	/* Table 3-1 EDX */
	uint32_t min_interval;		/* §5.1 step 7: minimum interval, events 2-6 */
	/*
	 * WRMSR LWP_CFG masks of a real part (both 0: the letter of §4.2,
	 * #GP on every reserved or unsupported bit). Bits in cfg_ignore_mask
	 * are dropped from the value written; bits in cfg_gp_mask raise #GP.
	 */
	uint64_t cfg_ignore_mask;
	uint64_t cfg_gp_mask;
};

/* §3, issue 3: the values read on an AMD FX-8150 (Family 15h). */
extern const struct lwp_model_profile lwp_model_profile_fx8150;
/* Every feature of §3: events 1-6, LwpInt, IP/branch/cache filtering, DAV. */
extern const struct lwp_model_profile lwp_model_profile_full;
/*
 * Honest user-space emulation: only LWPVAL (1) and LWPINS (255) and the
 * threshold interrupt (delivered through the interrupt callback).
 */
extern const struct lwp_model_profile lwp_model_profile_user;
/*
 * As "user", plus events 2 and 3 for callers that feed lwp_model_insn_retired()
 * and lwp_model_branch_retired() for every user instruction.
 */
extern const struct lwp_model_profile lwp_model_profile_user_exec;
/* A CPU without LWP (CPUID bit clear): instructions #UD, MSRs #GP. */
extern const struct lwp_model_profile lwp_model_profile_none;

/*
 * Find a profile by name: "fx8150", "full", "user", "user-exec", "none".
 * Returns NULL for an unknown name.
 */
const struct lwp_model_profile *lwp_model_profile_find(const char *name);

/* Table 3-1 fields, named as in the spec; one extractor for all of them. */
enum lwp_model_cap {
	LWP_MODEL_CAP_EDX_FEATURES,	/* EDX: supported (bit n = EventId n, 31 = INT) */
	LWP_MODEL_CAP_LWPCBSIZE,	/* EBX[7:0]   quadwords */
	LWP_MODEL_CAP_LWPEVENTSIZE,	/* EBX[15:8]  bytes */
	LWP_MODEL_CAP_LWPMAXEVENTS,	/* EBX[23:16] */
	LWP_MODEL_CAP_LWPEVENTOFFSET,	/* EBX[31:24] bytes */
	LWP_MODEL_CAP_LWPLATENCYMAX,	/* ECX[4:0]   bits */
	LWP_MODEL_CAP_LWPDATAADDRESS,	/* ECX[5] */
	LWP_MODEL_CAP_LWPLATENCYRND,	/* ECX[8:6]   bits */
	LWP_MODEL_CAP_LWPVERSION,	/* ECX[15:9] */
	LWP_MODEL_CAP_LWPMINBUFFERSIZE,	/* ECX[23:16] units of 32 records */
	LWP_MODEL_CAP_LWPBRANCHPREDICTION, /* ECX[28] */
	LWP_MODEL_CAP_LWPIPFILTERING,	/* ECX[29] */
	LWP_MODEL_CAP_LWPCACHELEVELS,	/* ECX[30] */
	LWP_MODEL_CAP_LWPCACHELATENCY,	/* ECX[31] */
	LWP_MODEL_CAP_NR
};

/* Spec name of a capability ("LwpCbSize", ...); NULL if out of range. */
const char *lwp_model_cap_name(enum lwp_model_cap cap);

/*
 * Extract a Table 3-1 field from Fn8000_001C register values (regs[0..3] =
 * EAX, EBX, ECX, EDX), shifted down. Returns 0 for an unknown cap.
 */
uint32_t lwp_model_cap_get(const uint32_t regs[4], enum lwp_model_cap cap);

/* ---------------------------------------------------------------------- */
/* The model object                                                        */
/* ---------------------------------------------------------------------- */

/*
 * Callbacks. read/write access `len` bytes of the modelled address space at
 * linear address `addr` and return 0, or a negative errno (-EFAULT) when the
 * access would page-fault; the model then reports #PF at the first byte of
 * the failing page-sized piece (accesses are split at 4 KiB boundaries).
 * interrupt() is called when the threshold interrupt is signalled (§8.5);
 * violation() when the driver/OS does what the spec forbids (see
 * lwp_model_violations()). ctx is passed back unchanged. interrupt and
 * violation may be NULL.
 */
struct lwp_model_ops {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
	void (*interrupt)(void *ctx, unsigned int vector);
	void (*violation)(void *ctx, const char *section, const char *msg);
};

/* Head pointer flush policy (§8.3: "can be done periodically"). */
enum lwp_model_head_flush {
	LWP_MODEL_HEAD_FLUSH_EVERY_STORE = 0,	/* default: after every record */
	LWP_MODEL_HEAD_FLUSH_LAZY,		/* threshold, full, flush only */
};

/*
 * Internal state, hardware names. Private: use the functions below. It is in
 * the header only so that the model can be embedded (per-CPU in the kernel).
 */
struct lwp_model {
	const struct lwp_model_profile *profile;
	const struct lwp_model_ops *ops;
	void *ctx;
	/* per CPU (§4) */
	uint64_t lwp_cfg;		/* LWP_CFG */
	bool xcr0_lwp;			/* XCR0[62] */
	uint8_t cpl;
	enum lwp_model_head_flush head_flush;
	bool xsave_drops_int;		/* lwp_model_set_xsave_drops_int() */
	uint64_t rng;			/* Random (§6) source state */
	uint64_t violations;
	/* per thread: the state XSAVE saves (Table 7-1) */
	uint64_t cbaddr;		/* LWP_CBADDR, linear; 0 = disabled */
	uint32_t flags;			/* enabled events + INT */
	uint32_t head;			/* internal BufferHeadOffset */
	uint64_t buffer_base;		/* linear */
	uint32_t buffer_size;		/* rounded to LwpEventSize */
	uint32_t filters;
	struct lwp_event_record pending;	/* event_id 0 = none */
	int32_t counter[LWP_EVENTID_MAX_V1 + 1];	/* [n], n = 1..6 */
	/* per thread: cached LWPCB fields (§8.3), not in the XSAVE area */
	bool cache_valid;		/* false after XRSTOR until refreshed */
	int32_t interval[LWP_EVENTID_MAX_V1 + 1];
	uint32_t random_bits;
	uint32_t threshold;
	uint64_t base_ip, limit_ip;
	uint32_t tail;			/* internal copy of BufferTailOffset */
	bool head_dirty;		/* internal head not yet in the LWPCB */
};

/*
 * Initialise a model CPU: LWP_CFG = 0, XCR0[62] = 0, LWP disabled, CPL 3,
 * head flush policy EVERY_STORE, Random seed 1. `profile` and `ops` must
 * outlive the model; ops->read and ops->write are required.
 * Returns 0, or -EINVAL for a NULL argument or callback.
 */
int lwp_model_init(struct lwp_model *m, const struct lwp_model_profile *profile,
		   const struct lwp_model_ops *ops, void *ctx);

/* Set the current privilege level (0..3). LWP counts only at CPL 3 (§1.1). */
void lwp_model_set_cpl(struct lwp_model *m, unsigned int cpl);
/* Seed the Random-bits generator (§6 Random); deterministic per seed. */
void lwp_model_set_seed(struct lwp_model *m, uint64_t seed);
/* Choose when the internal head pointer is written to the LWPCB (§8.3). */
void lwp_model_set_head_flush(struct lwp_model *m, enum lwp_model_head_flush p);

/*
 * Family 15h behaviour seen by rr (src/LWP.cc, LWP::lwp_xsave_to_lwpcb(),
 * pipcet/rr; issue 14): XSAVE stores the Flags of the LWP area without
 * bit 31 (INT), e.g. 0x8 for LWPCB Flags 0x80000008, so an XRSTOR of
 * that image restores LWP without threshold interrupts. Off by default (the letter of §7.3).
 */
void lwp_model_set_xsave_drops_int(struct lwp_model *m, bool on);

/*
 * What such an XSAVE does to a saved image: clears Flags bit 31 (INT) of
 * @area. For hardware layers that keep the LWP state as an opaque image
 * (lwpt_sim.ko's register file) and apply the quirk at their XSAVE.
 */
void lwp_model_xsave_drop_int(struct lwp_xsave_area *area);

/* Number of spec violations by the driver/OS seen so far (requirement 9). */
uint64_t lwp_model_violations(const struct lwp_model *m);

/*
 * True if LWP is available (§5, Appendix A): supported by the profile and
 * XCR0[62] = 1. The instructions raise #UD otherwise.
 */
bool lwp_model_available(const struct lwp_model *m);
/* True if LWP is enabled: LWP_CBADDR != 0 (Appendix A "Enabled"). */
bool lwp_model_enabled(const struct lwp_model *m);
/*
 * The active LWPCB's Flags as LLWPCB masked them (§5.1, Figure 6-2: bit n =
 * EventId n enabled, bit 31 INT); 0 while LWP is disabled.
 */
uint32_t lwp_model_flags(const struct lwp_model *m);

/* ---------------------------------------------------------------------- */
/* System interface: CPUID, MSRs, XCR0, XSAVE/XRSTOR                        */
/* ---------------------------------------------------------------------- */

/*
 * CPUID (§3). Fills regs[0..3] = EAX, EBX, ECX, EDX with the model's
 * contribution for leaf/subleaf and returns true for the leaves LWP defines
 * bits in: Fn8000_0001 (only ECX[15] set, if supported), Fn8000_001C (all of
 * Table 3-1), Fn0000_000D_x0 (EDX[30]; EBX/ECX = 960, the end of the LWP
 * area, when XCR0[62] resp. support apply - callers take the max with their
 * own sizes), Fn0000_000D_x3E (EAX = 128, EBX = 832). Other leaves: zeros,
 * false.
 */
bool lwp_model_cpuid(const struct lwp_model *m, uint32_t leaf, uint32_t subleaf,
		     uint32_t regs[4]);

/*
 * RDMSR (§4.2, §4.3): LWP_CFG, or LWP_CBADDR (the linear LWPCB address,
 * without the flush SLWPCB does). #GP for other MSRs or if LWP is not
 * supported (counted as a violation).
 */
struct lwp_model_result lwp_model_rdmsr(struct lwp_model *m, uint32_t msr);

/*
 * WRMSR (§4.2, §4.3). LWP_CFG: #GP if a bit outside EDX-supported features,
 * COREID and VECTOR is set (bit 0, 30:7, 63:48, unsupported events); with
 * the profile's cfg_ignore_mask/cfg_gp_mask (fx8150), the real part's rule
 * instead: ignored bits dropped, #GP bits refused. INT=1
 * with VECTOR < 32 is accepted but counted as a violation ("must be
 * provided"). LWP_CBADDR: non-zero -> #GP; zero -> LWP disabled, internal
 * state discarded without any memory access. Every #GP is a violation.
 */
struct lwp_model_result lwp_model_wrmsr(struct lwp_model *m, uint32_t msr, uint64_t val);

/*
 * XSETBV/XGETBV of XCR0, only bit 62 is modelled (§4.1, §7.1). Setting bit 62
 * when LWP is not supported -> #GP (violation). Clearing it stores 0 into
 * LWP_CBADDR (LWP disabled, state discarded). Other bits are ignored.
 */
struct lwp_model_result lwp_model_xsetbv(struct lwp_model *m, uint64_t xcr0);
uint64_t lwp_model_xgetbv(const struct lwp_model *m);

/*
 * XSAVE of component 62 (§7.3). `rfbm` is EDX:EAX; bit 62 is used only if
 * XCR0[62] = 1 too. If LWP is disabled, bit 62 of *xstate_bv is cleared and
 * the area is not written; otherwise the internal state is stored in Table
 * 7-1 format without checks and bit 62 of *xstate_bv is set. No memory is
 * accessed through the callbacks.
 */
struct lwp_model_result lwp_model_xsave(struct lwp_model *m, struct lwp_xsave_area *area,
					uint64_t rfbm, uint64_t *xstate_bv);

/*
 * XRSTOR of component 62 (§7.4, §7.5). Nothing happens unless bit 62 is set
 * in rfbm and XCR0. xstate_bv bit 62 = 0 -> processor-supplied values (LWP
 * disabled, internal state zeroed). Otherwise the state is loaded; at CPL != 0
 * the LWPCB and ring are first validated (store-type checks of their first and
 * last bytes via read+write-back: #GP for non-canonical or wrapping ranges,
 * #PF for inaccessible pages; LWP is left disabled on a fault). Cached LWPCB
 * fields are refreshed at the next CPL 3 operation that needs them (§8.2.5).
 * A fault at CPL 0 is counted as a violation.
 */
struct lwp_model_result lwp_model_xrstor(struct lwp_model *m, const struct lwp_xsave_area *area,
					 uint64_t rfbm, uint64_t xstate_bv);

/* ---------------------------------------------------------------------- */
/* Instructions (§5)                                                       */
/* ---------------------------------------------------------------------- */

/* Operand size of an LWP instruction, in bits: 16, 32 or 64 (§5). */

/*
 * LLWPCB (§5.1). `addr` is the register value, truncated to `opsize` bits.
 * #UD if LWP is not available. Flushes the active state first (a #PF there
 * leaves the old LWPCB active), disables LWP if addr = 0, else reads and
 * validates the new LWPCB (#PF on its pages; #GP for a non-canonical or
 * wrapping LWPCB/ring, a non-zero Reserved field of Figure 6-1 (bytes
 * 23-20, 63-56, 68 to LwpEventOffset-1, Filters bits 24:13), a ring smaller than max(LwpEventSize,
 * 32 * LwpMinBufferSize * LwpEventSize) bytes), writes back Flags & available
 * features and fixed EventIntervals, loads counters (negative -> 0), starts.
 */
struct lwp_model_result lwp_model_llwpcb(struct lwp_model *m, uint64_t addr,
					 unsigned int opsize);

/*
 * SLWPCB (§5.2). #UD if not available. If enabled: writes a pending record to
 * the ring, the counters of enabled events and BufferHeadOffset to the LWPCB
 * (#PF possible) and returns the LWPCB address truncated to `opsize` bits in
 * result.value; 0 when LWP is not enabled.
 */
struct lwp_model_result lwp_model_slwpcb(struct lwp_model *m, unsigned int opsize);

/*
 * The reg/mem32 operand of LWPVAL/LWPINS: a register value, or a linear
 * address read (4 bytes, through ops->read) only if a record is stored.
 */
struct lwp_model_operand {
	bool is_mem;
	uint32_t value;		/* !is_mem: the 32-bit register value */
	uint64_t addr;		/* is_mem: linear address */
};

/*
 * LWPVAL (§5.3, Figure 2-2) at instruction address `ip`. `src1` is the vvvv
 * register (zero-extended from `opsize` bits into Data2), `src2` Data1, `imm`
 * truncated to 16 bits into Flags. #UD if not available; nothing if LWP or
 * event 1 is not enabled (or IP-filtered). Decrements counter 1; when it goes
 * negative, reads src2 (#PF/#GP possible), stores a record and resets the
 * counter (Random applied). A fault leaves no trace (the instruction is
 * restartable). The caller reports the retirement itself with
 * lwp_model_insn_retired() (§5.3 Note).
 */
struct lwp_model_result lwp_model_lwpval(struct lwp_model *m, uint64_t ip, uint64_t src1,
					 struct lwp_model_operand src2, uint32_t imm,
					 unsigned int opsize);

/*
 * LWPINS (§5.4, Figure 2-8). As LWPVAL, but always stores an EventId 255
 * record when enabled. result.cf = 1 iff the ring was full (MissedEvents
 * incremented, last record overwritten); cf = 0 when not enabled.
 */
struct lwp_model_result lwp_model_lwpins(struct lwp_model *m, uint64_t ip, uint64_t src1,
					 struct lwp_model_operand src2, uint32_t imm,
					 unsigned int opsize);

/* ---------------------------------------------------------------------- */
/* Execution events (§2.2-§2.6), fed by the caller                         */
/* ---------------------------------------------------------------------- */

/*
 * An instruction at `ip` retired at CPL 3 (§2.2, Figure 2-3; includes LWP
 * instructions). Counts event 2 if enabled and IP-eligible; stores a record
 * when the counter goes negative. A #PF on the ring keeps the record pending
 * (stored later, e.g. by lwp_model_flush_pending()); counting goes on.
 * Ignored at CPL != 3.
 */
struct lwp_model_result lwp_model_insn_retired(struct lwp_model *m, uint64_t ip);

/* Branch class for the Table 6-2 filters (the caller classifies). */
enum lwp_model_branch_kind {
	LWP_MODEL_BR_COND,		/* Jcc, JrCXZ, LOOP/LOOPcc (NCB) */
	LWP_MODEL_BR_UNCOND_REL,	/* JMP rel, CALL rel, RET near (NRB) */
	LWP_MODEL_BR_INDIRECT,		/* JMP/CALL FF /4, FF /2 (NAB) */
};

enum lwp_model_prediction {
	LWP_MODEL_PRED_UNKNOWN = 0,	/* PRV = 0 (what emulation knows) */
	LWP_MODEL_PRED_CORRECT,		/* PRV = 1, PRD = 1 */
	LWP_MODEL_PRED_MISPREDICTED,	/* PRV = 1, PRD = 0 */
};

struct lwp_model_branch {
	uint64_t ip;			/* the branch (or the fused flag-setter) */
	uint64_t target;		/* next instruction executed (Figure 2-4) */
	enum lwp_model_branch_kind kind;
	bool taken;
	bool fused;			/* FUS */
	enum lwp_model_prediction prediction;
};

/*
 * A near branch retired at CPL 3 (§2.3, Figure 2-4). Counts event 3 subject
 * to IP filtering and NMB/NPB (if LwpBranchPrediction and the prediction is
 * known), NAB, NCB, NRB. Records carry TKN, FUS, PRV/PRD, TargetAddress.
 */
struct lwp_model_result lwp_model_branch_retired(struct lwp_model *m,
						 const struct lwp_model_branch *b);

struct lwp_model_dcache_miss {
	uint64_t ip;
	uint64_t data_addr;		/* linear */
	uint32_t latency;		/* cycles */
	unsigned int src;		/* LWP_DC_SRC_* (Figure 2-5) */
};

/*
 * A load DCache miss at CPL 3 (§2.4, Figure 2-5): latency/cache-level
 * filtering (Table 6-2), latency rounded/capped per LwpLatencyRnd/Max, DAV
 * per LwpDataAddress.
 */
struct lwp_model_result lwp_model_dcache_miss(struct lwp_model *m,
					      const struct lwp_model_dcache_miss *d);

/*
 * `clocks` core clocks and `ref_clocks` reference clocks passed not halted
 * at CPL 3 while at `ip` (§2.5, §2.6; events 5 and 6).
 */
struct lwp_model_result lwp_model_clocks(struct lwp_model *m, uint64_t ip,
					 uint64_t clocks, uint64_t ref_clocks);

/*
 * Try to store a pending record (one left by a #PF or restored by XRSTOR,
 * §7.4) now. Nothing at CPL != 3 or without a pending record.
 */
struct lwp_model_result lwp_model_flush_pending(struct lwp_model *m);

#endif /* LWPT_MODEL_LWP_MODEL_H */
