#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptdump options, error recovery and our extensions, on small traces built
# here byte by byte (SDM 33.4.2 encodings). Needs no shared data; the
# libipt conformance cases are in conformance.sh.
#
# Usage: ptdump.sh [PTDUMP]   (default: $O/bin/ptdump, O=build)

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
ptdump=${1:-${PTDUMP:-$top/${O:-build}/bin/ptdump}}

if [ ! -x "$ptdump" ]; then
	echo "ERROR: $ptdump not built"
	echo "0 passed, 1 failed"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptdump-sh.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0

# bytes FILE HEX... : write the hex bytes to FILE
bytes() {
	f=$1
	shift
	: > "$f"
	for b in "$@"; do
		# shellcheck disable=SC2059
		printf "\\$(printf '%03o' "0x$b")" >> "$f"
	done
}

PSB="02 82 02 82 02 82 02 82 02 82 02 82 02 82 02 82"
PSBEND="02 23"

# expect NAME EXPECTED-STATUS EXPECTED-OUTPUT-FILE ptdump-args...
expect() {
	name=$1 status=$2 exp=$3
	shift 3
	"$ptdump" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" -ne "$status" ]; then
		failed=$((failed + 1))
		echo "FAIL: $name: exit status $rc, expected $status"
		sed 's/^/    /' "$tmp/err" | head -n 3
		return
	fi
	if [ -n "$exp" ] && ! diff -b "$exp" "$tmp/out" > "$tmp/diff"; then
		failed=$((failed + 1))
		echo "FAIL: $name"
		head -n 6 "$tmp/diff" | sed 's/^/    /'
		return
	fi
	passed=$((passed + 1))
}

# A small trace: junk, PSB+, timing, TNT, TIP, PAD (SDM 33.4.2).
# shellcheck disable=SC2086
bytes "$tmp/a.pt" 55 $PSB 99 01 $PSBEND \
	19 10 32 54 76 98 ba 00 \
	02 73 34 12 00 05 00 \
	59 20 03 14 \
	6d 00 10 40 00 00 00 \
	00 \
	02 03 20 00

cat > "$tmp/a.exp" <<'EOF'
0000000000000001  psb
0000000000000011  mode.exec  cs.l
0000000000000013  psbend
0000000000000015  tsc        ba9876543210
000000000000001d  tma        1234, 5
0000000000000024  mtc        20
0000000000000026  cyc        0
0000000000000027  tnt.8      .!.
0000000000000028  tip        3: 0000000000401000
000000000000002f  pad
0000000000000030  cbr        20
EOF
expect "default" 0 "$tmp/a.exp" "$tmp/a.pt"

grep -v ' pad' "$tmp/a.exp" > "$tmp/nopad.exp"
expect "--no-pad" 0 "$tmp/nopad.exp" --no-pad "$tmp/a.pt"

grep -v -E ' (tsc|tma|mtc|cyc|cbr) ' "$tmp/a.exp" > "$tmp/notiming.exp"
expect "--no-timing" 0 "$tmp/notiming.exp" --no-timing "$tmp/a.pt"

grep -v ' cyc ' "$tmp/a.exp" > "$tmp/nocyc.exp"
expect "--no-cyc" 0 "$tmp/nocyc.exp" --no-cyc "$tmp/a.pt"

sed 's/^[0-9a-f]*  //' "$tmp/a.exp" > "$tmp/nooff.exp"
expect "--no-offset" 0 "$tmp/nooff.exp" --no-offset "$tmp/a.pt"

cat > "$tmp/raw.exp" <<'EOF'
0000000000000001  02820282028202820282028202820282  psb
0000000000000011  9901                              mode.exec  cs.l
0000000000000013  0223                              psbend
0000000000000015  191032547698ba00                  tsc        ba9876543210
000000000000001d  02733412000500                    tma        1234, 5
0000000000000024  5920                              mtc        20
0000000000000026  03                                cyc        0
0000000000000027  14                                tnt.8      .!.
0000000000000028  6d001040000000                    tip        3: 0000000000401000
000000000000002f  00                                pad
0000000000000030  02032000                          cbr        20
EOF
expect "--raw" 0 "$tmp/raw.exp" --raw "$tmp/a.pt"

: > "$tmp/empty.exp"
expect "--quiet" 0 "$tmp/empty.exp" --quiet "$tmp/a.pt"

