#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 300
# ptcap (tools/ptcap, libpt's capture API include/lwpt/pt.h) on lwpt_sim.ko
# under both PT profiles (issue 8 points 1, 4): error messages; a command's
# capture writes a complete directory (Documentation/ptcap-format.rst);
# system-wide wrap/stop/continuous captures save exactly the bytes the
# model's output logic stored, oldest first after a wrap (SDM 33.2.7.2);
# ptdump and ptflow run on every file without crashing; no spec violation.
# Sideband (issue 6 point 8, issue 8 point 4): the switches file of a -a
# capture while two processes ping-pong on CPU 0 (sb_check below).
#
# A command's capture holds the packets the model writes from its execution
# (pt_exec=1, the default): they must decode with ptdump without error and
# start with a PSB. The system-wide captures check bytes stored with
# pt_inject, with packets from execution off (pt_exec=0).
. /lwpt/lib.sh

D=/sys/kernel/debug/lwpt_sim

# Without the module: the message says what to do.
msg=$(ptcap -a -d 1 -o /tmp/none 2>&1)
[ $? -ne 0 ] && echo "$msg" | grep -q 'no /dev/pt: load lwpt.ko (or lwpt_sim.ko)' ||
	fail "no module: '$msg'" || exit 1
ok "no module: $msg"

# cfg DIR KEY: the value of KEY in DIR/config.
cfg() {
	sed -n "s/^$2 //p" "$1/config" | tail -n 1
}

