# SPDX-License-Identifier: GPL-2.0
#
# Helpers for in-VM test cases (tests/vm/cases/*, tests/vm/demo/*). A case
# is any executable; a shell case sources this file:
#   . /lwpt/lib.sh
# and exits 0 on success. Modules are in /lwpt/kmod, tools in /bin.

LWPT_KMOD=/lwpt/kmod

# Kernel log lines that fail a test run: warnings, bugs, oopses, GPFs, RCU
# stalls, lockdep reports, panics, sanitizer reports.
LWPT_BAD_KERNEL_RE='WARNING:|BUG:|Oops|general protection fault|detected stall|rcu_sched self-detected|possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|bad unlock balance|lock held when returning|Kernel panic|kernel BUG|UBSAN:|KASAN:|list_add corruption|list_del corruption|refcount_t:'

# Filter: print the bad lines of the kernel log read on stdin.
lwpt_bad_kernel_lines() {
	grep -a -E "$LWPT_BAD_KERNEL_RE"
}

# Print a failure and return 1: `cond || fail "why"`.
fail() {
	echo "FAIL: $*"
	return 1
}

# exit_str STATUS: a shell's $? in words for a failure line, "exit N",
# or, above 128, also the signal that status names (a shell reports a
# child killed by signal S as 128 + S): "exit 133 (128 + SIGTRAP)".
exit_str() {
	if [ "$1" -gt 128 ] && [ "$1" -le 192 ]; then
		echo "exit $1 (128 + SIG$(kill -l $(($1 - 128)) 2>/dev/null))"
	else
		echo "exit $1"
	fi
}

# Print a success line.
ok() {
	echo "ok: $*"
}

# Number of kernel log lines now; pass it to dmesg_since.
dmesg_mark() {
	dmesg | wc -l
}

# Kernel log lines after mark $1.
dmesg_since() {
	dmesg | tail -n +$(($1 + 1))
}

# The kernel's own notes on loading an out-of-tree, unsigned module (first
# load of a boot only); not lines lwpt printed.
lwpt_strip_taint_notes() {
	grep -v -E 'loading out-of-tree module taints kernel|module verification failed: signature'
}

# Is module $1 loaded?
module_loaded() {
	grep -q "^$1 " /proc/modules
}

# Every LWP case runs under both settings of lwpt_sim.ko's Family 15h
# switches (issue 14): 0, the letter of 43724, and 1, lwp_xsave_drops_int=1
# (XSAVE drops Flags.INT, as rr saw) with lwp_lazy_head=1 (BufferHeadOffset
# written only when §8.3 requires it). lwp_switches V sets both to V.
LWP_SWITCH_RUNS="0 1"
lwp_switches() {
	echo "$1" > /sys/module/lwpt_sim/parameters/lwp_xsave_drops_int &&
		echo "$1" > /sys/module/lwpt_sim/parameters/lwp_lazy_head
}

# with_progress CMD...: run CMD in the background (redirect its output at
# the call) and return its status; meanwhile, every 10 s, print the number
# of steps lwpt_sim's model traced if it moved since the last print. A
# slow traced run then keeps the case's output going (/init's limit is on
# silence), while a stuck one stays silent and is caught.
with_progress() {
	"$@" &
	wp_pid=$!
	wp_last= wp_n=0
	while [ -d /proc/$wp_pid ] && ! grep -q '^State:.*Z' /proc/$wp_pid/status 2>/dev/null; do
		sleep 1
		[ $((wp_n += 1)) -ge 10 ] || continue
		wp_n=0
		wp_steps=$(sed -n 's/.* steps=\([0-9]*\) .*/\1/p' /sys/kernel/debug/lwpt_sim/pt_msrs 2>/dev/null |
			awk '{ s += $1 } END { print s + 0 }')
		[ "$wp_steps" = "$wp_last" ] || echo "progress: $wp_steps steps traced"
		wp_last=$wp_steps
	done
	wait $wp_pid
}

