// SPDX-License-Identifier: GPL-2.0
/*
 * The output of one trace buffer, below both the per-CPU (pt_core.c) and
 * the per-thread (pt_thread.c) paths: the RTIT MSRs of the trace loaded on
 * this CPU (SDM 33.3), pausing and resuming it (TraceEn, SDM 33.2.8.5),
 * accounting what the processor wrote from its output pointers (ToPA, SDM
 * 33.2.7.2; single range, 33.2.7.1), the continuous-mode gate (ToPA STOP
 * and INT markers, as perf's pt_buffer_reset_markers()) and the buffer
 * part of a status answer. The buffers themselves are pt_buf.c's.
 *
 * Everything here runs on the CPU where the trace is loaded (IPI, PMI,
 * sched probes) with interrupts off, or on a trace that is not loaded.
 */
#include <linux/kernel.h>
#include <linux/percpu.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_arch.h>
#include <lwpt/pt_rtit.h>

#include "pt_int.h"

/*
 * Set once by pt_quiesce() (reboot, halt, power-off, kexec) and never
 * cleared while the module is loaded: no path sets TraceEn after it.
 */
bool pt_quiesced;

/* --- A trace's MSRs on the current CPU (SDM 33.3) ----------------------- */

/*
 * Did the output cross a point where an INT entry raises the ToPA PMI,
 * going @delta bytes forward from buffer offset @old? Continuous mode: the
 * end of every region (INT on each); wrap mode: the end of the buffer (INT
 * on the last). Without MENTRY the single region's PMI comes "before the
 * output wraps" (SDM 33.2.7.2 "ToPA PMI and Single Output Region ToPA
 * Implementation"; the model: 512 bytes before, pt-model.rst), at a point
 * the SDM does not give: the PMI is taken as due once the output crossed
 * the region's half, so that one raised anywhere in the second half is
 * claimed (pt_pmi()) even when another handler acknowledged bit 55 first.
 * The half is a bound on the claim, not where the PMI comes.
 */
static bool pt_output_int_crossed(const struct pt_output *tr, u64 old, u64 delta)
{
	const struct pt_buf *b = &tr->buf;
	u64 half = b->size / 2;

	if (b->single || tr->sess->cfg.mode == LWPT_PT_MODE_STOP || !delta)
		return false;
	if (!pt_has(LWPT_PT_CAP_MENTRY))
		return (old < half && old + delta >= half) || old + delta >= b->size + half;
	if (tr->sess->cfg.mode == LWPT_PT_MODE_CONTINUOUS)
		return old + delta >= pt_buf_region_end(b, pt_buf_region(b, old));
	return old + delta >= b->size;
}

/**
 * pt_output_gate_stopped - continuous mode: stopped at the gate's end
 * @tr: the trace, accounted (@tr->rtit_status, @tr->pos)
 *
 * STATUS.Stopped with the output pointers one past the gate region is the
 * ToPA stop of pt_output_gate() (SDM 33.2.7.2 "ToPA STOP": the offset
 * names the byte after the region); anywhere else it is a TraceStop range
 * (SDM 33.2.5.3), which ends the trace as the user asked.
 *
 * Return: true if the processor waits at the gate.
 */
bool pt_output_gate_stopped(const struct pt_output *tr)
{
	if (tr->sess->cfg.mode != LWPT_PT_MODE_CONTINUOUS ||
	    !(tr->rtit_status & IA32_RTIT_STATUS_STOPPED) || tr->buf.single)
		return false;
	return tr->pos == pt_buf_region_end(&tr->buf, tr->gate);
}

/*
 * A loss cut the packet stream at @tr->head: kept in @tr->gap_head (the
 * last) and in the ring of every cut (status @gaps, @gap_heads).
 */
static void pt_output_cut(struct pt_output *tr)
{
	if (tr->gaps && tr->gap_head == tr->head)
		return;		/* the same cut seen twice */
	tr->gap_head = tr->head;
	tr->gap_ring[tr->gaps % LWPT_PT_GAP_HEADS] = tr->head;
	tr->gaps++;
}

