// SPDX-License-Identifier: GPL-2.0
/*
 * Signal handlers that leave with siglongjmp() while the thread is inside
 * an emulated LWP instruction (issue 38, item 1).
 *
 * On hardware an instruction retires whole before the handler runs, or has
 * not started (43724 §5.3, §5.4), so a program that jumps out of handlers
 * (runtimes do, for safepoints and stack guards) is correct. Here the
 * thread runs lwp_ins32()/lwp_val32() in a loop (EventInterval1 0: a record
 * for every LWPVAL) while another thread sends it SIGUSR1 every 50-100 us;
 * the handler siglongjmp()s back into the loop. Each instruction's Data2 is
 * its sequence number; the loop knows, for each, whether it returned (and
 * CF for LWPINS) or was left by a jump ("abandoned"). The ring is small and
 * drained every 256 instructions, so it also fills and misses. Required:
 *   - a returned LWPINS with CF = 0 has exactly one record, with CF = 1
 *     none; an abandoned instruction at most one; no other records, every
 *     record whole (Data1, the immediate);
 *   - MissedEvents = returned LWPINS with CF = 1 + returned LWPVAL without
 *     a record + abandoned instructions that missed, exactly: a jump lands
 *     with SIGUSR1 blocked, the abandoned instruction is settled there and
 *     its MissedEvents delta read (jump_loop()); an abandoned instruction
 *     is stored, missed or nothing, whole: never a record and a miss;
 *   - lwp_stop() and lwp_close() return (on the thread; or, after one
 *     more instruction at the loop's call site, lwp_close() from another
 *     thread).
 * With the fast path on and off (the model's copy-and-commit slow path).
 * No timing: the counts are exact however the jumps fall; the 100 000
 * jumps take about 10 s (50-100 us apart), the Check timeout is a hang
 * bound only.
 *
 * Before the fix the first jump that landed inside liblwp left the thread's
 * lock taken and its in-flight count up: every head write was deferred for
 * ever (the records check fails: stored records never readable) and
 * lwp_close() from another thread spun for ever (the timeout).
 *
 * Also the reproducers of the issue (shared/repro/liblwp): lj5 (after one
 * jump inside liblwp, 1000 LWPINS all readable after lwp_stop(), and
 * lwp_close() from another thread returns) and lj4 (a commit of the
 * model's copy left pending by a jump, the stack then overwritten: the
 * model must not change; the pending copy is the thread's, never the
 * stack's).
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <lwpt/lwp.h>
#include "liblwp/lwp_emu.h"
#include "tests/check_run.h"

#define N_JUMPS		100000
#define RING		192u
#define DRAIN_EVERY	256u
#define IMM_INS		0x1a1au
#define IMM_VAL		0x2b2bu

static sigjmp_buf env;
static volatile sig_atomic_t jumps, n_jumps;
static volatile int stop_sender;
static pthread_t target;

static void on_usr1(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(env, 1);
}

/* SIGUSR1 every 50-100 us until stopped. */
static void *sender_main(void *arg)
{
	unsigned int seed = 1;

	(void)arg;
	/* Sleeps of 50-100 us, not the default 50 us timer slack on top. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	while (!__atomic_load_n(&stop_sender, __ATOMIC_RELAXED)) {
		pthread_kill(target, SIGUSR1);
		usleep(50 + (unsigned int)rand_r(&seed) % 51);
	}
	return NULL;
}

static pthread_t sender_start(void)
{
	struct sigaction sa;
	pthread_t th;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	stop_sender = 0;
	target = pthread_self();
	ck_assert_int_eq(pthread_create(&th, NULL, sender_main, NULL), 0);
	return th;
}

static void sender_stop(pthread_t th)
{
	struct sigaction sa;
	sigset_t usr1;

	__atomic_store_n(&stop_sender, 1, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	/* A SIGUSR1 still pending is discarded: it is ignored now. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
}

static void *closer_main(void *arg)
{
	lwp_close(arg);
	return NULL;
}

/*
 * A window of the last WIN instructions: res[k % WIN]: 0 not returned
 * (abandoned if started), 1 LWPINS CF = 0, 2 LWPINS CF = 1, 3 LWPVAL;
 * seen[k % WIN]: records of k. An instruction is final once the loop is
 * 2 x DRAIN_EVERY past it (a lost one is completed at the next entry, at
 * most one drain later); then it is counted and its slot cleared.
 */
#define WIN		4096u
static uint8_t res[WIN], seen[WIN];
static uint64_t bad, cf1, val_missed, abandoned, ab_stored;
/* Abandoned instructions' MissedEvents deltas where measured (owner_loop()). */
static uint8_t ab_miss[WIN];
static uint64_t ab_missed;
static struct lwp_session *sess;

/* The loop's state: volatile, it survives the jumps. */
static volatile uint32_t cur, last_drain, final_upto;
static volatile int in_call;
static volatile uint64_t miss0;		/* MissedEvents before the call in flight */

/* The LWPINS a landing executes to settle an abandoned one (jump_loop()). */
#define SETTLE_D2	0xffffffffu
static uint64_t settle_n, settle_cf, settle_seen;

static void tally(const struct lwp_event *e, ssize_t n)
{
	ssize_t i;

	for (i = 0; i < n; i++) {
		uint32_t k = (uint32_t)e[i].data2;
		int ins = e[i].event_id == LWP_EVENTID_PROGRAMMED_EVENT;

		if (ins && k == SETTLE_D2 && e[i].data1 == ~SETTLE_D2 &&
		    lwp_event_imm(&e[i]) == IMM_INS) {
			settle_seen++;
			continue;
		}
		if (k < final_upto || k > cur || (uint32_t)lwp_event_value(&e[i]) != ~k ||
		    lwp_event_imm(&e[i]) != (ins ? IMM_INS : IMM_VAL) ||
		    (!ins && e[i].event_id != LWP_EVENTID_PROGRAMMED_VALUE) ||
		    (int)(k & 1) == ins || seen[k % WIN]++)
			bad++;
	}
}

/* Count instructions before @upto and free their slots. */
static void finalize(uint32_t upto)
{
	uint32_t k;

	for (k = final_upto; k < upto; k++) {
		switch (res[k % WIN]) {
		case 0:
			abandoned++;
			ab_stored += seen[k % WIN];
			ab_missed += ab_miss[k % WIN];
			/* Stored, missed or nothing: whole. */
			bad += seen[k % WIN] + ab_miss[k % WIN] > 1;
			break;
		case 1:
			bad += seen[k % WIN] != 1;
			break;
		case 2:
			cf1++;
			bad += seen[k % WIN] != 0;
			break;
		default:
			val_missed += !seen[k % WIN];
			bad += seen[k % WIN] > 1;
			break;
		}
		res[k % WIN] = 0;
		seen[k % WIN] = 0;
		ab_miss[k % WIN] = 0;
	}
	final_upto = upto;
}

static void drain(void)
{
	static struct lwp_event ev[256];
	ssize_t n;

	while ((n = lwp_read(sess, ev, 256)) > 0)
		tally(ev, n);
	ck_assert_int_ge(n, 0);
	if (cur > 2 * DRAIN_EVERY)
		finalize(cur - 2 * DRAIN_EVERY);
}

/*
 * The steps of the loops the jumps land in (jump_loop(), owner_loop()),
 * always inlined: each runs in the frame of its caller, the depth of the
 * calls being what the tests arrange (insn_call() adds a frame on purpose).
 */

/* Instruction @k: LWPVAL for odd @k (its result 3), LWPINS for even (1 + its CF). */
static inline __attribute__((always_inline)) uint8_t insn_k(uint32_t k)
{
	if (k & 1) {
		lwp_val32(k, ~k, IMM_VAL);
		return 3;
	}
	return (uint8_t)(1 + lwp_ins32(k, ~k, IMM_INS));
}

/* Every DRAIN_EVERY instructions, the events read with @usr1 blocked. */
static inline __attribute__((always_inline)) void drain_due(uint32_t k, const sigset_t *usr1)
{
	if (k % DRAIN_EVERY == 0 && last_drain != k) {
		pthread_sigmask(SIG_BLOCK, usr1, NULL);
		drain();
		last_drain = k;
		pthread_sigmask(SIG_UNBLOCK, usr1, NULL);
	}
}

/*
 * The loop the jumps land in: only volatile and static state. The sender
 * starts once the landing point is set (@th). A jump lands with SIGUSR1
 * blocked (the mask sigsetjmp() saved): an instruction it abandoned is
 * settled there and its MissedEvents delta read, exactly, alternately
 *  - by an LWPINS at the loop's call site (SETTLE_D2; the entry at the
 *    lost frame's depth completes it; that LWPINS's own miss is its CF),
 *  - by lwp_pending() (SLWPCB deeper in the stack: the lost frame's
 *    return address was overwritten by that call).
 */
static __attribute__((noinline)) void jump_loop(pthread_t *th)
{
	static sigset_t usr1;
	uint32_t k;
	int cf;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (!sigsetjmp(env, 1)) {
		/* No jump before *@th is set. */
		*th = sender_start();
	} else if (in_call) {
		/* Landed: the instruction in the call was abandoned, or had returned. */
		if (jumps & 1) {
			cf = lwp_ins32(SETTLE_D2, ~SETTLE_D2, IMM_INS);
			settle_n++;
			settle_cf += (unsigned int)cf;
		} else {
			cf = 0;
			(void)lwp_pending(sess);
		}
		if (!res[cur % WIN])
			ab_miss[cur % WIN] = (uint8_t)(lwp_missed(sess) - miss0 - (unsigned int)cf);
		cur = cur + 1;
		in_call = 0;
	} else if (res[cur % WIN]) {
		cur = cur + 1;
	}
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	while (jumps < n_jumps) {
		k = cur;
		drain_due(k, &usr1);
		miss0 = lwp_missed(sess);
		ab_miss[k % WIN] = 0;
		in_call = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		res[k % WIN] = insn_k(k);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		in_call = 0;
		cur = k + 1;
	}
	/* No jump into this frame once it returned (sender_stop() unblocks). */
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	/*
	 * One more instruction at the loop's call site: it finds a lost one
	 * in flight and completes it (an entry deeper in the stack might be
	 * taken as nested in it: Documentation/liblwp.rst, limits).
	 */
	k = cur;
	res[k % WIN] = insn_k(k);
	cur = k + 1;
}

/*
 * @fast: the fast path on; @closer: lwp_close() from another thread right
 * after the last jump, else lwp_stop() and lwp_close() on this thread.
 */
static void run(int fast, int closer, int jumps_n)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	uint64_t missed;
	pthread_t th;

	memset(res, 0, sizeof(res));
	memset(seen, 0, sizeof(seen));
	memset(ab_miss, 0, sizeof(ab_miss));
	bad = cf1 = val_missed = abandoned = ab_stored = ab_missed = 0;
	settle_n = settle_cf = settle_seen = 0;
	cfg.backend = LWP_BACKEND_EMU;
	cfg.buffer_records = RING;
	cfg.interval[LWP_EVENT_VAL] = 0;
	ck_assert_int_eq(lwp_open(&sess, &cfg), 0);
	ck_assert_int_eq(lwp_start(sess), 0);
	lwp_emu_fast_enable(fast);
	jumps = 0;
	n_jumps = jumps_n;
	cur = final_upto = 0;
	last_drain = ~0u;
	in_call = 0;
	jump_loop(&th);
	sender_stop(th);
	lwp_emu_fast_enable(1);

	/*
	 * The last jump may have left an instruction: lwp_stop() (or
	 * lwp_read()'s flush) on this thread finishes it.
	 */
	if (!closer)
		ck_assert_int_eq(lwp_stop(sess), 0);
	drain();
	finalize(cur);
	missed = lwp_missed(sess);
	if (getenv("LWPT_TEST_VERBOSE"))
		fprintf(stderr, "fast %d closer %d: %u instructions, %d jumps, %llu abandoned (%llu stored, "
			"%llu missed), %llu settling LWPINS (%llu CF=1), "
			"%llu CF=1, %llu LWPVAL missed, MissedEvents %llu, recovered %lu completed "
			"%lu discarded\n", fast, closer, (unsigned int)cur, (int)jumps,
			(unsigned long long)abandoned, (unsigned long long)ab_stored,
			(unsigned long long)ab_missed, (unsigned long long)settle_n,
			(unsigned long long)settle_cf,
			(unsigned long long)cf1, (unsigned long long)val_missed,
			(unsigned long long)missed, lwp__emu_thread->recovered[0],
			lwp__emu_thread->recovered[1]);
	ck_assert_uint_eq(bad, 0);
	/* Exact (issue 38): every miss is a returned one or a measured one. */
	ck_assert_uint_eq(missed, cf1 + val_missed + ab_missed + settle_cf);
	ck_assert_uint_eq(settle_seen, settle_n - settle_cf);
	ck_assert_uint_eq(lwp__emu_thread->inflight, 0);
	ck_assert_int_eq(lwp__emu_thread->lock, LWP_EMU_LOCK_FREE);
	if (closer) {
		ck_assert_int_eq(pthread_create(&th, NULL, closer_main, sess), 0);
		ck_assert_int_eq(pthread_join(th, NULL), 0);
	} else {
		lwp_close(sess);
	}
}

