#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Per-CPU BTS captures (ABI 1.7; Documentation/bts.rst, "Per-CPU
# captures"): CPU 0 is recorded (user branches of every thread) while
# bts_test runs on CPU 1 and two children pinned to CPU 0 run the workload
# at once (the CPU switches between them as the scheduler likes); each
# child's records, cut out of cpu 0's buffer by the context-switch records
# (LWPT_BTS_IOC_READ_SWITCHES), decoded, equal ptrace single-stepping of
# the same run. A child that moves itself CPU 0 -> 1 -> 0
# (sched_setaffinity()) while both CPUs are recorded with the switches' TSC
# (LWPT_BTS_CFG_SWITCH_TSC, ABI 1.10): its pieces of both CPUs in TSC order
# equal single-stepping; switch records are 32 bytes without the flag (old
# callers), 40 with it; the flag is per-CPU only. Then the exclusions: a second per-CPU capture of CPU 0
# EBUSY, another CPU allowed; a per-thread BTS capture and /dev/pt
# CONFIGURE EBUSY while a per-CPU BTS capture exists, and a per-CPU BTS
# capture EBUSY while a thread has a per-thread one; all allowed again
# once the holder is gone. A CPU going offline ends its capture. No spec
# violation, DEBUGCTL and DS_AREA back to 0, the module unloads.
. /lwpt/lib.sh

D=/sys/kernel/debug/lwpt_sim

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=full bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1

out=$(bts_test cpu 0 20)
rc=$?
echo "$out"
if [ $rc -ne 0 ]; then
	cat $D/bts_msrs $D/pmi
	echo "violations $(sim_violations)"
	dmesg | tail -20
fi
[ $rc -eq 0 ] || fail "per-CPU capture of cpu 0: $(exit_str $rc): $out" || exit 1
ok "per-CPU capture = single-stepping: $out"

out=$(bts_test cpu-mig 4)
rc=$?
[ $rc -eq 0 ] || fail "a migrating thread, CPUs 0 and 1: $(exit_str $rc): $out" || exit 1
ok "a thread moving CPU 0 -> 1 -> 0, its pieces in TSC order = single-stepping: $out"
out=$(bts_test cpu-sizes)
rc=$?
[ $rc -eq 0 ] || fail "switch record sizes: $(exit_str $rc): $out" || exit 1
ok "switch records: $(echo "$out" | tr '\n' ' ')"

# hold_start NAME CMD...: run CMD in the background until it prints "held".
hold_start() {
	name=$1
	shift
	"$@" >/tmp/$name.out 2>&1 &
	eval "${name}_pid=$!"
	while ! grep -q held /tmp/$name.out; do
		kill -0 "$(eval echo \$${name}_pid)" 2>/dev/null ||
			{ cat /tmp/$name.out; return 1; }
		sleep 0.1
	done
}
# hold_stop NAME: SIGTERM; the holder prints what it has and exits 0.
hold_stop() {
	p=$(eval echo \$${1}_pid)
	kill -TERM "$p"
	wait "$p"
	hs_rc=$?
	[ $hs_rc -eq 0 ] ||
		fail "holder $1: $(exit_str $hs_rc): $(cat /tmp/$1.out)" || exit 1
}
want() {
	[ "$1" = "$2" ] || fail "$3: got $1, want $2" || exit 1
	ok "$3: $2"
}

hold_start cpu0 bts_test cpu-try 0 user 65536 hold || fail "cpu 0 capture" || exit 1
want "$(bts_test cpu-try 0 user 65536)" "EBUSY 6" "a second capture of cpu 0"
want "$(bts_test cpu-try 1 9 65536)" "ok" "cpu 1 with SWITCH_TSC (flags 9)"
want "$(bts_test try 0 9 65536)" "EINVAL" "SWITCH_TSC of a per-thread capture"
want "$(bts_test cpu-try 1 user 65536)" "ok" "cpu 1 beside cpu 0"
want "$(bts_test try 0 user 65536)" "EBUSY" "a per-thread capture beside a per-CPU one"
want "$(bts_test pt thread $$)" "EBUSY" "/dev/pt per-thread beside a per-CPU BTS capture"
want "$(bts_test pt cpu 0)" "EBUSY" "/dev/pt per-CPU beside a per-CPU BTS capture"
hold_stop cpu0
want "$(bts_test try 0 user 65536)" "ok" "per-thread again once it is closed"

hold_start thr bts_test hold || fail "per-thread capture" || exit 1
want "$(bts_test cpu-try 0 user 65536)" "EBUSY 6" "a per-CPU capture beside a per-thread one"
hold_stop thr
want "$(bts_test cpu-try 0 user 65536)" "ok" "per-CPU again once it is closed"

# CPU 1 goes offline under its capture: recording ends there (EXITED,
# not RECORDING); the CPU comes back without it.
hold_start cpu1 bts_test cpu-try 1 user 65536 hold || fail "cpu 1 capture" || exit 1
echo 0 >/sys/devices/system/cpu/cpu1/online || fail "cpu 1 offline" || exit 1
echo 1 >/sys/devices/system/cpu/cpu1/online || fail "cpu 1 online" || exit 1
hold_stop cpu1
f=$(sed -n 's/^flags //p' /tmp/cpu1.out)
[ -n "$f" ] && [ $((f & 0x8)) != 0 ] && [ $((f & 0x2)) = 0 ] ||
	fail "cpu 1 capture after an offline: $(cat /tmp/cpu1.out)" || exit 1
ok "cpu 1 offline: its capture ended (flags $f)"
want "$(bts_test cpu-try 1 user 65536)" "ok" "cpu 1 again after the offline"

hold_start ptc bts_test pt cpu 0 hold || fail "/dev/pt per-CPU" || exit 1
want "$(bts_test cpu-try 1 user 65536)" "EBUSY 6" "per-CPU BTS beside a per-CPU PT capture"
hold_stop ptc

grep . $D/bts_msrs
grep -q "unknown=[1-9]" $D/pmi && { fail "an NMI nobody claimed"; exit 1; }
grep -q "debugctl=0x0 ds_area=0x0 " $D/bts_msrs ||
	fail "IA32_DEBUGCTL/IA32_DS_AREA not restored" || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "DEBUGCTL and DS_AREA back to 0, no violation, unloaded"
