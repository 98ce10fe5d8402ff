#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# ptflow -j N on the lwpt engine (issue 34 point 3, Documentation/ptflow.rst
# "Every core"): stdout, stderr and the exit status of -j 4 and -j 7 are
# those of -j 1, byte for byte, with chunks of 1 byte (every PSB starts a
# chunk: boundaries inside call stacks, after mruby's OVF, between TIP.PGD
# and TIP.PGE, at PSB+s with a FUP only, wherever the real traces have
# them), of a few KiB and of the default size, on:
#
# - the raw real traces of ../shared/testdata/pt/real/libxdc with their page
#   caches (the listing, --calls, --report, --stat) and mruby four times
#   over; the traces without code (dyn_test, infinite_loop, qemu, ...):
#   every chunk fails, the error path (one engine from the failing chunk on);
# - foo with a byte changed at a few offsets, and cut after it;
# - the traces with timing packets put in by test_pt_flow_time (--time,
#   --calls: decoded by one engine, ptflow.rst "Every core"; --offset
#   without time: in chunks) and DynamoRIO's (--time, --offset, --calls);
# - kAFL's traces as perf.data (../shared/testdata/perf/kafl): --calls,
#   --report, --export=chrome (the JSON too), the listing with symbols.
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
if [ ! -d "$R" ]; then
	echo "SKIP: $R missing (../shared)"
	finish
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptflow-jobs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# run OUT ARGS...: stdout, stderr and exit status of the lwpt engine
run() {
	o=$1
	shift
	"$PTFLOW" --engine=lwpt "$@" >"$tmp/$o.out" 2>"$tmp/$o.err"
	echo "exit $?" >>"$tmp/$o.err"
	if [ -f "$tmp/chrome.json" ]; then
		mv "$tmp/chrome.json" "$tmp/$o.json"
	fi
}

