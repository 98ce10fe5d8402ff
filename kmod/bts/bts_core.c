// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/bts (issue 37 point 2): a thread's Branch Trace Store (SDM Vol. 3B
 * 17.4.5-17.4.9) into a buffer the caller maps; include/uapi/lwpt/bts.h is
 * the ABI, Documentation/bts.rst "/dev/bts" the rules.
 *
 * Each open file has one capture (struct bts_session, file->private_data):
 *   CONFIGURE  checks the request and the caller's rights (perf's rules, as
 *              /dev/pt: perm.h), that nobody else uses the DS area or
 *              IA32_DEBUGCTL's branch recording, allocates the buffer and
 *              attaches the thread (bts_thread.c): recording starts;
 *   STATUS     how many bytes of records the buffer holds;
 *   STOP       detaches the thread (the buffer stays mapped and readable);
 *   CONSUME    a ring capture's reader made room (ABI 1.7);
 *   RING_STATUS a ring capture's head, tail and counters (ABI 1.7);
 *   poll       readable when records wait, POLLHUP once recording ended;
 *   mmap       the buffer, read-only;
 *   release    stops, drops the file's reference (a queued hold of the
 *              thread may hold the last one: bts_session_put()).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <asm/cpufeature.h>

#include <lwpt/bts_arch.h>
#include <uapi/lwpt/bts.h>

#include "../perm.h"
#include "bts_int.h"
#include "lbr_int.h"

static_assert(sizeof(struct lwpt_bts_record) == BTS_RECORD_SIZE);
static_assert(sizeof(struct lwpt_bts_config) == LWPT_BTS_CONFIG_SIZE_VER0);
static_assert(sizeof(struct lwpt_bts_status) == LWPT_BTS_STATUS_SIZE_VER0);
static_assert(sizeof(struct lwpt_bts_lbr) == LWPT_BTS_LBR_SIZE_VER0);
static_assert(sizeof(struct lwpt_bts_ring) == LWPT_BTS_RING_SIZE_VER1);
static_assert(sizeof(struct lwpt_bts_cpu_config) == LWPT_BTS_CPU_CONFIG_SIZE_VER0);
static_assert(sizeof(struct lwpt_bts_switch_tsc) == LWPT_BTS_SWITCH_TSC_SIZE_VER0);
static_assert(sizeof(struct lwpt_bts_switch) == LWPT_BTS_SWITCH_SIZE_VER0);
static_assert(sizeof(struct lwpt_bts_switches) == LWPT_BTS_SWITCHES_SIZE_VER0);

static bool bts_present;

static int bts_open(struct inode *inode, struct file *file)
{
	struct bts_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return -ENOMEM;
	mutex_init(&s->lock);
	bts_thread_session_init(s);
	s->loaded_cpu = -1;
	/* misc_open() left the miscdevice here: the common ioctls need it. */
	s->misc = file->private_data;
	file->private_data = s;
	return 0;
}

static int bts_refuse(struct lwpt_bts_config *cfg, u32 field, int err)
{
	cfg->bad_field = field;
	return err;
}

/*
 * The request alone: flags, buffer size, reserved fields, and what the
 * processor can do (DS-CPL, 17.4.6).
 */
static int bts_config_check(struct lwpt_bts_config *cfg)
{
	if (cfg->reserved0 ||
	    (cfg->hold_limit_ms && !(cfg->flags & LWPT_BTS_CFG_RING)))
		return bts_refuse(cfg, LWPT_BTS_FIELD_RESERVED, -EINVAL);
	if (!(cfg->flags & LWPT_BTS_CFG_FLAGS) || (cfg->flags & ~LWPT_BTS_CFG_VALID))
		return bts_refuse(cfg, LWPT_BTS_FIELD_FLAGS, -EINVAL);
	if (cfg->buffer_size < LWPT_BTS_BUFFER_MIN ||
	    cfg->buffer_size > LWPT_BTS_BUFFER_MAX ||
	    !PAGE_ALIGNED(cfg->buffer_size))
		return bts_refuse(cfg, LWPT_BTS_FIELD_BUFFER_SIZE, -EINVAL);
	/* Without DS-CPL, BTS records every CPL: both must be asked. */
	if ((cfg->flags & LWPT_BTS_CFG_FLAGS) != LWPT_BTS_CFG_FLAGS &&
	    !bts_ds_cpl_qualified())
		return bts_refuse(cfg, LWPT_BTS_FIELD_FLAGS, -EOPNOTSUPP);
	return 0;
}

