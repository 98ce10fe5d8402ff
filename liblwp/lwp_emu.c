// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp emulation backend: LWP on CPUs without it, on the shared model
 * (model/lwp, "user" profile: LWPVAL, LWPINS and the threshold interrupt;
 * nothing the emulation cannot produce honestly is advertised).
 *
 * Each thread that uses LWP gets its own struct lwp_model: LWP state is per
 * thread (43724 §1.1, §8.2.1), so a model "CPU" per thread is exactly the
 * state the OS would context-switch. Making LWP available to a thread is
 * setting the model's XCR0[62] and LWP_CFG (§4, §8.7.1); it is withdrawn by
 * clearing XCR0[62] (LWP_CBADDR := 0, §4.1).
 *
 * Instructions reach the model three ways:
 *  - the lwp_ins32()/... wrappers call lwp_emu_*() directly when the
 *    thread-local lwp_tls_emulated is set;
 *  - JIT call sequences (lwp_jit.c) call a trampoline, which runs the fast
 *    path or lwp_emu_exec();
 *  - raw instructions (JIT code, GNU as) raise #UD -> SIGILL; the handler
 *    decodes the XOP instruction at RIP (model/lwp/lwp_xop), executes it on
 *    the model with the register file of the ucontext and steps over it.
 * Faults the instruction would raise become the signal Linux would send:
 * #UD -> SIGILL (chained to the previous handler), #PF -> SIGSEGV
 * (SEGV_MAPERR/SEGV_ACCERR, si_addr = faulting address), #GP -> SIGSEGV
 * (SI_KERNEL, si_addr 0), delivered with RIP still at the instruction.
 *
 * Memory: the model touches memory only through our callbacks. The LWPCB and
 * ring of a liblwp session loaded on the thread are accessed directly; any
 * other address (an LWPCB built by the program, memory operands) goes through
 * process_vm_readv/writev on ourselves, which fails with EFAULT instead of
 * crashing: a bad address becomes the #PF the spec describes.
 *
 * The common cases of LWPINS/LWPVAL run on a fast path (lwp_emu_fast.c)
 * on the same model state under the same lock; everything else here.
 *
 * Locking: a global mutex guards the session registry; a spinlock per thread
 * guards its model. The owner thread holds its spinlock only during one
 * instruction; other threads take it to stop the model (lwp_close from
 * another thread, thread exit), asking the owner when its instruction
 * may have been abandoned ("Closing from another thread"). Signal
 * handlers: an LWP instruction of a handler that interrupted one on the
 * same thread is executed, never dropped (issue 28): the fast path is re-entrant (lwp_emu_fast.c); LWPINS
 * and LWPVAL on the model run on a copy committed in a restartable
 * sequence ("The model without blocking signals" below); everything else
 * (LLWPCB, SLWPCB, the registry, and the model without rseq) runs with
 * every signal blocked, so a handler never interrupts it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>
#include <asm/prctl.h>

#include "model/lwp/lwp_model.h"
#include "model/lwp/lwp_xop.h"
#include "liblwp/lwp_emu.h"
#include "liblwp/lwp_internal.h"

/* The threshold interrupt vector of the emulated LWP_CFG (§4.2: must be
 * provided if INT = 1). No IDT exists here: any vector >= 32 will do. */
#define EMU_VECTOR	0x20u

_Thread_local unsigned int lwp_tls_emulated;

_Thread_local struct lwp_emu_thread *lwp__emu_thread;
_Thread_local int lwp__emu_busy;
/* This thread's model was freed at its exit (thread_destroy()). */
static _Thread_local int lwp__emu_gone __attribute__((tls_model("initial-exec")));

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lwp_session *reg_head;
static struct lwp_emu_thread *thread_head;
static pthread_key_t thread_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static struct sigaction old_sigill;
static int sigill_installed;

/*
 * Take @t's lock from any thread; returns whether this call took it. On
 * @t's own thread, nested in an instruction a signal interrupted: counted
 * as a nested change (an instruction running on a copy starts again).
 */
static int settle_own(struct lwp_emu_thread *t, uintptr_t sp);

static int model_lock(struct lwp_emu_thread *t)
{
	int taken;

	if (t == lwp__emu_thread) {
		(void)settle_own(t, (uintptr_t)__builtin_dwarf_cfa());
		taken = lwp_emu_lock_own(t);
		if (!taken)
			t->nested++;
		return taken;
	}
	lwp_emu_lock_as(t, LWP_EMU_LOCK_OTHER);
	return 1;
}

static void model_unlock(struct lwp_emu_thread *t, int taken)
{
	if (taken)
		lwp_emu_unlock(t);
}

/*
 * Block every signal around the model and the registry (restored by
 * sig_restore()), so that no signal handler of this thread interrupts them
 * (async-signal-safe).
 */
static void sig_block(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	if (pthread_sigmask(SIG_BLOCK, &all, old))
		sigemptyset(old);
}

static void sig_restore(const sigset_t *old)
{
	(void)pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* ---- Memory callbacks ---------------------------------------------------- */

static int in_range(uint64_t addr, size_t len, const void *base, size_t size)
{
	uint64_t b = (uint64_t)(uintptr_t)base;

	return addr >= b && len <= size && addr - b <= size - len;
}

/* Within the LWPCB of @t's liblwp session. */
static int trusted_lwpcb(const struct lwp_emu_thread *t, uint64_t addr, size_t len)
{
	const struct lwp_session *s = t->session;

	return s && in_range(addr, len, s->lwpcb, s->lwpcb_map);
}

static int trusted(const struct lwp_emu_thread *t, uint64_t addr, size_t len)
{
	const struct lwp_session *s = t->session;

	return s && (in_range(addr, len, s->ring, s->ring_map) ||
		     in_range(addr, len, s->lwpcb, s->lwpcb_map));
}

/*
 * Shared LWPCB fields (BufferHeadOffset, BufferTailOffset, MissedEvents) are
 * aligned 4- and 8-byte words read and written concurrently by the drainer:
 * access them as single atomic words; everything else with memcpy.
 */
static void copy_in(void *dst, const void *src, size_t len)
{
	if (len == 4 && !((uintptr_t)src & 3)) {
		uint32_t v = __atomic_load_n((const uint32_t *)src, __ATOMIC_RELAXED);

		memcpy(dst, &v, 4);
	} else if (len == 8 && !((uintptr_t)src & 7)) {
		uint64_t v = __atomic_load_n((const uint64_t *)src, __ATOMIC_RELAXED);

		memcpy(dst, &v, 8);
	} else {
		memcpy(dst, src, len);
	}
}

static void copy_out(void *dst, const void *src, size_t len)
{
	if (len == 4 && !((uintptr_t)dst & 3)) {
		uint32_t v;

		memcpy(&v, src, 4);
		__atomic_store_n((uint32_t *)dst, v, __ATOMIC_RELAXED);
	} else if (len == 8 && !((uintptr_t)dst & 7)) {
		uint64_t v;

		memcpy(&v, src, 8);
		__atomic_store_n((uint64_t *)dst, v, __ATOMIC_RELAXED);
	} else {
		memcpy(dst, src, len);
	}
}

static int emu_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct lwp_emu_thread *t = ctx;
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	if (trusted(t, addr, len)) {
		if (len == 4 && t->inflight && t->defer_set &&
		    addr == t->defer_cb + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET) {
			memcpy(buf, &t->defer_head, 4);	/* held back, below */
			return 0;
		}
		copy_in(buf, (const void *)(uintptr_t)addr, len);
		/* BufferTailOffset is written by a reader on another thread:
		 * acquire, pairs with lwp_read()'s release store. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		return 0;
	}
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)len)
		return -EFAULT;
	return 0;
}

static int emu_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct lwp_emu_thread *t = ctx;
	struct iovec local = { (void *)(uintptr_t)buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	if (trusted(t, addr, len)) {
		/*
		 * Nested in a fast-path instruction that may not have written
		 * its reserved record yet: the head of its LWPCB is written
		 * when the outermost instruction leaves (lwp_emu_fast.c).
		 */
		if (len == 4 && t->inflight && t->defer_cb &&
		    addr == t->defer_cb + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET) {
			memcpy(&t->defer_head, buf, 4);
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			t->defer_set = 1;
			return 0;
		}
		/* The record before BufferHeadOffset: release, pairs with the
		 * acquire load of the head in lwp_read(). */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		copy_out((void *)(uintptr_t)addr, buf, len);
		return 0;
	}
	if (process_vm_writev(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)len)
		return -EFAULT;
	return 0;
}

