#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 600
# The reboot/kexec quiesce (issue 27 2.3; Documentation/pt.rst "Reboot and
# kexec"): the reboot notifier clears TraceEn on every CPU and sets a
# global state every enable path honours. Run through lwpt_sim's test aid
# pt_reboot_quiesce (the notifier's work without rebooting), under the
# full and bdw profiles, for a per-thread and a per-CPU capture (a fresh
# module each: the state lasts until unload): after it, TraceEn stays 0 in
# the model across a traced thread's sched-in, STATUS and RELEASE (their
# IPIs), CPU 1 offline and online; START is ESHUTDOWN; no spec violation.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters

for prof in full bdw; do
	for what in thread cpu; do
		tag="$prof $what"
		lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof pt_exec=0" >/dev/null ||
			fail "insmod $tag" || exit 1
		[ "$(cat $P/pt_reboot_quiesce)" = N ] || fail "$tag: quiesced at load" || exit 1
		out=$(pt_test quiesce-$what)
		rc=$?
		echo "$out" | grep -v '^ok:'
		[ $rc -eq 0 ] || fail "$tag: pt_test quiesce-$what" || exit 1
		[ "$(cat $P/pt_reboot_quiesce)" = Y ] || fail "$tag: not quiesced" || exit 1
		lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod $tag" || exit 1
		ok "$tag: pt_test quiesce-$what ($(echo "$out" | grep -c '^ok:') checks)"
	done
done
