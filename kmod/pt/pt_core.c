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
 * the ABI, the modes, the permissions and the limits. Capabilities and
 * validation are in pt_config.c, the ToPA buffers in pt_buf.c.
 *
 * Per-CPU state is changed only on its CPU (IPI or PMI) or while no CPU
 * traces (configure, free); pt_lock serialises the control path.
 */
#include <linux/cpu.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/uaccess.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_arch.h>
#include <lwpt/pt_rtit.h>

#include "../lwp/lwp.h"	/* lwpt_dev_ioctl_misc() */
#include "pt_int.h"

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
static bool pt_present;
static bool pt_pmi_hooked;

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
	/* A PMI means a region filled: no movement is a whole lap. */
	if (pmi && !delta)
		delta = pc->buf.size;
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
	for (r = 0; r + 1 < b->nr_regions && b->region_off[r + 1] <= pc->pos; r++)
		;
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
