#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Per-CPU BTS captures as a hostile user (ABI 1.7; Documentation/bts.rst,
# "Per-CPU captures"): with /dev/bts opened to everyone, uid 1000 without
# capabilities is refused a per-CPU capture at every pt_paranoid, -1
# included (EPERM, bad_field CPU: CAP_PERFMON, as a per-CPU /dev/pt
# capture), and kernel branches (EPERM, bad_field FLAGS); its own
# per-thread capture still works at pt_paranoid 1. Bad CPUs (beyond
# nr_cpu_ids, ~0) EINVAL bad_field CPU, a ring per CPU EINVAL bad_field
# FLAGS, as root. The bad-argument and random-ioctl run of bts_test args
# (which covers CONFIGURE_CPU and READ_SWITCHES too) as uid 1000 crashes
# nothing. No spec violation, no kernel warning; the module unloads.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters
D=/sys/kernel/debug/lwpt_sim

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=full bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1
chmod 0666 /dev/bts
as_user() {
	pt_sec as-user "$@"
}
want() {
	[ "$1" = "$2" ] || fail "$3: got $1, want $2" || exit 1
	ok "$3: $2"
}

for p in 3 2 1 0 -1; do
	echo $p >$P/pt_paranoid
	want "$(as_user bts_test cpu-try 0 user 65536)" "EPERM 6" "uid 1000, per-CPU, pt_paranoid $p"
	want "$(as_user bts_test cpu-try 1 all 65536)" "EPERM 2" "uid 1000, per-CPU with kernel, pt_paranoid $p"
done
echo 1 >$P/pt_paranoid
want "$(as_user bts_test try 0 user 65536)" ok "uid 1000, its own thread, pt_paranoid 1"
want "$(bts_test cpu-try 4096 user 65536)" "EINVAL 6" "cpu 4096"
want "$(bts_test cpu-try 0xffffffff user 65536)" "EINVAL 6" "cpu ~0"
want "$(bts_test cpu-try 0 5 65536)" "EINVAL 2" "a ring per CPU"
want "$(bts_test cpu-try 0 user 100)" "EINVAL 4" "buffer 100 bytes"
want "$(bts_test cpu-try 0 user 65536)" "ok" "root"

out=$(as_user bts_test args)
echo "$out"
# As uid 1000 the per-thread captures are allowed (pt_paranoid 1); the
# per-CPU ones are refused, which args expects of an unprivileged caller.
echo "$out" | grep -q "args: 0 failure" || fail "bts_test args as uid 1000" || exit 1
ok "bad arguments and random ioctls as uid 1000: $out"
out=$(bts_test args)
echo "$out" | grep -q "args: 0 failure" || fail "bts_test args as root: $out" || exit 1
ok "bad arguments and random ioctls as root"

echo 3 >$P/pt_paranoid
dmesg | lwpt_bad_kernel_lines && fail "kernel warning" && exit 1
grep -q "debugctl=0x0 ds_area=0x0 " $D/bts_msrs ||
	fail "IA32_DEBUGCTL/IA32_DS_AREA not restored" || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no violation, unloaded"
