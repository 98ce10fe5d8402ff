// SPDX-License-Identifier: GPL-2.0
/*
 * The bottom of lwpt_sim.ko's model layer: what the units (the PT model,
 * pt_sim.c; the LWP emulation, lwp_emu.c) and the follower (sim_step.c)
 * call, and what calls them back only through the operations they
 * registered (struct sim_unit), so that no two files of kmod/sim call each
 * other in a circle (issue 28, "Structure"):
 *   - the per-CPU register files (struct sim_cpu);
 *   - spec-violation accounting (debugfs lwpt_sim/violations);
 *   - the unit registry (sim_unit_register(), sim_unit_get());
 *   - the interrupts the units raise: the PMI through the local APIC's LVT
 *     entry, with the model of perf's handler beside lwpt's, and the LWP
 *     threshold interrupt (lwpt_hw_pmi_*, lwpt_hw_lwp_irq_* of hw.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <lwpt/pt_arch.h>

#include "sim.h"

static atomic_t sim_violations = ATOMIC_INIT(0);

/* Serialises hook registration; the hooks themselves run lock-free. */
static DEFINE_MUTEX(sim_hook_lock);
static lwpt_hw_irq_fn sim_pmi_fns[LWPT_HW_PMI_NR];
static void *sim_pmi_datas[LWPT_HW_PMI_NR];
static lwpt_hw_irq_fn sim_lwp_irq_fn;
static void *sim_lwp_irq_data;

/* The model does not go through the IDT; any fixed vector will do. */
#define SIM_LWP_VECTOR	0xEE

static const struct sim_unit *sim_units[SIM_UNITS];

static DEFINE_PER_CPU(struct sim_cpu, sim_cpus);

struct sim_cpu *sim_this_cpu(void)
{
	lockdep_assert_preemption_disabled();
	return this_cpu_ptr(&sim_cpus);
}

struct sim_cpu *sim_cpu_of(int cpu)
{
	return per_cpu_ptr(&sim_cpus, cpu);
}

int sim_violation_count(void)
{
	return atomic_read(&sim_violations);
}

void sim_violation(const char *what)
{
	atomic_inc(&sim_violations);
	pr_notice_ratelimited("spec violation: %s\n", what);
}

void sim_unit_register(enum sim_unit_id id, const struct sim_unit *unit)
{
	WRITE_ONCE(sim_units[id], unit);
}

const struct sim_unit *sim_unit_get(enum sim_unit_id id)
{
	return READ_ONCE(sim_units[id]);
}

/*
 * Install @fn and @data in a hook slot: 0, or -EBUSY if it is taken. The
 * store of @fn pairs with the smp_load_acquire() of the raiser
 * (hw_sim_raise_pmi(), hw_sim_raise_lwp_irq()), so it sees @data.
 */
static int sim_hook_set(lwpt_hw_irq_fn *slot, void **slot_data,
			lwpt_hw_irq_fn fn, void *data)
{
	int err = 0;

	mutex_lock(&sim_hook_lock);
	if (*slot) {
		err = -EBUSY;
	} else {
		*slot_data = data;
		/* Pairs with the raiser's smp_load_acquire(). */
		smp_store_release(slot, fn);
	}
	mutex_unlock(&sim_hook_lock);
	return err;
}

int lwpt_hw_pmi_register(enum lwpt_hw_pmi_consumer who, lwpt_hw_irq_fn fn,
			 void *data)
{
	if ((unsigned int)who >= LWPT_HW_PMI_NR || !fn)
		return -EINVAL;
	return sim_hook_set(&sim_pmi_fns[who], &sim_pmi_datas[who], fn, data);
}

void lwpt_hw_pmi_unregister(enum lwpt_hw_pmi_consumer who)
{
	if ((unsigned int)who >= LWPT_HW_PMI_NR)
		return;
	WRITE_ONCE(sim_pmi_fns[who], NULL);
	/* The model raises PMIs with preemption disabled: wait them out. */
	synchronize_rcu();
}

/*
 * lwpt's NMI_FLAG_FIRST handler (hw_native.c lwpt_hw_nmi()): every
 * consumer, whatever the others answered.
 */
static bool sim_pmi_consumers(void)
{
	bool handled = false;
	int i;

	for (i = 0; i < LWPT_HW_PMI_NR; i++) {
		/* Pairs with the smp_store_release() in sim_hook_set(). */
		lwpt_hw_irq_fn fn = smp_load_acquire(&sim_pmi_fns[i]);

		if (fn && fn(READ_ONCE(sim_pmi_datas[i])))
			handled = true;
	}
	return handled;
}

