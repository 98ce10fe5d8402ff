// SPDX-License-Identifier: GPL-2.0
/*
 * LWP instructions of signal handlers and of thread-exit destructors on the
 * emulation (issue 28, findings 2 and 5; the destructors: below).
 *
 * Signal handlers (finding 2). The hardware retires each instruction whole and never drops one: an
 * LWPINS whose record is not stored sets CF and increments MissedEvents
 * (43724 §5.4, §6 Table 6-1 MissedEvents), an LWPVAL whose counter
 * underflows stores a record or misses it the same way (§5.3). Here a
 * SIGUSR1 handler executes LWPINS at a high rate while the thread runs
 * LWPVAL (EventInterval1 0: a record for every LWPVAL), through the inline
 * wrappers and through JIT call sequences, with and without threshold
 * interrupts (the handler's instruction then also takes the model's slow
 * path while nested). Every instruction must be accounted for exactly:
 *   LWPINS records read      == LWPINS with CF = 0
 *   LWPVAL records + missed  == LWPVAL executed + LWPINS with CF = 1
 * and every record must be whole (its fields as the instruction gave them)
 * and in an order the hardware could give: each stream in program order,
 * and a handler's LWPINS after every LWPVAL the thread finished before the
 * signal and before every LWPVAL it started after (the handler's Data2 is
 * the thread's loop index when it ran).
 * Before the fix, a handler's instruction that interrupted the fast path
 * was dropped with CF = 0 (1087 of 1765 in the measurement of the issue).
 *
 * The same with the fast path off, so that the thread's every LWPVAL runs
 * on the model (the slow path) while the handler's LWPINS arrive: with
 * the model run on a copy and committed in an rseq sequence (the default,
 * lwp_emu.c "The model without blocking signals"), and with every signal
 * blocked around the model instead.
 */
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <lwpt/lwp.h>
#include "liblwp/lwp_emu.h"
#include "tests/check_run.h"

#define N_VAL		200000u		/* LWPVAL by the thread, at least */
#define N_SIGS		2000		/* handler runs, at least (loop_on()) */
#define INS_PER_SIG	8u		/* LWPINS per handler run */
#define IMM_INS		0x5a5au
#define IMM_VAL		0x1234u
#define RING		512u

static struct lwp_session *sess;
static uint8_t *jit_ins;		/* JIT LWPINS function, or NULL */
static volatile sig_atomic_t ins_done, ins_cf, sigs;
static volatile uint32_t cur_i;		/* the thread's loop index */
static volatile int stop_sender;

static void on_usr1(int sig)
{
	unsigned int i;

	(void)sig;
	sigs++;
	for (i = 0; i < INS_PER_SIG; i++) {
		uint32_t k = cur_i;
		int cf;

		if (jit_ins) {
			uint32_t a = (uint32_t)ins_done;

			/* The call's push stays below our red zone. */
			__asm__ __volatile__("sub $128, %%rsp\n\tcall *%2\n\tadd $128, %%rsp"
					     : "+a"(a) : "d"(k), "r"(jit_ins)
					     : "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11",
					       "cc", "memory");
			cf = (int)a;
		} else {
			cf = lwp_ins32(k, (uint32_t)ins_done, IMM_INS);
		}
		ins_done++;
		ins_cf += cf;
	}
}

struct sender {
	pthread_t target;
};

/*
 * A signal each time the target's loop moved SIG_EVERY iterations on
 * (cur_i): at a high rate, yet never so many that the handlers starve the
 * loop on a loaded machine (sent back to back, a run took minutes at a host
 * load of 13 and CI's time limit with it).
 */
#define SIG_EVERY	8u

static void *sender_main(void *arg)
{
	struct sender *s = arg;
	uint32_t last = cur_i;

	while (!__atomic_load_n(&stop_sender, __ATOMIC_RELAXED)) {
		uint32_t now = cur_i;

		if (now - last >= SIG_EVERY) {
			pthread_kill(s->target, SIGUSR1);
			last = now;
		}
		/* Spin, not sched_yield(): a yield waits behind every other task. */
		__builtin_ia32_pause();
	}
	return NULL;
}

static struct sender snd;

