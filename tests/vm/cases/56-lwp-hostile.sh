#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /dev/lwp against a hostile unprivileged user (issue 13 §3): uid 1000 asks
# for a threshold interrupt per record (Threshold 0) and stores thousands:
# the driver throttles it (at most 1000 interrupts a second per thread, then
# Flags.INT off for a second, Documentation/lwp.rst) and gives the interrupt
# back afterwards; size-versioned structs above PAGE_SIZE are refused. With
# the Family 15h switches off and on.
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko ud2_marker=1 >/dev/null || fail "insmod" || exit 1
rc=0
for sw in $LWP_SWITCH_RUNS; do
	lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
	lwp_test flood || { fail "flood (switches $sw)"; rc=1; }
done
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod"; rc=1; }
[ $rc = 0 ] && ok "hostile user: interrupt flood throttled, oversized structs refused"
exit $rc
