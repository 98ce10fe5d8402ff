#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 1500
# Issue 27 section 1: lossless per-thread continuous capture (Documentation/
# pt.rst, "Continuous mode: the hold"). The traced thread waits in the
# kernel for its reader before its buffer can fill; --lossy keeps the old
# behaviour (it runs on, the losses are counted).
#  - pt_test thread-restart: START after STOP, three runs, every byte taken
#    (the second START once kept the first run's ToPA STOP);
#  - pt_test thread-hold: held before the buffer fills, RELEASE lets it go
#    on, SIGSTOP/SIGCONT work while held, SIGKILL ends it; LOSSY never holds;
#  - the issue's configuration: ptcap --mode=continuous --size=8K
#    --region-size=4K of pt_flow_threads (two threads, each writing more than
#    20 buffers): ptcap exits 0, each thread's flow decoded by libipt equals
#    ptrace single-stepping (pt_flow_gt -T) exactly. Here a subset of
#    pt_nmi_first_acker x pt_pmi_skid x profile (full 1/256, full 0/65536,
#    bdw 1/256; bdw with the single region's 4 KiB lap, MENTRY=0), and
#    --lossy once; tests/vm/slow/86-ptcap-hold-matrix.sh runs every
#    combination. No spec violation, no PMI lost.
. /lwpt/lib.sh

run() {	# run NAME: pt_test NAME, its failures printed
	out=$(pt_test "$1")
	rc=$?
	echo "$out" | grep -v '^ok:'
	[ $rc -eq 0 ] || fail "$tag: pt_test $1" || return 1
	ok "$tag: pt_test $1 ($(echo "$out" | grep -c '^ok:') checks)"
}

for prof in full bdw; do
	tag=$prof
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof pt_exec=0" >/dev/null ||
		fail "insmod $tag" || exit 1
	run thread-restart || exit 1
	run thread-hold || exit 1
	[ "$(sim_violations)" = 0 ] || fail "$tag: violations $(sim_violations)" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$tag: rmmod" || exit 1
done

hold_flow_gt || exit 1
for combo in full:1:256 full:0:65536 bdw:1:256; do
	hold_flow_case "$combo" || exit 1
done
hold_flow_lossy full:2:256 || exit 1
