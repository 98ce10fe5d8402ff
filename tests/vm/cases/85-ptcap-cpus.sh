#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 400
# The CPU selection of a per-CPU capture (lwpt_pt_config size version 2,
# ABI 1.3; Documentation/pt.rst "CPU selection", ptcap.rst "-C"):
#  - raw ioctls (pt_cpus): only the selected CPU is CONFIGURED and TRACING,
#    the others have no status flag, buffer, mmap or sideband; an old
#    (160-byte) configuration still means every CPU; each refusal with its
#    errno and bad_field; as uid 1000 a huge size, bad and kernel pointers
#    and bits past nr_cpus are refused (EINVAL, EFAULT), never a crash;
#  - a selected CPU that is offline: ENODEV, and ptcap says which;
#  - ptcap -a -C 0: only cpu0.pt, switch records of CPU 0 only, config
#    "cpus 0" and the model's CPUID.15H (from GET_CAPS, not the VM's);
#    ptdump and ptflow decode it; bad lists are usage errors.
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1
[ "$(nproc)" -ge 2 ] || fail "the case needs 2 CPUs, the VM has $(nproc)" || exit 1

run() { # WHAT ARGS...: pt_cpus ARGS, every line ok
	what=$1
	shift
	out=$(pt_cpus "$@")
	rc=$?
	echo "$out"
	[ $rc -eq 0 ] || fail "$what: pt_cpus $*: status $rc" || exit 1
	ok "$what"
}
run "selection: only CPU 0 configured and traced; old size means all" select
run "refusals with errno and bad_field" refuse
chmod 0666 /dev/pt
run "uid 1000: hostile selections refused" hostile
chmod 0600 /dev/pt

# An offline CPU: ENODEV from the module; ptcap names the CPU first.
echo 0 >/sys/devices/system/cpu/cpu1/online || fail "offline CPU 1" || exit 1
run "CPU 1 offline: ENODEV" offline 1
msg=$(ptcap -a -C 1 -d 1 -o /tmp/off 2>&1)
rc=$?
echo 1 >/sys/devices/system/cpu/cpu1/online || fail "online CPU 1" || exit 1
[ $rc -eq 1 ] && echo "$msg" | grep -q '^ptcap: -C 1: CPU 1 is offline (online: 0)' ||
	fail "ptcap -C 1 with CPU 1 offline: status $rc: $msg" || exit 1
ok "ptcap -C 1, CPU 1 offline: $msg"

# Usage errors against the CPUs the module has.
msg=$(ptcap -a -C 0,7 -d 1 -o /tmp/none 2>&1)
[ $? -eq 2 ] && echo "$msg" | grep -q "^ptcap: -C 0,7: CPU '7' does not exist: CPUs are 0-1 here" ||
	fail "ptcap -C 0,7: $msg" || exit 1
ok "ptcap -C 0,7: $msg"

# ptcap -a -C 0 while a program runs on CPU 0, ptcap and this shell on CPU 1.
taskset -p -c 1 $$ >/dev/null || fail "taskset -p -c 1 $$" || exit 1
rm -rf /tmp/c0
: >/tmp/c0.err
taskset -c 1 ptcap --progress -a -C 0 -o /tmp/c0 >/tmp/c0.out 2>/tmp/c0.err &
cap=$!
# Its first progress line comes from its loop, after START: the switches
# file is created before START (issue 39 item 9).
while ! grep -qs 'buffer(s)' /tmp/c0.err && kill -0 $cap 2>/dev/null; do
	sleep 0.1
done
grep -qs 'buffer(s)' /tmp/c0.err || fail "ptcap -a -C 0 did not start: $(cat /tmp/c0.err)" || exit 1
taskset -c 0 /bin/trace_flow_prog >/dev/null 2>&1
kill -INT $cap
wait $cap
rc=$?
cat /tmp/c0.err
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "ptcap -a -C 0: status $rc" || exit 1
files=$(cd /tmp/c0 && ls *.pt | tr '\n' ' ')
[ "$files" = "cpu0.pt " ] || fail "ptcap -a -C 0 wrote $files" || exit 1
[ -s /tmp/c0/cpu0.pt ] || fail "cpu0.pt is empty" || exit 1
grep -qx 'cpus 0' /tmp/c0/config || fail "config: no 'cpus 0'" || exit 1
grep -q '^switches.cpu1' /tmp/c0/config && fail "config: switches of CPU 1" && exit 1
awk '!/^#/ && !/^lwpt/ && $2 != 0 { bad++ } END { exit bad > 0 }' /tmp/c0/switches ||
	fail "switch records of another CPU: $(awk '!/^#/ && $2 != 0' /tmp/c0/switches | head -n 3)" ||
	exit 1
# The model's CPUID.15H (kmod/sim/sim.h), reported by the module.
grep -qx 'cpuid-0x15.eax 2' /tmp/c0/config && grep -qx 'cpuid-0x15.ebx 334' /tmp/c0/config ||
	fail "config: the model's CPUID.15H: $(grep cpuid /tmp/c0/config)" || exit 1
ok "ptcap -a -C 0: $files($(wc -c </tmp/c0/cpu0.pt) bytes), cpus 0, CPUID.15H 2/334 from the module"
ptdump /tmp/c0/cpu0.pt >/tmp/c0.dump 2>&1 || fail "ptdump cpu0.pt: $(tail -n 2 /tmp/c0.dump)" ||
	exit 1
grep -q psb /tmp/c0.dump || fail "cpu0.pt: no PSB" || exit 1
ptflow --no-symbols /tmp/c0 >/tmp/c0.flow 2>&1
rc=$?
[ $rc -le 1 ] || fail "ptflow: status $rc: $(tail -n 3 /tmp/c0.flow)" || exit 1
ok "ptdump and ptflow decode the -C 0 capture (ptflow status $rc)"
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
ok "no spec violation"
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
exit 0
