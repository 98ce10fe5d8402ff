#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# LBR snapshots of /dev/bts on lwpt_sim.ko (issue 37, ABI 1.7;
# Documentation/bts.rst, "LBR snapshots"). bts_profile=nhm (06_1AH: 16
# LBRs at 680H/6C0H, LBR_SELECT, format 3, perfmon v3, FREEZE_LBRS_ON_PMI):
# the stack a child had at its SIGSEGV, read by the process that
# configured its capture after the child died, names the last branches
# ptrace single-stepping of the same code took, most recent first; the
# stack of a thread read on request holds its own branches and stays
# readable after STOP. Every bad argument of LBR_SNAPSHOT gets its errno.
# As uid 1000: another user's thread EPERM, kernel branches EPERM, its own
# thread allowed at pt_paranoid 1. While perf holds IA32_DEBUGCTL.LBR,
# CONFIGURE with the LBR flag is EBUSY with a log line naming the holder.
# core2 (06_0FH: 4 LBRs at 40H/60H, no LBR_SELECT): user-only LBR is
# EOPNOTSUPP, user and kernel together record. ptcap --lbr-on-crash of a
# command that dies by SIGSEGV writes tid<N>.lbr and its config line, and
# ptflow prints it as the last branches with the program's symbols; a
# command that exits leaves no LBR file; the same with -p PID and -t TID
# attached to a program that waits, then dies by SIGSEGV. IA32_DEBUGCTL and
# MSR_LBR_SELECT are back to 0 everywhere; no spec violation; unloaded.
# LBR formats 4 (hsw, with and without TSX), 5 (skl), 6 (glm) and 7
# (glp): at the end.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters
D=/sys/kernel/debug/lwpt_sim
LBR=0x10

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=none bts_profile=nhm" \
	>/dev/null || fail "insmod nhm" || exit 1

out=$(lbr_crash crash user)
rc=$?
echo "$out"
if [ $rc -ne 0 ]; then
	cat $D/bts_msrs
	echo "violations $(sim_violations)"
	dmesg | tail -20
fi
[ $rc -eq 0 ] || fail "LBR stack at SIGSEGV (user)" || exit 1
ok "user-only: $(echo "$out" | tail -n 1)"

out=$(lbr_crash crash all)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "LBR stack at SIGSEGV (user and kernel)" || exit 1
ok "user and kernel: $(echo "$out" | tail -n 1)"

out=$(lbr_crash now)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "LBR snapshot on request" || exit 1
ok "on request: $(echo "$out" | tail -n 1)"

out=$(lbr_crash switch)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "LBR stack across context switches" || exit 1
ok "per thread: $(echo "$out" | tail -n 1)"

out=$(lbr_crash args)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "bad arguments" || exit 1
ok "bad arguments: $out"

want() {
	[ "$1" = "$2" ] || fail "$3: got $1, want $2" || exit 1
	ok "$3: $2"
}
chmod 0666 /dev/bts
echo 1 >$P/pt_paranoid
want "$(pt_sec as-user bts_test try 0 $((LBR | 1)) 65536)" ok "uid 1000, its own thread, LBR"
want "$(pt_sec as-user bts_test try 0 $((LBR | 3)) 65536)" EPERM "uid 1000, LBR with kernel branches"
sleep 1000 &
root_pid=$!
want "$(pt_sec as-user bts_test try $root_pid $((LBR | 1)) 65536)" EPERM \
	"uid 1000, LBR of a root process"
kill $root_pid
wait $root_pid 2>/dev/null
echo 3 >$P/pt_paranoid

echo lbr >$D/bts_perf
mark=$(dmesg_mark)
want "$(bts_test try 0 $((LBR | 1)) 65536)" EBUSY "perf holds IA32_DEBUGCTL.LBR"
n=$(dmesg_since "$mark" | grep -c '/dev/bts: IA32_DS_AREA/IA32_DEBUGCTL in use by another branch recorder')
[ "$n" = 1 ] || fail "$n log lines naming the holder, want 1" || exit 1
echo off >$D/bts_perf
want "$(bts_test try 0 $((LBR | 1)) 65536)" ok "perf let go of the LBRs"

rm -rf /tmp/lbrcap
env -i /bin/ptcap --lbr-on-crash -o /tmp/lbrcap -- /bin/lbr_crash segv >/tmp/ptcap.out 2>&1
rc=$?
cat /tmp/ptcap.out
[ $rc -eq 0 ] && grep -q "^lbr-crash\.tid[0-9]*\.bts tid[0-9]*\.lbr signal=11$" /tmp/lbrcap/config ||
	fail "ptcap --lbr-on-crash: status $rc: $(cat /tmp/lbrcap/config)" || exit 1
cat /tmp/lbrcap/tid*.lbr
[ "$(head -n 1 /tmp/lbrcap/tid*.lbr)" = "lwpt-lbr 1" ] || fail "not an lwpt-lbr 1 file" || exit 1
ptflow --no-inst /tmp/lbrcap >/tmp/lbr.flow 2>/tmp/lbr.err || fail "ptflow: $(head -n 3 /tmp/lbr.err)" || exit 1
sed -n '/^last branches/,$p' /tmp/lbr.flow
grep -q "^last branches of tid [0-9]* (signal 11), most recent first:$" /tmp/lbr.flow ||
	fail "ptflow printed no last branches" || exit 1
sed -n '/^last branches/{n;p;}' /tmp/lbr.flow | grep -q -- "-> 0x[0-9a-f]* run_and_crash+0x" ||
	fail "the most recent branch does not go into run_and_crash" || exit 1
