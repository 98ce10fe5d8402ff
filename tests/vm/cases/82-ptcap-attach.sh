#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 300
# ptcap -p PID and -t TID (issue 16 point 1) on lwpt_sim.ko (pt_profile=full,
# the model writes the packets of the traced threads' execution): attach to
# a running program and to a multi-threaded one (per-thread scope on the
# module's @pid: every thread gets its own tid<N>.pt), keep one thread with
# -t, detach on SIGINT (the program runs on) and when the program exits by
# itself. Every file decodes with ptdump from a PSB; ptflow says the trace
# starts mid-run; no spec violation.
. /lwpt/lib.sh

D=/sys/kernel/debug/lwpt_sim

# cfg DIR KEY: the value of KEY in DIR/config.
cfg() {
	sed -n "s/^$2 //p" "$1/config" | tail -n 1
}

# start_prog ARGS...: ptcap_hello ARGS in the background, its pid in prog;
# wait for its "ready" (every thread runs). No limit of its own (a loaded
# host slows TCG without bound): the case's time limit catches a hang.
start_prog() {
	: >/tmp/prog.out
	ptcap_hello "$@" >/tmp/prog.out &
	prog=$!
	while ! grep -q ready /tmp/prog.out && kill -0 $prog 2>/dev/null; do
		sleep 0.1
	done
	grep -q ready /tmp/prog.out || fail "ptcap_hello $*: not ready"
}

