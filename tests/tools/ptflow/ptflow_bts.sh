#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# ptflow on a `format bts` capture directory (issue 37 point 3;
# Documentation/ptcap-format.rst "BTS trace files"), no VM needed:
# test_bts_flow --write-capture writes the model's user-only BTS trace of
# trace_flow_prog (tests/model/bts/test_bts_flow.c) as config, maps and
# tid1.bts (and the program's entry in a bts-start line), with the
# single-stepped addresses. Checks:
#
# - the listing's addresses equal single-stepping, one by one; without
#   the bts-start line, from the first record's "to" on;
# - --stat counts them; --calls has one call line per CALL of the listing
#   and one return line per RET; --report counts every instruction;
# - tid1.bts is thread 1 as tid1.pt would be: --tid selects it, --calls
#   and --report name it "tid 1";
#   --export=chrome writes JSON;
# - the system calls are [disabled] ... [resumed] pairs;
# - ptdump and ptcov refuse it, saying why (pt2perf converts it:
#   tests/tools/pt2perf/pt2perf_bts.sh);
# - bad input: garbage records, a truncated record file, an unknown
#   format: no crash, a decode error or a clear refusal.
#
# Ends with "N passed, N failed".
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
PTFLOW=${PTFLOW:-$O/bin/ptflow}
WRITER=$O/tests/test_bts_flow

[ -x "$PTFLOW" ] || { fail "$PTFLOW not built (run make all)"; finish; }
[ -x "$WRITER" ] || { fail "$WRITER not built (make $WRITER)"; finish; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptflow-bts.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
cap=$tmp/cap

"$WRITER" --write-capture "$cap" >/dev/null 2>"$tmp/w.err" ||
	{ fail "test_bts_flow --write-capture: $(head -n 3 "$tmp/w.err")"; finish; }

# The listing against single-stepping.
"$PTFLOW" --no-inst --no-symbols "$cap" >"$tmp/list" 2>"$tmp/list.err"
rc=$?
[ "$rc" = 0 ] && pass || fail "listing: exit $rc: $(head -n 2 "$tmp/list.err")"
grep -v '^\[' "$tmp/list" | sed 's/^0*//' >"$tmp/addrs"
n=$(wc -l <"$cap/expected")
[ "$n" -gt 1000 ] && cmp -s "$tmp/addrs" "$cap/expected" && pass ||
	fail "listing differs from single-stepping: $(diff "$tmp/addrs" "$cap/expected" |
		head -n 4 | tr '\n' ' ')"
# Without the bts-start line: from the first record's "to" on.
nobs=$tmp/nobs
mkdir "$nobs" && cp "$cap/maps" "$cap/tid1.bts" "$nobs/" &&
	grep -v '^bts-start' "$cap/config" >"$nobs/config"
"$PTFLOW" --no-inst --no-symbols "$nobs" 2>/dev/null | grep -v '^\[' | sed 's/^0*//' >"$tmp/tail"
cmp -s "$tmp/tail" "$cap/expected.tail" && pass ||
	fail "without bts-start: $(diff "$tmp/tail" "$cap/expected.tail" | head -n 4 | tr '\n' ' ')"
dis=$(grep -c '^\[disabled\]' "$tmp/list")
res=$(grep -c '^\[resumed\]' "$tmp/list")
[ "$dis" -gt 1 ] && [ "$res" = $((dis - 1)) ] && pass ||
	fail "system calls: $dis disabled, $res resumed"

"$PTFLOW" --quiet --stat "$cap" >"$tmp/stat" 2>/dev/null
grep -qx "instructions: $n" "$tmp/stat" && grep -qx "errors: 0" "$tmp/stat" && pass ||
	fail "--stat: $(tr '\n' ' ' <"$tmp/stat"), expected $n instructions"

