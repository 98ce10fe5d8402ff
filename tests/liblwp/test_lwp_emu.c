// SPDX-License-Identifier: GPL-2.0
/*
 * liblwp on the emulation backend: capabilities, configuration errors,
 * wrappers and raw instructions (inline asm, assembled by GNU as), ring
 * full / CF / MissedEvents, intervals, Random, threshold wait, faults of
 * LLWPCB and LWPVAL delivered as the kernel would, threads.
 * Each test names the 43724 section it pins.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <lwpt/lwp.h>
#include "tests/check_run.h"

static struct lwp_session *open_emu(struct lwp_config *cfg)
{
	struct lwp_session *s = NULL;

	cfg->backend = LWP_BACKEND_EMU;
	ck_assert_int_eq(lwp_open(&s, cfg), 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(lwp_session_backend(s), LWP_BACKEND_EMU);
	return s;
}

/* Raw LWPINS as GNU as assembles it (no -mlwp needed by as). */
static int raw_lwpins(uint32_t data2, uint32_t data1)
{
	unsigned char cf;

	__asm__ __volatile__("lwpins $0x4242, %%eax, %%ecx\n\tsetc %0"
			     : "=qm"(cf) : "a"(data1), "c"(data2)
			     : "cc", "memory");
	return cf;
}

/*
 * Raw LWPINS with CF set just before it (STC), in both operand sizes: the
 * instruction traps (SIGILL) and liblwp's handler writes CF into the saved
 * RFLAGS. Returns CF after the instruction, or -1 if the STC did not take.
 */
static int raw_lwpins_stc(uint32_t data2, uint32_t data1)
{
	unsigned char before, cf;

	__asm__ __volatile__("stc\n\tsetc %1\n\t"
			     "lwpins $0x4242, %%eax, %%ecx\n\tsetc %0"
			     : "=q"(cf), "=&q"(before) : "a"(data1), "c"(data2)
			     : "cc", "memory");
	return before ? cf : -1;
}

static int raw_lwpins64_stc(uint64_t data2, uint32_t data1)
{
	unsigned char before, cf;

	__asm__ __volatile__("stc\n\tsetc %1\n\t"
			     "lwpins $0x4242, %%eax, %%rcx\n\tsetc %0"
			     : "=q"(cf), "=&q"(before) : "a"(data1), "c"(data2)
			     : "cc", "memory");
	return before ? cf : -1;
}

/* ---- Capabilities: 43724 §3.3, Table 3-1; issue 7 "honest" ------------- */

START_TEST(test_query_emu_caps)
{
	struct lwp_caps c;

	ck_assert_int_eq(lwp_query_backend(&c, LWP_BACKEND_EMU), 0);
	ck_assert_uint_eq(c.backend, LWP_BACKEND_EMU);
	ck_assert_uint_eq(c.available, 1);
	ck_assert_uint_eq(c.emu_available, 1);
	/* Only what the emulation produces honestly: LWPVAL + threshold. */
	ck_assert_uint_eq(c.available_flags, LWP_FLAG_VAL | LWP_FLAG_INT);
	ck_assert_uint_eq(c.event_size, 32);
	ck_assert_uint_eq(c.version, 1);
	ck_assert_uint_ge(c.lwpcb_size, c.event_offset + 8 * c.max_event_id);
	ck_assert_uint_eq(c.event_offset % 8, 0);
	ck_assert_int_eq(lwp_query(&c), 0);	/* no /dev/lwp here: emu */
	ck_assert_int_eq(lwp_query(NULL), -EINVAL);
	ck_assert_int_eq(lwp_query_backend(&c, 7), -EINVAL);
	ck_assert_str_eq(lwp_backend_name(LWP_BACKEND_EMU), "emu");
	ck_assert_str_eq(lwp_backend_name(99), "?");
}
END_TEST

/* ---- Configuration errors: Table 6-1, Figure 6-2/6-3 ------------------- */

START_TEST(test_open_rejects_bad_config)
{
	struct lwp_config base = LWP_CONFIG_INIT, c;
	struct lwp_session *s = (void *)1;

	base.backend = LWP_BACKEND_EMU;
	ck_assert_int_eq(lwp_open(NULL, &base), -EINVAL);
#define EXPECT(field_change, err) do {					\
		c = base; field_change;					\
		ck_assert_int_eq(lwp_open(&s, &c), err);		\
		ck_assert_ptr_null(s);					\
	} while (0)
	EXPECT(c.size = 4, -EINVAL);
	EXPECT(c.backend = 9, -EINVAL);
	EXPECT(c.backend = LWP_BACKEND_HW, -ENODEV);	/* no /dev/lwp ABI yet */
	EXPECT(c.flags = 1u << 0, -EINVAL);		/* reserved bit 0 */
	EXPECT(c.flags = 1u << 9, -EINVAL);		/* reserved 30:7 */
	EXPECT(c.flags = LWP_FLAG_IRE, -EOPNOTSUPP);	/* not emulated */
	EXPECT(c.flags = LWP_FLAG_DME, -EOPNOTSUPP);
	EXPECT(c.interval[LWP_EVENT_VAL] = -1, -EINVAL);
	EXPECT(c.interval[LWP_EVENT_VAL] = 1 << 25, -EINVAL);	/* 26-bit signed */
	EXPECT(c.counter[LWP_EVENT_VAL] = 1 << 25, -EINVAL);
	EXPECT(c.random_bits = 16, -EINVAL);		/* 4-bit field */
	EXPECT(c.filters = 1u << 13, -EINVAL);		/* reserved 24:13 */
	EXPECT(c.buffer_records = 1, -EINVAL);		/* can never hold one */
	EXPECT(c.buffer_records = 0, -EINVAL);
	EXPECT(c.buffer_records = (1u << 28) / 32, -EINVAL);	/* > 28 bits */
	EXPECT((c.flags |= LWP_FLAG_INT, c.threshold_records = c.buffer_records),
	       -EINVAL);				/* never interrupts */
