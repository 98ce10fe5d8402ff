# SPDX-License-Identifier: GPL-2.0
# ptcov: fuzzing coverage (edges, AFL/libxdc maps) from Intel PT with
# libpt's coverage decoder (issue 25, Documentation/ptcov.rst).
TOOLS += ptcov
ptcov_SRCS := tools/ptcov/ptcov.c
ptcov_LIBS := pt
MANPAGES += tools/ptcov/ptcov.1
