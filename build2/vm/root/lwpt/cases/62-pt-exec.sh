#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 480
# Packets from real execution (issue 5, points 5 and 6; Documentation/
# pt-model.rst, "Execution in the kernel"): lwpt_sim.ko single-steps the
# traced program and its PT model writes the packets; libipt's instruction
# flow decoder (ptflow) must reproduce exactly the user-mode instruction
# addresses that ptrace single-stepping of the same program lists, under
# both PT profiles, with no spec violation. Single-range output:
# 63-pt-single.sh.
#
# The program (trace_flow_prog: loops, jump table, indirect calls,
# recursion deeper than the RET-compression stack, system calls; static,
# not PIE) runs with an empty environment and without ASLR both times, so
# its flow is the same. It is pinned to CPU 0 so the per-CPU fallback of
# ptcap writes its whole flow into one file.
. /lwpt/lib.sh

PROG=$PT_FLOW_PROG
D=/sys/kernel/debug/lwpt_sim

pt_flow_ground_truth || exit 1

for prof in full bdw; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof" >/dev/null ||
		fail "insmod pt_profile=$prof" || exit 1

	# Default configuration (TSCEn, RET compression), then DisRETC.
	pt_flow_capture $prof default --cr3 --size=4M || exit 1
	grep '^' $D/step
	pt_flow_same $prof default /tmp/gt.txt || exit 1
	ok "$prof: libipt flow of the model's trace = ground truth ($n_flow instructions)"
	pt_flow_capture $prof disretc --cr3 --size=4M --disretc || exit 1
	pt_flow_same $prof disretc /tmp/gt.txt || exit 1
	ok "$prof: --disretc: flow = ground truth"

	if [ $prof = full ]; then
		# MTC and TMA timing packets (MTCFreq 3), a PSB+ every 2 KiB
		# (PSBFreq 0). Single-stepping is slow and the TSC runs on: MTCs
		# are dense, their number depends on the machine's load. If the
		# buffer wrapped, the flow is the end of the ground truth.
		pt_flow_capture $prof mtc --cr3 --size=16M --mtc=3 --psb-freq=0 || exit 1
		if grep -q '^status.cpu0.pt .* wraps=0 ' /tmp/exec/config; then
			pt_flow_same $prof mtc /tmp/gt.txt || exit 1
		else
			tail -n "$n_flow" /tmp/gt.txt >/tmp/gt_tail.txt
			pt_flow_same $prof mtc /tmp/gt_tail.txt || exit 1
		fi
		ok "$prof: --mtc=3 --psb-freq=0: flow = ground truth ($n_flow instructions)"

		# Wrap in 4 KiB: the newest data decodes from its first PSB and
		# is exactly the end of the ground truth.
		pt_flow_capture $prof wrap --cr3 --size=4K --mode=wrap --psb-freq=0 || exit 1
		[ "$n_flow" -gt 100 ] && [ "$n_flow" -lt "$n_gt" ] ||
			fail "$prof wrap: $n_flow instructions of $n_gt" || exit 1
		tail -n "$n_flow" /tmp/gt.txt >/tmp/gt_tail.txt
		pt_flow_same $prof wrap /tmp/gt_tail.txt || exit 1
		# Issue 16.5: ptcap and ptflow say the start was overwritten.
		grep -q '^ptcap: cpu0.pt: the buffer wrapped: the first [0-9]* of [0-9]* bytes written were overwritten' /tmp/ptcap.out &&
			head -n 1 /tmp/flow.out | grep -q '^\[trace starts mid-run: cpu0.pt: [0-9]* bytes of the start were overwritten (wrap mode)\]$' ||
			fail "$prof wrap: not said: $(cat /tmp/ptcap.out) $(head -n 1 /tmp/flow.out)" || exit 1
		ok "$prof: --size=4K --mode=wrap: the newest $n_flow instructions = end of the ground truth; ptcap and ptflow say it starts mid-run"

		# An internal buffer overflow (SDM 33.3.8): after 1000 bytes the
		# next 300 bytes of packets are refused. The trace has one OVF
		# with a FUP where tracing resumed; libipt's flow is the ground
		# truth with one contiguous window of instructions missing.
		echo "0 1000 300" >$D/pt_ovf
		PT_FLOW_STATUS=3	# data lost (ptcap.1), said on stderr
		pt_flow_capture $prof ovf --cr3 --size=4M || exit 1
		PT_FLOW_STATUS=0
		grep -q '^ptcap: cpu0.pt: data lost: 1 internal buffer overflow(s)' /tmp/ptcap.out &&
			grep -q '^outcome\.cpu0\.pt lost ovf=1$' /tmp/exec/config ||
			fail "$prof ovf: not reported: $(cat /tmp/ptcap.out)" || exit 1
		[ "$(ptdump /tmp/exec/cpu0.pt | grep -c ' ovf')" = 1 ] ||
			fail "$prof ovf: $(ptdump /tmp/exec/cpu0.pt | grep -c ' ovf') OVF packets" || exit 1
		grep -q '^\[overflow\]' /tmp/flow.out || fail "$prof ovf: no [overflow] from ptflow" || exit 1
		k=$(cmp /tmp/gt.txt /tmp/flow.txt 2>/dev/null | sed -n 's/.* line \([0-9]*\).*/\1/p')
		[ -n "$k" ] && [ "$k" -gt 100 ] && [ "$n_flow" -lt "$n_gt" ] ||
			fail "$prof ovf: flow $n_flow of $n_gt, first difference at ${k:-none}" || exit 1
		m=$((n_flow - k + 1))
		tail -n "$m" /tmp/flow.txt >/tmp/flow.tail
		tail -n "$m" /tmp/gt.txt | cmp -s - /tmp/flow.tail ||
			fail "$prof ovf: after the gap the flow is not the ground truth's end" || exit 1
		ok "$prof: OVF: flow = ground truth less the $((n_gt - n_flow)) instructions of the overflow, from instruction $k"
	fi

	[ "$(sim_violations)" = 0 ] || fail "$prof: violations $(sim_violations)" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$prof: rmmod" || exit 1
	ok "$prof: no spec violation, module unloads"
