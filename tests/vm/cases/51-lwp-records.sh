#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Raw LLWPCB/SLWPCB/LWPINS/LWPVAL from a static program, emulated after #UD
# by lwpt_sim.ko, under the fx8150 and full profiles: records, Flags
# write-back, CF, MissedEvents, head wrap (43724 §5, §6); CPUID through
# LWP_IOC_GET_CAPS (§3.3); instructions and branches retired counted from the
# thread's real execution (§2.2, §2.3); no spec violation. Each profile
# with the Family 15h switches off and on (lib.sh lwp_switches).
. /lwpt/lib.sh

rc=0
for p in fx8150 full; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=$p ud2_marker=1" >/dev/null ||
		{ fail "insmod lwp_profile=$p"; rc=1; continue; }
	lwp_test caps || { fail "caps ($p)"; rc=1; }
	for sw in $LWP_SWITCH_RUNS; do
		lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
		lwp_test records || { fail "records ($p, switches $sw)"; rc=1; }
		lwp_test events || { fail "events 2 and 3 ($p, switches $sw)"; rc=1; }
	done
	grep '^' /sys/kernel/debug/lwpt_sim/step
	[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations) ($p)"; rc=1; }
	lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod ($p)"; rc=1; }
done
[ $rc = 0 ] && ok "raw LWP instructions, fx8150 and full"
exit $rc
