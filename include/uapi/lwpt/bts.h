/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * /dev/bts: the Branch Trace Store (SDM Vol. 3B 17.4.5-17.4.9) of a thread,
 * written by the processor into a buffer the caller maps (ABI 1.6).
 *
 * One capture per open file:
 *   1. LWPT_BTS_IOC_CONFIGURE with a struct lwpt_bts_config: the thread
 *      (@pid, 0 for the caller), user and/or kernel branches, the buffer
 *      size. The buffer is allocated and recording starts at once.
 *   2. mmap(2) the file, offset 0, @buffer_size bytes, PROT_READ only:
 *      24-byte records (struct lwpt_bts_record), oldest first.
 *   3. LWPT_BTS_IOC_STOP ends recording (also close(2) or the thread's
 *      exit); LWPT_BTS_IOC_STATUS says how many bytes hold records.
 *
 * The buffer is linear, not circular: once full, recording stops there
 * (IA32_DEBUGCTL.BTINT, 17.4.5) and LWPT_BTS_ST_FULL is set. A thread may
 * not be recorded by BTS and Intel PT at once: CONFIGURE is EBUSY
 * (bad_field LWPT_BTS_FIELD_PID) while /dev/pt traces the thread or a
 * per-CPU /dev/pt capture is configured, and /dev/pt's CONFIGURE is EBUSY
 * while BTS records one of its target's threads (per-thread) or any
 * thread (per-CPU), until the other capture is stopped or closed
 * (Documentation/bts.rst, "PT and BTS"). BTS is also refused while perf
 * (or another user) owns IA32_DS_AREA or IA32_DEBUGCTL's branch bits:
 * EBUSY, with a kernel log line naming the holder.
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

/* struct lwpt_bts_config.bad_field: what a refused CONFIGURE objected to */
#define LWPT_BTS_FIELD_NONE		0
#define LWPT_BTS_FIELD_SIZE		1
#define LWPT_BTS_FIELD_FLAGS		2
#define LWPT_BTS_FIELD_PID		3
#define LWPT_BTS_FIELD_BUFFER_SIZE	4
#define LWPT_BTS_FIELD_RESERVED		5

/* Smallest and largest buffer_size (one page; 64 MiB). */
#define LWPT_BTS_BUFFER_MIN		4096ull
#define LWPT_BTS_BUFFER_MAX		(64ull << 20)

/**
 * struct lwpt_bts_config - argument of LWPT_BTS_IOC_CONFIGURE
 * @size:	sizeof(struct lwpt_bts_config) the caller was built with
 *		(LWPT_BTS_CONFIG_SIZE_VER0)
 * @flags:	LWPT_BTS_CFG_*: USER, KERNEL or both (not none). With only
 *		USER, BTS_OFF_OS is set where DS-CPL exists (17.4.6); without
 *		DS-CPL only both may be asked (EOPNOTSUPP otherwise)
 * @pid:	the thread (a TID in the caller's pid namespace), 0 for the
 *		calling thread
 * @reserved0:	0
 * @buffer_size: bytes, a multiple of the page size within
 *		LWPT_BTS_BUFFER_MIN..LWPT_BTS_BUFFER_MAX
 * @bad_field:	out: LWPT_BTS_FIELD_* the refusal is about, or NONE
 * @reserved1:	0
 */
struct lwpt_bts_config {
	__u32 size;
	__u32 flags;
	__s32 pid;
	__u32 reserved0;
	__u64 buffer_size;
	__u32 bad_field;
	__u32 reserved1;
};

#define LWPT_BTS_CONFIG_SIZE_VER0	32

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

/**
 * struct lwpt_bts_status - argument of LWPT_BTS_IOC_STATUS
 * @size:	in: sizeof the caller's struct; out: bytes written
 * @flags:	LWPT_BTS_ST_*
 * @head:	bytes of records in the buffer, from offset 0 (a multiple of
 *		24), as of the last time the thread was switched out or
 *		stopped (exact after STOP)
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

/* The branch was mispredicted (formats with MISPRED, Table 17-8). */
#define LWPT_LBR_E_MISPRED		(1ull << 0)

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

#endif /* _UAPI_LWPT_BTS_H */
