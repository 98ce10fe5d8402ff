// SPDX-License-Identifier: GPL-2.0
/*
 * The DS save area of each CPU and IA32_DEBUGCTL's branch-trace bits
 * (SDM Vol. 3B 17.4.9, 17.4.9.1, Figure 17-8): what loads and unloads a
 * thread's BTS state on a CPU.
 *
 * Each CPU has its own 64-bit DS management area (SDM 17.4.9.1: "the DS
 * save area ... for each logical processor"), allocated once. Only its BTS
 * fields are used: the buffer base, the index, the absolute maximum and
 * the interrupt threshold; the PEBS fields stay 0. The buffer is the
 * capture's own (bts_buf.c), in kernel memory mapped in every context
 * except under page-table isolation, where the processor's stores from
 * user mode would find nothing (perf's intel_bts is off under PTI for that
 * reason): bts_core.c refuses BTS there on the real processor.
 *
 * The threshold interrupt (SDM 17.4.9.3, the "DS interrupt"): a PMI
 * through the LVT performance-monitor entry, with no bit in
 * IA32_PERF_GLOBAL_STATUS. As perf's intel_bts_interrupt() ("the only
 * surefire way of knowing if this NMI is ours is by checking the write ptr
 * against the PMI threshold"), a PMI is BTS's when this CPU has a capture
 * loaded and the BTS index has reached the interrupt threshold. It is not
 * precise: it can arrive after the state was unloaded (the late PMI), so
 * an unload that finds the index at the threshold and no PMI seen leaves
 * a credit that claims the next PMI on the CPU with nothing loaded, as
 * PT's late-PMI rule (Documentation/pt.rst, "The ToPA PMI").
 *
 * Coexistence (Documentation/bts.rst, "Coexistence with perf"): a
 * capture is refused (bts_ds_busy()) while anyone else points
 * IA32_DS_AREA somewhere or records branches; IA32_DEBUGCTL's bits found
 * at a load are given back at the unload. perf may still take
 * IA32_DS_AREA after CONFIGURE: it writes its DS area on every CPU by IPI
 * when its first x86 event is created (reserve_ds_buffers() ->
 * init_debug_store_on_cpu()) and 0 when the last goes
 * (fini_debug_store_on_cpu()), asking nobody. So the MSR is read before
 * every write of ours: a load finds it 0 or loads nothing; an unload (and
 * a per-CPU capture's switch, bts_ds_sync()) that finds it no longer ours
 * leaves it alone, clears only the capture's own IA32_DEBUGCTL bits and
 * ends the capture (LWPT_BTS_ST_DS_TAKEN) with one log line. Interrupts
 * are off around each read and write: perf's IPI cannot come between.
 */
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include <lwpt/bts_arch.h>

#include "bts_int.h"

/* The 64-bit DS management area: BTS and PEBS fields (Figure 17-8). */
#define BTS_DS_AREA_SIZE	256

/**
 * struct bts_ds_cpu - one CPU's DS area and what a load replaced
 * @area: the DS management area (BTS_DS_AREA_SIZE bytes, kzalloc())
 * @saved_debugctl: IA32_DEBUGCTL before the load
 * @loaded: the session whose state is loaded here, or NULL
 * @busy: a load or unload is under way here (the PMI leaves the DS area
 *	to it)
 * @pmi_seen: a threshold PMI came during @busy: the unload accounts it
 * @pmi_owed: an unload found the threshold reached and no PMI seen: the
 *	PMI may still come, with nothing loaded; it is claimed then
 * @late_pmis: PMIs claimed by @pmi_owed or during @busy
 * @cpu_owner: the per-CPU capture of this CPU (bts_ds_claim()), or NULL
 */
struct bts_ds_cpu {
	u8 *area;
	u64 saved_debugctl;
	struct bts_session *loaded;
	bool busy;
	bool pmi_seen;
	bool pmi_owed;
	u64 late_pmis;
	struct bts_session *cpu_owner;
};

