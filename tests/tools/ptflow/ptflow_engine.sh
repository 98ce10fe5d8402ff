#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# ptflow --engine=lwpt (libpt's flow engine, lwpt/pt_flow.h) against
# --engine=libipt (libipt's instruction decoder), byte for byte, stdout and
# exit status (issue 34 point 1):
#
# - kAFL's real traces as perf.data (../shared/testdata/perf/kafl, as
#   kafl_perf.sh reads them): the listing with and without disassembly,
#   symbols and instruction bytes, --calls, --report, --export=chrome
#   (stdout and the JSON file), --stat, --pid/--tid;
# - the raw real traces of ../shared/testdata/pt/real/libxdc with their
#   page caches given as --raw pages (no IP filter: ptflow --pt has none),
#   cpu 6/94/3 as the README says; those without a page cache decoded
#   without code (the error offsets, the paging events);
# - --time on the engine (LPT_FLOW_F_TIME): the real traces with timing
#   packets put in (TSC, TMA, MTC, CYC, CBR; written by test_pt_flow_time
#   with TEST_PT_FLOW_TIME_DUMP), the listing with --time, --calls,
#   --report, --export=chrome (the JSON too);
# - --offset on the engine (LPT_FLOW_F_OFFSET): the same traces.
#
# Skips with a message without ../shared. Ends with "N passed, N failed".
set -u

# here, root, O, shared, pass/fail/finish
. "$(dirname "$0")/../lib.sh"
# raw_args, timed_traces, timed_clk
. "$here/real_lib.sh"
PTFLOW=${PTFLOW:-$O/bin/ptflow}
K=$shared/testdata/perf/kafl
R=$shared/testdata/pt/real/libxdc