# The file range: offsets count from <from>; no PSB in range: no output,
# a message and exit status 1 (issue 16.8).
sed -n '1,3p' "$tmp/a.exp" | sed 's/^0000000000000001/0000000000000000/;
	s/^0000000000000011/0000000000000010/; s/^0000000000000013/0000000000000012/' \
	> "$tmp/range.exp"
expect "file:from-to" 0 "$tmp/range.exp" "$tmp/a.pt:1-0x15"
expect "file:from, no PSB" 1 "$tmp/empty.exp" "$tmp/a.pt:0x20"
grep -q "a.pt: no PSB packet in its 20 bytes.*--no-sync" "$tmp/err" &&
	passed=$((passed + 1)) || { failed=$((failed + 1)); echo "FAIL: no-PSB message"; }
expect "file:bad range" 1 "" "$tmp/a.pt:0x10-0x1000"

# --lastip and --exec-mode tracking columns.
cat > "$tmp/lastip.exp" <<'EOF'
0000000000000028  tip        3: 0000000000401000         ip   0000000000401000
EOF
"$ptdump" --lastip "$tmp/a.pt" | grep ' tip ' > "$tmp/out"
if diff -b "$tmp/lastip.exp" "$tmp/out" > /dev/null; then
	passed=$((passed + 1))
else
	failed=$((failed + 1)); echo "FAIL: --lastip"; cat "$tmp/out"
fi
"$ptdump" --exec-mode "$tmp/a.pt" | grep -q 'mode.exec  cs.l *em *64-bit$'
if [ $? -eq 0 ]; then passed=$((passed + 1)); else
	failed=$((failed + 1)); echo "FAIL: --exec-mode"; fi

# --time: TSC 0xba9876543210, TMA moves the base back by FC 5; with P = 4
# (CPUID.15H 1/4) MTC 0x20 after TMA CTC 0x1234 (MTCFreq 0) is
# (0x20 - 0x34) mod 0x100 = 0xec CTC ticks = 0x3b0 TSC ticks later
# (SDM 33.8.3.2): 0xba9876543210 - 5 + 0x3b0 = 0xba98765435bb.
"$ptdump" --time --mtc-freq 0 --cpuid-0x15.eax 1 --cpuid-0x15.ebx 4 \
	"$tmp/a.pt" > "$tmp/out"
if grep -q 'mtc *20 *tsc *0000ba98765435bb$' "$tmp/out"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1)); echo "FAIL: --time"; grep -E 'tsc|mtc' "$tmp/out"
fi

# Exit statuses (ptdump(1)): usage errors 2, runtime errors 1 with a
# message naming the file and what to do, never an errno number.
expect "--time --tcal" 2 "" --time --tcal "$tmp/a.pt"
expect "unknown option" 2 "" --bogus "$tmp/a.pt"
expect "no file" 2 ""
expect "--mtc-freq missing argument" 2 "" --mtc-freq
expect "--mtc-freq too big" 2 "" --mtc-freq 256 "$tmp/a.pt"
expect "--cpu bad" 2 "" --cpu 6 "$tmp/a.pt"
# message_is NAME REGEX: the last command's stderr matches, has no errno.
message_is() {
	if grep -qE "$2" "$tmp/err" && ! grep -qE ': -?[0-9]+\.?$' "$tmp/err"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1)); echo "FAIL: $1 message:"; sed 's/^/    /' "$tmp/err"
	fi
}
expect "missing file" 1 "" "$tmp/nonexistent.pt"
message_is "missing file" "cannot open .*nonexistent.pt: No such file or directory\. Check the name"
: > "$tmp/zero.pt"
expect "empty file" 1 "" "$tmp/zero.pt"
message_is "empty file" "zero.pt is empty: nothing to decode"
printf 'no trace here, just text\n' > "$tmp/text.pt"
expect "no PSB" 1 "" "$tmp/text.pt"
message_is "no PSB" "text.pt: no PSB packet in its 25 bytes"
expect "no PSB, --no-sync" 0 "" --no-sync --quiet "$tmp/a.pt"
expect "offset beyond the end" 1 "" "$tmp/a.pt:0x1000"
message_is "offset beyond the end" "offset 0x1000 is beyond the end of .*a.pt \(52 bytes\)"
if [ "$(id -u)" != 0 ]; then
	cp "$tmp/a.pt" "$tmp/secret.pt" && chmod 000 "$tmp/secret.pt"
	expect "unreadable file" 1 "" "$tmp/secret.pt"
	message_is "unreadable file" "Permission denied\. Check the file's permissions"
