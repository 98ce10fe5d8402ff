/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the BTS subsystem (kmod/bts/): one capture per open file of
 * /dev/bts (struct bts_session), shared by its files:
 *   bts_core.c   - the device: CONFIGURE, STATUS, STOP, mmap, release;
 *   bts_buf.c    - the buffer the processor writes and the caller maps;
 *   bts_ring.c   - where in the buffer the processor writes next: the
 *                  stretch of a ring capture, its threshold, when to hold;
 *   bts_ds.c     - the per-CPU DS save area and IA32_DEBUGCTL: loading and
 *                  unloading a thread's BTS state on a CPU, the threshold
 *                  interrupt (the PMI consumer LWPT_HW_PMI_BTS);
 *   bts_thread.c - which thread has which capture, the context switches
 *                  that load and unload it, the hold of a ring's thread.
 * Calls go down that list's reverse only: core -> thread -> ds -> ring;
 * ds reaches thread's notification through the session's irq_work.
 */
#ifndef LWPT_KMOD_BTS_BTS_INT_H
#define LWPT_KMOD_BTS_BTS_INT_H

#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "../branch_owner.h"
#include "bts.h"

struct bts_sideband;
struct cred;
struct lbr_state;
struct lwpt_bts_switches;
struct miscdevice;
struct task_struct;
struct user_struct;

/**
 * struct bts_session - one capture (one open file)
 * @lock: serialises the ioctls and release of the file
 * @misc: the misc device the file was opened on (common ioctls)
 * @node: in bts_thread.c's table, keyed by @task, while attached
 * @task: the recorded thread (a reference), NULL before CONFIGURE
 * @buf: the buffer (vmalloc_user(), mapped by the caller), @size bytes
 * @size: bytes of @buf
 * @records_end: bytes of @buf records may fill (a multiple of 24)
 * @debugctl: the IA32_DEBUGCTL bits the capture sets (TR, BTS, BTINT,
 *	BTS_OFF_OS or BTS_OFF_USR)
 * @head: bytes of records in @buf: the BTS index minus the base, saved
 *	when the thread's state is unloaded. Written only on the CPU that
 *	holds the state, with interrupts off
 * @loaded_cpu: the CPU whose DS area holds the state now, or -1
 * @switches: loads of the state
 * @attached: in the table: loaded at the thread's switches
 * @exited: the thread exited (per-CPU: its CPU went offline); never loaded
 *	again
 * @ds_taken: someone else (perf) wrote IA32_DS_AREA while the state was
 *	loaded, or held it at a load: recording ended there for good, the
 *	MSR left as they wrote it (LWPT_BTS_ST_DS_TAKEN; bts_ds.c)
 * @ds_taken_cpu: the CPU where @ds_taken was found (the log line)
 * @ds_told: the log line of @ds_taken was printed
 * @configured: CONFIGURE succeeded
 * @exec_stopped: the thread exec'ed a program the caller may not trace
 *	(set-user-ID, file capabilities, not dumpable): recording ended there
 * @cred: the caller's credentials at CONFIGURE (the exec rule)
 * @privileged: the caller had CAP_PERFMON at CONFIGURE
 * @user: the user charged for the buffer's locked memory
 * @locked_pages: pages charged to @user's locked_vm (bts_buf.c)
 * @claim: @task's branch-tracer claim while attached (branch_owner.h:
 *	never Intel PT at once)
 * @lbr: the thread's LBR stack with LWPT_BTS_CFG_LBR, else NULL (lbr_int.h)
 * @ring: LWPT_BTS_CFG_RING: @buf is a ring drained by the caller; @head
 *	then counts every byte written since CONFIGURE (never decreasing)
 * @tail: ring: bytes the caller consumed (LWPT_BTS_IOC_CONSUME)
 * @margin: ring: bytes after the interrupt threshold of each stretch
 * @region_head: @head when the loaded stretch's index was at its base
 * @region_base: the linear address of the loaded stretch's base
 * @region_short: ring: the loaded stretch is no longer than @margin
 *	(bts_ring_region()'s hold): the thread must not run user code on
 *	it, but wait for room if there is none and take a fresh stretch
 *	(bts_thread.c's hold), also when the caller made room meanwhile
 * @woken_head: @head as of the last run of @iw (the last wake of @wq by
 *	it): an unload or a per-CPU switch that publishes another head
 *	queues @iw (bts_ds.c's bts_ds_publish())
 * @pmis: threshold interrupts taken
 * @holds: times the thread waited for room
 * @ref: the file's reference and one per queued hold
 * @wq: poll(2) readers and the held thread
 * @iw: queued by the threshold interrupt, by a load that found the ring
 *	full and by an unload (switch, the hold's reload) or per-CPU switch
 *	that published a head poll(2) has not seen (NMI or IRQs off, the
 *	runqueue lock maybe held): wakes @wq, queues the hold (bts_thread.c)
 * @hold_cb: the hold's task_work on @task
 * @hold_queued: @hold_cb is queued
 * @hold_limit_ms: ring: the hold limit in force (lwpt_bts_config.
 *	hold_limit_ms: LWPT_BTS_HOLD_LIMIT_NONE or milliseconds)
 * @hold_off: ring: a hold reached @hold_limit_ms; the thread is not held
 *	again until the caller consumes (bts_thread_room())
 * @hold_timeouts: holds that reached @hold_limit_ms
 * @hold_again: a hold was due but a signal ended or deferred it (or
 *	execve() was under way): the signal's delivery (or the exec probe)
 *	queues it again (bts_thread.c)
 * @cpu_scope: a per-CPU capture (LWPT_BTS_IOC_CONFIGURE_CPU): every
 *	thread on @cpu; @task is NULL
 * @cpu: its CPU
 * @switch_tsc: LWPT_BTS_CFG_SWITCH_TSC: READ_SWITCHES writes struct
 *	lwpt_bts_switch_tsc records
 * @sb: its context switches (bts_cpu.c), NULL for a thread's capture
 */
