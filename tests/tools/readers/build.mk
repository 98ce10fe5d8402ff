# SPDX-License-Identifier: GPL-2.0
# Issue 36: the hostile inputs of $(LWPT_SHARED)/repro/inputs and the
# hand-made cases of its README (FIFOs, /dev/zero links, sparse files)
# through ptflow, ptdump, pt2perf and ptcov: each ends with the right
# output or a clear error, within 100 MB, leaving no temporary file.
SCRIPT_TESTS += tests/tools/readers/hostile_inputs.sh

# A perf.data read in place by ptflow and ptcov (include/lwpt/capture_src.h)
# against the same perf.data written as a ptcap directory (perf2ptcap:
# lpt_perf_write_ptcap(), the conversion the tools made before), and no
# file created.
$(O)/tests/perf2ptcap: tests/tools/readers/perf2ptcap.c include/lwpt/perf_data.h \
		       $(O)/lib/libpt.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tests/tools/readers/perf2ptcap.c \
		$(O)/lib/libpt.a -lelf -lzstd
check-unit: $(O)/tests/perf2ptcap
SCRIPT_TESTS += tests/tools/readers/perf_inplace.sh
