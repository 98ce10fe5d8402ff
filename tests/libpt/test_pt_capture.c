// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libpt's capture API (include/lwpt/pt.h) that need no
 * device: defaults, validation against capabilities (SDM 33.2.8.2 and the
 * CPUID 14H enumeration of Tables 33-11/12), field names, error paths.
 */
#include <check.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lwpt/pt.h>

#include "libpt/capture_internal.h"
#include "tests/check_run.h"

/* A full-featured processor (CPUID 14H like the model's "full" profile). */
static struct lwpt_pt_caps full_caps(void)
{
	struct lwpt_pt_caps c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.caps = LWPT_PT_CAP_CR3_FILTER | LWPT_PT_CAP_PSB_CYC | LWPT_PT_CAP_IP_FILTER |
		 LWPT_PT_CAP_MTC | LWPT_PT_CAP_PTWRITE | LWPT_PT_CAP_POWER_EVENT |
		 LWPT_PT_CAP_TOPA | LWPT_PT_CAP_MENTRY;
	c.nr_ranges = 2;
	c.mtc_periods = 0x249;		/* 0, 3, 6, 9 */
	c.cyc_thresholds = 0x3fff;
	c.psb_periods = 0x3f;
	c.maxphyaddr = 39;
	c.nr_cpus = 4;
	c.max_buffer_size = 1ull << 30;
	c.max_region_size = 4ull << 20;
	return c;
}

/* Broadwell: no PSB/CYC, no MENTRY, BDM106 (caps as the module reports). */
static struct lwpt_pt_caps bdw_caps(void)
{
	struct lwpt_pt_caps c = full_caps();

	c.caps = LWPT_PT_CAP_TOPA | LWPT_PT_CAP_ERRATUM_BDM106;
	c.nr_ranges = 0;
	c.mtc_periods = c.cyc_thresholds = c.psb_periods = 0;
	return c;
}

static enum lwpt_pt_field check_cfg(const struct lpt_cap_config *cfg,
				    const struct lwpt_pt_caps *caps, int want_err)
{
	enum lwpt_pt_field bad = LWPT_PT_FIELD_NR;

	ck_assert_int_eq(lpt_cap_config_check(cfg, caps, &bad), want_err);
	return bad;
}

START_TEST(defaults)
{
	struct lwpt_pt_caps caps = full_caps();
	struct lpt_cap_config c;

	lpt_cap_config_init(&c, &caps);
	ck_assert_uint_eq(c.size, sizeof(c));
	ck_assert_uint_eq(c.flags, LWPT_PT_CFG_USER | LWPT_PT_CFG_BRANCH | LWPT_PT_CFG_TSC);
	ck_assert_uint_eq(c.mode, LWPT_PT_MODE_WRAP);
	ck_assert_uint_eq(c.scope, LWPT_PT_SCOPE_CPU);
	ck_assert_uint_eq(c.buffer_size, LPT_CAP_DEFAULT_BUFFER);
	ck_assert_int_eq(check_cfg(&c, &caps, 0), LWPT_PT_FIELD_NONE);
	/* Without caps: still valid for a processor with nothing optional. */
	lpt_cap_config_init(&c, NULL);
	caps = bdw_caps();
	ck_assert_int_eq(check_cfg(&c, &caps, 0), LWPT_PT_FIELD_NONE);
}
END_TEST

/*
 * A program built against version 0 of struct lpt_cap_config calls the
 * function lpt_cap_config_init() (no macro then): only its bytes are
 * written, with size VER0; the macro writes the caller's sizeof. The
 * same defaults either way.
 */
START_TEST(init_writes_only_the_callers_version)
{
	struct lwpt_pt_caps caps = full_caps();
	union {
		struct lpt_cap_config c;
		unsigned char b[sizeof(struct lpt_cap_config) + 16];
	} u;
	struct lpt_cap_config now;
	size_t i;

	memset(&u, 0xa5, sizeof(u));
	(lpt_cap_config_init)(&u.c, &caps);
	for (i = LPT_CAP_CONFIG_SIZE_VER0; i < sizeof(u); i++)
		ck_assert_msg(u.b[i] == 0xa5, "byte %zu past version 0 written", i);
	ck_assert_uint_eq(u.c.size, LPT_CAP_CONFIG_SIZE_VER0);
	lpt_cap_config_init(&now, &caps);
	ck_assert_uint_eq(now.size, sizeof(now));
	ck_assert(!memcmp(&u.c.flags, &now.flags,
			  LPT_CAP_CONFIG_SIZE_VER0 - offsetof(struct lpt_cap_config, flags)));
	/* A larger struct than this libpt knows: its own size. */
	memset(&u, 0xa5, sizeof(u));
	lpt_cap_config_init_size(&u.c, sizeof(u), &caps);
	ck_assert_uint_eq(u.c.size, sizeof(struct lpt_cap_config));
	ck_assert(u.b[sizeof(struct lpt_cap_config)] == 0xa5);
}
END_TEST

/* Without MENTRY the buffer is one region: a power of two <= max region. */
START_TEST(defaults_clamped)
{
	struct lwpt_pt_caps caps = bdw_caps();
	struct lpt_cap_config c;

	caps.max_region_size = 1ull << 20;
	lpt_cap_config_init(&c, &caps);
	ck_assert_uint_eq(c.buffer_size, 1ull << 20);
	check_cfg(&c, &caps, 0);
	caps = full_caps();
	caps.max_buffer_size = 3 * 4096 + 100;
	lpt_cap_config_init(&c, &caps);
	ck_assert_uint_eq(c.buffer_size, 3 * 4096);
	check_cfg(&c, &caps, 0);
}
END_TEST

