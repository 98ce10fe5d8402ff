#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ptcap --bts -p PID records the threads the process creates after the
# attach (issue 37; lwpt_sim.ko, bts_profile=nhm). bts_late prints "ready"
# and waits for a byte on stdin; ptcap attaches (its tid<PID>.bts appears);
# a first byte makes the program create a thread, which prints its tid and
# waits for a second byte, and the main thread ends itself (pthread_exit):
# the process lives on in a thread ptcap did not see at the attach. The
# second byte goes in only once ptcap's tid<NEW>.bts exists (ptcap found
# and configured the thread); the thread then runs late_work() and the
# process ends, and ptcap with it. The new thread's trace decodes with
# ptflow and holds late_work; config marks it found-late; ptcap says so on
# stderr and exits 0. -t TID of the same program records that one thread
# only. As uid 1000 with RLIMIT_MEMLOCK for one ring, the late thread is
# refused once, runs unrecorded, ptcap exits 3 keeping the first thread's
# records. No spec violation.
. /lwpt/lib.sh

P="/bin/bts_late 1000"
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "lwp_profile=none pt_profile=none bts_profile=nhm" \
	>/dev/null || fail "insmod" || exit 1

# late_run OPT: start the program, attach ptcap --bts OPT, let it create its
# thread; new holds the new thread's tid, rc ptcap's status, prc the program's.
late_run() {
	rm -rf /tmp/late
	start_ready /tmp/prog.out env -i /bin/norandom $P || fail "$P: not ready" || return 1
	ptcap --bts --size=4096 "$1" $prog -o /tmp/late >/tmp/ptcap.out 2>&1 &
	cap=$!
	wait_file /tmp/late/tid$prog.bts $cap || fail "ptcap --bts $1: $(cat /tmp/ptcap.out)" ||
		return 1
	printf g >&3	# create the thread
	while ! grep -q '^tid ' /tmp/prog.out && kill -0 $prog 2>/dev/null; do
		sleep 0.1
	done
	new=$(sed -n 's/^tid \([0-9]*\)$/\1/p' /tmp/prog.out)
	[ -n "$new" ] || fail "$P: no new thread: $(cat /tmp/prog.out)" || return 1
}

# -p: the new thread recorded from when ptcap found it.
late_run -p || exit 1
wait_file /tmp/late/tid$new.bts $cap ||
	fail "ptcap --bts -p: no tid$new.bts: $(cat /tmp/ptcap.out)" || exit 1
release_ready $cap
[ $prc -eq 0 ] && [ $rc -eq 0 ] ||
	fail "ptcap --bts -p: status $rc, program $prc: $(cat /tmp/ptcap.out)" || exit 1
grep -q "^thread\.tid$new\.bts tid=$new pid=$prog .*found-late" /tmp/late/config &&
	grep "^thread\.tid$prog\.bts " /tmp/late/config | grep -qv found-late &&
	[ "$(grep -c '^thread\.' /tmp/late/config)" = 2 ] ||
	fail "config: $(grep '^thread\.' /tmp/late/config)" || exit 1
grep -qx "ptcap: 1 thread(s) created after the attach were recorded from when ptcap found them" \
	/tmp/ptcap.out || fail "ptcap's stderr: $(cat /tmp/ptcap.out)" || exit 1
ptflow --no-inst --no-symbols --tid $new /tmp/late 2>/tmp/late.err |
	grep -E '^[0-9a-f]{16}$' >/tmp/late.flow
n=$(wc -l </tmp/late.flow)
ptflow --calls --tid $new /tmp/late >/tmp/late.calls 2>&1
[ "$n" -gt 1000 ] && grep -q 'late_work' /tmp/late.calls ||
	fail "ptflow of thread $new: $n instructions, $(head -n 3 /tmp/late.err)" \
		"$(head -n 5 /tmp/late.calls)" || exit 1
