# SPDX-License-Identifier: GPL-2.0
# ptflow: instruction flow reconstruction with libipt and Capstone.
TOOLS += ptflow
ptflow_SRCS := tools/ptflow/ptflow.c tools/ptflow/ptflow_decode.c \
	tools/ptflow/ptflow_image.c \
	tools/ptflow/ptflow_disasm.c tools/ptflow/ptcap_dir.c
ptflow_LDLIBS := -lipt -lcapstone
MANPAGES += tools/ptflow/ptflow.1

# The tests live in tests/tools/ptflow/, one directory level deeper than
# the top Makefile's */*/build.mk wildcard reaches; include them from here
# (guarded, in case the wildcard is widened later).
ifndef PTFLOW_TESTS_INCLUDED
include tests/tools/ptflow/build.mk
endif
