#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 600
# ptflow's views on real captures (issue 15; Documentation/ptflow.rst):
# lwpt_sim.ko traces trace_flow_prog (static; calls, indirect calls,
# recursion deeper than the RET-compression stack, system calls) with
# ptcap --cr3, and
#
# - `ptflow --calls` equals the call trace derived from ptrace
#   single-stepping (`pt_flow_gt -c`: every call and return, same order,
#   same depth), with the default configuration and with MTC timing;
# - `ptflow --report` self counts equal the single-step counts per
#   function (the flow's addresses equal the ground truth's, named by the
#   program's symbols);
# - a stripped program (busybox) shows addresses without names for its
#   own code, with a note;
# - lwpt-jitdemo's generated function, announced in a jitdump, is decoded
#   and named in the call trace; its libc and vdso code is named.
. /lwpt/lib.sh

pt_flow_ground_truth || exit 1
env -i /bin/norandom /bin/pt_flow_gt -c -o /tmp/gt_calls.txt $PT_FLOW_PROG >/dev/null 2>&1
n_calls=$(grep -c 'call' /tmp/gt_calls.txt)
[ "$n_calls" -gt 100 ] || fail "call ground truth: $n_calls calls" || exit 1
ok "call ground truth: $(wc -l </tmp/gt_calls.txt) lines, $n_calls calls"

prof=full
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof" >/dev/null ||
	fail "insmod pt_profile=$prof" || exit 1

# --calls without time and thread columns (12 + 2 + 10 + 2 characters);
# lines single-stepping cannot see (enabled, interrupt) left out.
calls_check() { # NAME
	ptflow --calls --no-symbols /tmp/exec >/tmp/calls.out 2>/tmp/calls.err ||
		fail "$1: ptflow --calls: $(tail -n 3 /tmp/calls.err)" || return 1
	grep -v "^\[" /tmp/calls.out | cut -c27- |
		grep -vE '^ *(enabled|disabled|interrupt|gap|overflow)( |$)' >/tmp/calls.txt
	cmp -s /tmp/gt_calls.txt /tmp/calls.txt && return 0
	diff /tmp/gt_calls.txt /tmp/calls.txt | head -n 20
	fail "$1: --calls differs from single-stepping"
}

pt_flow_capture $prof default --cr3 --size=4M || exit 1
pt_flow_same $prof default /tmp/gt.txt || exit 1
calls_check default || exit 1
ok "--calls = single-stepping's call trace ($(wc -l </tmp/calls.txt) lines)"
ptflow --calls /tmp/exec | sed -n '1,12p'

# --report: self instructions per function = the ground truth's count of
# addresses in that function.
ptflow --no-inst /tmp/exec | grep -E '^[0-9a-f]{16}' >/tmp/named.txt
cut -c1-16 /tmp/named.txt | cmp -s - /tmp/gt.txt ||
	fail "named flow differs from the ground truth" || exit 1
sed -E 's/^[0-9a-f]{16} <([^>+]*)(\+0x[0-9a-f]+)?>.*/\1/;t;s/.*/[unknown in trace_flow_prog]/' \
	/tmp/named.txt | sort | uniq -c |
	awk '{ n = $1; $1 = ""; print substr($0, 2) "=" n }' | sort >/tmp/gt_count.txt
ptflow --report /tmp/exec >/tmp/report.out 2>/tmp/report.err ||
	fail "ptflow --report: $(cat /tmp/report.err)" || exit 1
# Without timing packets between instructions the rows have 4 numbers.
if sed -n 2p /tmp/report.out | grep -qE 'self-(ns|ticks)'; then cols=6; else cols=4; fi
# One table per trace file (cpu0.pt; cpu1.pt holds no user code of the
# program), then the total when there are several: the last table.
awk -v c=$cols '/^\[report / { delete row; k = 0; skip = 2 }
	skip { skip--; next }
	{ n = $1; for (i = 1; i <= c; i++) $i = ""; sub(/^ +/, ""); row[k++] = $0 "=" n }
	END { for (i = 0; i < k; i++) print row[i] }' /tmp/report.out |
	sort >/tmp/rep_count.txt
cmp -s /tmp/gt_count.txt /tmp/rep_count.txt ||
	{ diff /tmp/gt_count.txt /tmp/rep_count.txt | head; false; } ||
	fail "--report counts differ from single-stepping" || exit 1
ok "--report: $(($(wc -l </tmp/rep_count.txt))) functions, counts = single-stepping"
head -n 8 /tmp/report.out