#undef EXPECT
	c = base;
	c.buffer_records = 2;
	ck_assert_int_eq(lwp_open(&s, &c), 0);
	lwp_close(s);
	lwp_close(NULL);
}
END_TEST

/* ---- LWPCB as liblwp lays it out: §3.3, §5.1, Table 6-1 ---------------- */

START_TEST(test_lwpcb_layout)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct lwp_caps c;
	uint8_t *cb;
	uint32_t v32;
	uint64_t v64;
	size_t size;

	cfg.buffer_records = 100;
	cfg.random_bits = 3;
	cfg.interval[LWP_EVENT_VAL] = 17;
	cfg.counter[LWP_EVENT_VAL] = -5;
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_query_backend(&c, LWP_BACKEND_EMU), 0);
	cb = lwp_lwpcb(s, &size);
	ck_assert_uint_eq(size, c.lwpcb_size);
	ck_assert_uint_eq((uintptr_t)cb % 64, 0);		/* §5.1 advice */
	ck_assert_uint_le((uintptr_t)cb % 4096 + size, 4096);	/* one page */
	memcpy(&v32, cb + LWP_LWPCB_OFF_FLAGS, 4);
	ck_assert_uint_eq(v32, LWP_FLAG_VAL);
	memcpy(&v32, cb + LWP_LWPCB_OFF_BUFFER_SIZE, 4);
	ck_assert_uint_eq(v32 & LWP_LWPCB_BUFFER_SIZE_MASK, 100 * 32);	/* exact */
	ck_assert_uint_eq(v32 >> LWP_LWPCB_RANDOM_SHIFT, 3);
	memcpy(&v64, cb + LWP_LWPCB_OFF_BUFFER_BASE, 8);
	ck_assert_uint_eq(v64 % 4096, 0);			/* page aligned */
	memcpy(&v32, cb + LWP_LWPCB_OFF_EVENT_INTERVAL(c.event_offset, 1), 4);
	ck_assert_uint_eq(v32, 17);
	memcpy(&v32, cb + LWP_LWPCB_OFF_EVENT_COUNTER(c.event_offset, 1), 4);
	ck_assert_uint_eq(v32, (uint32_t)-5 & LWP_LWPCB_EVENT_FIELD_MASK);
	memcpy(&v32, cb + LWP_LWPCB_OFF_THRESHOLD, 4);
	ck_assert_uint_eq(v32, 50 * 32);			/* half, default */
	lwp_close(s);
}
END_TEST

/*
 * ---- §5.4: LWPINS before LLWPCB clears CF and stores nothing -------------
 * On the raw path CF is set (STC) right before the instruction, so a 0
 * after it is the instruction's doing. The wrappers on the emulation do not
 * go through the CPU's flags: they return the model's CF (lwp_emu_lwpins),
 * which must be 0 here.
 */
START_TEST(test_lwpins_not_enabled)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg);
	struct lwp_event ev;

	ck_assert_int_eq(raw_lwpins_stc(1, 2), 0);
	ck_assert_int_eq(raw_lwpins64_stc(0x100000001ull, 2), 0);
	ck_assert_int_eq(lwp_ins32(1, 2, 3), 0);
	ck_assert_int_eq(lwp_ins64(1, 2, 3), 0);
	ck_assert_int_eq(lwp_emu_lwpins(1, 2, 3, 64, 0x1000), 0);
	ck_assert_int_eq(raw_lwpins(1, 2), 0);
	lwp_val32(1, 2, 3);
	ck_assert_ptr_null(lwp_slwpcb());		/* §5.2: 0 if not active */
	ck_assert_int_eq(lwp_pending(s), 0);
	ck_assert_int_eq(lwp_read(s, &ev, 1), 0);
	ck_assert_int_eq(lwp_stop(s), 0);		/* not started: fine */
	/* Enabled, then disabled again: the same. */
	ck_assert_int_eq(lwp_start(s), 0);
	ck_assert_int_eq(raw_lwpins_stc(1, 2), 0);	/* room: CF cleared */
	ck_assert_int_eq(lwp_stop(s), 0);
	ck_assert_int_eq(raw_lwpins_stc(1, 2), 0);
	ck_assert_int_eq(raw_lwpins64_stc(1, 2), 0);
	ck_assert_int_eq(lwp_pending(s), 1);		/* only the enabled one */
	lwp_close(s);
}
END_TEST

/* ---- Figures 2-2, 2-8; §5.3, §5.4 operand sizes -------------------------- */

START_TEST(test_wrapper_records)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg);
	struct lwp_event ev[8];
	int i;

	ck_assert_int_eq(lwp_start(s), 0);
	ck_assert_ptr_eq(lwp_slwpcb(), lwp_lwpcb(s, NULL));
	ck_assert_int_eq(lwp_ins32(0xdeadbeefu, 0x1234, 0x15678), 0);
	ck_assert_int_eq(lwp_ins64(0x8877665544332211ull, 0xffffffffu, 0xffff), 0);
	lwp_val32(0xcafef00du, 7, 0x10001);
	lwp_val64(0x0123456789abcdefull, 8, 2);
	ck_assert_int_eq(raw_lwpins(0x55, 0x66), 0);
	ck_assert_int_eq(lwp_read(s, ev, 8), 5);
	ck_assert_uint_eq(ev[0].event_id, LWP_EVENT_INS);
	ck_assert_uint_eq(ev[0].flags, 0x5678);		/* imm truncated */
	ck_assert_uint_eq(ev[0].data1, 0x1234);
	ck_assert_uint_eq(ev[0].data2, 0xdeadbeefu);	/* zero-extended */
	ck_assert_uint_eq(ev[1].data2, 0x8877665544332211ull);
	ck_assert_uint_eq(ev[1].data1, 0xffffffffu);
	ck_assert_uint_eq(ev[1].flags, 0xffff);
	ck_assert_uint_eq(ev[2].event_id, LWP_EVENT_VAL);
	ck_assert_uint_eq(ev[2].flags, 1);
	ck_assert_uint_eq(ev[2].data1, 7);
	ck_assert_uint_eq(ev[2].data2, 0xcafef00du);
	ck_assert_uint_eq(ev[3].data2, 0x0123456789abcdefull);
	ck_assert_uint_eq(ev[4].flags, 0x4242);
	ck_assert_uint_eq(ev[4].data1, 0x66);
	ck_assert_uint_eq(ev[4].data2, 0x55);
	for (i = 0; i < 5; i++) {
		ck_assert_uint_ne(ev[i].inst_addr, 0);
		ck_assert_uint_eq(ev[i].reserved, 0);		/* §2 */
	}
	ck_assert_int_eq(lwp_stop(s), 0);
	ck_assert_ptr_null(lwp_slwpcb());
	/* After lwp_stop LWP is not enabled: LWPINS stores nothing (§5.4). */
	ck_assert_int_eq(lwp_ins32(1, 1, 1), 0);
	ck_assert_int_eq(lwp_pending(s), 0);
	lwp_close(s);
}
END_TEST

