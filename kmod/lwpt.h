/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lwpt module internals shared by lwpt.ko and lwpt_sim.ko.
 *
 * Files that include this header are linked into both modules, so they must
 * not depend on KBUILD_MODNAME (it is "lwpt:lwpt_sim" for them): no
 * module_param, log prefix "lwpt: " spelled out below.
 */
#ifndef LWPT_KMOD_LWPT_H
#define LWPT_KMOD_LWPT_H

#include <linux/types.h>

#include "hw.h"

/* Log prefix of every shared file; never KBUILD_MODNAME (see above). */
#define LWPT_PR_PREFIX	"lwpt: "

/* Longest "why not" explanation produced by detection, with its NUL. */
#define LWPT_REASON_LEN	96

/**
 * struct lwpt_caps - what detection found on the boot CPU
 * @vendor: CPUID Fn0000_0000 vendor string, NUL-terminated
 * @max_leaf: largest standard CPUID leaf (Fn0000_0000_EAX)
 * @max_ext_leaf: largest extended CPUID leaf (Fn8000_0000_EAX)
 * @lwp: LWP is supported and usable (43724 §3.1, §8.7.1)
 * @pt: Intel PT is supported (SDM 33.3.1)
 * @lwp_leaf: CPUID Fn8000_001C (43724 Table 3-1), valid if @lwp
 * @pt_leaf: CPUID leaf 14H sub-leaves 0 and 1 (SDM Tables 33-11, 33-12),
 *	valid if @pt; sub-leaf 1 is zero if sub-leaf 0 EAX is 0
 * @bts: the Branch Trace Store is usable: DS, DTES64, BTS not unavailable
 *	(SDM 17.4.9, 17.4.9.1)
 * @bts_leaf1: CPUID.1 (DS, DTES64, DS-CPL, PDCM bits), valid if Intel
 * @no_lwp: why @lwp is false, for the log
 * @no_pt: why @pt is false, for the log
 * @no_bts: why @bts is false, for the log
 */
struct lwpt_caps {
	char vendor[13];
	u32 max_leaf;
	u32 max_ext_leaf;
	bool lwp;
	bool pt;
	struct lwpt_cpuid_regs lwp_leaf;
	struct lwpt_cpuid_regs pt_leaf[2];
	bool bts;
	struct lwpt_cpuid_regs bts_leaf1;
	char no_lwp[LWPT_REASON_LEN];
	char no_pt[LWPT_REASON_LEN];
	char no_bts[LWPT_REASON_LEN];
};

/**
 * lwpt_detect - detect LWP and Intel PT through the hardware layer
 * @caps: filled in completely, whatever is found
 *
 * Runs CPUID on the current CPU (it disables preemption itself). LWP needs
 * CPUID Fn8000_0001_ECX[15] or Fn0000_000D_x0_EDX[30] (43724 §3.1), an
 * "AuthenticAMD" vendor (43724 §8.7.1), XSAVE and CR4.OSXSAVE (43724 §4.1)
 * and Fn8000_001C within the extended range. PT needs
 * CPUID.(EAX=07H,ECX=0):EBX[25] and leaf 14H within the standard range
 * (SDM 33.3.1).
 */
void lwpt_detect(struct lwpt_caps *caps);

/**
 * lwpt_cpuid_has_leaf - is a CPUID leaf within the enumerated range
 * @caps: as filled by lwpt_detect()
 * @leaf: standard (below 8000_0000h) or extended leaf
 *
 * Return: true if @leaf is at most the maximum leaf of its range.
 */
bool lwpt_cpuid_has_leaf(const struct lwpt_caps *caps, u32 leaf);

/**
 * lwpt_dev_register - create the misc devices for what @caps found
 * @caps: detection result; /dev/lwp is created if @caps->lwp, /dev/pt if
 *	@caps->pt, /dev/bts if @caps->bts
 *
 * Return: 0, or the error of misc_register(); nothing stays registered on
 * error.
 */
int lwpt_dev_register(const struct lwpt_caps *caps);

/**
 * lwpt_dev_unregister - remove every device lwpt_dev_register() created
 */
void lwpt_dev_unregister(void);

struct miscdevice;

/**
 * lwpt_dev_ioctl_misc - the ioctls common to /dev/lwp, /dev/pt and /dev/bts
 * @misc: the misc device the file was opened on
 * @cmd: ioctl command
 * @arg: ioctl argument
 *
 * Return: as the common ioctl, -ENOTTY for a command it does not know.
 */
long lwpt_dev_ioctl_misc(struct miscdevice *misc, unsigned int cmd,
			 unsigned long arg);

struct tracepoint;

/**
 * lwpt_tracepoint_find - a built-in kernel tracepoint by name
 * @name: the tracepoint's name, e.g. "sched_process_exit"
 *
 * For tracepoint_probe_register(): the scheduler's tracepoints are not
 * exported to modules by symbol.
 *
 * Return: the tracepoint, or NULL if the kernel has none of that name.
 */
struct tracepoint *lwpt_tracepoint_find(const char *name);

#endif /* LWPT_KMOD_LWPT_H */