/* Each enable needs its CPUID bit (SDM Table 33-11); -EOPNOTSUPP names it. */
START_TEST(caps_whitelist)
{
	static const struct {
		uint32_t flag;
		enum lwpt_pt_field field;
	} t[] = {
		{ LWPT_PT_CFG_MTC, LWPT_PT_FIELD_MTC },
		{ LWPT_PT_CFG_CYC, LWPT_PT_FIELD_CYC },
		{ LWPT_PT_CFG_PTW, LWPT_PT_FIELD_PTW },
		{ LWPT_PT_CFG_PWREVT, LWPT_PT_FIELD_PWREVT },
		{ LWPT_PT_CFG_EVENT, LWPT_PT_FIELD_EVENT },
		{ LWPT_PT_CFG_DISTNT, LWPT_PT_FIELD_DISTNT },
		{ LWPT_PT_CFG_INJECT_PSB_PMI, LWPT_PT_FIELD_INJECT_PSB_PMI },
		{ LWPT_PT_CFG_CR3_FILTER, LWPT_PT_FIELD_CR3_FILTER },
		{ LWPT_PT_CFG_PSBFREQ, LWPT_PT_FIELD_PSB_FREQ },
	};
	struct lwpt_pt_caps caps = bdw_caps();
	struct lpt_cap_config c;
	unsigned int i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		lpt_cap_config_init(&c, &caps);
		c.flags |= t[i].flag;
		c.pid = 1;
		ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), t[i].field);
	}
	lpt_cap_config_init(&c, &caps);
	c.flags |= 1u << 20;	/* not an LWPT_PT_CFG_* bit */
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_FLAGS);
}
END_TEST

/* BDM106: BranchEn must be set on first-generation PT. */
START_TEST(bdm106_branch)
{
	struct lwpt_pt_caps caps = bdw_caps();
	struct lpt_cap_config c;

	lpt_cap_config_init(&c, &caps);
	c.flags &= ~LWPT_PT_CFG_BRANCH;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BRANCH);
	caps = full_caps();
	check_cfg(&c, &caps, 0);
}
END_TEST

/* Encodings must be in the 14H.1 bitmaps (SDM 33.3.1, Table 33-12). */
START_TEST(encodings)
{
	struct lwpt_pt_caps caps = full_caps();
	struct lpt_cap_config c;

	lpt_cap_config_init(&c, &caps);
	c.flags |= LWPT_PT_CFG_MTC;
	c.mtc_freq = 3;
	check_cfg(&c, &caps, 0);
	c.mtc_freq = 4;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_MTC_FREQ);
	c.mtc_freq = 16;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_MTC_FREQ);
	lpt_cap_config_init(&c, &caps);
	c.mtc_freq = 3;		/* without MTCEn */
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_MTC_FREQ);

	lpt_cap_config_init(&c, &caps);
	c.flags |= LWPT_PT_CFG_CYC;
	c.cyc_thresh = 14;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CYC_THRESH);
	c.cyc_thresh = 13;
	check_cfg(&c, &caps, 0);

	lpt_cap_config_init(&c, &caps);
	c.flags |= LWPT_PT_CFG_PSBFREQ;
	c.psb_freq = 6;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_PSB_FREQ);
	c.psb_freq = 5;
	check_cfg(&c, &caps, 0);
}
END_TEST

START_TEST(dependencies)
{
	struct lwpt_pt_caps caps = full_caps();
	struct lpt_cap_config c;

	lpt_cap_config_init(&c, &caps);
	c.flags = LWPT_PT_CFG_BRANCH;	/* neither OS nor User */
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_USER);
	lpt_cap_config_init(&c, &caps);
	c.flags |= LWPT_PT_CFG_FUPONPTW;	/* needs PTWEn */
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_FUPONPTW);
	c.flags |= LWPT_PT_CFG_PTW;
	check_cfg(&c, &caps, 0);
	lpt_cap_config_init(&c, &caps);
	c.flags |= LWPT_PT_CFG_CR3_FILTER;	/* needs a pid */
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_PID);
	c.pid = 42;
	check_cfg(&c, &caps, 0);
	lpt_cap_config_init(&c, &caps);
	c.scope = LWPT_PT_SCOPE_THREAD;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_PID);
	c.scope = 2;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_SCOPE);
	lpt_cap_config_init(&c, &caps);
	c.mode = 3;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_MODE);
	lpt_cap_config_init(&c, &caps);
	c.pid = -1;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_PID);
}
END_TEST

/* Sizes: 4 KiB multiples, power of two without MENTRY (SDM 33.2.7.2). */
START_TEST(sizes)
{
	struct lwpt_pt_caps caps = full_caps();
	struct lpt_cap_config c;

	lpt_cap_config_init(&c, &caps);
	c.buffer_size = 5000;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = 0;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = caps.max_buffer_size + 4096;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = 3 * 4096;
	check_cfg(&c, &caps, 0);
	caps = bdw_caps();
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = 8 << 20;	/* over max_region_size */
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = 16384;
	check_cfg(&c, &caps, 0);
	c.region_size = 6000;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_REGION_SIZE);
	c.region_size = 2048;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_REGION_SIZE);
	c.region_size = 8192;
	check_cfg(&c, &caps, 0);
}
END_TEST

/* ADDRn (SDM 33.2.5.2): n < 14H.1:EAX[2:0], canonical, A <= B. */
START_TEST(ranges)
{
	struct lwpt_pt_caps caps = full_caps();
	struct lpt_cap_config c;

	lpt_cap_config_init(&c, &caps);
	c.addr[0] = (struct lwpt_pt_addr_range){ 0x401000, 0x401fff, LWPT_PT_ADDR_FILTER, 0 };
	c.addr[1] = (struct lwpt_pt_addr_range){ 0x500000, 0x500000, LWPT_PT_ADDR_STOP, 0 };
	check_cfg(&c, &caps, 0);
	c.addr[2] = (struct lwpt_pt_addr_range){ 0x1000, 0x2000, LWPT_PT_ADDR_FILTER, 0 };
	ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), LWPT_PT_FIELD_ADDR2);
	memset(&c.addr[2], 0, sizeof(c.addr[2]));
	c.addr[1].a = 0x600000;		/* A > B */
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_ADDR1);
	c.addr[1].a = 0x0100000000000000ull;	/* not canonical */
	c.addr[1].b = c.addr[1].a;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_ADDR1);
	c.addr[1] = (struct lwpt_pt_addr_range){ 0x1000, 0x2000, 3, 0 };
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_ADDR1);
	c.addr[1] = (struct lwpt_pt_addr_range){ 0x1000, 0x2000, LWPT_PT_ADDR_UNUSED, 0 };
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_ADDR1);
	caps = bdw_caps();
	c.addr[1] = (struct lwpt_pt_addr_range){ 0 };
	ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), LWPT_PT_FIELD_ADDR0);
}
END_TEST