/*
 * Loop on? Until @n_min iterations and @sigs_min handler runs, but once
 * @n_min is done for at most SIG_DEADLINE_S seconds after @t0: on a loaded
 * machine the sender may seldom run. At least SIG_FLOOR runs always.
 */
#define SIG_DEADLINE_S	10
#define SIG_FLOOR	200

static int loop_on(uint64_t i, uint64_t n_min, int sigs_n, int sigs_min, time_t t0)
{
	if (i < n_min)
		return 1;
	if (sigs_n >= sigs_min)
		return 0;
	return sigs_n < SIG_FLOOR || time(NULL) - t0 < SIG_DEADLINE_S;
}

/* @fn handles SIGUSR1, which another thread sends this one at a high rate. */
static pthread_t signals_start(void (*fn)(int))
{
	struct sigaction sa;
	pthread_t th;

	cur_i = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	stop_sender = 0;
	snd.target = pthread_self();
	ck_assert_int_eq(pthread_create(&th, NULL, sender_main, &snd), 0);
	return th;
}

/* Stop the sender @th; SIGUSR1 ignored from here on. */
static void signals_stop(pthread_t th)
{
	struct sigaction sa;

	__atomic_store_n(&stop_sender, 1, __ATOMIC_RELAXED);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, NULL), 0);
}

/*
 * The accounting and the order of the header comment over the records read
 * (last_*: the last LWPVAL index, handler sequence number and handler's
 * loop index seen, -1 before any).
 */
struct count {
	uint64_t ins, val, bad;
	int64_t last_val, last_seq, last_k;
};

static void tally(const struct lwp_event *e, ssize_t n, struct count *c)
{
	int64_t v, k;
	ssize_t i;

	for (i = 0; i < n; i++) {
		v = lwp_event_value(&e[i]);
		if (e[i].event_id == LWP_EVENTID_PROGRAMMED_EVENT) {
			c->ins++;
			k = (uint32_t)e[i].data2;
			if (lwp_event_imm(&e[i]) != IMM_INS || v <= c->last_seq ||
			    k < c->last_val || k < c->last_k)
				c->bad++;
			c->last_seq = v;
			c->last_k = k;
		} else if (e[i].event_id == LWP_EVENTID_PROGRAMMED_VALUE) {
			c->val++;
			if (lwp_event_imm(&e[i]) != IMM_VAL ||
			    (uint32_t)e[i].data2 != ~(uint32_t)v || v <= c->last_val ||
			    v < c->last_k)
				c->bad++;
			c->last_val = v;
		} else {
			c->bad++;
		}
	}
}

static void drain(struct count *c)
{
	static struct lwp_event ev[256];
	ssize_t n;

	while ((n = lwp_read(sess, ev, 256)) > 0)
		tally(ev, n, c);
	ck_assert_int_ge(n, 0);
}

/*
 * JIT code: one sequence of @op (Data1 EAX, Data2 EDX, @imm), then
 * SETC AL; MOVZBL AL, EAX; RET: the function returns CF in EAX.
 */
static uint8_t *jit_build(enum lwp_insn_op op, uint32_t imm)
{
	static const uint8_t tail[] = { 0x0f, 0x92, 0xc0, 0x0f, 0xb6, 0xc0, 0xc3 };
	struct lwp_insn insn = {
		.op = op, .opsize = 32, .reg = LWP_REG_RDX, .rm = LWP_REG_RAX,
		.mem = { .base = LWP_REG_NONE, .index = LWP_REG_NONE, .scale = 1 },
		.imm = imm,
	};
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int len;

	ck_assert_ptr_ne(code, MAP_FAILED);
	len = lwp_jit_encode(sess, &insn, NULL, code, LWP_JIT_MAX_LEN);
	ck_assert_int_gt(len, 0);
	memcpy(code + len, tail, sizeof(tail));
	ck_assert_int_eq(mprotect(code, 4096, PROT_READ | PROT_EXEC), 0);
	return code;
}

/*
 * @slow: the fast path off (every instruction on the model); @blocked:
 * every signal blocked around the model instead of the copy and commit.
 */
