#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 1500
# Issue 12: the ToPA PMI path and continuous mode gated in hardware, on a
# model as unkind as a real server (Documentation/pt-model.rst,
# "Neighbours"; Documentation/pt.rst, "The ToPA PMI", "Continuous mode"):
# LVTPC masked by every PMI, another NMI handler acknowledging
# IA32_PERF_GLOBAL_STATUS before lwpt's (pt_nmi_first_acker=1) or after
# it (=2, perf behind NMI_FLAG_FIRST) or none (=0), PMI skid of 0, 256
# and 64 KiB.
#
# A program whose trace is more than 20 times the buffer is captured in
# continuous mode (per CPU, --cr3, pinned to CPU 0). With several ToPA
# regions (full) the decoded flow must equal ptrace single-stepping
# exactly. With one region (bdw, MENTRY=0) the processor stops at the end
# of every lap until the reader has taken it all (INT+STOP on the single
# entry): time is lost, never data - the loss is reported, the flow
# decodes without error and its first lap is the start of the ground truth. (While the capture waits, lwpt_sim does not single-step the
# program, which then runs at full speed: most of it goes untraced.)
# Then each neighbour event mid-capture: the loss is reported, nothing is
# claimed clean, no kernel splat, no spec violation, rmmod works.
. /lwpt/lib.sh

PROG=/bin/pt_flow_long
ROUNDS=30000
D=/sys/kernel/debug/lwpt_sim
P=/sys/module/lwpt_sim/parameters

mark=$(dmesg_mark)
# Without ASLR, ground truth and captures alike: with it, glibc's strlen of
# AT_PLATFORM sometimes takes its page-crossing path (pt-model.rst, 17.5).
env -i /bin/norandom /bin/pt_flow_gt $PROG $ROUNDS >/tmp/gt.txt 2>/tmp/gt.err
gt_rc=$?
[ $gt_rc -lt 125 ] || fail "pt_flow_gt: $(cat /tmp/gt.err)" || exit 1
n_gt=$(wc -l </tmp/gt.txt)
ok "ground truth: $n_gt instructions of $PROG $ROUNDS (exit $gt_rc)"

