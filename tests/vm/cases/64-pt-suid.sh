#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 600
# No trace across a privilege boundary (issue 13 points 1 and 2;
# Documentation/pt.rst, "Permissions"). /dev/pt is opened to everyone
# (0666, as an administrator may do with udev) and pt_paranoid is 2; an
# attacker at uid 1000 with no capability (pt_sec) traces its own child,
# which then execs a set-user-ID root victim (pt_victim) that reads a secret
# from a 0600 file and makes one indirect call per bit from a thread it
# creates:
#   (a) the child's buffer stops at the exec (DETACHED, exec-credentials),
#       keeps what came before, the victim's thread never joins;
#   (b) CONFIGURE with an 8 MiB buffer races the child's exec: each run is
#       refused by the ptrace rule or detached at the exec;
#   (c) the same as (a) with fs.suid_dumpable=1 (the victim stays
#       dumpable: the credentials saved at CONFIGURE refuse it);
#   (d) an exec of an unreadable (0711) program: exec-not-dumpable;
#   (e) (a) in a grandchild the capture followed at a fork;
#   (f) (a), (c) and (e) with a program that has the file capability
#       CAP_DAC_READ_SEARCH+ep instead of set-user-ID (issue 27 2.1: the
#       commoncap rule of cap_ptrace_access_check(), exec-credentials);
#   (g) CONFIGURE of a uid 1000 process holding an ambient capability:
#       EPERM, rule ptrace (the same process without it may be traced);
#   (h) the rule at fork: a traced child that made itself non-dumpable
#       (PR_SET_DUMPABLE 0) after CONFIGURE forks: no buffer for it;
#   (i) credentials are per thread (issue 39 point 2): uid 1000 names the
#       tid of a thread that dropped to uid 1000 with the raw system call
#       in a root process: the thread left root is not traced, nor a
#       thread it creates later (libipt's flow has none of its secret
#       code); threads_refused counts it.
# Each decodes every buffer (libpt's packet decoder, TIP/TIP.PGE/TIP.PGD/
# FUP) and finds no IP in the victim's text (linked at 0x30000000). Then
# the refusal rules, their errors and ptcap's messages (EBUSY names the
# process holding the capture); a program built with the first published
# structs and ioctl numbers still works; the model's spec-violation counter
# stays 0.
. /lwpt/lib.sh

P=/sys/module/lwpt_sim/parameters
D=/tmp/suid

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko >/dev/null || fail "insmod" || exit 1
[ "$(cat $P/pt_paranoid)" = 3 ] || fail "pt_paranoid default $(cat $P/pt_paranoid), want 3" || exit 1
chmod 0666 /dev/pt
echo 2 >$P/pt_paranoid

mkdir -p $D && chmod 0755 $D
cp /bin/pt_victim $D/victim && chown 0:0 $D/victim && chmod 4755 $D/victim
printf 'S3cr3t!\n' >$D/secret && chmod 0600 $D/secret
cp /bin/pt_victim $D/noread && chmod 0711 $D/noread
printf 'public\n' >$D/public && chmod 0644 $D/public

run() {
	what=$1
	shift
	out=$(pt_sec "$@")
	rc=$?
	echo "$out" | grep -v '^ok:'
	[ $rc -eq 0 ] || fail "$what: pt_sec $*" || exit 1
	ok "$what ($(echo "$out" | grep -c '^ok:') checks)"
}

run "(a) set-user-ID exec" exec $D/victim $D/secret creds
echo 1 >/proc/sys/fs/suid_dumpable
run "(c) set-user-ID exec, fs.suid_dumpable=1" exec $D/victim $D/secret creds
echo 0 >/proc/sys/fs/suid_dumpable
run "(d) exec of an unreadable program" exec $D/noread $D/public dumpable
run "(e) set-user-ID exec in a followed fork" exec-fork $D/victim $D/secret
run "(b) CONFIGURE races the exec" race $D/victim $D/secret 12

# /tmp is a tmpfs (tests/vm/init): security.* xattrs are kept there
# (CONFIG_TMPFS_XATTR), so a file capability works as on a disk.
cp /bin/pt_victim $D/capvictim && chmod 0755 $D/capvictim
run "file capability on $D/capvictim" setcap $D/capvictim $D/secret
echo 1 >/proc/sys/fs/suid_dumpable
run "(f) file-capability exec, fs.suid_dumpable=1" exec $D/capvictim $D/secret creds
echo 0 >/proc/sys/fs/suid_dumpable
run "(f) file-capability exec" exec $D/capvictim $D/secret creds
run "(f) file-capability exec in a followed fork" exec-fork $D/capvictim $D/secret
run "(g) a process with an ambient capability" ambient
run "(h) no fork followed once the process made itself non-dumpable" fork-nodump

