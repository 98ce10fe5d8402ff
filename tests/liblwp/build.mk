# SPDX-License-Identifier: GPL-2.0
# Tests of liblwp (issue 7).
UNIT_TESTS += test_lwp_encode
test_lwp_encode_SRCS := tests/liblwp/test_lwp_encode.c
test_lwp_encode_LIBS := lwp