/*
 * Issue 7, "records stay readable after lwp_stop": LLWPCB 0 flushes and
 * disables (§5.1 steps 2-3) but leaves the ring and BufferHeadOffset as
 * they are, so lwp_read() returns every record stored before the stop,
 * oldest first, with its fields; lwp_start() does not reset the ring.
 */
#define NSTOP 10

START_TEST(test_records_readable_after_stop)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct lwp_event ev[2 * NSTOP + 1];
	uint32_t i;

	cfg.buffer_records = 64;
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(s), 0);
	for (i = 0; i < NSTOP; i++)
		ck_assert_int_eq(lwp_ins64(0xa5a5000000000000ull | i, 100 + i, 0x1bee5), 0);
	ck_assert_int_eq(lwp_stop(s), 0);
	ck_assert_ptr_null(lwp_slwpcb());
	ck_assert_int_eq(lwp_ins64(1, 1, 1), 0);	/* not stored */
	ck_assert_int_eq(lwp_pending(s), NSTOP);
	/* Two reads: order holds across calls. */
	ck_assert_int_eq(lwp_read(s, ev, 3), 3);
	ck_assert_int_eq(lwp_read(s, ev + 3, 2 * NSTOP + 1), NSTOP - 3);
	ck_assert_int_eq(lwp_read(s, ev, 1), 0);
	ck_assert_int_eq(lwp_pending(s), 0);
	ck_assert_uint_eq(lwp_missed(s), 0);
	for (i = 0; i < NSTOP; i++) {
		ck_assert_uint_eq(ev[i].event_id, LWP_EVENT_INS);
		ck_assert_uint_eq(ev[i].flags, 0xbee5);		/* imm & 0xffff */
		ck_assert_uint_eq(ev[i].data1, 100 + i);
		ck_assert_uint_eq(ev[i].data2, 0xa5a5000000000000ull | i);
		ck_assert_uint_eq(ev[i].inst_addr, ev[0].inst_addr);	/* one site */
		ck_assert_uint_ne(ev[i].inst_addr, 0);
		ck_assert_uint_eq(ev[i].reserved, 0);
	}

	/* Stored, stopped, restarted, stored, stopped: all of it, in order. */
	ck_assert_int_eq(lwp_start(s), 0);
	for (i = 0; i < NSTOP; i++)
		ck_assert_int_eq(lwp_ins32(i, i, 1), 0);
	ck_assert_int_eq(lwp_stop(s), 0);
	ck_assert_int_eq(lwp_start(s), 0);
	for (i = NSTOP; i < 2 * NSTOP; i++)
		ck_assert_int_eq(lwp_ins32(i, i, 2), 0);
	ck_assert_int_eq(lwp_stop(s), 0);
	ck_assert_int_eq(lwp_read(s, ev, 2 * NSTOP + 1), 2 * NSTOP);
	for (i = 0; i < 2 * NSTOP; i++) {
		ck_assert_uint_eq(ev[i].event_id, LWP_EVENT_INS);
		ck_assert_uint_eq(ev[i].data1, i);
		ck_assert_uint_eq(ev[i].data2, i);
		ck_assert_uint_eq(ev[i].flags, i < NSTOP ? 1 : 2);
	}
	lwp_close(s);
}
END_TEST

/* ---- §5.4, §6 MissedEvents: ring full ------------------------------------ */

START_TEST(test_ring_full_cf_missed)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct lwp_event ev[8];
	uint32_t i;

	cfg.buffer_records = 8;		/* holds 7: head may not reach tail */
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(s), 0);
	for (i = 0; i < 7; i++)
		ck_assert_int_eq(lwp_ins32(i, i, 0), 0);
	ck_assert_uint_eq(lwp_missed(s), 0);
	ck_assert_int_eq(lwp_pending(s), 7);
	/* Full: the last record is overwritten, CF = 1, MissedEvents++. */
	ck_assert_int_eq(lwp_ins32(100, 100, 0), 1);
	ck_assert_int_eq(raw_lwpins(101, 101), 1);
	ck_assert_uint_eq(lwp_missed(s), 2);
	/*
	 * §6 MissedEvents: the record is stored at BufferHeadOffset, which
	 * is then not advanced: the overwritten "last record" is the slot at
	 * the head, outside the readable part; the 7 records read are 0..6.
	 */
	ck_assert_int_eq(lwp_read(s, ev, 8), 7);
	for (i = 0; i < 7; i++)
		ck_assert_uint_eq(ev[i].data1, i);
	/* Drained: room again; the writer rereads the tail (§8.3). */
	ck_assert_int_eq(lwp_ins32(7, 7, 0), 0);
	ck_assert_int_eq(lwp_read(s, ev, 8), 1);
	ck_assert_uint_eq(ev[0].data1, 7);
	lwp_close(s);
}
END_TEST

/* ---- §6 EventInterval1/EventCounter1, §5.1 step 7 ------------------------ */

