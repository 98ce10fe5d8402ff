// SPDX-License-Identifier: GPL-2.0
/*
 * liblwp's hardware backend on /dev/lwp (lwpt_sim.ko in the VM), linked
 * statically with liblwp.a. The same record checks as the host tests of the
 * emulation (tests/liblwp/test_lwp_emu.c, test_lwp_forms.c), here through
 * the real instructions trapped by the module:
 *
 *   backend   lwp_query()/lwp_open() choose LWP_BACKEND_HW; caps from the
 *             kernel; LIBLWP_BACKEND=emu forces the emulation
 *   forms     LWPINS/LWPVAL assembled by GNU as (register 32/64, r8-r15,
 *             RIP-relative, base+index*scale+disp memory) and the inline
 *             wrappers: EventId, Flags = imm & 0xffff, Data1, Data2,
 *             InstructionAddress, reserved bytes (43724 §5.3, §5.4,
 *             Figures 2-2, 2-8); LWPINS before lwp_start() stores nothing
 *   full      ring full: CF = 1, MissedEvents (43724 §5.4, §6)
 *   threshold lwp_wait() returns on the threshold interrupt (§6, §8.5)
 *
 * Under QEMU TCG the LWP instructions need lwpt_sim.ko ud2_marker=1; liblwp
 * reports that in lwp_caps.hw_ud2_marker and the asm here follows it.
 * Prints "liblwp_test: N passed, N failed"; exit status 1 on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/lwp.h>

static int passed, failed;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL: %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static int ud2;		/* lwp_caps.hw_ud2_marker */

/*
 * One raw LWP instruction as GNU as assembles it, with its address in
 * [ip]: under TCG preceded by the UD2 marker.
 */
#define RAW(ipvar, insn, outs, ins) do {				\
	if (ud2)							\
		__asm__ __volatile__("lea 1f(%%rip), %[ip]\n\tud2\n1:\t" insn \
				     : [ip] "=&r"(ipvar) outs : ins	\
				     : "cc", "memory");			\
	else								\
		__asm__ __volatile__("lea 1f(%%rip), %[ip]\n1:\t" insn	\
				     : [ip] "=&r"(ipvar) outs : ins	\
				     : "cc", "memory");			\
} while (0)
#define OUTS(...) , __VA_ARGS__
#define INS(...) __VA_ARGS__

struct want {
	uint8_t id;
	uint16_t flags;
	uint32_t d1;
	uint64_t d2;
	uint64_t ip;		/* 0: not checked (wrappers) */
};

static struct want want[64];
static unsigned int nwant;

static void expect(uint8_t id, uint32_t imm, uint32_t d1, uint64_t d2,
		   uint64_t ip)
{
	want[nwant++] = (struct want){ id, (uint16_t)imm, d1, d2, ip };
}

/* Global: named by RIP-relative operands in the asm. */
uint32_t memval __attribute__((used)) = 0xCAFEF00Du;
static uint32_t arr[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 0x10203040u, 9 };

static struct lwp_config base_cfg(void)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;

	cfg.backend = LWP_BACKEND_HW;
	cfg.buffer_records = 256;
	return cfg;
}