[ -x "$PTFLOW" ] || { fail "$PTFLOW not built (run make all)"; finish; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptflow-engine.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# same NAME ARGS...: both engines' stdout and exit status are the same.
same() {
	name=$1
	shift
	"$PTFLOW" --engine=libipt "$@" >"$tmp/a" 2>"$tmp/a.err"
	ea=$?
	"$PTFLOW" --engine=lwpt "$@" >"$tmp/b" 2>"$tmp/b.err"
	eb=$?
	[ "$ea" = "$eb" ] && cmp -s "$tmp/a" "$tmp/b" && pass ||
		fail "$name: lwpt differs from libipt (exit $ea/$eb): $(diff \
			"$tmp/a" "$tmp/b" | head -n 4 | tr '\n' ' ')"
}

if [ -d "$K/symfs" ]; then
	for n in Unzip foo icelake_tip mruby; do
		d=$K/$n.perf.data
		same "$n --no-inst --no-symbols" --no-inst --no-symbols --symfs "$K/symfs" "$d"
		same "$n --calls" --calls --symfs "$K/symfs" "$d"
		same "$n --calls --no-symbols" --calls --no-symbols --symfs "$K/symfs" "$d"
		same "$n --report" --report --symfs "$K/symfs" "$d"
		same "$n --report --no-symbols" --report --no-symbols --symfs "$K/symfs" "$d"
		same "$n --quiet --stat" --quiet --stat --symfs "$K/symfs" "$d"
		# the timeline: the JSON file too
		same "$n --export=chrome" --export=chrome "$tmp/chrome.json" \
			--symfs "$K/symfs" "$d"
		mv "$tmp/chrome.json" "$tmp/chrome.b"
		"$PTFLOW" --engine=libipt --export=chrome "$tmp/chrome.json" \
			--symfs "$K/symfs" "$d" >/dev/null 2>&1
		cmp -s "$tmp/chrome.json" "$tmp/chrome.b" && pass ||
			fail "$n --export=chrome: the JSON differs"
		[ "$n" = mruby ] && continue	# 6.3 M lines: the fast views only
		same "$n --no-inst" --no-inst --symfs "$K/symfs" "$d"
		same "$n (disassembly)" --symfs "$K/symfs" "$d"
		same "$n --raw-insn --no-symbols" --raw-insn --no-symbols --symfs "$K/symfs" "$d"
	done
	# one thread or process of the capture (its traces only)
	same "foo --tid 1000 --calls" --tid 1000 --calls --symfs "$K/symfs" "$K/foo.perf.data"
	same "foo --pid 1000 --report" --pid 1000 --report --symfs "$K/symfs" "$K/foo.perf.data"
	same "foo --tid 1001 (none)" --tid 1001 --calls --symfs "$K/symfs" "$K/foo.perf.data"
	# --time and --offset on the engine: not said, the same
	for o in --time --offset; do
		"$PTFLOW" --engine=lwpt $o --no-inst --symfs "$K/symfs" \
			"$K/foo.perf.data" >"$tmp/r" 2>"$tmp/r.err"
		grep -q 'not supported' "$tmp/r.err" &&
			fail "--engine=lwpt $o: $(head -n 2 "$tmp/r.err")" || pass
		same "foo $o" $o --no-inst --symfs "$K/symfs" "$K/foo.perf.data"
		same "Unzip $o" $o --symfs "$K/symfs" "$K/Unzip.perf.data"
	done
else
	echo "ptflow_engine: $K not found, perf.data cases skipped"
fi

if [ -d "$R/pagecache" ]; then
	for t in Unzip:Unzip__trace.pt foo:foo__trace.pt icelake_tip:icelake_tip__ptlog.pt \
		 mruby:mruby__trace.pt; do
		n=${t%%:*}
		raw_args "$R/pagecache/$n" >"$tmp/args"
		# shellcheck disable=SC2046 # one argument per word
		same "$n --pt (page cache)" --no-inst --no-symbols --cpu 6/94/3 \
			--pt "$R/${t#*:}" $(cat "$tmp/args")
	done
	# the real traces without their code: every span ends at its first
	# instruction ("no memory mapped", at libipt's offset: after the
	# event its pt_insn_next() fetched first), the events between, the
	# paging and VMCS events of PIP and VMCS while tracing is off too
	for n in qemu__trace1 dyn_test__sample_raw_0 \
		 infinite_loop_linux__loop_trace_26023_0 \
		 avscript_32__failed_trace_12709_1 Kernel__trace; do
		same "$n --offset (no code)" --offset --no-inst --no-symbols \
			--cpu 6/94/3 --pt "$R/$n.pt"
	done
	# cut inside a PSB+ while tracing is off: the end, and the cut packet
	head -c 680 "$R/qemu__trace1.pt" >"$tmp/cut.pt"
	same "qemu cut in PSB+ (no code)" --offset --no-inst --no-symbols \
		--cpu 6/94/3 --pt "$tmp/cut.pt"
	np=$("$PTFLOW" --engine=lwpt --no-inst --no-symbols --cpu 6/94/3 \
		--pt "$R/qemu__trace1.pt" 2>/dev/null | grep -c '^\[paging, cr3: ')
	[ "$np" = 1483 ] && pass || fail "qemu: $np paging events, not 1483"
	# DynamoRIO's real trace with TSC, TMA, MTC, CYC (README.md's
	# parameters) and its binary
	D=$shared/testdata/pt/real/dynamorio
	if [ -f "$D/dynamorio.pt" ]; then
		dclk="--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2
		      --cpuid-0x15.ebx 308"
		for v in "--time --no-inst" --calls --report "--offset --time"; do
			# shellcheck disable=SC2086 # one argument per word
			same "dynamorio $v" $v $dclk --pt "$D/dynamorio.pt" --elf "$D/hello"
		done
	fi
	# the traces with timing packets put in (test_pt_flow_time's)
	timed_traces "$tmp/timed"
	if [ $? -ne 2 ]; then
		clk=$timed_clk
		for n in Unzip foo icelake_tip; do
			raw_args "$R/pagecache/$n" >"$tmp/args"
			for k in 0 4 8; do
				t=$tmp/timed/$n-$k.pt
				[ -f "$t" ] || { fail "$t not written"; continue; }
				# shellcheck disable=SC2046,SC2086 # one argument per word
				for v in "--time --no-inst --no-symbols" --calls --report \
					 "--offset --time"; do
					same "$n-$k timed $v" $v $clk --pt "$t" $(cat "$tmp/args")
				done
				# shellcheck disable=SC2046,SC2086
				same "$n-$k timed --export=chrome" --export=chrome \
					"$tmp/chrome.json" $clk --pt "$t" $(cat "$tmp/args")
				mv "$tmp/chrome.json" "$tmp/chrome.b"
				# shellcheck disable=SC2046,SC2086
				"$PTFLOW" --engine=libipt --export=chrome "$tmp/chrome.json" \
					$clk --pt "$t" $(cat "$tmp/args") >/dev/null 2>&1
				cmp -s "$tmp/chrome.json" "$tmp/chrome.b" && pass ||
					fail "$n-$k timed --export=chrome: the JSON differs"
			done
		done
	else
		echo "ptflow_engine: test_pt_flow_time not built, timed cases skipped"
	fi
else
	echo "ptflow_engine: $R not found, raw trace cases skipped"
fi

finish
