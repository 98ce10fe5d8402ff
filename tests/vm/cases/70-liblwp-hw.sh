#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# liblwp's hardware backend on lwpt_sim.ko, fx8150 and full profiles: a
# static program linked with liblwp.a checks the records of LWPINS/LWPVAL
# assembled by GNU as (every register pair in both sizes, RIP-relative,
# base+index*scale+disp for every base/index pair and scale: 2356 forms)
# and of the inline wrappers, CF, ring full and MissedEvents, and the
# threshold wait through lwp_wait() on /dev/lwp (43724 §5.3, §5.4, §6,
# §8.5); lwpt-info and lwpt-jitdemo print the hardware backend, and
# lwpt-info the model's Intel PT capabilities (SDM Tables 33-11/12). No
# spec violation. liblwp_test runs with lwpt_sim.ko's Family 15h switches
# off and on (lib.sh lwp_switches; issue 14).
. /lwpt/lib.sh

rc=0
for p in fx8150 full; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=$p ud2_marker=1" >/dev/null ||
		{ fail "insmod lwp_profile=$p"; rc=1; continue; }
	for sw in $LWP_SWITCH_RUNS; do
		lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
		liblwp_test all || { fail "liblwp_test ($p, switches $sw)"; rc=1; }
	done
	lwp_switches 0
	liblwp_test bench || { fail "liblwp_test bench ($p)"; rc=1; }
	out=$(lwpt-info 2>&1) || { fail "lwpt-info ($p)"; rc=1; }
	echo "$out" | grep -q "lwp_open() default backend: hw" ||
		{ echo "$out"; fail "lwpt-info: default backend not hw ($p)"; rc=1; }
	# Intel PT of lwpt_sim.ko's default pt_profile=full (kmod/sim/sim_cpuid.c):
	# 14H.0 EBX 0x1ff, ECX ToPA/MENTRY/SNGLRGNOUT; 14H.1 EAX 0x02490004,
	# EBX 0x003f3fff (SDM Tables 33-11/12), as libpt names them.
	for want in '^  /dev/pt  *present$' \
		'^  ABI version  *1\.[0-9]* (lwpt_sim.ko, software model)$' \
		'^  CPUID 14H.0  *0x00000001 0x000001ff 0x00000007 0x00000000$' \
		'^    yes CR3 Filtering Support$' \
		'^    yes TNT Disable Supported$' \
		'^    yes ToPA Tables Allow Multiple Output Entries$' \
		'^    no  Output to Trace Transport Subsystem Supported$' \
		'^    no  IP Payloads are LIP$' \
		'^    no  Erratum BDM106' \
		'^  address ranges (ADDRn)  *4$' \
		'^  MTCFreq encodings  *0x0249 (0 3 6 9)$' \
		'^  CycThresh encodings  *0x3fff (0 1 2 3 4 5 6 7 8 9 10 11 12 13)$' \
		'^  PSBFreq encodings  *0x003f (0 1 2 3 4 5)$' \
		'^  maximum buffer  *[1-9][0-9]* bytes per CPU$'; do
		echo "$out" | grep -q "$want" ||
			{ echo "$out"; fail "lwpt-info: no line $want ($p)"; rc=1; }
	done
	[ "$(echo "$out" | grep -c '^    \(yes\|no \) ')" = 18 ] ||
		{ echo "$out"; fail "lwpt-info: not 18 PT capability bits (LWPT_PT_CAP_*) ($p)"; rc=1; }
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
		[ $? = 1 ] || { fail "LIBLWP_BACKEND=hw without marker ($p)"; rc=1; }
		# Issue 14 §3: every tool says what is wrong and what to do,
		# and nothing runs raw LWP instructions that cannot trap.
		out=$(lwpt-info -b hw 2>&1)
		[ $? = 1 ] || { echo "$out"; fail "lwpt-info -b hw: not 1 without marker ($p)"; rc=1; }
		echo "$out" | grep -q 'load lwpt_sim.ko with ud2_marker=1' ||
			{ echo "$out"; fail "lwpt-info -b hw: no hint ($p)"; rc=1; }
		lwpt-info | grep -q '^  raw LWP instructions  *do NOT trap here' ||
			{ fail "lwpt-info: emu raw instructions not flagged ($p)"; rc=1; }
		# Raw instructions on the emulation are refused where XOP is POP...
		out=$(lwpt-jitdemo -b emu --raw 2>&1)
		[ $? = 1 ] || { echo "$out"; fail "lwpt-jitdemo -b emu --raw: not 1 ($p)"; rc=1; }
		echo "$out" | grep -q 'ud2_marker=1' && echo "$out" | grep -q 'Drop --raw' ||
			{ echo "$out"; fail "lwpt-jitdemo -b emu --raw: no hint ($p)"; rc=1; }
		# ...while the call sequences (issue 18) need no trap and run.
		out=$(lwpt-jitdemo -b emu -n 1000 2>&1) ||
			{ echo "$out"; fail "lwpt-jitdemo -b emu: call sequences failed ($p)"; rc=1; }
		rm -rf /tmp/jit.ptcap
		out=$(ptcap -o /tmp/jit.ptcap -- lwpt-jitdemo -b emu -n 50 2>&1) ||
			{ echo "$out"; fail "ptcap -- lwpt-jitdemo -b emu: $? ($p)"; rc=1; }
		echo "$out" | grep -q 'SIGSEGV\|Segmentation' &&
			{ echo "$out"; fail "ptcap -- lwpt-jitdemo -b emu crashed ($p)"; rc=1; }
		grep -qx 'command-status exit=0' /tmp/jit.ptcap/config ||
			{ fail "ptcap -- lwpt-jitdemo -b emu: $(grep command-status /tmp/jit.ptcap/config) ($p)"; rc=1; }
		echo 1 > /sys/module/lwpt_sim/parameters/ud2_marker
	fi
	[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations) ($p)"; rc=1; }
	lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod ($p)"; rc=1; }
done
# Without /dev/lwp the emulation is chosen.
out=$(lwpt-info 2>&1)
echo "$out" | grep -q "lwp_open() default backend: emu" ||
	{ echo "$out"; fail "lwpt-info without lwpt_sim.ko: not emu"; rc=1; }
echo "$out" | grep -q '^  /dev/pt  *absent$' ||
	{ echo "$out"; fail "lwpt-info without lwpt_sim.ko: /dev/pt not absent"; rc=1; }
LIBLWP_BACKEND=hw lwpt-jitdemo >/dev/null 2>&1
[ $? = 1 ] || { fail "LIBLWP_BACKEND=hw without /dev/lwp"; rc=1; }
lwpt-info -b hw >/dev/null 2>&1
[ $? = 1 ] || { fail "lwpt-info -b hw without /dev/lwp: not 1"; rc=1; }
# (The emulation's raw instructions need #UD, which TCG does not raise:
# lwpt-jitdemo on the emulation runs in the host tests, not here.)
[ $rc = 0 ] && ok "liblwp hardware backend on lwpt_sim.ko, fx8150 and full"
exit $rc