/* Size versioning: too small is refused; an older caller's size works. */
START_TEST(size_versioning)
{
	struct lwpt_pt_caps caps = full_caps();
	struct lpt_cap_config c;

	lpt_cap_config_init(&c, &caps);
	/* Version 2 (hold_limit_ms) ends 4 bytes short of the padded struct. */
	ck_assert_uint_eq(LPT_CAP_CONFIG_SIZE_VER2, sizeof(c) - 4);
	ck_assert_uint_eq(c.size, sizeof(c));
	ck_assert_uint_lt(LPT_CAP_CONFIG_SIZE_VER1, LPT_CAP_CONFIG_SIZE_VER2);
	ck_assert_uint_lt(LPT_CAP_CONFIG_SIZE_VER0, LPT_CAP_CONFIG_SIZE_VER1);
	c.size = LPT_CAP_CONFIG_SIZE_VER0 - 1;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_SIZE);
	c.size = 0;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_SIZE);
	ck_assert_int_eq(lpt_cap_config_check(NULL, &caps, NULL), -EINVAL);
	ck_assert_int_eq(lpt_cap_config_check(&c, NULL, NULL), -EINVAL);
}
END_TEST

/*
 * Default sizes fitted to what may be pinned (Documentation/pt.rst
 * "Memory"): a buffer costs its pages plus one ToPA table page per 511
 * one-page regions; single-range output has no table.
 */
START_TEST(buffer_fit)
{
	const uint64_t k = 1024, m = 1024 * 1024;

	ck_assert_uint_eq(lpt_cap_buffer_cost(4096, 1, false), 2 * 4096);
	ck_assert_uint_eq(lpt_cap_buffer_cost(4096, 1, true), 4096);
	ck_assert_uint_eq(lpt_cap_buffer_cost(511 * 4096, 1, false), 512 * 4096);
	ck_assert_uint_eq(lpt_cap_buffer_cost(512 * 4096, 1, false), 514 * 4096);
	ck_assert_uint_eq(lpt_cap_buffer_cost(4 * m, 9, false), 9 * (1024 + 3) * 4096);
	ck_assert_uint_eq(lpt_cap_buffer_cost(UINT64_MAX & ~4095ull, 4, true), UINT64_MAX);
	/* Fits: unchanged, also when not a power of two. */
	ck_assert_uint_eq(lpt_cap_buffer_fit(3 * 4096, 2, false, 8 * 4096), 3 * 4096);
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 1, false, LWPT_PT_MLOCK_UNLIMITED), 4 * m);
	/* 1 thread + 8 spares in 2 CPUs x 516 KiB (pt_mlock_kb's default). */
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 9, false, 2 * 516 * k), 64 * k);
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 9, true, 2 * 516 * k), 64 * k);
	/* Plus 8 MiB RLIMIT_MEMLOCK. */
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 9, false, 2 * 516 * k + 8 * m), 512 * k);
	/* Reduced to a power of two, from a size that is not one. */
	ck_assert_uint_eq(lpt_cap_buffer_fit(5 * 4096, 1, true, 4 * 4096), 4 * 4096);
	/* The minimum: one page and its table per buffer. */
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 9, false, 18 * 4096), 4096);
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 9, false, 18 * 4096 - 1), 0);
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 9, true, 9 * 4096), 4096);
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 1, false, 0), 0);
	/* No buffers counts as one. */
	ck_assert_uint_eq(lpt_cap_buffer_fit(4 * m, 0, true, 4 * m), 4 * m);
}
END_TEST


