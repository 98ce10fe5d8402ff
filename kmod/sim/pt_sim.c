// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt_sim.ko: the PT model (model/pt/pt_model.h) on every CPU.
 *
 * Each CPU has a struct pt_model_cpu. The hardware layer (hw_sim.c) sends
 * IA32_RTIT_* and IA32_PERF_GLOBAL_STATUS (and its RESET/SET) here; the model's #GP becomes
 * -EIO and a spec violation. The model stores trace output to "physical
 * memory": the kernel's own RAM pages, reached through the direct map, so
 * the ToPA tables and regions the PT subsystem allocates are exactly what
 * the model reads and fills. A ToPA PMI calls the hook registered with
 * lwpt_hw_pmi_register(), as the NMI does on hardware.
 *
 * Each CPU also has the packet generator (model/pt/pt_trace.h), bound to
 * its model with pt_trace_model_config(): enabled and disabled through the
 * model's trace_en callback as TraceEn goes 0->1 and 1->0 (WRMSR, XRSTORS,
 * XSAVES), fed with the user-mode instructions the execution follower
 * (sim_step.c) sees retire on this CPU.
 *
 * The model is not thread-safe per CPU: every call runs on its own CPU with
 * interrupts off (an IPI, e.g. pt_inject, must not interleave with an MSR
 * access of the interrupted code).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/irq_work.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include <lwpt/pt_arch.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_rtit.h>
#include <lwpt/pt_topa.h>

#include "model/pt/pt_model.h"
#include "model/pt/pt_trace.h"
#include "../lwpt.h"
#include "sim.h"
#include "pt_sim.h"

/*
 * What the simulated processor reports where the packet generator needs
 * it: the Core:Bus ratio of CBR packets (MSR_PLATFORM_INFO[15:8] on real
 * parts) and the TSC/ART ratio of CPUID leaf 15H (SIM_CPUID_15H_* in
 * sim_cpuid.c reports the same).
 */
#define SIM_PT_CBR		SIM_CPUID_15H_CBR

/**
 * struct sim_pt_gen - the packet generator of one CPU
 * @tr: generator state; valid while @on
 * @on: TraceEn=1 and the generator accepted the configuration
 * @unmodelled: TraceEn 0->1 with an IA32_RTIT_CTL the generator refuses
 *	(PwrEvtEn, EventEn: Documentation/pt-model.rst); the
 *	trace then holds no packets from execution
 * @busy: the generator is running on this CPU (sim_pt_gen_enter())
 * @in_pmi: the PMI handler runs on this CPU (sim_pt_deliver_pmi())
 * @pmi_pending: a ToPA PMI raised while @busy or @in_pmi, delivered when
 *	the generator is done or the handler returns
 * @pmi_held: a ToPA PMI held back by pt_pmi_at_enable, delivered right
 *	after the next write that sets TraceEn here
 * @pmi_late: a ToPA PMI delayed by pt_pmi_late, delivered by @late_iw
 * @late_iw: delivers @pmi_late once this CPU takes interrupts again
 * @pmi_parked: a ToPA PMI held by pt_pmi_park until debugfs pt_pmi_deliver
 *	names this CPU
 * @inject_at_enable: debugfs pt_inject_at_enable: bytes of the test pattern
 *	stored right after the next TraceEn 0->1 here
 * @model_emit: the output of the core model (pt_trace_model_config())
 * @ovf_after: debugfs pt_ovf: bytes of packets still accepted before ...
 * @ovf_refuse: ... the internal buffer refuses this many (SDM 33.3.8)
 * @switch_next: the task the last sched_switch on this CPU switched to
 *	(compared, never dereferenced); NULL before the first one
 * @enabled_by: the task current when TraceEn last went 0->1
 * @enabled_mid_switch: it went 0->1 inside a context switch, while
 *	@enabled_by (the outgoing task) still ran for @switch_next
 * @foreign: user code of a task other than @enabled_by ran with such a
 *	state (a violation each, see sim_pt_user_return())
 */
struct sim_pt_gen {
	struct pt_trace tr;
	bool on;
	u64 unmodelled;
	bool busy;
	bool in_pmi;
	bool pmi_pending;
	bool pmi_held;
	bool pmi_late;
	struct irq_work late_iw;
	bool pmi_parked;
	u64 inject_at_enable;
	pt_trace_emit_fn model_emit;
	u64 ovf_after;
	u64 ovf_refuse;
	struct task_struct *switch_next;
	struct task_struct *enabled_by;
	bool enabled_mid_switch;
	u64 foreign;
};

static DEFINE_PER_CPU(struct pt_model_cpu, sim_pt_cpus);
static DEFINE_PER_CPU(struct sim_pt_gen, sim_pt_gens);
/* Neighbour events (debugfs pt_other_tracer) on each CPU. */
static DEFINE_PER_CPU(u64, sim_pt_other_events);

