#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 7200
# Issue 27 section 1, the full matrix of tests/vm/cases/86-ptcap-hold.sh:
# ptcap --mode=continuous --size=8K --region-size=4K (one 8 KiB region on
# bdw, MENTRY=0) of pt_flow_threads, two threads each writing more than 20
# buffers, under every pt_nmi_first_acker 0/1/2 x pt_pmi_skid 0/256/65536
# x pt_profile full/bdw: ptcap exits 0 and each thread's libipt flow equals
# ptrace single-stepping exactly; then --lossy under the same 18: the
# losses are counted (ptcap status 3 exactly when there are some) and both
# flows decode without error, in ground-truth order. Why slow: each
# capture single-steps about 300 000 instructions through the model under
# QEMU TCG (one to several minutes on a loaded host), 36 captures.
. /lwpt/lib.sh

# Every combination runs; the failures are listed at the end.
hold_flow_gt || exit 1
failed=
for check in hold_flow_case hold_flow_lossy; do
	for prof in full bdw; do
		for acker in 0 1 2; do
			for skid in 0 256 65536; do
				$check "$prof:$acker:$skid" && continue
				failed="$failed $check:$prof:$acker:$skid"
				lwpt_vmtool rmmod lwpt_sim >/dev/null 2>&1
			done
		done
	done
done
[ -z "$failed" ] || fail "failed:$failed" || exit 1
