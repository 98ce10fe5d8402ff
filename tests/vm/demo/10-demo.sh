#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The lwpt demo on a machine without LWP or PT: what the real module says,
# then the same code on the hardware model.
. /lwpt/lib.sh

echo "== CPU of this VM (QEMU TCG -cpu max):"
grep -m1 'model name' /proc/cpuinfo
echo
echo "== lwpt.ko (real instructions):"
lwpt_vmtool insmod $LWPT_KMOD/lwpt.ko
dmesg | grep 'lwpt: no LWP' | tail -n 1
echo
echo "== lwpt_sim.ko (the same subsystems on the model, lwp_profile=fx8150 pt_profile=full):"
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko || exit 1
dmesg | grep 'lwpt: model:' | tail -n 1
ls -l /dev/lwp /dev/pt
lwpt_vmtool abi /dev/lwp || exit 1
lwpt_vmtool abi /dev/pt || exit 1
for p in /sys/module/lwpt_sim/parameters/*; do
	echo "parameter ${p##*/} = $(cat "$p")"
done
echo "spec violations: $(sim_violations)"
# Tools of other issues show their capabilities here when they exist.
for t in lwpinfo ptinfo; do
	if command -v $t >/dev/null; then
		echo "== $t"
		$t || exit 1
	fi
done
lwpt_vmtool rmmod lwpt_sim || exit 1
[ "$(sim_violations 2>/dev/null || echo 0)" = 0 ]