/*
 * A test aid: with pt_exec=0 the model writes no packets from execution
 * (no PSB+ at TraceEn 0->1, no thread is followed), so the output logic can
 * be tested alone with the pt_inject pattern. Read at TraceEn 0->1.
 */
static bool pt_exec = true;
module_param(pt_exec, bool, 0644);
MODULE_PARM_DESC(pt_exec,
		 "Packets from the execution of traced threads (default on); off: only what pt_inject stores");
/*
 * SDM 33.2.7.2 "ToPA PMI": "This interrupt is not precise, and it is thus
 * likely that writes to the next region will occur by the time the
 * interrupt is taken". After a ToPA PMI is raised the output logic writes
 * this many more bytes before the PMI is delivered (or until output stops).
 * Read at each TraceEn 0->1.
 */
static ulong pt_pmi_skid = 256;
module_param(pt_pmi_skid, ulong, 0644);
MODULE_PARM_DESC(pt_pmi_skid,
		 "Bytes the PT unit writes after raising a ToPA PMI before it is taken (default 256)");
/*
 * The per-thread state check (sim_pt_user_return()): a violation when
 * TraceEn was set inside a context switch, while the outgoing task still
 * ran, and user code of another task then runs with that state.
 */
static bool pt_switch_check = true;
module_param(pt_switch_check, bool, 0644);
MODULE_PARM_DESC(pt_switch_check,
		 "Count a violation when a task's user code runs with RTIT state enabled while another task ran, inside a context switch (default on)");

/*
 * The worst moment for a ToPA PMI (issue 27 2.2): the next this many PMIs
 * the model raises are held back on their CPU (IA32_PERF_GLOBAL_STATUS
 * bit 55 set, the NMI not yet taken) and delivered right after the next
 * write that sets TraceEn there (WRMSR of IA32_RTIT_CTL or XRSTORS): while
 * a thread or a CPU is being loaded, TraceEn set and the loader's
 * bookkeeping not yet done. An NMI may be delayed that long (it is
 * blocked while another NMI is handled); what the model may not do is
 * lose it. Counted down as PMIs are held.
 */
static atomic_t sim_pt_pmi_at_enable = ATOMIC_INIT(0);

/* A count parameter (an atomic_t at kp->arg): N >= 0, counted down. */
static int sim_pt_count_set(const char *val, const struct kernel_param *kp)
{
	int n, err = kstrtoint(val, 0, &n);

	if (err || n < 0)
		return err ?: -EINVAL;
	atomic_set(kp->arg, n);
	return 0;
}

static int sim_pt_count_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops sim_pt_count_ops = {
	.set = sim_pt_count_set,
	.get = sim_pt_count_get,
};

module_param_cb(pt_pmi_at_enable, &sim_pt_count_ops, &sim_pt_pmi_at_enable, 0644);
MODULE_PARM_DESC(pt_pmi_at_enable,
		 "Hold back the next N ToPA PMIs until right after the next write that sets TraceEn on their CPU (default 0)");

/*
 * A late ToPA PMI (SDM 33.2.7.2: "This interrupt is not precise"): the next
 * this many PMIs the model delivers are taken only once their CPU takes
 * interrupts again (an irq_work), i.e. after the code that was running -
 * typically the one that cleared TraceEn, whose write delivers a PMI still
 * in its skid: a switch-out, STOP - has finished and no longer traces
 * there. Counted down as PMIs are delayed.
 */
static atomic_t sim_pt_pmi_late = ATOMIC_INIT(0);
module_param_cb(pt_pmi_late, &sim_pt_count_ops, &sim_pt_pmi_late, 0644);
MODULE_PARM_DESC(pt_pmi_late,
		 "Deliver the next N ToPA PMIs only once their CPU takes interrupts again, after the code that ran (default 0)");

/*
 * A ToPA PMI as late as a test needs (SDM 33.2.7.2: "not precise"; a
 * virtual CPU descheduled by its host between the write that raised it and
 * its delivery): the next this many PMIs the model delivers are parked on
 * their CPU (IA32_PERF_GLOBAL_STATUS bit 55 set, no NMI) until debugfs
 * pt_pmi_deliver names the CPU, whatever runs there meanwhile: a test waits
 * for the event it needs, never a time. Counted down as PMIs are parked.
 */
static atomic_t sim_pt_pmi_park = ATOMIC_INIT(0);
module_param_cb(pt_pmi_park, &sim_pt_count_ops, &sim_pt_pmi_park, 0644);
MODULE_PARM_DESC(pt_pmi_park,
		 "Park the next N ToPA PMIs on their CPU until debugfs pt_pmi_deliver names it (default 0)");

static struct pt_model_profile sim_pt_prof;
static bool sim_pt_active;
static struct tracepoint *sim_pt_tp_switch;

static void sim_pt_free_other(void);