/*
 * perf_event_open()'s rules for intel_bts (Documentation/bts.rst,
 * "Permissions"): kernel branches need CAP_PERFMON (perf_allow_kernel());
 * so does any capture at pt_paranoid above 1, because a user-only BTS
 * trace still holds the kernel entry address of each system call and
 * interrupt (perf's bts_event_init() asks perf_allow_kernel() for that
 * reason; the buffer is mapped as the processor writes it, so nothing can
 * filter them); the target must pass the ptrace read rule.
 */
static int bts_config_permit(struct lwpt_bts_config *cfg, struct task_struct **tp)
{
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *pid;

	*tp = NULL;
	if ((cfg->flags & LWPT_BTS_CFG_KERNEL) && !perfmon_capable())
		return bts_refuse(cfg, LWPT_BTS_FIELD_FLAGS, -EPERM);
	if (READ_ONCE(pt_paranoid) > 1 && !perfmon_capable())
		return bts_refuse(cfg, LWPT_BTS_FIELD_FLAGS, -EACCES);
	if (cfg->pid < 0)
		return bts_refuse(cfg, LWPT_BTS_FIELD_PID, -EINVAL);
	if (!cfg->pid) {
		task = current;
		get_task_struct(task);
	} else {
		pid = find_get_pid(cfg->pid);
		task = get_pid_task(pid, PIDTYPE_PID);
		put_pid(pid);
		if (!task)
			return bts_refuse(cfg, LWPT_BTS_FIELD_PID, -ESRCH);
	}
	mm = get_task_mm(task);
	if (!mm) {
		int err = (task->flags & PF_KTHREAD) ? -EINVAL : -ESRCH;

		put_task_struct(task);
		return bts_refuse(cfg, LWPT_BTS_FIELD_PID, err);
	}
	if (!perfmon_capable() && !lwpt_may_trace(task, mm)) {
		mmput(mm);
		put_task_struct(task);
		return bts_refuse(cfg, LWPT_BTS_FIELD_PID, -EPERM);
	}
	mmput(mm);
	*tp = task;
	return 0;
}

/* The IA32_DEBUGCTL bits of a capture (17.4.1, 17.4.5, 17.4.6). */
static u64 bts_config_debugctl(const struct lwpt_bts_config *cfg)
{
	u64 v = IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS | IA32_DEBUGCTL_BTINT;
	u32 cpl = cfg->flags & LWPT_BTS_CFG_FLAGS;

	if (cpl == LWPT_BTS_CFG_USER)
		v |= IA32_DEBUGCTL_BTS_OFF_OS;
	else if (cpl == LWPT_BTS_CFG_KERNEL)
		v |= IA32_DEBUGCTL_BTS_OFF_USR;
	return v;
}

