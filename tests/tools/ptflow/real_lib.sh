# The real traces of ../shared/testdata/pt/real/libxdc as ptflow inputs,
# shared by ptflow_engine.sh and ptflow_jobs.sh. Source it after
# ../lib.sh (it uses O):
#   . "$here/real_lib.sh"
# shellcheck shell=sh

# raw_args PREFIX: the page cache PREFIX.addr/.dump as --raw arguments,
# one per line, the first entry for a page winning (libipt: the last added
# wins, so added in reverse); an address with low bits set marks a page as
# not mapped.
raw_args() {
	od -An -v -t x8 -w8 "$1.addr" | awk -v d="$1.dump" '
		{ a[NR] = $1 }
		END {
			for (i = NR; i >= 1; i--) {
				if (substr(a[i], length(a[i]) - 2) != "000")
					continue
				printf "--raw %s:%d-%d:0x%s\n", d, (i - 1) * 4096,
					i * 4096, a[i]
			}
		}'
}

# The clock of the timed traces below, as ptflow options (test_pt_flow_time's
# new_flow(): Skylake 6/94/3, CPUID 15H 2/308, MTC every 2^3 ART ticks).
# shellcheck disable=SC2034 # for the sourcing script
timed_clk="--cpu 6/94/3 --mtc-freq 3 --nom-freq 37 --cpuid-0x15.eax 2
	--cpuid-0x15.ebx 308 --tsc-freq 3700000000"

# timed_traces DIR: the real traces with timing packets put in (TSC, TMA,
# MTC, CYC, CBR), written by test_pt_flow_time as DIR/NAME-K.pt; 1 (and a
# FAIL) if that failed, 2 if test_pt_flow_time is not built.
timed_traces() {
	tt=${TEST_PT_FLOW_TIME:-$O/tests/test_pt_flow_time}
	[ -x "$tt" ] || return 2
	mkdir -p "$1" || return 1
	TEST_PT_FLOW_TIME_DUMP=$1 CK_FORK=no "$tt" >/dev/null 2>&1 && return 0
	fail "test_pt_flow_time failed"
	return 1
}