# module_idle NAME: wait until nothing holds module NAME (its refcnt is 0).
# A thread that a per-thread capture traced keeps lwpt referenced until it
# unregistered its preempt notifier, which only it can do: at its next
# return to user mode or its exit (Documentation/pt.rst, "Per-thread
# capture"), so a traced child that is being killed may still hold it.
# No limit of its own (the case's time limit catches a hang).
module_idle() {
	mi_n=0
	while [ "$(cat /sys/module/$1/refcnt 2>/dev/null || echo 0)" != 0 ]; do
		sleep 0.1
		[ $((mi_n += 1)) -lt 100 ] || { mi_n=0; echo "note: $1 still in use"; }
	done
}

# start_ready OUT CMD...: start CMD in the background, its stdin the FIFO
# /tmp/go, held open for writing on this shell's fd 3 (`printf g >&3;
# exec 3>&-` lets a program that reads a byte go on), its stdout and
# stderr in OUT; its pid in prog. Wait until OUT says "ready" or CMD
# ended: status 1 if it ended first. No limit of its own (see wait_file).
start_ready() {
	_out=$1
	shift
	rm -f /tmp/go
	mkfifo /tmp/go || return 1
	: >"$_out"
	"$@" </tmp/go >"$_out" 2>&1 &
	prog=$!
	exec 3>/tmp/go
	while ! grep -q ready "$_out" && kill -0 $prog 2>/dev/null; do
		sleep 0.1
	done
	grep -q ready "$_out"
}

# release_ready PID: let start_ready's program go on (a byte on /tmp/go,
# then its end of file), wait for it (status in prc) and for PID (status
# in rc), a capture that ends with it.
release_ready() {
	printf g >&3
	exec 3>&-
	wait $prog
	prc=$?
	wait "$1"
	rc=$?
}

# wait_file FILE PID: wait until FILE exists (a background ptcap, PID,
# writes its switches file before it starts tracing) or PID ended; status 1
# if FILE does not exist. No limit of its own: a loaded host may hold PID
# back for long (issue 39 item 9); the case's limit catches a hang.
wait_file() {
	while [ ! -e "$1" ] && kill -0 "$2" 2>/dev/null; do
		sleep 0.1
	done
	[ -e "$1" ]
}

# The spec-violation count of lwpt_sim.ko (debugfs).
sim_violations() {
	cat /sys/kernel/debug/lwpt_sim/violations
}

# pt_hold MODE: start `pt_test MODE` (a capture it keeps open until
# killed) in the background, its pid in hold_pid; wait until it says
# "tracing" or exits (no limit of its own: a loaded host slows TCG without
# bound; the case's time limit catches a hang). Fails if it exited first.
pt_hold() {
	: >/tmp/hold.out
	pt_test "$1" >/tmp/hold.out &
	hold_pid=$!
	while ! grep -q tracing /tmp/hold.out && kill -0 "$hold_pid" 2>/dev/null; do
		sleep 0.1
	done
	grep -q tracing /tmp/hold.out
}

# --- Flow of a traced program against its ground truth (62-, 63-pt-*) ----
# The program (trace_flow_prog: loops, jump table, indirect calls,
# recursion deeper than the RET-compression stack, system calls; static,
# not PIE) runs with an empty environment and without ASLR (norandom) each
# time, so its flow is the same: with a random stack, glibc's strlen of the
# AT_PLATFORM string took its page-crossing path in some runs only
# (Documentation/pt-model.rst, "Execution in the kernel").
PT_FLOW_PROG=/bin/trace_flow_prog

# The ground truth, once: every user-mode IP, REP iterations once, in
# /tmp/gt.txt; sets gt_rc (the program's exit status) and n_gt.
pt_flow_ground_truth() {
	env -i /bin/norandom /bin/pt_flow_gt $PT_FLOW_PROG >/tmp/gt.txt 2>/tmp/gt.err
	gt_rc=$?
	[ $gt_rc -lt 125 ] || fail "pt_flow_gt: $(cat /tmp/gt.err)" || return 1
	n_gt=$(wc -l </tmp/gt.txt)
	[ "$n_gt" -gt 1000 ] || fail "ground truth has $n_gt steps" || return 1
	ok "ground truth: $n_gt instructions by ptrace single-stepping (exit $gt_rc)"
}

