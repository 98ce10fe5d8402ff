// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt_sim.ko: the branch-recording model (model/bts/bts_model.h) on every
 * CPU (issue 37).
 *
 * Each CPU has a struct bts_model_cpu. The hardware layer (hw_sim.c) sends
 * the branch-recording MSRs here: IA32_DEBUGCTL (also to the PT model, which
 * holds a copy for its PT/LBR rule), IA32_DS_AREA, the LBR stack, TOS,
 * MSR_LBR_SELECT, the LER, IA32_MISC_ENABLE, IA32_PERF_CAPABILITIES and the
 * IA32_PERF_GLOBAL_* MSRs. The model's #GP becomes -EIO and a spec
 * violation.
 *
 * The processor stores BTS records through linear addresses (SDM 17.4.9):
 * here those of the current context, kernel or user, copied without
 * faulting (a store that finds nothing mapped is the model's
 * BTS_VIOL_DS_ACCESS, as on a kernel with PTI that does not map the buffer
 * in user mode, which is why perf's intel_bts is disabled there).
 *
 * The execution follower (sim_step.c) hands every user-mode instruction of a
 * thread to this CPU's model while IA32_DEBUGCTL records branches
 * (sim_bts_follow()); bts_step() turns it into branch events. A threshold
 * interrupt the model delivers (bts_pmi_skid branches after the store that
 * signalled it) reaches the PMI consumers once the model returns, as an
 * NMI between instructions (SDM 17.4.9.3: "the processor generates a
 * DS interrupt").
 *
 * Every call runs on its own CPU with interrupts off.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <asm/msr.h>
#include <asm/pgtable.h>

#include <lwpt/bts_arch.h>
#include <lwpt/lbr_arch.h>

#include "model/bts/bts_model.h"
#include "model/bts/bts_step.h"
#include "model/pt/pt_trace.h"
#include "sim.h"
#include "bts_sim.h"

/**
 * struct sim_bts_state - what the layer keeps beside one CPU's model
 * @pmi_pending: the model signalled its threshold interrupt inside a call;
 *	delivered when the call returns
 * @in_pmi: the PMI handlers run on this CPU (a PMI they cause waits)
 */
struct sim_bts_state {
	bool pmi_pending;
	bool in_pmi;
};

/*
 * The skid of the BTS threshold PMI (bts_model_set_pmi_skid()): it reaches
 * the CPU at the n-th branch of the traced code after the store that
 * reached the threshold, or right after the write to IA32_DEBUGCTL or
 * IA32_DS_AREA that turned BTS off or away first (the late PMI). Read at
 * every followed instruction. Documentation/bts.rst, "The threshold
 * interrupt".
 */
static unsigned int bts_pmi_skid = 3;
module_param(bts_pmi_skid, uint, 0644);
MODULE_PARM_DESC(bts_pmi_skid,
		 "Branches between the BTS store that reaches the DS interrupt threshold and its PMI (default 3)");

static DEFINE_PER_CPU(struct bts_model_cpu, sim_bts_cpus);
static DEFINE_PER_CPU(struct sim_bts_state, sim_bts_states);
static struct bts_step_config sim_bts_cfg;
static struct bts_model_profile sim_bts_prof;
static bool sim_bts_on;

bool sim_bts_active(void)
{
	return READ_ONCE(sim_bts_on);
}

/* Linear addresses of the current context, without faulting. */
static int sim_bts_read_lin(void *ctx, u64 la, void *buf, size_t len)
{
	if (la >= TASK_SIZE_MAX)
		return copy_from_kernel_nofault(buf, (const void *)(unsigned long)la,
						len) ? -EFAULT : 0;
	if (!current->mm)
		return -EFAULT;
	return copy_from_user_nofault(buf, (const void __user *)(unsigned long)la,
				      len) ? -EFAULT : 0;
}

/*
 * A store to a kernel linear address that may have nothing mapped
 * (copy_to_kernel_nofault() is not exported): byte by byte, each a
 * __put_kernel_nofault() that the exception table recovers.
 */
static int sim_bts_put_kernel(u64 la, const void *buf, size_t len)
{
	const u8 *src = buf;
	u8 *dst = (u8 *)(unsigned long)la;
	int err = 0;

	pagefault_disable();
	for (; len; len--, dst++, src++)
		__put_kernel_nofault(dst, src, u8, fault);
	goto done;
fault:
	err = -EFAULT;
done:
	pagefault_enable();
	return err;
}

static int sim_bts_write_lin(void *ctx, u64 la, const void *buf, size_t len)
{
	if (la >= TASK_SIZE_MAX)
		return sim_bts_put_kernel(la, buf, len);
	if (!current->mm)
		return -EFAULT;
	return copy_to_user_nofault((void __user *)(unsigned long)la, buf,
				    len) ? -EFAULT : 0;
}

/* More PMIs in a row than this: a handler that re-raises it every time. */
#define SIM_BTS_PMI_STORM	64

/* Deliver a pended threshold PMI, never nested (the LVT entry's mask). */
static void sim_bts_deliver_pmi(struct sim_bts_state *s)
{
	unsigned int n = 0;

	if (s->in_pmi)
		return;
	while (s->pmi_pending) {
		s->pmi_pending = false;
		if (++n > SIM_BTS_PMI_STORM) {
			sim_violation("BTS threshold PMI raised again by every handler (storm)");
			break;
		}
		s->in_pmi = true;
		hw_sim_raise_pmi();
		s->in_pmi = false;
	}
}

static void sim_bts_pmi(void *ctx, struct bts_model_cpu *cpu)
{
	per_cpu_ptr(&sim_bts_states, cpu->id)->pmi_pending = true;
}

static void sim_bts_log(void *ctx, struct bts_model_cpu *cpu,
			const struct bts_model_violation *v)
{
	sim_violation(v->what);
	pr_notice_ratelimited("BTS cpu%d: %s (%s) msr %#x value %#llx\n",
			      cpu->id, bts_model_violation_str(v->kind),
			      v->section, v->msr, (unsigned long long)v->value);
}

static const struct bts_model_ops sim_bts_ops = {
	.read_lin = sim_bts_read_lin,
	.write_lin = sim_bts_write_lin,
	.pmi = sim_bts_pmi,
	.log = sim_bts_log,
};

static int sim_bts_err(int err)
{
	switch (err) {
	case BTS_MODEL_OK:
		return 0;
	case BTS_MODEL_ENOMSR:
		return -ENOENT;
	default:
		return -EIO;
	}
}

int sim_bts_rdmsr(u32 msr, u64 *val)
{
	unsigned long flags;
	int err;

	if (!sim_bts_active())
		return -ENOENT;
	local_irq_save(flags);
	err = bts_model_rdmsr(this_cpu_ptr(&sim_bts_cpus), msr, val);
	local_irq_restore(flags);
	return sim_bts_err(err);
}

int sim_bts_wrmsr(u32 msr, u64 val)
{
	unsigned long flags;
	int err;

	if (!sim_bts_active())
		return -ENOENT;
	local_irq_save(flags);
	err = bts_model_wrmsr(this_cpu_ptr(&sim_bts_cpus), msr, val);
	sim_bts_deliver_pmi(this_cpu_ptr(&sim_bts_states));
	local_irq_restore(flags);
	return sim_bts_err(err);
}

void sim_bts_pt_trace_en(bool on)
{
	unsigned long flags;

	if (!sim_bts_active())
		return;
	local_irq_save(flags);
	bts_model_set_pt_trace_en(this_cpu_ptr(&sim_bts_cpus), on);
	local_irq_restore(flags);
}

bool sim_bts_follow(u64 cr3)
{
	const struct bts_model_cpu *c = this_cpu_ptr(&sim_bts_cpus);
	u64 want = IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS;

	if (!sim_bts_active())
		return false;
	return (c->debugctl & want) == want || (c->debugctl & IA32_DEBUGCTL_LBR);
}

void sim_bts_step(const struct pt_trace_step *step)
{
	struct bts_model_cpu *c = this_cpu_ptr(&sim_bts_cpus);
	struct bts_step s = {
		.ip = step->ip,
		.insn_size = step->insn_size,
		.cpl = step->cpl,
		.mode = step->mode,
		.next_ip = step->next_ip,
	};

	if (!sim_bts_follow(0))
		return;
	bts_model_set_pmi_skid(c, min(READ_ONCE(bts_pmi_skid), 4096u));
	memcpy(s.insn, step->insn, sizeof(s.insn));
	bts_step(c, &sim_bts_cfg, &s);
	sim_bts_deliver_pmi(this_cpu_ptr(&sim_bts_states));
}

void sim_bts_resume(u64 ip, bool sysret)
{
	struct bts_model_cpu *c = this_cpu_ptr(&sim_bts_cpus);

	if (!sim_bts_follow(0))
		return;
	bts_model_set_pmi_skid(c, min(READ_ONCE(bts_pmi_skid), 4096u));
	bts_step_resume(c, &sim_bts_cfg, ip, sysret);
	sim_bts_deliver_pmi(this_cpu_ptr(&sim_bts_states));
}

/* debugfs lwpt_sim/bts_msrs: each CPU's registers and counters now. */
static int sim_bts_msrs_show(struct seq_file *m, void *v)
{
	int cpu;

	for_each_online_cpu(cpu) {
		const struct bts_model_cpu *c = per_cpu_ptr(&sim_bts_cpus, cpu);
		const struct bts_model_stats *s = bts_model_get_stats(c);

		/* A racy snapshot is fine for a diagnostic file. */
		seq_printf(m, "cpu%d debugctl=%#llx ds_area=%#llx tos=%u violations=%llu branches=%llu bts_records=%llu bts_cpl_skipped=%llu bts_lost=%llu bts_wraps=%llu bts_pmis=%llu lbr_records=%llu freezes=%llu\n",
			   cpu, c->debugctl, c->ds_area, c->tos, s->violations,
			   s->branches, s->bts_records, s->bts_cpl_skipped,
			   s->bts_lost, s->bts_wraps, s->bts_pmis,
			   s->lbr_records, s->freezes);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_bts_msrs);

/*
 * debugfs lwpt_sim/bts_perf: perf as /dev/bts meets it, on every online CPU
 * by IPI as perf's wrmsr_on_cpu(), at any time: before a capture or in the
 * middle of one. Written:
 *   "ds"  reserve_ds_buffers() ran (perf's first x86 event):
 *         init_debug_store_on_cpu() points IA32_DS_AREA at perf's DS area
 *         of the CPU, whose BTS fields alloc_bts_buffer() set (its BTS
 *         buffer of BTS_BUFFER_SIZE, the index at the base, the threshold a
 *         sixteenth before the maximum), PEBS fields 0;
 *   "lbr" perf's LBR user (or a debugger) set IA32_DEBUGCTL.LBR;
 *   "off" both gone: fini_debug_store_on_cpu() wrote IA32_DS_AREA 0 (its
 *         buffers stay allocated here: a BTS store into them later is
 *         still seen), IA32_DEBUGCTL.LBR clear.
 * Read: per online CPU, what perf last wrote to IA32_DS_AREA (perf_ds,
 * 0 before "ds"), the MSR now (ds_area), whether perf's DS area holds what
 * perf wrote there but for the BTS index (intact), and the records
 * somebody else's BTS stored into perf's buffer (bts_records).
 */
#define SIM_BTS_PERF_BUFFER	(PAGE_SIZE << 4)	/* perf's BTS_BUFFER_SIZE */

/**
 * struct sim_bts_perf - perf's DS area of one CPU
 * @area: the DS management area
 * @buf: its BTS buffer (SIM_BTS_PERF_BUFFER bytes), freed at module exit
 * @wrote: what perf last wrote to IA32_DS_AREA here
 */
struct sim_bts_perf {
	u8 area[256] __aligned(64);
	u8 *buf;
	u64 wrote;
};

static DEFINE_PER_CPU(struct sim_bts_perf, sim_bts_perfs);
static DEFINE_MUTEX(sim_bts_perf_lock);	/* writers of bts_perf */

/* alloc_bts_buffer()'s fields. */
static void sim_bts_perf_fields(const struct sim_bts_perf *p, u64 *base,
				u64 *max, u64 *thresh)
{
	u64 n = SIM_BTS_PERF_BUFFER / BTS_RECORD_SIZE;

	*base = (unsigned long)p->buf;
	*max = *base + n * BTS_RECORD_SIZE;
	*thresh = *max - (n / 16) * BTS_RECORD_SIZE;
}

/* A field of perf's DS area (the model's stores may race). */
static u64 sim_bts_perf_get(const u8 *area, unsigned int off)
{
	return READ_ONCE(*(const u64 *)(area + off));
}

static void sim_bts_perf_put(u8 *area, unsigned int off, u64 val)
{
	WRITE_ONCE(*(u64 *)(area + off), val);
}

static void sim_bts_perf_cpu(void *arg)
{
	struct bts_model_cpu *c = this_cpu_ptr(&sim_bts_cpus);
	struct sim_bts_perf *p = this_cpu_ptr(&sim_bts_perfs);
	long what = (long)arg;
	unsigned long flags;
	u64 base, max, thresh;

	local_irq_save(flags);
	if (what == 1) {
		sim_bts_perf_fields(p, &base, &max, &thresh);
		memset(p->area, 0, sizeof(p->area));
		sim_bts_perf_put(p->area, DS_BTS_BUFFER_BASE, base);
		sim_bts_perf_put(p->area, DS_BTS_INDEX, base);
		sim_bts_perf_put(p->area, DS_BTS_ABSOLUTE_MAXIMUM, max);
		sim_bts_perf_put(p->area, DS_BTS_INTERRUPT_THRESHOLD, thresh);
		p->wrote = (unsigned long)p->area;
		bts_model_wrmsr(c, IA32_DS_AREA, p->wrote);
	} else if (what == 2) {
		bts_model_wrmsr(c, IA32_DEBUGCTL, c->debugctl | IA32_DEBUGCTL_LBR);
	} else {
		p->wrote = 0;
		bts_model_wrmsr(c, IA32_DS_AREA, 0);
		bts_model_wrmsr(c, IA32_DEBUGCTL, c->debugctl & ~IA32_DEBUGCTL_LBR);
	}
	local_irq_restore(flags);
}

static ssize_t sim_bts_perf_write(struct file *f, const char __user *ubuf,
				  size_t len, loff_t *off)
{
	char buf[8] = "";
	long what;
	int cpu;

	if (copy_from_user(buf, ubuf, min(len, sizeof(buf) - 1)))
		return -EFAULT;
	if (!strncmp(buf, "ds", 2))
		what = 1;
	else if (!strncmp(buf, "lbr", 3))
		what = 2;
	else if (!strncmp(buf, "off", 3))
		what = 0;
	else
		return -EINVAL;
	mutex_lock(&sim_bts_perf_lock);
	/* reserve_ds_buffers(): every possible CPU's buffers first. */
	for_each_possible_cpu(cpu) {
		struct sim_bts_perf *p = per_cpu_ptr(&sim_bts_perfs, cpu);

		if (what == 1 && !p->buf)
			p->buf = vzalloc(SIM_BTS_PERF_BUFFER);
		if (what == 1 && !p->buf) {
			mutex_unlock(&sim_bts_perf_lock);
			return -ENOMEM;
		}
	}
	on_each_cpu(sim_bts_perf_cpu, (void *)what, 1);
	mutex_unlock(&sim_bts_perf_lock);
	return len;
}

static int sim_bts_perf_show(struct seq_file *m, void *v)
{
	int cpu;

	mutex_lock(&sim_bts_perf_lock);
	for_each_online_cpu(cpu) {
		const struct bts_model_cpu *c = per_cpu_ptr(&sim_bts_cpus, cpu);
		const struct sim_bts_perf *p = per_cpu_ptr(&sim_bts_perfs, cpu);
		const u8 *a = p->area;
		u64 base, max, thresh, index = 0;
		bool intact = true;
		unsigned int off;

		if (p->buf) {
			sim_bts_perf_fields(p, &base, &max, &thresh);
			index = sim_bts_perf_get(a, DS_BTS_INDEX);
			intact = sim_bts_perf_get(a, DS_BTS_BUFFER_BASE) == base &&
				 sim_bts_perf_get(a, DS_BTS_ABSOLUTE_MAXIMUM) == max &&
				 sim_bts_perf_get(a, DS_BTS_INTERRUPT_THRESHOLD) == thresh &&
				 index >= base && index <= max &&
				 (index - base) % BTS_RECORD_SIZE == 0;
			for (off = DS_PEBS_BUFFER_BASE; off < sizeof(p->area); off += 8)
				intact &= !sim_bts_perf_get(a, off);
			index = intact ? (index - base) / BTS_RECORD_SIZE : 0;
		}
		/* A racy snapshot of the MSR is fine for a diagnostic file. */
		seq_printf(m, "cpu%d perf_ds=%#llx ds_area=%#llx intact=%d bts_records=%llu\n",
			   cpu, p->wrote, c->ds_area, intact, index);
	}
	mutex_unlock(&sim_bts_perf_lock);
	return 0;
}

static int sim_bts_perf_open(struct inode *inode, struct file *f)
{
	return single_open(f, sim_bts_perf_show, inode->i_private);
}

static const struct file_operations sim_bts_perf_fops = {
	.owner = THIS_MODULE,
	.open = sim_bts_perf_open,
	.read = seq_read,
	.write = sim_bts_perf_write,
	.llseek = seq_lseek,
	.release = single_release,
};

int sim_bts_init(struct dentry *dir)
{
	const struct bts_model_profile *prof = sim_bts_profile();
	u64 lstar;
	int cpu;

	if (!prof)
		return 0;
	/*
	 * The kernel side of a transition is outside the model (bts_step.h):
	 * every kernel entry and exit it records names the system-call entry
	 * point of this kernel, so the records hold a real kernel address.
	 */
	rdmsrl(MSR_LSTAR, lstar);
	sim_bts_cfg = (struct bts_step_config) {
		.syscall_entry = lstar, .sysret_ip = lstar,
		.idt_entry = lstar, .iret_ip = lstar,
	};
	/*
	 * The canonical checks of the processor the kernel runs on: 57-bit
	 * linear addresses with 5-level paging (SDM Vol. 3A 4.5; QEMU's CPU
	 * may have LA57), else 48.
	 */
	sim_bts_prof = *prof;
	sim_bts_prof.linear_bits = pgtable_l5_enabled() ? 57 : 48;
	for_each_possible_cpu(cpu) {
		memset(per_cpu_ptr(&sim_bts_states, cpu), 0,
		       sizeof(struct sim_bts_state));
		if (bts_model_cpu_init(per_cpu_ptr(&sim_bts_cpus, cpu), &sim_bts_prof,
				       &sim_bts_ops, NULL, cpu))
			return -EINVAL;
	}
	WRITE_ONCE(sim_bts_on, true);
	/* Kernel addresses (IA32_DS_AREA): root only. */
	debugfs_create_file("bts_msrs", 0400, dir, NULL, &sim_bts_msrs_fops);
	debugfs_create_file("bts_perf", 0600, dir, NULL, &sim_bts_perf_fops);
	return 0;
}

void sim_bts_exit(void)
{
	int cpu;

	WRITE_ONCE(sim_bts_on, false);
	for_each_possible_cpu(cpu) {
		struct sim_bts_perf *p = per_cpu_ptr(&sim_bts_perfs, cpu);

		vfree(p->buf);
		p->buf = NULL;
	}
}
