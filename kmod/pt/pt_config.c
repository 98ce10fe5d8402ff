// SPDX-License-Identifier: GPL-2.0
/*
 * PT capabilities and configurations (SDM 33.3.1, 33.2.8).
 *
 * CPUID leaf 14H is decoded once at load through the capability table of
 * <lwpt/pt_cpuid.h>. A configuration is checked as a predicate over a
 * whitelist of IA32_RTIT_CTL bits before any MSR is written, then against
 * the caller's permissions (Documentation/pt.rst).
 */
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/preempt.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>

#include <lwpt/pt_arch.h>
#include <lwpt/pt_rtit.h>

#include "../x86_cpuid.h"
#include "../x86_user_cr3.h"
#include "../perm.h"
#include "pt_int.h"

struct pt_cpuid_leaf pt_leaf;
struct lwpt_pt_caps pt_caps;

/* The ABI structs: explicit layouts, no hidden padding (pt.h). */
static_assert(sizeof(struct lwpt_pt_caps) == LWPT_PT_CAPS_SIZE_VER2);
static_assert(offsetof(struct lwpt_pt_caps, mlock_avail) == LWPT_PT_CAPS_SIZE_VER0);
static_assert(offsetof(struct lwpt_pt_caps, cpuid_15h) == LWPT_PT_CAPS_SIZE_VER1);
static_assert(sizeof(struct lwpt_pt_config) == LWPT_PT_CONFIG_SIZE_VER3);
static_assert(offsetof(struct lwpt_pt_config, hold_limit_ms) == LWPT_PT_CONFIG_SIZE_VER2);
static_assert(offsetof(struct lwpt_pt_config, rule) == LWPT_PT_CONFIG_SIZE_VER0);
static_assert(offsetof(struct lwpt_pt_config, cpu_mask) == LWPT_PT_CONFIG_SIZE_VER1);
static_assert(sizeof(struct lwpt_pt_status) == LWPT_PT_STATUS_SIZE_VER5);
static_assert(offsetof(struct lwpt_pt_status, threads_refused) == LWPT_PT_STATUS_SIZE_VER4);
static_assert(offsetof(struct lwpt_pt_status, holds) == LWPT_PT_STATUS_SIZE_VER3);
static_assert(offsetof(struct lwpt_pt_status, gap_head) == LWPT_PT_STATUS_SIZE_VER2);
static_assert(offsetof(struct lwpt_pt_status, buffer) == LWPT_PT_STATUS_SIZE_VER0);
static_assert(offsetof(struct lwpt_pt_status, stop_reason) == LWPT_PT_STATUS_SIZE_VER1);

/*
 * The policy knobs (module parameters of both modules: pt_params_*.c),
 * Documentation/pt.rst "Permissions" and "Memory".
 *
 * pt_paranoid has the meaning of perf's kernel.perf_event_paranoid, which
 * a module cannot read (sysctl_perf_event_paranoid is not exported in
 * 6.1): above 2 no unprivileged capture at all (Debian's level 3,
 * perf_event_open()'s perf_paranoid_any() test); at -1 no RLIMIT_MEMLOCK
 * limit (perf_mmap()'s perf_is_paranoid() test). Kernel tracing and
 * system-wide capture need CAP_PERFMON at every level.
 */
int pt_paranoid = 3;
static_assert(sizeof(struct lwpt_pt_release) == LWPT_PT_RELEASE_SIZE_VER1);
static_assert(offsetof(struct lwpt_pt_release, buffer) == LWPT_PT_RELEASE_SIZE_VER0);

/* enum pt_cpuid_cap -> LWPT_PT_CAP_* for the flag capabilities. */
static const u32 pt_cap_bits[PT_CPUID_CAP_NR] = {
	[PT_CPUID_CAP_CR3_FILTER]	= LWPT_PT_CAP_CR3_FILTER,
	[PT_CPUID_CAP_PSB_CYC]		= LWPT_PT_CAP_PSB_CYC,
	[PT_CPUID_CAP_IP_FILTER]	= LWPT_PT_CAP_IP_FILTER,
	[PT_CPUID_CAP_MTC]		= LWPT_PT_CAP_MTC,
	[PT_CPUID_CAP_PTWRITE]		= LWPT_PT_CAP_PTWRITE,
	[PT_CPUID_CAP_POWER_EVENT]	= LWPT_PT_CAP_POWER_EVENT,
	[PT_CPUID_CAP_PSB_PMI_PRESERVE]	= LWPT_PT_CAP_PSB_PMI_PRESERVE,
	[PT_CPUID_CAP_EVENT_TRACE]	= LWPT_PT_CAP_EVENT_TRACE,
	[PT_CPUID_CAP_TNT_DISABLE]	= LWPT_PT_CAP_TNT_DISABLE,
	[PT_CPUID_CAP_TOPA]		= LWPT_PT_CAP_TOPA,
	[PT_CPUID_CAP_MENTRY]		= LWPT_PT_CAP_MENTRY,
	[PT_CPUID_CAP_SNGLRGNOUT]	= LWPT_PT_CAP_SNGLRGNOUT,
	[PT_CPUID_CAP_TRACE_TRANSPORT]	= LWPT_PT_CAP_TRACE_TRANSPORT,
	[PT_CPUID_CAP_LIP]		= LWPT_PT_CAP_LIP,
};

/* --- Size-versioned structs (include/uapi/lwpt/pt.h) ------------------- */

/**
 * pt_copy_in - copy a size-versioned struct from user space
 * @kbuf: the kernel's struct, zeroed first
 * @ksize: its size, bytes
 * @ver0: the first published size, bytes
 * @ubuf: the user's struct; its first field is its __u32 size
 * @usize: out: the user's size
 *
 * Return: 0; -EFAULT bad pointer; -EINVAL a size below @ver0 or above a
 * page; -E2BIG bytes past @ksize not zero (as perf_event_open).
 */
int pt_copy_in(void *kbuf, size_t ksize, size_t ver0,
	       const void __user *ubuf, u32 *usize)
{
	u32 size;
	int err;

	if (get_user(size, (const u32 __user *)ubuf))
		return -EFAULT;
	if (size < ver0 || size > PAGE_SIZE)
		return -EINVAL;
	memset(kbuf, 0, ksize);
	err = copy_struct_from_user(kbuf, ksize, ubuf, size);
	if (err)
		return err;	/* -E2BIG or -EFAULT */
	*usize = size;
	return 0;
}

/**
 * pt_copy_out - copy a size-versioned struct back to user space
 * @ubuf: the user's struct
 * @kbuf: the kernel's struct; its size field is set to the bytes copied
 * @ksize: its size, bytes
 * @usize: the user's size, bytes
 *
 * Copies min(@ksize, @usize) bytes.
 *
 * Return: 0, or -EFAULT.
 */