/* Copy between the model and RAM, page by page; -EFAULT if not RAM. */
static int sim_pt_phys(u64 pa, void *buf, size_t len, bool write)
{
	while (len) {
		unsigned long pfn = PHYS_PFN(pa);
		size_t off = offset_in_page(pa);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page;
		void *va;

		if (!pfn_valid(pfn))
			return -EFAULT;
		page = pfn_to_page(pfn);
		if (PageReserved(page))
			return -EFAULT;
		va = kmap_local_page(page);
		if (write)
			memcpy(va + off, buf, n);
		else
			memcpy(buf, va + off, n);
		kunmap_local(va);
		pa += n;
		buf += n;
		len -= n;
	}
	return 0;
}

static int sim_pt_read_phys(void *ctx, u64 pa, void *buf, size_t len)
{
	return sim_pt_phys(pa, buf, len, false);
}

static int sim_pt_write_phys(void *ctx, u64 pa, const void *buf, size_t len)
{
	return sim_pt_phys(pa, (void *)buf, len, true);
}

/* More PMIs in a row than this: a storm (a handler that re-raises it). */
#define SIM_PT_PMI_STORM	64

/*
 * Deliver pended PMIs, one at a time: as with the LVT entry masked while
 * the handler runs, a PMI raised inside the handler is taken when it
 * returns (SDM 33.2.7.2), never nested.
 */
static void sim_pt_deliver_pmi(struct sim_pt_gen *g)
{
	unsigned int n = 0;

	if (g->busy || g->in_pmi)
		return;
	while (g->pmi_pending) {
		g->pmi_pending = false;
		if (++n > SIM_PT_PMI_STORM) {
			sim_violation("ToPA PMI raised again by every handler (storm)");
			break;
		}
		g->in_pmi = true;
		hw_sim_raise_pmi();
		g->in_pmi = false;
	}
}

/*
 * The PMI is an NMI (SDM 33.2.7.2): it arrives between instructions, never
 * while the processor is writing the packets of one. A PMI that the output
 * of the generator raises is delivered once the generator is done, so a
 * handler that toggles TraceEn does not re-enter it.
 */
static void sim_pt_pmi(void *ctx, struct pt_model_cpu *cpu)
{
	struct sim_pt_gen *g = per_cpu_ptr(&sim_pt_gens, cpu->id);

	/* pt_pmi_at_enable: taken after the next TraceEn 0 -> 1 instead. */
	if (!g->pmi_held && atomic_add_unless(&sim_pt_pmi_at_enable, -1, 0)) {
		g->pmi_held = true;
		return;
	}
	/* pt_pmi_park: taken when debugfs pt_pmi_deliver says so. */
	if (!g->pmi_parked && atomic_add_unless(&sim_pt_pmi_park, -1, 0)) {
		g->pmi_parked = true;
		return;
	}
	/* pt_pmi_late: taken once this CPU takes interrupts again. */
	if (atomic_add_unless(&sim_pt_pmi_late, -1, 0)) {
		g->pmi_late = true;
		irq_work_queue(&g->late_iw);
		return;
	}
	g->pmi_pending = true;
	sim_pt_deliver_pmi(g);
}

/* @late_iw (IRQ context, on the PMI's CPU): the delayed PMI arrives. */
static void sim_pt_late_pmi(struct irq_work *w)
{
	struct sim_pt_gen *g = container_of(w, struct sim_pt_gen, late_iw);

	if (!g->pmi_late)
		return;
	g->pmi_late = false;
	g->pmi_pending = true;
	sim_pt_deliver_pmi(g);
}

/* Run the generator of this CPU (interrupts off): see sim_pt_pmi(). */
static void sim_pt_gen_enter(struct sim_pt_gen *g)
{
	g->busy = true;
}

static void sim_pt_gen_exit(struct sim_pt_gen *g)
{
	g->busy = false;
	sim_pt_deliver_pmi(g);
}

static void sim_pt_log(void *ctx, struct pt_model_cpu *cpu,
		       const struct pt_model_violation *v)
{
	/* The model counts too; the layer's count is what the tests read. */
	sim_violation(v->what);
	pr_notice_ratelimited("PT cpu%d: %s (%s) msr %#x value %#llx\n",
			      cpu->id, pt_model_violation_str(v->kind),
			      v->section, v->msr, (unsigned long long)v->value);
}

/*
 * The generator's output: the core model's, unless debugfs pt_ovf made the
 * processor's internal buffer full, which refuses packets (-ENOSPC: the
 * generator drops them and writes OVF once it can, SDM 33.3.8).
 */
static int sim_pt_emit(void *ctx, const uint8_t *bytes, size_t len)
{
	struct pt_model_cpu *cpu = ctx;
	struct sim_pt_gen *g = per_cpu_ptr(&sim_pt_gens, cpu->id);

	if (g->ovf_refuse && !g->ovf_after) {
		g->ovf_refuse -= min_t(u64, len, g->ovf_refuse);
		return -ENOSPC;
	}
	g->ovf_after -= min_t(u64, len, g->ovf_after);
	return g->model_emit(ctx, bytes, len);
}