fi
expect "--help" 0 "" --help
grep -q '^usage:' "$tmp/out" && passed=$((passed + 1)) ||
	{ failed=$((failed + 1)); echo "FAIL: --help text"; }

# Unknown cpu: reported, decoding goes on.
{ echo "[0: failed to determine errata: unknown cpu]"; cat "$tmp/a.exp"; } \
	> "$tmp/badcpu.exp"
expect "--cpu 0/0" 0 "$tmp/badcpu.exp" --cpu 0/0 "$tmp/a.pt"

# Error recovery: an unknown opcode (02 ff) inside the stream is reported
# with its offset; ptdump resumes at the next PSB. A packet cut short by
# the end of the trace ends the output silently.
# shellcheck disable=SC2086
bytes "$tmp/err.pt" $PSB $PSBEND 02 ff 00 $PSB $PSBEND 19 01 02
cat > "$tmp/err.exp" <<'EOF'
0000000000000000  psb
0000000000000010  psbend
[12: error decoding packet: unknown opcode]
0000000000000015  psb
0000000000000025  psbend
EOF
expect "resync after bad opcode" 0 "$tmp/err.exp" "$tmp/err.pt"

# skipped: the bad bytes (02 ff 00) and the TSC cut by the end (19 01 02).
cat > "$tmp/stats.exp" <<'EOF'
file bytes:     42
packets:        4
packet bytes:   36
skipped bytes:  6
decode errors:  1

type            count            bytes
psb                 2               32
psbend              2                4
EOF
expect "--stats" 0 "$tmp/stats.exp" --stats "$tmp/err.pt"

# SDM packets libipt does not print as the SDM defines them: PWRE.HW in
# bit 7 of byte 2 (Table 33-43), PWRX timer wake (Table 33-44); PEBS via PT
# blocks (33.4.2.26-28).
# shellcheck disable=SC2086
bytes "$tmp/ext.pt" $PSB $PSBEND \
	02 22 80 10 02 a2 10 02 00 00 00 \
	02 63 01 04 00 10 40 00 00 00 00 00 02 33 \
	02 63 84 0c 11 22 33 44 02 b3
cat > "$tmp/ext.exp" <<'EOF'
0000000000000000  psb
0000000000000010  psbend
0000000000000012  pwre       c2.1, hw
0000000000000016  pwrx       tmr: c2, c1
000000000000001d  bbp        1, sz: 8
0000000000000020  bip        0: 0000000000401000       pebs R/EFLAGS
0000000000000029  bep
000000000000002b  bbp        4, sz: 4
000000000000002e  bip        1: 44332211               pebs Applicable Counters
0000000000000033  bep        ip
EOF
expect "PWRE/PWRX by the SDM, BBP/BIP/BEP" 0 "$tmp/ext.exp" "$tmp/ext.pt"

# A ptcap directory (issue 15.7): DIR/config gives --cpu, --mtc-freq,
# --nom-freq and --cpuid-0x15.*; the command line overrides it; `ptdump
# DIR` dumps every *.pt after a "== DIR/NAME" line.
mkdir "$tmp/cap"
cp "$tmp/a.pt" "$tmp/cap/cpu0.pt"
cp "$tmp/a.pt" "$tmp/cap/cpu10.pt"
: > "$tmp/cap/cpu2.pt"
printf 'lwpt-ptcap-config 1\nmode per-cpu\nmtc-freq 0\nnom-freq 0\ncpuid-0x15.eax 1\ncpuid-0x15.ebx 4\n' \
	> "$tmp/cap/config"
"$ptdump" --time --mtc-freq 0 --cpuid-0x15.eax 1 --cpuid-0x15.ebx 4 \
	"$tmp/a.pt" > "$tmp/time.exp"
grep -q 'tsc *0000ba98765435bb$' "$tmp/time.exp" ||
	{ failed=$((failed + 1)); echo "FAIL: --time reference"; }
