#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 900
# Issue 39 item 3: a reader that waits on its tracee. pt_hold_limit
# captures itself per thread in continuous mode (follow-forks, 8 KiB
# buffers) and system()s a busy command (pt_flow_long, single-stepped by
# lwpt_sim.ko's follower: far more trace than 8 KiB) while it reads
# nothing. The command is held for its reader, which waits for it: before
# the hold limit, both waited for good. With the default limit
# (lwpt_pt_config.hold_limit_ms 0 -> 1000 ms, written back) the command
# is held once for the limit, runs on with its buffer stalled at the
# gate: system() returns, the command's buffers count holds, hold timeouts
# and the loss. The same with a limit of 50 ms. ptcap --hold-limit: refused
# out of range, accepted in range.
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null || fail "insmod" || exit 1
for ms in 0 50; do
	/bin/pt_hold_limit $ms '/bin/pt_flow_long 3000 >/dev/null; exit 0' >/tmp/hl.out 2>&1
	rc=$?
	[ $rc -eq 0 ] || { cat /tmp/hl.out; fail "limit $ms: status $rc"; exit 1; }
	ok "limit $ms: $(grep '^hold limit' /tmp/hl.out); $(tail -n 1 /tmp/hl.out)"
done
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1

/bin/ptcap -o /tmp/hlc --hold-limit=0 -- /bin/true >/tmp/hlc.out 2>&1 &&
	fail "ptcap --hold-limit=0 accepted" && exit 1
grep -q 'hold-limit' /tmp/hlc.out || fail "ptcap --hold-limit=0: $(cat /tmp/hlc.out)" || exit 1
for v in 250 none; do
	rm -rf /tmp/hlc
	/bin/ptcap -o /tmp/hlc --hold-limit=$v -- /bin/pt_flow_long 300 >/tmp/hlc.out 2>&1
	grep -q '^command-status exit=' /tmp/hlc/config && grep -qx 'losses 0' /tmp/hlc/config ||
		fail "ptcap --hold-limit=$v: $(cat /tmp/hlc.out)" || exit 1
done
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "ptcap --hold-limit: 0 refused, 250 and none accepted"