# cont SIZE OPTIONS...: continuous capture of the program on CPU 0; sets
# bytes, lost, n_flow; the flow in /tmp/flow.txt.
cont() {
	size=$1
	shift
	rm -rf /tmp/exec
	env -i /bin/norandom /bin/taskset -c 0 /bin/ptcap -o /tmp/exec --cr3 --mode=continuous \
		--disretc --size=$size "$@" -- $PROG $ROUNDS >/tmp/ptcap.out 2>&1
	rc=$?
	# ptcap's own status: 0, or 3 with data lost (ptcap(1)); the
	# program's is in config.
	{ [ $rc -eq 0 ] || [ $rc -eq 3 ]; } && grep -qx "command-status exit=$gt_rc" /tmp/exec/config ||
		fail "ptcap: status $rc, command $(grep command-status /tmp/exec/config), want exit=$gt_rc: $(cat /tmp/ptcap.out)" || return 1
	st=$(grep '^status.cpu0.pt' /tmp/exec/config)
	bytes=${st#*bytes=}
	bytes=${bytes%% *}
	lost=${st#* lost=}
	lost=${lost%% *}
	ptflow --no-symbols --no-inst /tmp/exec >/tmp/flow.out 2>&1
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n_flow=$(wc -l </tmp/flow.txt)
}

# The flow is the ground truth in order, with gaps only (nothing from an
# overwritten lap): every decoded address matches the next ones of the
# ground truth.
in_order() {
	awk 'NR == FNR { gt[NR] = $0; n = NR; next }
	     { while (i < n && gt[++i] != $0) ; if (gt[i] != $0) bad++ }
	     END { exit bad ? 1 : 0 }' /tmp/gt.txt /tmp/flow.txt
}

# start_is_gt: the flow before its first gap, resync or overflow line is
# the start of the ground truth (at most 1000 instructions compared).
start_is_gt() {
	awk '/^\[(gap|resync|overflow)/ { exit } /^[0-9a-f]{16}$/ { print }' /tmp/flow.out |
		head -n 1000 >/tmp/flow.head
	head -n "$(wc -l </tmp/flow.head)" /tmp/gt.txt | cmp -s - /tmp/flow.head && return 0
	# Say where they part, for the log.
	echo "note: flow head $(wc -l </tmp/flow.head) lines, first $(head -n 1 /tmp/flow.head);" \
		"ground truth first $(head -n 1 /tmp/gt.txt);" \
		"$(head -n "$(wc -l </tmp/flow.head)" /tmp/gt.txt | cmp - /tmp/flow.head 2>&1)"
	grep -n '^\[' /tmp/flow.out | head -n 5
	return 1
}

# cpu0_bytes: trace bytes the model has written on CPU 0 since insmod.
cpu0_bytes() {
	sed -n 's/^cpu0 .* bytes_written=\([0-9]*\) .*/\1/p' $D/pt_msrs
}

pmi_clean() {
	! grep -v ' dropped=0 ' $D/pmi | grep -q .
}

for prof in full bdw; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof" >/dev/null ||
		fail "insmod pt_profile=$prof" || exit 1
	if [ $prof = full ]; then
		size=8K
		opts=--region-size=4K
	else
		size=4K
		opts=
	fi
	for ak in 1/0 1/256 1/65536 0/0 0/256 0/65536 2/256; do
		acker=${ak%/*} skid=${ak#*/}
		tries=0
		while :; do
			echo $acker >$P/pt_nmi_first_acker
			echo $skid >$P/pt_pmi_skid
			what="$prof acker=$acker skid=$skid"
			cont $size $opts || { fail "$what"; exit 1; }
			if [ $prof = full ] && [ "$lost" != 0 ]; then
				# The reader fell a whole buffer behind (a loaded
				# host): the CPU waited at the gate, a counted loss,
				# and lwpt_sim stops stepping the program meanwhile.
				# Timing, not a fault: check what a loss allows,
				# and try again (3 times) for an exact run.
				echo "note: $what: reader fell behind: $st"
				! grep -q '^\[error' /tmp/flow.out ||
					fail "$what: decode error" || exit 1
				start_is_gt ||
					fail "$what: first 1000 instructions differ" || exit 1
				tries=$((tries + 1))
				[ $tries -lt 3 ] && continue
				ok "$what: $bytes bytes through $size, lost $lost (timing, 3 tries), start = ground truth"
				break
			fi
			if [ $prof = full ] && [ "$bytes" -lt $((20 * ${size%K} * 1024)) ]; then
				# Short of 20 buffers with no loss counted: output
				# that did not resume after the gate, or a stop at
				# the gate not counted (pt_output_gate_stopped()).
				fail "$what: only $bytes bytes of trace, no loss counted: $st" || exit 1
			elif [ $prof = full ]; then
				:
			else
				# Each lap ends with STOP: a loss, never unreported.
				[ "$lost" -ge 1 ] ||
					fail "$what: lap end without a counted loss: $st" || exit 1
				# The trace restarts once ptcap, on the program's CPU,
				# has drained the lap (or, with a skid beyond the 4 KiB
				# region, at a switch-out): on a loaded host the
				# program may end first, one lap then (the stop
				# counted, and reported).
				one_lap=0
				if [ "$bytes" = 4096 ] && echo "$st" | grep -q ' stopped'; then
					one_lap=1
					echo "note: $what: one lap, the program ended before a switch-out restarted it: $st"
				fi
				[ "$bytes" -gt 4096 ] || [ $one_lap = 1 ] ||
					fail "$what: $bytes bytes, lost $lost: $st" || exit 1
				# Each lap's stop cuts the stream at a lap's end:
				# one gaps.cpu0.pt offset per loss, 4 KiB apart
				# (after the last lap, no cut in the file).
				gaps=$(sed -n 's/^gaps\.cpu0\.pt //p' /tmp/exec/config)
				[ "$(echo $gaps | wc -w)" = "$lost" ] || [ $one_lap = 1 ] ||
					fail "$what: gaps '$gaps' for $lost losses" || exit 1
				for g in $gaps; do
					[ $((g % 4096)) = 0 ] && [ $g -gt 0 ] ||
						fail "$what: gap at $g, not at a lap's end" || exit 1
				done
			fi
			pmi_clean || fail "$what: a PMI was lost to a masked LVTPC: $(cat $D/pmi)" || exit 1
			if [ $prof = full ]; then
				pt_flow_same $prof "$what" /tmp/gt.txt || exit 1
			else
				! grep -q '^\[error' /tmp/flow.out ||
					fail "$what: decode error: $(grep '^\[error' /tmp/flow.out | head -n 3)" || exit 1
				# The first lap, before any STOP: the start of the
				# ground truth, nothing overwritten. Past each gap
				# (ptcap's gaps.cpu0.pt: the stop cut a packet) ptflow
				# decodes from the next PSB: still in order.
				start_is_gt ||
					fail "$what: the first lap is not the start of the ground truth" || exit 1
				in_order || fail "$what: flow past the gaps not in ground-truth order" || exit 1
			fi
			ok "$what: $bytes bytes through $size, lost $lost, $(echo $st | sed 's/.*\(pmis=[0-9]*\).*/\1/'), flow $n_flow of $n_gt"
			break
		done
	done
	if [ $prof = full ]; then
		# Per thread: the gate also holds across switch-out and the
		# thread's load at switch-in (pt_thread.c), skid 64 KiB.
		echo 1 >$P/pt_nmi_first_acker
		echo 65536 >$P/pt_pmi_skid
		# A reader a buffer behind (timing, a counted stall): again.
		for try in 1 2 3; do
			rm -rf /tmp/exec
			env -i /bin/norandom /bin/ptcap -o /tmp/exec --mode=continuous --disretc --size=8K \
				--region-size=4K -- $PROG $ROUNDS >/tmp/ptcap.out 2>&1
			rc=$?
			{ [ $rc -eq 0 ] || [ $rc -eq 3 ]; } && grep -qx "command-status exit=$gt_rc" /tmp/exec/config ||
				fail "per-thread: ptcap: $rc: $(cat /tmp/ptcap.out)" || exit 1
			st=$(grep '^status.tid' /tmp/exec/config)
			echo "$st" | grep -q ' lost=0 ' && break
			echo "note: per-thread: reader fell behind: $st"
		done
		ptflow --no-symbols --no-inst /tmp/exec >/tmp/flow.out 2>&1
		grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
		n_flow=$(wc -l </tmp/flow.txt)
		if echo "$st" | grep -q ' lost=0 ' && [ "$n_flow" -lt "$n_gt" ]; then
			fail "per-thread continuous: $n_flow of $n_gt instructions, no loss counted: $st" || exit 1
		elif echo "$st" | grep -q ' lost=0 '; then
			pt_flow_same full "per-thread continuous" /tmp/gt.txt || exit 1
			ok "full: per-thread continuous, skid 65536: $st, flow = ground truth"
		else
			# The reader fell behind in every try (a loaded host):
			# the thread waited at the gate, a counted loss.
			start_is_gt ||
				fail "per-thread: the start is not the ground truth's" || exit 1
			echo "note: per-thread continuous: the reader fell behind, loss reported: $st"
		fi
	fi
	[ "$(sim_violations)" = 0 ] || fail "$prof: violations $(sim_violations)" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$prof: rmmod" || exit 1
	ok "$prof: no spec violation, module unloads"
done

# Neighbours mid-capture (full profile, 64 KiB): 0 another tracer clears
# TraceEn and points the output MSRs at its own ToPA; 1 VMXON where
# IA32_VMX_MISC[14] = 0 clears TraceEn (SDM 33.2.9.4).
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=full" >/dev/null ||
	fail "insmod full" || exit 1
for kind in 0 1; do
	rm -rf /tmp/exec
	base=$(cpu0_bytes)
	env -i /bin/norandom /bin/taskset -c 0 /bin/ptcap -o /tmp/exec --cr3 --mode=continuous \
		--disretc --size=64K -- $PROG $ROUNDS >/tmp/ptcap.out 2>&1 &
	pid=$!
	# Until CPU 0 traces and has written 2 KiB of this program's trace
	# (its start is in the buffer: on a loaded host TraceEn may be set
	# well before the program's first user instruction, and a neighbour
	# event before it would lose the start, which the case then compares;
	# no bound of its own: the case's limit on silence catches a hang);
	# ptcap ending first is a failure.
	while ! grep -q '^cpu0 ctl=0x[0-9a-f]*[13579bdf] ' $D/pt_msrs ||
		[ "$(cpu0_bytes)" -lt $((base + 2048)) ]; do
		kill -0 $pid 2>/dev/null || fail "neighbour $kind: ptcap ended before tracing" || exit 1
		sleep 0.1
	done
	echo "0 $kind" >$D/pt_other_tracer || fail "neighbour $kind: write" || exit 1
	wait $pid
	rc=$?
	# A neighbour's gap is data lost: status 3 (ptcap(1)).
	[ $rc -eq 3 ] && grep -qx "command-status exit=$gt_rc" /tmp/exec/config ||
		fail "neighbour $kind: ptcap: $rc: $(cat /tmp/ptcap.out)" || exit 1
	st=$(grep '^status.cpu0.pt' /tmp/exec/config)
	echo "$st" | grep -q ' interfered' || fail "neighbour $kind: not reported: $st" || exit 1
	echo "$st" | grep -q ' lost=0 ' && fail "neighbour $kind: claimed clean: $st" && exit 1
	grep -q 'someone else' /tmp/ptcap.out || fail "neighbour $kind: ptcap said: $(cat /tmp/ptcap.out)" || exit 1
	grep -q "neighbour_events=$((kind + 1))" $D/pt_msrs || fail "neighbour $kind: event not run" || exit 1
	ptflow --no-symbols --no-inst /tmp/exec >/tmp/flow.out 2>&1
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	! grep -q '^\[error' /tmp/flow.out || fail "neighbour $kind: decode error" || exit 1
	start_is_gt || fail "neighbour $kind: the start is not the ground truth's" || exit 1
	# Past the gap: decoded from the next PSB (ptcap's gaps.cpu0.pt).
	in_order || fail "neighbour $kind: flow past the gap not in ground-truth order" || exit 1
	ok "neighbour $kind: reported ($st), start of the flow = ground truth"
done
[ "$(sim_violations)" = 0 ] || fail "neighbours: violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "neighbours: rmmod" || exit 1
bad=$(dmesg_since $mark | lwpt_bad_kernel_lines)
[ -z "$bad" ] || fail "kernel log: $bad" || exit 1
ok "neighbours: no spec violation, no kernel splat, module unloads"
