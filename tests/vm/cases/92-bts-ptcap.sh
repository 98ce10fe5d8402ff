#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptcap --bts and ptflow on its capture (issue 37 point 3): lwpt_sim.ko
# with a BTS-only processor (bts_profile=nhm, no PT) records
# trace_flow_prog through /dev/bts into a `format bts` directory
# (Documentation/ptcap-format.rst "BTS trace files"); ptflow's listing of it
# equals ptrace single-stepping, every instruction (the code before the
# first branch from the bts-start line ptcap reads at the exec), with the
# system calls as [disabled]/[resumed]; a thread the command creates is
# recorded from its first instruction (pt_flow_threads: both threads'
# flows equal single-stepping); --calls and --report decode it; a
# one-page ring (the default) loses nothing, the thread waiting for ptcap;
# with --hold-limit=1 and ptcap stopped, the held thread runs on: "data
# lost", exit 3, hold-timeout in config; with --mode=stop a buffer too
# small fills, ptcap says so (exit 3) and
# keeps what it has; --kernel
# as an unprivileged user is refused with the reason. pt2perf writes the
# capture as an intel_bts perf.data: ptflow decodes it as the directory
# from the first record on, and, where perf is in the VM (86-pt2perf),
# perf script --itrace=b lists one branch per record, with main among
# them (Documentation/pt2perf.rst "BTS captures").
. /lwpt/lib.sh

pt_flow_ground_truth || exit 1
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=none bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1

rm -rf /tmp/bts
env -i /bin/norandom /bin/ptcap --bts -o /tmp/bts -- $PT_FLOW_PROG >/tmp/ptcap.out 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx "format bts" /tmp/bts/config &&
	grep -qx "command-status exit=$gt_rc" /tmp/bts/config ||
	fail "ptcap --bts: status $rc: $(cat /tmp/ptcap.out) $(cat /tmp/bts/config)" || exit 1
ls /tmp/bts/tid*.bts >/dev/null 2>&1 || fail "no tid*.bts file" || exit 1
ok "ptcap --bts: $(grep '^thread\.' /tmp/bts/config)"

ptflow --no-inst --no-symbols /tmp/bts >/tmp/bts.list 2>/tmp/bts.err ||
	fail "ptflow: $(head -n 3 /tmp/bts.err)" || exit 1
grep -E '^[0-9a-f]{16}$' /tmp/bts.list >/tmp/bts.flow
n=$(wc -l </tmp/bts.flow)
if ! cmp -s /tmp/gt.txt /tmp/bts.flow; then
	diff /tmp/gt.txt /tmp/bts.flow | head -n 10
	fail "ptflow on the BTS capture differs from single-stepping" || exit 1
fi
grep -q "^bts-start\.tid[0-9]*\.bts 0x" /tmp/bts/config || fail "no bts-start line" || exit 1
dis=$(grep -c '^\[disabled\]' /tmp/bts.list)
ok "ptflow on ptcap --bts = single-stepping: $n of $n_gt instructions, $dis system calls"

# Threads the command creates: each recorded from its first instruction
# (ptcap traces the clone; the new thread waits in its first stop while its
# capture is configured), its flow equal to its single-stepped ground truth.
R=300
env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gtt0.txt -T /tmp/gtt1.txt \
	/bin/pt_flow_threads $R 2>/tmp/gt.err
trc=$?
[ $trc -lt 100 ] || fail "pt_flow_gt -T: $trc $(cat /tmp/gt.err)" || exit 1
rm -rf /tmp/bthr
env -i /bin/norandom /bin/ptcap --bts --size=4096 -o /tmp/bthr -- /bin/pt_flow_threads $R \
	>/tmp/ptcap.out 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx "command-status exit=$trc" /tmp/bthr/config &&
	[ "$(grep -c '^thread\.tid[0-9]*\.bts tid=' /tmp/bthr/config)" = 2 ] ||
	fail "ptcap --bts of two threads: status $rc: $(cat /tmp/ptcap.out)" \
		"$(grep '^thread' /tmp/bthr/config)" || exit 1
