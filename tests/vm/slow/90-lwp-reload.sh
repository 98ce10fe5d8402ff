#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 900
# The hang of issue 28 §0: lwpt_sim.ko loaded and unloaded again and again
# (lwp_profile fx8150 then full, for each of lwp_xsave_drops_int 0/1 x
# lwp_lazy_head 0/1, given at insmod as the outside test did), each time
# running liblwp_stress (20000 LWPVAL records from a worker pinned to CPU 0
# with sched_yield() every 8, a busy thread on CPU 0, the main thread
# draining on lwp_wait()). Every load and unload patches kernel text
# (preempt notifier static key, tracepoints). Soft-lockup reports come with
# backtraces of every CPU and the console shows every level, so that a
# hang leaves its evidence in the console log; tests/vm/run then also
# dumps the QEMU monitor's `info registers -a` (tests/vm/run, "hang").
# Slow (ROUNDS x 8 load/unload cycles, default ROUNDS=6: 48 cycles, many
# minutes under TCG): not in make check. Documentation/testing.rst.
. /lwpt/lib.sh

rounds=${LWPT_RELOAD_ROUNDS:-6}
echo 1 > /proc/sys/kernel/softlockup_all_cpu_backtrace
echo 8 > /proc/sys/kernel/printk
rc=0
cycle=0
r=0
while [ $r -lt "$rounds" ]; do
	r=$((r + 1))
	for p in fx8150 full; do
		for drops in 0 1; do
			for lazy in 0 1; do
				cycle=$((cycle + 1))
				echo "cycle $cycle (round $r): lwp_profile=$p lwp_xsave_drops_int=$drops lwp_lazy_head=$lazy"
				lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko \
					"lwp_profile=$p ud2_marker=1 lwp_xsave_drops_int=$drops lwp_lazy_head=$lazy" >/dev/null ||
					{ fail "insmod (cycle $cycle)"; rc=1; continue; }
				liblwp_stress 20000 || { fail "liblwp_stress (cycle $cycle)"; rc=1; }
				[ "$(sim_violations)" = 0 ] ||
					{ fail "violations $(sim_violations) (cycle $cycle)"; rc=1; }
				module_idle lwpt_sim
				lwpt_vmtool rmmod lwpt_sim >/dev/null ||
					{ fail "rmmod (cycle $cycle)"; rc=1; }
			done
		done
	done
done
echo 7 > /proc/sys/kernel/printk
[ $rc = 0 ] && ok "$cycle load/run/unload cycles of lwpt_sim.ko without a hang"
exit $rc