static void run(int use_jit, int with_int, int slow, int blocked)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	pthread_t th;
	struct count c = { 0, 0, 0, -1, -1, -1 };
	unsigned long retries = lwp__emu_opt_retries;
	uint8_t *jit_val = NULL, *ins_code = NULL;
	uint64_t missed;
	uint32_t i;
	time_t t0;

	cfg.backend = LWP_BACKEND_EMU;
	cfg.buffer_records = RING;
	cfg.interval[LWP_EVENT_VAL] = 0;
	if (with_int) {
		cfg.flags |= LWP_FLAG_INT;
		cfg.threshold_records = RING / 4;
	}
	ck_assert_int_eq(lwp_open(&sess, &cfg), 0);
	ck_assert_int_eq(lwp_start(sess), 0);
	if (use_jit) {
		jit_val = jit_build(LWP_INSN_LWPVAL, IMM_VAL);
		ins_code = jit_build(LWP_INSN_LWPINS, IMM_INS);
	}
	ins_done = ins_cf = sigs = 0;
	jit_ins = ins_code;
	lwp_emu_fast_enable(!slow);
	lwp_emu_opt_enable(!blocked);
	th = signals_start(on_usr1);

	/* Until enough handlers ran (loop_on(): bounded on a loaded machine). */
	t0 = time(NULL);
	for (i = 0; loop_on(i, N_VAL, sigs, N_SIGS, t0); i++) {
		cur_i = i;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (jit_val) {
			uint32_t a = i;

			__asm__ __volatile__("sub $128, %%rsp\n\tcall *%2\n\tadd $128, %%rsp"
					     : "+a"(a) : "d"(~i), "r"(jit_val)
					     : "rcx", "rsi", "rdi", "r8", "r9", "r10", "r11",
					       "cc", "memory");
		} else {
			lwp_val32(~i, i, IMM_VAL);
		}
		/* Every 600 LWPVAL: the ring of 512 also fills and misses. */
		if (i % 600 == 599)
			drain(&c);
	}
	signals_stop(th);
	lwp_emu_fast_enable(1);
	lwp_emu_opt_enable(1);

	ck_assert_int_eq(lwp_stop(sess), 0);
	drain(&c);
	missed = lwp_missed(sess);
	lwp_close(sess);
	jit_ins = NULL;
	if (jit_val)
		munmap(jit_val, 4096);
	if (ins_code)
		munmap(ins_code, 4096);

	if (getenv("LWPT_TEST_VERBOSE"))
		fprintf(stderr, "jit %d int %d slow %d blocked %d: %d signals, %d LWPINS "
			"(%d CF), %llu+%llu records, %llu missed, %lu ran again\n",
			use_jit, with_int, slow, blocked, (int)sigs, (int)ins_done,
			(int)ins_cf, (unsigned long long)c.ins, (unsigned long long)c.val,
			(unsigned long long)missed, lwp__emu_opt_retries - retries);
	ck_assert_uint_eq(c.bad, 0);
	ck_assert_uint_eq(c.ins, (uint64_t)ins_done - (uint64_t)ins_cf);
	ck_assert_uint_eq(c.ins + c.val + missed, (uint64_t)ins_done + i);
}

START_TEST(test_signal_wrappers)
{
	run(0, _i, 0, 0);
}
END_TEST

START_TEST(test_signal_jit)
{
	run(1, _i, 0, 0);
}
END_TEST

/* The thread on the slow path: bit 0 JIT, bit 1 INT, bit 2 blocked. */
START_TEST(test_signal_slow)
{
	run(_i & 1, (_i >> 1) & 1, 1, (_i >> 2) & 1);
}
END_TEST

/*
 * ---- The commit of a model copy (lwp_emu_roll_forward()) ------------------
 * White box: the main thread commits copies of its own model again and
 * again while SIGUSR1 arrives at a high rate; the handler does what a
 * nested instruction does (finish a pending commit, then change the model
 * and count the change in lwp_emu_thread.nested). The restartable
 * sequence must never let an interrupted copy resume over the handler's
 * change: the model's violations field, which only the handler
 * increments, must equal the number of handler runs after every commit,
 * and a commit is applied whole (done = 1, the copy's head) or dropped
 * (done = -1, only when a handler ran since the copy was taken).
 */
#define RF_SIGS		20000		/* handler runs, at least (loop_on()) */
#define RF_ITER		200000u		/* commits, at least */