# (i) Credentials are per thread (issue 39 point 2): a root process whose
# thread A dropped to uid 1000 with the raw setresuid system call while
# its main thread B stayed root; uid 1000 names A's tid. Only A (and A2,
# a thread A creates) are traced; B, and C, a thread B creates while the
# capture runs, never are (pt_sec checks the buffers, threads_refused and
# the IPs libpt's packet decoder finds). Here libipt's instruction flow
# (ptflow) of every buffer: no instruction of B's secret code, A's public
# code present.
rm -rf /tmp/mix && mkdir -p /tmp/mix && chmod 0777 /tmp/mix
run "(i) a thread left root beside one dropped to uid 1000" mixcred /bin/pt_mixcred /tmp/mix
range() {
	echo "$out" | sed -n "s/.* $1=\([0-9a-f]*\)-\([0-9a-f]*\).*/\1 \2/p" | head -n 1
}
set -- $(range secret) $(range public)
[ $# = 4 ] || fail "(i): no address ranges in: $out" || exit 1
# inside LO HI: addresses (16 hex digits, one a line) in [LO, HI);
# compared as strings of equal width.
inside() {
	awk -v lo="x$1" -v hi="x$2" '("x" $0) >= lo && ("x" $0) < hi' | wc -l
}
nbuf=0
for f in /tmp/mix/buf*.pt; do
	[ -s "$f" ] || fail "(i): $f empty" || exit 1
	ptflow --no-symbols --no-inst --pt "$f" --elf /bin/pt_mixcred >/tmp/flow.out 2>&1
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n=$(wc -l </tmp/flow.txt)
	sec=$(inside $1 $2 </tmp/flow.txt)
	pub=$(inside $3 $4 </tmp/flow.txt)
	[ "$sec" = 0 ] || fail "(i): $f: $sec of $n instructions in the secret code [$1, $2)" || exit 1
	[ "$pub" -gt 0 ] || fail "(i): $f: no instruction of the public code [$3, $4) in $n: $(head -n 3 /tmp/flow.out)" || exit 1
	nbuf=$((nbuf + 1))
	ok "(i): ptflow $f: $n instructions, $pub in the public code, none in the secret code"
done
[ $nbuf = 2 ] || fail "(i): $nbuf buffers decoded, want 2 (A, A2)" || exit 1
run "refusal rules at pt_paranoid 2" rules
echo 3 >$P/pt_paranoid
run "pt_paranoid 3" paranoid

# ptcap names the rule (or the node's mode) that refused. Each run writes
# into a directory of its own (a refused run may leave vdso.so behind, and
# ptcap never mixes two captures).
mkdir -p /tmp/ucap && chmod 0777 /tmp/ucap
msg() {
	d=$1
	shift
	pt_sec as-user ptcap -o /tmp/ucap/$d "$@" 2>&1 >/dev/null
}
m=$(msg c1 -- /bin/true)
echo "$m" | grep -q 'paranoid rule' || fail "ptcap at pt_paranoid 3: $m" || exit 1
ok "ptcap, pt_paranoid 3: $m"
echo 2 >$P/pt_paranoid
m=$(msg c2 -a -d 0.1)
echo "$m" | grep -q 'capability rule' || fail "ptcap -a: $m" || exit 1
ok "ptcap -a: $m"
pt_hold hold || fail "pt_test hold did not start" || exit 1
m=$(msg c3 -- /bin/true)
kill $hold_pid
wait $hold_pid 2>/dev/null
echo "$m" | grep -q "busy: process $hold_pid holds" || fail "ptcap, busy: $m" || exit 1
ok "ptcap while root holds the capture: $m"
chmod 0600 /dev/pt
m=$(msg c4 -- /bin/true)
echo "$m" | grep -q "device node's permission" || fail "ptcap, 0600 node: $m" || exit 1
ok "ptcap, /dev/pt 0600: $m"
echo 3 >$P/pt_paranoid

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no spec violation, module unloads"
