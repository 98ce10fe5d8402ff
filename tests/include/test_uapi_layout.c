// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI of include/uapi/lwpt pinned with literal numbers: every struct's
 * size, the offset where each size version begins, and the ABI version
 * (lwpt.h: the minor counts size versions and ioctls added; Documentation/
 * design.rst "The ABI"). A change here is an ABI change: append a size
 * version and bump LWPT_ABI_MINOR, never move a field.
 */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>

#include <uapi/lwpt/lwpt.h>
#include <uapi/lwpt/lwp.h>
#include <uapi/lwpt/pt.h>
#include <uapi/lwpt/bts.h>
#include "tests/check_run.h"

#define PIN(expr, want) ck_assert_uint_eq((expr), (want))

START_TEST(abi_version)
{
	PIN(LWPT_ABI_VERSION, 0x0001000b);
	PIN(LWPT_ABI_VERSION_MAJOR(LWPT_ABI_VERSION), 1);
	PIN(LWPT_ABI_VERSION_MINOR(LWPT_ABI_VERSION), 11);
	PIN(LWPT_DEVICE_BTS, 3);
	PIN(sizeof(struct lwpt_abi_version), 16);
}
END_TEST

START_TEST(lwp_structs)
{
	PIN(sizeof(struct lwp_caps), 64);
	PIN(LWP_CAPS_SIZE_VER0, 64);
	PIN(sizeof(struct lwp_enable), 8);
	PIN(LWP_ENABLE_SIZE_VER0, 8);
	PIN(sizeof(struct lwp_stats), 80);
	PIN(LWP_STATS_SIZE_VER0, 48);
	PIN(LWP_STATS_SIZE_VER1, 80);
	PIN(offsetof(struct lwp_stats, switch_errors), 48);
	PIN(offsetof(struct lwp_stats, throttles), 72);
	PIN(offsetof(struct lwp_stats, throttled_irqs), 12);
}
END_TEST

