#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# Script test of tools/pt2perf (Documentation/pt2perf.rst, issue 24 points
# 2 and 3): ptcap directories built from the DynamoRIO trace
# (../shared/testdata/pt/real/dynamorio, README.md there: decode parameters
# cpu 6/85/4, mtc-freq 3, nom-freq 37, CPUID.15H 2/308, TSC 3.696 GHz) are
# converted to perf.data, and Linux perf's own Intel PT decoder (Debian's
# linux-perf 6.1, scripts/install-deps) must find the same instruction flow
# as ptflow (libipt), instruction for instruction:
# - per-thread, timed (TIME_CONV from tsc-freq) and --timeless; perf's
#   times within 1 us of libipt's TSC converted with perf's own formula
#   (tools/perf/util/tsc.c);
# - a gap (gaps.<file>): both decoders start again at the next PSB;
# - ptcap --snapshot (snap.0, then the top directory) in order;
# - two threads of one process, and a per-CPU capture with switches;
# - perf script --itrace=cr, perf report --itrace, perf inject run, the
#   header names the event and the CPU, the build-id of a mapped file is
#   the one readelf shows;
# - -o -: perf's pipe format on standard output (perf.data-file-format.txt
#   "Pipe-mode data"), piped into perf script -i - / perf report -i -: the
#   same flow per thread as from the file format, the header's event, CPU
#   and features; libpt's reader (ptflow -) reads it as the file;
# - bad input: a clear message and exit status 1 (2 for usage), no file.
# Skips (exit 0 with a message) without the data or without perf.
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
PT2PERF=$O/bin/pt2perf
PTFLOW=$O/bin/ptflow
PTDUMP=$O/bin/ptdump
dyn=$shared/testdata/pt/real/dynamorio
PERF=${PERF:-perf}

[ -x "$PT2PERF" ] || { fail "$PT2PERF not built (run make)"; finish; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pt2perf-test.XXXXXX") || exit 1
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT INT TERM

# ---- usage and bad input (no data needed) ------------------------------
"$PT2PERF" --help >"$tmp/help" 2>&1 && grep -q -- '--output' "$tmp/help" &&
	grep -q -- '--tsc-freq' "$tmp/help" && pass || fail "--help"
expect_rc() { # <rc> <what> <args...>
	want=$1 what=$2
	shift 2
	"$PT2PERF" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want" ] && [ -s "$tmp/err" ] && [ ! -e "$tmp/bad.data" ] &&
		[ ! -e "$tmp/bad.data.tmp" ] && pass ||
		fail "$what: rc=$rc (want $want): $(cat "$tmp/err")"
}
expect_rc 2 "no output" "$tmp"
expect_rc 2 "no directory" -o "$tmp/bad.data"
expect_rc 2 "unknown option" --bogus "$tmp" -o "$tmp/bad.data"
expect_rc 2 "bad --tsc-freq" --tsc-freq 0 "$tmp" -o "$tmp/bad.data"
expect_rc 1 "missing directory" "$tmp/none" -o "$tmp/bad.data"
expect_rc 1 "not a ptcap directory" "$tmp" -o "$tmp/bad.data"
grep -q 'not a ptcap directory' "$tmp/err" && pass || fail "message: $(cat "$tmp/err")"
mkdir "$tmp/empty"
printf 'lwpt-ptcap-config 1\nmode per-thread\n' >"$tmp/empty/config"
printf 'lwpt-ptcap-maps 1\n' >"$tmp/empty/maps"
expect_rc 1 "no trace" "$tmp/empty" -o "$tmp/bad.data"
printf 'lwpt-ptcap-config 7\n' >"$tmp/empty/config"
expect_rc 1 "config version 7" "$tmp/empty" -o "$tmp/bad.data"

if [ ! -d "$dyn" ]; then
	echo "SKIP: $dyn not found (set LWPT_SHARED); data tests skipped"
	finish
fi
if ! "$PERF" version >/dev/null 2>&1; then
	echo "SKIP: perf not found (Debian package linux-perf, scripts/install-deps)"
	finish
fi

# ---- the DynamoRIO trace as a per-thread ptcap directory -----------------
cap=$tmp/cap
mkdir "$cap"
cp "$dyn/dynamorio.pt" "$cap/tid1234.pt"
cp "$dyn/hello" "$cap/hello"
cat >"$cap/config" <<'EOF'
lwpt-ptcap-config 1
mode per-thread
cpu 6/85/4
mtc-freq 3
nom-freq 37
cpuid-0x15.eax 2
cpuid-0x15.ebx 308
tsc-freq 3696000000
command hello
thread.tid1234.pt tid=1234 pid=1234 buffer=0 exited
EOF
# hello's PT_LOAD segments (readelf -l), and a file with a build-id that
# the trace never enters (its HEADER_BUILD_ID entry is checked).
bid_file=/usr/bin/true
[ -f "$bid_file" ] || bid_file=/bin/true
cat >"$cap/maps" <<EOF
lwpt-ptcap-maps 1
0x400000 0x4000e8 0x0 hello
0x401000 0x401027 0x1000 hello
0x402000 0x40200e 0x2000 hello
0x10000000 0x10001000 0x0 $bid_file
EOF

# ptflow's flow: "<tid> <address>" per instruction, per trace file.
ptflow_flow() { # <dir>
	"$PTFLOW" --no-inst --no-symbols "$1" 2>/dev/null | awk '
		/^\[trace tid[0-9]+\.pt\]/ { t = $2; sub(/^tid/, "", t); sub(/\.pt\]$/, "", t) }
		/^\[trace cpu[0-9]+\.pt\]/ { t = "cpu" }
		/^[0-9a-f]+$/ && length($0) == 16 { sub(/^0+/, ""); print t, $0 }'
}
# perf's flow: the same from perf script's instruction samples.
perf_flow() { # <perf.data> [<tid column name>]
	"$PERF" script -i "$1" --itrace=i0ns -F tid,ip 2>"$tmp/perf.err" |
		awk -v c="${2:-}" '{ print (c != "" ? c : $1), $2 }'
}

