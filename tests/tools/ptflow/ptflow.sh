#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# Script test of tools/ptflow (see Documentation/ptflow.rst).
#
# Data: ../shared/testdata/pt (or $LWPT_SHARED/testdata/pt), README.md there:
# - real/dynamorio: a real Intel PT trace of the static ELF `hello` (DynamoRIO
#   drpt2trace test), decode parameters cpu 6/85/4, mtc-freq 3, nom-freq 37,
#   cpuid-0x15.eax 2, cpuid-0x15.ebx 308; the flow is the 8 instructions of
#   _start, checked here against `objdump -d hello`.
# - real/libxdc: real traces without images: ptflow must report errors
#   cleanly in bounded time.
#
# The binary is $O/bin/ptflow (O=build, or build/sanitize under
# `make SANITIZE=1`). Ends with "N passed, N failed".
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
PTFLOW=${PTFLOW:-$O/bin/ptflow}
data=$shared/testdata/pt
dyn=$data/real/dynamorio

if [ ! -x "$PTFLOW" ]; then
	fail "$PTFLOW not built (run make)"
	finish
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptflow-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# A run must not have crashed: exit status 0, 1 or 2 and no sanitizer report.
sane_run() { # <rc> <stderr file>
	[ "$1" -le 2 ] || return 1
	! grep -q -e 'AddressSanitizer' -e 'runtime error:' \
		-e 'LeakSanitizer' "$2"
}

# ---- options that need no data ----------------------------------------
"$PTFLOW" --help > "$tmp/help" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q -- '--pt <file>' "$tmp/help" &&
   grep -q -- '--elf' "$tmp/help" && grep -q -- '--no-inst' "$tmp/help"; then
	pass
else
	fail "--help: rc=$rc"
fi

"$PTFLOW" -h > "$tmp/h" 2>&1 && cmp -s "$tmp/h" "$tmp/help" && pass ||
	fail "-h differs from --help"

"$PTFLOW" --version > "$tmp/ver" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q '^ptflow [0-9]' "$tmp/ver" && grep -q libipt "$tmp/ver" &&
	pass || fail "--version: rc=$rc"

# Usage errors: exit status 2 and a message on stderr.
usage_case() { # <name> <args...>
	name=$1
	shift
	"$PTFLOW" "$@" > "$tmp/uo" 2> "$tmp/ue"
	rc=$?
	if [ $rc -eq 2 ] && grep -q '^ptflow: ' "$tmp/ue" && sane_run $rc "$tmp/ue"; then
		pass
	else
		fail "usage error '$name': rc=$rc: $(head -c 200 "$tmp/ue")"
	fi
}
usage_case "no arguments"
usage_case "unknown option" --frobnicate
usage_case "missing --pt file" --pt "$tmp/absent.pt" --raw /dev/null:0
usage_case "--pt without argument" --pt
usage_case "--pt twice" --pt a --pt b
usage_case "bad --cpu" --cpu 6 --pt x
usage_case "bad --mtc-freq" --mtc-freq 256 --pt x
usage_case "--raw without base" --raw "$0" --pt x
usage_case "--elf not an ELF" --elf "$0" --pt x
usage_case "--pt and a directory" --pt x "$tmp"
usage_case "directory without config" "$tmp"

if [ ! -d "$dyn" ]; then
	echo "SKIP: $data not found (set LWPT_SHARED); data tests skipped"
	finish
fi

# ---- the DynamoRIO trace -------------------------------------------------
params="--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308"
# shellcheck disable=SC2086 # $params is a list of options
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" $params \
	> "$tmp/full" 2> "$tmp/full.err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/full.err" ] && pass ||
	fail "dynamorio: rc=$rc: $(head -c 300 "$tmp/full.err")"

# The exact output: events as libipt reports them, 8 instructions in AT&T
# syntax as Capstone prints it (the format is pinned by ptflow.rst).
cat > "$tmp/expect" <<'EOF'
[enabled]
[exec mode: 64-bit]
[disabled]
[resumed]
0000000000401000  movl $1, %eax
0000000000401005  movl $1, %edi
000000000040100a  movabsq $0x402000, %rsi
0000000000401014  movl $0xe, %edx
0000000000401019  syscall
[disabled]
[resumed]
000000000040101b  movl $0x3c, %eax
0000000000401020  movl $0, %edi
0000000000401025  syscall
[disabled]
[end of trace]
EOF
if diff -u "$tmp/expect" "$tmp/full" > "$tmp/diff"; then
	pass
