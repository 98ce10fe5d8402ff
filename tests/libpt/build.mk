# SPDX-License-Identifier: GPL-2.0
# Tests of libpt's packet decoder (issue 8). Shared test data is found at
# ../shared (or $LWPT_SHARED); tests that need it skip with a message.
UNIT_TESTS += test_pt_pkt
test_pt_pkt_SRCS := tests/libpt/test_pt_pkt.c
test_pt_pkt_LIBS := pt
test_pt_pkt_LDLIBS := -lipt
