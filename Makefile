# SPDX-License-Identifier: GPL-2.0
#
# lwpt top-level build. One non-recursive make for all of user space; the
# kernel module is built by kbuild (see kmod/Kbuild) through `make kmod`.
#
# Every directory that builds something has a build.mk fragment that is
# included here. A fragment only declares what it builds:
#
#   LIBS       += lwp                 -> build/lib/liblwp.a, liblwp.so.$(lwp_SOVERSION)
#   lwp_SRCS   := liblwp/a.c ...
#   lwp_SOVERSION := 0
#   lwp_LDLIBS := -lpthread           (what the shared library links against)
#
#   TOOLS      += ptdump              -> build/bin/ptdump
#   ptdump_SRCS := tools/ptdump/ptdump.c
#   ptdump_LIBS := pt                 (our static libraries, in link order)
#   ptdump_LDLIBS := -lipt            (system libraries)
#
#   UNIT_TESTS += test_pkt            -> build/tests/test_pkt, run by `make check-unit`
#   (same _SRCS/_LIBS/_LDLIBS; Check is linked automatically)
#
#   BENCHES    += bench_pkt           -> build/bench/bench_pkt, run by `make bench`
#   SCRIPT_TESTS += tests/libpt/conformance.sh   (run by `make check-unit`)
#
# Objects go to build/obj/<path>.o, so fragments never collide.

O        ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
LIBDIR   ?= $(PREFIX)/lib
INCDIR   ?= $(PREFIX)/include
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

CC       ?= cc
AR       ?= ar
CPPFLAGS += -Iinclude -I. -D_GNU_SOURCE
CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -Wall -Wextra -Werror -fPIC
LDFLAGS  ?=
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)
CPPFLAGS     += $(CHECK_CFLAGS)

ifeq ($(SANITIZE),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
O       := build/sanitize
endif

LIBS :=
TOOLS :=
UNIT_TESTS :=
BENCHES :=
SCRIPT_TESTS :=
MANPAGES :=
HEADERS :=

.PHONY: all
all: libs tools

include $(sort $(wildcard */build.mk */*/build.mk */*/*/build.mk))

obj = $(patsubst %.c,$(O)/obj/%.o,$(1))
ALL_OBJS :=

# $(O)/obj/path/file.o from path/file.c
$(O)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

define LIB_template
ALL_OBJS += $(call obj,$($(1)_SRCS))
$(O)/lib/lib$(1).a: $(call obj,$($(1)_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@ && $(AR) rcs $$@ $$^
$(O)/lib/lib$(1).so.$($(1)_SOVERSION): $(call obj,$($(1)_SRCS)) $(foreach l,$($(1)_LIBS),$(O)/lib/lib$(l).a)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,lib$(1).so.$($(1)_SOVERSION) -o $$@ \
		$(call obj,$($(1)_SRCS)) $(foreach l,$($(1)_LIBS),$(O)/lib/lib$(l).a) $($(1)_LDLIBS)
$(O)/lib/lib$(1).so: $(O)/lib/lib$(1).so.$($(1)_SOVERSION)
	ln -sf lib$(1).so.$($(1)_SOVERSION) $$@
LIB_TARGETS += $(O)/lib/lib$(1).a $(O)/lib/lib$(1).so
endef

# $(1)=name $(2)=output dir $(3)=extra libs
define EXE_template
ALL_OBJS += $(call obj,$($(1)_SRCS))
$(O)/$(2)/$(1): $(call obj,$($(1)_SRCS)) $(foreach l,$($(1)_LIBS),$(O)/lib/lib$(l).a)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $$@ $(call obj,$($(1)_SRCS)) \
		$(foreach l,$($(1)_LIBS),$(O)/lib/lib$(l).a) $($(1)_LDLIBS) $(3)
endef

LIB_TARGETS :=
$(foreach l,$(LIBS),$(eval $(call LIB_template,$(l))))
$(foreach t,$(TOOLS),$(eval $(call EXE_template,$(t),bin,)))
$(foreach t,$(UNIT_TESTS),$(eval $(call EXE_template,$(t),tests,$(CHECK_LIBS))))
$(foreach t,$(BENCHES),$(eval $(call EXE_template,$(t),bench,)))

TOOL_BINS := $(addprefix $(O)/bin/,$(TOOLS))
TEST_BINS := $(addprefix $(O)/tests/,$(UNIT_TESTS))
BENCH_BINS := $(addprefix $(O)/bench/,$(BENCHES))

.PHONY: libs tools tests check check-unit check-vm bench kmod clean
libs: $(LIB_TARGETS)
tools: $(TOOL_BINS)
tests: $(TEST_BINS)

# Unit tests: every Check binary, then every script test. Each prints its
# own summary; this target fails if any of them does.
check-unit: all $(TEST_BINS)
	@O=$(O) scripts/run-unit-tests $(TEST_BINS) $(SCRIPT_TESTS)

bench: all $(BENCH_BINS)
	@set -e; for b in $(BENCH_BINS); do echo "== $$b"; $$b; done

-include $(ALL_OBJS:.o=.d)

clean:
	rm -rf build
	-$(MAKE) -C kmod clean
