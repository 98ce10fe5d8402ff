#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 36 items 1-5: every hostile input of ../shared/repro/inputs (its
# README's table) and every hand-made case of that README (devices, FIFOs,
# symlinks, sparse files: made here, git cannot hold them) through each
# tool that reads it: ptflow, ptdump, pt2perf, ptcov. Each run must end
# with the right output or a clear error and the right exit status, within
# a memory bound (peak RSS <= 100 MB, from /usr/bin/time), leaving no
# temporary file. The 60 s timeout only catches hangs (the host may be at
# load 8, and ptflow on perf-20000-queues.data creates 20,000 files):
# speed is not asserted here (make bench does that).
# Skips where ../shared (LWPT_SHARED) is absent. O=build/sanitize runs the
# sanitizer build (make SANITIZE=1 check-unit).
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# shellcheck source=tests/tools/lib.sh
. "$(dirname "$0")/../lib.sh"

in=$shared/repro/inputs
if [ ! -d "$in" ]; then
	echo "SKIP: $in absent (the hostile inputs live in ../shared/repro)"
	echo "0 passed, 0 failed"
	exit 0
fi
if [ ! -x /usr/bin/time ]; then
	echo "SKIP: /usr/bin/time absent (Debian package time): no RSS figure"
	echo "0 passed, 0 failed"
	exit 0
fi
bin=$O/bin
w=$(mktemp -d "${TMPDIR:-/tmp}/lwpt-hostile.XXXXXX") || exit 1
trap 'chmod -R u+w "$w" 2>/dev/null; rm -rf "$w"' EXIT INT TERM
tmp=$w/tmpdir		# TMPDIR of the tools: must stay empty
mkdir "$tmp"
rss_max=102400		# KB
slowest=0 slowest_name='' slowest_rss=''

# The sanitizer build reserves terabytes of address space: bound it by
# RSS (ASan's hard_rss_limit_mb) instead of ulimit -v.
if ldd "$bin/ptflow" 2>/dev/null | grep -q libasan; then
	vlimit=unlimited
	# a small quarantine: freed memory ASan holds back (256 MB by
	# default) is not the tools' memory
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024:quarantine_size_mb=4
	export ASAN_OPTIONS
else
	vlimit=1048576
fi