static void emu_interrupt(void *ctx, unsigned int vector)
{
	struct lwp_emu_thread *t = ctx;

	(void)vector;
	if (!t->session)
		return;
	if (t->inflight)	/* after the head, when the fast path leaves */
		__atomic_store_n(&t->defer_irq, t->session, __ATOMIC_RELAXED);
	else
		lwp_session_interrupt(t->session);
}

static const struct lwp_model_ops emu_ops = {
	.read = emu_read,
	.write = emu_write,
	.interrupt = emu_interrupt,
	.violation = NULL,
};

/* ---- Per-thread model ---------------------------------------------------- */

static uint64_t lwp_cfg_value(const struct lwp_model_profile *p)
{
	int cpu = sched_getcpu();

	/* §8.7.1: all supported features, COREID, VECTOR. */
	return (p->fn8000_001c_edx & LWP_CFG_FEATURES_MASK) |
	       ((uint64_t)(cpu < 0 ? 0 : cpu & 0xff) << LWP_CFG_COREID_SHIFT) |
	       ((uint64_t)EMU_VECTOR << LWP_CFG_VECTOR_SHIFT);
}

/* COREID follows the CPU the thread runs on, as the OS would program it. */
static void refresh_coreid(struct lwp_model *m)
{
	uint64_t cfg = lwp_cfg_value(m->profile);

	if (cfg != m->lwp_cfg)
		(void)lwp_model_wrmsr(m, LWP_MSR_CFG, cfg);
}

/* Registry section on this thread: every signal blocked, reg_lock held. */
static void reg_enter(sigset_t *old)
{
	sig_block(old);
	lwp__emu_busy = 1;
	pthread_mutex_lock(&reg_lock);
}

static void reg_leave(const sigset_t *old)
{
	pthread_mutex_unlock(&reg_lock);
	lwp__emu_busy = 0;
	sig_restore(old);
}

/*
 * Thread exit, as a pthread key destructor: §8.7.2, "store 0 into
 * LWP_CBADDR"; detach the sessions; free the model.
 *
 * On hardware LWP stays available until the thread is gone (issue 28,
 * finding 5), so the model stays while other destructors of the thread may
 * run: C++ thread_local destructors run before every key destructor
 * (glibc's __call_tls_dtors()); key destructors run in rounds, in the order
 * of the keys, and glibc runs another round while a destructor set a value.
 * Setting our key again keeps the model through the first
 * PTHREAD_DESTRUCTOR_ITERATIONS - 1 rounds, so every destructor that runs
 * in them, before or after ours, has LWP. Only a destructor of the last
 * round that runs after ours finds the model gone; its LWP instructions
 * then behave as with LWP available and disabled (LWP_CBADDR = 0: LWPINS
 * clears CF, LWPVAL does nothing, SLWPCB gives 0; LLWPCB of an LWPCB raises
 * #UD), never as with LWP unavailable. Documentation/liblwp.rst.
 */
static void thread_destroy(void *arg)
{
	struct lwp_emu_thread *t = arg, **pp;
	struct lwp_session *s;
	sigset_t old;
	int taken;

	if (++t->dtor_rounds < PTHREAD_DESTRUCTOR_ITERATIONS &&
	    pthread_setspecific(thread_key, t) == 0)
		return;
	/*
	 * No instruction of the thread can be running any more; before the
	 * registry: a closer holding it may wait for this one.
	 */
	(void)settle_own(t, LWP_EMU_SP_GONE);
	reg_enter(&old);
	for (pp = &thread_head; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	taken = model_lock(t);
	(void)lwp_model_wrmsr(&t->model, LWP_MSR_CBADDR, 0);
	t->session = NULL;
	t->fast_cbaddr = 0;
	for (s = reg_head; s; s = s->next) {
		if (s->owner == t)
			s->owner = NULL;
		if (s->opener == t)
			s->opener = NULL;
		if (s->starter == t)
			s->starter = NULL;
	}
	model_unlock(t, taken);
	lwp__emu_gone = t->refs > 0;
	lwp__emu_thread = NULL;
	reg_leave(&old);
	free(t->opt);
	free(t);
}

/* fork(): no thread of liblwp is in the middle of a registry update. */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&reg_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&reg_lock);
}

/*
 * The child has only the forking thread. Its LWP starts disabled (§8.7.2,
 * "new processes ... LWP is turned off"; LWP_CBADDR := 0) but stays
 * available, so the child may lwp_start() its (copied) sessions again. The
 * model states of the threads that did not survive are dropped.
 */
static void atfork_child(void)
{
	struct lwp_emu_thread *t = lwp__emu_thread, *o;
	struct lwp_session *s;

	pthread_mutex_init(&reg_lock, NULL);
	__atomic_store_n(&lwp__emu_pid, getpid(), __ATOMIC_RELAXED);
	for (o = thread_head; o; o = o->next)
		o->lock = 0;
	thread_head = t;
	if (t) {
		t->next = NULL;
		t->tid = (pid_t)syscall(SYS_gettid);
		(void)lwp_model_wrmsr(&t->model, LWP_MSR_CBADDR, 0);
		t->session = NULL;
		t->fast_cbaddr = 0;
		/* fork() from a signal handler nested in an instruction. */
		t->inflight = 0;
		t->defer_set = 0;
		t->defer_irq = NULL;
		t->commit = NULL;
		t->pend.phase = LWP_EMU_PH_NONE;
		t->pend.sp = 0;
		t->ho_req = 0;
	}
	for (s = reg_head; s; s = s->next) {
		s->owner = NULL;
		if (s->opener != t)
			s->opener = NULL;
		if (s->starter != t)
			s->starter = NULL;
	}
	lwp__emu_busy = 0;
}

static void make_key(void)
{
	(void)pthread_key_create(&thread_key, thread_destroy);
	(void)pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/*
 * The Family 15h switches of lwpt_sim.ko for the user-space model
 * (Documentation/liblwp.rst): LIBLWP_LWP_LAZY_HEAD=1 (lwp_lazy_head) and
 * LIBLWP_LWP_XSAVE_DROPS_INT=1 (lwp_xsave_drops_int; the emulation never
 * XSAVEs a thread's state, so it changes nothing observable here).
 */
static int env_on(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] == '1' && !v[1];
}

static void emu_model_switches(struct lwp_model *m)
{
	if (env_on("LIBLWP_LWP_LAZY_HEAD"))
		lwp_model_set_head_flush(m, LWP_MODEL_HEAD_FLUSH_LAZY);
	lwp_model_set_xsave_drops_int(m, env_on("LIBLWP_LWP_XSAVE_DROPS_INT"));
}

static void *opt_new(void);

static struct lwp_emu_thread *thread_get(void)
{
	struct lwp_emu_thread *t = lwp__emu_thread;
	sigset_t old;

	if (t)
		return t;
	pthread_once(&key_once, make_key);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->opt = opt_new();
	if (!t->opt || lwp_model_init(&t->model, &lwp_model_profile_user, &emu_ops, t)) {
		free(t->opt);
		free(t);
		return NULL;
	}
	t->tid = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&lwp__emu_pid, getpid(), __ATOMIC_RELAXED);
	t->emulated = &lwp_tls_emulated;
	lwp_model_set_seed(&t->model, (uint64_t)t->tid * 0x9E3779B97F4A7C15ull + 1);
	emu_model_switches(&t->model);
	(void)lwp_model_wrmsr(&t->model, LWP_MSR_CFG,
			      lwp_cfg_value(&lwp_model_profile_user));
	if (pthread_setspecific(thread_key, t)) {
		free(t->opt);
		free(t);
		return NULL;
	}
	reg_enter(&old);
	t->next = thread_head;
	thread_head = t;
	lwp__emu_thread = t;
	reg_leave(&old);
	return t;
}

