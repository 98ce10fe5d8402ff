// SPDX-License-Identifier: GPL-2.0
/*
 * Intel Processor Trace through /dev/pt (SDM Vol. 3 chapter 33).
 *
 * One capture at a time, owned by the file that configured it:
 *   CONFIGURE  validates the request against the capabilities decoded once
 *              at load (a whitelist predicate, before any MSR is written),
 *              checks permissions, allocates and zeroes a ToPA buffer per
 *              online CPU (SDM 33.2.7.2);
 *   START      on every CPU: refuse if TraceEn is already set (someone
 *              else's trace), program the output and filter MSRs with
 *              TraceEn=0, then set TraceEn (SDM 33.3);
 *   STOP       clear TraceEn, then read OUTPUT_BASE, OUTPUT_MASK_PTRS and
 *              STATUS (stable once TraceEn is 0, SDM 33.2.8.5);
 *   STATUS     per CPU: IA32_RTIT_STATUS, bytes written, wraps, losses;
 *   RELEASE    continuous mode: the reader's position; restarts a CPU that
 *              waited for room;
 *   mmap       each CPU's buffer, read-only.
 * Closing the file stops and frees the capture. Documentation/pt.rst has
 * the ABI, the modes, the permissions and the limits.
 *
 * Per-CPU state is changed only on its CPU (IPI or PMI) or while no CPU
 * traces (configure, free); pt_lock serialises the control path.
 */
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/cred.h>
#include <linux/sched/coredump.h>
#include <linux/user_namespace.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_arch.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_rtit.h>
#include <lwpt/pt_topa.h>

#include "../lwp/lwp.h"	/* lwpt_dev_ioctl_misc() */
#include "pt.h"

/* Region entries per ToPA table page; the last entry is the END entry. */
#define PT_TOPA_REGIONS_PER_TABLE	(PAGE_SIZE / TOPA_ENTRY_BYTES - 1)
/* Largest region: one buddy block (naturally aligned, SDM 33.2.7.2 2b). */
#define PT_REGION_ORDER_MAX		min_t(unsigned int, MAX_ORDER - 1, \
					      TOPA_SIZE_MAX + 12 - PAGE_SHIFT)

/*
 * SDM 33.2.7.2 "ToPA PMI and Single Output Region ToPA Implementation":
 * without MENTRY the PMI comes before the single region is full.
 */
#define PT_MENTRY0_PMI_EARLY		512u

/**
 * struct pt_buf - the trace buffer of one CPU: regions and ToPA tables
 * @size: bytes, the sum of the regions
 * @nr_regions: output regions
 * @region_order: page order of each region (region i has 4K << order bytes)
 * @region_off: byte offset of each region within the buffer
 * @nr_pages: @size / PAGE_SIZE
 * @pages: every page of the buffer in buffer order (split, for mmap)
 * @nr_tables: ToPA table pages
 * @tables: the table pages; table t holds regions t * 511 ... and an END
 */
struct pt_buf {
	u64 size;
	unsigned int nr_regions;
	u8 *region_order;
	u64 *region_off;
	unsigned long nr_pages;
	struct page **pages;
	unsigned int nr_tables;
	struct page **tables;
};

/**
 * struct pt_cpu - PT state of one CPU
 * @buf: its buffer
 * @configured: @buf is allocated
 * @tracing: TraceEn was set by us and not cleared
 * @busy: START found TraceEn set by another owner
 * @stalled: continuous mode: stopped at a PMI for want of room
 * @in_update: an IPI is changing the RTIT MSRs (the PMI defers)
 * @ctl: IA32_RTIT_CTL with TraceEn=0, as programmed
 * @rtit_status: IA32_RTIT_STATUS as last read
 * @pos: buffer offset of the next byte, as last read
 * @head: bytes written since START
 * @tail: bytes the reader released (continuous mode)
 * @lost: output losses (stalls, STOP reached, operational errors)
 * @pmis: ToPA PMIs handled
 * @err: error of the last IPI operation
 */
struct pt_cpu {
	struct pt_buf buf;
	bool configured;
	bool tracing;
	bool busy;
	bool stalled;
	bool in_update;
	u64 ctl;
	u64 rtit_status;
	u64 pos;
	u64 head;
	u64 tail;
	u64 lost;
	u64 pmis;
	int err;
};

/**
 * struct pt_session - the configured capture
 * @owner: the file that configured it; NULL when none
 * @cfg: the accepted configuration
 * @cr3: CR3_MATCH value for LWPT_PT_CFG_CR3_FILTER
 * @started: between START and STOP
 */
struct pt_session {
	struct file *owner;
	struct lwpt_pt_config cfg;
	u64 cr3;
	bool started;
};