/*
 * TraceEn 0->1: PSB+ now (SDM 33.2.8.3), packets from the next step on;
 * 1->0: FUP and TIP.PGD if PacketEn was 1, while output is still possible.
 * Called by the model on this CPU with interrupts off.
 */
static int sim_pt_gen_start(struct sim_pt_gen *g, struct pt_model_cpu *cpu)
{
	struct pt_trace_config cfg;
	int err;

	err = pt_trace_model_config(&cfg, cpu, SIM_PT_CBR, SIM_CPUID_15H_EBX,
				    SIM_CPUID_15H_EAX);
	if (err)
		return err;
	g->model_emit = cfg.emit;
	cfg.emit = sim_pt_emit;
	return pt_trace_init(&g->tr, &cfg) ?: pt_trace_enable(&g->tr, rdtsc());
}

/* Bytes of test pattern each CPU has stored so far (pt_inject). */
static DEFINE_PER_CPU(u64, sim_pt_inject_seq);

/*
 * Store @bytes of the test pattern (sim_pt_inject_one()) through this CPU's
 * output logic, raising PMIs as it goes. Return: the bytes stored.
 */
static u64 sim_pt_store_pattern(struct pt_model_cpu *c, u64 bytes)
{
	u64 *seq = this_cpu_ptr(&sim_pt_inject_seq);
	u64 stored = 0;
	u8 chunk[256];
	size_t i, n, done;

	while (bytes) {
		n = min_t(u64, bytes, sizeof(chunk));
		for (i = 0; i < n; i++)
			chunk[i] = (u8)((*seq + i) % 251 + 1);
		done = pt_model_output(c, chunk, n);
		*seq += done;
		stored += done;
		bytes -= n;
	}
	return stored;
}

static void sim_pt_trace_en(void *ctx, struct pt_model_cpu *cpu, bool on)
{
	struct sim_pt_gen *g = per_cpu_ptr(&sim_pt_gens, cpu->id);

	if (on) {
		/*
		 * A held PMI arrives now (sim_pt_gen_exit() delivers it),
		 * unless the model pends one at this very enable (PendTopaPMI,
		 * SDM 33.2.8.4): one NMI for both, as the APIC would.
		 */
		if (g->pmi_held) {
			g->pmi_held = false;
			g->pmi_pending = !cpu->pmi_pending;
		}
		pt_model_set_pmi_skid(cpu, READ_ONCE(pt_pmi_skid));
		/* Who runs now, and is the scheduler switching away from it? */
		g->enabled_by = current;
		g->enabled_mid_switch = g->switch_next && g->switch_next != current;
	} else {
		g->enabled_mid_switch = false;
	}
	if (g->busy)
		return;		/* a PMI handler of ours never runs here */
	sim_pt_gen_enter(g);
	if (!on) {
		if (g->on)
			pt_trace_disable(&g->tr);
		g->on = false;
	} else if (READ_ONCE(pt_exec)) {
		if (!sim_pt_gen_start(g, cpu))
			g->on = true;
		else
			g->unmodelled++;
	}
	/*
	 * debugfs pt_inject_at_enable: output right after the enable, as the
	 * PSB+ of SDM 33.2.8.3 is, before the enabling write's caller runs
	 * another instruction; a PMI it raises comes there too.
	 */
	if (on && g->inject_at_enable) {
		sim_pt_store_pattern(cpu, g->inject_at_enable);
		g->inject_at_enable = 0;
	}
	sim_pt_gen_exit(g);
}

static const struct pt_model_ops sim_pt_ops = {
	.read_phys = sim_pt_read_phys,
	.write_phys = sim_pt_write_phys,
	.pmi = sim_pt_pmi,
	.log = sim_pt_log,
	.trace_en = sim_pt_trace_en,
};

bool sim_pt_follow(u64 cr3)
{
	const struct sim_pt_gen *g = this_cpu_ptr(&sim_pt_gens);
	const struct pt_model_cpu *c = this_cpu_ptr(&sim_pt_cpus);
	u64 ctl;

	if (!READ_ONCE(sim_pt_active) || !g->on)
		return false;
	ctl = pt_model_ctl(c);
	if (!(ctl & IA32_RTIT_CTL_USER))
		return false;
	/* SDM 33.2.4.2: a thread whose CR3 does not match makes no packet. */
	return !(ctl & IA32_RTIT_CTL_CR3FILTER) ||
	       !((cr3 ^ c->cr3_match) & IA32_RTIT_CR3_MATCH_CMP_MASK);
}

void sim_pt_step(const struct pt_trace_step *step)
{
	struct sim_pt_gen *g = this_cpu_ptr(&sim_pt_gens);

	if (!READ_ONCE(sim_pt_active) || !g->on)
		return;
	sim_pt_gen_enter(g);
	pt_trace_step(&g->tr, step);
	sim_pt_gen_exit(g);
}

