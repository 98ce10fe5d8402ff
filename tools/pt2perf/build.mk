# SPDX-License-Identifier: GPL-2.0
# pt2perf: a ptcap directory to a perf.data that Linux perf decodes
# (issue 24 point 2, Documentation/pt2perf.rst). The perf.data writer is
# libpt's (include/lwpt/perf_write.h); elfutils reads the build-ids.
ifneq ($(filter pt,$(LIBS)),)
TOOLS += pt2perf
pt2perf_SRCS := tools/pt2perf/pt2perf.c tools/pt2perf/capture.c tools/pt2perf/buildid.c
pt2perf_LIBS := pt
pt2perf_LDLIBS := -ldw -lelf
MANPAGES += tools/pt2perf/pt2perf.1
SCRIPT_TESTS += tests/tools/pt2perf/pt2perf.sh
endif
