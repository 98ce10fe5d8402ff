# SPDX-License-Identifier: GPL-2.0
# Tests of libpt's packet decoder (issue 8). Shared test data is found at
# ../shared (or $LWPT_SHARED); tests that need it skip with a message.
UNIT_TESTS += test_pt_pkt
test_pt_pkt_SRCS := tests/libpt/test_pt_pkt.c
test_pt_pkt_LIBS := pt
test_pt_pkt_LDLIBS := -lipt

# libFuzzer target for the packet decoder (clang). `make fuzz-pkt` builds
# it and runs it for FUZZ_TIME seconds (default 60) on a corpus in
# $(O)/fuzz/corpus-pkt, seeded with the real and libipt conformance traces
# from $(LWPT_SHARED) (default ../shared). Crashes are written to
# $(O)/fuzz/ as crash-*; reproduce with `$(O)/fuzz/fuzz_pkt FILE`.
# FUZZ_ARGS passes more libFuzzer options (e.g. -jobs=4 -workers=4).
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_ARGS ?=
LWPT_SHARED ?= $(abspath ../shared)
FUZZ_PKT_SRCS := tests/libpt/fuzz_pkt.c $(sort $(wildcard libpt/pkt_*.c))
FUZZ_PKT_SEEDS := $(wildcard $(LWPT_SHARED)/testdata/pt/real/*/*.pt \
			     $(LWPT_SHARED)/testdata/pt/libipt-ptt/*.pt)

$(O)/fuzz/fuzz_pkt: $(FUZZ_PKT_SRCS) $(wildcard libpt/pkt_*.h) \
		    include/lwpt/pt_pkt.h include/lwpt/pt_packets.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -std=c11 -Iinclude -I. -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(FUZZ_PKT_SRCS) -lipt

.PHONY: fuzz-pkt
fuzz-pkt: $(O)/fuzz/fuzz_pkt
	@mkdir -p $(O)/fuzz/corpus-pkt $(O)/fuzz/seeds-pkt
	@for f in $(FUZZ_PKT_SEEDS); do \
		cp -n "$$f" $(O)/fuzz/seeds-pkt/ 2>/dev/null || true; done
	@[ -n "$(FUZZ_PKT_SEEDS)" ] || \
		echo "fuzz-pkt: no seeds ($(LWPT_SHARED) missing), empty corpus"
	cd $(O)/fuzz && ./fuzz_pkt -max_total_time=$(FUZZ_TIME) \
		-max_len=65536 -timeout=120 $(FUZZ_ARGS) corpus-pkt seeds-pkt

# A 20-second fuzzing smoke run with every `make check-unit`.
SCRIPT_TESTS += tests/libpt/fuzz_smoke.sh

# The ptcap directory reader (libpt/ptcap_dir.c, include/lwpt/ptcap_dir.h),
# and libpt's lpt_switch_format(): what ptcap writes must parse back.
UNIT_TESTS += test_ptcap_dir
test_ptcap_dir_SRCS := tests/libpt/test_ptcap_dir.c
test_ptcap_dir_LIBS := pt

# The perf.data reader (libpt/perf_*.c, include/lwpt/perf_data.h, issue 24):
# synthetic files from libpt's writer (tests/libpt/perf_fixture.h), the perf 4.14 recordings
# of $(LWPT_SHARED)/testdata/perf compared with Debian's perf, mutations.
UNIT_TESTS += test_perf_read
test_perf_read_SRCS := tests/libpt/test_perf_read.c
test_perf_read_LIBS := pt
test_perf_read_LDLIBS := -lelf -lzstd

# perf.data in directory format (perf record --threads; libpt/perf_dir.c):
# a per-CPU directory built with libpt's writer, checked against Debian's
# perf, and a real perf record --threads where perf can record.
UNIT_TESTS += test_perf_dir
test_perf_dir_SRCS := tests/libpt/test_perf_dir.c
test_perf_dir_LIBS := pt
test_perf_dir_LDLIBS := -lelf -lzstd

# Reading a perf.data against decoding the equivalent ptcap directory
# (issue 24: at most 1.2x), both through ptflow; the input as bench_ptflow's.
BENCHES += bench_perf_read
bench_perf_read_SRCS := tests/libpt/bench_perf_read.c tests/bench/bench_child.c
bench_perf_read_LIBS := pt
bench_perf_read_LDLIBS := -lelf -lzstd
bench: $(O)/tests/test_pt_trace_flow $(O)/bin/ptflow

# A ptcap directory as a perf.data (libpt's writer through
# tests/libpt/perf_fixture.h), for the script test of ptflow and ptdump on
# perf.data.
$(O)/tests/mkperf: tests/libpt/mkperf.c tests/libpt/perf_fixture.h \
		   include/lwpt/perf_file.h include/lwpt/perf_write.h $(O)/lib/libpt.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ tests/libpt/mkperf.c \
		$(O)/lib/libpt.a -lzstd
check-unit: $(O)/tests/mkperf
SCRIPT_TESTS += tests/tools/ptflow/perf_data.sh

# libFuzzer target of the perf.data reader: `make fuzz-perf` runs it for
# FUZZ_TIME seconds on $(O)/fuzz/corpus-perf, seeded with the perf 4.14
# recordings; fuzz_smoke.sh runs both targets briefly.
FUZZ_PERF_SRCS := tests/libpt/fuzz_perf.c libpt/perf_read.c libpt/perf_dir.c \
	libpt/perf_hash.c libpt/ptcap_file.c
FUZZ_PERF_SEEDS := $(wildcard $(LWPT_SHARED)/testdata/perf/perf.data.*intel_pt-4.14)

$(O)/fuzz/fuzz_perf: $(FUZZ_PERF_SRCS) libpt/perf_internal.h \
		     include/lwpt/perf_data.h include/lwpt/perf_file.h
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -std=c11 -Iinclude -I. -D_GNU_SOURCE \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $(FUZZ_PERF_SRCS) -lzstd

.PHONY: fuzz-perf
fuzz-perf: $(O)/fuzz/fuzz_perf
	@mkdir -p $(O)/fuzz/corpus-perf $(O)/fuzz/seeds-perf
	@for f in $(FUZZ_PERF_SEEDS); do \
		cp -n "$$f" $(O)/fuzz/seeds-perf/ 2>/dev/null || true; done
	cd $(O)/fuzz && ./fuzz_perf -max_total_time=$(FUZZ_TIME) \
		-max_len=262144 -timeout=60 -rss_limit_mb=1024 $(FUZZ_ARGS) \
		corpus-perf seeds-perf

# The perf.data writer (libpt/perf_write.c, include/lwpt/perf_write.h,
# issue 24): perf's TSC conversion, the file layout, a round trip through
# libpt's reader.
UNIT_TESTS += test_perf_write
test_perf_write_SRCS := tests/libpt/test_perf_write.c
test_perf_write_LIBS := pt
test_perf_write_LDLIBS := -lelf -lzstd

# The coverage decoder's word-at-a-time scanning (libpt/cov_scan.h).
UNIT_TESTS += test_cov_scan
test_cov_scan_SRCS := tests/libpt/test_cov_scan.c