else
	fail "dynamorio: output differs:"
	cat "$tmp/diff"
fi

# Instruction lines: an address of 16 hex digits, two spaces, the text.
grep '^[0-9a-f]\{16\}  ' "$tmp/full" > "$tmp/insns"
[ "$(wc -l < "$tmp/insns")" -eq 8 ] && pass ||
	fail "dynamorio: $(wc -l < "$tmp/insns") instruction lines, expected 8"

# Against GNU objdump, the independent reference: same addresses, same
# operands (immediates compared by value), Capstone's mnemonic is objdump's
# plus an optional AT&T size suffix.
if command -v objdump > /dev/null 2>&1; then
	objdump -d --no-show-raw-insn "$dyn/hello" |
		awk '/^ *[0-9a-f]+:\t/ { sub(/^ */, ""); print }' > "$tmp/objdump"
	# normalize: "<addr> <mnemonic> <operands without blanks, imm decimal>"
	# shellcheck disable=SC2016 # awk code, not shell
	norm='
	function imm(s,   out, n, hex, i, c, v) {
		out = ""
		while (match(s, /\$0x[0-9a-f]+/)) {
			hex = substr(s, RSTART + 3, RLENGTH - 3); v = 0
			for (i = 1; i <= length(hex); i++) {
				c = index("0123456789abcdef", substr(hex, i, 1)) - 1
				v = v * 16 + c
			}
			out = out substr(s, 1, RSTART - 1) "$" v
			s = substr(s, RSTART + RLENGTH)
		}
		return out s
	}'
	awk -F'\t' "$norm"'
	{ addr = $1; sub(/:$/, "", addr); split($2, p, / +/); ops = $2
	  sub(/^[^ ]+ */, "", ops); gsub(/ /, "", ops)
	  printf "%s %s %s\n", addr, p[1], imm(ops) }' "$tmp/objdump" \
		> "$tmp/objdump.norm"
	awk "$norm"'
	{ addr = $1; sub(/^0+/, "", addr); mn = $2; ops = ""
	  for (i = 3; i <= NF; i++) ops = ops $i
	  printf "%s %s %s\n", addr, mn, imm(ops) }' "$tmp/insns" \
		> "$tmp/ptflow.norm"
	if awk 'NR == FNR { a[NR] = $1; m[NR] = $2; o[NR] = $3; n = NR; next }
		{ k = FNR
		  if (k > n || $1 != a[k] || $3 != o[k] ||
		      index($2, m[k]) != 1 || length($2) > length(m[k]) + 1) {
			print "line " k ": ptflow \"" $0 "\" objdump \"" a[k] \
			      " " m[k] " " o[k] "\""; bad = 1 }
		}
		END { if (FNR != n) { print "count " FNR " vs " n; bad = 1 }
		      exit bad }' "$tmp/objdump.norm" "$tmp/ptflow.norm"; then
		pass
	else
		fail "dynamorio: flow differs from objdump -d hello"
	fi
else
	echo "SKIP: objdump not installed; objdump comparison skipped"
fi

# --no-inst: the same addresses only.
# shellcheck disable=SC2086
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" $params --no-inst \
	> "$tmp/noinst" 2>&1
awk '{ print $1 }' "$tmp/insns" > "$tmp/addrs"
grep '^[0-9a-f]' "$tmp/noinst" | cmp -s - "$tmp/addrs" &&
	! grep -q '  ' "$tmp/noinst" && pass || fail "--no-inst"

# --quiet --stat: only the counts.
# shellcheck disable=SC2086
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" $params --quiet --stat \
	> "$tmp/stat" 2>&1
printf 'instructions: 8\nerrors: 0\n' | cmp -s - "$tmp/stat" && pass ||
	fail "--quiet --stat: $(cat "$tmp/stat")"

# --intel: Intel syntax.
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" --intel > "$tmp/intel" 2>&1
grep -q '^000000000040100a  movabs rsi, 0x402000$' "$tmp/intel" && pass ||
	fail "--intel"

