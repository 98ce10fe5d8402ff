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
 *   sweep     2356 forms assembled by GNU as at build time: every register
 *             pair (RSP aside) as Data2/Data1 in both operand sizes, and
 *             8(base,index,scale) for every base/index pair and scale, for
 *             LWPINS and LWPVAL; every field and InstructionAddress checked
 *   full      ring full: CF = 1, MissedEvents (43724 §5.4, §6)
 *   threshold lwp_wait() returns on the threshold interrupt (§6, §8.5)
 *   threads   start/stop from another thread fail (-EBUSY/-EPERM), a second
 *             thread has its own session, draining from another thread
 *
 *   bench     (only when asked) ns per trapped LWPINS and LWPVAL, printed
 *
 * Under QEMU TCG the LWP instructions need lwpt_sim.ko ud2_marker=1; liblwp
 * reports that in lwp_caps.hw_ud2_marker and the asm here follows it.
 * Prints "liblwp_test: N passed, N failed"; exit status 1 on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ---- Operand-form sweep, assembled by GNU as at build time --------------- */

/*
 * Every register pair as (Data2 = vvvv, Data1 = ModRM.rm) in both operand
 * sizes for LWPINS and LWPVAL (RSP excluded: it holds the stack), and
 * memory operands 8(base, index, scale) for every base/index pair (RSP, R15
 * excluded; R15 carries Data2) and every scale. Each form is emitted twice,
 * with and without the UD2 marker; the address of every LWP instruction
 * goes to a table. Values and immediates are functions of the register
 * numbers, recomputed by sweep_expect() below.
 */
#define SW_REGS(X, ...)							\
	X(0, rax, eax, __VA_ARGS__) X(1, rcx, ecx, __VA_ARGS__)		\
	X(2, rdx, edx, __VA_ARGS__) X(3, rbx, ebx, __VA_ARGS__)		\
	X(5, rbp, ebp, __VA_ARGS__) X(6, rsi, esi, __VA_ARGS__)		\
	X(7, rdi, edi, __VA_ARGS__) X(8, r8, r8d, __VA_ARGS__)		\
	X(9, r9, r9d, __VA_ARGS__) X(10, r10, r10d, __VA_ARGS__)	\
	X(11, r11, r11d, __VA_ARGS__) X(12, r12, r12d, __VA_ARGS__)	\
	X(13, r13, r13d, __VA_ARGS__) X(14, r14, r14d, __VA_ARGS__)	\
	X(15, r15, r15d, __VA_ARGS__)
#define SW_REGS2(X, ...)						\
	X(0, rax, eax, __VA_ARGS__) X(1, rcx, ecx, __VA_ARGS__)		\
	X(2, rdx, edx, __VA_ARGS__) X(3, rbx, ebx, __VA_ARGS__)		\
	X(5, rbp, ebp, __VA_ARGS__) X(6, rsi, esi, __VA_ARGS__)		\
	X(7, rdi, edi, __VA_ARGS__) X(8, r8, r8d, __VA_ARGS__)		\
	X(9, r9, r9d, __VA_ARGS__) X(10, r10, r10d, __VA_ARGS__)	\
	X(11, r11, r11d, __VA_ARGS__) X(12, r12, r12d, __VA_ARGS__)	\
	X(13, r13, r13d, __VA_ARGS__) X(14, r14, r14d, __VA_ARGS__)	\
	X(15, r15, r15d, __VA_ARGS__)
#define SW_MREGS(X, ...)						\
	X(0, rax, eax, __VA_ARGS__) X(1, rcx, ecx, __VA_ARGS__)		\
	X(2, rdx, edx, __VA_ARGS__) X(3, rbx, ebx, __VA_ARGS__)		\
	X(5, rbp, ebp, __VA_ARGS__) X(6, rsi, esi, __VA_ARGS__)		\
	X(7, rdi, edi, __VA_ARGS__) X(8, r8, r8d, __VA_ARGS__)		\
	X(9, r9, r9d, __VA_ARGS__) X(10, r10, r10d, __VA_ARGS__)	\
	X(11, r11, r11d, __VA_ARGS__) X(12, r12, r12d, __VA_ARGS__)	\
	X(13, r13, r13d, __VA_ARGS__) X(14, r14, r14d, __VA_ARGS__)