struct bts_session {
	struct mutex lock;	/* the ioctls, mmap and release */
	struct miscdevice *misc;
	struct hlist_node node;
	struct task_struct *task;
	void *buf;
	size_t size;
	size_t records_end;
	u64 debugctl;
	u64 head;
	int loaded_cpu;
	u64 switches;
	bool attached;
	bool exited;
	bool ds_taken;
	int ds_taken_cpu;
	bool ds_told;
	bool configured;
	bool exec_stopped;
	const struct cred *cred;
	bool privileged;
	struct user_struct *user;
	unsigned long locked_pages;
	struct lwpt_branch_claim claim;
	struct lbr_state *lbr;
	bool ring;
	u64 tail;
	u64 margin;
	u64 region_head;
	u64 region_base;
	bool region_short;
	u64 woken_head;
	u64 pmis;
	u64 holds;
	refcount_t ref;
	wait_queue_head_t wq;
	struct irq_work iw;
	struct callback_head hold_cb;
	atomic_t hold_queued;
	bool hold_again;
	u32 hold_limit_ms;
	bool hold_off;
	u64 hold_timeouts;
	bool cpu_scope;
	int cpu;
	bool switch_tsc;
	struct bts_sideband *sb;
};

/**
 * bts_session_ended - will @s's state never be loaded again
 * @s: a session
 *
 * Return: its thread exited (or its CPU went offline) or IA32_DS_AREA was
 * taken from it; STOP and release are apart (@attached).
 */
static inline bool bts_session_ended(const struct bts_session *s)
{
	return READ_ONCE(s->exited) || READ_ONCE(s->ds_taken);
}

/**
 * bts_session_put - drop a reference to @s; the last frees it
 * @s: the session (bts_core.c)
 *
 * Process context (vfree()).
 */
void bts_session_put(struct bts_session *s);

/* bts_ring.c */

/**
 * struct bts_region - the stretch of the buffer the processor is given
 * @pad: bytes of zero records to write at the head first (the ring's end
 *	too short for a margin: the stretch starts at the ring's start)
 * @base: offset in the buffer of the BTS buffer base (17.4.9.1)
 * @index: offset of the BTS index
 * @max: offset of the BTS absolute maximum
 * @thresh: offset of the BTS interrupt threshold (beyond @max: none)
 * @hold: the thread must wait for room before it runs user code again
 */
struct bts_region {
	u64 pad;
	u64 base;
	u64 index;
	u64 max;
	u64 thresh;
	bool hold;
};

/**
 * bts_ring_margin - the margin of a ring of @records_end bytes
 * @records_end: bytes of the ring (a multiple of 24)
 *
 * perf's BTS_SAFETY_MARGIN (4080 bytes) rounded to records, at most a
 * quarter of the ring, at least one record.
 *
 * Return: bytes, a multiple of 24.
 */
u64 bts_ring_margin(u64 records_end);

