#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Per-thread PT capture (issue 6 point 4) under both PT profiles and both
# context-switch paths (SDM 33.3.5.1 RDMSR/WRMSR, 33.3.5.2 XSAVES/XRSTORS of
# component 8, chosen by lwpt_sim's pt_xsaves): a multi-threaded child with
# threads created before and after CONFIGURE, one buffer each, TraceEn set
# exactly while a traced thread runs (a ping-pong of thousands of switches
# with an untraced thread on one CPU), output pointers saved and restored
# exactly, exit and exec; then CPU hotplug and suspend during per-CPU and
# per-thread captures (issue 6 point 6); unload refused while a per-thread
# capture's file is open, TraceEn=0 everywhere after it closes; no spec
# violation. The buffers hold pt_inject patterns: no packets from execution
# (pt_exec=0).
. /lwpt/lib.sh

run() {	# run NAME: pt_test NAME, its failures printed (lib.sh)
	pt_test_run "$1"
}

traceen_anywhere() {
	grep -q ' ctl=0x[0-9a-f]*[13579bdf] ' /sys/kernel/debug/lwpt_sim/pt_msrs
}

for combo in full:1 full:0 bdw:0 bdw:1; do
	prof=${combo%:*}
	xs=${combo#*:}
	tag="$prof pt_xsaves=$xs"
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof pt_xsaves=$xs pt_exec=0" >/dev/null ||
		fail "insmod $tag" || exit 1
	run threads || exit 1
	want="RDMSR/WRMSR"
	[ "$xs" = 1 ] && want="XSAVES/XRSTORS"
	echo "$out" | grep -q "switch path: $want" ||
		fail "$tag: the switch path is not $want" || exit 1
	run thread-exec || exit 1
	if [ "$combo" = full:1 ] || [ "$combo" = bdw:0 ]; then
		if [ -w /sys/devices/system/cpu/cpu1/online ]; then
			run thread-hotplug || exit 1
			run cpu-hotplug || exit 1
		else
			echo "skip: no cpu1 hotplug"
		fi
		if [ -w /sys/power/pm_test ] && grep -q mem /sys/power/state; then
			run suspend || exit 1
		else
			echo "skip: no /sys/power/pm_test or no mem state"
		fi
	fi
	[ "$(sim_violations)" = 0 ] || fail "$tag: violations $(sim_violations)" || exit 1

	# Unload: refused while the capture's file is open; TraceEn=0 after.
	pt_hold hold-thread || fail "$tag: hold-thread did not start" || exit 1
	pid=$hold_pid
	lwpt_vmtool rmmod lwpt_sim >/dev/null && fail "$tag: rmmod while tracing" && exit 1
	kill $pid
	# No sleep: the last close (exit_files() in do_exit(), its fput() run
	# by exit_task_work()) stops tracing before exit_notify(), so before
	# wait returns; a TraceEn left set is a bug, not slowness.
	wait $pid 2>/dev/null
	traceen_anywhere && { fail "$tag: TraceEn left set after close"; exit 1; }
	[ "$(sim_violations)" = 0 ] || fail "$tag: violations after close" || exit 1
	# The traced child, killed with pt_test (PR_SET_PDEATHSIG), exits
	# on its own time and unregisters its preempt notifier there.
	module_idle lwpt_sim
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$tag: rmmod after close" || exit 1
	ok "$tag: unload only after the file is closed, TraceEn=0 on every CPU"
done
