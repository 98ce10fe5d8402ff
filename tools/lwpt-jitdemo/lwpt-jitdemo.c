// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt-jitdemo: a tiny JIT that profiles itself with LWP (43724 §5.3, §5.4).
 *
 * It generates x86-64 code for "sum of dividend[i] / divisor[i]" into an
 * mmap'd buffer (written RW, then made RX), with an LWPVAL before the DIV
 * that samples the divisor (Data1) and the loop index (Data2), and LWPINS
 * markers at entry (Data1 = n) and exit (Data1 = iterations, Data2 = sum).
 * The LWP code comes from lwp_jit_encode(): the instruction on LWP
 * hardware, a call sequence on the emulation (issue 18; --raw puts the raw
 * instruction there too, which the emulation traps); the rest is
 * hand-encoded. It runs the code, drains the ring with lwp_read() and
 * prints the value profile of the divisor, what a JIT would use to
 * specialise the division, and the CPU time LWP added per LWPVAL: the same
 * loop is compiled a second time without LWP code and both are timed.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <lwpt/lwp.h>
#include "tools/lwpt-jitdemo/jit_dump.h"

#define SITE_DIV	0x77	/* LWPVAL immediate: the profiled site */
#define MARK_ENTER	1	/* LWPINS immediates */
#define MARK_EXIT	2
#define MAX_VALUES	64

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: lwpt-jitdemo [OPTION]...\n"
		"JIT-compile a division loop with LWPVAL/LWPINS, run it, and print\n"
		"the value profile of the divisor from the LWP records.\n\n"
		"  -n, --iterations N   loop iterations (default 100000)\n"
		"  -i, --interval N     EventInterval1: sample every N+1 LWPVALs\n"
		"                       (default 99)\n"
		"  -r, --random BITS    LWPCB.Random bits (default 0)\n"
		"  -s, --seed N         seed of the divisor distribution (default 1)\n"
		"  -b, --backend NAME   auto, hw or emu (default auto)\n"
		"  -d, --dump           print every record\n"
		"  -R, --raw            raw LWP instructions, not call sequences\n"
		"                       (the emulation traps each one: slow)\n"
		"  -h, --help           this help\n\n"
		"      --version        print the lwpt version\n"
		"\n"
		"Exit status: 0 on success, 1 if LWP is unusable (or a wrong result),\n"
		"2 on a usage error.\n");
}

struct jit {
	uint8_t *buf;
	size_t len, cap;
	int err;
	int ud2;	/* UD2 before each LWP instruction (lwp_caps.hw_ud2_marker) */
	int raw;	/* raw instructions (lwp_encode()), not lwp_jit_encode() */
	int no_lwp;	/* the baseline: no LWP code at all */
	struct lwp_session *s;
};

static void emit(struct jit *j, const void *bytes, size_t n)
{
	if (j->len + n > j->cap) {
		j->err = -ENOSPC;
		return;
	}
	memcpy(j->buf + j->len, bytes, n);
	j->len += n;
}

#define EMIT(j, ...) do {						\
		static const uint8_t b_[] = { __VA_ARGS__ };		\
		emit(j, b_, sizeof(b_));				\
	} while (0)

static void emit_lwp(struct jit *j, uint32_t op, int vreg, int rm, uint32_t imm)
{
	struct lwp_insn in = { .op = op, .opsize = 64, .reg = vreg, .rm = rm,
			       .imm = imm };
	uint8_t b[LWP_JIT_MAX_LEN];
	int n;

	if (j->no_lwp)
		return;
	if (!j->raw) {
		/* The instruction (with UD2 if needed) or a call sequence. */
		n = lwp_jit_encode(j->s, &in, NULL, b, sizeof(b));
	} else {
		n = lwp_encode(b, &in);
		if (n >= 0 && j->ud2)
			EMIT(j, 0x0f, 0x0b);	/* ud2: lwpt_sim.ko's marker */
	}
	if (n < 0) {
		j->err = n;
		return;
	}
	emit(j, b, (size_t)n);
}