/**
 * bts_ring_region - where the processor writes next for @s
 * @s: a configured session (@head, @tail, @records_end, @margin read once)
 * @r: out
 *
 * Linear: the whole buffer from the head, threshold past the maximum.
 * Ring: from the head to the end of the ring or of the free room, the
 * threshold @margin before that end (a record before it if shorter, as
 * perf's bts_config_buffer()); the ring's end skipped with padding when
 * shorter than a margin and the start has room; @r->hold when less than a
 * margin is free.
 */
void bts_ring_region(const struct bts_session *s, struct bts_region *r);

/* bts_buf.c */

/**
 * bts_buf_alloc - allocate the buffer of a capture, charged to its user
 * @s: the session (@s->size set, page-aligned)
 *
 * Return: 0; -ENOMEM no memory or RLIMIT_MEMLOCK exceeded (as PT).
 */
int bts_buf_alloc(struct bts_session *s);

/* bts_buf_free - free @s's buffer and uncharge it (no mapping left). */
void bts_buf_free(struct bts_session *s);

struct vm_area_struct;

/**
 * bts_buf_mmap - map @s's buffer read-only into @vma
 * @s: a configured session
 * @vma: offset 0, at most the buffer's size, no PROT_WRITE
 *
 * Return: 0; -EINVAL offset or size wrong or no buffer; -EPERM writable.
 */
int bts_buf_mmap(struct bts_session *s, struct vm_area_struct *vma);

/* bts_ds.c */

/**
 * bts_ds_init - allocate the per-CPU DS save areas
 * @caps: detection result (DS-CPL from CPUID.1)
 *
 * Return: 0 or -ENOMEM.
 */
int bts_ds_init(const struct lwpt_caps *caps);

/* bts_ds_exit - free them (no state loaded anywhere). */
void bts_ds_exit(void);

/**
 * bts_ds_pmi_init - register the threshold interrupt's PMI consumer
 *
 * Return: 0 or lwpt_hw_pmi_register()'s error.
 */
int bts_ds_pmi_init(void);

/* bts_ds_pmi_exit - unregister it (waits for running handlers). */
void bts_ds_pmi_exit(void);

/**
 * bts_ds_claim - may @s load its state (per-thread and per-CPU scopes
 *	never at once; one per-CPU capture per CPU)
 * @s: a session with @cpu_scope and @cpu set
 *
 * Return: 0 (undo with bts_ds_unclaim()); -EBUSY.
 */
int bts_ds_claim(struct bts_session *s);

/* bts_ds_unclaim - undo bts_ds_claim(). */
void bts_ds_unclaim(struct bts_session *s);

/**
 * bts_ds_sync - @s->head from the BTS index if @s is loaded on this CPU
 * @s: the session
 *
 * A head poll(2) has not seen queues @s->iw (the readers are woken).
 * If IA32_DS_AREA is no longer this CPU's DS area (perf wrote it since the
 * load), @s is unloaded for good instead, the MSR left alone
 * (@s->ds_taken). Interrupts off.
 */
void bts_ds_sync(struct bts_session *s);

/**
 * bts_ds_report - the log line of @s->ds_taken, once per capture
 * @s: the session; nothing is printed unless @s->ds_taken
 *
 * Rate-limited (pr_warn_ratelimited()). Not under the runqueue lock (the
 * session's irq_work calls it).
 */
void bts_ds_report(struct bts_session *s);

/**
 * bts_ds_reload - give @s a fresh stretch of its ring on this CPU
 * @s: a session; nothing is done unless its state is loaded here
 *
 * Unload and load: the head accounted, the stretch recomputed with the
 * caller's latest tail. Interrupts off.
 */
void bts_ds_reload(struct bts_session *s);

/**
 * bts_ds_cpl_qualified - does the processor have DS-CPL (SDM 17.4.6)
 *
 * Return: CPUID.1:ECX[4].
 */
bool bts_ds_cpl_qualified(void);

/**
 * bts_ds_busy - is the DS area or IA32_DEBUGCTL's branch recording in use
 *	by someone else on any online CPU
 * @holder: out, a static name of the holder for the log
 *
 * Another user's IA32_DS_AREA (perf's PEBS/BTS buffers: perf writes it
 * when its first x86 event is created and clears it when the last goes,
 * reserve_ds_buffers()/release_ds_buffers()), or IA32_DEBUGCTL with LBR,
 * TR or BTS set (perf's LBR or intel_bts, a debugger). Process context.
 *
 * Return: true if busy.
 */
bool bts_ds_busy(const char **holder);

