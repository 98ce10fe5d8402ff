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
#   BENCH_HELPERS += helper           -> build/bench/helper, built by `make bench`
#                                        for a bench to run, not run itself
#   SCRIPT_TESTS += tests/libpt/conformance.sh   (run by `make check-unit`)
#
#   MANPAGES   += tools/ptdump/ptdump.1   (installed by section suffix)
#   HEADERS    += include/lwpt/pt_pkt.h   (public API, installed in
#                                          $(INCDIR)/lwpt with
#                                          include/uapi/lwpt/*.h as lwpt/uapi)
#   lwp_DESCRIPTION := ...             (pkg-config Description of liblwp.pc)
#   VM_PROGS   += vmprog               -> build/vm-bin/vmprog, linked -static,
#   (same _SRCS/_LIBS/_LDLIBS)            copied into the VM's /bin
#   VM_BINS    += $(O)/tests/foo       (any other program for the VM's /bin;
#                                          dynamic ones bring their libraries)
#   FUZZERS    += fuzz_pkt            -> build/fuzz/fuzz_pkt: a libFuzzer target
#   fuzz_pkt_SRCS := ...                 (clang, ASan + UBSan, built from its
#   fuzz_pkt_LDLIBS := -lipt             sources), run by `make fuzz` and
#   fuzz_pkt_SEEDS := files              `make fuzz-pkt` (Documentation/
#   fuzz_pkt_MAXLEN := 65536             testing.rst, "Fuzzing")
#
# Objects go to build/obj/<path>.o, so fragments never collide.
#
# Top-level targets: all (libs + tools), kmod, check (= check-unit +
# check-vm), lint, demo, bench, install, modules_install, clean.

VERSION  := 0.1.0
O        ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
# Debian's multiarch directory (lib/x86_64-linux-gnu) where gcc knows one.
LIBDIR   ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
INCDIR   ?= $(PREFIX)/include
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

CC       ?= cc
AR       ?= ar
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
# The package version, for every tool's --version.
CPPFLAGS += -Iinclude -I. -D_GNU_SOURCE -DLWPT_VERSION='"$(VERSION)"'
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
BENCH_HELPERS :=
SCRIPT_TESTS :=
MANPAGES :=
HEADERS :=
VM_PROGS :=
VM_BINS :=

.PHONY: all
all: libs tools

# Shared test data (fragments name seeds and inputs below it) and the
# libFuzzer targets' limits (see FUZZ_template below).
LWPT_SHARED ?= $(abspath ../shared)
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_SECONDS ?= $(FUZZ_TIME)
FUZZ_TIMEOUT ?= 30
FUZZ_RSS_MB ?= 1024
FUZZ_MALLOC_MB ?= 256
FUZZ_ARGS ?=

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
$(foreach t,$(BENCHES) $(BENCH_HELPERS),$(eval $(call EXE_template,$(t),bench,)))
$(foreach t,$(VM_PROGS),$(eval $(call EXE_template,$(t),vm-bin,-static)))

