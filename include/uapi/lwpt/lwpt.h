/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * lwpt user/kernel ABI: what /dev/lwp and /dev/pt have in common.
 *
 * Both character devices answer LWPT_IOC_GET_ABI_VERSION. A program opens
 * the device, asks for the ABI version and refuses to go on if the major
 * number differs from the one it was built with. Device-specific ioctls live
 * in their own headers (lwp.h, pt.h) and use the number ranges below.
 *
 * ioctl numbers: type LWPT_IOC_MAGIC (0xD7, free in the kernel's
 * Documentation/userspace-api/ioctl/ioctl-number.rst of 6.1); numbers
 * 0x00-0x0F are common to every device, 0x10-0x3F belong to /dev/lwp,
 * 0x40-0x6F to /dev/pt, 0x70-0x8F to /dev/bts (bts.h).
 *
 * Every struct has explicit fixed-size fields, no implicit padding and no
 * embedded pointers, so 32-bit and 64-bit user space see the same layout.
 */
#ifndef _UAPI_LWPT_LWPT_H
#define _UAPI_LWPT_LWPT_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define LWPT_IOC_MAGIC			0xD7

/*
 * ABI version: major in bits 31:16, minor in bits 15:0. The major changes
 * when an existing ioctl changes incompatibly (a program built for another
 * major must refuse to go on); the minor when an ioctl is added or a
 * size-versioned struct gains a size version (fields appended). A module
 * answers every older minor of its major: a struct of an older size is
 * read and written only that far. Documentation/design.rst, "The ABI".
 *
 * 1.0  the first published sizes (*_SIZE_VER0), /dev/pt status and
 *      release size version 1 (per-thread buffers), READ_SIDEBAND
 * 1.1  /dev/pt config size version 1 (rule, holder), status 2 (stop_reason,
 *      ppid), caps 1 (mlock_avail, thread_spares); /dev/lwp lwp_stats
 *      size version 1 (switch_errors, xcr0_lost, int_rearmed, throttles)
 * 1.2  /dev/pt status size version 3 (gap_head); caps bits LBR_EXCLUSIVE and
 *      ERRATUM_SINGLE_4K, status flag LBR
 * 1.3  /dev/pt config size version 2 (cpu_mask, cpu_mask_size: per-CPU
 *      capture on selected CPUs, bad_field CPU_MASK), caps size version 2
 *      (cpuid_15h, cpuid_16h_eax: the timing leaves of the module's
 *      processor)
 * 1.4  /dev/pt config flag LOSSY; per-thread continuous captures hold their
 *      threads for the reader unless LOSSY; status size version 4 (holds,
 *      held_ns, gaps, gap_heads: every cut kept)
 *      /dev/lwp GET_CAPS and GET_STATS accept in @flags the bits they write
 *      there (ignored), so a filled struct can be passed again
 * 1.5  /dev/lwp stats: @throttled_irqs in place of a reserved field (same
 *      size; older modules write 0 there); caps flag LWP_CAPS_F_REFUSED
 *      (the kernel version gate)
 *      /dev/pt per-thread captures check every thread of the target, and
 *      skip those the permission rule refuses; status size version 5
 *      (threads_refused; pad_bytes, pad_from, pad_to, lost_bytes: every
 *      byte written accounted, the PADs a reader skips named)
 *      /dev/pt release query flag REL_DONE (a per-thread buffer whose
 *      thread ended is freed once read; its number is taken again), status
 *      flag FREED; status size version 5 also holds serial, joined
 *      /dev/pt config size version 3 (hold_limit_ms: a hold ends after it,
 *      1 s by default), status size version 5 also holds hold_timeouts
 * 1.6  /dev/bts (bts.h): CONFIGURE, STATUS, STOP and mmap of a thread's
 *      Branch Trace Store buffer; struct lwpt_abi_version.device
 *      LWPT_DEVICE_BTS
 * 1.7  /dev/bts ring captures (bts.h): LWPT_BTS_CFG_RING, the threshold
 *      interrupt, LWPT_BTS_IOC_CONSUME, LWPT_BTS_IOC_RING_STATUS, poll(2);
 *      per-CPU captures: LWPT_BTS_IOC_CONFIGURE_CPU,
 *      LWPT_BTS_IOC_READ_SWITCHES; config flag LWPT_BTS_CFG_LBR (the
 *      thread's LBR stack), LWPT_BTS_IOC_LBR_SNAPSHOT (the stack now, or
 *      at a fatal signal)
 * 1.8  /dev/bts status flag LWPT_BTS_ST_DS_TAKEN (bit 5): perf took
 *      IA32_DS_AREA after CONFIGURE; the capture ended, perf's pointer kept
 * 1.9  /dev/bts ring hold limit: lwpt_bts_config.hold_limit_ms (a union
 *      with reserved1: same layout; 1 s by default, written back; must be
 *      0 without LWPT_BTS_CFG_RING; older modules refuse any non-zero
 *      value), status flag LWPT_BTS_ST_HOLD_TIMEOUT (bit 6)
 * 1.10 /dev/bts per-CPU config flag LWPT_BTS_CFG_SWITCH_TSC (bit 3):
 *      READ_SWITCHES writes struct lwpt_bts_switch_tsc (40 bytes: the
 *      32-byte record and the TSC at the switch); older modules refuse
 *      the flag (EINVAL), callers without it get 32-byte records as before
 * 1.11 LBR snapshots with LBR formats 4 to 7: entry flags
 *      LWPT_LBR_E_IN_TX, LWPT_LBR_E_TSX_ABORT, LWPT_LBR_E_CYCLES (the
 *      cycle count in bits 47:32), snapshot flag LWPT_BTS_LBR_F_TSX; older
 *      modules refuse LBR snapshots on these formats (EOPNOTSUPP);
 *      /dev/bts ring status size version 1 (hold_timeouts: the count of
 *      holds that ended at the limit), RING_STATUS taken with any
 *      argument size in its command from version 0 up
 */
