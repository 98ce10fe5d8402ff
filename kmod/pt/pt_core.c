// SPDX-License-Identifier: GPL-2.0
/*
 * Intel Processor Trace through /dev/pt (SDM Vol. 3 chapter 33).
 *
 * Each open file has its own capture (its session, file->private_data);
 * several run at once (pt_sess_conflict() says who may run beside whom):
 *   CONFIGURE  validates the request against the capabilities decoded once
 *              at load (a whitelist predicate, before any MSR is written),
 *              checks permissions, allocates and zeroes a ToPA buffer per
 *              online CPU, or per selected CPU (cpu_mask), (SDM 33.2.7.2),
 *              or a single range (33.2.7.1);
 *   START      on every CPU with a buffer: refuse if TraceEn is already set (someone
 *              else's trace), program the output and filter MSRs with
 *              TraceEn=0, then set TraceEn (SDM 33.3);
 *   STOP       clear TraceEn, then read OUTPUT_BASE, OUTPUT_MASK_PTRS and
 *              STATUS (stable once TraceEn is 0, SDM 33.2.8.5);
 *   STATUS     per CPU: IA32_RTIT_STATUS, bytes written, wraps, losses;
 *   RELEASE    continuous mode: the reader's position; restarts a CPU that
 *              waited for room;
 *   mmap       each CPU's buffer, read-only;
 *   READ_SIDEBAND  per CPU: the context switches recorded (pt_sideband.c).
 * Closing the file stops and frees its capture. Documentation/pt.rst has
 * the ABI, the modes, the permissions and the limits. Capabilities and
 * validation are in pt_config.c, the output buffers in pt_buf.c, the
 * output state of one buffer (accounting, pause/resume, the continuous-mode
 * gate) in pt_output.c.
 *
 * Per-CPU state is changed only on its CPU (IPI or PMI) or while no CPU
 * traces (configure, free); pt_lock serialises the control path.
 */
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/cpuhotplug.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <linux/syscore_ops.h>
#include <linux/uaccess.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_arch.h>
#include <lwpt/pt_rtit.h>

#include "../x86_cpuid.h"
#include "../branch_owner.h"
#include "../lwpt.h"	/* lwpt_dev_ioctl_misc() */
#include "pt_int.h"

/* Serialises the control path (ioctl, mmap, release): pt_int.h order. */
DEFINE_MUTEX(pt_lock);
DEFINE_PER_CPU(struct pt_cpu, pt_cpus);
/* The configured sessions (pt_lock). */
static LIST_HEAD(pt_sessions);
/*
 * The per-CPU session, or NULL: it owns every CPU's pt_cpu.tr. Changed under
 * pt_lock and cpus_read_lock(), so hotplug and suspend callbacks see it
 * stable.
 */
static struct pt_session *pt_cpu_owner;
static bool pt_pmi_hooked;
static int pt_cpuhp_state = -1;

static void pt_cpu_start(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_output *tr = &pc->tr;
	u64 ctl = 0;

	tr->err = 0;
	if (!tr->configured)
		return;
	pt_cpu_update_begin(pc);
	/* Someone else's trace (firmware, perf, a debugger): never take over. */
	if (lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl)) {
		tr->err = -EIO;
		goto out;
	}
	if (ctl & IA32_RTIT_CTL_TRACEEN) {
		tr->busy = true;
		tr->err = -EBUSY;
		goto out;
	}
	/* Configure with TraceEn=0 (SDM 33.3, 33.2.8): output, filters, CTL. */
	if (lwpt_hw_wrmsr(IA32_RTIT_CTL, tr->ctl) ||
	    lwpt_hw_wrmsr(IA32_RTIT_STATUS, 0) ||
	    lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_BASE, pt_buf_output_base(&tr->buf)) ||
	    lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_MASK_PTRS,
			  pt_buf_output_mask_ptrs(&tr->buf)) ||
	    pt_rtit_write_filters(tr->sess)) {
		tr->err = -EIO;
		goto out;
	}
	pt_output_reset(tr);
	pc->offline = false;
	pc->pmi_seen = false;
	tr->tracing = true;
	pt_sb_start(pc);
	pt_output_resume(tr);
out:
	pt_cpu_update_end(pc);
}

static void pt_cpu_stop(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_output *tr = &pc->tr;

	tr->err = 0;
	WRITE_ONCE(pc->sb.on, false);
	pt_cpu_update_begin(pc);
	if (tr->tracing) {
		pt_output_pause(tr);
		tr->tracing = false;
	} else if (tr->stalled) {
		tr->stalled = false;
	}
	pt_cpu_update_end(pc);
}

/* Status: read precise pointers (TraceEn off for a moment if tracing). */
static void pt_cpu_sample(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_output *tr = &pc->tr;

	tr->err = 0;
	pt_cpu_update_begin(pc);
	if (tr->tracing) {
		pt_output_pause(tr);
		pt_output_continue(tr);
	}
	pt_cpu_update_end(pc);
}

/* Continuous mode: the reader released data; move the gate, go on. */
static void pt_cpu_release(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_output *tr = &pc->tr;

	pt_cpu_update_begin(pc);
	if (tr->sess && tr->sess->started && !pc->offline) {
		if (tr->tracing) {
			pt_output_pause(tr);
			pt_output_continue(tr);
		} else if (tr->stalled) {
			pt_output_continue(tr);
		}
	}
	pt_cpu_update_end(pc);
}

/*
 * CPU offline or suspend during a per-CPU capture: stop tracing here and
 * keep the state (SDM 33.3.5.1 order) so the data stays readable and
 * tracing resumes where it was when the CPU comes back.
 */
static void pt_cpu_park(struct pt_cpu *pc)
{
	struct pt_output *tr = &pc->tr;

	if (!tr->configured || !tr->sess->started || pc->offline)
		return;
	pt_cpu_update_begin(pc);
	pc->was_tracing = tr->tracing;
	if (tr->tracing) {
		if (pt_rtit_save(&pc->saved))
			tr->err = -EIO;
		else if (pt_output_account(tr, pc->saved.output_base,
					   pc->saved.output_mask_ptrs,
					   pc->saved.status,
					   pt_cpu_pmi_raised(pc) |
					   xchg(&pc->pmi_seen, false)))
			pt_output_saved_put_back(tr, &pc->saved);
		tr->tracing = false;
		tr->lost++;	/* time not traced */
	}
	pc->offline = true;
	pt_cpu_update_end(pc);
}