# libFuzzer targets (issue 36 point 6): `make fuzz` runs every one for
# FUZZ_SECONDS, `make fuzz-NAME` one (NAME without fuzz_), on a corpus in
# $(O)/fuzz/corpus-NAME seeded from $(LWPT_SHARED). Each input is limited:
# FUZZ_TIMEOUT seconds (a hang), FUZZ_RSS_MB of memory and FUZZ_MALLOC_MB in
# one allocation (a small file must not take gigabytes). Findings are
# written to $(O)/fuzz as crash-*, timeout-*, oom-*, leak-*; reproduce with
# `$(O)/fuzz/fuzz_NAME FILE`. FUZZ_ARGS passes more libFuzzer options.
FUZZ_CFLAGS := -g -O1 -std=c11 -Iinclude -I. -D_GNU_SOURCE \
	-DFUZZ_SHARED='"$(LWPT_SHARED)"' \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_HDRS = $(wildcard include/lwpt/*.h include/uapi/lwpt/*.h libpt/*.h \
	tools/ptflow/*.h model/x86/*.h)

define FUZZ_template
$(O)/fuzz/$(1): $($(1)_SRCS) $$(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $$@ $($(1)_SRCS) $($(1)_LDLIBS)
.PHONY: fuzz-$(1:fuzz_%=%)
fuzz-$(1:fuzz_%=%): $(O)/fuzz/$(1)
	@mkdir -p $(O)/fuzz/corpus-$(1:fuzz_%=%) $(O)/fuzz/seeds-$(1:fuzz_%=%)
	@for f in $($(1)_SEEDS); do \
		cp -rn "$$$$f" $(O)/fuzz/seeds-$(1:fuzz_%=%)/ 2>/dev/null || true; done
	@[ -n "$(strip $($(1)_SEEDS))" ] || \
		echo "fuzz-$(1:fuzz_%=%): no seeds ($(LWPT_SHARED) missing), empty corpus"
	cd $(O)/fuzz && ./$(1) -max_total_time=$$(FUZZ_SECONDS) \
		-max_len=$($(1)_MAXLEN) -timeout=$$(FUZZ_TIMEOUT) \
		-rss_limit_mb=$$(FUZZ_RSS_MB) -malloc_limit_mb=$$(FUZZ_MALLOC_MB) \
		-print_final_stats=1 $$(FUZZ_ARGS) \
		corpus-$(1:fuzz_%=%) seeds-$(1:fuzz_%=%)
endef
$(foreach t,$(FUZZERS),$(eval $(call FUZZ_template,$(t))))

.PHONY: fuzz fuzz-list
fuzz: $(FUZZERS:fuzz_%=fuzz-%)
fuzz-list:
	@echo $(FUZZERS:fuzz_%=%)

TOOL_BINS := $(addprefix $(O)/bin/,$(TOOLS))
TEST_BINS := $(addprefix $(O)/tests/,$(UNIT_TESTS))
BENCH_BINS := $(addprefix $(O)/bench/,$(BENCHES))
BENCH_HELPER_BINS := $(addprefix $(O)/bench/,$(BENCH_HELPERS))
VM_PROG_BINS := $(addprefix $(O)/vm-bin/,$(VM_PROGS))
VM_ALL_BINS = $(VM_PROG_BINS) $(VM_BINS)

.PHONY: libs tools tests check check-unit check-vm check-vm-slow bench kmod clean lint demo \
	install modules_install uninstall install-dkms
libs: $(LIB_TARGETS)
tools: $(TOOL_BINS)
tests: $(TEST_BINS)

# Unit tests: every Check binary, then every script test. Each prints its
# own summary; this target fails if any of them does.
check-unit: all $(TEST_BINS)
	@O=$(O) scripts/run-unit-tests $(TEST_BINS) $(SCRIPT_TESTS)

# Kernel modules (kmod/Kbuild): W=1 and -Werror, so `make kmod` stays
# warning-free. KDIR: the running kernel's build directory if it exists,
# else the newest Debian /usr/src/linux-headers-*-amd64 (kmod/Makefile).
KMOD_FLAGS ?= W=1 KCFLAGS=-Werror
kmod:
	$(MAKE) -C kmod $(KMOD_FLAGS) $(if $(KDIR),KDIR=$(KDIR))

# DESTDIR maps to kbuild's INSTALL_MOD_PATH.
modules_install: kmod
	$(MAKE) -C kmod modules_install $(if $(KDIR),KDIR=$(KDIR)) \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(abspath $(DESTDIR)))

# VM tests: boot the Debian kernel the modules were built for under QEMU
# (tests/vm/run); they need everything user space builds plus VM_BINS.
# VM_ONLY='GLOB...' runs only the cases matching one of the space-separated
# globs (make check-vm VM_ONLY='1* 81-*').
# VM_KERNEL=IMAGE boots IMAGE instead of /boot/vmlinuz-<KDIR's release> (a
# debug build: scripts/build-debug-kernel, Documentation/testing.rst).
# One after the other (also under -j), both always run; fails if either does.
check:
	@st=0; $(MAKE) --no-print-directory check-unit || st=1; \
	$(MAKE) --no-print-directory check-vm || st=1; exit $$st

check-vm: all $(VM_ALL_BINS) kmod
	@O=$(O) VM_BINS="$(VM_ALL_BINS)" TOOL_BINS="$(TOOL_BINS)" tests/vm/run \
		$(if $(KDIR),--kdir $(KDIR)) $(if $(VM_KERNEL),--kernel $(VM_KERNEL)) \
		$(if $(VM_ONLY),--only '$(VM_ONLY)')

# tests/vm/slow: cases not yet reliable in the time make check has on the
# model (tests/vm/slow/README); run them on their own.
check-vm-slow: all $(VM_ALL_BINS) kmod
	@O=$(O) VM_BINS="$(VM_ALL_BINS)" TOOL_BINS="$(TOOL_BINS)" tests/vm/run --slow \
		$(if $(KDIR),--kdir $(KDIR)) $(if $(VM_KERNEL),--kernel $(VM_KERNEL)) \
		$(if $(VM_ONLY),--only '$(VM_ONLY)')

# The main job on a machine without LWP or PT: the demo in the VM, on the
# model (lwpt_sim.ko).
demo: all $(VM_ALL_BINS) kmod
	@echo "== lwpt-jitdemo on this host: LWP emulation, JIT call sequences"
	@$(O)/bin/lwpt-jitdemo -n 1000000
	@O=$(O) VM_BINS="$(VM_ALL_BINS)" TOOL_BINS="$(TOOL_BINS)" tests/vm/run --demo $(if $(KDIR),--kdir $(KDIR))

lint:
	@O=$(O) scripts/lint

# bench_ptdump compares with libipt's own ptdump, which
# scripts/build-libipt-ptdump builds into $(O)/libipt-ptdump from
# ../shared/reference/libipt-2.0.5.tar.gz, else from Debian's source
# package; when neither can be had it says "skipped" and bench_ptdump
# falls back to its printf model (labelled as such).
# bench_ptcov compares with libxdc, which scripts/build-libxdc builds into
# $(O)/libxdc from ../shared/reference/libxdc-7a7894a.tar.gz.
bench: all $(BENCH_BINS) $(BENCH_HELPER_BINS)
	@scripts/build-libipt-ptdump $(O)/libipt-ptdump || \
		echo "bench: libipt's ptdump not built, bench_ptdump falls back to its model"
	@scripts/build-libxdc $(O)/libxdc || \
		echo "bench: libxdc not built, bench_ptcov compares with libipt only"
	@set -e; for b in $(BENCH_BINS); do echo "== $$b"; O=$(O) $$b; done

-include $(ALL_OBJS:.o=.d)

# ---- install --------------------------------------------------------------
INSTALL ?= install
# The udev rule for /dev/pt's group (packaging/udev, Documentation/pt.rst).
UDEVRULESDIR ?= /usr/lib/udev/rules.d
# The public API only (the fragments' HEADERS and what they include), all
# under $(INCDIR)/lwpt: the ABI headers include/uapi/lwpt/*.h become
# lwpt/uapi/*.h (the includes are rewritten as they are installed), so
# that lwpt claims one directory, not a generic uapi/ beside the system's.
INSTALL_HEADERS := $(sort $(HEADERS) include/lwpt/compiler.h)
INSTALL_UAPI := $(wildcard include/uapi/lwpt/*.h)
# The man pages of section 3 list their functions under NAME: each gets a
# link page (man lwp_read -> liblwp(3)).
MAN_LINKS = $(shell sed -n '/^\.SH NAME/,/\\-/p' $(1) | sed '1d; s/\\-.*//' | tr ',' ' ')

# lib<name>.pc for every library; $(1) = name.
define PC_template
$(O)/pkgconfig/lib$(1).pc: Makefile
	@mkdir -p $$(@D)
	@printf '%s\n' \
		'prefix=$(PREFIX)' \
		'libdir=$(LIBDIR)' \
		'includedir=$(INCDIR)' \
		'' \
		'Name: lib$(1)' \
		'Description: $(or $($(1)_DESCRIPTION),lwpt lib$(1))' \
		'Version: $(VERSION)' \
		'Libs: -L$$$${libdir} -l$(1)' \
		'Libs.private: $(strip $(filter-out -Wl%,$($(1)_LDLIBS)))' \
		'Cflags: -I$$$${includedir}' > $$@
PC_FILES += $(O)/pkgconfig/lib$(1).pc
endef
PC_FILES :=
$(foreach l,$(LIBS),$(eval $(call PC_template,$(l))))

# lib<name>.so.<SOVERSION>.<minor>.<patch> (real file), lib<name>.so.<SOVERSION>
# (the soname) and lib<name>.so (for -l<name>) -> soname; $(1) = name.
space := $(subst ,, )
VERSION_TAIL := $(subst $(space),.,$(wordlist 2,3,$(subst ., ,$(VERSION))))
define LIB_INSTALL
$(INSTALL) -m 644 $(O)/lib/lib$(1).a $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 755 $(O)/lib/lib$(1).so.$($(1)_SOVERSION) \
		$(DESTDIR)$(LIBDIR)/lib$(1).so.$($(1)_SOVERSION).$(VERSION_TAIL)
	ln -sf lib$(1).so.$($(1)_SOVERSION).$(VERSION_TAIL) $(DESTDIR)$(LIBDIR)/lib$(1).so.$($(1)_SOVERSION)
	ln -sf lib$(1).so.$($(1)_SOVERSION) $(DESTDIR)$(LIBDIR)/lib$(1).so
	
endef

install: all $(PC_FILES)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(foreach l,$(LIBS),$(call LIB_INSTALL,$(l)))
	$(INSTALL) -d $(DESTDIR)$(INCDIR)/lwpt/uapi
	@set -e; for h in $(INSTALL_HEADERS); do \
		sed 's|#include <uapi/lwpt/|#include <lwpt/uapi/|' $$h > $(DESTDIR)$(INCDIR)/lwpt/$${h##*/}; \
		chmod 644 $(DESTDIR)$(INCDIR)/lwpt/$${h##*/}; \
	done
	$(INSTALL) -m 644 $(INSTALL_UAPI) $(DESTDIR)$(INCDIR)/lwpt/uapi/
	$(if $(PC_FILES),$(INSTALL) -m 644 $(PC_FILES) $(DESTDIR)$(PKGCONFIGDIR)/)
	$(if $(TOOL_BINS),$(INSTALL) -m 755 $(TOOL_BINS) $(DESTDIR)$(BINDIR)/)
	@set -e; for m in $(MANPAGES); do \
		s=$${m##*.}; \
		$(INSTALL) -d $(DESTDIR)$(MANDIR)/man$$s; \
		$(INSTALL) -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; \
	done
	@set -e; $(foreach m,$(filter %.3,$(MANPAGES)),for f in $(call MAN_LINKS,$(m)); do \
		[ $$f = $(basename $(notdir $(m))) ] || \
		echo '.so man3/$(notdir $(m))' > $(DESTDIR)$(MANDIR)/man3/$$f.3; done;)
	$(INSTALL) -D -m 644 packaging/udev/60-lwpt.rules $(DESTDIR)$(UDEVRULESDIR)/60-lwpt.rules

# Everything install put there, and the directories it made if now empty.
uninstall:
	rm -f $(foreach l,$(LIBS),$(addprefix $(DESTDIR)$(LIBDIR)/lib$(l),.a .so \
		.so.$($(l)_SOVERSION) .so.$($(l)_SOVERSION).$(VERSION_TAIL)))
	rm -f $(addprefix $(DESTDIR)$(INCDIR)/lwpt/,$(notdir $(INSTALL_HEADERS))) \
		$(addprefix $(DESTDIR)$(INCDIR)/lwpt/uapi/,$(notdir $(INSTALL_UAPI)))
	rm -f $(addprefix $(DESTDIR)$(PKGCONFIGDIR)/,$(notdir $(PC_FILES))) \
		$(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOL_BINS)))
	rm -f $(foreach m,$(MANPAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
	rm -f $(foreach m,$(filter %.3,$(MANPAGES)),$(patsubst %,$(DESTDIR)$(MANDIR)/man3/%.3,$(call MAN_LINKS,$(m))))
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-lwpt.rules
	-rmdir $(DESTDIR)$(INCDIR)/lwpt/uapi $(DESTDIR)$(INCDIR)/lwpt 2>/dev/null

# The module source for DKMS (dkms.conf): kmod/, include/ and model/ sources
# only, no build outputs, tests or tools.
DKMS_SRC ?= /usr/src/lwpt-$(VERSION)
install-dkms:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	$(INSTALL) -d $(DESTDIR)$(DKMS_SRC)
	$(INSTALL) -m 644 dkms.conf $(DESTDIR)$(DKMS_SRC)/
	$(INSTALL) -D -m 755 packaging/dkms/post-install $(DESTDIR)$(DKMS_SRC)/packaging/dkms/post-install
	$(INSTALL) -D -m 644 packaging/udev/60-lwpt.rules $(DESTDIR)$(DKMS_SRC)/packaging/udev/60-lwpt.rules
	@set -e; for f in $$(find kmod include model -type f \( -name '*.[ch]' -o -name Kbuild \
		-o -name Kbuild.inc -o -name Makefile \) ! -name '*.mod.c' | sort); do \
		$(INSTALL) -D -m 644 $$f $(DESTDIR)$(DKMS_SRC)/$$f; \
	done

clean:
	rm -rf build
	-$(MAKE) -C kmod clean
