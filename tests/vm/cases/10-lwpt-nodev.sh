#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 2 point 7: on a CPU without LWP, PT and BTS (QEMU -cpu max has none),
# lwpt.ko refuses to load with -ENODEV and exactly one kernel log line that
# says why (43724 §3.1: CPUID Fn8000_0001_ECX[15]; SDM 33.3.1:
# CPUID.07H:EBX[25]).
. /lwpt/lib.sh

mark=$(dmesg_mark)
lwpt_vmtool insmod $LWPT_KMOD/lwpt.ko
rc=$?
[ $rc -eq 19 ] || fail "insmod lwpt.ko: exit $rc, want 19 (ENODEV)" || exit 1
ok "insmod lwpt.ko -> ENODEV"

! module_loaded lwpt || fail "lwpt is loaded" || exit 1
[ ! -e /dev/lwp ] && [ ! -e /dev/pt ] || fail "device nodes exist" || exit 1

lines=$(dmesg_since "$mark" | lwpt_strip_taint_notes | grep -c 'lwpt')
dmesg_since "$mark" | lwpt_strip_taint_notes | grep 'lwpt'
[ "$lines" -eq 1 ] || fail "$lines kernel log lines about lwpt, want 1" || exit 1
dmesg_since "$mark" | grep -q 'lwpt: no LWP (.*), no Intel PT (.*) and no BTS (.*); not loading' ||
	fail "the log line does not say why" || exit 1
ok "exactly one log line"