static void pt_cpu_unpark(struct pt_cpu *pc)
{
	struct pt_output *tr = &pc->tr;
	u64 ctl = 0;

	if (!pc->offline)
		return;
	pc->offline = false;
	if (!tr->configured || !tr->sess->started || !pc->was_tracing || tr->err ||
	    READ_ONCE(pt_quiesced))
		return;
	pt_cpu_update_begin(pc);
	/* The state may be lost (S3): program it all again, CTL last. */
	if (lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl) || (ctl & IA32_RTIT_CTL_TRACEEN)) {
		tr->busy = true;
		goto out;
	}
	/* SDM 33.3.1.2: not with IA32_DEBUGCTL.LBR set (pt_config.c). */
	if (pt_output_lbr_refuse(tr)) {
		tr->tracing = false;
		goto out;
	}
	pc->saved.ctl = tr->ctl | IA32_RTIT_CTL_TRACEEN;
	pc->saved.status &= ~IA32_RTIT_STATUS_READ_ONLY;
	/* Before TraceEn: a PMI right after the enable is claimed (pt_pmi()). */
	tr->tracing = true;
	if (pt_rtit_restore(&pc->saved, tr->sess)) {
		tr->tracing = false;
		tr->err = -EIO;
	}
out:
	pt_cpu_update_end(pc);
}

static int pt_cpu_online(unsigned int cpu)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	unsigned long flags;

	local_irq_save(flags);
	pt_cpu_unpark(pc);
	local_irq_restore(flags);
	return 0;
}

/*
 * Runs on the CPU going down (CPUHP_AP_ONLINE_DYN teardown). Threads it
 * ran are switched out (and saved) before they migrate; only a per-CPU
 * trace must be parked here. Its session's started cannot change
 * meanwhile: START and STOP hold cpus_read_lock().
 */
static int pt_cpu_offline(unsigned int cpu)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	unsigned long flags;

	local_irq_save(flags);
	pt_cpu_park(pc);
	pt_thread_cpu_down(pc);
	local_irq_restore(flags);
	return 0;
}

/*
 * Suspend: syscore_ops run on the boot CPU with interrupts off, after the
 * other CPUs went offline (pt_cpu_offline() parked them). On resume the
 * RTIT MSRs may have lost their values (S3): everything is rewritten.
 */
static int pt_syscore_suspend(void)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);

	pt_cpu_park(pc);
	pt_thread_suspend(pc);
	return 0;
}

static void pt_syscore_resume(void)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);

	pt_cpu_unpark(pc);
	pt_thread_resume(pc);
}

static struct syscore_ops pt_syscore_ops = {
	.suspend = pt_syscore_suspend,
	.resume = pt_syscore_resume,
};

/*
 * A ToPA PMI (bit 55 set) taken while this CPU's RTIT MSRs are being
 * changed (pc->in_update): between a trace's TraceEn write and the
 * bookkeeping around it. SDM 33.2.7.2 "PMI Preservation", with
 * InjectPsbPmiOnEnable set (@tr->ctl): a PMI taken with TraceEn=0 and
 * PendTopaPMI set is pended again when TraceEn next goes 0 -> 1 (step 1:
 * ignore it, leave the bit set; it is counted then); one taken with
 * TraceEn=1 is handled, and PendTopaPMI must be cleared before the LVT
 * entry is unmasked (step 2). STATUS is writable only with TraceEn=0
 * (SDM 33.2.8.4): TraceEn is cleared around the write, which no
 * interrupted sequence minds (TraceEn=1 inside an update only right after
 * its enabling write or right before its disabling one).
 *
 * Return: the PMI is counted now (a filled region the interrupted code's
 * accounting must know of: pc->pmi_seen).
 */
static bool pt_pmi_in_update(struct pt_output *tr)
{
	u64 ctl = 0, st = 0;

	if (!pt_has(LWPT_PT_CAP_PSB_PMI_PRESERVE) ||
	    !(tr->ctl & IA32_RTIT_CTL_INJECTPSBPMIONENABLE) ||
	    lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl))
		return true;
	if (!(ctl & IA32_RTIT_CTL_TRACEEN))
		return lwpt_hw_rdmsr(IA32_RTIT_STATUS, &st) ||
		       !(st & IA32_RTIT_STATUS_PENDTOPAPMI);
	if (lwpt_hw_wrmsr(IA32_RTIT_CTL, ctl & ~IA32_RTIT_CTL_TRACEEN))
		return true;
	if (!lwpt_hw_rdmsr(IA32_RTIT_STATUS, &st) &&
	    (st & IA32_RTIT_STATUS_PENDTOPAPMI))
		lwpt_hw_wrmsr(IA32_RTIT_STATUS, st & ~(IA32_RTIT_STATUS_PENDTOPAPMI |
						       IA32_RTIT_STATUS_READ_ONLY));
	lwpt_hw_wrmsr(IA32_RTIT_CTL, ctl);
	return true;
}

/*
 * A ToPA PMI with nothing of lwpt's tracing on this CPU (@pc's trace paused
 * by a switch-out, STOP, an unload): the NMI's delivery can outlast the
 * code that cleared TraceEn (SDM 33.2.7.2: "This interrupt is not
 * precise"), by any time on a host that deschedules a virtual CPU. Nobody
 * else would claim it without a perf event (an "NMI received for unknown
 * reason", LVTPC left masked, every later PMI on the CPU lost); perf claims
 * bit 55 whenever its handler is active (handle_pmi_common() counts it
 * handled even after pt_event_stop(): intel_pt_interrupt() ignores the
 * "dangling PT bit"). lwpt cannot claim every bit 55 (a KVM guest's ToPA
 * PMI sets it too), and no time tells a late NMI from another. It is
 * lwpt's when bit 55 is set, TraceEn is clear and either lwpt's update here
 * is under way (its code cleared TraceEn and reads the pointers itself), or
 * an update found this very bit 55 set after clearing TraceEn and left the
 * credit (pc->pmi_owed, pt_cpu_pmi_raised()): acknowledged, LVTPC unmasked,
 * counted; nothing to account (the update did). One credit claims one NMI.
 */
static bool pt_pmi_late(struct pt_cpu *pc)
{
	u64 gs = 0, ctl = 0;

	if (lwpt_hw_rdmsr(IA32_PERF_GLOBAL_STATUS, &gs) ||
	    !(gs & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI) ||
	    lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl) || (ctl & IA32_RTIT_CTL_TRACEEN))
		return false;
	if (!xchg(&pc->pmi_owed, false) && !READ_ONCE(pc->in_update))
		return false;
	lwpt_hw_wrmsr(IA32_PERF_GLOBAL_STATUS_RESET,
		      IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	pc->late_pmis++;
	lwpt_hw_pmi_rearm();
	return true;
}

