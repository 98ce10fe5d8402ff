// SPDX-License-Identifier: GPL-2.0
/*
 * bench_liblwp: figures for Documentation/performance.rst, section liblwp.
 *  1. lwp_read() drain throughput (records/s, GB/s) against memcpy() of the
 *     same bytes;
 *  2. the cost of an emulated lwp_ins32() (direct call into the model);
 *  3. the cost of a raw LWPINS that traps (SIGILL, decode, model, step);
 *  4. the same for LWPVAL when no record is stored (counter not expired);
 *  5. the JIT call sequences of lwp_jit_encode() (issue 18): LWPVAL with
 *     no record stored, LWPINS with a record stored.
 * Stores into the ring are timed twice (issue 28, finding 7): "warm", the
 * ring's pages touched before the timed part, and "cold", a freshly mapped
 * ring whose first-touch page faults fall into the timed part (as in a
 * program's first pass over its ring). Prints figures only; never fails on
 * a number (machines are shared).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <lwpt/lwp.h>

#define RING_RECORDS	65536u		/* 2 MiB ring */
#define CHUNK		4096u

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this thread: less sensitive than wall time on a shared box. */
static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_liblwp: %s: %d\n", what, err);
	exit(1);
}

static struct lwp_session *open_session(uint32_t records, int32_t interval)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct lwp_session *s;
	int err;

	cfg.buffer_records = records;
	cfg.interval[LWP_EVENT_VAL] = interval;
	err = lwp_open(&s, &cfg);
	if (err)
		die("lwp_open", err);
	err = lwp_start(s);
	if (err)
		die("lwp_start", err);
	return s;
}

/*
 * Touch every page of @s's ring (BufferBase, BufferSize: 43724 Table 6-1)
 * so that no page fault falls into a timed part. Writing zeros changes
 * nothing LWP reads: the slots past the head are free.
 */
static void ring_touch(struct lwp_session *s)
{
	const uint8_t *cb = lwp_lwpcb(s, NULL);
	uint64_t base;
	uint32_t size;

	memcpy(&base, cb + LWP_LWPCB_OFF_BUFFER_BASE, sizeof(base));
	memcpy(&size, cb + LWP_LWPCB_OFF_BUFFER_SIZE, sizeof(size));
	size &= LWP_LWPCB_BUFFER_SIZE_MASK;
	memset((void *)(uintptr_t)base, 0, size);
}

static const char *const ring_state[2] = { "cold ring", "warm ring" };

static void bench_drain(void)
{
	struct lwp_session *s = open_session(RING_RECORDS, 0);
	struct lwp_event *out = malloc(CHUNK * sizeof(*out));
	uint8_t *cb = lwp_lwpcb(s, NULL), *src, *dst;
	uint32_t head, tail, i, rounds = 200;
	size_t bytes = (size_t)(RING_RECORDS - 1) * 32;
	double t0, t, t_read, t_copy;
	uint64_t total = 0;
	int trial;
	ssize_t n;

	/* Fill the ring once: RING_RECORDS - 1 records (one slot stays free). */
	for (i = 0; i < RING_RECORDS - 1; i++)
		lwp_ins32(i, i, 1);
	lwp_stop(s);
	memcpy(&head, cb + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET, 4);
	tail = (head + 32) % (RING_RECORDS * 32);

	/* Best of 5 trials of each: the machine is shared. */
	t_read = t_copy = 1e9;
	src = malloc(bytes);
	dst = malloc(bytes);
	memset(src, 1, bytes);
	memset(dst, 0, bytes);
	for (trial = 0; trial < 5; trial++) {
		total = 0;
		t0 = now();
		for (i = 0; i < rounds; i++) {
			/* Re-expose the same full ring: we are the only
			 * writer of the tail. */
			__atomic_store_n((uint32_t *)(void *)(cb +
					 LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET),
					 tail, __ATOMIC_RELEASE);
			while ((n = lwp_read(s, out, CHUNK)) > 0)
				total += (uint64_t)n;
		}
		t = now() - t0;
		if (t < t_read)
			t_read = t;
		t0 = now();
		for (i = 0; i < rounds; i++) {
			size_t off;

			/* The same access pattern: CHUNK records at a time. */
			for (off = 0; off < bytes; off += CHUNK * 32)
				memcpy(dst + (off % (CHUNK * 32)), src + off,
				       bytes - off < CHUNK * 32 ? bytes - off
								: CHUNK * 32);
			__asm__ __volatile__("" : : "r"(dst) : "memory");
		}
		t = now() - t0;
		if (t < t_copy)
			t_copy = t;
	}

	printf("lwp_read drain: %llu records in %.3f s: %.1f Mrecords/s, %.2f GB/s "
	       "(memcpy of the same bytes: %.2f GB/s, ratio %.2f)\n",
	       (unsigned long long)total, t_read, (double)total / t_read / 1e6,
	       (double)total * 32 / t_read / 1e9,
	       (double)bytes * rounds / t_copy / 1e9,
	       ((double)total * 32 / t_read) / ((double)bytes * rounds / t_copy));
	free(src);
	free(dst);
	free(out);
	lwp_close(s);
}

static struct lwp_event sink[CHUNK];

static void drain(struct lwp_session *s)
{
	while (lwp_read(s, sink, CHUNK) > 0)
		;
}

