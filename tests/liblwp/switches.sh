#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulation's tests again under the Family 15h switches of the model
# (issue 14 §1): LIBLWP_LWP_LAZY_HEAD=1 (BufferHeadOffset written only when
# 43724 §8.3 requires it) and LIBLWP_LWP_XSAVE_DROPS_INT=1, each alone and
# both together, for test_lwp_emu and test_lwp_reentry (signal handlers and
# exit destructors, issue 28). The plain runs are the tests themselves.
O=${O:-build}
rc=0
for env in "LIBLWP_LWP_LAZY_HEAD=1" "LIBLWP_LWP_XSAVE_DROPS_INT=1" \
	   "LIBLWP_LWP_LAZY_HEAD=1 LIBLWP_LWP_XSAVE_DROPS_INT=1"; do
	for t in test_lwp_emu test_lwp_reentry; do
		if env $env "$O/tests/$t" >/dev/null 2>&1; then
			echo "ok: $t with $env"
		else
			echo "FAIL: $t with $env"
			env $env "$O/tests/$t" 2>&1 | tail -20
			rc=1
		fi
	done
done
exit $rc