/**
 * pt_output_hold_due - per-thread continuous mode: should the thread wait?
 * @tr: a thread's trace, accounted
 *
 * Per-thread continuous mode without LWPT_PT_CFG_LOSSY holds the thread
 * before its buffer can fill (pt_thread.c, "The hold"). The watermark is the
 * gate's own region: once the output enters the region before the reader's
 * tail (the one whose ToPA entry has STOP, pt_output_gate()), the thread is
 * held; that region is the room for the PMI's skid (SDM 33.2.7.2 "ToPA
 * PMI") and for what runs until the thread is held. Without MENTRY (one
 * region, whose PMI comes right before it wraps: SDM 33.2.7.2 "ToPA PMI
 * and Single Output Region ToPA Implementation") the watermark is half the
 * region: a sched-in or a STATUS/RELEASE IPI past it holds the thread, and
 * otherwise the PMI does, with what is left before the STOP as the room for
 * its skid; the thread waits until the reader took everything
 * (pt_output_gate() then pads the rest of the lap).
 *
 * Return: true if the thread must wait for its reader now.
 */
bool pt_output_hold_due(const struct pt_output *tr)
{
	const struct pt_buf *b = &tr->buf;
	const struct pt_session *s = tr->sess;
	u64 tail, t, limit, room;
	unsigned int rt, g;

	if (!s || s->cfg.scope != LWPT_PT_SCOPE_THREAD ||
	    s->cfg.mode != LWPT_PT_MODE_CONTINUOUS ||
	    (s->cfg.flags & LWPT_PT_CFG_LOSSY) || b->single || !b->nr_regions ||
	    tr->hold_off)
		return false;
	tail = READ_ONCE(tr->tail);
	t = tail % b->size;
	rt = pt_buf_region(b, t);
	g = (rt + b->nr_regions - 1) % b->nr_regions;
	limit = tail - (t - b->region_off[rt]) + b->size;
	room = b->nr_regions == 1 ? b->size / 2 : PAGE_SIZE << b->region_order[g];
	return tr->head + room >= limit;
}

/**
 * pt_output_account - account the output pointers read with TraceEn=0
 * @tr: the trace they belong to
 * @base: IA32_RTIT_OUTPUT_BASE
 * @mask_ptrs: IA32_RTIT_OUTPUT_MASK_PTRS
 * @status: IA32_RTIT_STATUS
 * @pmi: a ToPA PMI came since the last read (a region filled)
 *
 * Advances @tr->head by the bytes written since the last read (SDM
 * 33.2.7.2: the pointers name the next byte); counts losses; notes in
 * @tr->pmi_due that an INT region filled. A single range (SDM 33.2.7.1)
 * raises no PMI: whole laps between two reads are not seen.
 *
 * Return: 0, or -ESTALE if the pointers are not in @tr's buffer: someone
 * else moved them (another tracer, SDM 33.2.9); the caller puts them back
 * at @tr->pos. Counted in @tr->interfered and @tr->lost.
 */
