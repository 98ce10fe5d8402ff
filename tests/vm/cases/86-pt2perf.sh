#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 600
# pt2perf on captures of the model, decoded by Linux perf's own Intel PT
# decoder (issue 24 point 3; Documentation/pt2perf.rst). Debian's perf
# (linux-perf, /usr/bin/perf with its libraries, tests/vm/build.mk) runs in
# the VM. On lwpt_sim.ko (pt_profile=full):
# - a per-thread capture of trace_flow_prog: `perf script --itrace=i0ns`
#   equals ptflow's flow and the ground truth (ptrace single-stepping);
# - a wrap capture (8 KiB with MTC, the trace starts mid-run): perf's flow equals
#   ptflow's, a contiguous tail part of the ground truth;
# - a multi-threaded per-thread capture (ptcap_hello -t, 4 threads): per
#   thread, perf's flow equals ptflow's (pt_flow_gt follows no threads);
# - `ptcap -a -C 0` while two programs, linked apart, run on CPU 0 (as
#   81-ptflow-sys), written by pt2perf as one trace per thread: per process
#   (maps from each process's MMAP2 records), perf's flow equals ptflow's on
#   the directory and on the perf.data, every piece perf decodes is a
#   contiguous part of that program's ground truth, and together they hold
#   more than half of both.
. /lwpt/lib.sh

PERF=$(command -v perf_6.1 || command -v perf)
[ -n "$PERF" ] || { echo "SKIP: perf is not in the VM (install linux-perf on the host)"; exit 0; }
"$PERF" version >/dev/null 2>&1 || fail "perf does not run: $("$PERF" version 2>&1)" || exit 1

# "<tid> <16-digit address>" per instruction, from perf and from ptflow.
perf_flow() { # DATA [FIELD]
	"$PERF" script -i "$1" --itrace=i0ns -F "${2:-tid},ip" 2>/tmp/perf.err |
		awk '{ s = $2; while (length(s) < 16) s = "0" s; print $1, s }'
}
ptflow_flow() { # DIR
	ptflow --no-inst --no-symbols "$1" 2>/dev/null | awk '
		/^\[trace tid[0-9]+\.pt\]/ { t = $2; sub(/^tid/, "", t); sub(/\.pt\]$/, "", t) }
		/^[0-9a-f]+$/ && length($0) == 16 { print t, $0 }'
}
to_perf() { # DIR DATA
	pt2perf "$1" -o "$2" >/tmp/p2p.out 2>&1 ||
		fail "pt2perf $1: $(cat /tmp/p2p.out)" || return 1
}
same() { # NAME A B
	cmp -s "$2" "$3" && return 0
	echo "first difference (ptflow | perf):"
	diff "$2" "$3" | head -n 10
	fail "$1: perf's flow ($(wc -l <"$3")) differs from ptflow's ($(wc -l <"$2")): $(head -n 3 /tmp/perf.err)"
}

pt_flow_ground_truth || exit 1
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1

# Per thread, the whole program, with MTC (times from the model's TSC).
pt_flow_capture full thread --size=8M --mtc=9 || exit 1
pt_flow_same full thread /tmp/gt.txt || exit 1
to_perf /tmp/exec /tmp/exec.data || exit 1
perf_flow /tmp/exec.data >/tmp/perf.txt
cut -d' ' -f2 /tmp/perf.txt | cmp -s - /tmp/gt.txt ||
	{ cut -d' ' -f2 /tmp/perf.txt >/tmp/perf_ip.txt; same "per thread" /tmp/gt.txt /tmp/perf_ip.txt; exit 1; }
ok "per thread: perf script's $(wc -l </tmp/perf.txt) instructions = ptflow's = single-stepping's"
"$PERF" script -i /tmp/exec.data --itrace=cr >/tmp/cr.txt 2>/tmp/perf.err &&
	grep -q 'main' /tmp/cr.txt || fail "perf script --itrace=cr: $(head -n 3 /tmp/perf.err)" || exit 1
"$PERF" report -i /tmp/exec.data --itrace=i --stdio >/tmp/rep.txt 2>/tmp/perf.err &&
	grep -q 'trace_flow_prog' /tmp/rep.txt || fail "perf report: $(head -n 3 /tmp/perf.err)" || exit 1
"$PERF" inject -i /tmp/exec.data -o /tmp/inj.data 2>/tmp/perf.err ||
	fail "perf inject: $(head -n 3 /tmp/perf.err)" || exit 1
ok "perf script --itrace=cr ($(grep -c . /tmp/cr.txt) calls and returns), perf report, perf inject"

