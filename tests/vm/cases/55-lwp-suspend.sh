#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Suspend to RAM (pm_test=core: CPU offline, syscore suspend/resume, no real
# sleep) while a thread has LWP: its LWP state survives and LWP_CFG is
# restored on every CPU. With the Family 15h switches off and on.
. /lwpt/lib.sh

[ -w /sys/power/pm_test ] && grep -q mem /sys/power/state ||
	{ echo "skip: no /sys/power/pm_test or no mem state"; exit 0; }
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko ud2_marker=1 >/dev/null || fail "insmod" || exit 1
rc=0
for sw in $LWP_SWITCH_RUNS; do
	lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
	lwp_test suspend || { fail "suspend (switches $sw)"; rc=1; }
	echo none > /sys/power/pm_test
done
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod"; rc=1; }
[ $rc = 0 ] && ok "suspend/resume with LWP enabled"
exit $rc