# --time --offset --raw-insn: prefixes of 16 hex digits, raw bytes.
# shellcheck disable=SC2086
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" $params --time --offset \
	--raw-insn > "$tmp/time" 2>&1
grep -q '^[0-9a-f]\{16\}  [0-9a-f]\{16\}  0000000000401019  0f 05  *syscall$' \
	"$tmp/time" && [ "$(grep -c '^[0-9a-f]' "$tmp/time")" -eq 8 ] && pass ||
	fail "--time --offset --raw-insn: $(grep syscall "$tmp/time")"

# --raw: the text segment (file 0x1000-0x1027) at 0x401000, same flow.
# --elf with an explicit base equal to the link address: same flow.
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --raw "$dyn/hello:0x1000-0x1027:0x401000" \
	> "$tmp/raw" 2>&1
cmp -s "$tmp/raw" "$tmp/full" && pass || fail "--raw file:from-to:base"
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --elf "$dyn/hello:0x400000" > "$tmp/base" 2>&1
cmp -s "$tmp/base" "$tmp/full" && pass || fail "--elf file:base"
# Relocated by 0x10000000: nothing is mapped where the trace goes.
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --elf "$dyn/hello:0x10400000" > "$tmp/reloc" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^\[resync at offset 0x[0-9a-f]*: no memory mapped' "$tmp/reloc" &&
	pass || fail "--elf relocated: rc=$rc"

# --pt with a range: the whole file as a range decodes the same; a range
# that starts after the only PSB has no sync point.
size=$(wc -c < "$dyn/dynamorio.pt")
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt:0-$size" --elf "$dyn/hello" > "$tmp/range" 2>&1
cmp -s "$tmp/range" "$tmp/full" && pass || fail "--pt file:0-size"
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt:1" --elf "$dyn/hello" > "$tmp/r1" 2> "$tmp/r1.err"
rc=$?
[ $rc -eq 1 ] && grep -q '^\[resync at offset 0x0: no PSB found\]$' "$tmp/r1" &&
	grep -q '^ptflow: .*no PSB found' "$tmp/r1.err" && pass ||
	fail "--pt file:1: rc=$rc"
usage_case "--pt range past the end" --pt "$dyn/dynamorio.pt:0-99999" --elf "$dyn/hello"

# No image at all: every enable ends in "no memory mapped", exit 1.
"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" > "$tmp/noimg" 2> "$tmp/noimg.err"
rc=$?
[ $rc -eq 1 ] && grep -q 'no memory mapped at this address, ip: 0000000000401000\]$' \
	"$tmp/noimg" && grep -q 'decode error' "$tmp/noimg.err" && pass ||
	fail "no image: rc=$rc"

# ---- a ptcap directory built by hand (Documentation/ptcap-format.rst) -----
cap=$tmp/cap
mkdir "$cap"
cp "$dyn/dynamorio.pt" "$cap/tid1234.pt"
cp "$dyn/hello" "$cap/hello"
cat > "$cap/config" <<'EOF'
lwpt-ptcap-config 1
# hand-built from the DynamoRIO test's decode parameters
mode per-thread
cpu 6/85/4
mtc-freq 3
nom-freq 37
cpuid-0x15.eax 2
cpuid-0x15.ebx 308
EOF
# hello's PT_LOAD segments (readelf -l): relative path, then absolute.
cat > "$cap/maps" <<EOF
lwpt-ptcap-maps 1
# start end offset path
0x400000 0x4000e8 0x0 hello
0x401000 0x401027 0x1000 hello
0x402000 0x40200e 0x2000 $dyn/hello
EOF
"$PTFLOW" --no-symbols "$cap" > "$tmp/cap.out" 2> "$tmp/cap.err"
rc=$?
{ echo '[trace tid1234.pt]'; cat "$tmp/full"; } > "$tmp/cap.expect"
[ $rc -eq 0 ] && [ ! -s "$tmp/cap.err" ] && cmp -s "$tmp/cap.out" "$tmp/cap.expect" &&
	pass || { fail "ptcap directory: rc=$rc $(cat "$tmp/cap.err")";
		  diff "$tmp/cap.expect" "$tmp/cap.out"; }

# Two traces, in version order: cpu2 before cpu10.
cp "$dyn/dynamorio.pt" "$cap/cpu10.pt"
cp "$dyn/dynamorio.pt" "$cap/cpu2.pt"
"$PTFLOW" --no-symbols --quiet --stat "$cap" > "$tmp/cap2" 2>&1
printf 'instructions: 24\nerrors: 0\n' | cmp -s - "$tmp/cap2" && pass ||
	fail "ptcap directory, 3 traces: $(cat "$tmp/cap2")"
"$PTFLOW" --no-symbols "$cap" | grep '^\[trace' > "$tmp/order"
printf '[trace cpu2.pt]\n[trace cpu10.pt]\n[trace tid1234.pt]\n' |
	cmp -s - "$tmp/order" && pass || fail "trace order: $(cat "$tmp/order")"
rm "$cap/cpu10.pt" "$cap/cpu2.pt"

# A cut stream (issue 12, ptcap-format.rst gaps.<file>): the output stopped
# inside TIP.PGE at 0x53f (a ToPA stop ends it mid-packet, SDM 33.2.7.2),
# then went on with a PSB. With the gap ptflow decodes the piece before it
# alone and the rest from its PSB: the whole flow, no decode error; without
# it the cut packet swallows the PSB's bytes.
cp "$cap/config" "$tmp/cg"
cp "$cap/tid1234.pt" "$tmp/tg"
{ head -c $((0x542)) "$dyn/dynamorio.pt"; cat "$dyn/dynamorio.pt"; } > "$cap/tid1234.pt"
echo "gaps.tid1234.pt $((0x542))" >> "$cap/config"
"$PTFLOW" --no-symbols "$cap" > "$tmp/gap.out" 2> "$tmp/gap.err"
rc=$?
{ echo '[trace tid1234.pt]'
  echo '[gap at offset 0x542: trace lost here (the output stopped mid-packet); decoding resumes at the next PSB]'
  cat "$tmp/full"; } > "$tmp/gap.expect"
[ $rc -eq 0 ] && [ ! -s "$tmp/gap.err" ] && cmp -s "$tmp/gap.expect" "$tmp/gap.out" &&
	pass || { fail "cut stream with its gap: rc=$rc $(cat "$tmp/gap.err")";
		  diff "$tmp/gap.expect" "$tmp/gap.out"; }
cp "$tmp/cg" "$cap/config"
"$PTFLOW" --no-symbols "$cap" > "$tmp/nogap.out" 2>&1
cmp -s "$tmp/gap.expect" "$tmp/nogap.out" && fail "cut stream without its gap decoded clean" || pass
echo "gaps.tid1234.pt 12 7" >> "$cap/config"
usage_case "gaps not ascending" "$cap"
cp "$tmp/cg" "$cap/config"
cp "$tmp/tg" "$cap/tid1234.pt"

# Issue 16.5: ptcap's outcome and attach keys make ptflow say first that
# the trace starts mid-run (a wrap overwrote the start; an attach).
cp "$cap/config" "$tmp/c0"
printf 'outcome.tid1234.pt wrapped overwritten=23616\nattached pid=77\noutcome.tid9.pt wrapped overwritten>=4096\noutcome.tid8.pt complete\n' >> "$cap/config"
"$PTFLOW" "$cap" > "$tmp/cap.mid" 2>&1
{ echo '[trace starts mid-run: tid1234.pt: 23616 bytes of the start were overwritten (wrap mode)]'
  echo '[trace starts mid-run: ptcap attached to a running process (pid=77)]'
  echo '[trace starts mid-run: tid9.pt: at least 4096 bytes of the start were overwritten (wrap mode)]'
  cat "$tmp/cap.expect"; } | cmp -s - "$tmp/cap.mid" && pass ||
	fail "mid-run notes: $(head -n 4 "$tmp/cap.mid")"
cp "$tmp/c0" "$cap/config"

# Command-line parameters override the config file.
"$PTFLOW" --no-symbols --cpu none "$cap" > "$tmp/cap.none" 2>&1 &&
	cmp -s "$tmp/cap.none" "$tmp/cap.expect" && pass || fail "--cpu none override"

# --pid/--tid select per-thread traces by the config's thread lines.
echo 'thread.tid1234.pt tid=1234 pid=1200 buffer=0' >> "$cap/config"
"$PTFLOW" --no-symbols --pid 1200 "$cap" > "$tmp/sel" 2>&1 &&
	cmp -s "$tmp/sel" "$tmp/cap.expect" && pass || fail "--pid 1200: $(head -n 3 "$tmp/sel")"
"$PTFLOW" --no-symbols --tid=1234 "$cap" > "$tmp/sel" 2>&1 &&
	cmp -s "$tmp/sel" "$tmp/cap.expect" && pass || fail "--tid=1234"
usage_case "--tid of no trace" --tid 99 "$cap"
grep -q 'no per-thread trace of the selected --tid' "$tmp/ue" && pass ||
	fail "--tid 99: $(cat "$tmp/ue")"
usage_case "--pid not a number" --pid x "$cap"
"$PTFLOW" --calls --pid 1200 "$cap" 2>/dev/null | grep -q '^ *[0-9]*  tid 1234  ' &&
	pass || fail "--calls thread label"

# A later format version is refused with a clear message.
sed 's/^lwpt-ptcap-config 1$/lwpt-ptcap-config 2/' "$cap/config" > "$tmp/c2"
cp "$cap/config" "$tmp/c1"
cp "$tmp/c2" "$cap/config"
usage_case "ptcap config version 2" "$cap"
grep -q 'config.*unsupported ptcap format version' "$tmp/ue" && pass ||
	fail "version message: $(cat "$tmp/ue")"
printf 'lwpt-ptcap-config 1\nmtc-freq 99\n' > "$cap/config"
usage_case "ptcap config out of range" "$cap"
grep -q 'config:2: value out of range' "$tmp/ue" && pass ||
	fail "line number in message: $(cat "$tmp/ue")"
cp "$tmp/c1" "$cap/config"

# An unloadable mapping is a warning; the flow then has decode errors.
cp "$cap/maps" "$tmp/m1"
printf 'lwpt-ptcap-maps 1\n0x401000 0x401027 0x1000 missing-file\n' > "$cap/maps"
"$PTFLOW" --no-symbols "$cap" > "$tmp/cap.miss" 2> "$tmp/cap.miss.err"
rc=$?
[ $rc -eq 1 ] && grep -q 'warning: .*missing-file' "$tmp/cap.miss.err" &&
	grep -q '^\[resync at offset' "$tmp/cap.miss" && pass ||
	fail "missing mapped file: rc=$rc"
printf 'lwpt-ptcap-maps 1\n0x401000 0x401000 0x1000 hello\n' > "$cap/maps"
usage_case "ptcap maps empty range" "$cap"
cp "$tmp/m1" "$cap/maps"
rm "$cap/tid1234.pt"
usage_case "ptcap directory without traces" "$cap"

# ---- never crash: prefixes of the trace -----------------------------------
# A prefix that cuts a packet, ends inside PSB+ or ends while tracing is
# enabled (PacketEn=1: a deliberate end disables with TIP.PGD, SDM Table
# 33-56 case 3) must exit 1 with a message. A prefix cut at a packet
# boundary while tracing is disabled is itself a complete trace: it may
# exit 0 but must then show a flow that is a prefix of the full one.
# test_ptflow_decode checks every prefix in-process; here every 11th, as
# whole runs of the tool (exit status, messages).
grep '^[0-9a-f]' "$tmp/full" > "$tmp/full.insns"
bad=0
nzero=0
nerr=0
n=1
while [ "$n" -le "$size" ]; do
	# shellcheck disable=SC2086
	"$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt:0-$n" --elf "$dyn/hello" $params \
		> "$tmp/p.out" 2> "$tmp/p.err"
	rc=$?
	if ! sane_run $rc "$tmp/p.err"; then
		bad=$((bad + 1)); echo "prefix $n: rc=$rc"; head -5 "$tmp/p.err"
	elif [ $rc -eq 1 ]; then
		nerr=$((nerr + 1))
		if ! grep -q '^ptflow: .*offset 0x' "$tmp/p.err" ||
		   ! grep -q '^\[resync at offset 0x' "$tmp/p.out"; then
			bad=$((bad + 1)); echo "prefix $n: rc=1 without error report"
		fi
	elif [ $rc -eq 0 ]; then
		nzero=$((nzero + 1))
		grep '^[0-9a-f]' "$tmp/p.out" > "$tmp/p.insns"
		k=$(wc -l < "$tmp/p.insns")
		on=$(grep -c -e '^\[enabled\]$' -e '^\[resumed\]$' "$tmp/p.out")
		off=$(grep -c '^\[disabled\]$' "$tmp/p.out")
		if grep -q resync "$tmp/p.out" || [ -s "$tmp/p.err" ] ||
		   [ "$on" -ne "$off" ] ||
		   ! head -n "$k" "$tmp/full.insns" | cmp -s - "$tmp/p.insns" ||
		   [ "$(tail -n 1 "$tmp/p.out")" != "[end of trace]" ]; then
			bad=$((bad + 1)); echo "prefix $n: rc=0 but incomplete flow"
		fi
	else
		bad=$((bad + 1)); echo "prefix $n: usage error rc=$rc"
	fi
	n=$((n + 11))
done
echo "prefixes: $((nerr + nzero)) run, $nerr reported errors, $nzero complete"
[ $bad -eq 0 ] && [ "$nerr" -gt 0 ] && pass || fail "$bad bad prefixes"

# ---- never crash: random corruptions (fixed seeds, reproducible) ----------
# (test_ptflow_decode does every bit flip and 3000 corruptions in-process)
bad=0
seed=1
while [ $seed -le 25 ]; do
	cp "$dyn/dynamorio.pt" "$tmp/corrupt.pt"
	# 1 to 8 random bytes at random offsets.
	awk -v seed=$seed -v size="$size" 'BEGIN { srand(seed)
		n = 1 + int(rand() * 8)
		for (i = 0; i < n; i++)
			printf "%d %d\n", int(rand() * size), int(rand() * 256) }' |
	while read -r off val; do
		# shellcheck disable=SC2059 # octal escape built on purpose
		printf "\\$(printf '%03o' "$val")" |
			dd of="$tmp/corrupt.pt" bs=1 seek="$off" conv=notrunc 2> /dev/null
	done
	# shellcheck disable=SC2086
	timeout 60 "$PTFLOW" --no-symbols --pt "$tmp/corrupt.pt" --elf "$dyn/hello" $params \
		> "$tmp/c.out" 2> "$tmp/c.err"
	rc=$?
	if ! sane_run $rc "$tmp/c.err" || [ $rc -eq 2 ]; then
		bad=$((bad + 1)); echo "corruption seed $seed: rc=$rc"; head -5 "$tmp/c.err"
	elif [ $rc -eq 1 ] && ! grep -q 'decode error' "$tmp/c.err"; then
		bad=$((bad + 1)); echo "corruption seed $seed: rc=1 without message"
	elif [ $rc -eq 0 ] && grep -q resync "$tmp/c.out"; then
		bad=$((bad + 1)); echo "corruption seed $seed: rc=0 with errors"
	fi
	seed=$((seed + 1))