done

# Per thread (issue 6 point 4): the thread's RTIT state is switched at each
# context switch (XSAVES/XRSTORS, or the MSRs), TraceEn with it, so its
# trace is cut into PSB+ ... TIP.PGD pieces; libipt must still decode its
# whole flow. Not pinned: the thread migrates with its buffer.
for px in "full 1" "full 0" "bdw 0"; do
	set -- $px
	prof=$1 xs=$2
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof pt_xsaves=$xs" >/dev/null ||
		fail "insmod pt_profile=$prof pt_xsaves=$xs" || exit 1
	rm -rf /tmp/exec
	env -i /bin/norandom /bin/ptcap -o /tmp/exec --size=4M -- $PROG >/tmp/ptcap.out 2>&1
	rc=$?
	[ $rc -eq 0 ] && grep -qx "command-status exit=$gt_rc" /tmp/exec/config ||
		fail "$prof/xsaves=$xs: ptcap: $rc: $(cat /tmp/ptcap.out)" || exit 1
	ls /tmp/exec/tid*.pt >/dev/null 2>&1 || fail "$prof/xsaves=$xs: no tid*.pt" || exit 1
	ptflow --no-inst --no-symbols /tmp/exec >/tmp/flow.out 2>&1
	grep -E '^\[resync' /tmp/flow.out | head -n 5
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n_flow=$(wc -l </tmp/flow.txt)
	pt_flow_same $prof "per-thread/xsaves=$xs" /tmp/gt.txt || exit 1
	[ "$(sim_violations)" = 0 ] || fail "$prof/xsaves=$xs: violations" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$prof/xsaves=$xs: rmmod" || exit 1
	ok "$prof: per-thread, pt_xsaves=$xs: $(ptdump /tmp/exec/tid*.pt | grep -c 'psb$') PSB+, flow = ground truth ($n_flow)"
done