int pt_copy_out(void __user *ubuf, void *kbuf, size_t ksize, u32 usize)
{
	u32 n = min_t(u32, usize, ksize);

	*(u32 *)kbuf = n;
	return copy_to_user(ubuf, kbuf, n) ? -EFAULT : 0;
}

/* --- Capabilities --------------------------------------------------------- */

/*
 * Broadwell erratum BDM106: tracing with BranchEn=0 may hang; perf keeps
 * BranchEn set there. Every processor whose PT lacks configurable PSB and
 * CYC (14H.0:EBX[1]) is first generation, i.e. Broadwell, so that is the
 * test (Documentation/pt.rst).
 */
static bool pt_bdm106(void)
{
	return !pt_has(LWPT_PT_CAP_PSB_CYC);
}

/* --- Model-specific rules (DisplayFamily_DisplayModel) ------------------- */

/*
 * PT and LBRs together. SDM 33.3.1.2: "For processors with CPUID
 * DisplayFamily_DisplayModel signatures of 06_3DH, 06_47H, 06_4EH, 06_4FH,
 * 06_56H, and 06_5EH, the use of Intel PT and LBRs are mutually exclusive"
 * (Broadwell, Broadwell G/X/D, Skylake client). perf 6.1 keeps its own PT
 * and LBR events apart (x86_add_exclusive()) on every model except those
 * where intel_pmu_init() sets x86_pmu.lbr_pt_coexist
 * (arch/x86/events/intel/core.c): the list below. So it also keeps them
 * apart on 06_55H (Skylake-X), 06_8EH and 06_9EH (Kaby and Coffee Lake),
 * 06_A5H and 06_A6H (Comet Lake), 06_66H, 06_8AH, 06_9DH and any model it
 * does not know; lwpt follows perf's list, which contains the SDM's
 * (Documentation/pt.rst). lwpt cannot join perf's count (not exported), so
 * it reads IA32_DEBUGCTL.LBR itself.
 */
static const u8 pt_lbr_coexist_models[] = {
	0x5c, 0x5f,		/* Goldmont: Apollo Lake, Denverton */
	0x7a,			/* Goldmont Plus: Gemini Lake */
	0x86, 0x96, 0x9c,	/* Tremont: Jacobsville, Elkhart Lake, Jasper Lake */
	0xbe,			/* Alder Lake N */
	0x6a, 0x6c, 0x7d, 0x7e,	/* Ice Lake X, D, client */
	0x8c, 0x8d, 0xa7,	/* Tiger Lake, Rocket Lake */
	0x8f, 0xcf,		/* Sapphire Rapids, Emerald Rapids */
	0x97, 0x9a, 0xb7, 0xba, 0xbf,	/* Alder Lake, Raptor Lake */
};

/*
 * Errata TGL052 (Tiger Lake 06_8CH, 06_8DH), ADL037 (Alder Lake 06_97H,
 * 06_9AH), RPL017 (Raptor Lake 06_B7H, 06_BAH, 06_BFH): single-range output
 * larger than 4 KiB is unreliable. Model numbers as Linux's intel-family.h
 * names them; perf's pt_buffer_try_single() cites these errata and uses
 * single-range output only for one page, on every processor.
 */
static const u8 pt_single_4k_models[] = { 0x8c, 0x8d, 0x97, 0x9a, 0xb7, 0xba, 0xbf };

/* The largest single range on an erratum part (TGL052, ADL037, RPL017). */
#define PT_SINGLE_ERRATUM_MAX	SZ_4K

/*
 * DisplayModel of the boot CPU if it is an Intel family 6 processor (SDM
 * Vol. 2A CPUID, Figure 3-6), else 0: the model lists above mean nothing
 * elsewhere (the simulated AMD processor with LWP and PT, for one).
 */
static u32 pt_intel_fam6_model(const struct lwpt_caps *caps)
{
	struct lwpt_cpuid_regs r;
	u32 family, model;

	if (strcmp(caps->vendor, X86_VENDOR_INTEL_STR) ||
	    !lwpt_cpuid_has_leaf(caps, X86_CPUID_FEATURES))
		return 0;
	preempt_disable();
	lwpt_hw_cpuid(X86_CPUID_FEATURES, 0, &r);
	preempt_enable();
	family = (r.eax >> X86_CPUID_1_EAX_FAMILY_SHIFT) & X86_CPUID_1_EAX_FAMILY_MASK;
	model = (r.eax >> X86_CPUID_1_EAX_MODEL_SHIFT) & X86_CPUID_1_EAX_MODEL_MASK;
	if (family != 6)
		return 0;
	return model | (((r.eax >> X86_CPUID_1_EAX_EXT_MODEL_SHIFT) &
			 X86_CPUID_1_EAX_EXT_MODEL_MASK) << 4);
}

static bool pt_model_in(u32 model, const u8 *list, size_t n)
{
	size_t i;

	for (i = 0; model && i < n; i++)
		if (list[i] == model)
			return true;
	return false;
}

/* The model's DisplayModel, for the log: 0 if not an Intel family 6. */
static u32 pt_fam6_model;

/**
 * pt_config_lbr_check - may TraceEn be set on this CPU (SDM 33.3.1.2)
 *
 * On a PT/LBR-exclusive model (LWPT_PT_CAP_LBR_EXCLUSIVE) TraceEn must not
 * be set while IA32_DEBUGCTL.LBR is: with both set an SMI whose RSM
 * re-enables them shuts the platform down (SDM 33.2.9.3). Elsewhere there
 * is nothing to check. Current CPU, preemption off (IPI, PMI, sched
 * probe); prints nothing.
 *
 * Return: 0; -EBUSY LBR is set; -EIO RDMSR IA32_DEBUGCTL faulted (treated
 * as set by the callers: TraceEn stays clear).
 */
int pt_config_lbr_check(void)
{
	u64 dbg = 0;

	if (!pt_has(LWPT_PT_CAP_LBR_EXCLUSIVE))
		return 0;
	if (lwpt_hw_rdmsr(IA32_DEBUGCTL, &dbg))
		return -EIO;
	return (dbg & IA32_DEBUGCTL_LBR) ? -EBUSY : 0;
}

static void pt_config_lbr_check_one(void *arg)
{
	int *err = arg;

	*err = pt_config_lbr_check();
}

/**
 * pt_config_lbr_check_cpus - START: refuse while any CPU has DEBUGCTL.LBR
 *
 * Runs pt_config_lbr_check() on every online CPU (an IPI each) and names
 * the first refusing CPU and the rule in the kernel log. Process context,
 * without cpus_read_lock() held (it takes it); a CPU that comes online
 * later is checked when it sets TraceEn. Where PT and LBRs coexist,
 * returns 0 at once.
 *
 * Return: 0; -EBUSY IA32_DEBUGCTL.LBR is set (or unreadable) on a CPU.
 */