#define SW_MREGS2(X, ...)						\
	X(0, rax, eax, __VA_ARGS__) X(1, rcx, ecx, __VA_ARGS__)		\
	X(2, rdx, edx, __VA_ARGS__) X(3, rbx, ebx, __VA_ARGS__)		\
	X(5, rbp, ebp, __VA_ARGS__) X(6, rsi, esi, __VA_ARGS__)		\
	X(7, rdi, edi, __VA_ARGS__) X(8, r8, r8d, __VA_ARGS__)		\
	X(9, r9, r9d, __VA_ARGS__) X(10, r10, r10d, __VA_ARGS__)	\
	X(11, r11, r11d, __VA_ARGS__) X(12, r12, r12d, __VA_ARGS__)	\
	X(13, r13, r13d, __VA_ARGS__) X(14, r14, r14d, __VA_ARGS__)

/* Register forms: op (0 lwpins, 1 lwpval) x size x vvvv x rm. */
#define SW_R_IN(dn, dq, dd, vn, vq, vd, ud)				\
	"SWR " #ud ", " #vn ", " #dn ", " #vq ", " #vd ", " #dd "\n"
#define SW_R_OUT(vn, vq, vd, ud) SW_REGS2(SW_R_IN, vn, vq, vd, ud)
/* Memory forms: op x size x base x index x scale. */
#define SW_M_IN(in, iq, id, bn, bq, bd, ud)				\
	"SWM " #ud ", " #bn ", " #in ", " #bq ", " #iq "\n"
#define SW_M_OUT(bn, bq, bd, ud) SW_MREGS2(SW_M_IN, bn, bq, bd, ud)

#define SW_FUNC(ud)							\
	".globl sweep_run" #ud "\n"					\
	"sweep_run" #ud ":\n"						\
	"push %rbx\n push %rbp\n push %r12\n push %r13\n"		\
	"push %r14\n push %r15\n"					\
	".pushsection .data.sweep" #ud ", \"aw\"\n"			\
	".globl sweep_tab" #ud "\n"					\
	"sweep_tab" #ud ":\n"						\
	".popsection\n"							\
	SW_REGS(SW_R_OUT, ud)						\
	SW_MREGS(SW_M_OUT, ud)						\
	"pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n" \
	"ret\n"

__asm__(
	".text\n"
	/* One instruction with its address recorded in .data.sweep<ud>. */
	".macro SWI ud, insn:vararg\n"
	"  .if \\ud\n"
	"  ud2\n"
	"  .endif\n"
	"swi\\@: \\insn\n"
	"  .pushsection .data.sweep\\ud, \"aw\"\n"
	"  .quad swi\\@\n"
	"  .popsection\n"
	".endm\n"
	".macro SWR ud, vn, dn, vq, vd, dd\n"
	"  .irp op, 0, 1\n"
	"  .irp sz, 32, 64\n"
	"  movabs $(0x8000000000000000 | (\\vn << 40) | (\\dn << 8) | \\sz), %\\vq\n"
	"  mov $(0x80000000 | (\\dn << 16) | (\\vn << 4) | \\op), %\\dd\n"
	"  .if \\op == 0\n"
	"  .if \\sz == 32\n"
	"  SWI \\ud, lwpins $((\\vn << 4) | \\dn), %\\dd, %\\vd\n"
	"  .else\n"
	"  SWI \\ud, lwpins $(0x100 | (\\vn << 4) | \\dn), %\\dd, %\\vq\n"
	"  .endif\n"
	"  .else\n"
	"  .if \\sz == 32\n"
	"  SWI \\ud, lwpval $(0x200 | (\\vn << 4) | \\dn), %\\dd, %\\vd\n"
	"  .else\n"
	"  SWI \\ud, lwpval $(0x300 | (\\vn << 4) | \\dn), %\\dd, %\\vq\n"
	"  .endif\n"
	"  .endif\n"
	"  .endr\n"
	"  .endr\n"
	".endm\n"
	".macro SWM ud, bn, in, bq, iq\n"
	"  .if \\bn - \\in\n"
	"  .irp op, 0, 1\n"
	"  .irp sc, 1, 2, 4, 8\n"
	"  mov $(1 + (\\bn & 3)), %\\iq\n"
	"  lea sweep_data(%rip), %\\bq\n"
	"  movabs $(0x4000000000000000 | (\\bn << 40) | (\\in << 8) | \\sc), %r15\n"
	"  .if \\op == 0\n"
	"  SWI \\ud, lwpins $(0x1000 | (\\sc << 8) | (\\bn << 4) | \\in), 8(%\\bq,%\\iq,\\sc), %r15\n"
	"  .else\n"
	"  SWI \\ud, lwpval $(0x2000 | (\\sc << 8) | (\\bn << 4) | \\in), 8(%\\bq,%\\iq,\\sc), %r15d\n"
	"  .endif\n"
	"  .endr\n"
	"  .endr\n"
	"  .endif\n"
	".endm\n"
	SW_FUNC(0)
	SW_FUNC(1)
	".purgem SWI\n.purgem SWR\n.purgem SWM\n");

