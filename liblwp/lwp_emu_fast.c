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
 * call on the way except sched_getcpu() when rseq is not registered.
 */
#include <sched.h>
#include <sys/rseq.h>

#include <lwpt/lwp.h>

#include "model/lwp/lwp_xop.h"
#include "liblwp/lwp_emu.h"
#include "liblwp/lwp_jit.h"

#pragma GCC target("general-regs-only")

/* Only these LWPCB.Flags leave lwp_model_insn_retired() without effect. */
#define FAST_FLAGS	(LWP_LWPCB_FLAGS_VAL | LWP_LWPCB_FLAGS_INT)

static int fast_on = 1;

int lwp_emu_fast_enable(int on)
{
	return __atomic_exchange_n(&fast_on, !!on, __ATOMIC_RELAXED);
}

/* The CPU this thread runs on: glibc's rseq area, as sched_getcpu() reads it. */
static int cur_cpu(void)
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
static int fast_state(const struct lwp_emu_thread *t)
{
	const struct lwp_model *m = &t->model;

	return __atomic_load_n(&fast_on, __ATOMIC_RELAXED) &&
	       m->cbaddr && m->cbaddr == t->fast_cbaddr && m->xcr0_lwp &&
	       m->cpl == 3 && m->cache_valid && !m->pending.event_id &&
	       !(m->flags & ~FAST_FLAGS) && !(m->filters & LWP_LWPCB_FILTERS_IPF) &&
	       m->head_flush == LWP_MODEL_HEAD_FLUSH_EVERY_STORE;
}

/*
 * Store one record at the head (model: ring_store()) when that is the plain
 * case: CoreId current and, unless the ring is full, the threshold not
 * reached (Table 6-1 Threshold, as the model's space_used() counts it; the
 * model rereads the tail and interrupts). A ring that appears full has its
 * tail reread (§8.3); if it is full, the record overwrites the last slot,
 * MissedEvents is incremented and the head flushed (Table 6-1, §8.3).
 * Returns LWP_EMU_FAST_DONE, LWP_EMU_FAST_DONE_CF (stored over the last
 * record: missed), or LWP_EMU_FAST_SLOW with nothing changed.
 */
