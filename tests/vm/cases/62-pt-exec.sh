#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Packets from real execution (issue 5, points 5 and 6; Documentation/
# pt-model.rst, "Execution in the kernel"): lwpt_sim.ko single-steps the
# traced program and its PT model writes the packets; libipt's instruction
# flow decoder (ptflow) must reproduce exactly the user-mode instruction
# addresses that ptrace single-stepping of the same program lists, under
# both PT profiles, with no spec violation.
#
# The program (trace_flow_prog: loops, jump table, indirect calls,
# recursion deeper than the RET-compression stack, system calls; static,
# not PIE) runs with an empty environment both times, so its flow is the
# same. It is pinned to CPU 0 so the per-CPU fallback of ptcap writes its
# whole flow into one file.
. /lwpt/lib.sh

PROG=/bin/trace_flow_prog
D=/sys/kernel/debug/lwpt_sim

# The ground truth, once: every user-mode IP, REP iterations once.
env -i /bin/pt_flow_gt $PROG >/tmp/gt.txt 2>/tmp/gt.err
gt_rc=$?
[ $gt_rc -lt 125 ] || fail "pt_flow_gt: $(cat /tmp/gt.err)" || exit 1
n_gt=$(wc -l </tmp/gt.txt)
[ "$n_gt" -gt 1000 ] || fail "ground truth has $n_gt steps" || exit 1
ok "ground truth: $n_gt instructions by ptrace single-stepping (exit $gt_rc)"

for prof in full bdw; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof" >/dev/null ||
		fail "insmod pt_profile=$prof" || exit 1
	rm -rf /tmp/exec
	env -i /bin/taskset -c 0 /bin/ptcap --cr3 --size=4M -o /tmp/exec -- $PROG \
		>/tmp/ptcap.out 2>&1
	rc=$?
	[ $rc -eq $gt_rc ] || fail "$prof: ptcap: status $rc, want $gt_rc: $(cat /tmp/ptcap.out)" || exit 1
	grep '^' $D/step

	# Every trace file decodes with ptdump from its PSB.
	for f in /tmp/exec/*.pt; do
		ptdump "$f" >/tmp/ptdump.out 2>&1 ||
			fail "$prof: ptdump $f: $(tail -n 3 /tmp/ptdump.out)" || exit 1
	done
	ptdump --stats /tmp/exec/cpu0.pt | head -n 20

	# libipt's flow of the capture equals the ground truth.
	ptflow --no-inst /tmp/exec >/tmp/flow.out 2>&1
	grep -E '^\[resync' /tmp/flow.out | head -n 5
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n_flow=$(wc -l </tmp/flow.txt)
	if ! cmp -s /tmp/gt.txt /tmp/flow.txt; then
		echo "first difference (ground truth | libipt flow):"
		diff /tmp/gt.txt /tmp/flow.txt | head -n 20
		fail "$prof: libipt flow ($n_flow) differs from the ground truth ($n_gt)"
		exit 1
	fi
	[ "$(sim_violations)" = 0 ] || fail "$prof: violations $(sim_violations)" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$prof: rmmod" || exit 1
	ok "$prof: libipt flow of the model's trace = ground truth ($n_flow instructions), no violation"
done