"$PT2PERF" "$cap" -o "$tmp/t.data" 2>"$tmp/err" && [ -s "$tmp/t.data" ] &&
	[ ! -e "$tmp/t.data.tmp" ] && pass || fail "pt2perf timed: $(cat "$tmp/err")"
ptflow_flow "$cap" >"$tmp/ptflow.txt"
[ "$(wc -l <"$tmp/ptflow.txt")" -eq 8 ] && pass ||
	fail "ptflow: $(wc -l <"$tmp/ptflow.txt") instructions, expected 8"
perf_flow "$tmp/t.data" >"$tmp/perf.txt"
cmp -s "$tmp/ptflow.txt" "$tmp/perf.txt" && pass ||
	{ fail "timed: perf script's flow differs from ptflow's: $(cat "$tmp/perf.err")"
	  diff "$tmp/ptflow.txt" "$tmp/perf.txt" | head; }

# Times: perf's sample time against libipt's TSC in perf's conversion
# (time_shift 31, time_mult 581029125 at 3.696 GHz, as perf recorded it).
"$PERF" script -i "$tmp/t.data" --itrace=i0ns -F time --ns 2>/dev/null | tr -d ' :.' \
	>"$tmp/perf_ns.txt"
"$PTFLOW" --time --no-inst --no-symbols "$cap" 2>/dev/null | grep -E '^[0-9a-f]{16}  ' |
	while read -r t _; do
		t=$((0x$t))
		echo $(( (t >> 31) * 581029125 + (((t & 0x7fffffff) * 581029125) >> 31) ))
	done >"$tmp/ipt_ns.txt"
paste "$tmp/ipt_ns.txt" "$tmp/perf_ns.txt" |
	awk 'NF != 2 { bad = 1 } { d = $1 - $2; if (d < 0) d = -d; if (d > 1000) bad = 1 }
		END { exit bad || NR != 8 }' && pass ||
	{ fail "perf's times are not libipt's within 1 us"; paste "$tmp/ipt_ns.txt" "$tmp/perf_ns.txt"; }

"$PT2PERF" --timeless "$cap" -o "$tmp/tl.data" 2>"$tmp/err" && pass ||
	fail "pt2perf --timeless: $(cat "$tmp/err")"
