// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp emulation: the fast path of LWPINS and LWPVAL (issue 18).
 *
 * The model (model/lwp) executes every instruction in full generality:
 * cached-field refresh, pending records, IP filters, a restartable copy of
 * its state, memory through callbacks. For the cases a running program
 * meets almost always, the effect is small and fixed: LWPVAL decrements
 * EventCounter1 (43724 §5.3), LWPINS stores one record at BufferHeadOffset
 * and advances it (§5.4, §6 Table 6-1, §8.3). This file does exactly that
 * on the model's own state and hands every other case back untouched to
 * the model (LWP_EMU_FAST_SLOW): the threshold reached (interrupt), a
 * record of LWPVAL with Random bits, a memory Data1 to read, a CoreId to
 * refresh, a pending record, filters, other events. The model therefore
 * stays the one definition of LWP; tests/liblwp/test_lwp_fast.c compares
 * the two on random programs.
 *
 * Compiled with general registers only (the JIT trampoline of lwp_jit.c
 * calls into here without saving vector registers): no memcpy, no libc
 * call on the way except sched_getcpu() when rseq is not registered (the
 * threshold interrupt held back for a nested instruction is a raw write(2)
 * system call, lwp_session_interrupt()). Re-entrant for signal handlers of
 * the thread (issue 28): below, "Re-entry by signal handlers".
 */
/* Before the headers: their inline helpers are inlined here too. */
#pragma GCC target("general-regs-only")

#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/rseq.h>
#include <sys/uio.h>

#include <lwpt/lwp.h>

#include "model/lwp/lwp_xop.h"
#include "liblwp/lwp_emu.h"
#include "liblwp/lwp_internal.h"
#include "liblwp/lwp_jit.h"


/* The hot path is one function: no call, no spill of the arguments. */
#define FAST_INLINE	static inline __attribute__((always_inline))

/* Only these LWPCB.Flags leave lwp_model_insn_retired() without effect. */
#define FAST_FLAGS	(LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_INT)

static int fast_on = 1;

int lwp_emu_fast_enable(int on)
{
	return __atomic_exchange_n(&fast_on, !!on, __ATOMIC_RELAXED);
}

/* The CPU this thread runs on: glibc's rseq area, as sched_getcpu() reads it. */
FAST_INLINE int cur_cpu(void)
{
	if (__rseq_size >= 8) {
		const struct rseq *rs = (const struct rseq *)(const void *)
			((const char *)__builtin_thread_pointer() + __rseq_offset);
		int cpu = (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED);

		if (cpu >= 0)
			return cpu;
	}
	return sched_getcpu();
}

/* The state every fast case needs (see lwp_emu_fast_lwpins() in lwp_emu.h). */
FAST_INLINE int fast_state(const struct lwp_emu_thread *t)
{
	const struct lwp_model *m = &t->model;

	return __atomic_load_n(&fast_on, __ATOMIC_RELAXED) &&
	       m->cbaddr && m->cbaddr == t->fast_cbaddr && m->xcr0_lwp &&
	       m->cpl == 3 && m->cache_valid && !m->pending.event_id &&
	       !(m->flags & ~FAST_FLAGS) && !(m->filters & LWP_LWPCB_FILTERS_IPF) &&
	       m->head_flush == LWP_MODEL_HEAD_FLUSH_EVERY_STORE;
}

/*
 * ---- Re-entry by signal handlers (issue 28, finding 2) ----------------------
 *
 * A signal handler of this thread may execute LWP instructions while the
 * thread is inside one of them here: the hardware retires instructions
 * whole, so the handler's instruction must take effect entirely before or
 * entirely after the interrupted one, and none may be lost (43724 §5.4).
 * The handler runs to completion before the interrupted code resumes, so
 * the per-thread state needs atomicity against this thread only:
 *
 *  - each change of the model's state is one instruction (a CMPXCHG without
 *    LOCK, or an INC), taken only if nothing changed since it was read,
 *    else the instruction starts again: the head is reserved (advanced)
 *    before the record is written into the reserved slot, so a nested
 *    instruction never writes the same slot;
 *  - BufferHeadOffset is written to the LWPCB (published to the reader)
 *    only by the outermost instruction, after every record up to the head
 *    is written, and again while nested ones completed meanwhile (the
 *    commit loop of Linux's ring_buffer.c, rb_end_commit(), is the same
 *    idea); the model's own head writes and threshold interrupts of a
 *    nested instruction are held back in lwp_emu_thread.defer_* until then
 *    (lwp_emu.c, emu_write(), emu_interrupt());
 *  - the model (slow path) changes the thread's state only by a commit
 *    that a handler finishes before it runs (lwp_emu_roll_forward(), below)
 *    or with every signal blocked (lwp_emu.c); a handler's own slow-path
 *    instruction runs on the model nested.
 * The lock keeps other threads out; its holder on this thread is marked
 * LWP_EMU_LOCK_SELF, so a nested instruction knows it is already held.
 */

/* CMPXCHG without LOCK: atomic against this thread's signal handlers. */
FAST_INLINE bool cas32_here(void *p, uint32_t old, uint32_t val)
{
	bool ok;

	__asm__ __volatile__("cmpxchgl %3, %1"
			     : "=@ccz"(ok), "+m"(*(uint32_t *)p), "+a"(old)
			     : "r"(val) : "memory");
	return ok;
}

