#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Threshold interrupts (43724 §6 Threshold, §8.5) reach the owning thread
# through poll()/read() and through F_SETSIG/O_ASYNC, on both profiles, and
# survive context switches with the Family 15h switches off and on (XSAVE
# dropping Flags.INT: the driver re-arms it, issue 14 §2.1). XCR0[62]
# cleared under a running thread never brings back a stale state (§2.3).
# Whatever XRSTOR does with the re-armed INT bit (lwp_xrstor_int, issue 28
# §4), the thread keeps LWP across switches.
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
	# XRSTOR loads, ignores, or faults on the re-armed Flags bit 31
	# (Reserved, 43724 Table 7-1; issue 28 §4). 2 stops the re-arm for the
	# module's life: last.
	lwp_switches 1
	for m in 0 1 2; do
		echo "$m" > /sys/module/lwpt_sim/parameters/lwp_xrstor_int &&
			lwp_test rearm || { fail "rearm ($p, lwp_xrstor_int $m)"; rc=1; }
	done
	echo 0 > /sys/module/lwpt_sim/parameters/lwp_xrstor_int
	[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
	lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod ($p)"; rc=1; }
done
[ $rc = 0 ] && ok "threshold interrupts: poll, read, signal"
exit $rc
