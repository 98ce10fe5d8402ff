# SPDX-License-Identifier: GPL-2.0
# Issue 36: the hostile inputs of $(LWPT_SHARED)/repro/inputs and the
# hand-made cases of its README (FIFOs, /dev/zero links, sparse files)
# through ptflow, ptdump, pt2perf and ptcov: each ends with the right
# output or a clear error, within 100 MB, leaving no temporary file.
SCRIPT_TESTS += tests/tools/readers/hostile_inputs.sh