FAST_INLINE uint32_t load32(const void *p)
{
	return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
}

/* What judges the outermost frame lost (lwp_emu_frames_dead()). */
FAST_INLINE void pend_frame(struct lwp_emu_thread *t, uintptr_t sp, uintptr_t ra)
{
	t->pend.ra = ra;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->pend.sp = sp;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * Enter the outermost instruction (nothing in flight). @ra: the word at
 * @sp - 8 (pend.ra), or 0 to read it here (the caller's return address or
 * red zone: mapped).
 *
 * pend.sp is never another frame's while this one is in flight: it is
 * written before the in-flight count rises, and every outermost frame
 * clears it when it leaves, so a handler's instruction that ran in between
 * leaves 0 ("entering: live", never judged lost): written again here.
 */
FAST_INLINE void fast_enter(struct lwp_emu_thread *t, struct lwp_emu_frame *fr, uintptr_t sp,
			    uintptr_t ra)
{
	if (!ra)
		ra = *(const uintptr_t *)(sp - sizeof(uintptr_t));
	fr->sp = sp;
	pend_frame(t, sp, ra);
	/* Balanced by every nested frame before we resume: a plain RMW. */
	t->inflight++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&t->pend.sp, __ATOMIC_RELAXED) != sp, 0))
		pend_frame(t, sp, ra);
	fr->locked = lwp_emu_lock_own(t);
	fr->stored = 0;
	fr->nested0 = t->nested;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

_Static_assert(offsetof(struct lwp_emu_thread, inflight) ==
	       offsetof(struct lwp_emu_thread, lock) + 4 &&
	       offsetof(struct lwp_emu_thread, lock_inflight) % 8 == 0 &&
	       LWP_EMU_LOCK_FREE == 0, "lock and inflight: one quadword, 0 = free, none");

FAST_INLINE void pend_phase(struct lwp_emu_thread *t, uint32_t phase)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&t->pend.phase, phase, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * Write BufferHeadOffset of what is loaded (the model's EVERY_STORE flush,
 * §8.3) and what nested instructions held back. Release: the records are
 * visible before the head; pairs with the acquire load in lwp_read().
 */
static __attribute__((noinline)) void fast_irq(struct lwp_emu_thread *t)
{
	struct lwp_session *s = __atomic_exchange_n(&t->defer_irq, NULL, __ATOMIC_ACQ_REL);

	if (s)
		lwp_session_interrupt(s);
}

FAST_INLINE void fast_publish(struct lwp_emu_thread *t)
{
	struct lwp_model *m = &t->model;
	/* The fast path's LWPCB, with the model's EVERY_STORE flush only. */
	uint64_t own = m->cbaddr && m->cbaddr == t->fast_cbaddr &&
		       m->head_flush == LWP_MODEL_HEAD_FLUSH_EVERY_STORE ? m->cbaddr : 0;
	uint64_t cb = t->defer_cb;

	if (t->defer_set && cb && cb != own)
		__atomic_store_n((uint32_t *)(uintptr_t)(cb + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET),
				 t->defer_head, __ATOMIC_RELEASE);
	if (own)
		__atomic_store_n((uint32_t *)(uintptr_t)(own + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET),
				 m->head, __ATOMIC_RELEASE);
	/* §8.5 after the head (§8.3: the head is in memory first). */
	if (__atomic_load_n(&t->defer_irq, __ATOMIC_RELAXED))
		fast_irq(t);
}

/*
 * The word below @sp for pend.ra (fast_enter()) where it may be unmapped
 * (a raw instruction's RSP): 1 if it is (never the word's value then).
 */
static __attribute__((noinline)) uintptr_t slot_word(uintptr_t sp)
{
	uintptr_t ra = 1;

	(void)lwp_emu_peek(&ra, sp - sizeof(ra), sizeof(ra));
	return ra;
}

/*
 * fast_enter() again for the frame at @sp, from fast_leave() (rare: a
 * handler's instruction came in between): returns whether it took the lock.
 */
static __attribute__((noinline)) int fast_reenter(struct lwp_emu_thread *t, uintptr_t sp)
{
	struct lwp_emu_frame fr;

	fast_enter(t, &fr, sp, slot_word(sp));
	return fr.locked;
}

