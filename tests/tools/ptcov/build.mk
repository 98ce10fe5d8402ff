# SPDX-License-Identifier: GPL-2.0
# ptcov and libpt's coverage decoder (issue 25): exactness against
# libipt's instruction flow (tests/libpt/cov_ref.c), libxdc's published
# hashes, synthetic traces, a mutation loop, the tool's CLI; and the
# benchmark against libxdc and libipt's block decoder.
UNIT_TESTS += test_pt_cov
test_pt_cov_SRCS := tests/tools/ptcov/test_pt_cov.c tests/libpt/cov_ref.c
test_pt_cov_LIBS := pt
test_pt_cov_LDLIBS := -lipt

SCRIPT_TESTS += tests/tools/ptcov/ptcov.sh

BENCHES += bench_ptcov
bench_ptcov_SRCS := tests/tools/ptcov/bench_ptcov.c tests/libpt/cov_ref.c
bench_ptcov_LIBS := pt
bench_ptcov_LDLIBS := -lipt -ldl
