/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * /dev/bts: the Branch Trace Store (SDM Vol. 3B 17.4.5-17.4.9) of a thread,
 * written by the processor into a buffer the caller maps (ABI 1.6; ring
 * captures 1.7; LWPT_BTS_ST_DS_TAKEN 1.8; the ring's hold limit 1.9).
 *
 * One capture per open file, of a thread (below) or, with
 * LWPT_BTS_IOC_CONFIGURE_CPU (ABI 1.7), of every thread on one CPU with
 * its context switches (LWPT_BTS_IOC_READ_SWITCHES):
 *   1. LWPT_BTS_IOC_CONFIGURE with a struct lwpt_bts_config: the thread
 *      (@pid, 0 for the caller), user and/or kernel branches, the buffer
 *      size. The buffer is allocated and recording starts at once.
 *   2. mmap(2) the file, offset 0, @buffer_size bytes, PROT_READ only:
 *      24-byte records (struct lwpt_bts_record), oldest first.
 *   3. LWPT_BTS_IOC_STOP ends recording (also close(2) or the thread's
 *      exit); LWPT_BTS_IOC_STATUS says how many bytes hold records.
 *
 * The buffer is linear, not circular: once full, recording stops there
 * (IA32_DEBUGCTL.BTINT, 17.4.5) and LWPT_BTS_ST_FULL is set. With
 * LWPT_BTS_CFG_RING (ABI 1.7) it is a ring the caller drains while the
 * thread runs, and nothing is lost: the DS interrupt threshold (17.4.9.3)
 * raises a PMI before the room ends; the kernel then moves the processor
 * on to the free part of the ring, or, with no room left, holds the thread
 * in the kernel until the caller consumed records (LWPT_BTS_IOC_CONSUME).
 * poll(2) on the file is readable when records wait (as of the last
 * interrupt or switch) and reports POLLHUP once recording ended. A thread may
 * not be recorded by BTS and Intel PT at once: CONFIGURE is EBUSY
 * (bad_field LWPT_BTS_FIELD_PID) while /dev/pt traces the thread or a
 * per-CPU /dev/pt capture is configured, and /dev/pt's CONFIGURE is EBUSY
 * while BTS records one of its target's threads (per-thread) or any
 * thread (per-CPU), until the other capture is stopped or closed
 * (Documentation/bts.rst, "PT and BTS"). BTS is also refused while perf
 * (or another user) owns IA32_DS_AREA or IA32_DEBUGCTL's branch bits:
 * EBUSY, with a kernel log line naming the holder; if perf takes
 * IA32_DS_AREA after CONFIGURE, the capture ends (LWPT_BTS_ST_DS_TAKEN,
 * ABI 1.8), with a log line, and perf keeps it.
 *
 * Permissions are /dev/pt's (Documentation/pt.rst, "Permissions"): another
 * user's thread needs the ptrace read rule or CAP_PERFMON; kernel branches
 * need CAP_PERFMON; with the module's pt_paranoid above 2 every capture
 * needs CAP_PERFMON; the buffer counts against RLIMIT_MEMLOCK beyond the
 * free allowance. Documentation/bts.rst, "/dev/bts".
 *
 * With LWPT_BTS_CFG_LBR the capture also records the thread's last branch
 * record stack (IA32_DEBUGCTL.LBR, SDM 17.4.8), saved and restored at its
 * context switches so that other threads' branches never enter it.
 * LWPT_BTS_IOC_LBR_SNAPSHOT reads it now, or as it was when the thread
 * took a fatal signal (the stack at a SIGSEGV, kept until the file is
 * closed). Documentation/bts.rst, "LBR snapshots".
 */
#ifndef _UAPI_LWPT_BTS_H
#define _UAPI_LWPT_BTS_H

#include <linux/ioctl.h>
#include <linux/types.h>

#include "lwpt.h"

/**
 * struct lwpt_bts_record - one BTS record (SDM 17.4.9.3, Figure 17-9)
 * @from:	linear address of the branch instruction (the next
 *		instruction for an interrupt or trap)
 * @to:		linear address of the branch target
 * @flags:	bit 4: the branch was predicted (LWPT_BTS_REC_PREDICTED)
 */
struct lwpt_bts_record {
	__u64 from;
	__u64 to;
	__u64 flags;
};

#define LWPT_BTS_REC_PREDICTED		(1ull << 4)

/* struct lwpt_bts_config.flags */
#define LWPT_BTS_CFG_USER		(1u << 0) /* branches at CPL > 0 */
#define LWPT_BTS_CFG_KERNEL		(1u << 1) /* branches at CPL 0: CAP_PERFMON */
/*
 * Also record the thread's LBR stack (ABI 1.7): with USER only, the
 * processor must filter ring-0 branches (MSR_LBR_SELECT, 17.7.2),
 * EOPNOTSUPP otherwise; EOPNOTSUPP where the LBR MSRs of the processor
 * are not known (LWPT_BTS_FIELD_FLAGS). Bits 2-3 are reserved for other
 * BTS flags.
 */
#define LWPT_BTS_CFG_LBR		(1u << 4)
#define LWPT_BTS_CFG_FLAGS		(LWPT_BTS_CFG_USER | LWPT_BTS_CFG_KERNEL)
/*
 * The buffer is a ring drained by the caller (ABI 1.7): records from
 * offset (tail % records_size) to (head % records_size), wrapping at
 * records_size (struct lwpt_bts_ring); a record whose from and to are 0 is
 * padding, skipped. The thread waits in the kernel while the ring has no
 * room for a threshold's margin, at most the hold limit at a time
 * (lwpt_bts_config.hold_limit_ms, ABI 1.9); signals are delivered
 * meanwhile and the wait resumes after them.
 */
#define LWPT_BTS_CFG_RING		(1u << 2)
/*
 * LWPT_BTS_IOC_CONFIGURE_CPU only (ABI 1.10): LWPT_BTS_IOC_READ_SWITCHES
 * writes struct lwpt_bts_switch_tsc records (the switch and its TSC)
 * instead of struct lwpt_bts_switch. CONFIGURE refuses it (EINVAL,
 * LWPT_BTS_FIELD_FLAGS), as modules before 1.10 refuse it in both.
 */
#define LWPT_BTS_CFG_SWITCH_TSC		(1u << 3)
/* Every flag CONFIGURE knows (bits 2-3 belong to captures, 4- to LBR). */
#define LWPT_BTS_CFG_VALID		(LWPT_BTS_CFG_FLAGS | LWPT_BTS_CFG_RING)

/* struct lwpt_bts_config.bad_field: what a refused CONFIGURE objected to */
#define LWPT_BTS_FIELD_NONE		0
#define LWPT_BTS_FIELD_SIZE		1
#define LWPT_BTS_FIELD_FLAGS		2
#define LWPT_BTS_FIELD_PID		3
#define LWPT_BTS_FIELD_BUFFER_SIZE	4
#define LWPT_BTS_FIELD_RESERVED		5
#define LWPT_BTS_FIELD_CPU		6	/* lwpt_bts_cpu_config.cpu */

/* Smallest and largest buffer_size (one page; 64 MiB). */
#define LWPT_BTS_BUFFER_MIN		4096ull
#define LWPT_BTS_BUFFER_MAX		(64ull << 20)

/**
 * struct lwpt_bts_config - argument of LWPT_BTS_IOC_CONFIGURE
 * @size:	sizeof(struct lwpt_bts_config) the caller was built with
 *		(LWPT_BTS_CONFIG_SIZE_VER0)
 * @flags:	LWPT_BTS_CFG_*: USER, KERNEL or both (not none). With only
 *		USER, BTS_OFF_OS is set where DS-CPL exists (17.4.6); without
 *		DS-CPL only both may be asked (EOPNOTSUPP otherwise). RING
 *		(ABI 1.7): a ring drained with LWPT_BTS_IOC_CONSUME, never of
 *		the calling thread (it would wait for itself: EINVAL,
 *		bad_field LWPT_BTS_FIELD_PID)
 * @pid:	the thread (a TID in the caller's pid namespace), 0 for the
 *		calling thread
 * @reserved0:	0
 * @buffer_size: bytes, a multiple of the page size within
 *		LWPT_BTS_BUFFER_MIN..LWPT_BTS_BUFFER_MAX
 * @bad_field:	out: LWPT_BTS_FIELD_* the refusal is about, or NONE
 * @hold_limit_ms: (ABI 1.9; @reserved1, 0, before) with LWPT_BTS_CFG_RING:
 *		the longest the thread is held for room at a time, in
 *		milliseconds (Documentation/bts.rst, "Ring captures"); 0 =
 *		LWPT_BTS_HOLD_LIMIT_DEFAULT_MS, LWPT_BTS_HOLD_LIMIT_NONE = no
 *		limit (ABI 1.7-1.8). A thread held that long runs on without
 *		room: the processor stops at the end of its stretch, its
 *		records are lost (LWPT_BTS_ST_HOLD_TIMEOUT) and it is not
 *		held again until the reader consumes. Out: the limit in force.
 *		Without RING it must be 0 (EINVAL, bad_field
 *		LWPT_BTS_FIELD_RESERVED, as modules before 1.9 refuse any)
 */
struct lwpt_bts_config {
	__u32 size;
	__u32 flags;
	__s32 pid;
	__u32 reserved0;
	__u64 buffer_size;
	__u32 bad_field;
	union {
		__u32 hold_limit_ms;
		__u32 reserved1;	/* its name before ABI 1.9 */
	};
};

#define LWPT_BTS_CONFIG_SIZE_VER0	32

/* struct lwpt_bts_config.hold_limit_ms (ABI 1.9), as /dev/pt's */
#define LWPT_BTS_HOLD_LIMIT_DEFAULT_MS	1000		/* 0 asks for it */
#define LWPT_BTS_HOLD_LIMIT_NONE	0xffffffffu	/* held until room */

/* struct lwpt_bts_status.flags */
#define LWPT_BTS_ST_CONFIGURED		(1u << 0) /* CONFIGURE succeeded */
#define LWPT_BTS_ST_RECORDING		(1u << 1) /* not stopped, thread alive */
#define LWPT_BTS_ST_FULL		(1u << 2) /* the buffer filled: stopped there */
#define LWPT_BTS_ST_EXITED		(1u << 3) /* the thread exited */
/*
 * The thread exec'ed a program the caller may not trace (set-user-ID,
 * file capabilities, not dumpable): recording ended before its first
 * instruction, as perf's events end at such an exec.
 */
#define LWPT_BTS_ST_EXEC_STOPPED	(1u << 4)
/*
 * ABI 1.8: perf (or another user) took IA32_DS_AREA after CONFIGURE while
 * the capture recorded (perf writes it on every CPU when its first event
 * is created): recording ended there for good and perf's pointer was left
 * in place. The records up to then are kept; branches between perf's write
 * and the next context switch (of the thread; per-CPU: on the CPU) are
 * missing. Documentation/bts.rst, "Coexistence with perf".
 */
#define LWPT_BTS_ST_DS_TAKEN		(1u << 5)
/*
 * ABI 1.9: a ring's hold reached its limit (lwpt_bts_config.hold_limit_ms)
 * at least once: the thread ran on without room and records were lost
 * until the reader consumed. Documentation/bts.rst, "Ring captures".
 */
#define LWPT_BTS_ST_HOLD_TIMEOUT	(1u << 6)

/**
 * struct lwpt_bts_status - argument of LWPT_BTS_IOC_STATUS
 * @size:	in: sizeof the caller's struct; out: bytes written
 * @flags:	LWPT_BTS_ST_*
 * @head:	bytes of records in the buffer, from offset 0 (a multiple of
 *		24), as of the last time the thread was switched out or
 *		stopped (exact after STOP); of a ring capture, as
 *		struct lwpt_bts_ring's head
 * @switches:	times the thread's BTS state was loaded on a CPU
 * @buffer_size: the mapped size
 */
struct lwpt_bts_status {
	__u32 size;
	__u32 flags;
	__u64 head;
	__u64 switches;
	__u64 buffer_size;
};

#define LWPT_BTS_STATUS_SIZE_VER0	32

/* Most entries an LBR stack has (SDM Table 17-4: 4, 8, 16 or 32). */
#define LWPT_LBR_ENTRIES_MAX		32

/**
 * struct lwpt_lbr_entry - one LBR stack entry (SDM 17.4.8, 17.4.8.1)
 * @from:	linear address of the branch (the address part of
 *		MSR_LASTBRANCH_n_FROM_IP, flag bits removed, sign-extended)
 * @to:		linear address of its target
 * @flags:	LWPT_LBR_E_*
 */
struct lwpt_lbr_entry {
	__u64 from;
	__u64 to;
	__u64 flags;
};

/* The branch was mispredicted (formats 3-7: with MISPRED, Table 17-8). */
#define LWPT_LBR_E_MISPRED		(1ull << 0)
/*
 * Formats 4 and 5 (ABI 1.11; valid where LWPT_BTS_LBR_F_TSX is set): the
 * branch was in a TSX transaction; it was a transaction's abort.
 */
#define LWPT_LBR_E_IN_TX		(1ull << 1)
#define LWPT_LBR_E_TSX_ABORT		(1ull << 2)
/*
 * Formats 5-7 (ABI 1.11): bits 47:32 hold the core cycles since the
 * previous LBR record (MSR_LBR_INFO_n's CYC_CNT, saturating at 0xffff, set
 * only where the processor marked the count valid; format 6: TO bits
 * 63:48, always).
 */
#define LWPT_LBR_E_CYCLES		(1ull << 3)
#define LWPT_LBR_E_CYCLES_SHIFT		32
#define LWPT_LBR_E_CYCLES_MASK		0xffffull

/* struct lwpt_bts_lbr.which */
#define LWPT_BTS_LBR_NOW		0 /* the stack now */
#define LWPT_BTS_LBR_CRASH		1 /* as at the thread's fatal signal */

/* struct lwpt_bts_lbr.flags */
#define LWPT_BTS_LBR_F_MISPRED		(1u << 0) /* LWPT_LBR_E_MISPRED is valid */
/*
 * A PMI froze the LBRs (FREEZE_LBRS_ON_PMI, 17.4.7) while the thread ran:
 * branches between the freeze and its next switch in are missing.
 */
#define LWPT_BTS_LBR_F_FROZEN		(1u << 1)
/* LWPT_LBR_E_IN_TX and LWPT_LBR_E_TSX_ABORT are valid (formats 4, 5; 1.11). */
#define LWPT_BTS_LBR_F_TSX		(1u << 2)

/**
 * struct lwpt_bts_lbr - argument of LWPT_BTS_IOC_LBR_SNAPSHOT
 * @size:	in: sizeof the caller's struct (LWPT_BTS_LBR_SIZE_VER0);
 *		out: bytes written
 * @which:	in: LWPT_BTS_LBR_NOW or LWPT_BTS_LBR_CRASH
 * @flags:	out: LWPT_BTS_LBR_F_*
 * @nr:		out: valid entries in @entries, most recent first
 * @depth:	out: entries of the processor's LBR stack
 * @format:	out: the LBR format, IA32_PERF_CAPABILITIES[5:0] (17.4.8.1)
 * @signo:	out: LWPT_BTS_LBR_CRASH: the fatal signal; 0 for NOW
 * @reserved:	0 in and out
 * @entries:	out: the stack, entries[0] the most recent branch
 */
struct lwpt_bts_lbr {
	__u32 size;
	__u32 which;
	__u32 flags;
	__u32 nr;
	__u32 depth;
	__u32 format;
	__s32 signo;
	__u32 reserved;
	struct lwpt_lbr_entry entries[LWPT_LBR_ENTRIES_MAX];
};

#define LWPT_BTS_LBR_SIZE_VER0		800

/**
 * struct lwpt_bts_ring - argument of LWPT_BTS_IOC_RING_STATUS (ABI 1.7)
 * @size:	in: sizeof the caller's struct (at least
 *		LWPT_BTS_RING_SIZE_VER0); out: bytes written
 * @flags:	LWPT_BTS_ST_* (FULL never: a ring holds the thread instead)
 * @head:	bytes of records written since CONFIGURE, padding included
 *		(a multiple of 24, never decreasing), as of the last
 *		threshold interrupt, switch, hold or STOP (exact after STOP)
 * @tail:	bytes consumed (LWPT_BTS_IOC_CONSUME); head - tail bytes wait,
 *		from offset tail % records_size
 * @records_size: bytes of the ring (the buffer rounded down to 24)
 * @margin:	bytes left after the interrupt threshold in each stretch of
 *		the ring the processor is given (room for the interrupt's skid)
 * @pmis:	threshold interrupts taken
 * @holds:	times the thread waited for room
 * @hold_timeouts: (ABI 1.11, LWPT_BTS_RING_SIZE_VER1) of these, the waits
 *		that ended at the hold limit (each a loss:
 *		LWPT_BTS_ST_HOLD_TIMEOUT says whether there was any)
 *
 * The module writes min(@size, what it knows) bytes and says how many in
 * @size: a caller built against 1.7-1.10 gets the first 56 bytes.
 */
struct lwpt_bts_ring {
	__u32 size;
	__u32 flags;
	__u64 head;
	__u64 tail;
	__u64 records_size;
	__u64 margin;
	__u64 pmis;
	__u64 holds;
	__u64 hold_timeouts;
};

#define LWPT_BTS_RING_SIZE_VER0		56
#define LWPT_BTS_RING_SIZE_VER1		64

/**
 * struct lwpt_bts_cpu_config - argument of LWPT_BTS_IOC_CONFIGURE_CPU
 *	(ABI 1.7): every thread's branches on one CPU
 * @size:	sizeof(struct lwpt_bts_cpu_config) the caller was built with
 *		(LWPT_BTS_CPU_CONFIG_SIZE_VER0)
 * @flags:	LWPT_BTS_CFG_USER, _KERNEL or both, as lwpt_bts_config.flags
 *		(RING: EINVAL, a per-CPU buffer is linear); SWITCH_TSC (ABI
 *		1.10): the switch records carry the TSC (struct
 *		lwpt_bts_switch_tsc; EINVAL, bad_field LWPT_BTS_FIELD_FLAGS,
 *		from older modules: the caller may ask again without it)
 * @cpu:	the logical CPU, online
 * @reserved0:	0
 * @buffer_size: as lwpt_bts_config.buffer_size
 * @bad_field:	out: LWPT_BTS_FIELD_* the refusal is about, or NONE
 * @reserved1:	0
 *
 * Needs CAP_PERFMON (EPERM, bad_field CPU), as a per-CPU /dev/pt capture
 * and perf_event_open()'s perf_allow_cpu(). EBUSY (bad_field CPU) while
 * another file records that CPU, while any thread has a per-thread BTS
 * capture, while /dev/pt traces any thread, or while perf uses the DS area;
 * a per-thread BTS CONFIGURE and any /dev/pt CONFIGURE are EBUSY while a
 * per-CPU BTS capture exists. ENODEV the CPU is offline or goes offline
 * (recording ends there: LWPT_BTS_ST_EXITED).
 */
struct lwpt_bts_cpu_config {
	__u32 size;
	__u32 flags;
	__u32 cpu;
	__u32 reserved0;
	__u64 buffer_size;
	__u32 bad_field;
	__u32 reserved1;
};

#define LWPT_BTS_CPU_CONFIG_SIZE_VER0	32

/* struct lwpt_bts_switch.flags, as struct lwpt_pt_switch's (pt.h) */
#define LWPT_BTS_SW_PREV_IDLE		(1u << 0)
#define LWPT_BTS_SW_PREV_KTHREAD	(1u << 1)
#define LWPT_BTS_SW_NEXT_IDLE		(1u << 2)
#define LWPT_BTS_SW_NEXT_KTHREAD	(1u << 3)
#define LWPT_BTS_SW_PREEMPT		(1u << 4)

/**
 * struct lwpt_bts_switch - one context switch on a per-CPU capture's CPU
 * @head:	bytes of records in the buffer at the switch: the records
 *		before belong to the thread switched out, those after to the
 *		thread switched in (BTS records carry no time: the position
 *		is the sideband's clock)
 * @cpu:	the CPU
 * @flags:	LWPT_BTS_SW_*
 * @prev_pid:	the process switched out, in the pid namespace of the
 *		process that configured the capture; 0 for the idle task and
 *		tasks not visible there
 * @prev_tid:	the thread switched out
 * @next_pid:	the process switched in
 * @next_tid:	the thread switched in
 */
struct lwpt_bts_switch {
	__u64 head;
	__u32 cpu;
	__u32 flags;
	__s32 prev_pid;
	__s32 prev_tid;
	__s32 next_pid;
	__s32 next_tid;
};

#define LWPT_BTS_SWITCH_SIZE_VER0	32

/**
 * struct lwpt_bts_switch_tsc - a switch record with its time (ABI 1.10):
 *	what LWPT_BTS_IOC_READ_SWITCHES writes for a capture configured with
 *	LWPT_BTS_CFG_SWITCH_TSC
 * @sw:		the switch, as without the flag
 * @tsc:	the time stamp counter of the CPU at the switch, read where
 *		@sw.head is (RDTSC, the clock of Intel PT's TSC packets and of
 *		struct lwpt_pt_switch.tsc): it orders the switches of
 *		different CPUs (Documentation/bts.rst, "Per-CPU captures")
 */
struct lwpt_bts_switch_tsc {
	struct lwpt_bts_switch sw;
	__u64 tsc;
};

#define LWPT_BTS_SWITCH_TSC_SIZE_VER0	40

/**
 * struct lwpt_bts_switches - argument of LWPT_BTS_IOC_READ_SWITCHES
 * @size:	sizeof(struct lwpt_bts_switches) of the caller
 * @capacity:	in: records that fit at @records (0: only the counters)
 * @records:	in: user address of @capacity struct lwpt_bts_switch, or
 *		of struct lwpt_bts_switch_tsc with LWPT_BTS_CFG_SWITCH_TSC
 * @copied:	out: records written, oldest first, taken out of the ring
 *		(0 in)
 * @pending:	out: records still in the ring (0 in)
 * @lost:	out: switches dropped since CONFIGURE because the ring (4096
 *		records) was full (0 in)
 *
 * Per-CPU captures only (EINVAL otherwise); ENODATA before CONFIGURE;
 * EFAULT a bad @records (the records taken are then lost).
 */
struct lwpt_bts_switches {
	__u32 size;
	__u32 capacity;
	__u64 records;
	__u32 copied;
	__u32 pending;
	__u64 lost;
};

#define LWPT_BTS_SWITCHES_SIZE_VER0	32

/* ioctl numbers 0x70-0x8F belong to /dev/bts (lwpt.h). */
#define LWPT_BTS_IOC_CONFIGURE	_IOWR(LWPT_IOC_MAGIC, 0x70, struct lwpt_bts_config)
#define LWPT_BTS_IOC_STATUS	_IOWR(LWPT_IOC_MAGIC, 0x71, struct lwpt_bts_status)
#define LWPT_BTS_IOC_STOP	_IO(LWPT_IOC_MAGIC, 0x72)
/*
 * LWPT_BTS_IOC_LBR_SNAPSHOT (ABI 1.7): ENODATA not configured with
 * LWPT_BTS_CFG_LBR, or no fatal signal was taken (CRASH); EINVAL size
 * too small, @which unknown or @reserved not 0; ESRCH (NOW) the thread's
 * recording ended (exit, exec, STOP) and no stack was saved.
 */
#define LWPT_BTS_IOC_LBR_SNAPSHOT _IOWR(LWPT_IOC_MAGIC, 0x78, struct lwpt_bts_lbr)
/*
 * A ring capture (ABI 1.7): the caller consumed records up to the byte
 * count *arg (a multiple of 24, between the last tail and the head of
 * RING_STATUS): their room is free again; a held thread goes on once the
 * ring has room. EINVAL otherwise or on a linear capture, ENODATA before
 * CONFIGURE.
 */
#define LWPT_BTS_IOC_CONSUME	_IOW(LWPT_IOC_MAGIC, 0x73, __u64)
/*
 * The argument's size in the command number is not part of RING_STATUS's
 * identity from ABI 1.11 on (the struct's @size says what the caller
 * has): the module takes the command with any size from
 * LWPT_BTS_RING_SIZE_VER0 up. Modules before 1.11 know only the 56-byte
 * command, LWPT_BTS_IOC_RING_STATUS_VER0 (ENOTTY for this one there).
 */
#define LWPT_BTS_IOC_RING_STATUS _IOWR(LWPT_IOC_MAGIC, 0x74, struct lwpt_bts_ring)
#define LWPT_BTS_IOC_RING_STATUS_VER0 \
	_IOC(_IOC_READ | _IOC_WRITE, LWPT_IOC_MAGIC, 0x74, LWPT_BTS_RING_SIZE_VER0)
#define LWPT_BTS_IOC_CONFIGURE_CPU _IOWR(LWPT_IOC_MAGIC, 0x75, struct lwpt_bts_cpu_config)
#define LWPT_BTS_IOC_READ_SWITCHES _IOWR(LWPT_IOC_MAGIC, 0x76, struct lwpt_bts_switches)

#endif /* _UAPI_LWPT_BTS_H */
