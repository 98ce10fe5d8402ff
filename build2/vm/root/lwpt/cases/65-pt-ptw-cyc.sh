#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 480
# PTW and CYC packets from real execution (issue 17 point 6;
# Documentation/pt-model.rst). QEMU's TCG raises #UD on PTWRITE; the
# simulated CPU (profile full) enumerates it, so lwpt_sim.ko executes it
# (sim_ptwrite.c) and its follower hands the operand to the PT model.
#  - pt_ptwrite executes PTWRITE r64/r32/m64/m32 and prints the values it
#    wrote: with the module loaded it runs to its end (without it: #UD);
#  - ptcap --ptw (and --fup-on-ptw): libipt's flow (ptflow) equals the
#    ptrace ground truth, and its ptwrite events are exactly the program's
#    values, each right after its PTWRITE instruction (SDM 33.4.2.21);
#  - ptcap --cyc=0: the flow equals the ground truth, and libipt's
#    cycle-accurate time (TSC + CYC, core clock = TSC: --nom-freq = CBR)
#    never goes back and changes at least once per two CYC packets.
# Profile bdw (no PTWRITE): PTWRITE stays #UD.
. /lwpt/lib.sh

PROG=/bin/pt_ptwrite
# The Core:Bus ratio of the model's CBR packets (kmod/sim/sim.h).
CBR=40

pt_ptwrite probe >/tmp/probe.out 2>&1
[ "$(cat /tmp/probe.out)" = "ptwrite: #UD" ] ||
	fail "without lwpt_sim.ko, PTWRITE: $(cat /tmp/probe.out) (expected #UD)" || exit 1

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1
env -i /bin/norandom $PROG >/tmp/ptw_want.txt
want_rc=$?
[ "$(wc -l </tmp/ptw_want.txt)" = 72 ] ||
	fail "pt_ptwrite (exit $want_rc) printed $(wc -l </tmp/ptw_want.txt) values, want 72" || exit 1
ok "PTWRITE executes on the simulated CPU ($(wc -l </tmp/ptw_want.txt) values, exit $want_rc)"
awk '{ print $1, $3 }' /tmp/ptw_want.txt >/tmp/ptw_want_iv.txt

env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gt.txt $PROG >/dev/null 2>/tmp/gt.err
[ $? = $want_rc ] || fail "pt_flow_gt: $(cat /tmp/gt.err)" || exit 1
n_gt=$(wc -l </tmp/gt.txt)
ok "ground truth: $n_gt instructions by ptrace single-stepping"

# ptw_capture NAME OPTIONS...: capture the program on CPU 0, flow in
# /tmp/flow.txt, ptflow's whole output in /tmp/flow.out.
ptw_capture() {
	name=$1
	shift
	rm -rf /tmp/exec
	env -i /bin/norandom /bin/taskset -c 0 /bin/ptcap -o /tmp/exec --cr3 --size=4M "$@" \
		-- $PROG >/tmp/ptcap.out 2>/tmp/ptcap.err
	# ptcap's status is its own (ptcap(1) EXIT STATUS); the program's is in config.
	[ $? = 0 ] || fail "$name: ptcap: $(cat /tmp/ptcap.err)" || return 1
	grep -qx "command-status exit=$want_rc" /tmp/exec/config ||
		fail "$name: config: no command-status exit=$want_rc" || return 1
	cmp -s /tmp/ptcap.out /tmp/ptw_want.txt ||
		fail "$name: the traced program printed other values" || return 1
	ptflow --no-symbols --no-inst --time --nom-freq $CBR /tmp/exec >/tmp/flow.out 2>&1
	grep -E '^\[resync' /tmp/flow.out | head -n 5
	sed -n 's/^[0-9a-f]\{16\}  \([0-9a-f]\{16\}\)$/\1/p' /tmp/flow.out >/tmp/flow.txt
	cmp -s /tmp/gt.txt /tmp/flow.txt && return 0
	diff /tmp/gt.txt /tmp/flow.txt | head -n 10
	fail "$name: libipt flow ($(wc -l </tmp/flow.txt)) differs from the ground truth ($n_gt)"
}