static long bts_ioctl_configure(struct bts_session *s, void __user *arg)
{
	struct lwpt_bts_config cfg;
	struct task_struct *task;
	const char *holder;
	u32 usize, lbr;
	int err;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < LWPT_BTS_CONFIG_SIZE_VER0)
		return -EINVAL;
	memset(&cfg, 0, sizeof(cfg));
	if (copy_from_user(&cfg, arg, sizeof(cfg)))
		return -EFAULT;
	cfg.bad_field = LWPT_BTS_FIELD_NONE;
	if (s->configured) {
		err = -EBUSY;
		goto out;
	}
	/* LBR snapshots (lbr_thread.c) beside the BTS flags. */
	lbr = cfg.flags & LWPT_BTS_CFG_LBR;
	cfg.flags &= ~LWPT_BTS_CFG_LBR;
	err = bts_config_check(&cfg);
	if (!err && lbr) {
		err = lbr_config_check(cfg.flags & LWPT_BTS_CFG_FLAGS);
		if (err)
			cfg.bad_field = LWPT_BTS_FIELD_FLAGS;
	}
	if (err)
		goto out;
	/*
	 * Under page-table isolation user mode runs without the kernel's
	 * mappings: the processor's stores into the DS area and buffer would
	 * find nothing (perf's bts_init() gives up on intel_bts then). The
	 * model stores through the kernel's mappings: no such limit.
	 */
	if (!(lwpt_hw_flags() & LWPT_HW_F_SIM) && boot_cpu_has(X86_FEATURE_PTI)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	err = bts_config_permit(&cfg, &task);
	if (err)
		goto out;
	/*
	 * A ring's thread waits for its reader when the ring is full: the
	 * caller's own thread would wait for itself.
	 */
	if ((cfg.flags & LWPT_BTS_CFG_RING) && task == current) {
		cfg.bad_field = LWPT_BTS_FIELD_PID;
		err = -EINVAL;
		goto out_put;
	}
	if (bts_ds_busy(&holder)) {
		pr_info(LWPT_PR_PREFIX "/dev/bts: IA32_DS_AREA/IA32_DEBUGCTL in use by %s: refused (EBUSY)\n",
			holder);
		err = -EBUSY;
		goto out_put;
	}
	s->size = cfg.buffer_size;
	s->records_end = rounddown(s->size, BTS_RECORD_SIZE);
	s->debugctl = bts_config_debugctl(&cfg);
	s->head = 0;
	s->tail = 0;
	s->ring = cfg.flags & LWPT_BTS_CFG_RING;
	s->margin = bts_ring_margin(s->records_end);
	if (s->ring && !cfg.hold_limit_ms)
		cfg.hold_limit_ms = LWPT_BTS_HOLD_LIMIT_DEFAULT_MS;
	s->hold_limit_ms = cfg.hold_limit_ms;
	err = bts_buf_alloc(s);
	if (err) {
		cfg.bad_field = LWPT_BTS_FIELD_BUFFER_SIZE;
		goto out_put;
	}
	s->task = task;
	err = lbr ? lbr_alloc(s, cfg.flags & LWPT_BTS_CFG_FLAGS) : 0;
	if (err) {
		s->task = NULL;
		bts_buf_free(s);
		goto out_put;
	}
	s->cred = get_current_cred();
	s->privileged = perfmon_capable();
	err = bts_thread_attach(s);
	if (err) {
		lbr_free(s);
		s->task = NULL;
		put_cred(s->cred);
		s->cred = NULL;
		bts_buf_free(s);
		cfg.bad_field = LWPT_BTS_FIELD_PID;
		goto out_put;
	}
	if (s->lbr)
		lbr_attach(s);
	s->configured = true;
	/* The hold limit in force, 0 become the default (ABI 1.9). */
	if (put_user(cfg.hold_limit_ms, (u32 __user *)((u8 __user *)arg +
			offsetof(struct lwpt_bts_config, hold_limit_ms))))
		err = -EFAULT;
	goto out;

out_put:
	put_task_struct(task);
out:
	if (put_user(cfg.bad_field, (u32 __user *)((u8 __user *)arg +
			offsetof(struct lwpt_bts_config, bad_field))))
		return -EFAULT;
	return err;
}

/* STATUS's flags of a configured session. */
static u32 bts_status_flags(const struct bts_session *s)
{
	u32 f = LWPT_BTS_ST_CONFIGURED;

	if (READ_ONCE(s->attached) && !bts_session_ended(s))
		f |= LWPT_BTS_ST_RECORDING;
	if (READ_ONCE(s->exited) && !READ_ONCE(s->exec_stopped))
		f |= LWPT_BTS_ST_EXITED;
	if (READ_ONCE(s->exec_stopped))
		f |= LWPT_BTS_ST_EXEC_STOPPED;
	if (READ_ONCE(s->ds_taken))
		f |= LWPT_BTS_ST_DS_TAKEN;
	if (READ_ONCE(s->hold_timeouts))
		f |= LWPT_BTS_ST_HOLD_TIMEOUT;
	return f;
}

