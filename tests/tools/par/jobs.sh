#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# Script test of -j N (issue 34 point 3, Documentation/ptcov.rst "Every
# core", Documentation/ptdump.rst "-j"): ptcov and ptdump print the same
# bytes (stdout, stderr, exit status) with -j 1, -j 4 and -j 7, with chunks
# of 1 byte (every PSB starts a chunk: boundaries inside call stacks,
# after the OVF of mruby, around TIP.PGD/TIP.PGE and PSB+s with a FUP
# only, wherever the real traces have them) and of a few KiB, on every
# real trace of ../shared/testdata/pt/real and on a concatenation of them.
# ptcov in every output format (--edges, --bitmap, --xdc --bitmap, lcov,
# drcov); ptdump in its default layout and with --lastip --raw, and
# --no-offset --exec-mode --no-pad.
set -u

# here, root, O, shared, pass, fail, finish
. "$(dirname "$0")/../lib.sh"
PTCOV=${PTCOV:-$O/bin/ptcov}
PTDUMP=${PTDUMP:-$O/bin/ptdump}
real=$shared/testdata/pt/real
data=$real/libxdc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$PTCOV" ] && [ -x "$PTDUMP" ] || { fail "ptcov/ptdump not built (run make)"; finish; }
if [ ! -d "$data" ]; then
	echo "SKIP: $data missing (../shared)"
	finish
fi

# run NAME CMD...: stdout, stderr and the exit status into $tmp/NAME
run() {
	n=$1
	shift
	"$@" > "$tmp/$n.out" 2> "$tmp/$n.err"
	echo "exit $?" >> "$tmp/$n.err"
	if [ -f "$tmp/map" ]; then
		mv "$tmp/map" "$tmp/$n.map"
	fi
}

# same WHAT: the -j 1 run (ref) against the last (cmp)
same() {
	if cmp -s "$tmp/ref.out" "$tmp/cmp.out" && cmp -s "$tmp/ref.err" "$tmp/cmp.err" &&
	   { [ ! -f "$tmp/ref.map" ] || cmp -s "$tmp/ref.map" "$tmp/cmp.map"; }; then
		pass
	else
		fail "$1: -j output differs from -j 1"
		diff "$tmp/ref.out" "$tmp/cmp.out" | head -5
		diff "$tmp/ref.err" "$tmp/cmp.err" | head -5
	fi
}