static void bench_ins(void)
{
	struct lwp_session *s;
	uint32_t i, n = 500000;
	double t0, c0, t, c;
	int warm;

	/* Cold first: a fresh mapping; then a new session, ring touched. */
	for (warm = 0; warm < 2; warm++) {
		s = open_session(RING_RECORDS, 0);
		if (warm)
			ring_touch(s);
		t0 = now();
		c0 = cpu();
		for (i = 0; i < n; i++) {
			lwp_ins32(i, i, 1);
			if ((i & 32767) == 32767)
				drain(s);
		}
		t = now() - t0;
		c = cpu() - c0;
		printf("emulated lwp_ins32(), record stored, %s: %.0f ns per call wall, "
		       "%.0f ns CPU (%u calls)\n", ring_state[warm], t / n * 1e9,
		       c / n * 1e9, n);
		if (!warm)
			lwp_close(s);
	}

	drain(s);
	n = 100000;
	t0 = now();
	c0 = cpu();
	for (i = 0; i < n; i++) {
		__asm__ __volatile__("lwpins $1, %%eax, %%edx"
				     : : "a"(i), "d"(i) : "cc", "memory");
		if ((i & 32767) == 32767)
			drain(s);
	}
	t = now() - t0;
	c = cpu() - c0;
	printf("trapped raw LWPINS (SIGILL), record stored: %.0f ns per instruction "
	       "wall, %.0f ns CPU (%u)\n", t / n * 1e9, c / n * 1e9, n);
	lwp_close(s);
}

static void bench_val_no_record(void)
{
	/* EventInterval1 large: LWPVAL only decrements the counter. */
	struct lwp_session *s = open_session(RING_RECORDS, 0x1ffffff);
	uint32_t i, n = 500000;
	double t0, c0, t, c;

	t0 = now();
	c0 = cpu();
	for (i = 0; i < n; i++)
		lwp_val32(i, i, 1);
	t = now() - t0;
	c = cpu() - c0;
	printf("emulated lwp_val32(), no record: %.0f ns per call wall, %.0f ns CPU\n",
	       t / n * 1e9, c / n * 1e9);
	n = 100000;
	t0 = now();
	c0 = cpu();
	for (i = 0; i < n; i++)
		__asm__ __volatile__("lwpval $1, %%eax, %%edx"
				     : : "a"(i), "d"(i) : "memory");
	t = now() - t0;
	c = cpu() - c0;
	printf("trapped raw LWPVAL, no record: %.0f ns per instruction wall, "
	       "%.0f ns CPU\n", t / n * 1e9, c / n * 1e9);
	lwp_close(s);
}

/*
 * A function of JIT_COPIES call sequences of @op (Data1 EAX, Data2 EDX)
 * and a RET, in executable memory.
 */
#define JIT_COPIES	16u

static void (*jit_function(struct lwp_session *s, uint32_t op))(void)
{
	struct lwp_insn insn = {
		.op = op, .opsize = 32, .reg = LWP_REG_RDX, .rm = LWP_REG_RAX,
		.mem = { .base = LWP_REG_NONE, .index = LWP_REG_NONE, .scale = 1 },
		.imm = 1,
	};
	size_t size = JIT_COPIES * LWP_JIT_MAX_LEN + 1;
	uint8_t *code = mmap(NULL, size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p;
	unsigned int i;
	int len;

	if (code == MAP_FAILED)
		die("mmap", -1);
	for (p = code, i = 0; i < JIT_COPIES; i++, p += len) {
		len = lwp_jit_encode(s, &insn, NULL, p, LWP_JIT_MAX_LEN);
		if (len < 0)
			die("lwp_jit_encode", len);
	}
	*p = 0xc3;
	if (mprotect(code, size, PROT_READ | PROT_EXEC))
		die("mprotect", -1);
	return (void (*)(void))(void *)code;
}

/* Run @f (JIT_COPIES sequences) until @total sequences ran; print the cost. */
static void time_jit(const char *what, void (*f)(void), struct lwp_session *s,
		     uint32_t total)
{
	uint32_t i, n = total / JIT_COPIES;
	double t0 = now(), c0 = cpu(), t, c;

	for (i = 0; i < n; i++) {
		f();
		if ((i & 1023) == 1023)
			drain(s);	/* 16384 records: within the ring */
	}
	t = now() - t0;
	c = cpu() - c0;
	n *= JIT_COPIES;
	printf("JIT call sequence %s: %.1f ns per sequence wall, %.1f ns CPU (%u)\n",
	       what, t / n * 1e9, c / n * 1e9, n);
}

static void bench_jit(void)
{
	struct lwp_session *s = open_session(RING_RECORDS, 0x1ffffff);
	int warm;

	time_jit("LWPVAL, no record", jit_function(s, LWP_INSN_LWPVAL), s, 2000000);
	lwp_close(s);
	for (warm = 0; warm < 2; warm++) {
		s = open_session(RING_RECORDS, 0);
		if (warm)
			ring_touch(s);
		time_jit(warm ? "LWPINS, record stored, warm ring" :
			 "LWPINS, record stored, cold ring",
			 jit_function(s, LWP_INSN_LWPINS), s, 2000000);
		lwp_close(s);
	}
}

int main(void)
{
	struct lwp_caps c;

	if (lwp_query(&c) || !c.available) {
		printf("bench_liblwp: no LWP backend usable; nothing measured\n");
		return 0;
	}
	printf("bench_liblwp: backend %s\n", lwp_backend_name((int)c.backend));
	bench_drain();
	bench_ins();
	bench_val_no_record();
	if (c.backend == LWP_BACKEND_EMU)
		bench_jit();
	return 0;
}