START_TEST(test_jumps)
{
	run(_i & 1, 0, N_JUMPS);
}
END_TEST

START_TEST(test_jumps_close_elsewhere)
{
	run(_i & 1, 1, 2000);
}
END_TEST

/*
 * lj5: after a jump that landed inside liblwp, 1000 LWPINS: every one with
 * CF = 0 readable after lwp_stop(), lwp_close() from another thread returns.
 */
static volatile int lj_jumped;

static void on_usr1_lj(int sig)
{
	(void)sig;
	lj_jumped = 1;
	siglongjmp(env, 1);
}

static void *lj_sender(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop_sender, __ATOMIC_RELAXED)) {
		pthread_kill(target, SIGUSR1);
		usleep(50);
	}
	return NULL;
}

/*
 * The session of lj5 and lj4: the emulation with Random bits (every
 * LWPVAL on the model), @records records, started.
 */
static void lj_open(unsigned int records)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;

	cfg.backend = LWP_BACKEND_EMU;
	cfg.random_bits = 2;
	cfg.buffer_records = records;
	ck_assert_int_eq(lwp_open(&sess, &cfg), 0);
	ck_assert_int_eq(lwp_start(sess), 0);
}

/* SIGUSR1's handler: @handler (SIG_IGN once the jumps are over). */
static void lj_on_usr1(void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
}

