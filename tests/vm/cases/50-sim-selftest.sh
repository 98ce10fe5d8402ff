#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The model hardware layer keeps the rules it implements (debugfs
# lwpt_sim/selftest): XCR0[62] and Fn8000_001C_EAX[0] (43724 §3.3),
# clearing XCR0[62] or XRSTOR with XSTATE_BV[62]=0 zeroes LWP_CBADDR
# (§4.1, §8.7.2), the XSAVE round trip, #GP cases counted as violations,
# RTIT MSRs only as enumerated (SDM Table 33-12) — under several profiles.
. /lwpt/lib.sh

for params in "" "lwp_profile=full pt_profile=bdw" \
	"lwp_profile=none pt_profile=full" "lwp_profile=fx8150 pt_profile=none" \
	"lwp_profile=none pt_profile=tgl"; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "$params" >/dev/null ||
		fail "insmod $params" || exit 1
	out=$(cat /sys/kernel/debug/lwpt_sim/selftest)
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
	echo "$out" | grep -v '^ok:'
	echo "$out" | grep -q '^selftest: [1-9][0-9]* passed, 0 failed$' ||
		fail "selftest ${params:-(defaults)}" || exit 1
	ok "selftest ${params:-(defaults)}"
done