# decodes DIR: every .pt file is non-empty and decodes from a PSB; ptflow
# says first that the trace starts mid-run (attached).
decodes() {
	for f in "$1"/*.pt; do
		[ -s "$f" ] || fail "$f: empty" || return 1
		ptdump "$f" >/tmp/ptdump.out 2>&1 ||
			fail "ptdump $f: $(tail -n 2 /tmp/ptdump.out)" || return 1
		grep -q psb /tmp/ptdump.out || fail "$f: no PSB" || return 1
	done
	ptflow --no-inst "$1" >/tmp/flow.out 2>&1
	head -n 1 /tmp/flow.out | grep -q '^\[trace starts mid-run: ptcap attached to a running process (' ||
		fail "ptflow $1: $(head -n 3 /tmp/flow.out)" || return 1
}

# vcsw TID: the voluntary context switches of thread TID of $prog.
vcsw() {
	sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/$prog/task/$1/status
}

# traced ERRFILE "TIDS": wait until ptcap ($cap, --progress to ERRFILE)
# traces (its first progress line comes from its loop, after START and
# after its SIGINT handler is installed) and each thread of TIDS then did a
# whole round of work (two more voluntary switches: the 20 ms sleeps around
# a round), or ptcap exited. Not a fixed time, which a loaded host may
# stretch beyond any bound. ERRFILE must have been emptied before ptcap
# started (attach_int): a line left by an earlier ptcap would be taken for
# this one's.
traced() {
	local t v n base=
	while ! grep -qs 'buffer(s)' "$1" && kill -0 $cap 2>/dev/null; do
		sleep 0.1
	done
	# Every thread's count first, then the waits: the threads run meanwhile.
	for t in $2; do
		base="$base $t:$(($(vcsw $t) + 2))"
	done
	for t in $base; do
		v=${t#*:} t=${t%:*} n=0
		while [ "$(vcsw $t)" -lt $v ] && kill -0 $cap 2>/dev/null; do
			# Few polls: traced threads on the model leave the shell
			# little CPU, and each poll forks.
			sleep 0.5
			# Once, after a while: what the thread does (diagnosis).
			[ $((n += 1)) -ne 120 ] ||
				echo "note: thread $t: $(grep -E '^(State|voluntary|nonvoluntary)' /proc/$prog/task/$t/status | tr '\n\t' '  ') wchan $(cat /proc/$prog/task/$t/wchan) $(grep -o ' steps=[0-9]*' $D/pt_msrs | tr '\n' ' ')"
		done
	done
}

# The programs do the lighter work (ptcap_hello -s): a traced round of the
# full one took minutes on a loaded host.

# attach_int DIR "TIDS" OPTIONS...: ptcap OPTIONS -o DIR in the background,
# SIGINT once it traced a round of each of TIDS (each must then have a
# non-empty file); its status in rc, stderr in /tmp/att.err.
attach_int() {
	# Local: the caller's own $tids must survive (it did not, once).
	local d=$1 want=$2
	shift 2
	rm -rf "$d"
	# Emptied here, not only by the redirection below: that one runs in
	# the child, maybe after traced's first look, which then found the
	# previous ptcap's "buffer(s)" and sent SIGINT before this ptcap had
	# its handler. A background job of this shell starts with SIGINT
	# ignored (POSIX, no job control), so the signal was lost and ptcap
	# traced until the case was killed (issue 39 item 9).
	: >/tmp/att.err
	ptcap --progress --size=64K -o "$d" "$@" 2>/tmp/att.err &
	cap=$!
	traced /tmp/att.err "$want"
	kill -INT $cap
	wait $cap
	rc=$?
}

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1

# A running single-threaded program; SIGINT detaches, the program runs on.
start_prog -s -l 0 || exit 1
attach_int /tmp/att $prog -p $prog
[ $rc -eq 0 ] || fail "-p $prog: status $rc: $(cat /tmp/att.err)" || exit 1
kill -0 $prog 2>/dev/null || fail "-p: the program did not survive the detach" || exit 1
[ "$(cfg /tmp/att attached)" = "pid=$prog" ] && [ "$(cfg /tmp/att mode)" = per-thread ] &&
	[ "$(ls /tmp/att/*.pt)" = "/tmp/att/tid$prog.pt" ] &&
	grep -q ' /bin/ptcap_hello$' /tmp/att/maps && ! grep -q '^command' /tmp/att/config ||
	fail "-p: $(ls /tmp/att) $(grep -E '^(attached|mode|thread)' /tmp/att/config)" || exit 1
decodes /tmp/att || exit 1
s1=$(ptdump /tmp/att/tid$prog.pt | grep -c 'psb$')
# Attach again: the module let go of it.
attach_int /tmp/att2 $prog -p $prog
[ $rc -eq 0 ] && [ -s /tmp/att2/tid$prog.pt ] || fail "-p again: status $rc: $(cat /tmp/att.err)" || exit 1
kill $prog
wait $prog 2>/dev/null
ok "-p on a running program: tid$prog.pt ($s1 PSB+), it runs on after SIGINT, attached again"

# A multi-threaded program: one file per thread with -p; -t keeps one.
start_prog -s -t -l 0 || exit 1
# Its four threads exist before ptcap attaches (they are created after
# start; no bound of its own: the case's limit on silence catches a hang).
while [ "$(ls /proc/$prog/task 2>/dev/null | wc -l)" -lt 4 ]; do
	kill -0 $prog 2>/dev/null || fail "-p (threads): the program ended" || exit 1
	sleep 0.1
done
tids=$(ls /proc/$prog/task | sort -n)
attach_int /tmp/mt "$tids" -p $prog
[ $rc -eq 0 ] || fail "-p (threads): status $rc: $(cat /tmp/att.err)" || exit 1
n=0
for t in $tids; do
	[ -s /tmp/mt/tid$t.pt ] && grep -q "^thread\.tid$t\.pt tid=$t pid=$prog " /tmp/mt/config ||
		fail "-p (threads): thread $t: $(ls /tmp/mt) $(grep thread /tmp/mt/config)" || exit 1
	n=$((n + 1))
done
[ $n = 4 ] || fail "-p (threads): $n threads, $(ls /tmp/mt)" || exit 1
[ "$(ls /tmp/mt/*.pt | wc -l)" = 4 ] || fail "-p (threads): $(ls /tmp/mt)" || exit 1
decodes /tmp/mt || exit 1
ok "-p on a 4-thread program: one decodable tid<N>.pt per thread"
w=$(ls /tmp/mt | sed -n 's/^tid\([0-9]*\)\.pt$/\1/p' | sort -n | tail -n 1)
attach_int /tmp/one "$w" -t $w
[ $rc -eq 0 ] && [ "$(ls /tmp/one/*.pt)" = "/tmp/one/tid$w.pt" ] &&
	[ "$(cfg /tmp/one attached)" = "tid=$w pid=$prog" ] ||
	fail "-t $w: status $rc $(ls /tmp/one) $(cat /tmp/att.err)" || exit 1
decodes /tmp/one || exit 1
kill $prog
wait $prog 2>/dev/null
ok "-t $w: only that thread's trace"

# The program ends while attached (killed; a zombie until this shell
# reaps it): ptcap ends by itself, saves, status 0. Killed once ptcap
# traced a round of it, not after a fixed time; and ptcap's end is waited
# for without a bound of its own: if it never sees the zombie as gone, the
# case's limit on silence catches it.
start_prog -s -l 0 || exit 1
rm -rf /tmp/ex
ptcap --progress --size=64K -o /tmp/ex -p $prog 2>/tmp/ex.err &
cap=$!
traced /tmp/ex.err $prog
kill $prog
wait $cap
rc=$?
wait $prog 2>/dev/null
[ $rc -eq 0 ] && grep -q "^thread\.tid$prog\.pt tid=$prog pid=$prog buffer=0 exited$" /tmp/ex/config ||
	fail "exit while attached: status $rc: $(cat /tmp/ex.err) $(grep thread /tmp/ex/config)" || exit 1
decodes /tmp/ex || exit 1
ok "-p on a program that ends: ptcap ends with it (the zombie counts as gone), thread marked exited"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no spec violation, module unloads"
