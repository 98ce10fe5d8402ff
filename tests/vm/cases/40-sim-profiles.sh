#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt_sim.ko profiles: each profile creates exactly the devices its CPUID
# advertises; with neither LWP nor PT it refuses like lwpt.ko (ENODEV, one
# line); an unknown profile name is EINVAL. (The Intel identity of the PT
# profiles with lwp_profile=none and its model-specific rules: 67-pt-errata.)
. /lwpt/lib.sh

# load PARAMS WANT_LWP WANT_PT
load() {
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "$1" >/dev/null || fail "insmod $1" || return 1
	if [ "$2" = 1 ]; then [ -c /dev/lwp ]; else [ ! -e /dev/lwp ]; fi ||
		fail "$1: /dev/lwp presence wrong" || return 1
	if [ "$3" = 1 ]; then [ -c /dev/pt ]; else [ ! -e /dev/pt ]; fi ||
		fail "$1: /dev/pt presence wrong" || return 1
	[ "$(sim_violations)" = 0 ] || fail "$1: violations" || return 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$1: rmmod" || return 1
	ok "$1"
}

load "lwp_profile=fx8150 pt_profile=full" 1 1 || exit 1
load "lwp_profile=full pt_profile=bdw" 1 1 || exit 1
load "lwp_profile=none pt_profile=full" 0 1 || exit 1
load "lwp_profile=none pt_profile=bdw" 0 1 || exit 1
load "lwp_profile=none pt_profile=tgl" 0 1 || exit 1
load "lwp_profile=fx8150 pt_profile=tgl" 1 1 || exit 1
load "lwp_profile=fx8150 pt_profile=none" 1 0 || exit 1

mark=$(dmesg_mark)
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=none"
rc=$?
[ $rc -eq 19 ] || fail "no LWP, no PT: exit $rc, want 19 (ENODEV)" || exit 1
n=$(dmesg_since "$mark" | lwpt_strip_taint_notes | grep -c 'lwpt')
[ "$n" -eq 1 ] || fail "$n log lines, want 1" || exit 1
dmesg_since "$mark" | grep 'not loading'
ok "lwp_profile=none pt_profile=none -> ENODEV, one line"

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=k10"
rc=$?
[ $rc -eq 22 ] || fail "unknown profile: exit $rc, want 22 (EINVAL)" || exit 1
! module_loaded lwpt_sim || fail "loaded with a bad profile" || exit 1
ok "unknown profile -> EINVAL"
