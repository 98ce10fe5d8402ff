#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 600
# ToPA PMIs at the worst moment (issue 27 2.2; Documentation/pt.rst "The
# ToPA PMI"; Documentation/pt-model.rst "PMI timing"): lwpt_sim's
# pt_pmi_at_enable holds a PMI back until right after the next write that
# sets TraceEn on its CPU, i.e. inside a traced thread's load, before its
# bookkeeping is done. pt_test pmi-window (pt_exec=0, pt_inject patterns):
# the PMI is claimed (no unknown NMI, LVTPC unmasked, a later PMI not
# dropped), counted once and accounted as the lap it was, also with
# InjectPsbPmiOnEnable (PendTopaPMI re-pends it at the load: cleared
# there, SDM 33.2.7.2 "PMI Preservation"); LVTPC is unmasked only after
# perf's handler (pt_nmi_first_acker=2) ran; a perf counter's PMI right
# after is not claimed by lwpt. Under full (XRSTORS and WRMSR loads) and
# bdw (MENTRY=0), with no other NMI handler (0) and with perf (2). With
# pt_nmi_first_acker=1 a PMI whose bit 55 another handler acknowledged
# first, inside a load, leaves no evidence for lwpt (Documentation/pt.rst):
# not run. First, pt_pmi_late: a PMI delivered after the switch-out that
# cleared TraceEn is claimed (pt_pmi_late()), no unknown NMI, LVTPC unmasked;
# pt_pmi_park: one delivered (debugfs pt_pmi_deliver) long after, once more
# than the old rule's 1 ms passed with nothing of lwpt's on the CPU, is
# claimed too, its lap counted once (issue 39 A: the switch-out's credit,
# pt_cpu_pmi_raised()). Last, a KVM guest's ToPA PMI (bit 55 set) and a perf
# counter's PMI where nothing of lwpt's is loaded are not claimed.
. /lwpt/lib.sh

# One load per profile and pt_xsaves (0444: CPUID and XSAVE layout are
# read at load); pt_nmi_first_acker (0644, read at each NMI: sim_base.c)
# through sysfs between the runs (issue 28 §0: no needless reloads). 2
# before 0: with no other handler (0) the perf counter's PMI at the end
# leaves LVTPC masked, as on hardware, until the next load.
for combo in full:1:"2 0" full:0:2 bdw:0:"2 0"; do
	prof=${combo%%:*}
	rest=${combo#*:}
	xs=${rest%%:*}
	ackers=${rest#*:}
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof pt_xsaves=$xs pt_exec=0" \
		>/dev/null || fail "insmod $prof pt_xsaves=$xs" || exit 1
	for acker in $ackers; do
		tag="$prof pt_xsaves=$xs pt_nmi_first_acker=$acker"
		echo "$acker" >/sys/module/lwpt_sim/parameters/pt_nmi_first_acker ||
			fail "$tag: set pt_nmi_first_acker" || exit 1
		out=$(pt_test pmi-window)
		rc=$?
		echo "$out" | grep -v '^ok:'
		[ $rc -eq 0 ] || fail "$tag: pt_test pmi-window" || exit 1
		ok "$tag: pt_test pmi-window ($(echo "$out" | grep -c '^ok:') checks)"
	done
	module_idle lwpt_sim
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod $prof pt_xsaves=$xs" || exit 1
done