static DEFINE_MUTEX(pt_lock);
static DEFINE_PER_CPU(struct pt_cpu, pt_cpus);
static struct pt_session pt_sess;
static struct pt_cpuid_leaf pt_leaf;
static struct lwpt_pt_caps pt_caps;
static bool pt_present;
static bool pt_pmi_hooked;

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

static bool pt_has(u32 cap)
{
	return pt_caps.caps & cap;
}

/* --- Size-versioned structs (include/uapi/lwpt/pt.h) ------------------- */

/*
 * Copy a size-versioned struct from user space: @usize from its first
 * field, at least @ver0, bytes past @ksize must be zero.
 */
static int pt_copy_in(void *kbuf, size_t ksize, size_t ver0,
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

/* Copy back min(kernel, user) bytes with the size field set to that. */
static int pt_copy_out(void __user *ubuf, void *kbuf, size_t ksize, u32 usize)
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

static void pt_caps_decode(const struct lwpt_caps *caps)
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
	/* MAXPHYADDR bounds ToPA bases (SDM 33.2.7.2, Figure 33-2). */
	if (lwpt_cpuid_has_leaf(caps, PT_CPUID_80000008H)) {
		preempt_disable();
		lwpt_hw_cpuid(PT_CPUID_80000008H, 0, &r);
		preempt_enable();
		pt_caps.maxphyaddr = r.eax & PT_CPUID_80000008H_EAX_MAXPHYADDR_MASK;
	}
	pt_caps.nr_cpus = nr_cpu_ids;
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

static long pt_ioctl_get_caps(void __user *arg)
{
	struct lwpt_pt_caps c;
	u32 usize;
	int err;

	err = pt_copy_in(&c, sizeof(c), LWPT_PT_CAPS_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	c = pt_caps;
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
 * Validate @cfg against the capabilities and build IA32_RTIT_CTL (TraceEn
 * clear). On error cfg->bad_field names the field. No MSR is touched.
 */
static int pt_config_check(struct lwpt_pt_config *cfg, u64 *ctlp)
{
	u64 writable = pt_rtit_ctl_writable(&pt_leaf);
	u64 ctl = IA32_RTIT_CTL_TOPA, bad;
	unsigned int i;

	if (cfg->reserved)
		return pt_refuse(cfg, LWPT_PT_FIELD_RESERVED, -EINVAL);
	if (cfg->flags & ~LWPT_PT_CFG_ALL)
		return pt_refuse(cfg, LWPT_PT_FIELD_FLAGS, -EINVAL);
	if (cfg->mode > LWPT_PT_MODE_CONTINUOUS)
		return pt_refuse(cfg, LWPT_PT_FIELD_MODE, -EINVAL);
	if (cfg->scope > LWPT_PT_SCOPE_THREAD)
		return pt_refuse(cfg, LWPT_PT_FIELD_SCOPE, -EINVAL);
	if (!(cfg->flags & (LWPT_PT_CFG_OS | LWPT_PT_CFG_USER)))
		return pt_refuse(cfg, LWPT_PT_FIELD_USER, -EINVAL);
	if (!pt_has(LWPT_PT_CAP_TOPA))
		return pt_refuse(cfg, LWPT_PT_FIELD_BUFFER_SIZE, -EOPNOTSUPP);

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

	/* Buffer: 4K multiple; one power-of-two region without MENTRY. */
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

	/* The last word: the value must not #GP (SDM 33.2.8.2). */
	if (WARN_ON_ONCE(pt_rtit_ctl_check(&pt_leaf, ctl, &bad) != PT_RTIT_CTL_VALID))
		return pt_refuse(cfg, LWPT_PT_FIELD_FLAGS, -EINVAL);
	*ctlp = ctl;
	return 0;
}

/*
 * The ptrace access rule of PTRACE_MODE_ATTACH_REALCREDS (kernel/ptrace.c,
 * whose ptrace_may_access() modules cannot call): same thread group, or the
 * caller's real UID and GID equal the target's real, effective and saved
 * ones and the target is dumpable, or CAP_SYS_PTRACE over the target. LSM
 * ptrace policies (Yama) are not consulted (Documentation/pt.rst).
 */
static bool pt_may_trace(struct task_struct *task, struct mm_struct *mm)
{
	const struct cred *cred = current_cred(), *tcred;
	struct user_namespace *ns;
	bool same;

	if (same_thread_group(task, current))
		return true;
	rcu_read_lock();
	tcred = __task_cred(task);
	same = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	       uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	       gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	ns = get_user_ns(tcred->user_ns);
	rcu_read_unlock();
	if (!same && !ns_capable(ns, CAP_SYS_PTRACE)) {
		put_user_ns(ns);
		return false;
	}
	put_user_ns(ns);
	if (get_dumpable(mm) != SUID_DUMP_USER &&
	    !ns_capable(mm->user_ns, CAP_SYS_PTRACE))
		return false;
	return true;
}

/*
 * Permissions (Documentation/pt.rst): system-wide or kernel tracing needs
 * CAP_PERFMON (or CAP_SYS_ADMIN); a target process needs ptrace access.
 * Fills @cr3 for the CR3 filter.
 */
static int pt_config_permit(struct lwpt_pt_config *cfg, u64 *cr3)
{
	struct task_struct *task;
	struct mm_struct *mm;
	int err = 0;

	if ((cfg->flags & LWPT_PT_CFG_OS) && !perfmon_capable()) {
		cfg->bad_field = LWPT_PT_FIELD_OS;
		return -EPERM;
	}
	if (cfg->scope == LWPT_PT_SCOPE_CPU && !perfmon_capable()) {
		cfg->bad_field = LWPT_PT_FIELD_SCOPE;
		return -EPERM;
	}
	*cr3 = 0;
	if (cfg->scope != LWPT_PT_SCOPE_THREAD &&
	    !(cfg->flags & LWPT_PT_CFG_CR3_FILTER)) {
		if (cfg->pid) {
			cfg->bad_field = LWPT_PT_FIELD_PID;
			return -EINVAL;
		}
		return 0;
	}
	cfg->bad_field = LWPT_PT_FIELD_PID;
	if (cfg->pid <= 0)
		return -EINVAL;
	task = get_pid_task(find_get_pid(cfg->pid), PIDTYPE_PID);
	if (!task)
		return -ESRCH;
	mm = get_task_mm(task);
	if (!mm) {
		err = -EINVAL;	/* a kernel thread has no user CR3 */
		goto out_put_task;
	}
	if (!pt_may_trace(task, mm)) {
		err = -EPERM;
		goto out_mmput;
	}
	/*
	 * SDM 33.2.4.2: CR3_MATCH[63:5] is compared with CR3. Under page-table
	 * isolation user mode runs on the user copy, one page above the
	 * kernel's PGD (PTI_USER_PGTABLE_BIT); filtering user mode only then
	 * matches that. PCID bits are not predictable (Documentation/pt.rst).
	 */
	*cr3 = __pa(mm->pgd) & IA32_RTIT_CR3_MATCH_CMP_MASK;
#ifdef CONFIG_PAGE_TABLE_ISOLATION
	if (boot_cpu_has(X86_FEATURE_PTI) && !(cfg->flags & LWPT_PT_CFG_OS))
		*cr3 |= BIT(PAGE_SHIFT);
#endif
out_mmput:
	mmput(mm);
out_put_task:
	put_task_struct(task);
	if (!err)
		cfg->bad_field = LWPT_PT_FIELD_NONE;
	return err;
}

/* --- ToPA buffers (SDM 33.2.7.2) ---------------------------------------- */

static void pt_buf_free(struct pt_buf *b)
{
	unsigned long i;

	/* Pages a user mapping still holds stay until it is unmapped. */
	for (i = 0; b->pages && i < b->nr_pages; i++)
		if (b->pages[i])
			__free_page(b->pages[i]);
	for (i = 0; b->tables && i < b->nr_tables; i++)
		if (b->tables[i])
			__free_page(b->tables[i]);
	kvfree(b->pages);
	kvfree(b->tables);
	kvfree(b->region_order);
	kvfree(b->region_off);
	memset(b, 0, sizeof(*b));
}

/* Fill the ToPA tables for @mode (SDM 33.2.7.2, Table 33-3). */
static void pt_buf_write_topa(struct pt_buf *b, u32 mode)
{
	unsigned int r, t, e;
	u64 *tab, flags;

	for (t = 0; t < b->nr_tables; t++) {
		u64 next = page_to_phys(b->tables[(t + 1) % b->nr_tables]);

		tab = page_address(b->tables[t]);
		memset(tab, 0, PAGE_SIZE);
		for (e = 0; e < PT_TOPA_REGIONS_PER_TABLE; e++) {
			r = t * PT_TOPA_REGIONS_PER_TABLE + e;
			if (r >= b->nr_regions)
				break;
			flags = 0;
			if (mode == LWPT_PT_MODE_CONTINUOUS)
				flags |= TOPA_ENTRY_INT;
			if (r == b->nr_regions - 1) {
				/* INT counts wraps; STOP ends stop mode. */
				if (mode == LWPT_PT_MODE_WRAP)
					flags |= TOPA_ENTRY_INT;
				if (mode == LWPT_PT_MODE_STOP)
					flags |= TOPA_ENTRY_STOP;
			}
			tab[e] = topa_entry_make(page_to_phys(b->pages[b->region_off[r] >>
								    PAGE_SHIFT]),
						 b->region_order[r] + PAGE_SHIFT - 12,
						 flags);
		}
		/*
		 * END to the next table, the last one back to the first: a
		 * ring. Without MENTRY entry 1 must be this END with the
		 * table's own base (SDM 33.2.7.2, rule 4c).
		 */
		tab[e] = topa_entry_make(next, 0, TOPA_ENTRY_END);
	}
}

/* Allocate @size bytes of zeroed regions on @node, largest blocks first. */
static int pt_buf_alloc(struct pt_buf *b, u64 size, u64 region_max, int node)
{
	unsigned int max_order = PT_REGION_ORDER_MAX, order;
	unsigned long done = 0, i;
	struct page *page;

	if (region_max)
		max_order = min_t(unsigned int, max_order,
				  ilog2(region_max) - PAGE_SHIFT);
	b->size = size;
	b->nr_pages = size >> PAGE_SHIFT;
	b->pages = kvcalloc(b->nr_pages, sizeof(*b->pages), GFP_KERNEL);
	/* At most one region per page. */
	b->region_order = kvcalloc(b->nr_pages, sizeof(*b->region_order),
				   GFP_KERNEL);
	b->region_off = kvcalloc(b->nr_pages, sizeof(*b->region_off), GFP_KERNEL);
	if (!b->pages || !b->region_order || !b->region_off)
		goto err_free;

	while (done < b->nr_pages) {
		order = min_t(unsigned int, max_order, ilog2(b->nr_pages - done));
		/* Regions are naturally aligned: keep offsets aligned too. */
		if (done)
			order = min_t(unsigned int, order, __ffs(done));
		for (;;) {
			page = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO |
						__GFP_NOWARN | __GFP_NORETRY, order);
			if (page || !order)
				break;
			order--;
		}
		if (!page)
			goto err_free;
		if (!pt_has(LWPT_PT_CAP_MENTRY) && (1UL << order) != b->nr_pages) {
			/* One region only (SDM 33.2.7.2 MENTRY=0). */
			__free_pages(page, order);
			goto err_free;
		}
		split_page(page, order);
		b->region_order[b->nr_regions] = order;
		b->region_off[b->nr_regions] = (u64)done << PAGE_SHIFT;
		b->nr_regions++;
		for (i = 0; i < (1UL << order); i++)
			b->pages[done + i] = page + i;
		done += 1UL << order;
	}

	b->nr_tables = DIV_ROUND_UP(b->nr_regions, PT_TOPA_REGIONS_PER_TABLE);
	b->tables = kvcalloc(b->nr_tables, sizeof(*b->tables), GFP_KERNEL);
	if (!b->tables)
		goto err_free;
	for (i = 0; i < b->nr_tables; i++) {
		b->tables[i] = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO, 0);
		if (!b->tables[i])
			goto err_free;
	}
	return 0;

err_free:
	pt_buf_free(b);
	return -ENOMEM;
}

/* Buffer offset of the processor's output pointers; -1 if not ours. */
static s64 pt_buf_pos(const struct pt_buf *b, u64 base, u64 mask_ptrs)
{
	u64 entry = (mask_ptrs & IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_MASK) >>
		    IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_SHIFT;
	u64 off = mask_ptrs >> IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT;
	unsigned int t;
	u64 r;

	for (t = 0; t < b->nr_tables; t++) {
		if (page_to_phys(b->tables[t]) != base)
			continue;
		r = (u64)t * PT_TOPA_REGIONS_PER_TABLE + entry;
		if (entry >= PT_TOPA_REGIONS_PER_TABLE || r >= b->nr_regions)
			return -1;
		return b->region_off[r] + off;
	}
	return -1;
}

/* The region of the buffer that holds byte @pos (pos == size: the last). */
static unsigned int pt_buf_region(const struct pt_buf *b, u64 pos)
{
	unsigned int r;

	for (r = 0; r + 1 < b->nr_regions && b->region_off[r + 1] <= pos; r++)
		;
	return r;
}

/* --- Per-CPU MSR programming (SDM 33.3), on the CPU itself -------------- */

/* Read the output MSRs and STATUS (TraceEn must be 0) and account. */
static void pt_cpu_read_out(struct pt_cpu *pc, bool pmi)
{
	u64 base = 0, mask = 0, delta;
	s64 pos;

	if (lwpt_hw_rdmsr(IA32_RTIT_OUTPUT_BASE, &base) ||
	    lwpt_hw_rdmsr(IA32_RTIT_OUTPUT_MASK_PTRS, &mask) ||
	    lwpt_hw_rdmsr(IA32_RTIT_STATUS, &pc->rtit_status)) {
		pc->err = -EIO;
		return;
	}
	pos = pt_buf_pos(&pc->buf, base, mask);
	if (pos < 0) {
		pc->err = -EIO;
		return;
	}
	/* pos == size: a filled STOP region (OutputOffset = its size). */
	delta = (u64)pos >= pc->pos ? pos - pc->pos : pos + pc->buf.size - pc->pos;
	/*
	 * With MENTRY a PMI means the output crossed the end of an INT region
	 * since the last read. Back in the same region (the only one, or a
	 * lap of the ring) and not behind: a whole lap, plus what the
	 * processor wrote after the PMI was raised (PMI skid, SDM 33.2.7.2
	 * "ToPA PMI"). Without MENTRY the PMI comes before the single region
	 * is full and the pointers alone tell the wrap.
	 */
	if (pmi && pt_has(LWPT_PT_CAP_MENTRY) && (u64)pos >= pc->pos &&
	    pt_buf_region(&pc->buf, pos) == pt_buf_region(&pc->buf, pc->pos))
		delta += pc->buf.size;
	pc->head += delta;
	pc->pos = pos;
	/*
	 * Continuous mode without MENTRY: the single region cannot be gated
	 * (its PMI comes just before it wraps), so an overrun is detected
	 * instead: the reader's oldest byte moves to head - size.
	 */
	if (pt_sess.cfg.mode == LWPT_PT_MODE_CONTINUOUS &&
	    pc->head - pc->tail > pc->buf.size) {
		pc->tail = pc->head - pc->buf.size;
		pc->lost++;
	}
	if (pc->rtit_status & (IA32_RTIT_STATUS_ERROR | IA32_RTIT_STATUS_STOPPED))
		pc->lost++;
}

/* Clear TraceEn (SDM 33.3: first), then read what it wrote. */
static void pt_cpu_pause(struct pt_cpu *pc, bool pmi)
{
	if (lwpt_hw_wrmsr(IA32_RTIT_CTL, pc->ctl))
		pc->err = -EIO;
	pt_cpu_read_out(pc, pmi);
}

static void pt_cpu_resume(struct pt_cpu *pc)
{
	if (lwpt_hw_wrmsr(IA32_RTIT_CTL, pc->ctl | IA32_RTIT_CTL_TRACEEN)) {
		pc->err = -EIO;
		pc->tracing = false;
	}
}

/*
 * Continuous mode: is there room for what the processor writes until the
 * next PMI, the rest of the current region? Without MENTRY the answer is
 * always yes: see pt_cpu_read_out() for how an overrun is counted.
 */
static bool pt_cpu_room(const struct pt_cpu *pc)
{
	const struct pt_buf *b = &pc->buf;
	u64 used = pc->head - pc->tail, end;
	unsigned int r;

	if (!pt_has(LWPT_PT_CAP_MENTRY))
		return true;
	r = pt_buf_region(b, pc->pos);
	end = b->region_off[r] + (PAGE_SIZE << b->region_order[r]);
	return used + (end - pc->pos) <= b->size;
}

static void pt_cpu_start(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	u64 ctl = 0;
	unsigned int n;

	pc->err = 0;
	if (!pc->configured)
		return;
	WRITE_ONCE(pc->in_update, true);
	barrier();	/* in_update before any MSR access; the PMI reads it */
	/* Someone else's trace (firmware, perf, a debugger): never take over. */
	if (lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl)) {
		pc->err = -EIO;
		goto out;
	}
	if (ctl & IA32_RTIT_CTL_TRACEEN) {
		pc->busy = true;
		pc->err = -EBUSY;
		goto out;
	}
	/* Configure with TraceEn=0 (SDM 33.3, 33.2.8): output, filters, CTL. */
	if (lwpt_hw_wrmsr(IA32_RTIT_CTL, pc->ctl) ||
	    lwpt_hw_wrmsr(IA32_RTIT_STATUS, 0) ||
	    lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_BASE,
			  page_to_phys(pc->buf.tables[0])) ||
	    lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_MASK_PTRS,
			  IA32_RTIT_OUTPUT_MASK_PTRS_LOWERMASK)) {
		pc->err = -EIO;
		goto out;
	}
	if ((pt_sess.cfg.flags & LWPT_PT_CFG_CR3_FILTER) &&
	    lwpt_hw_wrmsr(IA32_RTIT_CR3_MATCH, pt_sess.cr3)) {
		pc->err = -EIO;
		goto out;
	}
	for (n = 0; n < pt_caps.nr_ranges; n++) {
		const struct lwpt_pt_addr_range *r = &pt_sess.cfg.addr[n];

		if (r->cfg == LWPT_PT_ADDR_UNUSED)
			continue;
		if (lwpt_hw_wrmsr(IA32_RTIT_ADDRn_A(n), r->a) ||
		    lwpt_hw_wrmsr(IA32_RTIT_ADDRn_B(n), r->b)) {
			pc->err = -EIO;
			goto out;
		}
	}
	pc->pos = 0;
	pc->head = 0;
	pc->tail = 0;
	pc->lost = 0;
	pc->pmis = 0;
	pc->stalled = false;
	pc->rtit_status = 0;
	pc->tracing = true;
	pt_cpu_resume(pc);