START_TEST(test_lwpval_interval_counter)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct lwp_event ev[64];
	ssize_t n;
	int i;

	cfg.buffer_records = 64;
	cfg.interval[LWP_EVENT_VAL] = 4;	/* a record every 5 LWPVALs */
	cfg.counter[LWP_EVENT_VAL] = 1;		/* first after 2 */
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(s), 0);
	for (i = 0; i < 22; i++)
		lwp_val32(0, (uint32_t)i, 0);
	n = lwp_read(s, ev, 64);
	ck_assert_int_eq(n, 5);
	ck_assert_uint_eq(ev[0].data1, 1);
	for (i = 1; i < n; i++)
		ck_assert_uint_eq(ev[i].data1, ev[i - 1].data1 + 5);
	lwp_close(s);
}
END_TEST

/* ---- §6 Random: the bottom Random bits of each reload are random --------- */

START_TEST(test_random_bits)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct lwp_event *ev;
	uint32_t gaps[64] = { 0 }, distinct = 0;
	ssize_t n, i;

	ev = calloc(4096, sizeof(*ev));
	cfg.buffer_records = 4096;
	cfg.interval[LWP_EVENT_VAL] = 0x100;
	cfg.random_bits = 4;
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(s), 0);
	for (i = 0; i < 200000; i++)
		lwp_val32(0, (uint32_t)i, 0);
	n = lwp_read(s, ev, 4096);
	ck_assert_int_gt(n, 500);
	for (i = 2; i < n; i++) {
		uint32_t gap = ev[i].data1 - ev[i - 1].data1;

		/* Reload 0x10r, r random in 0..15: n+1 LWPVALs apart. */
		ck_assert_msg(gap >= 0x101 && gap <= 0x110, "gap %#x", gap);
		gaps[gap - 0x101]++;
	}
	for (i = 0; i < 16; i++)
		distinct += gaps[i] != 0;
	ck_assert_uint_ge(distinct, 12);
	lwp_close(s);
	free(ev);
}
END_TEST

/* ---- §6 Threshold, §8.5: the threshold interrupt and lwp_wait ------------ */

START_TEST(test_threshold_wait)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct lwp_event ev[16];
	uint32_t i;

	cfg.buffer_records = 16;
	cfg.threshold_records = 4;
	cfg.flags |= LWP_FLAG_INT;
	s = open_emu(&cfg);
	ck_assert_int_ge(lwp_wait_fd(s), 0);
	ck_assert_int_eq(lwp_start(s), 0);
	ck_assert_int_eq(lwp_wait(s, 0), 0);
	lwp_ins32(0, 0, 0);
	lwp_ins32(0, 1, 0);
	lwp_ins32(0, 2, 0);
	ck_assert_int_eq(lwp_wait(s, 20), 0);	/* 3 < 4: timeout */
	lwp_ins32(0, 3, 0);			/* space used == Threshold */
	ck_assert_int_eq(lwp_wait(s, 60000), 1);	/* returns when ready */
	ck_assert_int_eq(lwp_wait(s, 0), 0);	/* consumed */
	ck_assert_int_eq(lwp_read(s, ev, 16), 4);
	lwp_ins32(0, 4, 0);
	ck_assert_int_eq(lwp_wait(s, 0), 0);
	lwp_close(s);

	/*
	 * Issue 19: a reader that drains with lwp_read() is not woken for the
	 * records it already has, however long it waits; records stored after
	 * the drain wake it again.
	 */
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(s), 0);
	for (i = 0; i < 8; i++)
		lwp_ins32(0, i, 0);		/* threshold 4 crossed */
	ck_assert_int_eq(lwp_read(s, ev, 16), 8);
	ck_assert_int_eq(lwp_wait(s, 0), 0);
	ck_assert_int_eq(lwp_wait(s, 30), 0);
	for (i = 0; i < 4; i++)
		lwp_ins32(0, i, 0);
	ck_assert_int_eq(lwp_wait(s, 1000), 1);
	ck_assert_int_eq(lwp_pending(s), 4);
	ck_assert_int_eq(lwp_read(s, ev, 2), 2);	/* partial: 2 stay */
	for (i = 0; i < 4; i++)
		lwp_ins32(0, i, 0);
	ck_assert_int_eq(lwp_wait(s, 1000), 1);	/* 6 records unread */
	ck_assert_int_eq(lwp_read(s, ev, 16), 6);
	ck_assert_int_eq(lwp_wait(s, 0), 0);
	lwp_close(s);

	cfg.flags = LWP_FLAG_VAL;		/* no INT: nothing to wait for */
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_wait(s, 0), -ENOTSUP);
	ck_assert_int_eq(lwp_wait_fd(s), -ENOTSUP);
	lwp_close(s);
}
END_TEST

/* ---- Faults: delivered as Linux delivers #PF / #GP ----------------------- */

static sigjmp_buf jb;
static volatile siginfo_t got_si;
static volatile uint64_t got_rip, got_rcx;

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;

	(void)sig;
	got_si = *si;
	got_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	got_rcx = (uint64_t)uc->uc_mcontext.gregs[REG_RCX];
	siglongjmp(jb, 1);
}

static void catch_signal(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	ck_assert_int_eq(sigaction(sig, &sa, NULL), 0);
}