static struct lwp_emu_thread *rf_t;
static volatile sig_atomic_t rf_sigs, rf_pending, rf_bad;

static void on_usr1_rf(int sig)
{
	(void)sig;
	if (__atomic_load_n(&rf_t->commit, __ATOMIC_RELAXED))
		rf_pending++;
	lwp_emu_roll_forward(rf_t);
	if (__atomic_load_n(&rf_t->commit, __ATOMIC_RELAXED))
		rf_bad++;
	rf_t->model.violations++;
	rf_t->nested++;
	rf_sigs++;
}

START_TEST(test_rollforward)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_emu_commit c;
	struct lwp_model src;
	pthread_t th;
	unsigned int i, applied = 0, dropped = 0;
	int h0, s0;
	uint64_t v;
	time_t t0;

	if (!lwp_emu_rseq_ok())
		return;		/* no rseq: the blocked path only */
	cfg.backend = LWP_BACKEND_EMU;
	ck_assert_int_eq(lwp_open(&sess, &cfg), 0);
	ck_assert_int_eq(lwp_start(sess), 0);
	rf_t = lwp__emu_thread;
	ck_assert_ptr_nonnull(rf_t);
	rf_t->model.violations = 0;
	rf_sigs = rf_pending = rf_bad = 0;
	th = signals_start(on_usr1_rf);
	t0 = time(NULL);
	for (i = 0; loop_on(i, RF_ITER, rf_sigs, RF_SIGS, t0); i++) {
		cur_i = i;
		h0 = rf_sigs;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		c.n0 = rf_t->nested;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		src = rf_t->model;
		src.head = i;
		c.src = &src;
		c.done = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&rf_t->commit, &c, __ATOMIC_RELAXED);
		lwp_emu_roll_forward(rf_t);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		ck_assert_ptr_null(rf_t->commit);
		/* The count and the field, with no handler run between. */
		do {
			s0 = rf_sigs;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			v = rf_t->model.violations;
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
		} while (rf_sigs != s0);
		ck_assert_uint_eq(v, (uint64_t)s0);
		if (c.done == 1) {
			ck_assert_uint_eq(rf_t->model.head, i);
			applied++;
		} else {
			ck_assert_int_eq(c.done, -1);
			ck_assert_int_ne(rf_sigs, h0);
			dropped++;
		}
	}
	signals_stop(th);
	if (getenv("LWPT_TEST_VERBOSE"))
		fprintf(stderr, "roll forward: %u commits (%u applied, %u dropped), %d signals, "
			"%d found a commit pending\n", i, applied, dropped, (int)rf_sigs,
			(int)rf_pending);
	ck_assert_int_eq(rf_bad, 0);
	rf_t->model.violations = 0;
	rf_t->model.head = 0;
	lwp_close(sess);
}
END_TEST

/*
 * ---- Thread exit (issue 28, finding 5) --------------------------------------
 * On hardware LWP stays with a thread until it is gone (43724 §8.7.2: the
 * OS stores 0 to LWP_CBADDR when the thread exits); its destructors may
 * still execute LWP instructions. A thread stores records from a pthread
 * key destructor of a key created before liblwp's and one created after,
 * from a C++-style thread_local destructor (__cxa_thread_atexit_impl(),
 * what g++ registers them with), and from a destructor that runs in every
 * round of key destruction (PTHREAD_DESTRUCTOR_ITERATIONS): every one of
 * them must execute without SIGILL; every record of the first three kinds
 * and of the first rounds is stored (Documentation/liblwp.rst: only a
 * destructor in the last round after liblwp's sees LWP disabled).
 */
#define IMM_KEY_BEFORE	0x0b01u
#define IMM_KEY_AFTER	0x0a02u
#define IMM_TLS_DTOR	0x0c03u
#define IMM_ROUNDS	0x0d04u

extern int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso);
extern void *__dso_handle;

static pthread_key_t key_before, key_after, key_rounds;
static struct lwp_session *exit_sess;
static volatile int exit_done[4];

static void dtor_before(void *arg)
{
	(void)arg;
	(void)lwp_ins32(1, 1, IMM_KEY_BEFORE);
	exit_done[0]++;
}

static void dtor_after(void *arg)
{
	(void)arg;
	(void)lwp_ins32(2, 2, IMM_KEY_AFTER);
	exit_done[1]++;
}