/*
 * The ToPA PMI (SDM 33.2.7.2, Table 33-4), in NMI context natively,
 * registered first on NMI_LOCAL (hw_native.c). Whether it is ours cannot
 * rest on IA32_PERF_GLOBAL_STATUS bit 55 alone: another handler may have
 * acknowledged it already (perf's intel_pmu_handle_irq() acks every bit
 * whenever a perf event exists), and a KVM guest's ToPA PMI sets the same
 * bit (perf asks perf_guest_handle_intel_pt_intr(), a static call a module
 * cannot make). So the PMI is ours when this CPU traces for us and bit 55
 * is set, or our own pointers show an INT region filled since the last
 * look (@pmi_due), or the processor stopped or saw an error. Otherwise it
 * is left alone: bit 55 unacknowledged, NMI_DONE. Documentation/pt.rst,
 * "The ToPA PMI".
 */
static bool pt_pmi(void *data)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	struct pt_output *tr;
	bool bit;
	u64 gs = 0;

	/*
	 * A per-thread trace loaded here, else the CPU's own (per-CPU scope,
	 * never both: pt_sess_conflict()). Neither is freed before TraceEn
	 * is cleared here by IPI and synchronize_rcu() waited for this NMI.
	 */
	tr = pt_thread_cur_trace(pc);
	if (!tr)
		tr = &pc->tr;
	if (!READ_ONCE(tr->tracing))
		return pt_pmi_late(pc);
	bit = !lwpt_hw_rdmsr(IA32_PERF_GLOBAL_STATUS, &gs) &&
	      (gs & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	if (READ_ONCE(pc->in_update)) {
		/*
		 * The interrupted code reads the pointers; note the fill. But
		 * a region of the loaded thread may have filled after the
		 * update read its pointers, or in an update that reads none
		 * (a load: its PMI comes right after the enabling write, with
		 * what the enable wrote), and its hold watermark with it. So
		 * for a thread's trace, once the update is over, pt_cpu.hold_iw
		 * (NMI-safe) accounts the output and holds the thread if due
		 * (issue 39 point 5); one look too many costs a pause and a
		 * resume. With bit 55 acknowledged by another handler first
		 * (perf's, pt_nmi_first_acker=1) the NMI may be ours or not:
		 * it is left to that handler.
		 */
		if (tr != &pc->tr) {
			WRITE_ONCE(pc->hold_sync, true);
			irq_work_queue(&pc->hold_iw);
		}
		if (!bit)
			return false;
		/* Accounted already if the update left a credit for it. */
		if (pt_pmi_in_update(tr)) {
			if (!xchg(&pc->pmi_owed, false))
				WRITE_ONCE(pc->pmi_seen, true);
			tr->pmi_due = false;
			tr->pmis++;
		}
		lwpt_hw_wrmsr(IA32_PERF_GLOBAL_STATUS_RESET,
			      IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
		lwpt_hw_pmi_rearm();
		return true;
	}
	/*
	 * Table 33-4: clear TraceEn, handle, clear the PMI, re-enable. A
	 * bit 55 that an update accounted already (its credit) is claimed
	 * without a second region fill.
	 */
	pt_output_pause_pmi(tr, bit && !xchg(&pc->pmi_owed, false));
	if (!bit && !tr->pmi_due && !tr->err &&
	    !(tr->rtit_status & (IA32_RTIT_STATUS_ERROR | IA32_RTIT_STATUS_STOPPED))) {
		/* Not ours (perf's, a guest's): go on as if never paused. */
		pt_output_continue(tr);
		return false;
	}
	tr->pmi_due = false;
	tr->pmis++;
	if (bit)
		lwpt_hw_wrmsr(IA32_PERF_GLOBAL_STATUS_RESET,
			      IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
	/* 33.2.7.2 PMI Preservation: PendTopaPMI cleared before LVTPC. */
	if (pt_has(LWPT_PT_CAP_PSB_PMI_PRESERVE) &&
	    (tr->rtit_status & IA32_RTIT_STATUS_PENDTOPAPMI)) {
		tr->rtit_status &= ~IA32_RTIT_STATUS_PENDTOPAPMI;
		lwpt_hw_wrmsr(IA32_RTIT_STATUS,
			      tr->rtit_status & ~IA32_RTIT_STATUS_READ_ONLY);
	}
	pt_output_continue(tr);
	lwpt_hw_pmi_rearm();
	return true;
}

/*
 * Reboot, halt, power-off and kexec (kernel_kexec() calls the reboot
 * notifiers through kernel_restart_prepare()): our buffers go back to the
 * next kernel, so the processor must stop writing into them first. On
 * every CPU where lwpt's trace is loaded, TraceEn is cleared (SDM 33.2.8.2:
 * output stops, the pointers stay). Nothing else is torn down.
 */
static void pt_cpu_quiesce(void *arg)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	u64 ctl = 0;

	if (!READ_ONCE(pc->tr.tracing) && !READ_ONCE(pc->cur))
		return;
	if (!lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl) && (ctl & IA32_RTIT_CTL_TRACEEN))
		lwpt_hw_wrmsr(IA32_RTIT_CTL, ctl & ~IA32_RTIT_CTL_TRACEEN);
}

/**
 * pt_quiesce - the system is going down: TraceEn off for good, everywhere
 *
 * Sets pt_quiesced, which every path that sets TraceEn honours: a thread's
 * sched-in, START's, RELEASE's and STATUS's IPIs (pt_output_resume()),
 * the ToPA PMI, a CPU coming online, resume; START fails with -ESHUTDOWN.
 * Then clears TraceEn on every online CPU. The flag is written before the
 * IPIs (smp_call_function_many() orders it): an enable path that runs on
 * a CPU after its IPI sees it; one that ran before, with IRQs off, is done
 * when the IPI clears TraceEn. A CPU that comes online later (before the
 * machine stops) sees it in pt_cpu_unpark(). Process context.
 */
void pt_quiesce(void)
{
	WRITE_ONCE(pt_quiesced, true);
	on_each_cpu(pt_cpu_quiesce, NULL, 1);
}

static int pt_reboot(struct notifier_block *nb, unsigned long action, void *data)
{
	pt_quiesce();
	return NOTIFY_DONE;
}

static struct notifier_block pt_reboot_nb = {
	.notifier_call = pt_reboot,
};