/* CPU lists as perf record -C takes them (lpt_cpu_list_parse/format). */
START_TEST(cpu_list)
{
	uint64_t m[2] = { ~0ull, ~0ull };
	char buf[64];
	size_t bad = 99;

	ck_assert_int_eq(lpt_cpu_list_parse("0,2-3", 4, m, 1, &bad), 3);
	ck_assert_uint_eq(m[0], 0xd);
	ck_assert_int_eq(lpt_cpu_list_parse("3,3,1-3", 4, m, 1, NULL), 3);
	ck_assert_uint_eq(m[0], 0xe);
	ck_assert_int_eq(lpt_cpu_list_parse("63-65", 66, m, 2, NULL), 3);
	ck_assert_uint_eq(m[0], 1ull << 63);
	ck_assert_uint_eq(m[1], 3);
	/* Syntax: empty, empty element, sign, blank, reversed range, garbage. */
	ck_assert_int_eq(lpt_cpu_list_parse("", 4, m, 1, &bad), -EINVAL);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(lpt_cpu_list_parse("0,", 4, m, 1, &bad), -EINVAL);
	ck_assert_uint_eq(bad, 2);
	ck_assert_int_eq(lpt_cpu_list_parse("0,,1", 4, m, 1, &bad), -EINVAL);
	ck_assert_uint_eq(bad, 2);
	ck_assert_int_eq(lpt_cpu_list_parse("-1", 4, m, 1, NULL), -EINVAL);
	ck_assert_int_eq(lpt_cpu_list_parse("0, 1", 4, m, 1, NULL), -EINVAL);
	ck_assert_int_eq(lpt_cpu_list_parse("3-1", 4, m, 1, &bad), -EINVAL);
	ck_assert_int_eq(lpt_cpu_list_parse("1-", 4, m, 1, NULL), -EINVAL);
	ck_assert_int_eq(lpt_cpu_list_parse("1x", 4, m, 1, NULL), -EINVAL);
	ck_assert_int_eq(lpt_cpu_list_parse("0-1-2", 4, m, 1, NULL), -EINVAL);
	/* CPUs that do not exist, huge numbers (no overflow). */
	ck_assert_int_eq(lpt_cpu_list_parse("1,4", 4, m, 1, &bad), -ERANGE);
	ck_assert_uint_eq(bad, 2);
	ck_assert_int_eq(lpt_cpu_list_parse("0-4", 4, m, 1, NULL), -ERANGE);
	ck_assert_int_eq(lpt_cpu_list_parse("99999999999999999999", 4, m, 1, NULL), -ERANGE);
	/* Too few words for nr_cpus; NULL arguments. */
	ck_assert_int_eq(lpt_cpu_list_parse("0", 65, m, 1, NULL), -ENOBUFS);
	ck_assert_int_eq(lpt_cpu_list_parse(NULL, 4, m, 1, NULL), -EINVAL);
	ck_assert_int_eq(lpt_cpu_list_parse("0", 4, NULL, 1, NULL), -EINVAL);

	m[0] = 0xd;
	m[1] = 0;
	ck_assert_int_eq(lpt_cpu_list_format(m, 2, buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "0,2-3");
	m[0] = 1ull << 63;
	m[1] = 3;
	ck_assert_int_eq(lpt_cpu_list_format(m, 2, buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "63-65");
	m[0] = m[1] = 0;
	ck_assert_int_eq(lpt_cpu_list_format(m, 2, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	m[0] = 0x15;
	ck_assert_int_eq(lpt_cpu_list_format(m, 1, buf, 4), -ENOSPC);
	ck_assert_int_eq(lpt_cpu_list_format(NULL, 1, buf, 4), -EINVAL);
}
END_TEST

/* Configuration version 1: the CPU selection (lwpt_pt_config version 2). */
START_TEST(config_cpu_mask)
{
	struct lwpt_pt_caps caps = full_caps();	/* nr_cpus 4 */
	struct lpt_cap_config c;
	uint64_t m[2] = { 0x5, 0 };

	lpt_cap_config_init(&c, &caps);
	ck_assert_ptr_null(c.cpu_mask);
	ck_assert_uint_eq(c.cpu_mask_size, 0);
	c.cpu_mask = m;
	c.cpu_mask_size = 8;
	ck_assert_int_eq(check_cfg(&c, &caps, 0), LWPT_PT_FIELD_NONE);
	c.cpu_mask_size = 16;		/* a zero word past nr_cpus is fine */
	ck_assert_int_eq(check_cfg(&c, &caps, 0), LWPT_PT_FIELD_NONE);
	/* A CPU at or above nr_cpus, in the first word or the second. */
	m[0] = 0x10;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CPU_MASK);
	m[0] = 1;
	m[1] = 1ull << 63;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CPU_MASK);
	m[1] = 0;
	/* Empty; size not whole words, 0, over the cap; pointer without size. */
	m[0] = 0;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CPU_MASK);
	m[0] = 1;
	c.cpu_mask_size = 4;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CPU_MASK);
	c.cpu_mask_size = 0;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CPU_MASK);
	c.cpu_mask_size = LWPT_PT_CPU_MASK_MAX + 8;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CPU_MASK);
	c.cpu_mask = NULL;
	c.cpu_mask_size = 8;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CPU_MASK);
	/* Per-thread scope takes no selection. */
	c.cpu_mask = m;
	c.scope = LWPT_PT_SCOPE_THREAD;
	c.pid = 1;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_CPU_MASK);
	/* A version 0 caller: the bytes past its size are not read. */
	c.scope = LWPT_PT_SCOPE_CPU;
	c.pid = 0;
	c.cpu_mask_size = 3;
	c.size = LPT_CAP_CONFIG_SIZE_VER0;
	ck_assert_int_eq(check_cfg(&c, &caps, 0), LWPT_PT_FIELD_NONE);
	ck_assert_str_eq(lpt_cap_field_name(LWPT_PT_FIELD_CPU_MASK), "cpu_mask (CPU selection)");
}
END_TEST

/* The caps layout: version 1 appends mlock_avail and thread_spares. */
START_TEST(caps_layout)
{
	ck_assert_uint_eq(sizeof(struct lwpt_pt_caps), LWPT_PT_CAPS_SIZE_VER2);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_caps, cpuid_15h), LWPT_PT_CAPS_SIZE_VER1);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_caps, mlock_avail), LWPT_PT_CAPS_SIZE_VER0);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_caps, thread_spares), LWPT_PT_CAPS_SIZE_VER0 + 8);
}
END_TEST

START_TEST(names_and_errors)
{
	int f;

	for (f = 0; f < LWPT_PT_FIELD_NR; f++)
		ck_assert_str_ne(lpt_cap_field_name((enum lwpt_pt_field)f), "?");
	ck_assert_str_eq(lpt_cap_field_name(LWPT_PT_FIELD_NR), "?");
	ck_assert_str_eq(lpt_cap_field_name((enum lwpt_pt_field)-1), "?");
	ck_assert_str_eq(lpt_cap_field_name(LWPT_PT_FIELD_MTC_FREQ), "MTCFreq (mtc_freq)");
	ck_assert_str_eq(lpt_dev_strerror(-ENOENT), "no /dev/pt: load lwpt.ko (or lwpt_sim.ko)");
	ck_assert_ptr_nonnull(strstr(lpt_dev_strerror(-EBUSY), "TraceEn"));
	ck_assert_str_eq(lpt_dev_strerror(-ENOMEM), strerror(ENOMEM));
}
END_TEST

