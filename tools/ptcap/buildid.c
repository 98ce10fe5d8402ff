// SPDX-License-Identifier: GPL-2.0
/* "# build-id" lines of a maps file (buildid.h). */
#include "buildid.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <lwpt/perf_data.h>
#include <lwpt/ptcap_dir.h>

size_t maps_write_build_ids(FILE *f, const char *const *paths, size_t n)
{
	size_t lines = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t id[PTCAP_BUILD_ID_MAX];
		bool seen = false;
		int len;

		if (!paths[i] || paths[i][0] != '/' || strchr(paths[i], '\n'))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = paths[j] && !strcmp(paths[j], paths[i]);
		if (seen)
			continue;
		len = lpt_perf_elf_build_id(paths[i], id);
		if (len <= 0)
			continue;
		fputs("# build-id ", f);
		for (int k = 0; k < len; k++)
			fprintf(f, "%02x", id[k]);
		fprintf(f, " %s\n", paths[i]);
		lines++;
	}
	return lines;
}
