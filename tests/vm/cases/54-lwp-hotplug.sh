#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CPU offline and online while a thread has LWP enabled: its state moves
# with it, LWP_CFG is programmed again on the CPU that comes back. With the
# Family 15h switches off and on (lib.sh lwp_switches).
. /lwpt/lib.sh

[ -w /sys/devices/system/cpu/cpu1/online ] || { echo "skip: no cpu1 hotplug"; exit 0; }
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko ud2_marker=1 >/dev/null || fail "insmod" || exit 1
rc=0
for sw in $LWP_SWITCH_RUNS; do
	lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
	lwp_test hotplug || { fail "hotplug (switches $sw)"; rc=1; }
	echo 1 > /sys/devices/system/cpu/cpu1/online 2>/dev/null
done
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod"; rc=1; }
[ $rc = 0 ] && ok "CPU hotplug with LWP enabled"
exit $rc
