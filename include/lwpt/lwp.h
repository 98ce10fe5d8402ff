/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * liblwp: AMD Lightweight Profiling (LWP) for JITs and managed runtimes.
 *
 * Source of truth: AMD "Lightweight Profiling Specification", publication
 * 43724 rev. 3.04 ("43724" below). Every function cites the section it
 * implements. Errors are negative errno values (use strerror(-err)).
 *
 * Two backends, chosen by lwp_open():
 *  - LWP_BACKEND_HW:  the CPU's LWP unit, made available to the calling
 *    thread by the lwpt kernel module through /dev/lwp (lwpt.ko, or
 *    lwpt_sim.ko on the software model in a VM);
 *  - LWP_BACKEND_EMU: user-space emulation on the shared LWP model
 *    (model/lwp/) on CPUs without LWP. The inline wrappers below call the
 *    model directly; JIT code calls it through the sequences of
 *    lwp_jit_encode(); raw LWP instructions (code assembled with GNU as)
 *    raise #UD -> SIGILL, which liblwp's handler decodes, emulates and
 *    steps over (about 10 us each).
 *
 * Threads (43724 §1, §1.1): LWP state is per thread. A session is owned by
 * the thread that called lwp_start() on it; lwp_start(), lwp_stop() and the
 * LWP instructions act on the calling thread only. Any thread may drain the
 * ring buffer with lwp_read()/lwp_wait() concurrently with the owner (the
 * polling model of §1.1); at most one thread may drain a session at a time.
 *
 * See Documentation/liblwp.rst and liblwp(3).
 */
#ifndef LWPT_LWP_H
#define LWPT_LWP_H

#include <lwpt/compiler.h>

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <lwpt/lwp_arch.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- LWPCB.Flags (43724 §6, Figure 6-2) ------------------------------- */

#define LWP_FLAG_VAL	LWP_LWPCB_FLAGS_VAL	/* LWPVAL instruction (EventId 1) */
#define LWP_FLAG_IRE	LWP_LWPCB_FLAGS_IRE	/* Instructions retired (2) */
#define LWP_FLAG_BRE	LWP_LWPCB_FLAGS_BRE	/* Branches retired (3) */
#define LWP_FLAG_DME	LWP_LWPCB_FLAGS_DME	/* DCache misses (4) */
#define LWP_FLAG_CNH	LWP_LWPCB_FLAGS_CNH	/* CPU clocks not halted (5) */
#define LWP_FLAG_RNH	LWP_LWPCB_FLAGS_RNH	/* CPU ref. clocks not halted (6) */
#define LWP_FLAG_INT	LWP_LWPCB_FLAGS_INT	/* threshold interrupts */
/* Flag bit of event n (1..6): the same bit positions (43724 Figure 6-2). */
#define LWP_FLAG_EVENT(n)	LWP_EVENTID_BIT(n)

/* ---- EventId values (43724 §2, Table 2-1) ----------------------------- */

#define LWP_EVENT_VAL	LWP_EVENTID_PROGRAMMED_VALUE		/* 1, LWPVAL */
#define LWP_EVENT_IRE	LWP_EVENTID_INSTRUCTIONS_RETIRED	/* 2 */
#define LWP_EVENT_BRE	LWP_EVENTID_BRANCHES_RETIRED		/* 3 */
#define LWP_EVENT_DME	LWP_EVENTID_DCACHE_MISSES		/* 4 */
#define LWP_EVENT_CNH	LWP_EVENTID_CPU_CLOCKS_NOT_HALTED	/* 5 */
#define LWP_EVENT_RNH	LWP_EVENTID_CPU_REF_CLOCKS_NOT_HALTED	/* 6 */
#define LWP_EVENT_INS	LWP_EVENTID_PROGRAMMED_EVENT		/* 255, LWPINS */
/* Highest EventId with an interval/counter pair in LWP version 1. */
#define LWP_EVENT_MAX	LWP_EVENTID_MAX_V1

/* ---- LWPCB.Filters (43724 §6, Figure 6-3, Table 6-2) ------------------ */

#define LWP_FILTER_MIN_LATENCY_MASK	LWP_LWPCB_FILTERS_MINLATENCY_MASK /* x16 cycles */
#define LWP_FILTER_CLF	LWP_LWPCB_FILTERS_CLF	/* cache level filtering */
#define LWP_FILTER_NBC	LWP_LWPCB_FILTERS_NBC	/* northbridge cache events */
#define LWP_FILTER_RDC	LWP_LWPCB_FILTERS_RDC	/* remote data cache events */
#define LWP_FILTER_RAM	LWP_LWPCB_FILTERS_RAM	/* DRAM events */
#define LWP_FILTER_OTH	LWP_LWPCB_FILTERS_OTH	/* other sources */
#define LWP_FILTER_NMB	LWP_LWPCB_FILTERS_NMB	/* no mispredicted branches */
#define LWP_FILTER_NPB	LWP_LWPCB_FILTERS_NPB	/* no predicted branches */
#define LWP_FILTER_NAB	LWP_LWPCB_FILTERS_NAB	/* no absolute branches */
#define LWP_FILTER_NCB	LWP_LWPCB_FILTERS_NCB	/* no conditional branches */
#define LWP_FILTER_NRB	LWP_LWPCB_FILTERS_NRB	/* no uncond. relative branches */
#define LWP_FILTER_IPI	LWP_LWPCB_FILTERS_IPI	/* IP filtering invert */
#define LWP_FILTER_IPF	LWP_LWPCB_FILTERS_IPF	/* IP filtering */