static DEFINE_PER_CPU(struct bts_ds_cpu, bts_ds_cpus);
static bool bts_ds_cpl;

/*
 * Who may load state where: per-thread captures (any CPU) and per-CPU
 * captures (one CPU each) never at once, since a thread's state and a
 * CPU's would need the one DS area of a CPU (bts_ds_claim()).
 */
static DEFINE_SPINLOCK(bts_ds_scope_lock);
static unsigned int bts_ds_threads;	/* per-thread captures attached */
static unsigned int bts_ds_cpu_scopes;	/* per-CPU captures */

int bts_ds_claim(struct bts_session *s)
{
	int err = 0;

	spin_lock(&bts_ds_scope_lock);
	if (s->cpu_scope) {
		struct bts_ds_cpu *c = per_cpu_ptr(&bts_ds_cpus, s->cpu);

		if (bts_ds_threads || c->cpu_owner) {
			err = -EBUSY;
		} else {
			c->cpu_owner = s;
			bts_ds_cpu_scopes++;
		}
	} else {
		if (bts_ds_cpu_scopes)
			err = -EBUSY;
		else
			bts_ds_threads++;
	}
	spin_unlock(&bts_ds_scope_lock);
	return err;
}

void bts_ds_unclaim(struct bts_session *s)
{
	spin_lock(&bts_ds_scope_lock);
	if (s->cpu_scope) {
		struct bts_ds_cpu *c = per_cpu_ptr(&bts_ds_cpus, s->cpu);

		if (!WARN_ON_ONCE(c->cpu_owner != s)) {
			c->cpu_owner = NULL;
			bts_ds_cpu_scopes--;
		}
	} else if (!WARN_ON_ONCE(!bts_ds_threads)) {
		bts_ds_threads--;
	}
	spin_unlock(&bts_ds_scope_lock);
}

bool bts_ds_cpl_qualified(void)
{
	return bts_ds_cpl;
}

int bts_ds_init(const struct lwpt_caps *caps)
{
	int cpu;

	bts_ds_cpl = caps->bts_leaf1.ecx & BTS_CPUID1_ECX_DS_CPL;
	for_each_possible_cpu(cpu) {
		struct bts_ds_cpu *c = per_cpu_ptr(&bts_ds_cpus, cpu);

		c->area = kzalloc_node(BTS_DS_AREA_SIZE, GFP_KERNEL, cpu_to_node(cpu));
		if (!c->area) {
			bts_ds_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

void bts_ds_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct bts_ds_cpu *c = per_cpu_ptr(&bts_ds_cpus, cpu);

		WARN_ON_ONCE(c->loaded);
		kfree(c->area);
		c->area = NULL;
	}
}

static void bts_ds_put(u8 *area, unsigned int off, u64 val)
{
	WRITE_ONCE(*(u64 *)(area + off), val);
}

static u64 bts_ds_get(const u8 *area, unsigned int off)
{
	return READ_ONCE(*(const u64 *)(area + off));
}

/* The branch-recording bits another user of IA32_DEBUGCTL sets. */
#define BTS_DS_DEBUGCTL_USED	(IA32_DEBUGCTL_LBR | IA32_DEBUGCTL_TR | \
				 IA32_DEBUGCTL_BTS)

/**
 * struct bts_ds_probe - the answer of one CPU to bts_ds_busy()
 * @holder: the first holder found, or NULL
 */
struct bts_ds_probe {
	const char *holder;
};