int pt_output_account(struct pt_output *tr, u64 base, u64 mask_ptrs,
		      u64 status, bool pmi)
{
	u64 delta;
	s64 pos;

	tr->rtit_status = status;
	pos = pt_buf_pos(&tr->buf, base, mask_ptrs);
	if (pos < 0) {
		tr->interfered++;
		tr->lost++;
		pt_output_cut(tr);	/* the pointers go back there */
		tr->rtit_status &= ~(IA32_RTIT_STATUS_ERROR | IA32_RTIT_STATUS_STOPPED);
		return -ESTALE;
	}
	/* pos == size: a filled STOP region (OutputOffset = its size). */
	delta = (u64)pos >= tr->pos ? pos - tr->pos : pos + tr->buf.size - tr->pos;
	/*
	 * A PMI taken since the last read is the one due: @pmi_due must not
	 * stay set and claim a later NMI that is someone else's (perf's).
	 */
	if (pmi)
		tr->pmi_due = false;
	else if (pt_output_int_crossed(tr, tr->pos, delta))
		tr->pmi_due = true;
	/*
	 * With MENTRY a PMI means the output crossed the end of an INT region
	 * since the last read. Back in the same region (the only one, or a
	 * lap of the ring) and not behind: a whole lap, plus what the
	 * processor wrote after the PMI was raised (PMI skid, SDM 33.2.7.2
	 * "ToPA PMI"). Without MENTRY the PMI comes before the single region
	 * is full and the pointers alone tell the wrap. Continuous mode never
	 * laps: the STOP gate holds the processor (pt_output_gate()).
	 */
	if (pmi && pt_has(LWPT_PT_CAP_MENTRY) && (u64)pos >= tr->pos &&
	    tr->sess->cfg.mode != LWPT_PT_MODE_CONTINUOUS &&
	    pt_buf_region(&tr->buf, pos) == pt_buf_region(&tr->buf, tr->pos))
		delta += tr->buf.size;
	tr->head += delta;
	tr->pos = pos;
	/*
	 * Continuous mode: never more than a buffer unread, unless the gate
	 * failed (a neighbour rewrote the pointers): then the reader's oldest
	 * byte moves to head - size, and it is a loss.
	 */
	if (tr->sess->cfg.mode == LWPT_PT_MODE_CONTINUOUS &&
	    tr->head - tr->tail > tr->buf.size) {
		tr->lost_bytes += tr->head - tr->buf.size - tr->tail;
		tr->tail = tr->head - tr->buf.size;
		tr->lost++;
	}
	/*
	 * An operational error loses data (SDM 33.3.10). Stopped does not:
	 * it is the ToPA STOP of stop mode (SDM 33.2.7.2) or a TraceStop
	 * range (SDM 33.2.5.3), both asked for; STATUS.Stopped tells which.
	 */
	if (status & IA32_RTIT_STATUS_ERROR)
		tr->lost++;
	/*
	 * A ToPA stop at the continuous-mode gate is a loss: packets still in
	 * the processor's internal buffers are dropped (SDM 33.2.7.2 "ToPA
	 * STOP") and nothing is traced until the reader makes room. Counted
	 * once: Stopped stays set until pt_output_gate() clears it, and no
	 * account happens while the trace waits (@tr->stalled).
	 */
	if (pt_output_gate_stopped(tr)) {
		tr->lost++;
		pt_output_cut(tr);
	}
	return 0;
}

/* Put the output pointers back at @tr->pos (TraceEn=0), STATUS clean. */
static void pt_output_put_back(struct pt_output *tr)
{
	u64 base, mask;

	pt_buf_ptrs(&tr->buf, tr->pos % tr->buf.size, &base, &mask);
	if (lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_BASE, base) ||
	    lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_MASK_PTRS, mask) ||
	    lwpt_hw_wrmsr(IA32_RTIT_STATUS, 0))
		tr->err = -EIO;
	tr->pos %= tr->buf.size;
	tr->rtit_status = 0;
}

/**
 * pt_cpu_pmi_raised - TraceEn is 0 here: is a ToPA PMI of lwpt's on its way?
 * @pc: this CPU's state; an update is under way (pt_cpu_update_begin())
 *
 * Called by an update that cleared TraceEn (a pause, a switch-out, a park)
 * before it accounts the output. IA32_PERF_GLOBAL_STATUS bit 55 set then
 * means the trace that was loaded raised a ToPA PMI (an INT region filled,
 * SDM 33.2.7.2) whose NMI has not been handled: one taken meanwhile would
 * have been acknowledged (pt_pmi()), and nobody else writes to this CPU's
 * RTIT MSRs inside the update. The NMI is "not precise": it may come once
 * the update is over and nothing of lwpt's traces here any more. The update
 * accounts the region fill now, as the PMI would, and leaves a credit for
 * the NMI (@pc->pmi_owed): pt_pmi() claims that NMI, once, without
 * accounting it again, whenever it comes. The same bit seen by a later
 * update before the NMI came is not a new fill (the credit is still set);
 * bit 55 found clear drops a credit (someone acknowledged it: another
 * handler took the NMI first, pt_nmi_first_acker=1). No time is involved:
 * Documentation/pt.rst, "The ToPA PMI".
 *
 * Return: true if the caller must account a region fill (the first time
 * this bit 55 is seen).
 */
bool pt_cpu_pmi_raised(struct pt_cpu *pc)
{
	u64 gs = 0;

	if (lwpt_hw_rdmsr(IA32_PERF_GLOBAL_STATUS, &gs))
		return false;
	if (!(gs & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI)) {
		WRITE_ONCE(pc->pmi_owed, false);
		return false;
	}
	return !xchg(&pc->pmi_owed, true);
}