# ptw_events NAME: libipt's ptwrite events with the instruction before
# each must be the program's (IP, value) list.
ptw_events() {
	awk '/^\[ptwrite: / { v = $2; sub(/\]/, "", v); print ip, v } { ip = $2 }' \
		/tmp/flow.out >/tmp/ptw_got.txt
	cmp -s /tmp/ptw_want_iv.txt /tmp/ptw_got.txt && return 0
	diff /tmp/ptw_want_iv.txt /tmp/ptw_got.txt | head -n 10
	fail "$1: libipt's ptwrite events differ from the values written"
}

# ptw_packets NAME IP: 36 PTW with 8 payload bytes (PayloadBytes 01b:
# ptdump "ptw 1:"), 36 with 4, all with IP=IP (0 or 1: ", ip").
ptw_packets() {
	ptdump /tmp/exec/cpu0.pt | grep '  ptw ' >/tmp/ptw_pkts.txt
	n8=$(grep -c 'ptw *1: ' /tmp/ptw_pkts.txt)
	n4=$(grep -c 'ptw *0: ' /tmp/ptw_pkts.txt)
	nip=$(grep -c ', ip$' /tmp/ptw_pkts.txt)
	[ "$n8" = 36 ] && [ "$n4" = 36 ] && [ "$nip" = $((72 * $2)) ] && return 0
	fail "$1: PTW packets: $n8 of 8 bytes, $n4 of 4, $nip with IP=1"
}

ptw_capture ptw --ptw || exit 1
ptw_events ptw || exit 1
ptw_packets ptw 0 || exit 1
ok "--ptw: flow = ground truth, 72 PTW packets (36 of 8 bytes) = the values written"

ptw_capture fup-on-ptw --ptw --fup-on-ptw || exit 1
ptw_events fup-on-ptw || exit 1
ptw_packets fup-on-ptw 1 || exit 1
ok "--ptw --fup-on-ptw: flow = ground truth, PTW.IP=1 and libipt binds each to its FUP's PTWRITE"

ptw_capture cyc --cyc=0 || exit 1
n_cyc=$(ptdump --stats /tmp/exec/cpu0.pt | awk '$1 == "cyc" { print $2 }')
[ "${n_cyc:-0}" -gt 100 ] || fail "cyc: ${n_cyc:-0} CYC packets" || exit 1
# Column 1 of --time: libipt's time at each instruction.
sed -n 's/^\([0-9a-f]\{16\}\)  [0-9a-f]\{16\}$/\1/p' /tmp/flow.out >/tmp/times.txt
sort -c /tmp/times.txt || fail "cyc: libipt's time goes back" || exit 1
n_times=$(uniq </tmp/times.txt | wc -l)
[ $((2 * n_times)) -ge "$n_cyc" ] ||
	fail "cyc: libipt's time changed $n_times times for $n_cyc CYC packets" || exit 1
ok "--cyc=0: flow = ground truth, $n_cyc CYC packets, libipt's time rises $n_times times"

ptw_capture cyc-thresh --cyc=5 --ptw || exit 1
ptw_events cyc-thresh || exit 1
n_cyc5=$(ptdump --stats /tmp/exec/cpu0.pt | awk '$1 == "cyc" { print $2 }')
ok "--cyc=5 --ptw: flow = ground truth, ptwrite events right, ${n_cyc5:-0} CYC packets"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=bdw >/dev/null ||
	fail "insmod bdw" || exit 1
pt_ptwrite probe >/tmp/probe.out 2>&1
lwpt_vmtool rmmod lwpt_sim >/dev/null
[ "$(cat /tmp/probe.out)" = "ptwrite: #UD" ] ||
	fail "bdw: PTWRITE: $(cat /tmp/probe.out) (no PTWRITE in CPUID: #UD)" || exit 1
ok "bdw (CPUID.(14H,0):EBX[4]=0): PTWRITE raises #UD"
