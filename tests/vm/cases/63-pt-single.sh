#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 450
# Single-range output (SDM 33.2.7.1, issue 6 point 2) with packets from
# real execution: ptcap --single-range (IA32_RTIT_CTL.ToPA=0, one
# contiguous range) under the full profile. In 1 MiB the whole trace fits
# and libipt's flow equals the ptrace ground truth; in 4 KiB the range
# wraps without a PMI, libpt reads it from OutputOffset on, and the flow is
# exactly the end of the ground truth. No spec violation. On tgl (erratum
# TGL052) the 1 MiB single range becomes ToPA, the flow still whole. (A case of its
# own: 62-pt-exec.sh is near the per-case time limit.)
. /lwpt/lib.sh

pt_flow_ground_truth || exit 1
prof=full
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof" >/dev/null ||
	fail "insmod pt_profile=$prof" || exit 1

pt_flow_capture $prof single --cr3 --single-range --size=1M || exit 1
grep -q '^output single-range$' /tmp/exec/config &&
	grep -q '^status.cpu0.pt .* wrap-unknown$' /tmp/exec/config ||
	fail "$prof single: config: $(grep -E '^(output|status)' /tmp/exec/config)" || exit 1
grep -q '^rtit-ctl ' /tmp/exec/config &&
	! grep -q '^rtit-ctl 0x[0-9a-f]*[13579bdf][0-9a-f][0-9a-f]$' /tmp/exec/config ||
	fail "$prof single: ToPA (bit 8) set: $(grep '^rtit-ctl' /tmp/exec/config)" || exit 1
pt_flow_same $prof single /tmp/gt.txt || exit 1
ok "$prof: --single-range --size=1M: flow = ground truth ($n_flow instructions)"

pt_flow_capture $prof single-wrap --cr3 --single-range --size=4K --psb-freq=0 || exit 1
[ "$n_flow" -gt 100 ] && [ "$n_flow" -lt "$n_gt" ] ||
	fail "$prof single-wrap: $n_flow instructions of $n_gt" || exit 1
tail -n "$n_flow" /tmp/gt.txt >/tmp/gt_tail.txt
pt_flow_same $prof single-wrap /tmp/gt_tail.txt || exit 1
ok "$prof: --single-range --size=4K: the newest $n_flow instructions = end of the ground truth"

[ "$(sim_violations)" = 0 ] || fail "$prof: violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$prof: rmmod" || exit 1
ok "$prof: single range: no spec violation, module unloads"

# Erratum TGL052 (tgl, the Intel 06_8CH it is with lwp_profile=none): the
# 1 MiB single range is configured as ToPA (Documentation/pt.rst, "Errata
# and model-specific rules"); the flow is still the whole ground truth and
# the model never sees a single range above 4 KiB (no violation).
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=tgl" >/dev/null ||
	fail "insmod pt_profile=tgl" || exit 1
pt_flow_capture tgl single-capped --cr3 --single-range --size=1M || exit 1
grep -q '^output topa$' /tmp/exec/config ||
	fail "tgl: --single-range --size=1M: $(grep '^output' /tmp/exec/config), want topa" || exit 1
pt_flow_same tgl single-capped /tmp/gt.txt || exit 1
[ "$(sim_violations)" = 0 ] || fail "tgl: violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "tgl: rmmod" || exit 1
ok "tgl: --single-range --size=1M configured as ToPA (TGL052): flow = ground truth ($n_flow instructions), no violation"