ok "ptcap --lbr-on-crash, ptflow: $(grep -c '^  *[0-9]*  0x' /tmp/lbr.flow) last branches with symbols"
rm -rf /tmp/lbrcap
env -i /bin/ptcap --lbr-on-crash -o /tmp/lbrcap -- /bin/true >/tmp/ptcap.out 2>&1 ||
	fail "ptcap --lbr-on-crash /bin/true: $(cat /tmp/ptcap.out)" || exit 1
! ls /tmp/lbrcap/*.lbr >/dev/null 2>&1 && ! grep -q "^lbr-crash" /tmp/lbrcap/config ||
	fail "an LBR stack for a command that exited" || exit 1
ok "ptcap --lbr-on-crash of a command that exits: no LBR file"

# ptcap --lbr-on-crash -p PID / -t TID: attached to a program that already
# runs (it waits for a byte on a FIFO), which then dies by SIGSEGV.
for opt in -p -t; do
	rm -rf /tmp/lbrcap
	start_ready /tmp/prog.out env -i /bin/lbr_crash segv-wait ||
		fail "lbr_crash segv-wait: not ready" || exit 1
	ptcap --lbr-on-crash $opt $prog -o /tmp/lbrcap >/tmp/ptcap.out 2>&1 &
	cap=$!
	wait_file /tmp/lbrcap/tid$prog.bts $cap ||
		fail "ptcap --lbr-on-crash $opt: $(cat /tmp/ptcap.out)" || exit 1
	release_ready $cap
	cat /tmp/ptcap.out
	[ $prc -eq 139 ] || fail "lbr_crash segv-wait: status $prc, want 139 (SIGSEGV)" || exit 1
	[ $rc -eq 0 ] && grep -qx "lbr-crash\.tid$prog\.bts tid$prog\.lbr signal=11" \
		/tmp/lbrcap/config ||
		fail "ptcap --lbr-on-crash $opt: status $rc: $(cat /tmp/lbrcap/config)" || exit 1
	ptflow --no-inst /tmp/lbrcap >/tmp/lbr.flow 2>/tmp/lbr.err ||
		fail "ptflow $opt: $(head -n 3 /tmp/lbr.err)" || exit 1
	sed -n '/^last branches of tid '$prog' (signal 11)/{n;p;}' /tmp/lbr.flow |
		grep -q -- "-> 0x[0-9a-f]* run_and_crash+0x" ||
		fail "$opt: the most recent branch does not go into run_and_crash" || exit 1
	ok "ptcap --lbr-on-crash $opt: the stack at the SIGSEGV, the last into run_and_crash"
done

grep . $D/bts_msrs
grep -q "debugctl=0x0 " $D/bts_msrs || fail "IA32_DEBUGCTL not restored" || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "nhm: no violation, IA32_DEBUGCTL 0, unloaded"

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=none bts_profile=core2" \
	>/dev/null || fail "insmod core2" || exit 1
want "$(bts_test try 0 $((LBR | 1)) 65536)" EOPNOTSUPP "core2 (no LBR_SELECT): user-only LBR"
out=$(lbr_crash crash all)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "core2: LBR stack at SIGSEGV" || exit 1
ok "core2, user and kernel: $(echo "$out" | tail -n 1)"
[ "$(sim_violations)" = 0 ] || fail "core2: violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod core2" || exit 1
ok "core2: no violation, unloaded"

# LBR formats 4 to 7 (ABI 1.11; Documentation/bts.rst "LBR formats 4 to
# 7"): hsw (format 4, TSX), hsw without TSX (bts_tsx=0: FROM bits 62:61
# are sign bits, read and written as perf's lbr_from_signext_quirk), skl
# (format 5, MSR_LBR_INFO_n saved and restored with the stack), glm
# (format 6, cycles in TO bits 63:48) and glp (format 7: LBR_INFO without
# TSX flags). The stack at a SIGSEGV equals single-stepping's last
# branches, user-only and with kernel branches (kernel FROM and TO values
# decoded to their address, no TSX flag where the model runs no
# transaction); across context switches with kernel branches the saved
# stack is written back without a #GP. The snapshot's flags: MISPRED on
# all five, TSX on formats 4 and 5 only.
for combo in hsw:-1:4:5 hsw:0:4:5 skl:-1:5:5 glm:-1:6:1 glp:-1:7:1; do
	prof=${combo%%:*} rest=${combo#*:}
	tsx=${rest%%:*} rest=${rest#*:}
	fmt=${rest%%:*} fl=${rest#*:}
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko \
		"lwp_profile=none pt_profile=none bts_profile=$prof bts_tsx=$tsx" >/dev/null ||
		fail "insmod $prof bts_tsx=$tsx" || exit 1
	for how in "crash user" "crash all" "now" "switch all"; do
		out=$(lbr_crash $how)
		rc=$?
		echo "$out"
		[ $rc -eq 0 ] || fail "$prof bts_tsx=$tsx: lbr_crash $how" || exit 1
		head=$(echo "$out" | grep -m1 '^lbr: nr')
		flags=$(echo "$head" | sed -n 's/.* flags \(0x[0-9a-f]*\|0\) .*/\1/p')
		echo "$head" | grep -q " format $fmt " && [ $((${flags:-0} & 5)) = "$fl" ] ||
			fail "$prof bts_tsx=$tsx: lbr_crash $how: $head, want format $fmt, flags & 5 = $fl" ||
			exit 1
	done
	[ "$(sim_violations)" = 0 ] || fail "$prof bts_tsx=$tsx: violations" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod $prof" || exit 1
	ok "$prof bts_tsx=$tsx (format $fmt): stacks at SIGSEGV = single-stepping, NOW, kernel FROM values across switches, no violation"
done