done
[ $bad -eq 0 ] && pass || fail "$bad bad corruptions"

# Random bytes without any PSB.
awk 'BEGIN { srand(7); for (i = 0; i < 4096; i++) printf "%c", 1 + int(rand() * 255) }' \
	> "$tmp/garbage.pt" 2> /dev/null
"$PTFLOW" --no-symbols --pt "$tmp/garbage.pt" --elf "$dyn/hello" > "$tmp/g.out" 2> "$tmp/g.err"
rc=$?
[ $rc -eq 1 ] && sane_run $rc "$tmp/g.err" && grep -q 'no PSB found' "$tmp/g.err" &&
	pass || fail "garbage: rc=$rc"

# An empty trace.
: > "$tmp/empty.pt"
"$PTFLOW" --no-symbols --pt "$tmp/empty.pt" --elf "$dyn/hello" > "$tmp/e.out" 2> "$tmp/e.err"
rc=$?
[ $rc -eq 1 ] && sane_run $rc "$tmp/e.err" && grep -q 'no PSB found' "$tmp/e.err" &&
	pass || fail "empty trace: rc=$rc"

# An image of "jmp ." where the trace enters: the decoder follows the
# direct branch without reading trace; ptflow must stop it.
printf '\353\376' > "$tmp/loop.bin"
timeout 120 "$PTFLOW" --no-symbols --pt "$dyn/dynamorio.pt" --raw "$tmp/loop.bin:0x401000" \
	--quiet --stat > "$tmp/l.out" 2> "$tmp/l.err"