expect "DIR/cpu0.pt --time takes DIR/config" 0 "$tmp/time.exp" --time "$tmp/cap/cpu0.pt"
sed 's/^cpuid-0x15.ebx 4$/cpuid-0x15.ebx 8/' "$tmp/cap/config" > "$tmp/cfg" &&
	mv "$tmp/cfg" "$tmp/cap/config"
expect "command line overrides DIR/config" 0 "$tmp/time.exp" --time \
	--cpuid-0x15.ebx 4 "$tmp/cap/cpu0.pt"
"$ptdump" --time "$tmp/cap/cpu0.pt" > "$tmp/out"
if ! diff -q "$tmp/time.exp" "$tmp/out" > /dev/null; then passed=$((passed + 1)); else
	failed=$((failed + 1)); echo "FAIL: DIR/config value not used"; fi
{
	echo "== $tmp/cap/cpu0.pt"; cat "$tmp/a.exp"
	echo "== $tmp/cap/cpu2.pt"
	echo "== $tmp/cap/cpu10.pt"; cat "$tmp/a.exp"
} > "$tmp/dir.exp"
expect "ptdump DIR (an empty trace among them: status 1)" 1 "$tmp/dir.exp" "$tmp/cap"
message_is "ptdump DIR, empty trace" "cap/cpu2.pt is empty"
rm "$tmp/cap/cpu2.pt"
expect "ptdump DIR" 0 "" "$tmp/cap"
printf 'not a config\n' > "$tmp/cap/config"
expect "ptdump DIR with a bad config" 1 "" "$tmp/cap"
message_is "bad config" "cap/config, line 1: .*Is it a ptcap directory"
expect "DIR/cpu0.pt with a bad config goes on" 0 "$tmp/a.exp" "$tmp/cap/cpu0.pt"
expect "ptdump DIR:range" 2 "" "$tmp/cap:0x10"

# A cut stream (issue 12, ptcap-format.rst gaps.<file>): the output
# stopped 3 bytes into the TIP at 0x28 (a ToPA stop ends it mid-packet, SDM
# 33.2.7.2), then went on with a.pt's bytes. With the gap ptdump decodes
# the piece before it alone, says so, and syncs at the next PSB; the cut
# bytes count as skipped. Without it the cut TIP swallows the next bytes.
{ head -c $((0x2b)) "$tmp/a.pt"; cat "$tmp/a.pt"; } > "$tmp/cap/cpu0.pt"
printf 'lwpt-ptcap-config 1\nmode per-cpu\ngaps.cpu0.pt %d\n' $((0x2b)) > "$tmp/cap/config"
{
	sed -n '1,8p' "$tmp/a.exp"
	echo "[2b: gap: trace lost here (the output stopped mid-packet); decoding resumes at the next PSB]"
	while read -r off rest; do
		printf '%016x  %s\n' $((0x$off + 0x2b)) "$rest"
	done < "$tmp/a.exp"
} > "$tmp/gap.exp"
expect "cut stream with its gap" 0 "$tmp/gap.exp" "$tmp/cap/cpu0.pt"
expect "cut stream, --stats" 0 "" --stats "$tmp/cap/cpu0.pt"
grep -q '^skipped bytes: *5$' "$tmp/out" && passed=$((passed + 1)) ||
	{ failed=$((failed + 1)); echo "FAIL: gap --stats: $(grep skipped "$tmp/out")"; }
expect "ptdump DIR with a gap" 0 "" "$tmp/cap"
grep -q '^\[2b: gap: ' "$tmp/out" && passed=$((passed + 1)) ||
	{ failed=$((failed + 1)); echo "FAIL: ptdump DIR did not show the gap"; }
printf 'lwpt-ptcap-config 1\nmode per-cpu\n' > "$tmp/cap/config"
"$ptdump" "$tmp/cap/cpu0.pt" > "$tmp/out" 2>&1
grep -q 'gap' "$tmp/out" || ! grep -q 'error decoding packet' "$tmp/out" &&
	{ failed=$((failed + 1)); echo "FAIL: cut stream without its gap decoded clean"; } ||
	passed=$((passed + 1))
printf 'lwpt-ptcap-config 1\nmode per-cpu\ngaps.cpu0.pt 12 7\n' > "$tmp/cap/config"
expect "gaps not ascending" 1 "" "$tmp/cap/cpu0.pt"
message_is "gaps not ascending" "cap/config: the gaps.cpu0.pt line: .*was the config edited"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
