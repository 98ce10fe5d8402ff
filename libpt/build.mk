# SPDX-License-Identifier: GPL-2.0
# libpt: Intel PT capture and packet decoding (issue 8). See
# Documentation/libpt.rst and Documentation/libpt-pkt.rst. Every libpt/*.c
# is part of the library.
LIBS += pt
pt_SRCS := $(sort $(wildcard libpt/*.c))
pt_SOVERSION := 0
pt_LDLIBS := -lelf -lzstd -lpthread -Wl,--version-script=libpt/libpt.map
HEADERS += include/lwpt/pt_pkt.h include/lwpt/pt_packets.h include/lwpt/pebs.h \
	include/lwpt/pt_time.h include/lwpt/ptcap_dir.h \
	include/lwpt/perf_data.h include/lwpt/perf_file.h \
	include/lwpt/perf_write.h include/lwpt/capture_src.h
pt_DESCRIPTION := Intel Processor Trace: capture through /dev/pt (the lwpt module), packet decoder, timing
MANPAGES += libpt/man/libpt.3
# The coverage decoder (issue 25, Documentation/ptcov.rst) classifies
# instructions with the models' x86 COFI decoder.
pt_SRCS += model/x86/x86_cofi.c
HEADERS += include/lwpt/pt_cov.h include/lwpt/pt_flow.h include/lwpt/pt_chunk.h \
	include/lwpt/bts_decode.h
# libpt.so exports only the API libpt.3 documents (tests/packaging/exports.sh).
$(O)/lib/libpt.so.$(pt_SOVERSION): libpt/libpt.map