static void *bad_page(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

/* §5.3: "If the counter is not negative ... that location is not accessed." */
START_TEST(test_lwpval_mem_read_only_when_stored)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	uint8_t *bad = bad_page();

	cfg.interval[LWP_EVENT_VAL] = 1;
	cfg.counter[LWP_EVENT_VAL] = 1;
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(s), 0);
	catch_signal(SIGSEGV);
	if (sigsetjmp(jb, 1) == 0) {
		/* Counter 1 -> 0: no record, the operand is not read. */
		__asm__ __volatile__("lea 1f(%%rip), %%rcx\n1:\t"
				     "lwpval $1, (%%rax), %%edx"
				     : : "a"(bad + 16), "d"(0) : "rcx", "memory");
		/* Counter 0 -> -1: a record, the read faults (#PF). */
		__asm__ __volatile__("lea 1f(%%rip), %%rcx\n1:\t"
				     "lwpval $1, (%%rax), %%edx"
				     : : "a"(bad + 16), "d"(0) : "rcx", "memory");
		ck_abort_msg("no SIGSEGV for an unreadable LWPVAL operand");
	}
	ck_assert_int_eq(got_si.si_signo, SIGSEGV);
	ck_assert_int_eq(got_si.si_code, SEGV_ACCERR);	/* mapped, PROT_NONE */
	ck_assert_ptr_eq(got_si.si_addr, bad + 16);
	ck_assert_uint_eq(got_rip, got_rcx);	/* at the instruction: restartable */
	ck_assert_int_eq(lwp_pending(s), 0);	/* the fault left no trace */
	lwp_close(s);
}
END_TEST

/* §5.1: an invalid LWPCB pointer -> #PF, LWP left disabled. */
START_TEST(test_llwpcb_bad_pointer)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg);
	uint8_t *bad = bad_page();

	munmap(bad, 4096);			/* unmapped now */
	catch_signal(SIGSEGV);
	if (sigsetjmp(jb, 1) == 0) {
		__asm__ __volatile__("lea 1f(%%rip), %%rcx\n1:\tllwpcb %%rax"
				     : : "a"(bad) : "rcx", "memory");
		ck_abort_msg("no SIGSEGV for LLWPCB of an unmapped LWPCB");
	}
	ck_assert_int_eq(got_si.si_code, SEGV_MAPERR);
	ck_assert_ptr_eq(got_si.si_addr, bad);
	ck_assert_uint_eq(got_rip, got_rcx);
	ck_assert_ptr_null(lwp_slwpcb());

	if (sigsetjmp(jb, 1) == 0) {
		lwp_llwpcb(bad);		/* the wrapper, direct path */
		ck_abort_msg("no SIGSEGV from lwp_llwpcb(bad)");
	}
	ck_assert_ptr_eq(got_si.si_addr, bad);
	ck_assert_ptr_null(lwp_slwpcb());
	ck_assert_int_eq(lwp_start(s), 0);	/* the session still works */
	ck_assert_int_eq(lwp_ins32(1, 2, 3), 0);
	ck_assert_int_eq(lwp_pending(s), 1);
	lwp_close(s);
}
END_TEST

/* §5.1 step 4: a ring below the minimum -> #GP (SIGSEGV, SI_KERNEL). */
START_TEST(test_llwpcb_gp)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg);
	uint8_t *cb = aligned_alloc(64, 4096);

	memset(cb, 0, 4096);			/* BufferSize 0 */
	catch_signal(SIGSEGV);
	if (sigsetjmp(jb, 1) == 0) {
		__asm__ __volatile__("llwpcb %%rax" : : "a"(cb) : "memory");
		ck_abort_msg("no SIGSEGV for LLWPCB with BufferSize 0");
	}
	ck_assert_int_eq(got_si.si_code, SI_KERNEL);
	ck_assert_ptr_null(lwp_slwpcb());
	free(cb);
	lwp_close(s);
}
END_TEST

/* A program-built LWPCB (not liblwp's) works through the guarded path. */
START_TEST(test_program_lwpcb)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg);
	struct lwp_caps c;
	uint8_t *cb = aligned_alloc(64, 4096);
	uint8_t *ring = aligned_alloc(4096, 4096);
	uint32_t v;
	uint64_t base = (uint64_t)(uintptr_t)ring;

	ck_assert_int_eq(lwp_query_backend(&c, LWP_BACKEND_EMU), 0);
	memset(cb, 0, 4096);
	memset(ring, 0, 4096);
	v = LWP_FLAG_VAL;
	memcpy(cb + LWP_LWPCB_OFF_FLAGS, &v, 4);
	v = 4096;
	memcpy(cb + LWP_LWPCB_OFF_BUFFER_SIZE, &v, 4);
	memcpy(cb + LWP_LWPCB_OFF_BUFFER_BASE, &base, 8);
	__asm__ __volatile__("llwpcb %%rax" : : "a"(cb) : "memory");
	ck_assert_ptr_eq(lwp_slwpcb(), cb);
	ck_assert_int_eq(raw_lwpins(9, 8), 0);
	/* §8.3: the head may stay in the unit (LIBLWP_LWP_LAZY_HEAD=1). */
	ck_assert_ptr_eq(lwp_slwpcb(), cb);
	memcpy(&v, cb + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET, 4);
	ck_assert_uint_eq(v, 32);
	ck_assert_uint_eq(ring[0], LWP_EVENT_INS);
	ck_assert_uint_eq(ring[4], 8);
	__asm__ __volatile__("llwpcb %%rax" : : "a"(0) : "memory");
	ck_assert_ptr_null(lwp_slwpcb());
	lwp_close(s);
	free(cb);
	free(ring);
}
END_TEST

/* ---- Threads: §1.1 polling model, per-thread LWP state ------------------- */

static void *read_other(void *p)
{
	struct lwp_event ev[8];

	return (void *)(intptr_t)lwp_read(p, ev, 8);
}

static ssize_t read_on_other_thread(struct lwp_session *s)
{
	pthread_t th;
	void *r;

	ck_assert_int_eq(pthread_create(&th, NULL, read_other, s), 0);
	ck_assert_int_eq(pthread_join(th, &r), 0);
	return (ssize_t)(intptr_t)r;
}

/*
 * §8.3 with a lazily written head (LIBLWP_LWP_LAZY_HEAD=1, issue 14 §2.2):
 * another thread reads what the unit flushed; the owner reads everything
 * (lwp_read()/lwp_pending() execute SLWPCB first); after lwp_stop()
 * everything is readable from any thread. Documentation/liblwp.rst.
 */
