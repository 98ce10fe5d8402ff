# SPDX-License-Identifier: GPL-2.0
# ptcap: capture Intel PT through /dev/pt with libpt's capture API
# (include/lwpt/pt.h, libpt/capture.c) into a ptcap directory
# (Documentation/ptcap-format.rst). Issue 8, point 4.
ifneq ($(filter pt,$(LIBS)),)
TOOLS += ptcap
ptcap_SRCS := tools/ptcap/ptcap.c tools/ptcap/outcome.c tools/ptcap/outdir.c \
	tools/ptcap/symfilter.c tools/ptcap/procs.c tools/ptcap/cpusel.c \
	tools/ptcap/gapmark.c tools/ptcap/buildid.c tools/ptcap/btscap.c \
	tools/ptcap/tasks.c
# Symbolic --filter/--stop through elfutils' libelf (issue 16 point 3).
ptcap_LDLIBS := -lelf
ptcap_LIBS := pt
MANPAGES += tools/ptcap/ptcap.1
HEADERS += include/lwpt/pt.h

# Unit tests of the capture API that need no device (tests/libpt).
UNIT_TESTS += test_pt_capture
test_pt_capture_SRCS := tests/libpt/test_pt_capture.c
test_pt_capture_LIBS := pt

# What happened to each buffer, loss or not (tests/tools/ptcap).
UNIT_TESTS += test_ptcap_outcome
test_ptcap_outcome_SRCS := tests/tools/ptcap/test_ptcap_outcome.c tools/ptcap/outcome.c
test_ptcap_outcome_LIBS := pt

UNIT_TESTS += test_ptcap_outdir
test_ptcap_outdir_SRCS := tests/tools/ptcap/test_ptcap_outdir.c tools/ptcap/outdir.c

UNIT_TESTS += test_ptcap_symfilter
test_ptcap_symfilter_SRCS := tests/tools/ptcap/test_ptcap_symfilter.c tools/ptcap/symfilter.c
test_ptcap_symfilter_LDLIBS := -lelf

# ptcap -a's process records on this host's own processes (procs.c).
UNIT_TESTS += test_ptcap_procs
test_ptcap_procs_SRCS := tests/tools/ptcap/test_ptcap_procs.c tools/ptcap/procs.c \
	tools/ptcap/buildid.c
test_ptcap_procs_LIBS := pt
test_ptcap_procs_LDLIBS := -lelf -lzstd

# The build-id lines of maps files (buildid.c, issue 35 "Errors").
UNIT_TESTS += test_ptcap_buildid
test_ptcap_buildid_SRCS := tests/tools/ptcap/test_ptcap_buildid.c tools/ptcap/buildid.c
test_ptcap_buildid_LIBS := pt
test_ptcap_buildid_LDLIBS := -lelf -lzstd

# -C LIST: parsing, CPUs that do not exist, offline CPUs (cpusel.c).
UNIT_TESTS += test_ptcap_cpusel
test_ptcap_cpusel_SRCS := tests/tools/ptcap/test_ptcap_cpusel.c tools/ptcap/cpusel.c
test_ptcap_cpusel_LIBS := pt

# ptcap --bts -p's look at a process's threads and its end (tasks.c).
UNIT_TESTS += test_ptcap_tasks
test_ptcap_tasks_SRCS := tests/tools/ptcap/test_ptcap_tasks.c tools/ptcap/tasks.c

# OVF and PADs at the cuts of a raw trace file (gapmark.c, issue 27).
UNIT_TESTS += test_ptcap_gapmark
test_ptcap_gapmark_SRCS := tests/tools/ptcap/test_ptcap_gapmark.c tools/ptcap/gapmark.c
test_ptcap_gapmark_LIBS := pt
test_ptcap_gapmark_LDLIBS := -lipt

# ptcap's command line and error messages without a device.
SCRIPT_TESTS += tests/tools/ptcap/ptcap.sh
endif