void sweep_run0(void);
void sweep_run1(void);
extern const uint64_t sweep_tab0[], sweep_tab1[];
uint8_t sweep_data[128] __attribute__((used, aligned(8)));

static const uint8_t sw_regs[] = { 0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12,
				   13, 14, 15 };

/* The records sweep_run<ud> must produce, in order; returns the count. */
static unsigned int sweep_expect(struct want *w, unsigned int max)
{
	unsigned int n = 0, a, b, op, sz, sc, vn, dn, bn, in;
	uint64_t v;
	uint32_t d;

	for (a = 0; a < sizeof(sw_regs); a++)
		for (b = 0; b < sizeof(sw_regs); b++)
			for (op = 0; op < 2; op++)
				for (sz = 32; sz <= 64; sz += 32) {
					vn = sw_regs[a];
					dn = sw_regs[b];
					v = 0x8000000000000000ull |
					    ((uint64_t)vn << 40) | (dn << 8) | sz;
					d = 0x80000000u | (dn << 16) | (vn << 4) | op;
					/* mov to the 32-bit rm register
					 * zero-extends into the same vvvv */
					if (vn == dn)
						v = d;
					if (sz == 32)
						v = (uint32_t)v;
					if (n < max)
						w[n] = (struct want){
						    op ? LWP_EVENT_VAL : LWP_EVENT_INS,
						    (uint16_t)((op << 9) | ((sz == 64) << 8) |
							       (vn << 4) | dn),
						    d, v, 0 };
					n++;
				}
	for (a = 0; a + 1 < sizeof(sw_regs); a++)
		for (b = 0; b + 1 < sizeof(sw_regs); b++) {
			bn = sw_regs[a];
			in = sw_regs[b];
			if (bn == in)
				continue;
			for (op = 0; op < 2; op++)
				for (sc = 1; sc <= 8; sc *= 2) {
					v = 0x4000000000000000ull |
					    ((uint64_t)bn << 40) | (in << 8) | sc;
					memcpy(&d, sweep_data + 8 + (1 + (bn & 3)) * sc,
					       sizeof(d));
					if (op)
						v = (uint32_t)v;
					if (n < max)
						w[n] = (struct want){
						    op ? LWP_EVENT_VAL : LWP_EVENT_INS,
						    (uint16_t)(((op + 1) << 12) | (sc << 8) |
							       (bn << 4) | in),
						    d, v, 0 };
					n++;
				}
		}
	return n;
}

#define SWEEP_MAX 4000

