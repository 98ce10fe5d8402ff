#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 5400
# ptafl under afl-fuzz on lwpt_sim.ko (issue 26, "Tests"; Documentation/
# ptafl.rst): from the seed "AAAA", afl-fuzz -D -s 1 with ptafl's Intel PT
# coverage (a per-thread capture of the model, decoded by libpt's coverage
# decoder) finds ptafl_magic's crash (input starting with "LWPT", compared
# byte by byte) within BUDGET executions; afl-fuzz -n (no coverage) with
# the same flags, seed and budget does not. The budget is in executions
# (afl-fuzz -E), never in time; the case prints both speeds, which
# ptafl.rst quotes ("Without PT hardware").
#
# Slow (tests/vm/slow): the model single-steps every traced thread
# (pt-model.rst, "execution follower"), and under QEMU's TCG on a loaded
# host one traced run of the spawner and ptafl_magic takes tens of
# milliseconds, so the ~8000 executions afl-fuzz needs take many minutes.
#
# All the runs use one capture (issue 39 item 8): ptafl frees each run's
# buffers once decoded, so ~8000 runs, more than the module's 4096 thread
# buffers, get a trace each (untraced 0 below).
. /lwpt/lib.sh

BUDGET=20000
command -v afl-fuzz >/dev/null || fail "afl-fuzz is not in the VM (VM_BINS)" || exit 1
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null || fail "insmod" || exit 1

mkdir -p /tmp/afl-in
printf 'AAAA' >/tmp/afl-in/seed

# fuzz OUT ARGS...: afl-fuzz with the case's flags; sets $secs, its
# wall-clock seconds.
fuzz() {
	out=$1
	shift
	rm -rf "$out"
	t0=$(date +%s)
	AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
		AFL_NO_AFFINITY=1 AFL_BENCH_UNTIL_CRASH=1 \
		afl-fuzz -D -s 1 -E "$BUDGET" -t 20000 -i /tmp/afl-in -o "$out" "$@" \
		>"$out.log" 2>&1 || { tail -n 20 "$out.log"; return 1; }
	secs=$(($(date +%s) - t0))
}

# stat FILE KEY: a value of afl-fuzz's fuzzer_stats.
stat() {
	sed -n "s/^$2 *: //p" "$1"
}

fuzz /tmp/cov -- ptafl --stats /tmp/ptafl.stats -- /bin/ptafl_magic @@ ||
	fail "afl-fuzz with ptafl" || exit 1
crash=$(cat /tmp/cov/default/crashes/id:* 2>/dev/null | head -c 4)
execs=$(stat /tmp/cov/default/fuzzer_stats execs_done)
cat /tmp/ptafl.stats
[ "$crash" = LWPT ] ||
	fail "afl-fuzz with ptafl: no crash in $BUDGET executions ($execs done)" || exit 1
ok "afl-fuzz with ptafl: crash 'LWPT' after $execs executions (budget $BUDGET), in $secs s on the model"
grep -q '^decode_errors 0$' /tmp/ptafl.stats && grep -q '^untraced 0$' /tmp/ptafl.stats ||
	fail "ptafl lost traces: $(cat /tmp/ptafl.stats)" || exit 1

fuzz /tmp/non -n -- /bin/ptafl_magic @@ || fail "afl-fuzz -n" || exit 1
n=$(ls /tmp/non/crashes/ | grep -c '^id:')
grep -q 'Execution limit was reached' /tmp/non.log ||
	fail "afl-fuzz -n stopped before $BUDGET executions: $(tail -n 5 /tmp/non.log)" || exit 1
[ "$n" -eq 0 ] || fail "afl-fuzz -n found the crash within $BUDGET executions" || exit 1
ok "afl-fuzz -n: no crash in $BUDGET executions, in $secs s (no tracing)"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
module_idle lwpt_sim
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
