#!/bin/sh
# pass() always succeeds, so "cond && pass || fail" is an if-then-else.
# shellcheck disable=SC2015
# SPDX-License-Identifier: GPL-2.0
#
# ptflow checks a capture's build-ids as ptcov does (issue 35 "Errors",
# libpt's lpt_cov_build_ids_use(), tools/ptflow/ptflow_buildid.h): a flow
# read from another binary than the one traced is a silent wrong answer.
# Without PT hardware: pt_step_trace single-steps the program into a
# capture directory whose maps record its build-id (as ptcap does).
#
#  1. the same binary: decoded, no build-id message, exit 0;
#  2. the binary rebuilt (another build-id): refused, exit 2, nothing on
#     stdout, the message ptcov gives (the path, the recorded id and the
#     file's) once, and a line saying the capture was not decoded;
#  3. --force: decoded with the file there now (a listing; exit 0, or 1
#     where the rebuilt code does not follow the trace), one warning with
#     both ids;
#  4. a capture without build-ids (an older ptcap): no check;
#  5. the capture as perf.data (pt2perf): the rebuilt binary is refused by
#     libpt's code lookup with both ids; --force decodes (one warning).
set -u

# here, root, O, shared, pass, fail, finish
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../buildid_lib.sh"
PTFLOW=${PTFLOW:-$O/bin/ptflow}
PTCOV=${PTCOV:-$O/bin/ptcov}
PT2PERF=${PT2PERF:-$O/bin/pt2perf}
STEP=$O/tests/pt_step_trace
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

[ -x "$PTFLOW" ] && [ -x "$STEP" ] || { fail "ptflow or pt_step_trace not built"; finish; }
cd "$tmp" || exit 1
buildid_progs
cp prog prog.orig

buildid_capture

# 1. the same binary
"$PTFLOW" --no-inst cap >same.out 2>same.err
st=$?
[ $st -eq 0 ] && pass || fail "same binary: exit $st: $(head -5 same.err)"
grep -q "build-id" same.err && fail "a build-id message for the same binary: $(cat same.err)" ||
	pass
[ -s same.out ] && pass || fail "same binary: a listing"

# 2. rebuilt: refused, both ids and the path named, as ptcov says it
cp prog.new prog
"$PTFLOW" --no-inst cap >re.out 2>re.err
st=$?
[ $st -eq 2 ] && pass || fail "rebuilt binary: exit $st, not 2"
[ -s re.out ] && fail "rebuilt binary: a listing on stdout" || pass
msg="ptflow: $tmp/prog: build-id $old recorded in the capture, the file has $new: not the binary that was traced: left out (rebuild it as it was, or --force to use it anyway)"
grep -qxF "$msg" re.err && pass || fail "rebuilt: the message with both ids: $(cat re.err)"
[ "$(grep -c "build-id" re.err)" -eq 1 ] && pass || fail "said once: $(cat re.err)"
grep -q "^ptflow: cap: not decoded: 1 file of it is not the binary that was traced" re.err &&
	pass || fail "rebuilt: the capture refused: $(cat re.err)"
if [ -x "$PTCOV" ]; then	# the same words as ptcov's
	"$PTCOV" --format=lcov -o re.info cap 2>recov.err
	sed 's/^ptcov: //' recov.err | grep -xF "${msg#ptflow: }" >/dev/null && pass ||
		fail "ptcov says the same: $(cat recov.err)"
fi

# 3. --force: decoded with the file there now, a warning with both ids
"$PTFLOW" --force --no-inst cap >force.out 2>force.err
st=$?
[ $st -le 1 ] && pass || fail "--force: exit $st: $(head -5 force.err)"
grep -qxF "ptflow: warning: $tmp/prog: build-id $old recorded in the capture, the file has $new: not the binary that was traced: used anyway (--force)" force.err &&
	pass || fail "--force warns with both ids: $(cat force.err)"
[ "$(grep -c "build-id" force.err)" -eq 1 ] && pass || fail "--force: said once: $(cat force.err)"
[ -s force.out ] && pass || fail "--force: a listing"
grep -q "not decoded" force.err && fail "--force: refused: $(cat force.err)" || pass

# 4. no build-ids recorded (an older ptcap): no check
mkdir old && cp cap/config cap/tid100.pt old/ && grep -v '^# build-id' cap/maps > old/maps
"$PTFLOW" --no-inst old >old.out 2>old.err
grep -q "build-id" old.err && fail "a build-id message without build-ids: $(cat old.err)" ||
	pass
cp prog.orig prog
"$PTFLOW" --no-inst old >old.out 2>old.err && cmp -s old.out same.out && pass ||
	fail "a capture without build-ids reads as before: $(head -5 old.err)"

# 5. perf.data (pt2perf writes the build-id list): libpt's code lookup
if [ -x "$PT2PERF" ]; then
	"$PT2PERF" --timeless cap -o cap.data >p2p.out 2>&1
	if [ -s cap.data ]; then
		"$PTFLOW" --no-inst cap.data >perf.out 2>perf.err
		st=$?
		[ $st -eq 0 ] && pass || fail "perf.data, same binary: exit $st: $(cat perf.err)"
		grep -q "build-id" perf.err && fail "perf.data, same: $(cat perf.err)" || pass
		cp prog.new prog
		"$PTFLOW" --no-inst cap.data >perf2.out 2>perf2.err
		st=$?
		[ $st -ne 0 ] && pass || fail "perf.data, rebuilt binary: exit 0"
		grep "$tmp/prog: code unavailable: file has another build-id" perf2.err |
			grep "build-id $old recorded in the perf.data, $tmp/prog has $new" |
			grep -q -- "--force uses it" && pass ||
			fail "perf.data, rebuilt binary: both ids: $(cat perf2.err)"
		"$PTFLOW" --force --no-inst cap.data >perf3.out 2>perf3.err
		grep "warning: $tmp/prog: build-id $old recorded in the perf.data" perf3.err |
			grep -q "used anyway (--force)" && pass ||
			fail "perf.data --force: $(cat perf3.err)"
		[ "$(grep -c "build-id" perf3.err)" -eq 1 ] && pass ||
			fail "perf.data --force: said once: $(cat perf3.err)"
		[ -s perf3.out ] && pass || fail "perf.data --force: a listing"
		cp prog.orig prog
	else
		fail "pt2perf: $(cat p2p.out)"
	fi
fi
finish