out:
	barrier();
	WRITE_ONCE(pc->in_update, false);
}

static void pt_cpu_stop(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);

	pc->err = 0;
	WRITE_ONCE(pc->in_update, true);
	barrier();	/* pairs with the READ_ONCE() in pt_pmi() */
	if (pc->tracing) {
		pt_cpu_pause(pc, false);
		pc->tracing = false;
	} else if (pc->stalled) {
		pc->stalled = false;
	}
	barrier();
	WRITE_ONCE(pc->in_update, false);
}

/* Status: read precise pointers (TraceEn off for a moment if tracing). */
static void pt_cpu_sample(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);

	pc->err = 0;
	WRITE_ONCE(pc->in_update, true);
	barrier();
	if (pc->tracing) {
		pt_cpu_pause(pc, false);
		if (pc->rtit_status & (IA32_RTIT_STATUS_ERROR | IA32_RTIT_STATUS_STOPPED))
			pc->tracing = false;
		else
			pt_cpu_resume(pc);
	}
	barrier();
	WRITE_ONCE(pc->in_update, false);
}

/* Continuous mode: the reader made room; restart a stalled CPU. */
static void pt_cpu_release(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);

	WRITE_ONCE(pc->in_update, true);
	barrier();
	if (pc->stalled && pt_sess.started && pt_cpu_room(pc)) {
		pc->stalled = false;
		pc->tracing = true;
		pt_cpu_resume(pc);
	}
	barrier();
	WRITE_ONCE(pc->in_update, false);
}