# pt_flow_gt_of OUT PROG [ARG]...: the ground truth of another program
# (as pt_flow_ground_truth, without ASLR, an empty environment) in OUT.
pt_flow_gt_of() {
	out=$1
	shift
	env -i /bin/norandom /bin/pt_flow_gt -o "$out" "$@" >/dev/null 2>/tmp/gt.err
	rc=$?
	[ $rc -lt 125 ] && [ "$(wc -l <"$out")" -gt 1000 ] ||
		fail "pt_flow_gt $*: status $rc: $(cat /tmp/gt.err)" || return 1
	ok "ground truth of $*: $(wc -l <"$out") instructions"
}

# pt_flow_capture PROF NAME OPTIONS...: trace the program with ptcap (per
# CPU with --cr3, on CPU 0; else per thread, free to migrate), check
# ptcap's status is PT_FLOW_STATUS (default 0; 3: data lost, ptcap.1) and
# the program's is in config, every file decodes with ptdump, leave
# libipt's flow (addresses) in /tmp/flow.txt and their number in n_flow.
pt_flow_capture() {
	prof=$1 name=$2
	shift 2
	rm -rf /tmp/exec
	env -i /bin/norandom /bin/taskset -c 0 /bin/ptcap -o /tmp/exec "$@" -- $PT_FLOW_PROG \
		>/tmp/ptcap.out 2>&1
	rc=$?
	[ $rc -eq "${PT_FLOW_STATUS:-0}" ] &&
		grep -qx "command-status exit=$gt_rc" /tmp/exec/config ||
		fail "$prof $name: ptcap: status $rc, want ${PT_FLOW_STATUS:-0} (program exit=$gt_rc): $(cat /tmp/ptcap.out) $(grep command-status /tmp/exec/config)" || return 1
	for f in /tmp/exec/*.pt; do
		# An empty trace (a CPU that ran nothing traced) has no PSB:
		# ptdump says so and exits 1 (ptdump(1)).
		[ -s "$f" ] || continue
		ptdump "$f" >/tmp/ptdump.out 2>&1 ||
			fail "$prof $name: ptdump $f: $(tail -n 3 /tmp/ptdump.out)" || return 1
	done
	ptdump --stats /tmp/exec/cpu0.pt 2>/dev/null | grep -E '^(tnt|tip|fup|psb |mtc|tma|ovf)' |
		tr -s ' ' | tr '\n' ';'
	echo
	ptflow --no-inst --no-symbols /tmp/exec >/tmp/flow.out 2>&1
	grep -E '^\[resync' /tmp/flow.out | head -n 5
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n_flow=$(wc -l </tmp/flow.txt)
}

# pt_cov_compare DIR WHAT [A-B]: `ptcov --edges DIR` equals the edges
# pt_gt_edges derives from the single-stepped /tmp/gt.txt (in A-B, the
# capture's IP filter, when given); issue 25 point 3.
pt_cov_compare() {
	ptcov --edges "$1" >/tmp/cov_edges.txt 2>/tmp/cov.err ||
		fail "$2: ptcov: $? $(cat /tmp/cov.err)" || return 1
	pt_gt_edges "$1" $3 </tmp/gt.txt >/tmp/gt_edges.txt ||
		fail "$2: pt_gt_edges: $?" || return 1
	n=$(awk '{ s += $3 } END { print NR " distinct, " s }' /tmp/gt_edges.txt)
	if cmp -s /tmp/gt_edges.txt /tmp/cov_edges.txt; then
		ok "$2: ptcov edges = single-stepping edges ($n)"
	else
		echo "first difference (single-stepping | ptcov):"
		diff /tmp/gt_edges.txt /tmp/cov_edges.txt | head -n 20
		fail "$2: ptcov edges ($(wc -l </tmp/cov_edges.txt) distinct) differ from single-stepping ($n)"
	fi
}

# pt_flow_same PROF NAME FILE: the flow equals FILE (the ground truth or
# its tail).
pt_flow_same() {
	cmp -s "$3" /tmp/flow.txt && return 0
	echo "first difference (ground truth | libipt flow):"
	diff "$3" /tmp/flow.txt | head -n 20
	fail "$1 $2: libipt flow ($n_flow) differs from the ground truth ($(wc -l <"$3"))"
}

# --- A system-wide capture of two programs on CPU 0 (81-ptflow-sys, 86-pt2perf,
# 86-ptcov-sys, 95-bts-ptcap-cpu)
# sys_two OPTS A B: `ptcap OPTS -a -C 0` into /tmp/sys while programs A and B
# (each a command line) run on CPU 0, started stopped at their exec until
# ptcap has named them; the caller runs on CPU 1. Sets pa and pb (their
# pids) and rc (ptcap's status, after SIGINT once both ended); status 1
# with a failure said on error.
sys_two() {
	opts=$1 A=$2 B=$3
	rm -rf /tmp/sys
	# shellcheck disable=SC2086
	taskset -c 1 ptcap $opts -a -C 0 --size=16M -o /tmp/sys >/tmp/sys.out 2>/tmp/sys.err &
	cap=$!
	wait_file /tmp/sys/switches $cap ||
		fail "ptcap $opts -a did not start: $(cat /tmp/sys.err)" || return 1
	# ptcap reads a process at the drain of the switch records that names it.
	# A program's exec generation must be read while it lives: each starts
	# stopped at its exec (pt_held: no user code runs, its flow is unchanged)
	# until ptcap has named it, then is continued. Everything before the exec
	# (env, norandom, pt_held's child) runs on CPU 1: pt_held pins the child
	# to CPU 0 only once it stopped at the exec, so that no piece on CPU 0
	# comes from code before it (ptflow would take it for the program's when
	# ptcap did not read the process before its exec: both are static
	# programs at 0x401000).
	held() { # PIDFILE PROG...
		f=$1
		shift
		rm -f "$f"
		env -i /bin/norandom /bin/pt_held -c 0 "$f" "$@" >/dev/null 2>&1 &
		# Until it wrote its pid or ended: no limit of its own.
		while [ ! -s "$f" ] && kill -0 $! 2>/dev/null; do
			sleep 0.1
		done
		[ -s "$f" ] || fail "pt_held $*: no pid" || exit 1
	}
	held /tmp/pa.pid $A
	ja=$!
	held /tmp/pb.pid $B
	jb=$!
	pa=$(cat /tmp/pa.pid)
	pb=$(cat /tmp/pb.pid)
	# ptcap reads a pid while it drains the switch line that names it and
	# flushes the file after each drain: a line naming each means ptcap has
	# read both.
	named() { grep -qE " $1/[0-9]+( |\$)" /tmp/sys/switches; }
	i=0
	# (Normally well under a second; bounded by ptcap's life and 30 minutes.)
	while ! { named $pa && named $pb; } && kill -0 $cap 2>/dev/null && [ $i -lt 9000 ]; do
		sleep 0.2
		i=$((i + 1))
		[ $((i % 300)) -eq 0 ] && echo "note: waiting for ptcap to read A and B ($((i / 5)) s)"
	done
	{ named $pa && named $pb; } ||
		fail "ptcap did not name A and B ($((i / 5)) s): $(cat /tmp/sys.err)" || return 1
	kill -CONT $pa $pb
	ok "ptcap -a -C 0 started; A ($pa) and B ($pb) run on CPU 0 (single-stepped by the model)"
	# Say something now and then: the VM's watchdog wants output. (About
	# 20 s unloaded; bounded at 30 minutes for a loaded host.)
	t=0
	# A and B themselves (pt_held reaps them; pt_held stays a zombie until waited for).
	while kill -0 $pa 2>/dev/null || kill -0 $pb 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		[ $((t % 60)) -eq 0 ] && echo "note: A and B still running after $t s"
		[ $t -lt 1800 ] || { kill -INT $cap; fail "A and B still running after $t s"; exit 1; }
	done
	wait $ja
	wait $jb
	sleep 0.2
	kill -INT $cap
	wait $cap
	rc=$?
}

# pt_sys_two A B: sys_two with PT, MTC every 2^9 ART ticks (SDM 33.3.6,
# 512 * 167 TSC ticks on the model): a time inside most pieces, so that the
# switch records name their thread (ptflow.rst), and 256 of them (the 8-bit
# CTC, and the model's cap per gap, pt-model.rst "Timing") span more than a
# time slice of the other program, so that the MTC time seldom lags behind
# a switch (ptflow then leaves such pieces undecoded: fewer with 2^9 than
# with 2^6). ptcap's status 0 or 3 (data lost).
pt_sys_two() {
	sys_two --mtc=9 "$1" "$2" || return 1
	[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "ptcap -a: status $rc: $(cat /tmp/sys.err)" || return 1
}

# pt_test_run NAME [ARG...]: run `pt_test NAME ARG...`, print its failures
# and a summary line prefixed with $tag; 1 if it failed.
pt_test_run() {
	out=$(pt_test "$@")
	rc=$?
	echo "$out" | grep -v '^ok:'
	[ $rc -eq 0 ] || fail "$tag: pt_test $*" || return 1
	ok "$tag: pt_test $* ($(echo "$out" | grep -c '^ok:') checks)"
}

# --- Issue 27: per-thread continuous capture of pt_flow_threads ----------
# (86-ptcap-hold.sh and tests/vm/slow/86-ptcap-hold-matrix.sh). HOLD_PROG,
# HOLD_ROUNDS: the program and its argument (45000 rounds: about 200 KiB
# of trace per thread, more than 20 buffers of 8 KiB); HOLD_BUFFERS: the
# buffers each thread must have written at least.
HOLD_PROG=/bin/pt_flow_threads
HOLD_ROUNDS=${HOLD_ROUNDS:-45000}
HOLD_BUFFERS=${HOLD_BUFFERS:-20}

# hold_flow_gt: the ground truth of both threads by single-stepping, in
# /tmp/gt0.txt (the main thread) and /tmp/gt1.txt (the second); hold_rc is
# the program's exit status.
hold_flow_gt() {
	env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gt0.txt -T /tmp/gt1.txt \
		$HOLD_PROG $HOLD_ROUNDS 2>/tmp/gt.err
	hold_rc=$?
	[ $hold_rc -lt 100 ] || fail "pt_flow_gt -T: $hold_rc $(cat /tmp/gt.err)" || return 1
	[ "$(wc -l </tmp/gt0.txt)" -gt 10000 ] && [ "$(wc -l </tmp/gt1.txt)" -gt 10000 ] ||
		fail "ground truth: $(wc -l </tmp/gt0.txt) and $(wc -l </tmp/gt1.txt) instructions" ||
		return 1
	ok "ground truth: main thread $(wc -l </tmp/gt0.txt), second thread $(wc -l </tmp/gt1.txt) instructions (exit $hold_rc)"
}

# hold_capture PROF:ACKER:SKID OPTIONS...: load lwpt_sim.ko with the
# profile, set pt_nmi_first_acker and pt_pmi_skid, capture the program
# per thread in continuous mode (8 KiB; 4 KiB regions where there may be
# several) with OPTIONS; sets hold_what, hold_st (ptcap's status), the
# buffer files hold_f0 (main thread) and hold_f1.
hold_capture() {
	combo=$1
	shift
	prof=${combo%%:*} ak=${combo#*:}
	acker=${ak%:*} skid=${ak#*:}
	hold_what="$prof acker=$acker skid=$skid $*"
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=$prof" >/dev/null ||
		fail "insmod $hold_what" || return 1
	echo "$acker" >/sys/module/lwpt_sim/parameters/pt_nmi_first_acker
	echo "$skid" >/sys/module/lwpt_sim/parameters/pt_pmi_skid
	regions=--region-size=4K
	[ "$prof" = bdw ] && regions=	# MENTRY=0: one region
	rm -rf /tmp/hold
	env -i /bin/norandom /bin/ptcap -o /tmp/hold --mode=continuous --size=8K $regions "$@" \
		-- $HOLD_PROG $HOLD_ROUNDS >/tmp/ptcap.out 2>&1
	hold_st=$?
	grep -qx "command-status exit=$hold_rc" /tmp/hold/config ||
		fail "$hold_what: command $(grep command-status /tmp/hold/config), want exit=$hold_rc: $(cat /tmp/ptcap.out)" ||
		return 1
	hold_f0=$(hold_file 0)
	hold_f1=$(hold_file 1)
	[ -n "$hold_f0" ] && [ -n "$hold_f1" ] ||
		fail "$hold_what: two threads: $(grep '^thread' /tmp/hold/config)" || return 1
	grep '^status\.' /tmp/hold/config
}

# hold_file N: the trace file of buffer N (config's thread lines).
hold_file() {
	awk -v b="buffer=$1" '$1 ~ /^thread\./ {
		for (i = 2; i <= NF; i++) if ($i == b) { sub(/^thread\./, "", $1); print $1 } }' \
		/tmp/hold/config
}

# hold_flow FILE GT: libipt's flow of FILE (with its gaps) into
# /tmp/flow.txt, /tmp/flow.out; 0 if it equals GT.
hold_flow() {
	ptflow --no-symbols --no-inst --pt "/tmp/hold/$1" --elf $HOLD_PROG >/tmp/flow.out 2>&1
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n_flow=$(wc -l </tmp/flow.txt)
	cmp -s "$2" /tmp/flow.txt
}

# hold_bytes FILE: bytes the module wrote for FILE (its status line).
hold_bytes() {
	sed -n "s/^status\.$1 bytes=\([0-9]*\) .*/\1/p" /tmp/hold/config
}