static void test_backend(void)
{
	struct lwp_caps c;
	struct lwp_session *s;
	struct lwp_config cfg = LWP_CONFIG_INIT;

	CHECK(lwp_query(&c) == 0, "lwp_query");
	CHECK(c.backend == LWP_BACKEND_HW, "default backend %u", c.backend);
	CHECK(c.hw_available && c.hw_sim && c.hw_abi_version,
	      "hw %u sim %u abi %#x", c.hw_available, c.hw_sim, c.hw_abi_version);
	CHECK(c.available && (c.available_flags & LWP_FLAG_VAL),
	      "available %u flags %#x", c.available, c.available_flags);
	CHECK(c.lwpcb_size && c.event_size == 32, "sizes %u %u",
	      c.lwpcb_size, c.event_size);
	ud2 = (int)c.hw_ud2_marker;
	printf("liblwp_test: hw backend, abi %#x, EAX %#x EDX %#x, ud2 marker %d\n",
	       c.hw_abi_version, c.cpuid_eax, c.cpuid_edx, ud2);

	CHECK(lwp_open(&s, &cfg) == 0, "lwp_open auto");
	if (s) {
		CHECK(lwp_session_backend(s) == LWP_BACKEND_HW, "auto -> %d",
		      lwp_session_backend(s));
		lwp_close(s);
	}
	setenv("LIBLWP_BACKEND", "emu", 1);
	CHECK(lwp_query(&c) == 0 && c.backend == LWP_BACKEND_EMU,
	      "LIBLWP_BACKEND=emu: backend %u", c.backend);
	unsetenv("LIBLWP_BACKEND");
	cfg.backend = LWP_BACKEND_EMU + 5;
	CHECK(lwp_open(&s, &cfg) == -EINVAL, "bad backend");
}

