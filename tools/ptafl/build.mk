# SPDX-License-Identifier: GPL-2.0
# ptafl: an AFL++ fork server with Intel PT coverage (issue 26).
ifneq ($(filter pt,$(LIBS)),)
TOOLS += ptafl
ptafl_SRCS := tools/ptafl/ptafl.c tools/ptafl/afl_fsrv.c tools/ptafl/ptafl_cov.c \
	tools/ptafl/step.c tools/ptcap/symfilter.c
ptafl_LDLIBS := -lelf -lcapstone
ptafl_LIBS := pt
MANPAGES += tools/ptafl/ptafl.1
endif

ifneq ($(filter pt,$(LIBS)),)
# The fuzz target of ptafl's tests: no C library, static (ptafl_magic.c).
PTAFL_MAGIC_FLAGS := -O1 -static -nostdlib -fno-stack-protector -fno-pie -no-pie \
	-fcf-protection=none -Wall -Wextra -Werror
$(O)/tests/ptafl_magic: tests/tools/ptafl/ptafl_magic.c
	@mkdir -p $(@D)
	$(CC) $(PTAFL_MAGIC_FLAGS) -o $@ $<
check-unit: $(O)/tests/ptafl_magic $(O)/bin/ptafl

# ptafl plays the server to this test's afl-fuzz (tests/tools/ptafl).
UNIT_TESTS += test_ptafl_fsrv
test_ptafl_fsrv_SRCS := tests/tools/ptafl/test_ptafl_fsrv.c tools/ptafl/afl_fsrv.c
endif

ifneq ($(filter pt,$(LIBS)),)
# The command line, and afl-fuzz driving ptafl (tests/tools/ptafl).
SCRIPT_TESTS += tests/tools/ptafl/ptafl.sh
endif

ifneq ($(filter pt,$(LIBS)),)
# tests/vm/slow/92-ptafl-sim.sh: the target and afl-fuzz itself (Debian's
# afl++; tests/vm/run copies its shared libraries).
VM_BINS += $(O)/tests/ptafl_magic $(wildcard /usr/bin/afl-fuzz /usr/bin/afl-showmap)
endif

ifneq ($(filter pt,$(LIBS)),)
# make bench: afl-fuzz's executions per second with ptafl (tests/bench/ptafl.sh).
.PHONY: bench-ptafl
bench-ptafl: $(O)/bin/ptafl $(O)/tests/ptafl_magic
	@echo "== tests/bench/ptafl.sh"
	@O=$(O) tests/bench/ptafl.sh
bench: bench-ptafl
endif

ifneq ($(filter pt,$(LIBS)),)
# A trace the decoder cannot finish is an error for ptafl (tests/tools/ptafl).
UNIT_TESTS += test_ptafl_cov
test_ptafl_cov_SRCS := tests/tools/ptafl/test_ptafl_cov.c tools/ptafl/ptafl_cov.c
test_ptafl_cov_LIBS := pt
endif
