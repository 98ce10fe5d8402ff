#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 900
# Issue 39 points 5, 6 and 7 (Documentation/pt.rst, "Continuous mode: the
# hold"), on lwpt_sim.ko with pt_exec=0 (the pattern alone):
#  - pt_test hold-update: a ToPA PMI inside a traced thread's load
#    (lwpt_sim's pt_inject_at_enable: output written right after the
#    enabling write, across the hold watermark) holds the thread before it
#    returns to user mode, under every pt_nmi_first_acker (0 none, 1 another
#    handler acknowledges bit 55 first, 2 perf after lwpt's);
#  - pt_test hold-exec: a hold due during execve() (the traced thread
#    stopped at its entry by a seccomp supervisor, the test, while its next
#    load writes across the watermark), with and without an io_uring read in
#    flight (begin_new_exec() then runs task_work with cred_guard_mutex
#    held): the exec completes and the thread is held in the new program;
#  - pt_test hold-queues: RELEASEs of one capture do not wake the threads
#    another capture holds (one hashed wait queue per thread).
# Needs MENTRY (several regions): the full profile.
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=full pt_exec=0" >/dev/null ||
	fail "insmod full" || exit 1
for acker in 1 0 2; do
	echo "$acker" >/sys/module/lwpt_sim/parameters/pt_nmi_first_acker ||
		fail "set pt_nmi_first_acker=$acker" || exit 1
	tag="pt_nmi_first_acker=$acker"
	pt_test_run hold-update || exit 1
	pt_test_run hold-exec || exit 1
done
tag=full
pt_test_run hold-queues || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
module_idle lwpt_sim
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
