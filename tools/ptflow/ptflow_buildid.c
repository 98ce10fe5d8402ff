// SPDX-License-Identifier: GPL-2.0
/* Build-ids of a capture's files (ptflow_buildid.h): libpt's verdicts. */
#include "tools/ptflow/ptflow_buildid.h"

#include <stdio.h>

#include <lwpt/pt_cov.h>

bool ptflow_buildid_use(struct ptflow *pf, const struct ptcap_map *m, const char *path)
{
	if (!pf->bids)
		pf->bids = lpt_cov_build_ids_alloc(pf->prog, pf->err,
						   pf->force_build_id ?
						   LPT_COV_BUILD_IDS_F_FORCE : 0);
	if (!pf->bids)		/* no memory: the file's check is not made */
		return true;
	return lpt_cov_build_ids_use(pf->bids, m, path) != 0;
}

int ptflow_buildid_refuse(struct ptflow *pf, const char *capture)
{
	unsigned long n = lpt_cov_build_ids_refused(pf->bids);

	if (!n)
		return 0;
	fprintf(pf->err, "%s: %s: not decoded: %lu file%s of it %s not the binar%s that "
		"%s traced (said above); --force decodes with %s\n", pf->prog, capture, n,
		n == 1 ? "" : "s", n == 1 ? "is" : "are", n == 1 ? "y" : "ies",
		n == 1 ? "was" : "were", n == 1 ? "it" : "them");
	return -1;
}

void ptflow_buildid_free(struct ptflow *pf)
{
	lpt_cov_build_ids_free(pf->bids);
	pf->bids = NULL;
}
