// SPDX-License-Identifier: GPL-2.0
/* Helpers of the LWP model tests that assert with Check (lwp_test_check.h). */
#include "tests/model/lwp/lwp_test_check.h"

struct test_env *env_started(const struct lwp_model_profile *p, uint32_t flags,
			     uint32_t records)
{
	struct test_env *e = env_new(p);

	env_lwpcb(e, ENV_LWPCB, flags, records * 32, ENV_RING);
	OK(lwp_model_llwpcb(&e->m, ENV_LWPCB, 64));
	return e;
}