/*
 * Read the output MSRs and STATUS (TraceEn must be 0) and account. @pmi: a
 * ToPA PMI handler calls, for a region fill it has not accounted; @look:
 * not the PMI handler: ask pt_cpu_pmi_raised() too.
 */
static void pt_output_read_out(struct pt_output *tr, bool pmi, bool look)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpus);
	u64 base = 0, mask = 0, status = 0;
	bool seen;

	if (lwpt_hw_rdmsr(IA32_RTIT_OUTPUT_BASE, &base) ||
	    lwpt_hw_rdmsr(IA32_RTIT_OUTPUT_MASK_PTRS, &mask) ||
	    lwpt_hw_rdmsr(IA32_RTIT_STATUS, &status)) {
		tr->err = -EIO;
		return;
	}
	if (look && pt_cpu_pmi_raised(pc))
		pmi = true;
	/* One step: a PMI between a read and a clear would be lost. */
	seen = xchg(&pc->pmi_seen, false);
	if (pt_output_account(tr, base, mask, status, pmi || seen))
		pt_output_put_back(tr);
}

/**
 * pt_output_lbr_note - TraceEn was just cleared: was LBR on meanwhile
 * @tr: the trace that was loaded on this CPU with TraceEn=1
 *
 * SDM 33.3.1.2 (pt_config_lbr_check()): IA32_DEBUGCTL.LBR found set on a
 * PT/LBR-exclusive model means someone enabled LBRs while lwpt traced -
 * both were on until now. Counted in @tr->lbr and @tr->interfered (no data
 * is lost by it: the unit went on writing); setting TraceEn again is then
 * refused (pt_output_lbr_refuse()).
 */
void pt_output_lbr_note(struct pt_output *tr)
{
	if (!pt_config_lbr_check())
		return;
	tr->lbr++;
	tr->interfered++;
}

/* Clear TraceEn (found clear: someone else's doing), then read out. */
static void pt_output_stop_read(struct pt_output *tr, bool pmi, bool look)
{
	u64 ctl = 0;

	if (lwpt_hw_rdmsr(IA32_RTIT_CTL, &ctl)) {
		tr->err = -EIO;
		return;
	}
	if (!(ctl & IA32_RTIT_CTL_TRACEEN)) {
		tr->interfered++;
		tr->lost++;
	} else if (lwpt_hw_wrmsr(IA32_RTIT_CTL, tr->ctl)) {
		tr->err = -EIO;
	}
	pt_output_lbr_note(tr);
	pt_output_read_out(tr, pmi, look);
}

/**
 * pt_output_pause - clear TraceEn (SDM 33.3: first), then read the pointers
 * @tr: the trace loaded on this CPU, TraceEn set by us as far as we know
 *
 * For the update paths (STOP, STATUS, RELEASE, the hold's irq_work), inside
 * pt_cpu_update_begin()/end(). TraceEn is read first: found clear, someone
 * else cleared it (another tracer, VMXON where IA32_VMX_MISC[14] = 0, SDM
 * 33.2.9.4): counted in @tr->interfered and @tr->lost; what was written up
 * to there is kept. IA32_DEBUGCTL.LBR set meanwhile on a PT/LBR-exclusive
 * model is noted (pt_output_lbr_note()). A ToPA PMI raised and not yet
 * taken is accounted here and its NMI left a credit (pt_cpu_pmi_raised()).
 */
void pt_output_pause(struct pt_output *tr)
{
	pt_output_stop_read(tr, false, true);
}

/**
 * pt_output_pause_pmi - pt_output_pause() for the ToPA PMI handler
 * @tr: the trace loaded on this CPU
 * @pmi: a region filled that no update accounted yet (bit 55 set and no
 *	credit of pt_cpu_pmi_raised() for it)
 */
void pt_output_pause_pmi(struct pt_output *tr, bool pmi)
{
	pt_output_stop_read(tr, pmi, false);
}