int pt_config_lbr_check_cpus(void)
{
	int cpu, err = 0;

	if (!pt_has(LWPT_PT_CAP_LBR_EXCLUSIVE))
		return 0;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (smp_call_function_single(cpu, pt_config_lbr_check_one, &err, 1))
			continue;	/* went offline: checked when it loads */
		if (err)
			break;
	}
	cpus_read_unlock();
	if (!err)
		return 0;
	pr_warn_ratelimited("lwpt: PT START refused: IA32_DEBUGCTL.LBR is set on CPU %d; PT and LBRs are mutually exclusive on this processor (06_%02XH, SDM 33.3.1.2, perf's lbr_pt_coexist): stop the LBR user (perf record -b or --call-graph=lbr, a debugger) and start again\n",
			    cpu, pt_fam6_model);
	return -EBUSY;
}

/**
 * pt_caps_decode - decode CPUID leaf 14H (and 0DH for XSAVES) once
 * @caps: the detection result (SDM 33.3.1, Tables 33-11 and 33-12)
 *
 * Fills pt_leaf and pt_caps through the one extractor of <lwpt/pt_cpuid.h>.
 */
void pt_caps_decode(const struct lwpt_caps *caps)
{
	struct lwpt_cpuid_regs r;
	unsigned int i;
	u32 range_cap;
	u64 ram;

	for (i = 0; i < PT_CPUID_SUBLEAVES; i++) {
		pt_leaf.regs[i][PT_CPUID_EAX] = caps->pt_leaf[i].eax;
		pt_leaf.regs[i][PT_CPUID_EBX] = caps->pt_leaf[i].ebx;
		pt_leaf.regs[i][PT_CPUID_ECX] = caps->pt_leaf[i].ecx;
		pt_leaf.regs[i][PT_CPUID_EDX] = caps->pt_leaf[i].edx;
		memcpy(pt_caps.cpuid_14h[i], pt_leaf.regs[i],
		       sizeof(pt_caps.cpuid_14h[i]));
	}
	/* The one extractor over the capability table (pt_cpuid.h). */
	for (i = 0; i < PT_CPUID_CAP_NR; i++)
		if (pt_cap_bits[i] && pt_cpuid_cap(&pt_leaf, i))
			pt_caps.caps |= pt_cap_bits[i];
	range_cap = pt_has(LWPT_PT_CAP_IP_FILTER) ?
		    pt_cpuid_cap(&pt_leaf, PT_CPUID_CAP_NUM_RANGES) : 0;
	pt_caps.nr_ranges = min_t(u32, range_cap, LWPT_PT_ADDR_RANGES);
	pt_caps.mtc_periods = pt_has(LWPT_PT_CAP_MTC) ?
		pt_cpuid_cap(&pt_leaf, PT_CPUID_CAP_MTC_PERIODS) : 0;
	if (pt_has(LWPT_PT_CAP_PSB_CYC)) {
		pt_caps.cyc_thresholds =
			pt_cpuid_cap(&pt_leaf, PT_CPUID_CAP_CYC_THRESHOLDS);
		pt_caps.psb_periods =
			pt_cpuid_cap(&pt_leaf, PT_CPUID_CAP_PSB_PERIODS);
	}
	if (pt_bdm106())
		pt_caps.caps |= LWPT_PT_CAP_ERRATUM_BDM106;
	/*
	 * Model-specific rules: PT/LBR as perf 6.1 (SDM 33.3.1.2 and
	 * lbr_pt_coexist); errata TGL052/ADL037/RPL017.
	 */
	pt_fam6_model = pt_intel_fam6_model(caps);
	if (pt_fam6_model &&
	    !pt_model_in(pt_fam6_model, pt_lbr_coexist_models,
			 ARRAY_SIZE(pt_lbr_coexist_models)))
		pt_caps.caps |= LWPT_PT_CAP_LBR_EXCLUSIVE;
	if (pt_has(LWPT_PT_CAP_SNGLRGNOUT) &&
	    pt_model_in(pt_fam6_model, pt_single_4k_models,
			ARRAY_SIZE(pt_single_4k_models)))
		pt_caps.caps |= LWPT_PT_CAP_ERRATUM_SINGLE_4K;
	/*
	 * XSAVES of PT state (SDM Vol. 1 13.5.6, SDM 33.3.5.2): XSAVES and
	 * XRSTORS (0DH.1:EAX[3]), IA32_XSS[8] (0DH.1:ECX[8]), and component 8
	 * a supervisor component (0DH.8) of at least the nine MSRs lwpt
	 * saves (72 bytes; a later processor may report more) and no more
	 * than its XSAVES area holds after the header.
	 */
	if (caps->max_leaf >= PT_CPUID_0DH) {
		struct lwpt_cpuid_regs c8;

		preempt_disable();
		lwpt_hw_cpuid(PT_CPUID_0DH, 1, &r);
		lwpt_hw_cpuid(PT_CPUID_0DH, PT_XSTATE_COMPONENT, &c8);
		preempt_enable();
		if ((r.eax & PT_CPUID_0DH_1_EAX_XSAVES) &&
		    (r.ecx & (u32)IA32_XSS_PT) &&
		    c8.eax >= PT_XSAVE_STATE_SIZE && c8.eax <= PT_XSAVE_STATE_MAX &&
		    (c8.ecx & PT_CPUID_0DH_N_ECX_XSS))
			pt_caps.caps |= LWPT_PT_CAP_XSAVES;
	}
	/*
	 * The timing leaves (SDM 33.8.3): through the hardware layer, so on
	 * lwpt_sim.ko they are the model's and decoders of its MTC and CYC
	 * need no values passed by hand.
	 */
	if (lwpt_cpuid_has_leaf(caps, PT_CPUID_15H)) {
		preempt_disable();
		lwpt_hw_cpuid(PT_CPUID_15H, 0, &r);
		preempt_enable();
		pt_caps.cpuid_15h[0] = r.eax;
		pt_caps.cpuid_15h[1] = r.ebx;
		pt_caps.cpuid_15h[2] = r.ecx;
	}
	if (lwpt_cpuid_has_leaf(caps, PT_CPUID_16H)) {
		preempt_disable();
		lwpt_hw_cpuid(PT_CPUID_16H, 0, &r);
		preempt_enable();
		pt_caps.cpuid_16h_eax = r.eax & PT_CPUID_16H_EAX_BASE_MHZ_MASK;
	}
	/* MAXPHYADDR bounds ToPA bases (SDM 33.2.7.2, Figure 33-2). */
	if (lwpt_cpuid_has_leaf(caps, PT_CPUID_80000008H)) {
		preempt_disable();
		lwpt_hw_cpuid(PT_CPUID_80000008H, 0, &r);
		preempt_enable();
		pt_caps.maxphyaddr = r.eax & PT_CPUID_80000008H_EAX_MAXPHYADDR_MASK;
	}
	pt_caps.nr_cpus = nr_cpu_ids;
	pt_caps.thread_spares = PT_THREAD_SPARES;
	pt_caps.max_region_size = PAGE_SIZE << PT_REGION_ORDER_MAX;
	/* With MENTRY: half of RAM over the CPUs that may trace. */
	ram = rounddown(((u64)totalram_pages() << PAGE_SHIFT) / 2 /
			num_possible_cpus(), PAGE_SIZE);
	if (pt_has(LWPT_PT_CAP_MENTRY))
		pt_caps.max_buffer_size = max_t(u64, PAGE_SIZE, ram);
	else
		pt_caps.max_buffer_size = pt_caps.max_region_size;
	pt_caps.size = sizeof(pt_caps);
}