FAST_INLINE void fast_leave(struct lwp_emu_thread *t, struct lwp_emu_frame *fr)
{
	unsigned int seq;

	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (t->inflight > 1) {
		/* Nested: the outermost frame publishes for us. */
		t->nested++;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->inflight--;
	} else {
		for (;;) {
			do {
				seq = t->nested;
				__atomic_signal_fence(__ATOMIC_SEQ_CST);
				if (fr->stored || seq != fr->nested0 || t->defer_set ||
				    t->defer_irq)
					fast_publish(t);
				__atomic_signal_fence(__ATOMIC_SEQ_CST);
			} while (t->nested != seq);
			/*
			 * Out of flight and the lock released in one store:
			 * a jump out of a handler never leaves the lock held
			 * with nothing in flight (nothing would release it).
			 */
			if (fr->locked)
				__atomic_store_n(&t->lock_inflight, 0, __ATOMIC_RELEASE);
			else
				t->inflight = 0;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			/* A frame nested after the check: publish it too. */
			if (t->nested == seq)
				break;
			/* In flight again, as at entry (the lock too). */
			fr->locked = fast_reenter(t, fr->sp);
			fr->stored = 1;
		}
		if (t->defer_set)
			t->defer_set = 0;
		/* No stale frame for an entry this one interrupted (above). */
		t->pend.sp = 0;
		return;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (fr->locked)
		lwp_emu_unlock(t);
}

void lwp_emu_frame_enter(struct lwp_emu_thread *t, struct lwp_emu_frame *fr, uintptr_t sp,
			 int trapped)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	/*
	 * A raw instruction's RSP (SIGILL): the word below it is read directly
	 * where it is on RSP's own page (the word at RSP is on the stack) or
	 * where this handler runs on the same stack below it (the kernel wrote
	 * the signal frame there); else, on an alternate stack, it may be on a
	 * page never mapped: process_vm_readv(2).
	 */
	fast_enter(t, fr, sp, trapped && (sp & 4095) < sizeof(uintptr_t) &&
			      sp - here >= (1u << 20) ? slot_word(sp) : 0);
}

void lwp_emu_frame_leave(struct lwp_emu_thread *t, struct lwp_emu_frame *fr)
{
	fast_leave(t, fr);
}

int lwp_emu_rseq_ok(void)
{
	const struct rseq *rs;

	if (__rseq_size < 16)	/* struct rseq up to rseq_cs */
		return 0;
	/* Registered for this thread (glibc writes -2 where it failed). */
	rs = (const struct rseq *)(const void *)
		((const char *)__builtin_thread_pointer() + __rseq_offset);
	return (int)__atomic_load_n(&rs->cpu_id, __ATOMIC_RELAXED) >= 0;
}

/*
 * The commit of a model copy (lwp_emu.h, lwp_emu_roll_forward()) as a Linux
 * restartable sequence (rseq(2); the kernel's rseq_ip_fixup()): between
 * labels 2 and 3 a preemption, migration or signal delivery moves RIP to
 * the abort handler 8, which starts over at 1. Inside: the copy is
 * dropped (done = -1) if lwp_emu_thread.nested moved since it was taken
 * (a nested instruction changed the model: the owner runs its instruction
 * again), else copied whole with REP MOVSQ. After 3, done and clearing
 * t->commit may be repeated by a signal handler's instruction that found
 * them not yet written: the same values, and no model state. The abort
 * handler is preceded by the signature glibc registered (RSEQ_SIG, as a
 * UD1 instruction's displacement, as librseq lays it out). The store of
 * the descriptor is the last instruction before 2 (a signal before it
 * finds RIP outside and clears the pointer, and the store runs again);
 * it is cleared when done, so no pointer into a dlclose()d liblwp stays.
 */
void lwp_emu_roll_forward(struct lwp_emu_thread *t)
{
	uint64_t *cs = (uint64_t *)(void *)((char *)__builtin_thread_pointer() + __rseq_offset +
					    offsetof(struct rseq, rseq_cs));

	__asm__ __volatile__(
		"1:\n\t"
		"leaq 9f(%%rip), %%rax\n\t"
		"movq %%rax, (%[cs])\n"
		"2:\t"
		"movq %c[o_commit](%[t]), %%rdx\n\t"
		"testq %%rdx, %%rdx\n\t"
		"jz 4f\n\t"
		"cmpl $0, %c[o_done](%%rdx)\n\t"
		"jne 6f\n\t"
		"movl %c[o_nested](%[t]), %%eax\n\t"
		"cmpl %c[o_n0](%%rdx), %%eax\n\t"
		"jne 5f\n\t"
		"movq %c[o_src](%%rdx), %%rsi\n\t"
		"leaq %c[o_model](%[t]), %%rdi\n\t"
		"movl %[words], %%ecx\n\t"
		"rep movsq\n"
		"3:\t"
		"movl $1, %c[o_done](%%rdx)\n\t"
		"jmp 6f\n"
		"5:\t"
		"movl $-1, %c[o_done](%%rdx)\n"
		"6:\t"
		"movq $0, %c[o_commit](%[t])\n\t"
		"jmp 4f\n\t"
		".pushsection .data.rel.ro, \"aw\"\n\t"
		".balign 32\n"
		"9:\t"
		".long 0, 0\n\t"		/* version, flags */
		".quad 2b, 3b - 2b, 8f\n\t"	/* start_ip, post_commit_offset, abort_ip */
		".popsection\n\t"
		".byte 0x0f, 0xb9, 0x3d\n\t"
		".long %c[sig]\n"
		"8:\t"
		"jmp 1b\n"
		"4:\t"
		"movq $0, (%[cs])"		/* no stale pointer into this library */
		:
		: [t] "r"(t), [cs] "r"(cs),
		  [o_commit] "i"(offsetof(struct lwp_emu_thread, commit)),
		  [o_nested] "i"(offsetof(struct lwp_emu_thread, nested)),
		  [o_model] "i"(offsetof(struct lwp_emu_thread, model)),
		  [o_src] "i"(offsetof(struct lwp_emu_commit, src)),
		  [o_n0] "i"(offsetof(struct lwp_emu_commit, n0)),
		  [o_done] "i"(offsetof(struct lwp_emu_commit, done)),
		  [words] "i"(sizeof(struct lwp_model) / 8), [sig] "i"(RSEQ_SIG)
		: "rax", "rcx", "rdx", "rsi", "rdi", "cc", "memory");
}

