#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Trace buffers are charged (issue 13 points 3 and 5; Documentation/pt.rst,
# "Memory"): as uid 1000 (pt_sec memlock) with RLIMIT_MEMLOCK 0 a capture
# over the pt_mlock_kb allowance is refused (ENOMEM, rule memlock), one
# within it works; with RLIMIT_MEMLOCK 8 MiB the pages beyond the allowance
# show as the caller's VmPin and go back after close; a child forked after
# the mmap cannot read the buffer (VM_DONTCOPY); CONFIGURE while mapped is
# EBUSY. The model's debugfs pt_msrs is 0400. No spec violation.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko >/dev/null || fail "insmod" || exit 1
chmod 0666 /dev/pt
echo 2 >$P/pt_paranoid
out=$(pt_sec memlock)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "pt_sec memlock" || exit 1
echo 3 >$P/pt_paranoid
# The model's register file shows physical addresses: root only.
m=$(stat -c %a /sys/kernel/debug/lwpt_sim/pt_msrs)
[ "$m" = 400 ] || fail "debugfs pt_msrs mode $m, want 400" || exit 1
ok "debugfs pt_msrs (physical addresses) is mode 400"
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "memory charged and given back; no spec violation, module unloads"
