# SPDX-License-Identifier: GPL-2.0
# Tests of libpt's packet decoder (issue 8). Shared test data is found at
# ../shared (or $LWPT_SHARED); tests that need it skip with a message.
UNIT_TESTS += test_pt_pkt
test_pt_pkt_SRCS := tests/libpt/test_pt_pkt.c
test_pt_pkt_LIBS := pt
test_pt_pkt_LDLIBS := -lipt

# libFuzzer targets (Makefile "FUZZERS"; Documentation/testing.rst,
# "Fuzzing"), each seeded from $(LWPT_SHARED) (default ../shared).
# The packet decoder: the real and libipt conformance traces.
FUZZERS += fuzz_pkt
fuzz_pkt_SRCS := tests/libpt/fuzz_pkt.c $(sort $(wildcard libpt/pkt_*.c))
fuzz_pkt_LDLIBS := -lipt
fuzz_pkt_SEEDS := $(wildcard $(LWPT_SHARED)/testdata/pt/real/*/*.pt \
			     $(LWPT_SHARED)/testdata/pt/libipt-ptt/*.pt)
fuzz_pkt_MAXLEN := 65536

# The capture directory's text files (config, maps, switches, processes).
FUZZERS += fuzz_ptcap_dir
fuzz_ptcap_dir_SRCS := tests/libpt/fuzz_ptcap_dir.c libpt/ptcap_dir.c \
	libpt/ptcap_file.c
fuzz_ptcap_dir_SEEDS := $(wildcard $(LWPT_SHARED)/repro/inputs/ptcap-*/*)
fuzz_ptcap_dir_MAXLEN := 16384

# The coverage decoder's code loaders: page caches and `maps` files.
FUZZERS += fuzz_cov_image
fuzz_cov_image_SRCS := tests/libpt/fuzz_cov_image.c libpt/cov_image.c \
	libpt/ptcap_dir.c libpt/ptcap_file.c
fuzz_cov_image_LDLIBS := -lelf
fuzz_cov_image_SEEDS := $(wildcard $(LWPT_SHARED)/repro/inputs/ptcap-*/maps*)
fuzz_cov_image_MAXLEN := 65536

# The coverage decoder over mruby's page cache, and the flow engine
# (lwpt/pt_flow.h) on the same inputs.
FUZZERS += fuzz_cov
fuzz_cov_SRCS := tests/libpt/fuzz_cov.c libpt/cov_decode.c libpt/cov_image.c \
	libpt/cov_map.c libpt/cov_insn.c libpt/flow_decode.c libpt/flow_ahead.c \
	libpt/ptcap_dir.c \
	libpt/ptcap_file.c \
	$(sort $(wildcard libpt/pkt_*.c)) \
	model/x86/x86_cofi.c
fuzz_cov_LDLIBS := -lelf
fuzz_cov_SEEDS := $(wildcard $(LWPT_SHARED)/testdata/pt/real/libxdc/*.pt)
fuzz_cov_MAXLEN := 16384

# Every fuzzer for 30 seconds with every `make check-unit`.
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

# The capture source (include/lwpt/capture_src.h): a ptcap directory, and a
# perf.data read in place against the directory lpt_perf_write_ptcap()
# writes from it.
UNIT_TESTS += test_capture_src
test_capture_src_SRCS := tests/libpt/test_capture_src.c
test_capture_src_LIBS := pt
test_capture_src_LDLIBS := -lelf -lzstd

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

# libFuzzer target of the perf.data reader: the perf 4.14 recordings,
# kAFL's perf.data files, the hostile inputs of ../shared/repro and
# tests/libpt/seeds (intel_bts perf.data in file and pipe format: pt2perf
# of 40 records of the BTS model's trace with a gap, maps naming /bin/true).
FUZZERS += fuzz_perf
fuzz_perf_SRCS := tests/libpt/fuzz_perf.c libpt/perf_read.c libpt/perf_dir.c \
	libpt/perf_hash.c libpt/ptcap_file.c libpt/capture_src.c libpt/capsrc_dir.c \
	libpt/capsrc_perf.c libpt/perf_model.c libpt/perf_code.c libpt/ptcap_dir.c
fuzz_perf_LDLIBS := -lzstd -lelf
fuzz_perf_SEEDS := $(wildcard $(LWPT_SHARED)/testdata/perf/perf.data.*intel_pt-4.14 \
			      $(LWPT_SHARED)/testdata/perf/kafl/*.perf.data \
			      $(LWPT_SHARED)/repro/inputs/perf-*.data) \
		   $(wildcard tests/libpt/seeds/*.perf.data)
fuzz_perf_MAXLEN := 2500000

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

# The flow engine (libpt/flow_decode.c, include/lwpt/pt_flow.h, issue 34
# point 1) against libipt's instruction flow on the real traces.
UNIT_TESTS += test_pt_flow
test_pt_flow_SRCS := tests/libpt/test_pt_flow.c tests/libpt/cov_ref.c \
	tests/libpt/real_traces.c
test_pt_flow_LIBS := pt
test_pt_flow_LDLIBS := -lipt

# The flow engine against libipt's pt_insn_next() in one process on the
# real mruby trace (issue 34 point 1): cold and warm block cache.
BENCHES += bench_pt_flow
bench_pt_flow_SRCS := tests/libpt/bench_pt_flow.c tests/libpt/cov_ref.c
bench_pt_flow_LIBS := pt
bench_pt_flow_LDLIBS := -lipt

# lwpt/pt_chunk.h: chunks cut at PSBs, the ordered thread pool (issue 34
# point 3).
UNIT_TESTS += test_pt_chunk
test_pt_chunk_SRCS := tests/libpt/test_pt_chunk.c
test_pt_chunk_LIBS := pt
test_pt_chunk_LDLIBS := -lpthread

# The BTS decoder (libpt/bts_decode.c, include/lwpt/bts_decode.h, issue 37
# point 3) on synthetic code and records; against single-stepping in
# tests/model/bts/test_bts_flow.c.
UNIT_TESTS += test_bts_decode
test_bts_decode_SRCS := tests/libpt/test_bts_decode.c
test_bts_decode_LIBS := pt