# hold_accounted FILE: every byte the module wrote for FILE is accounted
# (issue 39 point 4; Documentation/pt.rst, "Continuous mode: the hold"):
# in its config status line bytes = saved + pads + lost-bytes, the file
# holds the saved bytes, and on one region (bdw) a thread that was held
# has PADs named (pads > 0). Appends "FILE: W = S + P PADs + L lost" to
# hold_acct.
hold_accounted() {
	hacc_line=$(grep "^status\.$1 " /tmp/hold/config)
	hacc_w=$(echo "$hacc_line" | sed -n 's/.* bytes=\([0-9]*\).*/\1/p')
	hacc_s=$(echo "$hacc_line" | sed -n 's/.* saved=\([0-9]*\).*/\1/p')
	hacc_p=$(echo "$hacc_line" | sed -n 's/.* pads=\([0-9]*\).*/\1/p')
	hacc_l=$(echo "$hacc_line" | sed -n 's/.* lost-bytes=\([0-9]*\).*/\1/p')
	[ -n "$hacc_w" ] && [ -n "$hacc_s" ] && [ -n "$hacc_p" ] && [ -n "$hacc_l" ] ||
		fail "$hold_what: $1: no bytes=, saved=, pads=, lost-bytes= in: $hacc_line" ||
		return 1
	[ "$hacc_w" -eq $((hacc_s + hacc_p + hacc_l)) ] ||
		fail "$hold_what: $1: written $hacc_w != saved $hacc_s + pads $hacc_p + lost $hacc_l (unaccounted $((hacc_w - hacc_s - hacc_p - hacc_l)))" ||
		return 1
	[ "$(wc -c <"/tmp/hold/$1")" -eq "$hacc_s" ] ||
		fail "$hold_what: $1: $(wc -c <"/tmp/hold/$1") bytes in the file, saved=$hacc_s" ||
		return 1
	# One region (bdw): a hold ends when the reader took everything, and
	# the rest of that lap is padded (pt_output_gate()): the PADs must be
	# named and skipped unread (before ABI 1.5 ptcap copied them, racing
	# the next lap, and they were not told from the trace).
	hacc_h=$(echo "$hacc_line" | sed -n 's/.* holds=\([0-9]*\).*/\1/p')
	[ "$prof" != bdw ] || [ "${hacc_h:-0}" -eq 0 ] || [ "$hacc_p" -gt 0 ] ||
		fail "$hold_what: $1: held $hacc_h times on one region, yet no PADs named: $hacc_line" ||
		return 1
	hold_acct="$hold_acct $1: $hacc_w = $hacc_s + $hacc_p PADs + $hacc_l lost;"
}