# --- ptcov on the traces with their code ---------------------------------
cat > "$tmp/cov" <<'LIST'
Unzip__trace Unzip 400000-427000
foo__trace foo 7ffff7819000-7ffff79ca000
mruby__trace mruby 400000-4b6000
icelake_tip__ptlog icelake_tip 1000-fffffffffffff000
LIST
# a large one: mruby four times (the decode is exact across the joins)
for i in 1 2 3 4; do cat "$data/mruby__trace.pt"; done > "$tmp/mruby4.pt"
while read -r trace pc filter; do
	pt=$data/$trace.pt
	[ "$trace" = mruby__trace ] && pt="$pt $tmp/mruby4.pt"
	for t in $pt; do
		for fmt in --edges "--bitmap $tmp/map" "--xdc --bitmap $tmp/map" \
			   --format=lcov --format=drcov; do
			rm -f "$tmp"/*.map
			# shellcheck disable=SC2086 # $fmt: words
			run ref "$PTCOV" --pt "$t" --pagecache "$data/pagecache/$pc" \
				--filter "$filter" --cpu 6/94/3 $fmt -j 1
			for j in "4 --chunk-size 1" "7 --chunk-size 1" "4 --chunk-size 3000" \
				 "7 --chunk-size 20000"; do
				# shellcheck disable=SC2086
				run cmp "$PTCOV" --pt "$t" --pagecache "$data/pagecache/$pc" \
					--filter "$filter" --cpu 6/94/3 $fmt -j $j
				same "ptcov $(basename "$t") $fmt -j $j"
			done
		done
	done
done < "$tmp/cov"

# ptcov on traces whose code is missing: errors and missed pages as -j 1
for t in qemu__trace1 Kernel__trace dyn_test__sample_raw_0; do
	run ref "$PTCOV" --pt "$data/$t.pt" --pagecache "$data/pagecache/mruby" -j 1
	run cmp "$PTCOV" --pt "$data/$t.pt" --pagecache "$data/pagecache/mruby" -j 4 \
		--chunk-size 1
	same "ptcov $t (code missing)"
done

# several traces at once (--pt twice: summed), each cut
run ref "$PTCOV" --pt "$data/foo__trace.pt" --pt "$data/foo__trace.pt" \
	--pagecache "$data/pagecache/foo" --filter 7ffff7819000-7ffff79ca000 -j 1
run cmp "$PTCOV" --pt "$data/foo__trace.pt" --pt "$data/foo__trace.pt" \
	--pagecache "$data/pagecache/foo" --filter 7ffff7819000-7ffff79ca000 -j 7 \
	--chunk-size 1
same "ptcov two traces"

# a trace without a PSB is one chunk: the -j 1 error
head -c 4000 /dev/zero > "$tmp/nopsb.pt"
run ref "$PTCOV" --pt "$tmp/nopsb.pt" --pagecache "$data/pagecache/foo" -j 1
run cmp "$PTCOV" --pt "$tmp/nopsb.pt" --pagecache "$data/pagecache/foo" -j 4 --chunk-size 1
same "ptcov no PSB"

"$PTCOV" -j 0 --pt x --raw y:0 > /dev/null 2>&1
[ $? -eq 2 ] && pass || fail "ptcov -j 0: exit 2"

# --- ptdump ---------------------------------------------------------------
cat "$data"/*.pt "$real/dynamorio/dynamorio.pt" > "$tmp/all.pt"
for t in "$data"/*.pt "$real/dynamorio/dynamorio.pt" "$tmp/all.pt" "$tmp/nopsb.pt"; do
	for opt in "" "--lastip --raw" "--no-offset --exec-mode --no-pad"; do
		# shellcheck disable=SC2086 # $opt: words
		run ref "$PTDUMP" $opt -j 1 "$t"
		for j in "4 --chunk-size 1" "7 --chunk-size 1" "4 --chunk-size 5000" "7"; do
			# shellcheck disable=SC2086
			run cmp "$PTDUMP" $opt -j $j "$t"
			same "ptdump $opt -j $j $(basename "$t")"
		done
	done
done
# --time runs on one thread: the same output
run ref "$PTDUMP" --time --cpu 6/85/4 --mtc-freq 3 --nom-freq 37 -j 1 "$real/dynamorio/dynamorio.pt"
run cmp "$PTDUMP" --time --cpu 6/85/4 --mtc-freq 3 --nom-freq 37 -j 4 --chunk-size 1 \
	"$real/dynamorio/dynamorio.pt"
same "ptdump --time"

# corrupt copies of mruby (bytes changed, PSB patterns written inside
# packets): -j prints what -j 1 does (ptcov: decoded whole on an error)
i=0
while [ $i -lt 6 ]; do
	i=$((i + 1))
	python3 - "$data/mruby__trace.pt" "$i" "$tmp/bad.pt" <<'PY'
import random, sys
b = bytearray(open(sys.argv[1], 'rb').read()[:200000])
random.seed(int(sys.argv[2]))
for _ in range(200):
    b[random.randrange(len(b))] = random.randrange(256)
for _ in range(5):
    k = random.randrange(len(b) - 16)
    b[k:k + 16] = bytes([2, 0x82] * 8)
open(sys.argv[3], 'wb').write(b)
PY
	run ref "$PTDUMP" --lastip -j 1 "$tmp/bad.pt"
	run cmp "$PTDUMP" --lastip -j 4 --chunk-size 1 "$tmp/bad.pt"
	same "ptdump corrupt copy $i"
	run ref "$PTCOV" --pt "$tmp/bad.pt" --pagecache "$data/pagecache/mruby" \
		--filter 400000-4b6000 -j 1
	run cmp "$PTCOV" --pt "$tmp/bad.pt" --pagecache "$data/pagecache/mruby" \
		--filter 400000-4b6000 -j 4 --chunk-size 1
	same "ptcov corrupt copy $i"
done

finish