/* --- The sessions -------------------------------------------------------- */

/* Free every buffer of @s and undo its CONFIGURE; pt_lock held, stopped. */
static void pt_sess_free(struct pt_session *s)
{
	int cpu;

	if (!s->configured)
		return;
	list_del_init(&s->node);
	if (s->cfg.scope == LWPT_PT_SCOPE_THREAD)
		pt_thread_sess_free(s);
	if (pt_cpu_owner == s) {
		/* No sched_switch probe runs after this: the rings may go. */
		pt_sb_sess_free(s);
		cpus_read_lock();
		for_each_possible_cpu(cpu) {
			struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

			pt_buf_free(&pc->tr.buf);
			pt_sb_free(pc);
			memset(&pc->tr, 0, sizeof(pc->tr));
			memset(&pc->saved, 0, sizeof(pc->saved));
			pc->offline = false;
			pc->was_tracing = false;
		}
		pt_cpu_owner = NULL;
		cpus_read_unlock();
	}
	if (s->cpus_claimed)
		lwpt_branch_release_cpus(LWPT_BRANCH_PT);
	s->cpus_claimed = false;
	if (s->cred)
		put_cred(s->cred);
	s->cred = NULL;
	pt_mem_free(&s->mem);
	if (s->cr3_mm)
		mmdrop(s->cr3_mm);
	s->cr3_mm = NULL;
	put_pid(s->owner_tgid);
	s->owner_tgid = NULL;
	memset(&s->cfg, 0, sizeof(s->cfg));
	s->ctl = 0;
	s->cr3 = 0;
	s->privileged = false;
	s->perfmon = false;
	s->preempted = false;
	s->configured = false;
}

/* Stop every CPU or thread of @s; pt_lock held. */
static void pt_sess_stop(struct pt_session *s)
{
	if (!s->started)
		return;
	if (s->cfg.scope == LWPT_PT_SCOPE_THREAD) {
		pt_thread_stop(s);
		return;
	}
	cpus_read_lock();
	on_each_cpu(pt_cpu_stop, NULL, 1);
	s->started = false;
	cpus_read_unlock();
}

/**
 * pt_sess_alloc_cpus - per-CPU scope: a zeroed buffer and a sideband ring
 * @s: the session being configured (pt_lock held; @s->mem initialised)
 * @sel: the selected CPUs (lwpt_pt_config.cpu_mask), or empty for every
 *	online CPU
 * @cfg: the caller's configuration, for the answer (rule memlock)
 *
 * Every buffer is charged to the caller first (pt_mem.c), under
 * cpus_read_lock(): the CPUs counted are the CPUs that get a buffer (a CPU
 * coming online or going offline between a count taken before the lock
 * and the allocation would make the charge differ from the pages pinned,
 * issue 27 2.8).
 *
 * Unselected CPUs get nothing: no buffer, no ring, status not CONFIGURED,
 * also when they come online later (pt_cpu_online() unparks only CPUs with
 * a buffer). A selected CPU that goes offline and back is parked and
 * resumed as any CPU of the capture.
 *
 * Return: 0; -ENODEV a selected CPU is offline (as perf_event_open() on an
 * offline CPU); -ENOMEM (rule memlock if over the caller's allowance);
 * -EBUSY /dev/bts records a thread (branch_owner.h).
 */
static int pt_sess_alloc_cpus(struct pt_session *s, const struct cpumask *sel,
			      struct lwpt_pt_config *cfg)
{
	const struct cpumask *cpus = cpumask_empty(sel) ? cpu_online_mask : sel;
	int cpu, err;

	/* Every thread may run here: none may be BTS's (branch_owner.h). */
	err = lwpt_branch_claim_cpus(LWPT_BRANCH_PT);
	if (err) {
		cfg->bad_field = LWPT_PT_FIELD_SCOPE;
		return err;
	}
	s->cpus_claimed = true;
	cpus_read_lock();
	pt_cpu_owner = s;
	if (!cpumask_empty(sel) && !cpumask_subset(sel, cpu_online_mask)) {
		err = -ENODEV;
		goto out_unlock;
	}
	/* Charged per CPU that gets a buffer: the selected ones, or all. */
	if (pt_mem_charge(&s->mem, cpumask_weight(cpus) *
			  pt_mem_buf_pages(cfg->buffer_size,
					   cfg->flags & LWPT_PT_CFG_SINGLE_RANGE))) {
		err = pt_config_refuse_memlock(cfg);
		goto out_unlock;
	}
	/*
	 * No buffer yet; per-thread STARTs may have left err, busy. Every CPU,
	 * so that an unselected one reports no flag at all.
	 */
	for_each_possible_cpu(cpu)
		memset(&per_cpu_ptr(&pt_cpus, cpu)->tr, 0, sizeof(struct pt_output));
	for_each_cpu(cpu, cpus) {
		struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

		err = pt_buf_alloc(&pc->tr.buf, cfg->buffer_size,
				   cfg->region_size,
				   cfg->flags & LWPT_PT_CFG_SINGLE_RANGE,
				   cpu_to_node(cpu));
		if (!err)
			err = pt_sb_alloc(pc, cpu_to_node(cpu));
		if (err)
			break;
		pt_buf_write_topa(&pc->tr.buf, cfg->mode);
		pc->tr.ctl = s->ctl;
		pc->tr.sess = s;
		pc->tr.configured = true;
	}
out_unlock:
	cpus_read_unlock();
	/* The sched_switch probe fills the rings between START and STOP. */
	if (!err)
		err = pt_sb_sess_init(s);
	return err;
}

static const char *pt_scope_name(u32 scope)
{
	return scope == LWPT_PT_SCOPE_CPU ? "per-CPU" : "per-thread";
}

/*
 * Name the owner of @h (and the caller) in the kernel log: who holds what,
 * as root sees it (pids in the initial namespace).
 */
static void pt_sess_log(const char *what, const struct lwpt_pt_config *cfg,
			const struct pt_session *h)
{
	pr_info_ratelimited("pt: %s capture by %s[%d] uid %u: %s %s capture of %s[%d] uid %u\n",
			    pt_scope_name(cfg->scope), current->comm,
			    task_tgid_nr(current),
			    from_kuid(&init_user_ns, current_uid()), what,
			    pt_scope_name(h->cfg.scope), h->owner_comm,
			    pid_nr(h->owner_tgid),
			    from_kuid(&init_user_ns, h->owner_uid));
}

