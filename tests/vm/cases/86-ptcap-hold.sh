#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 1500
# Issue 27 section 1: lossless per-thread continuous capture (Documentation/
# pt.rst, "Continuous mode: the hold"). The traced thread waits in the
# kernel for its reader before its buffer can fill; --lossy keeps the old
# behaviour (it runs on, the losses are counted).
#  - pt_test thread-restart: START after STOP, three runs, every byte taken
#    (the second START once kept the first run's ToPA STOP);
#  - pt_test thread-hold: held before the buffer fills, RELEASE lets it go
#    on, SIGSTOP/SIGCONT work while held, SIGKILL ends it; LOSSY never holds;
#  - the configuration: ptcap --mode=continuous --size=8K
#    --region-size=4K (one 8 KiB region on bdw, MENTRY=0) of pt_flow_threads
#    (two threads): ptcap exits 0, nothing lost, each thread's flow decoded
#    by libipt equals ptrace single-stepping (pt_flow_gt -T) exactly. In CI
#    a subset: 8000 rounds (over 4 buffers per thread; the 20+ take
#    minutes per capture under TCG), pt_nmi_first_acker=1 pt_pmi_skid=256 on
#    full and bdw; tests/vm/slow/86-ptcap-hold-matrix.sh runs 20+ buffers
#    under every acker 0/1/2 x skid 0/256/64K x profile, and --lossy.
#    No spec violation, no PMI lost.
#  - a per-CPU capture cannot hold a CPU: continuous --cr3 on bdw (one 4 KiB
#    region) stops at every lap, each a counted loss and a cut; the raw
#    cpu0.pt alone (without the config's gaps), read by libipt (ptflow
#    --pt), decodes without error and in ground-truth order, because ptcap
#    wrote an OVF and PADs at each cut (tools/ptcap/gapmark.c).
HOLD_ROUNDS=8000 HOLD_BUFFERS=4
. /lwpt/lib.sh

for prof in full bdw; do
	tag=$prof
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof pt_exec=0" >/dev/null ||
		fail "insmod $tag" || exit 1
	pt_test_run thread-restart || exit 1
	pt_test_run thread-hold || exit 1
	[ "$(sim_violations)" = 0 ] || fail "$tag: violations $(sim_violations)" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$tag: rmmod" || exit 1
done

hold_flow_gt || exit 1
for combo in full:1:256 bdw:1:256; do
	hold_flow_case "$combo" || exit 1
done

# The raw file alone at per-CPU cuts.
env -i /bin/norandom /bin/pt_flow_gt /bin/pt_flow_long 3000 >/tmp/gtl.txt 2>/dev/null
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=bdw >/dev/null || fail "insmod bdw" || exit 1
rm -rf /tmp/pcpu
env -i /bin/norandom /bin/taskset -c 0 /bin/ptcap -o /tmp/pcpu --cr3 --mode=continuous \
	--size=4K -- /bin/pt_flow_long 3000 >/tmp/ptcap.out 2>&1
rc=$?
gaps=$(sed -n 's/^gaps\.cpu0\.pt //p' /tmp/pcpu/config)
lost=$(sed -n 's/^status\.cpu0\.pt .* lost=\([0-9]*\) .*/\1/p' /tmp/pcpu/config)
[ $rc -eq 3 ] && [ -n "$gaps" ] && [ "${lost:-0}" -ge 1 ] ||
	fail "per CPU bdw: status $rc, lost $lost, gaps '$gaps': $(cat /tmp/ptcap.out)" || exit 1
cp /tmp/pcpu/cpu0.pt /tmp/raw.pt
ovf=$(ptdump /tmp/raw.pt 2>/dev/null | grep -cw ovf)
ptflow --no-symbols --no-inst --pt /tmp/raw.pt --elf /bin/pt_flow_long >/tmp/flow.out 2>&1
grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
! grep -q '^\[error' /tmp/flow.out ||
	fail "raw cpu0.pt: decode error: $(grep '^\[error' /tmp/flow.out | head -n 3)" || exit 1
in_order_of /tmp/gtl.txt || fail "raw cpu0.pt: the flow is not in ground-truth order" || exit 1
# One OVF per cut with bytes after it: a cut at the file's end (the last
# lap's STOP, the program ended before the trace restarted: seen at load 9)
# has nothing after it to mark (ptcap_gap_mark()).
size=$(wc -c </tmp/raw.pt)
inner=0
for g in $gaps; do
	[ "$g" -lt "$size" ] && inner=$((inner + 1))
done
[ "$ovf" -ge "$inner" ] || fail "raw cpu0.pt: $ovf OVF for gaps '$gaps' in $size bytes" || exit 1
[ "$(sim_violations)" = 0 ] || fail "per CPU: violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "per CPU bdw: $lost loss(es), $(echo $gaps | wc -w) cut(s) each an OVF in the raw file; libipt alone decodes $(wc -l </tmp/flow.txt) instructions in ground-truth order, no error"
