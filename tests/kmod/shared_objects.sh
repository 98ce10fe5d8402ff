#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Rules of the shared-object design (Documentation/design.rst, "One module
# built twice"): every object in LWPT_SHARED is linked into both lwpt.ko and
# lwpt_sim.ko and compiled with KBUILD_MODNAME "lwpt:lwpt_sim", so its
# source must not use module_param, KBUILD_MODNAME (also through pr_fmt) or
# MODULE_LICENSE-style module info, and must not call the model directly.
# Ends with "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 1

passed=0
failed=0
check() {	# check OK MESSAGE
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $2"
	fi
}

shared=$(make -s -C kmod -f Kbuild src=. --no-print-directory \
	--eval 'lwpt-print-shared: ; @echo $(LWPT_SHARED)' lwpt-print-shared)
[ -n "$shared" ]
check $? "kmod/Kbuild defines LWPT_SHARED"

for o in $shared; do
	c=kmod/${o%.o}.c
	[ -f "$c" ]
	check $? "$c (from LWPT_SHARED) exists"
	[ -f "$c" ] || continue
	! grep -n -E '^[^/*]*\b(module_param|module_param_named|MODULE_PARM_DESC)\b' "$c"
	check $? "$c: module_param in a shared object"
	! grep -n -E '^[^/*]*\bKBUILD_MODNAME\b' "$c"
	check $? "$c: KBUILD_MODNAME in a shared object"
	! grep -n -E '^[[:space:]]*#[[:space:]]*define[[:space:]]+pr_fmt' "$c"
	check $? "$c: pr_fmt in a shared object (spell \"lwpt: \", LWPT_PR_PREFIX)"
	! grep -n -E '^[^/*]*\bMODULE_(LICENSE|AUTHOR|DESCRIPTION|VERSION|ALIAS)\b' "$c"
	check $? "$c: module info in a shared object"
	! grep -n -E '^#include "(\.\./)*sim/' "$c"
	check $? "$c: a shared object includes the model layer"
done

# The log prefix of shared files is "lwpt: ", the one the VM tests count.
grep -q '#define LWPT_PR_PREFIX	"lwpt: "' kmod/lwpt.h
check $? "kmod/lwpt.h: LWPT_PR_PREFIX is \"lwpt: \""

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
