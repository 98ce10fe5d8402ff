#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 600
# Issue 12, model-specific rules (Documentation/pt.rst, "Errata and
# model-specific rules"), on lwpt_sim.ko with the captures fed by
# pt_inject (pt_exec=0):
# - PT and LBRs mutually exclusive (SDM 33.3.1.2) on bdw as the Intel
#   06_3DH it is with lwp_profile=none, and on the models perf 6.1 keeps
#   them apart on beyond the SDM (issue 27 2.7: no lbr_pt_coexist; full's
#   PT with pt_sig 06_8EH, 06_55H, 06_A6H; 06_7EH coexists): START refused with EBUSY and a
#   kernel log line naming the rule while a CPU has IA32_DEBUGCTL.LBR set
#   (debugfs pt_other_tracer kind 2); LBR set mid-capture: the buffer stops,
#   STATUS says LBR, INTERFERED and counts a loss; a per-thread load is
#   skipped while LBR is set and done again once it is clear (WRMSR and
#   XRSTORS paths); a CPU that comes back online with LBR set is not
#   resumed; LBR set mid-capture and then a ToPA PMI: the PMI finds it and
#   leaves TraceEn clear before any other pause;
# - erratum TGL052 on tgl (06_8CH): a single range above 4 KiB becomes
#   ToPA (log line naming the errata), a 4 KiB one stays single range;
# - neither on full, nor on bdw as the AMD processor it is with LWP.
# The model's spec-violation counter stays 0 throughout: lwpt never sets
# TraceEn with LBR on, nor enables a single range above 4 KiB there.
. /lwpt/lib.sh

# cpuid_reg LEAF REG: REG (eax..edx) of LEAF (8 hex digits, sub-leaf 00).
cpuid_reg() {
	sed -n "s/^cpu[0-9]* $1\\.00: .*$2=\\([0-9a-f]*\\).*/\\1/p" \
		/sys/kernel/debug/lwpt_sim/cpuid | head -n 1
}

# run PARAMS WANT VENDOR_EBX SIG LOGPATTERN
run() {
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "$1 pt_exec=0" >/dev/null ||
		fail "insmod $1" || return 1
	[ "$(cpuid_reg 00000000 ebx)" = "$3" ] && [ "$(cpuid_reg 00000001 eax)" = "$4" ] ||
		fail "$1: CPUID vendor $(cpuid_reg 00000000 ebx), signature $(cpuid_reg 00000001 eax); want $3, $4" ||
		return 1
	mark=$(dmesg_mark)
	out=$(pt_test errata "$2")
	rc=$?
	echo "$out" | grep -v '^ok:'
	[ $rc -eq 0 ] || fail "$1: pt_test errata $2" || return 1
	if [ -n "$5" ]; then
		dmesg_since "$mark" | grep -E "$5" ||
			fail "$1: no kernel log line matching '$5'" || return 1
	fi
	[ "$(sim_violations)" = 0 ] || fail "$1: violations $(sim_violations)" || return 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$1: rmmod" || return 1
	ok "$1: errata $2 ($(echo "$out" | grep -c '^ok:') checks), no violation, unloads"
}

intel=756e6547	# "Genu"
amd=68747541	# "Auth"
run "lwp_profile=none pt_profile=bdw" lbr $intel 000306d4 \
	'START refused: IA32_DEBUGCTL.LBR is set on CPU 0; PT and LBRs are mutually exclusive on this processor \(06_3DH, SDM 33.3.1.2, perf.s lbr_pt_coexist\)' ||
	exit 1
# Models perf 6.1 keeps PT and LBR apart on beyond the SDM's list (no
# lbr_pt_coexist in intel_pmu_init()): Kaby Lake 06_8EH, Skylake-X 06_55H,
# Comet Lake 06_A6H, with full's PT; Ice Lake 06_7EH coexists.
run "lwp_profile=none pt_profile=full pt_sig=0x000806ea" lbr-perf $intel 000806ea \
	'PT and LBRs are mutually exclusive on this processor \(06_8EH' || exit 1
run "lwp_profile=none pt_profile=full pt_sig=0x00050654" lbr-perf $intel 00050654 \
	'PT and LBRs are mutually exclusive on this processor \(06_55H' || exit 1
run "lwp_profile=none pt_profile=full pt_sig=0x000a0660" lbr-perf $intel 000a0660 \
	'PT and LBRs are mutually exclusive on this processor \(06_A6H' || exit 1
run "lwp_profile=none pt_profile=full pt_sig=0x000706e5" none $intel 000706e5 "" || exit 1
# The same with XSAVES/XRSTORS of PT state (per-thread loads by XRSTORS).
run "lwp_profile=none pt_profile=bdw pt_xsaves=1" lbr $intel 000306d4 \
	'START refused: IA32_DEBUGCTL.LBR is set on CPU 0' || exit 1
run "lwp_profile=none pt_profile=tgl" single4k $intel 000806c1 \
	'single-range output above 4 KiB is unreliable on this processor \(06_8CH, errata TGL052/ADL037/RPL017\): 16384 bytes configured as ToPA' ||
	exit 1
run "lwp_profile=none pt_profile=full" none $intel 000806f8 "" || exit 1
run "lwp_profile=fx8150 pt_profile=bdw" none $amd 00600f12 "" || exit 1