static long bts_ioctl_status(struct bts_session *s, void __user *arg)
{
	struct lwpt_bts_status st = { };
	u32 usize;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < LWPT_BTS_STATUS_SIZE_VER0)
		return -EINVAL;
	st.size = sizeof(st);
	if (s->configured) {
		st.flags |= bts_status_flags(s);
		st.head = READ_ONCE(s->head);
		if (!s->ring && st.head + BTS_RECORD_SIZE > s->records_end)
			st.flags |= LWPT_BTS_ST_FULL;
		st.switches = READ_ONCE(s->switches);
		st.buffer_size = s->size;
	}
	if (copy_to_user(arg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

/*
 * LWPT_BTS_IOC_CONFIGURE_CPU: every thread on one CPU (bts_cpu.c). The
 * rules of a per-CPU /dev/pt capture: CAP_PERFMON (perf_allow_cpu()),
 * kernel branches CAP_PERFMON; the flags, buffer and DS-CPL checks of
 * CONFIGURE, and LWPT_BTS_CFG_SWITCH_TSC (ABI 1.10) besides; perf's use
 * of the DS area refused as there.
 */
static long bts_ioctl_configure_cpu(struct bts_session *s, void __user *arg)
{
	struct lwpt_bts_cpu_config cc;
	struct lwpt_bts_config cfg = { };
	const char *holder;
	u32 usize;
	int err;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < LWPT_BTS_CPU_CONFIG_SIZE_VER0)
		return -EINVAL;
	if (copy_from_user(&cc, arg, sizeof(cc)))
		return -EFAULT;
	cc.bad_field = LWPT_BTS_FIELD_NONE;
	if (s->configured) {
		err = -EBUSY;
		goto out;
	}
	/* The request's common part, checked as CONFIGURE's (no SWITCH_TSC). */
	cfg.flags = cc.flags & ~LWPT_BTS_CFG_SWITCH_TSC;
	cfg.buffer_size = cc.buffer_size;
	cfg.reserved0 = cc.reserved0 | cc.reserved1;
	err = bts_config_check(&cfg);
	cc.bad_field = cfg.bad_field;
	if (err)
		goto out;
	if (cc.flags & LWPT_BTS_CFG_RING) {
		cc.bad_field = LWPT_BTS_FIELD_FLAGS;
		err = -EINVAL;
		goto out;
	}
	if (cc.cpu >= nr_cpu_ids) {
		cc.bad_field = LWPT_BTS_FIELD_CPU;
		err = -EINVAL;
		goto out;
	}
	if (!(lwpt_hw_flags() & LWPT_HW_F_SIM) && boot_cpu_has(X86_FEATURE_PTI)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	if (!perfmon_capable()) {
		cc.bad_field = (cc.flags & LWPT_BTS_CFG_KERNEL) ?
			       LWPT_BTS_FIELD_FLAGS : LWPT_BTS_FIELD_CPU;
		err = -EPERM;
		goto out;
	}
	if (bts_ds_busy(&holder)) {
		pr_info(LWPT_PR_PREFIX "/dev/bts: IA32_DS_AREA/IA32_DEBUGCTL in use by %s: refused (EBUSY)\n",
			holder);
		err = -EBUSY;
		goto out;
	}
	s->size = cc.buffer_size;
	s->records_end = rounddown(s->size, BTS_RECORD_SIZE);
	s->debugctl = bts_config_debugctl(&cfg);
	s->head = 0;
	s->tail = 0;
	s->margin = bts_ring_margin(s->records_end);
	s->cpu_scope = true;
	s->cpu = cc.cpu;
	s->switch_tsc = cc.flags & LWPT_BTS_CFG_SWITCH_TSC;
	err = bts_buf_alloc(s);
	if (err) {
		cc.bad_field = LWPT_BTS_FIELD_BUFFER_SIZE;
		goto out;
	}
	s->privileged = true;
	err = bts_cpu_attach(s);
	if (err) {
		bts_cpu_free(s);
		bts_buf_free(s);
		s->cpu_scope = false;
		cc.bad_field = LWPT_BTS_FIELD_CPU;
		goto out;
	}
	s->configured = true;
out:
	if (put_user(cc.bad_field, (u32 __user *)((u8 __user *)arg +
			offsetof(struct lwpt_bts_cpu_config, bad_field))))
		return -EFAULT;
	return err;
}

/* Stop recording, whichever the scope. */
static void bts_detach(struct bts_session *s)
{
	if (s->cpu_scope)
		bts_cpu_detach(s);
	else
		bts_thread_detach(s);
}

static long bts_ioctl_ring_status(struct bts_session *s, void __user *arg)
{
	struct lwpt_bts_ring st = { };
	u32 usize;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < LWPT_BTS_RING_SIZE_VER0)
		return -EINVAL;
	if (!s->configured)
		return -ENODATA;
	if (!s->ring)
		return -EINVAL;
	/* As much as both know (ABI 1.11: hold_timeouts at 56). */
	st.size = min_t(u32, usize, sizeof(st));
	st.flags = bts_status_flags(s);
	st.head = READ_ONCE(s->head);
	st.tail = READ_ONCE(s->tail);
	st.records_size = s->records_end;
	st.margin = s->margin;
	st.pmis = READ_ONCE(s->pmis);
	st.holds = READ_ONCE(s->holds);
	st.hold_timeouts = READ_ONCE(s->hold_timeouts);
	if (copy_to_user(arg, &st, st.size))
		return -EFAULT;
	return 0;
}

/*
 * The reader consumed records up to *arg bytes. The tail only moves
 * forward, never past the head published, in whole records. The held
 * thread and the next threshold interrupt see the room.
 */
static long bts_ioctl_consume(struct bts_session *s, u64 __user *arg)
{
	u64 tail;

	if (get_user(tail, arg))
		return -EFAULT;
	if (!s->configured)
		return -ENODATA;
	if (!s->ring || tail < s->tail || tail > READ_ONCE(s->head) ||
	    tail % BTS_RECORD_SIZE)
		return -EINVAL;
	WRITE_ONCE(s->tail, tail);
	wake_up_all(&s->wq);
	bts_thread_room(s);
	return 0;
}

/* A command without its argument size (_IOC_SIZE). */
#define BTS_IOC_CMD(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long bts_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct bts_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	/*
	 * RING_STATUS with any argument size from version 0 up (bts.h, ABI
	 * 1.11): the struct's own size decides what is written.
	 */
	if (BTS_IOC_CMD(cmd) == BTS_IOC_CMD(LWPT_BTS_IOC_RING_STATUS) &&
	    _IOC_SIZE(cmd) >= LWPT_BTS_RING_SIZE_VER0)
		cmd = LWPT_BTS_IOC_RING_STATUS;
	switch (cmd) {
	case LWPT_BTS_IOC_CONFIGURE:
		mutex_lock(&s->lock);
		ret = bts_ioctl_configure(s, uarg);
		mutex_unlock(&s->lock);
		return ret;
	case LWPT_BTS_IOC_STATUS:
		mutex_lock(&s->lock);
		ret = bts_ioctl_status(s, uarg);
		mutex_unlock(&s->lock);
		return ret;
	case LWPT_BTS_IOC_CONSUME:
		mutex_lock(&s->lock);
		ret = bts_ioctl_consume(s, uarg);
		mutex_unlock(&s->lock);
		return ret;
	case LWPT_BTS_IOC_RING_STATUS:
		mutex_lock(&s->lock);
		ret = bts_ioctl_ring_status(s, uarg);
		mutex_unlock(&s->lock);
		return ret;
	case LWPT_BTS_IOC_CONFIGURE_CPU:
		mutex_lock(&s->lock);
		ret = bts_ioctl_configure_cpu(s, uarg);
		mutex_unlock(&s->lock);
		return ret;
	case LWPT_BTS_IOC_READ_SWITCHES:
		mutex_lock(&s->lock);
		if (!s->configured)
			ret = -ENODATA;
		else if (!s->cpu_scope)
			ret = -EINVAL;
		else
			ret = bts_cpu_read_switches(s, uarg);
		mutex_unlock(&s->lock);
		return ret;
	case LWPT_BTS_IOC_STOP:
		mutex_lock(&s->lock);
		ret = s->configured ? 0 : -ENODATA;
		if (!ret) {
			lbr_detach(s);
			bts_detach(s);
		}
		mutex_unlock(&s->lock);
		return ret;
	case LWPT_BTS_IOC_LBR_SNAPSHOT:
		mutex_lock(&s->lock);
		ret = lbr_ioctl_snapshot(s, uarg);
		mutex_unlock(&s->lock);
		return ret;
	default:
		return lwpt_dev_ioctl_misc(s->misc, cmd, arg);
	}
}