/*
 * The ToPA PMI (SDM 33.2.7.2, Table 33-4), in NMI context natively. Ours
 * only if IA32_PERF_GLOBAL_STATUS bit 55 is set and this CPU traces for
 * us; anything else is left to perf's handler.
 */
static bool pt_pmi(void *data)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	u64 gs;

	if (!READ_ONCE(pc->tracing))
		return false;
	if (lwpt_hw_rdmsr(IA32_PERF_GLOBAL_STATUS, &gs) ||
	    !(gs & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI))
		return false;
	if (READ_ONCE(pc->in_update)) {
		/* The IPI reads the pointers itself; just acknowledge. */
		lwpt_hw_wrmsr(IA32_PERF_GLOBAL_STATUS_RESET,
			      IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
		return true;
	}
	/* Table 33-4: clear TraceEn, handle, clear the PMI, re-enable. */
	pt_cpu_pause(pc, true);
	pc->pmis++;
	lwpt_hw_wrmsr(IA32_PERF_GLOBAL_STATUS_RESET,
		      IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	if (pt_has(LWPT_PT_CAP_PSB_PMI_PRESERVE) &&
	    (pc->rtit_status & IA32_RTIT_STATUS_PENDTOPAPMI))
		lwpt_hw_wrmsr(IA32_RTIT_STATUS,
			      pc->rtit_status & ~(IA32_RTIT_STATUS_PENDTOPAPMI |
						  IA32_RTIT_STATUS_READ_ONLY));
	if (pc->err || (pc->rtit_status & (IA32_RTIT_STATUS_ERROR |
					   IA32_RTIT_STATUS_STOPPED))) {
		pc->tracing = false;
		return true;
	}
	if (pt_sess.cfg.mode == LWPT_PT_MODE_CONTINUOUS && !pt_cpu_room(pc)) {
		/* Nothing is overwritten: wait for the reader (RELEASE). */
		pc->stalled = true;
		pc->tracing = false;
		pc->lost++;
		return true;
	}
	pt_cpu_resume(pc);
	return true;
}

/* --- The capture ---------------------------------------------------------- */

static void pt_sess_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

		pt_buf_free(&pc->buf);
		memset(pc, 0, sizeof(*pc));
	}
	memset(&pt_sess, 0, sizeof(pt_sess));
}

