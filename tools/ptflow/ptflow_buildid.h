/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-ids of a capture's files: a file whose GNU build-id is not the one
 * ptcap recorded ("# build-id" lines of maps) is another binary than the
 * one traced, and its flow would be a silent wrong answer. ptflow refuses
 * the capture, naming the path and both ids, as ptcov does (libpt's
 * verdict, lpt_cov_build_ids_use()); --force decodes with it (a warning).
 * A perf.data's build-ids are compared by libpt's capture source
 * (LPT_CAPSRC_ANY_BUILD_ID under --force). Documentation/ptflow.rst
 * "Build-ids".
 */
#ifndef LWPT_TOOLS_PTFLOW_BUILDID_H
#define LWPT_TOOLS_PTFLOW_BUILDID_H

#include <stdbool.h>

#include <lwpt/ptcap_dir.h>

#include "tools/ptflow/ptflow_decode.h"

/**
 * ptflow_buildid_use() - may the file @path of maps line @m be loaded?
 * @pf:   the session: pf->force_build_id (--force), its verdicts
 *        (pf->bids, made at the first call; messages on pf->err).
 * @m:    the maps line.
 * @path: the file as it is opened.
 *
 * Return: true to load it (the same build-id, nothing recorded, --force,
 * or out of memory: not checked); false: refused, said once per path.
 */
bool ptflow_buildid_use(struct ptflow *pf, const struct ptcap_map *m, const char *path);

/**
 * ptflow_buildid_refuse() - refuse the capture @capture if a file of it
 * was refused (ptflow_buildid_use()): one line on pf->err saying the
 * capture is not decoded and how --force decodes it.
 *
 * Return: 0 none refused; -1 refused (the caller exits 2: unusable input).
 */
int ptflow_buildid_refuse(struct ptflow *pf, const char *capture);

/** ptflow_buildid_free() - release pf->bids. */
void ptflow_buildid_free(struct ptflow *pf);

#endif /* LWPT_TOOLS_PTFLOW_BUILDID_H */