/* Make LWP available to @t (XCR0[62] = 1, §4.1); under reg_lock. */
static void avail_get(struct lwp_emu_thread *t)
{
	int taken;

	if (t->refs++ == 0) {
		taken = model_lock(t);
		(void)lwp_model_xsetbv(&t->model, LWP_XCR0_MASK);
		model_unlock(t, taken);
		__atomic_store_n(t->emulated, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Withdraw it with the last session: XCR0[62] = 0 stores 0 to LWP_CBADDR.
 * Under reg_lock, @t's model held by the caller (emu_close()).
 */
static void avail_put_held(struct lwp_emu_thread *t)
{
	if (t && --t->refs == 0) {
		(void)lwp_model_xsetbv(&t->model, 0);
		t->session = NULL;
		t->fast_cbaddr = 0;
		__atomic_store_n(t->emulated, 0, __ATOMIC_RELAXED);
	}
}

/* The session whose LWPCB is at @cbaddr, or NULL; under reg_lock. */
static struct lwp_session *session_by_lwpcb(uint64_t cbaddr)
{
	struct lwp_session *s;

	for (s = reg_head; s && cbaddr; s = s->next)
		if ((uint64_t)(uintptr_t)s->lwpcb == cbaddr)
			return s;
	return NULL;
}

/*
 * Whether the fast path (lwp_emu_fast.c) may run on @t's LWPCB: a liblwp
 * session's, with 32-byte records, whose ring holds the whole buffer the
 * model loaded from it (the program may have edited BufferBase). Under t's
 * lock, after every LLWPCB.
 */
static void fast_arm(struct lwp_emu_thread *t)
{
	const struct lwp_session *s = t->session;
	const struct lwp_model *m = &t->model;

	t->fast_cbaddr = 0;
	if (!s || s->event_size != sizeof(struct lwp_event) ||
	    m->cbaddr != (uint64_t)(uintptr_t)s->lwpcb ||
	    !in_range(m->buffer_base, m->buffer_size, s->ring, s->ring_map) ||
	    (m->buffer_base & 7))
		return;
	t->fast_cbaddr = m->cbaddr;
}

/*
 * After an LLWPCB on @t (under reg_lock and t's lock): which liblwp session
 * now runs there. A session runs on one thread at a time; loading it on a
 * second thread is allowed by the hardware but breaks the ring: we leave
 * the first owner recorded.
 */
static void session_follow(struct lwp_emu_thread *t)
{
	struct lwp_session *s = session_by_lwpcb(t->model.cbaddr);

	/* A fast-path instruction this one interrupted starts again. */
	__atomic_store_n(&t->gen, t->gen + 1, __ATOMIC_RELAXED);
	if (t->session && t->session != s && t->session->owner == t)
		t->session->owner = NULL;
	t->session = s;
	if (s && !s->owner)
		s->owner = t;
	fast_arm(t);
}

/* ---- Fault delivery ------------------------------------------------------ */

/*
 * Queue @sig to this thread as the kernel's force_sig_fault() would: if the
 * signal is ignored or blocked in @mask (the mask the interrupted code will
 * run with), the default action is restored and the signal unblocked.
 */
static void queue_fault(int sig, int code, uint64_t addr, sigset_t *mask)
{
	struct sigaction cur;
	siginfo_t si;

	if (sigaction(sig, NULL, &cur) == 0 &&
	    (cur.sa_handler == SIG_IGN || (mask && sigismember(mask, sig)))) {
		cur.sa_handler = SIG_DFL;
		cur.sa_flags = 0;
		sigemptyset(&cur.sa_mask);
		(void)sigaction(sig, &cur, NULL);
		if (mask)
			sigdelset(mask, sig);
	}
	memset(&si, 0, sizeof(si));
	si.si_signo = sig;
	si.si_code = code;
	si.si_addr = (void *)(uintptr_t)addr;
	(void)syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid),
		      sig, &si);
}

/* §5 "Exceptions" -> the signal Linux sends for them. */
static void deliver(const struct lwp_model_result *r, sigset_t *mask)
{
	uint64_t page = r->pf_addr & ~(uint64_t)4095;
	int code;

	switch (r->exc) {
	case LWP_MODEL_EXC_PF:
		/* Mapped but not accessible -> ACCERR, unmapped -> MAPERR. */
		code = msync((void *)(uintptr_t)page, 4096, MS_ASYNC) == 0 ?
		       SEGV_ACCERR : SEGV_MAPERR;
		queue_fault(SIGSEGV, code, r->pf_addr, mask);
		break;
	case LWP_MODEL_EXC_GP:
		queue_fault(SIGSEGV, SI_KERNEL, 0, mask);
		break;
	case LWP_MODEL_EXC_UD:
		queue_fault(SIGILL, ILL_ILLOPN, 0, mask);
		break;
	default:
		break;
	}
}

/* Direct-call path: unblock so that the signal arrives now, as a fault. */
static void deliver_now(const struct lwp_model_result *r)
{
	sigset_t cur;

	if (pthread_sigmask(SIG_SETMASK, NULL, &cur))
		sigemptyset(&cur);
	deliver(r, &cur);
	(void)pthread_sigmask(SIG_SETMASK, &cur, NULL);
}

/* ---- Direct calls from the wrappers ------------------------------------- */

static const struct lwp_model_result ud = { .exc = LWP_MODEL_EXC_UD };

/*
 * The model's slow path for one instruction on this thread's model @t:
 * every signal blocked, the lock taken unless an interrupted frame of this
 * thread holds it (then nested: lwp_emu_fast.c). @fn runs the instruction.
 */
struct slow_insn {
	enum lwp_insn_op op;
	uint64_t data2, ip, addr;
	uint32_t data1, flags;
	unsigned int opsize;
	const struct lwp_xop_insn_info *info;	/* decoded (exec), or NULL */
	struct lwp_xop_regs *regs;
	uintptr_t sp;			/* caller's stack pointer (without @regs) */
	int trapped;			/* a raw instruction (SIGILL) */
};

/* Where the instruction runs (lwp_emu_frames_dead()): the code's RSP. */
static uintptr_t insn_sp(const struct slow_insn *in)
{
	return in->regs ? (uintptr_t)in->regs->gpr[4] : in->sp;
}

/* @in on model @m (the thread's, a copy of it, or a scratch one). */
static struct lwp_model_result model_run(struct lwp_model *m, const struct slow_insn *in)
{
	struct lwp_model_operand op = { .is_mem = false, .value = in->data1 };
	struct lwp_model_result r;

	if (in->info)
		return lwp_xop_execute(m, in->info, in->regs);
	switch (in->op) {
	case LWP_INSN_LWPINS:
		r = lwp_model_lwpins(m, in->ip, in->data2, op, in->flags, in->opsize);
		break;
	case LWP_INSN_LWPVAL:
		r = lwp_model_lwpval(m, in->ip, in->data2, op, in->flags, in->opsize);
		break;
	default:
		return lwp_model_slwpcb(m, 64);
	}
	if (r.exc == LWP_MODEL_EXC_NONE)
		(void)lwp_model_insn_retired(m, in->ip);
	return r;
}

/* The instruction counts as nested if a fast-path frame is in flight. */
static void slow_done(struct lwp_emu_thread *t)
{
	if (t->inflight)
		t->nested++;
}

/*
 * ---- Nested in the thread's outermost instruction (issue 38) --------------
 *
 * An instruction that interrupted the thread's outermost one runs whole
 * with every signal blocked (lwp_emu_fast.c, "Instructions never
 * finished"). If that outer frame is then abandoned, what it got done is
 * read from the state it left (lwp_emu_thread.pend) and this one's
 * changes: so each nested instruction tells it what it changed under it.
 */
struct nest_snap {
	uint32_t head, gen;
	int32_t ctr;
	uint64_t *missp;		/* PH_OPT: MissedEvents being added to */
	uint64_t miss;
};

static uint64_t *opt_miss_pending(struct lwp_emu_thread *t);

static void nest_before(struct lwp_emu_thread *t, struct nest_snap *ns)
{
	ns->head = t->model.head;
	ns->gen = t->gen;
	ns->ctr = t->model.counter[LWP_EVENTID_PROGRAMMED_VALUE];
	ns->missp = t->pend.phase == LWP_EMU_PH_OPT ? opt_miss_pending(t) : NULL;
	if (ns->missp)
		ns->miss = __atomic_load_n(ns->missp, __ATOMIC_RELAXED);
}

static void nest_after(struct lwp_emu_thread *t, const struct nest_snap *ns)
{
	struct lwp_emu_pend *p = &t->pend;
	const struct lwp_model *m = &t->model;
	bool moved = m->head != ns->head || t->gen != ns->gen;

	switch (p->phase) {
	case LWP_EMU_PH_STORE:
		if (ns->head != p->head)
			p->phase = LWP_EMU_PH_WRITE;	/* it reserved before us */
		else if (moved)				/* its reservation fails */
			p->phase = p->forced ? LWP_EMU_PH_OWED : LWP_EMU_PH_NONE;
		break;
	case LWP_EMU_PH_RELOAD:
		if (ns->ctr && m->interval[LWP_EVENTID_PROGRAMMED_VALUE])
			p->phase = LWP_EMU_PH_OWED;	/* it reloaded before us */
		else if (m->counter[LWP_EVENTID_PROGRAMMED_VALUE] != ns->ctr ||
			 t->gen != ns->gen)
			p->phase = LWP_EMU_PH_NONE;	/* its reload fails */
		break;
	case LWP_EMU_PH_OPT:
		/* Its add to MissedEvents is known by the value before it. */
		if (ns->missp && ns->miss == p->miss_snap)
			p->miss_snap = __atomic_load_n(ns->missp, __ATOMIC_RELAXED);
		break;
	default:
		break;
	}
}

/* @in in place on @t's model, every signal blocked. */
static struct lwp_model_result slow_blocked(struct lwp_emu_thread *t, const struct slow_insn *in)
{
	struct lwp_model_result r;
	struct nest_snap ns;
	sigset_t old;
	int taken;

	sig_block(&old);
	taken = lwp_emu_lock_own(t);
	nest_before(t, &ns);
	refresh_coreid(&t->model);
	r = model_run(&t->model, in);
	slow_done(t);
	if (t->inflight)
		nest_after(t, &ns);
	model_unlock(t, taken);
	sig_restore(&old);
	return r;
}

/*
 * ---- The model without blocking signals (issue 28) ----------------------
 *
 * LWPINS and LWPVAL, the instructions a running program sends to the model
 * (Random bits, memory Data1, thresholds), do not block signals: two
 * rt_sigprocmask calls cost more than the model itself. Instead the model
 * runs on a copy of the thread's state, its memory writes kept in a log,
 * and the result is committed only if no signal handler's instruction
 * changed the thread's model meanwhile (lwp_emu_thread.nested); else the
 * instruction runs again on the new state: the handler's instruction then
 * took effect whole before this one, as if the interrupt came first
 * (43724 §5.3, §5.4: instructions retire whole). The commit copies the
 * state in a restartable sequence (lwp_emu_roll_forward()); a handler that
 * interrupts it finishes it first. Then the log is written: the record
 * into the slot the committed head reserved (no other instruction gets
 * it), MissedEvents as an increment, BufferHeadOffset and the threshold
 * interrupt held back to the outermost frame as for the fast path
 * (lwp_emu_fast.c). A write outside a liblwp session's LWPCB and ring, or
 * more writes than the log holds, and without rseq: the blocked path.
 */
#define OPT_LOG_MAX	4

struct opt_write {
	uint64_t addr;
	size_t len;
	uint64_t old;			/* MissedEvents as the model read it */
	bool skip;			/* not written (a missed record) */
	uint8_t data[LWP_EVREC_SIZE_V1];
};

struct opt_run {
	struct lwp_model m;		/* the copy the instruction runs on */
	struct lwp_emu_thread *t;
	struct opt_write log[OPT_LOG_MAX];
	unsigned int n;
	bool irq, bail;
};

static int is_missed(const struct opt_run *o, uint64_t addr, size_t len)
{
	return len == 8 && addr == o->m.cbaddr + LWP_LWPCB_OFF_MISSED_EVENTS;
}

/* Memory as it is, with the log's writes over it. */
static int opt_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct opt_run *o = ctx;
	const struct opt_write *w;
	uint64_t lo, hi;
	int ret = emu_read(o->t, addr, buf, len);

	for (w = o->log; !ret && w < o->log + o->n; w++) {
		lo = addr > w->addr ? addr : w->addr;
		hi = addr + len < w->addr + w->len ? addr + len : w->addr + w->len;
		if (lo < hi)
			memcpy((uint8_t *)buf + (lo - addr), w->data + (lo - w->addr), hi - lo);
	}
	return ret;
}