/**
 * pt_ioctl_get_caps - LWPT_PT_IOC_GET_CAPS
 * @arg: struct lwpt_pt_caps in user space (size-versioned)
 *
 * The decoded capabilities, (size version 1) what the caller may still
 * pin (pt_mem_avail()), and (size version 2) CPUID.15H and 16H.
 *
 * Return: 0; -EFAULT; -EINVAL bad size; -E2BIG.
 */
long pt_ioctl_get_caps(void __user *arg)
{
	struct lwpt_pt_caps c;
	u32 usize;
	int err;

	err = pt_copy_in(&c, sizeof(c), LWPT_PT_CAPS_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	c = pt_caps;
	c.mlock_avail = pt_mem_avail();
	return pt_copy_out(arg, &c, sizeof(c), usize);
}

/* --- Configuration: a predicate over a whitelist ------------------------ */

/* LWPT_PT_CFG_* -> IA32_RTIT_CTL bit and the field named when refused. */
static const struct {
	u32 flag;
	u64 ctl;
	u32 field;
} pt_cfg_bits[] = {
	{ LWPT_PT_CFG_OS, IA32_RTIT_CTL_OS, LWPT_PT_FIELD_OS },
	{ LWPT_PT_CFG_USER, IA32_RTIT_CTL_USER, LWPT_PT_FIELD_USER },
	{ LWPT_PT_CFG_BRANCH, IA32_RTIT_CTL_BRANCHEN, LWPT_PT_FIELD_BRANCH },
	{ LWPT_PT_CFG_TSC, IA32_RTIT_CTL_TSCEN, LWPT_PT_FIELD_FLAGS },
	{ LWPT_PT_CFG_MTC, IA32_RTIT_CTL_MTCEN, LWPT_PT_FIELD_MTC },
	{ LWPT_PT_CFG_CYC, IA32_RTIT_CTL_CYCEN, LWPT_PT_FIELD_CYC },
	{ LWPT_PT_CFG_DISRETC, IA32_RTIT_CTL_DISRETC, LWPT_PT_FIELD_FLAGS },
	{ LWPT_PT_CFG_PTW, IA32_RTIT_CTL_PTWEN, LWPT_PT_FIELD_PTW },
	{ LWPT_PT_CFG_FUPONPTW, IA32_RTIT_CTL_FUPONPTW, LWPT_PT_FIELD_FUPONPTW },
	{ LWPT_PT_CFG_PWREVT, IA32_RTIT_CTL_PWREVTEN, LWPT_PT_FIELD_PWREVT },
	{ LWPT_PT_CFG_EVENT, IA32_RTIT_CTL_EVENTEN, LWPT_PT_FIELD_EVENT },
	{ LWPT_PT_CFG_DISTNT, IA32_RTIT_CTL_DISTNT, LWPT_PT_FIELD_DISTNT },
	{ LWPT_PT_CFG_INJECT_PSB_PMI, IA32_RTIT_CTL_INJECTPSBPMIONENABLE,
	  LWPT_PT_FIELD_INJECT_PSB_PMI },
	{ LWPT_PT_CFG_CR3_FILTER, IA32_RTIT_CTL_CR3FILTER,
	  LWPT_PT_FIELD_CR3_FILTER },
};

/* Is @v canonical for 48-bit linear addresses (SDM 33.2.8.5)? */
static bool pt_canonical(u64 v)
{
	return (u64)(((s64)v << 16) >> 16) == v;
}

/* Name the refused field in the answer and return @err. */
static int pt_refuse(struct lwpt_pt_config *cfg, u32 field, int err)
{
	cfg->bad_field = field;
	return err;
}

/*
 * The output scheme (SDM 33.2.7) and the buffer's size: ToPA (IA32_RTIT_CTL
 * .ToPA=1, SDM 33.2.7.2), or single-range output (ToPA=0, SDM 33.2.7.1)
 * when asked for, or by default in wrap mode on a processor that has it
 * but no ToPA; the flag is then set in the answer (Documentation/pt.rst).
 */
static int pt_config_output(struct lwpt_pt_config *cfg, u64 *ctl)
{
	bool single = cfg->flags & LWPT_PT_CFG_SINGLE_RANGE;

	/*
	 * Errata TGL052/ADL037/RPL017: no single range above 4 KiB. As perf's
	 * pt_buffer_try_single(), such a buffer gets ToPA (wrap mode, the
	 * same size); the answer's flags say so. Without ToPA it is refused.
	 */
	if (single && pt_has(LWPT_PT_CAP_ERRATUM_SINGLE_4K) &&
	    cfg->buffer_size > PT_SINGLE_ERRATUM_MAX) {
		if (!pt_has(LWPT_PT_CAP_TOPA))
			return pt_refuse(cfg, LWPT_PT_FIELD_BUFFER_SIZE, -EOPNOTSUPP);
		pr_info_ratelimited("lwpt: PT: single-range output above 4 KiB is unreliable on this processor (06_%02XH, errata TGL052/ADL037/RPL017): %llu bytes configured as ToPA\n",
				    pt_fam6_model, cfg->buffer_size);
		cfg->flags &= ~LWPT_PT_CFG_SINGLE_RANGE;
		single = false;
	}

	if (!single && !pt_has(LWPT_PT_CAP_TOPA)) {
		if (!pt_has(LWPT_PT_CAP_SNGLRGNOUT) ||
		    (pt_has(LWPT_PT_CAP_ERRATUM_SINGLE_4K) &&
		     cfg->buffer_size > PT_SINGLE_ERRATUM_MAX))
			return pt_refuse(cfg, LWPT_PT_FIELD_BUFFER_SIZE, -EOPNOTSUPP);
		/* Stop and continuous mode need ToPA's STOP and PMI. */
		if (cfg->mode != LWPT_PT_MODE_WRAP)
			return pt_refuse(cfg, LWPT_PT_FIELD_MODE, -EOPNOTSUPP);
		cfg->flags |= LWPT_PT_CFG_SINGLE_RANGE;
		single = true;
	}
	if (single) {
		if (!pt_has(LWPT_PT_CAP_SNGLRGNOUT))
			return pt_refuse(cfg, LWPT_PT_FIELD_SINGLE_RANGE, -EOPNOTSUPP);
		/* No STOP and no PMI: the range wraps silently (SDM 33.2.7.1). */
		if (cfg->mode != LWPT_PT_MODE_WRAP)
			return pt_refuse(cfg, LWPT_PT_FIELD_MODE, -EINVAL);
		/*
		 * One naturally aligned block: a power of two (the mask must be
		 * contiguous and share no bit with the base), at least a page
		 * (the SDM's minimum is 128 bytes), at most one allocation.
		 */
		if (cfg->buffer_size < PAGE_SIZE || !is_power_of_2(cfg->buffer_size) ||
		    cfg->buffer_size > pt_caps.max_region_size)
			return pt_refuse(cfg, LWPT_PT_FIELD_BUFFER_SIZE, -EINVAL);
		if (cfg->region_size && cfg->region_size != cfg->buffer_size)
			return pt_refuse(cfg, LWPT_PT_FIELD_REGION_SIZE, -EINVAL);
		return 0;
	}

	/* ToPA: 4K multiple; one power-of-two region without MENTRY. */
	*ctl |= IA32_RTIT_CTL_TOPA;
	if (!cfg->buffer_size || !IS_ALIGNED(cfg->buffer_size, PAGE_SIZE) ||
	    cfg->buffer_size > pt_caps.max_buffer_size)
		return pt_refuse(cfg, LWPT_PT_FIELD_BUFFER_SIZE, -EINVAL);
	if (!pt_has(LWPT_PT_CAP_MENTRY) && !is_power_of_2(cfg->buffer_size))
		return pt_refuse(cfg, LWPT_PT_FIELD_BUFFER_SIZE, -EINVAL);
	if (cfg->region_size &&
	    (!is_power_of_2(cfg->region_size) || cfg->region_size < PAGE_SIZE))
		return pt_refuse(cfg, LWPT_PT_FIELD_REGION_SIZE, -EINVAL);
	if (!pt_has(LWPT_PT_CAP_MENTRY) && cfg->region_size &&
	    cfg->region_size != cfg->buffer_size)
		return pt_refuse(cfg, LWPT_PT_FIELD_REGION_SIZE, -EOPNOTSUPP);
	return 0;
}

/**
 * pt_config_check - validate a configuration, build IA32_RTIT_CTL
 * @cfg: the request; on error bad_field names the refused field
 * @ctlp: out: IA32_RTIT_CTL with TraceEn clear (SDM 33.2.8.2)
 *
 * A predicate over a whitelist of the bits CPUID lets software set; no MSR
 * is touched (Documentation/pt.rst, "Configuration"). The output scheme:
 * ToPA (SDM 33.2.7.2) or single-range output (SDM 33.2.7.1, wrap mode
 * only; LWPT_PT_CFG_SINGLE_RANGE is set in @cfg when the processor has it
 * but no ToPA, and cleared for a range above 4 KiB on a part with errata
 * TGL052/ADL037/RPL017, which gets ToPA).
 *
 * Return: 0; -EINVAL bad value, encoding or dependency (single-range
 * output in stop or continuous mode: bad_field mode); -EOPNOTSUPP a
 * feature the processor does not enumerate (single-range output without
 * CPUID.(14H,0):ECX[2]; above 4 KiB on an erratum part without ToPA:
 * bad_field buffer_size).
 */
int pt_config_check(struct lwpt_pt_config *cfg, u64 *ctlp)
{
	u64 writable = pt_rtit_ctl_writable(&pt_leaf);
	u64 ctl = 0, bad;
	int err;
	unsigned int i;

	if (cfg->reserved || cfg->reserved3)
		return pt_refuse(cfg, LWPT_PT_FIELD_RESERVED, -EINVAL);
	/* Size version 3: 0 (also from an older caller) is the default. */
	if (!cfg->hold_limit_ms)
		cfg->hold_limit_ms = LWPT_PT_HOLD_LIMIT_DEFAULT_MS;
	if (cfg->flags & ~LWPT_PT_CFG_ALL)
		return pt_refuse(cfg, LWPT_PT_FIELD_FLAGS, -EINVAL);
	if (cfg->mode > LWPT_PT_MODE_CONTINUOUS)
		return pt_refuse(cfg, LWPT_PT_FIELD_MODE, -EINVAL);
	if (cfg->scope > LWPT_PT_SCOPE_THREAD)
		return pt_refuse(cfg, LWPT_PT_FIELD_SCOPE, -EINVAL);
	if (!(cfg->flags & (LWPT_PT_CFG_OS | LWPT_PT_CFG_USER)))
		return pt_refuse(cfg, LWPT_PT_FIELD_USER, -EINVAL);

	/* Each requested bit must be one the processor lets software set. */
	for (i = 0; i < ARRAY_SIZE(pt_cfg_bits); i++) {
		if (!(cfg->flags & pt_cfg_bits[i].flag))
			continue;
		if (!(writable & pt_cfg_bits[i].ctl))
			return pt_refuse(cfg, pt_cfg_bits[i].field, -EOPNOTSUPP);
		ctl |= pt_cfg_bits[i].ctl;
	}
	/* SDM 33.2.8.2: FUPonPTW only matters with PTWEn. */
	if ((cfg->flags & LWPT_PT_CFG_FUPONPTW) && !(cfg->flags & LWPT_PT_CFG_PTW))
		return pt_refuse(cfg, LWPT_PT_FIELD_FUPONPTW, -EINVAL);
	if ((cfg->flags & LWPT_PT_CFG_CR3_FILTER) && cfg->pid <= 0)
		return pt_refuse(cfg, LWPT_PT_FIELD_PID, -EINVAL);
	if (pt_bdm106() && !(cfg->flags & LWPT_PT_CFG_BRANCH)) {
		/* Erratum BDM106: BranchEn forced (reported in status.rtit_ctl). */
		ctl |= IA32_RTIT_CTL_BRANCHEN;
	}

	/* Encodings: only those CPUID.(14H,1) lists (SDM 33.3.1). */
	if (cfg->flags & LWPT_PT_CFG_MTC) {
		if (cfg->mtc_freq > 15 || !(pt_caps.mtc_periods & BIT(cfg->mtc_freq)))
			return pt_refuse(cfg, LWPT_PT_FIELD_MTC_FREQ, -EINVAL);
		ctl |= (u64)cfg->mtc_freq << IA32_RTIT_CTL_MTCFREQ_SHIFT;
	} else if (cfg->mtc_freq) {
		return pt_refuse(cfg, LWPT_PT_FIELD_MTC_FREQ, -EINVAL);
	}
	if (cfg->flags & LWPT_PT_CFG_CYC) {
		if (cfg->cyc_thresh > 15 ||
		    !(pt_caps.cyc_thresholds & BIT(cfg->cyc_thresh)))
			return pt_refuse(cfg, LWPT_PT_FIELD_CYC_THRESH, -EINVAL);
		ctl |= (u64)cfg->cyc_thresh << IA32_RTIT_CTL_CYCTHRESH_SHIFT;
	} else if (cfg->cyc_thresh) {
		return pt_refuse(cfg, LWPT_PT_FIELD_CYC_THRESH, -EINVAL);
	}
	if (cfg->flags & LWPT_PT_CFG_PSBFREQ) {
		if (!pt_has(LWPT_PT_CAP_PSB_CYC))
			return pt_refuse(cfg, LWPT_PT_FIELD_PSB_FREQ, -EOPNOTSUPP);
		if (cfg->psb_freq > 15 ||
		    !(pt_caps.psb_periods & BIT(cfg->psb_freq)))
			return pt_refuse(cfg, LWPT_PT_FIELD_PSB_FREQ, -EINVAL);
		ctl |= (u64)cfg->psb_freq << IA32_RTIT_CTL_PSBFREQ_SHIFT;
	} else if (cfg->psb_freq) {
		return pt_refuse(cfg, LWPT_PT_FIELD_PSB_FREQ, -EINVAL);
	}

	/* ADDRn: only ranges CPUID enumerates (SDM 33.2.4.3, Table 33-12). */
	for (i = 0; i < LWPT_PT_ADDR_RANGES; i++) {
		const struct lwpt_pt_addr_range *r = &cfg->addr[i];

		if (r->reserved || r->cfg > LWPT_PT_ADDR_STOP)
			return pt_refuse(cfg, LWPT_PT_FIELD_ADDR0 + i, -EINVAL);
		if (r->cfg == LWPT_PT_ADDR_UNUSED) {
			if (r->a || r->b)
				return pt_refuse(cfg, LWPT_PT_FIELD_ADDR0 + i, -EINVAL);
			continue;
		}
		if (i >= pt_caps.nr_ranges)
			return pt_refuse(cfg, LWPT_PT_FIELD_ADDR0 + i, -EOPNOTSUPP);
		if (!pt_canonical(r->a) || !pt_canonical(r->b) || r->a > r->b)
			return pt_refuse(cfg, LWPT_PT_FIELD_ADDR0 + i, -EINVAL);
		ctl |= (u64)r->cfg << IA32_RTIT_CTL_ADDRn_CFG_SHIFT(i);
	}

	/* The output scheme and the buffer's size. */
	err = pt_config_output(cfg, &ctl);
	if (err)
		return err;

	/* The last word: the value must not #GP (SDM 33.2.8.2). */
	if (WARN_ON_ONCE(pt_rtit_ctl_check(&pt_leaf, ctl, &bad) != PT_RTIT_CTL_VALID))
		return pt_refuse(cfg, LWPT_PT_FIELD_FLAGS, -EINVAL);
	*ctlp = ctl;
	return 0;
}

/**
 * pt_config_cpu_mask - read the CPU selection of a per-CPU capture
 * @cfg: the request (size version 2 fields; bad_field set on refusal)
 * @mask: out: the selected CPUs; left empty when none is given (every
 *	online CPU, versions 0 and 1)
 *
 * @cfg->cpu_mask is a user bitmap as sched_setaffinity() takes it: bit n
 * (byte n / 8, bit n % 8, little-endian words) is CPU n. Read before the
 * permission rules, so a caller without CAP_PERFMON learns what is wrong
 * with it too; whether a selected CPU is online is checked where the
 * buffers are allocated, under cpus_read_lock() (pt_core.c).
 *
 * Return: 0; -EINVAL a size of 0 or above LWPT_PT_CPU_MASK_MAX, one field
 * without the other, reserved2 not 0, a selection with thread scope, a bit
 * at or above nr_cpu_ids, no bit set; -EFAULT @cfg->cpu_mask unreadable;
 * -ENOMEM.
 */
int pt_config_cpu_mask(struct lwpt_pt_config *cfg, struct cpumask *mask)
{
	u32 size = cfg->cpu_mask_size, bit;
	u8 *bytes;
	int err = 0;

	cpumask_clear(mask);
	if (cfg->reserved2)
		return pt_refuse(cfg, LWPT_PT_FIELD_RESERVED, -EINVAL);
	if (!cfg->cpu_mask && !size)
		return 0;
	if (!cfg->cpu_mask || !size || size > LWPT_PT_CPU_MASK_MAX ||
	    cfg->scope != LWPT_PT_SCOPE_CPU)
		return pt_refuse(cfg, LWPT_PT_FIELD_CPU_MASK, -EINVAL);
	bytes = memdup_user(u64_to_user_ptr(cfg->cpu_mask), size);
	if (IS_ERR(bytes))
		return pt_refuse(cfg, LWPT_PT_FIELD_CPU_MASK, PTR_ERR(bytes));
	for (bit = 0; bit < size * BITS_PER_BYTE; bit++) {
		if (!(bytes[bit / BITS_PER_BYTE] & BIT(bit % BITS_PER_BYTE)))
			continue;
		if (bit >= nr_cpu_ids) {
			err = -EINVAL;
			break;
		}
		cpumask_set_cpu(bit, mask);
	}
	kfree(bytes);
	if (!err && cpumask_empty(mask))
		err = -EINVAL;
	if (err) {
		cpumask_clear(mask);
		return pt_refuse(cfg, LWPT_PT_FIELD_CPU_MASK, err);
	}
	return 0;
}

/* Refuse with @rule and @field named in the answer. */
static int pt_refuse_rule(struct lwpt_pt_config *cfg, u32 rule, u32 field,
			  int err)
{
	cfg->rule = rule;
	return pt_refuse(cfg, field, err);
}

/**
 * pt_config_refuse_memlock - refuse a configuration for its memory
 * @cfg: the configuration: bad_field buffer_size, rule memlock
 *
 * Return: -ENOMEM (as io_uring over RLIMIT_MEMLOCK).
 */
int pt_config_refuse_memlock(struct lwpt_pt_config *cfg)
{
	return pt_refuse_rule(cfg, LWPT_PT_RULE_MEMLOCK, LWPT_PT_FIELD_BUFFER_SIZE,
			      -ENOMEM);
}

/**
 * pt_config_permit_target - may the caller trace @task (now)
 * @cfg: the configuration (bad_field and rule set on refusal)
 * @task: the target
 * @mm: out (may be NULL): @task's mm, a reference the caller mmput()s
 *
 * perf_check_permission(): CAP_PERFMON (or CAP_SYS_ADMIN), or the ptrace
 * read rule (lwpt_may_trace()). Called at CONFIGURE without a lock, and
 * again with the target's exec_update_lock held (before pt_lock) until its
 * threads are attached (pt_ioctl_configure()), as perf_event_open() holds
 * it from its check to perf_install_in_context(): an exec cannot change
 * the target's credentials between the check and the attach. May drop
 * the last user of the target's mm (mmput()): never under pt_lock.
 *
 * Return: 0; -EPERM refused (LWPT_PT_RULE_PTRACE, bad_field pid); -EINVAL
 * a kernel thread; -ESRCH it exited (no mm).
 */
int pt_config_permit_target(struct lwpt_pt_config *cfg, struct task_struct *task,
			    struct mm_struct **mm)
{
	struct mm_struct *m = get_task_mm(task);

	/* A kernel thread (no user CR3, no threads), or one that exited. */
	if (!m)
		return pt_refuse(cfg, LWPT_PT_FIELD_PID,
				 (task->flags & PF_KTHREAD) ? -EINVAL : -ESRCH);
	if (!perfmon_capable() && !lwpt_may_trace(task, m)) {
		mmput(m);
		return pt_refuse_rule(cfg, LWPT_PT_RULE_PTRACE, LWPT_PT_FIELD_PID,
				      -EPERM);
	}
	if (mm)
		*mm = m;
	else
		mmput(m);
	return 0;
}

/**
 * pt_config_thread_rights - CONFIGURE: what the caller may do over a
 *	target process whatever its threads' credentials
 * @r: out: the rights (pt_config_thread_rights_put() releases them)
 * @task: the thread CONFIGURE named
 *
 * The two CAP_SYS_PTRACE alternatives of lwpt_may_trace(), asked once in
 * process context (ns_capable() may not run under a spinning lock) so that
 * pt_config_permit_thread() can apply the rule to every thread atomically:
 * over @task's user namespace (for the credential test) and over its mm's
 * (for dumpability). Asked without audit: a thread that passes without
 * them must not log a capability use.
 */
void pt_config_thread_rights(struct pt_thread_rights *r, struct task_struct *task)
{
	struct mm_struct *mm;

	memset(r, 0, sizeof(*r));
	rcu_read_lock();
	r->ns = get_user_ns(__task_cred(task)->user_ns);
	rcu_read_unlock();
	r->ns_ptrace = ns_capable_noaudit(r->ns, CAP_SYS_PTRACE);
	/*
	 * mm_count, not mm_users: its last mmdrop() frees the struct only,
	 * while the last mmput() would unmap, and a mapping of /dev/pt takes
	 * pt_lock on its way out (pt_lock is held here).
	 */
	task_lock(task);
	mm = task->mm;
	if (mm && !(task->flags & PF_KTHREAD))
		mmgrab(mm);
	else
		mm = NULL;
	task_unlock(task);
	if (mm) {
		r->mm = mm;
		r->mm_ptrace = ns_capable_noaudit(mm->user_ns, CAP_SYS_PTRACE);
	}
}

/**
 * pt_config_thread_rights_put - release what pt_config_thread_rights() took
 * @r: the rights
 *
 * Process context; pt_lock may be held (mmdrop() only frees the struct).
 */
void pt_config_thread_rights_put(struct pt_thread_rights *r)
{
	if (r->mm)
		mmdrop(r->mm);
	put_user_ns(r->ns);
	memset(r, 0, sizeof(*r));
}

/**
 * pt_config_permit_thread - CONFIGURE: may this thread of the target
 *	process be traced
 * @s: the session being configured by current (@s->privileged, @s->cred)
 * @t: a thread of the target process, not exiting
 * @r: the caller's rights over the process (pt_config_thread_rights())
 *
 * pt_config_permit_target() checked the thread CONFIGURE named, but a
 * per-thread capture attaches its whole thread group, and credentials are
 * per thread: a raw setresuid(2), setfsuid(2) or capset(2) changes one
 * thread only (glibc's wrappers broadcast the change; the system calls do
 * not). perf_event_open() checks the one task it attaches
 * (ptrace_may_access(PTRACE_MODE_READ_REALCREDS)); so each thread passes
 * the same rule here before it joins (Documentation/pt.rst, "Permissions:
 * every thread"): a thread of the caller's own process, or CAP_PERFMON,
 * CAP_SYS_ADMIN or CAP_SYS_PTRACE (@s->privileged); else lwpt_cred_same()
 * and lwpt_caps_cover() against @t's own credentials or CAP_SYS_PTRACE over
 * its user namespace (@r, if it is that of the named thread), and the mm
 * dumpable or CAP_SYS_PTRACE over the mm's user namespace. Atomic context
 * (RCU only), called under pt_thread_lock where the thread is attached: a
 * thread that passed can lose privileges later but gain none without an
 * exec, which pt_config_follow_check() checks again.
 *
 * Return: true if @t may be traced.
 */
bool pt_config_permit_thread(const struct pt_session *s, struct task_struct *t,
			     const struct pt_thread_rights *r)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm = READ_ONCE(t->mm);
	bool same;

	if (s->privileged || same_thread_group(t, current))
		return true;
	if (!mm || mm != r->mm)
		return false;
	rcu_read_lock();
	tcred = __task_cred(t);
	same = (lwpt_cred_same(cred, tcred) && lwpt_caps_cover(cred, tcred)) ||
	       (r->ns_ptrace && tcred->user_ns == r->ns);
	rcu_read_unlock();
	if (!same)
		return false;
	return get_dumpable(mm) == SUID_DUMP_USER || r->mm_ptrace;
}

