# tests/vm: programs built static for the VM's initramfs (see the VM_PROGS
# block of the top-level Makefile; every VM_PROGS binary lands in /bin).
VM_PROGS += lwpt_vmtool
lwpt_vmtool_SRCS := tests/vm/progs/lwpt_vmtool.c
VM_PROGS += lwp_test
lwp_test_SRCS := tests/vm/progs/lwp_test.c
lwp_test_LDLIBS := -lpthread
VM_PROGS += pt_test
pt_test_SRCS := tests/vm/progs/pt_test.c
pt_test_LIBS := pt
pt_test_LDLIBS := -lpthread
VM_PROGS += liblwp_test
liblwp_test_SRCS := tests/vm/progs/liblwp_test.c
liblwp_test_LIBS := lwp
liblwp_test_LDLIBS := -lpthread
# ptcap's VM cases (tests/vm/cases/8x-ptcap-*.sh): a program to trace and
# a checker of the sim's injected byte pattern in saved trace files.
VM_PROGS += ptcap_hello
ptcap_hello_SRCS := tests/vm/progs/ptcap_hello.c
ptcap_hello_LDLIBS := -lpthread
VM_PROGS += ptcap_pattern
ptcap_pattern_SRCS := tests/vm/progs/ptcap_pattern.c
VM_PROGS += pt_pingpong
pt_pingpong_SRCS := tests/vm/progs/pt_pingpong.c
# 62-pt-exec.sh (issue 5 point 6): the ground truth of a program's flow by
# ptrace single-stepping, and the deterministic program it is taken of
# (the host flow test's, tests/model/pt/progs/).
VM_PROGS += pt_flow_gt
pt_flow_gt_SRCS := tests/vm/progs/pt_flow_gt.c
VM_PROGS += trace_flow_prog
trace_flow_prog_SRCS := tests/model/pt/progs/trace_flow_prog.c
# 64-pt-pmi.sh (issue 12): a program whose trace is many buffers long.
VM_PROGS += pt_flow_long
pt_flow_long_SRCS := tests/vm/progs/pt_flow_long.c