perf_flow "$tmp/tl.data" >"$tmp/perf.txt"
cmp -s "$tmp/ptflow.txt" "$tmp/perf.txt" && pass ||
	{ fail "timeless: flows differ"; diff "$tmp/ptflow.txt" "$tmp/perf.txt" | head; }
"$PERF" report -i "$tmp/tl.data" --header-only 2>/dev/null | grep -q 'sample_type = IP|TID|CPU|IDENTIFIER,' &&
	pass || fail "timeless: sample_type has TIME"

# perf's other uses of the file.
"$PERF" script -i "$tmp/t.data" --itrace=cr >"$tmp/cr.txt" 2>"$tmp/err" &&
	grep -q '=>  *401000 _start' "$tmp/cr.txt" && pass ||
	fail "perf script --itrace=cr: $(cat "$tmp/err")"
"$PERF" report -i "$tmp/t.data" --itrace=i0ns --stdio >"$tmp/rep.txt" 2>"$tmp/err" &&
	grep -q 'hello  *\[\.\] _start' "$tmp/rep.txt" && pass ||
	fail "perf report --itrace=i0ns: $(cat "$tmp/err")"
# --itrace=i: one sample per 100 us, none in these 19 us: "no samples".
"$PERF" report -i "$tmp/t.data" --itrace=i --stdio >"$tmp/rep.txt" 2>"$tmp/err"
rc=$?
{ [ $rc -eq 0 ] || grep -q 'has no samples' "$tmp/err"; } && pass ||
	fail "perf report --itrace=i: rc=$rc $(cat "$tmp/err")"
"$PERF" inject -i "$tmp/t.data" -o "$tmp/inj.data" 2>"$tmp/err" && pass ||
	fail "perf inject: $(cat "$tmp/err")"
perf_flow "$tmp/inj.data" >"$tmp/perf.txt"
cmp -s "$tmp/ptflow.txt" "$tmp/perf.txt" && pass || fail "perf inject's output decodes differently"
"$PERF" inject -i "$tmp/t.data" -o "$tmp/inj2.data" --itrace=i0ns 2>"$tmp/err" &&
	[ "$("$PERF" script -i "$tmp/inj2.data" -F ip 2>/dev/null | wc -l)" -eq 8 ] && pass ||
	fail "perf inject --itrace=i0ns: $(cat "$tmp/err")"

# The header: event name, CPU, build-ids; the sideband.
"$PERF" report -i "$tmp/t.data" --header-only >"$tmp/hdr.txt" 2>&1
grep -q '^# event : name = intel_pt//u,' "$tmp/hdr.txt" && pass || fail "no event name in the header"
grep -q '^# cpuid : GenuineIntel,6,85,4$' "$tmp/hdr.txt" && pass || fail "no cpuid in the header"
want=$(readelf -n "$bid_file" 2>/dev/null | sed -n 's/.*Build ID: *//p')
if [ -n "$want" ]; then
	"$PERF" buildid-list -i "$tmp/t.data" 2>/dev/null | grep -q "^$want $bid_file\$" && pass ||
		fail "build-id of $bid_file ($want) not in HEADER_BUILD_ID: $("$PERF" buildid-list -i "$tmp/t.data" 2>&1)"
fi
"$PERF" script -i "$tmp/t.data" --show-mmap-events --show-task-events 2>/dev/null >"$tmp/side.txt"
grep -q 'PERF_RECORD_COMM: hello:1234/1234' "$tmp/side.txt" &&
	grep -q "PERF_RECORD_MMAP2 1234/1234: \[0x401000(0x27) @ 0x1000 .*$cap/hello" "$tmp/side.txt" &&
	pass || fail "sideband: $(head -n 5 "$tmp/side.txt")"

# ---- a gap: the trace cut mid-packet, then a later copy -----------------
# The copy's TSC packet (offset 0x16, payload bytes 0x17-0x1d) is moved 2^48
# ticks later, so the pieces are in time order as in a real capture.
gap=$tmp/gap
cp -r "$cap" "$gap"
cp "$dyn/dynamorio.pt" "$tmp/later.pt"
chmod u+w "$tmp/later.pt"
printf '\060' | dd of="$tmp/later.pt" bs=1 seek=29 conv=notrunc 2>/dev/null
"$PTDUMP" "$tmp/later.pt" 2>/dev/null | grep -q 'tsc  *30a1088fac05e2' && pass ||
	fail "patching the TSC"