# Wrap mode: the newest 8 KiB, starting mid-run.
pt_flow_capture full wrap --size=8K --mode=wrap --mtc=3 || exit 1
grep -q '^outcome\.tid[0-9]*\.pt wrapped' /tmp/exec/config ||
	fail "wrap: the buffer did not wrap: $(grep outcome /tmp/exec/config)" || exit 1
pt_flow_sub /tmp/gt.txt /tmp/flow.txt >/tmp/sub.out ||
	fail "wrap: ptflow's flow is not part of the ground truth: $(cat /tmp/sub.out)" || exit 1
to_perf /tmp/exec /tmp/wrap.data || exit 1
perf_flow /tmp/wrap.data | cut -d' ' -f2 >/tmp/perf_ip.txt
same wrap /tmp/flow.txt /tmp/perf_ip.txt || exit 1
ok "wrap: perf's $(wc -l </tmp/perf_ip.txt) instructions = ptflow's, the ground truth $(cat /tmp/sub.out)"

# Threads: one trace file each.
rm -rf /tmp/thr
with_progress ptcap --size=4M -o /tmp/thr -- ptcap_hello -s -t 5 >/tmp/thr.out 2>&1
[ "$(ls /tmp/thr/tid*.pt | wc -l)" = 4 ] ||
	fail "threads: $(ls /tmp/thr): $(cat /tmp/thr.out)" || exit 1
ptflow_flow /tmp/thr | sort -s -k1,1 >/tmp/ptflow.txt
to_perf /tmp/thr /tmp/thr.data || exit 1
perf_flow /tmp/thr.data | sort -s -k1,1 >/tmp/perf.txt
same threads /tmp/ptflow.txt /tmp/perf.txt || exit 1
[ "$(cut -d' ' -f1 /tmp/perf.txt | uniq | wc -l)" = 4 ] ||
	fail "threads: perf shows $(cut -d' ' -f1 /tmp/perf.txt | uniq | wc -l) threads" || exit 1
ok "4 threads: per thread, perf's flow = ptflow's ($(wc -l </tmp/perf.txt) instructions)"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1

# System-wide: two processes on CPU 0, as in 81-ptflow-sys.sh.
taskset -p -c 1 $$ >/dev/null || fail "taskset -p -c 1 $$" || exit 1
# trace_flow_prog and pt_flow_long linked at 0x10000000 and 0x20000000
# (tests/vm/build.mk: a misattributed piece must not decode as the other's).
A=/bin/pt_sys_a
B="/bin/pt_sys_b 200"
pt_flow_gt_of /tmp/gt_a.txt $A || exit 1
pt_flow_gt_of /tmp/gt_b.txt $B || exit 1
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1
pt_sys_two "$A" "$B" || exit 1
to_perf /tmp/sys /tmp/sys.data || exit 1
cat /tmp/p2p.out
# pt2perf writes a ptcap -a capture as one trace per thread (the spans
# between TIP.PGE and TIP.PGD that ptflow gives to a thread; pt2perf.rst
# "Per-CPU captures"), so perf names each piece's thread exactly: per
# process, perf's flow must equal ptflow's, on the directory and on the
# perf.data, and every piece must be a contiguous part of the program's
# ground truth.
grep -q 'one trace per thread' /tmp/p2p.out ||
	fail "pt2perf did not write one trace per thread: $(cat /tmp/p2p.out)" || exit 1
# talking CMD...: run CMD, saying something every 60 s (the VM's /init
# kills a case silent for its limit; TCG on a loaded host is slow).
talking() {
	"$@" &
	tk_pid=$!
	tk_n=0
	while kill -0 $tk_pid 2>/dev/null; do
		sleep 1
		tk_n=$((tk_n + 1))
		[ $((tk_n % 60)) -eq 0 ] && echo "note: $1 still running after $tk_n s"
	done
	wait $tk_pid
}
# perf gets 900 s (it normally takes well under a minute): a run that goes
# on ends the case with its input, for the host. (With A and B both at
# 0x401000 a piece of A decoded as B's code once reached abort()'s
# hlt/jmp loop, where perf never stops with --itrace=i: 1 run in 5, and
# the CI run of stop 30 until CI's own limit. They are linked apart now.)
perf_pieces() {
	{ timeout 900 "$PERF" script -i /tmp/sys.data --itrace=bi0ns -F pid,event,flags,ip 2>/tmp/perf.err
	  echo $? >/tmp/perf.rc; } |
		awk '$1 != last { n++; last = $1 } /tr strt/ { n++; next }
			/instructions/ { s = $NF; while (length(s) < 16) s = "0" s; print $1, n, s }' \
		>/tmp/perf_sys.txt
}
# dump: the capture, perf.data and ground truths, for the host.
dump() { echo "CAPTURE-TAR-BEGIN"; tar czf - -C /tmp sys sys.data gt_a.txt gt_b.txt | base64; echo "CAPTURE-TAR-END"; }
talking perf_pieces
if [ "$(cat /tmp/perf.rc)" -ge 124 ]; then
	fail "perf script on the -a capture: status $(cat /tmp/perf.rc) (killed after 900 s?), $(wc -l </tmp/perf_sys.txt) lines: $(tail -n 3 /tmp/perf.err)"
	ls -la /tmp/sys /tmp/sys.data
	dump
	exit 1
