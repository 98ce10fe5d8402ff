# SPDX-License-Identifier: GPL-2.0
# ptflow: instruction flow reconstruction with libipt and Capstone.
TOOLS += ptflow
ptflow_SRCS := tools/ptflow/ptflow.c tools/ptflow/ptflow_decode.c \
	tools/ptflow/ptflow_image.c \
	tools/ptflow/ptflow_disasm.c tools/ptflow/ptcap_dir.c
ptflow_LDLIBS := -lipt -lcapstone
MANPAGES += tools/ptflow/ptflow.1

# Tests: tests/tools/ptflow/build.mk.
