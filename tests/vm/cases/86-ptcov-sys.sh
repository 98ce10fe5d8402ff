#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 900
# ptcov reads a system-wide capture (issue 35 point 1): `ptcap -a -C 0`
# while cov_prog (tests/tools/ptcov/progs, static, -O0 --coverage) runs
# twice on CPU 0 (inputs abc12 and zz, pt_sys_two); ptcov cuts every CPU's
# trace into its threads' spans with pt2perf's split on ptflow's rules and
# decodes each process's exec generation with its own maps.<pid>.<gen>.
# Spans whose thread the switch records do not name are left out (as
# ptflow leaves them), so the counts are bounded, not equal: main runs at
# least once and at most twice, and no line counts more than gcov counted
# in the five runs of cov_prog.expect, which include these two.
. /lwpt/lib.sh

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null ||
	fail "insmod" || exit 1
pt_sys_two "/bin/cov_prog abc12" "/bin/cov_prog zz" || exit 1
# the sources are not in the VM: --all-sources keeps their records
ptcov --format=lcov --all-sources -o /tmp/sys.info /tmp/sys >/tmp/sys.cov 2>&1
rc=$?
[ $rc -le 1 ] && [ -s /tmp/sys.info ] ||
	fail "ptcov -a: status $rc: $(tail -n 5 /tmp/sys.cov)" || exit 1
grep -q "^SF:.*cov_prog.c$" /tmp/sys.info ||
	fail "ptcov -a: no cov_prog.c in the tracefile: $(tail -n 5 /tmp/sys.cov)" || exit 1
main=$(awk '/^SF:.*cov_prog.c$/ { f = 1 } /^end_of_record/ { f = 0 }
	f && /^FNDA:[0-9]+,main$/ { split(substr($0, 6), a, ","); print a[1] }' /tmp/sys.info)
[ "${main:-0}" -ge 1 ] && [ "${main:-0}" -le 2 ] ||
	fail "ptcov -a: main ran ${main:-0} times, want 1 or 2" || exit 1
# every line's count at most gcov's of the five runs
over=$(awk 'NR == FNR { if ($1 == "DA") want[$2 " " $3] = $4; next }
	/^SF:/ { n = split(substr($0, 4), p, "/"); f = p[n] }
	/^DA:/ { split(substr($0, 4), a, ","); k = f " " a[1]
		 if ((k in want) && a[2] + 0 > want[k] + 0) print k, a[2], want[k] }' \
	/bin/cov_prog.expect /tmp/sys.info)
[ -z "$over" ] || fail "ptcov -a: counts above gcov's: $over" || exit 1
hit=$(awk '/^SF:.*cov_prog2?.c$/ { f = 1 } /^end_of_record/ { f = 0 }
	f && /^DA:/ { split(substr($0, 4), a, ","); if (a[2] > 0) n++ } END { print n + 0 }' /tmp/sys.info)
ok "ptcov -a: main ran $main times, $hit lines of cov_prog executed, none above gcov's ($(grep -c 'code missing' /tmp/sys.cov) missing-code messages)"
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
