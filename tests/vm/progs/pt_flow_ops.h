/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operations pt_flow_long and pt_flow_threads call indirectly each
 * round (a TIP packet each, SDM 33.4.2.2): deterministic, no time, no
 * randomness.
 */
#ifndef LWPT_TESTS_VM_PT_FLOW_OPS_H
#define LWPT_TESTS_VM_PT_FLOW_OPS_H

typedef long (*op_fn)(long a, long b);

__attribute__((noinline)) static long op_add(long a, long b)
{
	return a + b;
}

__attribute__((noinline)) static long op_xor(long a, long b)
{
	return a ^ b;
}

__attribute__((noinline)) static long op_sub(long a, long b)
{
	return a - b;
}

__attribute__((noinline)) static long op_or(long a, long b)
{
	return a | (b >> 3);
}

static op_fn const ops[] = { op_add, op_xor, op_sub, op_or };

#endif /* LWPT_TESTS_VM_PT_FLOW_OPS_H */