/* Stop every CPU; pt_lock held. */
static void pt_sess_stop(void)
{
	if (!pt_sess.started)
		return;
	cpus_read_lock();
	on_each_cpu(pt_cpu_stop, NULL, 1);
	cpus_read_unlock();
	pt_sess.started = false;
}

static long pt_ioctl_configure(struct file *file, void __user *arg)
{
	struct lwpt_pt_config cfg;
	u64 ctl, cr3 = 0;
	u32 usize;
	int cpu, err;

	err = pt_copy_in(&cfg, sizeof(cfg), LWPT_PT_CONFIG_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	cfg.bad_field = LWPT_PT_FIELD_NONE;
	err = pt_config_check(&cfg, &ctl);
	if (!err)
		err = pt_config_permit(&cfg, &cr3);
	if (!err && cfg.scope == LWPT_PT_SCOPE_THREAD) {
		/* Per-thread capture is not implemented yet (pt.rst). */
		cfg.bad_field = LWPT_PT_FIELD_SCOPE;
		err = -EOPNOTSUPP;
	}
	if (err)
		goto out_report;

	mutex_lock(&pt_lock);
	if (pt_sess.owner && pt_sess.owner != file) {
		err = -EBUSY;
		goto out_unlock;
	}
	if (pt_sess.started) {
		err = -EBUSY;
		goto out_unlock;
	}
	pt_sess_free();
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

		err = pt_buf_alloc(&pc->buf, cfg.buffer_size, cfg.region_size,
				   cpu_to_node(cpu));
		if (err)
			break;
		pt_buf_write_topa(&pc->buf, cfg.mode);
		pc->ctl = ctl;
		pc->configured = true;
	}
	cpus_read_unlock();
	if (err) {
		pt_sess_free();
		cfg.bad_field = LWPT_PT_FIELD_BUFFER_SIZE;
		goto out_unlock;
	}
	pt_sess.owner = file;
	pt_sess.cfg = cfg;
	pt_sess.cr3 = cr3;
out_unlock:
	mutex_unlock(&pt_lock);
out_report:
	/* Write back bad_field (and the size) whatever the outcome. */
	if (pt_copy_out(arg, &cfg, sizeof(cfg), usize))
		return -EFAULT;
	return err;
}