# 0x600: after the first five instructions' packets (0x5c2-0x5ce).
head -c 1536 "$dyn/dynamorio.pt" >"$gap/tid1234.pt"
cat "$tmp/later.pt" >>"$gap/tid1234.pt"
echo "gaps.tid1234.pt 1536" >>"$gap/config"
ptflow_flow "$gap" >"$tmp/ptflow.txt"
[ "$(wc -l <"$tmp/ptflow.txt")" -eq 13 ] && pass ||
	fail "gap: ptflow $(wc -l <"$tmp/ptflow.txt") instructions, expected 5 + 8"
for mode in "" --timeless; do
	# shellcheck disable=SC2086 # $mode is empty or one option
	"$PT2PERF" $mode "$gap" -o "$tmp/g.data" 2>"$tmp/err" || fail "gap $mode: $(cat "$tmp/err")"
	perf_flow "$tmp/g.data" >"$tmp/perf.txt"
	cmp -s "$tmp/ptflow.txt" "$tmp/perf.txt" && pass ||
		{ fail "gap $mode: flows differ"; diff "$tmp/ptflow.txt" "$tmp/perf.txt" | head; }
done

# ---- ptcap --snapshot: snap.0, then the top directory --------------------
# Pieces of one queue in that order (snapshot mode): perf's flow is
# ptflow's of snap.0 followed by ptflow's of the top directory.
snap=$tmp/snap
mkdir -p "$snap/snap.0"
cp "$cap/config" "$cap/maps" "$cap/hello" "$snap/"
cp "$cap/config" "$snap/snap.0/"
sed "s| hello\$| $cap/hello|" "$cap/maps" >"$snap/snap.0/maps"
echo "snapshot 0" >>"$snap/snap.0/config"
echo "snapshots 1" >>"$snap/config"
cp "$dyn/dynamorio.pt" "$snap/snap.0/tid1234.pt"
cp "$tmp/later.pt" "$snap/tid1234.pt"
{ ptflow_flow "$snap/snap.0"; ptflow_flow "$snap"; } >"$tmp/ptflow.txt"
"$PT2PERF" "$snap" -o "$tmp/snap.data" 2>"$tmp/err" || fail "snapshots: $(cat "$tmp/err")"
perf_flow "$tmp/snap.data" >"$tmp/perf.txt"
[ "$(wc -l <"$tmp/perf.txt")" -eq 16 ] && cmp -s "$tmp/ptflow.txt" "$tmp/perf.txt" && pass ||
	{ fail "snapshots: flows differ"; diff "$tmp/ptflow.txt" "$tmp/perf.txt" | head; }

# ---- two threads of one process ----------------------------------------
two=$tmp/two
cp -r "$cap" "$two"
cp "$tmp/later.pt" "$two/tid1235.pt"
echo "thread.tid1235.pt tid=1235 pid=1234 buffer=1 exited" >>"$two/config"
ptflow_flow "$two" | sort -s -k1,1 >"$tmp/ptflow.txt"
"$PT2PERF" "$two" -o "$tmp/two.data" 2>"$tmp/err" || fail "two threads: $(cat "$tmp/err")"
perf_flow "$tmp/two.data" | sort -s -k1,1 >"$tmp/perf.txt"
[ "$(grep -c '^1235 ' "$tmp/perf.txt")" -eq 8 ] && cmp -s "$tmp/ptflow.txt" "$tmp/perf.txt" &&
	pass || { fail "two threads: flows differ"; diff "$tmp/ptflow.txt" "$tmp/perf.txt" | head; }