/*
 * sched_switch, before lwpt's own probe (a higher priority): from here
 * until the switch completes, current is still @prev while the CPU is
 * committed to @next. Runqueue lock held, interrupts off.
 */
static void sim_pt_probe_switch(void *data, bool preempt,
				struct task_struct *prev,
				struct task_struct *next, unsigned int prev_state)
{
	this_cpu_ptr(&sim_pt_gens)->switch_next = next;
}

void sim_pt_user_return(void)
{
	struct sim_pt_gen *g = this_cpu_ptr(&sim_pt_gens);
	const struct pt_model_cpu *c = this_cpu_ptr(&sim_pt_cpus);

	if (!READ_ONCE(sim_pt_active) || !g->enabled_mid_switch ||
	    !(pt_model_ctl(c) & IA32_RTIT_CTL_TRACEEN) ||
	    g->enabled_by == current || !READ_ONCE(pt_switch_check))
		return;
	/* Once per enable: the state stays the same until TraceEn is cleared. */
	g->enabled_mid_switch = false;
	g->foreign++;
	sim_violation("SDM 33.3.5: RTIT state set inside a switch ran another task's user code");
}

static int sim_pt_err(int err)
{
	switch (err) {
	case PT_MODEL_OK:
		return 0;
	case PT_MODEL_ENOMSR:
		return -ENOENT;
	default:
		return -EIO;
	}
}

/*
 * The MSRs the model owns here: IA32_RTIT_*, IA32_PERF_GLOBAL_STATUS (and
 * its RESET/SET) and IA32_DEBUGCTL. IA32_XSS, XSAVES and XRSTORS stay with the layer
 * (hw_sim.c), which reaches the model through sim_pt_xsaves_cpu().
 */
static bool sim_pt_msr(u32 msr)
{
	return (msr >= IA32_RTIT_OUTPUT_BASE && msr <= IA32_RTIT_OUTPUT_MASK_PTRS) ||
	       (msr >= IA32_RTIT_CTL && msr <= IA32_RTIT_CR3_MATCH) ||
	       (msr >= IA32_RTIT_ADDR0_A && msr <= IA32_RTIT_ADDR3_B) ||
	       msr == IA32_PERF_GLOBAL_STATUS ||
	       msr == IA32_PERF_GLOBAL_STATUS_RESET ||
	       msr == IA32_PERF_GLOBAL_STATUS_SET || msr == IA32_DEBUGCTL;
}

int sim_pt_rdmsr(u32 msr, u64 *val)
{
	unsigned long flags;
	int err;

	if (!sim_pt_active || !sim_pt_msr(msr))
		return -ENOENT;
	local_irq_save(flags);
	err = pt_model_rdmsr(this_cpu_ptr(&sim_pt_cpus), msr, val);
	local_irq_restore(flags);
	return sim_pt_err(err);
}

int sim_pt_wrmsr(u32 msr, u64 val)
{
	unsigned long flags;
	int err;

	if (!sim_pt_active || !sim_pt_msr(msr))
		return -ENOENT;
	local_irq_save(flags);
	err = pt_model_wrmsr(this_cpu_ptr(&sim_pt_cpus), msr, val);
	local_irq_restore(flags);
	return sim_pt_err(err);
}

/* The generator's counters of one CPU, on its pt_msrs line. */
static void sim_pt_gen_show(struct seq_file *m, const struct sim_pt_gen *g)
{
	const struct pt_trace_stats *t = pt_trace_get_stats(&g->tr);

	seq_printf(m, " gen=%d gen_unmodelled=%llu steps=%llu psb=%llu tnt=%llu tip=%llu tip_pge=%llu tip_pgd=%llu fup=%llu ovf=%llu inject_at_enable=%llu\n",
		   g->on, g->unmodelled, t->steps, t->psb, t->tnt, t->tip,
		   t->tip_pge, t->tip_pgd, t->fup, t->ovf, g->inject_at_enable);
}

