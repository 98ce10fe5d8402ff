#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A CPU whose LWP_CFG write fails (lwpt_sim.ko lwp_cfg_fail_cpu=1, issue 14
# §2.4): the module still loads, logs one line naming the CPU, leaves LWP
# off there (LWP_CFG 0, Fn8000_001C_EAX[31:1] 0) and on elsewhere; the CPU
# still goes offline and online.
. /lwpt/lib.sh

[ -w /sys/devices/system/cpu/cpu1/online ] || { echo "skip: no cpu1"; exit 0; }
mark=$(dmesg_mark)
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_cfg_fail_cpu=1 ud2_marker=1" >/dev/null ||
	fail "insmod with LWP_CFG refused on cpu1" || exit 1
rc=0
dmesg_since "$mark" | grep -q 'LWP: cpu1: LWP_CFG=.* not taken.*LWP is off on this CPU' ||
	{ dmesg_since "$mark"; fail "no log line for cpu1"; rc=1; }
lwp_test cfgoff 1 || { fail "cfgoff"; rc=1; }
echo 0 > /sys/devices/system/cpu/cpu1/online && echo 1 > /sys/devices/system/cpu/cpu1/online ||
	{ fail "cpu1 offline/online"; rc=1; }
lwp_test cfgoff 1 || { fail "cfgoff after online"; rc=1; }
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod"; rc=1; }
[ $rc = 0 ] && ok "LWP_CFG refused on one CPU: LWP off there, module loaded"
exit $rc
