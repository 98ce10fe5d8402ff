#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 900
# ptcap's symbolic filters (issue 16 point 3) on lwpt_sim.ko
# (pt_profile=full: 4 ADDRn ranges; the model writes the packets of the
# program's execution and applies FilterEn, SDM 33.2.5.3): --filter=SYMBOL
# on a static program and on a position-independent dynamic one, and
# --filter=SYMBOL@LIBRARY (resolved once ld.so mapped it: ptcap runs the
# program to its entry point first). The libipt flow of each capture must
# equal the ground truth (ptrace single-stepping) restricted to the
# function's range, which ptcap printed. Errors: a name that matches
# nothing, more ranges than the processor has (bdw: none). ASLR is off so
# that the ground truth and the capture see the same addresses. The
# programs do the lighter work (-s): single-stepping is the slow part.
. /lwpt/lib.sh

echo 0 >/proc/sys/kernel/randomize_va_space

# restrict A B: the lines of /tmp/gt.txt within [A, B] (hex) into /tmp/want.txt.
restrict() {
	awk -v a="$1" -v b="$2" '
	function hex(s,   i, v) {
		v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	BEGIN { lo = hex(a); hi = hex(b) }
	{ v = hex($1); if (v >= lo && v <= hi) print }' /tmp/gt.txt >/tmp/want.txt
}

# filtered NAME SPEC PROG [ARGS]: ground truth of PROG, capture with
# --filter=SPEC, compare the flow with the ground truth in the range.
filtered() {
	name=$1 spec=$2
	shift 2
	# The ground truth of the same program is taken once (single-stepping
	# a dynamic program's loader is the slow part of this case).
	if [ "$(cat /tmp/gt.prog 2>/dev/null)" != "$*" ]; then
		env -i /bin/norandom /bin/pt_flow_gt -o /tmp/gt.txt "$@" >/tmp/gt.out 2>/tmp/gt.err ||
			fail "$name: pt_flow_gt: $(cat /tmp/gt.err)" || return 1
		echo "$*" >/tmp/gt.prog
	fi
	rm -rf /tmp/filt
	env -i /bin/norandom /bin/ptcap --filter="$spec" --size=1M -o /tmp/filt -- "$@" >/tmp/filt.out 2>/tmp/filt.err
	rc=$?
	range=$(sed -n "s/^ptcap: --filter $spec: \(0x[0-9a-f]*-0x[0-9a-f]*\)$/\1/p" /tmp/filt.err)
	[ $rc -eq 0 ] && [ -n "$range" ] && grep -q "^addr0 filter $range$" /tmp/filt/config ||
		fail "$name: ptcap --filter=$spec: status $rc: $(cat /tmp/filt.err)" || return 1
	restrict "${range%-*}" "${range#*-}"
	ptflow --no-symbols --no-inst /tmp/filt >/tmp/flow.out 2>&1
	grep -E '^[0-9a-f]{16}$' /tmp/flow.out >/tmp/flow.txt
	n=$(wc -l </tmp/want.txt)
	[ "$n" -gt 0 ] || fail "$name: the ground truth never runs $range" || return 1
	cmp -s /tmp/want.txt /tmp/flow.txt || {
		diff /tmp/want.txt /tmp/flow.txt | head -n 10
		fail "$name: flow ($(wc -l </tmp/flow.txt)) differs from the ground truth in $range ($n)"
		return 1
	}
	ok "$name: --filter=$spec ($range): flow = ground truth in the range, $n instructions of $(wc -l </tmp/gt.txt)"
}

lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null || fail "insmod" || exit 1

filtered static step /bin/ptcap_hello -s || exit 1
filtered pie step /bin/ptcap_hello_pie -s || exit 1
grep -q 'tracing starts' /tmp/filt.err && fail "pie: ran to the entry point for a symbol of the program" && exit 1
filtered library printf@libc.so.6 /bin/ptcap_hello_pie -s || exit 1
grep -q "^ptcap: a filter names a library: tracing starts at the program's entry point$" /tmp/filt.err ||
	fail "library: $(cat /tmp/filt.err)" || exit 1

# A name that matches nothing: an error naming it; the program never runs.
out=$(ptcap --filter=no_such_fn -o /tmp/nf -- /bin/ptcap_hello 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q '^ptcap: --filter no_such_fn: no_such_fn: no function of that name' &&
	! echo "$out" | grep -q steps ||
	fail "no match: status $rc: $out" || exit 1
out=$(ptcap --stop=main@libnothere.so -o /tmp/nf2 -- /bin/ptcap_hello_pie 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q '^ptcap: --stop main@libnothere.so: libnothere.so: no file of that name is mapped' ||
	fail "no library: status $rc: $out" || exit 1
ok "no match: '$(echo "$out" | head -n 1)'"

[ "$(sim_violations)" = 0 ] || fail "violations $(sim_violations)" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod" || exit 1

# bdw enumerates no ADDRn range: a clear error before anything runs.
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=bdw >/dev/null || fail "insmod bdw" || exit 1
out=$(ptcap --filter=step -o /tmp/nr -- /bin/ptcap_hello 2>&1)
rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q '^ptcap: --filter/--stop: 1 address range(s) asked, this processor has 0 (CPUID.(EAX=14H,ECX=1):EAX\[2:0\])$' ||
	fail "bdw: status $rc: $out" || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "rmmod bdw" || exit 1
ok "bdw: '$out'"
echo 2 >/proc/sys/kernel/randomize_va_space