/* debugfs lwpt_sim/pt_msrs: what the model's registers hold now. */
static int sim_pt_msrs_show(struct seq_file *m, void *v)
{
	int cpu, n;

	for_each_online_cpu(cpu) {
		const struct pt_model_cpu *c = per_cpu_ptr(&sim_pt_cpus, cpu);
		const struct pt_model_stats *s = pt_model_get_stats(c);

		/* A racy snapshot is fine for a diagnostic file. */
		seq_printf(m, "cpu%d ctl=%#llx status=%#llx output_base=%#llx output_mask_ptrs=%#llx cr3_match=%#llx",
			   cpu, c->ctl, c->status, c->output_base,
			   c->output_mask_ptrs, c->cr3_match);
		for (n = 0; n < PT_ADDR_RANGES_MAX; n++)
			seq_printf(m, " addr%d_a=%#llx addr%d_b=%#llx", n,
				   c->addr_a[n], n, c->addr_b[n]);
		seq_printf(m, " bytes_written=%llu bytes_dropped=%llu wraps=%llu pmis=%llu operrs=%llu violations=%llu neighbour_events=%llu debugctl=%#llx lbr_overlaps=%llu erratum_dropped=%llu foreign_state=%llu",
			   s->bytes_written, s->bytes_dropped, s->wraps, s->pmis,
			   s->operrs, s->violations,
			   per_cpu(sim_pt_other_events, cpu), c->debugctl,
			   s->lbr_overlaps, s->erratum_dropped,
			   per_cpu(sim_pt_gens, cpu).foreign);
		sim_pt_gen_show(m, per_cpu_ptr(&sim_pt_gens, cpu));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_pt_msrs);

/*
 * The test pattern: byte i of a CPU's stream is (i mod 251) + 1, never 0,
 * so a reader tells stored bytes from the zeroed buffer and finds a gap.
 * These are not packets: the packet generator (model/pt/trace*.c) feeds
 * real execution; this stimulus exercises the output logic alone.
 */
struct sim_pt_inject {
	u64 bytes;
	u64 stored;
};

static void sim_pt_inject_one(void *arg)
{
	struct sim_pt_inject *in = arg;

	in->stored += sim_pt_store_pattern(this_cpu_ptr(&sim_pt_cpus), in->bytes);
}

/*
 * A debugfs command "CPU A [B]": read it from user space (@len bytes at
 * @ubuf) into @a and @b (@nargs numbers after CPU, 0 to 2), then run @fn
 * on that CPU with @info. Return @len, or -EINVAL, -EFAULT, the IPI's error.
 */
static ssize_t sim_pt_cpu_cmd(const char __user *ubuf, size_t len, int nargs,
			      u64 *a, u64 *b, smp_call_func_t fn, void *info)
{
	unsigned int cpu;
	char buf[64];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %llu %llu", &cpu, a, b) != 1 + nargs)
		return -EINVAL;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	return smp_call_function_single(cpu, fn, info, 1) ?: len;
}

static ssize_t sim_pt_inject_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct sim_pt_inject in = { 0 };
	u64 unused;

	return sim_pt_cpu_cmd(ubuf, len, 1, &in.bytes, &unused,
			      sim_pt_inject_one, &in);
}

static const struct file_operations sim_pt_inject_fops = {
	.owner = THIS_MODULE,
	.write = sim_pt_inject_write,
	.llseek = noop_llseek,
};

/* debugfs pt_inject_at_enable: "CPU BYTES", see struct sim_pt_gen. */
static void sim_pt_inject_at_enable_one(void *arg)
{
	this_cpu_ptr(&sim_pt_gens)->inject_at_enable = *(u64 *)arg;
}

static ssize_t sim_pt_inject_at_enable_write(struct file *file,
					     const char __user *ubuf,
					     size_t len, loff_t *ppos)
{
	u64 bytes = 0, unused;

	return sim_pt_cpu_cmd(ubuf, len, 1, &bytes, &unused,
			      sim_pt_inject_at_enable_one, &bytes);
}

static const struct file_operations sim_pt_inject_at_enable_fops = {
	.owner = THIS_MODULE,
	.write = sim_pt_inject_at_enable_write,
	.llseek = noop_llseek,
};

/* debugfs pt_ovf: "CPU AFTER BYTES", see sim_pt_init() in pt_sim.h. */
struct sim_pt_ovf {
	u64 after;
	u64 refuse;
};

static void sim_pt_ovf_one(void *arg)
{
	const struct sim_pt_ovf *o = arg;
	struct sim_pt_gen *g = this_cpu_ptr(&sim_pt_gens);

	g->ovf_after = o->after;
	g->ovf_refuse = o->refuse;
}

static ssize_t sim_pt_ovf_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct sim_pt_ovf o;

	return sim_pt_cpu_cmd(ubuf, len, 2, &o.after, &o.refuse,
			      sim_pt_ovf_one, &o);
}

static const struct file_operations sim_pt_ovf_fops = {
	.owner = THIS_MODULE,
	.write = sim_pt_ovf_write,
	.llseek = noop_llseek,
};