static void bts_ds_probe_cpu(void *arg)
{
	struct bts_ds_cpu *c = this_cpu_ptr(&bts_ds_cpus);
	struct bts_ds_probe *p = arg;
	u64 ds = 0, dbg = 0;

	if (c->loaded)
		return;		/* ours: the per-thread rule decides */
	if (lwpt_hw_rdmsr(IA32_DS_AREA, &ds) || lwpt_hw_rdmsr(IA32_DEBUGCTL, &dbg)) {
		WRITE_ONCE(p->holder, "an unreadable IA32_DS_AREA or IA32_DEBUGCTL");
		return;
	}
	if (ds)
		WRITE_ONCE(p->holder, "perf (IA32_DS_AREA points at its PEBS/BTS buffers)");
	else if (dbg & BTS_DS_DEBUGCTL_USED)
		WRITE_ONCE(p->holder,
			   "another branch recorder (IA32_DEBUGCTL.LBR/TR/BTS set: perf's LBR, a debugger)");
}

bool bts_ds_busy(const char **holder)
{
	struct bts_ds_probe p = { };

	on_each_cpu(bts_ds_probe_cpu, &p, 1);
	*holder = READ_ONCE(p.holder);
	return !!*holder;
}

/*
 * Program the DS area's BTS fields for @s's next stretch (bts_ring.c);
 * returns whether the thread must wait for room. BTS off on this CPU.
 */
static bool bts_ds_program(struct bts_ds_cpu *c, struct bts_session *s)
{
	u64 buf = (unsigned long)s->buf;
	struct bts_region r;

	bts_ring_region(s, &r);
	if (r.pad) {
		memset(s->buf + r.base + s->records_end - r.pad, 0, r.pad);
		WRITE_ONCE(s->head, s->head + r.pad);
	}
	/*
	 * SDM 17.4.9.3: records go from the base to the absolute maximum;
	 * with BTINT the processor stops at the maximum (17.4.5) and the
	 * index reaching the threshold raises the DS interrupt.
	 */
	bts_ds_put(c->area, DS_BTS_BUFFER_BASE, buf + r.base);
	bts_ds_put(c->area, DS_BTS_INDEX, buf + r.index);
	bts_ds_put(c->area, DS_BTS_ABSOLUTE_MAXIMUM, buf + r.max);
	bts_ds_put(c->area, DS_BTS_INTERRUPT_THRESHOLD, buf + r.thresh);
	s->region_base = buf + r.base;
	s->region_head = s->head - (r.index - r.base);
	WRITE_ONCE(s->region_short, r.hold);
	return r.hold;
}

/* The head as the processor left it: the index of the loaded stretch. */
static void bts_ds_account(struct bts_ds_cpu *c, struct bts_session *s)
{
	u64 index = bts_ds_get(c->area, DS_BTS_INDEX);
	u64 max = bts_ds_get(c->area, DS_BTS_ABSOLUTE_MAXIMUM);

	if (index >= s->region_base && index <= max)
		WRITE_ONCE(s->head, s->region_head + (index - s->region_base));
}

/*
 * The head just accounted, to poll(2)'s readers: the session's irq_work
 * wakes them (not wake_up_all() here: a switch holds the runqueue lock, a
 * wake-up would take it again). Only when the head differs from the one
 * the last wake published (@s->woken_head, written by the irq_work), and
 * for a linear capture only the first time (it stays readable from then
 * on): not an irq_work at every switch. A head that moves again while
 * the irq_work is queued is seen by it: it reads the head when it runs.
 */
static void bts_ds_publish(struct bts_session *s)
{
	u64 head = READ_ONCE(s->head), woken = READ_ONCE(s->woken_head);

	if (head == woken || (!s->ring && woken))
		return;
	irq_work_queue(&s->iw);
}

/*
 * Is IA32_DS_AREA of this CPU still @c's DS area (a capture is loaded
 * here)? Not after perf's init_debug_store_on_cpu() or
 * fini_debug_store_on_cpu() ran here. Interrupts off.
 */
static bool bts_ds_ours(const struct bts_ds_cpu *c)
{
	u64 ds;

	return !lwpt_hw_rdmsr(IA32_DS_AREA, &ds) && ds == (unsigned long)c->area;
}

/*
 * Someone else holds IA32_DS_AREA of this CPU now: @s records no more.
 * Its irq_work wakes poll(2) and a held thread and prints the log line
 * (bts_ds_report(); not here: the switch runs under the runqueue lock).
 */
