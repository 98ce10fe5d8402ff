/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one place where the shared headers adapt to their compiler: C11 in
 * user space, gnu11 in the kernel, and C++ for programs (JITs, runtimes)
 * that include liblwp's and libpt's public headers.
 */
#ifndef LWPT_COMPILER_H
#define LWPT_COMPILER_H

#ifdef __KERNEL__
#include <linux/stddef.h>	/* offsetof */
#else
#include <stddef.h>		/* offsetof */
#endif

/* A build-time assertion of a layout or constant, in C and C++. */
#ifdef __cplusplus
#define LWPT_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define LWPT_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#endif /* LWPT_COMPILER_H */
