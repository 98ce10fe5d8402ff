/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Coverage decoder internals shared by libpt/cov_*.c.
 */
#ifndef _LIBPT_COV_INTERNAL_H
#define _LIBPT_COV_INTERNAL_H

#include <endian.h>
#include <stdint.h>

#include <lwpt/pt_cov.h>

#endif /* _LIBPT_COV_INTERNAL_H */