# With MTC (SDM 33.8.3): times advance; the call trace is the same.
pt_flow_capture $prof mtc --cr3 --size=16M --mtc=9 || exit 1
if grep -q '^status.cpu0.pt .* wraps=0 ' /tmp/exec/config; then
	calls_check mtc || exit 1
	# Per trace file (thread): time never goes back.
	awk '/^\[trace / { last = 0; next } { if ($1 + 0 < last) bad = 1; last = $1 + 0 }
		END { exit bad }' /tmp/calls.out ||
		fail "mtc: --calls time goes back" || exit 1
	ok "--mtc=9: --calls = single-stepping, time from 0 to $(grep -v '^\[' /tmp/calls.out | tail -n 1 | awk '{print $1}') ns"
fi
# Times in nanoseconds (issue 24 point 4): lwpt_sim.ko's CPUID.15H:ECX makes
# ECX * EBX / EAX the kernel's TSC frequency, ptcap writes it as tsc-freq;
# ptflow's last call time is the trace's TSC span converted with it.
hz=$(sed -n 's/^tsc-freq //p' /tmp/exec/config)
[ -n "$hz" ] && [ "$hz" -gt 100000000 ] ||
	fail "no tsc-freq in a capture on the model: $(grep -E '^cpuid|^tsc' /tmp/exec/config)" || exit 1
ptflow --calls /tmp/exec 2>/dev/null | grep -v '^\[' | awk '{ print $1 }' | sort -n | tail -n 1 >/tmp/last_ns
# --time: libipt's TSC at each instruction, 16 hex digits.
ptflow --time --no-inst --no-symbols /tmp/exec 2>/dev/null |
	awk '/^[0-9a-f]{16}  [0-9a-f]{16}$/ { print $1 }' >/tmp/tsc.txt
first=$((0x$(head -n 1 /tmp/tsc.txt))); last=$((0x$(tail -n 1 /tmp/tsc.txt)))
want=$(awk -v a="$first" -v b="$last" -v hz="$hz" 'BEGIN { printf "%d", (b - a) * 1e9 / hz }')
got=$(cat /tmp/last_ns)
# The calls span most of the instructions' time (origin: the first timing
# packet, at most a little before the first instruction).
awk -v g="$got" -v w="$want" 'BEGIN { exit !(g > 0 && g >= w / 4 && g <= w * 1.01 + 1000) }' ||
	fail "--calls times: last $got ns, TSC span $first..$last at $hz Hz is $want ns" || exit 1
ok "tsc-freq $hz Hz: --calls times in ns (last $got, TSC span $want ns)"

# The lwpt engine (issue 34): the views and --time on this capture with
# TSC equal libipt's byte for byte, none of it left to libipt.
engines_same() { # NAME DIR OPTIONS...
	n=$1 d=$2
	shift 2
	ptflow --engine=libipt "$@" "$d" >/tmp/ea.out 2>/dev/null
	ea=$?
	ptflow --engine=lwpt "$@" "$d" >/tmp/eb.out 2>/tmp/eb.err
	eb=$?
	if grep -q 'decoded with libipt' /tmp/eb.err; then
		fail "$n: --engine=lwpt $*: $(grep 'decoded with libipt' /tmp/eb.err)"
		return 1
	fi
	[ "$ea" = "$eb" ] && cmp -s /tmp/ea.out /tmp/eb.out && return 0
	diff /tmp/ea.out /tmp/eb.out | head -n 10
	fail "$n: --engine=lwpt $* differs from libipt (exit $ea/$eb)"
}
for o in --calls --report "--time --no-inst" --no-inst; do
	# shellcheck disable=SC2086 # one argument per word
	engines_same exec /tmp/exec $o || exit 1
done
engines_same exec /tmp/exec --export=chrome /tmp/chrome.b || exit 1
mv /tmp/chrome.b /tmp/chrome.lwpt
ptflow --export=chrome /tmp/chrome.b /tmp/exec >/dev/null 2>&1
cmp -s /tmp/chrome.b /tmp/chrome.lwpt || fail "exec: --export=chrome JSON differs between the engines" || exit 1
ok "--engine=lwpt: --calls, --report, --time, --no-inst, --export=chrome equal libipt's"

# A stripped static program using the vdso: names only where symbols are.
rm -rf /tmp/bb
env -i /bin/taskset -c 0 /bin/ptcap --cr3 --size=8M -o /tmp/bb -- /bin/busybox date \
	>/tmp/bb.out 2>&1 || fail "ptcap busybox date: $(cat /tmp/bb.out)" || exit 1
