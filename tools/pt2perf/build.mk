# SPDX-License-Identifier: GPL-2.0
# pt2perf: a ptcap directory to a perf.data that Linux perf decodes
# (issue 24 point 2, Documentation/pt2perf.rst). The perf.data writer is
# libpt's (include/lwpt/perf_write.h), as is the build-id reader
# (perf_data.h lpt_perf_elf_build_id(), libelf). A ptcap -a capture is cut
# into its threads' spans with ptflow's own rules (tools/ptflow/
# ptflow_split.c, ptflow_resume.c; split.h), so that perf and ptflow agree.
ifneq ($(filter pt,$(LIBS)),)
TOOLS += pt2perf
pt2perf_SRCS := tools/pt2perf/pt2perf.c tools/pt2perf/capture.c tools/pt2perf/split.c \
	tools/ptflow/ptflow_split.c tools/ptflow/ptflow_resume.c
pt2perf_LIBS := pt
pt2perf_LDLIBS := -lelf -lzstd
MANPAGES += tools/pt2perf/pt2perf.1
SCRIPT_TESTS += tests/tools/pt2perf/pt2perf.sh
# A BTS capture (the BTS model's trace, test_bts_flow --write-capture)
# both ways: pt2perf -> perf script --itrace=b and ptflow (issue 37).
SCRIPT_TESTS += tests/tools/pt2perf/pt2perf_bts.sh
endif
