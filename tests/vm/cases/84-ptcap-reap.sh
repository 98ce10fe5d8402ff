#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 1500
# ptcap frees the buffers of threads that ended once it saved them (issue
# 39 C; Documentation/ptcap.rst, "Following forks"): RELEASE with
# LWPT_PT_REL_DONE through lpt_dev_buffer_done(), so that a capture that
# follows forks for ever is bounded by the threads alive, not by all that
# ever ran. As uid 1000 with RLIMIT_MEMLOCK for 12 buffers of 8 KiB and no
# free allowance (pt_mlock_kb=0), ptcap (continuous, lossless, no hold
# limit) runs pt_fork_prog 30: thirty children one after another, each
# writing more than a region of trace, so that each is held until ptcap
# read it (the pace of the forks follows ptcap's). Every child must be
# traced (no threads-lost, each its own file, saved = written, lost=0):
# without the frees the 13th buffer does not fit the limit and the
# children after it are lost (checked with ptcap before this change: see
# the commit). No spec violation.
. /lwpt/lib.sh

N=30
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=full" >/dev/null ||
	fail "insmod full" || exit 1
P=/sys/module/lwpt_sim/parameters
echo 0 >$P/pt_mlock_kb || fail "pt_mlock_kb=0" || exit 1
chmod 0666 /dev/pt
echo 2 >$P/pt_paranoid
rm -rf /tmp/reap
mkdir -p /tmp/reap && chmod 777 /tmp/reap
(ulimit -l $((12 * 12)) && pt_sec as-user ptcap -o /tmp/reap/out --mode=continuous \
	--size=8K --region-size=4K --hold-limit=none -- /bin/pt_fork_prog $N) \
	>/tmp/reap.log 2>&1
rc=$?
echo 3 >$P/pt_paranoid
cfg=/tmp/reap/out/config
[ $rc -eq 0 ] && [ -f $cfg ] || fail "ptcap: status $rc: $(cat /tmp/reap.log)" || exit 1
threads=$(grep -c '^thread\.' $cfg)
files=$(ls /tmp/reap/out | grep -c '^tid.*\.pt$')
[ "$threads" -eq $((N + 1)) ] && [ "$files" -eq $((N + 1)) ] ||
	fail "$threads threads in the config, $files files (want $((N + 1)) each): $(cat /tmp/reap.log)" ||
	exit 1
! grep -q '^threads-lost' $cfg || fail "threads lost: $(grep '^threads-lost' $cfg)" || exit 1
bad=$(grep '^status\.' $cfg | grep -v ' lost=0 ' | head -n 3)
[ -z "$bad" ] || fail "losses: $bad" || exit 1
# Every child's file holds what its thread wrote (bytes = saved + pads).
bad=$(grep '^status\.' $cfg | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "=");
	v[kv[1]] = kv[2] } if (v["bytes"] != v["saved"] + v["pads"] || v["saved"] == 0) print }' |
	head -n 3)
[ -z "$bad" ] || fail "not all saved: $bad" || exit 1
held=$(grep '^status\.' $cfg | grep -vc ' holds=0 ')
ok "ptcap as uid 1000, room for 12 buffers: $N children in a row, each traced and saved ($held held)"
[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
module_idle lwpt_sim
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
