/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the PT subsystem, shared by its files (one per spec concept):
 *   pt_config.c  capabilities (SDM 33.3.1), validation and permissions of a
 *                configuration (SDM 33.2.8), the size-versioned ABI structs
 *   pt_buf.c     output buffers: ToPA (SDM 33.2.7.2) or one single range
 *                (SDM 33.2.7.1)
 *   pt_output.c  one buffer's output state: RTIT MSRs of the loaded trace,
 *                pause/resume, accounting from the output pointers, the
 *                continuous-mode gate (below both capture scopes)
 *   pt_thread.c  per-thread capture: RTIT state switched at context switch
 *                (SDM 33.3.5), threads joining and leaving; one table of
 *                traced threads for all captures (a thread is in one)
 *   pt_notif.c   each traced task's preempt notifier (its sched_in loads
 *                the state), registered by the task itself (task_work)
 *   pt_mem.c     what buffers cost their user: RLIMIT_MEMLOCK, memcg
 *   pt_sideband.c  the per-CPU sideband: context switches with their TSC,
 *                for decoders (LWPT_PT_IOC_READ_SIDEBAND)
 *   pt_core.c    /dev/pt: sessions (one per open file, several at once),
 *                who may run beside whom, ioctls, per-CPU capture, the ToPA
 *                PMI, CPU hotplug and suspend
 *
 * Sessions: each open file has its own (file->private_data), configured
 * ones are on pt_sessions. Per-thread captures of different processes run
 * side by side; a per-CPU capture is alone (pt_cpu_owner), also when it
 * covers only selected CPUs (lwpt_pt_config.cpu_mask); pt_core.c
 * pt_sess_conflict() has the rule. A CPU's per-CPU trace is pt_cpu.tr, a
 * thread's is its pt_thread's; each pt_output points to its session.
 *
 * Lock order: the target's signal->exec_update_lock (read, CONFIGURE of a
 * per-thread capture, taken before pt_lock as perf_event_open() takes it
 * before ctx->mutex) -> mmap_lock (exec_mmap() takes it under
 * exec_update_lock; mmap() calls pt_mmap() with it held) -> pt_lock (mutex,
 * control path: every session's ioctls, mmap, release; pt_sessions,
 * pt_cpu_owner; a session is freed only under it; nothing under it takes
 * exec_update_lock or mmap_lock, nor drops an mm's last user with mmput())
 * -> cpus_read_lock() -> pt_thread_lock
 * (raw spinlock, IRQs off; the traced-thread table of all sessions, each
 * session's thread lists, spares, thr.open and started; also taken by the
 * sched_switch, fork, exec and exit probes under the runqueue lock, and by
 * the preempt notifiers' sched_in) -> pt_notif_lock (raw, the notifier
 * table, pt_notif.c). Nothing is taken inside those; the PMI (an NMI) takes no lock:
 * it reaches a trace through pt_cpu.cur or pt_cpu.tr, which are cleared on
 * their CPU (IPI) before synchronize_rcu() and the free.
 * A sideband ring has one writer (its CPU's sched_switch probe) and one
 * reader (READ_SIDEBAND under pt_lock): no lock, acquire/release on the
 * counters.
 */
#ifndef LWPT_KMOD_PT_PT_INT_H
#define LWPT_KMOD_PT_PT_INT_H

#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_topa.h>

#include "../switch_ids.h"
#include "pt.h"

/* Buffers kept ready for threads that join (pt_thread.c; caps.thread_spares). */
#define PT_THREAD_SPARES		8
/*
 * At most this many thread buffers at once, spares included (the rest of
 * the threads count as lost); buffer numbers are below it (pt_thread.c).
 */
#define PT_THREAD_MAX			4096
/*
 * Largest PT state component (CPUID.(0DH,8).EAX) the per-thread XSAVES area
 * holds: 1024 bytes less the legacy region and header (pt_thread.c).
 */
#define PT_XSAVE_STATE_MAX		(1024 - 576)

/* Region entries per ToPA table page; the last entry is the END entry. */
#define PT_TOPA_REGIONS_PER_TABLE	(PAGE_SIZE / TOPA_ENTRY_BYTES - 1)
/* Largest region: one buddy block (naturally aligned, SDM 33.2.7.2 2b). */
#define PT_REGION_ORDER_MAX		min_t(unsigned int, MAX_ORDER - 1, \
					      TOPA_SIZE_MAX + 12 - PAGE_SHIFT)

/**
 * struct pt_buf - one trace buffer (a CPU's or a thread's): regions, tables
 * @single: single-range output (SDM 33.2.7.1): one naturally aligned
 *	block, no tables; IA32_RTIT_CTL.ToPA=0
 * @size: bytes, the sum of the regions
 * @nr_regions: output regions
 * @region_order: page order of each region (region i has 4K << order bytes)
 * @region_off: byte offset of each region within the buffer
 * @nr_pages: @size / PAGE_SIZE
 * @pages: every page of the buffer in buffer order (split, for mmap)
 * @nr_tables: ToPA table pages
 * @tables: the table pages; table t holds regions t * 511 ... and an END
 * @page_region: the region of each page: a region's index from a buffer
 *	offset in O(1) (the PMI, in NMI context, scans nothing)
 */
struct pt_buf {
	bool single;
	u64 size;
	unsigned int nr_regions;
	u8 *region_order;
	u64 *region_off;
	unsigned long nr_pages;
	struct page **pages;
	unsigned int nr_tables;
	struct page **tables;
	u32 *page_region;
};

/* The capabilities, decoded once at load (pt_config.c). */
extern struct pt_cpuid_leaf pt_leaf;
extern struct lwpt_pt_caps pt_caps;

static inline bool pt_has(u32 cap)
{
	return pt_caps.caps & cap;
}

/**
 * struct pt_rtit_state - the RTIT MSRs that differ between traces
 * @ctl: IA32_RTIT_CTL (TraceEn included)
 * @status: IA32_RTIT_STATUS
 * @output_base: IA32_RTIT_OUTPUT_BASE
 * @output_mask_ptrs: IA32_RTIT_OUTPUT_MASK_PTRS
 *
 * CR3_MATCH and ADDRn are the session's and the same for every trace.
 */
struct pt_rtit_state {
	u64 ctl;
	u64 status;
	u64 output_base;
	u64 output_mask_ptrs;
};

/**
 * struct pt_output - one buffer and what the processor wrote into it
 * @buf: the buffer
 * @configured: @buf is allocated
 * @tracing: TraceEn is set (per CPU), or set while the thread runs
 * @busy: TraceEn was found set by another owner
 * @stalled: continuous mode: stopped at a PMI for want of room
 * @ctl: IA32_RTIT_CTL with TraceEn=0, as programmed
 * @rtit_status: IA32_RTIT_STATUS as last read
 * @pos: buffer offset of the next byte, as last read
 * @head: bytes written since START
 * @tail: bytes the reader released (continuous mode)
 * @lost: output losses (stalls, STOP reached, operational errors, offline,
 *	someone else's trace)
 * @pmis: ToPA PMIs handled
 * @gate: continuous mode: the region whose ToPA entry has STOP (and INT),
 *	the one before the reader's tail (pt_output_gate())
 * @gap_head: @head where a loss last cut the packet stream (a ToPA stop at
 *	the gate, pointers put back): decoders resync at the next PSB
 * @gaps: cuts since START (pt_output_cut())
 * @gap_ring: @head of cut n in [n % LWPT_PT_GAP_HEADS]: every cut between
 *	two status reads is kept, not only the last
 * @holds: per-thread continuous mode: times the thread was held for its
 *	reader (pt_thread.c, "The hold")
 * @held_ns: nanoseconds it spent held
 * @pad_bytes: PAD bytes the module wrote and counted in @head (one region
 *	without MENTRY: the rest of a lap skipped, pt_output_gate())
 * @pad_from: @head where the last such PAD run begins
 * @pad_to: @head where it ends (a lap boundary); the reader skips
 *	[@pad_from, @pad_to) without reading it (it may hold the next lap's
 *	bytes by then)
 * @lost_bytes: bytes written that the reader can no longer get: the
 *	continuous-mode overrun moved the tail past them
 * @hold_timeouts: holds that reached the session's hold limit
 * @hold_off: a hold reached the limit: not held again until the reader
 *	releases some of this trace's data (pt_thread.c, "The hold")
 * @pmi_due: an INT region was seen filled and no PMI has been claimed for
 *	it yet: the evidence that lets the PMI claim a ToPA PMI whose
 *	IA32_PERF_GLOBAL_STATUS bit 55 another handler already acknowledged
 * @interfered: times someone else cleared TraceEn or moved the output
 *	pointers of this trace (pt_output_pause())
 * @lbr: times IA32_DEBUGCTL.LBR was found set on a PT/LBR-exclusive model
 *	(SDM 33.3.1.2, pt_config_lbr_check()) where TraceEn had just been
 *	cleared (pt_output_lbr_note()) or was to be set, which was then left
 *	clear (pt_output_lbr_refuse())
 * @err: error of the last IPI operation
 * @maps: user mappings of this buffer (pt_core.c vm_ops): a thread's
 *	buffer is not freed while it is mapped (pt_thread_done())
 * @sess: the session it belongs to (its mode and filters); set while
 *	@configured
 */
struct pt_output {
	struct pt_buf buf;
	bool configured;
	bool tracing;
	bool busy;
	bool stalled;
	u64 ctl;
	u64 rtit_status;
	u64 pos;
	u64 head;
	u64 tail;
	u64 lost;
	u64 pmis;
	unsigned int gate;
	u64 gap_head;
	u64 gaps;
	u64 gap_ring[LWPT_PT_GAP_HEADS];
	u64 holds;
	u64 held_ns;
	u64 pad_bytes;
	u64 pad_from;
	u64 pad_to;
	u64 lost_bytes;
	u64 hold_timeouts;
	bool hold_off;
	bool pmi_due;
	u64 interfered;
	u64 lbr;
	int err;
	atomic_t maps;
	const struct pt_session *sess;
};

struct pt_thread;
struct pt_session;

/**
 * struct pt_sb - a CPU's sideband ring: its context switches (per-CPU scope)
 * @rec: PT_SB_RECORDS records; NULL if the CPU has no buffer
 * @head: records written since START (only the probe on this CPU writes)
 * @tail: records read since START (only READ_SIDEBAND writes, pt_lock held)
 * @lost: records dropped because the ring was full
 * @on: record (between START and STOP)
 * @ids: the running task's ids (kmod/switch_ids.h: an exiting task reaped
 *	on another CPU before its last switch keeps its ids)
 */
struct pt_sb {
	struct lwpt_pt_switch *rec;
	u64 head;
	u64 tail;
	u64 lost;
	bool on;
	struct lwpt_switch_ids ids;
};

/* Records per CPU ring (32 bytes each). */
#define PT_SB_RECORDS	4096

/**
 * struct pt_cpu - PT state of one CPU
 * @tr: its buffer (per-CPU scope)
 * @in_update: the RTIT MSRs are being changed here (the PMI only acks)
 * @pmi_seen: a PMI came during @in_update (a region filled); taken with
 *	xchg() so that a PMI between the read and the clear is not lost
 * @offline: per-CPU scope: went offline (or to suspend) during the capture
 * @was_tracing: @tr.tracing when it went offline
 * @saved: its RTIT state while offline or suspended
 * @cur: per-thread scope: the thread whose state is loaded here, or NULL
 * @suspended: per-thread scope: @cur unloaded by suspend, for resume
 * @sb: per-CPU scope: its context switches
 * @hold_iw: per-thread scope: queued where a thread's output reached its
 *	hold watermark (NMI-safe); runs in IRQ context and holds current
 *	(pt_thread.c, "The hold")
 * @hold_sync: a PMI came during an update with IA32_PERF_GLOBAL_STATUS bit
 *	55 already acknowledged by another handler: @hold_iw accounts the
 *	loaded thread's output first (pt_pmi())
 * @pmi_owed: an update here cleared TraceEn and found IA32_PERF_GLOBAL_
 *	STATUS bit 55 set: the region fill is accounted, the NMI is still to
 *	come and is lwpt's, to be claimed once whenever it comes, also with
 *	nothing of lwpt's loaded here any more (pt_cpu_pmi_raised(),
 *	pt_pmi_late()); xchg() where it is taken
 * @late_pmis: such late PMIs claimed (pt_pmi_late())
 */
struct pt_cpu {
	struct pt_output tr;
	bool in_update;
	bool pmi_seen;
	bool offline;
	bool was_tracing;
	struct pt_rtit_state saved;
	struct pt_thread *cur;
	struct pt_thread *suspended;
	struct pt_sb sb;
	struct irq_work hold_iw;
	bool hold_sync;
	bool pmi_owed;
	u64 late_pmis;
};

struct pt_mem_user;
struct mem_cgroup;
struct miscdevice;

/**
 * struct pt_mem - what a capture charged its user (pt_mem.c)
 * @user: the configuring user (a reference): locked_vm
 * @uid: its uid
 * @mu: its use of the free allowance
 * @mm: the configuring process's mm (mmgrab()): pinned_vm, VmPin
 * @memcg: its memory cgroup (a reference), for work-item allocations
 * @limit: RLIMIT_MEMLOCK at CONFIGURE, pages; ULONG_MAX: no limit
 * @free: pages charged to the allowance
 * @locked: pages charged to @user->locked_vm and @mm->pinned_vm
 */
struct pt_mem {
	struct user_struct *user;
	kuid_t uid;
	struct pt_mem_user *mu;
	struct mm_struct *mm;
	struct mem_cgroup *memcg;
	unsigned long limit;
	unsigned long free;
	unsigned long locked;
};

/**
 * struct pt_threads - the threads of a per-thread session (pt_thread.c)
 * @list: joined threads whose buffers are not freed, in join order (RCU
 *	list)
 * @spares: allocated buffers not joined yet
 * @nr: buffer numbers in use or freed: one above the highest ever taken
 * @live: entries of @list (buffers of joined threads not freed)
 * @joined: threads that joined since CONFIGURE (status serial, joined)
 * @used: the buffer numbers taken by entries of @list; a thread that joins
 *	takes the lowest free one (pt_thread_attach())
 * @nr_spares: entries of @spares
 * @lost: threads that joined without a spare: not traced
 * @refused: threads the permission rule refused (at CONFIGURE,
 *	pt_config_permit_thread(); at a fork, pt_config_follow_check()): not
 *	traced
 * @bts: threads BTS records (lwpt_branch_claim_task() refused): not
 *	traced; at CONFIGURE, EBUSY
 * @open: threads may join (false once the session is freed or preempted);
 *	under pt_thread_lock
 * @inherit: follow fork/clone children (not LWPT_PT_CFG_NO_INHERIT)
 * @probes: this session counts in the probes' users
 * @target: the configured process's thread (a reference: keeps its
 *	signal_struct, the identity of the thread group)
 * @refill: work item that keeps PT_THREAD_SPARES spares
 */
struct pt_threads {
	struct list_head list;
	struct list_head spares;
	unsigned int nr;
	unsigned int live;
	u64 joined;
	DECLARE_BITMAP(used, PT_THREAD_MAX);
	unsigned int nr_spares;
	u32 lost;
	u32 refused;
	u32 bts;
	bool open;
	bool inherit;
	bool probes;
	struct task_struct *target;
	struct work_struct refill;
};

/**
 * struct pt_session - one open /dev/pt and the capture it configured
 * @misc: the misc device (file->private_data before open), for the ioctls
 *	common to both devices
 * @node: in pt_sessions while @configured
 * @configured: CONFIGURE succeeded; the fields below are valid
 * @owner_tgid: the process that configured it (a reference), named to
 *	whoever gets EBUSY
 * @owner_uid: its real UID, for the log line of an EBUSY or a preemption
 * @owner_comm: its command name, same
 * @perfmon: the configuring process had CAP_PERFMON or CAP_SYS_ADMIN: no
 *	unprivileged capture keeps it out (pt_sess_conflict())
 * @preempted: a privileged capture ended it (LWPT_PT_STOP_PREEMPTED): its
 *	data stays readable, it cannot START again
 * @cfg: the accepted configuration
 * @ctl: IA32_RTIT_CTL with TraceEn=0
 * @cr3: CR3_MATCH value for LWPT_PT_CFG_CR3_FILTER
 * @cr3_mm: the mm whose PGD @cr3 is, pinned (mmgrab()) so that the PGD
 *	page is not reused by another process while the capture lives
 * @started: between START and STOP; changed with cpus_read_lock() held
 * @privileged: the configuring process had CAP_PERFMON, CAP_SYS_ADMIN or
 *	CAP_SYS_PTRACE in the initial user namespace (may follow an exec into
 *	a program it could not trace otherwise)
 * @cred: the configuring process's credentials (a reference), for the
 *	permission rule at a traced thread's exec (pt_config_follow_check())
 * @pid_ns: per-CPU scope: the configuring process's pid namespace, in
 *	which sideband pids are given (a reference)
 * @mem: the pages charged for the buffers
 * @mappings: user mappings of the buffers (vm_ops open/close); a new
 *	CONFIGURE waits until there is none, so the pages charged are the
 *	pages pinned
 * @thr: per-thread scope: its threads
 * @cpus_claimed: per-CPU scope: lwpt_branch_claim_cpus() holds (no BTS
 *	capture while configured)
 */
struct pt_session {
	struct miscdevice *misc;
	struct list_head node;
	bool configured;
	struct pid *owner_tgid;
	kuid_t owner_uid;
	char owner_comm[TASK_COMM_LEN];
	bool perfmon;
	bool preempted;
	struct lwpt_pt_config cfg;
	u64 ctl;
	u64 cr3;
	struct mm_struct *cr3_mm;
	bool started;
	bool privileged;
	bool cpus_claimed;
	const struct cred *cred;
	struct pid_namespace *pid_ns;
	struct pt_mem mem;
	atomic_t mappings;
	struct pt_threads thr;
};

extern struct mutex pt_lock;
void pt_quiesce(void);
DECLARE_PER_CPU(struct pt_cpu, pt_cpus);

/* pt_config.c */
int pt_copy_in(void *kbuf, size_t ksize, size_t ver0, const void __user *ubuf,
	       u32 *usize);
int pt_copy_out(void __user *ubuf, void *kbuf, size_t ksize, u32 usize);
void pt_caps_decode(const struct lwpt_caps *caps);
long pt_ioctl_get_caps(void __user *arg);
int pt_config_check(struct lwpt_pt_config *cfg, u64 *ctlp);
int pt_config_cpu_mask(struct lwpt_pt_config *cfg, struct cpumask *mask);
int pt_config_permit(struct lwpt_pt_config *cfg, u64 *cr3,
		     struct mm_struct **cr3_mm, struct task_struct **target);
int pt_config_permit_target(struct lwpt_pt_config *cfg, struct task_struct *task,
			    struct mm_struct **mm);
u32 pt_config_follow_check(const struct pt_session *s, struct task_struct *p);

/**
 * struct pt_thread_rights - the caller's CAP_SYS_PTRACE over a target
 *	process, asked once at CONFIGURE (pt_config_thread_rights())
 * @ns: the user namespace of the named thread's credentials (a reference)
 * @mm: the process's mm (mmgrab(): the struct, not its mappings), NULL
 *	if it has none
 * @ns_ptrace: CAP_SYS_PTRACE over @ns
 * @mm_ptrace: CAP_SYS_PTRACE over @mm's user namespace
 */
struct pt_thread_rights {
	struct user_namespace *ns;
	struct mm_struct *mm;
	bool ns_ptrace;
	bool mm_ptrace;
};

void pt_config_thread_rights(struct pt_thread_rights *r, struct task_struct *task);
void pt_config_thread_rights_put(struct pt_thread_rights *r);
bool pt_config_permit_thread(const struct pt_session *s, struct task_struct *t,
			     const struct pt_thread_rights *r);
int pt_config_refuse_memlock(struct lwpt_pt_config *cfg);
int pt_config_lbr_check(void);
int pt_config_lbr_check_cpus(void);
extern int pt_paranoid;

/* pt_mem.c */
extern unsigned int pt_mlock_kb;
unsigned long pt_mem_buf_pages(u64 size, bool single);
u64 pt_mem_avail(void);
int pt_mem_init(struct pt_mem *m);
int pt_mem_charge(struct pt_mem *m, unsigned long pages);
void pt_mem_uncharge(struct pt_mem *m, unsigned long pages);
void pt_mem_free(struct pt_mem *m);
struct mem_cgroup *pt_mem_enter(struct pt_mem *m);
void pt_mem_exit(struct mem_cgroup *old);

/* pt_buf.c */
int pt_buf_alloc(struct pt_buf *b, u64 size, u64 region_max, bool single,
		 int node);
void pt_buf_free(struct pt_buf *b);
void pt_buf_clear(struct pt_buf *b);
void pt_buf_write_topa(struct pt_buf *b, u32 mode);
u64 pt_buf_output_base(const struct pt_buf *b);
u64 pt_buf_output_mask_ptrs(const struct pt_buf *b);
s64 pt_buf_pos(const struct pt_buf *b, u64 base, u64 mask_ptrs);
void pt_buf_ptrs(const struct pt_buf *b, u64 pos, u64 *base, u64 *mask_ptrs);
unsigned int pt_buf_region(const struct pt_buf *b, u64 pos);
u64 pt_buf_region_end(const struct pt_buf *b, unsigned int r);
void pt_buf_topa_flags(struct pt_buf *b, unsigned int r, u64 flags);
void pt_buf_pad(struct pt_buf *b, u64 from);

/* pt_output.c: a trace's MSRs and output on the current CPU (SDM 33.3), IRQs off */
extern bool pt_quiesced;
void pt_cpu_update_begin(struct pt_cpu *pc);
void pt_cpu_update_end(struct pt_cpu *pc);
int pt_output_account(struct pt_output *tr, u64 base, u64 mask_ptrs,
		      u64 status, bool pmi);
void pt_output_saved_put_back(struct pt_output *tr, struct pt_rtit_state *s);
bool pt_cpu_pmi_raised(struct pt_cpu *pc);
void pt_output_pause(struct pt_output *tr);
void pt_output_pause_pmi(struct pt_output *tr, bool pmi);
void pt_output_resume(struct pt_output *tr);
bool pt_output_lbr_refuse(struct pt_output *tr);
void pt_output_lbr_note(struct pt_output *tr);
bool pt_output_gate(struct pt_output *tr, struct pt_rtit_state *s, bool *moved);
bool pt_output_hold_due(const struct pt_output *tr);
bool pt_output_gate_stopped(const struct pt_output *tr);
void pt_output_continue(struct pt_output *tr);
void pt_output_reset(struct pt_output *tr);
int pt_rtit_write_filters(const struct pt_session *sess);
int pt_rtit_save(struct pt_rtit_state *s);
int pt_rtit_restore(const struct pt_rtit_state *s,
		    const struct pt_session *sess);
void pt_output_status(const struct pt_output *tr, struct lwpt_pt_status *st);

/* pt_sideband.c */
int pt_sched_switch_init(void);
void pt_sched_switch_exit(void);
int pt_sched_switch_get(void);
void pt_sched_switch_put(void);
int pt_sb_alloc(struct pt_cpu *pc, int node);
void pt_sb_free(struct pt_cpu *pc);
void pt_sb_start(struct pt_cpu *pc);
int pt_sb_sess_init(struct pt_session *s);
void pt_sb_sess_free(struct pt_session *s);
long pt_ioctl_read_sideband(struct file *file, void __user *arg);

/* pt_thread.c */
int pt_thread_init(void);
void pt_thread_exit(void);

struct pt_notif;
struct pt_notif *pt_notif_alloc(gfp_t gfp);
void pt_notif_free(struct pt_notif *n);
int pt_notif_want(struct task_struct *task, struct pt_notif **spare);
void pt_notif_drop(struct task_struct *task);
int pt_notif_hold(struct task_struct *task);
void pt_notif_init(void (*load)(void), void (*hold)(void));
void pt_notif_exit(void);
void pt_thread_sess_setup(struct pt_session *s);
int pt_thread_sess_init(struct pt_session *s, struct task_struct *target,
			struct lwpt_pt_config *cfg);
void pt_thread_sess_free(struct pt_session *s);
struct pt_session *pt_thread_holder(struct task_struct *target);
void pt_thread_preempt(struct pt_session *s);
int pt_thread_start(struct pt_session *s);
void pt_thread_stop(struct pt_session *s);
struct pt_output *pt_thread_cur_trace(struct pt_cpu *pc);
int pt_thread_status(struct pt_session *s, u32 index, struct lwpt_pt_status *st);
int pt_thread_release(struct pt_session *s, u32 index, u64 tail);
int pt_thread_done(struct pt_session *s, u32 index, u64 tail);
struct pt_output *pt_thread_output(struct pt_session *s, u32 index);
void pt_thread_cpu_down(struct pt_cpu *pc);
void pt_thread_suspend(struct pt_cpu *pc);
void pt_thread_resume(struct pt_cpu *pc);

#endif /* LWPT_KMOD_PT_PT_INT_H */