static int opt_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct opt_run *o = ctx;
	struct opt_write *w = o->log + o->n;

	if (o->n == OPT_LOG_MAX || len > sizeof(w->data) || !trusted(o->t, addr, len)) {
		o->bail = true;
		return -EFAULT;
	}
	if (is_missed(o, addr, len)) {
		if (opt_read(o, addr, &w->old, 8))
			w->old = 0;
		/*
		 * The record the model wrote just before into the slot at the
		 * head of a full ring is never readable (§8.3; lwp-model.rst
		 * choice 7); written after the commit it could overwrite the
		 * record a nested instruction stored there once the reader
		 * made room: left out, as the fast path does.
		 */
		if (o->n && !trusted_lwpcb(o->t, w[-1].addr, w[-1].len))
			w[-1].skip = true;
	}
	w->skip = false;
	w->addr = addr;
	w->len = len;
	memcpy(w->data, buf, len);
	o->n++;
	return 0;
}

static void opt_interrupt(void *ctx, unsigned int vector)
{
	struct opt_run *o = ctx;

	(void)vector;
	o->irq = true;
}

static const struct lwp_model_ops opt_ops = {
	.read = opt_read,
	.write = opt_write,
	.interrupt = opt_interrupt,
	.violation = NULL,
};

static void *opt_new(void)
{
	return calloc(1, sizeof(struct opt_run));
}

/* PH_OPT: the MissedEvents an entry of the log may be adding to, or NULL. */
static uint64_t *opt_miss_pending(struct lwp_emu_thread *t)
{
	struct opt_run *o = t->opt;
	const struct lwp_emu_pend *p = &t->pend;

	if (p->miss_pend != p->applied + 1 || p->applied >= o->n)
		return NULL;
	return (uint64_t *)(uintptr_t)o->log[p->applied].addr;
}

/*
 * The committed instruction's writes, in the order the model made them,
 * from entry pend.applied on: again after the frame was abandoned
 * (opt_recover()). Every write is idempotent but the MissedEvents
 * increment, which is known done by the value before it (pend.miss_snap,
 * kept by nested instructions: nest_after()).
 */
static void opt_apply(struct lwp_emu_thread *t, struct opt_run *o)
{
	struct lwp_emu_pend *p = &t->pend;
	const struct opt_write *w;
	uint64_t v, *missed;

	/* BufferHeadOffset of this LWPCB is held back to the outermost frame. */
	if (!t->defer_set)
		t->defer_cb = o->m.cbaddr;
	for (; p->applied < o->n; p->applied++) {
		w = o->log + p->applied;
		if (w->skip)
			continue;
		if (is_missed(o, w->addr, w->len)) {
			missed = (uint64_t *)(uintptr_t)w->addr;
			if (p->miss_pend == p->applied + 1) {
				/* Abandoned here: added if it moved since. */
				if (__atomic_load_n(missed, __ATOMIC_RELAXED) != p->miss_snap)
					continue;
			} else {
				p->miss_snap = __atomic_load_n(missed, __ATOMIC_RELAXED);
				__atomic_signal_fence(__ATOMIC_SEQ_CST);
				p->miss_pend = p->applied + 1;
				__atomic_signal_fence(__ATOMIC_SEQ_CST);
			}
			memcpy(&v, w->data, 8);
			__atomic_fetch_add(missed, v - w->old, __ATOMIC_RELAXED);
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
		} else {
			(void)emu_write(t, w->addr, w->data, w->len);
		}
	}
	if (o->irq)
		emu_interrupt(t, 0);
}

static bool opt_insn(const struct slow_insn *in)
{
	if (in->info)
		return in->info->insn == LWP_XOP_LWPINS || in->info->insn == LWP_XOP_LWPVAL;
	return in->op == LWP_INSN_LWPINS || in->op == LWP_INSN_LWPVAL;
}

static struct lwp_model_result slow_opt(struct lwp_emu_thread *t, const struct slow_insn *in)
{
	struct opt_run *o = t->opt;		/* the thread's, not the stack */
	struct lwp_emu_commit *c = &t->stage;
	struct lwp_xop_regs regs0;
	struct lwp_emu_frame fr;
	struct lwp_model_result r;
	unsigned int n0;