# --calls: a line per CALL and per RET the listing executes.
"$PTFLOW" "$cap" >"$tmp/dis" 2>/dev/null
ncall=$(grep -c '  callq ' "$tmp/dis")
nret=$(grep -c '  retq' "$tmp/dis")
"$PTFLOW" --calls "$cap" >"$tmp/calls" 2>/dev/null
c=$(grep -c ' call ' "$tmp/calls")
r=$(grep -c ' return ' "$tmp/calls")
[ "$ncall" -gt 10 ] && [ "$c" = "$ncall" ] && [ "$r" = "$nret" ] && pass ||
	fail "--calls: $c calls, $r returns; the listing $ncall CALLs, $nret RETs"

"$PTFLOW" --report "$cap" >"$tmp/report" 2>/dev/null
grep -q "^\[report tid 1: $n instructions\]" "$tmp/report" &&
	grep -q ' main$' "$tmp/report" && pass ||
	fail "--report: $(head -n 2 "$tmp/report" | tr '\n' ' ')"

# tid1.bts is thread 1 (its thread.tid1.bts line), as tid1.pt would be:
# --tid and --pid select it, --calls names it in the thread column.
"$PTFLOW" --quiet --stat --tid 1 "$cap" >"$tmp/stat1" 2>"$tmp/stat1.err" &&
	cmp -s "$tmp/stat" "$tmp/stat1" && pass ||
	fail "--tid 1: $(tr '\n' ' ' <"$tmp/stat1") $(head -n 1 "$tmp/stat1.err")"
"$PTFLOW" --quiet --stat --pid 2 "$cap" >/dev/null 2>&1
rc=$?
[ "$rc" != 0 ] && [ "$rc" -lt 128 ] && pass || fail "--pid 2 (no such process): exit $rc"
grep -q '^ *[0-9]*  tid 1 .* call main$' "$tmp/calls" && pass ||
	fail "--calls thread column: $(grep -m 1 ' call main$' "$tmp/calls")"

"$PTFLOW" --export=chrome "$tmp/c.json" "$cap" >/dev/null 2>&1 &&
	python3 -m json.tool "$tmp/c.json" >/dev/null 2>&1 &&
	grep -q '"name": "main"' "$tmp/c.json" && pass || fail "--export=chrome: no valid JSON"

# The PT-only tools refuse a BTS capture with the reason (not records
# decoded as packets).
for t in ptdump ptcov; do
	"$O/bin/$t" "$cap" >/dev/null 2>"$tmp/$t.err"
	rc=$?
	[ "$rc" != 0 ] && [ "$rc" -lt 128 ] && grep -q "a BTS capture (format bts)" "$tmp/$t.err" &&
		pass || fail "$t on a BTS capture: exit $rc: $(head -n 1 "$tmp/$t.err")"
done

# Bad input: never a crash.
bad=$tmp/bad
mkdir "$bad" && cp "$cap/config" "$cap/maps" "$bad/"
head -c 100000 /dev/urandom >"$bad/tid1.bts"
"$PTFLOW" --calls "$bad" >/dev/null 2>"$tmp/bad.err"
rc=$?
[ "$rc" -lt 128 ] && pass || fail "garbage records: exit $rc"
"$PTFLOW" --report "$bad" >/dev/null 2>&1
rc=$?
[ "$rc" -lt 128 ] && pass || fail "garbage records --report: exit $rc"
head -c 100 "$cap/tid1.bts" >"$bad/tid1.bts"	# 4 records and 4 bytes
"$PTFLOW" "$bad" >/dev/null 2>&1
rc=$?
[ "$rc" -lt 128 ] && pass || fail "a partial record: exit $rc"
sed 's/^format bts$/format lbr/' "$cap/config" >"$bad/config"
"$PTFLOW" "$bad" >/dev/null 2>"$tmp/fmt.err"
rc=$?
[ "$rc" != 0 ] && [ "$rc" -lt 128 ] && grep -q config "$tmp/fmt.err" && pass ||
	fail "format lbr: exit $rc: $(head -n 1 "$tmp/fmt.err")"

finish
