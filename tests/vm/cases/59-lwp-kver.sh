#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel version gate (issue 38 §3, Documentation/lwp.rst): below
# 6.1.79 sigreturn may XRSTOR component 62 from a forged signal frame, so
# /dev/lwp refuses LWP_IOC_ENABLE and says why in one log line; PT works.
# The VM's kernel is above the gate: lwpt_sim.ko's lwp_unsafe_kernel=1
# stands for one below it. Without the parameter ENABLE works again.
. /lwpt/lib.sh

mark=$(dmesg_mark)
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "ud2_marker=1 lwp_unsafe_kernel=1" >/dev/null ||
	fail "insmod" || exit 1
rc=0
lwp_test unsafe || { fail "lwp_test unsafe"; rc=1; }
lwp_test sigill-self
[ $? -ge 128 ] || { fail "LWPINS without ENABLE did not raise SIGILL"; rc=1; }
n=$(dmesg_since "$mark" | grep -c 'LWP: Linux 6\.1\.[0-9]* (lwp_unsafe_kernel=1): sigreturn may XRSTOR XSAVE component 62.*will not enable LWP; PT is unaffected')
[ "$n" = 1 ] || { dmesg_since "$mark" | tail -n 20; fail "$n log lines for the gate, want 1"; rc=1; }
# liblwp: the hardware backend is refused (EOPNOTSUPP), the emulation chosen.
lwpt-info -b hw >/dev/null 2>&1 && { fail "liblwp's hw backend usable below the gate"; rc=1; }
lwpt-info -b emu >/dev/null 2>&1 || { fail "liblwp's emulation below the gate"; rc=1; }
[ -c /dev/pt ] && pt_test caps >/dev/null || { fail "PT with the LWP gate closed"; rc=1; }
[ "$(sim_violations)" = 0 ] || { fail "violations $(sim_violations)"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod"; rc=1; }
mark=$(dmesg_mark)
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko ud2_marker=1 >/dev/null || { fail "insmod"; exit 1; }
lwp_test caps >/dev/null || { fail "lwp_test caps above the gate"; rc=1; }
lwpt-info -b hw >/dev/null 2>&1 || { fail "liblwp's hw backend above the gate"; rc=1; }
! dmesg_since "$mark" | grep -q 'sigreturn may XRSTOR' || { fail "gate log line on 6.1.$(uname -v | sed -n 's/.*Debian 6\.1\.\([0-9]*\).*/\1/p')"; rc=1; }
lwpt_vmtool rmmod lwpt_sim >/dev/null || { fail "rmmod"; rc=1; }
[ $rc = 0 ] && ok "kernel version gate: ENABLE refused below 6.1.79, one log line, PT unaffected"
exit $rc