/* ---- Backends ---------------------------------------------------------- */

enum lwp_backend {
	LWP_BACKEND_AUTO = 0,	/* lwp_open: hardware if usable, else emulation */
	LWP_BACKEND_HW = 1,	/* LWP hardware (or lwpt_sim.ko) via /dev/lwp */
	LWP_BACKEND_EMU = 2,	/* user-space emulation on the LWP model */
};

/* Returns "auto", "hw", "emu" or "?"; never NULL. */
const char *lwp_backend_name(int backend);

/* ---- Capabilities (43724 §3, Table 3-1) -------------------------------- */

/*
 * What LWP offers through one backend. The raw CPUID Fn8000_001C registers
 * are those the backend presents to programs (for the emulation: the model's
 * "user" profile, which advertises only what it can honestly produce); the
 * other fields are decoded from them. Sizes are in bytes unless stated.
 */
struct lwp_caps {
	uint32_t size;			/* sizeof(struct lwp_caps) */
	uint32_t backend;		/* enum lwp_backend described below */
	uint32_t cpu_supported;		/* the CPU: Fn8000_0001_ECX[LWP] (§3.1) */
	uint32_t hw_available;		/* /dev/lwp present and usable */
	uint32_t emu_available;		/* emulation backend usable */
	uint32_t cpuid_eax;		/* Fn8000_001C EAX: available features */
	uint32_t cpuid_ebx;		/* Fn8000_001C EBX */
	uint32_t cpuid_ecx;		/* Fn8000_001C ECX */
	uint32_t cpuid_edx;		/* Fn8000_001C EDX: supported features */
	uint32_t available;		/* EAX[0] LwpAvail */
	uint32_t available_flags;	/* LWP_FLAG_* usable now (EAX[31:1]) */
	uint32_t supported_flags;	/* LWP_FLAG_* supported (EDX[31:1]) */
	uint32_t lwpcb_size;		/* LwpCbSize x 8, bytes */
	uint32_t event_size;		/* LwpEventSize, bytes per record */
	uint32_t max_event_id;		/* LwpMaxEvents */
	uint32_t event_offset;		/* LwpEventOffset, bytes */
	uint32_t min_buffer_records;	/* 32 x LwpMinBufferSize, records */
	uint32_t version;		/* LwpVersion */
	uint32_t latency_max;		/* LwpLatencyMax, bits */
	uint32_t latency_rnd;		/* LwpLatencyRnd, bits */
	uint32_t data_address;		/* LwpDataAddress */
	uint32_t branch_prediction;	/* LwpBranchPrediction */
	uint32_t ip_filtering;		/* LwpIpFiltering */
	uint32_t cache_levels;		/* LwpCacheLevels */
	uint32_t cache_latency;		/* LwpCacheLatency */
	uint32_t hw_abi_version;	/* /dev/lwp ABI version, 0 if none */
	uint32_t hw_sim;		/* /dev/lwp is lwpt_sim.ko (the model) */
	/*
	 * Hardware backend on a CPU that does not raise #UD for XOP (QEMU
	 * TCG) with lwpt_sim.ko ud2_marker=1: raw LWP instructions must be
	 * preceded by UD2 (0F 0B) to reach the module (the wrappers do it).
	 */
	uint32_t hw_ud2_marker;
};

/*
 * lwp_query() - capabilities of the backend lwp_open() would choose with
 * LWP_BACKEND_AUTO (43724 §3.3): the environment variable LIBLWP_BACKEND
 * ("hw" or "emu") if set, else hardware if /dev/lwp is usable, else the
 * emulation. @caps is filled completely; caps->backend is LWP_BACKEND_HW or
 * LWP_BACKEND_EMU. For the hardware backend the values are those the kernel
 * reports (LWP_IOC_GET_CAPS); available is what lwp_open() makes available.
 * Returns 0, -EINVAL if @caps is NULL, -ENODEV if no backend is usable
 * (caps is still filled, with available = 0).
 */
int lwp_query(struct lwp_caps *caps);

/*
 * lwp_query_backend() - capabilities of one backend (LWP_BACKEND_HW or
 * LWP_BACKEND_EMU). Returns 0, -EINVAL for a bad argument, -ENODEV if that
 * backend is not usable here (the fields that could be read are filled).
 */
int lwp_query_backend(struct lwp_caps *caps, int backend);