/**
 * pt_sess_conflict - who is in the way of a new capture, and the rule
 * @s: the caller's session (not configured)
 * @cfg: the accepted configuration
 * @target: per-thread scope: the target process's thread, else NULL
 * @perfmon: the caller has CAP_PERFMON or CAP_SYS_ADMIN
 *
 * The rule (Documentation/pt.rst, "Concurrent captures"): per-thread
 * captures of different processes run side by side; a thread is traced by
 * one capture at most; a per-CPU capture excludes every other capture,
 * also one on disjoint selected CPUs (kept simple: one owner of the
 * per-CPU buffers, the PMI and the sideband). A capture in the way is ended (preempted: its data
 * stays readable, its threads' status says LWPT_PT_STOP_PREEMPTED) if the
 * caller is privileged (@perfmon) and its owner was not; otherwise the
 * caller gets EBUSY naming it. An unprivileged user can thus never keep a
 * privileged one out, and never end anyone else's capture. Ended captures
 * are in nobody's way. pt_lock held.
 *
 * Return: NULL if the new capture may run (those in the way ended), else
 * the session that holds it out.
 */
static struct pt_session *pt_sess_conflict(struct pt_session *s,
					   const struct lwpt_pt_config *cfg,
					   struct task_struct *target,
					   bool perfmon)
{
	struct pt_session *h, *tmp;

	if (cfg->scope == LWPT_PT_SCOPE_THREAD) {
		h = pt_cpu_owner;
		if (!h)
			h = pt_thread_holder(target);
		if (!h || h == s)
			return NULL;
		if (h->perfmon || !perfmon || h->cfg.scope != LWPT_PT_SCOPE_THREAD)
			return h;
		pt_sess_log("ends the", cfg, h);
		pt_thread_preempt(h);
		h->preempted = true;
		return NULL;
	}
	/* Per CPU: everyone else is in the way; the privileged first. */
	list_for_each_entry(h, &pt_sessions, node)
		if (h != s && !h->preempted && (h->perfmon || !perfmon ||
						h->cfg.scope != LWPT_PT_SCOPE_THREAD))
			return h;
	list_for_each_entry_safe(h, tmp, &pt_sessions, node) {
		if (h == s || h->preempted)
			continue;
		pt_sess_log("ends the", cfg, h);
		pt_thread_preempt(h);
		h->preempted = true;
	}
	return NULL;
}

/**
 * pt_ioctl_configure - LWPT_PT_IOC_CONFIGURE: validate, allocate buffers
 * @file: the /dev/pt file whose session it configures
 * @arg: struct lwpt_pt_config in user space (size-versioned)
 *
 * Validation (SDM 33.2.8) and the CPU selection (size version 2) before
 * any MSR is written, then permissions, then who else runs
 * (pt_sess_conflict()), then a buffer per online or selected CPU,
 * or (LWPT_PT_SCOPE_THREAD) one per thread of @pid plus spares for threads
 * that join later (pt_thread.c). A configured session is freed first (its
 * data is gone). The struct is written back on every outcome with
 * bad_field naming a refused field and, with EBUSY, holder the process
 * that holds the capture in the way (its name, pid and uid also in the
 * kernel log).
 *
 * A per-thread capture takes the target's signal->exec_update_lock for
 * reading before pt_lock, as perf_event_open() takes it before ctx->mutex,
 * checks the permission again under it (an exec may have changed the
 * credentials since pt_config_permit()) and holds it until the threads are
 * attached: no exec can come between the check and the attach. Taking it
 * under pt_lock would close a cycle with exec (exec_update_lock, then the
 * old mm's mmap_lock in exec_mmap()) and mmap (mmap_lock, then pt_lock in
 * pt_mmap()): pt_int.h has the order.
 *
 * Return: 0; -EFAULT bad pointer (the struct or cpu_mask); -EINVAL bad
 * size or value; -E2BIG unknown trailing bytes not zero; -EOPNOTSUPP a
 * feature the processor lacks; -EPERM/-EACCES not allowed; -ESRCH no such
 * @pid; -ENODEV a selected CPU is offline; -EBUSY another capture is in
 * the way, or this file's is started or still mapped; -ENOMEM; -EINTR a
 * signal came while waiting for the target's exec to finish.
 */
