#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Per-thread RTIT state loaded after the switch, by each traced thread's
# preempt notifier (issue 12 item 2.4; Documentation/pt.rst "Per-thread
# capture"), under both PT profiles and both switch paths:
#  - OS=1 and User=1, as root, a traced child ping-ponging with an untraced
#    process on one CPU: TraceEn exactly while the child runs and no state
#    ever set inside a switch for another task (lwpt_sim's pt_switch_check);
#    the model keeps kernel mode out of the trace, so the switch code of
#    the outgoing task is checked through that count, not in the buffer;
#  - a fork storm while tracing: threads and processes join and exit;
#  - STOP and close of a capture whose thread is blocked in read() of a
#    pipe: rmmod is refused (the module is in use: delete_module() with
#    O_NONBLOCK fails with EWOULDBLOCK, rmmod(8) says "in use"; the thread
#    still has to unregister its notifier, only it can) and succeeds once
#    the thread woke and exited;
#  - no spec violation; the harness checks dmesg for BUG:/WARNING.
. /lwpt/lib.sh

run() {	# run ARGS...: pt_notif ARGS, its failures printed
	out=$(pt_notif "$@")
	rc=$?
	echo "$out" | grep -v '^ok:'
	[ $rc -eq 0 ] || fail "$tag: pt_notif $*" || return 1
	ok "$tag: pt_notif $* ($(echo "$out" | grep -c '^ok:') checks)"
}

for combo in full:1 bdw:0; do
	prof=${combo%:*}
	xs=${combo#*:}
	tag="$prof pt_xsaves=$xs"
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof pt_xsaves=$xs" >/dev/null ||
		fail "insmod $tag" || exit 1
	[ "$(cat /sys/module/lwpt_sim/parameters/pt_switch_check)" = Y ] ||
		fail "$tag: pt_switch_check is not on by default" || exit 1
	# Packets from execution: the child's user code single-stepped.
	run os 200 || exit 1
	# The storm: no single-stepping (pt_exec=0), the check still applies.
	echo 0 >/sys/module/lwpt_sim/parameters/pt_exec
	run fork-storm 25 || exit 1
	echo 1 >/sys/module/lwpt_sim/parameters/pt_exec

	: >/tmp/notif.out
	pt_notif pipe-hold >/tmp/notif.out &
	pid=$!
	while ! grep -q '^ready' /tmp/notif.out && kill -0 $pid 2>/dev/null; do
		sleep 0.1
	done
	grep -v '^ok:' /tmp/notif.out
	grep -q '^ready' /tmp/notif.out || fail "$tag: pipe-hold did not get ready" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null
	rc=$?
	[ $rc -eq 11 ] ||
		fail "$tag: rmmod while a traced thread sleeps: exit $rc, not EWOULDBLOCK (11, in use)" ||
		exit 1
	ok "$tag: rmmod refused (in use, EWOULDBLOCK) while the thread sleeps in read()"
	kill -USR1 $pid
	wait $pid
	rc=$?
	grep -v '^ok:' /tmp/notif.out | grep -v '^ready'
	[ $rc -eq 0 ] || fail "$tag: pt_notif pipe-hold" || exit 1
	ok "$tag: pt_notif pipe-hold ($(grep -c '^ok:' /tmp/notif.out) checks)"
	[ "$(sim_violations)" = 0 ] || fail "$tag: violations $(sim_violations)" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$tag: rmmod after the thread exited" || exit 1
	ok "$tag: rmmod once the thread exited"
done