	if (in->regs)
		regs0 = *in->regs;
	lwp_emu_frame_enter(t, &fr, insn_sp(in), in->trapped);
	for (;;) {
		n0 = __atomic_load_n(&t->nested, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		o->m = t->model;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		/* A handler changed it under the copy: never run a torn one. */
		if (__atomic_load_n(&t->nested, __ATOMIC_RELAXED) != n0)
			continue;
		o->m.ops = &opt_ops;
		o->m.ctx = o;
		o->t = t;
		o->n = 0;
		o->irq = o->bail = false;
		refresh_coreid(&o->m);
		r = model_run(&o->m, in);
		if (o->bail)
			break;
		o->m.ops = &emu_ops;
		o->m.ctx = t;
		c->src = &o->m;
		c->n0 = n0;
		c->done = 0;
		c->gen = ++t->stage_gen;
		t->pend.applied = 0;
		t->pend.miss_pend = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->pend.phase = LWP_EMU_PH_OPT;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&t->commit, c, __ATOMIC_RELAXED);
		lwp_emu_roll_forward(t);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (c->done == 1)
			break;
		t->pend.phase = LWP_EMU_PH_NONE;
		__atomic_fetch_add(&lwp__emu_opt_retries, 1, __ATOMIC_RELAXED);
		if (in->regs)
			*in->regs = regs0;
	}
	if (o->bail) {
		/* On the model in place, outside this frame (not nested in it). */
		if (in->regs)
			*in->regs = regs0;
		lwp_emu_frame_leave(t, &fr);
		return slow_blocked(t, in);
	}
	opt_apply(t, o);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->pend.phase = LWP_EMU_PH_NONE;
	fr.stored = 1;
	lwp_emu_frame_leave(t, &fr);
	return r;
}

/*
 * An abandoned slow_opt() frame (PH_OPT): its copy committed or dropped as
 * a nested instruction would (lwp_emu_roll_forward()), then, if committed,
 * the rest of its log written. The stage is the thread's, tagged with the
 * generation it was taken at: never memory of a dead stack frame.
 */
static void opt_recover(struct lwp_emu_thread *t)
{
	if (__atomic_load_n(&t->commit, __ATOMIC_RELAXED))
		lwp_emu_roll_forward(t);
	if (t->stage.done == 1 && t->stage.gen == t->stage_gen) {
		opt_apply(t, t->opt);
		t->recovered[0]++;
	} else {
		t->recovered[1]++;
	}
	t->pend.phase = LWP_EMU_PH_NONE;
}

/*
 * An entry on @t's own thread at @sp while an instruction of the thread is
 * in flight: finish it if it was abandoned (every signal blocked), else
 * tell the caller to run nested. Returns 1 if nested.
 */
static int settle_own(struct lwp_emu_thread *t, uintptr_t sp)
{
	sigset_t old;

	if (!__atomic_load_n(&t->inflight, __ATOMIC_RELAXED))
		return 0;
	if (!lwp_emu_frames_dead(t, sp))
		return 1;
	sig_block(&old);
	if (t->inflight) {
		/* Left before it took the lock: take it here. */
		if (__atomic_load_n(&t->lock, __ATOMIC_RELAXED) != LWP_EMU_LOCK_SELF)
			lwp_emu_lock_as(t, LWP_EMU_LOCK_SELF);
		if (t->pend.phase == LWP_EMU_PH_OPT)
			opt_recover(t);
		lwp_emu_recover(t);
	}
	sig_restore(&old);
	return 0;
}

static int opt_on = 1;
unsigned long lwp__emu_opt_retries;

int lwp_emu_opt_enable(int on)
{
	return __atomic_exchange_n(&opt_on, !!on, __ATOMIC_RELAXED);
}

/* One instruction on the slow path of this thread's model @t. */
static struct lwp_model_result slow_insn(struct lwp_emu_thread *t, const struct slow_insn *in)
{
	/* Nested in an instruction of this thread: whole, signals blocked. */
	if (__atomic_load_n(&t->inflight, __ATOMIC_RELAXED) && settle_own(t, insn_sp(in)))
		return slow_blocked(t, in);
	if (opt_insn(in) && __atomic_load_n(&opt_on, __ATOMIC_RELAXED) && lwp_emu_rseq_ok())
		return slow_opt(t, in);
	return slow_blocked(t, in);
}

/*
 * After thread_destroy() freed the model: LWP available and disabled
 * (LWP_CBADDR = 0) on a scratch model; LLWPCB (which would enable it)
 * raises #UD.
 */
static struct lwp_model_result gone_run(const struct slow_insn *in)
{
	struct lwp_model m;

	if (in->info ? in->info->insn == LWP_XOP_LLWPCB : in->op == LWP_INSN_LLWPCB)
		return ud;
	if (lwp_model_init(&m, &lwp_model_profile_user, &emu_ops, NULL))
		return ud;
	(void)lwp_model_wrmsr(&m, LWP_MSR_CFG, lwp_cfg_value(&lwp_model_profile_user));
	(void)lwp_model_xsetbv(&m, LWP_XCR0_MASK);
	return model_run(&m, in);
}

/* @in on the slow path of @t, or without a model (#UD, or gone_run()). */
static struct lwp_model_result run_insn(struct lwp_emu_thread *t, const struct slow_insn *in)
{
	if (t)
		return slow_insn(t, in);
	return lwp__emu_gone ? gone_run(in) : ud;
}

/* The slow path of the wrappers' LWPINS / LWPVAL (after the fast path). */
static __attribute__((noinline)) struct lwp_model_result
wrapper_slow(struct lwp_emu_thread *t, enum lwp_insn_op op, uint64_t data2, uint32_t data1,
	     uint32_t flags, unsigned int opsize, uint64_t ip, uintptr_t sp)
{
	struct slow_insn in = { .op = op, .data2 = data2, .data1 = data1,
				.flags = flags, .opsize = opsize, .ip = ip, .sp = sp };
	struct lwp_model_result r = run_insn(t, &in);

	if (r.exc != LWP_MODEL_EXC_NONE)
		deliver_now(&r);
	return r;
}

int lwp_emu_lwpins(uint64_t data2, uint32_t data1, uint32_t flags,
		   unsigned int opsize, uint64_t ip)
{
	struct lwp_emu_thread *t = lwp__emu_thread;
	/* The caller's stack pointer: where the wrapper runs. */
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();
	struct lwp_model_result r;
	int fast;

	if (__builtin_expect(t != NULL, 1)) {
		fast = lwp_emu_fast_lwpins(t, data2, data1, flags, opsize, ip, sp);
		if (fast != LWP_EMU_FAST_SLOW)
			return fast;
	}
	r = wrapper_slow(t, LWP_INSN_LWPINS, data2, data1, flags, opsize, ip, sp);
	return r.exc == LWP_MODEL_EXC_NONE ? r.cf : 0;
}

void lwp_emu_lwpval(uint64_t data2, uint32_t data1, uint32_t flags,
		    unsigned int opsize, uint64_t ip)
{
	struct lwp_emu_thread *t = lwp__emu_thread;
	uintptr_t sp = (uintptr_t)__builtin_dwarf_cfa();

	if (__builtin_expect(t != NULL, 1) &&
	    lwp_emu_fast_lwpval(t, data2, data1, true, flags, opsize, ip, sp) !=
	    LWP_EMU_FAST_SLOW)
		return;
	(void)wrapper_slow(t, LWP_INSN_LWPVAL, data2, data1, flags, opsize, ip, sp);
}

/*
 * LLWPCB (raw, or @info NULL: of @addr) with the registry locked, so the
 * loaded session is known; every signal blocked.
 */
static struct lwp_model_result llwpcb_locked(struct lwp_emu_thread *t,
					     uint64_t addr, unsigned int opsize,
					     const struct lwp_xop_insn_info *info,
					     struct lwp_xop_regs *regs, uintptr_t sp)
{
	struct lwp_model_result r;
	struct nest_snap ns;
	int taken;

	(void)settle_own(t, regs ? (uintptr_t)regs->gpr[4] : sp);
	taken = lwp_emu_lock_own(t);
	nest_before(t, &ns);
	refresh_coreid(&t->model);
	r = info ? lwp_xop_execute(&t->model, info, regs) :
		   lwp_model_llwpcb(&t->model, addr, opsize);
	if (r.exc == LWP_MODEL_EXC_NONE)
		session_follow(t);
	slow_done(t);
	if (t->inflight)
		nest_after(t, &ns);
	model_unlock(t, taken);
	return r;
}

static struct lwp_model_result llwpcb_exec(struct lwp_emu_thread *t, uint64_t addr,
					   const struct lwp_xop_insn_info *info,
					   struct lwp_xop_regs *regs)
{
	struct lwp_model_result r;
	sigset_t old;

	reg_enter(&old);
	r = llwpcb_locked(t, addr, 64, info, regs, (uintptr_t)__builtin_dwarf_cfa());
	reg_leave(&old);
	return r;
}