i=0
for tid in $(sed -n 's/^thread\.tid[0-9]*\.bts tid=\([0-9]*\) .*/\1/p' /tmp/bthr/config); do
	ptflow --no-inst --no-symbols --tid "$tid" /tmp/bthr 2>/tmp/thr.err |
		grep -E '^[0-9a-f]{16}$' >/tmp/thr.flow
	if ! cmp -s /tmp/gtt$i.txt /tmp/thr.flow; then
		diff /tmp/gtt$i.txt /tmp/thr.flow | head -n 10
		fail "thread $i (tid $tid): $(wc -l </tmp/thr.flow) instructions differ from" \
			"single-stepping's $(wc -l </tmp/gtt$i.txt): $(head -n 3 /tmp/thr.err)" || exit 1
	fi
	i=$((i + 1))
done
ok "ptcap --bts of a command's two threads: each flow = single-stepping" \
	"($(wc -l </tmp/gtt0.txt) and $(wc -l </tmp/gtt1.txt) instructions)"

ptflow --calls /tmp/bts >/tmp/bts.calls 2>&1 && grep -q ' call .*main' /tmp/bts.calls ||
	fail "--calls: $(head -n 5 /tmp/bts.calls)" || exit 1
ptflow --report /tmp/bts >/tmp/bts.report 2>&1 && grep -q ' main$' /tmp/bts.report ||
	fail "--report: $(head -n 5 /tmp/bts.report)" || exit 1
ok "--calls and --report on the BTS capture"

# perf.data both ways (issue 37 point 3).
pt2perf /tmp/bts -o /tmp/bts.data >/tmp/p2p.out 2>&1 ||
	fail "pt2perf on the BTS capture: $(cat /tmp/p2p.out)" || exit 1
ptflow --no-inst --no-symbols /tmp/bts.data >/tmp/bts.plist 2>/tmp/bts.perr ||
	fail "ptflow on the perf.data: $(head -n 3 /tmp/bts.perr)" || exit 1
grep -E '^[0-9a-f]{16}$' /tmp/bts.plist >/tmp/bts.pflow
np=$(wc -l </tmp/bts.pflow)
# No bts-start in a perf.data: the same flow from the first record's "to".
[ "$np" -gt 100 ] && tail -n "$np" /tmp/bts.flow | cmp -s - /tmp/bts.pflow ||
	fail "ptflow on the perf.data ($np instructions) is not the end of the" \
		"directory's flow ($n)" || exit 1
ok "pt2perf: ptflow on the intel_bts perf.data = the directory's last $np instructions"
recs=$(sed -n 's/^thread\..* records=\([0-9]*\).*/\1/p' /tmp/bts/config)
PERF=$(command -v perf_6.1 || command -v perf)
if [ -n "$PERF" ]; then
	"$PERF" script -i /tmp/bts.data --itrace=b -F ip,sym,addr >/tmp/bts.perf 2>/tmp/perf.err ||
		fail "perf script: $(head -n 3 /tmp/perf.err)" || exit 1
	nb=$(grep -c ' => ' /tmp/bts.perf)
	[ "$nb" = "$recs" ] && grep -q ' main ' /tmp/bts.perf ||
		fail "perf script --itrace=b: $nb branches, $recs records: $(head -n 2 /tmp/bts.perf)" ||
		exit 1
	ok "perf script --itrace=b: $nb branches = the $recs records"
else
	echo "SKIP: perf is not in the VM: perf script on the BTS perf.data"
fi

# A ring of one page (the default --mode=continuous): 170 records at a
# time, ptcap drains it, the thread waits when it is full: every record,
# the same flow as single-stepping. --hold-limit=none (ABI 1.9): however
# long ptcap is kept from running at load 8, the thread waits for it.
all=$(sed -n 's/^thread\..* records=\([0-9]*\).*/\1/p' /tmp/bts/config)
grep -qx "bts-buffer ring" /tmp/bts/config || fail "no bts-buffer ring line" || exit 1
rm -rf /tmp/bts
env -i /bin/norandom /bin/ptcap --bts --size=4096 --hold-limit=none --progress -o /tmp/bts -- $PT_FLOW_PROG \
	>/tmp/ptcap.out 2>&1
rc=$?
recs=$(sed -n 's/^thread\..* records=\([0-9]*\).*/\1/p' /tmp/bts/config)
[ $rc -eq 0 ] && [ "$recs" = "$all" ] && grep -q "waited for ptcap [1-9]" /tmp/ptcap.out ||
	fail "a one-page ring: status $rc, $recs of $all records: $(cat /tmp/ptcap.out)" || exit 1
