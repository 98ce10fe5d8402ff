#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# perf.data both ways for BTS (issue 37 point 3; Documentation/pt2perf.rst
# "BTS captures", perf-data.rst "Intel BTS"), no VM needed. The capture is
# the BTS model's user-only trace of trace_flow_prog (test_bts_flow
# --write-capture: config, maps, tid1.bts, 5170 records). Checks:
#
# - pt2perf writes an intel_bts perf.data; Debian's perf script
#   --itrace=b lists every record, in order, as its branch (from => to),
#   and names the thread and the program's file;
# - each branch's symbols (from and, for user addresses, to) are the ones
#   ptflow gives those addresses in its listing of the directory;
# - ptflow on the perf.data prints what it prints on the directory without
#   its bts-start line (a perf.data has no start address): the listing,
#   --calls, --report; so does the pipe format (pt2perf -o - | ptflow -);
# - a gap (gaps.tid1.bts) survives the round trip: the same listing, and
#   perf still shows every record;
# - a per-CPU BTS capture is refused with the reason;
# - truncated and damaged intel_bts perf.data files: ptflow exits with a
#   clear error (or decodes what is there), never a crash.
#
# Skips the perf parts (with a note) when perf is not installed.
# Ends with "N passed, N failed".
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
PT2PERF=$O/bin/pt2perf
PTFLOW=$O/bin/ptflow
WRITER=$O/tests/test_bts_flow
PERF=${PERF:-perf}

[ -x "$PT2PERF" ] && [ -x "$PTFLOW" ] || { fail "pt2perf/ptflow not built (run make)"; finish; }
[ -x "$WRITER" ] || { fail "$WRITER not built (make $WRITER)"; finish; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pt2perf-bts.XXXXXX") || exit 1
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
cap=$tmp/cap

"$WRITER" --write-capture "$cap" >/dev/null 2>"$tmp/w.err" ||
	{ fail "test_bts_flow --write-capture: $(head -n 3 "$tmp/w.err")"; finish; }
# The directory without bts-start: what a perf.data can say.
nobs=$tmp/nobs
mkdir "$nobs" && cp "$cap/maps" "$cap/tid1.bts" "$nobs/" &&
	grep -v '^bts-start' "$cap/config" >"$nobs/config"

"$PT2PERF" -q "$cap" -o "$tmp/bts.data" 2>"$tmp/p.err"
rc=$?
[ "$rc" = 0 ] && [ -s "$tmp/bts.data" ] && pass ||
	fail "pt2perf: exit $rc: $(head -n 2 "$tmp/p.err")"

# The records as "from to" lines (little-endian u64: od on this x86 host).
od -An -v -tx8 -w24 "$cap/tid1.bts" | awk 'NF == 3 { print $1, $2 }' |
	sed 's/^0*//; s/ 0*/ /' >"$tmp/records"
nrec=$(wc -l <"$tmp/records")

# ---- ptflow on the perf.data equals ptflow on the directory ----------------
same() { # <what> <ptflow options...>
	what=$1
	shift
	"$PTFLOW" "$@" "$tmp/bts.data" >"$tmp/a.out" 2>"$tmp/a.err"
	ra=$?
	"$PTFLOW" "$@" "$nobs" >"$tmp/b.out" 2>/dev/null
	rb=$?
	[ "$ra" = 0 ] && [ "$rb" = 0 ] && [ -s "$tmp/a.out" ] && cmp -s "$tmp/a.out" "$tmp/b.out" &&
		pass || fail "ptflow $what on the perf.data (exit $ra) differs from the directory" \
		"(exit $rb): $(head -n 2 "$tmp/a.err") $(diff "$tmp/a.out" "$tmp/b.out" | head -n 4 | tr '\n' ' ')"
}
same "listing" --no-inst
same "--calls" --calls
same "--report" --report
"$PTFLOW" --no-inst --no-symbols "$tmp/bts.data" 2>/dev/null | grep -v '^\[' |
	sed 's/^0*//' >"$tmp/addrs"
cmp -s "$tmp/addrs" "$cap/expected.tail" && pass ||
	fail "perf.data listing against single-stepping: $(diff "$tmp/addrs" "$cap/expected.tail" |
		head -n 4 | tr '\n' ' ')"
# Pipe format.
"$PT2PERF" -q "$cap" -o - 2>/dev/null | "$PTFLOW" --no-inst - >"$tmp/pipe.out" 2>"$tmp/pipe.err"
"$PTFLOW" --no-inst "$nobs" >"$tmp/dir.out" 2>/dev/null
cmp -s "$tmp/pipe.out" "$tmp/dir.out" && pass ||
	fail "pipe format: $(head -n 2 "$tmp/pipe.err") $(diff "$tmp/pipe.out" "$tmp/dir.out" |
		head -n 4 | tr '\n' ' ')"