/**
 * pt_output_lbr_refuse - TraceEn may not be set here: count it
 * @tr: the trace about to be (re)enabled on this CPU, TraceEn=0
 *
 * SDM 33.3.1.2 (pt_config_lbr_check()): on a PT/LBR-exclusive model
 * someone set IA32_DEBUGCTL.LBR. Counted in @tr->lbr, as someone else's
 * doing (@tr->interfered) and as a loss (@tr->lost): nothing is traced
 * from here on this CPU until the trace is loaded again.
 *
 * Return: true if TraceEn must stay clear.
 */
bool pt_output_lbr_refuse(struct pt_output *tr)
{
	if (!pt_config_lbr_check())
		return false;
	tr->lbr++;
	tr->interfered++;
	tr->lost++;
	return true;
}

/**
 * pt_output_resume - set TraceEn again after pt_output_pause()
 * @tr: the trace loaded on this CPU
 *
 * Not on a PT/LBR-exclusive model while IA32_DEBUGCTL.LBR is set
 * (pt_output_lbr_refuse()), nor once the system is going down
 * (pt_quiesced): the trace then stops taking data here.
 */
void pt_output_resume(struct pt_output *tr)
{
	if (READ_ONCE(pt_quiesced)) {
		tr->tracing = false;
		return;
	}
	if (pt_output_lbr_refuse(tr)) {
		tr->tracing = false;
		return;
	}
	if (lwpt_hw_wrmsr(IA32_RTIT_CTL, tr->ctl | IA32_RTIT_CTL_TRACEEN)) {
		tr->err = -EIO;
		tr->tracing = false;
	}
}

/**
 * pt_output_gate - continuous mode: STOP before the reader's tail
 * @tr: the trace, accounted (@tr->head, @tr->pos, @tr->rtit_status) with
 *	TraceEn=0 where it is loaded, or not loaded
 * @s: its IA32_RTIT_STATUS and output pointers to resume with; if the
 *	processor stopped at the old gate and there is room now, they are
 *	moved to the next region and Stopped is cleared
 *
 * As perf's pt_buffer_reset_markers(): the region before the one holding
 * the reader's tail gets STOP and INT (SDM 33.2.7.2, Table 33-3), so that
 * the processor, PMI skid included (33.2.7.2 "ToPA PMI"), and every resume
 * path can write no further than the start of the unread data. The ToPA
 * is changed only here, never while the buffer is loaded with TraceEn=1.
 * Without MENTRY the one entry always has INT and STOP: the processor may
 * run only while its whole lap is free, i.e. after the reader released
 * everything (SDM 33.2.7.2 "ToPA PMI and Single Output Region ToPA").
 * A held thread's trace (pt_output_hold_due()) whose reader took everything
 * mid-lap goes on at the start of the next lap: the rest of this one is
 * filled with PAD packets (SDM 33.4.2.20: 00H, skipped by decoders) and
 * counted in @tr->head, so that the processor never reaches the STOP. The
 * run is named in @tr->pad_from and @tr->pad_to (status pad_from, pad_to;
 * @tr->pad_bytes counts them all): the reader skips it without reading
 * the buffer, so it is released at once (@tr->tail) and the whole next lap
 * is free. Had the reader to copy the PADs, the thread would have to wait
 * until it had (the next lap overwrites them from its start, and nothing
 * tells the processor to stop below them): a reader round trip per lap,
 * and a thread that is never held (the configuring process's) or whose
 * hold a signal ends would lose its trace meanwhile.
 * @moved: out, set if @s's output pointers were changed
 *
 * Return: true if there is room to resume, false to wait for RELEASE.
 */
