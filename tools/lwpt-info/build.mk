# SPDX-License-Identifier: GPL-2.0
TOOLS += lwpt-info
lwpt-info_SRCS := tools/lwpt-info/lwpt-info.c
lwpt-info_LIBS := lwp pt
lwpt-info_LDLIBS := -lpthread
MANPAGES += tools/lwpt-info/lwpt-info.1