START_TEST(pt_structs)
{
	PIN(sizeof(struct lwpt_pt_caps), 112);
	PIN(LWPT_PT_CAPS_SIZE_VER0, 80);
	PIN(LWPT_PT_CAPS_SIZE_VER1, 96);
	PIN(LWPT_PT_CAPS_SIZE_VER2, 112);
	PIN(offsetof(struct lwpt_pt_caps, cpuid_15h), 96);
	PIN(offsetof(struct lwpt_pt_caps, cpuid_16h_eax), 108);
	PIN(offsetof(struct lwpt_pt_caps, mlock_avail), 80);
	PIN(offsetof(struct lwpt_pt_caps, thread_spares), 88);
	PIN(sizeof(struct lwpt_pt_addr_range), 24);
	PIN(sizeof(struct lwpt_pt_config), 184);
	PIN(LWPT_PT_CONFIG_SIZE_VER0, 152);
	PIN(LWPT_PT_CONFIG_SIZE_VER1, 160);
	PIN(LWPT_PT_CONFIG_SIZE_VER2, 176);
	PIN(LWPT_PT_CONFIG_SIZE_VER3, 184);
	PIN(offsetof(struct lwpt_pt_config, hold_limit_ms), 176);
	PIN(LWPT_PT_HOLD_LIMIT_DEFAULT_MS, 1000);
	PIN(LWPT_PT_HOLD_LIMIT_NONE, 0xffffffffu);
	PIN(offsetof(struct lwpt_pt_config, cpu_mask), 160);
	PIN(offsetof(struct lwpt_pt_config, cpu_mask_size), 168);
	PIN(LWPT_PT_CPU_MASK_MAX, 4096);
	PIN(LWPT_PT_FIELD_CPU_MASK, 29);
	PIN(offsetof(struct lwpt_pt_config, rule), 152);
	PIN(offsetof(struct lwpt_pt_config, holder), 156);
	PIN(sizeof(struct lwpt_pt_status), 344);
	PIN(LWPT_PT_STATUS_SIZE_VER0, 88);
	PIN(LWPT_PT_STATUS_SIZE_VER1, 112);
	PIN(LWPT_PT_STATUS_SIZE_VER2, 120);
	PIN(LWPT_PT_STATUS_SIZE_VER3, 128);
	PIN(LWPT_PT_STATUS_SIZE_VER4, 280);
	PIN(LWPT_PT_STATUS_SIZE_VER5, 344);
	PIN(offsetof(struct lwpt_pt_status, threads_refused), 280);
	PIN(offsetof(struct lwpt_pt_status, pad_bytes), 288);
	PIN(offsetof(struct lwpt_pt_status, pad_from), 296);
	PIN(offsetof(struct lwpt_pt_status, pad_to), 304);
	PIN(offsetof(struct lwpt_pt_status, lost_bytes), 312);
	PIN(offsetof(struct lwpt_pt_status, serial), 320);
	PIN(offsetof(struct lwpt_pt_status, joined), 328);
	PIN(LWPT_PT_ST_FREED, 1u << 13);
	PIN(LWPT_PT_REL_DONE, 1u << 1);
	PIN(offsetof(struct lwpt_pt_status, hold_timeouts), 336);
	PIN(offsetof(struct lwpt_pt_status, holds), 128);
	PIN(offsetof(struct lwpt_pt_status, held_ns), 136);
	PIN(offsetof(struct lwpt_pt_status, gaps), 144);
	PIN(offsetof(struct lwpt_pt_status, gap_heads), 152);
	PIN(LWPT_PT_GAP_HEADS, 16);
	PIN(LWPT_PT_CFG_LOSSY, 1u << 17);
	PIN(offsetof(struct lwpt_pt_status, gap_head), 120);
	PIN(offsetof(struct lwpt_pt_status, buffer), 88);
	PIN(offsetof(struct lwpt_pt_status, stop_reason), 112);
	PIN(offsetof(struct lwpt_pt_status, ppid), 116);
	/* Bits added for issue 12: their values are ABI too. */
	PIN(LWPT_PT_CAP_LBR_EXCLUSIVE, 1u << 16);
	PIN(LWPT_PT_CAP_ERRATUM_SINGLE_4K, 1u << 17);
	PIN(LWPT_PT_ST_LBR, 1u << 12);
	PIN(sizeof(struct lwpt_pt_release), 24);
	PIN(LWPT_PT_RELEASE_SIZE_VER0, 16);
	PIN(LWPT_PT_RELEASE_SIZE_VER1, 24);
	PIN(offsetof(struct lwpt_pt_release, buffer), 16);
	PIN(sizeof(struct lwpt_pt_switch), 32);
	PIN(LWPT_PT_SWITCH_SIZE_VER0, 32);
	PIN(sizeof(struct lwpt_pt_sideband), 40);
	PIN(LWPT_PT_SIDEBAND_SIZE_VER0, 40);
}
END_TEST