fi
# check NAME PID GT: perf's pieces of process PID (cut where a trace
# starts and where the thread changes) that are contiguous parts of its
# ground truth GT (good), and the others. Sets good, other.
check() {
	rm -f /tmp/piece.*
	awk -v p="$2" '$1 == p { print $3 > ("/tmp/piece." $2) }' /tmp/perf_sys.txt
	good=0 other=0 pieces=0 k=0
	for f in $(ls /tmp/piece.* 2>/dev/null | sort -t. -k2 -n); do
		n=$(wc -l <"$f")
		k=$((k + 1))
		[ $((k % 50)) -eq 0 ] && echo "note: $1: $k pieces checked"
		if pt_flow_sub "$3" "$f" >/dev/null; then
			good=$((good + n))
			pieces=$((pieces + 1))
		else
			other=$((other + n))
		fi
	done
	echo "$1 (pid $2): perf: $good of $(wc -l <"$3") instructions in $pieces piece(s) equal to parts of the ground truth, $other others"
}
# Every instruction perf shows for A or B must be part of that program's
# ground truth, and both together hold more than half of it (ptflow
# leaves the spans whose switch lies inside their time bounds undecoded;
# 85-92 % of A and B together were kept in four runs).
check A $pa /tmp/gt_a.txt
good_a=$good other_a=$other
check B $pb /tmp/gt_b.txt
good_b=$good other_b=$other
n_gt=$(($(wc -l </tmp/gt_a.txt) + $(wc -l </tmp/gt_b.txt)))
[ $other_a = 0 ] && [ $other_b = 0 ] ||
	{ fail "perf decoded $other_a of A's and $other_b of B's instructions as code the program did not run"; dump; exit 1; }
[ $good_a -ge 200 ] && [ $good_b -ge 200 ] && [ $((2 * (good_a + good_b))) -gt $n_gt ] ||
	{ fail "perf decoded $good_a of A's and $good_b of B's instructions as parts of their ground truth (of $n_gt)"; dump; exit 1; }
ok "A and B: $((good_a + good_b)) of $n_gt instructions in pieces equal to parts of their ground truth, none elsewhere"
# Per process: perf = ptflow on the directory = ptflow on the perf.data.
sys_flow() { # ptflow's output -> "<pid> <ip>" lines
	awk '/^\[thread / { split($2, a, "/"); p = a[1] }
		/^[0-9a-f]+$/ && length($0) == 16 { print p, $0 }'
}
ptflow --no-inst --no-symbols /tmp/sys 2>/dev/null | sys_flow >/tmp/sys_dir.txt
ptflow --no-inst --no-symbols /tmp/sys.data 2>/dev/null | sys_flow >/tmp/sys_rt.txt
awk '{ print $1, $3 }' /tmp/perf_sys.txt >/tmp/sys_perf.txt
for p in $pa $pb; do
	grep "^$p " /tmp/sys_dir.txt >/tmp/sys_dir.$p
	grep "^$p " /tmp/sys_perf.txt >/tmp/sys_perf.$p
	grep "^$p " /tmp/sys_rt.txt >/tmp/sys_rt.$p
	same "pid $p (perf)" /tmp/sys_dir.$p /tmp/sys_perf.$p || { dump; exit 1; }
	same "pid $p (ptflow on the perf.data)" /tmp/sys_dir.$p /tmp/sys_rt.$p || { dump; exit 1; }
done
ok "A and B: perf's flow per process = ptflow's on the directory = ptflow's on the perf.data ($(wc -l </tmp/sys_dir.$pa) and $(wc -l </tmp/sys_dir.$pb) instructions)"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no spec violation, module unloads"
