#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A thread with LWP that enters a KVM guest (issue 28 §1, 43724 §8.2.2):
# the VM has no KVM, so lwpt_sim.ko's lwp_kvm_run models the entry - the
# driver's kvm_entry hook, then a guest whose XCR0 equals the host's, which
# 6.1's kvm_load_guest_xsave_state() does not switch. The driver takes LWP
# away first: no spec violation (the guest saw no XCR0[62]), the thread's
# next LWP instruction raises SIGILL, one log line names it. With the
# Family 15h switches off and on (lib.sh lwp_switches). Then a thread with
# LWP loads KVM's vendor module (issue 38 §5).
. /lwpt/lib.sh

mark=$(dmesg_mark)
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko ud2_marker=1 >/dev/null || fail "insmod" || exit 1
rc=0
for sw in $LWP_SWITCH_RUNS; do
	lwp_switches "$sw" || { fail "switches $sw"; rc=1; }
	lwp_test kvm || { fail "lwp_test kvm (switches $sw)"; rc=1; }
done
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations): a guest ran with the thread's LWP state"; rc=1; }
dmesg_since "$mark" | grep -q 'LWP: lwp_test\[[0-9]*\] enters a KVM guest.*: LWP taken away' ||
	{ dmesg_since "$mark" | tail -n 20; fail "no log line for the guest entry"; rc=1; }
# KVM's vendor module reads host_xcr0 in its loader's init (issue 38 §5):
# a thread with LWP that loads kvm-amd.ko (the VM's kernel's; its init may
# fail without SVM, after the module notifier ran) loses LWP first. kvm.ko
# loads first, so the driver's kvm_entry probe is on for real too.
if [ -f /lwpt/kvm/kvm-amd.ko ]; then
	for m in irqbypass kvm ccp; do
		lwpt_vmtool insmod /lwpt/kvm/$m.ko >/dev/null || { fail "insmod $m.ko"; rc=1; }
	done
	mark=$(dmesg_mark)
	lwp_test kvmvendor /lwpt/kvm/kvm-amd.ko || { fail "lwp_test kvmvendor"; rc=1; }
	dmesg_since "$mark" | grep -q 'LWP: lwp_test\[[0-9]*\] enters a KVM guest (or loads KVM): LWP taken away' ||
		{ dmesg_since "$mark" | tail -n 20; fail "no log line for the vendor module's loader"; rc=1; }
	for m in kvm_amd ccp kvm irqbypass; do
		grep -q "^$m " /proc/modules && lwpt_vmtool rmmod $m >/dev/null
	done
else
	echo "skip: no kvm-amd.ko of the VM's kernel"
fi
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod"; rc=1; }
[ $rc = 0 ] && ok "KVM guest entry and vendor module load: LWP taken away from the thread"
exit $rc