rc=$?
[ $rc -eq 1 ] && grep -q 'no trace progress' "$tmp/l.err" && pass ||
	fail "endless jmp loop: rc=$rc $(cat "$tmp/l.err")"

# ---- symbols, views and time on the DynamoRIO trace (issue 15) -------------
# shellcheck disable=SC2086
"$PTFLOW" --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" $params > "$tmp/sym" 2>&1
sed -n 5p "$tmp/sym" | grep -qx '0000000000401000 <_start>  movl $1, %eax' &&
	grep -qx '0000000000401025 <_start+0x25>  syscall' "$tmp/sym" &&
	sed -E 's/ <_start(\+0x[0-9a-f]+)?>//' "$tmp/sym" | cmp -s - "$tmp/full" &&
	pass || fail "symbols: $(head -n 6 "$tmp/sym")"
# shellcheck disable=SC2086
"$PTFLOW" --calls --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" $params > "$tmp/calls" 2>&1
cat > "$tmp/calls.expect" <<'EOF'
           0  -           enabled _start
        8336  -           interrupt _start
        8554  -           syscall
       26741  -           syscall
EOF
cmp -s "$tmp/calls" "$tmp/calls.expect" && pass ||
	{ fail "--calls on dynamorio"; diff "$tmp/calls.expect" "$tmp/calls"; }
