#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# perf takes IA32_DS_AREA in the middle of /dev/bts captures (issue 37;
# Documentation/bts.rst, "Coexistence with perf"). The model's debugfs
# bts_perf plays perf: "ds" points IA32_DS_AREA of every CPU at perf's own
# DS area by IPI, as perf's reserve_ds_buffers() when its first x86 event
# is created, after CONFIGURE checked the MSR was free. bts_perf_take
# thread: per-thread captures of a thread looping alone on CPU 1 (ended by
# STOP's unload), of one looping on CPU 0 (its switch out) and of one
# asleep (its switch in); bts_perf_take cpu: a per-CPU capture of CPU 1
# with a thread looping there (the CPU's next switch). Each capture ends
# with LWPT_BTS_ST_DS_TAKEN and POLLHUP, its records from before the take
# kept, one log line each. Afterwards every CPU's IA32_DS_AREA is still
# perf's pointer, perf's DS area untouched but for the BTS index (the
# records of the window between perf's IPI and that switch or unload land
# in perf's BTS buffer, as on hardware), IA32_DEBUGCTL without the
# captures' bits. Once perf lets go (IA32_DS_AREA 0, as
# fini_debug_store_on_cpu()) CONFIGURE works again. No spec violation, no
# kernel warning; the module unloads.
. /lwpt/lib.sh

D=/sys/kernel/debug/lwpt_sim

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=full bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1
taskset -p -c 0 $$ >/dev/null || fail "taskset -p -c 0 $$" || exit 1

# perf_kept WHEN: on every online CPU IA32_DS_AREA is what perf last wrote
# and perf's DS area is as perf wrote it (but the BTS index), and
# IA32_DEBUGCTL is 0 (perf's "ds" sets no bit of it; the captures' bits are
# gone).
perf_kept() {
	cat $D/bts_perf
	grep . $D/bts_msrs | cut -d' ' -f1-3
	awk '{ split($2, p, "="); split($3, m, "=");
	       if (p[2] != m[2] || $4 != "intact=1") bad = 1 } END { exit bad }' \
		$D/bts_perf || fail "$1: perf's IA32_DS_AREA or DS area overwritten" || return 1
	n=$(grep -c "^cpu[0-9]* debugctl=0x0 " $D/bts_msrs)
	[ "$n" = "$(grep -c . $D/bts_msrs)" ] ||
		fail "$1: IA32_DEBUGCTL bits left" || return 1
	ok "$1: IA32_DS_AREA and DEBUGCTL are perf's on every CPU"
}

# taken_lines WHAT N MARK: N log lines since MARK say perf took IA32_DS_AREA.
taken_lines() {
	dmesg_since "$3" | grep '/dev/bts'
	n=$(dmesg_since "$3" | grep -c '/dev/bts: perf took IA32_DS_AREA of CPU')
	[ "$n" = "$2" ] || fail "$1: $n log lines, want $2" || return 1
	ok "$1: $n log lines"
}

# take WHAT N WHERE ARGS...: `bts_perf_take ARGS`, perf taking IA32_DS_AREA
# in the middle of its captures (WHAT), which end with DS_TAKEN at WHERE;
# then perf's state kept and N log lines. Every check runs, whatever the
# first that fails; status 1 if any failed.
take() {
	what=$1 lines=$2 where=$3
	shift 3
	mark=$(dmesg_mark)
	out=$(bts_perf_take "$@")
	rc=$?
	echo "$out"
	bad=0
	[ $rc -eq 0 ] || fail "$what captures" || bad=1
	[ $bad = 1 ] || ok "$what captures ended with DS_TAKEN at $where"
	perf_kept "$what" || bad=1
	taken_lines "$what" "$lines" "$mark" || bad=1
	[ $bad = 0 ]
}

take per-thread 3 "STOP, switch out, switch in" thread 1 || exit 1

echo off >$D/bts_perf
grep -q "ds_area=0x0 " $D/bts_msrs || fail "perf's release" || exit 1
[ "$(bts_test try 0 user 65536)" = ok ] || fail "CONFIGURE once perf let go" || exit 1
ok "CONFIGURE works once perf let go"

take per-CPU 1 "the CPU's next switch" cpu 1 || exit 1

echo off >$D/bts_perf
[ "$(grep -c "debugctl=0x0 ds_area=0x0 " $D/bts_msrs)" = "$(grep -c . $D/bts_msrs)" ] ||
	fail "IA32_DEBUGCTL/IA32_DS_AREA after perf's release" || exit 1
dmesg | lwpt_bad_kernel_lines && fail "kernel warning" && exit 1
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no violation, unloaded"
