#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# ptflow and ptcov read a perf.data in place (include/lwpt/capture_src.h,
# issue 34 point 4, issue 36 point 1):
#
# - the output equals that of the same perf.data written as a ptcap
#   directory by lpt_perf_write_ptcap() (tests/perf2ptcap: the conversion
#   the tools made before) and read as a directory: stdout and exit status,
#   byte for byte, on the kAFL perf.data set (../shared/testdata/perf/kafl,
#   with --symfs: the flow, --calls, --report, --time, --stat; ptcov's
#   edges and lcov) and on the perf 4.14 recordings (per-CPU, decoded per
#   process; file and pipe format);
# - reading a perf.data creates no file: TMPDIR names a directory that does
#   not exist (creating anything there fails, as the conversion did) and
#   the working directory is an empty one that stays empty; a perf.data on
#   standard input is copied to an unlinked temporary file in TMPDIR (an
#   empty directory then), which leaves no name behind.
#
# Skips with a message without ../shared. Ends with "N passed, N failed".
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
PTFLOW=$O/bin/ptflow
PTCOV=$O/bin/ptcov
P2P=$O/tests/perf2ptcap
K=$shared/testdata/perf/kafl
R=$shared/testdata/perf

for b in "$PTFLOW" "$PTCOV" "$P2P"; do
	[ -x "$b" ] || { fail "$b not built (make all $O/tests/perf2ptcap)"; finish; }
done
if [ ! -d "$K/symfs" ] || [ ! -f "$R/perf.data.intel_pt-4.14" ]; then
	echo "perf_inplace: $K or $R not found, skipped"
	finish
fi

w=$(mktemp -d "${TMPDIR:-/tmp}/perf-inplace.XXXXXX") || exit 1
trap 'rm -rf "$w"' EXIT
trap 'exit 1' INT TERM
mkdir "$w/tmp" "$w/cwd"

# empty_after WHAT: TMPDIR and the working directory of the runs still empty
empty_after() {
	left=$(ls -A "$w/tmp"; ls -A "$w/cwd")
	if [ -n "$left" ]; then
		fail "$1 left files: $(echo "$left" | tr '\n' ' ')"
		rm -rf "$w/tmp" "$w/cwd"
		mkdir "$w/tmp" "$w/cwd"
	else
		pass
	fi
}

# same NAME IN-PLACE-CMD -- DIR-CMD: the same stdout and exit status
same() {
	name=$1
	shift
	a=
	while [ "$1" != -- ]; do a="$a '$1'"; shift; done
	shift
	(cd "$w/cwd" && eval "TMPDIR='$w/none' $a" >"$w/a.out" 2>"$w/a.err" </dev/null)
	ra=$?
	(cd "$w/cwd" && "$@" >"$w/b.out" 2>"$w/b.err" </dev/null)
	rb=$?
	[ "$ra" = "$rb" ] && cmp -s "$w/a.out" "$w/b.out" && pass ||
		fail "$name: in place (exit $ra, $(wc -c <"$w/a.out") bytes) differs" \
		     "from the directory (exit $rb, $(wc -c <"$w/b.out") bytes):" \
		     "$(head -n 2 "$w/a.err")"
	empty_after "$name"
}

for n in Unzip foo icelake_tip mruby; do
	f=$K/$n.perf.data
	d=$w/$n.ptcap
	mkdir "$d"
	"$P2P" --symfs "$K/symfs" "$f" "$d" 2>/dev/null || { fail "$n: perf2ptcap"; continue; }
	sym="--symfs $K/symfs"
	if [ "$n" != mruby ]; then
		# shellcheck disable=SC2086 # $sym: two words
		same "$n flow" "$PTFLOW" --time $sym "$f" -- "$PTFLOW" --time "$d"
	fi
	for o in --calls --report "--quiet --stat"; do
		# shellcheck disable=SC2086 # $o, $sym: words
		same "$n $o" "$PTFLOW" $o $sym "$f" -- "$PTFLOW" $o "$d"
	done
	# shellcheck disable=SC2086
	same "$n ptcov" "$PTCOV" $sym "$f" -- "$PTCOV" "$d"
	# shellcheck disable=SC2086
	same "$n ptcov lcov" "$PTCOV" $sym --format=lcov -o /dev/stdout "$f" -- \
		"$PTCOV" --format=lcov -o /dev/stdout "$d"
	rm -rf "$d"
done

# per-CPU recordings, decoded per process (no code: the binaries are absent)
for n in perf.data.intel_pt-4.14 perf.data.piped.intel_pt-4.14; do
	f=$R/$n
	d=$w/$n.ptcap
	mkdir "$d"
	"$P2P" "$f" "$d" 2>/dev/null || { fail "$n: perf2ptcap"; continue; }
	same "$n flow" "$PTFLOW" --time "$f" -- "$PTFLOW" --time "$d"
	same "$n calls" "$PTFLOW" --calls "$f" -- "$PTFLOW" --calls "$d"
	same "$n ptcov" "$PTCOV" "$f" -- "$PTCOV" "$d"
	rm -rf "$d"
done

# from a pipe: copied to an unlinked file, nothing left
(cd "$w/cwd" && TMPDIR=$w/tmp "$PTFLOW" --calls --symfs "$K/symfs" - \
	<"$K/foo.perf.data" >"$w/a.out" 2>/dev/null) && pass || fail "ptflow from a pipe"
empty_after "ptflow from a pipe"
(cd "$w/cwd" && TMPDIR=$w/tmp "$PTCOV" --symfs "$K/symfs" - \
	<"$K/foo.perf.data" >"$w/a.out" 2>/dev/null) && pass || fail "ptcov from a pipe"
empty_after "ptcov from a pipe"

finish
