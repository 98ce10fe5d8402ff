#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /dev/pt on lwpt_sim.ko under both PT profiles (issue 6): capabilities
# from CPUID leaf 14H (SDM 33.3.1); every IA32_RTIT_CTL option reaches the
# model's MSRs encoded as SDM 33.2.8.2 says; invalid configurations refused
# with the right errno and field before any MSR is written; wrap, stop and
# PMI-driven continuous capture through ToPA (SDM 33.2.7.2, Table 33-4);
# single-range output (SDM 33.2.7.1): its MSRs, refusals, a silent wrap
# read oldest first (pt_test single);
# read-only mmap; an unprivileged user cannot trace the system, the kernel
# or another user's process; unloading after a capture; no spec violation.
# The capture tests check bytes stored with pt_inject, so the model writes
# no packets from execution here (pt_exec=0); 62-pt-exec.sh tests those.
. /lwpt/lib.sh

for prof in full bdw; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof pt_exec=0" >/dev/null ||
		fail "insmod pt_profile=$prof" || exit 1
	for t in caps options invalid modes mmap perm single; do
		out=$(pt_test $t)
		rc=$?
		echo "$out" | grep -v '^ok:'
		[ $rc -eq 0 ] || fail "$prof: pt_test $t" || exit 1
		ok "$prof: pt_test $t ($(echo "$out" | grep -c '^ok:') checks)"
	done
	[ "$(sim_violations)" = 0 ] || fail "$prof: violations" || exit 1

	# Unload: impossible while a capture's file is open; clean after.
	pt_hold hold || fail "$prof: hold did not start" || exit 1
	pid=$hold_pid
	grep -q ' ctl=0x[0-9a-f]*[13579bdf] ' /sys/kernel/debug/lwpt_sim/pt_msrs ||
		fail "$prof: TraceEn not set while holding" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null && fail "$prof: rmmod while tracing" && exit 1
	kill $pid
	wait $pid 2>/dev/null
	[ "$(sim_violations)" = 0 ] || fail "$prof: violations after close" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$prof: rmmod after close" || exit 1
	ok "$prof: unload only after the capture's file is closed, no violation"
done