# hold_unload: no PMI lost to a masked LVTPC, no violation, rmmod.
hold_unload() {
	! grep -v ' dropped=0 ' /sys/kernel/debug/lwpt_sim/pmi | grep -q . ||
		fail "$hold_what: a PMI was lost: $(cat /sys/kernel/debug/lwpt_sim/pmi)" || return 1
	[ "$(sim_violations)" = 0 ] || fail "$hold_what: violations $(sim_violations)" || return 1
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$hold_what: rmmod" || return 1
}

# hold_flow_case PROF:ACKER:SKID: lossless by default: ptcap exits 0,
# nothing lost, every byte written accounted (hold_accounted), each thread
# wrote more than HOLD_BUFFERS buffers and its flow equals the ground truth
# exactly.
hold_flow_case() {
	hold_capture "$1" || return 1
	[ $hold_st -eq 0 ] && grep -qx 'losses 0' /tmp/hold/config ||
		fail "$hold_what: ptcap status $hold_st: $(cat /tmp/ptcap.out)" || return 1
	hold_acct=
	for t in 0 1; do
		eval f=\$hold_f$t
		hold_accounted "$f" || return 1
		b=$(hold_bytes "$f")
		[ "${b:-0}" -gt $((HOLD_BUFFERS * 8192)) ] ||
			fail "$hold_what: $f: $b bytes, not $HOLD_BUFFERS buffers" || return 1
		hold_flow "$f" /tmp/gt$t.txt || {
			echo "first difference (ground truth | libipt flow):"
			diff /tmp/gt$t.txt /tmp/flow.txt | head -n 10
			fail "$hold_what: $f: flow ($n_flow) differs from the ground truth ($(wc -l </tmp/gt$t.txt))"
			return 1
		}
	done
	hold_unload || return 1
	ok "$hold_what: ptcap exit 0, both threads' flows = ground truth ($(hold_bytes "$hold_f0") and $(hold_bytes "$hold_f1") bytes through 8 KiB; $(sed -n "s/^status\.$hold_f0 .*\(holds=[0-9]*\).*/\1/p" /tmp/hold/config));$hold_acct"
}

