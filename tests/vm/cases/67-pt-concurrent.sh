#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 900
# Concurrent PT captures (issue 13 point 4; Documentation/pt.rst,
# "Concurrent captures") on lwpt_sim.ko (pt_profile=full: the model writes
# the packets of the traced threads' execution):
#  - while root holds a per-thread capture (pt_test hold-thread), two more
#    per-thread captures run at once, one by root and one by uid 1000, each
#    of its own run of the flow program: both decode (ptflow --no-symbols)
#    to the program's ground truth (pt_flow_gt, under norandom);
#  - a per-CPU capture meanwhile gets EBUSY: ptcap names the holder's pid,
#    the kernel log its name, pid and uid;
#  - as uid 1000 (pt_sec held): a file that configured nothing reaches no
#    other capture; a second capture of a traced process is EBUSY naming
#    the holder; two captures of the same user run side by side, both
#    charged to that user (a third beyond what is left: ENOMEM, memlock);
#  - the privileged precedence rule: root's per-CPU capture ends uid 1000's
#    per-thread captures (stop reason preempted, data still readable, START
#    refused), said in the kernel log; uid 1000 then gets EBUSY naming root's
#    capture;
#  - ptcap -p A,B: one capture per process at once, one file per thread;
#  - no spec violation, no kernel warning, the module unloads once every
#    file is closed.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters
mark=$(dmesg_mark)

pt_flow_ground_truth || exit 1
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1
chmod 0666 /dev/pt
echo 2 >$P/pt_paranoid
mkdir -p /tmp/ucap && chmod 0777 /tmp/ucap

# flow_of DIR: libipt's flow of a ptcap directory in /tmp/flow.txt, n_flow.
flow_of() {
	ptflow --no-inst --no-symbols "$1" >/tmp/flow.out 2>&1
	grep -E '^\[resync' /tmp/flow.out | head -n 5
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n_flow=$(wc -l </tmp/flow.txt)
}

# --- Two users' per-thread captures at once, beside a third ---------------
pt_hold hold-thread || fail "hold-thread did not start" || exit 1
hold=$hold_pid
rm -rf /tmp/c_root /tmp/ucap/c_user
env -i /bin/norandom /bin/ptcap -o /tmp/c_root --size=4M -- $PT_FLOW_PROG \
	>/tmp/c_root.out 2>&1 &
c_root=$!
(ulimit -l unlimited && pt_sec as-user env -i /bin/norandom /bin/ptcap \
	-o /tmp/ucap/c_user --size=4M -- $PT_FLOW_PROG) >/tmp/c_user.out 2>&1 &
c_user=$!
wait $c_root
rc_root=$?
wait $c_user
rc_user=$?
for who in root user; do
	case $who in
	root) d=/tmp/c_root rc=$rc_root ;;
	user) d=/tmp/ucap/c_user rc=$rc_user ;;
	esac
	[ $rc -eq 0 ] && grep -qx "command-status exit=$gt_rc" $d/config ||
		fail "$who: ptcap: status $rc: $(cat /tmp/c_$who.out)" || exit 1
	flow_of $d
	pt_flow_same full "concurrent ($who)" /tmp/gt.txt || exit 1
	ok "$who's per-thread capture beside two others: flow = ground truth ($n_flow)"
done

