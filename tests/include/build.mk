SCRIPT_TESTS += tests/include/headers.sh

# The uapi sizes and version boundaries pinned with literal numbers.
UNIT_TESTS += test_uapi_layout
test_uapi_layout_SRCS := tests/include/test_uapi_layout.c