_Static_assert(sizeof(struct lwp_model) % 8 == 0, "the model is copied in quadwords");

/*
 * Store one record (model: ring_store()) when that is the plain case:
 * CoreId current and, unless the ring is full, the threshold not reached
 * (Table 6-1 Threshold, as the model's space_used() counts it; the model
 * rereads the tail and interrupts). A ring that appears full has its tail
 * reread (§8.3); if it is full, MissedEvents is incremented and the head
 * stays (Table 6-1, §8.3; the record the hardware writes into the free slot
 * is never readable: not written here). The head is published by
 * fast_leave().
 * @mode STORE_CHECK: only tell whether STORE_NOW would take the fast path
 * (LWP_EMU_FAST_DONE) or not, changing nothing. STORE_FORCED (an LWPVAL
 * whose counter is already reloaded, after STORE_CHECK said yes): store
 * even if a nested instruction changed the answer meanwhile (CoreId as
 * the model has it; a threshold reached interrupts from fast_leave()).
 * Returns LWP_EMU_FAST_DONE, LWP_EMU_FAST_DONE_CF (missed), or
 * LWP_EMU_FAST_SLOW with nothing changed (never when STORE_FORCED).
 */
enum store_mode { STORE_NOW, STORE_CHECK, STORE_FORCED };

/* Record quadword 0 (Figures 2-2, 2-8): EventId, CoreId, Flags = imm[15:0], Data1. */
FAST_INLINE uint64_t rec_word0(uint8_t id, uint64_t core, uint32_t flags, uint32_t data1)
{
	return id | core << 8 | (uint64_t)(flags & LWP_EVREC_IMM_MASK) << 16 |
	       (uint64_t)data1 << 32;
}

/*
 * fast_store() on a record already built (@r0: quadword 0 without CoreId,
 * @ip, @d2: Data2 as stored); @core -1: CoreId must be current (else
 * LWP_EMU_FAST_SLOW), as the model has it when forced.
 */
FAST_INLINE int store_rec(struct lwp_emu_thread *t, struct lwp_emu_frame *fr, uint64_t r0,
			  uint64_t ip, uint64_t d2, uint32_t gen, enum store_mode mode)
{
	const bool forced = mode == STORE_FORCED;
	struct lwp_model *m = &t->model;
	struct lwp_emu_pend *p = &t->pend;
	uint8_t *cb = (uint8_t *)(uintptr_t)(forced ? fr->cb : m->cbaddr);
	uint32_t size = m->buffer_size, head, tail, tail0, next;
	uint64_t core, *rec, *missed;
	int cpu, full, thr;

	/* The emulation's LWP_CFG.COREID follows the CPU (lwp_emu.c). */
	cpu = cur_cpu();
	core = cpu < 0 ? 0 : (uint64_t)(cpu & 0xff);
	if (core != (m->lwp_cfg & LWP_CFG_COREID_MASK) >> LWP_CFG_COREID_SHIFT) {
		if (!forced)
			return LWP_EMU_FAST_SLOW;
		core = (m->lwp_cfg & LWP_CFG_COREID_MASK) >> LWP_CFG_COREID_SHIFT;
	}
	r0 |= core << 8;
	for (;;) {
		head = load32(&m->head);
		tail = tail0 = load32(&m->tail);
		next = head + LWP_EVREC_SIZE_V1;
		if (next >= size)
			next = 0;
		/*
		 * §8.3: reread BufferTailOffset when the ring appears full.
		 * Acquire: the reader copied the records before it released
		 * the tail (lwp_read()).
		 */
		if (next == tail)
			tail = __atomic_load_n((uint32_t *)(void *)(cb + LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET),
					       __ATOMIC_ACQUIRE);
		full = next == tail;
		thr = !full && (m->flags & LWP_LWPCB_FLAGS_INT) && (m->lwp_cfg & LWP_CFG_INT) &&
		      ((uint64_t)next + size - tail % size) % size >= m->threshold;
		if (thr && !forced)
			return LWP_EMU_FAST_SLOW;
		if (mode == STORE_CHECK)
			return LWP_EMU_FAST_DONE;
		if (__atomic_load_n(&t->gen, __ATOMIC_RELAXED) != gen) {
			/*
			 * A nested LLWPCB loaded another LWPCB. Unforced: the
			 * model decides. Forced: the record belonged to the
			 * ring no longer loaded; it is counted there as missed
			 * (the one place a record is not stored that the
			 * hardware would have stored; Documentation/liblwp.rst).
			 */
			if (!forced)
				return LWP_EMU_FAST_SLOW;
			missed = (uint64_t *)(void *)(cb + LWP_LWPCB_OFF_MISSED_EVENTS);
			pend_phase(t, LWP_EMU_PH_NONE);
			__asm__ __volatile__("incq %0" : "+m"(*missed) : : "cc", "memory");
			return LWP_EMU_FAST_DONE_CF;
		}
		if (tail != tail0 && !cas32_here(&m->tail, tail0, tail))
			continue;
		if (full) {
			/* Table 6-1 MissedEvents: kept in the LWPCB (§8.3). */
			missed = (uint64_t *)(void *)(cb + LWP_LWPCB_OFF_MISSED_EVENTS);
			if (forced)
				pend_phase(t, LWP_EMU_PH_NONE);
			__asm__ __volatile__("incq %0" : "+m"(*missed) : : "cc", "memory");
			fr->stored = 1;		/* §8.3: head flushed at buffer full */
			return LWP_EMU_FAST_DONE_CF;
		}
		/* Head writes to this LWPCB are held back from here on (one
		 * LWPCB at a time: a held-back head keeps its own). */
		if (!t->defer_set)
			t->defer_cb = (uint64_t)(uintptr_t)cb;
		/*
		 * The record in the thread's state before the slot is
		 * reserved: an instruction never finished is completed from
		 * it ("Instructions never finished", below).
		 */
		p->rec[0] = r0;
		p->rec[1] = ip;
		p->rec[2] = d2;
		p->slot = (uint8_t *)(uintptr_t)(m->buffer_base + head);
		p->head = head;
		p->gen = gen;
		p->cb = (uint64_t)(uintptr_t)cb;
		p->forced = forced;
		pend_phase(t, LWP_EMU_PH_STORE);
		if (cas32_here(&m->head, head, next))
			break;			/* slot @head is ours */
		pend_phase(t, forced ? LWP_EMU_PH_OWED : LWP_EMU_PH_NONE);
	}
	/* Figures 2-2, 2-8: EventId, CoreId, Flags = imm[15:0], Data1, IP, Data2. */
	rec = (uint64_t *)(uintptr_t)(m->buffer_base + head);
	p->slot = (uint8_t *)rec;
	rec[0] = r0;
	rec[1] = ip;
	rec[2] = d2;
	rec[3] = 0;			/* §2: bytes 31-24 reserved, zero */
	pend_phase(t, LWP_EMU_PH_NONE);
	fr->stored = 1;
	if (thr)
		__atomic_store_n(&t->defer_irq, t->session, __ATOMIC_RELAXED);
	return LWP_EMU_FAST_DONE;
}