# complete DIR: config, maps, at least one .pt; decoders do not crash.
complete() {
	head -n 1 "$1/config" | grep -qx 'lwpt-ptcap-config 1' || fail "$1/config magic" || return 1
	head -n 1 "$1/maps" | grep -qx 'lwpt-ptcap-maps 1' || fail "$1/maps magic" || return 1
	[ -n "$(cfg "$1" mtc-freq)" ] && [ -n "$(cfg "$1" mode)" ] &&
		[ -n "$(cfg "$1" capture-flags)" ] && [ -n "$(cfg "$1" buffer-size)" ] ||
		fail "$1/config: mtc-freq, mode, capture-flags, buffer-size" || return 1
	# cpu: CPUID.1 family/model/stepping, written for Intel CPUs only.
	if grep -q GenuineIntel /proc/cpuinfo; then
		[ -n "$(cfg "$1" cpu)" ] || fail "$1/config: cpu" || return 1
	fi
	n=0
	for f in "$1"/*.pt; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		ptdump "$f" >/tmp/ptdump.out 2>&1
		rc=$?
		[ $rc -lt 128 ] || fail "ptdump $f crashed ($rc)" || return 1
		if [ -s "$f" ] && ! ptcap_pattern "$f" >/dev/null; then
			# Real packets: they must decode, starting with PSB+.
			[ $rc -eq 0 ] || fail "ptdump $f: $(tail -n 2 /tmp/ptdump.out)" || return 1
			grep -q psb /tmp/ptdump.out || fail "$f: no PSB" || return 1
		fi
	done
	[ $n -gt 0 ] || fail "$1: no .pt file" || return 1
	ptflow --no-symbols "$1" >/tmp/ptflow.out 2>&1
	rc=$?
	# 0 or 1 (decode errors); 2 would be a directory ptflow refuses.
	[ $rc -le 1 ] || fail "ptflow $1: status $rc: $(tail -n 3 /tmp/ptflow.out)" || return 1
	return 0
}

# sb_check DIR A B ROUNDS: DIR/switches (ptcap-format.rst) of a capture
# during which processes A and B ping-ponged ROUNDS times on CPU 0: magic
# line; per CPU the TSC never goes back and each switch's prev is the
# previous switch's next (no record lost), or 0/0 without prev-idle (a task
# reaped before its last switch out, below; it never runs again on that
# CPU); on CPU 0 the switches into A or B alternate at least 2 * ROUNDS - 1
# times; and every TSC packet of cpu0.pt (SDM 33.4.2.11; the model writes them in PSB+ at a traced
# user-mode instruction) lies after a switch into a user thread and before
# the next switch, at least one in A's or B's time. Prints a summary.
sb_check() {
	ptdump "$1/cpu0.pt" 2>/dev/null | awk '$2 == "tsc" { print "T", $3 }' >/tmp/sb.tsc
	awk -v a="$2" -v b="$3" -v rounds="$4" '
	function hex(s,   i, v) {
		v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	BEGIN { ns = 0; nt = 0; nsw = 0; alt = 0; checked = 0; inab = 0; before = 0; bad = 0 }
	FNR == 1 && FILENAME ~ /switches$/ {
		if ($0 != "lwpt-ptcap-switches 1") { print "magic: " $0; bad = 1 }
		next
	}
	/^#/ { next }
	$1 == "T" { t[nt++] = hex($2); next }
	{
		tsc = $1 + 0; cpu = $2; split($3, p, "/"); split($4, q, "/")
		if ((cpu in last) && tsc < last[cpu]) {
			print "cpu " cpu ": TSC goes back: " $0; bad = 1
		}
		# An exiting task switches out for the last time in do_task_dead(),
		# after exit_notify(): a thread, a child of a parent that ignores
		# SIGCHLD (autoreap) or one its parent reaped meanwhile on another
		# CPU has no pid any more (release_task() -> detach_pid()), and
		# task_pid_nr_ns() gives 0: the module records prev 0/0 without
		# prev-idle (ptcap-format.rst: 0/0 is also a task not visible).
		# The slower the VM, the likelier the parent reaps it first.
		gone = $3 == "0/0" && $0 !~ / prev-idle/
		if ((cpu in cur) && p[2] != cur[cpu] && !(gone && cur[cpu] != 0)) {
			print "cpu " cpu ": prev " $3 " but " cur[cpu] " ran: " $0; bad = 1
		}
		if ((cpu, q[2]) in dead) {
			print "cpu " cpu ": " q[2] " runs after its last switch out: " $0; bad = 1
		}
		if (gone && cur[cpu] != 0)
			dead[cpu, cur[cpu]] = 1
		last[cpu] = tsc; cur[cpu] = q[2]; nsw++
		if (cpu != 0)
			next
		s[ns] = tsc; who[ns] = q[2]; user[ns] = $0 !~ /next-(idle|kthread)/; ns++
		if ((q[2] == a || q[2] == b) && q[2] != ab) { alt++; ab = q[2] }
	}
	END {
		j = -1
		for (i = 0; i < nt; i++) {
			while (j + 1 < ns && s[j + 1] <= t[i])
				j++
			if (j < 0) { before++; continue }	# START, before any switch
			checked++
			if (!user[j]) {
				print "TSC packet " t[i] " after a switch to " who[j] " (idle/kernel)"; bad = 1
			}
			if (who[j] == a || who[j] == b)
				inab++
		}
		if (alt < 2 * rounds - 1) {
			print "cpu 0: switches into " a " and " b " alternate " alt " times"; bad = 1
		}
		if (!checked || !inab) {
			print "TSC packets: " nt ", after a switch " checked ", in " a "/" b " " inab; bad = 1
		}
		printf "%d switches, %d A/B alternations on cpu 0, %d TSC packets in cpu0.pt (%d in A/B, %d before the first switch)\n", nsw, alt, nt, inab, before
		exit bad
	}' "$1/switches" /tmp/sb.tsc
}

# Bytes ptcap --progress last reported as saved (0 before its first line).
cont_saved() {
	n=$(tr '\r' '\n' </tmp/cont.err | sed -n 's/.*, \([0-9]*\) bytes saved.*/\1/p' | tail -n 1)
	echo "${n:-0}"
}

# tracing: wait until CPU 0's model has TraceEn (ptcap started); fails
# if ptcap ($pid) exits first. No limit of its own (a loaded host slows
# TCG without bound): the case's time limit catches a hang.
wait_tracing() {
	while ! grep -q '^cpu0 ctl=0x[0-9a-f]*[13579bdf] ' $D/pt_msrs; do
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
}

