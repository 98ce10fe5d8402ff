# SPDX-License-Identifier: GPL-2.0
TOOLS += lwpt-jitdemo
lwpt-jitdemo_SRCS := tools/lwpt-jitdemo/lwpt-jitdemo.c tools/lwpt-jitdemo/jit_dump.c
lwpt-jitdemo_LIBS := lwp
lwpt-jitdemo_LDLIBS := -lpthread
MANPAGES += tools/lwpt-jitdemo/lwpt-jitdemo.1