/*
 * Every capability bit of the uapi has a name (SDM Table 33-11 for the
 * leaf 14H bits), each its own; no name for 0, several bits or bits the
 * uapi does not define.
 */
START_TEST(cap_names)
{
	static const uint32_t all = LWPT_PT_CAP_CR3_FILTER | LWPT_PT_CAP_PSB_CYC |
		LWPT_PT_CAP_IP_FILTER | LWPT_PT_CAP_MTC | LWPT_PT_CAP_PTWRITE |
		LWPT_PT_CAP_POWER_EVENT | LWPT_PT_CAP_PSB_PMI_PRESERVE |
		LWPT_PT_CAP_EVENT_TRACE | LWPT_PT_CAP_TNT_DISABLE | LWPT_PT_CAP_TOPA |
		LWPT_PT_CAP_MENTRY | LWPT_PT_CAP_SNGLRGNOUT |
		LWPT_PT_CAP_TRACE_TRANSPORT | LWPT_PT_CAP_LIP | LWPT_PT_CAP_XSAVES |
		LWPT_PT_CAP_ERRATUM_BDM106 | LWPT_PT_CAP_LBR_EXCLUSIVE |
		LWPT_PT_CAP_ERRATUM_SINGLE_4K;
	unsigned int i, j;

	for (i = 0; i < 32; i++) {
		const char *n = lpt_cap_name(1u << i);

		ck_assert_msg(!n == !(all & (1u << i)), "bit %u: %s", i, n ? n : "NULL");
		for (j = 0; n && j < i; j++)
			ck_assert(!lpt_cap_name(1u << j) ||
				  strcmp(n, lpt_cap_name(1u << j)) != 0);
	}
	ck_assert_str_eq(lpt_cap_name(LWPT_PT_CAP_CR3_FILTER), "CR3 Filtering Support");
	ck_assert_str_eq(lpt_cap_name(LWPT_PT_CAP_MENTRY),
			 "ToPA Tables Allow Multiple Output Entries");
	ck_assert_str_eq(lpt_cap_name(LWPT_PT_CAP_LIP), "IP Payloads are LIP");
	ck_assert_ptr_null(lpt_cap_name(0));
	ck_assert_ptr_null(lpt_cap_name(LWPT_PT_CAP_TOPA | LWPT_PT_CAP_MENTRY));
}
END_TEST

/*
 * SDM 33.3.1: CPUID.(07H,0):EBX[25]. The kernel's "intel_pt" flag comes
 * from that bit (it may clear it, never set it): with the flag, libpt
 * must say yes.
 */
START_TEST(cpu_has_pt)
{
	char line[4096];
	bool flag = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5) && strstr(line, " intel_pt"))
			flag = true;
	if (f)
		fclose(f);
	if (flag)
		ck_assert(lpt_cpu_has_pt());
	printf("cpu_has_pt: CPUID.(07H,0):EBX[25] = %d, /proc/cpuinfo intel_pt = %d\n",
	       lpt_cpu_has_pt(), flag);
}
END_TEST

/* Opening something that is not /dev/pt fails cleanly with a negative errno. */
START_TEST(open_errors)
{
	struct lpt_dev *dev = (struct lpt_dev *)1;

	ck_assert_int_eq(lpt_dev_open("/nonexistent/pt", &dev), -ENOENT);
	ck_assert_ptr_null(dev);
	ck_assert_int_eq(lpt_dev_open("/dev/null", &dev), -ENOTTY);
	ck_assert_ptr_null(dev);
	ck_assert_int_eq(lpt_dev_open(NULL, NULL), -EINVAL);
	lpt_dev_close(NULL);
}
END_TEST

/* Collects delivered bytes and counts sink calls. */
struct collect {
	uint8_t buf[64];
	size_t len;
	int calls;
	int fail_at;	/* call number that returns -EIO, 0 = never */
};

static int collect_sink(void *arg, const void *p, size_t n)
{
	struct collect *c = arg;

	c->calls++;
	if (c->fail_at && c->calls == c->fail_at)
		return -EIO;
	ck_assert_uint_le(c->len + n, sizeof(c->buf));
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	return 0;
}

/*
 * Ring order (SDM 33.2.7.2, ToPA output wraps to the first region): a
 * 16-byte buffer whose stream byte n is at n % 16 holds stream bytes
 * head-16 .. head-1 after a wrap, oldest first.
 */
START_TEST(ring_order)
{
	uint8_t map[16];
	struct collect c;
	uint64_t head = 40, i;

	for (i = 0; i < 16; i++)	/* what the processor left after 40 bytes */
		map[i] = (uint8_t)(i + 32 <= 39 ? i + 32 : i + 16);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_ring_copy(map, 16, 0, head, collect_sink, &c), 16);
	ck_assert_int_eq(c.calls, 2);
	for (i = 0; i < 16; i++)
		ck_assert_uint_eq(c.buf[i], 24 + i);
	/* Not wrapped: bytes 0..9 in one piece. */
	for (i = 0; i < 16; i++)
		map[i] = (uint8_t)i;
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_ring_copy(map, 16, 0, 10, collect_sink, &c), 10);
	ck_assert_int_eq(c.calls, 1);
	ck_assert_int_eq(memcmp(c.buf, map, 10), 0);
	/* Continuous: from the tail 10 to 20 (wraps once); nothing new after. */
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_ring_copy(map, 16, 10, 20, collect_sink, &c), 10);
	ck_assert_int_eq(c.calls, 2);
	ck_assert_uint_eq(c.buf[0], 10);
	ck_assert_uint_eq(c.buf[6], 0);
	ck_assert_int_eq(lpt_ring_copy(map, 16, 20, 20, collect_sink, &c), 0);
	/* Overrun since the tail: only the newest 16 exist. */
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_ring_copy(map, 16, 4, 100, collect_sink, &c), 16);
	ck_assert_uint_eq(c.buf[0], 100 % 16);
	/* A new start (head below tail) reads from 0. */
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_ring_copy(map, 16, 50, 3, collect_sink, &c), 3);
	/* Sink errors stop the copy and come back; size 0 is refused. */
	memset(&c, 0, sizeof(c));
	c.fail_at = 2;
	ck_assert_int_eq(lpt_ring_copy(map, 16, 0, 40, collect_sink, &c), -EIO);
	ck_assert_int_eq(lpt_ring_copy(map, 0, 0, 40, collect_sink, &c), -EINVAL);
}
END_TEST