/**
 * bts_ds_load - load @s's BTS state on this CPU
 * @s: an attached session of the thread that runs next here
 *
 * IA32_DS_AREA must be 0 (as CONFIGURE found it: bts_ds_busy()); anything
 * else is perf's DS area, written since: nothing is loaded, @s ends
 * (@s->ds_taken). Else saves IA32_DEBUGCTL, points IA32_DS_AREA at this
 * CPU's DS save area with @s's buffer (base, index, absolute maximum,
 * threshold beyond it), and sets @s->debugctl in IA32_DEBUGCTL. Nothing
 * once bts_session_ended(). Interrupts off.
 */
void bts_ds_load(struct bts_session *s);

/**
 * bts_ds_unload - unload @s's state from this CPU (it is loaded here)
 * @s: the session
 *
 * Gives its IA32_DEBUGCTL bits back, saves the BTS index in @s->head
 * (queueing @s->iw when poll(2) has not seen that head: the readers are
 * woken), writes IA32_DS_AREA back to 0, as found at the load. If IA32_DS_AREA is
 * no longer this CPU's DS area (perf wrote it meanwhile), it is left as it
 * is, the bits of @s->debugctl are cleared, and @s ends (@s->ds_taken).
 * Interrupts off.
 */
void bts_ds_unload(struct bts_session *s);

/* bts_thread.c */

/**
 * bts_thread_init - probe sched_switch, sched_process_exit,
 *	sched_process_exec and signal_deliver
 *
 * Return: 0, -ENODEV if the kernel lacks them, or the probe's error.
 */
int bts_thread_init(void);

/* bts_thread_exit - remove the probes (no session attached). */
void bts_thread_exit(void);

/**
 * bts_thread_session_init - the wait queue, irq_work and hold of a new
 *	session; its reference count 1 (the file's)
 * @s: a zeroed session
 */
void bts_thread_session_init(struct bts_session *s);

/**
 * bts_thread_attach - record @s->task from now on
 * @s: a configured session with its buffer
 *
 * Enters the table; loads the state at once if the thread is current or
 * runs on another CPU (an IPI), else at its next switch in.
 *
 * Return: 0; -EBUSY the thread already has a BTS capture, or Intel PT
 * traces it or a per-CPU PT capture is configured (branch_owner.h);
 * -ESRCH it is exiting.
 */
int bts_thread_attach(struct bts_session *s);

/**
 * bts_thread_detach - stop recording @s->task
 * @s: an attached session (detached sessions: no effect)
 *
 * Leaves the table, waits until no CPU can load it, unloads it where it
 * is loaded. Process context; @s->head is final afterwards.
 */
void bts_thread_detach(struct bts_session *s);

/**
 * bts_thread_room - the caller of a ring capture consumed: a thread the
 *	hold limit let run on (@hold_off) may be held again, and gets the
 *	room now if loaded (an IPI to its CPU; else at its next load)
 * @s: a configured ring session
 *
 * Process context.
 */
void bts_thread_room(struct bts_session *s);

/* bts_cpu.c */

/**
 * bts_cpu_init - probe sched_switch for per-CPU captures' switches and
 *	hook CPU hotplug (a CPU going offline ends its capture)
 *
 * Return: 0, -ENODEV without the tracepoint, or the registration's error.
 */
int bts_cpu_init(void);

/* bts_cpu_exit - undo bts_cpu_init() (no per-CPU capture left). */
void bts_cpu_exit(void);

/**
 * bts_cpu_attach - record every thread on @s->cpu from now on
 * @s: a configured per-CPU session with its buffer
 *
 * Return: 0; -ENODEV the CPU is offline; -EBUSY the CPU has a capture, a
 * thread has a per-thread capture, or /dev/pt traces (branch_owner.h);
 * -ENOMEM.
 */
int bts_cpu_attach(struct bts_session *s);

/**
 * bts_cpu_detach - stop recording @s->cpu (no effect if not attached)
 * @s: the session
 *
 * Process context; @s->head is final afterwards.
 */
void bts_cpu_detach(struct bts_session *s);

/**
 * bts_cpu_read_switches - take recorded context switches out of @s's ring
 * @s: a per-CPU session
 * @arg: the caller's struct lwpt_bts_switches (user memory)
 *
 * Return: 0; -EFAULT; -EINVAL bad size or non-zero out fields.
 */
long bts_cpu_read_switches(struct bts_session *s, void __user *arg);

/* bts_cpu_free - free @s's switch ring (detached). */
void bts_cpu_free(struct bts_session *s);

#endif /* LWPT_KMOD_BTS_BTS_INT_H */
