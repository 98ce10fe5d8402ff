#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 2400
# Issue 39 item 1: a held thread (Documentation/pt.rst, "Continuous mode:
# the hold") that takes signals stays lossless. pt_flow_sig runs
# pt_flow_threads' two threads, each with its own SIGALRM timer
# (CLOCK_MONOTONIC, so it also lands while the thread waits in the kernel,
# held or not) and SIGPROF timer (its CPU clock) at 1 kHz, with SA_RESTART
# handlers that run code, at most 16 signals of each timer per 128 rounds
# of the thread's loop (their number follows its progress, not the wall
# clock: pt_flow_sig.c's SIG_BUDGET). ptcap --mode=continuous --size=8K
# --region-size=4K on lwpt_sim.ko (full) under pt_nmi_first_acker 0/1 x
# pt_pmi_skid 0/256: ptcap exits 0, nothing lost, each thread was held and
# took signals, and each thread's flow decoded by libipt equals ptrace
# single-stepping once the signals' own instructions (the handler and its
# restorer, section sigtext) are dropped and a SYSCALL that a signal
# interrupted and SA_RESTART ran again is folded (the ground truth runs
# with timers that never fire: where a signal lands is timing).
# Before the fix the hold ended for good at the first signal that came
# while it waited (a loss and a cut at the next gate), and ptcap's own
# ptrace of the command stopped it at every signal until its next 20 ms
# poll: with 1 kHz timers the command never got to run.
# Then the issue's reproducer: the process's ITIMER_REAL and ITIMER_PROF
# every 20 ms (pt_flow_sig -i) under acker 1 and skid 256 ends, lossless.
# The interval in nine digits, read the same way whatever they are: the
# same instructions and stack layout in both runs (pt_flow_sig.c).
HOLD_ROUNDS="2000 000001000"
. /lwpt/lib.sh
HOLD_PROG=/bin/pt_flow_sig

set -- $(/bin/pt_flow_sig -r)
sig_lo=$1 sig_hi=$2

# sig_fold IN OUT: IN's addresses without sigtext's, repeats folded.
sig_fold() {
	awk -v lo="$sig_lo" -v hi="$sig_hi" '
		function num(h,   i, n) { n = 0; for (i = 1; i <= length(h); i++)
			n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return n }
		BEGIN { l = num(lo); h = num(hi) }
		{ a = num($0); if (a >= l && a < h) { sig++; next } if ($0 != last) print; last = $0 }
		END { print sig > "/tmp/sig.count" }' "$1" >"$2"
}

# The ground truth: timers armed (the same system calls) that never fire.
env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gtr0.txt -T /tmp/gtr1.txt \
	$HOLD_PROG 2000 999999999 2>/tmp/gt.err
hold_rc=$?
[ $hold_rc -lt 100 ] || fail "pt_flow_gt -T: $hold_rc $(cat /tmp/gt.err)" || exit 1
for t in 0 1; do
	sig_fold /tmp/gtr$t.txt /tmp/gt$t.txt
	[ "$(wc -l </tmp/gt$t.txt)" -gt 10000 ] ||
		fail "ground truth $t: $(wc -l </tmp/gt$t.txt) instructions" || exit 1
done
ok "ground truth: $(wc -l </tmp/gt0.txt) and $(wc -l </tmp/gt1.txt) instructions (exit $hold_rc)"

for combo in full:0:0 full:0:256 full:1:0 full:1:256; do
	hold_capture "$combo" || exit 1
	[ $hold_st -eq 0 ] && grep -qx 'losses 0' /tmp/hold/config ||
		fail "$hold_what: ptcap status $hold_st: $(cat /tmp/ptcap.out)" || exit 1
	held=0
	for t in 0 1; do
		eval f=\$hold_f$t
		grep -q "^status\.$f .* lost=0 " /tmp/hold/config ||
			fail "$hold_what: $f: $(grep "^status\.$f " /tmp/hold/config)" || exit 1
		h=$(sed -n "s/^status\.$f .* holds=\([0-9]*\).*/\1/p" /tmp/hold/config)
		held=$((held + ${h:-0}))
		ptflow --no-symbols --no-inst --pt "/tmp/hold/$f" --elf $HOLD_PROG >/tmp/flow.out 2>&1
		grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flowr.txt
		sig_fold /tmp/flowr.txt /tmp/flow.txt
		n_sig=$(cat /tmp/sig.count)
		[ "${n_sig:-0}" -gt 0 ] || {
			echo "$f: $(wc -l </tmp/flowr.txt) addresses, $(grep -c '^\[' /tmp/flow.out) other lines: $(grep '^\[' /tmp/flow.out | sort | uniq -c | head -n 5)"
			cat /tmp/ptcap.out
			cmp /tmp/gt$t.txt /tmp/flow.txt
			fail "$hold_what: $f: no signal handler in the flow"
			exit 1
		}
		cmp -s /tmp/gt$t.txt /tmp/flow.txt || {
			echo "first difference (ground truth | libipt flow, signals dropped):"
			diff /tmp/gt$t.txt /tmp/flow.txt | head -n 10
			fail "$hold_what: $f: flow ($(wc -l </tmp/flow.txt)) differs from the ground truth ($(wc -l </tmp/gt$t.txt))"
			exit 1
		}
		eval n_sig$t=$n_sig
	done
	[ $held -gt 0 ] || fail "$hold_what: never held: $(grep '^status' /tmp/hold/config)" || exit 1
	hold_unload || exit 1
	ok "$hold_what: lossless, $held hold(s), $n_sig0 and $n_sig1 signal-handler instructions, both flows = single-stepping"
done

# The issue's reproducer: the process's interval timers every 20 ms.
HOLD_ROUNDS="-i 2000 000020000"
hold_capture full:1:256 || exit 1
[ $hold_st -eq 0 ] && grep -qx 'losses 0' /tmp/hold/config ||
	fail "$hold_what: ptcap status $hold_st: $(cat /tmp/ptcap.out)" || exit 1
hold_unload || exit 1
ok "$hold_what: ITIMER_REAL + ITIMER_PROF every 20 ms: ptcap exit 0, nothing lost"