static void bts_ds_taken(struct bts_session *s)
{
	WRITE_ONCE(s->ds_taken_cpu, smp_processor_id());
	WRITE_ONCE(s->ds_taken, true);
	irq_work_queue(&s->iw);
}

void bts_ds_report(struct bts_session *s)
{
	if (!READ_ONCE(s->ds_taken) || xchg(&s->ds_told, true))
		return;
	pr_warn_ratelimited(LWPT_PR_PREFIX "/dev/bts: perf took IA32_DS_AREA of CPU %d (its PEBS/BTS buffers) while a %s capture recorded there: capture ended, perf's pointer left in place (LWPT_BTS_ST_DS_TAKEN); end perf's events before using /dev/bts\n",
			    READ_ONCE(s->ds_taken_cpu),
			    s->cpu_scope ? "per-CPU" : "per-thread");
}

void bts_ds_load(struct bts_session *s)
{
	struct bts_ds_cpu *c = this_cpu_ptr(&bts_ds_cpus);
	bool hold;
	u64 ds;

	lockdep_assert_irqs_disabled();
	if (WARN_ON_ONCE(c->loaded) || bts_session_ended(s))
		return;
	WRITE_ONCE(c->busy, true);
	barrier();
	/*
	 * CONFIGURE found IA32_DS_AREA 0 on every CPU and an unload writes 0
	 * back: anything else is perf's DS area, written since. Never load
	 * over it.
	 */
	if (lwpt_hw_rdmsr(IA32_DS_AREA, &ds) || ds) {
		bts_ds_taken(s);
		goto out;
	}
	if (lwpt_hw_rdmsr(IA32_DEBUGCTL, &c->saved_debugctl))
		goto out;
	hold = bts_ds_program(c, s);
	if (lwpt_hw_wrmsr(IA32_DS_AREA, (unsigned long)c->area))
		goto out;
	c->loaded = s;
	barrier();
	WRITE_ONCE(c->busy, false);
	if (lwpt_hw_wrmsr(IA32_DEBUGCTL, c->saved_debugctl | s->debugctl)) {
		WRITE_ONCE(c->busy, true);
		c->loaded = NULL;
		lwpt_hw_wrmsr(IA32_DS_AREA, 0);
		goto out;
	}
	WRITE_ONCE(s->loaded_cpu, smp_processor_id());
	s->switches++;
	/* No room: the thread waits before its next user instruction. */
	if (hold)
		irq_work_queue(&s->iw);
out:
	barrier();
	WRITE_ONCE(c->busy, false);
}

void bts_ds_unload(struct bts_session *s)
{
	struct bts_ds_cpu *c = this_cpu_ptr(&bts_ds_cpus);
	u64 dbg, back;
	bool dbg_ok, ours;

	lockdep_assert_irqs_disabled();
	if (c->loaded != s)
		return;
	back = c->saved_debugctl & s->debugctl;
	WRITE_ONCE(c->busy, true);
	barrier();
	/*
	 * Branch recording off first: no record after the index is read. Any
	 * other bit keeps its value now. A threshold PMI on its way may arrive
	 * from here on (pmi_seen).
	 */
	dbg_ok = !lwpt_hw_rdmsr(IA32_DEBUGCTL, &dbg);
	if (dbg_ok)
		lwpt_hw_wrmsr(IA32_DEBUGCTL, dbg & ~s->debugctl);
	/*
	 * Still our DS area: our bits go back to what they were, IA32_DS_AREA
	 * to 0. Else perf wrote it since the load: its pointer stays, our
	 * bits stay clear, the capture ends.
	 */
	ours = bts_ds_ours(c);
	if (ours && dbg_ok && back)
		lwpt_hw_wrmsr(IA32_DEBUGCTL, (dbg & ~s->debugctl) | back);
	bts_ds_account(c, s);
	bts_ds_publish(s);
	if (bts_ds_get(c->area, DS_BTS_INDEX) >=
	    bts_ds_get(c->area, DS_BTS_INTERRUPT_THRESHOLD) &&
	    !xchg(&c->pmi_seen, false))
		WRITE_ONCE(c->pmi_owed, true);
	WRITE_ONCE(c->pmi_seen, false);
	if (ours)
		lwpt_hw_wrmsr(IA32_DS_AREA, 0);
	else
		bts_ds_taken(s);
	c->loaded = NULL;
	WRITE_ONCE(s->loaded_cpu, -1);
	barrier();
	WRITE_ONCE(c->busy, false);
}