START_TEST(test_lazy_head_readers)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;

	setenv("LIBLWP_LWP_LAZY_HEAD", "1", 1);	/* before this thread's first use */
	cfg.buffer_records = 64;
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(s), 0);
	lwp_ins32(0, 1, 0);
	lwp_ins32(0, 2, 0);
	ck_assert_int_eq(read_on_other_thread(s), 0);	/* not flushed yet */
	ck_assert_int_eq(lwp_pending(s), 2);		/* owner: SLWPCB */
	ck_assert_int_eq(read_on_other_thread(s), 2);
	lwp_ins32(0, 3, 0);
	ck_assert_int_eq(lwp_stop(s), 0);		/* LLWPCB 0 flushes */
	ck_assert_int_eq(read_on_other_thread(s), 1);
	lwp_close(s);
	unsetenv("LIBLWP_LWP_LAZY_HEAD");
}
END_TEST

#define NREC 200000

struct drain_arg {
	struct lwp_session *s;
	volatile int done;
	uint64_t got, bad_order;
};

static void *drainer(void *p)
{
	struct drain_arg *a = p;
	struct lwp_event ev[64];
	uint32_t last = 0;
	int first = 1;
	ssize_t n, i;

	for (;;) {
		int fin = a->done;

		n = lwp_read(a->s, ev, 64);
		for (i = 0; i < n; i++) {
			if (!first && ev[i].data1 <= last)
				a->bad_order++;
			last = ev[i].data1;
			first = 0;
		}
		a->got += (uint64_t)n;
		if (fin && n == 0)
			break;
	}
	return NULL;
}

START_TEST(test_drain_from_other_thread)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct drain_arg a = { 0 };
	pthread_t th;
	uint32_t i;

	cfg.buffer_records = 64;
	a.s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(a.s), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, drainer, &a), 0);
	for (i = 0; i < NREC; i++)
		lwp_ins32(0, i, 0);
	/*
	 * Another thread sees what the unit wrote back: with a lazily written
	 * head (LIBLWP_LWP_LAZY_HEAD=1, 43724 §8.3) the last records only once
	 * the owner's LLWPCB 0 flushes it (Documentation/liblwp.rst, where it
	 * says what a reader on another thread reads "at once").
	 */
	ck_assert_int_eq(lwp_stop(a.s), 0);
	__atomic_store_n(&a.done, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	/* Every record is read once, in order, or counted as missed; a
	 * missed record overwrites the last one (so order still holds). */
	ck_assert_uint_eq(a.bad_order, 0);
	ck_assert_uint_eq(a.got + lwp_missed(a.s), NREC);
	lwp_close(a.s);
}
END_TEST

static void *try_stop(void *p)
{
	struct lwp_session *s = p;

	return (void *)(intptr_t)(lwp_stop(s) * 1000 + lwp_start(s));
}

START_TEST(test_owner_thread_rules)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg);
	pthread_t th;
	void *ret;

	ck_assert_int_eq(lwp_start(s), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, try_stop, s), 0);
	ck_assert_int_eq(pthread_join(th, &ret), 0);
	/* lwp_stop by a non-owner: -EPERM; lwp_start there: -EBUSY. */
	ck_assert_int_eq((intptr_t)ret, -EPERM * 1000 - EBUSY);
	ck_assert_int_eq(lwp_ins32(0, 1, 0), 0);
	ck_assert_int_eq(lwp_pending(s), 1);
	ck_assert_int_eq(lwp_stop(s), 0);
	lwp_close(s);
}
END_TEST

static void *raw_in_thread(void *p)
{
	(void)p;
	catch_signal(SIGILL);
	if (sigsetjmp(jb, 1) == 0) {
		raw_lwpins(1, 2);
		return (void *)0;
	}
	return (void *)(intptr_t)got_si.si_signo;
}

/* §5: #UD when LWP is not available - on threads that did not open it. */
START_TEST(test_sigill_on_other_thread)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	pthread_t th;
	void *ret;

	catch_signal(SIGILL);			/* chained by liblwp */
	s = open_emu(&cfg);
	ck_assert_int_eq(lwp_start(s), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, raw_in_thread, NULL), 0);
	ck_assert_int_eq(pthread_join(th, &ret), 0);
	ck_assert_int_eq((intptr_t)ret, SIGILL);
	lwp_close(s);
	/* After the last lwp_close the thread has no LWP either. */
	ck_assert_ptr_eq(raw_in_thread(NULL), (void *)(intptr_t)SIGILL);
}
END_TEST

static void *start_and_exit(void *p)
{
	struct lwp_session *s = p;

	/*
	 * lwp_pending() on the owner flushes a lazy head (SLWPCB): the exit
	 * zeroes LWP_CBADDR without a flush (§8.7.2), Documentation/liblwp.rst.
	 */
	return (void *)(intptr_t)(lwp_start(s) == 0 && lwp_ins32(0, 42, 0) == 0 &&
				  lwp_pending(s) == 1);
}

/* §8.7.2: a thread that exits has LWP_CBADDR zeroed; records stay. */
START_TEST(test_thread_exit_while_enabled)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg);
	struct lwp_event ev;
	pthread_t th;
	void *ret;

	ck_assert_int_eq(pthread_create(&th, NULL, start_and_exit, s), 0);
	ck_assert_int_eq(pthread_join(th, &ret), 0);
	ck_assert_int_eq((intptr_t)ret, 1);
	ck_assert_int_eq(lwp_read(s, &ev, 1), 1);
	ck_assert_uint_eq(ev.data1, 42);
	ck_assert_int_eq(lwp_start(s), 0);	/* the owner is gone: reusable */
	lwp_close(s);
}
END_TEST

static void *close_other(void *p)
{
	lwp_close(p);
	return NULL;
}

