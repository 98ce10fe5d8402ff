#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /dev/bts as a hostile user (issue 37 point 2; Documentation/bts.rst,
# "/dev/bts"): every bad argument of its ioctls and mmap gets its errno and
# random commands in its ioctl range crash nothing; as uid 1000, with the
# device opened to everyone: refused at pt_paranoid 3 and 2 (EACCES, perf's
# perf_allow_kernel() for intel_bts), its own thread allowed at 1; kernel
# branches EPERM; a root process EPERM, another uid-1000 process allowed;
# over the locked-memory allowance with RLIMIT_MEMLOCK 0 ENOMEM; a child
# that execs a set-user-ID program stops being recorded there. A thread
# with a capture cannot get a second one (EBUSY); while perf holds
# IA32_DS_AREA or IA32_DEBUGCTL.LBR, CONFIGURE is EBUSY with one log line
# naming the holder, and works again once perf lets go. PT and BTS of one
# thread are exclusive: /dev/pt per-thread and per-CPU CONFIGURE are EBUSY
# while BTS records the thread, BTS CONFIGURE is EBUSY while PT traces it
# (per-thread) or a per-CPU PT capture is configured; each is allowed
# again once the other is closed. No spec violation,
# no kernel warning; the module unloads.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters
D=/sys/kernel/debug/lwpt_sim

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=full bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1

out=$(bts_test args)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "bad arguments" || exit 1
ok "bad arguments: $out"

chmod 0666 /dev/bts
# as_user CMD...: uid 1000, no capabilities.
as_user() {
	pt_sec as-user "$@"
}
want() {
	[ "$1" = "$2" ] || fail "$3: got $1, want $2" || exit 1
	ok "$3: $2"
}

want "$(as_user bts_test try 0 user 65536)" EACCES "uid 1000, pt_paranoid 3"
echo 2 >$P/pt_paranoid
want "$(as_user bts_test try 0 user 65536)" EACCES "uid 1000, pt_paranoid 2 (kernel addresses in BTS)"
echo 1 >$P/pt_paranoid
want "$(as_user bts_test try 0 user 65536)" ok "uid 1000, pt_paranoid 1, its own thread"
want "$(as_user bts_test try 0 kernel 65536)" EPERM "uid 1000, kernel branches"
want "$(as_user bts_test try 0 all 65536)" EPERM "uid 1000, user and kernel branches"

sleep 1000 &
root_pid=$!
want "$(as_user bts_test try $root_pid user 65536)" EPERM "uid 1000 on a root process"
kill $root_pid
pt_sec as-user sleep 1000 &
user_pid=$!
# Wait until it runs as uid 1000 (pt_sec drops to it, dumpable, then execs).
while ! grep -q "^Uid:[[:space:]]*1000" /proc/$user_pid/status 2>/dev/null; do
	sleep 0.1
done
want "$(as_user bts_test try $user_pid user 65536)" ok "uid 1000 on its own other process"
kill $user_pid

echo 0 >$P/pt_mlock_kb
want "$(ulimit -l 0 && as_user bts_test try 0 user 65536)" ENOMEM \
	"uid 1000, RLIMIT_MEMLOCK 0, no allowance"
want "$(ulimit -l 1024 && as_user bts_test try 0 user 65536)" ok \
	"uid 1000, RLIMIT_MEMLOCK 1 MiB"
want "$(ulimit -l 0 && bts_test try 0 user 65536)" ok "root (CAP_IPC_LOCK), RLIMIT_MEMLOCK 0"
echo 516 >$P/pt_mlock_kb

# Set-user-ID exec: the capture ends before the victim's first instruction
# (as perf's events at such an exec); a plain copy stays recorded.
D=/tmp/btsv
mkdir -p $D && chmod 0755 $D
echo "0123456789abcdef" >$D/secret && chmod 0600 $D/secret
cp /bin/pt_victim $D/victim && chown 0:0 $D/victim && chmod 4755 $D/victim
cp /bin/pt_victim $D/plain && chmod 0755 $D/plain
out=$(as_user bts_test exec stop $D/victim $D/secret)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "set-user-ID exec still recorded" || exit 1
ok "uid 1000 recording a child that execs a set-user-ID program: stopped at the exec"
out=$(as_user bts_test exec go $D/plain $D/secret)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "plain exec not recorded" || exit 1
ok "the same with a plain copy: recorded on"
D=/sys/kernel/debug/lwpt_sim
echo 3 >$P/pt_paranoid

# One capture per thread.
: >/tmp/bts_hold.out
bts_test hold >/tmp/bts_hold.out &
hold=$!
while ! grep -q held /tmp/bts_hold.out && kill -0 $hold 2>/dev/null; do
	sleep 0.1
done
grep -q held /tmp/bts_hold.out || fail "hold: $(cat /tmp/bts_hold.out)" || exit 1
want "$(bts_test try $hold user 65536)" EBUSY "a second capture of a recorded thread"
kill $hold
wait $hold

# perf holds the DS area, then the LBRs.
for what in ds lbr; do
	echo $what >$D/bts_perf
	mark=$(dmesg_mark)
	want "$(bts_test try 0 user 65536)" EBUSY "perf holds $what"
	n=$(dmesg_since "$mark" | grep -c '/dev/bts: IA32_DS_AREA/IA32_DEBUGCTL in use by')
	dmesg_since "$mark" | grep '/dev/bts'
	[ "$n" = 1 ] || fail "$n log lines naming the holder, want 1" || exit 1
	echo off >$D/bts_perf
	want "$(bts_test try 0 user 65536)" ok "perf let go of $what"
done
# PT and BTS of one thread: exclusive, both orders (Documentation/bts.rst,
# "PT and BTS"). held CMD...: runs CMD in the background until it prints
# "held"; its pid in $held.
held() {
	: >/tmp/bts_held.out
	"$@" >/tmp/bts_held.out &
	held=$!
	while ! grep -q held /tmp/bts_held.out && kill -0 $held 2>/dev/null; do
		sleep 0.1
	done
	grep -q held /tmp/bts_held.out || fail "$*: $(cat /tmp/bts_held.out)"
}
sleep 1000 &
victim=$!
held bts_test hold $victim || exit 1
want "$(bts_test pt thread $victim)" EBUSY "per-thread PT of a thread BTS records"
want "$(bts_test pt cpu 0)" EBUSY "per-CPU PT while BTS records a thread"
kill $held
wait $held
want "$(bts_test pt thread $victim)" ok "per-thread PT once BTS closed"
want "$(bts_test pt cpu 0)" ok "per-CPU PT once BTS closed"
for scope in thread cpu; do
	held bts_test pt $scope $victim hold || exit 1
	want "$(bts_test try $victim user 65536)" EBUSY "BTS of a thread a $scope PT capture covers"
	kill $held
	wait $held
	want "$(bts_test try $victim user 65536)" ok "BTS once the $scope PT capture closed"
done
kill $victim
wait $victim 2>/dev/null

grep . $D/bts_msrs
[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no violation, unloaded"