void bts_ds_sync(struct bts_session *s)
{
	struct bts_ds_cpu *c = this_cpu_ptr(&bts_ds_cpus);

	lockdep_assert_irqs_disabled();
	if (c->loaded != s)
		return;
	/* A per-CPU capture stays loaded: perf's IPI is seen here. */
	if (bts_ds_ours(c)) {
		bts_ds_account(c, s);
		bts_ds_publish(s);
	} else {
		bts_ds_unload(s);
	}
}

void bts_ds_reload(struct bts_session *s)
{
	struct bts_ds_cpu *c = this_cpu_ptr(&bts_ds_cpus);

	lockdep_assert_irqs_disabled();
	if (c->loaded != s)
		return;
	bts_ds_unload(s);
	bts_ds_load(s);
}

/*
 * The PMI consumer LWPT_HW_PMI_BTS (hw.h), in NMI context natively: the
 * threshold interrupt of the capture loaded here. As perf's
 * intel_pmu_handle_irq() with intel_bts_disable_local(): BTS off while
 * the DS area changes, the stretch accounted (the head published), the
 * next stretch given with the reader's latest tail, BTS on again; the
 * session's irq_work wakes poll(2) and holds the thread if the ring has
 * no room. Not ours (perf's counters, a guest's PMI, PT's): false, the
 * DS area untouched.
 */
static bool bts_ds_pmi(void *data)
{
	struct bts_ds_cpu *c = this_cpu_ptr(&bts_ds_cpus);
	struct bts_session *s;
	u64 dbg;

	if (!c->area)
		return false;
	s = READ_ONCE(c->loaded);
	if (READ_ONCE(c->busy)) {
		/* The load or unload under way accounts the stretch. */
		if (s && bts_ds_get(c->area, DS_BTS_INDEX) >=
			 bts_ds_get(c->area, DS_BTS_INTERRUPT_THRESHOLD)) {
			WRITE_ONCE(c->pmi_seen, true);
		} else if (!xchg(&c->pmi_owed, false)) {
			return false;
		}
		c->late_pmis++;
		lwpt_hw_pmi_rearm();
		return true;
	}
	if (!s || bts_ds_get(c->area, DS_BTS_INDEX) <
		  bts_ds_get(c->area, DS_BTS_INTERRUPT_THRESHOLD)) {
		if (!xchg(&c->pmi_owed, false))
			return false;
		c->late_pmis++;
		lwpt_hw_pmi_rearm();
		return true;
	}
	if (lwpt_hw_rdmsr(IA32_DEBUGCTL, &dbg))
		dbg = c->saved_debugctl | s->debugctl;
	lwpt_hw_wrmsr(IA32_DEBUGCTL, dbg & ~s->debugctl);
	bts_ds_account(c, s);
	bts_ds_program(c, s);
	s->pmis++;
	lwpt_hw_wrmsr(IA32_DEBUGCTL, dbg);
	irq_work_queue(&s->iw);
	lwpt_hw_pmi_rearm();
	return true;
}

int bts_ds_pmi_init(void)
{
	return lwpt_hw_pmi_register(LWPT_HW_PMI_BTS, bts_ds_pmi, NULL);
}

void bts_ds_pmi_exit(void)
{
	lwpt_hw_pmi_unregister(LWPT_HW_PMI_BTS);
}