/* /dev/bts, ABI 1.6 to 1.11. */
START_TEST(bts_structs)
{
	PIN(sizeof(struct lwpt_bts_record), 24);
	PIN(offsetof(struct lwpt_bts_record, from), 0);
	PIN(offsetof(struct lwpt_bts_record, to), 8);
	PIN(offsetof(struct lwpt_bts_record, flags), 16);
	PIN(LWPT_BTS_REC_PREDICTED, 1u << 4);
	PIN(sizeof(struct lwpt_bts_config), 32);
	PIN(LWPT_BTS_CONFIG_SIZE_VER0, 32);
	PIN(offsetof(struct lwpt_bts_config, size), 0);
	PIN(offsetof(struct lwpt_bts_config, flags), 4);
	PIN(offsetof(struct lwpt_bts_config, pid), 8);
	PIN(offsetof(struct lwpt_bts_config, reserved0), 12);
	PIN(offsetof(struct lwpt_bts_config, buffer_size), 16);
	PIN(offsetof(struct lwpt_bts_config, bad_field), 24);
	PIN(offsetof(struct lwpt_bts_config, reserved1), 28);
	PIN(LWPT_BTS_CFG_USER, 1u << 0);
	PIN(LWPT_BTS_CFG_KERNEL, 1u << 1);
	PIN(LWPT_BTS_FIELD_RESERVED, 5);
	PIN(sizeof(struct lwpt_bts_status), 32);
	PIN(LWPT_BTS_STATUS_SIZE_VER0, 32);
	PIN(offsetof(struct lwpt_bts_status, size), 0);
	PIN(offsetof(struct lwpt_bts_status, flags), 4);
	PIN(offsetof(struct lwpt_bts_status, head), 8);
	PIN(offsetof(struct lwpt_bts_status, switches), 16);
	PIN(offsetof(struct lwpt_bts_status, buffer_size), 24);
	PIN(LWPT_BTS_ST_EXITED, 1u << 3);
	PIN(LWPT_BTS_ST_EXEC_STOPPED, 1u << 4);
	PIN(LWPT_BTS_IOC_CONFIGURE, 0xc020d770);
	PIN(LWPT_BTS_IOC_STATUS, 0xc020d771);
	PIN(LWPT_BTS_IOC_STOP, 0x0000d772);
	/* ABI 1.7: ring captures. */
	PIN(LWPT_BTS_CFG_RING, 1u << 2);
	PIN(sizeof(struct lwpt_bts_ring), 64);
	PIN(LWPT_BTS_RING_SIZE_VER0, 56);
	PIN(LWPT_BTS_RING_SIZE_VER1, 64);	/* ABI 1.11 */
	PIN(offsetof(struct lwpt_bts_ring, size), 0);
	PIN(offsetof(struct lwpt_bts_ring, flags), 4);
	PIN(offsetof(struct lwpt_bts_ring, head), 8);
	PIN(offsetof(struct lwpt_bts_ring, tail), 16);
	PIN(offsetof(struct lwpt_bts_ring, records_size), 24);
	PIN(offsetof(struct lwpt_bts_ring, margin), 32);
	PIN(offsetof(struct lwpt_bts_ring, pmis), 40);
	PIN(offsetof(struct lwpt_bts_ring, holds), 48);
	PIN(offsetof(struct lwpt_bts_ring, hold_timeouts), 56);
	PIN(LWPT_BTS_IOC_CONSUME, 0x4008d773);
	/* The 1.7-1.10 number stays known; 1.11's carries 64 bytes. */
	PIN(LWPT_BTS_IOC_RING_STATUS_VER0, 0xc038d774);
	PIN(LWPT_BTS_IOC_RING_STATUS, 0xc040d774);
	/* ABI 1.7: per-CPU captures. */
	PIN(LWPT_BTS_FIELD_CPU, 6);
	PIN(sizeof(struct lwpt_bts_cpu_config), 32);
	PIN(LWPT_BTS_CPU_CONFIG_SIZE_VER0, 32);
	PIN(offsetof(struct lwpt_bts_cpu_config, size), 0);
	PIN(offsetof(struct lwpt_bts_cpu_config, flags), 4);
	PIN(offsetof(struct lwpt_bts_cpu_config, cpu), 8);
	PIN(offsetof(struct lwpt_bts_cpu_config, reserved0), 12);
	PIN(offsetof(struct lwpt_bts_cpu_config, buffer_size), 16);
	PIN(offsetof(struct lwpt_bts_cpu_config, bad_field), 24);
	PIN(offsetof(struct lwpt_bts_cpu_config, reserved1), 28);
	PIN(sizeof(struct lwpt_bts_switch), 32);
	PIN(LWPT_BTS_SWITCH_SIZE_VER0, 32);
	PIN(offsetof(struct lwpt_bts_switch, head), 0);
	PIN(offsetof(struct lwpt_bts_switch, cpu), 8);
	PIN(offsetof(struct lwpt_bts_switch, flags), 12);
	PIN(offsetof(struct lwpt_bts_switch, prev_pid), 16);
	PIN(offsetof(struct lwpt_bts_switch, prev_tid), 20);
	PIN(offsetof(struct lwpt_bts_switch, next_pid), 24);
	PIN(offsetof(struct lwpt_bts_switch, next_tid), 28);
	PIN(LWPT_BTS_SW_PREEMPT, 1u << 4);
	PIN(sizeof(struct lwpt_bts_switches), 32);
	PIN(LWPT_BTS_SWITCHES_SIZE_VER0, 32);
	PIN(offsetof(struct lwpt_bts_switches, size), 0);
	PIN(offsetof(struct lwpt_bts_switches, capacity), 4);
	PIN(offsetof(struct lwpt_bts_switches, records), 8);
	PIN(offsetof(struct lwpt_bts_switches, copied), 16);
	PIN(offsetof(struct lwpt_bts_switches, pending), 20);
	PIN(offsetof(struct lwpt_bts_switches, lost), 24);
	PIN(LWPT_BTS_IOC_CONFIGURE_CPU, 0xc020d775);
	PIN(LWPT_BTS_IOC_READ_SWITCHES, 0xc020d776);
	/* ABI 1.8: perf took IA32_DS_AREA. */
	PIN(LWPT_BTS_ST_DS_TAKEN, 1u << 5);
	/* ABI 1.9: the ring's hold limit, in reserved1's place. */
	PIN(offsetof(struct lwpt_bts_config, hold_limit_ms), 28);
	PIN(sizeof(struct lwpt_bts_config), 32);
	PIN(LWPT_BTS_HOLD_LIMIT_DEFAULT_MS, 1000);
	PIN(LWPT_BTS_HOLD_LIMIT_NONE, 0xffffffffu);
	PIN(LWPT_BTS_ST_HOLD_TIMEOUT, 1u << 6);
	PIN(LWPT_BTS_IOC_CONFIGURE, 0xc020d770);
	/* ABI 1.10: time stamps in per-CPU switch records; same ioctls. */
	PIN(LWPT_BTS_CFG_SWITCH_TSC, 1u << 3);
	PIN(sizeof(struct lwpt_bts_switch_tsc), 40);
	PIN(LWPT_BTS_SWITCH_TSC_SIZE_VER0, 40);
	PIN(offsetof(struct lwpt_bts_switch_tsc, sw), 0);
	PIN(offsetof(struct lwpt_bts_switch_tsc, tsc), 32);
	PIN(LWPT_BTS_IOC_CONFIGURE_CPU, 0xc020d775);
	PIN(LWPT_BTS_IOC_READ_SWITCHES, 0xc020d776);
}
END_TEST