# shellcheck disable=SC2086
"$PTFLOW" --report --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" $params > "$tmp/rep" 2>&1
grep -qx '\[report -: 8 instructions, 18187 ns\]' "$tmp/rep" &&
	grep -qE '^ +8 +8 +100\.00 +0 +18187 +18187  _start$' "$tmp/rep" &&
	pass || fail "--report on dynamorio: $(cat "$tmp/rep")"
# Time: libipt's estimate at each syscall (ptflow --time; SDM 33.8.3 with
# MTC, TMA, CYC, CBR) equals libpt's (ptdump --time) at the CYC before the
# TIP.PGD it causes.
PTDUMP=${PTDUMP:-$O/bin/ptdump}
if [ -x "$PTDUMP" ]; then
	# shellcheck disable=SC2086
	"$PTDUMP" --time --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2 \
		--cpuid-0x15.ebx 308 "$dyn/dynamorio.pt" 2>/dev/null |
		awk '/ tsc  [0-9a-f]+$/ { t = $NF } / tip\.pgd / { print t }' |
		tail -n 2 > "$tmp/t.libpt"
	# shellcheck disable=SC2086
	"$PTFLOW" --no-symbols --time --pt "$dyn/dynamorio.pt" --elf "$dyn/hello" \
		$params | awk '/syscall$/ { print $1 }' > "$tmp/t.libipt"
	[ -s "$tmp/t.libpt" ] && cmp -s "$tmp/t.libpt" "$tmp/t.libipt" && pass ||
		fail "time: libpt $(cat "$tmp/t.libpt") libipt $(cat "$tmp/t.libipt")"