void lwp_emu_llwpcb(uint64_t lwpcb)
{
	struct lwp_emu_thread *t = lwp__emu_thread;
	struct lwp_model_result r;

	if (!t) {
		/* After the model is gone LWP stays disabled (LLWPCB 0). */
		if (!lwp__emu_gone || lwpcb)
			deliver_now(&ud);
		return;
	}
	r = llwpcb_exec(t, lwpcb, NULL, NULL);
	if (r.exc != LWP_MODEL_EXC_NONE)
		deliver_now(&r);
}

uint64_t lwp_emu_slwpcb(void)
{
	struct lwp_emu_thread *t = lwp__emu_thread;
	struct slow_insn in = { .op = LWP_INSN_SLWPCB, .sp = (uintptr_t)__builtin_dwarf_cfa() };
	struct lwp_model_result r;

	r = run_insn(t, &in);
	if (r.exc != LWP_MODEL_EXC_NONE) {
		deliver_now(&r);
		return 0;
	}
	return r.value;
}

/*
 * Execute a decoded instruction on @t's model with the locks it needs
 * (LLWPCB: the registry too, to follow the session loaded).
 */
static struct lwp_model_result exec_locked(struct lwp_emu_thread *t,
					   const struct lwp_xop_insn_info *info,
					   struct lwp_xop_regs *regs, int trapped)
{
	struct slow_insn in = { .info = info, .regs = regs, .trapped = trapped };

	if (info->insn != LWP_XOP_LLWPCB)
		return slow_insn(t, &in);
	return llwpcb_exec(t, 0, info, regs);
}

int lwp_emu_exec(const struct lwp_xop_insn_info *info, struct lwp_xop_regs *regs)
{
	struct lwp_emu_thread *t = lwp__emu_thread;
	struct slow_insn in = { .info = info, .regs = regs };
	struct lwp_model_result r;

	r = t ? exec_locked(t, info, regs, 0) : run_insn(NULL, &in);
	if (r.exc != LWP_MODEL_EXC_NONE) {
		deliver_now(&r);
		return -1;
	}
	return 0;
}

/*
 * ---- Closing from another thread (issue 38, item 1) ------------------------
 *
 * lwp_close() detaches the session from every thread's model, each under
 * its lock. A thread's lock held by the thread itself with an instruction
 * in flight (LWP_EMU_LOCK_SELF, inflight > 0) is either an instruction that
 * runs (maybe interrupted by a signal handler of the thread), or one a
 * handler abandoned with siglongjmp() while the thread went on elsewhere,
 * maybe to block for ever (lwp_emu_fast.c, "Instructions never finished").
 * Only that thread can tell, from where it is: so the closer asks it. It
 * queues SIGILL to the thread (rt_tgsigqueueinfo, SI_QUEUE, the value
 * HO_MAGIC: liblwp's own handler, no new signal taken from the program),
 * whose handler runs on the thread, every signal blocked, and looks at the
 * interrupted context:
 *  - no instruction in flight (any more): LWP_EMU_HO_FREE;
 *  - the interrupted stack pointer at or above the outermost frame's
 *    caller (no code inside the instruction runs there), the alternate
 *    signal stack left, or the word below that caller's stack pointer
 *    changed since the entry (the frame's return address, which nothing
 *    writes while the frame lives): abandoned. The handler completes or
 *    discards it as the thread's next entry would (the recovery runs only
 *    with every signal blocked, so never twice) and releases the lock:
 *    LWP_EMU_HO_SETTLED;
 *  - else it may still run: LWP_EMU_HO_RUNNING, with where it was.
 * The closer, every signal blocked and the registry held, waits for the
 * answer (futex on lwp_emu_thread.ho_ans; the owner's recovery on any path
 * wakes it too), then takes the lock, or, for RUNNING, spins on the lock
 * and asks again. It gives up with -EBUSY, changing nothing, where waiting
 * could be for ever:
 *  - twice the same answer from inside a system call (the interrupted RIP
 *    at a SYSCALL instruction, restarted, or after one that returned
 *    -EINTR; where its code cannot be read, /proc says it is not running)
 *    at the same RIP and RSP: the thread sleeps in it, and its
 *    instruction cannot be proven abandoned (a handler that interrupted
 *    it blocks, or the thread blocks deeper in the stack than the lost
 *    frame, its return address intact);
 *  - the thread cannot run the handler: SIGILL blocked, or the thread
 *    stopped, a zombie or gone (its /proc/self/task/TID/status, read while
 *    no answer has come for 10 ms, twice in a row); /proc unreadable for a
 *    second; or SIGILL no longer liblwp's handler.
 * The request stays pending in the thread: when it runs the handler later,
 * it settles an abandoned instruction all the same (no answer expected).
 * A thread that keeps running code after an abandoned instruction that
 * cannot be proven so, without an LWP instruction and without blocking,
 * keeps lwp_close() waiting (Documentation/liblwp.rst, limits).
 */
#define HO_MAGIC	0x4c575043	/* "LWPC" */
#define HO_POLL_NS	10000000L	/* re-check a silent thread every 10 ms */
#define HO_POLLS_NOPROC	100		/* without /proc: give up after 1 s */

static void emu_sigill(int sig, siginfo_t *si, void *ucv);

/*
 * Whether the thread at @rip/@rax sleeps in (or restarts) a system call: 1,
 * 0, or -1 where its code cannot be read (process_vm_readv(2) refused, as
 * by some seccomp profiles).
 */
static int at_syscall(uintptr_t rip, uint64_t rax)
{
	uint8_t b[2];

	if (lwp_emu_peek(b, rip, 2))
		return -1;
	if (b[0] == 0x0f && b[1] == 0x05)
		return 1;	/* restarted: SYSCALL again (-ERESTARTSYS) */
	return (int64_t)rax == -EINTR && lwp_emu_peek(b, rip - 2, 2) == 0 &&
	       b[0] == 0x0f && b[1] == 0x05;
}

/* The request's SIGILL, on the asked thread (every signal blocked). */
static void ho_owner(const ucontext_t *uc)
{
	struct lwp_emu_thread *t = lwp__emu_thread;
	const greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t sp = (uintptr_t)g[REG_RSP], ip = (uintptr_t)g[REG_RIP];
	int ans = LWP_EMU_HO_RUNNING;

	if (!t)
		return;
	if (!__atomic_load_n(&t->inflight, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&t->lock, __ATOMIC_RELAXED) != LWP_EMU_LOCK_SELF) {
		ans = LWP_EMU_HO_FREE;
	} else if (lwp_emu_frames_gone(t, sp)) {
		if (t->pend.phase == LWP_EMU_PH_OPT)
			opt_recover(t);
		lwp_emu_recover(t);		/* answers SETTLED */
		return;
	}
	if (!__atomic_load_n(&t->ho_req, __ATOMIC_ACQUIRE))
		return;
	t->ho_rip = ip;
	t->ho_rsp = sp;
	t->ho_insys = ans == LWP_EMU_HO_RUNNING ? at_syscall(ip, (uint64_t)g[REG_RAX]) : 0;
	__atomic_store_n(&t->ho_ans, ans, __ATOMIC_RELEASE);
	(void)syscall(SYS_futex, &t->ho_ans, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * Thread @tid's /proc/self/task/TID/status: its State letter in *@state
 * ('?' unknown, 'X' gone) and whether SIGILL is blocked (1, 0, -1 unknown).
 */
static int task_status(pid_t tid, char *state)
{
	char path[64], buf[4096], *p;
	unsigned long long blk;
	ssize_t n;
	int fd;

	*state = '?';
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ESRCH)
			*state = 'X';
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "\nState:");
	if (p && (p = strchr(p + 1, ':'))) {
		p += strspn(p + 1, " \t") + 1;
		*state = *p;
	}
	p = strstr(buf, "\nSigBlk:");
	if (!p)
		return -1;
	blk = strtoull(p + 8, NULL, 16);
	return (blk >> (SIGILL - 1)) & 1;
}

/*
 * Thread @tid cannot run a SIGILL handler now: 1 (SIGILL blocked, stopped,
 * dead, gone), 0 it can, -1 unknown (no /proc).
 */
static int task_cannot_answer(pid_t tid)
{
	char st;
	int blk = task_status(tid, &st);

	if (st == 'T' || st == 't' || st == 'Z' || st == 'X')
		return 1;
	return blk;
}

