/* SPDX-License-Identifier: GPL-2.0 */
/* A modelled address space for the LWP model tests: 256 KiB at ENV_BASE,
 * per-page not-present/read-only bits, interrupt and violation logs.
 * Plain C, no Check: the benchmark links it too. The helpers that assert
 * with Check are in lwp_test_check.h. */
#ifndef LWPT_TESTS_LWP_TEST_ENV_H
#define LWPT_TESTS_LWP_TEST_ENV_H

#include "model/lwp/lwp_model.h"

#define ENV_BASE	0x0000000010000000ull
#define ENV_PAGES	64
#define ENV_SIZE	(ENV_PAGES * 4096ull)
#define ENV_LWPCB	(ENV_BASE + 0x1000)	/* first LWPCB */
#define ENV_LWPCB2	(ENV_BASE + 0x2000)	/* second LWPCB */
#define ENV_RING	(ENV_BASE + 0x10000)	/* ring buffers from here */
#define ENV_DATA	(ENV_BASE + 0x3000)	/* memory operands */

struct test_env {
	struct lwp_model m;
	uint8_t mem[ENV_SIZE];
	bool not_present[ENV_PAGES];
	bool read_only[ENV_PAGES];
	unsigned int reads, writes;
	unsigned int irqs;
	unsigned int last_vector;
	unsigned int violations;
	char last_section[64];
};

extern const struct lwp_model_ops env_ops;

/* Fresh env: model with `profile`, XCR0[62] set, LWP_CFG = all supported
 * features, COREID 0x5A, VECTOR 0xEC. */
struct test_env *env_new(const struct lwp_model_profile *profile);
/* Model only, nothing enabled by the OS. */
struct test_env *env_new_bare(const struct lwp_model_profile *profile);
void env_free(struct test_env *e);

uint8_t *env_ptr(struct test_env *e, uint64_t addr);
uint32_t env_get32(struct test_env *e, uint64_t addr);
uint64_t env_get64(struct test_env *e, uint64_t addr);
void env_put32(struct test_env *e, uint64_t addr, uint32_t v);
void env_put64(struct test_env *e, uint64_t addr, uint64_t v);
void env_page_np(struct test_env *e, uint64_t addr, bool np);
void env_page_ro(struct test_env *e, uint64_t addr, bool ro);

/* Write an LWPCB at `cb` with the given fields; events zeroed. */
void env_lwpcb(struct test_env *e, uint64_t cb, uint32_t flags, uint32_t size,
	       uint64_t base);
/* EventIntervaln / EventCountern with LwpEventOffset 128. */
void env_event(struct test_env *e, uint64_t cb, unsigned int n, uint32_t interval,
	       uint32_t counter);
uint32_t env_interval(struct test_env *e, uint64_t cb, unsigned int n);
uint32_t env_counter(struct test_env *e, uint64_t cb, unsigned int n);
/* Record i (32 bytes) of the ring at `base`. */
struct lwp_event_record env_record(struct test_env *e, uint64_t base, unsigned int i);

/* Operands of LWPINS/LWPVAL: a register value, or a memory address. */
struct lwp_model_operand env_reg_op(uint32_t v);
struct lwp_model_operand env_mem_op(uint64_t a);

/* BufferHeadOffset and MissedEvents of the LWPCB at ENV_LWPCB, as stored in
 * memory; env_set_tail() writes its BufferTailOffset (Table 6-1). */
uint32_t env_head(struct test_env *e);
uint64_t env_missed(struct test_env *e);
void env_set_tail(struct test_env *e, uint32_t t);

#endif