fi
usage_case "--export without file" --export=chrome
# A raw trace where the directory goes: say what to give instead.
usage_case "trace file as directory" "$dyn/dynamorio.pt"
grep -q 'not a ptcap directory.*--pt .*dynamorio.pt --elf' "$tmp/ue" && pass ||
	fail "trace file as directory: $(cat "$tmp/ue")"
usage_case "--export=json" --export=json x.json "$dyn"
usage_case "--tsc-freq 0" --tsc-freq 0 "$dyn"

# ---- real traces without images: clean errors, bounded time ---------------
for t in "$data"/real/libxdc/*.pt; do
	[ -f "$t" ] || continue
	timeout 300 "$PTFLOW" --no-symbols --pt "$t" > "$tmp/x.out" 2> "$tmp/x.err"
	rc=$?
	if [ $rc -eq 1 ] && sane_run $rc "$tmp/x.err" &&
	   grep -q '^ptflow: .*offset 0x' "$tmp/x.err" &&
	   grep -q '^ptflow: [0-9]* decode errors*$' "$tmp/x.err" &&
	   grep -q '^\[resync at offset 0x[0-9a-f]*: ' "$tmp/x.out"; then
		pass
	else
		fail "libxdc $(basename "$t"): rc=$rc $(tail -n 3 "$tmp/x.err")"
	fi
done

finish
