# SPDX-License-Identifier: GPL-2.0
# ptflow: instruction flow reconstruction with libipt and Capstone.
TOOLS += ptflow
ptflow_SRCS := tools/ptflow/ptflow.c tools/ptflow/ptflow_decode.c \
	tools/ptflow/ptflow_image.c \
	tools/ptflow/ptflow_disasm.c \
	tools/ptflow/ptflow_sym.c tools/ptflow/ptflow_time.c \
	tools/ptflow/ptflow_calls.c tools/ptflow/ptflow_report.c \
	tools/ptflow/ptflow_chrome.c tools/ptflow/ptflow_jit.c \
	tools/ptflow/ptflow_split.c tools/ptflow/ptflow_sys.c \
	tools/ptflow/ptflow_btssys.c \
	tools/ptflow/ptflow_resume.c tools/ptflow/ptflow_flow.c \
	tools/ptflow/ptflow_buildid.c tools/ptflow/ptflow_lbr.c \
	tools/ptflow/ptflow_debuginfo.c
# elfutils' libdw (libdwfl) and libelf: symbols and source lines.
# The ptcap directory reader is libpt's (include/lwpt/ptcap_dir.h).
ptflow_LIBS := pt
ptflow_LDLIBS := -lipt -lcapstone -ldw -lelf -lzstd
MANPAGES += tools/ptflow/ptflow.1

# Tests: tests/tools/ptflow/build.mk.
