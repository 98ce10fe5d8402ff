# SPDX-License-Identifier: GPL-2.0
#
# Helpers for in-VM test cases (tests/vm/cases/*, tests/vm/demo/*). A case
# is any executable; a shell case sources this file:
#   . /lwpt/lib.sh
# and exits 0 on success. Modules are in /lwpt/kmod, tools in /bin.

LWPT_KMOD=/lwpt/kmod

# Kernel log lines that fail a test run: warnings, bugs, oopses, GPFs, RCU
# stalls, lockdep reports, panics, sanitizer reports.
LWPT_BAD_KERNEL_RE='WARNING:|BUG:|Oops|general protection fault|detected stall|rcu_sched self-detected|possible circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|bad unlock balance|lock held when returning|Kernel panic|kernel BUG|UBSAN:|KASAN:|list_add corruption|list_del corruption|refcount_t:'

# Filter: print the bad lines of the kernel log read on stdin.
lwpt_bad_kernel_lines() {
	grep -a -E "$LWPT_BAD_KERNEL_RE"
}

# Print a failure and return 1: `cond || fail "why"`.
fail() {
	echo "FAIL: $*"
	return 1
}

# Print a success line.
ok() {
	echo "ok: $*"
}

# Number of kernel log lines now; pass it to dmesg_since.
dmesg_mark() {
	dmesg | wc -l
}

# Kernel log lines after mark $1.
dmesg_since() {
	dmesg | tail -n +$(($1 + 1))
}

# The kernel's own notes on loading an out-of-tree, unsigned module (first
# load of a boot only); not lines lwpt printed.
lwpt_strip_taint_notes() {
	grep -v -E 'loading out-of-tree module taints kernel|module verification failed: signature'
}

# Is module $1 loaded?
module_loaded() {
	grep -q "^$1 " /proc/modules
}

# The spec-violation count of lwpt_sim.ko (debugfs).
sim_violations() {
	cat /sys/kernel/debug/lwpt_sim/violations
}