FAST_INLINE int fast_store(struct lwp_emu_thread *t, struct lwp_emu_frame *fr, uint8_t id,
		      uint64_t data2, uint32_t data1, uint32_t flags, unsigned int opsize,
		      uint64_t ip, uint32_t gen, enum store_mode mode)
{
	return store_rec(t, fr, rec_word0(id, 0, flags, data1), ip,
			 opsize == 32 ? (uint32_t)data2 : data2, gen, mode);
}

/*
 * ---- Instructions never finished (issue 38) --------------------------------
 *
 * A signal handler may leave with siglongjmp() (or longjmp(), or a C++
 * exception through the signal frame, as runtimes do for safepoints and
 * stack guards) while the thread is inside one of its LWP instructions
 * here: that frame never resumes. On hardware the instruction retired
 * whole before the handler ran, or had not started; here it may hold the
 * lock, the in-flight count and half of its effect. So:
 *
 *  - only the outermost instruction of a thread runs without signals
 *    blocked; one entered while another is in flight runs on the model
 *    with every signal blocked (lwp_emu.c, slow_blocked()), atomic, and
 *    tells the outer one what it changed under it (lwp_emu.c,
 *    pend_nested()). At most one instruction per thread is ever half done;
 *  - what that one owes is in the thread's state (lwp_emu_thread.pend):
 *    the record before its slot is reserved (PH_STORE, the head it
 *    expects), the reserved slot (PH_WRITE), an LWPVAL reloading its
 *    counter and the record it then owes (PH_RELOAD, PH_OWED), the
 *    model's copy and log being committed (PH_OPT, lwp_emu.c); never a
 *    pointer to stack memory;
 *  - an entry that finds an instruction in flight decides whether it
 *    interrupted it (a signal handler of this thread: it runs nested, as
 *    above) or whether that frame is gone: the outermost frame's caller
 *    stack pointer (pend.sp) is at or below ours (within
 *    LWP_EMU_SP_SLACK, less than any signal frame), or the alternate
 *    signal stack tells, or the word below that caller stack pointer
 *    (pend.ra: the frame's return address, or the JIT code's red zone)
 *    changed since the entry (lwp_emu_frames_dead()). A handler's entry is
 *    below the frame it interrupted by at least a signal frame; an entry
 *    at the same call site as the lost frame, or above it, cannot be
 *    nested in it; nothing writes a live frame's return address, and the
 *    program's next call from the function the frame was called from does.
 *    pend.sp is written before the in-flight count rises (and after, if
 *    a handler's instruction cleared it), and cleared when the outermost
 *    frame leaves: an entry never runs judged by
 *    the frame of a handler's instruction that interrupted it (0: live);
 *    the lock is released with the in-flight count in one store. A gone
 *    frame is completed (a reserved slot gets its
 *    record, an owed LWPVAL record is stored or missed) or discarded (it
 *    had changed nothing), its deferred head published and its threshold
 *    interrupt raised, the in-flight count and lock released
 *    (lwp_emu_recover()). Accounting stays exact: CF = 0 was returned
 *    only for a stored record, CF = 1 only for a counted miss, and an
 *    instruction never returned is stored, missed or nothing, whole.
 *
 * An entry below a lost frame whose return address is intact (the program
 * jumped higher and calls deeper from there) is taken as nested and runs
 * blocked until an entry at or above the lost frame's depth, the thread's
 * exit, lwp_stop()/lwp_close() on it, or lwp_close() on another thread
 * (lwp_emu.c, "Closing from another thread") completes it
 * (Documentation/liblwp.rst).
 */
