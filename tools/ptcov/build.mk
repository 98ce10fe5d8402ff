# SPDX-License-Identifier: GPL-2.0
# ptcov: coverage from Intel PT with libpt's coverage decoder: edges and
# AFL/libxdc maps for fuzzers (issue 25), lcov and drcov for people
# (issue 35). Documentation/ptcov.rst.
TOOLS += ptcov
ptcov_SRCS := tools/ptcov/ptcov.c tools/ptcov/cov_flow.c tools/ptcov/cov_module.c \
	tools/ptcov/cov_lcov.c tools/ptcov/cov_drcov.c tools/ptcov/cov_merge.c \
	tools/ptcov/cov_strtab.c \
	tools/ptcov/cov_par.c \
	tools/pt2perf/capture.c tools/pt2perf/split.c \
	tools/ptflow/ptflow_split.c tools/ptflow/ptflow_resume.c \
	tools/ptflow/ptflow_debuginfo.c
# A system-wide capture (ptcap -a) is cut into its threads' spans, each
# with its exec generation, by pt2perf's split (tools/pt2perf/split.h, on
# ptflow's rules: ptflow_split.c, ptflow_resume.c), as pt2perf links them.
ptcov_LIBS := pt
# elfutils' libdw (libdwfl): DWARF line tables and symbol tables.
ptcov_LDLIBS := -ldw -lelf -lzstd -lpthread
MANPAGES += tools/ptcov/ptcov.1