/**
 * pt_config_follow_check - may a traced thread be followed into a new
 *	program, or a new thread or process be traced
 * @s: the session of the thread that exec'ed or forked
 * @p: the thread that exec'ed (current, in its sched_process_exec probe:
 *	the new credentials are committed and the new mm's dumpability is
 *	set by begin_new_exec(); no instruction of the new program ran yet),
 *	or the child of a fork or clone (its sched_process_fork probe: its
 *	credentials and mm are set, it has not run)
 *
 * The permission rule of CONFIGURE again, with the credentials saved then
 * (@s->cred, @s->privileged) rather than the target's own: the
 * ptrace read rule with the saved real UID/GID against @p's real,
 * effective and saved ones, the commoncap rule (@p's permitted
 * capabilities a subset of the saved permitted ones, same user namespace:
 * cap_ptrace_access_check()), and dumpability. So a program with file
 * capabilities stops the trace like a set-user-ID one, whatever
 * fs.suid_dumpable says (perf stops a task's events at an exec only when
 * the new program is not SUID_DUMP_USER: begin_new_exec() calls
 * perf_event_exit_task()). A capability held only in a user namespace
 * below the initial one does not count here (the probe cannot ask the LSM
 * about saved credentials): such a caller is not followed into another
 * user's program. Atomic context (RCU only).
 *
 * Return: LWPT_PT_STOP_NONE to go on tracing, else the LWPT_PT_STOP_EXEC_*
 * reason to detach (EXEC_CREDS for the IDs and capabilities).
 */
