// SPDX-License-Identifier: GPL-2.0
/*
 * mkperf: a ptcap directory as a perf.data, for tests (issue 24), by
 * libpt's writer with the fixed test parameters of
 * tests/libpt/perf_fixture.h, not pt2perf (whose output is tested against
 * perf; this one shapes what the reader must cope with). Maps become
 * MMAP2 records of pid 1 (relative paths made absolute below DIR, or kept
 * as written with --as-is), each trace file AUXTRACE records (tid<N>.pt
 * per thread N with a COMM of its config thread line's pid, cpu<N>.pt per
 * CPU N), split at the config's gaps.<file>
 * offsets with a jump in the AUX offset so that a reader cuts there.
 *
 * Usage: mkperf [--pipe] [--compress] [--as-is] DIR OUT
 *   --pipe      pipe format (else file format with a HEADER_AUXTRACE index)
 *   --compress  the COMM and MMAP2 records inside PERF_RECORD_COMPRESSED
 *   --as-is     map paths as written in DIR/maps (to test --symfs)
 */
#include <lwpt/ptcap_dir.h>

#include "tests/libpt/perf_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

int main(int argc, char **argv)
{
	bool pipe = false, compress = false, as_is = false;
	struct ptcap_maps maps = { 0 };
	struct fx w, side;
	char *text, *cfg = NULL, **names;
	size_t len, cfg_len = 0, n, i, k;
	int a = 1;
	FILE *f;

	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--pipe"))
			pipe = true;
		else if (!strcmp(argv[a], "--compress"))
			compress = true;
		else if (!strcmp(argv[a], "--as-is"))
			as_is = true;
		else
			break;
	}
	if (argc - a != 2) {
		fprintf(stderr, "usage: mkperf [--pipe] [--compress] [--as-is] DIR OUT\n");
		return 2;
	}
	if (ptcap_dir_read_file(argv[a], PTCAP_MAPS_FILE, &text, &len) ||
	    ptcap_maps_parse(text, len, &maps, NULL)) {
		fprintf(stderr, "mkperf: %s/maps: unreadable\n", argv[a]);
		return 1;
	}
	free(text);
	(void)ptcap_dir_read_file(argv[a], PTCAP_CONFIG_FILE, &cfg, &cfg_len);
	if (ptcap_dir_list_traces(argv[a], &names, &n) || !n) {
		fprintf(stderr, "mkperf: %s: no traces\n", argv[a]);
		return 1;
	}
	fx_start(&w, pipe);
	if (compress)
		fx_start(&side, false);
	fx_time_conv(&w);
	fx_auxtrace_info(&w, !strncmp(names[0], "cpu", 3), false, NULL);
	fx_comm(compress ? &side : &w, 1, 1, "prog", true, 1000);
	for (i = 0; i < maps.nmaps; i++) {
		char path[8192];

		if (maps.map[i].path[0] == '/' || as_is)
			snprintf(path, sizeof(path), "%s", maps.map[i].path);
		else if (!realpath(argv[a], path) ||
			 strlen(path) + strlen(maps.map[i].path) + 2 > sizeof(path))
			return 1;
		else
			strcat(strcat(path, "/"), maps.map[i].path);
		fx_mmap2(compress ? &side : &w, 1, maps.map[i].start, maps.map[i].size,
			 maps.map[i].offset, path, 1100);
	}
	if (compress) {
		/* the side file's records, as one COMPRESSED record */
		size_t nrecs, bound, zn;
		const uint8_t *recs;
		uint8_t *z;

		fx_finish(&side);
		recs = fx_records(&side, &nrecs);
		bound = ZSTD_compressBound(nrecs);
		z = malloc(bound);
		zn = z ? ZSTD_compress(z, bound, recs, nrecs, 3) : 0;
		if (!z || ZSTD_isError(zn) || zn > 60000)
			return 1;
		fx_ok(lpt_perf_write_record(w.w, PERF_RECORD_COMPRESSED, 0, z, zn, NULL));
		free(z);
		free(side.b);
	}
	for (i = 0; i < n; i++) {
		uint64_t *gaps = NULL, aux = 0, from = 0;
		size_t ng = 0;
		uint8_t *t;
		unsigned int id;
		bool cpu = !strncmp(names[i], "cpu", 3);

		if (sscanf(names[i] + 3, "%u", &id) != 1 ||
		    ptcap_dir_read_file(argv[a], names[i], (char **)&t, &len))
			return 1;
		if (!cpu && cfg) {
			/* the thread's process, as a COMM record */
			uint32_t tid, pid;

			if (!ptcap_config_thread(cfg, cfg_len, names[i], &tid, &pid))
				fx_comm(&w, pid, tid, "prog", false, 1200);
		}
		if (cfg)
			(void)ptcap_config_gaps(cfg, cfg_len, names[i], &gaps, &ng);
		for (k = 0; k <= ng; k++) {
			uint64_t to = k < ng ? gaps[k] : len;

			if (to > len || to <= from)
				continue;
			fx_auxtrace(&w, t + from, to - from, aux, (uint32_t)i,
				    cpu ? (uint32_t)-1 : id, cpu ? id : (uint32_t)-1);
			aux += to - from + 4096;	/* not contiguous: a gap */
			from = to;
		}
		free(gaps);
		free(t);
	}
	fx_finish(&w);
	f = fopen(argv[a + 1], "wb");
	if (!f || fwrite(w.b, 1, w.n, f) != w.n || fclose(f)) {
		fprintf(stderr, "mkperf: %s: cannot write\n", argv[a + 1]);
		return 1;
	}
	free(w.b);
	free(cfg);
	ptcap_maps_free(&maps);
	ptcap_dir_free_names(names, n);
	return 0;
}
