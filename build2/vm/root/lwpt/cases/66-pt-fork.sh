#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 480
# A per-thread capture follows forks (issue 16 point 2, module side;
# Documentation/pt.rst, "Following forks"): ptcap traces pt_fork_prog,
# which forks once; the child joins with its own buffer, its status gives
# its pid and the parent's (config: ppid=). libipt's flow of each buffer
# equals the single-stepping ground truth of that process (pt_flow_gt -f
# follows the fork the same way). With --no-inherit only the parent is
# traced, its flow unchanged. No spec violation.
. /lwpt/lib.sh

PROG=/bin/pt_fork_prog

env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gtp.txt -f /tmp/gtc.txt $PROG 2>/tmp/gt.err ||
	fail "pt_flow_gt: $? $(cat /tmp/gt.err)" || exit 1
ok "ground truth: parent $(wc -l </tmp/gtp.txt), child $(wc -l </tmp/gtc.txt) instructions"

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko >/dev/null || fail "insmod" || exit 1

# fork_flow FILE GT NAME: libipt's flow of trace FILE equals GT.
fork_flow() {
	ptflow --no-symbols --no-inst --pt "$1" --elf $PROG >/tmp/flow.out 2>&1
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n_flow=$(wc -l </tmp/flow.txt)
	pt_flow_same full "$3" "$2" || { head -n 5 /tmp/flow.out; return 1; }
	ok "$3: flow = ground truth ($n_flow instructions)"
}

for inherit in yes no; do
	opt=
	[ $inherit = no ] && opt=--no-inherit
	rm -rf /tmp/fork
	env -i /bin/norandom /bin/ptcap -o /tmp/fork --size=4M $opt -- $PROG >/tmp/ptcap.out 2>&1 ||
		fail "ptcap $opt: $? $(cat /tmp/ptcap.out)" || exit 1
	grep '^thread\.' /tmp/fork/config
	n=$(grep -c '^thread\.' /tmp/fork/config)
	if [ $inherit = yes ]; then
		[ "$n" = 2 ] || fail "inherit: $n traced threads, want 2" || exit 1
		parent=$(grep '^thread\.' /tmp/fork/config | grep -v ' ppid=' |
			 sed 's/^thread\.\([^ ]*\) .*/\1/')
		line=$(grep '^thread\..* ppid=' /tmp/fork/config)
		child=$(echo "$line" | sed 's/^thread\.\([^ ]*\) .*/\1/')
		ppid=$(echo "$line" | sed 's/.* ppid=\([0-9]*\).*/\1/')
		ppid_want=$(grep "^thread\.$parent " /tmp/fork/config | sed 's/.* pid=\([0-9]*\) .*/\1/')
		[ -n "$child" ] && [ "$ppid" = "$ppid_want" ] ||
			fail "child $child ppid $ppid, want the parent's pid $ppid_want" || exit 1
		ok "the child ($child) joined with its own buffer, ppid=$ppid"
		fork_flow /tmp/fork/$child /tmp/gtc.txt "child" || exit 1
	else
		[ "$n" = 1 ] || fail "--no-inherit: $n traced threads, want 1" || exit 1
		parent=$(grep '^thread\.' /tmp/fork/config | sed 's/^thread\.\([^ ]*\) .*/\1/')
	fi
	fork_flow /tmp/fork/$parent /tmp/gtp.txt "parent (inherit=$inherit)" || exit 1
done

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1
ok "no spec violation, module unloads"
