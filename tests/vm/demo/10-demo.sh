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
echo
echo "== CPUID of the model (debugfs lwpt_sim/cpuid):"
cat /sys/kernel/debug/lwpt_sim/cpuid
reg() {	# reg LEAF.SUB REG -> value of that register in the dump
	sed -n "s/.* $1: .*$2=\([0-9a-f]*\).*/0x\1/p" /sys/kernel/debug/lwpt_sim/cpuid
}
ebx=$(reg 8000001c.00 ebx); ecx=$(reg 8000001c.00 ecx); edx=$(reg 8000001c.00 edx)
echo "LWP (43724 Table 3-1): LwpCbSize $((ebx & 0xff)) qwords," \
	"LwpEventSize $(((ebx >> 8) & 0xff)), LwpMaxEvents $(((ebx >> 16) & 0xff))," \
	"LwpEventOffset $(((ebx >> 24) & 0xff)), LwpVersion $(((ecx >> 9) & 0x7f))," \
	"LwpMinBufferSize $(((ecx >> 16) & 0xff)), supported EDX=$edx"
b=$(reg 00000014.00 ebx); c=$(reg 00000014.00 ecx); a1=$(reg 00000014.01 eax)
echo "PT (SDM Table 33-11): CR3Filter $((b & 1)) PSB/CYC $(((b >> 1) & 1))" \
	"IPFilter $(((b >> 2) & 1)) MTC $(((b >> 3) & 1)) PTWRITE $(((b >> 4) & 1))" \
	"PwrEvt $(((b >> 5) & 1)) ToPA $((c & 1)) MENTRY $(((c >> 1) & 1))" \
	"SingleRange $(((c >> 2) & 1)) AddrRanges $((a1 & 7))"
echo
echo "spec violations: $(sim_violations)"
# The tools' view, when they are built (they ask the module and the
# libraries; they do not decode CPUID again). QEMU TCG runs XOP as POP
# instead of raising #UD: with ud2_marker=1 liblwp's hardware backend puts
# UD2 before each LWP instruction so that it reaches the module
# (Documentation/liblwp.rst). lwpt-jitdemo: a JIT with LWPVAL on a divisor
# and LWPINS markers, on the hardware backend; its value-profile histogram.
echo 1 > /sys/module/lwpt_sim/parameters/ud2_marker
for t in lwpt-info lwpt-jitdemo; do
	if command -v $t >/dev/null; then
		echo
		echo "== $t"
		$t
		echo "($t exit status $?)"
	fi
done
lwpt_vmtool rmmod lwpt_sim || exit 1
[ "$(sim_violations 2>/dev/null || echo 0)" = 0 ]
