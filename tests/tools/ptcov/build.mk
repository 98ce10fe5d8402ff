# SPDX-License-Identifier: GPL-2.0
# ptcov and libpt's coverage decoder (issue 25): exactness against
# libipt's instruction flow (tests/libpt/cov_ref.c), libxdc's published
# hashes, synthetic traces, a mutation loop, the tool's CLI; and the
# benchmark against libxdc and libipt's block decoder.
UNIT_TESTS += test_pt_cov
test_pt_cov_SRCS := tests/tools/ptcov/test_pt_cov.c tests/libpt/cov_ref.c \
	tests/libpt/real_traces.c tools/ptcov/cov_flow.c tools/ptcov/cov_merge.c \
	tools/ptcov/cov_strtab.c
test_pt_cov_LIBS := pt
test_pt_cov_LDLIBS := -lipt

SCRIPT_TESTS += tests/tools/ptcov/ptcov.sh

BENCHES += bench_ptcov
bench_ptcov_SRCS := tests/tools/ptcov/bench_ptcov.c tests/libpt/cov_ref.c
bench_ptcov_LIBS := pt
bench_ptcov_LDLIBS := -lipt -ldl

# lcov and drcov output (issue 35): a host test that traces a program
# without PT hardware (pt_step_trace: ptrace single-stepping fed to the
# model's packet generator) and compares ptcov's lcov with gcov's counts
# of the same runs (the program built -O0 -g --coverage), the -O2 build's
# lines with its DWARF table, drcov's layout and blocks.
SCRIPT_TESTS += tests/tools/ptcov/ptcov_lcov.sh
PT_STEP_TRACE_SRCS := tests/tools/ptcov/pt_step_trace.c tests/model/step_trace.c $(sort $(wildcard model/pt/trace*.c)) \
	model/x86/x86_cofi.c model/pt/pt_model.c model/pt/pt_profiles.c
COV_PROG_SRCS := tests/tools/ptcov/progs/cov_prog.c tests/tools/ptcov/progs/cov_prog2.c
# its maps record build-ids as ptcap's do (tools/ptcap/buildid.c: libpt, libelf)
PT_STEP_TRACE_SRCS += tools/ptcap/buildid.c
$(O)/tests/pt_step_trace: $(PT_STEP_TRACE_SRCS) $(O)/lib/libpt.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $(PT_STEP_TRACE_SRCS) $(O)/lib/libpt.a -lelf
check-unit: $(O)/tests/pt_step_trace

# Build-ids (issue 35 "Errors"): a capture whose binary was rebuilt since
# is refused with both ids (ptcap directory and perf.data); --force; a
# capture without build-ids reads as before.
SCRIPT_TESTS += tests/tools/ptcov/ptcov_buildid.sh

# The same comparison in the VM under ptcap on lwpt_sim.ko
# (tests/vm/cases/86-ptcov-lcov.sh): the program built -O0 --coverage,
# static, run here on the VM case's five inputs for gcov's counts (the
# program is deterministic: the VM runs the same flow), which gcov_compare
# --expect writes as records the case compares ptcov's lcov with.
VM_BINS += $(O)/vm-cov/cov_prog $(O)/vm-cov/cov_prog.expect
$(O)/vm-cov/cov_prog: $(COV_PROG_SRCS)
	@mkdir -p $(@D)
	cd $(@D) && $(CC) -O0 -g --coverage -static -no-pie -o cov_prog $(abspath $(COV_PROG_SRCS))
$(O)/vm-cov/cov_prog.expect: $(O)/vm-cov/cov_prog tests/tools/ptcov/gcov_compare.py
	cd $(@D) && rm -f ./*.gcda ./*.gcov.json ./*.gcov.json.gz && \
	{ ./cov_prog abc12; ./cov_prog ''; ./cov_prog a-b9; ./cov_prog x y; ./cov_prog zz; } \
		>/dev/null; \
	gcov -b -c --json-format cov_prog-cov_prog.gcda cov_prog-cov_prog2.gcda >/dev/null && \
	gunzip -f ./*.gcov.json.gz && \
	python3 $(abspath tests/tools/ptcov/gcov_compare.py) --expect \
		$(abspath tests/tools/ptcov/progs) ./*.gcov.json > cov_prog.expect.tmp && \
	mv cov_prog.expect.tmp cov_prog.expect

# What lcov and drcov cost beside --edges (issue 35 "Targets").
BENCHES += bench_ptcov_lcov
bench_ptcov_lcov_SRCS := tests/tools/ptcov/bench_ptcov_lcov.c tools/ptcov/cov_flow.c \
	tools/ptcov/cov_module.c tools/ptcov/cov_lcov.c tools/ptflow/ptflow_debuginfo.c \
	tools/ptcov/cov_drcov.c \
	tools/ptcov/cov_merge.c tools/ptcov/cov_strtab.c
bench_ptcov_lcov_LIBS := pt
bench_ptcov_lcov_LDLIBS := -ldw -lelf -lzstd
$(O)/bench/bench_ptcov_lcov: $(O)/vm-cov/cov_prog $(O)/tests/pt_step_trace