#define LWP_EMU_SP_SLACK	512u

/* Raw system calls: general registers only, no libc (async-signal-safe). */
static long raw_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
}

static long raw_syscall4(long nr, long a, long b, long c, long d)
{
	return raw_syscall6(nr, a, b, c, d, 0, 0);
}

static long raw_sigaltstack(stack_t *old)
{
	return raw_syscall4(SYS_sigaltstack, 0, (long)old, 0, 0);
}

/*
 * Copy @len bytes at @addr of this process, or fail (-errno) where nothing
 * is mapped: process_vm_readv(2) on ourselves, never a fault.
 */
pid_t lwp__emu_pid;

long lwp_emu_peek(void *buf, uintptr_t addr, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };
	long pid = __atomic_load_n(&lwp__emu_pid, __ATOMIC_RELAXED);
	long ret;

	if (!pid)
		pid = raw_syscall4(SYS_getpid, 0, 0, 0, 0);
	ret = raw_syscall6(SYS_process_vm_readv, pid, (long)&local, 1, (long)&remote, 1, 0);

	return ret == (long)len ? 0 : ret < 0 ? ret : -EFAULT;
}

/*
 * The word below the outermost frame's caller stack pointer (its return
 * address, or the JIT code's red zone) is not what it was at entry: nothing
 * writes there while that frame is live, so the frame is gone (the program
 * called something else from the frame it jumped to).
 */
static int slot_moved(const struct lwp_emu_thread *t, uintptr_t f)
{
	uintptr_t w;

	return lwp_emu_peek(&w, f - sizeof(w), sizeof(w)) == 0 && w != t->pend.ra;
}

static int frames_gone(const struct lwp_emu_thread *t, uintptr_t sp, uintptr_t slack)
{
	uintptr_t f = __atomic_load_n(&t->pend.sp, __ATOMIC_RELAXED), lo, hi;
	stack_t ss;
	int dead = -1;

	if (sp == LWP_EMU_SP_GONE)
		return 1;
	if (!f)
		return 0;	/* the outermost frame enters or leaves: live */
	if (raw_sigaltstack(&ss) == 0 && !(ss.ss_flags & SS_DISABLE) && ss.ss_size) {
		lo = (uintptr_t)ss.ss_sp;
		hi = lo + ss.ss_size;
		/* On the alternate stack: a handler, maybe in the frame. */
		if (sp - lo < hi - lo && !(f - lo < hi - lo))
			dead = 0;
		/* Off it: every handler running on it has left. */
		else if (!(sp - lo < hi - lo) && f - lo < hi - lo)
			dead = 1;
	}
	if (dead < 0)
		dead = sp + slack >= f;
	return dead || slot_moved(t, f);
}

int lwp_emu_frames_dead(const struct lwp_emu_thread *t, uintptr_t sp)
{
	return frames_gone(t, sp, LWP_EMU_SP_SLACK);
}

int lwp_emu_frames_gone(const struct lwp_emu_thread *t, uintptr_t sp)
{
	return frames_gone(t, sp, 0);
}