/**
 * struct sim_pmi - the local APIC's LVT performance-counter entry of a CPU
 * @masked: its mask bit (SDM Vol. 3A 11.5.1): set by every delivery
 * @delivered: PMIs delivered
 * @dropped: PMIs raised while @masked: not received, lost (their
 *	IA32_PERF_GLOBAL_STATUS bit stays set)
 * @acked_by_other: deliveries where the other handler (pt_nmi_first_acker)
 *	found and acknowledged IA32_PERF_GLOBAL_STATUS bits
 * @unmask_req: lwpt's hook asked for the unmask (lwpt_hw_pmi_rearm()),
 *	done once every handler of this NMI ran
 * @perf_overflow: a perf counter overflowed (debugfs pt_other_tracer kind
 *	4): an NMI that is the other handler's, not lwpt's
 * @unknown: deliveries no handler claimed ("NMI received for unknown
 *	reason"; a panic with kernel.unknown_nmi_panic=1)
 * @early_unmask: LVTPC found unmasked before the other handler (perf,
 *	pt_nmi_first_acker 2) ran: perf's late unmask undone (spurious NMIs)
 * @guest_pt: a KVM guest's ToPA PMI (debugfs pt_other_tracer kind 5):
 *	IA32_PERF_GLOBAL_STATUS bit 55 set by the guest's trace, an NMI that
 *	is KVM's (perf_guest_handle_intel_pt_intr()), not lwpt's
 * @foreign_claimed: perf's NMIs (@perf_overflow, bit 55 clear) and guests'
 *	ToPA PMIs (@guest_pt) that lwpt's hook claimed
 */
struct sim_pmi {
	bool masked;
	bool unmask_req;
	bool perf_overflow;
	bool guest_pt;
	u64 delivered;
	u64 dropped;
	u64 acked_by_other;
	u64 unknown;
	u64 early_unmask;
	u64 foreign_claimed;
};

static DEFINE_PER_CPU(struct sim_pmi, sim_pmis);

/*
 * Other handlers on the NMI_LOCAL list (arch/x86/kernel/nmi.c nmi_handle()
 * calls them in list order; register_nmi_handler() puts NMI_FLAG_FIRST
 * ones at the head). The other handler is perf's intel_pmu_handle_irq(),
 * which runs whenever a perf event exists (Debian's NMI watchdog is one):
 * it acknowledges every bit of IA32_PERF_GLOBAL_STATUS, bit 55 included,
 * and unmasks LVTPC at its end (late ack).
 *   0  no perf event: nobody but lwpt acknowledges or unmasks anything;
 *   1  a handler that acknowledges like perf runs before lwpt's hook (for
 *      example one registered with NMI_FLAG_FIRST after lwpt): lwpt's hook
 *      never sees bit 55 and must go by the output pointers alone;
 *   2  perf, registered at boot without NMI_FLAG_FIRST: after lwpt's hook,
 *      which hw_native.c registers with NMI_FLAG_FIRST (late ack; default:
 *      a stock server with the NMI watchdog, once lwpt registers first).
 * Read at each PMI.
 */
static int pt_nmi_first_acker = 2;
module_param(pt_nmi_first_acker, int, 0644);
MODULE_PARM_DESC(pt_nmi_first_acker,
		 "Another NMI handler acking IA32_PERF_GLOBAL_STATUS and unmasking LVTPC: 0 none, 1 before lwpt's, 2 after lwpt's (perf behind NMI_FLAG_FIRST, default)");

/*
 * perf's intel_pmu_handle_irq() as lwpt meets it: ack all, claim what it
 * found (its own counter's overflow included), unmask (late ack).
 */
static bool sim_pmi_other_handler(struct sim_pmi *p)
{
	const struct sim_unit *pt = sim_unit_get(SIM_UNIT_PT);
	bool handled = p->perf_overflow || p->guest_pt;
	u64 gs = 0;

	if (pt && pt->read_msr && !pt->read_msr(IA32_PERF_GLOBAL_STATUS, &gs) && gs) {
		/* intel_pmu_ack_status(): IA32_PERF_GLOBAL_STATUS_RESET. */
		pt->write_msr(IA32_PERF_GLOBAL_STATUS_RESET, gs);
		p->acked_by_other++;
		handled = true;
	}
	p->perf_overflow = false;
	p->guest_pt = false;
	p->masked = false;	/* apic_write(APIC_LVTPC, APIC_DM_NMI) */
	return handled;
}