# ---- a gap ---------------------------------------------------------------------
gap=$tmp/gap
mkdir "$gap" && cp "$nobs/maps" "$nobs/tid1.bts" "$gap/" &&
	{ cat "$nobs/config"; echo "gaps.tid1.bts $((24 * 2000))"; } >"$gap/config"
"$PT2PERF" -q "$gap" -o "$tmp/gap.data" 2>"$tmp/gap.err"
"$PTFLOW" --no-inst "$tmp/gap.data" >"$tmp/gap.a" 2>/dev/null
"$PTFLOW" --no-inst "$gap" >"$tmp/gap.b" 2>/dev/null
ngap=$(grep -c '^\[enabled\]' "$tmp/gap.a")
[ -s "$tmp/gap.a" ] && cmp -s "$tmp/gap.a" "$tmp/gap.b" && [ "$ngap" = 2 ] && pass ||
	fail "gap: $ngap [enabled] lines; $(head -n 1 "$tmp/gap.err")" \
		"$(diff "$tmp/gap.a" "$tmp/gap.b" | head -n 4 | tr '\n' ' ')"

# ---- per-CPU BTS: refused --------------------------------------------------------
pc=$tmp/percpu
mkdir "$pc" && cp "$nobs/maps" "$pc/" && cp "$nobs/tid1.bts" "$pc/cpu0.bts" &&
	printf 'lwpt-ptcap-config 1\nformat bts\nmode per-cpu\n' >"$pc/config"
"$PT2PERF" "$pc" -o "$tmp/pc.data" >/dev/null 2>"$tmp/pc.err"
rc=$?
[ "$rc" = 1 ] && grep -q 'per-CPU BTS capture' "$tmp/pc.err" && [ ! -e "$tmp/pc.data" ] &&
	[ ! -e "$tmp/pc.data.tmp" ] && pass || fail "per-CPU BTS: exit $rc: $(head -n 1 "$tmp/pc.err")"

# ---- damaged files: an error, never a crash ------------------------------------
size=$(wc -c <"$tmp/bts.data")
for cut in 8 100 200 400 700 1000 5000 $((size / 2)) $((size - 100)) $((size - 1)); do
	head -c "$cut" "$tmp/bts.data" >"$tmp/cut.data"
	"$PTFLOW" --no-inst "$tmp/cut.data" >/dev/null 2>"$tmp/cut.err"
	rc=$?
	[ "$rc" -lt 128 ] && { [ "$rc" = 0 ] || grep -q 'cut.data' "$tmp/cut.err"; } && pass ||
		fail "truncated at $cut: exit $rc: $(head -n 1 "$tmp/cut.err")"
done
# The AUXTRACE_INFO record (0x100 in pt2perf's file: after the header,
# the attr and its id) cut to five priv words: its header.size 0x40 -> 0x38.
hexsz=$(od -An -tx2 -j $((0x106)) -N2 "$tmp/bts.data" | tr -d ' ')
typ=$(od -An -tu4 -j $((0x108)) -N4 "$tmp/bts.data" | tr -d ' ')
if [ "$hexsz" = 0040 ] && [ "$typ" = 2 ]; then
	cp "$tmp/bts.data" "$tmp/short.data"
	printf '\070' | dd of="$tmp/short.data" bs=1 seek=$((0x106)) conv=notrunc 2>/dev/null
	"$PTFLOW" "$tmp/short.data" >/dev/null 2>"$tmp/short.err"
	rc=$?
	[ "$rc" != 0 ] && [ "$rc" -lt 128 ] && grep -q 'Intel BTS) too short' "$tmp/short.err" &&
		pass || fail "short AUXTRACE_INFO: exit $rc: $(head -n 1 "$tmp/short.err")"
else
	fail "AUXTRACE_INFO not where expected (size $hexsz, type $typ): update the test"
fi
# Flipped bytes in the records and the sideband.
i=0
while [ $i -lt 40 ]; do
	cp "$tmp/bts.data" "$tmp/flip.data"
	off=$(( (i * 7919 + 61) % size ))
	printf '\377\377\377' | dd of="$tmp/flip.data" bs=1 seek=$off conv=notrunc 2>/dev/null
	"$PTFLOW" --calls "$tmp/flip.data" >/dev/null 2>&1
	rc=$?
	[ "$rc" -lt 128 ] || { fail "flipped bytes at $off: exit $rc"; break; }
	i=$((i + 1))
done
[ $i = 40 ] && pass

# ---- perf script -------------------------------------------------------------
if ! command -v "$PERF" >/dev/null 2>&1; then
	echo "note: $PERF not installed: the perf script checks are skipped"
	finish
fi
"$PERF" script -i "$tmp/bts.data" --itrace=b -F comm,tid,ip,sym,symoff,addr,dso \
	>"$tmp/perf.out" 2>"$tmp/perf.err"