void lwp_emu_ho_done(struct lwp_emu_thread *t)
{
	if (!__atomic_load_n(&t->ho_req, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&t->ho_ans, LWP_EMU_HO_SETTLED, __ATOMIC_RELEASE);
	(void)raw_syscall4(SYS_futex, (long)&t->ho_ans, FUTEX_WAKE_PRIVATE, 1, 0);
}

/* Store the record a lost LWPVAL owes (as STORE_FORCED would have). */
static void owed_store(struct lwp_emu_thread *t)
{
	struct lwp_emu_pend *p = &t->pend;
	struct lwp_emu_frame fr = { .cb = p->cb };

	(void)store_rec(t, &fr, p->rec[0] & ~(uint64_t)0xff00, p->rec[1], p->rec[2], p->gen,
			STORE_FORCED);
}

void lwp_emu_recover(struct lwp_emu_thread *t)
{
	struct lwp_emu_pend *p = &t->pend;
	struct lwp_model *m = &t->model;
	uint64_t *rec;
	int done = 1;

	switch (p->phase) {
	case LWP_EMU_PH_STORE:
		/* Reserved iff the head moved from what it expected (a nested
		 * instruction that moved it first reset the phase). */
		if (load32(&m->head) != p->head && p->gen == t->gen)
			goto write;
		if (p->forced && m->interval[LWP_EVENTID_PROGRAMMED_VALUE])
			owed_store(t);
		else
			done = 0;
		break;
	case LWP_EMU_PH_WRITE:
		if (p->gen != t->gen)
			break;
write:
		rec = (uint64_t *)(void *)p->slot;
		rec[0] = p->rec[0];
		rec[1] = p->rec[1];
		rec[2] = p->rec[2];
		rec[3] = 0;
		break;
	case LWP_EMU_PH_RELOAD:
		/*
		 * Reloaded iff the counter left 0 (nested LWPVALs reset the
		 * phase). With EventInterval1 0 the reload changes nothing:
		 * then it did not happen.
		 */
		if (!m->interval[LWP_EVENTID_PROGRAMMED_VALUE] ||
		    !load32(&m->counter[LWP_EVENTID_PROGRAMMED_VALUE])) {
			done = 0;
			break;
		}
		/* fall through */
	case LWP_EMU_PH_OWED:
		if (m->interval[LWP_EVENTID_PROGRAMMED_VALUE])
			owed_store(t);
		else
			done = 0;
		break;
	default:
		done = -1;	/* finished: only left the frame unfinished */
		break;
	}
	if (done >= 0)
		t->recovered[!done]++;
	p->phase = LWP_EMU_PH_NONE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* What the lost frame had to publish, as fast_leave() would. */
	fast_publish(t);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->defer_set = 0;
	t->inflight = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->pend.sp = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->lock, __ATOMIC_RELAXED) == LWP_EMU_LOCK_SELF)
		lwp_emu_unlock(t);
	/* A closer on another thread may wait for it (lwp_emu.c). */
	lwp_emu_ho_done(t);
}

/*
 * Every signal blocked (raw rt_sigprocmask): a recovery never runs twice,
 * from a handler that interrupted it (lwp_emu.c, "Closing from another
 * thread", completes abandoned instructions in its SIGILL handler).
 */
int lwp_emu_settle_fast(struct lwp_emu_thread *t, uintptr_t sp)
{
	uint64_t all = ~0ull, old;
	int done = 1;

	if (!lwp_emu_frames_dead(t, sp) || t->pend.phase == LWP_EMU_PH_OPT)
		return 0;	/* nested, or the model's to finish: slow path */
	if (raw_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, (long)&all, (long)&old, 8))
		return 0;
	/* Settled meanwhile by the SIGILL handler: still as judged else. */
	if (__atomic_load_n(&t->inflight, __ATOMIC_RELAXED)) {
		if (t->pend.phase == LWP_EMU_PH_OPT) {
			done = 0;
		} else {
			/* Left before it took the lock: take it here. */
			if (__atomic_load_n(&t->lock, __ATOMIC_RELAXED) != LWP_EMU_LOCK_SELF)
				lwp_emu_lock_as(t, LWP_EMU_LOCK_SELF);
			lwp_emu_recover(t);
		}
	}
	(void)raw_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, (long)&old, 0, 8);
	return done;
}

FAST_INLINE int fast_lwpins(struct lwp_emu_thread *t, struct lwp_emu_frame *fr, uint64_t data2,
		       uint32_t data1, uint32_t flags, unsigned int opsize, uint64_t ip)
{
	uint32_t gen = __atomic_load_n(&t->gen, __ATOMIC_RELAXED);

	if (!fast_state(t) || (opsize != 32 && opsize != 64))
		return LWP_EMU_FAST_SLOW;
	/* §5.4: CF = 1 iff the record was missed. */
	return fast_store(t, fr, LWP_EVENTID_PROGRAMMED_EVENT, data2, data1, flags,
			  opsize, ip, gen, STORE_NOW);
}

int lwp_emu_fast_lwpins(struct lwp_emu_thread *t, uint64_t data2, uint32_t data1,
			uint32_t flags, unsigned int opsize, uint64_t ip, uintptr_t sp)
{
	struct lwp_emu_frame fr;
	int ret;

	if (__builtin_expect(__atomic_load_n(&t->inflight, __ATOMIC_RELAXED) != 0, 0) &&
	    !lwp_emu_settle_fast(t, sp))
		return LWP_EMU_FAST_SLOW;
	fast_enter(t, &fr, sp, 0);
	ret = fast_lwpins(t, &fr, data2, data1, flags, opsize, ip);
	fast_leave(t, &fr);
	return ret;
}