/*
 * lwp_raw_insns_trap() - does an LWP instruction raise #UD (SIGILL) on this
 * CPU when LWP is not available to the thread (43724 §5)? Probed once, in a
 * child process (SLWPCB with a balanced stack). 1: yes (hardware, KVM):
 * raw LLWPCB/SLWPCB/LWPINS/LWPVAL in JIT code work on both backends (the
 * emulation catches SIGILL). 0: no, the XOP 8F escape executes as POP (QEMU
 * TCG): raw instructions corrupt the stack; only the inline wrappers work
 * on the emulation, and the hardware backend only with lwpt_sim.ko
 * ud2_marker=1. -errno if the probe could not run (fork failed).
 */
int lwp_raw_insns_trap(void);

/* ---- Configuration ------------------------------------------------------ */

/* lwp_config.counter[n]: start EventCounter n at the interval (default). */
#define LWP_COUNTER_FROM_INTERVAL	INT32_MIN
/* lwp_config.threshold_records: half of buffer_records (default). */
#define LWP_THRESHOLD_HALF		UINT32_MAX

/*
 * A session's LWPCB contents (43724 §6, Table 6-1), in records and bits.
 * Initialise with LWP_CONFIG_INIT and change what you need.
 */
struct lwp_config {
	uint32_t size;		/* sizeof(struct lwp_config): set by INIT */
	uint32_t backend;	/* enum lwp_backend, default AUTO */
	uint32_t flags;		/* LWPCB.Flags: LWP_FLAG_*; default VAL */
	/*
	 * EventInterval n, indexed by EventId (LWP_EVENT_VAL..LWP_EVENT_RNH;
	 * index 0 unused; LWPINS has no interval). A record is stored after
	 * interval + 1 events (§6). Negative is rejected (-EINVAL); LLWPCB
	 * may raise an interval to the implementation minimum and writes the
	 * value used back into the LWPCB (§5.1 step 7).
	 */
	int32_t interval[LWP_EVENT_MAX + 1];
	/* EventCounter n, or LWP_COUNTER_FROM_INTERVAL (default). */
	int32_t counter[LWP_EVENT_MAX + 1];
	/* Ring size in records: BufferSize = buffer_records x LwpEventSize. */
	uint32_t buffer_records;
	/* Threshold in records (LWPCB.Threshold / LwpEventSize). */
	uint32_t threshold_records;
	uint32_t random_bits;	/* LWPCB.Random, 0..15 */
	uint32_t filters;	/* LWPCB.Filters, LWP_FILTER_* (Figure 6-3) */
	uint64_t base_ip;	/* LWPCB.BaseIP */
	uint64_t limit_ip;	/* LWPCB.LimitIP */
};

#define LWP_CONFIG_DEFAULT_RECORDS	4096u	/* 128 KiB of records */
#define LWP_CONFIG_DEFAULT_INTERVAL	0	/* EventInterval1: every LWPVAL */
#define LWP_CONFIG_DEFAULT_HW_INTERVAL	65535	/* events 2..6 */

#define LWP_CONFIG_INIT {						\
	.size = sizeof(struct lwp_config),				\
	.backend = LWP_BACKEND_AUTO,					\
	.flags = LWP_FLAG_VAL,						\
	.interval = { 0, LWP_CONFIG_DEFAULT_INTERVAL,			\
		      LWP_CONFIG_DEFAULT_HW_INTERVAL,			\
		      LWP_CONFIG_DEFAULT_HW_INTERVAL,			\
		      LWP_CONFIG_DEFAULT_HW_INTERVAL,			\
		      LWP_CONFIG_DEFAULT_HW_INTERVAL,			\
		      LWP_CONFIG_DEFAULT_HW_INTERVAL },			\
	.counter = { LWP_COUNTER_FROM_INTERVAL, LWP_COUNTER_FROM_INTERVAL, \
		     LWP_COUNTER_FROM_INTERVAL, LWP_COUNTER_FROM_INTERVAL, \
		     LWP_COUNTER_FROM_INTERVAL, LWP_COUNTER_FROM_INTERVAL, \
		     LWP_COUNTER_FROM_INTERVAL },			\
	.buffer_records = LWP_CONFIG_DEFAULT_RECORDS,			\
	.threshold_records = LWP_THRESHOLD_HALF,			\
	.random_bits = 0,						\
	.filters = 0,							\
	.base_ip = 0,							\
	.limit_ip = 0,							\
}

/* ---- Sessions ------------------------------------------------------------ */

struct lwp_session;