/* Thread @tid sleeps ('S', 'D'), or that cannot be known: not running. */
static int task_asleep(pid_t tid)
{
	char st;

	(void)task_status(tid, &st);
	return st != 'R';
}

/* Ask thread @o (lock SELF, an instruction in flight); returns LWP_EMU_HO_*. */
static int ho_ask(struct lwp_emu_thread *o)
{
	struct timespec ts = { 0, HO_POLL_NS };
	struct sigaction cur;
	siginfo_t si;
	int ans, silent = 0, noproc = 0, polls = 0, st;

	if (sigaction(SIGILL, NULL, &cur) || !(cur.sa_flags & SA_SIGINFO) ||
	    cur.sa_sigaction != emu_sigill)
		return LWP_EMU_HO_BUSY;
	__atomic_store_n(&o->ho_ans, LWP_EMU_HO_WAIT, __ATOMIC_RELAXED);
	__atomic_store_n(&o->ho_req, 1, __ATOMIC_SEQ_CST);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGILL;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = HO_MAGIC;
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), o->tid, SIGILL, &si)) {
		ans = LWP_EMU_HO_BUSY;
		goto out;
	}
	for (;;) {
		/*
		 * Queued again after each silent period: SIGILL is not a
		 * real-time signal, one pending (a #UD just raised) drops ours.
		 */
		if (polls++)
			(void)syscall(SYS_rt_tgsigqueueinfo, getpid(), o->tid, SIGILL, &si);
		(void)syscall(SYS_futex, &o->ho_ans, FUTEX_WAIT_PRIVATE, LWP_EMU_HO_WAIT, &ts,
			      NULL, 0);
		ans = __atomic_load_n(&o->ho_ans, __ATOMIC_ACQUIRE);
		if (ans != LWP_EMU_HO_WAIT)
			break;
		if (__atomic_load_n(&o->lock, __ATOMIC_RELAXED) != LWP_EMU_LOCK_SELF ||
		    !__atomic_load_n(&o->inflight, __ATOMIC_RELAXED)) {
			ans = LWP_EMU_HO_FREE;
			break;
		}
		st = task_cannot_answer(o->tid);
		silent = st > 0 ? silent + 1 : 0;
		noproc = st < 0 ? noproc + 1 : 0;
		if (silent >= 2 || noproc >= HO_POLLS_NOPROC) {
			ans = LWP_EMU_HO_BUSY;
			break;
		}
	}
out:
	__atomic_store_n(&o->ho_req, 0, __ATOMIC_SEQ_CST);
	return ans;
}

/*
 * Take the lock of another thread's model @o for lwp_close(): 0, or -EBUSY
 * where its instruction in flight could hold it for ever (above). Every
 * signal blocked, the registry held.
 */
static int lock_other(struct lwp_emu_thread *o)
{
	uintptr_t rip = 0, rsp = 0;
	int insys = 0, ans, free_, i;

	for (;;) {
		free_ = LWP_EMU_LOCK_FREE;
		if (__atomic_compare_exchange_n(&o->lock, &free_, LWP_EMU_LOCK_OTHER, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 0;
		if (free_ != LWP_EMU_LOCK_SELF ||
		    !__atomic_load_n(&o->inflight, __ATOMIC_RELAXED)) {
			__builtin_ia32_pause();	/* one instruction, signals blocked */
			continue;
		}
		ans = ho_ask(o);
		if (ans == LWP_EMU_HO_BUSY)
			return -EBUSY;
		if (ans != LWP_EMU_HO_RUNNING)
			continue;
		if (o->ho_insys < 0)	/* its code unreadable: ask /proc */
			o->ho_insys = task_asleep(o->tid);
		if (o->ho_insys && insys && o->ho_rip == rip && o->ho_rsp == rsp)
			return -EBUSY;	/* asleep where it was: no progress */
		insys = o->ho_insys;
		rip = o->ho_rip;
		rsp = o->ho_rsp;
		/* A running instruction ends in far less. */
		for (i = 0; i < 4096; i++) {
			if (__atomic_load_n(&o->lock, __ATOMIC_RELAXED) != LWP_EMU_LOCK_SELF)
				break;
			__builtin_ia32_pause();
		}
		sched_yield();
	}
}

/* ---- SIGILL: raw LWP instructions ---------------------------------------- */

/* x86 encoding order (lwp_xop_regs.gpr) -> ucontext gregs index. */
static const int greg_of[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

/* Hand a genuine #UD to whoever had SIGILL before us. */
static void chain_sigill(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;

	if (old_sigill.sa_flags & SA_SIGINFO) {
		old_sigill.sa_sigaction(sig, si, uc);
	} else if (old_sigill.sa_handler != SIG_DFL &&
		   old_sigill.sa_handler != SIG_IGN) {
		old_sigill.sa_handler(sig);
	} else {
		/* As the kernel does for a #UD: default action (the
		 * instruction re-executes and the process gets SIGILL). */
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		(void)sigaction(SIGILL, &dfl, NULL);
		sigdelset(&((ucontext_t *)uc)->uc_sigmask, SIGILL);
	}
}

/* Copy up to @len instruction bytes at @ip; returns how many are readable. */
static size_t fetch(uint64_t ip, uint8_t *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)ip, len };
	size_t first = 4096 - (ip & 4095);
	ssize_t n;

	/* The page holding RIP is mapped (we trapped there). */
	if (first >= len) {
		memcpy(buf, (const void *)(uintptr_t)ip, len);
		return len;
	}
	memcpy(buf, (const void *)(uintptr_t)ip, first);
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	return n == (ssize_t)len ? len : first;
}

static void emu_sigill(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	struct lwp_emu_thread *t = lwp__emu_thread;
	struct lwp_xop_insn_info info;
	struct lwp_xop_regs regs;
	struct lwp_model_result r;
	uint8_t bytes[LWP_INSN_MAX_LENGTH];
	int saved_errno = errno, i, ret;
	size_t n;

	/* lwp_close() on another thread asks (above); not a #UD. */
	if (si && si->si_code == SI_QUEUE && si->si_value.sival_int == HO_MAGIC &&
	    si->si_pid == getpid()) {
		ho_owner(uc);
		errno = saved_errno;
		return;
	}
	if ((!t && !lwp__emu_gone) || lwp__emu_busy)
		goto chain;

	memset(&regs, 0, sizeof(regs));
	for (i = 0; i < 16; i++)
		regs.gpr[i] = (uint64_t)g[greg_of[i]];
	regs.rip = (uint64_t)g[REG_RIP];
	regs.rflags = (uint64_t)g[REG_EFL];
	n = fetch(regs.rip, bytes, sizeof(bytes));
	ret = lwp_xop_decode(bytes, n, &regs, &info);
	if (ret != LWP_XOP_OK)
		goto chain;	/* not an LWP instruction: a real #UD */
	if (info.seg == LWP_XOP_SEG_FS || info.seg == LWP_XOP_SEG_GS) {
		unsigned long base = 0;

		(void)syscall(SYS_arch_prctl, ARCH_GET_FS, &base);
		regs.fs_base = base;
		(void)syscall(SYS_arch_prctl, ARCH_GET_GS, &base);
		regs.gs_base = base;
		if (lwp_xop_decode(bytes, n, &regs, &info) != LWP_XOP_OK)
			goto chain;
	}

	if (t) {
		r = exec_locked(t, &info, &regs, 1);
	} else {
		struct slow_insn in = { .info = &info, .regs = &regs };

		r = gone_run(&in);
	}
	if (r.exc == LWP_MODEL_EXC_UD)
		goto chain;
	if (r.exc != LWP_MODEL_EXC_NONE) {
		/* RIP stays at the instruction: a handler that fixes the
		 * cause and returns re-executes it, as after a #PF. */
		deliver(&r, &uc->uc_sigmask);
		errno = saved_errno;
		return;
	}
	for (i = 0; i < 16; i++)
		g[greg_of[i]] = (greg_t)regs.gpr[i];
	g[REG_RIP] = (greg_t)regs.rip;
	g[REG_EFL] = (greg_t)regs.rflags;
	errno = saved_errno;
	return;

chain:
	errno = saved_errno;
	chain_sigill(sig, si, ucv);
}

/* Install the SIGILL handler once per process; under reg_lock. */
static int sigill_install(void)
{
	struct sigaction sa;

	if (sigill_installed)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emu_sigill;
	/*
	 * SA_SIGINFO for the ucontext; SA_ONSTACK to honour an alternate
	 * stack; no SA_NODEFER and every signal blocked while we run, so the
	 * model is never re-entered on this thread from a signal handler.
	 */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGILL, &sa, &old_sigill))
		return -EBUSY;
	sigill_installed = 1;
	return 0;
}