FAST_INLINE int fast_lwpval(struct lwp_emu_thread *t, struct lwp_emu_frame *fr, uint64_t data2,
		       uint32_t data1, bool data1_reg, uint32_t flags, unsigned int opsize,
		       uint64_t ip)
{
	struct lwp_model *m = &t->model;
	const unsigned int n = LWP_EVENTID_PROGRAMMED_VALUE;
	uint32_t gen;
	int32_t c;

	for (;;) {
		gen = __atomic_load_n(&t->gen, __ATOMIC_RELAXED);
		fr->cb = m->cbaddr;
		if (!fast_state(t) || (opsize != 32 && opsize != 64))
			return LWP_EMU_FAST_SLOW;
		/* §5.3: nothing if the Programmed Value Sample event is off. */
		if (!(m->flags & LWP_LWPCB_FLAGS_VAL))
			return LWP_EMU_FAST_DONE;
		c = (int32_t)load32(&m->counter[n]);
		if (c > 0 && c < (int32_t)LWP_LWPCB_EVENT_FIELD_SIGN) {
			if (cas32_here(&m->counter[n], (uint32_t)c, (uint32_t)(c - 1)))
				return LWP_EMU_FAST_DONE;
			continue;
		}
		/*
		 * The counter goes from 0 to -1: store a record and reload the
		 * counter with EventInterval1 (§1.1 step 5). Random bits draw
		 * from the model's generator, a memory Data1 may fault: the
		 * model's cases.
		 */
		if (c != 0 || !data1_reg || m->random_bits)
			return LWP_EMU_FAST_SLOW;
		if (fast_store(t, fr, LWP_EVENTID_PROGRAMMED_VALUE, data2, data1, flags,
			       opsize, ip, gen, STORE_CHECK) == LWP_EMU_FAST_SLOW)
			return LWP_EMU_FAST_SLOW;
		/*
		 * Reload the counter first (stored or missed alike), then the
		 * record must follow: a nested LWPVAL sees the reloaded
		 * counter, as after this instruction. The record is in the
		 * thread's state before (an instruction never finished owes
		 * it, below).
		 */
		t->pend.rec[0] = rec_word0(LWP_EVENTID_PROGRAMMED_VALUE, 0, flags, data1);
		t->pend.rec[1] = ip;
		t->pend.rec[2] = opsize == 32 ? (uint32_t)data2 : data2;
		t->pend.cb = fr->cb;
		t->pend.gen = gen;
		pend_phase(t, LWP_EMU_PH_RELOAD);
		if (cas32_here(&m->counter[n], 0, (uint32_t)m->interval[n]))
			break;
		pend_phase(t, LWP_EMU_PH_NONE);
	}
	pend_phase(t, LWP_EMU_PH_OWED);
	(void)fast_store(t, fr, LWP_EVENTID_PROGRAMMED_VALUE, data2, data1, flags, opsize,
			 ip, gen, STORE_FORCED);
	return LWP_EMU_FAST_DONE;
}

int lwp_emu_fast_lwpval(struct lwp_emu_thread *t, uint64_t data2, uint32_t data1,
			bool data1_reg, uint32_t flags, unsigned int opsize,
			uint64_t ip, uintptr_t sp)
{
	struct lwp_emu_frame fr;
	int ret;

	if (__builtin_expect(__atomic_load_n(&t->inflight, __ATOMIC_RELAXED) != 0, 0) &&
	    !lwp_emu_settle_fast(t, sp))
		return LWP_EMU_FAST_SLOW;
	fast_enter(t, &fr, sp, 0);
	ret = fast_lwpval(t, &fr, data2, data1, data1_reg, flags, opsize, ip);
	fast_leave(t, &fr);
	return ret;
}

/*
 * The trampoline's fast path (lwp_jit.h): LWPINS with a register Data1,
 * LWPVAL with any Data1 (a memory operand is read only when a record is
 * stored, §5.3, which the fast path does only for a register). Anything
 * else or no model on this thread goes to lwp__jit_slow(), which knows how
 * to answer them. A signal handler's sequence runs here nested like any
 * other instruction.
 */
int lwp__jit_fast(struct lwp_jit_frame *f)
{
	const uint8_t *seq = (const uint8_t *)(uintptr_t)f->ret - LWP_JIT_OFF_RET;
	const struct lwp_jit_desc *d = (const struct lwp_jit_desc *)
		(const void *)(seq + LWP_JIT_OFF_DESC);
	struct lwp_emu_thread *t = lwp__emu_thread;
	uint32_t data1 = (uint32_t)f->gpr[d->data1_reg & 15];
	uint64_t ip;
	int ret;

	if (!t)
		return 1;
	ip = (d->flags & LWP_JIT_DESC_IP) ? d->ip : (uint64_t)(uintptr_t)seq;
	/* The JIT code's RSP: the site of the sequence (slow path, SIGILL alike). */
	if (d->op == LWP_INSN_LWPINS && d->data1_reg < 16)
		ret = lwp_emu_fast_lwpins(t, f->gpr[d->data2_reg & 15], data1, d->imm,
					  d->opsize, ip, (uintptr_t)f->gpr[4]);
	else if (d->op == LWP_INSN_LWPVAL)
		ret = lwp_emu_fast_lwpval(t, f->gpr[d->data2_reg & 15], data1,
					  d->data1_reg < 16, d->imm, d->opsize, ip,
					  (uintptr_t)f->gpr[4]);
	else
		ret = LWP_EMU_FAST_SLOW;
	if (ret == LWP_EMU_FAST_SLOW)
		return 1;
	if (d->op == LWP_INSN_LWPINS) {
		/* §5.4: CF = 1 iff the record was missed. */
		f->rflags &= ~LWP_XOP_RFLAGS_CF;
		if (ret == LWP_EMU_FAST_DONE_CF)
			f->rflags |= LWP_XOP_RFLAGS_CF;
	}
	return 0;
}