# ---- per-CPU with switches ----------------------------------------------
# cpu0 runs hello (1234) from before the trace's TSC to after it.
pc=$tmp/percpu
mkdir "$pc"
cp "$dyn/dynamorio.pt" "$pc/cpu0.pt"
sed -e 's/^mode per-thread/mode per-cpu/' -e '/^thread\./d' "$cap/config" >"$pc/config"
sed "s| hello\$| $cap/hello|" "$cap/maps" >"$pc/maps"
cat >"$pc/switches" <<'EOF'
lwpt-ptcap-switches 1
13406382048000000 0 0/0 1234/1234 prev-idle
13406382049000000 0 1234/1234 0/0 next-idle
EOF
ptflow_flow "$pc" | sed 's/^cpu /1234 /' >"$tmp/ptflow.txt"
"$PT2PERF" "$pc" -o "$tmp/pc.data" 2>"$tmp/err" || fail "per-CPU: $(cat "$tmp/err")"
perf_flow "$tmp/pc.data" >"$tmp/perf.txt"
[ -s "$tmp/perf.txt" ] && cmp -s "$tmp/ptflow.txt" "$tmp/perf.txt" && pass ||
	{ fail "per-CPU: flows differ: $(cat "$tmp/perf.err")"; diff "$tmp/ptflow.txt" "$tmp/perf.txt" | head; }
"$PT2PERF" --timeless "$pc" -o "$tmp/bad.data" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'needs timestamps' "$tmp/err" && [ ! -e "$tmp/bad.data" ] && pass ||
	fail "per-CPU --timeless must be refused: $(cat "$tmp/err")"
# --per-thread: the CPU's spans written as thread 1234's own trace
# (pt2perf.rst "Per-CPU captures"): the same flow, a per-thread queue.
"$PT2PERF" --per-thread "$pc" -o "$tmp/pt.data" 2>"$tmp/err" || fail "--per-thread: $(cat "$tmp/err")"
perf_flow "$tmp/pt.data" >"$tmp/perf.txt"
grep -q 'one trace per thread: 3 of 3 spans' "$tmp/err" && [ -s "$tmp/perf.txt" ] &&
	cmp -s "$tmp/ptflow.txt" "$tmp/perf.txt" && pass ||
	{ fail "--per-thread: flows differ: $(cat "$tmp/err" "$tmp/perf.err")"; diff "$tmp/ptflow.txt" "$tmp/perf.txt" | head; }
"$PT2PERF" --per-thread --per-cpu "$pc" -o "$tmp/bad.data" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'exclude each other' "$tmp/err" && pass ||
	fail "--per-thread --per-cpu must be refused: $(cat "$tmp/err")"
# Corrupted per-CPU traces through --per-thread, and perf.data written
# from them through ptflow: an error or a file, never a crash or a hang.
mkdir "$tmp/flip"
cp "$pc/config" "$pc/maps" "$pc/switches" "$tmp/flip/"
crashes=0 i=0
while [ $i -lt 60 ]; do
	python3 - "$pc/cpu0.pt" "$tmp/flip/cpu0.pt" "$i" <<'EOF2'
import random, sys
data = bytearray(open(sys.argv[1], 'rb').read())
r = random.Random(int(sys.argv[3]))
for _ in range(1 + r.randrange(8)):
    data[r.randrange(len(data))] ^= 1 << r.randrange(8)
open(sys.argv[2], 'wb').write(data)
EOF2
	timeout 60 "$PT2PERF" -q --per-thread "$tmp/flip" -o "$tmp/flip.data" >/dev/null 2>&1
	rc=$?
	[ $rc -le 2 ] || { crashes=$((crashes + 1)); cp "$tmp/flip/cpu0.pt" "$tmp/crash-$i.pt"; }
	if [ $rc -eq 0 ]; then
		timeout 60 "$PTFLOW" --quiet "$tmp/flip.data" >/dev/null 2>&1
		[ $? -le 2 ] || { crashes=$((crashes + 1)); cp "$tmp/flip.data" "$tmp/crash-$i.data"; }
	fi
	i=$((i + 1))
done
[ $crashes -eq 0 ] && pass || fail "--per-thread on corrupted traces: $crashes of 60 crashed or hung"

# ---- round trip: libpt's perf.data reader (ptflow FILE) ------------------
# ptflow decodes pt2perf's output as it decodes the directory it came from
# (issue 24 point 3: pt2perf of a ptcap directory round-trips).
for pair in "$cap t" "$gap g" "$two two" "$pc pc"; do
	# shellcheck disable=SC2086 # two words: directory and file name
	set -- $pair
	# The flow with its events; per CPU, the thread lines name the comm
	# from the perf.data's COMM records, which a directory without a
	# processes file does not have.
	"$PTFLOW" --no-symbols "$1" 2>/dev/null | grep -v '^\[thread ' >"$tmp/rt_dir.txt"
	"$PTFLOW" --no-symbols "$tmp/$2.data" 2>/dev/null | grep -v '^\[thread ' >"$tmp/rt_perf.txt"
	cmp -s "$tmp/rt_dir.txt" "$tmp/rt_perf.txt" && pass ||
		{ fail "round trip $2.data: ptflow differs from the directory's"
		  diff "$tmp/rt_dir.txt" "$tmp/rt_perf.txt" | head; }