# in_order_of GT: every address of /tmp/flow.txt matches, in order, the
# next ones of GT (gaps allowed, nothing out of order).
in_order_of() {
	awk 'NR == FNR { gt[NR] = $0; n = NR; next }
	     { while (i < n && gt[++i] != $0) ; if (gt[i] != $0) bad++ }
	     END { exit bad ? 1 : 0 }' "$1" /tmp/flow.txt
}

# hold_flow_lossy PROF:ACKER:SKID: with --lossy the thread is never held;
# ptcap's status is 3 exactly when losses are counted; each thread's flow
# decodes without error and in the order of the ground truth.
hold_flow_lossy() {
	hold_capture "$1" --lossy || return 1
	losses=$(sed -n 's/^losses //p' /tmp/hold/config)
	{ [ "$losses" = 0 ] && [ $hold_st -eq 0 ]; } || { [ "$losses" -gt 0 ] && [ $hold_st -eq 3 ]; } ||
		fail "$hold_what: ptcap status $hold_st with $losses losses" || return 1
	! grep -q ' holds=[1-9]' /tmp/hold/config ||
		fail "$hold_what: a thread was held: $(grep '^status' /tmp/hold/config)" || return 1
	hold_acct=
	for t in 0 1; do
		eval f=\$hold_f$t
		hold_accounted "$f" || return 1
		hold_flow "$f" /tmp/gt$t.txt
		! grep -q '^\[error' /tmp/flow.out ||
			fail "$hold_what: $f: decode error: $(grep '^\[error' /tmp/flow.out | head -n 3)" ||
			return 1
		in_order_of /tmp/gt$t.txt ||
			fail "$hold_what: $f: the flow is not in the order of the ground truth" || return 1
	done
	hold_unload || return 1
	ok "$hold_what: never held, $losses loss(es) counted (ptcap status $hold_st), both flows in order without error"
}