/*
 * lwp_open() - allocate an LWPCB and its ring buffer for @cfg (NULL: the
 * defaults of LWP_CONFIG_INIT) and make LWP available to the calling thread.
 *
 * The LWPCB is LwpCbSize x 8 bytes, 64-byte aligned and within one page;
 * the ring buffer is buffer_records x LwpEventSize bytes, page aligned
 * (43724 §3.3, §5.1, Table 6-1). After lwp_open() raw LWP instructions
 * execute on the calling thread: an LWPINS before lwp_start() clears CF and
 * stores nothing (§5.4). On the emulation a raw instruction traps (SIGILL):
 * where SIGILL is blocked the kernel kills the process instead; lwp_open()
 * says so once per process on stderr when the calling thread's mask or an
 * installed handler's sa_mask blocks SIGILL (Documentation/liblwp.rst,
 * "SIGILL must be deliverable"); wrappers and lwp_jit_encode() sequences
 * never trap.
 *
 * Returns 0 and *@s (NULL on error), or:
 *  -EINVAL     NULL @s, cfg->size too small, unknown backend, a flag
 *              outside LWP_FLAG_* (reserved bits of Figure 6-2), an
 *              interval of an enabled event < 0 or > 2^25 - 1, a counter
 *              outside -2^25..2^25 - 1, random_bits > 15, reserved filter
 *              bits (24:13), buffer_records < 2 or < 32 x LwpMinBufferSize
 *              or BufferSize above 28 bits, LWP_FLAG_INT with
 *              threshold_records >= buffer_records (never reached, §6);
 *  -EOPNOTSUPP a valid flag the backend does not offer (lwp_query());
 *  -ENODEV     the requested backend (or, for AUTO, any) is not usable;
 *  -ENOMEM     allocation failure;
 *  -EBUSY      the SIGILL handler could not be installed (emulation); the
 *              calling thread already has LWP through another session
 *              (hardware: one session per thread; emulation: the thread
 *              holds a hardware session, XCR0[62] or the UD2 marker);
 *  -EACCES, -EPERM, ... other errors of open()/ioctl() on /dev/lwp.
 * See Documentation/liblwp.rst for the choices behind these checks.
 */
int lwp_open(struct lwp_session **s, const struct lwp_config *cfg);

/*
 * lwp_start() - enable LWP for the calling thread with the session's LWPCB
 * (LLWPCB, 43724 §5.1). The calling thread becomes the owner. The ring is
 * not reset: records already stored stay readable. Flags and intervals
 * actually in effect are written back into the LWPCB by LLWPCB; read them
 * with lwp_lwpcb().
 * Returns 0, -EINVAL (NULL), -EBUSY (started on another thread; hardware:
 * called on a thread other than the one that opened the session),
 * -EFAULT (LLWPCB faulted: #GP/#PF, the LWPCB is invalid),
 * -ENODEV (LWP was made unavailable to this thread).
 */
int lwp_start(struct lwp_session *s);

/*
 * lwp_stop() - disable LWP for the owner thread (LLWPCB with 0, §5.1 step 3,
 * after the flush of step 2). Records stay readable with lwp_read().
 * Returns 0 (also when not started), -EINVAL (NULL), -EPERM (called by a
 * thread other than the owner).
 */
int lwp_stop(struct lwp_session *s);

/*
 * lwp_close() - stop (as the OS would write 0 to LWP_CBADDR, §4.3, if the
 * caller is not the owner), make LWP unavailable to the calling thread when
 * its last session closes, and free everything. NULL is ignored (0).
 * Returns 0 when closed. Emulation only: -EBUSY, with nothing changed (the
 * session stays open and usable; call again later), when another thread
 * of the process holds an emulated instruction in flight that cannot be
 * proven finished or abandoned and that thread cannot make progress to
 * end it: it sleeps in a system call (for example a signal handler that
 * interrupted the instruction blocks, or the thread left it with
 * siglongjmp() and blocks deeper in the stack), has SIGILL blocked, or is
 * stopped. An instruction abandoned by siglongjmp() out of a signal handler
 * is otherwise completed or discarded on its thread and the close goes on
 * (Documentation/liblwp.rst, "Closing from another thread").
 */
int lwp_close(struct lwp_session *s);

/* The session's backend (enum lwp_backend), or -EINVAL for NULL. */
int lwp_session_backend(const struct lwp_session *s);

/*
 * lwp_lwpcb() - address of the session's LWPCB, for JIT code that executes
 * LLWPCB itself (43724 §6), and its size in bytes in *@size (may be NULL).
 * Returns NULL for NULL @s.
 */
void *lwp_lwpcb(const struct lwp_session *s, size_t *size);

/* ---- Event records (43724 §2, Figure 2-1) -------------------------------- */

/* One 32-byte record of the ring buffer, as LWP stores it (Figure 2-1). */
struct lwp_event {
	uint8_t event_id;	/* EventId, Table 2-1 */
	uint8_t core_id;	/* CoreId, from LWP_CFG.COREID */
	uint16_t flags;		/* event-specific flags (bits 31:16 of dword 0) */
	uint32_t data1;		/* event-specific data */
	uint64_t inst_addr;	/* InstructionAddress (effective address) */
	uint64_t data2;		/* event-specific address or data */
	uint64_t reserved;	/* bytes 31-24 */
};