/* Until a jump landed inside liblwp (an instruction left in flight). */
static __attribute__((noinline)) void lj5_jump(void)
{
	static pthread_t th;

	if (sigsetjmp(env, 1) == 0)
		ck_assert_int_eq(pthread_create(&th, NULL, lj_sender, NULL), 0);
	while (!lwp__emu_thread->inflight) {
		lj_jumped = 0;
		while (!lj_jumped)
			lwp_val32(1, 2, 3);
	}
	__atomic_store_n(&stop_sender, 1, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
}

START_TEST(test_lj5)
{
	struct lwp_event ev[256];
	pthread_t th;
	long n = 0, got = 0, k;

	lj_open(4096);
	lj_on_usr1(on_usr1_lj);
	target = pthread_self();
	stop_sender = 0;
	lj5_jump();
	lj_on_usr1(SIG_IGN);
	/* Drop what the loop stored: count only the 1000 below. */
	while ((k = lwp_read(sess, ev, 256)) > 0)
		;
	for (k = 0; k < 1000; k++)
		n += lwp_ins32((uint32_t)k, 7, 7) == 0;
	ck_assert_int_eq(lwp_stop(sess), 0);
	while ((k = lwp_read(sess, ev, 256)) > 0) {
		long i;

		for (i = 0; i < k; i++)
			got += ev[i].event_id == LWP_EVENTID_PROGRAMMED_EVENT;
	}
	ck_assert_int_eq(n, 1000);
	ck_assert_int_eq(got, 1000);
	ck_assert_int_eq(pthread_create(&th, NULL, closer_main, sess), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
}
END_TEST

/*
 * lj4: a jump out of the commit of the model's copy (fast path off, Random
 * bits: every LWPVAL on the model) leaves the commit pending; ordinary
 * stack use then overwrites where the copy would have been on the stack.
 * The next instruction finishes or drops it from the thread's own copy:
 * the model's LWPCB, buffer and head stay sane, records stay whole.
 */
static __attribute__((noinline)) void scribble(size_t n)
{
	char *p = __builtin_alloca(n);

	memset(p, 0x41, n);
	__asm__ __volatile__("" : : "r"(p) : "memory");
}

static volatile int pending_seen, stack_commit;

static __attribute__((noinline)) void lj4_jump(void)
{
	static pthread_t th;

	if (sigsetjmp(env, 1) == 0)
		ck_assert_int_eq(pthread_create(&th, NULL, lj_sender, NULL), 0);
	if (lwp__emu_thread->inflight) {
		/*
		 * Left inside liblwp: never a pointer into the stack. Only
		 * async-signal-safe code here (the next jump may land in it:
		 * no ck_assert(), which allocates).
		 */
		const struct lwp_emu_commit *c = lwp__emu_thread->commit;

		stack_commit += c != NULL && c != &lwp__emu_thread->stage;
		pending_seen += c != NULL;
		scribble(4096);
	}
	while (jumps < 20000 && pending_seen < 50)
		lwp_val32(1, 2, 3);
	__atomic_store_n(&stop_sender, 1, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
}

START_TEST(test_lj4)
{
	struct lwp_event ev[64];
	struct lwp_emu_thread *t;
	uint64_t cb, base;
	ssize_t n, i;

	lj_open(1024);
	t = lwp__emu_thread;
	cb = t->model.cbaddr;
	base = t->model.buffer_base;
	lwp_emu_fast_enable(0);
	lj_on_usr1(on_usr1);
	target = pthread_self();
	stop_sender = 0;
	jumps = 0;
	pending_seen = stack_commit = 0;
	lj4_jump();
	ck_assert_int_eq(stack_commit, 0);
	lj_on_usr1(SIG_IGN);
	lwp_emu_fast_enable(1);
	while ((n = lwp_read(sess, ev, 64)) > 0)
		;
	for (i = 0; i < 10; i++)
		ck_assert_int_eq(lwp_ins32(5, 6, 7), 0);
	ck_assert_uint_eq(t->model.cbaddr, cb);
	ck_assert_uint_eq(t->model.buffer_base, base);
	ck_assert_uint_lt(t->model.head, 1024u * 32);
	ck_assert_int_eq(lwp_stop(sess), 0);
	while ((n = lwp_read(sess, ev, 64)) > 0)
		for (i = 0; i < n; i++)
			ck_assert(ev[i].event_id == LWP_EVENTID_PROGRAMMED_EVENT ?
				  (uint32_t)ev[i].data2 == 5 && lwp_event_imm(&ev[i]) == 7 :
				  (uint32_t)ev[i].data2 == 1 && lwp_event_imm(&ev[i]) == 3);
	ck_assert_int_ge(n, 0);
	if (getenv("LWPT_TEST_VERBOSE"))
		fprintf(stderr, "lj4: %d jumps, %d left a commit pending\n", (int)jumps,
			(int)pending_seen);
	lwp_close(sess);
}
END_TEST

/*
 * ---- lwp_close() on another thread while the owner blocks (issue 38) ------
 *
 * The owner thread O runs the jump loop on its session A until a jump
 * leaves an instruction in flight (abandoned mid-instruction), then blocks
 * for ever in read() of a pipe, making no LWP call. Another thread closes
 * a session B (any session: lwp_close() detaches it from every thread's
 * model, so it needs O's lock): it must return, 0 (O's SIGILL handler
 * proved the instruction abandoned and completed or discarded it), or,
 * with SIGILL blocked on O, -EBUSY with nothing changed; O, released, then
 * unblocks SIGILL, the pending request settles the instruction, and the
 * close succeeds. Then A's accounting is exact: records of returned
 * LWPINS with CF = 0 one each, CF = 1 none, and MissedEvents = returned
 * misses + the misses of abandoned instructions, each measured: a jump
 * lands with SIGUSR1 blocked, and the abandoned instruction's MissedEvents
 * delta is read there (the instruction is whole then: in flight no more)
 * or, for the last one, after the close settled it; an abandoned one has
 * a record or a miss or nothing, never both.
 * Before: the closer spun for ever on O's lock (the bounded wait below
 * fails after 60 s: a hang bound, event-based otherwise).
 */
#define HANG_BOUND_MS	60000
static int note_pipe[2], block_pipe[2], done_pipe[2];
static struct lwp_emu_thread *owner_t;
static pthread_t owner_sender;
static int owner_block_sigill, owner_deep, owner_exit;

/*
 * "Deep": the instruction from a function of its own (below 256 bytes of
 * its frame), and after the jump the owner makes no call before it blocks
 * below that function's frame, in read() under a 16 KiB frame that is
 * never written where the instruction's return address was: the thread
 * sleeps deeper than the abandoned instruction, which cannot be proven
 * abandoned (lwp_close() returns -EBUSY, no hang).
 */
static __attribute__((noinline)) uint8_t insn_call(uint32_t k)
{
	volatile char pad[256];

	pad[0] = 0;
	__asm__ __volatile__("" : : "r"(pad) : "memory");
	return insn_k(k);
}

static __attribute__((noinline)) void deep_read(int note, int fd)
{
	volatile char pad[16384];
	char c;

	pad[sizeof(pad) / 2] = 0;
	__asm__ __volatile__("" : : "r"(pad) : "memory");
	(void)!write(note, "l", 1);
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

/* A byte from @fd within the hang bound, or -1. */
static int wait_byte(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, HANG_BOUND_MS) != 1 || read(fd, &c, 1) != 1)
		return -1;
	return (unsigned char)c;
}

static void *closer_report(void *arg)
{
	int ret = lwp_close(arg);

	(void)!write(done_pipe[1], &ret, sizeof(ret));
	return NULL;
}

/* lwp_close(@s) on a new thread; its result, or ck fails after the bound. */
static int close_elsewhere(struct lwp_session *s)
{
	struct pollfd pfd = { .fd = done_pipe[0], .events = POLLIN };
	pthread_t th;
	int ret;

	ck_assert_int_eq(pthread_create(&th, NULL, closer_report, s), 0);
	if (poll(&pfd, 1, HANG_BOUND_MS) != 1)
		ck_abort_msg("lwp_close() on another thread did not return within %d s",
			     HANG_BOUND_MS / 1000);
	ck_assert_int_eq(read(done_pipe[0], &ret, sizeof(ret)), (ssize_t)sizeof(ret));
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	return ret;
}

/* The owner's loop: as jump_loop(), but landing with SIGUSR1 blocked. */
static __attribute__((noinline)) void owner_loop(void)
{
	static sigset_t usr1, ill;
	uint32_t k;
	char c;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigemptyset(&ill);
	sigaddset(&ill, SIGILL);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (!sigsetjmp(env, 1)) {
		owner_sender = sender_start();
	} else if (in_call && lwp__emu_thread->inflight) {
		/* Left inside the instruction: block for ever, no LWP call. */
		__atomic_store_n(&stop_sender, 1, __ATOMIC_RELAXED);
		if (owner_exit) {
			/* Or exit: the thread's end settles it. */
			(void)!write(note_pipe[1], "l", 1);
			return;
		}
		if (owner_block_sigill)
			pthread_sigmask(SIG_BLOCK, &ill, NULL);
		if (owner_deep) {
			deep_read(note_pipe[1], block_pipe[0]);
		} else {
			(void)!write(note_pipe[1], "l", 1);
			while (read(block_pipe[0], &c, 1) < 0 && errno == EINTR)
				;
		}
		if (owner_block_sigill)
			pthread_sigmask(SIG_UNBLOCK, &ill, NULL);
		/* Above the lost frame: this entry settles it (released while
		 * the session is open). */
		if (owner_deep && owner_block_sigill == 2)
			(void)lwp_pending(sess);
		(void)!write(note_pipe[1], "u", 1);
		/* Its state is read until told to exit (it is freed then). */
		while (read(block_pipe[0], &c, 1) < 0 && errno == EINTR)
			;
		return;
	} else {
		/* Whole: returned, or abandoned before or after its effect. */
		if (in_call)
			ab_miss[cur % WIN] = (uint8_t)(lwp_missed(sess) - miss0);
		if (in_call || res[cur % WIN])
			cur = cur + 1;
		in_call = 0;
	}
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	for (;;) {
		k = cur;
		drain_due(k, &usr1);
		miss0 = lwp_missed(sess);
		ab_miss[k % WIN] = 0;
		in_call = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		res[k % WIN] = owner_deep ? insn_call(k) : insn_k(k);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		in_call = 0;
		cur = k + 1;
	}
}

static void *owner_main(void *arg)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;

	(void)arg;
	cfg.backend = LWP_BACKEND_EMU;
	cfg.buffer_records = RING;
	cfg.interval[LWP_EVENT_VAL] = 0;
	if (lwp_open(&sess, &cfg) || lwp_start(sess)) {
		(void)!write(note_pipe[1], "e", 1);
		return NULL;
	}
	owner_t = lwp__emu_thread;
	owner_loop();
	return NULL;
}

/*
 * One owner, one instruction abandoned, one close elsewhere (above); @deep:
 * not provably abandoned while the owner sleeps (insn_call()).
 */
static void blocked_round(int fast, int block_sigill, int deep, int exits)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *other;
	uint64_t missed;
	pthread_t owner;
	uint32_t lost;

	owner_block_sigill = block_sigill;
	owner_deep = deep;
	owner_exit = exits;
	ck_assert_int_eq(pipe(note_pipe), 0);
	ck_assert_int_eq(pipe(block_pipe), 0);
	ck_assert_int_eq(pipe(done_pipe), 0);
	memset(res, 0, sizeof(res));
	memset(seen, 0, sizeof(seen));
	memset(ab_miss, 0, sizeof(ab_miss));
	bad = cf1 = val_missed = abandoned = ab_stored = ab_missed = 0;
	jumps = 0;
	n_jumps = N_JUMPS;
	cur = final_upto = 0;
	last_drain = ~0u;
	in_call = 0;
	lwp_emu_fast_enable(fast);
	/* Session B, on this thread: the one closed on a third thread. */
	cfg.backend = LWP_BACKEND_EMU;
	ck_assert_int_eq(lwp_open(&other, &cfg), 0);

	ck_assert_int_eq(pthread_create(&owner, NULL, owner_main, NULL), 0);
	ck_assert_int_eq(wait_byte(note_pipe[0]), 'l');
	sender_stop(owner_sender);
	lost = cur;
	if (owner_exit) {
		/* Gone with its instruction in flight: nothing to wait for. */
		ck_assert_int_eq(pthread_join(owner, NULL), 0);
		ck_assert_int_eq(close_elsewhere(other), 0);
		goto accounting;
	}
	ck_assert_uint_gt(owner_t->inflight, 0);

	if ((owner_block_sigill || owner_deep) &&
	    __atomic_load_n(&owner_t->lock, __ATOMIC_ACQUIRE) == LWP_EMU_LOCK_SELF) {
		/*
		 * O cannot be asked, or cannot prove it: -EBUSY, nothing
		 * changed, no hang. (Left before it took its lock, the
		 * instruction keeps no other thread out: the close just takes
		 * the lock.)
		 */
		ck_assert_int_eq(close_elsewhere(other), -EBUSY);
		ck_assert_uint_gt(owner_t->inflight, 0);
		ck_assert_int_eq(lwp_session_backend(other), LWP_BACKEND_EMU);
		/* Released, O unblocks SIGILL: the pending request settles it
		 * (deep: O's next entry, above the lost frame). */
		owner_block_sigill = 2;		/* released */
		ck_assert_int_eq(write(block_pipe[1], "x", 1), 1);
		ck_assert_int_eq(wait_byte(note_pipe[0]), 'u');
	}
	ck_assert_int_eq(close_elsewhere(other), 0);
	/* Settled by O's handler (or, unblocked, by the pending request). */
	if (__atomic_load_n(&owner_t->inflight, __ATOMIC_ACQUIRE)) {
		ck_assert_int_ne(owner_block_sigill, 2);
		/* Left before its lock: settled at O's exit. */
		ck_assert_int_ne(__atomic_load_n(&owner_t->lock, __ATOMIC_ACQUIRE),
				 LWP_EMU_LOCK_SELF);
	}

	/* A's accounting, on this thread (any thread may read). */
accounting:
	ab_miss[lost % WIN] = (uint8_t)(lwp_missed(sess) - miss0);
	drain();
	finalize(lost + 1);
	missed = lwp_missed(sess);
	if (getenv("LWPT_TEST_VERBOSE"))
		fprintf(stderr, "blocked owner (fast %d, SIGILL blocked %d, deep %d, exit %d): %u instructions, "
			"%d jumps, %llu abandoned (%llu stored, %llu missed), %llu CF=1, "
			"%llu LWPVAL missed, MissedEvents %llu\n", fast, owner_block_sigill, deep, exits,
			(unsigned int)lost + 1, (int)jumps, (unsigned long long)abandoned,
			(unsigned long long)ab_stored, (unsigned long long)ab_missed,
			(unsigned long long)cf1, (unsigned long long)val_missed,
			(unsigned long long)missed);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(missed, cf1 + val_missed + ab_missed);
	ck_assert_int_eq(close_elsewhere(sess), 0);
	if (owner_exit)
		goto out;

	if (owner_block_sigill != 2) {
		ck_assert_int_eq(write(block_pipe[1], "x", 1), 1);
		ck_assert_int_eq(wait_byte(note_pipe[0]), 'u');
	}
	ck_assert_int_eq(write(block_pipe[1], "x", 1), 1);	/* exit */
	ck_assert_int_eq(pthread_join(owner, NULL), 0);
out:
	lwp_emu_fast_enable(1);
	close(note_pipe[0]);
	close(note_pipe[1]);
	close(block_pipe[0]);
	close(block_pipe[1]);
	close(done_pipe[0]);
	close(done_pipe[1]);
}

