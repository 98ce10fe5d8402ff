// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs lwpt_sim/selftest: reading it runs the model hardware layer
 * through the rules it implements, on the current CPU, and prints one line
 * per check and "selftest: N passed, N failed". The checks that commit a
 * violation on purpose also check that it was counted; the count stays
 * raised (reload the module to reset it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <lwpt/lwp_arch.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_rtit.h>

#include "../x86_cpuid.h"
#include "sim.h"

/* Bytes of an XSAVE area holding LWP state: legacy, header, LWP (§3.2). */
#define ST_AREA_SIZE	1024

struct st {
	struct seq_file *m;
	int passed;
	int failed;
};

static void st_check(struct st *t, bool ok, const char *what)
{
	seq_printf(t->m, "%s: %s\n", ok ? "ok" : "FAIL", what);
	if (ok)
		t->passed++;
	else
		t->failed++;
}

/* An operation that must fail with @want and count one violation. */
static void st_violation(struct st *t, int got, int want, int before,
			 const char *what)
{
	st_check(t, got == want && sim_violation_count() == before + 1, what);
}

static void st_lwp(struct st *t, u8 *a, u8 *b, u64 xcr0)
{
	struct lwpt_cpuid_regs r;
	u64 *hdr = (u64 *)(a + X86_XSAVE_HDR_OFFSET);
	u64 v = 0;
	int n;

	st_check(t, !lwpt_hw_xsetbv(0, xcr0 | LWP_XCR0_MASK),
		 "XSETBV sets XCR0[62] (43724 §4.1)");
	lwpt_hw_cpuid(LWP_CPUID_FN8000_001C, 0, &r);
	st_check(t, r.eax & LWP_CPUID_LWPAVAIL,
		 "Fn8000_001C_EAX[0] mirrors XCR0[62] (§3.3)");
	lwpt_hw_cpuid(LWP_CPUID_FN0000_000D, 0, &r);
	st_check(t, r.ebx == LWP_XSAVE_AREA_OFFSET + LWP_XSAVE_AREA_SIZE,
		 "Fn0000_000D_EBX covers the LWP area when XCR0[62]=1 (§3.2)");
	st_check(t, !lwpt_hw_wrmsr(LWP_MSR_CBADDR, 0x1000) &&
		 !lwpt_hw_rdmsr(LWP_MSR_CBADDR, &v) && v == 0x1000,
		 "LWP_CBADDR holds what WRMSR wrote");

	/* XRSTOR then XSAVE returns the LWP state (§7, SDM Vol. 1 13.7-13.8). */
	memset(a, 0, ST_AREA_SIZE);
	memset(b, 0, ST_AREA_SIZE);
	memset(a + LWP_XSAVE_AREA_OFFSET, 0x5a, LWP_XSAVE_AREA_SIZE);
	hdr[0] = LWP_XCR0_MASK;
	st_check(t, !lwpt_hw_xrstor(a, LWP_XCR0_MASK) &&
		 !lwpt_hw_xsave(b, LWP_XCR0_MASK) &&
		 !memcmp(a + LWP_XSAVE_AREA_OFFSET, b + LWP_XSAVE_AREA_OFFSET,
			 LWP_XSAVE_AREA_SIZE) &&
		 (((u64 *)(b + X86_XSAVE_HDR_OFFSET))[0] & LWP_XCR0_MASK),
		 "XRSTOR/XSAVE round trip of the LWP component");

	/* §8.7.2: XRSTOR with XSTATE_BV[62]=0 turns LWP off. */
	lwpt_hw_wrmsr(LWP_MSR_CBADDR, 0x2000);
	hdr[0] = 0;
	st_check(t, !lwpt_hw_xrstor(a, LWP_XCR0_MASK) &&
		 !lwpt_hw_rdmsr(LWP_MSR_CBADDR, &v) && v == 0,
		 "XRSTOR with XSTATE_BV[62]=0 clears LWP_CBADDR (§8.7.2)");

	n = sim_violation_count();
	hdr[1] = 1;	/* XCOMP_BV */
	st_violation(t, lwpt_hw_xrstor(a, LWP_XCR0_MASK), -EIO, n,
		     "XRSTOR with XCOMP_BV != 0 without XSAVEC is #GP");
	hdr[1] = 0;
	n = sim_violation_count();
	st_violation(t, lwpt_hw_xsave(a + 16, LWP_XCR0_MASK), -EIO, n,
		     "XSAVE to a misaligned area is #GP");

	/* §4.1: clearing XCR0[62] stores 0 into LWP_CBADDR. */
	lwpt_hw_wrmsr(LWP_MSR_CBADDR, 0x3000);
	st_check(t, !lwpt_hw_xsetbv(0, xcr0 & ~LWP_XCR0_MASK) &&
		 !lwpt_hw_rdmsr(LWP_MSR_CBADDR, &v) && v == 0,
		 "clearing XCR0[62] zeroes LWP_CBADDR (§4.1)");
}

static void st_pt(struct st *t)
{
	struct lwpt_cpuid_regs l0, l1;
	u32 ranges;
	u64 v;
	int n;

	lwpt_hw_cpuid(PT_CPUID_LEAF, 0, &l0);
	lwpt_hw_cpuid(PT_CPUID_LEAF, 1, &l1);
	ranges = (l1.eax & PT_CPUID_1_EAX_NUM_RANGES_MASK) >>
		 PT_CPUID_1_EAX_NUM_RANGES_SHIFT;
	if (!(l0.ebx & PT_CPUID_0_EBX_IP_FILTER))
		ranges = 0;
	st_check(t, !lwpt_hw_rdmsr(IA32_RTIT_CTL, &v) && !lwpt_hw_rdmsr(IA32_RTIT_STATUS, &v),
		 "IA32_RTIT_CTL and IA32_RTIT_STATUS exist (SDM 33.2.8)");
	if (ranges) {
		st_check(t, !lwpt_hw_rdmsr(IA32_RTIT_ADDR0_A + 2 * ranges - 1, &v),
			 "the last enumerated ADDRn_B exists (Table 33-12)");
	}
	if (ranges < PT_ADDR_RANGES_MAX) {
		n = sim_violation_count();
		st_violation(t, lwpt_hw_rdmsr(IA32_RTIT_ADDR0_A + 2 * ranges, &v),
			     -EIO, n, "an ADDRn_A beyond RANGECNT is #GP (Table 33-12)");
	}
}

static int sim_selftest_show(struct seq_file *m, void *unused)
{
	struct st t = { .m = m };
	struct lwpt_cpuid_regs r;
	u8 *a, *b;
	u64 xcr0 = 0, v;
	int n;

	/* Power-of-two kmalloc sizes are naturally aligned: 64 bytes is met. */
	a = kzalloc(ST_AREA_SIZE, GFP_KERNEL);
	b = kzalloc(ST_AREA_SIZE, GFP_KERNEL);
	if (!a || !b) {
		kfree(a);
		kfree(b);
		return -ENOMEM;
	}

	get_cpu();
	lwpt_hw_cpuid(X86_CPUID_VENDOR, 0, &r);
	if (sim_is_intel())
		st_check(&t, !memcmp(&r.ebx, X86_VENDOR_INTEL_STR, 4),
			 "vendor GenuineIntel: PT without LWP is the profile's Intel processor");
	else
		st_check(&t, !memcmp(&r.ebx, X86_VENDOR_AMD_STR, 4),
			 "vendor AuthenticAMD (43724 §8.7.1)");
	st_check(&t, !lwpt_hw_xgetbv(0, &xcr0) && (xcr0 & 1),
		 "XGETBV(0) reads XCR0 with x87 enabled");

	n = sim_violation_count();
	st_violation(&t, lwpt_hw_xsetbv(0, xcr0 & ~1ull), -EIO, n,
		     "XSETBV clearing XCR0[0] is #GP");
	n = sim_violation_count();
	st_violation(&t, lwpt_hw_xgetbv(1, &v), -EIO, n,
		     "XGETBV(1) without XGETBV1 is #GP");
	n = sim_violation_count();
	if (!sim_has_pt_xsaves())
		st_violation(&t, lwpt_hw_rdmsr(IA32_XSS, &v), -EIO, n,
			     "IA32_XSS without XSAVES is #GP");
	else
		st_check(&t, !lwpt_hw_rdmsr(IA32_XSS, &v) &&
			 !lwpt_hw_wrmsr(IA32_XSS, v | IA32_XSS_PT) &&
			 !lwpt_hw_wrmsr(IA32_XSS, v) && sim_violation_count() == n,
			 "IA32_XSS[8] settable with pt_xsaves (SDM Vol. 1 13.3)");

	if (sim_has_lwp()) {
		st_lwp(&t, a, b, xcr0);
	} else {
		n = sim_violation_count();
		st_violation(&t, lwpt_hw_rdmsr(LWP_MSR_CFG, &v), -EIO, n,
			     "LWP_CFG without LWP is #GP (43724 §4)");
	}
	if (sim_has_pt()) {
		st_pt(&t);
	} else {
		n = sim_violation_count();
		st_violation(&t, lwpt_hw_rdmsr(IA32_RTIT_CTL, &v), -EIO, n,
			     "IA32_RTIT_CTL without PT is #GP (SDM 33.2.8)");
	}
	lwpt_hw_xsetbv(0, xcr0);
	put_cpu();

	seq_printf(m, "selftest: %d passed, %d failed\n", t.passed, t.failed);
	kfree(a);
	kfree(b);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sim_selftest);

void sim_selftest_debugfs(struct dentry *dir)
{
	debugfs_create_file("selftest", 0400, dir, NULL, &sim_selftest_fops);
}