#ifndef __cplusplus
LWPT_STATIC_ASSERT(sizeof(struct lwp_event) == 32, "43724 Figure 2-1: 32 bytes");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event, flags) == 2, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event, data1) == 4, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event, inst_addr) == 8, "Figure 2-1");
LWPT_STATIC_ASSERT(offsetof(struct lwp_event, data2) == 16, "Figure 2-1");
#endif

#ifndef __cplusplus
LWPT_STATIC_ASSERT(sizeof(struct lwp_event) == sizeof(struct lwp_event_record),
	       "one record layout");
#endif

/* Branches retired, Figure 2-4 (record bits 28..31). */
static inline int lwp_event_fus(const struct lwp_event *e)
{ return !!(e->flags & LWP_EVREC_BR_FUS); }	/* fused with a flag-setter */
static inline int lwp_event_prv(const struct lwp_event *e)
{ return !!(e->flags & LWP_EVREC_BR_PRV); }	/* PRD is valid */
static inline int lwp_event_prd(const struct lwp_event *e)
{ return !!(e->flags & LWP_EVREC_BR_PRD); }	/* predicted (if PRV) */
static inline int lwp_event_tkn(const struct lwp_event *e)
{ return !!(e->flags & LWP_EVREC_BR_TKN); }	/* taken */
/* TargetAddress of a branch record (Figure 2-4). */
static inline uint64_t lwp_event_target(const struct lwp_event *e)
{ return e->data2; }

/* DCache misses, Figure 2-5. */
static inline int lwp_event_dav(const struct lwp_event *e)
{ return !!(e->flags & LWP_EVREC_DC_DAV); }	/* DataAddress valid */
static inline unsigned int lwp_event_src(const struct lwp_event *e)
{ return (e->flags & LWP_EVREC_DC_SRC_MASK) >> LWP_EVREC_DC_SRC_SHIFT; }
static inline uint32_t lwp_event_latency(const struct lwp_event *e)
{ return e->data1; }			/* total latency, cycles */
static inline uint64_t lwp_event_data_addr(const struct lwp_event *e)
{ return e->data2; }			/* valid if lwp_event_dav() */

/* LWPVAL / LWPINS, Figures 2-2 and 2-8: imm16, reg/mem32, reg. */
static inline uint16_t lwp_event_imm(const struct lwp_event *e)
{ return e->flags; }
static inline uint32_t lwp_event_value(const struct lwp_event *e)
{ return e->data1; }
static inline uint64_t lwp_event_reg(const struct lwp_event *e)
{ return e->data2; }

/* ---- Draining ------------------------------------------------------------ */

/*
 * lwp_read() - copy up to @max records, oldest first, from the ring buffer
 * into @out and advance LWPCB.BufferTailOffset past them (43724 §6,
 * §8.3). May run on any thread, concurrently with the owner storing records
 * (one reader per session). Records are copied before BufferTailOffset is
 * released to the writer.
 * Returns the number of records copied (0: ring empty), -EINVAL (NULL @s,
 * NULL @out with @max > 0).
 */
ssize_t lwp_read(struct lwp_session *s, struct lwp_event *out, size_t max);

/*
 * lwp_missed() - LWPCB.MissedEvents: records lost because the ring was full
 * (43724 §6, Table 6-1). 0 for NULL.
 */
uint64_t lwp_missed(struct lwp_session *s);

/*
 * lwp_pending() - records currently in the ring ((head - tail) mod size, in
 * records, §6 Threshold). Returns >= 0 or -EINVAL.
 */
ssize_t lwp_pending(struct lwp_session *s);

/*
 * lwp_wait() - block until a threshold interrupt (LWP_FLAG_INT, 43724 §6
 * Threshold, §8.5) has occurred since the last lwp_wait() returned AND
 * records are unread in the ring, or @timeout_ms milliseconds have passed
 * (negative: wait forever, 0: poll). An interrupt whose records the caller
 * already took with lwp_read() (the ring is empty when the interrupt is
 * consumed) is discarded and the wait goes on: a reader that drains with
 * lwp_read() is never woken for records it already has. The interrupt is
 * raised after BufferHeadOffset reached memory (§8.3), so on return 1
 * lwp_pending() > 0 from any thread.
 * Returns 1 (threshold reached, records waiting), 0 (timeout, or with
 * @timeout_ms 0 nothing new), -EINVAL (NULL), -ENOTSUP (threshold
 * interrupts not enabled in the session), -EINTR (a signal).
 */
int lwp_wait(struct lwp_session *s, int timeout_ms);

/*
 * lwp_wait_fd() - a file descriptor that becomes readable on a threshold
 * interrupt (for poll/epoll); owned by the session. It may also be readable
 * for an interrupt whose records lwp_read() already returned: on POLLIN,
 * call lwp_wait(s, 0), which clears it and returns 1 only if records are
 * waiting. -EINVAL / -ENOTSUP.
 */
int lwp_wait_fd(struct lwp_session *s);

/* ---- Instruction wrappers (43724 §5) ------------------------------------- */