# run NAME RC REGEX CMD...: run CMD (stdin /dev/null, TMPDIR=$tmp) with a
# timeout (HOSTILE_TIMEOUT, 60 s) and the memory bound; its exit status must be RC ("nz":
# 1..127) and its stderr must match the extended REGEX ("" for any).
run() {
	name=$1 want=$2 re=$3
	shift 3
	rm -f "$w/rss"
	# shellcheck disable=SC3045 # dash has ulimit -v
	(ulimit -v $vlimit 2>/dev/null
	 TMPDIR=$tmp exec timeout -s KILL "${HOSTILE_TIMEOUT:-60}" /usr/bin/time -f '%M %e' -o "$w/rss" "$@") \
		>"$w/out" 2>"$w/err" </dev/null
	rc=$?
	rss=$(tail -n 1 "$w/rss" 2>/dev/null | cut -d' ' -f1)
	secs=$(tail -n 1 "$w/rss" 2>/dev/null | cut -d' ' -f2)
	# the slowest run, reported at the end (not asserted: see above)
	case $secs in
	''|*[!0-9.]*) ;;
	*) if awk -v a="$secs" -v b="$slowest" 'BEGIN { exit !(a > b) }'; then
		slowest=$secs slowest_name=$name slowest_rss=$rss
	   fi ;;
	esac
	bad=
	case $rc in
	137) bad="no end in ${HOSTILE_TIMEOUT:-60} s (killed)" ;;
	*)
		if [ "$want" = nz ]; then
			[ "$rc" -ge 1 ] && [ "$rc" -lt 128 ] || bad="exit $rc, want 1..127"
		elif [ "$rc" != "$want" ]; then
			bad="exit $rc, want $want"
		fi ;;
	esac
	case $rss in
	''|*[!0-9]*) ;;
	*) [ "$rss" -le $rss_max ] || bad="$bad${bad:+; }peak RSS ${rss} KB > $rss_max KB" ;;
	esac
	if [ -n "$re" ] && ! grep -Eq -- "$re" "$w/err"; then
		bad="$bad${bad:+; }stderr does not match /$re/"
	fi
	if [ -n "$(ls -A "$tmp")" ]; then
		bad="$bad${bad:+; }left in TMPDIR: $(ls -A "$tmp" | head -n 3 | tr '\n' ' ')"
		rm -rf "${tmp:?}"/* 2>/dev/null
	fi
	if [ -z "$bad" ]; then
		pass
		# HOSTILE_VERBOSE=1: what each run said (for a report)
		[ -z "$HOSTILE_VERBOSE" ] ||
			echo "ok: $name: exit $rc, ${rss:-?} KB, ${secs:-?} s: $(grep -v '^==' "$w/err" | head -n 1 | cut -c1-150)"
	else
		fail "$name: $bad"
		sed -n '1,4s/^/	stderr: /p' "$w/err" | cut -c1-200
	fi
}

ptflow=$bin/ptflow ptdump=$bin/ptdump pt2perf=$bin/pt2perf ptcov=$bin/ptcov
for t in "$ptflow" "$ptdump" "$pt2perf" "$ptcov"; do
	[ -x "$t" ] || { fail "$t not built"; finish; }
done

# ---- The files of the table ----
f=$in/perf-attr-ids-quadratic.data
run "attr-ids-quadratic ptflow" nz 'ids.*overlap' "$ptflow" --quiet "$f"
run "attr-ids-quadratic ptdump" nz 'ids.*overlap' "$ptdump" "$f"

f=$in/perf-switch-cpu7fffffff.data
run "switch-cpu7fffffff ptflow" nz 'cpu 2147483647' "$ptflow" --no-symbols "$f"
run "switch-cpu7fffffff ptdump" nz 'cpu 2147483647' "$ptdump" "$f"

f=$in/perf-zstd-bomb-mmap2.data
re='COMPRESSED record at 0x[0-9a-f]+.*--max-decompressed'
run "zstd-bomb ptflow" nz "$re" "$ptflow" --quiet "$f"
run "zstd-bomb ptdump" nz "$re" "$ptdump" "$f"
run "zstd-bomb ptflow --max-decompressed 1M" nz "$re" \
	"$ptflow" --quiet --max-decompressed 1M "$f"

f=$in/perf-20000-queues.data
run "20000-queues ptflow" 0 '' "$ptflow" --quiet "$f"
run "20000-queues ptdump" 0 '' "$ptdump" --quiet "$f"

f=$in/perf-dup-tid-queues.data
run "dup-tid-queues ptdump" 0 '' "$ptdump" "$f"
n=$(grep -c '^== .*tid1234' "$w/out")
[ "$n" -eq 2 ] && pass || fail "dup-tid-queues ptdump: $n traces of tid 1234 shown, want 2"

# exit 1: /srv/fuzz-samples/hello1 is absent, so both end in a decode error
run "filter-plain-control ptflow" 1 '' "$ptflow" --stat "$in/perf-filter-plain-control.data"
cp "$w/out" "$w/control.out"
run "filter-newline-inject ptflow" 1 '' "$ptflow" --stat "$in/perf-filter-newline-inject.data"
cmp -s "$w/out" "$w/control.out" && pass ||
	fail "filter-newline-inject: ptflow --stat differs from the control's: $(tr '\n' ' ' <"$w/out")"

run "comm-newline-inject ptflow" 0 '' "$ptflow" "$in/perf-comm-newline-inject.data"
grep -q 'processes' "$w/err" && fail "comm-newline-inject: $(head -n 1 "$w/err")" || pass

mkdir "$w/symfs"
run "symfs-dotdot ptflow" 1 'outside --symfs' \
	"$ptflow" --symfs "$w/symfs" "$in/perf-symfs-dotdot.data"

run "pc-bad-procmaps ptflow" nz 'maps\.1234\.0' "$ptflow" "$in/ptcap-pc-bad-procmaps"

d=$in/ptcap-maps-devzero
re='/dev/zero.*not a regular file'
run "maps-devzero ptcov" nz "$re" "$ptcov" "$d"
run "maps-devzero ptflow" nz "$re" "$ptflow" "$d"
# converting needs no code: a note, and the perf.data is written
run "maps-devzero pt2perf" 0 "$re" "$pt2perf" "$d" -o "$w/x.data"
rm -f "$w/x.data"

# ---- Made by hand ----
# good: a per-thread capture whose maps name ./hello; pc: a per-CPU one
# with switches, processes and maps.1234.0.
mkcap() {
	rm -rf "${w:?}/${1:?}"
	cp -r "$2" "$w/$1"
	chmod -R u+w "$w/$1"
}
mkcap good "$in/ptcap-maps-devzero"
cp "$in/ptcap-pc-bad-procmaps/maps" "$w/good/maps"
mkcap pc "$in/ptcap-pc-bad-procmaps"
cp "$w/pc/maps" "$w/pc/maps.1234.0"

# the good ones decode
run "good ptflow" 0 '' "$ptflow" --stat "$w/good"
grep -q '^instructions: [1-9]' "$w/out" && pass || fail "good ptflow: $(tr '\n' ' ' <"$w/out")"
run "good ptcov" 0 '' "$ptcov" "$w/good"
run "good pt2perf" 0 '' "$pt2perf" "$w/good" -o "$w/x.data"
run "pc ptflow" 0 '' "$ptflow" --stat "$w/pc"

# config, maps (and for pc: switches, processes, maps.1234.0) as a
# symlink to /dev/zero and as a FIFO
for kind in zero fifo; do
	for c in good:config good:maps pc:switches pc:processes pc:maps.1234.0; do
		cap=${c%%:*} file=${c#*:}
		mkcap "$kind-$cap" "$w/$cap"
		dd=$w/$kind-$cap
		rm "$dd/$file"
		if [ $kind = zero ]; then ln -s /dev/zero "$dd/$file"; else mkfifo "$dd/$file"; fi
		re="$file.*not a regular file"
		run "$file as $kind ptflow" nz "$re" "$ptflow" "$dd"
		run "$file as $kind pt2perf" nz "$re" "$pt2perf" "$dd" -o "$w/x.data"
		if [ "$cap" = good ]; then
			run "$file as $kind ptcov" nz "$re" "$ptcov" "$dd"
		fi
		# ptdump reads a directory's config only (its traces' parameters)
		if [ "$file" = config ]; then
			run "$file as $kind ptdump" nz "$re" "$ptdump" "$dd"
			# a trace file of the directory: said, then dumped without it
			run "$file as $kind ptdump DIR/tid1234.pt" 0 "$re" "$ptdump" --quiet "$dd/tid1234.pt"
		fi
	done
	# a maps line naming such a file, and a jitdump that is one
	mkcap "$kind-named" "$w/good"
	dd=$w/$kind-named
	if [ $kind = zero ]; then ln -s /dev/zero "$dd/lib.so"; ln -s /dev/zero "$dd/jit-1.dump"
	else mkfifo "$dd/lib.so" "$dd/jit-1.dump"; fi
	printf '0x500000 0x501000 0x0 lib.so\n' >>"$dd/maps"
	# the other maps lines still give code: a warning, and exit 0
	run "maps line naming a $kind ptcov" 0 'lib\.so.*not a regular file' "$ptcov" "$dd"
	run "maps line naming a $kind ptcov lcov" 0 'lib\.so.*not a regular file' \
		"$ptcov" --format=lcov -o "$w/x.info" "$dd"
	# named on ptcov's command line: refused at once, never opened blocking
	run "--elf $kind ptcov" nz 'not a regular file' "$ptcov" --elf "$dd/lib.so" \
		--pt "$dd/tid1234.pt"
	run "--raw $kind ptcov" nz 'not a regular file' "$ptcov" --raw "$dd/lib.so:0x1000" \
		--pt "$dd/tid1234.pt"
	run "maps line naming a $kind ptflow" 0 'lib\.so.*not a regular file' "$ptflow" "$dd"
	run "maps line naming a $kind pt2perf" 0 '' "$pt2perf" "$dd" -o "$w/x.data"
	printf '0x600000 0x601000 0x0 jit-1.dump\n' >>"$dd/maps"
	run "jitdump as a $kind ptflow" 0 'jit-1\.dump.*not a regular file' "$ptflow" "$dd"
done

# 40 maps lines naming one 117 MB library (sparse here: the point is the
# size of what is read)
mkcap big "$w/good"
truncate -s 117M "$w/big/big.so"
i=0
while [ $i -lt 40 ]; do
	printf '0x%x 0x%x 0x0 big.so\n' $((0x10000000 + i * 0x8000000)) \
		$((0x10000000 + i * 0x8000000 + 117 * 1048576)) >>"$w/big/maps"
	i=$((i + 1))
done
run "40 maps of a 117 MB file ptcov" 0 '' "$ptcov" "$w/big"
run "40 maps of a 117 MB file ptflow" 0 '' "$ptflow" --quiet "$w/big"

# a 16 GB sparse trace
mkcap sparse "$w/good"
rm "$w/sparse/tid1234.pt"
truncate -s 16G "$w/sparse/tid1234.pt"
re='tid1234\.pt.*sparse'
run "16 GB sparse trace ptcov" nz "$re" "$ptcov" "$w/sparse"
run "16 GB sparse trace ptflow" nz "$re" "$ptflow" "$w/sparse"
run "16 GB sparse trace ptdump" nz "$re" "$ptdump" "$w/sparse/tid1234.pt"
run "16 GB sparse trace pt2perf" nz "$re" "$pt2perf" "$w/sparse" -o "$w/x.data"
rm -rf "$w/sparse"

# ---- Nothing left behind: SIGINT, SIGTERM, SIGPIPE ----
# The tool is stopped once its temporary directory exists (the event
# waited for); when it ends first, nothing may be left either.
f=$in/perf-20000-queues.data
for sig in INT TERM; do
	for t in ptflow ptdump; do
		TMPDIR=$tmp "$bin/$t" --quiet "$f" >/dev/null 2>&1 &
		pid=$!
		while kill -0 $pid 2>/dev/null && [ -z "$(ls -A "$tmp")" ]; do
			sleep 0.01
		done
		kill -s $sig $pid 2>/dev/null
		{ wait $pid; } 2>/dev/null
		if [ -n "$(ls -A "$tmp")" ]; then
			fail "$t stopped by SIG$sig left $(ls -A "$tmp" | head -n 1) in TMPDIR"
			rm -rf "${tmp:?}"/*
		else
			pass
		fi
	done
done
for t in ptflow ptdump; do
	# SIGPIPE: the reader of the output goes away after one byte
	(TMPDIR=$tmp "$bin/$t" "$f" 2>/dev/null; echo $? >"$w/rc") | head -c 1 >/dev/null
	if [ -n "$(ls -A "$tmp")" ]; then
		fail "$t stopped by SIGPIPE (exit $(cat "$w/rc")) left $(ls -A "$tmp" | head -n 1)"
		rm -rf "${tmp:?}"/*
	else
		pass
	fi
done

echo "slowest run: $slowest s (elapsed), ${slowest_rss:-?} KB: $slowest_name"
finish