/* lwp_close from another thread stops the owner's LWP (as LWP_CBADDR := 0). */
START_TEST(test_close_from_other_thread)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg), *s2 = open_emu(&cfg);
	pthread_t th;

	ck_assert_int_eq(lwp_start(s), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, close_other, s), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_ptr_null(lwp_slwpcb());
	ck_assert_int_eq(lwp_ins32(0, 1, 0), 0);	/* disabled, harmless */
	lwp_close(s2);
}
END_TEST

/* §8.7.2: a forked child starts with LWP off; it may start it again. */
START_TEST(test_fork_child_lwp_off)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s = open_emu(&cfg);
	int status;
	pid_t pid;

	ck_assert_int_eq(lwp_start(s), 0);
	ck_assert_int_eq(lwp_ins32(0, 1, 0), 0);
	ck_assert_int_eq(lwp_pending(s), 1);	/* owner: flushes a lazy head */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int ok = lwp_slwpcb() == NULL &&
			 lwp_ins32(0, 2, 0) == 0 && lwp_pending(s) == 1 &&
			 lwp_start(s) == 0 && lwp_ins32(0, 3, 0) == 0 &&
			 lwp_pending(s) == 2;

		lwp_close(s);
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The parent's LWP went on, into its own ring. */
	ck_assert_int_eq(lwp_ins32(0, 4, 0), 0);
	ck_assert_int_eq(lwp_pending(s), 2);
	lwp_close(s);
}
END_TEST

/* Figures 2-4 and 2-5: flag bits 28..31 of the first doubleword. */
START_TEST(test_event_accessors)
{
	struct lwp_event e;
	uint32_t dword0;

	memset(&e, 0, sizeof(e));
	dword0 = 3u | (1u << 28) | (1u << 31);		/* BRE, FUS, TKN */
	memcpy(&e, &dword0, 4);
	e.data2 = 0x401000;
	ck_assert_int_eq(lwp_event_fus(&e), 1);
	ck_assert_int_eq(lwp_event_prv(&e), 0);
	ck_assert_int_eq(lwp_event_prd(&e), 0);
	ck_assert_int_eq(lwp_event_tkn(&e), 1);
	ck_assert_uint_eq(lwp_event_target(&e), 0x401000);
	dword0 = 3u | (1u << 29) | (1u << 30);		/* PRV, PRD */
	memcpy(&e, &dword0, 4);
	ck_assert_int_eq(lwp_event_prv(&e), 1);
	ck_assert_int_eq(lwp_event_prd(&e), 1);
	ck_assert_int_eq(lwp_event_fus(&e), 0);
	dword0 = 4u | (1u << 28) | (3u << 29);		/* DME, DAV, SRC=DRAM */
	memcpy(&e, &dword0, 4);
	e.data1 = 320;
	e.data2 = 0x7000;
	ck_assert_int_eq(lwp_event_dav(&e), 1);
	ck_assert_uint_eq(lwp_event_src(&e), 3);
	ck_assert_uint_eq(lwp_event_latency(&e), 320);
	ck_assert_uint_eq(lwp_event_data_addr(&e), 0x7000);
	dword0 = 255u | (0xbeefu << 16);
	memcpy(&e, &dword0, 4);
	ck_assert_uint_eq(e.event_id, 255);
	ck_assert_uint_eq(lwp_event_imm(&e), 0xbeef);
}
END_TEST

START_TEST(test_null_arguments)
{
	struct lwp_event ev;

	ck_assert_int_eq(lwp_start(NULL), -EINVAL);
	ck_assert_int_eq(lwp_stop(NULL), -EINVAL);
	ck_assert_int_eq(lwp_read(NULL, &ev, 1), -EINVAL);
	ck_assert_int_eq(lwp_pending(NULL), -EINVAL);
	ck_assert_int_eq(lwp_wait(NULL, 0), -EINVAL);
	ck_assert_uint_eq(lwp_missed(NULL), 0);
	ck_assert_ptr_null(lwp_lwpcb(NULL, NULL));
	ck_assert_int_eq(lwp_session_backend(NULL), -EINVAL);
}
END_TEST

/*
 * ---- SIGILL blocked (issue 38, item 2) --------------------------------------
 * A raw LWP instruction reaches the emulation as the kernel's forced SIGILL;
 * where SIGILL is blocked (a handler installed with sigfillset(&sa_mask))
 * the kernel resets it to the default action and the process dies
 * (Documentation/liblwp.rst, "SIGILL must be deliverable"). The wrappers
 * and lwp_jit_encode()'s call sequences work there. lwp_open() says once on
 * stderr what it can see: the calling thread's mask and the handlers
 * installed at that moment. Each case runs in a child whose stderr is a pipe.
 */
static int masked_done;

static void on_usr1_masked(int sig)
{
	(void)sig;
	masked_done = 1 + raw_lwpins(2, 1);
}

static uint8_t *masked_seq;

static void on_usr1_masked_seq(int sig)
{
	uint32_t a = 1;

	(void)sig;
	/* JIT call sequence: LWPINS EAX, EDX; the call's push below the red zone. */
	__asm__ __volatile__("sub $128, %%rsp\n\tcall *%1\n\tadd $128, %%rsp"
			     : "+a"(a) : "r"(masked_seq), "d"(2)
			     : "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11", "cc", "memory");
	masked_done = 1 + (int)a;
	masked_done += 2 * lwp_ins32(3, 4, 5);	/* the wrapper too */
}

/* Run @fn in a child with stderr into a pipe; its output in @buf, status returned. */
static int child_stderr(void (*fn)(void), char *buf, size_t size)
{
	int fd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		fn();
		_exit(0);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = 0;
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

static void count_lines(const char *buf, const char *what, int *n)
{
	const char *p;

	for (*n = 0, p = buf; (p = strstr(p, what)); p++)
		(*n)++;
}

static void sigill_blocked_child(void)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s1, *s2;
	sigset_t ill;

	sigemptyset(&ill);
	sigaddset(&ill, SIGILL);
	pthread_sigmask(SIG_BLOCK, &ill, NULL);
	cfg.backend = LWP_BACKEND_EMU;
	if (lwp_open(&s1, &cfg) || lwp_open(&s2, &cfg))
		_exit(2);
	lwp_close(s2);
	lwp_close(s1);
}

