# Shared preamble of the tests/tools/*/*.sh scripts: source it as
#   . "$(dirname "$0")/../lib.sh"
# Sets here (the script's directory), root (the source tree), O (the
# build directory, absolute; $O or build), shared (../shared or
# $LWPT_SHARED), and the pass/fail counters: "cond && pass || fail MSG"
# is an if-then-else because pass() always succeeds; finish prints
# "N passed, N failed" and exits 0 only without failures.
# shellcheck disable=SC2034 # root, O, shared are for the sourcing script
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$root/$O ;; esac
shared=${LWPT_SHARED:-$root/../shared}

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit $?
}