/*
 * ---- SIGILL blocked: raw instructions would kill (issue 38, item 2) -------
 *
 * A raw LWP instruction reaches the emulation as the kernel's forced SIGILL
 * (#UD). If SIGILL is blocked where the instruction runs, or ignored, the
 * kernel's force_sig_info() resets it to the default action and unblocks
 * it: the process dies of SIGILL (exit status 132) before liblwp runs. The
 * wrappers and lwp_jit_encode()'s call sequences never trap and work
 * everywhere. What can be seen when LWP is made available (lwp_open(),
 * lwp_start() on another thread): the calling thread's signal mask, and the
 * handlers installed at that moment whose sa_mask blocks SIGILL (a raw
 * instruction inside them would kill). Not seen: masks and handlers set up
 * afterwards, other threads' masks. Said once per process on stderr.
 */
static int sigill_warned_mask, sigill_warned_handler;

static void sigill_hazards(const sigset_t *mask)
{
	struct sigaction sa;
	int sig;

	if (sigismember(mask, SIGILL) == 1 &&
	    !__atomic_exchange_n(&sigill_warned_mask, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "liblwp: SIGILL is blocked on thread %ld: a raw LWP instruction "
			"executed there kills the process (SIGILL); use lwp_jit_encode() call "
			"sequences or the wrappers, or unblock SIGILL (liblwp(3))\n",
			(long)syscall(SYS_gettid));
	for (sig = 1; sig < NSIG; sig++) {
		if (sig == SIGILL || sig == SIGKILL || sig == SIGSTOP ||
		    sigaction(sig, NULL, &sa) || sa.sa_handler == SIG_DFL ||
		    sa.sa_handler == SIG_IGN || sigismember(&sa.sa_mask, SIGILL) != 1)
			continue;
		if (!__atomic_exchange_n(&sigill_warned_handler, 1, __ATOMIC_RELAXED))
			fprintf(stderr, "liblwp: the handler of signal %d blocks SIGILL (sa_mask): a "
				"raw LWP instruction executed in it kills the process (SIGILL); use "
				"lwp_jit_encode() call sequences or the wrappers there (liblwp(3))\n",
				sig);
		break;
	}
}

/* ---- Backend entry points ------------------------------------------------ */

static int emu_query(struct lwp_caps *caps)
{
	struct lwp_model m;
	uint32_t regs[4];

	/* A scratch model CPU as a thread sees it after lwp_open(). */
	if (lwp_model_init(&m, &lwp_model_profile_user, &emu_ops, NULL))
		return -ENODEV;
	(void)lwp_model_wrmsr(&m, LWP_MSR_CFG, lwp_cfg_value(&lwp_model_profile_user));
	(void)lwp_model_xsetbv(&m, LWP_XCR0_MASK);
	if (!lwp_model_cpuid(&m, LWP_CPUID_FN8000_001C, 0, regs))
		return -ENODEV;
	lwp_caps_decode(caps, regs);
	caps->emu_available = 1;
	return 0;
}

static int emu_open(struct lwp_session *s)
{
	struct lwp_emu_thread *t;
	sigset_t old;
	int ret;

	/*
	 * A thread with a hardware session has the CPU's LWP (and its XSAVE
	 * state, issue 28 finding 6): one thread, one LWP, as hw_open()
	 * refuses a thread of the emulation.
	 */
	if (lwp_thread_hw_lwp())
		return -EBUSY;
	t = thread_get();
	if (!t)
		return -ENOMEM;
	reg_enter(&old);
	sigill_hazards(&old);
	ret = sigill_install();
	if (!ret) {
		s->opener = t;
		avail_get(t);
		s->next = reg_head;
		reg_head = s;
	}
	reg_leave(&old);
	return ret;
}

static int emu_start(struct lwp_session *s)
{
	struct lwp_emu_thread *t;
	struct lwp_model_result r;
	sigset_t old;
	int ret = 0;

	t = thread_get();
	if (!t)
		return -ENOMEM;
	reg_enter(&old);
	if (s->owner && s->owner != t) {
		ret = -EBUSY;
		goto out;
	}
	if (!t->refs) {
		/* Started on a thread LWP was not yet available to. */
		if (s->starter) {
			ret = -EBUSY;
			goto out;
		}
		s->starter = t;
		avail_get(t);
		sigill_hazards(&old);
	}
	r = llwpcb_locked(t, (uint64_t)(uintptr_t)s->lwpcb, 64, NULL, NULL,
			  (uintptr_t)__builtin_dwarf_cfa());
	if (r.exc != LWP_MODEL_EXC_NONE)
		ret = r.exc == LWP_MODEL_EXC_UD ? -ENODEV : -EFAULT;
	else if (t->session != s)
		ret = -EFAULT;
out:
	reg_leave(&old);
	return ret;
}

static int emu_stop(struct lwp_session *s)
{
	struct lwp_emu_thread *t = lwp__emu_thread;
	struct lwp_model_result r;
	sigset_t old;
	int ret = 0;

	reg_enter(&old);
	if (!s->owner)
		goto out;
	if (s->owner != t) {
		ret = -EPERM;
		goto out;
	}
	if (t->model.cbaddr == (uint64_t)(uintptr_t)s->lwpcb) {
		/* flush (§5.1 step 2), disable */
		r = llwpcb_locked(t, 0, 64, NULL, NULL, (uintptr_t)__builtin_dwarf_cfa());
		if (r.exc != LWP_MODEL_EXC_NONE)
			ret = -EFAULT;
	}
	s->owner = NULL;
out:
	reg_leave(&old);
	return ret;
}

/*
 * Every thread's model held for emu_close(), all or none: 0, or -EBUSY
 * (nothing held) where another thread's instruction in flight may hold its
 * lock for ever (lock_other()). lwp_emu_thread.close_taken: to release.
 */
static int lock_all(void)
{
	struct lwp_emu_thread *o, *u;
	int ret;

	for (o = thread_head; o; o = o->next) {
		if (o == lwp__emu_thread) {
			o->close_taken = model_lock(o);
			continue;
		}
		ret = lock_other(o);
		if (ret) {
			for (u = thread_head; u != o; u = u->next)
				model_unlock(u, u->close_taken);
			return ret;
		}
		o->close_taken = 1;
	}
	return 0;
}

static int emu_close(struct lwp_session *s)
{
	struct lwp_session **pp;
	struct lwp_emu_thread *o;
	sigset_t old;
	int ret;

	reg_enter(&old);
	ret = lock_all();
	if (ret) {
		reg_leave(&old);
		return ret;
	}
	/*
	 * Every thread running on this LWPCB (the owner, or threads whose
	 * program loaded it with a raw LLWPCB) stops using it before the
	 * memory goes away: the calling thread with LLWPCB 0 (flush, as
	 * lwp_stop()), others as the OS would, with LWP_CBADDR := 0 (§4.3).
	 */
	for (o = thread_head; o; o = o->next) {
		if (o->model.cbaddr == (uint64_t)(uintptr_t)s->lwpcb) {
			if (o == lwp__emu_thread)
				(void)lwp_model_llwpcb(&o->model, 0, 64);
			else
				(void)lwp_model_wrmsr(&o->model, LWP_MSR_CBADDR, 0);
		}
		if (o->session == s) {
			o->session = NULL;
			o->fast_cbaddr = 0;
		}
	}
	s->owner = NULL;
	/* The program may have loaded this LWPCB itself on other threads. */
	for (pp = &reg_head; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	avail_put_held(s->opener);
	avail_put_held(s->starter);
	for (o = thread_head; o; o = o->next)
		model_unlock(o, o->close_taken);
	reg_leave(&old);
	return 0;
}

static void emu_flush(struct lwp_session *s)
{
	struct lwp_emu_thread *t = lwp__emu_thread;

	/* Only the thread whose LWP runs on this LWPCB can flush it (§5.2). */
	if (t && t->model.cbaddr == (uint64_t)(uintptr_t)s->lwpcb)
		(void)lwp_emu_slwpcb();
}

const struct lwp_backend_ops lwp_backend_emu = {
	.id = LWP_BACKEND_EMU,
	.query = emu_query,
	.open = emu_open,
	.start = emu_start,
	.stop = emu_stop,
	.close = emu_close,
	.flush = emu_flush,
	.jit_sequence = 1,
};