# A per-CPU capture while per-thread ones run: EBUSY, the holder named.
m=$(ptcap -a -d 0.5 --size=64K -o /tmp/all 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$m" | grep -q "busy: process $hold holds the capture" ||
	fail "per-CPU beside a per-thread capture: status $rc: $m" || exit 1
dmesg_since $mark | grep -q "pt: per-CPU capture by ptcap\[[0-9]*\] uid 0: refused (EBUSY): held out by the per-thread capture of pt_test\[$hold\] uid 0" ||
	fail "no kernel log line naming the holder: $(dmesg_since $mark | grep 'pt: ' | tail -n 3)" || exit 1
ok "per-CPU capture beside root's per-thread one: EBUSY, ptcap and the kernel log name pt_test[$hold] uid 0"
kill $hold
wait $hold 2>/dev/null

# --- uid 1000: no reach into other files; precedence of a privileged one --
: >/tmp/held.out
pt_sec held >/tmp/held.out 2>&1 &
held=$!
while ! grep -q '^tracing' /tmp/held.out && kill -0 $held 2>/dev/null; do
	sleep 0.1
done
grep -q '^tracing' /tmp/held.out || fail "pt_sec held: $(cat /tmp/held.out)" || exit 1
# Root's per-CPU capture ends uid 1000's captures.
rm -rf /tmp/all
m=$(ptcap -a -d 0.5 --size=64K -o /tmp/all 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "per-CPU capture by root beside uid 1000's: status $rc: $m" || exit 1
wait $held
rc=$?
cat /tmp/held.out
[ $rc -eq 0 ] || fail "pt_sec held: $rc failure(s)" || exit 1
dmesg_since $mark | grep -q "pt: per-CPU capture by ptcap\[[0-9]*\] uid 0: ends the per-thread capture of pt_sec\[$held\] uid 1000" ||
	fail "no kernel log line for the preemption: $(dmesg_since $mark | grep 'pt: ' | tail -n 3)" || exit 1
ok "root's per-CPU capture ended uid 1000's per-thread ones (preempted, data readable), logged"

# uid 1000 cannot keep root out, nor get in while root's per-CPU capture runs.
pt_hold hold || fail "hold (per CPU) did not start" || exit 1
hold=$hold_pid
m=$(cd /tmp/ucap && pt_sec as-user ptcap -o /tmp/ucap/x --size=64K -- /bin/true 2>&1)
rc=$?
[ $rc -ne 0 ] && echo "$m" | grep -q "busy: process $hold holds the capture" ||
	fail "uid 1000 beside root's per-CPU capture: status $rc: $m" || exit 1
ok "uid 1000 beside root's per-CPU capture: EBUSY naming process $hold"
kill $hold
wait $hold 2>/dev/null

# --- ptcap -p A,B ---------------------------------------------------------
: >/tmp/pa.out
: >/tmp/pb.out
ptcap_hello -s -l 0 >/tmp/pa.out &
pa=$!
ptcap_hello -s -l 0 >/tmp/pb.out &
pb=$!
while ! grep -q ready /tmp/pa.out || ! grep -q ready /tmp/pb.out; do
	kill -0 $pa 2>/dev/null && kill -0 $pb 2>/dev/null ||
		fail "ptcap_hello ended before ready" || exit 1
	sleep 0.1
done
rm -rf /tmp/pab
: >/tmp/pab.err
ptcap --progress --size=64K -o /tmp/pab -p $pa,$pb 2>/tmp/pab.err &
cap=$!
while ! grep -qs 'buffer(s)' /tmp/pab.err && kill -0 $cap 2>/dev/null; do
	sleep 0.1
done
# Then each program does a whole round traced (two more voluntary switches:
# the 20 ms sleeps around a round), so that each file has data; not a fixed
# time, which a loaded host stretches (issue 39 item 9).
vcsw() {
	sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/$1/status
}
va=$(($(vcsw $pa) + 2)) vb=$(($(vcsw $pb) + 2))
while { [ "$(vcsw $pa)" -lt $va ] || [ "$(vcsw $pb)" -lt $vb ]; } && kill -0 $cap 2>/dev/null; do
	sleep 0.5
done
kill -INT $cap
wait $cap
rc=$?
kill $pa $pb
wait $pa $pb 2>/dev/null
[ $rc -eq 0 ] || fail "ptcap -p $pa,$pb: status $rc: $(cat /tmp/pab.err)" || exit 1
for p in $pa $pb; do
	[ -s /tmp/pab/tid$p.pt ] &&
		grep -q "^thread\.tid$p\.pt tid=$p pid=$p " /tmp/pab/config ||
		fail "ptcap -p $pa,$pb: process $p: $(ls /tmp/pab) $(grep -E '^(attached|thread)' /tmp/pab/config)" || exit 1
	ptdump /tmp/pab/tid$p.pt 2>&1 | grep -q 'psb$' ||
		fail "ptcap -p: tid$p.pt has no PSB" || exit 1
done
grep -qx "attached pid=$pa,$pb" /tmp/pab/config ||
	fail "ptcap -p: $(grep attached /tmp/pab/config)" || exit 1
ok "ptcap -p $pa,$pb: one capture per process at once, tid$pa.pt and tid$pb.pt decode"

# --- The end --------------------------------------------------------------
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
bad=$(dmesg_since $mark | lwpt_bad_kernel_lines)
[ -z "$bad" ] || fail "kernel log: $bad" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no spec violation, no kernel warning, the module unloads after the last close"
