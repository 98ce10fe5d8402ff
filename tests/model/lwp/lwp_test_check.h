/* SPDX-License-Identifier: GPL-2.0 */
/* The Check side of the LWP model tests: assertions on model results and
 * helpers that assert. Unit tests only (they link Check); the benchmark
 * uses lwp_test_env.h alone. */
#ifndef LWPT_TESTS_LWP_TEST_CHECK_H
#define LWPT_TESTS_LWP_TEST_CHECK_H

#include <check.h>

#include "tests/model/lwp/lwp_test_env.h"

/* Check assertions on a model result: no exception, or exception @e. */
#define OK(r)		ck_assert_msg((r).exc == LWP_MODEL_EXC_NONE, "unexpected %s", \
				      lwp_model_exc_str((r).exc))
#define IS(r, e)	ck_assert_msg((r).exc == (e), "got %s, want %s", \
				      lwp_model_exc_str((r).exc), lwp_model_exc_str(e))

/* env_new() plus an LWPCB at ENV_LWPCB with @flags and a ring of @records
 * records at ENV_RING, loaded with LLWPCB (asserted to succeed). */
struct test_env *env_started(const struct lwp_model_profile *p, uint32_t flags,
			     uint32_t records);

#endif