u32 pt_config_follow_check(const struct pt_session *s, struct task_struct *p)
{
	const struct cred *cred = s->cred, *tcred;
	bool same;

	if (s->privileged)
		return LWPT_PT_STOP_NONE;
	if (!cred || !p->mm)
		return LWPT_PT_STOP_EXEC_CREDS;
	rcu_read_lock();
	tcred = __task_cred(p);
	same = lwpt_cred_same(cred, tcred) && lwpt_caps_cover(cred, tcred);
	rcu_read_unlock();
	if (!same)
		return LWPT_PT_STOP_EXEC_CREDS;
	if (get_dumpable(p->mm) != SUID_DUMP_USER)
		return LWPT_PT_STOP_EXEC_DUMPABLE;
	return LWPT_PT_STOP_NONE;
}

/**
 * pt_config_permit - may the calling process make this capture
 * @cfg: a configuration pt_config_check() accepted; bad_field and rule set
 *	on error
 * @cr3: out: CR3_MATCH for LWPT_PT_CFG_CR3_FILTER, else 0
 * @cr3_mm: out: with @cr3, the mm whose page directory it is, pinned
 *	(mmgrab(), the caller mmdrop()s it when the capture ends): its PGD
 *	page is freed only by the last mmdrop() (__mmdrop()), so no other
 *	process can get that CR3 while the capture lives; else NULL
 * @target: out: per-thread scope: the target (a reference the caller
 *	puts with put_task_struct()), else NULL
 *
 * Documentation/pt.rst "Permissions", in perf_event_open()'s order:
 * kernel tracing (OS) or system-wide scope needs CAP_PERFMON or
 * CAP_SYS_ADMIN (perf_allow_kernel(), perf_allow_cpu()); with pt_paranoid
 * above 2 any capture needs it (perf_paranoid_any()); a target process
 * must pass perf_check_permission() (pt_config_permit_target()). CR3
 * filtering and per-thread scope are exclusive (the threads are the
 * filter; an exec would change the CR3 to match).
 *
 * Return: 0; -EPERM a capability or ptrace rule refused; -EACCES the
 * paranoid rule refused; -EINVAL a pid where none is used, none where one
 * is needed, a kernel thread, or CR3Filter with thread scope; -ESRCH no
 * such process in the caller's pid namespace.
 */