bool pt_output_gate(struct pt_output *tr, struct pt_rtit_state *s, bool *moved)
{
	struct pt_buf *b = &tr->buf;
	u64 tail = READ_ONCE(tr->tail), t = tail % b->size, limit;
	unsigned int rt = pt_buf_region(b, t);
	unsigned int g = (rt + b->nr_regions - 1) % b->nr_regions;

	/* The processor may write up to the start of the tail's region. */
	limit = tail - (t - b->region_off[rt]) + b->size;
	if (g != tr->gate) {
		pt_buf_topa_flags(b, tr->gate, TOPA_ENTRY_INT);
		pt_buf_topa_flags(b, g, TOPA_ENTRY_INT | TOPA_ENTRY_STOP);
		tr->gate = g;
	}
	if (tr->head >= limit)
		return false;
	if (b->nr_regions == 1 && tr->head == tail && tr->head % b->size &&
	    !(s->status & IA32_RTIT_STATUS_STOPPED) && pt_output_hold_due(tr)) {
		pt_buf_pad(b, tr->head % b->size);
		WRITE_ONCE(tr->pad_from, tr->head);
		WRITE_ONCE(tr->pad_to, tr->head + b->size - tr->head % b->size);
		tr->pad_bytes += tr->pad_to - tr->pad_from;
		/* The run before the head that includes it (pt_output_status()). */
		smp_wmb();
		WRITE_ONCE(tr->head, tr->pad_to);
		/* The reader skips the PADs unread: the next lap is all free. */
		WRITE_ONCE(tr->tail, tr->head);
		tr->pos = 0;
		pt_buf_ptrs(b, 0, &s->output_base, &s->output_mask_ptrs);
		*moved = true;
	}
	if (s->status & IA32_RTIT_STATUS_STOPPED) {
		/* 33.2.7.2 ToPA error 3: OutputOffset must be below the size. */
		tr->pos = tr->head % b->size;
		pt_buf_ptrs(b, tr->pos, &s->output_base, &s->output_mask_ptrs);
		s->status &= ~IA32_RTIT_STATUS_STOPPED;
		*moved = true;
	}
	return true;
}

/*
 * The trace loaded here reached its hold watermark: hold current in IRQ
 * context (pt_cpu.hold_iw; safe from the PMI's NMI).
 */
static void pt_output_hold_kick(const struct pt_output *tr)
{
	if (pt_output_hold_due(tr))
		irq_work_queue(&this_cpu_ptr(&pt_cpus)->hold_iw);
}

/**
 * pt_output_continue - after pt_output_pause(): resume, stop or stall
 * @tr: the trace loaded on this CPU, TraceEn=0, accounted
 *
 * An error (or IA32_RTIT_STATUS.Error, SDM 33.3.10) ends the trace, as
 * Stopped does outside continuous mode and, in it, a TraceStop range
 * (pt_output_gate_stopped()). Continuous mode moves the gate
 * (pt_output_gate()) and, if the processor stopped there, its pointers
 * past it; without room the trace waits for RELEASE (@tr->stalled).
 */
void pt_output_continue(struct pt_output *tr)
{
	struct pt_rtit_state s = { .status = tr->rtit_status };
	bool moved = false;

	if (tr->err || (tr->rtit_status & IA32_RTIT_STATUS_ERROR)) {
		tr->tracing = false;
		return;
	}
	if (tr->sess->cfg.mode != LWPT_PT_MODE_CONTINUOUS ||
	    ((tr->rtit_status & IA32_RTIT_STATUS_STOPPED) &&
	     !pt_output_gate_stopped(tr))) {
		if (tr->rtit_status & IA32_RTIT_STATUS_STOPPED)
			tr->tracing = false;
		else
			pt_output_resume(tr);
		return;
	}
	if (!pt_output_gate(tr, &s, &moved)) {
		tr->stalled = true;
		tr->tracing = false;
		pt_output_hold_kick(tr);
		return;
	}
	if (moved) {
		if (lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_BASE, s.output_base) ||
		    lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_MASK_PTRS, s.output_mask_ptrs) ||
		    lwpt_hw_wrmsr(IA32_RTIT_STATUS,
				  s.status & ~IA32_RTIT_STATUS_READ_ONLY)) {
			tr->err = -EIO;
			tr->tracing = false;
			return;
		}
		tr->rtit_status = s.status;
	}
	tr->stalled = false;
	tr->tracing = true;
	pt_output_resume(tr);
	pt_output_hold_kick(tr);
}

/**
 * pt_output_saved_put_back - saved output pointers someone else moved
 * @tr: the trace (pt_output_account() returned -ESTALE)
 * @s: its saved RTIT state: pointers back at @tr->pos, STATUS clean
 */
