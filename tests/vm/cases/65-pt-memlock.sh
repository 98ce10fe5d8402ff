#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Trace buffers are charged (issue 13 points 3 and 5; Documentation/pt.rst,
# "Memory"): as uid 1000 (pt_sec memlock) with RLIMIT_MEMLOCK 0 a capture
# over the pt_mlock_kb allowance is refused (ENOMEM, rule memlock), one
# within it works; with RLIMIT_MEMLOCK 8 MiB the pages beyond the allowance
# show as the caller's VmPin and go back after close; a child forked after
# the mmap cannot read the buffer (VM_DONTCOPY); CONFIGURE while mapped is
# EBUSY. ptcap's default buffer size, as uid 1000, fits what it may pin
# (reduced and said, or refused with what to do); root keeps 4 MiB. The
# model's debugfs pt_msrs is 0400. No spec violation.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko >/dev/null || fail "insmod" || exit 1
chmod 0666 /dev/pt
echo 2 >$P/pt_paranoid
out=$(pt_sec memlock)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "pt_sec memlock" || exit 1

# ptcap's default buffer size fits what the caller may pin, as perf record's
# does (2 CPUs: allowance 1032 KiB; one thread + 8 spares); said on stderr.
mkdir -p /tmp/ucap && chmod 0777 /tmp/ucap
ucap() {
	lim=$1
	shift
	(ulimit -l "$lim" && pt_sec as-user ptcap "$@") 2>&1 >/dev/null
}
for c in "0 64" "8192 512"; do
	set -- $c
	m=$(ucap $1 -o /tmp/ucap/l$1 -- /bin/true)
	rc=$?
	{ [ $rc -eq 0 ] || [ $rc -eq 3 ]; } &&
		echo "$m" | grep -q "^ptcap: default buffer size reduced from 4096 KiB to $2 KiB: 9 buffers (1 thread + 8 spares) must fit in the [0-9]* KiB you may pin" &&
		grep -q "^buffer-size $(($2 * 1024))\$" /tmp/ucap/l$1/config ||
		fail "ptcap, RLIMIT_MEMLOCK $1 KiB: status $rc: $m" || exit 1
	ok "ptcap as uid 1000, RLIMIT_MEMLOCK $1 KiB: default $2 KiB per buffer, said"
done
echo 0 >$P/pt_mlock_kb
m=$(ucap 0 -o /tmp/ucap/none -- /bin/true)
rc=$?
echo 516 >$P/pt_mlock_kb
[ $rc -eq 1 ] &&
	echo "$m" | grep -q "do not fit in what you may pin: 9 buffers (1 thread + 8 spares) of 4 KiB need 72 KiB, you may pin 0 KiB more" &&
	echo "$m" | grep -q "ulimit -l" && [ ! -e /tmp/ucap/none/config ] ||
	fail "ptcap, nothing may be pinned: status $rc: $m" || exit 1
ok "ptcap when not one page per buffer fits: $m"
m=$(ptcap -o /tmp/ucap/root -- /bin/true 2>&1 >/dev/null)
rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 3 ]; } && ! echo "$m" | grep -q reduced &&
	grep -q '^buffer-size 4194304$' /tmp/ucap/root/config ||
	fail "ptcap as root (CAP_IPC_LOCK): status $rc: $m" || exit 1
ok "ptcap as root (CAP_IPC_LOCK): the 4 MiB default"
echo 3 >$P/pt_paranoid
# The model's register file shows physical addresses: root only.
m=$(stat -c %a /sys/kernel/debug/lwpt_sim/pt_msrs)
[ "$m" = 400 ] || fail "debugfs pt_msrs mode $m, want 400" || exit 1
ok "debugfs pt_msrs (physical addresses) is mode 400"
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "memory charged and given back; no spec violation, module unloads"
