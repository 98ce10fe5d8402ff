# SPDX-License-Identifier: GPL-2.0
# liblwp: AMD LWP for JITs and runtimes (issue 7). See Documentation/liblwp.rst.
# The LWP model (model/lwp) is compiled in for the emulation backend;
# recursive '=' because model/lwp/build.mk is included after this file.
LIBS += lwp
lwp_SRCS = liblwp/lwp_session.c liblwp/lwp_caps.c liblwp/lwp_emu.c liblwp/lwp_hw.c liblwp/lwp_hw_dev.c \
	liblwp/lwp_encode.c liblwp/lwp_emu_fast.c liblwp/lwp_jit.c \
	$(LWP_MODEL_SRCS)
lwp_SOVERSION := 0
lwp_LDLIBS := -lpthread -Wl,--version-script=liblwp/liblwp.map
HEADERS += include/lwpt/lwp.h include/lwpt/lwp_arch.h
lwp_DESCRIPTION := AMD Lightweight Profiling (LWP) for JITs and runtimes: the lwpt module or an emulation
MANPAGES += liblwp/man/liblwp.3
$(O)/lib/liblwp.so.$(lwp_SOVERSION): liblwp/liblwp.map