/* Rounds: the jump lands in a different phase of the instruction each time. */
#define BLOCKED_ROUNDS	25

/* fast path, SIGILL blocked, deep, the owner exits; _i & 1: fast path on. */
static const uint8_t blocked_variants[4][3] = {
	{ 0, 0, 0 }, { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 },
};

START_TEST(test_close_blocked_owner)
{
	const uint8_t *v = blocked_variants[_i / 2];
	int i;

	for (i = 0; i < BLOCKED_ROUNDS; i++)
		blocked_round(_i & 1, v[0], v[1], v[2]);
}
END_TEST

static Suite *longjmp_suite(void)
{
	Suite *s = suite_create("lwp_longjmp");
	TCase *tc = tcase_create("jumps");

	/*
	 * A hang bound only: 100 000 jumps 50-100 us apart took 35-60 s per
	 * run on the shared 2-CPU VM (Documentation/liblwp.rst); at a load of
	 * 8 on 2 CPUs a few times that.
	 */
	tcase_set_timeout(tc, 1200);
	tcase_add_loop_test(tc, test_jumps, 0, 2);
	tcase_add_loop_test(tc, test_jumps_close_elsewhere, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("repro");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lj5);
	tcase_add_test(tc, test_lj4);
	suite_add_tcase(s, tc);
	/* Hang bound only: each wait below is bounded by HANG_BOUND_MS. */
	tc = tcase_create("close_blocked");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_close_blocked_owner, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(longjmp_suite(), CK_NORMAL);
}
