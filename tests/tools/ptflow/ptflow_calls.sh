#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of ptflow's views (issue 15; Documentation/ptflow.rst, "Call
# trace", "Hot spots", "Timeline export", "Symbols") on the traces the PT
# generator writes of a real program (tests/model/pt/trace_flow_test.c,
# $LWPT_TRACE_FLOW_DUMP), against ground truth from ptrace single-stepping
# (tests/vm/progs/pt_flow_gt.c, the VM's program, built for the host too):
#
# - --calls equals `pt_flow_gt -c` (every call and return, same order,
#   same depth) for each configuration the generator traced;
# - --report's self instruction counts equal the single-step counts per
#   function (the ground truth's addresses named by the same symbols);
# - --export=chrome parses as JSON, every event nests in its parent,
#   durations are non-negative, events are ordered, and they are exactly
#   the activations of the call trace;
# - symbols and --line from DWARF; a stripped copy prints addresses only,
#   with a note.
#
# Ends with "N passed, N failed".
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
PTFLOW=${PTFLOW:-$O/bin/ptflow}
GT=$O/tests/pt_flow_gt
GEN=$O/tests/test_pt_trace_flow
PROG=$O/tests/trace_flow_prog

for f in "$PTFLOW" "$GT" "$GEN" "$PROG"; do
	[ -x "$f" ] || { fail "$f not built (run make all tests $GT)"; finish; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptflow-calls.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# The traces: trace_flow_N.pt, N = the configurations of test_flow_full
# (0 default, 1 DisRETC, 2 TSC+MTC, 3 TNT-64, 4 CR3 filter).
LWPT_TRACE_FLOW_PROG=$PROG LWPT_TRACE_FLOW_DUMP=$tmp CK_RUN_CASE=libipt \
	"$GEN" >"$tmp/gen.out" 2>&1
[ -f "$tmp/trace_flow_2.pt" ] || { fail "no traces: $(tail -n 3 "$tmp/gen.out")"; finish; }
params="--mtc-freq 3 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308 --tsc-freq 2000000000"

# Ground truth, with the empty environment the generator's capture uses.
env -i "$GT" -c -o "$tmp/gt_calls" "$PROG" >/dev/null 2>&1
env -i "$GT" -o "$tmp/gt_flow" "$PROG" >/dev/null 2>&1
[ "$(wc -l <"$tmp/gt_calls")" -gt 1000 ] && pass ||
	fail "ground truth call trace: $(wc -l <"$tmp/gt_calls") lines"

# ---- --calls = ground truth ---------------------------------------------
# Columns: 12 time, 2, 10 thread, 2, then the indented call/return text.
# Events single-stepping does not see (tracing enabled at the start,
# interrupts) are left out of the comparison.
calls_text() {
	cut -c27- | grep -vE '^ *(enabled|disabled|interrupt|gap|overflow)( |$)'
}
for n in 0 1 2 3 4; do
	# shellcheck disable=SC2086
	"$PTFLOW" --calls --no-symbols --pt "$tmp/trace_flow_$n.pt" --elf "$PROG" \
		$params >"$tmp/calls$n" 2>"$tmp/calls$n.err"
	rc=$?
	calls_text <"$tmp/calls$n" >"$tmp/calls$n.txt"
	if [ $rc -eq 0 ] && cmp -s "$tmp/gt_calls" "$tmp/calls$n.txt"; then
		pass
	else
		fail "trace $n: --calls differs from single-stepping (rc $rc)"
		diff "$tmp/gt_calls" "$tmp/calls$n.txt" | head -n 10
	fi
done

# Time column: ns, never decreasing (libipt's estimate from TSC/TMA/MTC).
awk '{ if ($1 + 0 < last) bad = 1; last = $1 + 0 } END { exit bad }' "$tmp/calls2" &&
	pass || fail "--calls: time goes back"
# With symbols: the names the ELF symbol table gives.
# shellcheck disable=SC2086
"$PTFLOW" --calls --pt "$tmp/trace_flow_2.pt" --elf "$PROG" $params \
	>"$tmp/named" 2>/dev/null
grep -qE '^ +[0-9]+  -  +  call main$' "$tmp/named" &&
	grep -qE ' call recurse$' "$tmp/named" && grep -qE ' return recurse$' "$tmp/named" &&
	pass || fail "--calls with symbols: $(head -n 3 "$tmp/named")"

# ---- A system-wide capture directory (issue 15 point 5) -----------------
# trace_flow_2.pt (TSC + MTC) as cpu0.pt of a hand-built `ptcap -a`
# directory (Documentation/ptcap-format.rst): the switch records put
# process 100 on CPU 0 from TSC 0 on, `processes` gives it the program's
# PT_LOAD segments. Every piece is then 100's: `ptflow --pid 100` equals
# the ground truth; --pid 101 decodes nothing; with 100 missing (exited
# before ptcap read it) nothing is decoded and nothing is an error.
sys=$tmp/sys
mkdir -p "$sys"
cp "$tmp/trace_flow_2.pt" "$sys/cpu0.pt"
printf 'lwpt-ptcap-config 1\nmode per-cpu\nmtc-freq 3\ncpuid-0x15.eax 2\ncpuid-0x15.ebx 308\ntsc-freq 2000000000\n' >"$sys/config"
printf 'lwpt-ptcap-maps 1\n# system-wide capture: no process maps\n' >"$sys/maps"
printf 'lwpt-ptcap-switches 1\n0 0 0/0 100/100 prev-idle\n' >"$sys/switches"
{
	echo 'lwpt-ptcap-maps 1'
	# LOAD Offset VirtAddr PhysAddr FileSiz MemSiz ...: the file bytes.
	readelf -lW "$PROG" | awk '$1 == "LOAD" { print $2, $3, $5 }' |
		while read -r off va fsz; do
			printf '%s 0x%x %s %s\n' "$va" $((va + fsz)) "$off" "$PROG"
		done
} >"$sys/maps.100.0"
printf 'lwpt-ptcap-processes 1\n100 0 0 0 0x0 maps.100.0 trace_flow_prog\n' >"$sys/processes"
"$PTFLOW" --no-inst --no-symbols --pid 100 --stat "$sys" >"$tmp/sys.out" 2>"$tmp/sys.err"
rc=$?
grep -E '^[0-9a-f]{16}$' "$tmp/sys.out" >"$tmp/sys.addr"
if [ $rc -eq 0 ] && cmp -s "$tmp/gt_flow" "$tmp/sys.addr" &&
	grep -q '^\[thread 100/100 trace_flow_prog\]$' "$tmp/sys.out" &&
	grep -q '^pieces-not-decoded: 0$' "$tmp/sys.out"; then
	pass
else
	fail "system-wide --pid 100: rc $rc, $(wc -l <"$tmp/sys.addr") of $(wc -l <"$tmp/gt_flow") instructions: $(cat "$tmp/sys.err")"
fi
"$PTFLOW" --no-inst --no-symbols --pid 101 "$sys" >"$tmp/sys101.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -qE '^[0-9a-f]{16}$' "$tmp/sys101.out" && pass ||
	fail "system-wide --pid 101: rc $rc: $(tail -n 2 "$tmp/sys101.out")"
"$PTFLOW" --calls --no-symbols "$sys" >"$tmp/syscalls" 2>/dev/null
grep -v "^\\[" "$tmp/syscalls" | calls_text >"$tmp/syscalls.txt"
cmp -s "$tmp/gt_calls" "$tmp/syscalls.txt" && grep -q '^ *[0-9]*  100/100  ' "$tmp/syscalls" && pass ||
	fail "system-wide --calls: $(diff "$tmp/gt_calls" "$tmp/syscalls.txt" | head -n 4)"
# Corrupt traces and random switch records between two processes with the
# same maps: never a crash, an exit status above 1 or a timeline that does
# not parse, whatever is selected.
printf 'lwpt-ptcap-processes 1\n100 0 0 0 0x0 maps.100.0 a\n101 0 0 0 0x0 maps.100.0 b\n' >"$sys/processes"
size=$(wc -c <"$tmp/trace_flow_2.pt")
bad=0
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
	cp "$tmp/trace_flow_2.pt" "$sys/cpu0.pt"
	for k in 1 2 3 4 5 6; do
		off=$(( (seed * 7919 * k + k * 104729) % size ))
		printf "\\$(printf %o $(( (seed * k * 37) % 256 )))" |
			dd of="$sys/cpu0.pt" bs=1 seek="$off" conv=notrunc 2>/dev/null
	done
	awk -v seed="$seed" 'BEGIN { srand(seed); print "lwpt-ptcap-switches 1"; cur = "0/0"
		split("100/100 101/101 0/0 100/102", who, " ")
		for (i = 0; i < 30; i++) { t += int(rand() * 3000000); n = who[1 + int(rand() * 4)]
			print t, 0, cur, n; cur = n } }' >"$sys/switches"
	for sel in "" "--pid 101"; do
		# shellcheck disable=SC2086
		timeout 120 "$PTFLOW" --calls --report --export=chrome "$tmp/s.json" $sel "$sys" \
			>"$tmp/s.out" 2>"$tmp/s.err"
		rc=$?
		if [ $rc -gt 1 ] || grep -qE 'Sanitizer|runtime error' "$tmp/s.err"; then
			bad=$((bad + 1)); echo "system-wide corruption $seed $sel: rc=$rc $(head -n 3 "$tmp/s.err")"
		elif command -v python3 >/dev/null && ! python3 -m json.tool "$tmp/s.json" >/dev/null; then
			bad=$((bad + 1)); echo "system-wide corruption $seed $sel: JSON does not parse"
		fi
	done
