#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A coverage report against another binary than the one traced is a silent
# wrong answer (issue 35 "Errors"): ptcap records the GNU build-id of every
# mapped file in its maps ("# build-id" lines, tools/ptcap/buildid.c, which
# pt_step_trace -m uses too), and ptcov refuses a file whose build-id is
# not the recorded one, naming the path and both ids; --force uses it. A
# perf.data (pt2perf writes the build-id list perf writes) is refused the
# same way by libpt's code lookup, both ids named. Without PT hardware:
# pt_step_trace single-steps the program into a capture directory.
#
#  1. the same binary: lcov and drcov as before, no message;
#  2. the binary rebuilt (another build-id): ptcov fails, naming the path,
#     the recorded id and the file's; lcov and drcov; --force: used, a
#     warning with both ids;
#  3. a capture without build-ids (an older ptcap): no check, no message;
#  4. the capture as perf.data: the same binary reads; the rebuilt one is
#     refused with both ids; --force uses it (one warning, not two: the
#     capture source's maps carry the id only where the file has it);
#  5. the perf.data written as a ptcap directory (lpt_perf_write_ptcap())
#     records the build-id as ptcap does: the rebuilt binary is refused.
set -u

# here, root, O, shared, pass, fail, finish
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../buildid_lib.sh"
PTCOV=${PTCOV:-$O/bin/ptcov}
PT2PERF=${PT2PERF:-$O/bin/pt2perf}
STEP=$O/tests/pt_step_trace
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

[ -x "$PTCOV" ] && [ -x "$STEP" ] || { fail "ptcov or pt_step_trace not built"; finish; }
cd "$tmp" || exit 1
buildid_progs

buildid_capture

# 1. the same binary
"$PTCOV" --format=lcov -o same.info cap 2>same.err && pass ||
	fail "ptcov, same binary: $(cat same.err)"
grep -q "build-id" same.err && fail "a build-id message for the same binary: $(cat same.err)" ||
	pass
grep -q "^DA:" same.info && pass || fail "lcov of the same binary has lines"
"$PTCOV" --format=drcov -o same.drcov cap 2>same.derr && pass ||
	fail "ptcov drcov, same binary: $(cat same.derr)"

# 2. rebuilt: refused, both ids and the path named
cp prog prog.orig
cp prog.new prog
for fmt in lcov drcov; do
	"$PTCOV" --format=$fmt -o re.$fmt cap 2>re.err
	st=$?
	[ $st -eq 1 ] && pass || fail "ptcov $fmt, rebuilt binary: exit $st, not 1"
	grep "$tmp/prog: build-id $old recorded in the capture, the file has $new" re.err |
		grep -q "left out" && pass || fail "ptcov $fmt names both ids: $(cat re.err)"
	[ "$(grep -c "build-id" re.err)" -eq 1 ] && pass ||
		fail "said once: $(cat re.err)"
done
"$PTCOV" --force --format=lcov -o force.info cap 2>force.err
grep "warning: $tmp/prog: build-id $old recorded in the capture, the file has $new" force.err |
	grep -q "used anyway (--force)" && pass || fail "--force warns: $(cat force.err)"
grep -q "^SF:" force.info && pass || fail "--force: the file's lines are there"

# 3. no build-ids recorded (an older ptcap): no check, no message
mkdir old && cp cap/config cap/tid100.pt old/ && grep -v '^# build-id' cap/maps > old/maps
"$PTCOV" --format=lcov -o old.info old 2>old.err
grep -q "build-id" old.err && fail "a build-id message without build-ids: $(cat old.err)" ||
	pass
cp prog.orig prog
"$PTCOV" --format=lcov -o old.info old 2>old.err && cmp -s old.info same.info && pass ||
	fail "a capture without build-ids reads as before: $(cat old.err)"

# 4. perf.data (pt2perf writes the build-id list): libpt's code lookup
if [ -x "$PT2PERF" ]; then
	"$PT2PERF" --timeless cap -o cap.data >p2p.out 2>&1
	if [ -s cap.data ]; then
		"$PTCOV" --format=lcov -o perf.info cap.data 2>perf.err && pass ||
			fail "perf.data, same binary: $(cat perf.err)"
		cp prog.new prog
		"$PTCOV" --format=lcov -o perf2.info cap.data 2>perf2.err
		grep "$tmp/prog: code unavailable: file has another build-id" perf2.err |
			grep "build-id $old recorded in the perf.data, $tmp/prog has $new" |
			grep -q -- "--force uses it" && pass ||
			fail "perf.data, rebuilt binary: both ids: $(cat perf2.err)"
		"$PTCOV" --force --format=lcov -o perf3.info cap.data 2>perf3.err
		grep "warning: $tmp/prog: build-id $old recorded in the perf.data" perf3.err |
			grep -q "used anyway (--force)" && pass ||
			fail "perf.data --force: $(cat perf3.err)"
		grep -q "^SF:" perf3.info && pass || fail "perf.data --force: lines"
		[ "$(grep -c "build-id" perf3.err)" -eq 1 ] && pass ||
			fail "perf.data --force: said once: $(cat perf3.err)"
		cp prog.orig prog
		# 5. its ptcap directory: the "# build-id" line of the file found
		if [ -x "$O/tests/perf2ptcap" ]; then
			mkdir conv && "$O/tests/perf2ptcap" cap.data conv 2>conv.err
			grep -qx "# build-id $old $tmp/prog" conv/maps && pass ||
				fail "perf.data's directory records the build-id: $(cat conv/maps conv.err)"
			cp prog.new prog
			"$PTCOV" --format=lcov -o conv.info conv 2>conv.err
			st=$?
			[ $st -eq 1 ] && grep -q "build-id $old recorded in the capture" conv.err &&
				pass || fail "its directory, rebuilt binary: exit $st: $(cat conv.err)"
			cp prog.orig prog
		fi
	else
		fail "pt2perf: $(cat p2p.out)"
	fi
fi
finish