static void emit_rel32(struct jit *j, size_t target)
{
	int32_t rel = (int32_t)((int64_t)target - (int64_t)(j->len + 4));

	emit(j, &rel, 4);
}

/*
 * uint64_t f(const uint32_t *dividend, const uint32_t *divisor, uint64_t n,
 *            uint64_t *sum)   -- SysV: rdi, rsi, rdx, rcx.
 */
static int jit_compile(struct jit *j)
{
	size_t jz_at, loop, done;

	EMIT(j, 0x53);				/* push %rbx */
	EMIT(j, 0x49, 0x89, 0xd0);		/* mov %rdx, %r8   (n) */
	EMIT(j, 0x49, 0x89, 0xc9);		/* mov %rcx, %r9   (sum*) */
	EMIT(j, 0x45, 0x31, 0xd2);		/* xor %r10d, %r10d (i) */
	EMIT(j, 0x45, 0x31, 0xdb);		/* xor %r11d, %r11d (acc) */
	/* lwpins $MARK_ENTER, %r8d, %r10: Data1 = n, Data2 = 0 */
	emit_lwp(j, LWP_INSN_LWPINS, LWP_REG_R10, LWP_REG_R8, MARK_ENTER);
	EMIT(j, 0x4d, 0x85, 0xc0);		/* test %r8, %r8 */
	EMIT(j, 0x0f, 0x84);			/* jz done (rel32) */
	jz_at = j->len;
	emit_rel32(j, 0);
	loop = j->len;
	EMIT(j, 0x42, 0x8b, 0x04, 0x97);	/* mov (%rdi,%r10,4), %eax */
	EMIT(j, 0x42, 0x8b, 0x0c, 0x96);	/* mov (%rsi,%r10,4), %ecx */
	/* lwpval $SITE_DIV, %ecx, %r10: Data1 = divisor, Data2 = i */
	emit_lwp(j, LWP_INSN_LWPVAL, LWP_REG_R10, LWP_REG_RCX, SITE_DIV);
	EMIT(j, 0x31, 0xd2);			/* xor %edx, %edx */
	EMIT(j, 0xf7, 0xf1);			/* div %ecx */
	EMIT(j, 0x49, 0x01, 0xc3);		/* add %rax, %r11 */
	EMIT(j, 0x49, 0xff, 0xc2);		/* inc %r10 */
	EMIT(j, 0x4d, 0x39, 0xc2);		/* cmp %r8, %r10 */
	EMIT(j, 0x0f, 0x82);			/* jb loop */
	emit_rel32(j, loop);
	done = j->len;
	if (!j->err) {
		int32_t rel = (int32_t)(done - (jz_at + 4));

		memcpy(j->buf + jz_at, &rel, 4);
	}
	EMIT(j, 0x4d, 0x89, 0x19);		/* mov %r11, (%r9) */
	/* lwpins $MARK_EXIT, %r10d, %r11: Data1 = i, Data2 = sum */
	emit_lwp(j, LWP_INSN_LWPINS, LWP_REG_R11, LWP_REG_R10, MARK_EXIT);
	EMIT(j, 0x4c, 0x89, 0xd8);		/* mov %r11, %rax */
	EMIT(j, 0x5b);				/* pop %rbx */
	EMIT(j, 0xc3);				/* ret */
	return j->err;
}

