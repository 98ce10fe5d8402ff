#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 900
# ptcov's lcov against gcov (issue 35, Documentation/ptcov.rst "The gcov
# comparison"): cov_prog (tests/tools/ptcov/progs: loops, switch, function
# pointers, recursion, early returns, two source files; -O0 -g --coverage,
# static) runs on five inputs under ptcap on the model, one capture each;
# `ptcov --format=lcov` of the five directories, summed, must equal gcov's
# counts of the same five runs. gcov ran at build time on the host
# (cov_prog.expect, gcov_compare.py --expect: the program is deterministic,
# so the runs here take the same paths): every line gcov reports (case
# labels without code aside) with its count, every function with its
# calls, every conditional branch's two outcomes. Then the build-id ptcap
# recorded: the capture against another binary is refused.
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1
# the inputs of cov_prog.expect's runs (tests/tools/ptcov/build.mk)
i=0
cap() {
	i=$((i + 1))
	rm -rf /tmp/lc$i
	env -i GCOV_PREFIX=/tmp/gcda /bin/ptcap -o /tmp/lc$i --size=16M -- \
		/bin/cov_prog "$@" >/tmp/lc.out 2>&1
	grep -q "command-status exit=" /tmp/lc$i/config 2>/dev/null ||
		fail "ptcap cov_prog $*: $(cat /tmp/lc.out)"
}
cap abc12 && cap '' && cap a-b9 && cap x y && cap zz || exit 1
# the sources are not in the VM: --all-sources keeps their records
ptcov --format=lcov --all-sources -o /tmp/run.info /tmp/lc1 /tmp/lc2 /tmp/lc3 /tmp/lc4 /tmp/lc5 \
	2>/tmp/lc.sum || fail "ptcov --format=lcov: $(cat /tmp/lc.sum)" || exit 1

# the tracefile as the expectation's records: DA file line count, FN file
# name count, BR file line min max (one per conditional branch)
awk '
/^SF:/ { n = split(substr($0, 4), p, "/"); f = p[n]; next }
/^DA:/ { split(substr($0, 4), a, ","); print "DA", f, a[1], a[2]; next }
/^FNDA:/ { c = substr($0, 6); k = index(c, ","); print "FN", f, substr(c, k + 1), substr(c, 1, k - 1); next }
/^BRDA:/ { split(substr($0, 6), a, ","); t = a[4] == "-" ? 0 : a[4]
	key = a[1] SUBSEP a[2]
	if (a[3] == 0) { b0[key] = t; bl[key] = f " " a[1] } else { b1[key] = t } }
END { for (k in b0) { x = b0[k]; y = b1[k]; if (x > y) { t = x; x = y; y = t }
	print "BR", bl[k], x, y } }' /tmp/run.info > /tmp/got.all
# only what gcov reports: the keys of the expectation
awk 'NR == FNR { if ($1 == "BR" || $1 == "DA") k[$1 " " $2 " " $3] = 1
		 else k["FN " $2 " " $3] = 1; next }
     ($1 == "BR" || $1 == "DA") && k[$1 " " $2 " " $3] { print; next }
     $1 == "FN" && k["FN " $2 " " $3] { print }' /bin/cov_prog.expect /tmp/got.all |
	sort > /tmp/got.txt
sort /bin/cov_prog.expect > /tmp/want.txt
if cmp -s /tmp/want.txt /tmp/got.txt; then
	ok "ptcov lcov = gcov: $(grep -c '^DA' /tmp/want.txt) lines, $(grep -c '^FN' /tmp/want.txt) functions, $(grep -c '^BR' /tmp/want.txt) conditional branches of five ptcap captures"
else
	fail "ptcov lcov against gcov: $(diff /tmp/want.txt /tmp/got.txt | head -20)" || exit 1
fi

# build-ids (issue 35 "Errors"): ptcap recorded cov_prog's in its maps; the
# same capture read against another binary at that path is refused with
# both ids, --force uses it
id=$(sed -n 's|^# build-id \([0-9a-f]*\) /bin/cov_prog$|\1|p' /tmp/lc1/maps)
[ ${#id} -ge 16 ] && ok "ptcap's maps record /bin/cov_prog's build-id $id" ||
	fail "no build-id of /bin/cov_prog in the maps: $(cat /tmp/lc1/maps)" || exit 1
rm -rf /tmp/lcx && cp -r /tmp/lc1 /tmp/lcx && cp /bin/ptcov /tmp/other &&
	sed -i 's|/bin/cov_prog$|/tmp/other|' /tmp/lcx/maps || fail "copy" || exit 1
ptcov --format=lcov --all-sources -o /tmp/x.info /tmp/lcx 2>/tmp/x.err
st=$?
if [ $st -eq 1 ] && grep "/tmp/other: build-id $id recorded in the capture, the file has " \
	/tmp/x.err | grep -q "left out"; then
	ok "another binary than the one traced: refused, both build-ids named"
else
	fail "another binary: exit $st: $(cat /tmp/x.err)" || exit 1
fi
ptcov --force --format=drcov -o /tmp/x.drcov /tmp/lcx 2>/tmp/x.err
grep "warning: /tmp/other: build-id $id" /tmp/x.err | grep -q "used anyway (--force)" &&
	ok "--force uses it, with a warning" || fail "--force: $(cat /tmp/x.err)" || exit 1
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