/*
 * debugfs pt_other_tracer: "CPU KIND", a neighbour touches the CPU's PT
 * unit mid-capture (Documentation/pt-model.rst, "Neighbours"):
 *   0  another tracer (perf's intel_pt, a VMM switching guest PT state):
 *      clears TraceEn, then points IA32_RTIT_OUTPUT_BASE and
 *      OUTPUT_MASK_PTRS at its own ToPA (one 4K region), and leaves;
 *   1  VMXON on a processor with IA32_VMX_MISC[14] = 0: TraceEn is cleared
 *      (SDM 33.2.9.4 "Intel PT and VMX"); the VMM leaves VMX operation again;
 *   2  an LBR user (perf record -b, a debugger) sets IA32_DEBUGCTL.LBR and
 *      leaves TraceEn alone: on a PT/LBR-exclusive model both are then set
 *      (SDM 33.3.1.2, counted by the model as lbr_overlaps);
 *   3  the LBR user clears IA32_DEBUGCTL.LBR again;
 *   4  a perf counter overflows: its PMI (an NMI that is not lwpt's, no
 *      PT bit in IA32_PERF_GLOBAL_STATUS), which the pt_nmi_first_acker
 *      handler claims (debugfs pmi: foreign_claimed if lwpt claims it);
 *   5  a KVM guest's trace raises its ToPA PMI: IA32_PERF_GLOBAL_STATUS
 *      bit 55 set and an NMI that is KVM's (perf hands it over,
 *      perf_guest_handle_intel_pt_intr()), not lwpt's (foreign_claimed).
 * The neighbour's ToPA: table page, entry 0 its region, entry 1 END back
 * to the table: valid with and without MENTRY (SDM 33.2.7.2).
 */
static struct page *sim_pt_other_pages;

enum {
	SIM_PT_OTHER_TRACER,
	SIM_PT_OTHER_VMXON,
	SIM_PT_OTHER_LBR_ON,
	SIM_PT_OTHER_LBR_OFF,
	SIM_PT_OTHER_PERF_PMI,
	SIM_PT_OTHER_GUEST_PMI,
	SIM_PT_OTHER_NR
};

struct sim_pt_other {
	u64 kind;
	u64 unused;
};

static void sim_pt_other_one(void *arg)
{
	const struct sim_pt_other *o = arg;
	struct pt_model_cpu *c = this_cpu_ptr(&sim_pt_cpus);
	u64 ctl = pt_model_ctl(c), table = page_to_phys(sim_pt_other_pages);

	if (o->kind >= SIM_PT_OTHER_NR)
		return;
	if (o->kind == SIM_PT_OTHER_PERF_PMI) {
		this_cpu_inc(sim_pt_other_events);
		hw_sim_raise_perf_pmi();
		return;
	}
	if (o->kind == SIM_PT_OTHER_GUEST_PMI) {
		this_cpu_inc(sim_pt_other_events);
		c->perf_global_status |= IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI;
		hw_sim_raise_guest_pmi();
		return;
	}
	if (o->kind == SIM_PT_OTHER_LBR_ON || o->kind == SIM_PT_OTHER_LBR_OFF) {
		u64 dbg = 0;

		pt_model_rdmsr(c, IA32_DEBUGCTL, &dbg);
		if (o->kind == SIM_PT_OTHER_LBR_ON)
			dbg |= IA32_DEBUGCTL_LBR;
		else
			dbg &= ~IA32_DEBUGCTL_LBR;
		pt_model_wrmsr(c, IA32_DEBUGCTL, dbg);
		this_cpu_inc(sim_pt_other_events);
		return;
	}
	/* Valid operations of the neighbour: no spec violation. */
	if (ctl & IA32_RTIT_CTL_TRACEEN)
		pt_model_wrmsr(c, IA32_RTIT_CTL, ctl & ~IA32_RTIT_CTL_TRACEEN);
	if (o->kind == SIM_PT_OTHER_TRACER) {
		pt_model_wrmsr(c, IA32_RTIT_OUTPUT_BASE, table);
		pt_model_wrmsr(c, IA32_RTIT_OUTPUT_MASK_PTRS,
			       IA32_RTIT_OUTPUT_MASK_PTRS_LOWERMASK);
	}
	this_cpu_inc(sim_pt_other_events);
}

static ssize_t sim_pt_other_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct sim_pt_other o = { 0 };
	ssize_t ret;

	ret = sim_pt_cpu_cmd(ubuf, len, 1, &o.kind, &o.unused, sim_pt_other_one, &o);
	return ret >= 0 && o.kind >= SIM_PT_OTHER_NR ? -EINVAL : ret;
}

static const struct file_operations sim_pt_other_fops = {
	.owner = THIS_MODULE,
	.write = sim_pt_other_write,
	.llseek = noop_llseek,
};

/* debugfs pt_pmi_deliver: "CPU", its PMI parked by pt_pmi_park arrives. */
static void sim_pt_deliver_one(void *arg)
{
	struct sim_pt_gen *g = this_cpu_ptr(&sim_pt_gens);

	if (!g->pmi_parked)
		return;
	g->pmi_parked = false;
	g->pmi_pending = true;
	sim_pt_deliver_pmi(g);
}

static ssize_t sim_pt_deliver_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	u64 unused;

	return sim_pt_cpu_cmd(ubuf, len, 0, &unused, &unused,
			      sim_pt_deliver_one, NULL);
}

static const struct file_operations sim_pt_deliver_fops = {
	.owner = THIS_MODULE,
	.write = sim_pt_deliver_write,
	.llseek = noop_llseek,
};