/* Generate the loop into a fresh RX mapping. Returns 0 or -errno. */
static int jit_load(struct jit *j)
{
	j->cap = 4096;
	j->buf = mmap(NULL, j->cap, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (j->buf == MAP_FAILED)
		return -errno;
	if (jit_compile(j))
		return j->err;
	return mprotect(j->buf, j->cap, PROT_READ | PROT_EXEC) ? -errno : 0;
}

/* This thread's CPU time, seconds (the machine may be shared). */
static double cpu_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * One timed run of the JIT code @fn with LWP started on @s (LLWPCB ...
 * LLWPCB 0 around it): *@t its thread CPU time in seconds, *@sum what it
 * stored. Returns 0, or 1 after saying what went wrong (LWP could not start,
 * the code computed something else than @want).
 */
static int jit_run(struct lwp_session *s,
		   uint64_t (*fn)(const uint32_t *, const uint32_t *, uint64_t, uint64_t *),
		   const uint32_t *dividend, const uint32_t *divisor, uint64_t n,
		   uint64_t want, uint64_t *sum, double *t)
{
	uint64_t ret;
	int err = lwp_start(s);

	if (err) {
		fprintf(stderr, "lwpt-jitdemo: lwp_start: %s\n", strerror(-err));
		return 1;
	}
	*t = cpu_time();
	ret = fn(dividend, divisor, n, sum);
	*t = cpu_time() - *t;
	lwp_stop(s);
	if (ret != want || *sum != want) {
		fprintf(stderr, "lwpt-jitdemo: JIT code computed %" PRIu64
			", expected %" PRIu64 "\n", *sum, want);
		return 1;
	}
	return 0;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 70% divide by 10, 20% by 3, 10% by something in 1..1000. */
static uint32_t pick_divisor(uint64_t *s)
{
	uint64_t r = rng_next(s) % 100;

	if (r < 70)
		return 10;
	if (r < 90)
		return 3;
	return 1 + (uint32_t)(rng_next(s) % 1000);
}

struct bucket {
	uint32_t value;
	uint64_t count;
};

static int by_count(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iterations", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ "backend", required_argument, NULL, 'b' },
		{ "dump", no_argument, NULL, 'd' },
		{ "raw", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct lwp_config cfg = LWP_CONFIG_INIT;
	struct bucket hist[MAX_VALUES + 1];
	uint64_t n = 100000, seed = 1, sum = 0, want = 0, samples = 0;
	uint64_t marks = 0, shown, i, ret, missed;
	uint32_t *dividend, *divisor;
	struct lwp_session *s;
	struct lwp_event ev[256];
	struct jit j = { 0 }, jb = { 0 };
	double t_lwp, t_base, t_cold;
	size_t nb = 0, k;
	int c, err, dump = 0;
	ssize_t got;
	uint64_t (*fn)(const uint32_t *, const uint32_t *, uint64_t, uint64_t *);
	uint64_t (*fb)(const uint32_t *, const uint32_t *, uint64_t, uint64_t *);

	cfg.interval[LWP_EVENT_VAL] = 99;
	while ((c = getopt_long(argc, argv, "n:i:r:s:b:dRh", opts, NULL)) != -1) {
		switch (c) {
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 'i': cfg.interval[LWP_EVENT_VAL] = (int32_t)strtol(optarg, NULL, 0); break;
		case 'r': cfg.random_bits = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0) | 1; break;
		case 'b':
			if (!strcmp(optarg, "hw"))
				cfg.backend = LWP_BACKEND_HW;
			else if (!strcmp(optarg, "emu"))
				cfg.backend = LWP_BACKEND_EMU;
			else if (!strcmp(optarg, "auto"))
				cfg.backend = LWP_BACKEND_AUTO;
			else {
				fprintf(stderr, "lwpt-jitdemo: -b/--backend '%s': not auto, hw or emu\n",
					optarg);
				return 2;
			}
			break;
		case 'd': dump = 1; break;
		case 'R': j.raw = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("lwpt-jitdemo %s (lwpt)\n", LWPT_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "lwpt-jitdemo: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (n == 0 || n > (1ull << 32)) {
		fprintf(stderr, "lwpt-jitdemo: -n: %" PRIu64 " iterations: must be 1 to 2^32\n", n);
		return 2;
	}

	/* Room for every sample and the two markers (or lwp_missed() says). */
	{
		uint64_t recs = n / ((uint64_t)(cfg.interval[LWP_EVENT_VAL] < 0 ? 0 :
				     cfg.interval[LWP_EVENT_VAL]) + 1) + 64;

		cfg.buffer_records = recs > (1u << 20) ? (1u << 20) : (uint32_t)recs;
	}
	err = lwp_open(&s, &cfg);
	if (err) {
		fprintf(stderr, "lwpt-jitdemo: lwp_open: %s\n", strerror(-err));
		return 1;
	}

	/*
	 * With --raw the JIT code holds raw LWP instructions: on the emulation
	 * they need #UD (SIGILL). Where XOP runs as POP (QEMU TCG) they would
	 * corrupt the stack: refuse, and say what to do (issue 14 §3). The
	 * call sequences of lwp_jit_encode() need no trap.
	 */
	if (j.raw && lwp_session_backend(s) == LWP_BACKEND_EMU &&
	    lwp_raw_insns_trap() != 1) {
		fprintf(stderr,
			"lwpt-jitdemo: --raw: this CPU executes LWP instructions (XOP 8F) as POP\n"
			"instead of raising #UD (QEMU TCG without KVM), so the emulation cannot\n"
			"catch the raw instructions of the JIT code. Drop --raw (call sequences\n"
			"need no trap), run it on LWP hardware or under KVM, or use -b hw with\n"
			"lwpt_sim.ko loaded with ud2_marker=1.\n");
		lwp_close(s);
		return 1;
	}
	if (lwp_session_backend(s) == LWP_BACKEND_HW) {
		struct lwp_caps hc;

		if (lwp_query_backend(&hc, LWP_BACKEND_HW) == 0)
			j.ud2 = (int)hc.hw_ud2_marker;
	}
	j.s = s;
	jb.no_lwp = 1;
	if (jit_load(&j) || jit_load(&jb)) {
		fprintf(stderr, "lwpt-jitdemo: code generation failed\n");
		return 1;
	}
	fn = (uint64_t (*)(const uint32_t *, const uint32_t *, uint64_t,
			   uint64_t *))(uintptr_t)j.buf;
	fb = (uint64_t (*)(const uint32_t *, const uint32_t *, uint64_t,
			   uint64_t *))(uintptr_t)jb.buf;
	jit_dump_code("lwpt_jit_divsum", j.buf, j.len);	/* for ptflow, perf */
	jit_dump_code("lwpt_jit_divsum_nolwp", jb.buf, jb.len);	/* the baseline */

	dividend = malloc(n * sizeof(*dividend));
	divisor = malloc(n * sizeof(*divisor));
	if (!dividend || !divisor) {
		fprintf(stderr, "lwpt-jitdemo: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		dividend[i] = (uint32_t)rng_next(&seed);
		divisor[i] = pick_divisor(&seed);
		want += dividend[i] / divisor[i];
	}

	printf("lwpt-jitdemo: backend %s, %zu bytes of code at %p, %" PRIu64
	       " iterations, EventInterval1 %d, Random %u\n",
	       lwp_backend_name(lwp_session_backend(s)), j.len, (void *)j.buf, n,
	       cfg.interval[LWP_EVENT_VAL], cfg.random_bits);
	t_base = cpu_time();
	ret = fb(dividend, divisor, n, &sum);
	t_base = cpu_time() - t_base;
	if (ret != want) {
		fprintf(stderr, "lwpt-jitdemo: baseline code computed %" PRIu64
			", expected %" PRIu64 "\n", ret, want);
		return 2;
	}
	/*
	 * Cold: the ring was just mapped, so the first store into each of its
	 * pages takes a page fault inside the timed part (issue 28, finding
	 * 7). The profile below is of this run; the cost line is of the next.
	 */
	if (jit_run(s, fn, dividend, divisor, n, want, &sum, &t_cold))
		return 1;

	memset(hist, 0, sizeof(hist));
	while ((got = lwp_read(s, ev, 256)) > 0) {
		for (k = 0; k < (size_t)got; k++) {
			const struct lwp_event *e = &ev[k];
			size_t b;

			if (dump)
				printf("  id %3u core %3u flags %#06x data1 %#010x "
				       "ip %#" PRIx64 " data2 %#" PRIx64 "\n",
				       e->event_id, e->core_id, e->flags, e->data1,
				       e->inst_addr, e->data2);
			if (e->event_id == LWP_EVENT_INS) {
				marks++;
				if (lwp_event_imm(e) == MARK_EXIT &&
				    lwp_event_reg(e) != sum)
					fprintf(stderr, "exit marker: sum %" PRIu64
						" in the record, %" PRIu64 " computed\n",
						lwp_event_reg(e), sum);
				continue;
			}
			if (e->event_id != LWP_EVENT_VAL || lwp_event_imm(e) != SITE_DIV)
				continue;
			samples++;
			for (b = 0; b < nb && hist[b].value != lwp_event_value(e); b++)
				;
			if (b == nb) {
				if (nb == MAX_VALUES)
					continue;	/* counted in (other) */
				hist[nb].value = lwp_event_value(e);
				nb++;
			}
			hist[b].count++;
		}
	}
	/*
	 * Warm: the same run again on the drained ring, whose pages the cold
	 * run touched (it stored as many records): the cost of LWP alone.
	 */
	missed = lwp_missed(s);
	if (jit_run(s, fn, dividend, divisor, n, want, &sum, &t_lwp))
		return 1;
	while (lwp_read(s, ev, 256) > 0)
		;
	qsort(hist, nb, sizeof(hist[0]), by_count);
	printf("LWPINS markers: %" PRIu64 ", LWPVAL samples: %" PRIu64
	       ", MissedEvents: %" PRIu64 "\n", marks, samples, missed);
	printf("value profile of the divisor at site %#x (top %d):\n", SITE_DIV, 8);
	shown = 0;
	for (k = 0; k < nb && k < 8; k++) {
		double pct = samples ? 100.0 * (double)hist[k].count / (double)samples : 0;
		int bar = (int)(pct / 2);

		shown += hist[k].count;
		printf("  %10u  %8" PRIu64 "  %5.1f%%  %.*s\n", hist[k].value,
		       hist[k].count, pct, bar,
		       "##################################################");
	}
	if (samples > shown)
		printf("  %10s  %8" PRIu64 "  %5.1f%%\n", "(other)", samples - shown,
		       100.0 * (double)(samples - shown) / (double)samples);
	/* One LWPVAL per iteration; the records are the samples stored. */
	printf("cost: %.1f ns CPU per LWPVAL executed, %.1f ns per sample stored "
	       "(%s; warm ring; cold ring, its first-touch page faults counted: "
	       "%.1f ns per LWPVAL; loop %.1f ns per iteration with LWP, %.1f without)\n",
	       (t_lwp - t_base) * 1e9 / (double)n,
	       samples ? (t_lwp - t_base) * 1e9 / (double)samples : 0.0,
	       j.raw ? "raw instructions" :
	       lwp_session_backend(s) == LWP_BACKEND_EMU ? "call sequences" :
	       j.ud2 ? "UD2 + LWP instructions, each a trap into lwpt_sim.ko" :
	       "LWP instructions", (t_cold - t_base) * 1e9 / (double)n,
	       t_lwp * 1e9 / (double)n, t_base * 1e9 / (double)n);
	if (nb && samples && hist[0].count * 2 > samples)
		printf("hint: divisor %u in %.0f%% of samples: specialise the "
		       "division for it\n", hist[0].value,
		       100.0 * (double)hist[0].count / (double)samples);
	lwp_close(s);
	munmap(j.buf, j.cap);
	munmap(jb.buf, jb.cap);
	free(dividend);
	free(divisor);
	return 0;
}
