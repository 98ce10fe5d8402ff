# tests/kmod: host-side checks of kmod/ (the module itself is tested in the
# VM, tests/vm).
SCRIPT_TESTS += tests/kmod/shared_objects.sh