rc=$?
[ "$rc" = 0 ] && pass || fail "perf script --itrace=b: exit $rc: $(head -n 2 "$tmp/perf.err")"
# "comm tid from sym+off (dso) => to sym+off (dso)"
awk '{ for (i = 1; i <= NF; i++) if ($i == "=>") { print $(i - 3), $(i + 1) } }' \
	"$tmp/perf.out" | sed 's/^0*//; s/ 0*/ /' >"$tmp/perf.pairs"
[ "$nrec" -gt 1000 ] && cmp -s "$tmp/perf.pairs" "$tmp/records" && pass ||
	fail "perf's branches ($(wc -l <"$tmp/perf.pairs")) differ from the $nrec records:" \
		"$(diff "$tmp/perf.pairs" "$tmp/records" | head -n 4 | tr '\n' ' ')"
grep -q '^ *trace_flow_prog  *1 ' "$tmp/perf.out" && grep -q '(.*trace_flow_prog)' "$tmp/perf.out" &&
	pass || fail "perf names neither the thread nor the file: $(head -n 1 "$tmp/perf.out")"
# Symbols: ptflow's, from its listing of the directory (from the entry;
# "-" where it names none). Two names of one address (aliases such as
# __libc_calloc and __calloc, nm) are the same symbol. ptflow names no
# symbol in the static program's .plt (IRELATIVE stubs, no symbol of
# their own); perf stretches _init, the symbol before them, over them:
# those addresses must be in .plt (readelf -S).
prog=$(awk 'NR == 2 { print $4 }' "$cap/maps")
"$PTFLOW" --no-inst "$cap" 2>/dev/null | grep -v '^\[' |
	awk '{ a = $1; sub(/^0*/, "", a); s = "-"
	       if (NF > 1) { s = $2; gsub(/[<>]/, "", s); if (s !~ /\+0x/) s = s "+0x0" }
	       print a, s }' >"$tmp/ptflow.syms"
nm "$prog" | awk 'NF == 3 { a = $1; sub(/^0*/, "", a); print $3, a }' >"$tmp/nm"
plt=$(readelf -SW "$prog" | awk '{ for (i = 1; i < NF; i++) if ($i == ".plt") print $(i + 2), $(i + 4) }')
awk '{ for (i = 1; i <= NF; i++) if ($i == "=>") print $(i - 3), $(i - 2), $(i + 1), $(i + 2) }' \
	"$tmp/perf.out" | sed 's/^0*//; s/ 0*\([0-9a-f]\)/ \1/2' >"$tmp/perf.syms"
awk -v plt="$plt" '
     function hex(s,  i, c, v) { v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
	return v }
     function base(s) { sub(/\+0x[0-9a-f]*$/, "", s); return s }
     function off(s) { return substr(s, length(base(s)) + 1) }
     function same(a, p, f) {
	if (!(a in sym)) { print f " " a ": not in ptflow listing"; return 0 }
	if (sym[a] == p) return 1
	if (sym[a] == "-") {
		if (hex(a) >= pb && hex(a) < pb + ps) return 1
		print f " " a ": ptflow names none, perf " p " (not in .plt)"; return 0
	}
	if (off(sym[a]) == off(p) && (base(p) in at) && at[base(p)] == at[base(sym[a])]) return 1
	print f " " a ": perf " p ", ptflow " sym[a]; return 0 }
     BEGIN { split(plt, v, " "); pb = hex(v[1]); ps = hex(v[2]) }
     FILENAME == ARGV[1] { at[$1] = $2; next }
     FILENAME == ARGV[2] { sym[$1] = $2; next }
     { bad += !same($1, $2, "from"); if ($3 !~ /^ffff/) bad += !same($3, $4, "to"); n++ }
     END { print n " branches, " bad + 0 " differ" }' \
	"$tmp/nm" "$tmp/ptflow.syms" "$tmp/perf.syms" >"$tmp/symcmp"
tail -n 1 "$tmp/symcmp" | grep -q "^$nrec branches, 0 differ" && pass ||
	fail "symbols: $(tail -n 1 "$tmp/symcmp"): $(head -n 3 "$tmp/symcmp" | tr '\n' ' ')"
# perf's own reading of the pipe format (perf reads a pipe only from one).
"$PT2PERF" -q "$cap" -o - 2>/dev/null |
	"$PERF" script -i - --itrace=b -F ip,addr 2>/dev/null | wc -l >"$tmp/pipe.n"
[ "$(cat "$tmp/pipe.n")" = "$nrec" ] && pass ||
	fail "perf script -i - (pipe format): $(cat "$tmp/pipe.n") branches, want $nrec"
# The gap: perf still shows every record.
n=$("$PERF" script -i "$tmp/gap.data" --itrace=b -F ip,addr 2>/dev/null | wc -l)
[ "$n" = "$nrec" ] && pass || fail "gap: perf shows $n branches, want $nrec"

finish