/* /dev/bts LBR snapshots, ABI 1.7. */
START_TEST(bts_lbr_structs)
{
	PIN(LWPT_BTS_CFG_LBR, 1u << 4);
	PIN(LWPT_LBR_ENTRIES_MAX, 32);
	PIN(sizeof(struct lwpt_lbr_entry), 24);
	PIN(offsetof(struct lwpt_lbr_entry, from), 0);
	PIN(offsetof(struct lwpt_lbr_entry, to), 8);
	PIN(offsetof(struct lwpt_lbr_entry, flags), 16);
	PIN(LWPT_LBR_E_MISPRED, 1u << 0);
	PIN(LWPT_BTS_LBR_NOW, 0);
	PIN(LWPT_BTS_LBR_CRASH, 1);
	PIN(LWPT_BTS_LBR_F_MISPRED, 1u << 0);
	PIN(LWPT_BTS_LBR_F_FROZEN, 1u << 1);
	/* ABI 1.11: LBR formats 4 to 7. */
	PIN(LWPT_LBR_E_IN_TX, 1u << 1);
	PIN(LWPT_LBR_E_TSX_ABORT, 1u << 2);
	PIN(LWPT_LBR_E_CYCLES, 1u << 3);
	PIN(LWPT_LBR_E_CYCLES_SHIFT, 32);
	PIN(LWPT_LBR_E_CYCLES_MASK, 0xffff);
	PIN(LWPT_BTS_LBR_F_TSX, 1u << 2);
	PIN(sizeof(struct lwpt_bts_lbr), 800);
	PIN(LWPT_BTS_LBR_SIZE_VER0, 800);
	PIN(offsetof(struct lwpt_bts_lbr, size), 0);
	PIN(offsetof(struct lwpt_bts_lbr, which), 4);
	PIN(offsetof(struct lwpt_bts_lbr, flags), 8);
	PIN(offsetof(struct lwpt_bts_lbr, nr), 12);
	PIN(offsetof(struct lwpt_bts_lbr, depth), 16);
	PIN(offsetof(struct lwpt_bts_lbr, format), 20);
	PIN(offsetof(struct lwpt_bts_lbr, signo), 24);
	PIN(offsetof(struct lwpt_bts_lbr, reserved), 28);
	PIN(offsetof(struct lwpt_bts_lbr, entries), 32);
	PIN(LWPT_BTS_IOC_LBR_SNAPSHOT, 0xc320d778);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uapi_layout");
	TCase *tc = tcase_create("sizes");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, abi_version);
	tcase_add_test(tc, lwp_structs);
	tcase_add_test(tc, pt_structs);
	tcase_add_test(tc, bts_structs);
	tcase_add_test(tc, bts_lbr_structs);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
