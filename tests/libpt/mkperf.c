// SPDX-License-Identifier: GPL-2.0
/*
 * mkperf: a ptcap directory as a perf.data, for tests (issue 24): the
 * minimal writer of tests/libpt/perf_writer.h, not pt2perf. Maps become
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

#include "tests/libpt/perf_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

int main(int argc, char **argv)
{
	bool pipe = false, compress = false, as_is = false;
	struct ptcap_maps maps = { 0 };
	struct pw w, side = { 0 };
	char *text, *cfg = NULL, **names;
	size_t len, cfg_len = 0, n, i, k, nidx = 0;
	uint64_t *idx = NULL;
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
	pw_start(&w, pipe);
	pw_time_conv(&w);
	pw_auxtrace_info(&w, !strncmp(names[0], "cpu", 3), false, NULL);
	pw_comm(compress ? &side : &w, 1, 1, "prog", true, 1000);
	for (i = 0; i < maps.nmaps; i++) {
		char path[8192];

		if (maps.map[i].path[0] == '/' || as_is)
			snprintf(path, sizeof(path), "%s", maps.map[i].path);
		else if (!realpath(argv[a], path) ||
			 strlen(path) + strlen(maps.map[i].path) + 2 > sizeof(path))
			return 1;
		else
			strcat(strcat(path, "/"), maps.map[i].path);
		pw_mmap2(compress ? &side : &w, 1, maps.map[i].start, maps.map[i].size,
			 maps.map[i].offset, path, 1100);
	}
	if (compress) {
		size_t bound = ZSTD_compressBound(side.n), zn, at;
		uint8_t *z = malloc(bound);
		uint16_t size;

		zn = z ? ZSTD_compress(z, bound, side.b, side.n, 3) : 0;
		if (!z || ZSTD_isError(zn) || zn > 60000)
			return 1;
		at = pw_begin(&w, PERF_RECORD_COMPRESSED, 0);
		pw_put(&w, z, zn);
		size = (uint16_t)(w.n - at);
		memcpy(w.b + at + 6, &size, 2);
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
				pw_comm(&w, pid, tid, "prog", false, 1200);
		}
		if (cfg)
			(void)ptcap_config_gaps(cfg, cfg_len, names[i], &gaps, &ng);
		for (k = 0; k <= ng; k++) {
			uint64_t to = k < ng ? gaps[k] : len;

			if (to > len || to <= from)
				continue;
			uint64_t *more = realloc(idx, (nidx + 2) * sizeof(*idx));

			if (!more)
				return 1;
			idx = more;
			idx[nidx++] = pw_auxtrace(&w, t + from, to - from, aux, (uint32_t)i,
						  cpu ? (uint32_t)-1 : id, cpu ? id : (uint32_t)-1);
			idx[nidx++] = sizeof(struct perf_rec_auxtrace) + (to - from);
			aux += to - from + 4096;	/* not contiguous: a gap */
			from = to;
		}
		free(gaps);
		free(t);
	}
	if (!pipe) {
		uint64_t *body = malloc((nidx + 1) * sizeof(*body));
		struct pw_feat feat = { PERF_HEADER_AUXTRACE, body, (nidx + 1) * 8 };

		body[0] = nidx / 2;
		memcpy(body + 1, idx, nidx * sizeof(*idx));
		pw_finish(&w, &feat, 1);
		free(body);
	}
	f = fopen(argv[a + 1], "wb");
	if (!f || fwrite(w.b, 1, w.n, f) != w.n || fclose(f)) {
		fprintf(stderr, "mkperf: %s: cannot write\n", argv[a + 1]);
		return 1;
	}
	free(idx);
	free(w.b);
	free(cfg);
	ptcap_maps_free(&maps);
	ptcap_dir_free_names(names, n);
	return 0;
}
