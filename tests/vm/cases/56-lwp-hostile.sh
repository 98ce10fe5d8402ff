#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /dev/lwp against a hostile unprivileged user (issue 13 §3): uid 1000 asks
# for a threshold interrupt per record (Threshold 0) and stores thousands:
# the driver throttles it (at most 1000 interrupts a second per thread, then
# Flags.INT off for a second, Documentation/lwp.rst) and gives the interrupt
# back afterwards; size-versioned structs above PAGE_SIZE are refused; the
# memory of open files is charged to the opener's memory cgroup. The
# throttle ends by time, also for a thread that never sleeps (issue 28 §3,
# lwp_test busythrottle), and a thread cannot lift it by loading its LWPCB
# again (issue 38 §4, lwp_test relload). With the Family 15h switches off
# and on.
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko ud2_marker=1 >/dev/null || fail "insmod" || exit 1
rc=0
for sw in $LWP_SWITCH_RUNS; do
	lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
	lwp_test flood || { fail "flood (switches $sw)"; rc=1; }
	lwp_test relload || { fail "relload (switches $sw)"; rc=1; }
	# Its SCHED_FIFO spin (1.5 s) must not be cut by the RT throttle.
	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
	echo -1 > /proc/sys/kernel/sched_rt_runtime_us
	lwp_test busythrottle || { fail "busythrottle (switches $sw)"; rc=1; }
	echo "$rt" > /proc/sys/kernel/sched_rt_runtime_us
done
# Memory of /dev/lwp files is charged to the opener's cgroup (v2).
if [ -e /sys/fs/cgroup/cgroup.controllers ] ||
	mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; then
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir -p /sys/fs/cgroup/lwpt_memcg
	if [ -e /sys/fs/cgroup/lwpt_memcg/memory.current ]; then
		sh -c 'echo $$ > /sys/fs/cgroup/lwpt_memcg/cgroup.procs && exec lwp_test memcg 200' ||
			{ fail "memcg"; rc=1; }
	else
		echo "skip: no memory controller"
	fi
	rmdir /sys/fs/cgroup/lwpt_memcg 2>/dev/null
else
	echo "skip: no cgroup2"
fi
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod"; rc=1; }
[ $rc = 0 ] && ok "hostile user: interrupt flood throttled, oversized structs refused"
exit $rc
