/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * liblwp internals: the session object and the backend interface.
 */
#ifndef LIBLWP_LWP_INTERNAL_H
#define LIBLWP_LWP_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>

#include <lwpt/lwp.h>

struct lwp_emu_thread;
struct lwp_backend_ops;

struct lwp_session {
	struct lwp_config cfg;		/* as validated by lwp_open() */
	struct lwp_caps caps;		/* of the session's backend */
	int backend;			/* LWP_BACKEND_HW or LWP_BACKEND_EMU */
	const struct lwp_backend_ops *ops;	/* of that backend */

	/* The LWPCB, alone in its own page (43724 §5.1 alignment advice). */
	uint8_t *lwpcb;
	size_t lwpcb_size;		/* LwpCbSize x 8 bytes */
	size_t lwpcb_map;		/* mapped bytes */
	/* The ring buffer, page aligned (Table 6-1 BufferBase). */
	uint8_t *ring;
	uint32_t ring_size;		/* BufferSize, bytes */
	size_t ring_map;		/* mapped bytes */
	uint32_t event_size;		/* LwpEventSize */
	uint32_t event_offset;		/* LwpEventOffset */
	uint32_t threshold;		/* LWPCB.Threshold, bytes */

	int efd;			/* eventfd: threshold interrupts */
	int irq_pending;		/* atomic: efd was written, not waited */

	/* Emulation: registry links and ownership (under the registry lock). */
	struct lwp_session *next;
	struct lwp_emu_thread *opener;	/* thread lwp_open() made LWP available to */
	struct lwp_emu_thread *starter;	/* other thread lwp_start() made it available to */
	struct lwp_emu_thread *owner;	/* thread whose LWP runs on this LWPCB */

	/* Hardware backend (lwp_hw.c); efd is then the /dev/lwp descriptor. */
	int hw_tid;			/* thread LWP_IOC_ENABLE was done for */
	int hw_started;			/* LLWPCB of this LWPCB done by hw_tid */
};

/*
 * A backend: how LWP is made available to threads and how the LWPCB is loaded
 * (include/lwpt/lwp.h, LWP_BACKEND_*). lwp_session.c calls a backend only
 * through this table; the backends (lwp_emu.c, lwp_hw.c) fill one each and
 * never call the session code. The session object above is the data they
 * share. Every function runs on the calling thread; errors are -errno.
 */
struct lwp_backend_ops {
	int id;				/* LWP_BACKEND_HW or LWP_BACKEND_EMU */
	/* Capabilities (43724 Table 3-1) as lwp_open() would make LWP
	 * available; 0, or -ENODEV if the backend does not exist here. */
	int (*query)(struct lwp_caps *caps);
	/* Make LWP available to the calling thread for @s (its LWPCB and
	 * ring are filled, s->efd is an eventfd the backend may replace). */
	int (*open)(struct lwp_session *s);
	/* LLWPCB of s->lwpcb on the calling thread (§5.1). */
	int (*start)(struct lwp_session *s);
	/* LLWPCB 0 if @s runs on the calling thread (flush, disable). */
	int (*stop)(struct lwp_session *s);
	/* Detach @s from every thread; its memory is freed afterwards unless
	 * the backend cleared s->lwpcb / s->ring (still in use). 0, or
	 * -EBUSY with nothing changed (the session stays open). */
	int (*close)(struct lwp_session *s);
	/* SLWPCB if the calling thread runs LWP on @s (head to memory, §8.3). */
	void (*flush)(struct lwp_session *s);
	/* lwp_jit_encode() emits liblwp's call sequence (lwp_jit.h), not the
	 * raw instruction. */
	int jit_sequence;
};

/* lwp_emu.c: the emulation backend on model/lwp. */
extern const struct lwp_backend_ops lwp_backend_emu;
/* lwp_hw.c: the /dev/lwp backend (lwpt.ko, lwpt_sim.ko). */
extern const struct lwp_backend_ops lwp_backend_hw;

/* lwp_caps.c: CPUID helpers shared by the backends. */
int lwp_cpu_supported(void);
/* Decode Fn8000_001C registers (EAX..EDX) into @caps (43724 Table 3-1). */
void lwp_caps_decode(struct lwp_caps *caps, const uint32_t regs[4]);
/* 1 if the calling thread holds hardware LWP (XCR0[62] or the UD2 marker). */
int lwp_thread_hw_lwp(void);

/*
 * The threshold interrupt of @s (43724 §8.5) as the backend signals it:
 * one eventfd write per wait, not per record (async-signal-safe; the
 * waiter's side is lwp_wait()). The write(2) is a raw system call: the
 * emulation's fast path calls this without saving vector registers.
 */
static inline void lwp_session_interrupt(struct lwp_session *s)
{
	static const uint64_t one = 1;
	long ret;

	if (__atomic_exchange_n(&s->irq_pending, 1, __ATOMIC_ACQ_REL) == 0)
		__asm__ __volatile__("syscall"
				     : "=a"(ret)
				     : "0"((long)SYS_write), "D"((long)s->efd), "S"(&one),
				       "d"(sizeof(one))
				     : "rcx", "r11", "memory");
	(void)ret;
}

#endif /* LIBLWP_LWP_INTERNAL_H */