# jobs NAME ARGS...: -j 1 against -j 4 and -j 7 with several chunk sizes
jobs() {
	name=$1
	shift
	rm -f "$tmp"/*.json
	run ref -j 1 "$@"
	for j in "4 --chunk-size 1" "7 --chunk-size 1" "4 --chunk-size 3000" \
		 "7 --chunk-size 20000" "2"; do
		# shellcheck disable=SC2086 # -j's words
		run cmp -j $j "$@"
		if cmp -s "$tmp/ref.out" "$tmp/cmp.out" &&
		   cmp -s "$tmp/ref.err" "$tmp/cmp.err" &&
		   { [ ! -f "$tmp/ref.json" ] || cmp -s "$tmp/ref.json" "$tmp/cmp.json"; }; then
			pass
		else
			fail "$name -j $j: differs from -j 1: $(diff "$tmp/ref.out" \
				"$tmp/cmp.out" | head -n 4 | tr '\n' ' ') $(diff \
				"$tmp/ref.err" "$tmp/cmp.err" | head -n 4 | tr '\n' ' ')"
		fi
	done
}

for _ in 1 2 3 4; do cat "$R/mruby__trace.pt"; done >"$tmp/mruby4.pt"
for t in Unzip:Unzip__trace.pt foo:foo__trace.pt icelake_tip:icelake_tip__ptlog.pt \
	 mruby:mruby__trace.pt mruby:"$tmp/mruby4.pt"; do
	n=${t%%:*}
	pt=${t#*:}
	case $pt in /*) ;; *) pt=$R/$pt ;; esac
	raw_args "$R/pagecache/$n" >"$tmp/args"
	# shellcheck disable=SC2046 # one argument per word
	{
		jobs "$n --no-inst --no-symbols" --no-inst --no-symbols --cpu 6/94/3 \
			--pt "$pt" $(cat "$tmp/args")
		jobs "$n --calls" --calls --cpu 6/94/3 --pt "$pt" $(cat "$tmp/args")
		jobs "$n --report --stat" --report --stat --cpu 6/94/3 --pt "$pt" \
			$(cat "$tmp/args")
	}
	[ "$n" = mruby ] && continue	# 6.3 M lines: the fast views only
	# shellcheck disable=SC2046
	jobs "$n (disassembly, --raw-insn)" --raw-insn --cpu 6/94/3 --pt "$pt" \
		$(cat "$tmp/args")
	# shellcheck disable=SC2046
	jobs "$n --offset" --offset --no-inst --cpu 6/94/3 --pt "$pt" \
		$(cat "$tmp/args")
done

# the traces with timing packets put in (test_pt_flow_time's): one engine
# where time is shown (ptflow.rst "Every core"), the same output
timed_traces "$tmp/timed"
if [ $? -ne 2 ]; then
	clk=$timed_clk
	for n in Unzip foo; do
		raw_args "$R/pagecache/$n" >"$tmp/args"
		for k in 0 4 8; do
			t=$tmp/timed/$n-$k.pt
			# shellcheck disable=SC2046,SC2086 # one argument per word
			for v in "--time --no-inst --no-symbols" --calls "--offset --no-inst"; do
				jobs "$n-$k timed $v" $v $clk --pt "$t" $(cat "$tmp/args")
			done
		done
	done
else
	echo "ptflow_jobs: test_pt_flow_time not built, timed cases skipped"
fi

# corrupt and cut copies of foo: decode errors in some chunks (from the
# first on, one engine), the same output
raw_args "$R/pagecache/foo" >"$tmp/args"
for m in 1234:55 5000:02 9999:ff 15000:99 20001:00 27000:2d 3333:1d; do
	cp "$R/foo__trace.pt" "$tmp/mut.pt"
	# shellcheck disable=SC2059 # the byte as an escape
	printf "\\$(printf '%03o' "0x${m#*:}")" |
		dd of="$tmp/mut.pt" bs=1 seek="${m%%:*}" conv=notrunc 2>/dev/null
	# shellcheck disable=SC2046
	jobs "foo byte ${m%%:*}=${m#*:}" --no-inst --cpu 6/94/3 --pt "$tmp/mut.pt" \
		$(cat "$tmp/args")
	head -c "$(( ${m%%:*} + 7 ))" "$tmp/mut.pt" >"$tmp/cut.pt"
	# shellcheck disable=SC2046
	jobs "foo byte ${m%%:*}=${m#*:}, cut after it --calls" --calls --cpu 6/94/3 \
		--pt "$tmp/cut.pt" $(cat "$tmp/args")
done

# without code: errors in every chunk
for t in dyn_test__sample_raw_0 infinite_loop_linux__loop_trace_26023_0 \
	 qemu__trace1 avscript_32__failed_trace_12709_1 Kernel__trace; do
	[ -f "$R/$t.pt" ] || continue
	jobs "$t (no code)" --no-inst --no-symbols --cpu 6/94/3 --pt "$R/$t.pt"
done

D=$shared/testdata/pt/real/dynamorio
if [ -f "$D/dynamorio.pt" ]; then
	dclk="--cpu 6/85/4 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2
	      --cpuid-0x15.ebx 308"
	for v in "--time --no-inst" --calls "--offset --time"; do
		# shellcheck disable=SC2086 # one argument per word
		jobs "dynamorio $v" $v $dclk --pt "$D/dynamorio.pt" --elf "$D/hello"
	done
fi

if [ -d "$K/symfs" ]; then
	for n in Unzip foo icelake_tip mruby; do
		d=$K/$n.perf.data
		jobs "$n.perf.data --calls" --calls --symfs "$K/symfs" "$d"
		jobs "$n.perf.data --report" --report --symfs "$K/symfs" "$d"
		jobs "$n.perf.data --export=chrome" --export=chrome "$tmp/chrome.json" \
			--symfs "$K/symfs" "$d"
		[ "$n" = mruby ] && continue
		jobs "$n.perf.data --no-inst" --no-inst --symfs "$K/symfs" "$d"
	done
else
	echo "ptflow_jobs: $K not found, perf.data cases skipped"
fi

finish