static int fast_store(struct lwp_model *m, uint8_t id, uint64_t data2, uint32_t data1,
		      uint32_t flags, unsigned int opsize, uint64_t ip)
{
	uint8_t *cb = (uint8_t *)(uintptr_t)m->cbaddr;
	uint32_t size = m->buffer_size, head = m->head, tail = m->tail, next;
	uint64_t core, *rec, *missed;
	int cpu, full;

	/* The emulation's LWP_CFG.COREID follows the CPU (lwp_emu.c). */
	cpu = cur_cpu();
	core = cpu < 0 ? 0 : (uint64_t)(cpu & 0xff);
	if (core != (m->lwp_cfg & LWP_CFG_COREID_MASK) >> LWP_CFG_COREID_SHIFT)
		return LWP_EMU_FAST_SLOW;
	next = head + LWP_EVREC_SIZE_V1;
	if (next >= size)
		next = 0;
	/*
	 * §8.3: reread BufferTailOffset when the ring appears full. Acquire:
	 * the reader copied the records before it released the tail
	 * (lwp_read()).
	 */
	if (next == tail)
		tail = __atomic_load_n((uint32_t *)(void *)(cb + LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET),
				       __ATOMIC_ACQUIRE);
	full = next == tail;
	if (!full && (m->flags & LWP_LWPCB_FLAGS_INT) && (m->lwp_cfg & LWP_CFG_INT) &&
	    ((uint64_t)next + size - tail % size) % size >= m->threshold)
		return LWP_EMU_FAST_SLOW;

	/* Figures 2-2, 2-8: EventId, CoreId, Flags = imm[15:0], Data1, IP, Data2. */
	rec = (uint64_t *)(uintptr_t)(m->buffer_base + head);
	rec[0] = id | core << 8 | (uint64_t)(flags & LWP_EVREC_IMM_MASK) << 16 |
		 (uint64_t)data1 << 32;
	rec[1] = ip;
	rec[2] = opsize == 32 ? (uint32_t)data2 : data2;
	rec[3] = 0;			/* §2: bytes 31-24 reserved, zero */
	m->tail = tail;
	if (full) {
		/* Table 6-1 MissedEvents: kept in the LWPCB (§8.3). */
		missed = (uint64_t *)(void *)(cb + LWP_LWPCB_OFF_MISSED_EVENTS);
		__atomic_store_n(missed, __atomic_load_n(missed, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
	} else {
		m->head = next;
	}
	/*
	 * §8.3 head flush (the model's EVERY_STORE policy; also at buffer
	 * full). Release: the record is visible before the head; pairs with
	 * the acquire load of BufferHeadOffset in lwp_read().
	 */
	__atomic_store_n((uint32_t *)(void *)(cb + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET),
			 m->head, __ATOMIC_RELEASE);
	return full ? LWP_EMU_FAST_DONE_CF : LWP_EMU_FAST_DONE;
}

int lwp_emu_fast_lwpins(struct lwp_emu_thread *t, uint64_t data2, uint32_t data1,
			uint32_t flags, unsigned int opsize, uint64_t ip)
{
	if (!fast_state(t) || (opsize != 32 && opsize != 64))
		return LWP_EMU_FAST_SLOW;
	/* §5.4: CF = 1 iff the record was missed. */
	return fast_store(&t->model, LWP_EVENTID_PROGRAMMED_EVENT, data2, data1, flags,
			  opsize, ip);
}

int lwp_emu_fast_lwpval(struct lwp_emu_thread *t, uint64_t data2, uint32_t data1,
			bool data1_reg, uint32_t flags, unsigned int opsize, uint64_t ip)
{
	struct lwp_model *m = &t->model;
	const unsigned int n = LWP_EVENTID_PROGRAMMED_VALUE;
	int32_t c;

	if (!fast_state(t) || (opsize != 32 && opsize != 64))
		return LWP_EMU_FAST_SLOW;
	/* §5.3: nothing if the Programmed Value Sample event is off. */
	if (!(m->flags & LWP_LWPCB_FLAGS_VAL))
		return LWP_EMU_FAST_DONE;
	c = m->counter[n];
	if (c > 0 && c < (int32_t)LWP_LWPCB_EVENT_FIELD_SIGN) {
		m->counter[n] = c - 1;
		return LWP_EMU_FAST_DONE;
	}
	/*
	 * The counter goes from 0 to -1: store a record and reload the
	 * counter with EventInterval1 (§1.1 step 5). Random bits draw from
	 * the model's generator, a memory Data1 may fault: the model's cases.
	 */
	if (c != 0 || !data1_reg || m->random_bits)
		return LWP_EMU_FAST_SLOW;
	if (fast_store(m, LWP_EVENTID_PROGRAMMED_VALUE, data2, data1, flags, opsize, ip) ==
	    LWP_EMU_FAST_SLOW)
		return LWP_EMU_FAST_SLOW;
	m->counter[n] = m->interval[n];	/* stored or missed alike */
	return LWP_EMU_FAST_DONE;
}

/*
 * The trampoline's fast path (lwp_jit.h): LWPINS with a register Data1,
 * LWPVAL with any Data1 (a memory operand is read only when a record is
 * stored, §5.3, which the fast path does only for a register). Anything
 * else, a nested
 * call (a signal handler interrupting liblwp) or no model on this thread
 * goes to lwp__jit_slow(), which knows how to answer them.
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

	if (!t || lwp__emu_busy)
		return 1;
	ip = (d->flags & LWP_JIT_DESC_IP) ? d->ip : (uint64_t)(uintptr_t)seq;
	lwp_emu_busy_lock(t);
	if (d->op == LWP_INSN_LWPINS && d->data1_reg < 16)
		ret = lwp_emu_fast_lwpins(t, f->gpr[d->data2_reg & 15], data1, d->imm,
					  d->opsize, ip);
	else if (d->op == LWP_INSN_LWPVAL)
		ret = lwp_emu_fast_lwpval(t, f->gpr[d->data2_reg & 15], data1,
					  d->data1_reg < 16, d->imm, d->opsize, ip);
	else
		ret = LWP_EMU_FAST_SLOW;
	lwp_emu_busy_unlock(t);
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
