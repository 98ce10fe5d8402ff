#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptcap --bts -p PID and -t TID (issue 37): attach to a running program
# through /dev/bts rings (lwpt_sim.ko, bts_profile=nhm). The program
# (pt_flow_long 300 -w) prints "ready" and waits for a byte on stdin;
# ptcap attaches (its tid<N>.bts appears once the capture started), the
# byte goes in, the program runs to its end through a one-page ring and
# ptcap ends with it: the flow ptflow decodes from the first record on
# equals the end of the program's single-stepped ground truth, every
# instruction after its read(2); config says "attached". As uid 1000, -p
# of root's program is refused (EACCES by pt_paranoid 3, EPERM by the
# ptrace rule at 1, each with its own hint) and nothing is
# recorded. No spec violation.
. /lwpt/lib.sh

P="/bin/pt_flow_long 300 -w"
rm -rf /tmp/bts-attach.byte
printf g >/tmp/bts-attach.byte
env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gt_w.txt $P </tmp/bts-attach.byte >/dev/null 2>/tmp/gt.err
[ -s /tmp/bts-attach.byte ] && [ "$(wc -l </tmp/gt_w.txt)" -gt 1000 ] ||
	fail "ground truth of $P: $(cat /tmp/gt.err)" || exit 1
ok "ground truth of $P: $(wc -l </tmp/gt_w.txt) instructions"

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=none bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1

# attach_run OPT: start the program, attach with ptcap --bts OPT <id>, let
# it run, wait for both; the flow in /tmp/att.flow.
attach_run() {
	rm -rf /tmp/att
	start_ready /tmp/prog.out env -i /bin/norandom $P || fail "$P: not ready" || return 1
	ptcap --bts --size=4096 --progress "$1" $prog -o /tmp/att >/tmp/ptcap.out 2>&1 &
	cap=$!
	wait_file /tmp/att/tid$prog.bts $cap || fail "ptcap --bts $1: $(cat /tmp/ptcap.out)" ||
		return 1
	release_ready $cap
	[ $rc -eq 0 ] && grep -qx "attached .*pid=$prog" /tmp/att/config &&
		grep -q "waited for ptcap [1-9]" /tmp/ptcap.out ||
		fail "ptcap --bts $1: status $rc: $(cat /tmp/ptcap.out) $(cat /tmp/att/config)" ||
		return 1
	ptflow --no-inst --no-symbols /tmp/att 2>/tmp/att.err |
		grep -E '^[0-9a-f]{16}$' >/tmp/att.flow
	n=$(wc -l </tmp/att.flow)
	[ "$n" -gt 1000 ] && tail -n "$n" /tmp/gt_w.txt | cmp -s - /tmp/att.flow ||
		fail "ptcap --bts $1: ptflow's $n instructions are not the end of the ground" \
			"truth: $(head -n 3 /tmp/att.err)" || return 1
	ok "ptcap --bts $1: $n instructions after the read = the ground truth's end," \
		"program exit $prc ($(grep waited /tmp/ptcap.out))"
}
attach_run -p || exit 1
attach_run -t || exit 1

# uid 1000 attaching to root's program: refused, nothing recorded; at
# pt_paranoid 3 (the default) by the paranoia (EACCES, the message names
# pt_paranoid), at 1 by the ptrace rule (EPERM, the message says ptrace
# access).
chmod 0666 /dev/bts
for para in 3:"Permission denied":pt_paranoid 1:"Operation not permitted":"ptrace access"; do
	lvl=${para%%:*} rest=${para#*:}
	want=${rest%%:*} hint=${rest#*:}
	echo "$lvl" >/sys/module/lwpt_sim/parameters/pt_paranoid
	rm -rf /tmp/att.u /tmp/go
	mkfifo /tmp/go
	env -i $P </tmp/go >/dev/null &
	prog=$!
	exec 3>/tmp/go
	out=$(cd /tmp && pt_sec as-user /bin/ptcap --bts -p $prog -o /tmp/att.u 2>&1)
	rc=$?
	printf g >&3
	exec 3>&-
	wait $prog
	[ $rc -ne 0 ] && echo "$out" | grep -q "$want" && echo "$out" | grep -q "$hint" &&
		[ ! -e /tmp/att.u/config ] ||
		fail "uid 1000, pt_paranoid $lvl, -p of root's program: status $rc: $out" || exit 1
	ok "uid 1000, pt_paranoid $lvl, -p of root's program: refused ($out)"
done
echo 3 >/sys/module/lwpt_sim/parameters/pt_paranoid

[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no violation, unloaded"