void pt_output_saved_put_back(struct pt_output *tr, struct pt_rtit_state *s)
{
	tr->pos %= tr->buf.size;
	pt_buf_ptrs(&tr->buf, tr->pos, &s->output_base, &s->output_mask_ptrs);
	s->status = 0;
	tr->rtit_status = 0;
}

/**
 * pt_output_reset - a new START: nothing written yet
 * @tr: the trace
 */
void pt_output_reset(struct pt_output *tr)
{
	tr->pos = 0;
	tr->head = 0;
	tr->tail = 0;
	tr->lost = 0;
	tr->gap_head = 0;
	tr->gaps = 0;
	tr->holds = 0;
	tr->held_ns = 0;
	tr->pad_bytes = 0;
	tr->pad_from = 0;
	tr->pad_to = 0;
	tr->lost_bytes = 0;
	tr->hold_timeouts = 0;
	tr->hold_off = false;
	tr->pmis = 0;
	tr->stalled = false;
	tr->busy = false;
	tr->rtit_status = 0;
	tr->gate = tr->buf.nr_regions ? tr->buf.nr_regions - 1 : 0;
	tr->pmi_due = false;
	tr->interfered = 0;
	tr->lbr = 0;
	tr->err = 0;
}

/**
 * pt_rtit_write_filters - program CR3_MATCH and the ADDRn ranges in use
 * @sess: the session whose trace is being loaded
 *
 * TraceEn must be 0 (SDM 33.2.8.1). The values are @sess's.
 *
 * Return: 0, or -EIO if a WRMSR faulted.
 */
int pt_rtit_write_filters(const struct pt_session *sess)
{
	unsigned int n;

	if ((sess->cfg.flags & LWPT_PT_CFG_CR3_FILTER) &&
	    lwpt_hw_wrmsr(IA32_RTIT_CR3_MATCH, sess->cr3))
		return -EIO;
	for (n = 0; n < pt_caps.nr_ranges; n++) {
		const struct lwpt_pt_addr_range *r = &sess->cfg.addr[n];

		if (r->cfg == LWPT_PT_ADDR_UNUSED)
			continue;
		if (lwpt_hw_wrmsr(IA32_RTIT_ADDRn_A(n), r->a) ||
		    lwpt_hw_wrmsr(IA32_RTIT_ADDRn_B(n), r->b))
			return -EIO;
	}
	return 0;
}

/**
 * pt_rtit_save - save a trace's RTIT state by RDMSR/WRMSR (SDM 33.3.5.1)
 * @s: where the state goes
 *
 * 1. RDMSR IA32_RTIT_CTL; 2. WRMSR it with TraceEn cleared (only if it was
 * set); 3. RDMSR the MSRs that change while tracing: OUTPUT_BASE,
 * OUTPUT_MASK_PTRS, STATUS (stable once TraceEn is 0, SDM 33.2.8.5).
 * CR3_MATCH and ADDRn never change during a session.
 *
 * Return: 0, or -EIO if an access faulted.
 */
int pt_rtit_save(struct pt_rtit_state *s)
{
	if (lwpt_hw_rdmsr(IA32_RTIT_CTL, &s->ctl))
		return -EIO;
	if ((s->ctl & IA32_RTIT_CTL_TRACEEN) &&
	    lwpt_hw_wrmsr(IA32_RTIT_CTL, s->ctl & ~IA32_RTIT_CTL_TRACEEN))
		return -EIO;
	if (lwpt_hw_rdmsr(IA32_RTIT_OUTPUT_BASE, &s->output_base) ||
	    lwpt_hw_rdmsr(IA32_RTIT_OUTPUT_MASK_PTRS, &s->output_mask_ptrs) ||
	    lwpt_hw_rdmsr(IA32_RTIT_STATUS, &s->status))
		return -EIO;
	return 0;
}

/**
 * pt_rtit_restore - restore a trace's RTIT state by WRMSR (SDM 33.3.5.1)
 * @s: the state saved by pt_rtit_save() (or a new trace's initial state)
 * @sess: the trace's session: its filters
 *
 * TraceEn must be 0 (SDM 33.2.8: configuration MSRs are written only
 * then): the output MSRs, STATUS and the filters first, IA32_RTIT_CTL last,
 * which sets TraceEn if @s->ctl has it.
 *
 * Return: 0, or -EIO if a WRMSR faulted.
 */