static void test_forms(void)
{
	struct lwp_config cfg = base_cfg();
	struct lwp_session *s, *s2;
	struct lwp_event ev[64];
	uint64_t ip;
	unsigned char cf;
	ssize_t n;
	unsigned int i;
	int ret;

	ret = lwp_open(&s, &cfg);
	CHECK(ret == 0, "lwp_open hw: %d", ret);
	if (ret)
		return;
	CHECK(lwp_open(&s2, &cfg) == -EBUSY, "second session on the thread");

	/* §5.4: LWP available but not enabled: CF = 0, nothing stored. */
	RAW(ip, "lwpins $1, %k[d1], %k[d2]\n\tsetc %[cf]",
	    OUTS([cf] "=q"(cf)), INS([d1] "r"(1u), [d2] "r"(2u)));
	CHECK(cf == 0, "LWPINS before start: CF %u", cf);
	CHECK(lwp_slwpcb() == NULL, "SLWPCB before start");
	CHECK(lwp_start(s) == 0, "lwp_start");
	CHECK(lwp_slwpcb() == lwp_lwpcb(s, NULL), "SLWPCB = the LWPCB");
	CHECK(lwp_pending(s) == 0, "nothing stored before start");

	/* Register forms, 32 and 64 bit (Figure 2-8). */
	RAW(ip, "lwpins $0x1234, %k[d1], %k[d2]\n\tsetc %[cf]",
	    OUTS([cf] "=q"(cf)),
	    INS([d1] "r"(0x11111111u), [d2] "r"(0x22222222u)));
	CHECK(cf == 0, "CF");
	expect(LWP_EVENT_INS, 0x1234, 0x11111111u, 0x22222222u, ip);

	RAW(ip, "lwpins $0xabcd1, %k[d1], %q[d2]\n\tsetc %[cf]",
	    OUTS([cf] "=q"(cf)),
	    INS([d1] "r"(0x33u), [d2] "r"(0x8877665544332211ull)));
	expect(LWP_EVENT_INS, 0xabcd1, 0x33u, 0x8877665544332211ull, ip);

	{
		register uint32_t r9 __asm__("r9") = 0x99999999u;
		register uint64_t r13 __asm__("r13") = 0x1313131313131313ull;

		RAW(ip, "lwpins $0x55, %%r9d, %%r13\n\tsetc %[cf]",
		    OUTS([cf] "=q"(cf)), INS("r"(r9), "r"(r13)));
		expect(LWP_EVENT_INS, 0x55, 0x99999999u, 0x1313131313131313ull, ip);
	}
	{
		/* Assigned again: the call above clobbers r9 (GCC local
		 * register variables hold only at the asm that uses them). */
		register uint32_t r9 __asm__("r9") = 0x99999999u;
		register uint64_t r13 __asm__("r13") = 0x1313131313131313ull;

		RAW(ip, "lwpval $0x66, %%r9d, %%r13d", , INS("r"(r9), "r"(r13)));
		expect(LWP_EVENT_VAL, 0x66, 0x99999999u, 0x13131313u, ip);
	}

	/* Memory forms: RIP-relative and base + index x scale + disp. */
	RAW(ip, "lwpins $7, memval(%%rip), %q[d2]\n\tsetc %[cf]",
	    OUTS([cf] "=q"(cf)), INS([d2] "r"(0x77ull)));
	expect(LWP_EVENT_INS, 7, memval, 0x77, ip);
	RAW(ip, "lwpins $8, 8(%[b],%[x],4), %k[d2]\n\tsetc %[cf]",
	    OUTS([cf] "=q"(cf)),
	    INS([b] "r"(arr), [x] "r"(6ull), [d2] "r"(0x88u)));
	expect(LWP_EVENT_INS, 8, arr[8], 0x88, ip);
	RAW(ip, "lwpval $0xfffe, memval(%%rip), %q[d2]", ,
	    INS([d2] "r"(0xdeadbeefcafeull)));
	expect(LWP_EVENT_VAL, 0xfffe, memval, 0xdeadbeefcafeull, ip);
	RAW(ip, "lwpval $0x10009, -4(%[b],%[x],8), %k[d2]", ,
	    INS([b] "r"(&arr[1]), [x] "r"(1ull), [d2] "r"(0xffffffffu)));
	expect(LWP_EVENT_VAL, 0x10009, arr[2], 0xffffffffu, ip);
	RAW(ip, "lwpval $3, %k[d1], %q[d2]", ,
	    INS([d1] "r"(5u), [d2] "r"(6ull)));
	expect(LWP_EVENT_VAL, 3, 5, 6, ip);

	/* The inline wrappers (no -mlwp), on the same backend. */
	CHECK(lwp_ins32(0xa, 0xb, 0xc) == 0, "lwp_ins32 CF");
	expect(LWP_EVENT_INS, 0xc, 0xb, 0xa, 0);
	CHECK(lwp_ins64(0x0123456789abcdefull, 2, 0x1ffff) == 0, "lwp_ins64 CF");
	expect(LWP_EVENT_INS, 0xffff, 2, 0x0123456789abcdefull, 0);
	lwp_val32(0xd, 0xe, 0xf);
	expect(LWP_EVENT_VAL, 0xf, 0xe, 0xd, 0);
	lwp_val64(0xfedcba9876543210ull, 7, 0x70);
	expect(LWP_EVENT_VAL, 0x70, 7, 0xfedcba9876543210ull, 0);

	CHECK(lwp_stop(s) == 0, "lwp_stop");
	CHECK(lwp_slwpcb() == NULL, "SLWPCB after stop");
	/* §5.4: disabled again: nothing stored. */
	CHECK(lwp_ins32(1, 1, 1) == 0, "LWPINS after stop");

	n = lwp_read(s, ev, 64);
	CHECK(n == (ssize_t)nwant, "%zd records, want %u", n, nwant);
	for (i = 0; i < nwant && (ssize_t)i < n; i++) {
		const struct lwp_event *e = &ev[i];
		const struct want *w = &want[i];

		CHECK(e->event_id == w->id && e->flags == w->flags &&
		      e->data1 == w->d1 && e->data2 == w->d2 &&
		      e->reserved == 0 && (!w->ip || e->inst_addr == w->ip),
		      "record %u: id %u flags %#x d1 %#x d2 %#" PRIx64
		      " ip %#" PRIx64 " res %#" PRIx64 "; want id %u flags %#x"
		      " d1 %#x d2 %#" PRIx64 " ip %#" PRIx64, i, e->event_id,
		      e->flags, e->data1, e->data2, e->inst_addr, e->reserved,
		      w->id, w->flags, w->d1, w->d2, w->ip);
		CHECK(w->ip || e->inst_addr, "record %u: InstructionAddress", i);
	}
	CHECK(lwp_missed(s) == 0, "MissedEvents %" PRIu64, lwp_missed(s));
	CHECK(lwp_read(s, ev, 64) == 0, "drained");
	lwp_close(s);
	/* LWP unavailable again: a new session may enable it. */
	CHECK(lwp_open(&s, &cfg) == 0, "reopen");
	lwp_close(s);
}