static int bts_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct bts_session *s = file->private_data;
	int err;

	mutex_lock(&s->lock);
	err = s->configured ? bts_buf_mmap(s, vma) : -ENODATA;
	mutex_unlock(&s->lock);
	return err;
}

/*
 * Readable when records wait (a ring's head past its tail, a linear
 * buffer's head past 0) as of the last threshold interrupt, switch or
 * STOP; POLLHUP once recording ended (STOP, exit, a refused exec, perf
 * taking IA32_DS_AREA).
 */
static __poll_t bts_poll(struct file *file, struct poll_table_struct *pt)
{
	struct bts_session *s = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &s->wq, pt);
	if (!READ_ONCE(s->configured))
		return 0;
	if (READ_ONCE(s->head) > READ_ONCE(s->tail))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (!READ_ONCE(s->attached) || bts_session_ended(s))
		mask |= EPOLLHUP;
	return mask;
}

void bts_session_put(struct bts_session *s)
{
	if (!refcount_dec_and_test(&s->ref))
		return;
	if (s->configured) {
		lbr_free(s);
		bts_buf_free(s);
		bts_cpu_free(s);
		if (s->task)
			put_task_struct(s->task);
		if (s->cred)
			put_cred(s->cred);
	}
	kfree(s);
}

/*
 * The last reference to the file (no mapping left): stop; the session
 * goes with its last reference (a hold queued on the thread may have it).
 */