/*
 * Single-range output (SDM 33.2.7.1, CPUID.(14H,0):ECX[2]): refused
 * without SNGLRGNOUT, wrap mode only (no STOP, no PMI), one power-of-two
 * block of 4096 .. max_region_size bytes; the only scheme without ToPA.
 */
START_TEST(single_range)
{
	struct lwpt_pt_caps caps = full_caps();
	struct lpt_cap_config c;

	lpt_cap_config_init(&c, &caps);
	c.flags |= LWPT_PT_CFG_SINGLE_RANGE;
	c.buffer_size = 1ull << 20;
	ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), LWPT_PT_FIELD_SINGLE_RANGE);
	caps.caps |= LWPT_PT_CAP_SNGLRGNOUT;
	ck_assert_int_eq(check_cfg(&c, &caps, 0), LWPT_PT_FIELD_NONE);
	c.mode = LWPT_PT_MODE_STOP;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_MODE);
	c.mode = LWPT_PT_MODE_CONTINUOUS;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_MODE);
	c.mode = LWPT_PT_MODE_WRAP;
	/* Sizes: a power of two, a page at least (SDM: 128 bytes), one block. */
	c.buffer_size = 3 * 4096;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = 2048;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = caps.max_region_size * 2;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = 4096;
	check_cfg(&c, &caps, 0);
	c.buffer_size = caps.max_region_size;
	check_cfg(&c, &caps, 0);
	c.region_size = 4096;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_REGION_SIZE);
	c.region_size = c.buffer_size;
	check_cfg(&c, &caps, 0);
	/* Per thread too; the other rules still apply (ADDRn after it). */
	c.scope = LWPT_PT_SCOPE_THREAD;
	c.pid = 1;
	check_cfg(&c, &caps, 0);
	c.addr[3].cfg = LWPT_PT_ADDR_FILTER;
	c.addr[3].b = 1;
	ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), LWPT_PT_FIELD_ADDR3);

	/* No ToPA: single-range output by default, wrap mode only. */
	caps = bdw_caps();
	caps.caps = (caps.caps & ~LWPT_PT_CAP_TOPA) | LWPT_PT_CAP_SNGLRGNOUT;
	lpt_cap_config_init(&c, &caps);
	ck_assert(c.flags & LWPT_PT_CFG_SINGLE_RANGE);
	ck_assert_uint_eq(c.buffer_size, caps.max_region_size);
	check_cfg(&c, &caps, 0);
	c.flags &= ~LWPT_PT_CFG_SINGLE_RANGE;	/* implied */
	check_cfg(&c, &caps, 0);
	c.buffer_size = 3 * 4096;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = 4096;
	c.mode = LWPT_PT_MODE_STOP;
	ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), LWPT_PT_FIELD_MODE);
	/* Neither scheme. */
	caps.caps &= ~LWPT_PT_CAP_SNGLRGNOUT;
	c.mode = LWPT_PT_MODE_WRAP;
	ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), LWPT_PT_FIELD_BUFFER_SIZE);
	ck_assert_str_eq(lpt_cap_field_name(LWPT_PT_FIELD_SINGLE_RANGE), "single_range");
	ck_assert(!lpt_dev_single_range(NULL));

	/*
	 * Errata TGL052/ADL037/RPL017: above 4 KiB the module uses ToPA (a
	 * ToPA size rule then applies), without ToPA it refuses; 4 KiB stays.
	 */
	caps = full_caps();
	caps.caps |= LWPT_PT_CAP_SNGLRGNOUT | LWPT_PT_CAP_ERRATUM_SINGLE_4K;
	lpt_cap_config_init(&c, &caps);
	c.flags |= LWPT_PT_CFG_SINGLE_RANGE;
	c.buffer_size = 1ull << 20;
	check_cfg(&c, &caps, 0);
	c.buffer_size = 3 * 4096;	/* fine for ToPA with MENTRY */
	check_cfg(&c, &caps, 0);
	c.buffer_size = 4096;
	check_cfg(&c, &caps, 0);
	c.buffer_size = 2048;
	ck_assert_int_eq(check_cfg(&c, &caps, -EINVAL), LWPT_PT_FIELD_BUFFER_SIZE);
	caps.caps &= ~LWPT_PT_CAP_TOPA;
	c.buffer_size = 8192;
	ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), LWPT_PT_FIELD_BUFFER_SIZE);
	c.flags &= ~LWPT_PT_CFG_SINGLE_RANGE;	/* implied without ToPA */
	ck_assert_int_eq(check_cfg(&c, &caps, -EOPNOTSUPP), LWPT_PT_FIELD_BUFFER_SIZE);
	c.buffer_size = 4096;
	check_cfg(&c, &caps, 0);
}
END_TEST

/*
 * Single-range order (SDM 33.2.7.1: the range is circular, OutputOffset
 * names the next byte, wraps are not signalled): from the offset to the
 * end, then from 0, without zero bytes at the start of that stream.
 */