static long pt_ioctl_configure(struct file *file, void __user *arg)
{
	struct pt_session *s = file->private_data, *h;
	struct task_struct *target = NULL;
	struct mm_struct *cr3_mm = NULL;
	struct lwpt_pt_config cfg;
	cpumask_var_t sel;
	u64 ctl, cr3 = 0;
	u32 usize;
	int err;

	err = pt_copy_in(&cfg, sizeof(cfg), LWPT_PT_CONFIG_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (!zalloc_cpumask_var(&sel, GFP_KERNEL))
		return -ENOMEM;
	cfg.bad_field = LWPT_PT_FIELD_NONE;
	err = pt_config_check(&cfg, &ctl);
	if (!err)
		err = pt_config_cpu_mask(&cfg, sel);
	if (!err)
		err = pt_config_permit(&cfg, &cr3, &cr3_mm, &target);
	if (err)
		goto out_report;
	if (target) {
		/* From the check to the attach, no exec can change the credentials. */
		err = down_read_interruptible(&target->signal->exec_update_lock);
		if (err) {
			cfg.bad_field = LWPT_PT_FIELD_PID;
			goto out_report;
		}
		err = pt_config_permit_target(&cfg, target, NULL);
		if (err)
			goto out_exec_unlock;
	}

	mutex_lock(&pt_lock);
	cfg.holder = 0;
	/* Pages still mapped stay pinned: their charge must stay too. */
	if (s->started || atomic_read(&s->mappings)) {
		err = -EBUSY;
		goto out_unlock;
	}
	pt_sess_free(s);
	h = pt_sess_conflict(s, &cfg, target, perfmon_capable());
	if (h) {
		/* Who is in the way, as the caller sees it (0 if hidden). */
		cfg.holder = pid_vnr(h->owner_tgid);
		pt_sess_log("refused (EBUSY): held out by the", &cfg, h);
		err = -EBUSY;
		goto out_unlock;
	}
	s->cfg = cfg;
	s->ctl = ctl;
	s->cr3 = cr3;
	s->cr3_mm = cr3_mm;
	cr3_mm = NULL;
	/* For the permission rule at an exec (pt_config_follow_check()). */
	s->privileged = perfmon_capable() || capable(CAP_SYS_PTRACE);
	s->perfmon = perfmon_capable();
	s->cred = get_current_cred();
	s->owner_tgid = get_task_pid(current, PIDTYPE_TGID);
	s->owner_uid = current_uid();
	get_task_comm(s->owner_comm, current);
	s->configured = true;
	list_add_tail(&s->node, &pt_sessions);
	/* Every buffer is charged before it is allocated (pt_mem.c). */
	err = pt_mem_init(&s->mem);
	if (!err && cfg.scope == LWPT_PT_SCOPE_THREAD)
		err = pt_thread_sess_init(s, target, &cfg);
	else if (!err)
		err = pt_sess_alloc_cpus(s, sel, &cfg);
	if (err) {
		pt_sess_free(s);	/* puts the credentials, memory too */
		if (!cfg.bad_field)
			cfg.bad_field = err == -ENOMEM ? LWPT_PT_FIELD_BUFFER_SIZE :
					err == -ENODEV ? LWPT_PT_FIELD_CPU_MASK :
							 LWPT_PT_FIELD_PID;
	}
out_unlock:
	mutex_unlock(&pt_lock);
out_exec_unlock:
	if (target)
		up_read(&target->signal->exec_update_lock);
out_report:
	free_cpumask_var(sel);
	if (target)
		put_task_struct(target);
	if (cr3_mm)
		mmdrop(cr3_mm);
	/* Write back bad_field (and the size) whatever the outcome. */
	if (pt_copy_out(arg, &cfg, sizeof(cfg), usize))
		return -EFAULT;
	return err;
}

/*
 * The session of @file if it is configured; pt_lock held. -ENODATA if not.
 */
static int pt_sess_of(struct file *file, struct pt_session **sp)
{
	*sp = file->private_data;
	return (*sp)->configured ? 0 : -ENODATA;
}

/**
 * pt_ioctl_start - LWPT_PT_IOC_START: set TraceEn (SDM 33.3 order)
 * @file: the file whose capture starts
 *
 * Per CPU: on every CPU with a buffer, in an IPI. Per thread: the probes
 * load each traced thread's state when it runs (pt_thread.c).
 *
 * Return: 0; -ENODATA not configured; -EBUSY started already, ended by a
 * privileged capture (LWPT_PT_STOP_PREEMPTED: configure again), TraceEn
 * already set by someone else, or IA32_DEBUGCTL.LBR set on a CPU of a
 * PT/LBR-exclusive model (SDM 33.3.1.2, logged); -EIO a WRMSR faulted
 * (e.g. in VMX operation, SDM 33.2.9.4); -ESHUTDOWN the system is going
 * down (reboot or kexec, pt_quiesce()).
 */
static long pt_ioctl_start(struct file *file)
{
	struct pt_session *s;
	int cpu, err;

	mutex_lock(&pt_lock);
	err = pt_sess_of(file, &s);
	if (err)
		goto out_unlock;
	if (s->started || s->preempted) {
		err = -EBUSY;
		goto out_unlock;
	}
	/* Rebooting or kexec'ing (pt_quiesce()). */
	if (READ_ONCE(pt_quiesced)) {
		err = -ESHUTDOWN;
		goto out_unlock;
	}
	/* PT/LBR-exclusive models: not while a CPU has DEBUGCTL.LBR set. */
	err = pt_config_lbr_check_cpus();
	if (err)
		goto out_unlock;
	if (s->cfg.scope == LWPT_PT_SCOPE_THREAD) {
		err = pt_thread_start(s);
		goto out_unlock;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct pt_cpu *pc = per_cpu_ptr(&pt_cpus, cpu);

		if (!pc->tr.configured)
			continue;
		/* Zero again: user space sees no data of an earlier capture. */
		if (pc->tr.head)
			pt_buf_clear(&pc->tr.buf);
		/* INT and STOP as at CONFIGURE: the gate moved (pt_output_gate()). */
		pt_buf_write_topa(&pc->tr.buf, s->cfg.mode);
		smp_call_function_single(cpu, pt_cpu_start, NULL, 1);
		if (pc->tr.err) {
			err = pc->tr.err;
			break;
		}
	}
	s->started = true;
	cpus_read_unlock();
	if (err)
		pt_sess_stop(s);
out_unlock:
	mutex_unlock(&pt_lock);
	return err;
}

/**
 * pt_ioctl_stop - LWPT_PT_IOC_STOP: clear TraceEn everywhere
 * @file: the file whose capture stops
 *
 * Buffers stay mapped and readable; STATUS then reports final numbers.
 *
 * Return: 0; -ENODATA not configured.
 */
static long pt_ioctl_stop(struct file *file)
{
	struct pt_session *s;
	int err;

	mutex_lock(&pt_lock);
	err = pt_sess_of(file, &s);
	if (!err)
		pt_sess_stop(s);
	mutex_unlock(&pt_lock);
	return err;
}

/* Which buffer of @s a status or release asks about; -EINVAL if none. */
static int pt_query_buffer(const struct pt_session *s, u32 query, u32 cpu,
			   u32 buffer, u32 *index)
{
	if (query & ~LWPT_PT_STQ_BUFFER)
		return -EINVAL;
	/* A thread's buffer has no CPU: per thread, only by number. */
	if (!(query & LWPT_PT_STQ_BUFFER) &&
	    s->cfg.scope == LWPT_PT_SCOPE_THREAD)
		return -EINVAL;
	*index = (query & LWPT_PT_STQ_BUFFER) ? buffer : cpu;
	if (s->cfg.scope == LWPT_PT_SCOPE_CPU && *index >= nr_cpu_ids)
		return -EINVAL;
	return 0;
}

/**
 * pt_ioctl_status - LWPT_PT_IOC_GET_STATUS: one buffer's state
 * @file: the file whose capture is asked about
 * @arg: struct lwpt_pt_status in user space (size-versioned)
 *
 * Names the buffer by CPU (size version 0) or by number
 * (LWPT_PT_STQ_BUFFER, version 1). While tracing, briefly clears TraceEn
 * where the buffer is loaded to read exact pointers (SDM 33.2.8.5).
 *
 * Return: 0; -EFAULT; -EINVAL bad size, flags, CPU or buffer number;
 * -E2BIG; -ENODATA not configured.
 */
static long pt_ioctl_status(struct file *file, void __user *arg)
{
	struct lwpt_pt_status st;
	struct pt_session *s;
	struct pt_cpu *pc;
	u32 usize, index, query;
	int err;

	err = pt_copy_in(&st, sizeof(st), LWPT_PT_STATUS_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (st.flags || st.reserved || st.tid || st.pid || st.nr_buffers ||
	    st.threads_lost)
		return -EINVAL;
	mutex_lock(&pt_lock);
	err = pt_sess_of(file, &s);
	if (err)
		goto out_unlock;
	query = st.query;
	err = pt_query_buffer(s, query, st.cpu, st.buffer, &index);
	if (err)
		goto out_unlock;
	memset(&st, 0, sizeof(st));
	st.query = query;
	st.buffer = index;
	if (s->cfg.scope == LWPT_PT_SCOPE_THREAD) {
		err = pt_thread_status(s, index, &st);
		goto out_unlock;
	}
	pc = per_cpu_ptr(&pt_cpus, index);
	cpus_read_lock();
	if (pc->tr.configured && s->started && cpu_online(index))
		smp_call_function_single(index, pt_cpu_sample, NULL, 1);
	cpus_read_unlock();
	st.cpu = index;
	pt_output_status(&pc->tr, &st);
	st.flags |= pc->offline ? LWPT_PT_ST_OFFLINE : 0;
	st.mmap_offset = pc->tr.configured ? s->cfg.buffer_size * index : 0;
	st.nr_buffers = nr_cpu_ids;
out_unlock:
	mutex_unlock(&pt_lock);
	if (err)
		return err;
	return pt_copy_out(arg, &st, sizeof(st), usize);
}

/**
 * pt_ioctl_release - LWPT_PT_IOC_RELEASE: continuous mode, bytes consumed
 * @file: the file whose capture was read
 * @arg: struct lwpt_pt_release in user space (size-versioned)
 *
 * Records the reader's position; restarts a buffer that waited for room.
 * With LWPT_PT_REL_DONE in @query (per thread, any mode) the reader is done
 * with the buffer of a thread no longer traced: it is freed
 * (pt_thread_done()).
 *
 * Return: 0; -EFAULT; -EINVAL bad size, CPU or buffer number, not
 * continuous mode (without LWPT_PT_REL_DONE), a tail beyond head, or with
 * LWPT_PT_REL_DONE per CPU or a tail other than the head; -EBUSY with
 * LWPT_PT_REL_DONE, the thread is still traced or the buffer mapped;
 * -E2BIG; -ENODATA.
 */
static long pt_ioctl_release(struct file *file, void __user *arg)
{
	struct lwpt_pt_release rel;
	struct pt_session *s;
	struct pt_output *tr;
	u32 usize, index;
	bool done;
	int err;

	err = pt_copy_in(&rel, sizeof(rel), LWPT_PT_RELEASE_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	done = rel.query & LWPT_PT_REL_DONE;
	mutex_lock(&pt_lock);
	err = pt_sess_of(file, &s);
	if (err)
		goto out_unlock;
	err = pt_query_buffer(s, rel.query & ~LWPT_PT_REL_DONE, rel.cpu, rel.buffer,
			      &index);
	if (err)
		goto out_unlock;
	if (done) {
		err = s->cfg.scope == LWPT_PT_SCOPE_THREAD ?
		      pt_thread_done(s, index, rel.tail) : -EINVAL;
		goto out_unlock;
	}
	if (s->cfg.mode != LWPT_PT_MODE_CONTINUOUS) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (s->cfg.scope == LWPT_PT_SCOPE_THREAD) {
		err = pt_thread_release(s, index, rel.tail);
		goto out_unlock;
	}
	tr = &per_cpu_ptr(&pt_cpus, index)->tr;
	if (!tr->configured || rel.tail > READ_ONCE(tr->head)) {
		err = -EINVAL;
		goto out_unlock;
	}
	/*
	 * Only this CPU's PMI and IPIs use it; the IPI orders the store. A
	 * tail behind the overrun point (pt_output_account()) is ignored.
	 */
	if (rel.tail > READ_ONCE(tr->tail))
		WRITE_ONCE(tr->tail, rel.tail);
	cpus_read_lock();
	if (s->started && cpu_online(index))
		smp_call_function_single(index, pt_cpu_release, NULL, 1);
	cpus_read_unlock();
out_unlock:
	mutex_unlock(&pt_lock);
	return err;
}

/*
 * A command without the size of its argument: the size-versioned structs
 * carry their own (pt_copy_in()), and the number of a command encodes the
 * sizeof() of the headers a program was built with. A program built before
 * a struct grew still reaches the command (as drm_ioctl() ignores the size
 * bits and goes by its own table).
 */
#define PT_IOC_CMD(cmd)		((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/**
 * pt_ioctl - the /dev/pt ioctls (include/uapi/lwpt/pt.h)
 * @file: the open /dev/pt (its session)
 * @cmd: LWPT_PT_IOC_* or a common LWPT_IOC_* command
 * @arg: the user pointer of the command
 *
 * Return: the command's result; -ENOTTY for an unknown command.
 */
static long pt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pt_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (PT_IOC_CMD(cmd)) {
	case PT_IOC_CMD(LWPT_PT_IOC_GET_CAPS):
		return pt_ioctl_get_caps(uarg);
	case PT_IOC_CMD(LWPT_PT_IOC_CONFIGURE):
		return pt_ioctl_configure(file, uarg);
	case PT_IOC_CMD(LWPT_PT_IOC_START):
		return pt_ioctl_start(file);
	case PT_IOC_CMD(LWPT_PT_IOC_STOP):
		return pt_ioctl_stop(file);
	case PT_IOC_CMD(LWPT_PT_IOC_GET_STATUS):
		return pt_ioctl_status(file, uarg);
	case PT_IOC_CMD(LWPT_PT_IOC_RELEASE):
		return pt_ioctl_release(file, uarg);
	case PT_IOC_CMD(LWPT_PT_IOC_READ_SIDEBAND):
		return pt_ioctl_read_sideband(file, uarg);
	default:
		/* LWPT_IOC_GET_ABI_VERSION and -ENOTTY for the rest. */
		return lwpt_dev_ioctl_misc(s->misc, cmd, arg);
	}
}

/*
 * The mappings of the buffers, counted per session and per buffer: a
 * mapped buffer's pages stay pinned (and charged) until it is unmapped,
 * and a thread's buffer is not freed while mapped (pt_thread_done()). A
 * mapping covers one buffer (pt_mmap()), vm_private_data; split and moved
 * mappings open their copy here. The file (and its session,
 * vm_file->private_data) is released only after its last mapping (vm_file
 * holds it), and a buffer is freed only with no mapping.
 */
static void pt_vm_open(struct vm_area_struct *vma)
{
	struct pt_session *s = vma->vm_file->private_data;
	struct pt_output *tr = vma->vm_private_data;

	atomic_inc(&tr->maps);
	atomic_inc(&s->mappings);
}

static void pt_vm_close(struct vm_area_struct *vma)
{
	struct pt_session *s = vma->vm_file->private_data;
	struct pt_output *tr = vma->vm_private_data;

	atomic_dec(&tr->maps);
	atomic_dec(&s->mappings);
}

static const struct vm_operations_struct pt_vm_ops = {
	.open = pt_vm_open,
	.close = pt_vm_close,
};

/*
 * mmap: offset n * buffer_size maps buffer n of the file's own capture
 * (CPU n, or the n-th thread), read-only. VM_DONTCOPY: a child forked
 * after the mmap gets no view of the capture (perf's ring buffers are
 * VM_DONTCOPY too, perf_mmap()). The pages hold their own references; the
 * file (and the capture with its charge) lives until the last mapping
 * goes.
 */
static int pt_mmap(struct file *file, struct vm_area_struct *vma)
{
	unsigned long npages = vma_pages(vma), i, first;
	struct pt_output *tr = NULL;
	struct pt_session *s;
	u64 stride, index;
	int err;

	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	mutex_lock(&pt_lock);
	err = pt_sess_of(file, &s);
	if (err)
		goto out_unlock;
	stride = s->cfg.buffer_size >> PAGE_SHIFT;
	index = vma->vm_pgoff / stride;
	first = vma->vm_pgoff % stride;
	if (s->cfg.scope == LWPT_PT_SCOPE_THREAD) {
		if (index <= U32_MAX)
			tr = pt_thread_output(s, index);
	} else if (index < nr_cpu_ids &&
		   per_cpu_ptr(&pt_cpus, index)->tr.configured) {
		tr = &per_cpu_ptr(&pt_cpus, index)->tr;
	}
	if (!tr || npages > stride - first) {
		err = -EINVAL;
		goto out_unlock;
	}
	vma->vm_flags &= ~VM_MAYWRITE;
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_ops = &pt_vm_ops;
	vma->vm_private_data = tr;
	for (i = 0; i < npages && !err; i++)
		err = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     tr->buf.pages[first + i]);
	/* A failed mmap is unmapped without ->close (mmap_region()). */
	if (!err)
		pt_vm_open(vma);
out_unlock:
	mutex_unlock(&pt_lock);
	return err;
}

/*
 * Opening /dev/pt gives the file its own session (unconfigured): nothing
 * of another file's capture is reachable through it.
 */
static int pt_open(struct inode *inode, struct file *file)
{
	struct pt_session *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return -ENOMEM;
	s->misc = file->private_data;	/* misc_open() set it */
	INIT_LIST_HEAD(&s->node);
	atomic_set(&s->mappings, 0);
	pt_thread_sess_setup(s);
	file->private_data = s;
	return 0;
}

/*
 * Closing the file stops its capture (TraceEn=0 wherever it is loaded)
 * and frees it; the open file held a module reference, so unloading waits
 * for this.
 */
static int pt_release(struct inode *inode, struct file *file)
{
	struct pt_session *s = file->private_data;

	mutex_lock(&pt_lock);
	pt_sess_stop(s);
	pt_sess_free(s);
	mutex_unlock(&pt_lock);
	kfree(s);
	return 0;
}

const struct file_operations pt_fops = {
	.owner = THIS_MODULE,
	.open = pt_open,
	.unlocked_ioctl = pt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pt_mmap,
	.release = pt_release,
	.llseek = noop_llseek,
};

/*
 * SDM 33.2.9.4: read IA32_VMX_MISC[14] where VMX exists and say what a VMM
 * does to a capture: with 0, VMXON clears TraceEn (counted as someone
 * else's doing, LWPT_PT_ST_INTERFERED) and resuming in VMX operation fails
 * (EIO). Documentation/pt.rst, "Someone else's trace".
 */
static void pt_vmx_note(void)
{
	struct lwpt_cpuid_regs r;
	u64 misc = 0;
	int err = 0;

	preempt_disable();
	lwpt_hw_cpuid(X86_CPUID_FEATURES, 0, &r);
	if (r.ecx & X86_CPUID_1_ECX_VMX)
		err = lwpt_hw_rdmsr(IA32_VMX_MISC, &misc);
	preempt_enable();
	if (!(r.ecx & X86_CPUID_1_ECX_VMX) || err)
		return;
	pr_info("PT in VMX operation: %s\n", (misc & IA32_VMX_MISC_PT_IN_VMX) ?
		"supported (IA32_VMX_MISC[14] = 1)" :
		"not supported: VMXON (a VM starting) clears TraceEn, captures then report a loss");
}

int pt_init(const struct lwpt_caps *caps)
{
	int err;

	if (!caps->pt)
		return 0;
	pt_caps_decode(caps);
	pt_vmx_note();
	err = lwpt_hw_pmi_register(LWPT_HW_PMI_PT, pt_pmi, NULL);
	if (err)
		return err;
	pt_pmi_hooked = true;
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "lwpt/pt:online",
				pt_cpu_online, pt_cpu_offline);
	if (err < 0) {
		lwpt_hw_pmi_unregister(LWPT_HW_PMI_PT);
		pt_pmi_hooked = false;
		return err;
	}
	pt_cpuhp_state = err;
	/* The scheduler probes, once for the module's lifetime. */
	err = pt_sched_switch_init();
	if (err)
		goto err_cpuhp;
	err = pt_thread_init();
	if (err)
		goto err_switch;
	register_syscore_ops(&pt_syscore_ops);
	register_reboot_notifier(&pt_reboot_nb);
	return 0;

err_switch:
	pt_sched_switch_exit();
err_cpuhp:
	cpuhp_remove_state(pt_cpuhp_state);
	pt_cpuhp_state = -1;
	lwpt_hw_pmi_unregister(LWPT_HW_PMI_PT);
	pt_pmi_hooked = false;
	return err;
}

void pt_exit(void)
{
	if (pt_cpuhp_state >= 0) {
		unregister_reboot_notifier(&pt_reboot_nb);
		unregister_syscore_ops(&pt_syscore_ops);
		pt_thread_exit();
		pt_sched_switch_exit();
		cpuhp_remove_state(pt_cpuhp_state);
	}
	pt_cpuhp_state = -1;
	if (pt_pmi_hooked)
		lwpt_hw_pmi_unregister(LWPT_HW_PMI_PT);
	pt_pmi_hooked = false;
}
