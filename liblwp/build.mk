# SPDX-License-Identifier: GPL-2.0
# liblwp: AMD LWP for JITs and runtimes (issue 7). See Documentation/liblwp.rst.
LIBS += lwp
lwp_SRCS := liblwp/lwp_encode.c
lwp_SOVERSION := 0
lwp_LDLIBS := -lpthread
HEADERS += include/lwpt/lwp.h