static long pt_ioctl_start(struct file *file)
{
	int cpu, err = 0;

	mutex_lock(&pt_lock);
	if (pt_sess.owner != file) {
		err = pt_sess.owner ? -EBUSY : -ENODATA;
		goto out_unlock;
	}
	if (pt_sess.started) {
		err = -EBUSY;
		goto out_unlock;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

		if (!pc->configured)
			continue;
		/* Zero again: user space sees no data of an earlier capture. */
		if (pc->head) {
			unsigned long i;

			for (i = 0; i < pc->buf.nr_pages; i++)
				clear_highpage(pc->buf.pages[i]);
		}
		smp_call_function_single(cpu, pt_cpu_start, NULL, 1);
		if (pc->err) {
			err = pc->err;
			break;
		}
	}
	pt_sess.started = true;
	cpus_read_unlock();
	if (err)
		pt_sess_stop();
out_unlock:
	mutex_unlock(&pt_lock);
	return err;
}

static long pt_ioctl_stop(struct file *file)
{
	int err = 0;

	mutex_lock(&pt_lock);
	if (pt_sess.owner != file)
		err = pt_sess.owner ? -EBUSY : -ENODATA;
	else
		pt_sess_stop();
	mutex_unlock(&pt_lock);
	return err;
}

static long pt_ioctl_status(struct file *file, void __user *arg)
{
	struct lwpt_pt_status st;
	struct pt_cpu *pc;
	u32 usize, cpu;
	int err;

	err = pt_copy_in(&st, sizeof(st), LWPT_PT_STATUS_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (st.flags || st.reserved || st.cpu >= nr_cpu_ids)
		return -EINVAL;
	cpu = st.cpu;
	mutex_lock(&pt_lock);
	if (pt_sess.owner != file) {
		err = pt_sess.owner ? -EBUSY : -ENODATA;
		goto out_unlock;
	}
	pc = per_cpu_ptr(&pt_cpus, cpu);
	if (pc->configured && pt_sess.started && cpu_online(cpu))
		smp_call_function_single(cpu, pt_cpu_sample, NULL, 1);
	memset(&st, 0, sizeof(st));
	st.cpu = cpu;
	st.flags = (pc->configured ? LWPT_PT_ST_CONFIGURED : 0) |
		   (pc->tracing ? LWPT_PT_ST_TRACING : 0) |
		   (pc->stalled ? LWPT_PT_ST_STALLED : 0) |
		   (pc->busy ? LWPT_PT_ST_BUSY : 0) |
		   (pc->head > pc->buf.size ? LWPT_PT_ST_WRAPPED : 0);
	st.rtit_status = pc->rtit_status;
	st.rtit_ctl = pc->ctl | (pc->tracing ? IA32_RTIT_CTL_TRACEEN : 0);
	st.head = pc->head;
	st.offset = pc->pos;
	st.wraps = pc->buf.size ? pc->head / pc->buf.size : 0;
	if (st.wraps && pc->pos == 0 && pc->head % pc->buf.size == 0)
		st.wraps--;	/* exactly full, not yet overwritten */
	st.lost = pc->lost;
	st.buffer_size = pc->buf.size;
	st.mmap_offset = pc->configured ? pt_sess.cfg.buffer_size * cpu : 0;
	st.pmis = pc->pmis;
out_unlock:
	mutex_unlock(&pt_lock);
	if (err)
		return err;
	return pt_copy_out(arg, &st, sizeof(st), usize);
}

static long pt_ioctl_release(struct file *file, void __user *arg)
{
	struct lwpt_pt_release rel;
	struct pt_cpu *pc;
	u32 usize;
	int err;

	err = pt_copy_in(&rel, sizeof(rel), LWPT_PT_RELEASE_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (rel.cpu >= nr_cpu_ids)
		return -EINVAL;
	mutex_lock(&pt_lock);
	if (pt_sess.owner != file) {
		err = pt_sess.owner ? -EBUSY : -ENODATA;
		goto out_unlock;
	}
	pc = per_cpu_ptr(&pt_cpus, rel.cpu);
	if (!pc->configured || pt_sess.cfg.mode != LWPT_PT_MODE_CONTINUOUS ||
	    rel.tail > READ_ONCE(pc->head)) {
		err = -EINVAL;
		goto out_unlock;
	}
	/*
	 * Only this CPU's PMI and IPIs use it; the IPI orders the store. A
	 * tail behind the overrun point (pt_cpu_read_out()) is ignored.
	 */
	if (rel.tail > READ_ONCE(pc->tail))
		WRITE_ONCE(pc->tail, rel.tail);
	if (pt_sess.started && cpu_online(rel.cpu))
		smp_call_function_single(rel.cpu, pt_cpu_release, NULL, 1);
out_unlock:
	mutex_unlock(&pt_lock);
	return err;
}

static long pt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case LWPT_PT_IOC_GET_CAPS:
		return pt_ioctl_get_caps(uarg);
	case LWPT_PT_IOC_CONFIGURE:
		return pt_ioctl_configure(file, uarg);
	case LWPT_PT_IOC_START:
		return pt_ioctl_start(file);
	case LWPT_PT_IOC_STOP:
		return pt_ioctl_stop(file);
	case LWPT_PT_IOC_GET_STATUS:
		return pt_ioctl_status(file, uarg);
	case LWPT_PT_IOC_RELEASE:
		return pt_ioctl_release(file, uarg);
	default:
		/* LWPT_IOC_GET_ABI_VERSION and -ENOTTY for the rest. */
		return lwpt_dev_ioctl_misc(file->private_data, cmd, arg);
	}
}

