SCRIPT_TESTS += tests/include/headers.sh