# lwpt_tasks_report PREFIX PID: each thread of process PID, its state and
# wait channel, and its kernel stack (empty while it runs; 16 lines at
# most), every line starting with PREFIX. For hangs: /init's stuck_report
# and lwpt_diag.
lwpt_tasks_report() {
	for t in /proc/$2/task/*; do
		[ -d "$t" ] || continue
		echo "${1}task ${t##*/} ($(cat $t/comm 2>/dev/null)):" \
			"$(sed -n 's/^State:[[:space:]]*//p' $t/status 2>/dev/null)," \
			"wchan $(cat $t/wchan 2>/dev/null)"
		sed "s/^/${1}  /" $t/stack 2>/dev/null | head -n 16
	done
}

# lwpt_diag WHY PID...: print what a stuck case needs to be understood, then
# return 1 (`lwpt_diag "ptcap saved nothing for 60 s" $pid || exit 1`):
# each thread's state, wait channel and kernel stack; for a process that
# runs (its kernel stack is then empty), its user/system time, its
# syscall and where perf's cpu-clock samples find it over 3 s (perf is in
# the VM); lwpt_sim's PT registers and PMI counters; and the kernel's list
# of blocked tasks (SysRq w). A case that diagnoses its own stall fails
# with the evidence instead of being killed silent by /init's limit.
# lwpt_diag_note WHY PID... prints the same as "note: WHY" and returns 0:
# for a wait that goes on (a loaded host, or a hang /init's limit ends).
lwpt_diag() {
	echo "FAIL: $1"
	shift
	lwpt_diag_pids "$@"
}

