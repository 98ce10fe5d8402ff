# tests/kmod: host-side checks of kmod/ (the module itself is tested in the
# VM, tests/vm).
SCRIPT_TESTS += tests/kmod/shared_objects.sh

# The kernel version gate of LWP (kmod/lwp/lwp_kver.h, issue 38 §3).
UNIT_TESTS += test_lwp_kver
test_lwp_kver_SRCS := tests/kmod/lwp/test_lwp_kver.c
