#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# ptcov's lcov and drcov output (issue 35, Documentation/ptcov.rst "lcov",
# "drcov"), on the host: progs/cov_prog.c + cov_prog2.c (loops, switch,
# function pointers, recursion, early returns, two source files) is traced
# without PT hardware by pt_step_trace (ptrace single-stepping fed to the
# model's packet generator, model/pt/trace.c) on five inputs.
#  1. built -O0 -g --coverage: ptcov's lcov of the five traces equals
#     gcov's counts of the same five runs (gcov_compare.py: lines, calls,
#     conditional branch outcomes);
#  2. the same traces as five ptcap directories, merged by ptcov: the same
#     tracefile; genhtml reads it;
#  3. built -O2 without --coverage: every line ptcov reports executed is
#     an executable line of the DWARF table, and every function gcov saw
#     executed has a line ptcov saw executed;
#  4. drcov: the published layout (drcov_check.py) and the blocks of
#     ptflow's instruction flow of the same traces;
#  5. a stripped binary: function coverage, the file without a line table
#     named once; kAFL's Unzip page cache as drcov; the first missing page
#     named first;
#  6. perf.data: the edges and blocks of its page cache;
#  7. a separate debug-info file (.gnu_debuglink): there, prog2's
#     tracefile; missing, function and address (drcov) coverage and the
#     file named once, over two layouts too.
set -u

# here, root, O, shared, pass, fail, finish
. "$(dirname "$0")/../lib.sh"
PTCOV=${PTCOV:-$O/bin/ptcov}
PTFLOW=${PTFLOW:-$O/bin/ptflow}
STEP=$O/tests/pt_step_trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$PTCOV" ] && [ -x "$STEP" ] || { fail "ptcov or pt_step_trace not built"; finish; }
command -v gcov >/dev/null && command -v python3 >/dev/null ||
	{ fail "gcov and python3 needed (scripts/install-deps)"; finish; }

cp "$here/progs/cov_prog.c" "$here/progs/cov_prog2.c" "$tmp/"
cd "$tmp" || exit 1
if ! gcc -O0 -g --coverage -static -no-pie -o prog cov_prog.c cov_prog2.c 2>cc.err; then
	fail "cc --coverage: $(cat cc.err)"
	finish
fi
gcc -O2 -g -static -no-pie -o prog2 cov_prog.c cov_prog2.c
# inputs: 5 digits/letters; empty (switch case 0, fold's early return);
# a '-' (classify -1, continue); two arguments (never()); n % 4 == 2
i=0
for input in abc12 "" a-b9 "x y" zz; do
	i=$((i + 1))
	# shellcheck disable=SC2086 # "x y" is two arguments
	"$STEP" "t$i.pt" ./prog $input >/dev/null 2>step.err
	[ $? -ne 125 ] || fail "pt_step_trace prog $input: $(cat step.err)"
	# shellcheck disable=SC2086
	"$STEP" "o$i.pt" ./prog2 $input >/dev/null 2>step.err
	[ $? -ne 125 ] || fail "pt_step_trace prog2 $input: $(cat step.err)"
