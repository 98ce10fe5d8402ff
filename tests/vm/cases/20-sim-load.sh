#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt_sim.ko (default profiles lwp_profile=fx8150, pt_profile=full) loads,
# creates /dev/lwp and /dev/pt, answers the ABI-version ioctl on both,
# rejects unknown ioctls with ENOTTY, and unloads cleanly.
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko || fail "insmod lwpt_sim.ko" || exit 1
module_loaded lwpt_sim || fail "lwpt_sim not in /proc/modules" || exit 1
dmesg | grep 'lwpt: model:' | tail -n 1

for d in lwp pt; do
	[ -c /dev/$d ] || fail "/dev/$d is not a character device" || exit 1
	grep -q "^ *[0-9]* $d\$" /proc/misc || fail "$d not in /proc/misc" || exit 1
	lwpt_vmtool abi /dev/$d || fail "ABI ioctl on /dev/$d" || exit 1
	lwpt_vmtool unknown-ioctl /dev/$d || fail "unknown ioctl on /dev/$d" || exit 1
done
ls -l /dev/lwp /dev/pt
[ "$(stat -c %a /dev/lwp)" = 666 ] || fail "/dev/lwp mode $(stat -c %a /dev/lwp), want 666" || exit 1
[ "$(stat -c %a /dev/pt)" = 600 ] || fail "/dev/pt mode $(stat -c %a /dev/pt), want 600" || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1

lwpt_vmtool rmmod lwpt_sim || fail "rmmod lwpt_sim" || exit 1
! module_loaded lwpt_sim || fail "lwpt_sim still loaded" || exit 1
[ ! -e /dev/lwp ] && [ ! -e /dev/pt ] || fail "device nodes left behind" || exit 1
ok "load, devices, ioctls, unload"
