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
 * Coexistence (Documentation/bts.rst, "Sharing with perf"): the area
 * pointer and IA32_DEBUGCTL found at a load are restored at the unload,
 * so a CPU returns to exactly its former state; and a capture is refused
 * (bts_ds_busy()) while anyone else points IA32_DS_AREA somewhere or
 * records branches.
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
 * @saved_ds_area: IA32_DS_AREA before the load
 * @saved_debugctl: IA32_DEBUGCTL before the load
 * @loaded: the session whose state is loaded here, or NULL
 */
struct bts_ds_cpu {
	u8 *area;
	u64 saved_ds_area;
	u64 saved_debugctl;
	struct bts_session *loaded;
};

static DEFINE_PER_CPU(struct bts_ds_cpu, bts_ds_cpus);
static bool bts_ds_cpl;

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

void bts_ds_load(struct bts_session *s)
{
	struct bts_ds_cpu *c = this_cpu_ptr(&bts_ds_cpus);
	u64 base = (unsigned long)s->buf;
	u64 max = base + s->records_end;

	lockdep_assert_irqs_disabled();
	if (WARN_ON_ONCE(c->loaded) || s->exited)
		return;
	if (lwpt_hw_rdmsr(IA32_DS_AREA, &c->saved_ds_area))
		c->saved_ds_area = 0;
	if (lwpt_hw_rdmsr(IA32_DEBUGCTL, &c->saved_debugctl))
		return;
	/*
	 * SDM 17.4.9.3: records go from the base to the absolute maximum; with
	 * BTINT the processor stops at the maximum (17.4.5). The threshold is
	 * beyond the maximum (one record past it, as perf's
	 * bts_config_buffer() for a buffer without interrupt): no DS
	 * interrupt.
	 */
	bts_ds_put(c->area, DS_BTS_BUFFER_BASE, base);
	bts_ds_put(c->area, DS_BTS_INDEX, base + s->head);
	bts_ds_put(c->area, DS_BTS_ABSOLUTE_MAXIMUM, max);
	bts_ds_put(c->area, DS_BTS_INTERRUPT_THRESHOLD, max + BTS_RECORD_SIZE);
	if (lwpt_hw_wrmsr(IA32_DS_AREA, (unsigned long)c->area))
		return;
	if (lwpt_hw_wrmsr(IA32_DEBUGCTL, c->saved_debugctl | s->debugctl)) {
		lwpt_hw_wrmsr(IA32_DS_AREA, c->saved_ds_area);
		return;
	}
	c->loaded = s;
	WRITE_ONCE(s->loaded_cpu, smp_processor_id());
	s->switches++;
}

void bts_ds_unload(struct bts_session *s)
{
	struct bts_ds_cpu *c = this_cpu_ptr(&bts_ds_cpus);
	u64 base = (unsigned long)s->buf, index, dbg;

	lockdep_assert_irqs_disabled();
	if (c->loaded != s)
		return;
	/*
	 * Branch recording off first: no record after the index is read. Our
	 * bits go back to what they were; any other bit keeps its value now.
	 */
	if (!lwpt_hw_rdmsr(IA32_DEBUGCTL, &dbg))
		lwpt_hw_wrmsr(IA32_DEBUGCTL, (dbg & ~s->debugctl) |
			      (c->saved_debugctl & s->debugctl));
	index = bts_ds_get(c->area, DS_BTS_INDEX);
	if (index >= base && index <= base + s->records_end)
		s->head = index - base;
	lwpt_hw_wrmsr(IA32_DS_AREA, c->saved_ds_area);
	c->loaded = NULL;
	WRITE_ONCE(s->loaded_cpu, -1);
}
