#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 300
# A system-wide capture decoded per process (issue 15 point 5;
# Documentation/ptflow.rst, "System-wide captures"): `ptcap -a -C 0` on
# lwpt_sim.ko (pt_profile=full, the model writes the packets of every
# user-mode execution on a CPU with TraceEn) while two different static
# programs run at once, both pinned to CPU 0 so that their pieces
# interleave in cpu0.pt, both linked at 0x401000 (decoding one with the
# other's image would go wrong). Only CPU 0 is traced (-C 0, the CPU
# selection of ABI 1.3): ptcap and this script run on CPU 1, so only A and
# B are single-stepped by the model and ptcap drains every 20 ms.
# ptcap records every process's maps (`processes`, `maps.<pid>.<gen>`);
# `ptflow --pid A` then yields A's instructions, each decoded piece a
# contiguous part of A's ground truth (ptrace single-stepping) and later
# pieces later in it, without decode error; the same for B. Run without
# ASLR (/bin/norandom) like the ground truth. The timing parameters
# (CPUID.15H) come from the module's GET_CAPS: the model's.
. /lwpt/lib.sh

# This shell and what it starts run on CPU 1, which is not traced.
taskset -p -c 1 $$ >/dev/null || fail "taskset -p -c 1 $$" || exit 1

A=/bin/trace_flow_prog
B="/bin/pt_flow_long 200"

pt_flow_gt_of /tmp/gt_a.txt $A || exit 1
pt_flow_gt_of /tmp/gt_b.txt $B || exit 1

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1

pt_sys_two "$A" "$B" || exit 1
head -n 1 /tmp/sys/processes | grep -qx 'lwpt-ptcap-processes 1' ||
	fail "no processes file: $(ls /tmp/sys)" || exit 1
for p in $pa $pb; do
	grep -q "^$p [0-9]" /tmp/sys/processes ||
		fail "process $p not in processes: $(cat /tmp/sys/processes)" || exit 1
done
ok "ptcap -a: $(grep -vc '^#' /tmp/sys/processes) process line(s), A=$pa B=$pb: $(grep -E "^($pa|$pb) " /tmp/sys/processes | tr '\n' ';')"
cat /tmp/sys.err

# The model's TSC:ART ratio (CPUID.15H of lwpt_sim.ko, kmod/sim/sim.h),
# which ptcap took from the module, not from the VM's CPUID.
grep -qx 'cpuid-0x15.eax 2' /tmp/sys/config && grep -qx 'cpuid-0x15.ebx 334' /tmp/sys/config ||
	fail "config: not the model's CPUID.15H: $(grep cpuid /tmp/sys/config)" || exit 1
[ "$(ls /tmp/sys/*.pt)" = /tmp/sys/cpu0.pt ] || fail "-C 0 wrote $(ls /tmp/sys/*.pt)" || exit 1
ok "config: cpus $(sed -n 's/^cpus //p' /tmp/sys/config), the model's CPUID.15H; only cpu0.pt"

