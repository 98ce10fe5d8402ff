#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The emulation's tests again under the Family 15h switches of the model
# (issue 14 §1): LIBLWP_LWP_LAZY_HEAD=1 (BufferHeadOffset written only when
# 43724 §8.3 requires it) and LIBLWP_LWP_XSAVE_DROPS_INT=1, each alone and
# both together. The plain run is test_lwp_emu itself.
O=${O:-build}
rc=0
for env in "LIBLWP_LWP_LAZY_HEAD=1" "LIBLWP_LWP_XSAVE_DROPS_INT=1" \
	   "LIBLWP_LWP_LAZY_HEAD=1 LIBLWP_LWP_XSAVE_DROPS_INT=1"; do
	if env $env "$O/tests/test_lwp_emu" >/dev/null 2>&1; then
		echo "ok: test_lwp_emu with $env"
	else
		echo "FAIL: test_lwp_emu with $env"
		env $env "$O/tests/test_lwp_emu" 2>&1 | tail -20
		rc=1
	fi
done
exit $rc
