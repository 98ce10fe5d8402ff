/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * liblwp emulation backend internals shared by lwp_emu.c (sessions, SIGILL,
 * the model's slow path), lwp_emu_fast.c (the fast path of LWPVAL/LWPINS)
 * and lwp_jit.c (JIT call sequences).
 */
#ifndef LIBLWP_LWP_EMU_H
#define LIBLWP_LWP_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/lwp/lwp_model.h"

#define LWP_EMU_HIDDEN	__attribute__((visibility("hidden")))
/* The library's own TLS: one load from %fs, also in liblwp.so. */
#define LWP_EMU_TLS	__attribute__((tls_model("initial-exec"))) LWP_EMU_HIDDEN

struct lwp_session;

/*
 * A model state computed on a copy, being made the thread's
 * (lwp_emu_roll_forward()): lwp_emu.c, "The model without blocking signals".
 */
struct lwp_emu_commit {
	const struct lwp_model *src;	/* the new state */
	unsigned int n0;		/* lwp_emu_thread.nested it was computed at */
	int done;			/* 0 pending, 1 committed, -1 stale */
	uint32_t gen;			/* lwp_emu_thread.stage_gen of this copy */
};

/*
 * The outermost instruction of a thread, as far as it got (issue 38): kept
 * in the thread's state, so that an instruction a signal handler left with
 * siglongjmp() (or an exception) is completed or discarded at the thread's
 * next entry (lwp_emu_fast.c, "Instructions never finished").
 */
enum lwp_emu_phase {
	LWP_EMU_PH_NONE = 0,	/* nothing owed */
	LWP_EMU_PH_STORE,	/* record in rec[], reserving slot @head */
	LWP_EMU_PH_WRITE,	/* slot reserved: rec[] goes to @slot */
	LWP_EMU_PH_RELOAD,	/* LWPVAL: reloading EventCounter1, record in rec[] */
	LWP_EMU_PH_OWED,	/* LWPVAL: counter reloaded, record owed */
	LWP_EMU_PH_OPT,		/* the model's copy being committed/applied (lwp_emu.c) */
};

struct lwp_emu_pend {
	uintptr_t sp;		/* caller's stack pointer at entry; 0: none
				 * (a frame entering is live) */
	uintptr_t ra;		/* the word at sp - 8 at entry (a return
				 * address, or the JIT code's red zone): the
				 * frame is gone once it changed */
	uint32_t phase;		/* enum lwp_emu_phase */
	uint32_t head;		/* PH_STORE: the head the reservation expects */
	uint32_t gen;		/* lwp_emu_thread.gen when prepared */
	uint32_t forced;	/* the record is owed (LWPVAL after its reload) */
	uint8_t *slot;		/* PH_STORE/PH_WRITE: where rec[] goes */
	uint64_t cb;		/* the LWPCB */
	uint64_t rec[3];	/* the record's quadwords 0-2 (3 is zero) */
	uint32_t applied;	/* PH_OPT: log entries written */
	uint32_t miss_pend;	/* PH_OPT: MissedEvents of entry @applied added? */
	uint64_t miss_snap;	/* ... MissedEvents before that add */
};

/* lwp_emu_thread.lock: who holds a thread's model. */
#define LWP_EMU_LOCK_FREE	0
#define LWP_EMU_LOCK_SELF	1	/* the thread the model belongs to */
#define LWP_EMU_LOCK_OTHER	2	/* another thread (lwp_close, exit) */

/* One thread's emulated LWP: a model "CPU" per thread (43724 §1.1, §8.2.1). */
struct lwp_emu_thread {
	struct lwp_model model;
	union {
		struct {
			int lock;	/* LWP_EMU_LOCK_*, over model and session */
			/*
			 * Re-entry by signal handlers of this thread (issue
			 * 28, finding 2; lwp_emu_fast.c explains the
			 * protocol). Written by this thread only.
			 */
			unsigned int inflight;	/* fast-path instructions in progress */
		};
		/* Both, released by one store: never the lock without them
		 * (lwp_emu_fast.c, fast_leave()). */
		uint64_t lock_inflight;
	};
	unsigned int refs;		/* sessions that made LWP available */
	unsigned int *emulated;		/* &lwp_tls_emulated of the thread */
	struct lwp_session *session;	/* liblwp session whose LWPCB is loaded */
	/*
	 * The fast path may run (lwp_emu_fast.c): model.cbaddr when the loaded
	 * LWPCB is a liblwp session's whose ring holds the model's whole
	 * buffer (plain memory of ours, 32-byte records), else 0. Set under
	 * the lock after every LLWPCB.
	 */
	uint64_t fast_cbaddr;
	/* Re-entry by signal handlers (with inflight, above). */
	unsigned int nested;		/* instructions done while inflight > 0 */
	uint32_t gen;			/* LLWPCBs executed on this model */
	uint64_t defer_cb;		/* LWPCB whose BufferHeadOffset the model
					 * wrote while inflight > 0, or 0 */
	uint32_t defer_head;		/* ... and the value */
	int defer_set;			/* defer_head holds one */
	struct lwp_session *defer_irq;	/* threshold interrupt held back */
	struct lwp_emu_commit *commit;	/* a copy being committed, or NULL;
					 * only ever &stage (never the stack) */
	struct lwp_emu_commit stage;	/* its descriptor, gen-tagged */
	uint32_t stage_gen;		/* stages taken */
	void *opt;			/* lwp_emu.c's copy and log (heap) */
	struct lwp_emu_pend pend;	/* the outermost instruction */
	unsigned long recovered[2];	/* abandoned: completed, discarded */
	/*
	 * lwp_close() from another thread asks this thread whether its
	 * instruction in flight was abandoned (lwp_emu.c, "Closing from
	 * another thread"): the request, the answer (LWP_EMU_HO_*), and where
	 * the answering handler interrupted the thread.
	 */
	int ho_req;
	int ho_ans;
	int ho_insys;			/* ... in a system call (-1: unknown) */
	uintptr_t ho_rip, ho_rsp;
	int close_taken;		/* emu_close() took the lock */
	unsigned int dtor_rounds;	/* pthread key destructor calls */
	pid_t tid;
	struct lwp_emu_thread *next;	/* all threads, under reg_lock */
};

/* This thread's model, NULL before its first lwp_open()/lwp_start(). */
extern _Thread_local struct lwp_emu_thread *lwp__emu_thread LWP_EMU_TLS;
/* Set while liblwp code on this thread holds the registry lock (always
 * with every signal blocked). */
extern _Thread_local int lwp__emu_busy LWP_EMU_TLS;

/*
 * Take @t's lock as @who (LWP_EMU_LOCK_SELF on t's own thread, else
 * LWP_EMU_LOCK_OTHER). Another thread's hold is waited for.
 */
static inline __attribute__((always_inline)) void lwp_emu_lock_as(struct lwp_emu_thread *t, int who)
{
	int free_ = LWP_EMU_LOCK_FREE;

	while (!__atomic_compare_exchange_n(&t->lock, &free_, who, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		free_ = LWP_EMU_LOCK_FREE;
		__builtin_ia32_pause();
	}
}

static inline void lwp_emu_unlock(struct lwp_emu_thread *t)
{
	__atomic_store_n(&t->lock, LWP_EMU_LOCK_FREE, __ATOMIC_RELEASE);
}

/*
 * lwp_emu_roll_forward() - finish the commit of @t's model (@t->commit) that
 * a signal interrupted, or drop it if the thread's model changed since the
 * copy was taken (lwp_emu_thread.nested moved); afterwards t->commit is
 * NULL and t->commit->done was 1 or -1. The copy into t->model runs in a
 * restartable sequence (Linux rseq(2)): a signal or preemption inside it
 * restarts it, so the interrupted copy never resumes half done over state
 * a signal handler changed. Only with glibc's rseq registered
 * (lwp_emu_rseq_ok()). Called on @t's own thread with its lock held.
 */
void lwp_emu_roll_forward(struct lwp_emu_thread *t) LWP_EMU_HIDDEN;

/* Whether glibc registered rseq for this thread (__rseq_size, rseq.cpu_id >= 0). */
int lwp_emu_rseq_ok(void) LWP_EMU_HIDDEN;

/*
 * The lock on the calling thread's own model @t. Returns 1 if taken (the
 * caller unlocks), 0 if this thread already holds it: a signal handler
 * interrupted liblwp code of this thread that holds it, and runs nested in
 * it (the lock guards against other threads only); a commit it interrupted
 * is finished first. Only this thread writes LWP_EMU_LOCK_SELF, so reading
 * it here is never stale.
 */
static inline __attribute__((always_inline)) int lwp_emu_lock_own(struct lwp_emu_thread *t)
{
	if (__atomic_load_n(&t->lock, __ATOMIC_RELAXED) == LWP_EMU_LOCK_SELF) {
		if (__builtin_expect(__atomic_load_n(&t->commit, __ATOMIC_RELAXED) != NULL, 0))
			lwp_emu_roll_forward(t);
		return 0;
	}
	lwp_emu_lock_as(t, LWP_EMU_LOCK_SELF);
	return 1;
}

/* Results of the fast path. */
enum lwp_emu_fast_res {
	LWP_EMU_FAST_DONE = 0,		/* executed; nothing else to do */
	LWP_EMU_FAST_DONE_CF = 1,	/* LWPINS executed, CF = 1 */
	LWP_EMU_FAST_SLOW = -1,		/* nothing changed: use the model */
};

/*
 * lwp_emu_fast_lwpins() / lwp_emu_fast_lwpval() - LWPINS / LWPVAL (43724
 * §5.4, §5.3) on the model of @t (the calling thread's), taking its lock,
 * for the common cases only: LWP enabled at CPL 3 on a
 * liblwp LWPCB (t->fast_cbaddr), cached LWPCB fields valid, no pending
 * record, no IP filter, only events 1 (and INT) enabled, head flushed on
 * every store; LWPINS: CoreId is current and the record is stored, or
 * missed in a full ring, without reaching the threshold; LWPVAL:
 * EventCounter1 stays >= 0, or reaches -1 with a register Data1
 * (@data1_reg; a memory operand's value is not known here), no Random bits
 * and a record stored as for LWPINS. Each has exactly the effect
 * of lwp_model_lwpins() / lwp_model_lwpval() followed by
 * lwp_model_insn_retired(). Anything else
 * returns LWP_EMU_FAST_SLOW with the model untouched. LWPINS returns
 * LWP_EMU_FAST_DONE_CF when the record was missed (CF = 1). @ip is the
 * InstructionAddress, @opsize 32 or 64 (bits of @data2).
 *
 * Compiled with general registers only: the JIT trampoline calls them
 * without saving vector registers. Re-entrant: a signal handler of the
 * thread may execute LWP instructions while one runs (lwp_emu_fast.c).
 */
int lwp_emu_fast_lwpins(struct lwp_emu_thread *t, uint64_t data2, uint32_t data1,
			uint32_t flags, unsigned int opsize, uint64_t ip,
			uintptr_t sp) LWP_EMU_HIDDEN;
int lwp_emu_fast_lwpval(struct lwp_emu_thread *t, uint64_t data2, uint32_t data1,
			bool data1_reg, uint32_t flags, unsigned int opsize,
			uint64_t ip, uintptr_t sp) LWP_EMU_HIDDEN;

/*
 * Instructions never finished (issue 38; lwp_emu_fast.c explains). @sp is
 * the stack pointer of the entry's caller (the call site of a wrapper, the
 * JIT code's RSP of a call sequence or raw instruction), or
 * LWP_EMU_SP_GONE where no frame of the thread can be live (its exit).
 *
 * lwp_emu_frames_dead() - 1 if the instruction in flight on @t (the
 * calling thread's; t->inflight > 0) was abandoned: an entry at @sp cannot
 * be running in a signal handler that interrupted it. 0 if it may have.
 * lwp_emu_recover() - complete or discard @t's abandoned instruction
 * (t->pend; PH_OPT finished by the caller before), publish what it held
 * back, release the in-flight count and the lock.
 * lwp_emu_settle_fast() - both, for the fast path: 1 if nothing is in
 * flight any more, 0 if the entry is nested (or PH_OPT is left to the
 * slow path).
 */
#define LWP_EMU_SP_GONE	UINTPTR_MAX
int lwp_emu_frames_dead(const struct lwp_emu_thread *t, uintptr_t sp) LWP_EMU_HIDDEN;
/*
 * lwp_emu_frames_gone() - lwp_emu_frames_dead() for @sp of code that is not
 * an entry of liblwp (the stack pointer a signal interrupted): no slack.
 */
int lwp_emu_frames_gone(const struct lwp_emu_thread *t, uintptr_t sp) LWP_EMU_HIDDEN;
/*
 * lwp_emu_peek() - copy @len bytes at @addr of this process into @buf:
 * 0, or -errno (-EFAULT) where they are not mapped readable, never a fault.
 * Async-signal-safe (process_vm_readv(2) on ourselves, raw system calls).
 */
long lwp_emu_peek(void *buf, uintptr_t addr, size_t len) LWP_EMU_HIDDEN;
/* This process's PID for lwp_emu_peek() (set when a model is made and in a
 * fork()ed child), or 0: asked each time. */
extern pid_t lwp__emu_pid LWP_EMU_HIDDEN;
void lwp_emu_recover(struct lwp_emu_thread *t) LWP_EMU_HIDDEN;
int lwp_emu_settle_fast(struct lwp_emu_thread *t, uintptr_t sp) LWP_EMU_HIDDEN;

/*
 * One frame of liblwp on this thread's model, maybe nested in another
 * (lwp_emu_fast.c, "Re-entry by signal handlers").
 */
struct lwp_emu_frame {
	uintptr_t sp;			/* caller's stack pointer (pend.sp) */
	int locked;			/* this frame took the lock */
	int stored;			/* something to publish when it leaves */
	unsigned int nested0;		/* lwp_emu_thread.nested at entry */
	uint64_t cb;			/* LWPCB the instruction started on */
};

/*
 * lwp_emu_frame_enter() / lwp_emu_frame_leave() - bracket one instruction on
 * the calling thread's model @t (@sp: lwp_emu_frames_dead(); @trapped: a
 * raw instruction's, @sp its RSP in the SIGILL context): the lock (or
 * nesting in this thread's holder), the in-flight count; the outermost
 * frame writes BufferHeadOffset
 * and raises the threshold interrupts held back when it leaves.
 */
void lwp_emu_frame_enter(struct lwp_emu_thread *t, struct lwp_emu_frame *fr,
			 uintptr_t sp, int trapped) LWP_EMU_HIDDEN;
void lwp_emu_frame_leave(struct lwp_emu_thread *t, struct lwp_emu_frame *fr) LWP_EMU_HIDDEN;

/*
 * Answers of a thread to lwp_close() on another thread (lwp_emu.c, "Closing
 * from another thread"), in lwp_emu_thread.ho_ans.
 */
enum lwp_emu_ho {
	LWP_EMU_HO_WAIT = 0,	/* asked, no answer yet */
	LWP_EMU_HO_FREE,	/* no instruction in flight (any more) */
	LWP_EMU_HO_SETTLED,	/* one was abandoned: completed or discarded */
	LWP_EMU_HO_RUNNING,	/* one may still run: not proven abandoned */
	LWP_EMU_HO_BUSY,	/* (closer) the thread cannot answer now */
};

/*
 * lwp_emu_ho_done() - tell a closer waiting on @t (lwp_emu_thread.ho_req)
 * that the instruction it waits for was settled (async-signal-safe, raw
 * system call).
 */
void lwp_emu_ho_done(struct lwp_emu_thread *t) LWP_EMU_HIDDEN;

/* Turn the fast path off (0) or on (1, default) for tests: the slow path
 * is then the model for every instruction. Returns the previous setting. */
int lwp_emu_fast_enable(int on) LWP_EMU_HIDDEN;

/*
 * Turn the slow path without signal blocking (lwp_emu.c, "The model without
 * blocking signals") off (0: every signal blocked around the model, as
 * without rseq) or on (1, default) for tests. Returns the previous setting.
 */
int lwp_emu_opt_enable(int on) LWP_EMU_HIDDEN;
/* Instructions that ran again because a signal handler's changed the model
 * under them (tests). */
extern unsigned long lwp__emu_opt_retries LWP_EMU_HIDDEN;

/*
 * lwp_emu_exec() - one decoded LWP instruction (@info, lwp_xop_decode()) on
 * the calling thread's model with the register file @regs, as the SIGILL
 * handler executes it (lwp_xop_execute(): regs->rip is the
 * InstructionAddress; SLWPCB's register and LWPINS's CF are written to
 * @regs). Used by the JIT call sequences' slow path.
 * Returns 0 when executed (also nested in an instruction of this thread
 * that a signal handler interrupted); -1 when it faulted: the signal Linux sends for the fault (SIGILL for #UD, SIGSEGV for
 * #GP/#PF) has been delivered to the thread and @regs is unchanged.
 */
struct lwp_xop_insn_info;
struct lwp_xop_regs;
int lwp_emu_exec(const struct lwp_xop_insn_info *info, struct lwp_xop_regs *regs) LWP_EMU_HIDDEN;

#endif /* LIBLWP_LWP_EMU_H */
