#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 600
# ptcov's edges of a capture equal the edges of the program's ptrace
# single-stepping (issue 25 point 3): trace_flow_prog without ASLR, once
# single-stepped (pt_flow_gt: every user-mode instruction) and once
# captured per thread by ptcap on the model; `ptcov --edges DIR` against
# pt_gt_edges (each branch of the ground truth paired with the next
# instruction, far transfers left out: the user-mode trace stops at them).
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1
pt_flow_ground_truth || exit 1
pt_flow_capture full ptcov --size=16M >/dev/null || exit 1
ptcov --edges /tmp/exec >/tmp/cov_edges.txt 2>/tmp/cov.err ||
	fail "ptcov: $? $(cat /tmp/cov.err)" || exit 1
pt_gt_edges /tmp/exec </tmp/gt.txt >/tmp/gt_edges.txt ||
	fail "pt_gt_edges: $?" || exit 1
n=$(awk '{ s += $3 } END { print NR " distinct, " s }' /tmp/gt_edges.txt)
if cmp -s /tmp/gt_edges.txt /tmp/cov_edges.txt; then
	ok "ptcov edges = single-stepping edges ($n)"
else
	echo "first difference (single-stepping | ptcov):"
	diff /tmp/gt_edges.txt /tmp/cov_edges.txt | head -n 20
	fail "ptcov edges ($(wc -l </tmp/cov_edges.txt) distinct) differ from single-stepping ($n)" || exit 1
fi
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
