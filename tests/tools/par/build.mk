# SPDX-License-Identifier: GPL-2.0
# ptcov -j and ptdump -j against -j 1 on the real traces (issue 34 point 3).
SCRIPT_TESTS += tests/tools/par/jobs.sh

# make bench: -j 1 against -j N on mruby's trace repeated to 256 MiB:
# outputs compared, times, speed-up, peak memory at two sizes.
BENCHES += bench_par
bench_par_SRCS := tests/tools/par/bench_par.c
