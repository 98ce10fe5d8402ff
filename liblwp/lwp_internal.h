/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * liblwp internals: the session object and the backend entry points.
 */
#ifndef LIBLWP_LWP_INTERNAL_H
#define LIBLWP_LWP_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include <lwpt/lwp.h>

struct lwp_emu_thread;

struct lwp_session {
	struct lwp_config cfg;		/* as validated by lwp_open() */
	struct lwp_caps caps;		/* of the session's backend */
	int backend;			/* LWP_BACKEND_HW or LWP_BACKEND_EMU */

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

/* lwp_emu.c: the emulation backend on model/lwp. */
int lwp_emu_query(struct lwp_caps *caps);
int lwp_emu_open(struct lwp_session *s);
int lwp_emu_start(struct lwp_session *s);
int lwp_emu_stop(struct lwp_session *s);
void lwp_emu_close(struct lwp_session *s);
/* SLWPCB if the calling thread runs LWP on @s's LWPCB (head to memory). */
void lwp_emu_flush(struct lwp_session *s);

/* lwp_hw.c: the /dev/lwp backend. */
int lwp_hw_query(struct lwp_caps *caps);
int lwp_hw_open(struct lwp_session *s);
int lwp_hw_start(struct lwp_session *s);
int lwp_hw_stop(struct lwp_session *s);
void lwp_hw_close(struct lwp_session *s);
/* SLWPCB if the calling thread started @s (head to memory, §8.3). */
void lwp_hw_flush(struct lwp_session *s);

/* lwp_session.c */
int lwp_cpu_supported(void);
/* Decode Fn8000_001C registers (EAX..EDX) into @caps (43724 Table 3-1). */
void lwp_caps_decode(struct lwp_caps *caps, const uint32_t regs[4]);
/* Threshold interrupt of @s (async-signal-safe). */
void lwp_session_interrupt(struct lwp_session *s);

#endif /* LIBLWP_LWP_INTERNAL_H */