#define LWPT_ABI_MAJOR			1
#define LWPT_ABI_MINOR			11
#define LWPT_ABI_VERSION		((LWPT_ABI_MAJOR << 16) | LWPT_ABI_MINOR)
#define LWPT_ABI_VERSION_MAJOR(v)	(((v) >> 16) & 0xffff)
#define LWPT_ABI_VERSION_MINOR(v)	((v) & 0xffff)

/* struct lwpt_abi_version.device */
#define LWPT_DEVICE_LWP			1	/* /dev/lwp */
#define LWPT_DEVICE_PT			2	/* /dev/pt */
#define LWPT_DEVICE_BTS			3	/* /dev/bts (ABI 1.6) */

/* struct lwpt_abi_version.flags */
#define LWPT_ABI_F_SIM			(1u << 0) /* backed by the model (lwpt_sim.ko) */

/**
 * struct lwpt_abi_version - answer of LWPT_IOC_GET_ABI_VERSION
 * @size:	bytes of this struct the kernel filled in (16 in ABI 1.0);
 *		later minors only append fields
 * @version:	LWPT_ABI_VERSION of the running module
 * @device:	LWPT_DEVICE_LWP or LWPT_DEVICE_PT: which device answered
 * @flags:	LWPT_ABI_F_* bits
 */
struct lwpt_abi_version {
	__u32 size;
	__u32 version;
	__u32 device;
	__u32 flags;
};

/*
 * LWPT_IOC_GET_ABI_VERSION - read the ABI version of the device.
 * Returns 0, or -1 with errno EFAULT if the argument is not writable.
 * Unknown commands on either device fail with ENOTTY.
 */
#define LWPT_IOC_GET_ABI_VERSION	_IOR(LWPT_IOC_MAGIC, 0x00, struct lwpt_abi_version)

#endif /* _UAPI_LWPT_LWPT_H */