/*
 * Non-zero while the calling thread uses the emulation backend
 * (LWP__TLS_EMU: the wrappers call the model directly instead of trapping)
 * or the hardware backend with the UD2 marker (LWP__TLS_UD2: the wrappers
 * put UD2 before the instruction, see lwp_caps.hw_ud2_marker). Do not write.
 */
#define LWP__TLS_EMU	1u
#define LWP__TLS_UD2	2u
#ifdef __cplusplus
extern thread_local unsigned int lwp_tls_emulated;
#else
extern _Thread_local unsigned int lwp_tls_emulated;
#endif

/*
 * Emulation entry points used by the wrappers when lwp_tls_emulated is set
 * (they may also be called directly). @ip is the InstructionAddress to
 * store, @opsize 32 or 64. They follow §5.1-§5.4 exactly; a fault of the
 * instruction (#GP, #PF) is delivered as SIGSEGV to the calling thread, as
 * the kernel does for the real instruction; #UD (LWP not available) as
 * SIGILL.
 */
int lwp_emu_lwpins(uint64_t data2, uint32_t data1, uint32_t flags,
		   unsigned int opsize, uint64_t ip);
void lwp_emu_lwpval(uint64_t data2, uint32_t data1, uint32_t flags,
		    unsigned int opsize, uint64_t ip);
void lwp_emu_llwpcb(uint64_t lwpcb);
uint64_t lwp_emu_slwpcb(void);

/* The address of the code that invokes it (InstructionAddress). */
#define lwp__here() __extension__ ({					\
	uint64_t lwp__ip;						\
	__asm__ __volatile__("lea 0(%%rip), %0" : "=r"(lwp__ip));	\
	lwp__ip; })

/*
 * The wrappers emit the XOP bytes of the instruction with .byte, so no
 * -mlwp is needed; their operands are fixed to registers by constraints:
 * reg/mem32 (Data1) in EAX (ModRM.rm = 000), the vvvv register (Data2) in
 * EDX/RDX (vvvv = ~2), LLWPCB/SLWPCB in RAX. Encodings (43724 §5, as GNU as
 * 2.40 emits them; see Documentation/liblwp.rst on the L bit):
 *   LWPINS $imm32, %eax, %edx    8f ea 68 12 c0 imm32
 *   LWPINS $imm32, %eax, %rdx    8f ea e8 12 c0 imm32
 *   LWPVAL $imm32, %eax, %edx    8f ea 68 12 c8 imm32
 *   LWPVAL $imm32, %eax, %rdx    8f ea e8 12 c8 imm32
 *   LLWPCB %rax                  8f e9 f8 12 c0
 *   SLWPCB %rax                  8f e9 f8 12 c8
 * @flags is the instruction's immediate and must therefore be an integer
 * constant expression; the record keeps its low 16 bits (§5.3, §5.4).
 */
#define LWP__ASM_LWPINS32 ".byte 0x8f,0xea,0x68,0x12,0xc0\n\t.long %c[imm]"
#define LWP__ASM_LWPINS64 ".byte 0x8f,0xea,0xe8,0x12,0xc0\n\t.long %c[imm]"
#define LWP__ASM_LWPVAL32 ".byte 0x8f,0xea,0x68,0x12,0xc8\n\t.long %c[imm]"
#define LWP__ASM_LWPVAL64 ".byte 0x8f,0xea,0xe8,0x12,0xc8\n\t.long %c[imm]"

#define lwp__ins(asmstr, d2type, opsize, data2, data1, flags) __extension__ ({ \
	d2type lwp__d2 = (data2);					\
	uint32_t lwp__d1 = (data1);					\
	unsigned char lwp__cf;						\
	if (__builtin_expect(lwp_tls_emulated == LWP__TLS_EMU, 0))	\
		lwp__cf = (unsigned char)lwp_emu_lwpins(lwp__d2, lwp__d1, \
				(uint32_t)(flags), (opsize), lwp__here()); \
	else if (__builtin_expect(lwp_tls_emulated == LWP__TLS_UD2, 0))	\
		__asm__ __volatile__("ud2\n\t" asmstr "\n\tsetc %[cf]"	\
			: [cf] "=qm"(lwp__cf)				\
			: "a"(lwp__d1), "d"(lwp__d2),			\
			  [imm] "i"((uint32_t)(flags))			\
			: "cc", "memory");				\
	else								\
		__asm__ __volatile__(asmstr "\n\tsetc %[cf]"		\
			: [cf] "=qm"(lwp__cf)				\
			: "a"(lwp__d1), "d"(lwp__d2),			\
			  [imm] "i"((uint32_t)(flags))			\
			: "cc", "memory");				\
	(int)lwp__cf; })

