#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 300
# /dev/bts ring captures (ABI 1.7; Documentation/bts.rst, "Ring
# captures"): a child runs the workload many times through an 8 KiB ring
# (about 30 times its size), drained by a reader that waits in poll(2) for
# the threshold interrupt; the records, decoded, equal ptrace
# single-stepping of the same run: nothing lost. Run with the model's
# threshold PMI skid at 3 branches and at 60 (the kernel's margin on an
# 8 KiB ring is 85 records), with PT's ToPA PMI consumer registered beside
# BTS's (pt_profile=full) and perf's NMI handler after lwpt's (the
# default). A reader asleep in poll(2) is woken by the switch that
# publishes the head (ring-wake); a held thread takes signals and is held
# again (ring-sig); the model stored every record (bts_lost=0); the hold
# limit lets a reader that waits for its child return (ring-limit). Every
# PMI claimed (debugfs pmi: unknown=0), no spec violation, DEBUGCTL and
# DS_AREA back to 0, the module unloads.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters
D=/sys/kernel/debug/lwpt_sim

# The model's records not stored (buffer full), every CPU.
lost() { awk -F'bts_lost=' '{ split($2, a, " "); n += a[1] } END { print n + 0 }' $D/bts_msrs; }

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=full bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1

for skid in 3 60; do
	echo $skid >$P/bts_pmi_skid
	out=$(bts_test ring 8192 30)
	rc=$?
	echo "$out"
	if [ $rc -ne 0 ]; then
		cat $D/bts_msrs $D/pmi
		echo "violations $(sim_violations)"
		dmesg | tail -20
	fi
	[ $rc -eq 0 ] || fail "ring, skid $skid: $(exit_str $rc): $out" || exit 1
	ok "ring, skid $skid: $out (lost so far: $(lost))"
done
# The wake of a switch: a child runs the workload once through a 64 KiB
# ring (no threshold interrupt), then blocks on a pipe the reader writes
# only after poll(2) reported its records: the unload as it blocks
# publishes the head and must wake the reader, asleep in poll(2) before
# the child ran (bts_test's hang guard: 60 s).
out=$(bts_test ring-wake 65536)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { dmesg | tail -20; fail "ring-wake: $(exit_str $rc): $out"; exit 1; }
ok "ring-wake: $out (lost so far: $(lost))"
# Signals during the hold: a child held for room (nothing consumed) is
# stopped by SIGSTOP, held again after SIGCONT, takes a SIGUSR1 and is held
# again before its handler; drained, it runs on.
out=$(bts_test ring-sig)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { dmesg | tail -20; fail "ring-sig: $(exit_str $rc): $out"; exit 1; }
ok "ring-sig: $out"
grep -q "bts_lost=[1-9]" $D/bts_msrs && { cat $D/bts_msrs; fail "records lost"; exit 1; }
ok "no record lost (bts_lost=0 on every CPU)"
# The hold limit (ABI 1.9): a reader that waits for its child without
# consuming returns (the child held 100 ms, then run on: records lost,
# HOLD_TIMEOUT); a CONSUME after it brings the holds back.
out=$(bts_test ring-limit 100)
rc=$?
echo "$out"
[ $rc -eq 0 ] || { dmesg | tail -20; fail "ring-limit: $(exit_str $rc): $out"; exit 1; }
ok "ring-limit: $(echo "$out" | tr '\n' ' ')"
grep . $D/pmi
grep -q "unknown=[1-9]" $D/pmi && { fail "an NMI nobody claimed"; exit 1; }
ok "every PMI claimed"
grep -q "debugctl=0x0 ds_area=0x0 " $D/bts_msrs ||
	fail "IA32_DEBUGCTL/IA32_DS_AREA not restored" || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "DEBUGCTL and DS_AREA back to 0, no violation, unloaded"
