#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 2 point 7: 20 load/unload cycles of lwpt_sim.ko leave nothing
# behind: no device nodes, no sysfs or debugfs entries, module gone, no
# kernel warnings (checked by /init after every case), violation count 0.
. /lwpt/lib.sh

snapshot() {
	ls /dev | sort
	ls /sys/class/misc | sort
	ls /sys/kernel/debug | sort
	ls /sys/module | sort
}

before=$(snapshot)
i=1
while [ $i -le 20 ]; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko >/dev/null || fail "cycle $i: insmod" || exit 1
	[ -c /dev/lwp ] && [ -c /dev/pt ] || fail "cycle $i: no devices" || exit 1
	lwpt_vmtool abi /dev/pt >/dev/null || fail "cycle $i: ABI ioctl" || exit 1
	v=$(sim_violations)
	[ "$v" = 0 ] || fail "cycle $i: violations $v" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "cycle $i: rmmod" || exit 1
	i=$((i + 1))
done
after=$(snapshot)
if [ "$before" != "$after" ]; then
	echo "left behind or removed:"
	echo "$before" > /tmp/before
	echo "$after" > /tmp/after
	diff /tmp/before /tmp/after
	fail "20 cycles changed /dev, /sys/class/misc, debugfs or /sys/module"
	exit 1
fi
! module_loaded lwpt_sim || fail "lwpt_sim still loaded" || exit 1
[ ! -e /sys/kernel/debug/lwpt_sim ] || fail "debugfs lwpt_sim left" || exit 1
[ ! -e /sys/class/misc/lwp ] && [ ! -e /sys/class/misc/pt ] || fail "sysfs left" || exit 1
ok "20 load/unload cycles, nothing left behind"