lwpt_diag_note() {
	echo "note: $1"
	shift
	lwpt_diag_pids "$@" || :
}

lwpt_diag_pids() {
	for p in "$@"; do
		lwpt_tasks_report "diag: " "$p"
		echo "diag: pid $p: utime stime $(cut -d' ' -f14,15 /proc/$p/stat 2>/dev/null)," \
			"syscall $(cat /proc/$p/syscall 2>/dev/null)"
		command -v perf >/dev/null || continue
		# DWARF unwinding: libc has no frame pointers, and the
		# caller in the program is what tells a loop.
		for cg in dwarf,4096 fp; do
			perf record -q -e cpu-clock --call-graph $cg -p "$p" -o /tmp/diag.data \
				-- sleep 3 >/tmp/diag.err 2>&1 || {
				echo "diag: perf record --call-graph $cg: $(tail -n 2 /tmp/diag.err)"
				continue
			}
			perf report -i /tmp/diag.data --stdio --no-children \
				-g folded,0,caller,count --percent-limit 3 2>&1 |
				grep -v '^#' | grep . | head -n 30 | cut -c 1-1500 |
				sed "s/^/diag: perf $cg: /"
			break
		done
		perf trace -s -p "$p" -- sleep 3 2>&1 | grep . | head -n 30 | sed 's/^/diag: perf trace: /'
	done
	for f in pt_msrs pmi; do
		[ -r /sys/kernel/debug/lwpt_sim/$f ] &&
			sed "s/^/diag: $f: /" /sys/kernel/debug/lwpt_sim/$f
	done
	m=$(dmesg_mark)
	echo w > /proc/sysrq-trigger 2>/dev/null
	sleep 1
	dmesg_since "$m" | sed 's/^/diag: /' | head -n 200
	return 1
}