START_TEST(test_sigill_blocked_said_once)
{
	char buf[4096];
	int st, n;

	st = child_stderr(sigill_blocked_child, buf, sizeof(buf));
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	count_lines(buf, "liblwp: SIGILL is blocked on thread", &n);
	ck_assert_msg(n == 1, "stderr: %s", buf);
}
END_TEST

static void handler_mask_child(void)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1_masked;
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	cfg.backend = LWP_BACKEND_EMU;
	if (lwp_open(&s, &cfg))
		_exit(2);
	lwp_close(s);
}

START_TEST(test_sigill_handler_mask_said)
{
	char buf[4096], want[64];
	int st, n;

	st = child_stderr(handler_mask_child, buf, sizeof(buf));
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	snprintf(want, sizeof(want), "the handler of signal %d blocks SIGILL", SIGUSR1);
	count_lines(buf, want, &n);
	ck_assert_msg(n == 1, "stderr: %s", buf);
	count_lines(buf, "SIGILL is blocked on thread", &n);
	ck_assert_int_eq(n, 0);
}
END_TEST

/* Nothing said when nothing blocks SIGILL. */
static void quiet_child(void)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;

	cfg.backend = LWP_BACKEND_EMU;
	if (lwp_open(&s, &cfg))
		_exit(2);
	lwp_close(s);
}

START_TEST(test_sigill_quiet)
{
	char buf[4096];
	int st;

	st = child_stderr(quiet_child, buf, sizeof(buf));
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_msg(strstr(buf, "liblwp:") == NULL, "stderr: %s", buf);
}
END_TEST

/* In a handler that blocks SIGILL: call sequence and wrapper store, raw kills. */
static void masked_handler_child(int raw)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_insn insn = {
		.op = LWP_INSN_LWPINS, .opsize = 32, .reg = LWP_REG_RDX, .rm = LWP_REG_RAX,
		.mem = { .base = LWP_REG_NONE, .index = LWP_REG_NONE, .scale = 1 },
		.imm = 7,
	};
	static const uint8_t tail[] = { 0x0f, 0x92, 0xc0, 0x0f, 0xb6, 0xc0, 0xc3 };
	struct lwp_session *s;
	struct sigaction sa;
	int len;

	cfg.backend = LWP_BACKEND_EMU;
	if (lwp_open(&s, &cfg) || lwp_start(s))
		_exit(2);
	masked_seq = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (masked_seq == MAP_FAILED)
		_exit(3);
	len = lwp_jit_encode(s, &insn, NULL, masked_seq, LWP_JIT_MAX_LEN);
	if (len <= 0)
		_exit(4);
	memcpy(masked_seq + len, tail, sizeof(tail));
	if (mprotect(masked_seq, 4096, PROT_READ | PROT_EXEC))
		_exit(5);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = raw ? on_usr1_masked : on_usr1_masked_seq;
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	/* Sequence and wrapper: both stored (CF = 0), two records. */
	if (masked_done != 1 || lwp_pending(s) != 2)
		_exit(6);
	_exit(0);
}

static void masked_seq_child(void)
{
	masked_handler_child(0);
}

static void masked_raw_child(void)
{
	masked_handler_child(1);
}

START_TEST(test_sigill_masked_handler)
{
	char buf[4096];
	int st;

	st = child_stderr(masked_seq_child, buf, sizeof(buf));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	/* The documented limit: a raw instruction there is a fatal SIGILL. */
	st = child_stderr(masked_raw_child, buf, sizeof(buf));
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGILL, "status %#x", st);
}
END_TEST

static Suite *emu_suite(void)
{
	Suite *s = suite_create("lwp_emu");
	TCase *api = tcase_create("api");
	TCase *rec = tcase_create("records");
	TCase *flt = tcase_create("faults");
	TCase *thr = tcase_create("threads");

	tcase_add_test(api, test_query_emu_caps);
	tcase_add_test(api, test_open_rejects_bad_config);
	tcase_add_test(api, test_lwpcb_layout);
	tcase_add_test(api, test_null_arguments);
	tcase_add_test(api, test_event_accessors);
	tcase_add_test(rec, test_lwpins_not_enabled);
	tcase_add_test(rec, test_wrapper_records);
	tcase_add_test(rec, test_records_readable_after_stop);
	tcase_add_test(rec, test_ring_full_cf_missed);
	tcase_add_test(rec, test_lwpval_interval_counter);
	tcase_add_test(rec, test_random_bits);
	tcase_add_test(rec, test_threshold_wait);
	tcase_add_test(rec, test_program_lwpcb);
	tcase_add_test(flt, test_lwpval_mem_read_only_when_stored);
	tcase_add_test(flt, test_llwpcb_bad_pointer);
	tcase_add_test(flt, test_llwpcb_gp);
	tcase_add_test(flt, test_sigill_blocked_said_once);
	tcase_add_test(flt, test_sigill_handler_mask_said);
	tcase_add_test(flt, test_sigill_quiet);
	tcase_add_test(flt, test_sigill_masked_handler);
	tcase_set_timeout(thr, 120);
	tcase_set_timeout(rec, 60);
	tcase_add_test(thr, test_drain_from_other_thread);
	tcase_add_test(thr, test_lazy_head_readers);
	tcase_add_test(thr, test_owner_thread_rules);
	tcase_add_test(thr, test_sigill_on_other_thread);
	tcase_add_test(thr, test_thread_exit_while_enabled);
	tcase_add_test(thr, test_close_from_other_thread);
	tcase_add_test(thr, test_fork_child_lwp_off);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(api, 120);
	suite_add_tcase(s, api);
	suite_add_tcase(s, rec);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(flt, 120);
	suite_add_tcase(s, flt);
	suite_add_tcase(s, thr);
	return s;
}

int main(void)
{
	return lwpt_check_run(emu_suite(), CK_NORMAL);
}