done
gcov -b -c --json-format prog-cov_prog.gcda prog-cov_prog2.gcda >/dev/null 2>&1 &&
	gunzip -f ./*.gcov.json.gz || fail "gcov --json-format"

# 1. lcov against gcov
"$PTCOV" --format=lcov -o run.info --elf prog --pt t1.pt --pt t2.pt --pt t3.pt \
	--pt t4.pt --pt t5.pt 2>sum.txt && pass || fail "ptcov --format=lcov: $(cat sum.txt)"
python3 "$here/gcov_compare.py" run.info ./*.gcov.json >cmp.txt && pass ||
	fail "lcov against gcov: $(cat cmp.txt)"
grep -q "0 differences" cmp.txt && grep -q "^gcov_compare: 50 lines" cmp.txt && pass ||
	fail "gcov comparison: $(tail -1 cmp.txt)"
grep -q "^File '.*cov_prog2.c'" sum.txt && grep -q "^Lines executed:" sum.txt && pass ||
	fail "summary on stderr: $(cat sum.txt)"

# 2. ptcap directories, merged as lcov -a
i=0
for t in t1 t2 t3 t4 t5; do
	i=$((i + 1))
	mkdir "cap$i"
	printf 'lwpt-ptcap-config 1\n' > "cap$i/config"
	echo "lwpt-ptcap-maps 1" > "cap$i/maps"
	# shellcheck disable=SC2034 # the columns of readelf -l
	readelf -lW prog | awk '$1 == "LOAD" { print $2, $3, $5 }' |
		while read -r off vaddr filesz; do
			echo "$vaddr $(printf '0x%x' $((vaddr + filesz))) $off $tmp/prog"
		done >> "cap$i/maps"
	cp "$t.pt" "cap$i/cpu0.pt"
done
"$PTCOV" --format=lcov -o merged.info cap1 cap2 cap3 cap4 cap5 2>/dev/null && pass ||
	fail "ptcov --format=lcov DIR..."
cmp -s run.info merged.info && pass || fail "five ptcap directories merged: $(diff run.info merged.info | head -5)"
if command -v genhtml >/dev/null; then
	genhtml -q --branch-coverage -o html merged.info >genhtml.out 2>&1 &&
		[ -f html/index.html ] && pass || fail "genhtml: $(cat genhtml.out)"
fi

# 2b. PIE and dynamic (ld.so, libc: ET_DYN load biases from the maps, a
# library's lines without its sources left out), one run, as a ptcap
# directory written by pt_step_trace -m (no ASLR; the maps at exit)
gcc -O0 -g --coverage -fPIE -pie -o pprog cov_prog.c cov_prog2.c
mkdir pcap && printf 'lwpt-ptcap-config 1\n' > pcap/config
"$STEP" -m pcap/maps pcap/cpu0.pt ./pprog abc12 >/dev/null 2>step.err
[ $? -ne 125 ] || fail "pt_step_trace pprog: $(cat step.err)"
mkdir pj && (cd pj && gcov -b -c --json-format ../pprog-cov_prog.gcda \
	../pprog-cov_prog2.gcda >/dev/null 2>&1 && gunzip -f ./*.gcov.json.gz) ||
	fail "gcov pprog"
"$PTCOV" --format=lcov -o pie.info pcap 2>pie.err && pass || fail "ptcov PIE: $(tail -3 pie.err)"
python3 "$here/gcov_compare.py" pie.info pj/*.gcov.json >pcmp.txt &&
	grep -q "^gcov_compare: 50 lines.* 0 differences" pcmp.txt && pass ||
	fail "PIE lcov against gcov: $(cat pcmp.txt)"
if command -v genhtml >/dev/null; then
	genhtml -q -o phtml pie.info >genhtml.out 2>&1 && pass ||
		fail "genhtml PIE: $(cat genhtml.out)"
fi

# 3. -O2 without --coverage
"$PTCOV" --format=lcov -o o2.info --elf prog2 --pt o1.pt --pt o2.pt --pt o3.pt \
	--pt o4.pt --pt o5.pt 2>/dev/null && pass || fail "ptcov -O2"
objdump --dwarf=decodedline prog2 2>/dev/null |
	awk 'NF >= 3 && $1 ~ /\.c$/ && $2 ~ /^[0-9]+$/ { print $1 ":" $2 }' | sort -u > dwarf.lines
awk -F'[:,]' '/^SF:/ { n = split($2, p, "/"); f = p[n] } /^DA:/ && $3 > 0 { print f ":" $2 }' \
	o2.info | sort -u > o2.hit
# a function's declaration line (FN:, DW_AT_decl_line) has the function's
# entries as gcov counts it; every other line is one of the line table's
awk -F'[:,]' '/^SF:/ { n = split($2, p, "/"); f = p[n] } /^FN:/ { print f ":" $2 }' \
	o2.info | sort -u > o2.fn
comm -23 o2.hit o2.fn > o2.lines
[ -s o2.lines ] && [ -z "$(comm -23 o2.lines dwarf.lines)" ] && pass ||
	fail "-O2 lines not in the DWARF table: $(comm -23 o2.lines dwarf.lines | head -5)"
python3 - ./*.gcov.json > o2.cmp <<'PY' && pass || fail "-O2 covers gcov's functions: $(cat o2.cmp)"
import json, sys
hit = set(l.strip() for l in open("o2.hit"))
bad = 0
for j in sys.argv[1:]:
    for f in json.load(open(j))["files"]:
        name = f["file"].split("/")[-1]
        for fn in f["functions"]:
            if not fn["execution_count"]:
                continue
            lines = range(fn["start_line"], fn["end_line"] + 1)
            if not any("%s:%d" % (name, l) in hit for l in lines):
                print("%s: %s executed (gcov), no line of it in the -O2 lcov" % (name, fn["name"]))
                bad += 1
sys.exit(1 if bad else 0)
PY

# 4. drcov: layout and ptflow's blocks
"$PTCOV" --format=drcov -o run.drcov --elf prog --pt t1.pt --pt t2.pt --pt t3.pt \
	--pt t4.pt --pt t5.pt && pass || fail "ptcov --format=drcov"
if [ -x "$PTFLOW" ]; then
	for t in t1 t2 t3 t4 t5; do
		"$PTFLOW" --pt "$t.pt" --elf prog --no-symbols --raw-insn 2>/dev/null
	done > flow.txt
	python3 "$here/drcov_check.py" run.drcov flow.txt > dr.txt && pass ||
		fail "drcov against ptflow: $(cat dr.txt)"
else
	python3 "$here/drcov_check.py" run.drcov > dr.txt && pass || fail "drcov: $(cat dr.txt)"
fi

# 5. no line table: function coverage, the file named once
strip --strip-debug -o stripped prog2
"$PTCOV" --format=lcov -o s.info --elf stripped --pt o1.pt 2>s.err && pass ||
	fail "stripped: $(cat s.err)"
[ "$(grep -c 'stripped: no line table' s.err)" = 1 ] &&
	grep -q "^Module '.*stripped' (code without lines)" s.err && pass ||
	fail "stripped: note once, functions: $(cat s.err)"

data=$shared/testdata/pt/real/libxdc
if [ -f "$data/Unzip__trace.pt" ]; then
	"$PTCOV" --pt "$data/Unzip__trace.pt" --pagecache "$data/pagecache/Unzip" \
		--filter 400000-427000 --cpu 6/94/3 --format=drcov -o unzip.drcov &&
		python3 "$here/drcov_check.py" unzip.drcov > udr.txt &&
		grep -q "1 modules, 561 blocks" udr.txt && pass ||
		fail "Unzip drcov: $(cat udr.txt)"
	# every missing page, the first first: Unzip without its first pages
	head -c 16 "$data/pagecache/Unzip.addr" > miss.addr
	head -c 8192 "$data/pagecache/Unzip.dump" > miss.dump
	"$PTCOV" --pt "$data/Unzip__trace.pt" --pagecache miss --filter 400000-427000 \
		--cpu 6/94/3 >/dev/null 2>miss.err
	[ "$(grep -c 'code missing at' miss.err)" -gt 1 ] && pass ||
		fail "missing pages: $(cat miss.err)"
fi

# 6. perf.data (file and pipe, --symfs): the same edges and blocks as the
# page cache it was made from (../shared/testdata/perf/kafl/README.md)
kafl=$shared/testdata/perf/kafl
if [ -f "$kafl/Unzip.perf.data" ] && [ -f "$data/Unzip__trace.pt" ]; then
	"$PTCOV" --pt "$data/Unzip__trace.pt" --pagecache "$data/pagecache/Unzip" \
		--filter 400000-427000 --cpu 6/94/3 > pc.edges 2>/dev/null
	"$PTCOV" --symfs "$kafl/symfs" "$kafl/Unzip.perf.data" > perf.edges 2>perf.err &&
		[ -s pc.edges ] && cmp -s pc.edges perf.edges && pass ||
		fail "perf.data edges: $(cat perf.err)"
	"$PTCOV" --symfs "$kafl/symfs" - < "$kafl/Unzip.perf.data" > pipe.edges 2>/dev/null &&
		cmp -s pc.edges pipe.edges && pass || fail "perf.data from a pipe"
	"$PTCOV" --symfs "$kafl/symfs" --format=drcov -o perf.drcov "$kafl/Unzip.perf.data" &&
		python3 "$here/drcov_check.py" perf.drcov > pdr.txt &&
		grep -q "1 modules, 561 blocks" pdr.txt && pass ||
		fail "perf.data drcov: $(cat pdr.txt)"
fi

# 7. a missing debug-info file (issue 35 "Errors"): prog2's DWARF in a
# separate file (objcopy --only-keep-debug, .gnu_debuglink), as
# distributions ship it. With the file: the same tracefile as prog2's.
# Without it: function coverage in the summary and address coverage
# (drcov: the same blocks as prog2's), the file named once as the one
# without a line table, also over captures of two layouts (two groups).
objcopy --only-keep-debug prog2 dl.debug && strip --strip-debug -o dl prog2 &&
	objcopy --add-gnu-debuglink=dl.debug dl || fail "objcopy, strip: a debuglink"
"$PTCOV" --format=lcov -o ref.info --elf prog2 --pt o1.pt --pt o2.pt 2>/dev/null
"$PTCOV" --format=lcov -o dl.info --elf dl --pt o1.pt --pt o2.pt 2>dl.err && pass ||
	fail "debug file there: $(cat dl.err)"
grep -q "no line table" dl.err && fail "debug file there: $(cat dl.err)" || pass
[ -s ref.info ] && cmp -s ref.info dl.info && pass ||
	fail "debug file there: not prog2's tracefile"
mv dl.debug dl.debug.gone
"$PTCOV" --format=lcov -o nodl.info --elf dl --pt o1.pt --pt o2.pt 2>nodl.err && pass ||
	fail "debug file missing: exit: $(cat nodl.err)"
[ "$(grep -c "dl: no line table" nodl.err)" = 1 ] && pass ||
	fail "debug file missing: named once: $(cat nodl.err)"
grep -A1 "^Module 'dl' (code without lines)" nodl.err | grep -q "Functions executed:" &&
	pass || fail "debug file missing: function coverage: $(cat nodl.err)"
[ -s nodl.info ] && fail "debug file missing: a record without lines" || pass
"$PTCOV" --format=drcov -o ref.drcov --elf prog2 --pt o1.pt --pt o2.pt 2>/dev/null
"$PTCOV" --format=drcov -o nodl.drcov --elf dl --pt o1.pt --pt o2.pt 2>/dev/null &&
	python3 "$here/drcov_check.py" ref.drcov > ref.dr && python3 "$here/drcov_check.py" \
	nodl.drcov > nodl.dr && [ -s ref.dr ] && cmp -s ref.dr nodl.dr && pass ||
	fail "debug file missing: drcov blocks: $(cat ref.dr nodl.dr)"
for c in ca cb; do
	mkdir $c && printf 'lwpt-ptcap-config 1\n' > $c/config
done
"$STEP" -m ca/maps ca/tid100.pt "$tmp/dl" abc12 >/dev/null 2>&1
"$STEP" -m cb/maps cb/tid100.pt "$tmp/dl" "" >/dev/null 2>&1
# another layout (a second file mapped): another group, the same dl
head -c 4096 /dev/zero > blob && echo "0x10000000 0x10001000 0x0 $tmp/blob" >> cb/maps
"$PTCOV" --format=lcov -o one.info ca 2>one.err
"$PTCOV" --format=lcov -o two.info ca cb 2>two.err && pass ||
	fail "two layouts: $(cat two.err)"
[ "$(grep -c "dl: no line table" two.err)" = 1 ] &&
	[ "$(grep -c "^Module '$tmp/dl'" two.err)" = 1 ] && pass ||
	fail "two layouts: named once, one summary: $(cat two.err)"
total() { grep -A1 "^Module '$tmp/dl'" "$1" | sed -n 's/.*% of \([0-9]*\)$/\1/p'; }
hit() { grep -A1 "^Module '$tmp/dl'" "$1" | sed -n 's/.*executed:\([0-9.]*\)%.*/\1/p'; }
[ -n "$(total one.err)" ] && [ "$(total one.err)" = "$(total two.err)" ] &&
	awk -v a="$(hit one.err)" -v b="$(hit two.err)" 'BEGIN { exit !(b >= a && b > 0) }' &&
	pass || fail "two layouts: the functions summed: $(cat one.err two.err)"
mv dl.debug.gone dl.debug
finish