int pt_rtit_restore(const struct pt_rtit_state *s,
		    const struct pt_session *sess)
{
	if (lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_BASE, s->output_base) ||
	    lwpt_hw_wrmsr(IA32_RTIT_OUTPUT_MASK_PTRS, s->output_mask_ptrs) ||
	    lwpt_hw_wrmsr(IA32_RTIT_STATUS, s->status) ||
	    pt_rtit_write_filters(sess) ||
	    lwpt_hw_wrmsr(IA32_RTIT_CTL, s->ctl))
		return -EIO;
	return 0;
}

/* --- Per-CPU capture, on the CPU itself --------------------------------- */

/**
 * pt_cpu_update_begin - this CPU's RTIT MSRs are being changed (IRQs off)
 * @pc: the CPU's state
 *
 * A ToPA PMI that arrives meanwhile only acknowledges (pt_pmi()): the
 * changer reads the output pointers itself.
 */
void pt_cpu_update_begin(struct pt_cpu *pc)
{
	WRITE_ONCE(pc->in_update, true);
	barrier();	/* in_update before any MSR access; the PMI reads it */
}

/**
 * pt_cpu_update_end - undo pt_cpu_update_begin()
 * @pc: the CPU's state
 */
void pt_cpu_update_end(struct pt_cpu *pc)
{
	barrier();	/* every MSR access before in_update is cleared */
	WRITE_ONCE(pc->in_update, false);
}

/**
 * pt_output_status - fill the buffer part of a status answer
 * @tr: the trace
 * @st: the answer; flags are ORed in
 *
 * With single-range output (SDM 33.2.7.1) the processor wraps without a
 * PMI: head, wraps and WRAPPED count only the laps the pointer reads saw,
 * so LWPT_PT_ST_WRAP_UNKNOWN says they are lower bounds; the offset is
 * exact (Documentation/pt.rst, "Buffers: single-range output"). Every byte
 * in @head is accounted: a reader that skips the PAD run [pad_from,
 * pad_to) and keeps up saves head - pad_bytes - lost_bytes bytes.
 */
void pt_output_status(const struct pt_output *tr, struct lwpt_pt_status *st)
{
	u64 head = READ_ONCE(tr->head), pos = READ_ONCE(tr->pos);

	/* A PAD run counted in @head is named with it (pt_output_gate()). */
	smp_rmb();
	st->pad_from = READ_ONCE(tr->pad_from);
	st->pad_to = READ_ONCE(tr->pad_to);
	st->pad_bytes = tr->pad_bytes;
	st->lost_bytes = tr->lost_bytes;

	st->flags |= (tr->configured ? LWPT_PT_ST_CONFIGURED : 0) |
		     (tr->tracing ? LWPT_PT_ST_TRACING : 0) |
		     (tr->stalled ? LWPT_PT_ST_STALLED : 0) |
		     (tr->busy ? LWPT_PT_ST_BUSY : 0) |
		     (head > tr->buf.size ? LWPT_PT_ST_WRAPPED : 0) |
		     (tr->buf.single ? LWPT_PT_ST_WRAP_UNKNOWN : 0) |
		     (tr->interfered ? LWPT_PT_ST_INTERFERED : 0) |
		     (tr->lbr ? LWPT_PT_ST_LBR : 0);
	st->rtit_status = tr->rtit_status;
	st->rtit_ctl = tr->ctl | (tr->tracing ? IA32_RTIT_CTL_TRACEEN : 0);
	st->head = head;
	st->offset = pos;
	st->wraps = tr->buf.size ? head / tr->buf.size : 0;
	if (st->wraps && pos == 0 && head % tr->buf.size == 0)
		st->wraps--;	/* exactly full, not yet overwritten */
	st->lost = tr->lost;
	st->gap_head = tr->gap_head;
	st->gaps = tr->gaps;
	memcpy(st->gap_heads, tr->gap_ring, sizeof(st->gap_heads));
	st->holds = tr->holds;
	st->held_ns = tr->held_ns;
	st->hold_timeouts = tr->hold_timeouts;
	st->buffer_size = tr->buf.size;
	st->pmis = tr->pmis;
}