grep -q 'vdso.so' /tmp/bb/maps || fail "no vdso in maps: $(cat /tmp/bb/maps)" || exit 1
ptflow --calls /tmp/bb >/tmp/bbc.out 2>/tmp/bbc.err
grep -q 'busybox has no symbol table (stripped)' /tmp/bbc.err ||
	fail "no stripped note: $(cat /tmp/bbc.err)" || exit 1
# Its own code has no names: every named instruction is outside busybox.
ptflow --no-inst /tmp/bb 2>/dev/null | grep -E '^[0-9a-f]{16} <' >/tmp/bbn.txt
bb_end=$(awk '$4 ~ /busybox$/ { e = $2 } END { print e }' /tmp/bb/maps)
awk -v e="$bb_end" 'BEGIN { e = e + 0 } { if (("0x" $1) + 0 < e) bad++ } END { exit bad }' \
	/tmp/bbn.txt 2>/dev/null ||
	fail "names inside the stripped busybox: $(head -n 2 /tmp/bbn.txt)" || exit 1
ok "busybox date: stripped, $(grep -c '' /tmp/bbn.txt) named instructions all outside it"
engines_same busybox /tmp/bb --calls || exit 1
ok "busybox date: --engine=lwpt --calls equals libipt's"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1

# JIT code (issue 15 point 6): lwpt-jitdemo announces its generated
# function in a jitdump mapped PROT_EXEC (perf's convention), which ptcap's
# maps record; ptflow decodes the code from the dump and names it. The LWP
# instructions run on lwpt_sim.ko's UD2 marker (QEMU decodes XOP as POP:
# without LWP the emulation backend's XOP would run as POP and crash).
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof lwp_profile=full ud2_marker=1" \
	>/dev/null || fail "insmod with LWP" || exit 1
rm -rf /tmp/jit /tmp/jit-*.dump /tmp/perf-*.map
env -i /bin/taskset -c 0 /bin/ptcap --cr3 --size=16M -o /tmp/jit -- \
	/bin/lwpt-jitdemo -n 50 >/tmp/jit.out 2>&1 ||
	fail "ptcap lwpt-jitdemo: $(cat /tmp/jit.out)" || exit 1
grep -q '/jit-[0-9]*\.dump$' /tmp/jit/maps ||
	fail "no jitdump in maps: $(cat /tmp/jit/maps)" || exit 1
ptflow --calls /tmp/jit >/tmp/jitc.out 2>/tmp/jitc.err
grep -E 'lwpt_jit_divsum' /tmp/jitc.out | head -n 3
grep -qE ' call lwpt_jit_divsum$' /tmp/jitc.out &&
	grep -qE ' return lwpt_jit_divsum$' /tmp/jitc.out ||
	fail "JIT function not in the call trace: $(grep -c resync /tmp/jitc.out) resyncs, $(head -n 3 /tmp/jitc.err)" || exit 1
ptflow /tmp/jit | grep -m 2 '<lwpt_jit_divsum'
ok "lwpt-jitdemo: the JIT function is decoded and named (jitdump)"
# Shared libraries and the vdso: glibc's clock_gettime (the jitdump's time
# stamps) calls the vdso's, saved by ptcap as vdso.so.
grep -q ' vdso\.so$' /tmp/jit/maps || fail "no vdso in maps" || exit 1
ptflow --no-inst /tmp/jit 2>/dev/null >/tmp/jitf.txt
grep -m 1 -E '<(__vdso_clock_gettime|clock_gettime)(\+0x[0-9a-f]+)?>' /tmp/jitf.txt
grep -m 1 -E '<malloc(@@[A-Z_0-9.]+)?(\+0x[0-9a-f]+)?>' /tmp/jitf.txt
grep -qE '<(__vdso_clock_gettime|clock_gettime)(\+0x[0-9a-f]+)?>' /tmp/jitf.txt &&
	grep -qE '<malloc(@@[A-Z_0-9.]+)?(\+0x[0-9a-f]+)?>' /tmp/jitf.txt ||
	fail "no vdso or libc symbols in lwpt-jitdemo's flow" || exit 1
ok "lwpt-jitdemo: libc and vdso code named"
engines_same jit /tmp/jit --calls || exit 1
engines_same jit /tmp/jit --report || exit 1
ok "lwpt-jitdemo: --engine=lwpt --calls, --report equal libipt's"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no spec violation, module unloads"
