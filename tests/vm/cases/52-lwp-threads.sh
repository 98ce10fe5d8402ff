#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Per-thread LWP (issue 4): SIGILL without LWP_IOC_ENABLE, two processes
# isolated on 2 vCPUs, thousands of context switches on one CPU, fork/exec/
# exit while enabled, invalid ioctls; afterwards rmmod succeeds (nothing left
# behind) and the spec-violation count is 0. With the Family 15h switches
# off and on (lib.sh lwp_switches).
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko ud2_marker=1 >/dev/null || fail "insmod" || exit 1
rc=0
for sw in $LWP_SWITCH_RUNS; do
	lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
	for t in sigill "isolate 3000" "pingpong 3000" fork exitthread ioctl; do
		# shellcheck disable=SC2086
		lwp_test $t || { fail "lwp_test $t (switches $sw)"; rc=1; }
	done
done
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod after the tests"; rc=1; }
[ $rc = 0 ] && ok "per-thread LWP"
exit $rc