static void test_sweep(void)
{
	static struct want w[SWEEP_MAX];
	static struct lwp_event ev[SWEEP_MAX + 1];
	struct lwp_config cfg = base_cfg();
	const uint64_t *tab = ud2 ? sweep_tab1 : sweep_tab0;
	struct lwp_session *s;
	unsigned int n, i, bad = 0;
	ssize_t got;

	for (i = 0; i < sizeof(sweep_data); i++)
		sweep_data[i] = (uint8_t)(i * 37 + 11);
	n = sweep_expect(w, SWEEP_MAX);
	CHECK(n <= SWEEP_MAX, "%u forms", n);
	if (n > SWEEP_MAX)
		return;
	cfg.buffer_records = 4096;
	CHECK(lwp_open(&s, &cfg) == 0, "lwp_open");
	if (!s)
		return;
	CHECK(lwp_start(s) == 0, "lwp_start");
	if (ud2)
		sweep_run1();
	else
		sweep_run0();
	CHECK(lwp_stop(s) == 0, "lwp_stop");
	got = lwp_read(s, ev, SWEEP_MAX + 1);
	CHECK(got == (ssize_t)n, "%zd records of %u forms", got, n);
	for (i = 0; i < n && (ssize_t)i < got; i++) {
		const struct lwp_event *e = &ev[i];

		if (e->event_id == w[i].id && e->flags == w[i].flags &&
		    e->data1 == w[i].d1 && e->data2 == w[i].d2 &&
		    e->inst_addr == tab[i] && e->reserved == 0)
			continue;
		if (bad++ < 10)
			printf("FAIL: form %u: id %u flags %#x d1 %#x d2 %#" PRIx64
			       " ip %#" PRIx64 "; want id %u flags %#x d1 %#x"
			       " d2 %#" PRIx64 " ip %#" PRIx64 "\n", i,
			       e->event_id, e->flags, e->data1, e->data2,
			       e->inst_addr, w[i].id, w[i].flags, w[i].d1,
			       w[i].d2, tab[i]);
	}
	CHECK(bad == 0, "%u of %u forms wrong", bad, n);
	CHECK(lwp_missed(s) == 0, "MissedEvents");
	printf("liblwp_test: sweep: %u forms (GNU as), %zd records checked\n",
	       n, got);
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
	/* Returns as soon as the interrupt is there; the limit only guards a hang. */
	ret = lwp_wait(s, 60000);
	CHECK(ret == 1, "lwp_wait after threshold: %d", ret);
	CHECK(lwp_read(s, ev, 64) == 12, "12 records");
	CHECK(lwp_wait(s, 0) == 0, "interrupt consumed");
	/*
	 * Issue 19: drained with lwp_read() before any lwp_wait(): the
	 * interrupt (delivered now or late, through irq_work) is discarded;
	 * 0 either way. Records stored after the drain wake the reader again.
	 */
	for (i = 0; i < 12; i++)
		(void)lwp_ins32(i, i, 0);
	CHECK(lwp_read(s, ev, 64) == 12, "12 records drained before wait");
	ret = lwp_wait(s, 0);
	CHECK(ret == 0, "wait after drain (poll): %d", ret);
	ret = lwp_wait(s, 300);
	CHECK(ret == 0, "wait after drain: %d", ret);
	for (i = 0; i < 12; i++)
		(void)lwp_ins32(i, i, 0);
	ret = lwp_wait(s, 5000);
	CHECK(ret == 1, "wait after new records: %d", ret);
	CHECK(lwp_read(s, ev, 64) == 12, "12 new records");
	CHECK(lwp_stop(s) == 0, "lwp_stop");
	lwp_close(s);

	cfg.flags &= ~(uint32_t)LWP_FLAG_INT;
	CHECK(lwp_open(&s, &cfg) == 0, "lwp_open no INT");
	if (s) {
		CHECK(lwp_wait(s, 0) == -ENOTSUP, "wait without INT");
		lwp_close(s);
	}
}

/* ---- Threads: the session belongs to the thread that opened it --------- */

static struct lwp_session *th_s;
static int th_ret[3];