/*
 * mmap: offset cpu * buffer_size maps that CPU's buffer, read-only. The
 * pages hold their own references, so a mapping outlives the capture.
 */
static int pt_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long npages = vma_pages(vma), i, first;
	struct pt_cpu *pc;
	u64 stride, cpu;
	int err = 0;

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	mutex_lock(&pt_lock);
	if (pt_sess.owner != file) {
		err = pt_sess.owner ? -EBUSY : -ENODATA;
		goto out_unlock;
	}
	stride = pt_sess.cfg.buffer_size >> PAGE_SHIFT;
	cpu = vma->vm_pgoff / stride;
	first = vma->vm_pgoff % stride;
	if (cpu >= nr_cpu_ids || !per_cpu_ptr(&pt_cpus, cpu)->configured ||
	    npages > stride - first) {
		err = -EINVAL;
		goto out_unlock;
	}
	pc = per_cpu_ptr(&pt_cpus, cpu);
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	for (i = 0; i < npages && !err; i++)
		err = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     pc->buf.pages[first + i]);
out_unlock:
	mutex_unlock(&pt_lock);
	return err;
}

static int pt_release(struct inode *inode, struct file *file)
{
	mutex_lock(&pt_lock);
	if (pt_sess.owner == file) {
		pt_sess_stop();
		pt_sess_free();
	}
	mutex_unlock(&pt_lock);
	return 0;
}

const struct file_operations pt_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = pt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pt_mmap,
	.release = pt_release,
	.llseek = noop_llseek,
};

int pt_init(const struct lwpt_caps *caps)
{
	int err;

	if (!caps->pt)
		return 0;
	pt_caps_decode(caps);
	err = lwpt_hw_pmi_register(pt_pmi, NULL);
	if (err)
		return err;
	pt_pmi_hooked = true;
	pt_present = true;
	return 0;
}

void pt_exit(void)
{
	if (pt_pmi_hooked)
		lwpt_hw_pmi_unregister();
	pt_pmi_hooked = false;
	pt_present = false;
}
