# SPDX-License-Identifier: GPL-2.0
# ptcov and libpt's coverage decoder (issue 25): exactness against
# libipt's instruction flow (tests/libpt/cov_ref.c), libxdc's published
# hashes, synthetic traces, a mutation loop, the tool's CLI; and the
# benchmark against libxdc and libipt's block decoder.
UNIT_TESTS += test_pt_cov
test_pt_cov_SRCS := tests/tools/ptcov/test_pt_cov.c tests/libpt/cov_ref.c
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
PT_STEP_TRACE_SRCS := tests/tools/ptcov/pt_step_trace.c $(sort $(wildcard model/pt/trace*.c)) \
	model/x86/x86_cofi.c model/pt/pt_model.c model/pt/pt_profiles.c
COV_PROG_SRCS := tests/tools/ptcov/progs/cov_prog.c tests/tools/ptcov/progs/cov_prog2.c
$(O)/tests/pt_step_trace: $(PT_STEP_TRACE_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $(PT_STEP_TRACE_SRCS)
check-unit: $(O)/tests/pt_step_trace