# check NAME PID GT COMM: ptflow --pid PID's flow, cut into pieces at its
# "[thread" lines (a new thread, or the same after a piece not shown),
# each piece of the program (COMM; other generations of the pid, if
# any, are not compared) a contiguous part of GT after the previous one.
check() {
	ptflow --no-inst --no-symbols --pid "$2" /tmp/sys >/tmp/sysflow.out 2>/tmp/sysflow.err
	frc=$?
	cat /tmp/sysflow.err
	[ $frc -eq 0 ] || fail "$1: ptflow --pid $2: status $frc" || return 1
	! grep -q '^\[resync' /tmp/sysflow.out ||
		fail "$1: decode errors: $(grep '^\[resync' /tmp/sysflow.out | head -n 3)" || return 1
	rm -f /tmp/piece.*
	awk -v comm="$4]" '/^\[thread / { n++; keep = ($3 == comm); next }
		keep && /^[0-9a-f]{16}$/ { print > ("/tmp/piece." n) }' /tmp/sysflow.out
	from=1 pieces=0 insns=0
	for f in $(ls /tmp/piece.* 2>/dev/null | sort -t. -k2 -n); do
		r=$(pt_flow_sub "$3" "$f" $from) ||
			fail "$1: piece $f ($(wc -l <"$f") instructions) is not the ground truth's after line $from: $r" || return 1
		at=$(echo "$r" | sed -n 's/^at \([0-9]*\), \([0-9]*\) instructions$/\1/p')
		len=$(echo "$r" | sed -n 's/^at \([0-9]*\), \([0-9]*\) instructions$/\2/p')
		from=$((at + len))
		pieces=$((pieces + 1))
		insns=$((insns + len))
	done
	n_gt=$(wc -l <"$3")
	[ $pieces -gt 0 ] || fail "$1: nothing decoded for pid $2" || return 1
	# More than half of the program decoded, in order.
	[ $((2 * insns)) -gt "$n_gt" ] ||
		fail "$1: only $insns of $n_gt instructions decoded" || return 1
	ok "$1 (pid $2): $insns of $n_gt instructions in $pieces piece(s), each equal to the ground truth there, in order"
}
# On a failure the capture goes to the console (base64 of a tar.gz between
# the markers) for decoding on the host: bin/ of the VM is build/vm-bin.
dump() { echo "CAPTURE-TAR-BEGIN"; tar czf - -C /tmp sys gt_a.txt gt_b.txt | base64; echo "CAPTURE-TAR-END"; }
check A $pa /tmp/gt_a.txt trace_flow_prog || { dump; exit 1; }
check B $pb /tmp/gt_b.txt pt_flow_long || { dump; exit 1; }

# Each piece decoded once: the trace offsets of the flow never go back
# (a piece after one that is not decoded comes from a synthetic trace,
# ptflow_resume.h, and decoding then goes on at the PSB where that ends).
ptflow --offset --no-inst --no-symbols /tmp/sys 2>/dev/null |
	sed -n 's/^\[\{0,1\}\([0-9a-f]\{16\}\)  .*/\1/p' |
	awk '("" $1) < last { print "offset " last " then " $1 " (line " NR ")"; bad = 1; exit }
		{ last = "" $1 } END { exit bad }' >/tmp/back ||
	fail "a piece decoded twice: $(cat /tmp/back)" || { dump; exit 1; }
ok "each piece decoded once: the flow's trace offsets never go back"

# The two interleaved on CPU 0: pieces of both, in turn.
ptflow --no-inst --no-symbols /tmp/sys 2>/dev/null |
	awk -v a=$pa -v b=$pb '/^\[trace cpu0/ { on = 1; next } /^\[trace/ { on = 0 }
		on && /^\[thread / { split($2, t, "/"); if ((t[1] == a || t[1] == b) && t[1] != last) { n++; last = t[1] } }
		END { print n + 0 }' >/tmp/turns
turns=$(cat /tmp/turns)
[ "$turns" -ge 3 ] || fail "A and B did not interleave on CPU 0 ($turns turns)" || exit 1
ok "A and B took $turns turns on CPU 0"

# --calls labels lines with the thread (pid/tid); --report per thread
# ("[report comm pid/tid: ...]").
ptflow --calls --pid $pa /tmp/sys >/tmp/syscalls.out 2>/dev/null ||
	fail "--calls --pid $pa" || exit 1
grep -qE "^ *[0-9]+  $pa/$pa +  " /tmp/syscalls.out ||
	fail "--calls: no line of thread $pa/$pa: $(head -n 3 /tmp/syscalls.out)" || exit 1
ptflow --report /tmp/sys >/tmp/sysrep.out 2>/dev/null
grep -q "^\[report .*$pb/$pb" /tmp/sysrep.out ||
	fail "--report: no table of $pb: $(grep '^\[report' /tmp/sysrep.out | head -n 5)" || exit 1
ok "--calls and --report per thread: $(grep -c '^\[report' /tmp/sysrep.out) table(s)"
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
exit 0
