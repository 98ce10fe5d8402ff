#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 300
# ptcap --snapshot (issue 16 point 4) on lwpt_sim.ko (pt_profile=full, the
# model writes the packets of the program's execution): a flight recorder
# in wrap mode; each SIGUSR2 writes DIR/snap.<N>, a complete capture
# directory. The program (ptcap_hello -u 5) sends ptcap SIGUSR2 after each
# of its 5 rounds (then sleeps 300 ms) and runs on: every snapshot, and the final capture in
# DIR, decodes with libipt (ptflow) to a contiguous part of the ground
# truth (ptrace single-stepping of the same program), later snapshots
# later in it; no spec violation.
. /lwpt/lib.sh

PROG="/bin/ptcap_hello -u 5"

# The ground truth; pt_flow_gt and the program ignore SIGUSR2 (the program
# sends it to its parent).
sh -c "trap '' USR2; exec env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gt.txt $PROG" >/tmp/gt.out 2>/tmp/gt.err
rc=$?
n_gt=$(wc -l </tmp/gt.txt)
[ $rc -eq 0 ] && [ "$n_gt" -gt 1000 ] || fail "pt_flow_gt: status $rc, $n_gt steps: $(cat /tmp/gt.err)" || exit 1
ok "ground truth: $n_gt instructions ($(cat /tmp/gt.out))"

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1

rm -rf /tmp/snap
env -i /bin/norandom /bin/ptcap --snapshot --size=64K -o /tmp/snap -- $PROG >/tmp/snap.out 2>/tmp/snap.err
rc=$?
[ $rc -eq 0 ] && grep -q '^ptcap_hello: [0-9]* steps in 5 round(s)$' /tmp/snap.out &&
	grep -qx 'command-status exit=0' /tmp/snap/config ||
	fail "ptcap --snapshot: status $rc: $(cat /tmp/snap.out /tmp/snap.err)" || exit 1
n=$(sed -n 's/^snapshots //p' /tmp/snap/config)
# SIGUSR2s that come while a snapshot is written make one snapshot: how
# many of the 5 do depends on how long a snapshot takes against the
# program's 300 ms sleep, i.e. on the host's load.
[ "$n" -ge 1 ] && [ "$n" -le 5 ] && [ -d /tmp/snap/snap.$n ] &&
	[ "$(grep -c '^ptcap: snapshot [0-9]*: /tmp/snap/snap\.[0-9]*: 1 file(s), [0-9]* bytes$' /tmp/snap.err)" = "$n" ] ||
	fail "snapshots: $n: $(ls /tmp/snap) $(cat /tmp/snap.err)" || exit 1

# Each snapshot, then the end: a contiguous part of the ground truth, in order.
last=0	# the ground truth's line where the previous part ended
i=1
nonempty=0
while [ $i -le $((n + 1)) ]; do
	d=/tmp/snap/snap.$i
	[ $i -le $n ] || d=/tmp/snap
	[ $i -gt $n ] || grep -qx "snapshot $i" $d/config || fail "$d/config: no 'snapshot $i'" || exit 1
	for f in $d/*.pt; do
		[ -s "$f" ] || continue	# nothing traced since the last snapshot
		ptdump "$f" >/tmp/ptdump.out 2>&1 || fail "ptdump $f: $(tail -n 2 /tmp/ptdump.out)" || exit 1
	done
	ptflow --no-symbols --no-inst $d >/tmp/flow.out 2>&1
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	if [ ! -s /tmp/flow.txt ] && [ $i -le $n ]; then
		echo "$d: empty"
		i=$((i + 1))
		continue
	fi
	nonempty=$((nonempty + 1))
	r=$(pt_flow_sub /tmp/gt.txt /tmp/flow.txt $((last + 1))) ||
		fail "$d: $r; $(grep -v -E '^[0-9a-f]{16}$' /tmp/flow.out | head -n 5)" || exit 1
	at=$(echo "$r" | sed 's/^at \([0-9]*\),.*/\1/')
	last=$((at + $(wc -l </tmp/flow.txt) - 1))	# the next part comes after
	echo "$d: $r"
	i=$((i + 1))
done
# snap.1 holds round 1 at least; the end, the program's last output.
[ $nonempty -ge 2 ] || fail "only $nonempty non-empty parts" || exit 1
ok "--snapshot: $n snapshots and the end, each a contiguous part of the ground truth, in order; the program ran to its end"

# System-wide (-a) with the model's injected byte pattern (pt_exec=0, as
# 80-ptcap-sim.sh): each snapshot holds exactly the bytes written since
# the previous one, the sequence going on from where it stopped; the
# switches survive the restarts (drained before each START).
D=/sys/kernel/debug/lwpt_sim
echo 0 >/sys/module/lwpt_sim/parameters/pt_exec
rm -rf /tmp/sa
ptcap -a --snapshot --size=16K -o /tmp/sa 2>/tmp/sa.err &
cap=$!
# Waits without a limit of their own (a loaded host slows TCG without
# bound): the case's time limit catches a hang.
while ! grep -q '^cpu0 ctl=0x[0-9a-f]*[13579bdf] ' $D/pt_msrs; do
	kill -0 $cap 2>/dev/null || fail "-a --snapshot: $(cat /tmp/sa.err)" || exit 1
	sleep 0.1
done
seq=0
for k in 1 2; do
	echo "0 $((k * 1000))" >$D/pt_inject
	kill -USR2 $cap
	while ! grep -q "^ptcap: snapshot $k: " /tmp/sa.err; do
		kill -0 $cap 2>/dev/null || fail "-a snapshot $k: $(cat /tmp/sa.err)" || exit 1
		sleep 0.1
	done
	got=$(ptcap_pattern /tmp/sa/snap.$k/cpu0.pt)
	[ "$got" = "len=$((k * 1000)) first=$((seq % 251))" ] ||
		fail "-a snapshot $k: cpu0.pt $got, want len=$((k * 1000)) first=$((seq % 251)): $(cat /tmp/sa.err)" || exit 1
	seq=$((seq + k * 1000))
done
echo "0 500" >$D/pt_inject
kill -INT $cap
wait $cap || fail "-a --snapshot: $(cat /tmp/sa.err)" || exit 1
got=$(ptcap_pattern /tmp/sa/cpu0.pt)
[ "$got" = "len=500 first=$((seq % 251))" ] && grep -qx 'snapshots 2' /tmp/sa/config &&
	grep -q '^switches\.cpu0\.pt count=[0-9]* lost=0$' /tmp/sa/config ||
	fail "-a --snapshot end: cpu0.pt $got: $(grep -E '^(snapshots|switches)' /tmp/sa/config)" || exit 1
ok "-a --snapshot: 1000, 2000, then 500 pattern bytes, each part exactly what was written since the previous one"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no spec violation, module unloads"
