#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 900
# ptafl's lost traces on lwpt_sim.ko (issue 26; Documentation/ptafl.rst,
# "Lost traces"), driven by afl-showmap through the fork server: with
# --size=4K the trace of pt_flow_long (filtered to main(): TNT, and a
# TIP.PGD/TIP.PGE pair around every indirect call) does not fit; ptafl says
# so once, counts it (truncated), gives that input an empty map (never a
# partial one) and doubles the buffer until the trace fits; from then on
# the same input gives the same, non-empty map. On pt_profile=bdw (no
# ADDRn ranges) the default filter is refused before the hello with a
# message naming --no-filter; a program that forks (pt_fork_prog) has two
# buffers per run, both decoded; with --no-filter a static program's runs
# are decoded whole (the child's code before its exec is ptafl's, which
# the decoder reads from ptafl) and give non-empty maps.
. /lwpt/lib.sh

command -v afl-showmap >/dev/null || fail "afl-showmap is not in the VM (VM_BINS)" || exit 1
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null || fail "insmod" || exit 1

mkdir -p /tmp/in
for i in 1 2 3 4 5 6 7 8; do echo x >/tmp/in/in$i; done
AFL_DEBUG_CHILD=1 afl-showmap -i /tmp/in -o /tmp/maps -t 60000 -- \
	ptafl --size=4K --filter=main --stats /tmp/st -- /bin/pt_flow_long 3000 >/tmp/sm.log 2>&1 ||
	fail "afl-showmap: $(tail -n 5 /tmp/sm.log)" || exit 1
cat /tmp/st
trunc=$(sed -n 's/^truncated //p' /tmp/st)
enl=$(sed -n 's/^enlarged //p' /tmp/st)
said=$(grep -c 'did not fit' /tmp/sm.log)
[ "${trunc:-0}" -ge 1 ] && [ "$trunc" = "$enl" ] && [ "$said" -eq 1 ] ||
	fail "truncated $trunc, enlarged $enl, said $said times: $(grep ptafl: /tmp/sm.log)" || exit 1
# The truncated inputs' maps are empty, the rest equal and non-empty.
empty=0 full=0 first=
for i in 1 2 3 4 5 6 7 8; do
	if [ -s /tmp/maps/in$i ]; then
		full=$((full + 1))
		[ -z "$first" ] && first=/tmp/maps/in$i
		cmp -s "$first" /tmp/maps/in$i || fail "in$i: another map than $first" || exit 1
	else
		empty=$((empty + 1))
	fi
done
[ "$empty" = "$trunc" ] && [ "$full" -ge 1 ] ||
	fail "$empty empty maps for $trunc truncated traces, $full full" || exit 1
ok "--size=4K: $trunc traces did not fit (said once), their maps empty; then $full equal maps of $(wc -l <"$first") edges at $(sed -n 's/^buffer_size //p' /tmp/st) bytes"

# A run's forked process is followed: two buffers per run, no loss.
mkdir -p /tmp/in2
echo x >/tmp/in2/a
echo y >/tmp/in2/b
AFL_DEBUG_CHILD=1 afl-showmap -i /tmp/in2 -o /tmp/fmaps -t 60000 -- \
	ptafl --stats /tmp/fst -- /bin/pt_fork_prog >/tmp/fork.log 2>&1 ||
	fail "fork: $(tail -n 5 /tmp/fork.log)" || exit 1
runs=$(sed -n 's/^runs //p' /tmp/fst)
bufs=$(sed -n 's/^buffers //p' /tmp/fst)
[ "$bufs" -eq $((2 * runs)) ] && grep -q '^decode_errors 0$' /tmp/fst &&
	grep -q '^untraced 0$' /tmp/fst && [ -s /tmp/fmaps/a ] && cmp -s /tmp/fmaps/a /tmp/fmaps/b ||
	fail "fork: $runs runs, $bufs buffers: $(cat /tmp/fst)" || exit 1
ok "fork: $runs runs, $bufs buffers (parent and child), $(wc -l </tmp/fmaps/a) edges each"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
module_idle lwpt_sim
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=bdw >/dev/null || fail "insmod bdw" || exit 1
AFL_DEBUG_CHILD=1 afl-showmap -i /tmp/in -o /tmp/maps2 -t 60000 -- \
	ptafl -- /bin/pt_flow_long 10 >/tmp/bdw.log 2>&1
grep -q '^ptafl: 1 filter range(s) asked, this processor has 0 (CPUID.(EAX=14H,ECX=1):EAX\[2:0\]): use --no-filter$' /tmp/bdw.log ||
	fail "bdw: $(cat /tmp/bdw.log)" || exit 1
ok "bdw: $(grep '^ptafl:' /tmp/bdw.log)"
mkdir -p /tmp/in3
printf AAAA >/tmp/in3/a
printf LWAA >/tmp/in3/b
AFL_DEBUG_CHILD=1 afl-showmap -i /tmp/in3 -o /tmp/maps3 -t 60000 -- \
	ptafl --no-filter --stats /tmp/st3 -- /bin/ptafl_magic @@ >/tmp/nf.log 2>&1 ||
	fail "bdw --no-filter: $(tail -n 5 /tmp/nf.log)" || exit 1
na=$(wc -l </tmp/maps3/a) nb=$(wc -l </tmp/maps3/b)
grep -q '^decode_errors 0$' /tmp/st3 && [ "$na" -gt 0 ] && [ "$nb" -gt "$na" ] ||
	fail "bdw --no-filter: $na and $nb edges; $(cat /tmp/st3)" || exit 1
ok "bdw --no-filter: 'AAAA' $na edges, 'LWAA' $nb"
module_idle lwpt_sim
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod bdw" || exit 1