static void dtor_tls(void *arg)
{
	(void)arg;
	(void)lwp_ins32(3, 3, IMM_TLS_DTOR);
	exit_done[2]++;
}

/* Sets its key again: called in every round, the last one included. */
static void dtor_rounds(void *arg)
{
	uintptr_t round = (uintptr_t)arg;

	(void)lwp_ins32((uint32_t)round, (uint32_t)round, IMM_ROUNDS);
	exit_done[3]++;
	(void)pthread_setspecific(key_rounds, (void *)(round + 1));
}

static void *exit_main(void *arg)
{
	(void)arg;
	/* lwp_start() on this thread makes LWP available to it. */
	if (lwp_start(exit_sess))
		return (void *)1;
	(void)pthread_setspecific(key_before, (void *)1);
	(void)pthread_setspecific(key_after, (void *)1);
	(void)pthread_setspecific(key_rounds, (void *)1);
	(void)__cxa_thread_atexit_impl(dtor_tls, NULL, &__dso_handle);
	return NULL;
}

START_TEST(test_exit_destructors)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_event ev[64];
	unsigned int seen[4] = { 0, 0, 0, 0 };
	void *ret;
	pthread_t th;
	ssize_t n, i;

	/* Created before liblwp's key (its first session creates it). */
	ck_assert_int_eq(pthread_key_create(&key_before, dtor_before), 0);
	cfg.backend = LWP_BACKEND_EMU;
	cfg.buffer_records = 64;
	ck_assert_int_eq(lwp_open(&exit_sess, &cfg), 0);
	ck_assert_int_eq(pthread_key_create(&key_after, dtor_after), 0);
	ck_assert_int_eq(pthread_key_create(&key_rounds, dtor_rounds), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, exit_main, NULL), 0);
	ck_assert_int_eq(pthread_join(th, &ret), 0);
	ck_assert_ptr_null(ret);
	ck_assert_int_eq(exit_done[0], 1);
	ck_assert_int_eq(exit_done[1], 1);
	ck_assert_int_eq(exit_done[2], 1);
	ck_assert_int_eq(exit_done[3], PTHREAD_DESTRUCTOR_ITERATIONS);

	n = lwp_read(exit_sess, ev, 64);
	ck_assert_int_ge(n, 0);
	/* A lazily written head (LIBLWP_LWP_LAZY_HEAD=1, §8.3) loses what the
	 * thread stored since its last flush when it exits (§8.7.2). */
	if (getenv("LIBLWP_LWP_LAZY_HEAD")) {
		lwp_close(exit_sess);
		return;
	}
	for (i = 0; i < n; i++) {
		switch (lwp_event_imm(&ev[i])) {
		case IMM_KEY_BEFORE: seen[0]++; break;
		case IMM_KEY_AFTER: seen[1]++; break;
		case IMM_TLS_DTOR: seen[2]++; break;
		case IMM_ROUNDS: seen[3]++; break;
		default: ck_abort_msg("record with imm %#x", lwp_event_imm(&ev[i]));
		}
	}
	ck_assert_uint_eq(seen[0], 1);
	ck_assert_uint_eq(seen[1], 1);
	ck_assert_uint_eq(seen[2], 1);
	/* Every round but possibly the last, which runs after liblwp's. */
	ck_assert_uint_ge(seen[3], PTHREAD_DESTRUCTOR_ITERATIONS - 1);
	ck_assert_uint_eq(lwp_missed(exit_sess), 0);
	lwp_close(exit_sess);
}
END_TEST

static Suite *reentry_suite(void)
{
	Suite *s = suite_create("lwp_reentry");
	TCase *tc = tcase_create("signal");

	/* No timing: the counts are exact however many signals arrive. */
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_signal_wrappers, 0, 2);
	tcase_add_loop_test(tc, test_signal_jit, 0, 2);
	tcase_add_loop_test(tc, test_signal_slow, 0, 8);
	suite_add_tcase(s, tc);
	tc = tcase_create("rollforward");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_rollforward);
	suite_add_tcase(s, tc);
	tc = tcase_create("exit");
	tcase_add_test(tc, test_exit_destructors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(reentry_suite(), CK_NORMAL);
}