START_TEST(range_order)
{
	uint8_t map[16];
	struct collect c;
	unsigned int i;

	/* Wrapped: 40 bytes 1..40 left 33..40 at 0..7 and 25..32 at 8..15. */
	for (i = 0; i < 16; i++)
		map[i] = (uint8_t)(i < 8 ? 33 + i : 17 + i);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_range_copy(map, 16, 8, collect_sink, &c), 16);
	ck_assert_int_eq(c.calls, 2);
	for (i = 0; i < 16; i++)
		ck_assert_uint_eq(c.buf[i], 25 + i);
	/* Not wrapped: 10 bytes, the zeros after them were never written. */
	memset(map, 0, sizeof(map));
	for (i = 0; i < 10; i++)
		map[i] = (uint8_t)(i + 1);
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_range_copy(map, 16, 10, collect_sink, &c), 10);
	ck_assert_int_eq(c.calls, 1);
	ck_assert_int_eq(memcmp(c.buf, map, 10), 0);
	/* Leading zeros (PAD) dropped, later ones kept; offset 0 wrapped. */
	memset(map, 0, sizeof(map));
	map[3] = 7;
	map[9] = 9;
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_range_copy(map, 16, 0, collect_sink, &c), 13);
	ck_assert_uint_eq(c.buf[0], 7);
	ck_assert_uint_eq(c.buf[6], 9);
	ck_assert_uint_eq(c.buf[12], 0);
	/* Nothing written at all. */
	memset(map, 0, sizeof(map));
	memset(&c, 0, sizeof(c));
	ck_assert_int_eq(lpt_range_copy(map, 16, 0, collect_sink, &c), 0);
	ck_assert_int_eq(c.calls, 0);
	/* Errors: the sink's, size 0, an offset not below the size. */
	map[0] = 1;
	map[15] = 2;
	c.fail_at = 2;
	ck_assert_int_eq(lpt_range_copy(map, 16, 15, collect_sink, &c), -EIO);
	ck_assert_int_eq(lpt_range_copy(map, 0, 0, collect_sink, &c), -EINVAL);
	ck_assert_int_eq(lpt_range_copy(map, 16, 16, collect_sink, &c), -EINVAL);
}
END_TEST

/*
 * Issue 13: the refusal rules and stop reasons (size version 1 of the
 * configuration, 2 of the status) and their messages.
 */
START_TEST(rules_and_stop_reasons)
{
	ck_assert_uint_eq(sizeof(struct lwpt_pt_config), LWPT_PT_CONFIG_SIZE_VER3);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_config, hold_limit_ms), LWPT_PT_CONFIG_SIZE_VER2);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_config, rule), LWPT_PT_CONFIG_SIZE_VER0);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_config, cpu_mask), LWPT_PT_CONFIG_SIZE_VER1);
	ck_assert_uint_eq(sizeof(struct lwpt_pt_status), LWPT_PT_STATUS_SIZE_VER5);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_status, threads_refused), LWPT_PT_STATUS_SIZE_VER4);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_status, gap_head), LWPT_PT_STATUS_SIZE_VER2);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_status, stop_reason), LWPT_PT_STATUS_SIZE_VER1);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_status, ppid), LWPT_PT_STATUS_SIZE_VER1 + 4);
	/* The module ignores the size in the numbers (old binaries work). */
	ck_assert_uint_eq(_IOC_NR(LWPT_PT_IOC_CONFIGURE), 0x41);
	ck_assert_uint_eq(LWPT_PT_CFG_NO_INHERIT & LWPT_PT_CFG_ALL, LWPT_PT_CFG_NO_INHERIT);
	ck_assert_ptr_null(lpt_dev_rule_str(LWPT_PT_RULE_NONE));
	ck_assert_ptr_nonnull(strstr(lpt_dev_rule_str(LWPT_PT_RULE_CAPABILITY), "CAP_PERFMON"));
	ck_assert_ptr_nonnull(strstr(lpt_dev_rule_str(LWPT_PT_RULE_PARANOID), "pt_paranoid"));
	ck_assert_ptr_nonnull(strstr(lpt_dev_rule_str(LWPT_PT_RULE_PTRACE), "ptrace rule"));
	ck_assert_ptr_nonnull(strstr(lpt_dev_rule_str(LWPT_PT_RULE_MEMLOCK), "RLIMIT_MEMLOCK"));
	ck_assert_ptr_nonnull(lpt_dev_rule_str(99));
	ck_assert_uint_eq(lpt_dev_refused_rule(NULL), LWPT_PT_RULE_NONE);
	ck_assert_ptr_null(lpt_dev_refusal(NULL));
	ck_assert_int_eq(lpt_dev_busy_holder(NULL), 0);
	ck_assert_ptr_null(lpt_dev_stop_reason_str(LWPT_PT_STOP_NONE));
	ck_assert_str_eq(lpt_dev_stop_reason_str(LWPT_PT_STOP_EXIT), "exited");
	ck_assert_str_eq(lpt_dev_stop_reason_str(LWPT_PT_STOP_EXEC_CREDS), "exec-credentials");
	ck_assert_str_eq(lpt_dev_stop_reason_str(LWPT_PT_STOP_EXEC_DUMPABLE), "exec-not-dumpable");
	ck_assert_str_eq(lpt_dev_stop_reason_str(LWPT_PT_STOP_ERROR), "error");
	ck_assert_str_eq(lpt_dev_stop_reason_str(LWPT_PT_STOP_PREEMPTED), "preempted");
	ck_assert_str_eq(lpt_dev_stop_reason_str(99), "unknown");
	ck_assert_ptr_nonnull(strstr(lpt_dev_strerror(-EACCES), "device node"));
}
END_TEST

/*
 * The sideband ABI (include/uapi/lwpt/pt.h): explicit layout, the offsets
 * user space and the module agree on.
 */
