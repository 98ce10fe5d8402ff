/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DynamoRIO's drcov format, version 2 (the layout DynamoRIO's
 * clients/drcov writes and Lighthouse, bncov and Cartographer read):
 *
 *   DRCOV VERSION: 2
 *   DRCOV FLAVOR: drcov
 *   Module Table: version 2, count N
 *   Columns: id, base, end, entry, checksum, timestamp, path
 *     0, 0x<base>, 0x<end>, 0x<entry>, 0x<checksum>, 0x<timestamp>, <path>
 *   ...
 *   BB Table: M bbs
 *   M binary records { uint32 start; uint16 size; uint16 mod_id; }
 *   (little-endian; start relative to the module's base)
 *
 * Documentation/ptcov.rst "drcov".
 */
#ifndef LWPT_TOOLS_PTCOV_DRCOV_H
#define LWPT_TOOLS_PTCOV_DRCOV_H

#include <stdio.h>

#include "tools/ptcov/cov_flow.h"
#include "tools/ptcov/cov_module.h"

struct cov_drcov;

/** cov_drcov_alloc() - an empty block set; NULL when out of memory. */
struct cov_drcov *cov_drcov_alloc(void);

/**
 * cov_drcov_add() - add the blocks of one capture, each relative to its
 * module (by path: captures with other load addresses add up).
 * @d:       the set.
 * @f:       blocks (cov_flow_build()).
 * @ms:      the capture's modules; blocks outside all of them get a
 *           module per run of at most 4 GiB, named @unknown.
 * @unknown: name for code outside every module (a page cache's prefix).
 *
 * A block longer than 65535 bytes becomes several records.
 *
 * Return: 0, or -1 when out of memory.
 */
int cov_drcov_add(struct cov_drcov *d, const struct cov_flow *f,
		  const struct cov_modules *ms, const char *unknown);

/**
 * cov_drcov_write() - write the set as a drcov file; each distinct block
 * once, in module and address order.
 * Return: 0, or -1 with errno set (write error, more than 65535 modules).
 */
int cov_drcov_write(struct cov_drcov *d, FILE *out);

/** cov_drcov_free() - release @d; NULL is ignored. */
void cov_drcov_free(struct cov_drcov *d);

#endif /* LWPT_TOOLS_PTCOV_DRCOV_H */