done

# ---- -o -: pipe format into perf and into libpt's reader -----------------
for pair in "$cap t" "$gap g" "$snap snap" "$two two" "$pc pc"; do
	# shellcheck disable=SC2086 # two words: directory and file name
	set -- $pair
	# perf warns that pipe mode may reorder events across threads: the
	# flow per thread (a stable sort by tid) must be the same.
	perf_flow "$tmp/$2.data" | sort -s -k1,1 >"$tmp/file_flow.txt"
	"$PT2PERF" -q "$1" -o - 2>"$tmp/err" |
		"$PERF" script -i - --itrace=i0ns -F tid,ip 2>"$tmp/perf.err" |
		awk '{ print $1, $2 }' | sort -s -k1,1 >"$tmp/pipe_flow.txt"
	[ -s "$tmp/pipe_flow.txt" ] && [ ! -s "$tmp/err" ] &&
		cmp -s "$tmp/file_flow.txt" "$tmp/pipe_flow.txt" && pass ||
		{ fail "pipe $2: perf script -i - differs from the file format: $(cat "$tmp/err")"
		  diff "$tmp/file_flow.txt" "$tmp/pipe_flow.txt" | head; }
	"$PT2PERF" -q "$1" -o - | "$PTFLOW" --no-symbols - 2>/dev/null >"$tmp/rt_pipe.txt"
	"$PTFLOW" --no-symbols "$tmp/$2.data" 2>/dev/null >"$tmp/rt_perf.txt"
	cmp -s "$tmp/rt_perf.txt" "$tmp/rt_pipe.txt" && pass ||
		{ fail "pipe $2: ptflow - differs from ptflow on the file format"
		  diff "$tmp/rt_perf.txt" "$tmp/rt_pipe.txt" | head; }
done
"$PT2PERF" -q "$cap" -o - >"$tmp/p.data" && head -c 8 "$tmp/p.data" | grep -q '^PERFILE2$' &&
	[ "$(od -An -tu8 -j8 -N8 "$tmp/p.data" | tr -d ' ')" = 16 ] && pass ||
	fail "pipe: no 16-byte pipe header"
"$PERF" report -i - --itrace=i0ns --stdio <"$tmp/p.data" >"$tmp/rep.txt" 2>"$tmp/err" &&
	grep -q 'hello  *\[\.\] _start' "$tmp/rep.txt" && pass ||
	fail "pipe: perf report -i -: $(cat "$tmp/err")"
"$PERF" report -i - --header-only <"$tmp/p.data" >"$tmp/hdr.txt" 2>&1
grep -q '^# event : name = intel_pt//u,' "$tmp/hdr.txt" &&
	grep -q '^# cpuid : GenuineIntel,6,85,4$' "$tmp/hdr.txt" && pass ||
	fail "pipe: header features: $(head "$tmp/hdr.txt")"
"$PERF" script -i - --show-mmap-events <"$tmp/p.data" 2>/dev/null |
	grep -q "PERF_RECORD_MMAP2 1234/1234: \[0x401000(0x27) @ 0x1000 .*$cap/hello" && pass ||
	fail "pipe: MMAP2 sideband"
# Standard output a terminal (script(1) gives it one): refused, status 2.
if command -v script >/dev/null 2>&1; then
	script -qec "'$PT2PERF' '$cap' -o -" /dev/null >"$tmp/out" 2>&1
	[ $? -eq 2 ] && grep -q 'standard output is a terminal' "$tmp/out" && pass ||
		fail "pipe to a terminal: $(cat "$tmp/out")"
fi
# A directory that cannot be read: exit 1, nothing on standard output.
"$PT2PERF" "$tmp/none" -o - >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/err" ] && pass ||
	fail "pipe: missing directory: $(cat "$tmp/err")"

finish