#define lwp__val(asmstr, d2type, opsize, data2, data1, flags) __extension__ ({ \
	d2type lwp__d2 = (data2);					\
	uint32_t lwp__d1 = (data1);					\
	if (__builtin_expect(lwp_tls_emulated == LWP__TLS_EMU, 0))	\
		lwp_emu_lwpval(lwp__d2, lwp__d1, (uint32_t)(flags),	\
			       (opsize), lwp__here());			\
	else if (__builtin_expect(lwp_tls_emulated == LWP__TLS_UD2, 0))	\
		__asm__ __volatile__("ud2\n\t" asmstr			\
			: : "a"(lwp__d1), "d"(lwp__d2),			\
			    [imm] "i"((uint32_t)(flags))		\
			: "memory");					\
	else								\
		__asm__ __volatile__(asmstr				\
			: : "a"(lwp__d1), "d"(lwp__d2),			\
			    [imm] "i"((uint32_t)(flags))		\
			: "memory");					\
	(void)0; })

/*
 * lwp_ins32(data2, data1, flags) / lwp_ins64(...) - LWPINS (43724 §5.4):
 * store an EventId 255 record with Data2 = @data2 (32 bits zero-extended,
 * or 64 bits), Data1 = @data1, Flags = @flags & 0xffff.
 * Returns CF: 1 if the ring was full and the last record was overwritten
 * (MissedEvents incremented), 0 otherwise, also when LWP is not enabled.
 * SIGILL if LWP is not available to the thread (no lwp_open()).
 */
#define lwp_ins32(data2, data1, flags) \
	lwp__ins(LWP__ASM_LWPINS32, uint32_t, 32, data2, data1, flags)
#define lwp_ins64(data2, data1, flags) \
	lwp__ins(LWP__ASM_LWPINS64, uint64_t, 64, data2, data1, flags)

/*
 * lwp_val32(data2, data1, flags) / lwp_val64(...) - LWPVAL (43724 §5.3):
 * decrement EventCounter1; when it goes negative store an EventId 1 record
 * (Data2 = @data2, Data1 = @data1, Flags = @flags & 0xffff) and reload the
 * counter from EventInterval1 (with Random). Nothing when LWP or event 1 is
 * not enabled. No result; flags and registers are preserved.
 */
#define lwp_val32(data2, data1, flags) \
	lwp__val(LWP__ASM_LWPVAL32, uint32_t, 32, data2, data1, flags)
#define lwp_val64(data2, data1, flags) \
	lwp__val(LWP__ASM_LWPVAL64, uint64_t, 64, data2, data1, flags)

/*
 * lwp_llwpcb() - LLWPCB (43724 §5.1): flush the active LWPCB, then enable LWP
 * with the LWPCB at @lwpcb (an effective address), or disable it for NULL.
 * Faults as the instruction does (SIGSEGV for #GP/#PF, SIGILL for #UD).
 */
static inline void lwp_llwpcb(void *lwpcb)
{
	if (__builtin_expect(lwp_tls_emulated == LWP__TLS_EMU, 0)) {
		lwp_emu_llwpcb((uint64_t)(uintptr_t)lwpcb);
		return;
	}
	if (__builtin_expect(lwp_tls_emulated == LWP__TLS_UD2, 0)) {
		__asm__ __volatile__("ud2\n\t.byte 0x8f,0xe9,0xf8,0x12,0xc0"
				     : : "a"(lwpcb) : "memory");
		return;
	}
	__asm__ __volatile__(".byte 0x8f,0xe9,0xf8,0x12,0xc0"
			     : : "a"(lwpcb) : "memory");
}

/*
 * lwp_slwpcb() - SLWPCB (43724 §5.2): flush LWP state into the LWPCB and
 * return its address, or NULL if LWP is not active.
 */
static inline void *lwp_slwpcb(void)
{
	void *cb;

	if (__builtin_expect(lwp_tls_emulated == LWP__TLS_EMU, 0))
		return (void *)(uintptr_t)lwp_emu_slwpcb();
	if (__builtin_expect(lwp_tls_emulated == LWP__TLS_UD2, 0)) {
		__asm__ __volatile__("ud2\n\t.byte 0x8f,0xe9,0xf8,0x12,0xc8"
				     : "=a"(cb) : : "memory");
		return cb;
	}
	__asm__ __volatile__(".byte 0x8f,0xe9,0xf8,0x12,0xc8"
			     : "=a"(cb) : : "memory");
	return cb;
}

/* ---- JIT encoder (43724 §5; bytes identical to GNU as) ------------------- */

enum lwp_insn_op {
	LWP_INSN_LLWPCB = 0,	/* 8F RXB.09 W.1111.0.00 12 /0 */
	LWP_INSN_SLWPCB = 1,	/* 8F RXB.09 W.1111.0.00 12 /1 */
	LWP_INSN_LWPINS = 2,	/* 8F RXB.0A W.vvvv.0.00 12 /0 imm32 */
	LWP_INSN_LWPVAL = 3,	/* 8F RXB.0A W.vvvv.0.00 12 /1 imm32 */
};