static int bts_release(struct inode *inode, struct file *file)
{
	struct bts_session *s = file->private_data;

	if (s->configured) {
		lbr_detach(s);
		bts_detach(s);
	}
	bts_session_put(s);
	return 0;
}

const struct file_operations bts_fops = {
	.owner = THIS_MODULE,
	.open = bts_open,
	.release = bts_release,
	.unlocked_ioctl = bts_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = bts_mmap,
	.poll = bts_poll,
	.llseek = noop_llseek,
};

int bts_init(const struct lwpt_caps *caps)
{
	int err;

	if (!caps->bts)
		return 0;
	err = bts_ds_init(caps);
	if (err)
		return err;
	err = bts_ds_pmi_init();
	if (err)
		goto err_ds;
	err = bts_thread_init();
	if (err)
		goto err_pmi;
	err = bts_cpu_init();
	if (err)
		goto err_thread;
	/* After bts_thread_init(): its exec probe runs before lbr_thread.c's. */
	err = lbr_init(caps);
	if (err)
		goto err_cpu;
	bts_present = true;
	return 0;

err_cpu:
	bts_cpu_exit();
err_thread:
	bts_thread_exit();
err_pmi:
	bts_ds_pmi_exit();
err_ds:
	bts_ds_exit();
	return err;
}

void bts_exit(void)
{
	if (!bts_present)
		return;
	lbr_exit();
	bts_cpu_exit();
	bts_thread_exit();
	bts_ds_pmi_exit();
	bts_ds_exit();
	bts_present = false;
}