void hw_sim_raise_pmi(void)
{
	struct sim_pmi *p = this_cpu_ptr(&sim_pmis);
	bool handled = false, perf = p->perf_overflow, guest = p->guest_pt;
	u64 gs = 0;
	int acker;

	/* SDM Vol. 3A 11.5.1: a masked LVT entry inhibits reception. */
	if (p->masked) {
		p->dropped++;
		p->perf_overflow = false;
		p->guest_pt = false;
		return;
	}
	p->masked = true;
	p->delivered++;
	acker = READ_ONCE(pt_nmi_first_acker);
	if (perf) {
		const struct sim_unit *pt = sim_unit_get(SIM_UNIT_PT);

		if (pt && pt->read_msr)
			pt->read_msr(IA32_PERF_GLOBAL_STATUS, &gs);
	}
	if (acker == 1)
		handled |= sim_pmi_other_handler(p);
	if (sim_pmi_consumers()) {
		handled = true;
		if (guest || (perf && !(gs & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI)))
			p->foreign_claimed++;
	}
	if (acker == 2) {
		if (!p->masked)
			p->early_unmask++;
		handled |= sim_pmi_other_handler(p);
	}
	/* nmi.c: every handler ran; then lwpt's late one unmasks. */
	if (p->unmask_req) {
		p->unmask_req = false;
		p->masked = false;
	}
	if (!handled)
		p->unknown++;
	p->perf_overflow = false;
	p->guest_pt = false;
}

/**
 * hw_sim_raise_perf_pmi - a perf counter of this CPU overflows: its PMI
 *
 * An NMI that is not lwpt's: IA32_PERF_GLOBAL_STATUS gets no PT bit; the
 * other handler (pt_nmi_first_acker 1 or 2, perf) claims it. Interrupts
 * off.
 */
void hw_sim_raise_perf_pmi(void)
{
	this_cpu_ptr(&sim_pmis)->perf_overflow = true;
	hw_sim_raise_pmi();
}

/**
 * hw_sim_raise_guest_pmi - a KVM guest's ToPA PMI on this CPU
 *
 * The guest's trace set IA32_PERF_GLOBAL_STATUS bit 55 (the caller did, in
 * the model); the NMI is KVM's, which perf hands to it (acker 1 or 2
 * claims it as perf would). lwpt's hook must leave it alone unless its own
 * trace is loaded here or owes a PMI: debugfs pmi foreign_claimed.
 * Interrupts off.
 */
void hw_sim_raise_guest_pmi(void)
{
	this_cpu_ptr(&sim_pmis)->guest_pt = true;
	hw_sim_raise_pmi();
}

void lwpt_hw_pmi_rearm(void)
{
	/* Done when every handler of this NMI ran (hw_sim_raise_pmi()). */
	this_cpu_ptr(&sim_pmis)->unmask_req = true;
}

/* debugfs lwpt_sim/pmi: each CPU's LVTPC entry and PMI counts. */
static int sim_pmi_show(struct seq_file *m, void *v)
{
	int cpu;

	for_each_online_cpu(cpu) {
		const struct sim_pmi *p = per_cpu_ptr(&sim_pmis, cpu);

		seq_printf(m, "cpu%d lvtpc_masked=%d delivered=%llu dropped=%llu acked_by_other=%llu unknown=%llu early_unmask=%llu foreign_claimed=%llu\n",
			   cpu, p->masked, p->delivered, p->dropped,
			   p->acked_by_other, p->unknown, p->early_unmask,
			   p->foreign_claimed);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_pmi);

void sim_base_init(struct dentry *dir)
{
	int cpu;

	atomic_set(&sim_violations, 0);
	debugfs_create_atomic_t("violations", 0444, dir, &sim_violations);
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&sim_pmis, cpu), 0, sizeof(struct sim_pmi));
	debugfs_create_file("pmi", 0444, dir, NULL, &sim_pmi_fops);
}

int lwpt_hw_lwp_irq_register(lwpt_hw_irq_fn fn, void *data, u8 *vector)
{
	int err = sim_hook_set(&sim_lwp_irq_fn, &sim_lwp_irq_data, fn, data);

	if (!err)
		*vector = SIM_LWP_VECTOR;
	return err;
}

void lwpt_hw_lwp_irq_unregister(void)
{
	WRITE_ONCE(sim_lwp_irq_fn, NULL);
	synchronize_rcu();
}

int lwpt_hw_lwp_irq_vector(unsigned int cpu, u8 *vector)
{
	/* The model does not go through the IDT: one vector everywhere. */
	if (!READ_ONCE(sim_lwp_irq_fn))
		return -ENODEV;
	*vector = SIM_LWP_VECTOR;
	return 0;
}

void hw_sim_raise_lwp_irq(void)
{
	/* Pairs with the smp_store_release() in sim_hook_set(). */
	lwpt_hw_irq_fn fn = smp_load_acquire(&sim_lwp_irq_fn);

	if (fn)
		fn(sim_lwp_irq_data);
}
