#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 300
# The lwpt demo, Intel PT part: ptcap traces a real program (ptcap_hello)
# on lwpt_sim.ko, whose PT model writes the packets of its execution
# (Documentation/pt-model.rst, "Execution in the kernel"); ptdump prints
# the packets, ptflow (libipt + Capstone) the instructions, then the calls
# and hot spots by function; flow and calls are checked against ptrace
# single-stepping of the same program. Then a per-thread capture in the
# default continuous mode with a tiny buffer: the threads wait for ptcap
# (holds), nothing is lost, both flows equal single-stepping (issue 27).
. /lwpt/lib.sh

echo "== ptcap: Intel PT capture of a program on the model (pt_profile=full)"
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null || exit 1
echo "\$ ptcap --cr3 --mtc=9 --size=16M -o /tmp/hello -- ptcap_hello >/tmp/hello.out"
env -i /bin/taskset -c 0 /bin/ptcap --cr3 --mtc=9 --size=16M -o /tmp/hello -- /bin/ptcap_hello \
	>/tmp/hello.out || exit 1
cat /tmp/hello.out
echo "\$ ls -l /tmp/hello"
ls -l /tmp/hello
echo "\$ cat /tmp/hello/maps"
cat /tmp/hello/maps
echo "\$ ptdump --stats /tmp/hello/cpu0.pt"
ptdump --stats /tmp/hello/cpu0.pt || exit 1
echo "\$ ptdump /tmp/hello/cpu0.pt | head -n 16"
ptdump /tmp/hello/cpu0.pt | head -n 16
echo "\$ ptflow /tmp/hello | head -n 24"
ptflow /tmp/hello >/tmp/ptflow.out 2>&1
rc=$?
head -n 24 /tmp/ptflow.out
echo "(ptflow exit status $rc, $(grep -c -E '^[0-9a-f]{16} ' /tmp/ptflow.out) instructions)"
echo
echo "== The decoded flow against ptrace single-stepping of the same program"
ptflow --no-inst --no-symbols /tmp/hello | grep -E '^[0-9a-f]{16}$' >/tmp/flow.txt
# The same environment and output (a file: stdio buffers it the same way).
env -i /bin/pt_flow_gt -o /tmp/gt.txt /bin/ptcap_hello >/tmp/gt.out 2>/dev/null
if cmp -s /tmp/gt.txt /tmp/flow.txt; then
	echo "identical: $(wc -l </tmp/flow.txt) user-mode instructions"
else
	echo "DIFFERENT: libipt $(wc -l </tmp/flow.txt), single-stepping $(wc -l </tmp/gt.txt)"
	exit 1
fi
echo
echo "== Functions: the call trace and the hot spots (symbols from the ELF, libdwfl)"
echo "\$ ptflow --calls /tmp/hello | grep -A 8 ' call main\$'"
ptflow --calls /tmp/hello >/tmp/calls.out 2>/dev/null || exit 1
grep -A 8 ' call main$' /tmp/calls.out
# Times in ns (issue 24 point 4): lwpt_sim.ko's CPUID.15H gives ptcap the
# TSC frequency, MTC packets time the calls.
grep '^tsc-freq ' /tmp/hello/config || { echo "no tsc-freq in the capture"; exit 1; }
awk '!/^\[/ && $1 > 0 { n++ } END { exit !n }' /tmp/calls.out ||
	{ echo "every call at time 0"; exit 1; }
echo "\$ ptflow --report /tmp/hello | head -n 8"
ptflow --report /tmp/hello 2>/dev/null | head -n 8
# The same calls as single-stepping sees them (ptflow --calls without the
# time and thread columns; Documentation/ptflow.rst, "Call trace").
env -i /bin/pt_flow_gt -c -o /tmp/gt_calls.txt /bin/ptcap_hello >/tmp/gt.out 2>/dev/null
ptflow --calls --no-symbols /tmp/hello 2>/dev/null | grep -v '^\[' | cut -c27- |
	grep -vE '^ *(enabled|disabled|interrupt|gap|overflow)( |$)' >/tmp/calls.txt
if cmp -s /tmp/gt_calls.txt /tmp/calls.txt; then
	echo "call trace identical to single-stepping's: $(grep -c 'call' /tmp/calls.txt) calls"
else
	echo "DIFFERENT call trace: libipt $(wc -l </tmp/calls.txt) lines, single-stepping $(wc -l </tmp/gt_calls.txt)"
	exit 1
fi
echo
echo "== Lossless per thread: an 8 KiB buffer per thread, two threads of 3000 rounds"
echo "\$ ptcap --size=8K --region-size=4K -o /tmp/thr -- pt_flow_threads 3000"
env -i /bin/norandom /bin/ptcap --size=8K --region-size=4K -o /tmp/thr -- \
	/bin/pt_flow_threads 3000 || exit 1
grep -E '^(capture-mode|status|losses)' /tmp/thr/config
env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gt0.txt -T /tmp/gt1.txt \
	/bin/pt_flow_threads 3000 2>/dev/null
for b in 0 1; do
	f=$(awk -v b="buffer=$b" '$1 ~ /^thread\./ { for (i = 2; i <= NF; i++)
		if ($i == b) { sub(/^thread\./, "", $1); print $1 } }' /tmp/thr/config)
	ptflow --no-symbols --no-inst --pt /tmp/thr/$f --elf /bin/pt_flow_threads |
		grep -E '^[0-9a-f]{16}$' >/tmp/flow.txt
	if cmp -s /tmp/gt$b.txt /tmp/flow.txt; then
		echo "$f: identical to single-stepping: $(wc -l </tmp/flow.txt) instructions"
	else
		echo "$f: DIFFERENT: libipt $(wc -l </tmp/flow.txt), single-stepping $(wc -l </tmp/gt$b.txt)"
		exit 1
	fi
done
echo
echo "spec violations: $(sim_violations)"
[ "$(sim_violations)" = 0 ] || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || exit 1