done
[ $bad -eq 0 ] && pass || fail "$bad bad system-wide corruptions"
cp "$tmp/trace_flow_2.pt" "$sys/cpu0.pt"
printf 'lwpt-ptcap-switches 1\n0 0 0/0 100/100 prev-idle\n' >"$sys/switches"
printf 'lwpt-ptcap-processes 1\n100 missing\n' >"$sys/processes"
"$PTFLOW" --no-inst --no-symbols --stat "$sys" >"$tmp/sysm.out" 2>"$tmp/sysm.err"
rc=$?
[ $rc -eq 0 ] && ! grep -qE '^[0-9a-f]{16}$' "$tmp/sysm.out" &&
	grep -q '^\[not decoded at offset 0x[0-9a-f]*: process without maps, thread 100/100\]$' "$tmp/sysm.out" &&
	grep -q 'process without maps' "$tmp/sysm.err" && pass ||
	fail "system-wide, process missing: rc $rc: $(head -n 5 "$tmp/sysm.out") $(cat "$tmp/sysm.err")"

# A piece that cannot be decoded costs only itself (ptflow_resume.h): one
# early span of trace_flow_2.pt (before the first PSB after the start, so
# that later spans before that PSB follow it) given by the switch records
# to process 101, which exited unread. --pid 100 then decodes the ground
# truth without exactly that span's instructions (one contiguous block),
# no piece is lost, and the --calls times after it are those of the
# decoding without the switch (the timing packets before the span are
# replayed). The span: the first k >= 2 whose neighbours' time bounds
# (ptflow.rst) leave room for a switch on each side: 100 -> 101 at the
# first time after span k-1 ended, 101 -> 100 at the first after span k.
ptdump_time() {
	"$O/bin/ptdump" --time --mtc-freq 3 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308 "$1" 2>/dev/null
}
pick=$(ptdump_time "$tmp/trace_flow_2.pt" | awk '
	function hex(s,   i, v) { for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	$2 == "psb" { if (n) psbs++ }
	/ tsc  [0-9a-f]+$/ { t = hex($NF)
		for (; done < n && ended[done + 1] && lo[done + 1] < t; done++) hi[done + 1] = t }
	$2 == "tip.pge" { n++; before[n] = psbs }
	$2 == "tip.pgd" { lo[n] = t; ended[n] = 1 }
	END { for (k = 2; k < n; k++)
		if (!before[k + 1] && hi[k - 1] && hi[k] && hi[k - 1] <= lo[k] && hi[k] <= lo[k + 1]) {
			print hi[k - 1], hi[k]; exit } }')
set -- $pick
if [ $# -eq 2 ]; then
	printf 'lwpt-ptcap-switches 1\n0 0 0/0 100/100 prev-idle\n%s 0 100/100 101/101\n%s 0 101/101 100/100\n' \
		"$1" "$2" >"$sys/switches"
	printf 'lwpt-ptcap-processes 1\n100 0 0 0 0x0 maps.100.0 trace_flow_prog\n101 missing\n' \
		>"$sys/processes"
	"$PTFLOW" --no-inst --no-symbols --pid 100 --stat "$sys" >"$tmp/res.out" 2>"$tmp/res.err"
	rc=$?
	grep -E '^[0-9a-f]{16}$' "$tmp/res.out" >"$tmp/res.addr"
	# Ground truth = the decoded flow with one block (n - m lines) added.
	cut=$(awk 'NR == FNR { g[++n] = $0; next } { d[++m] = $0 }
		END { for (p = 0; p < m && d[p + 1] == g[p + 1]; p++);
			for (s = 0; s < m - p && d[m - s] == g[n - s]; s++);
			print (p + s == m && m < n && p > 0) ? n - m : -1 }' "$tmp/gt_flow" "$tmp/res.addr")
	if [ $rc -eq 0 ] && [ "$cut" -gt 0 ] && grep -q '^pieces-lost: 0$' "$tmp/res.out" &&
		grep -q '^pieces-not-decoded: 1$' "$tmp/res.out"; then
		pass
	else
		fail "skipped span: rc $rc, $(wc -l <"$tmp/res.addr") of $(wc -l <"$tmp/gt_flow") instructions, block $cut: $(cat "$tmp/res.err")"
	fi
	# Time and event, without thread column, depth and the unwinds that
	# the missing returns cause; the last lines, all after the span.
	timed() {
		grep -v '^\[' | sed -E 's/^ *([0-9]+) +[^ ]+ +/\1 /' | grep -vE '^[0-9]+ (unwind|enabled) '
	}
	"$PTFLOW" --calls --no-symbols "$sys" 2>/dev/null | timed >"$tmp/res.calls"
	timed <"$tmp/syscalls" >"$tmp/full.calls"
	n=$(($(wc -l <"$tmp/res.calls") - 200))
	tail -n $n "$tmp/res.calls" >"$tmp/res.tail"
	tail -n $n "$tmp/full.calls" >"$tmp/full.tail"
	[ $n -gt 1000 ] && cmp -s "$tmp/full.tail" "$tmp/res.tail" && pass ||
		fail "skipped span: --calls after it differ from the full decoding: $(diff "$tmp/full.tail" "$tmp/res.tail" | head -n 4)"
else
	fail "no span of trace_flow_2.pt to skip: $pick"
fi

# ---- --report = per-function single-step counts -------------------------
# shellcheck disable=SC2086
"$PTFLOW" --no-inst --pt "$tmp/trace_flow_2.pt" --elf "$PROG" $params \
	>"$tmp/flow" 2>/dev/null
grep -E '^[0-9a-f]{16}' "$tmp/flow" | cut -c1-16 >"$tmp/flow.addr"
cmp -s "$tmp/flow.addr" "$tmp/gt_flow" && pass ||
	fail "flow differs from single-stepping"
# Ground truth per function: its addresses named by ptflow's symbols.
grep -E '^[0-9a-f]{16}' "$tmp/flow" |
	sed -E 's/^[0-9a-f]{16} <([^>+]*)(\+0x[0-9a-f]+)?>.*/\1/;t;s/.*/[unknown in trace_flow_prog]/' |
	sort | uniq -c | awk '{ n = $1; $1 = ""; print substr($0, 2) "=" n }' |
	sort >"$tmp/gt_count"
# shellcheck disable=SC2086
"$PTFLOW" --report --pt "$tmp/trace_flow_2.pt" --elf "$PROG" $params \
	>"$tmp/report" 2>"$tmp/report.err"
rc=$?
# Rows: self, total, self-%, calls, self-ns, total-ns, then the name.
awk 'NR > 2 { n = $1; $1 = $2 = $3 = $4 = $5 = $6 = ""; sub(/^ +/, "");
	print $0 "=" n }' "$tmp/report" | sort >"$tmp/rep_count"
[ $rc -eq 0 ] && cmp -s "$tmp/gt_count" "$tmp/rep_count" && pass ||
	{ fail "--report self counts differ from single-stepping (rc $rc)";
	  diff "$tmp/gt_count" "$tmp/rep_count" | head; }
head -n 1 "$tmp/report" | grep -q "^\[report -: $(wc -l <"$tmp/gt_flow") instructions, [0-9]* ns\]$" &&
	pass || fail "--report heading: $(head -n 1 "$tmp/report")"
# main: total = everything between its call and return; called once.
awk '$NF == "main" { exit !($4 == 1 && $2 > $1) }' "$tmp/report" && pass ||
	fail "--report main row: $(grep ' main$' "$tmp/report")"
# Sorted by self instructions.
awk 'NR > 2 { if (NR > 3 && $1 > last) bad = 1; last = $1 } END { exit bad }' \
	"$tmp/report" && pass || fail "--report not sorted"

# ---- --export=chrome ------------------------------------------------------
# shellcheck disable=SC2086
"$PTFLOW" --export=chrome "$tmp/t.json" --calls --pt "$tmp/trace_flow_2.pt" \
	--elf "$PROG" $params >"$tmp/ec" 2>"$tmp/ec.err"
rc=$?
if [ $rc -eq 0 ] && command -v python3 >/dev/null; then
	python3 -m json.tool "$tmp/t.json" >/dev/null && pass || fail "JSON does not parse"
	# Nesting, order, durations; and the events are the call trace's
	# activations: in begin order, (depth, name) of each call line, after
	# the outermost frame.
	python3 - "$tmp/t.json" "$tmp/ec" <<'PY' && pass || fail "chrome export checks"
import json, sys
doc = json.load(open(sys.argv[1]))
ev = [e for e in doc["traceEvents"] if e["ph"] == "X"]
assert ev, "no events"
# Times in integer ns (the file has microseconds with 3 decimals).
stack, last = [], -1
for e in ev:
    ts, dur, d = round(e["ts"] * 1000), round(e["dur"] * 1000), e["args"]["depth"]
    assert dur >= 0, e
    assert ts >= last, ("not ordered", e)
    last = ts
    # The enclosing event is the last one of depth d - 1 (times alone
    # cannot tell a zero-length call at its parent's end).
    while stack and stack[-1][2] >= d:
        stack.pop()
    if stack:
        assert stack[-1][2] == d - 1, ("depth", e, stack[-1])
        assert stack[-1][0] <= ts and ts + dur <= stack[-1][1], ("does not nest", e, stack[-1])
    else:
        assert d == 0, ("no parent", e)
    stack.append((ts, ts + dur, d))
calls = []
for line in open(sys.argv[2]):
    text = line[26:].rstrip("\n")
    body = text.lstrip(" ")
    if body.startswith("call "):
        calls.append(((len(text) - len(body)) // 2 + 1, body[5:]))
got = [(e["args"]["depth"], e["name"]) for e in ev if e["args"]["depth"] > 0]
assert got == calls, ("events differ from the call trace", got[:5], calls[:5])
PY
else
	fail "--export=chrome: rc=$rc $(cat "$tmp/ec.err")"
fi

# ---- symbols --------------------------------------------------------------
# shellcheck disable=SC2086
"$PTFLOW" --line --no-inst --pt "$tmp/trace_flow_2.pt" --elf "$PROG" $params \
	>"$tmp/line" 2>/dev/null
grep -qE '^[0-9a-f]{16} <main> .*trace_flow_prog\.c:[0-9]+$' "$tmp/line" && pass ||
	fail "--line: $(grep -m1 '<main' "$tmp/line")"
# A stripped copy: addresses only, never a wrong name, and a note.
strip -o "$tmp/stripped" "$PROG"
# shellcheck disable=SC2086
"$PTFLOW" --no-inst --pt "$tmp/trace_flow_2.pt" --elf "$tmp/stripped" $params \
	>"$tmp/s.out" 2>"$tmp/s.err"
grep -E '^[0-9a-f]{16}' "$tmp/s.out" >"$tmp/s.addr"
cmp -s "$tmp/flow.addr" "$tmp/s.addr" && grep -q 'stripped' "$tmp/s.err" && pass ||
	fail "stripped: $(head -n 2 "$tmp/s.out") $(cat "$tmp/s.err")"

# ---- corrupt traces: the views never crash, JSON stays valid --------------
size=$(wc -c <"$tmp/trace_flow_2.pt")
bad=0
for seed in 1 2 3 4 5 6 7 8 9 10 11 12; do
	cp "$tmp/trace_flow_2.pt" "$tmp/corrupt.pt"
	awk -v seed=$seed -v size="$size" 'BEGIN { srand(seed)
		for (i = 0; i < 4; i++)
			printf "%d %d\n", int(rand() * size), int(rand() * 256) }' |
	while read -r off val; do
		# shellcheck disable=SC2059 # octal escape built on purpose
		printf "\\$(printf '%03o' "$val")" |
			dd of="$tmp/corrupt.pt" bs=1 seek="$off" conv=notrunc 2>/dev/null
	done
	# shellcheck disable=SC2086
	timeout 120 "$PTFLOW" --calls --report --export=chrome "$tmp/c.json" \
		--pt "$tmp/corrupt.pt" --elf "$PROG" $params >"$tmp/c.out" 2>"$tmp/c.err"
	rc=$?
	if [ $rc -gt 1 ] || grep -qE 'Sanitizer|runtime error' "$tmp/c.err"; then
		bad=$((bad + 1)); echo "corruption seed $seed: rc=$rc $(head -n 3 "$tmp/c.err")"
	elif command -v python3 >/dev/null && ! python3 -m json.tool "$tmp/c.json" >/dev/null; then
		bad=$((bad + 1)); echo "corruption seed $seed: JSON does not parse"
	fi
done
[ $bad -eq 0 ] && pass || fail "$bad bad corruptions"

finish