/* General-purpose registers by their encoding number. */
enum lwp_reg {
	LWP_REG_NONE = -1,	/* no base / no index */
	LWP_REG_RAX = 0, LWP_REG_RCX, LWP_REG_RDX, LWP_REG_RBX,
	LWP_REG_RSP, LWP_REG_RBP, LWP_REG_RSI, LWP_REG_RDI,
	LWP_REG_R8, LWP_REG_R9, LWP_REG_R10, LWP_REG_R11,
	LWP_REG_R12, LWP_REG_R13, LWP_REG_R14, LWP_REG_R15,
	LWP_REG_RIP = 16,	/* base only: RIP-relative (EIP with addr32) */
};

/* Second operand of LWPINS/LWPVAL is memory (rm = LWP_RM_MEM). */
#define LWP_RM_MEM	(-2)

/* A memory operand: disp(base, index, scale). */
struct lwp_mem {
	int8_t base;		/* enum lwp_reg: 0..15, LWP_REG_RIP, NONE */
	int8_t index;		/* enum lwp_reg: 0..15 but not RSP, or NONE */
	uint8_t scale;		/* 1, 2, 4 or 8 (ignored without index) */
	uint8_t addr32;		/* 1: 32-bit address size (0x67 prefix) */
	uint8_t disp32;		/* 1: always a 32-bit displacement */
	int32_t disp;		/* displacement, bytes */
};

/*
 * One LWP instruction. AT&T order: lwpins $imm, rm, reg; llwpcb reg.
 */
struct lwp_insn {
	uint32_t op;		/* enum lwp_insn_op */
	uint32_t opsize;	/* operand size, bits: 32 or 64 */
	int32_t reg;		/* LLWPCB/SLWPCB operand (ModRM.rm); */
				/* LWPINS/LWPVAL first operand (vvvv, Data2) */
	int32_t rm;		/* LWPINS/LWPVAL Data1 register, or LWP_RM_MEM */
	struct lwp_mem mem;	/* the memory operand if rm == LWP_RM_MEM */
	uint32_t imm;		/* LWPINS/LWPVAL immediate (Flags = imm & 0xffff) */
};

/* Longest encoding: 67 8F xx xx 12 ModRM SIB disp32 imm32. */
#define LWP_INSN_MAX_LEN	15

/*
 * lwp_encode() - encode @insn into @buf (at least LWP_INSN_MAX_LEN bytes)
 * exactly as GNU as does for the same operands in 64-bit mode (shortest
 * displacement unless mem.disp32, SIB only where needed, RBP/R13 bases with
 * a zero disp8, absolute addresses through SIB, imm32 always; 43724 §5).
 * Returns the length in bytes (5..15), or -EINVAL for a NULL argument, an
 * unknown op, opsize not 32/64, a register out of range, RSP as index, a
 * scale not in {1,2,4,8}, RIP with an index, or a memory operand for
 * LLWPCB/SLWPCB.
 */
int lwp_encode(uint8_t *buf, const struct lwp_insn *insn);

/* ---- JIT call sequences (issue 18; 43724 §5) ------------------------------ */

/* Longest code lwp_jit_encode() emits, bytes. */
#define LWP_JIT_MAX_LEN	80

/*
 * lwp_jit_encode() - the code a JIT places where it wants the LWP
 * instruction @insn (any op and operand form lwp_encode() accepts), for the
 * backend of session @s:
 *  - LWP_BACKEND_HW: the instruction itself, as lwp_encode() emits it,
 *    preceded by UD2 (0F 0B) when s's caps.hw_ud2_marker is set;
 *  - LWP_BACKEND_EMU: a position-independent call sequence (no relocation:
 *    the bytes may be copied anywhere in the process) into liblwp with
 *    exactly the architectural effect of the instruction on the model of
 *    the thread that executes it: all general registers, vector, x87 and
 *    MXCSR state and RFLAGS preserved except LWPINS's CF and SLWPCB's
 *    destination; the 128-byte red zone below RSP is left untouched (it
 *    needs 1 KiB of stack below it, plus the XSAVE size when the model must
 *    run); operands and faults as the raw instruction (RIP-relative
 *    displacements count from the end of the sequence, as from the end of
 *    the raw instruction); a fault is signalled as Linux signals it and
 *    the instruction runs again when the handler returns.
 * The record's InstructionAddress (43724 Figure 2-2, 2-8) is the address of
 * the first byte of the emitted code when it runs, or *@ip if @ip is not
 * NULL (emulation only: hardware stores its own RIP).
 * With @buf NULL nothing is written and the length is returned: it depends
 * only on the backend and @insn (never on the address), so a JIT can plan
 * its layout first. See Documentation/liblwp.rst, "JIT call sequences".
 * Returns the length in bytes (at most LWP_JIT_MAX_LEN), -EINVAL (NULL @s
 * or @insn, an @insn lwp_encode() rejects, or SLWPCB into RSP: the call
 * sequence keeps the stack pointer), -ENOSPC (@size below the
 * length), -EOPNOTSUPP (@ip with the hardware backend).
 */
int lwp_jit_encode(const struct lwp_session *s, const struct lwp_insn *insn,
		   const uint64_t *ip, uint8_t *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* LWPT_LWP_H */
