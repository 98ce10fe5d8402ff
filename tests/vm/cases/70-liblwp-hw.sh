#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# liblwp's hardware backend on lwpt_sim.ko, fx8150 and full profiles: a
# static program linked with liblwp.a checks the records of LWPINS/LWPVAL
# assembled by GNU as (every register pair in both sizes, RIP-relative,
# base+index*scale+disp for every base/index pair and scale: 2356 forms)
# and of the inline wrappers, CF, ring full and MissedEvents, and the
# threshold wait through lwp_wait() on /dev/lwp (43724 §5.3, §5.4, §6,
# §8.5); lwpt-info and lwpt-jitdemo print the hardware backend. No spec
# violation.
. /lwpt/lib.sh

rc=0
for p in fx8150 full; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=$p ud2_marker=1" >/dev/null ||
		{ fail "insmod lwp_profile=$p"; rc=1; continue; }
	liblwp_test all || { fail "liblwp_test ($p)"; rc=1; }
	liblwp_test bench || { fail "liblwp_test bench ($p)"; rc=1; }
	out=$(lwpt-info 2>&1) || { fail "lwpt-info ($p)"; rc=1; }
	echo "$out" | grep -q "lwp_open() default backend: hw" ||
		{ echo "$out"; fail "lwpt-info: default backend not hw ($p)"; rc=1; }
	out=$(lwpt-jitdemo 2>&1) || { echo "$out"; fail "lwpt-jitdemo ($p)"; rc=1; }
	echo "$out" | grep -q "backend hw" ||
		{ echo "$out"; fail "lwpt-jitdemo: backend not hw ($p)"; rc=1; }
	# Under TCG, without the UD2 marker the hardware backend is unusable
	# (raw XOP would run as POP): AUTO falls back, LIBLWP_BACKEND=hw fails.
	if lwpt-info | grep -q "UD2 before LWP insns *yes"; then
		echo 0 > /sys/module/lwpt_sim/parameters/ud2_marker
		lwpt-info | grep -q "lwp_open() default backend: emu" ||
			{ fail "no ud2_marker: default not emu ($p)"; rc=1; }
		LIBLWP_BACKEND=hw lwpt-jitdemo >/dev/null 2>&1
		[ $? = 2 ] || { fail "LIBLWP_BACKEND=hw without marker ($p)"; rc=1; }
		echo 1 > /sys/module/lwpt_sim/parameters/ud2_marker
	fi
	[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations) ($p)"; rc=1; }
	lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod ($p)"; rc=1; }
done
# Without /dev/lwp the emulation is chosen.
out=$(lwpt-info 2>&1)
echo "$out" | grep -q "lwp_open() default backend: emu" ||
	{ echo "$out"; fail "lwpt-info without lwpt_sim.ko: not emu"; rc=1; }
LIBLWP_BACKEND=hw lwpt-jitdemo >/dev/null 2>&1
[ $? = 2 ] || { fail "LIBLWP_BACKEND=hw without /dev/lwp"; rc=1; }
# (The emulation's raw instructions need #UD, which TCG does not raise:
# lwpt-jitdemo on the emulation runs in the host tests, not here.)
[ $rc = 0 ] && ok "liblwp hardware backend on lwpt_sim.ko, fx8150 and full"
exit $rc
