#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptcap --bts -a and ptflow on its capture (issue 37 point 3;
# Documentation/ptcap-format.rst "Per-CPU BTS captures"): lwpt_sim.ko with a
# BTS-only processor records CPU 0 (`ptcap --bts -a -C 0`, ptcap on CPU 1)
# while two ground-truth programs share CPU 0; ptcap writes cpu0.bts, the
# switch records (the position in cpu0.bts in place of the TSC, the TSC
# in a last word tsc=<decimal> on every line: ABI 1.10), processes
# and their maps; `ptflow --pid` of each program is one contiguous part of
# its ptrace single-stepping, all of it but the code before its first
# branch (no bts-start per CPU). --report labels the threads. As uid 1000
# (no CAP_PERFMON) ptcap --bts -a is refused saying why.
. /lwpt/lib.sh

# This shell and what it starts run on CPU 1, which is not recorded.
taskset -p -c 1 $$ >/dev/null || fail "taskset -p -c 1 $$" || exit 1

A=/bin/trace_flow_prog
B="/bin/pt_flow_long 20"

pt_flow_gt_of /tmp/gt_a.txt $A || exit 1
pt_flow_gt_of /tmp/gt_b.txt $B || exit 1

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=none bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1

rm -rf /tmp/sys
# As 81-ptflow-sys (lib.sh sys_two): each program stopped at its exec,
# pinned to CPU 0 there, continued once ptcap named (and read) it.
sys_two --bts "$A" "$B" || exit 1
[ $rc -eq 0 ] || fail "ptcap --bts -a: status $rc: $(cat /tmp/sys.err)" || exit 1
[ "$(ls /tmp/sys/*.bts)" = /tmp/sys/cpu0.bts ] && grep -qx "format bts" /tmp/sys/config &&
	grep -qx "mode per-cpu" /tmp/sys/config &&
	head -n 1 /tmp/sys/processes | grep -qx 'lwpt-ptcap-processes 1' ||
	fail "capture: $(ls /tmp/sys) $(cat /tmp/sys/config)" || exit 1
ok "ptcap --bts -a -C 0: $(grep '^bts-status\.\|^switches\.' /tmp/sys/config | tr '\n' ' ')"
# Every switch line ends with its time; no "no time" warning.
nsw=$(grep -c '^[0-9]' /tmp/sys/switches)
[ "$nsw" -gt 0 ] &&
	[ "$(grep -c '^[0-9][0-9]* 0 .* tsc=[1-9][0-9]*$' /tmp/sys/switches)" = "$nsw" ] &&
	! grep -q "no time" /tmp/sys.err ||
	fail "switches without tsc=: $(grep '^[0-9]' /tmp/sys/switches | head -n 3) $(cat /tmp/sys.err)" ||
	exit 1
ok "$nsw switch lines, each with tsc=: $(grep '^[0-9]' /tmp/sys/switches | head -n 1)"

# check NAME PID GT: ptflow --pid PID's flow is GT from some line on, to its end.
check() {
	ptflow --no-inst --no-symbols --pid "$2" /tmp/sys >/tmp/sysflow.out 2>/tmp/sysflow.err
	frc=$?
	cat /tmp/sysflow.err
	[ $frc -eq 0 ] || fail "$1: ptflow --pid $2: status $frc" || return 1
	! grep -q '^\[resync\|^\[error' /tmp/sysflow.out ||
		fail "$1: decode errors: $(grep '^\[resync\|^\[error' /tmp/sysflow.out | head -n 3)" ||
		return 1
	grep -E '^[0-9a-f]{16}$' /tmp/sysflow.out >/tmp/sysflow.txt
	r=$(pt_flow_sub "$3" /tmp/sysflow.txt 1) ||
		fail "$1: the flow ($(wc -l </tmp/sysflow.txt) instructions) is not a part of the ground truth: $r" ||
		return 1
	at=$(echo "$r" | sed -n 's/^at \([0-9]*\), \([0-9]*\) instructions$/\1/p')
	len=$(echo "$r" | sed -n 's/^at \([0-9]*\), \([0-9]*\) instructions$/\2/p')
	n_gt=$(wc -l <"$3")
	[ $((at + len - 1)) -eq "$n_gt" ] && [ $((100 * len)) -gt $((99 * n_gt)) ] ||
		fail "$1: lines $at..$((at + len - 1)) of $n_gt of the ground truth" || return 1
	ok "$1 (pid $2): the ground truth from line $at to its end ($len of $n_gt instructions), $(grep -c '^\[thread' /tmp/sysflow.out) thread"
}
dump() { echo "CAPTURE-TAR-BEGIN"; tar czf - -C /tmp sys gt_a.txt gt_b.txt | base64; echo "CAPTURE-TAR-END"; }
check A $pa /tmp/gt_a.txt || { dump; exit 1; }
check B $pb /tmp/gt_b.txt || { dump; exit 1; }
ptflow --report --pid $pa /tmp/sys >/tmp/sysrep.out 2>/dev/null &&
	grep -q "^\[report .*$pa/$pa: [0-9]* instructions" /tmp/sysrep.out ||
	fail "--report: $(head -n 3 /tmp/sysrep.out)" || exit 1
ok "--report: $(grep '^\[report' /tmp/sysrep.out)"

# Unprivileged: no CAP_PERFMON, refused with the reason.
chmod 0666 /dev/bts
out=$(cd /tmp && pt_sec as-user /bin/ptcap --bts -a -C 0 -o /tmp/bts.u -d 1 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "needs CAP_PERFMON" && [ ! -e /tmp/bts.u/config ] ||
	fail "ptcap --bts -a as uid 1000: status $rc: $out" || exit 1
ok "ptcap --bts -a as uid 1000: refused ($out)"
chmod 0600 /dev/bts

[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no violation, unloaded"
