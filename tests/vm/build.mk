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
# 84-ptcap-snap.sh: is a snapshot's flow a contiguous part of the ground truth?
VM_PROGS += pt_flow_sub
pt_flow_sub_SRCS := tests/vm/progs/pt_flow_sub.c
VM_PROGS += trace_flow_prog
trace_flow_prog_SRCS := tests/model/pt/progs/trace_flow_prog.c
# 83-ptcap-filter.sh: ptcap_hello built position-independent and dynamic
# (the default of Debian's gcc), for symbolic filters at its load address
# and in the C library; tests/vm/run copies its shared libraries.
VM_BINS += $(O)/vm-pie/ptcap_hello_pie
$(O)/vm-pie/ptcap_hello_pie: tests/vm/progs/ptcap_hello.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIE -pie -o $@ $< -lpthread
# Both runs of a flow comparison without ASLR (setarch -R).
VM_PROGS += norandom
norandom_SRCS := tests/vm/progs/norandom.c
# 64-pt-ptw-cyc.sh: a program that executes PTWRITE (SDM 33.2.2).
VM_PROGS += pt_ptwrite
pt_ptwrite_SRCS := tests/vm/progs/pt_ptwrite.c
# 64-pt-suid.sh (issue 13 point 1): a set-user-ID victim linked away from
# the other programs' text (0x400000), and the unprivileged attacker that
# traces it and decodes what it got.
VM_PROGS += pt_victim
pt_victim_SRCS := tests/vm/progs/pt_victim.c
pt_victim_LDLIBS := -lpthread -Wl,-Ttext-segment=0x30000000
VM_PROGS += pt_sec
pt_sec_SRCS := tests/vm/progs/pt_sec.c
pt_sec_LIBS := pt
# 64-pt-suid.sh (i) (issue 39 point 2): a root process one of whose threads
# drops to uid 1000 with the raw system call.
VM_PROGS += pt_mixcred
pt_mixcred_SRCS := tests/vm/progs/pt_mixcred.c
pt_mixcred_LDLIBS := -lpthread

# The CPU selection of a per-CPU capture through raw ioctls (85-ptcap-cpus).
VM_PROGS += pt_cpus
pt_cpus_SRCS := tests/vm/progs/pt_cpus.c
# 66-pt-fork.sh (issue 16 point 2): a program that forks once.
VM_PROGS += pt_fork_prog
pt_fork_prog_SRCS := tests/vm/progs/pt_fork_prog.c
# 68-pt-notif.sh (issue 12 item 2.4): per-thread state loaded by each
# thread's preempt notifier; its lifetime against rmmod.
VM_PROGS += pt_notif
pt_notif_SRCS := tests/vm/progs/pt_notif.c
pt_notif_LDLIBS := -lpthread
# 81-ptflow-sys.sh (issue 15 point 5): run a program stopped at its exec.
VM_PROGS += pt_held
pt_held_SRCS := tests/vm/progs/pt_held.c
# 64-pt-pmi.sh (issue 12): a program whose trace is many buffers long.
VM_PROGS += pt_flow_long
pt_flow_long_SRCS := tests/vm/progs/pt_flow_long.c
# 86-pt2perf.sh (issue 24): Debian's perf (linux-perf, scripts/install-deps)
# decodes pt2perf's output in the VM; tests/vm/run copies its libraries.
# Without it installed the case skips.
VM_BINS += $(firstword $(wildcard /usr/bin/perf_6.1 /usr/bin/perf))
# 86-pt2perf.sh's system-wide part: its two programs linked apart from
# each other and from every other static program (0x400000), so that a
# piece perf gives to the wrong process (its time lags behind a switch)
# finds no code there instead of decoding the other's code - which once
# ended in the hlt/jmp loop of abort(), where perf 6.1, sampling every
# instruction, never stops (its never-ending-loop check restarts at each
# sample).
VM_PROGS += pt_sys_a
pt_sys_a_SRCS := tests/model/pt/progs/trace_flow_prog.c
pt_sys_a_LDLIBS := -Wl,-Ttext-segment=0x10000000
VM_PROGS += pt_sys_b
pt_sys_b_SRCS := tests/vm/progs/pt_flow_long.c
pt_sys_b_LDLIBS := -Wl,-Ttext-segment=0x20000000
# 86-ptcov-edges.sh (issue 25): edges from single-stepping, for ptcov.
VM_PROGS += pt_gt_edges
pt_gt_edges_SRCS := tests/vm/progs/pt_gt_edges.c
pt_gt_edges_LIBS := pt
# 86-ptcap-hold.sh (issue 27 section 1): two threads, each with a trace many
# times a small per-thread buffer.
VM_PROGS += pt_flow_threads
pt_flow_threads_SRCS := tests/vm/progs/pt_flow_threads.c
pt_flow_threads_LDLIBS := -lpthread
# 97-bts-ptcap-late.sh (issue 37): a thread created after ptcap --bts -p attached.
VM_PROGS += bts_late
bts_late_SRCS := tests/vm/progs/bts_late.c
bts_late_LDLIBS := -lpthread
# 87-ptcap-hold-sig.sh (issue 39 item 1): the same two threads under timer signals.
VM_PROGS += pt_flow_sig
pt_flow_sig_SRCS := tests/vm/progs/pt_flow_sig.c
pt_flow_sig_LDLIBS := -lpthread
# 88-pt-hold-limit.sh (issue 39 item 3): a reader that waits on its tracee.
VM_PROGS += pt_hold_limit
pt_hold_limit_SRCS := tests/vm/progs/pt_hold_limit.c
# tests/vm/slow/90-lwp-reload.sh (issue 28 §0): the workload of the hang.
VM_PROGS += liblwp_stress
liblwp_stress_SRCS := tests/vm/progs/liblwp_stress.c
liblwp_stress_LIBS := lwp
liblwp_stress_LDLIBS := -lpthread
# 9x-bts-*.sh (issue 37 point 2): /dev/bts captures against ptrace
# single-stepping, and the permission and coexistence rules.
VM_PROGS += bts_test
bts_test_SRCS := tests/vm/progs/bts_test.c model/x86/x86_cofi.c
# 93-lbr-crash.sh (issue 37): the LBR stack at a SIGSEGV against ptrace
# single-stepping, LBR_SNAPSHOT's arguments.
VM_PROGS += lbr_crash
lbr_crash_SRCS := tests/vm/progs/lbr_crash.c model/x86/x86_cofi.c
# 96-bts-perf-take.sh (issue 37): perf takes IA32_DS_AREA in the middle
# of per-thread and per-CPU captures.
VM_PROGS += bts_perf_take
bts_perf_take_SRCS := tests/vm/progs/bts_perf_take.c
