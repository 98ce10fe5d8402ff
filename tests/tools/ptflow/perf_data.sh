#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# ptflow and ptdump on perf.data files (issue 24 points 1 and 3):
#
# - the DynamoRIO trace of ../shared/testdata/pt/real/dynamorio as a ptcap
#   directory (as tests/tools/ptflow/ptflow.sh builds it) and as perf.data
#   written from it by tests/libpt/mkperf.c (file format with index, pipe
#   format from stdin, COMPRESSED sideband): the same flow; --symfs finds a
#   binary below DIR/recorded-path, a missing one is named once and never
#   guessed; --pid/--tid, --time, --calls, --report, --export=chrome;
# - the perf 4.14 recordings of ../shared/testdata/perf (binaries absent):
#   missing code named, no crash, ptdump shows each CPU's trace;
# - bad input: every truncation class, flipped bytes, a perf.data without
#   AUX data, a pipe cut mid-record: a message, exit 1, never a crash or a
#   hang (each run under timeout).
#
# Skips with a message when ../shared ($LWPT_SHARED) is absent.
# Ends with "N passed, N failed".
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
PTFLOW=$O/bin/ptflow
PTDUMP=$O/bin/ptdump
MKPERF=$O/tests/mkperf
dyn=$shared/testdata/pt/real/dynamorio
real=$shared/testdata/perf

run() { timeout 60 "$@"; }

if [ ! -d "$dyn" ] || [ ! -d "$real" ]; then
	echo "SKIP: no $dyn or $real (../shared or \$LWPT_SHARED)"
	finish
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# ---- the DynamoRIO trace: ptcap directory and perf.data ----
cap=$tmp/cap
mkdir "$cap"
cp "$dyn/dynamorio.pt" "$cap/tid1234.pt"
cp "$dyn/hello" "$cap/hello"
# The decoder parameters mkperf writes into AUXTRACE_INFO
# (tests/libpt/perf_writer.h): the same in both.
cat > "$cap/config" <<'EOF'
lwpt-ptcap-config 1
mode per-thread
mtc-freq 3
nom-freq 12
cpuid-0x15.eax 2
cpuid-0x15.ebx 100
tsc-freq 1200000000
thread.tid1234.pt tid=1234 pid=1
EOF
cat > "$cap/maps" <<EOF
lwpt-ptcap-maps 1
0x400000 0x4000e8 0x0 hello
0x401000 0x401027 0x1000 hello
0x402000 0x40200e 0x2000 hello
EOF
run "$PTFLOW" --no-symbols "$cap" > "$tmp/dir.out" 2> "$tmp/dir.err" ||
	fail "ptflow DIR: $(cat "$tmp/dir.err")"
grep -c . "$tmp/dir.out" | grep -qv '^[0-2]$' && pass ||
	fail "ptflow DIR decoded nothing"

"$MKPERF" "$cap" "$tmp/f.data" && "$MKPERF" --pipe "$cap" "$tmp/p.data" &&
	"$MKPERF" --compress "$cap" "$tmp/c.data" &&
	"$MKPERF" --as-is "$cap" "$tmp/asis.data" && pass || fail "mkperf"

run "$PTFLOW" --no-symbols "$tmp/f.data" > "$tmp/f.out" 2> "$tmp/f.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/dir.out" "$tmp/f.out" && pass ||
	{ fail "perf.data (file format): rc=$rc $(cat "$tmp/f.err")"; diff "$tmp/dir.out" "$tmp/f.out" | head; }
run "$PTFLOW" --no-symbols - < "$tmp/p.data" > "$tmp/p.out" 2> "$tmp/p.err"
rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/dir.out" "$tmp/p.out" && pass ||
	fail "perf.data (pipe format, stdin): rc=$rc $(cat "$tmp/p.err")"
