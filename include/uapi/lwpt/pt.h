/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * /dev/pt: Intel Processor Trace (SDM Vol. 3 chapter 33) through lwpt.
 *
 * A program opens /dev/pt, checks LWPT_IOC_GET_ABI_VERSION (lwpt.h), reads
 * the capabilities (LWPT_PT_IOC_GET_CAPS), configures one capture
 * (LWPT_PT_IOC_CONFIGURE), maps each buffer read-only (mmap at the offset
 * LWPT_PT_IOC_GET_STATUS reports), starts (LWPT_PT_IOC_START), stops
 * (LWPT_PT_IOC_STOP) and reads the status of each buffer. A per-CPU capture
 * has one buffer per CPU (buffer n is CPU n); a per-thread capture one per
 * thread, numbered 0, 1, ... in the order the threads joined: status and
 * release name it with LWPT_PT_STQ_BUFFER (size version 1). See
 * Documentation/pt.rst.
 *
 * Growth: every struct begins with __u32 size. User space sets it to
 * sizeof() of the struct it was built with; the kernel accepts any size from
 * the first published one (LWPT_PT_*_SIZE_VER0) up, reads or writes only
 * min(its size, the user's size) bytes, requires bytes it does not know to
 * be zero on input (else -E2BIG, as perf_event_open), and writes the size it
 * filled back into @size on output. Fields are only ever appended. The
 * size the _IOWR() numbers below encode is that of the headers a program
 * was built with; the module ignores it (the struct's @size says), so a
 * program built before a struct grew keeps working.
 *
 * ioctl numbers 0x40-0x6F of LWPT_IOC_MAGIC belong to /dev/pt (lwpt.h).
 */
#ifndef _UAPI_LWPT_PT_H
#define _UAPI_LWPT_PT_H

#include <linux/ioctl.h>
#include <linux/types.h>

#include "lwpt.h"

/* struct lwpt_pt_caps.caps: one bit per capability of SDM Tables 33-11/12. */
#define LWPT_PT_CAP_CR3_FILTER		(1u << 0)	/* 14H.0:EBX[0] */
#define LWPT_PT_CAP_PSB_CYC		(1u << 1)	/* 14H.0:EBX[1] */
#define LWPT_PT_CAP_IP_FILTER		(1u << 2)	/* 14H.0:EBX[2] */
#define LWPT_PT_CAP_MTC			(1u << 3)	/* 14H.0:EBX[3] */
#define LWPT_PT_CAP_PTWRITE		(1u << 4)	/* 14H.0:EBX[4] */
#define LWPT_PT_CAP_POWER_EVENT		(1u << 5)	/* 14H.0:EBX[5] */
#define LWPT_PT_CAP_PSB_PMI_PRESERVE	(1u << 6)	/* 14H.0:EBX[6] */
#define LWPT_PT_CAP_EVENT_TRACE		(1u << 7)	/* 14H.0:EBX[7] */
#define LWPT_PT_CAP_TNT_DISABLE		(1u << 8)	/* 14H.0:EBX[8] */
#define LWPT_PT_CAP_TOPA		(1u << 9)	/* 14H.0:ECX[0] */
#define LWPT_PT_CAP_MENTRY		(1u << 10)	/* 14H.0:ECX[1] */
#define LWPT_PT_CAP_SNGLRGNOUT		(1u << 11)	/* 14H.0:ECX[2] */
#define LWPT_PT_CAP_TRACE_TRANSPORT	(1u << 12)	/* 14H.0:ECX[3] */
#define LWPT_PT_CAP_LIP			(1u << 13)	/* 14H.0:ECX[31] */
#define LWPT_PT_CAP_XSAVES		(1u << 14)	/* 0DH.1:ECX[8] and EAX[3] */
#define LWPT_PT_CAP_ERRATUM_BDM106	(1u << 15)	/* BranchEn is forced on */
/*
 * A model where PT and LBRs are mutually exclusive (SDM 33.3.1.2: 06_3DH,
 * 47H, 4EH, 4FH, 56H, 5EH): TraceEn is never set on a CPU whose
 * IA32_DEBUGCTL.LBR is set (START EBUSY, LWPT_PT_ST_LBR).
 */
#define LWPT_PT_CAP_LBR_EXCLUSIVE	(1u << 16)
/*
 * Errata TGL052 (Tiger Lake), ADL037 (Alder Lake), RPL017 (Raptor Lake):
 * single-range output larger than 4 KiB is unreliable. A larger single
 * range is configured as ToPA instead (LWPT_PT_CFG_SINGLE_RANGE cleared
 * in CONFIGURE's answer), as perf's pt_buffer_try_single() does.
 */
#define LWPT_PT_CAP_ERRATUM_SINGLE_4K	(1u << 17)

/**
 * struct lwpt_pt_caps - answer of LWPT_PT_IOC_GET_CAPS
 * @size:	in: sizeof(struct lwpt_pt_caps) of the caller; out: bytes filled
 * @caps:	LWPT_PT_CAP_* bits, decoded once by the module
 * @cpuid_14h:	CPUID.(EAX=14H,ECX=0 and 1) EAX..EDX as the boot CPU reports
 * @nr_ranges:	ADDRn ranges (14H.1:EAX[2:0]); 0 without IP filtering
 * @mtc_periods: bitmap of MTCFreq encodings (14H.1:EAX[31:16])
 * @cyc_thresholds: bitmap of CycThresh encodings (14H.1:EBX[15:0])
 * @psb_periods: bitmap of PSBFreq encodings (14H.1:EBX[31:16])
 * @maxphyaddr:	CPUID.80000008H:EAX[7:0]
 * @nr_cpus:	possible CPUs: valid values of lwpt_pt_status.cpu are below
 * @max_buffer_size: largest lwpt_pt_config.buffer_size accepted, bytes
 * @max_region_size: largest ToPA output region the module allocates, bytes;
 *		also the largest single-range buffer (one contiguous block)
 *
 * Size version 1 (LWPT_PT_CAPS_SIZE_VER1) appends, for the calling process
 * at the time of the call (Documentation/pt.rst, "Memory"):
 * @mlock_avail: bytes of trace buffer pages (ToPA tables included) it may
 *		still pin: what is left of its user's pt_mlock_kb allowance
 *		plus RLIMIT_MEMLOCK less the user's locked_vm;
 *		LWPT_PT_MLOCK_UNLIMITED with CAP_IPC_LOCK, pt_paranoid -1 or
 *		RLIMIT_MEMLOCK unlimited. A hint: others may pin meanwhile.
 * @thread_spares: buffers a per-thread capture allocates at CONFIGURE
 *		besides one per thread of the target (for threads to come)
 * @reserved:	0
 *
 * Size version 2 (LWPT_PT_CAPS_SIZE_VER2) appends the timing leaves as the
 * module's processor reports them (natively the boot CPU's CPUID; on
 * lwpt_sim.ko the model's): decoders convert MTC and CYC with them (SDM
 * 33.8.3). 0 where the leaf is not enumerated (maximum leaf below it).
 * @cpuid_15h:	CPUID.15H EAX (TSC:ART ratio denominator), EBX (numerator),
 *		ECX (ART frequency in Hz, 0 if not enumerated)
 * @cpuid_16h_eax: CPUID.16H:EAX[15:0], processor base frequency in MHz
 */
struct lwpt_pt_caps {
	__u32 size;
	__u32 caps;
	__u32 cpuid_14h[2][4];
	__u32 nr_ranges;
	__u32 mtc_periods;
	__u32 cyc_thresholds;
	__u32 psb_periods;
	__u32 maxphyaddr;
	__u32 nr_cpus;
	__u64 max_buffer_size;
	__u64 max_region_size;
	__u64 mlock_avail;
	__u32 thread_spares;
	__u32 reserved;
	__u32 cpuid_15h[3];
	__u32 cpuid_16h_eax;
};

/*
 * Size of the first published version, of version 1 (mlock_avail) and of
 * version 2 (cpuid_15h, cpuid_16h_eax).
 */
#define LWPT_PT_CAPS_SIZE_VER0		80
#define LWPT_PT_CAPS_SIZE_VER1		96
#define LWPT_PT_CAPS_SIZE_VER2		112

/* struct lwpt_pt_caps.mlock_avail: no limit applies. */
#define LWPT_PT_MLOCK_UNLIMITED		(~(__u64)0)

/* struct lwpt_pt_config.flags: IA32_RTIT_CTL bits (SDM 33.2.8.2). */
#define LWPT_PT_CFG_OS			(1u << 0)	/* OS: trace CPL 0 */
#define LWPT_PT_CFG_USER		(1u << 1)	/* User: trace CPL > 0 */
#define LWPT_PT_CFG_BRANCH		(1u << 2)	/* BranchEn: COFI packets */
#define LWPT_PT_CFG_TSC			(1u << 3)	/* TSCEn */
#define LWPT_PT_CFG_MTC			(1u << 4)	/* MTCEn, with mtc_freq */
#define LWPT_PT_CFG_CYC			(1u << 5)	/* CYCEn, with cyc_thresh */
#define LWPT_PT_CFG_DISRETC		(1u << 6)	/* DisRETC */
#define LWPT_PT_CFG_PTW			(1u << 7)	/* PTWEn */
#define LWPT_PT_CFG_FUPONPTW		(1u << 8)	/* FUPonPTW (needs PTW) */
#define LWPT_PT_CFG_PWREVT		(1u << 9)	/* PwrEvtEn */
#define LWPT_PT_CFG_EVENT		(1u << 10)	/* EventEn */
#define LWPT_PT_CFG_DISTNT		(1u << 11)	/* DisTNT */
#define LWPT_PT_CFG_INJECT_PSB_PMI	(1u << 12)	/* InjectPsbPmiOnEnable */
#define LWPT_PT_CFG_CR3_FILTER		(1u << 13)	/* CR3Filter on @pid's CR3 */
#define LWPT_PT_CFG_PSBFREQ		(1u << 14)	/* program @psb_freq */
/*
 * Output scheme, not an IA32_RTIT_CTL bit: single-range output (SDM
 * 33.2.7.1, CPUID.(14H,0):ECX[2]), IA32_RTIT_CTL.ToPA=0. Wrap mode only;
 * @buffer_size a power of two from 4096 to caps.max_region_size. Set by
 * CONFIGURE in its answer when the processor has single-range output but
 * no ToPA; cleared in it when a range above 4 KiB is asked for on a part
 * with LWPT_PT_CAP_ERRATUM_SINGLE_4K, which then gets ToPA (Documentation/
 * pt.rst, "Buffers: single-range output").
 */
#define LWPT_PT_CFG_SINGLE_RANGE	(1u << 15)
/*
 * Not an IA32_RTIT_CTL bit: a per-thread capture does not follow the
 * processes the traced ones create (fork/clone without CLONE_THREAD); by
 * default it does, each new thread with its own buffer (Documentation/
 * pt.rst, "Following forks"). Modules before it refuse it (bad_field
 * flags).
 */
#define LWPT_PT_CFG_NO_INHERIT		(1u << 16)
/*
 * Not an IA32_RTIT_CTL bit: a per-thread capture in continuous mode
 * (LWPT_PT_SCOPE_THREAD, LWPT_PT_MODE_CONTINUOUS) never holds its threads
 * for the reader: a thread whose buffer is full runs on untraced until the
 * reader makes room, a loss counted in lost (the behaviour before ABI 1.4).
 * Without it such a thread is held in the kernel before its buffer can fill
 * and nothing is lost (Documentation/pt.rst, "Continuous mode: the hold").
 * No effect in other modes and per CPU (a CPU is never held). Modules
 * before it refuse it (bad_field flags).
 */
#define LWPT_PT_CFG_LOSSY		(1u << 17)
#define LWPT_PT_CFG_ALL			((1u << 18) - 1)

/* struct lwpt_pt_config.mode */
#define LWPT_PT_MODE_WRAP		0	/* flight recorder: newest data kept */
#define LWPT_PT_MODE_STOP		1	/* stop when the buffer is full */
#define LWPT_PT_MODE_CONTINUOUS		2	/* ToPA PMI; reader drains, releases */

/* struct lwpt_pt_config.scope */
#define LWPT_PT_SCOPE_CPU		0	/* online CPUs (all, or cpu_mask) */
#define LWPT_PT_SCOPE_THREAD		1	/* the threads of @pid */

/* struct lwpt_pt_addr_range.cfg: the ADDRn_CFG encodings (SDM 33.2.8.2). */
#define LWPT_PT_ADDR_UNUSED		0
#define LWPT_PT_ADDR_FILTER		1	/* FilterEn range */
#define LWPT_PT_ADDR_STOP		2	/* TraceStop range */

#define LWPT_PT_ADDR_RANGES		4	/* SDM 33.3.1: at most 4 */

/**
 * struct lwpt_pt_addr_range - one ADDRn range, IA32_RTIT_ADDRn_A/B
 * @a:	first linear address of the range (canonical)
 * @b:	last linear address of the range (canonical, >= @a)
 * @cfg: LWPT_PT_ADDR_*
 * @reserved: must be 0
 */
struct lwpt_pt_addr_range {
	__u64 a;
	__u64 b;
	__u32 cfg;
	__u32 reserved;
};

/* struct lwpt_pt_config.bad_field: which field was refused. */
enum lwpt_pt_field {
	LWPT_PT_FIELD_NONE = 0,
	LWPT_PT_FIELD_SIZE,
	LWPT_PT_FIELD_FLAGS,
	LWPT_PT_FIELD_OS,
	LWPT_PT_FIELD_USER,
	LWPT_PT_FIELD_BRANCH,
	LWPT_PT_FIELD_MTC,
	LWPT_PT_FIELD_MTC_FREQ,
	LWPT_PT_FIELD_CYC,
	LWPT_PT_FIELD_CYC_THRESH,
	LWPT_PT_FIELD_PSB_FREQ,
	LWPT_PT_FIELD_PTW,
	LWPT_PT_FIELD_FUPONPTW,
	LWPT_PT_FIELD_PWREVT,
	LWPT_PT_FIELD_EVENT,
	LWPT_PT_FIELD_DISTNT,
	LWPT_PT_FIELD_INJECT_PSB_PMI,
	LWPT_PT_FIELD_CR3_FILTER,
	LWPT_PT_FIELD_PID,
	LWPT_PT_FIELD_MODE,
	LWPT_PT_FIELD_SCOPE,
	LWPT_PT_FIELD_BUFFER_SIZE,
	LWPT_PT_FIELD_REGION_SIZE,
	LWPT_PT_FIELD_ADDR0,	/* ADDRn: LWPT_PT_FIELD_ADDR0 + n */
	LWPT_PT_FIELD_ADDR1,
	LWPT_PT_FIELD_ADDR2,
	LWPT_PT_FIELD_ADDR3,
	LWPT_PT_FIELD_RESERVED,
	LWPT_PT_FIELD_SINGLE_RANGE,	/* LWPT_PT_CFG_SINGLE_RANGE */
	LWPT_PT_FIELD_CPU_MASK,		/* cpu_mask, cpu_mask_size (ver 2) */
	LWPT_PT_FIELD_NR
};

/*
 * struct lwpt_pt_config.rule (size version 1): the permission rule that
 * refused a CONFIGURE (EPERM, EACCES, ENOMEM), Documentation/pt.rst
 * "Permissions". Opening /dev/pt itself is refused by the node's mode
 * (open() EACCES) before any of these.
 */
#define LWPT_PT_RULE_NONE		0
#define LWPT_PT_RULE_CAPABILITY		1	/* OS or per-CPU: CAP_PERFMON */
#define LWPT_PT_RULE_PARANOID		2	/* pt_paranoid > 2: CAP_PERFMON */
#define LWPT_PT_RULE_PTRACE		3	/* the target: the ptrace read rule */
#define LWPT_PT_RULE_MEMLOCK		4	/* pt_mlock_kb + RLIMIT_MEMLOCK */

/**
 * struct lwpt_pt_config - argument of LWPT_PT_IOC_CONFIGURE
 * @size:	sizeof(struct lwpt_pt_config) of the caller
 * @flags:	LWPT_PT_CFG_* bits
 * @mode:	LWPT_PT_MODE_*
 * @scope:	LWPT_PT_SCOPE_*
 * @mtc_freq:	MTCFreq encoding (with LWPT_PT_CFG_MTC), 14H.1:EAX[31:16]
 * @cyc_thresh:	CycThresh encoding (with LWPT_PT_CFG_CYC), 14H.1:EBX[15:0]
 * @psb_freq:	PSBFreq encoding (with LWPT_PT_CFG_PSBFREQ), 14H.1:EBX[31:16]
 * @pid:	target process for LWPT_PT_CFG_CR3_FILTER and THREAD scope;
 *		0 otherwise
 * @buffer_size: bytes of trace buffer per CPU: a multiple of 4096; a power
 *		of two on processors without MENTRY (single output region)
 *		and with LWPT_PT_CFG_SINGLE_RANGE (at most caps.max_region_size)
 * @region_size: largest ToPA region to use, bytes (power of two, >= 4096);
 *		0 = as large as the module can allocate; with
 *		LWPT_PT_CFG_SINGLE_RANGE 0 or @buffer_size
 * @addr:	ADDRn ranges; entries at or beyond caps.nr_ranges must be unused
 * @bad_field:	out: LWPT_PT_FIELD_* naming the refused field, 0 on success
 * @reserved:	must be 0
 *
 * Size version 1 (LWPT_PT_CONFIG_SIZE_VER1) appends:
 * @rule:	out: LWPT_PT_RULE_* that refused, 0 otherwise (any value in)
 * @holder:	out: with EBUSY because another file holds the capture, the
 *		process that configured it (its pid in the caller's pid
 *		namespace; 0 if not visible there); 0 otherwise (any value in)
 *
 * Size version 2 (LWPT_PT_CONFIG_SIZE_VER2) appends the CPU selection of a
 * per-CPU capture (LWPT_PT_SCOPE_CPU), as perf record -C:
 * @cpu_mask:	user address of a CPU bitmap as sched_setaffinity() takes it
 *		(unsigned long words; bit n of the little-endian bitmap is
 *		CPU n); 0 = every online CPU (version 0 and 1 behaviour)
 * @cpu_mask_size: bytes at @cpu_mask, 1 to LWPT_PT_CPU_MASK_MAX; 0 with
 *		@cpu_mask 0
 * @reserved2:	must be 0
 * Every set bit must be below caps.nr_cpus and the CPU online, at least
 * one bit set; buffers are allocated and tracing set only there
 * (Documentation/pt.rst, "CPU selection"). Refused with bad_field
 * LWPT_PT_FIELD_CPU_MASK: EINVAL a bit at or above nr_cpus, an empty
 * selection, a size of 0 or above LWPT_PT_CPU_MASK_MAX, one of the two
 * fields without the other, a selection with LWPT_PT_SCOPE_THREAD;
 * EFAULT @cpu_mask not readable; ENODEV a selected CPU offline.
 *
 * Size version 3 (LWPT_PT_CONFIG_SIZE_VER3) appends:
 * @hold_limit_ms: per-thread continuous mode without LWPT_PT_CFG_LOSSY:
 *		the longest a thread is held for its reader at a time, in
 *		milliseconds (Documentation/pt.rst, "Continuous mode: the
 *		hold"); 0 = LWPT_PT_HOLD_LIMIT_DEFAULT_MS (also for callers of
 *		an older size), LWPT_PT_HOLD_LIMIT_NONE = no limit (the
 *		behaviour of ABI 1.4). A thread held that long runs on: its
 *		buffer stalls at the gate, a loss counted in the status (lost,
 *		hold_timeouts), and it is not held again until its reader
 *		releases some of its data. Out: the limit in force (0 became
 *		the default). Ignored in other modes and scopes.
 * @reserved3:	must be 0
 */
struct lwpt_pt_config {
	__u32 size;
	__u32 flags;
	__u32 mode;
	__u32 scope;
	__u32 mtc_freq;
	__u32 cyc_thresh;
	__u32 psb_freq;
	__s32 pid;
	__u64 buffer_size;
	__u64 region_size;
	struct lwpt_pt_addr_range addr[LWPT_PT_ADDR_RANGES];
	__u32 bad_field;
	__u32 reserved;
	__u32 rule;
	__s32 holder;
	__u64 cpu_mask;
	__u32 cpu_mask_size;
	__u32 reserved2;
	__u32 hold_limit_ms;
	__u32 reserved3;
};

/*
 * Size of the first published version, of version 1 (rule, holder), of
 * version 2 (cpu_mask, cpu_mask_size) and of version 3 (hold_limit_ms).
 */
#define LWPT_PT_CONFIG_SIZE_VER0	152
#define LWPT_PT_CONFIG_SIZE_VER1	160
#define LWPT_PT_CONFIG_SIZE_VER2	176
#define LWPT_PT_CONFIG_SIZE_VER3	184

/* struct lwpt_pt_config.hold_limit_ms (size version 3) */
#define LWPT_PT_HOLD_LIMIT_DEFAULT_MS	1000		/* 0 asks for it */
#define LWPT_PT_HOLD_LIMIT_NONE		0xffffffffu	/* held until released */

/* Largest lwpt_pt_config.cpu_mask_size: 32768 CPUs (Linux has <= 8192). */
#define LWPT_PT_CPU_MASK_MAX		4096

/* struct lwpt_pt_status.flags */
#define LWPT_PT_ST_CONFIGURED		(1u << 0)	/* this CPU has a buffer */
#define LWPT_PT_ST_TRACING		(1u << 1)	/* TraceEn=1 as last set */
#define LWPT_PT_ST_WRAPPED		(1u << 2)	/* older data was overwritten */
#define LWPT_PT_ST_STALLED		(1u << 3)	/* continuous: waiting for reader */
#define LWPT_PT_ST_BUSY			(1u << 4)	/* TraceEn was set by another owner */
#define LWPT_PT_ST_THREAD		(1u << 5)	/* a thread's buffer (@tid) */
#define LWPT_PT_ST_EXITED		(1u << 6)	/* the thread exited; trace kept */
#define LWPT_PT_ST_OFFLINE		(1u << 7)	/* the CPU is offline; trace kept */
#define LWPT_PT_ST_EXECED		(1u << 8)	/* the thread called execve() */
#define LWPT_PT_ST_DETACHED		(1u << 9)	/* no longer traced (exec) */
/*
 * Single-range output (SDM 33.2.7.1): the processor wraps without a PMI, so
 * @head, @wraps and WRAPPED count only what the module's pointer reads saw
 * (lower bounds); @offset is exact. Documentation/pt.rst.
 */
#define LWPT_PT_ST_WRAP_UNKNOWN		(1u << 10)
/*
 * Someone else cleared TraceEn or moved the output pointers of this trace
 * (another tracer, a VMM, VMXON where IA32_VMX_MISC[14] = 0; SDM 33.2.9):
 * the time until lwpt noticed is not traced, counted in @lost.
 */
#define LWPT_PT_ST_INTERFERED		(1u << 11)
/*
 * On a PT/LBR-exclusive model (LWPT_PT_CAP_LBR_EXCLUSIVE) lwpt found
 * IA32_DEBUGCTL.LBR set where it was to set TraceEn, and left TraceEn
 * clear (SDM 33.3.1.2): at START (EBUSY), or mid-capture, where the buffer
 * stops taking data and INTERFERED and @lost count it.
 */
#define LWPT_PT_ST_LBR			(1u << 12)
/*
 * Per thread (size version 5, ABI 1.5): no buffer has this number now. Its
 * thread's buffer was read and freed (RELEASE with LWPT_PT_REL_DONE); the
 * next thread that joins takes the lowest such number, with a new @serial.
 * Only CONFIGURED is clear; @nr_buffers, @threads_lost and @joined are set.
 */
#define LWPT_PT_ST_FREED		(1u << 13)

/*
 * struct lwpt_pt_status.stop_reason (size version 2): why a thread's
 * buffer stopped taking data; what it captured before stays readable.
 */
#define LWPT_PT_STOP_NONE		0	/* traced (or not started) */
#define LWPT_PT_STOP_EXIT		1	/* the thread exited (EXITED) */
/*
 * DETACHED at an exec: the new program's credentials are not the caller's
 * as saved at CONFIGURE (set-user-ID, set-group-ID, file capabilities):
 * the ptrace read rule refuses it.
 */
#define LWPT_PT_STOP_EXEC_CREDS		2
#define LWPT_PT_STOP_EXEC_DUMPABLE	3	/* DETACHED: not dumpable */
#define LWPT_PT_STOP_ERROR		4	/* an RTIT MSR access faulted */
/*
 * A privileged capture (CAP_PERFMON) that these threads or CPUs were in the
 * way of ended this unprivileged one (Documentation/pt.rst, "Concurrent
 * captures"); START is refused (EBUSY) until it is configured again.
 */
#define LWPT_PT_STOP_PREEMPTED		5

/* struct lwpt_pt_status.query and lwpt_pt_release.query (size version 1) */
#define LWPT_PT_STQ_BUFFER		(1u << 0)	/* @buffer names it, not @cpu */
/*
 * lwpt_pt_release.query only (ABI 1.5), with LWPT_PT_STQ_BUFFER: the reader
 * is done with the buffer of a thread that is no longer traced; the buffer
 * is freed and its charge given back (Documentation/pt.rst, "Buffers of
 * threads that ended"). Any mode. Refused: EBUSY the thread is still
 * traced or the buffer is mapped; EINVAL @tail is not the buffer's final
 * head (something was not read), per CPU, or a module before ABI 1.5.
 */
#define LWPT_PT_REL_DONE		(1u << 1)

/* Entries of struct lwpt_pt_status.gap_heads (size version 4). */
#define LWPT_PT_GAP_HEADS		16

/**
 * struct lwpt_pt_status - argument of LWPT_PT_IOC_GET_STATUS
 * @size:	sizeof(struct lwpt_pt_status) of the caller
 * @cpu:	in: the CPU asked about (per-CPU capture, @query 0); out: the
 *		CPU of a per-CPU buffer, the last CPU a thread ran on, or
 *		0xffffffff
 * @flags:	LWPT_PT_ST_*
 * @reserved:	0
 * @rtit_status: IA32_RTIT_STATUS as last read (at stop or at a PMI)
 * @rtit_ctl:	IA32_RTIT_CTL the module programs (TraceEn included)
 * @head:	bytes the processor has written since start (total, 64-bit);
 *		a lower bound with LWPT_PT_ST_WRAP_UNKNOWN
 * @offset:	where the next byte goes in the buffer (@head modulo the size
 *		once the buffer wrapped)
 * @wraps:	times the buffer wrapped (wrap and continuous modes)
 * @lost:	times trace data was lost: continuous-mode stalls and overruns,
 *		operational errors, a CPU going offline while tracing; not
 *		STATUS.Stopped (stop mode full or TraceStop: as configured)
 * @buffer_size: bytes of this CPU's buffer
 * @mmap_offset: the mmap() offset of this CPU's buffer
 * @pmis:	ToPA PMIs handled on this CPU (or for this thread)
 *
 * Size version 1 (LWPT_PT_STATUS_SIZE_VER1) appends:
 * @buffer:	in: the buffer asked about with LWPT_PT_STQ_BUFFER in @query;
 *		out: the buffer's number (mmap offset = @buffer * buffer size)
 * @query:	in: LWPT_PT_STQ_*; 0 asks by @cpu as version 0 does
 * @tid:	out: the thread of a per-thread buffer (in the caller's pid
 *		namespace, 0 if not visible there); 0 for a CPU's buffer
 * @pid:	out: its process (thread-group id); 0 for a CPU's buffer
 * @nr_buffers:	out: buffers of the capture now: numbers below it are valid
 *		(per thread, it grows as threads join)
 * @threads_lost: out: threads of a per-thread capture that joined when no
 *		buffer was ready and are not traced (Documentation/pt.rst)
 *
 * Size version 2 (LWPT_PT_STATUS_SIZE_VER2) appends:
 * @stop_reason: out: LWPT_PT_STOP_*: why a thread's buffer stopped
 * @ppid:	out: a thread of a process the capture followed at a fork:
 *		the traced process whose fork created it (caller's pid
 *		namespace); 0 for the configured process and per CPU
 *
 * Size version 3 (LWPT_PT_STATUS_SIZE_VER3) appends:
 * @gap_head:	out: @head where the stream was last cut by a loss: a ToPA
 *		stop at the continuous-mode gate ends the output mid-packet
 *		(SDM 33.2.7.2 "ToPA STOP"), output pointers someone else moved
 *		were put back there. The bytes from there to the next PSB do
 *		not continue the packets before it: a decoder synchronises
 *		again at the first PSB at or after it. 0: no such loss.
 *
 * Size version 4 (LWPT_PT_STATUS_SIZE_VER4) appends:
 * @holds:	out: times the thread was held in the kernel for its reader
 *		(per-thread continuous mode without LWPT_PT_CFG_LOSSY,
 *		Documentation/pt.rst "Continuous mode: the hold"); 0 per CPU
 * @held_ns:	out: nanoseconds it spent held, in all (CLOCK_MONOTONIC)
 * @gaps:	out: cuts of the stream since START (@gap_head is the last)
 * @gap_heads:	out: every cut is kept: @head of cut number n (from 0) is in
 *		@gap_heads[n % LWPT_PT_GAP_HEADS] until LWPT_PT_GAP_HEADS more
 *		cuts came; a reader that sees @gaps grow by more than that
 *		between two reads has lost the positions of the older ones
 *
 * Size version 5 (LWPT_PT_STATUS_SIZE_VER5) appends:
 * @threads_refused: out: threads of a per-thread capture's processes that
 *		the permission rule refused and that are not traced: at
 *		CONFIGURE, a thread of the target process whose own
 *		credentials the caller may not trace (credentials are per
 *		thread: a raw setresuid(2) or capset(2) changes one); later,
 *		a thread or process a traced thread created that the rule
 *		refuses (Documentation/pt.rst, "Permissions: every thread")
 * @reserved5:	out: 0
 * @pad_bytes:	out: bytes of @head that are PAD packets the module wrote
 *		(SDM 33.4.2.20), not the processor: per-thread continuous
 *		mode with one output region (no MENTRY) skips the rest of a
 *		lap this way when the reader has taken everything
 *		(Documentation/pt.rst, "Continuous mode: the hold")
 * @pad_from:	out: @head where the last such PAD run begins
 * @pad_to:	out: @head where it ends; the module released it at once: a
 *		reader must skip [@pad_from, @pad_to) without reading the
 *		buffer there (the next lap may have overwritten it)
 * @lost_bytes:	out: bytes of @head the reader can no longer get: a
 *		continuous-mode overrun (@lost counts the times) moved the
 *		oldest unread byte past them
 * Every byte the processor or the module wrote is accounted: a reader that
 * keeps up saves @head - @pad_bytes - @lost_bytes bytes.
 * and (per-thread captures; 0 per CPU):
 * @serial:	out: which thread holds the buffer: n for the n-th thread that
 *		joined the capture (from 1); a number freed by LWPT_PT_REL_DONE
 *		and taken again shows a new one; 0 with LWPT_PT_ST_FREED
 * @joined:	out: threads that joined the capture since CONFIGURE: when it
 *		grows, new threads have buffers, perhaps in freed numbers
 * @hold_timeouts: out: holds that reached the capture's hold limit
 *		(lwpt_pt_config.hold_limit_ms): the thread ran on, and its
 *		buffer stalled at the gate until the reader made room (each
 *		stall also counted in @lost); 0 per CPU
 */
struct lwpt_pt_status {
	__u32 size;
	__u32 cpu;
	__u32 flags;
	__u32 reserved;
	__u64 rtit_status;
	__u64 rtit_ctl;
	__u64 head;
	__u64 offset;
	__u64 wraps;
	__u64 lost;
	__u64 buffer_size;
	__u64 mmap_offset;
	__u64 pmis;
	__u32 buffer;
	__u32 query;
	__s32 tid;
	__s32 pid;
	__u32 nr_buffers;
	__u32 threads_lost;
	__u32 stop_reason;
	__s32 ppid;
	__u64 gap_head;
	__u64 holds;
	__u64 held_ns;
	__u64 gaps;
	__u64 gap_heads[LWPT_PT_GAP_HEADS];
	__u32 threads_refused;
	__u32 reserved5;
	__u64 pad_bytes;
	__u64 pad_from;
	__u64 pad_to;
	__u64 lost_bytes;
	__u64 serial;
	__u64 joined;
	__u64 hold_timeouts;
};

/*
 * Size of the first published version, of version 1 (buffer ...), of
 * version 2 (stop_reason, ppid), of version 3 (gap_head), of version 4
 * (holds, held_ns, gaps, gap_heads) and of version 5 (threads_refused,
 * pad_bytes, pad_from, pad_to, lost_bytes, serial, joined, hold_timeouts).
 */
#define LWPT_PT_STATUS_SIZE_VER0	88
#define LWPT_PT_STATUS_SIZE_VER1	112
#define LWPT_PT_STATUS_SIZE_VER2	120
#define LWPT_PT_STATUS_SIZE_VER3	128
#define LWPT_PT_STATUS_SIZE_VER4	280
#define LWPT_PT_STATUS_SIZE_VER5	344

/**
 * struct lwpt_pt_release - argument of LWPT_PT_IOC_RELEASE (continuous mode)
 * @size:	sizeof(struct lwpt_pt_release)
 * @cpu:	the CPU whose buffer was read (@query 0)
 * @tail:	bytes consumed since start (monotonic, at most head)
 *
 * Size version 1 (LWPT_PT_RELEASE_SIZE_VER1) appends:
 * @buffer:	the buffer that was read, with LWPT_PT_STQ_BUFFER in @query
 * @query:	LWPT_PT_STQ_*; 0 names the buffer by @cpu as version 0 does;
 *		LWPT_PT_REL_DONE (ABI 1.5): the reader is done with the buffer
 *		of a thread no longer traced, @tail its final head: freed
 */
struct lwpt_pt_release {
	__u32 size;
	__u32 cpu;
	__u64 tail;
	__u32 buffer;
	__u32 query;
};

/* Size of the first published version, and of version 1 (buffer, query). */
#define LWPT_PT_RELEASE_SIZE_VER0	16
#define LWPT_PT_RELEASE_SIZE_VER1	24

/* struct lwpt_pt_switch.flags */
#define LWPT_PT_SW_PREV_IDLE		(1u << 0)	/* prev is the idle task */
#define LWPT_PT_SW_PREV_KTHREAD		(1u << 1)	/* prev is a kernel thread */
#define LWPT_PT_SW_NEXT_IDLE		(1u << 2)	/* next is the idle task */
#define LWPT_PT_SW_NEXT_KTHREAD		(1u << 3)	/* next is a kernel thread */
#define LWPT_PT_SW_PREEMPT		(1u << 4)	/* prev was preempted (runnable) */

/**
 * struct lwpt_pt_switch - one context switch of a per-CPU capture (sideband)
 * @tsc:	the time stamp counter (RDTSC) on @cpu at the switch: the clock
 *		of the TSC packets (SDM 33.4.2.11), read in the sched_switch
 *		tracepoint, after prev's last and before next's first
 *		instruction on @cpu
 * @cpu:	the logical CPU
 * @flags:	LWPT_PT_SW_*
 * @prev_pid:	the process (thread-group id) switched out, in the pid
 *		namespace of the process that configured the capture; 0 for
 *		the idle task and for tasks not visible there
 * @prev_tid:	the thread switched out, same namespace
 * @next_pid:	the process switched in
 * @next_tid:	the thread switched in
 */
struct lwpt_pt_switch {
	__u64 tsc;
	__u32 cpu;
	__u32 flags;
	__s32 prev_pid;
	__s32 prev_tid;
	__s32 next_pid;
	__s32 next_tid;
};

/* Size of the first published version of a record. */
#define LWPT_PT_SWITCH_SIZE_VER0	32

/**
 * struct lwpt_pt_sideband - argument of LWPT_PT_IOC_READ_SIDEBAND
 * @size:	sizeof(struct lwpt_pt_sideband) of the caller
 * @cpu:	in: the CPU whose context switches are read
 * @records:	in: user address of @capacity records of @record_size bytes
 * @capacity:	in: records that fit at @records (0: only the counters)
 * @record_size: in: bytes per record at @records (the stride, at least
 *		LWPT_PT_SWITCH_SIZE_VER0); out: bytes of each record the kernel
 *		filled (bytes beyond them in each record are zeroed)
 * @copied:	out: records written to @records, oldest first (must be 0 in)
 * @pending:	out: records still in the ring after this call (0 in)
 * @lost:	out: records dropped since START because the ring was full
 *		(0 in)
 */
struct lwpt_pt_sideband {
	__u32 size;
	__u32 cpu;
	__u64 records;
	__u32 capacity;
	__u32 record_size;
	__u32 copied;
	__u32 pending;
	__u64 lost;
};

/* Size of the first published version. */
#define LWPT_PT_SIDEBAND_SIZE_VER0	40

/*
 * Errors of every ioctl: EFAULT bad pointer; EINVAL bad size, flags or value
 * (CONFIGURE names the field in bad_field); E2BIG unknown trailing bytes not
 * zero; EOPNOTSUPP a field the processor does not enumerate (bad_field);
 * EPERM/EACCES not allowed (CONFIGURE names the rule in rule:
 * Documentation/pt.rst, "Permissions"); ENOMEM out of memory, or over the
 * caller's pt_mlock_kb allowance and RLIMIT_MEMLOCK (rule memlock); EBUSY
 * another capture is configured, CONFIGURE again while the buffers are
 * mapped, TraceEn was already set by someone else, or (START)
 * IA32_DEBUGCTL.LBR is set on a PT/LBR-exclusive model
 * (LWPT_PT_CAP_LBR_EXCLUSIVE), or (CONFIGURE) /dev/bts records a thread
 * the capture would trace (per-thread: one of @pid's threads, bad_field
 * pid; per-CPU: any thread, bad_field scope); ENOTTY unknown command; ENODATA
 * START/STATUS/RELEASE before CONFIGURE.
 *
 * Per-thread capture (LWPT_PT_SCOPE_THREAD): STATUS and RELEASE name the
 * buffer with LWPT_PT_STQ_BUFFER (without it they are EINVAL); a buffer
 * number at or above nr_buffers is EINVAL; below it, a number whose buffer
 * was freed (LWPT_PT_REL_DONE) answers STATUS with LWPT_PT_ST_FREED and
 * RELEASE and mmap with EINVAL until a new thread takes it. RELEASE in wrap
 * and stop modes: only with LWPT_PT_REL_DONE.
 *
 * READ_SIDEBAND (per-CPU capture only: EOPNOTSUPP per thread) takes the
 * oldest context switches recorded on @cpu since START out of its ring;
 * EPERM when another file owns the capture, ENODATA before CONFIGURE,
 * EINVAL for a CPU without a buffer, a bad @record_size or non-zero out
 * fields, EFAULT for a bad @records (the records taken are then lost).
 */
#define LWPT_PT_IOC_GET_CAPS	_IOWR(LWPT_IOC_MAGIC, 0x40, struct lwpt_pt_caps)
#define LWPT_PT_IOC_CONFIGURE	_IOWR(LWPT_IOC_MAGIC, 0x41, struct lwpt_pt_config)
#define LWPT_PT_IOC_START	_IO(LWPT_IOC_MAGIC, 0x42)
#define LWPT_PT_IOC_STOP	_IO(LWPT_IOC_MAGIC, 0x43)
#define LWPT_PT_IOC_GET_STATUS	_IOWR(LWPT_IOC_MAGIC, 0x44, struct lwpt_pt_status)
#define LWPT_PT_IOC_RELEASE	_IOW(LWPT_IOC_MAGIC, 0x45, struct lwpt_pt_release)
#define LWPT_PT_IOC_READ_SIDEBAND _IOWR(LWPT_IOC_MAGIC, 0x46, struct lwpt_pt_sideband)

#endif /* _UAPI_LWPT_PT_H */