static void *th_other(void *arg)
{
	struct lwp_config cfg = base_cfg();
	struct lwp_session *own;

	(void)arg;
	th_ret[0] = lwp_start(th_s);	/* not the opener: -EBUSY */
	th_ret[1] = lwp_stop(th_s);	/* not the owner: -EPERM */
	/* A second thread gets LWP through its own session. */
	th_ret[2] = lwp_open(&own, &cfg);
	if (!th_ret[2]) {
		if (lwp_start(own) || lwp_ins32(1, 2, 3) != 0 ||
		    lwp_stop(own) || lwp_pending(own) != 1)
			th_ret[2] = -EIO;
		lwp_close(own);
	}
	return NULL;
}

static void *th_drain(void *arg)
{
	struct lwp_event ev[16];

	(void)arg;
	return (void *)(intptr_t)lwp_read(th_s, ev, 16);
}

static void test_threads(void)
{
	struct lwp_config cfg = base_cfg();
	pthread_t t;
	void *r;

	CHECK(lwp_open(&th_s, &cfg) == 0, "lwp_open");
	if (!th_s)
		return;
	CHECK(lwp_start(th_s) == 0, "lwp_start");
	CHECK(pthread_create(&t, NULL, th_other, NULL) == 0, "thread");
	pthread_join(t, NULL);
	CHECK(th_ret[0] == -EBUSY, "start on another thread: %d", th_ret[0]);
	CHECK(th_ret[1] == -EPERM, "stop on another thread: %d", th_ret[1]);
	CHECK(th_ret[2] == 0, "own session on another thread: %d", th_ret[2]);
	CHECK(lwp_ins32(4, 5, 6) == 0, "LWPINS");
	/*
	 * Draining from another thread (43724 §1.1 polling model). Another
	 * thread reads what the unit flushed (§8.3): with lwp_lazy_head=1
	 * only after a threshold, a full ring or the owner's SLWPCB, which
	 * lwp_pending() on the owner executes (Documentation/liblwp.rst).
	 */
	CHECK(lwp_pending(th_s) == 1, "pending on the owner");
	CHECK(pthread_create(&t, NULL, th_drain, NULL) == 0, "thread");
	pthread_join(t, &r);
	CHECK((intptr_t)r == 1, "drained %ld on another thread", (long)(intptr_t)r);
	CHECK(lwp_stop(th_s) == 0, "lwp_stop");
	lwp_close(th_s);
}

/*
 * Figures, not checks: the cost of one LWP instruction on this backend
 * (under QEMU TCG with lwpt_sim.ko: #UD, the module's emulation, return).
 */
static double bench_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void bench(void)
{
	struct lwp_config cfg = base_cfg();
	struct lwp_session *s;
	struct lwp_event ev[256];
	unsigned int i, n = 20000;
	double t0, t1, t2;

	cfg.interval[LWP_EVENT_VAL] = 1000000;	/* LWPVAL: count, no store */
	if (lwp_open(&s, &cfg) || lwp_start(s)) {
		CHECK(0, "bench: lwp_open/lwp_start");
		return;
	}
	t0 = bench_ns();
	for (i = 0; i < n; i++) {
		(void)lwp_ins32(i, i, 1);
		if ((i & 127) == 127)
			while (lwp_read(s, ev, 256) > 0)
				;
	}
	t1 = bench_ns();
	for (i = 0; i < n; i++)
		lwp_val32(i, i, 1);
	t2 = bench_ns();
	(void)lwp_stop(s);
	lwp_close(s);
	printf("liblwp_test: bench: trapped LWPINS (store) %.0f ns, trapped"
	       " LWPVAL (no store) %.0f ns, %u each (%s)\n",
	       (t1 - t0) / n, (t2 - t1) / n, n,
	       ud2 ? "UD2 marker, QEMU TCG" : "raw");
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	int all = !strcmp(what, "all");

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_backend();
	if (all || !strcmp(what, "forms"))
		test_forms();
	if (all || !strcmp(what, "sweep"))
		test_sweep();
	if (all || !strcmp(what, "full"))
		test_full();
	if (all || !strcmp(what, "threshold"))
		test_threshold();
	if (all || !strcmp(what, "threads"))
		test_threads();
	if (!strcmp(what, "bench"))
		bench();
	printf("liblwp_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