cat "$tmp/p.data" | run "$PTFLOW" --no-symbols - > "$tmp/p2.out" 2>&1
cmp -s "$tmp/dir.out" "$tmp/p2.out" && pass || fail "perf.data from a pipe"
run "$PTFLOW" --no-symbols "$tmp/c.data" > "$tmp/c.out" 2> "$tmp/c.err"
cmp -s "$tmp/dir.out" "$tmp/c.out" && pass ||
	fail "perf.data with COMPRESSED records: $(cat "$tmp/c.err")"

# --symfs: maps name "hello" as recorded (relative, absent here); below
# DIR it is found, without it it is named once and not decoded.
(cd "$tmp" && run "$PTFLOW" --no-symbols asis.data > "$tmp/miss.out" 2> "$tmp/miss.err")
rc=$?
[ "$(grep -c 'hello: code unavailable' "$tmp/miss.err")" -eq 1 ] && [ $rc -eq 1 ] && pass ||
	fail "missing binary: rc=$rc $(head -3 "$tmp/miss.err")"
mkdir "$tmp/symfs"
cp "$dyn/hello" "$tmp/symfs/hello"
(cd "$tmp" && run "$PTFLOW" --no-symbols --symfs "$tmp/symfs" asis.data > "$tmp/symfs.out" 2>&1)
cmp -s "$tmp/dir.out" "$tmp/symfs.out" && pass || fail "--symfs: $(head -3 "$tmp/symfs.out")"

# The options that work on a ptcap directory work on the perf.data.
for o in "--tid 1234" "--pid 1" "--time" "--calls" "--report" "--stat --quiet"; do
	# shellcheck disable=SC2086
	run "$PTFLOW" $o "$cap" > "$tmp/o.dir" 2>&1
	# shellcheck disable=SC2086
	run "$PTFLOW" $o "$tmp/f.data" > "$tmp/o.perf" 2>&1
	cmp -s "$tmp/o.dir" "$tmp/o.perf" && pass || fail "ptflow $o: differs from the directory"
done
run "$PTFLOW" --export=chrome "$tmp/chrome.json" "$tmp/f.data" > /dev/null 2>&1 &&
	python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/chrome.json" && pass ||
	fail "--export=chrome on a perf.data"
run "$PTFLOW" --tid 99 "$tmp/f.data" > /dev/null 2> "$tmp/tid.err"
[ $? -eq 2 ] && grep -q 'no per-thread trace' "$tmp/tid.err" && pass || fail "--tid 99"

# ptdump: the same packets as the trace file.
run "$PTDUMP" "$cap/tid1234.pt" > "$tmp/dump.dir" 2>&1
run "$PTDUMP" "$tmp/f.data" > "$tmp/dump.perf" 2>&1
sed 1d "$tmp/dump.perf" | cmp -s - "$tmp/dump.dir" &&
	head -1 "$tmp/dump.perf" | grep -q "^== $tmp/f.data:tid1234.pt$" && pass ||
	fail "ptdump perf.data: $(head -3 "$tmp/dump.perf")"

# ---- the perf 4.14 recordings (real hardware, binaries absent) ----
for f in perf.data.intel_pt-4.14 perf.data.piped.intel_pt-4.14; do
	run "$PTFLOW" "$real/$f" > "$tmp/r.out" 2> "$tmp/r.err"
	rc=$?
	[ $rc -le 1 ] && [ "$(grep -c '/usr/bin/coreutils: code unavailable' "$tmp/r.err")" -eq 1 ] &&
		grep -q 'kernel.kallsyms.*code unavailable' "$tmp/r.err" && pass ||
		fail "ptflow $f: rc=$rc $(head -3 "$tmp/r.err")"
	# A workload's recording (perf record -- echo): its intel_pt event
	# follows the workload only, so every piece is its one thread's (no
	# switch of another task is left inside a piece's bounds), and each
	# starts in the kernel, whose code is absent (perf-data.rst "Limits").
	n=$(grep -c '^\[not decoded' "$tmp/r.out")
	[ "$n" -ge 10 ] && [ "$(grep -c 'starts in the kernel, whose code is absent' "$tmp/r.out")" -eq "$n" ] &&
		[ "$(grep '^\[not decoded' "$tmp/r.out" | sed 's/.*, thread //' | sort -u | wc -l)" -eq 1 ] &&
		pass || fail "ptflow $f: pieces not all the workload's: $(grep '^\[not' "$tmp/r.out" | head -3)"
	for o in --calls --report --time "--pid 3174" "--tid 3174"; do
		# shellcheck disable=SC2086
		run "$PTFLOW" $o "$real/$f" > /dev/null 2>&1
		rc=$?
		[ $rc -le 2 ] && pass || fail "ptflow $o $f: rc=$rc"
	done
	run "$PTDUMP" "$real/$f" > "$tmp/d.out" 2>&1
	[ "$(grep -c "^== $real/$f:cpu[03].pt$" "$tmp/d.out")" -eq 2 ] && pass ||
		fail "ptdump $f: $(grep '^==' "$tmp/d.out")"
