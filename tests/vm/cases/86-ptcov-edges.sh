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
pt_cov_compare /tmp/exec "per thread" || exit 1

# The same with ptcap's IP filter on work() (SDM 33.2.5.3): ptcov takes the
# range from the capture's config; the ground truth's branches in it.
rm -rf /tmp/filt
env -i /bin/norandom /bin/ptcap --filter=work --size=16M -o /tmp/filt -- $PT_FLOW_PROG \
	>/tmp/filt.out 2>/tmp/filt.err
range=$(sed -n 's/^addr0 filter \(0x[0-9a-f]*-0x[0-9a-f]*\)$/\1/p' /tmp/filt/config)
[ -n "$range" ] || fail "ptcap --filter=work: $(cat /tmp/filt.err)" || exit 1
pt_cov_compare /tmp/filt "per thread, --filter=work ($range)" "$range" || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
