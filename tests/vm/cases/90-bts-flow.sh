#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /dev/bts on lwpt_sim.ko (issue 37 point 2): each bts_profile advertises
# its CPUID.1 DS, DTES64, DS-CPL and PDCM bits and its perfmon version in
# CPUID.0AH; /dev/bts exists where BTS is usable (not without DS, DTES64,
# or with BTS_UNAVAILABLE), also without PT; with no LWP, PT or BTS the
# module refuses as before. A per-thread BTS capture of a deterministic
# workload, decoded from each record's "to" to the next record's "from",
# equals ptrace single-stepping of the same workload, user only and (as
# root) user and kernel; a profile without DS-CPL accepts only both.
# Signal handlers that end the thread's capture (a UD2's SIGILL, a
# child's SIGUSR1) find no RFLAGS.TF of the model's execution follower in
# their frames, and the thread runs on after sigreturn without SIGTRAP.
# STOP by the recorded thread, which sleeps in it while another process
# spins on its CPU, records none of that process's branches, in the
# buffer or the LBR stack. The module unloads clean; no spec violation.
. /lwpt/lib.sh

# cpuid_line LEAF.SUB: the line of debugfs lwpt_sim/cpuid for that leaf.
cpuid_line() {
	grep -m1 " $1:" /sys/kernel/debug/lwpt_sim/cpuid
}

# load PARAMS WANT_BTS WANT_ECX_BITS WANT_EDX_BIT21 WANT_PERFMON
load() {
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "$1" >/dev/null || fail "insmod $1" || return 1
	if [ "$2" = 1 ]; then [ -c /dev/bts ]; else [ ! -e /dev/bts ]; fi ||
		fail "$1: /dev/bts presence wrong" || return 1
	l1=$(cpuid_line 00000001.00)
	la=$(cpuid_line 0000000a.00)
	ecx=$(echo "$l1" | sed 's/.*ecx=\([0-9a-f]*\).*/\1/')
	edx=$(echo "$l1" | sed 's/.*edx=\([0-9a-f]*\).*/\1/')
	eax=$(echo "$la" | sed 's/.*eax=\([0-9a-f]*\).*/\1/')
	# DTES64 bit 2, DS-CPL bit 4, PDCM bit 15; DS is EDX bit 21.
	[ $((0x$ecx & 0x8014)) = $(($3)) ] && [ $(((0x$edx >> 21) & 1)) = "$4" ] &&
		[ $((0x$eax & 0xff)) = "$5" ] ||
		fail "$1: CPUID.1 ecx=$ecx edx=$edx, 0AH eax=$eax" || return 1
	[ "$(sim_violations)" = 0 ] || fail "$1: violations" || return 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$1: rmmod" || return 1
	ok "$1"
}

I="lwp_profile=none"
load "$I pt_profile=full bts_profile=nhm" 1 0x8014 1 3 || exit 1
load "$I pt_profile=none bts_profile=core2" 1 0x8014 1 2 || exit 1
load "$I pt_profile=full bts_profile=pmv4" 1 0x8014 1 4 || exit 1
load "$I pt_profile=full bts_profile=nocpl" 0 0 1 1 || exit 1
load "$I pt_profile=full bts_profile=btsoff" 0 0x8014 1 2 || exit 1
load "$I pt_profile=full bts_profile=nods" 0 0 0 2 || exit 1
load "$I pt_profile=full" 0 0 0 0 || exit 1

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=fx8150 bts_profile=nhm"
rc=$?
[ $rc -eq 22 ] || fail "BTS on the AMD model: exit $rc, want 22 (EINVAL)" || exit 1
ok "bts_profile with LWP (the AMD model) -> EINVAL"

# The flow, on a processor with BTS and no PT.
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "$I pt_profile=none bts_profile=nhm" >/dev/null ||
	fail "insmod" || exit 1
out=$(bts_test flow user)
rc=$?
echo "$out"
if [ $rc -ne 0 ]; then
	cat /sys/kernel/debug/lwpt_sim/bts_msrs /sys/kernel/debug/lwpt_sim/step
	echo "violations $(sim_violations)"
	dmesg | tail -20
fi
[ $rc -eq 0 ] || fail "user-only flow" || exit 1
ok "user-only BTS capture = single-stepping: $out"
out=$(bts_test flow all)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "user+kernel flow" || exit 1
ok "user+kernel BTS capture = single-stepping: $out"
# STOP by the thread itself sleeps; another process spinning on its CPU
# meanwhile must not be recorded (the state stays found by the switch
# probe until it is unloaded).
out=$(bts_test stop-others)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "stop-others: $(exit_str $rc): $out" || exit 1
ok "STOP leaves no other process's branch in the buffer or the LBR stack: $out"
# Signal handlers that end the capture while the follower steps the
# thread: no follower's RFLAGS.TF in the frames, none back at sigreturn.
out=$(bts_test sigframe)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "sigframe: $(exit_str $rc): $out" || exit 1
ok "signal frames without the follower's TF, no SIGTRAP after sigreturn: $out"
grep . /sys/kernel/debug/lwpt_sim/bts_msrs
grep -q "debugctl=0x0 ds_area=0x0 " /sys/kernel/debug/lwpt_sim/bts_msrs ||
	fail "IA32_DEBUGCTL/IA32_DS_AREA not restored" || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations after the flows" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "DEBUGCTL and DS_AREA back to 0 on every CPU, no violation, unloaded"

# No DS-CPL: only user and kernel together.
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "$I pt_profile=full bts_profile=nocpl" >/dev/null ||
	fail "insmod nocpl" || exit 1
# nocpl has no DTES64: no /dev/bts (perf's intel_ds_init() rule).
[ ! -e /dev/bts ] || fail "nocpl: /dev/bts without DTES64" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "nocpl (no DTES64): no /dev/bts"