START_TEST(sideband_layout)
{
	ck_assert_uint_eq(sizeof(struct lwpt_pt_switch), LWPT_PT_SWITCH_SIZE_VER0);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_switch, tsc), 0);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_switch, cpu), 8);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_switch, flags), 12);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_switch, prev_pid), 16);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_switch, next_tid), 28);
	ck_assert_uint_eq(sizeof(struct lwpt_pt_sideband), LWPT_PT_SIDEBAND_SIZE_VER0);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_sideband, records), 8);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_sideband, capacity), 16);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_sideband, record_size), 20);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_sideband, copied), 24);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_sideband, pending), 28);
	ck_assert_uint_eq(offsetof(struct lwpt_pt_sideband, lost), 32);
	/* A read-write ioctl of /dev/pt's range (lwpt.h: 0x40-0x6F). */
	ck_assert_uint_eq(_IOC_DIR(LWPT_PT_IOC_READ_SIDEBAND), _IOC_READ | _IOC_WRITE);
	ck_assert_uint_eq(_IOC_NR(LWPT_PT_IOC_READ_SIDEBAND), 0x46);
	ck_assert_uint_eq(_IOC_SIZE(LWPT_PT_IOC_READ_SIDEBAND), LWPT_PT_SIDEBAND_SIZE_VER0);
}
END_TEST

/* One line of ptcap's switches file (Documentation/ptcap-format.rst). */
START_TEST(switch_lines)
{
	struct lwpt_pt_switch sw = {
		.tsc = 123456789012345ull, .cpu = 1, .prev_pid = 40, .prev_tid = 41,
		.next_pid = 0, .next_tid = 0, .flags = LWPT_PT_SW_NEXT_IDLE | LWPT_PT_SW_PREEMPT,
	};
	char line[LPT_SWITCH_LINE_MAX];
	int n;

	n = lpt_switch_format(line, sizeof(line), &sw);
	ck_assert_str_eq(line, "123456789012345 1 40/41 0/0 next-idle preempt\n");
	ck_assert_int_eq(n, (int)strlen(line));
	/* Every flag word, in a fixed order; unknown bits in hex. */
	sw.flags = LWPT_PT_SW_PREV_IDLE | LWPT_PT_SW_PREV_KTHREAD | LWPT_PT_SW_NEXT_IDLE |
		   LWPT_PT_SW_NEXT_KTHREAD | LWPT_PT_SW_PREEMPT | 0x80000000u;
	sw.tsc = UINT64_MAX;
	sw.cpu = UINT32_MAX;
	sw.prev_pid = sw.prev_tid = sw.next_pid = sw.next_tid = INT32_MIN;
	n = lpt_switch_format(line, sizeof(line), &sw);
	ck_assert_str_eq(line, "18446744073709551615 4294967295 -2147483648/-2147483648 "
			 "-2147483648/-2147483648 prev-idle prev-kthread next-idle "
			 "next-kthread preempt flags=0x80000000\n");
	ck_assert_int_lt(n, LPT_SWITCH_LINE_MAX);
	/* No flags: the five numbers only. */
	sw = (struct lwpt_pt_switch){ .tsc = 0x10, .prev_pid = 7, .prev_tid = 8,
				      .next_pid = 9, .next_tid = 10 };
	lpt_switch_format(line, sizeof(line), &sw);
	ck_assert_str_eq(line, "16 0 7/8 9/10\n");
	/* Too small: -ENOSPC and no partial line, for every size. */
	for (size_t sz = 0; sz <= strlen("16 0 7/8 9/10\n"); sz++) {
		memset(line, 'x', sizeof(line));
		ck_assert_int_eq(lpt_switch_format(line, sz, &sw), -ENOSPC);
		if (sz)
			ck_assert_int_eq(line[0], 0);
	}
	ck_assert_int_eq(lpt_switch_format(NULL, 10, &sw), -EINVAL);
	ck_assert_int_eq(lpt_switch_format(line, sizeof(line), NULL), -EINVAL);
	ck_assert_str_eq(LPT_SWITCHES_MAGIC, "lwpt-ptcap-switches 1");
}
END_TEST

/* lpt_dev_read_switches() argument errors (no device needed). */
START_TEST(switches_errors)
{
	struct lwpt_pt_switch r;
	uint64_t lost = 7;

	ck_assert_int_eq(lpt_dev_read_switches(NULL, 0, &r, 1, &lost, NULL), -EINVAL);
	ck_assert_uint_eq(lost, 7);
}
END_TEST

/* lpt_dev_read_gap() without a device: no gap, *at untouched. */
START_TEST(read_gap_errors)
{
	uint64_t at = 5;

	ck_assert(!lpt_dev_read_gap(NULL, 0, &at));
	ck_assert(!lpt_dev_read_gap(NULL, 0, NULL));
	ck_assert_uint_eq(at, 5);
}
END_TEST

static Suite *capture_suite(void)
{
	Suite *s = suite_create("pt_capture");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, init_writes_only_the_callers_version);
	tcase_add_test(tc, defaults_clamped);
	tcase_add_test(tc, caps_whitelist);
	tcase_add_test(tc, bdm106_branch);
	tcase_add_test(tc, encodings);
	tcase_add_test(tc, dependencies);
	tcase_add_test(tc, sizes);
	tcase_add_test(tc, ranges);
	tcase_add_test(tc, size_versioning);
	tcase_add_test(tc, names_and_errors);
	tcase_add_test(tc, cap_names);
	tcase_add_test(tc, cpu_has_pt);
	tcase_add_test(tc, open_errors);
	tcase_add_test(tc, ring_order);
	tcase_add_test(tc, single_range);
	tcase_add_test(tc, range_order);
	tcase_add_test(tc, sideband_layout);
	tcase_add_test(tc, rules_and_stop_reasons);
	tcase_add_test(tc, switch_lines);
	tcase_add_test(tc, switches_errors);
	tcase_add_test(tc, read_gap_errors);
	tcase_add_test(tc, buffer_fit);
	tcase_add_test(tc, caps_layout);
	tcase_add_test(tc, cpu_list);
	tcase_add_test(tc, config_cpu_mask);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(capture_suite(), CK_NORMAL);
}
