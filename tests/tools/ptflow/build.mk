# SPDX-License-Identifier: GPL-2.0
# Tests of tools/ptflow.

UNIT_TESTS += test_ptflow_decode
test_ptflow_decode_SRCS := tests/tools/ptflow/test_ptflow_decode.c \
	tools/ptflow/ptflow_decode.c tools/ptflow/ptflow_image.c \
	tools/ptflow/ptflow_disasm.c tools/ptflow/ptflow_sym.c tools/ptflow/ptflow_debuginfo.c \
	tools/ptflow/ptflow_time.c tools/ptflow/ptflow_calls.c \
	tools/ptflow/ptflow_report.c tools/ptflow/ptflow_chrome.c \
	tools/ptflow/ptflow_resume.c
test_ptflow_decode_LIBS := pt
test_ptflow_decode_LDLIBS := -lipt -lcapstone -ldw -lelf

SCRIPT_TESTS += tests/tools/ptflow/ptflow.sh

# ptflow on kAFL's real traces as perf.data (issue 34): instructions, kernel
# modules as files, calls, symbols.
SCRIPT_TESTS += tests/tools/ptflow/kafl_perf.sh

# --engine=lwpt against --engine=libipt, byte for byte, on the same real
# traces (perf.data and raw with page caches; issue 34 point 1).
SCRIPT_TESTS += tests/tools/ptflow/ptflow_engine.sh

# ptflow -j N on the lwpt engine: -j 4 and -j 7 against -j 1, byte for
# byte, chunks cut at every PSB and larger (issue 34 point 3).
SCRIPT_TESTS += tests/tools/ptflow/ptflow_jobs.sh

# ptflow on a `format bts` capture directory written from the BTS model's
# trace of trace_flow_prog (test_bts_flow --write-capture), against
# single-stepping (issue 37 point 3).
SCRIPT_TESTS += tests/tools/ptflow/ptflow_bts.sh
SCRIPT_TESTS += tests/tools/ptflow/ptflow_bts_cpu.sh

# Splitting a system-wide capture by thread (issue 15 point 5).
UNIT_TESTS += test_ptflow_split
test_ptflow_split_SRCS := tests/tools/ptflow/test_ptflow_split.c \
	tools/ptflow/ptflow_split.c
test_ptflow_split_LIBS := pt

# Resuming the flow at the next span after a skipped one (ptflow_resume.h).
UNIT_TESTS += test_ptflow_resume
test_ptflow_resume_SRCS := tests/tools/ptflow/test_ptflow_resume.c \
	tools/ptflow/ptflow_resume.c
test_ptflow_resume_LIBS := pt

# ptflow's line formatter (tools/ptflow/ptflow_line.h) against printf.
UNIT_TESTS += test_ptflow_line
test_ptflow_line_SRCS := tests/tools/ptflow/test_ptflow_line.c

# ptflow's views against single-stepping (issue 15): needs the PT
# generator's flow test (its traces) and the VM's ground-truth program,
# built here for the host without sanitizer (it only runs ptrace).
SCRIPT_TESTS += tests/tools/ptflow/ptflow_calls.sh
$(O)/tests/test_ptflow_views: $(O)/tests/pt_flow_gt
$(O)/tests/pt_flow_gt: tests/vm/progs/pt_flow_gt.c
	@mkdir -p $(@D)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -o $@ $<

UNIT_TESTS += test_ptflow_views
test_ptflow_views_SRCS := tests/tools/ptflow/test_ptflow_views.c \
	tools/ptflow/ptflow_sym.c tools/ptflow/ptflow_debuginfo.c tools/ptflow/ptflow_time.c \
	tools/ptflow/ptflow_calls.c tools/ptflow/ptflow_report.c \
	tools/ptflow/ptflow_chrome.c tools/ptflow/ptflow_jit.c \
	tools/ptflow/ptflow_image.c tools/lwpt-jitdemo/jit_dump.c
# libpt: ptcap_file_open() (the jitdump and perf map readers)
test_ptflow_views_LIBS := pt
test_ptflow_views_LDLIBS := -lipt -ldw -lelf -ldl

# A flow engine's block handed to the call tracker whole
# (ptflow_calls_block()) against its instructions one by one.
UNIT_TESTS += test_ptflow_calls_block
test_ptflow_calls_block_SRCS := tests/tools/ptflow/test_ptflow_calls_block.c \
	tools/ptflow/ptflow_sym.c tools/ptflow/ptflow_debuginfo.c tools/ptflow/ptflow_time.c \
	tools/ptflow/ptflow_calls.c tools/ptflow/ptflow_report.c \
	tools/ptflow/ptflow_chrome.c
test_ptflow_calls_block_LDLIBS := -ldw -lelf

# Symbol lookups per second, with and without the last-symbol cache.
BENCHES += bench_ptflow_sym
bench_ptflow_sym_SRCS := tests/tools/ptflow/bench_ptflow_sym.c \
	tools/ptflow/ptflow_sym.c tools/ptflow/ptflow_debuginfo.c
bench_ptflow_sym_LDLIBS := -ldw -lelf -ldl

# libFuzzer target of ptflow's decoder (Makefile "FUZZERS"): the real
# traces over mruby's page cache, the listing and the --calls/--report views.
FUZZERS += fuzz_flow
fuzz_flow_SRCS := tests/tools/ptflow/fuzz_flow.c tools/ptflow/ptflow_decode.c \
	tools/ptflow/ptflow_image.c tools/ptflow/ptflow_disasm.c \
	tools/ptflow/ptflow_sym.c tools/ptflow/ptflow_debuginfo.c tools/ptflow/ptflow_time.c \
	tools/ptflow/ptflow_calls.c tools/ptflow/ptflow_report.c \
	tools/ptflow/ptflow_chrome.c tools/ptflow/ptflow_resume.c \
	$(sort $(wildcard libpt/*.c)) model/x86/x86_cofi.c
fuzz_flow_LDLIBS := -lipt -lcapstone -ldw -lelf -lzstd
fuzz_flow_SEEDS := $(wildcard $(LWPT_SHARED)/testdata/pt/real/libxdc/*.pt)
fuzz_flow_MAXLEN := 4096

# Build-ids (issue 35 "Errors"): a capture whose binary was rebuilt since
# is refused with both ids, the words ptcov uses (libpt's verdict); --force
# decodes; perf.data through libpt's code lookup.
SCRIPT_TESTS += tests/tools/ptflow/ptflow_buildid.sh

# The `lwpt-lbr 1` reader of ptflow's last branches (issue 37).
UNIT_TESTS += test_ptflow_lbr
test_ptflow_lbr_SRCS := tests/tools/ptflow/test_ptflow_lbr.c tools/ptflow/ptflow_lbr.c \
	tools/ptflow/ptflow_sym.c tools/ptflow/ptflow_debuginfo.c
test_ptflow_lbr_LDLIBS := -ldw -lelf