int pt_config_permit(struct lwpt_pt_config *cfg, u64 *cr3,
		     struct mm_struct **cr3_mm, struct task_struct **target)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *pid;
	int err;

	*cr3 = 0;
	*cr3_mm = NULL;
	*target = NULL;
	cfg->rule = LWPT_PT_RULE_NONE;
	if ((cfg->flags & LWPT_PT_CFG_OS) && !perfmon_capable())
		return pt_refuse_rule(cfg, LWPT_PT_RULE_CAPABILITY,
				      LWPT_PT_FIELD_OS, -EPERM);
	if (cfg->scope == LWPT_PT_SCOPE_CPU && !perfmon_capable())
		return pt_refuse_rule(cfg, LWPT_PT_RULE_CAPABILITY,
				      LWPT_PT_FIELD_SCOPE, -EPERM);
	if (READ_ONCE(pt_paranoid) > 2 && !perfmon_capable())
		return pt_refuse_rule(cfg, LWPT_PT_RULE_PARANOID,
				      LWPT_PT_FIELD_SCOPE, -EACCES);
	if (cfg->scope != LWPT_PT_SCOPE_THREAD &&
	    !(cfg->flags & LWPT_PT_CFG_CR3_FILTER)) {
		if (cfg->pid)
			return pt_refuse(cfg, LWPT_PT_FIELD_PID, -EINVAL);
		return 0;
	}
	if (cfg->scope == LWPT_PT_SCOPE_THREAD &&
	    (cfg->flags & LWPT_PT_CFG_CR3_FILTER))
		return pt_refuse(cfg, LWPT_PT_FIELD_CR3_FILTER, -EINVAL);
	if (cfg->pid <= 0)
		return pt_refuse(cfg, LWPT_PT_FIELD_PID, -EINVAL);
	pid = find_get_pid(cfg->pid);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return pt_refuse(cfg, LWPT_PT_FIELD_PID, -ESRCH);
	err = pt_config_permit_target(cfg, task, &mm);
	if (err)
		goto out_put_task;
	if (cfg->scope == LWPT_PT_SCOPE_THREAD) {
		get_task_struct(task);
		*target = task;
		goto out_mmput;
	}
	/*
	 * Under page-table isolation user mode runs on the user copy of the
	 * PGD and the kernel on its own (PTI_USER_PGTABLE_BIT): one CR3_MATCH
	 * cannot match both, so OS and User together would silently trace
	 * one of them only. Refused: trace one, or use per-thread scope.
	 */
	if (boot_cpu_has(X86_FEATURE_PTI) && (cfg->flags & LWPT_PT_CFG_OS) &&
	    (cfg->flags & LWPT_PT_CFG_USER)) {
		cfg->bad_field = LWPT_PT_FIELD_CR3_FILTER;
		err = -EOPNOTSUPP;
		goto out_mmput;
	}
	/*
	 * SDM 33.2.4.2: CR3_MATCH[63:5] is compared with CR3. Filtering user
	 * mode only, the CR3 user mode runs on (the user copy of the PGD under
	 * page-table isolation); with OS=1 the kernel's PGD. PCID bits are not
	 * predictable (Documentation/pt.rst).
	 */
	*cr3 = ((cfg->flags & LWPT_PT_CFG_OS) ? __pa(mm->pgd) : lwpt_user_cr3(mm)) &
	       IA32_RTIT_CR3_MATCH_CMP_MASK;
	/*
	 * Pinned until the capture ends: after the target's exit or exec its
	 * old PGD stays allocated and matches nobody.
	 */
	mmgrab(mm);
	*cr3_mm = mm;
out_mmput:
	mmput(mm);
out_put_task:
	put_task_struct(task);
	return err;
}
