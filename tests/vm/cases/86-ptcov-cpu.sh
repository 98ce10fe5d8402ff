#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 600
# ptcov's edges of a per-CPU capture equal the edges of the program's
# ptrace single-stepping (issue 25 point 3, "per-thread and per-CPU"; the
# per-thread capture is 86-ptcov-edges): trace_flow_prog without ASLR,
# once single-stepped (pt_flow_gt) and once captured by ptcap per CPU
# with --cr3 (CR3 filtering to the program, SDM 33.2.5.4; the program on
# CPU 0, pt_flow_capture), so cpu0.pt holds the program and nothing else
# the CPU ran; `ptcov --edges DIR` against pt_gt_edges. Then the same with
# ptcap's IP filter on work() added (--filter=work: the ground truth's
# branches in the range).
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1
pt_flow_ground_truth || exit 1

pt_flow_capture full ptcov-cpu --cr3 --size=16M >/dev/null || exit 1
ls /tmp/exec/cpu*.pt >/dev/null 2>&1 || fail "--cr3: no per-CPU trace: $(ls /tmp/exec)" || exit 1
pt_cov_compare /tmp/exec "per CPU (--cr3, CPU 0)" || exit 1

pt_flow_capture full ptcov-cpu-filter --cr3 --filter=work --size=16M >/dev/null || exit 1
range=$(sed -n 's/^addr0 filter \(0x[0-9a-f]*-0x[0-9a-f]*\)$/\1/p' /tmp/exec/config)
[ -n "$range" ] || fail "--cr3 --filter=work: no addr0 filter in config" || exit 1
pt_cov_compare /tmp/exec "per CPU, --filter=work ($range)" "$range" || exit 1

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
