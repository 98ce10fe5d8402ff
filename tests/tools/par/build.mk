# SPDX-License-Identifier: GPL-2.0
# ptcov -j and ptdump -j against -j 1 on the real traces (issue 34 point 3).
SCRIPT_TESTS += tests/tools/par/jobs.sh