ptflow --no-inst --no-symbols /tmp/bts 2>/tmp/bts.err | grep -E '^[0-9a-f]{16}$' >/tmp/bts.flow
cmp -s /tmp/gt.txt /tmp/bts.flow ||
	fail "ptflow on the ring capture differs from single-stepping: $(head -n 3 /tmp/bts.err)" ||
	exit 1
ok "a one-page ring: all $recs records, the flow equals single-stepping ($(grep waited /tmp/ptcap.out))"

# The hold limit: ptcap stopped (SIGSTOP) while its command is held on a
# full one-page ring; the held thread runs on after --hold-limit=1 ms and
# its records are lost until ptcap, continued once the command waits in
# its exit stop, drains: "data lost", exit 3, hold-timeout in config with
# the count (hold-timeouts=, ABI 1.11).
rm -rf /tmp/bts
env -i /bin/norandom /bin/ptcap --bts --size=4096 --hold-limit=1 -o /tmp/bts -- $PT_FLOW_PROG \
	>/tmp/ptcap.out 2>&1 &
cap=$!
cmd=
while [ -z "$cmd" ] && kill -0 $cap 2>/dev/null; do
	# the command once it runs: its ring file made, out of its exec's
	# tracing stop
	for c in $(cat /proc/$cap/task/$cap/children 2>/dev/null); do
		st=$(sed -n 's/^State:\t\(.\).*/\1/p' /proc/$c/status 2>/dev/null)
		[ -e /tmp/bts/tid$c.bts ] && [ -n "$st" ] && [ "$st" != t ] && cmd=$c
	done
	[ -n "$cmd" ] || sleep 0.05
done
[ -n "$cmd" ] || fail "--hold-limit=1: the command never ran: $(cat /tmp/ptcap.out)" || exit 1
kill -STOP $cap
# its exit stop (PTRACE_EVENT_EXIT: ptcap, stopped, does not continue it)
while [ "$(sed -n 's/^State:\t\(.\).*/\1/p' /proc/$cmd/status 2>/dev/null)" != t ]; do
	sleep 0.05
done
kill -CONT $cap
wait $cap
rc=$?
[ $rc -eq 3 ] && grep -q 'data lost: the BTS ring' /tmp/ptcap.out &&
	grep -q '^bts-status .*hold-timeout hold-timeouts=[1-9]' /tmp/bts/config ||
	fail "--hold-limit=1 with ptcap stopped: status $rc: $(cat /tmp/ptcap.out)" \
		"$(grep bts-status /tmp/bts/config)" || exit 1
ok "--hold-limit=1 with ptcap stopped: exit 3, $(grep '^bts-status' /tmp/bts/config)"

# --mode=stop: one buffer of one page: 170 records, then full.
rm -rf /tmp/bts
env -i /bin/norandom /bin/ptcap --bts --mode=stop --size=4096 -o /tmp/bts -- $PT_FLOW_PROG \
	>/tmp/ptcap.out 2>&1
rc=$?
recs=$(sed -n 's/^thread\..* records=\([0-9]*\).*/\1/p' /tmp/bts/config)
[ $rc -eq 3 ] && grep -q "filled" /tmp/ptcap.out && [ "$recs" = 170 ] &&
	grep -q "^bts-status full" /tmp/bts/config ||
	fail "a full buffer: status $rc, $recs records: $(cat /tmp/ptcap.out)" || exit 1
ptflow --no-inst --no-symbols /tmp/bts >/tmp/bts.list 2>/tmp/bts.err ||
	fail "ptflow on a full buffer: $(head -n 3 /tmp/bts.err)" || exit 1
ok "a full buffer: exit 3, $recs records kept and decoded"

# Kernel branches need CAP_PERFMON (uid 1000, pt_paranoid 1: user allowed).
chmod 0666 /dev/bts
old=$(cat /sys/module/lwpt_sim/parameters/pt_paranoid)
echo 1 >/sys/module/lwpt_sim/parameters/pt_paranoid
out=$(cd /tmp && pt_sec as-user /bin/ptcap --bts --kernel -o /tmp/bts.k -- /bin/true 2>&1)
rc=$?
echo "$old" >/sys/module/lwpt_sim/parameters/pt_paranoid
[ $rc -ne 0 ] && echo "$out" | grep -q "Operation not permitted" ||
	fail "--kernel as uid 1000: status $rc: $out" || exit 1
ok "--kernel as uid 1000: refused ($out)"

[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no violation, unloaded"
