# Unit tests of the LWP model (issue 3). Expectations come from 43724.
UNIT_TESTS += test_lwp_xop test_lwp_model
test_lwp_xop_SRCS := tests/model/lwp/test_lwp_xop.c $(LWP_MODEL_SRCS)
test_lwp_model_SRCS := tests/model/lwp/test_lwp_model.c tests/model/lwp/lwp_test_env.c \
	tests/model/lwp/lwp_test_check.c $(LWP_MODEL_SRCS)
# Regenerates the GNU as table and compares it with the checked-in copy.
SCRIPT_TESTS += tests/model/lwp/xop_cases.sh
# Prints ns/operation of the model's hot paths (make bench). Benches are
# not linked with Check: only the plain lwp_test_env.c, never
# lwp_test_check.c.
BENCHES += bench_lwp_model
bench_lwp_model_SRCS := tests/model/lwp/bench_lwp_model.c tests/model/lwp/lwp_test_env.c \
	$(LWP_MODEL_SRCS)
UNIT_TESTS += test_lwp_spec_review
test_lwp_spec_review_SRCS := tests/model/lwp/test_lwp_spec_review.c tests/model/lwp/lwp_test_env.c \
	tests/model/lwp/lwp_test_check.c $(LWP_MODEL_SRCS)