for prof in full bdw; do
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof" >/dev/null ||
		fail "insmod pt_profile=$prof" || exit 1
	seq=0	# pattern bytes CPU 0 stored since load

	# A command, traced while it runs (per thread if the module can).
	# ptcap refuses a directory that holds a capture (issue 16.6).
	rm -rf /tmp/cmd /tmp/thr /tmp/dyn /tmp/dyn.old /tmp/wrap /tmp/stop /tmp/cont
	# ptcap's own status is 0 (nothing lost); the command's is in config
	# and on stderr (ptcap.1, EXIT STATUS).
	# Traced steps are slow under TCG: with_progress keeps the output going.
	with_progress ptcap --size=16K -o /tmp/cmd -- ptcap_hello 7 >/tmp/cmd.out 2>&1
	rc=$?
	out=$(cat /tmp/cmd.out)
	[ $rc -eq 0 ] || fail "$prof: ptcap -- ptcap_hello 7: status $rc: $out" || exit 1
	echo "$out" | grep -q 'ptcap_hello: [0-9]* steps' || fail "$prof: command output" || exit 1
	echo "$out" | grep -q '^ptcap: ptcap_hello: exited with status 7$' &&
		[ "$(cfg /tmp/cmd command-status)" = exit=7 ] && [ "$(cfg /tmp/cmd losses)" = 0 ] &&
		grep -q '^outcome\.tid[0-9]*\.pt complete$' /tmp/cmd/config ||
		fail "$prof: command status: $out $(grep -E '^(outcome|losses|command)' /tmp/cmd/config)" ||
		exit 1
	complete /tmp/cmd || exit 1
	grep -q ' /bin/ptcap_hello$' /tmp/cmd/maps || fail "$prof: maps: $(cat /tmp/cmd/maps)" || exit 1
	[ "$(cfg /tmp/cmd command)" = "ptcap_hello 7" ] || fail "$prof: config command" || exit 1
	grep -q ' 0x0 vdso.so$' /tmp/cmd/maps && [ "$(head -c 4 /tmp/cmd/vdso.so | tail -c 3)" = ELF ] ||
		fail "$prof: vdso.so: $(grep vdso /tmp/cmd/maps)" || exit 1
	[ "$(cfg /tmp/cmd mode)" = per-thread ] && [ "$(ls /tmp/cmd/*.pt | wc -l)" = 1 ] &&
		grep -q "^thread\.tid[0-9]*\.pt tid=[0-9]* pid=[0-9]* buffer=0 exited$" /tmp/cmd/config ||
		fail "$prof: per thread: $(ls /tmp/cmd | tr "\n" " ") $(grep -E "^(mode|thread)" /tmp/cmd/config | tr "\n" " ")" || exit 1
	ok "$prof: ptcap -- ptcap_hello: $(cfg /tmp/cmd mode), $(ls /tmp/cmd/*.pt | wc -l) trace file(s), $(grep -c '^0x' /tmp/cmd/maps) mapping(s) with vdso.so, status in config"

	# Threads created by the command: one tid<N>.pt each, named in config.
	# The lighter work (-s): four threads of single-stepped model tracing
	# took minutes on a loaded host.
	with_progress ptcap --size=16K -o /tmp/thr -- ptcap_hello -s -t 5 >/tmp/thr.out 2>&1
	rc=$?
	out=$(cat /tmp/thr.out)
	[ $rc -eq 0 ] && [ "$(cfg /tmp/thr command-status)" = exit=5 ] ||
		fail "$prof: ptcap -- ptcap_hello -s -t 5: status $rc: $out" || exit 1
	complete /tmp/thr || exit 1
	n=$(ls /tmp/thr/tid*.pt | wc -l)
	t=$(grep -c '^thread\.tid[0-9]*\.pt tid=[0-9]* pid=[0-9]* buffer=[0-3] exited$' /tmp/thr/config)
	[ "$n" = 4 ] && [ "$t" = 4 ] ||
		fail "$prof: threads: $n files, $t thread lines: $(ls /tmp/thr) $(grep thread /tmp/thr/config)" || exit 1
	for f in /tmp/thr/tid*.pt; do
		b=${f##*/}
		grep -q "^thread\.$b tid=$(echo "$b" | sed 's/tid\([0-9]*\)\.pt/\1/') " /tmp/thr/config ||
			fail "$prof: $b: its tid not in config" || exit 1
	done
	ok "$prof: ptcap -- ptcap_hello -t: per thread, 4 threads, 4 tid<N>.pt files with their tid in config"

	# Issue 19.2: tracing that ends at a TraceStop range (SDM 33.2.5.3) as
	# --stop asked is said in words, not counted as a loss (full profile:
	# the bdw one enumerates no ADDRn range).
	if [ $prof = full ]; then
		a=$(ptcap_hello -a)
		rm -rf /tmp/ts
		out=$(ptcap --size=16K --stop=$a-$a -o /tmp/ts -- ptcap_hello 2>&1)
		rc=$?
		[ $rc -eq 0 ] || fail "$prof: --stop=$a-$a: status $rc: $out" || exit 1
		echo "$out" | grep -q 'tracing stopped at a TraceStop range (--stop), as asked$' &&
			! echo "$out" | grep -qi 'loss' && [ "$(cfg /tmp/ts losses)" = 0 ] &&
			grep -q '^outcome\.tid[0-9]*\.pt trace-stop$' /tmp/ts/config &&
			grep -q '^status\.tid[0-9]*\.pt .* lost=0 .*stopped' /tmp/ts/config ||
			fail "$prof: --stop: $out $(grep -E '^(status|outcome|losses)' /tmp/ts/config)" || exit 1
		ptdump /tmp/ts/tid*.pt | grep -q ' stop$' || fail "$prof: --stop: no TraceStop packet" || exit 1
		ok "$prof: --stop=$a-$a (step()): 'tracing stopped at a TraceStop range', outcome trace-stop, 0 losses, status 0"
	fi

	# A dynamic program: ld.so at exec, its libraries by exit.
	with_progress ptcap --size=16K -o /tmp/dyn -- ptdump --help >/dev/null 2>&1
	grep -q 'ld-linux' /tmp/dyn/maps && grep -q 'libc' /tmp/dyn/maps ||
		fail "$prof: dynamic maps: $(cat /tmp/dyn/maps)" || exit 1
	complete /tmp/dyn || exit 1
	ok "$prof: ptcap -- ptdump --help: maps with ld.so and libc"

	# Issue 16.6: a second capture into the same directory is refused
	# before anything runs; --force moves the first to DIR.old.
	ls /tmp/dyn >/tmp/dyn.ls
	out=$(ptcap --size=16K -o /tmp/dyn -- ptcap_hello 2>&1)
	rc=$?
	[ $rc -eq 1 ] && echo "$out" | grep -q '^ptcap: /tmp/dyn holds a capture: ptcap never mixes two; give another -o DIR, or --force to move it to /tmp/dyn.old$' &&
		! echo "$out" | grep -q steps && ls /tmp/dyn | cmp -s - /tmp/dyn.ls ||
		fail "$prof: second capture: status $rc: $out" || exit 1
	out=$(ptcap --size=16K --force -o /tmp/dyn -- ptcap_hello 2>&1)
	rc=$?
	[ $rc -eq 0 ] && echo "$out" | grep -q '^ptcap: moved the earlier capture in /tmp/dyn to /tmp/dyn.old$' &&
		[ "$(cfg /tmp/dyn command)" = ptcap_hello ] &&
		[ "$(cfg /tmp/dyn.old command)" = "ptdump --help" ] &&
		ls /tmp/dyn.old | cmp -s - /tmp/dyn.ls && ! grep -q libc /tmp/dyn/maps ||
		fail "$prof: --force: status $rc: $out $(ls /tmp/dyn /tmp/dyn.old)" || exit 1
	complete /tmp/dyn || exit 1
	ok "$prof: a second capture into /tmp/dyn refused (status 1, nothing run); --force moved the first to /tmp/dyn.old"

	# Sideband (issue 6 point 8, issue 8 point 4): -a while two processes
	# ping-pong on CPU 0 under the model's execution tracing (pt_exec=1).
	# The -a captures of this case have no -d: SIGINT ends each after its
	# work, which a duration could cut short on a slow VM. Only CPU 0 is
	# traced (-C 0) and ptcap runs on CPU 1: traced itself, ptcap was
	# single-stepped by the model and on a loaded host drained the
	# switch records too late (654 lost in one CI run; a bdw run went
	# 300 s without output).
	rm -rf /tmp/sb
	taskset -c 1 ptcap -a -C 0 --size=1M -o /tmp/sb 2>/tmp/sb.err &
	pid=$!
	wait_tracing || fail "$prof: sideband: not tracing: $(cat /tmp/sb.err)" || exit 1
	pp=$(pt_pingpong 100 0) || fail "$prof: pt_pingpong: $pp" || exit 1
	kill -INT $pid
	wait $pid || fail "$prof: sideband: ptcap $(cat /tmp/sb.err)" || exit 1
	set -- $pp
	[ -f /tmp/sb/switches ] || fail "$prof: no switches file: $(ls /tmp/sb)" || exit 1
	grep -q '^switches\.cpu0\.pt count=[1-9][0-9]* lost=0$' /tmp/sb/config ||
		fail "$prof: config: $(grep '^switches' /tmp/sb/config)" || exit 1
	r=$(sb_check /tmp/sb "$2" "$3" "$4") ||
		fail "$prof: switches: $r $(head -n 20 /tmp/sb/switches)" || exit 1
	complete /tmp/sb || exit 1
	ok "$prof: -a with pt_pingpong $2/$3 on cpu 0: $r"

	# Invalid configurations: named field, non-zero exit, nothing started.
	msg=$(ptcap -a --size=5000 -o /tmp/bad 2>&1) && fail "$prof: --size=5000 accepted" && exit 1
	echo "$msg" | grep -q buffer_size || fail "$prof: --size=5000: $msg" || exit 1
	if [ $prof = bdw ]; then
		msg=$(ptcap -a --mtc=3 -o /tmp/bad 2>&1) && fail "bdw: --mtc accepted" && exit 1
		echo "$msg" | grep -q MTCEn || fail "bdw: --mtc: $msg" || exit 1
		msg=$(ptcap -a --no-branch -o /tmp/bad 2>&1) && fail "bdw: --no-branch accepted" && exit 1
		echo "$msg" | grep -q BranchEn || fail "bdw: --no-branch (BDM106): $msg" || exit 1
	fi
	ok "$prof: invalid configurations refused with the field named"

	# System-wide captures of the injected pattern alone.
	echo 0 >/sys/module/lwpt_sim/parameters/pt_exec

	# System-wide wrap: 40000 bytes into 16 KiB keep the newest 16384.
	ptcap -a --size=16K --mode=wrap -o /tmp/wrap 2>/tmp/wrap.err &
	pid=$!
	wait_tracing || fail "$prof: wrap: not tracing: $(cat /tmp/wrap.err)" || exit 1
	echo "0 40000" >$D/pt_inject
	kill -INT $pid
	wait $pid || fail "$prof: wrap: ptcap $(cat /tmp/wrap.err)" || exit 1
	# Issue 16.5: the wrap is said, with the bytes overwritten; not a loss.
	grep -q '^ptcap: cpu0.pt: the buffer wrapped: the first 23616 of 40000 bytes written were overwritten (wrap mode keeps the newest 16384); the trace starts mid-run$' /tmp/wrap.err &&
		grep -q '^outcome\.cpu0\.pt wrapped overwritten=23616$' /tmp/wrap/config &&
		[ "$(cfg /tmp/wrap losses)" = 0 ] ||
		fail "$prof: wrap: $(cat /tmp/wrap.err) $(grep -E '^(outcome|losses)' /tmp/wrap/config)" || exit 1
	complete /tmp/wrap || exit 1
	want="len=16384 first=$(((seq + 40000 - 16384) % 251))"
	got=$(ptcap_pattern /tmp/wrap/cpu0.pt)
	[ "$got" = "$want" ] || fail "$prof: wrap: cpu0.pt $got, want $want" || exit 1
	seq=$((seq + 40000))
	grep -q '^status.cpu0.pt bytes=40000 saved=16384 ' /tmp/wrap/config ||
		fail "$prof: wrap status: $(grep status /tmp/wrap/config)" || exit 1
	ok "$prof: -a --mode=wrap: newest 16384 of 40000 bytes, oldest first; 23616 bytes overwritten reported"

	# Stop: the oldest 16384 are kept, Stopped is reported.
	ptcap -a --size=16K --mode=stop -o /tmp/stop 2>/tmp/stop.err &
	pid=$!
	wait_tracing || fail "$prof: stop: not tracing: $(cat /tmp/stop.err)" || exit 1
	echo "0 40000" >$D/pt_inject
	kill -INT $pid
	wait $pid || fail "$prof: stop: ptcap $(cat /tmp/stop.err)" || exit 1
	complete /tmp/stop || exit 1
	want="len=16384 first=$((seq % 251))"
	got=$(ptcap_pattern /tmp/stop/cpu0.pt)
	[ "$got" = "$want" ] || fail "$prof: stop: cpu0.pt $got, want $want" || exit 1
	seq=$((seq + 16384))
	grep -q '^status.cpu0.pt .* lost=0 .* stopped$' /tmp/stop/config ||
		fail "$prof: stop status: $(grep status /tmp/stop/config)" || exit 1
	# Issue 19.2: a full buffer in stop mode is what the mode does, no loss.
	grep -q '^ptcap: cpu0.pt: the buffer filled in stop mode: tracing stopped after 16384 bytes' /tmp/stop.err &&
		! grep -qi 'loss' /tmp/stop.err &&
		grep -q '^outcome\.cpu0\.pt buffer-full$' /tmp/stop/config &&
		[ "$(cfg /tmp/stop losses)" = 0 ] ||
		fail "$prof: stop: $(cat /tmp/stop.err) $(grep -E '^(outcome|losses)' /tmp/stop/config)" || exit 1
	ok "$prof: -a --mode=stop: oldest 16384 bytes, Stopped, 'buffer filled in stop mode', no loss"

	# Continuous: 8 x 8 KiB through a 16 KiB buffer, drained while tracing.
	ptcap -a --size=16K --mode=continuous --progress -o /tmp/cont 2>/tmp/cont.err &
	pid=$!
	wait_tracing || fail "$prof: continuous: not tracing: $(cat /tmp/cont.err)" || exit 1
	# Each 8 KiB waits until ptcap has drained the previous ones: its
	# progress line (once a second) counts the bytes saved. A fixed pause
	# made the test depend on the machine's speed (issue 17.4).
	i=0
	while [ $i -lt 8 ]; do
		s0=$(cont_saved)
		echo "0 8192" >$D/pt_inject
		t0=$(date +%s) said=
		while [ "$(cont_saved)" -lt $((s0 + 8192)) ]; do
			kill -0 $pid 2>/dev/null || break
			# ptcap prints progress once a second: 60 s without the
			# 8 KiB saved may be a stall: its evidence, once. The
			# wait goes on (a loaded host may take longer, issue 39
			# item 9); /init's limit on silence ends a real stall.
			[ -n "$said" ] || [ $(($(date +%s) - t0)) -lt 60 ] || {
				lwpt_diag_note "$prof: continuous: round $i: ptcap saved $(cont_saved) of $((s0 + 8192)) bytes in 60 s: $(tr '\r' '\n' </tmp/cont.err | tail -n 3)" $pid
				said=1
			}
			sleep 0.1
		done
		i=$((i + 1))
	done
	kill -INT $pid
	wait $pid
	rc=$?
	# Status 3 exactly when the module counted a stall (ptcap.1). Even
	# with each 8 KiB injected into a drained buffer, the module was seen
	# to count stalls (lost=4, all 65536 bytes saved) on a loaded host.
	lost=$(grep '^status.cpu0' /tmp/cont/config | sed 's/.*lost=\([0-9]*\).*/\1/')
	{ [ "$lost" = 0 ] && [ $rc -eq 0 ]; } || { [ "$lost" != 0 ] && [ $rc -eq 3 ] &&
		grep -q "data lost: $lost time(s) tracing was off" /tmp/cont.err; } ||
		fail "$prof: continuous: ptcap status $rc, lost $lost: $(cat /tmp/cont.err)" || exit 1
	complete /tmp/cont || exit 1
	got=$(ptcap_pattern /tmp/cont/cpu0.pt)
	len=${got#len=}; len=${len%% *}
	[ "${got#* }" = "first=$((seq % 251))" ] && [ "$len" -gt 16384 ] ||
		fail "$prof: continuous: cpu0.pt $got (from $((seq % 251)))" || exit 1
	seq=$((seq + len))
	ok "$prof: -a --mode=continuous: $len contiguous bytes through a 16384-byte buffer ($(grep '^status.cpu0' /tmp/cont/config | sed 's/.*lost=\([0-9]*\).*/lost \1/'))"

	[ "$(sim_violations)" = 0 ] || fail "$prof: violations $(sim_violations)" || exit 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$prof: rmmod" || exit 1
	ok "$prof: no spec violation, module unloads"
done
