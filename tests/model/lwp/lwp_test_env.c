// SPDX-License-Identifier: GPL-2.0
/* The test address space (lwp_test_env.h); no Check here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/model/lwp/lwp_test_env.h"

static bool env_range(struct test_env *e, uint64_t addr, size_t len, bool write)
{
	uint64_t a;

	if (addr < ENV_BASE || addr + len > ENV_BASE + ENV_SIZE || addr + len < addr)
		return false;
	for (a = addr & ~4095ull; a < addr + len; a += 4096) {
		unsigned int p = (unsigned int)((a - ENV_BASE) / 4096);

		if (e->not_present[p] || (write && e->read_only[p]))
			return false;
	}
	return true;
}

static int env_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct test_env *e = ctx;

	if (!env_range(e, addr, len, false))
		return -EFAULT;
	memcpy(buf, e->mem + (addr - ENV_BASE), len);
	e->reads++;
	return 0;
}

static int env_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct test_env *e = ctx;

	if (!env_range(e, addr, len, true))
		return -EFAULT;
	memcpy(e->mem + (addr - ENV_BASE), buf, len);
	e->writes++;
	return 0;
}

static void env_irq(void *ctx, unsigned int vector)
{
	struct test_env *e = ctx;

	e->irqs++;
	e->last_vector = vector;
}

static void env_violation(void *ctx, const char *section, const char *msg)
{
	struct test_env *e = ctx;

	(void)msg;
	e->violations++;
	snprintf(e->last_section, sizeof(e->last_section), "%s", section);
}

const struct lwp_model_ops env_ops = {
	.read = env_read,
	.write = env_write,
	.interrupt = env_irq,
	.violation = env_violation,
};

struct test_env *env_new_bare(const struct lwp_model_profile *profile)
{
	struct test_env *e = calloc(1, sizeof(*e));

	if (!e || lwp_model_init(&e->m, profile, &env_ops, e) != 0)
		abort();
	return e;
}

struct test_env *env_new(const struct lwp_model_profile *profile)
{
	struct test_env *e = env_new_bare(profile);
	struct lwp_model_result r;

	r = lwp_model_xsetbv(&e->m, LWP_XCR0_MASK | 7);
	if (r.exc)
		abort();
	r = lwp_model_wrmsr(&e->m, LWP_MSR_CFG,
			    (profile->fn8000_001c_edx & LWP_CFG_FEATURES_MASK) |
			    (0x5Aull << LWP_CFG_COREID_SHIFT) | (0xECull << LWP_CFG_VECTOR_SHIFT));
	if (r.exc)
		abort();
	return e;
}

void env_free(struct test_env *e)
{
	free(e);
}

uint8_t *env_ptr(struct test_env *e, uint64_t addr)
{
	if (addr < ENV_BASE || addr >= ENV_BASE + ENV_SIZE)
		abort();
	return e->mem + (addr - ENV_BASE);
}

uint32_t env_get32(struct test_env *e, uint64_t addr)
{
	uint32_t v;

	memcpy(&v, env_ptr(e, addr), 4);
	return v;
}

uint64_t env_get64(struct test_env *e, uint64_t addr)
{
	uint64_t v;

	memcpy(&v, env_ptr(e, addr), 8);
	return v;
}

void env_put32(struct test_env *e, uint64_t addr, uint32_t v)
{
	memcpy(env_ptr(e, addr), &v, 4);
}

void env_put64(struct test_env *e, uint64_t addr, uint64_t v)
{
	memcpy(env_ptr(e, addr), &v, 8);
}

void env_page_np(struct test_env *e, uint64_t addr, bool np)
{
	e->not_present[(addr - ENV_BASE) / 4096] = np;
}

void env_page_ro(struct test_env *e, uint64_t addr, bool ro)
{
	e->read_only[(addr - ENV_BASE) / 4096] = ro;
}

void env_lwpcb(struct test_env *e, uint64_t cb, uint32_t flags, uint32_t size, uint64_t base)
{
	memset(env_ptr(e, cb), 0, 256);
	env_put32(e, cb + LWP_LWPCB_OFF_FLAGS, flags);
	env_put32(e, cb + LWP_LWPCB_OFF_BUFFER_SIZE, size);
	env_put64(e, cb + LWP_LWPCB_OFF_BUFFER_BASE, base);
}

void env_event(struct test_env *e, uint64_t cb, unsigned int n, uint32_t interval,
	       uint32_t counter)
{
	env_put32(e, cb + LWP_LWPCB_OFF_EVENT_INTERVAL(128u, n), interval);
	env_put32(e, cb + LWP_LWPCB_OFF_EVENT_COUNTER(128u, n), counter);
}

uint32_t env_interval(struct test_env *e, uint64_t cb, unsigned int n)
{
	return env_get32(e, cb + LWP_LWPCB_OFF_EVENT_INTERVAL(128u, n));
}

uint32_t env_counter(struct test_env *e, uint64_t cb, unsigned int n)
{
	return env_get32(e, cb + LWP_LWPCB_OFF_EVENT_COUNTER(128u, n));
}

struct lwp_event_record env_record(struct test_env *e, uint64_t base, unsigned int i)
{
	struct lwp_event_record r;

	memcpy(&r, env_ptr(e, base + 32ull * i), sizeof(r));
	return r;
}

struct lwp_model_operand env_reg_op(uint32_t v)
{
	struct lwp_model_operand o = { .is_mem = false, .value = v };

	return o;
}

struct lwp_model_operand env_mem_op(uint64_t a)
{
	struct lwp_model_operand o = { .is_mem = true, .addr = a };

	return o;
}

uint32_t env_head(struct test_env *e)
{
	return env_get32(e, ENV_LWPCB + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET);
}

uint64_t env_missed(struct test_env *e)
{
	return env_get64(e, ENV_LWPCB + LWP_LWPCB_OFF_MISSED_EVENTS);
}

void env_set_tail(struct test_env *e, uint32_t t)
{
	env_put32(e, ENV_LWPCB + LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET, t);
}