static void test_full(void)
{
	struct lwp_config cfg = base_cfg();
	struct lwp_caps c;
	struct lwp_session *s;
	struct lwp_event ev[512];
	uint32_t i, cap;
	int bad = 0;

	(void)lwp_query_backend(&c, LWP_BACKEND_HW);
	cfg.buffer_records = c.min_buffer_records > 2 ? c.min_buffer_records : 2;
	cap = cfg.buffer_records - 1;	/* head may not reach the tail (§6) */
	if (cfg.buffer_records > 512) {
		CHECK(0, "min_buffer_records %u", cfg.buffer_records);
		return;
	}
	CHECK(lwp_open(&s, &cfg) == 0, "lwp_open");
	if (!s)
		return;
	CHECK(lwp_start(s) == 0, "lwp_start");
	for (i = 0; i < cap; i++)
		bad += lwp_ins32(i, i, 0) != 0;
	CHECK(bad == 0, "%d LWPINS with CF = 1 before full", bad);
	CHECK(lwp_missed(s) == 0, "MissedEvents before full");
	CHECK(lwp_pending(s) == (ssize_t)cap, "pending %zd", lwp_pending(s));
	/* Full: CF = 1, MissedEvents++ (43724 §5.4, §6). */
	CHECK(lwp_ins32(1000, 1000, 0) == 1, "CF when full");
	CHECK(lwp_ins32(1001, 1001, 0) == 1, "CF when full");
	(void)lwp_slwpcb();		/* flush MissedEvents (§5.2) */
	CHECK(lwp_missed(s) == 2, "MissedEvents %" PRIu64, lwp_missed(s));
	CHECK(lwp_stop(s) == 0, "lwp_stop");
	CHECK(lwp_read(s, ev, 512) == (ssize_t)cap, "records kept");
	for (i = 0, bad = 0; i < cap; i++)
		bad += ev[i].data1 != i;
	CHECK(bad == 0, "%d records out of order", bad);
	lwp_close(s);
}

static void test_threshold(void)
{
	struct lwp_config cfg = base_cfg();
	struct lwp_session *s;
	struct lwp_event ev[64];
	int ret, i;

	cfg.flags |= LWP_FLAG_INT;
	cfg.buffer_records = 64;
	cfg.threshold_records = 8;
	ret = lwp_open(&s, &cfg);
	CHECK(ret == 0, "lwp_open INT: %d", ret);
	if (ret)
		return;
	CHECK(lwp_wait_fd(s) >= 0, "wait fd");
	CHECK(lwp_start(s) == 0, "lwp_start");
	CHECK(lwp_wait(s, 0) == 0, "no interrupt yet");
	for (i = 0; i < 12; i++)
		(void)lwp_ins32(i, i, 0);
	ret = lwp_wait(s, 5000);
	CHECK(ret == 1, "lwp_wait after threshold: %d", ret);
	CHECK(lwp_read(s, ev, 64) == 12, "12 records");
	CHECK(lwp_wait(s, 0) == 0, "interrupt consumed");
	CHECK(lwp_stop(s) == 0, "lwp_stop");
	lwp_close(s);

	cfg.flags &= ~(uint32_t)LWP_FLAG_INT;
	CHECK(lwp_open(&s, &cfg) == 0, "lwp_open no INT");
	if (s) {
		CHECK(lwp_wait(s, 0) == -ENOTSUP, "wait without INT");
		lwp_close(s);
	}
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	int all = !strcmp(what, "all");

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_backend();
	if (all || !strcmp(what, "forms"))
		test_forms();
	if (all || !strcmp(what, "full"))
		test_full();
	if (all || !strcmp(what, "threshold"))
		test_threshold();
	printf("liblwp_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
