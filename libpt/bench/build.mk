# SPDX-License-Identifier: GPL-2.0
# Benchmark: libpt packet decoding vs libipt's pt_pkt_decoder (issue 8).
# Figures are recorded in Documentation/performance.rst.
BENCHES += bench_pt_pkt
bench_pt_pkt_SRCS := libpt/bench/bench_pt_pkt.c
bench_pt_pkt_LIBS := pt
bench_pt_pkt_LDLIBS := -lipt
