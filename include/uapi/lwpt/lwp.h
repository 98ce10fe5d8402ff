/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * lwpt user/kernel ABI of /dev/lwp (AMD Lightweight Profiling, 43724).
 *
 * /dev/lwp only ever affects the thread that calls it: LWP_IOC_ENABLE makes
 * LWP available to the calling thread (XCR0[62] is set while, and only
 * while, that thread runs), LWP_IOC_DISABLE takes it away again. The LWP
 * instructions themselves (LLWPCB, SLWPCB, LWPINS, LWPVAL) are executed by
 * the thread; the kernel never reads or writes its LWPCB or ring buffer.
 *
 * Threshold interrupts (43724 §2.4, §8.5) of the thread are reported on the
 * file descriptor that enabled it: poll() signals POLLIN, read() returns a
 * __u64 count of threshold interrupts since the previous read, and
 * F_SETOWN/F_SETSIG/O_ASYNC select a signal as for any file.
 *
 * Size-versioned structs: the caller sets @size to sizeof() of the struct it
 * was built with; the kernel reads or writes min(@size, its own size) bytes
 * and, for output structs, stores that number back into @size. A @size
 * below the first published size (the *_SIZE_VER0 constants) is -EINVAL,
 * and so is any bit set in @flags that the ABI does not define. In the
 * output structs (lwp_caps, lwp_stats) @flags is also written by the
 * kernel; the bits it writes are accepted and ignored on input, so a
 * struct filled by one call can be passed to the next unchanged (modules
 * before ABI 1.4 rejected them: set @flags to 0 for those).
 * Errors: ENOTTY unknown command, EFAULT bad pointer, EINVAL bad size or
 * flags, EPERM the caller is not the thread that owns the file's LWP,
 * EBUSY the thread already has LWP through another file, ENODEV LWP is off.
 */
#ifndef _UAPI_LWPT_LWP_H
#define _UAPI_LWPT_LWP_H

#include <linux/ioctl.h>
#include <linux/types.h>

#include "lwpt.h"

/* struct lwp_caps.flags (output) */
#define LWP_CAPS_F_SIM		(1u << 0) /* the model of lwpt_sim.ko */
#define LWP_CAPS_F_INT		(1u << 1) /* threshold interrupts delivered */
#define LWP_CAPS_F_ENABLED	(1u << 2) /* caller has LWP through this fd */
/*
 * ABI 1.5: this kernel may not run LWP (Documentation/lwp.rst, "Kernel
 * version gate"): LWP_IOC_ENABLE fails with EOPNOTSUPP
 */
#define LWP_CAPS_F_REFUSED	(1u << 3)

/**
 * struct lwp_caps - answer of LWP_IOC_GET_CAPS
 * @size:	in: sizeof(struct lwp_caps) of the caller; out: bytes filled
 * @flags:	in: 0 or LWP_CAPS_F_* bits (ignored); out: LWP_CAPS_F_* bits
 * @abi_version: LWPT_ABI_VERSION of the module
 * @cpu:	the CPU the values below were read on
 * @fn8000_001c: CPUID Fn8000_001C EAX, EBX, ECX, EDX as the kernel sees
 *		them on @cpu, read in the caller's context (EAX[0] is XCR0[62],
 *		i.e. 1 iff the caller has LWP; EAX[31:1] mirror LWP_CFG;
 *		43724 §3.3, Table 3-1)
 * @fn0000_000d_x0: CPUID Fn0000_000D_x0 EAX, EBX, ECX, EDX (EDX[30]: LWP
 *		XSAVE support, 43724 §3.2)
 * @xsave_size:	CPUID Fn0000_000D_x3E EAX: bytes of the LWP XSAVE area
 * @xsave_offset: CPUID Fn0000_000D_x3E EBX: its offset in the XSAVE area
 * @lwp_cfg:	the LWP_CFG value programmed on @cpu (43724 §4.2, Figure 4-1)
 */
struct lwp_caps {
	__u32 size;
	__u32 flags;
	__u32 abi_version;
	__u32 cpu;
	__u32 fn8000_001c[4];
	__u32 fn0000_000d_x0[4];
	__u32 xsave_size;
	__u32 xsave_offset;
	__u64 lwp_cfg;
};

#define LWP_CAPS_SIZE_VER0	64

