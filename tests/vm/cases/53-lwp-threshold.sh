#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Threshold interrupts (43724 §6 Threshold, §8.5) reach the owning thread
# through poll()/read() and through F_SETSIG/O_ASYNC, on both profiles, and
# survive context switches with the Family 15h switches off and on (XSAVE
# dropping Flags.INT: the driver re-arms it, issue 14 §2.1). XCR0[62]
# cleared under a running thread never brings back a stale state (§2.3).
. /lwpt/lib.sh

rc=0
for p in fx8150 full; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=$p ud2_marker=1" >/dev/null ||
		{ fail "insmod lwp_profile=$p"; rc=1; continue; }
	for sw in $LWP_SWITCH_RUNS; do
		lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
		lwp_test threshold || { fail "threshold ($p, switches $sw)"; rc=1; }
		lwp_test xcr0steal || { fail "xcr0steal ($p, switches $sw)"; rc=1; }
	done
	[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
	lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod ($p)"; rc=1; }
done
[ $rc = 0 ] && ok "threshold interrupts: poll, read, signal"
exit $rc