/* The neighbour's ToPA for pt_other_tracer; 0 or -ENOMEM. */
static int sim_pt_other_alloc(void)
{
	u64 *tab;

	sim_pt_other_pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	if (!sim_pt_other_pages)
		return -ENOMEM;
	tab = page_address(sim_pt_other_pages);
	tab[0] = topa_entry_make(page_to_phys(sim_pt_other_pages + 1), TOPA_SIZE_4K, 0);
	tab[1] = topa_entry_make(page_to_phys(sim_pt_other_pages), 0, TOPA_ENTRY_END);
	return 0;
}

int sim_pt_init(struct dentry *dir)
{
	const struct pt_model_profile *prof;
	struct lwpt_cpuid_regs r;
	int cpu, i;

	if (!sim_has_pt())
		return 0;
	/* The model's profile follows the simulated CPUID exactly. */
	prof = pt_model_profile_find(sim_pt_profile_name());
	if (WARN_ON_ONCE(!prof))
		return -EINVAL;
	sim_pt_prof = *prof;
	/* Model-specific rules belong to the Intel model the CPUID names. */
	if (!sim_is_intel()) {
		sim_pt_prof.lbr_exclusive = false;
		sim_pt_prof.erratum_single_4k = false;
	}
	cpu = get_cpu();
	for (i = 0; i < PT_CPUID_SUBLEAVES; i++) {
		lwpt_hw_cpuid(PT_CPUID_LEAF, i, &r);
		sim_pt_prof.leaf.regs[i][PT_CPUID_EAX] = r.eax;
		sim_pt_prof.leaf.regs[i][PT_CPUID_EBX] = r.ebx;
		sim_pt_prof.leaf.regs[i][PT_CPUID_ECX] = r.ecx;
		sim_pt_prof.leaf.regs[i][PT_CPUID_EDX] = r.edx;
	}
	lwpt_hw_cpuid(PT_CPUID_80000008H, 0, &r);
	if (r.eax & PT_CPUID_80000008H_EAX_MAXPHYADDR_MASK)
		sim_pt_prof.maxphyaddr = r.eax & PT_CPUID_80000008H_EAX_MAXPHYADDR_MASK;
	/* Off until hw_sim.c, with pt_xsaves=1, asks: sim_pt_xsaves_cpu(). */
	sim_pt_prof.xsaves_pt = false;
	put_cpu();

	for_each_possible_cpu(cpu) {
		pt_model_cpu_init(per_cpu_ptr(&sim_pt_cpus, cpu), &sim_pt_prof,
				  &sim_pt_ops, NULL, cpu);
		init_irq_work(&per_cpu_ptr(&sim_pt_gens, cpu)->late_iw, sim_pt_late_pmi);
	}
	if (sim_pt_other_alloc())
		return -ENOMEM;
	sim_pt_tp_switch = lwpt_tracepoint_find("sched_switch");
	if (!sim_pt_tp_switch ||
	    tracepoint_probe_register_prio(sim_pt_tp_switch, sim_pt_probe_switch,
					   NULL, TRACEPOINT_DEFAULT_PRIO + 1)) {
		pr_err("cannot probe sched_switch: no PT model\n");
		sim_pt_tp_switch = NULL;
		sim_pt_free_other();
		return -ENODEV;
	}
	sim_pt_active = true;
	debugfs_create_file("pt_other_tracer", 0200, dir, NULL, &sim_pt_other_fops);
	/* Physical addresses (OUTPUT_BASE, CR3_MATCH): root only. */
	debugfs_create_file("pt_msrs", 0400, dir, NULL, &sim_pt_msrs_fops);
	debugfs_create_file("pt_inject", 0200, dir, NULL, &sim_pt_inject_fops);
	debugfs_create_file("pt_ovf", 0200, dir, NULL, &sim_pt_ovf_fops);
	debugfs_create_file("pt_pmi_deliver", 0200, dir, NULL, &sim_pt_deliver_fops);
	debugfs_create_file("pt_inject_at_enable", 0200, dir, NULL,
			    &sim_pt_inject_at_enable_fops);
	return 0;
}

static void sim_pt_free_other(void)
{
	if (sim_pt_other_pages)
		__free_pages(sim_pt_other_pages, 1);
	sim_pt_other_pages = NULL;
}

void sim_pt_exit(void)
{
	int cpu;

	sim_pt_active = false;
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu_ptr(&sim_pt_gens, cpu)->late_iw);
	if (sim_pt_tp_switch) {
		tracepoint_probe_unregister(sim_pt_tp_switch, sim_pt_probe_switch, NULL);
		tracepoint_synchronize_unregister();
	}
	sim_pt_tp_switch = NULL;
	sim_pt_free_other();
}

/* See pt_sim.h: hw_sim.c's door to the model for IA32_XSS and XSAVES. */
struct pt_model_cpu *sim_pt_xsaves_cpu(void)
{
	if (!sim_pt_active)
		return NULL;
	sim_pt_prof.xsaves_pt = true;	/* the same value from every CPU */
	return this_cpu_ptr(&sim_pt_cpus);
}