/**
 * struct lwp_enable - argument of LWP_IOC_ENABLE
 * @size:	sizeof(struct lwp_enable)
 * @flags:	0 (no flags defined)
 */
struct lwp_enable {
	__u32 size;
	__u32 flags;
};

#define LWP_ENABLE_SIZE_VER0	8

/**
 * struct lwp_stats - answer of LWP_IOC_GET_STATS (per thread, cumulative)
 * @size:	in: sizeof(struct lwp_stats); out: bytes filled
 * @flags:	in: 0 or LWP_CAPS_F_ENABLED (ignored); out: LWP_CAPS_F_ENABLED
 *		if LWP is available right now (it is not after the thread
 *		entered a KVM guest, Documentation/lwp.rst)
 * @tid:	the owning thread (0 if none ever enabled through this fd)
 * @throttled_irqs: threshold interrupts that arrived while the thread was
 *		throttled (saturates at 2^32 - 1; ABI 1.5, 0 from older
 *		modules, where the field was reserved): at most the late ones
 *		already on their way when a throttle began (Documentation/lwp.rst)
 * @interrupts:	threshold interrupts delivered to this file
 * @saves:	XSAVEs of the LWP state at sched-out
 * @restores:	XRSTORs of the LWP state at sched-in
 * @emulated:	LWP instructions emulated after #UD (lwpt_sim.ko only)
 *
 * Size version 1 (LWP_STATS_SIZE_VER1) appends, counted as they happen:
 * @switch_errors: failed XGETBV/XSETBV/XSAVE/XRSTOR at this thread's
 *		context switches (a failed XRSTOR leaves it without its LWP
 *		state on that CPU)
 * @xcr0_lost:	sched-outs that found XCR0[62] cleared by another kernel
 *		user (a KVM vCPU thread, fpu__resume_cpu): LWP_CBADDR was
 *		zeroed (43724 §4.1), the state is gone, LWP is off from then
 *		on; the saved image is marked empty, never restored stale
 * @int_rearmed: sched-ins that put Flags.INT back into the saved image
 *		(Family 15h XSAVE drops it; Documentation/lwp.rst)
 * @throttles:	times threshold interrupts were switched off for a second
 *		because the thread exceeded the rate limit (Documentation/lwp.rst)
 */
struct lwp_stats {
	__u32 size;
	__u32 flags;
	__u32 tid;
	__u32 throttled_irqs;
	__u64 interrupts;
	__u64 saves;
	__u64 restores;
	__u64 emulated;
	__u64 switch_errors;
	__u64 xcr0_lost;
	__u64 int_rearmed;
	__u64 throttles;
};

#define LWP_STATS_SIZE_VER0	48
#define LWP_STATS_SIZE_VER1	80

/*
 * LWP_IOC_GET_CAPS - what the kernel knows about LWP. Any thread.
 * LWP_IOC_ENABLE - make LWP available to the calling thread until
 *	LWP_IOC_DISABLE, execve() or thread exit. LWP starts disabled
 *	(LWP_CBADDR = 0): the thread then executes LLWPCB. EPERM if another
 *	thread owns this file, EBUSY if the caller has LWP already.
 *	A file is owned by the first thread that enables through it.
 * LWP_IOC_DISABLE - take LWP away from the calling thread (LWP_CBADDR is
 *	zeroed, 43724 §4.1). Argument must be 0. EPERM if the caller is not
 *	the owner; 0 if it is the owner but LWP is already off.
 * LWP_IOC_GET_STATS - statistics of the file's owning thread. Any thread.
 */
#define LWP_IOC_GET_CAPS	_IOWR(LWPT_IOC_MAGIC, 0x10, struct lwp_caps)
#define LWP_IOC_ENABLE		_IOW(LWPT_IOC_MAGIC, 0x11, struct lwp_enable)
#define LWP_IOC_DISABLE		_IO(LWPT_IOC_MAGIC, 0x12)
#define LWP_IOC_GET_STATS	_IOWR(LWPT_IOC_MAGIC, 0x13, struct lwp_stats)
/* The same request as built by programs that know only size version 0. */
#define LWP_IOC_GET_STATS_VER0	_IOC(_IOC_READ | _IOC_WRITE, LWPT_IOC_MAGIC, \
				     0x13, LWP_STATS_SIZE_VER0)

#endif /* _UAPI_LWPT_LWP_H */