ok "ptcap --bts -p: thread $new created after the attach recorded (found-late)," \
	"$n instructions, late_work in its calls; $(grep created /tmp/ptcap.out)"

# -t: that one thread only, whatever the process creates.
late_run -t || exit 1
release_ready $cap
[ $prc -eq 0 ] && [ $rc -eq 0 ] ||
	fail "ptcap --bts -t: status $rc, program $prc: $(cat /tmp/ptcap.out)" || exit 1
[ "$(grep -c '^thread\.' /tmp/late/config)" = 1 ] &&
	grep -q "^thread\.tid$prog\.bts tid=$prog " /tmp/late/config &&
	[ ! -e /tmp/late/tid$new.bts ] && ! grep -q "created after" /tmp/ptcap.out ||
	fail "ptcap --bts -t: $(grep '^thread\.' /tmp/late/config) $(ls /tmp/late)" \
		"$(cat /tmp/ptcap.out)" || exit 1
ok "ptcap --bts -t $prog: only that thread (not $new)"

# uid 1000 on its own program (pt_paranoid 1: a user-only BTS capture
# without CAP_PERFMON), RLIMIT_MEMLOCK one page and no free allowance: the first thread's one-page ring fits, the late thread's is
# refused (ENOMEM): said once (not at every look), it runs unrecorded, the
# first thread's records are kept, exit 3.
chmod 0666 /dev/bts
S=/sys/module/lwpt_sim/parameters
paranoid=$(cat $S/pt_paranoid)
mlock=$(cat $S/pt_mlock_kb)
echo 1 >$S/pt_paranoid
echo 0 >$S/pt_mlock_kb
rm -rf /tmp/late.u
start_ready /tmp/prog.out pt_sec as-user $P || fail "uid 1000 $P: not ready" || exit 1
(cd /tmp && ulimit -l 4 && exec pt_sec as-user /bin/ptcap --bts --size=4096 -p $prog \
	-o /tmp/late.u) >/tmp/ptcap.out 2>&1 &
cap=$!
wait_file /tmp/late.u/tid$prog.bts $cap || fail "uid 1000: $(cat /tmp/ptcap.out)" || exit 1
printf g >&3
while ! grep -q '^tid ' /tmp/prog.out && kill -0 $prog 2>/dev/null; do
	sleep 0.1
done
new=$(sed -n 's/^tid \([0-9]*\)$/\1/p' /tmp/prog.out)
# Until ptcap said it was refused, or ended.
while ! grep -q "configure thread $new:" /tmp/ptcap.out && kill -0 $cap 2>/dev/null; do
	sleep 0.1
done
release_ready $cap
echo "$mlock" >$S/pt_mlock_kb
echo "$paranoid" >$S/pt_paranoid
[ -n "$new" ] && [ $rc -eq 3 ] && [ $prc -eq 0 ] &&
	[ "$(grep -c "configure thread $new: Cannot allocate memory" /tmp/ptcap.out)" = 1 ] &&
	grep -qx "ptcap: 1 thread(s) created after the attach ran unrecorded (see above)" \
		/tmp/ptcap.out &&
	[ "$(grep -c '^thread\.' /tmp/late.u/config)" = 1 ] &&
	grep -q "^thread\.tid$prog\.bts tid=$prog .*records=[1-9]" /tmp/late.u/config &&
	[ ! -e /tmp/late.u/tid$new.bts ] ||
	fail "uid 1000, late thread over RLIMIT_MEMLOCK: status $rc, program $prc:" \
		"$(cat /tmp/ptcap.out) $(grep '^thread' /tmp/late.u/config)" || exit 1
ok "uid 1000, RLIMIT_MEMLOCK: the late thread $new refused once, exit 3, the first" \
	"thread's records kept ($(grep "^thread\.tid$prog" /tmp/late.u/config))"

[ "$(sim_violations)" = 0 ] || fail "violations" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no violation, unloaded"
