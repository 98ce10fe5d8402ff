/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The environment of the hardware model.
 *
 * The LWP and PT models are plain C compiled both into the kernel
 * (lwpt_sim.ko) and into user space (liblwp's emulation backend, the unit
 * tests). This header is the only place where the two worlds differ: model
 * sources include it and nothing else from libc or the kernel.
 */
#ifndef LWPT_MODEL_ENV_H
#define LWPT_MODEL_ENV_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/stddef.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#endif

/* Build-time assertion usable in both worlds (C11 / gnu11). */
#define MODEL_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)

#endif /* LWPT_MODEL_ENV_H */