done

# ---- bad input: a message, exit 1, never a crash or a hang ----
bad() {	# bad LABEL PATTERN CMD...: exit 1 with PATTERN on stderr
	label=$1
	pat=$2
	shift 2
	"$@" > /dev/null 2> "$tmp/bad.err"
	rc=$?
	[ $rc -eq 1 ] && grep -q "$pat" "$tmp/bad.err" && pass ||
		fail "$label: rc=$rc $(head -2 "$tmp/bad.err")"
}
size=$(wc -c < "$real/perf.data.intel_pt-4.14")
for cut in 8 50 104 700 744 1000 10000 50000 $((size - 1000)); do
	head -c "$cut" "$real/perf.data.intel_pt-4.14" > "$tmp/cut.data"
	bad "ptflow truncated at $cut" 'truncated\|not a perf.data' run "$PTFLOW" "$tmp/cut.data"
done
bad "ptdump truncated" 'truncated' run "$PTDUMP" "$tmp/cut.data"
psize=$(wc -c < "$real/perf.data.piped.intel_pt-4.14")
for cut in 20 1000 12345 $((psize / 2)) $((psize - 7)); do
	head -c "$cut" "$real/perf.data.piped.intel_pt-4.14" |
		bad "pipe cut at $cut" 'truncated\|no Intel PT' run "$PTFLOW" -
done
# pipe format, no AUX data: header and one FINISHED_ROUND record
printf 'PERFILE2\020\0\0\0\0\0\0\0\104\0\0\0\0\0\010\0' > "$tmp/noaux.data"
bad "no AUX data" 'holds no Intel PT data' run "$PTFLOW" "$tmp/noaux.data"
bad "ptdump: no AUX data" 'holds no Intel PT data' run "$PTDUMP" "$tmp/noaux.data"
printf '2ELIFREP\0\0\0\0\0\0\0\020' > "$tmp/swapped.data"
bad "byte-swapped" 'other byte order' run "$PTFLOW" "$tmp/swapped.data"
# flipped bytes: exit 0 or 1 (2 when the magic itself is hit: then it is
# no perf.data), no crash or hang
i=0
crashes=0
while [ $i -lt 60 ]; do
	python3 - "$real/perf.data.intel_pt-4.14" "$tmp/flip.data" "$i" <<'EOF'
import random, sys
data = bytearray(open(sys.argv[1], 'rb').read())
r = random.Random(int(sys.argv[3]))
for _ in range(1 + r.randrange(16)):
    k = r.randrange(len(data) if r.random() < 0.5 else 1500)
    data[k] ^= 1 << r.randrange(8)
open(sys.argv[2], 'wb').write(data)
EOF
	run "$PTFLOW" --quiet "$tmp/flip.data" > /dev/null 2>&1
	rc=$?
	[ $rc -le 2 ] || { crashes=$((crashes + 1)); cp "$tmp/flip.data" "$tmp/crash-$i.data"; }
	i=$((i + 1))
done
[ $crashes -eq 0 ] && pass || fail "flipped bytes: $crashes of 60 runs crashed or hung"
finish
