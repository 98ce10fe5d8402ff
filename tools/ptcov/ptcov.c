// SPDX-License-Identifier: GPL-2.0
/*
 * ptcov: fuzzing coverage from Intel PT (issue 25): edges or an AFL-style
 * map of a trace, with libpt's coverage decoder (lwpt/pt_cov.h,
 * Documentation/ptcov.rst, ptcov(1)).
 *
 * Sources: a ptcap directory (its *.pt traces and maps), or --pt FILE with
 * the code as --elf/--raw (as ptflow) or --pagecache PREFIX (kAFL/Nyx).
 * Exit status as ptdump/ptflow: 0 ok, 1 runtime error (file, decode,
 * missing code), 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lwpt/pt_cov.h>
#include <lwpt/ptcap_dir.h>

enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2 };

static const char *prog = "ptcov";

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s [<options>] DIR\n"
"       %s [<options>] --pt FILE (--elf FILE[:BASE] | --raw FILE[:FROM[-TO]]:ADDR\n"
"                                  | --pagecache PREFIX)...\n"
"\n"
"Coverage of an Intel PT trace: every executed branch as an edge (branch\n"
"address, address control went to), or an AFL-style map of 8-bit counters.\n"
"\n"
"  DIR                     a directory ptcap wrote: its *.pt files and maps.\n"
"  --pt FILE               raw Intel PT data.\n"
"  --elf FILE[:BASE]       executable PT_LOAD segments of an ELF (+BASE).\n"
"  --raw FILE[:FROM[-TO]]:ADDR  bytes FROM..TO of FILE at address ADDR.\n"
"  --pagecache PREFIX      kAFL/Nyx page cache PREFIX.addr + PREFIX.dump.\n"
"  --filter START-END      IP filter range the trace was recorded with (hex,\n"
"                          END exclusive; once per range, at most 4). For a\n"
"                          ptcap directory: default its config's addrN filter.\n"
"  --cpu F/M[/S]           CPU family/model[/stepping] for errata.\n"
"  --edges                 print every distinct edge: SRC DST COUNT (hex hex\n"
"                          decimal), sorted (the default output).\n"
"  --bitmap FILE           write the map's bytes to FILE.\n"
"  --map-size BYTES        map size, a power of two (default 65536).\n"
"  --xdc                   the map libxdc makes (conditional outcomes only).\n"
"  --repeat N              decode N times with one decoder (a fuzzing loop);\n"
"                          print the time per decode on stderr.\n"
"  --stat                  print decoder statistics on stderr.\n"
"  --help, --version\n"
"\n"
"Exit status: 0 ok, 1 error (file, decode, code missing), 2 usage.\n",
		prog, prog);
}

struct opts {
	const char *pt, *dir, *bitmap;
	bool edges, xdc, stat;
	bool filter_given;	/* --filter: the capture's ranges not used */
	unsigned long repeat;
	struct lpt_cov_config cfg;
	struct lpt_cov_image *img;
	unsigned int nimg;
};

static int parse_u64(const char *s, uint64_t *v, int base)
{
	char *e;

	errno = 0;
	*v = strtoull(s, &e, base);
	return (errno || e == s || *e) ? -1 : 0;
}

static int img_err(const char *what, const char *arg, int err)
{
	fprintf(stderr, "%s: %s %s: %s%s%s\n", prog, what, arg,
		lpt_cov_errstr(err), err == LPT_ERR_NOT_SUPPORTED ? ": " : "",
		err == LPT_ERR_NOT_SUPPORTED ? strerror(errno) : "");
	return -1;
}

static int add_elf(struct opts *o, char *arg)
{
	uint64_t base = 0;
	char *c = strrchr(arg, ':');
	FILE *f = fopen(arg, "rb");
	int err;

	if (f)
		fclose(f);
	else if (c && !parse_u64(c + 1, &base, 0))
		*c = '\0';
	err = lpt_cov_image_add_elf(o->img, arg, base);
	if (err < 0)
		return img_err("--elf", arg, err);
	o->nimg++;
	return 0;
}

static int add_raw(struct opts *o, char *arg)
{
	uint64_t addr, from = 0, to = 0;
	char *c = strrchr(arg, ':'), *r;
	int err;

	if (!c || parse_u64(c + 1, &addr, 0)) {
		fprintf(stderr, "%s: --raw %s: missing :ADDR\n", prog, arg);
		return -2;
	}
	*c = '\0';
	r = strrchr(arg, ':');
	if (r) {
		char *d = strchr(r + 1, '-');

		if (d)
			*d = '\0';
		if (parse_u64(r + 1, &from, 0) || (d && parse_u64(d + 1, &to, 0)) ||
		    (d && to <= from)) {
			fprintf(stderr, "%s: --raw %s: bad range\n", prog, arg);
			return -2;
		}
		*r = '\0';
	}
	err = lpt_cov_image_add_file(o->img, arg, from, to ? to - from : 0, addr);
	if (err < 0)
		return img_err("--raw", arg, err);
	o->nimg++;
	return 0;
}

static int add_filter(struct opts *o, char *arg)
{
	char *d = strchr(arg, '-');
	struct lpt_cov_range r;

	if (o->cfg.nfilter == LPT_COV_MAX_FILTERS) {
		fprintf(stderr, "%s: --filter: at most %d ranges\n", prog,
			LPT_COV_MAX_FILTERS);
		return -2;
	}
	if (!d)
		goto bad;
	*d = '\0';
	if (parse_u64(arg, &r.start, 16) || parse_u64(d + 1, &r.end, 16) ||
	    r.end <= r.start)
		goto bad;
	o->cfg.filter[o->cfg.nfilter++] = r;
	o->filter_given = true;
	return 0;
bad:
	fprintf(stderr, "%s: --filter: want START-END in hex, START < END\n", prog);
	return -2;
}

static int parse_cpu(struct opts *o, const char *s)
{
	unsigned int f, m, st = 0;
	int n = sscanf(s, "%u/%u/%u", &f, &m, &st);

	if (n < 2 || f > 0xffff || m > 0xff || st > 0xff) {
		fprintf(stderr, "%s: --cpu: want F/M[/S] (decimal)\n", prog);
		return -2;
	}
	o->cfg.cpu.vendor = 1;
	o->cfg.cpu.family = (uint16_t)f;
	o->cfg.cpu.model = (uint8_t)m;
	o->cfg.cpu.stepping = (uint8_t)st;
	return 0;
}

static int read_file(const char *path, uint8_t **buf, size_t *len)
{
	char *b;
	int err = ptcap_dir_read_file_max(NULL, path, PTCAP_DATA_MAX, &b, len);

	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, path,
			err == -PTCAP_E_IO ? strerror(errno) : ptcap_dir_strerror(err));
		return -1;
	}
	*buf = (uint8_t *)b;
	return 0;
}

static void map_warn(void *ctx, const char *path, int err)
{
	(void)ctx;
	fprintf(stderr, "%s: warning: %s: %s%s%s\n", prog, path, lpt_cov_errstr(err),
		err == LPT_ERR_NOT_SUPPORTED ? ": " : "",
		err == LPT_ERR_NOT_SUPPORTED ? strerror(errno) : "");
}

/* The code of a ptcap directory (its maps) and its CPU (its config). */
static int load_dir(struct opts *o, const char *dir)
{
	struct ptcap_config pc;
	char *cfgt;
	size_t len;
	int n;

	n = ptcap_dir_read_file(dir, "config", &cfgt, &len);
	if (n && (n != -PTCAP_E_IO || errno != ENOENT)) {
		/* a config that is there but not a file ptcov may read */
		fprintf(stderr, "%s: %s/config: %s\n", prog, dir, n == -PTCAP_E_IO ?
			strerror(errno) : ptcap_dir_strerror(n));
		return -1;
	}
	if (!n) {
		if (!ptcap_config_parse(cfgt, len, &pc, NULL) &&
		    (pc.has & PTCAP_HAS_CPU) && !o->cfg.cpu.vendor) {
			o->cfg.cpu.vendor = 1;
			o->cfg.cpu.family = pc.cpu_family;
			o->cfg.cpu.model = pc.cpu_model;
			o->cfg.cpu.stepping = pc.cpu_stepping;
		}
		/* the IP filter ranges it was recorded with, unless --filter
		 * gave some: "addr<N> filter <a>-<b>" (ADDRn_B inclusive) */
		for (char *l = cfgt; l && !o->filter_given; l = strchr(l, '\n')) {
			unsigned int i;
			uint64_t a, b;

			if (*l == '\n')
				l++;
			if (sscanf(l, "addr%u filter %" SCNx64 "-%" SCNx64, &i, &a, &b) == 3 &&
			    a <= b && b != UINT64_MAX && o->cfg.nfilter < LPT_COV_MAX_FILTERS)
				o->cfg.filter[o->cfg.nfilter++] = (struct lpt_cov_range){ a, b + 1 };
		}
		free(cfgt);
	}
	n = lpt_cov_image_add_ptcap(o->img, dir, map_warn, NULL);
	if (n < 0) {
		fprintf(stderr, "%s: %s/maps: %s\n", prog, dir, lpt_cov_errstr(n));
		return -1;
	}
	o->nimg += (unsigned int)n;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Decode one trace; print/write what was asked. */
static int run(struct opts *o, struct lpt_cov *cov, const char *name,
	       const uint8_t *buf, size_t len, uint8_t *map)
{
	double t0 = now(), t;
	int ret = 0;

	for (unsigned long i = 0; i < o->repeat; i++) {
		memset(map, 0, o->cfg.map_size);
		ret = lpt_cov_decode(cov, buf, len, map);
		if (i == 0)
			t = now() - t0;
	}
	if (o->repeat > 1) {
		double all = now() - t0;

		fprintf(stderr, "%s: %s: first decode %.3f ms, then %.3f ms per decode (%lu decodes)\n",
			prog, name, t * 1e3, (all - t) * 1e3 / (double)(o->repeat - 1),
			o->repeat);
	}
	if (ret == LPT_ERR_COV_NOMAP) {
		uint64_t a = lpt_cov_fault_addr(cov);

		fprintf(stderr, "%s: %s: code missing at 0x%" PRIx64 " (page 0x%" PRIx64
			"): add it with --elf, --raw or --pagecache\n",
			prog, name, a, a & ~(uint64_t)0xfff);
	} else if (ret < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, name, lpt_cov_errstr(ret));
	}
	if (o->edges) {
		const struct lpt_cov_edge *e;
		long n = lpt_cov_edges(cov, &e);

		for (long i = 0; i < n; i++)
			printf("%" PRIx64 " %" PRIx64 " %" PRIu64 "\n", e[i].src,
			       e[i].dst, e[i].count);
	}
	if (o->stat) {
		struct lpt_cov_stats st;

		lpt_cov_stats(cov, &st);
		fprintf(stderr,
			"%s: %s: branches %" PRIu64 ", tnt bits %" PRIu64
			", insns walked %" PRIu64 ", path hits %" PRIu64 ", errors %" PRIu64 "; cache: %" PRIu64
			" blocks, %" PRIu64 " edges, %" PRIu64 " paths, %" PRIu64
			" bytes; map hash 0x%016" PRIx64 "\n",
			prog, name, st.branches, st.tnt_bits, st.insns, st.path_hits, st.errors,
			st.blocks, st.edges, st.paths, st.cache_bytes,
			lpt_cov_map_hash(map, o->cfg.map_size));
	}
	return ret < 0 ? -1 : 0;
}

static int write_map(const struct opts *o, const uint8_t *map)
{
	FILE *f = fopen(o->bitmap, "wb");

	if (!f || fwrite(map, 1, o->cfg.map_size, f) != o->cfg.map_size ||
	    fclose(f)) {
		fprintf(stderr, "%s: --bitmap %s: %s\n", prog, o->bitmap,
			strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .repeat = 1 };
	struct lpt_cov *cov = NULL;
	uint8_t *map = NULL;
	int st = EXIT_OK, r;

	lpt_cov_config_init(&o.cfg);
	o.img = lpt_cov_image_alloc();
	if (!o.img) {
		perror(prog);
		return EXIT_ERR;
	}
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t n;

		r = 0;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			goto out;
		} else if (!strcmp(a, "--version")) {
			printf("ptcov (lwpt) %s\n", LWPT_VERSION);
			goto out;
		} else if (!strcmp(a, "--edges")) {
			o.edges = true;
			continue;
		} else if (!strcmp(a, "--xdc")) {
			o.cfg.flags |= LPT_COV_F_XDC;
			continue;
		} else if (!strcmp(a, "--stat")) {
			o.stat = true;
			continue;
		} else if (a[0] == '-' && a[1] == '-' && strcmp(a, "--")) {
			if (!v) {
				fprintf(stderr, "%s: %s: missing argument\n", prog, a);
				st = EXIT_USAGE;
				goto out;
			}
			i++;
			if (!strcmp(a, "--pt")) {
				o.pt = v;
			} else if (!strcmp(a, "--elf")) {
				r = add_elf(&o, v);
			} else if (!strcmp(a, "--raw")) {
				r = add_raw(&o, v);
			} else if (!strcmp(a, "--pagecache")) {
				r = lpt_cov_image_add_pagecache(o.img, v);
				if (r < 0)
					r = img_err("--pagecache", v, r);
				else
					o.nimg++, r = 0;
			} else if (!strcmp(a, "--filter")) {
				r = add_filter(&o, v);
			} else if (!strcmp(a, "--cpu")) {
				r = parse_cpu(&o, v);
			} else if (!strcmp(a, "--bitmap")) {
				o.bitmap = v;
			} else if (!strcmp(a, "--map-size")) {
				if (parse_u64(v, &n, 0) || n < 2 || (n & (n - 1)) ||
				    n > (1ull << 30)) {
					fprintf(stderr, "%s: --map-size: want a power of two, 2..2^30\n", prog);
					r = -2;
				}
				o.cfg.map_size = (size_t)n;
			} else if (!strcmp(a, "--repeat")) {
				if (parse_u64(v, &n, 10) || !n || n > 100000000) {
					fprintf(stderr, "%s: --repeat: want 1..100000000\n", prog);
					r = -2;
				}
				o.repeat = (unsigned long)n;
			} else {
				fprintf(stderr, "%s: unknown option %s (see --help)\n", prog, a);
				r = -2;
				i--;
			}
		} else if (!o.dir && a[0] != '-') {
			o.dir = a;
		} else {
			fprintf(stderr, "%s: unexpected argument %s (see --help)\n", prog, a);
			r = -2;
		}
		if (r) {
			st = r == -2 ? EXIT_USAGE : EXIT_ERR;
			goto out;
		}
	}
	if (!o.pt == !o.dir) {
		fprintf(stderr, "%s: give a ptcap directory or --pt FILE (see --help)\n", prog);
		st = EXIT_USAGE;
		goto out;
	}
	if (o.dir && load_dir(&o, o.dir)) {
		st = EXIT_ERR;
		goto out;
	}
	if (!o.nimg) {
		fprintf(stderr, "%s: no code: give --elf, --raw or --pagecache (or a ptcap directory with maps)\n", prog);
		st = EXIT_USAGE;
		goto out;
	}
	if (!o.bitmap && !o.stat && o.repeat == 1)
		o.edges = true;
	if (o.edges)
		o.cfg.flags |= LPT_COV_F_EDGES;
	cov = lpt_cov_alloc(&o.cfg, o.img);
	map = calloc(1, o.cfg.map_size);
	if (!cov || !map) {
		fprintf(stderr, "%s: %s\n", prog, strerror(errno ? errno : ENOMEM));
		st = EXIT_ERR;
		goto out;
	}
	if (o.pt) {
		uint8_t *buf;
		size_t len;

		if (read_file(o.pt, &buf, &len)) {
			st = EXIT_ERR;
			goto out;
		}
		if (run(&o, cov, o.pt, buf, len, map))
			st = EXIT_ERR;
		free(buf);
	} else {
		char **names;
		size_t count;
		uint8_t *all = calloc(1, o.cfg.map_size);

		if (!all || ptcap_dir_list_traces(o.dir, &names, &count)) {
			fprintf(stderr, "%s: %s: %s\n", prog, o.dir, strerror(errno));
			free(all);
			st = EXIT_ERR;
			goto out;
		}
		for (size_t i = 0; i < count; i++) {
			char path[4096];
			uint8_t *buf;
			size_t len;

			snprintf(path, sizeof(path), "%s/%s", o.dir, names[i]);
			if (read_file(path, &buf, &len)) {
				st = EXIT_ERR;
				continue;
			}
			if (run(&o, cov, path, buf, len, map))
				st = EXIT_ERR;
			for (size_t j = 0; j < o.cfg.map_size; j++)
				all[j] += map[j];
			free(buf);
		}
		memcpy(map, all, o.cfg.map_size);
		free(all);
		ptcap_dir_free_names(names, count);
	}
	if (o.bitmap && write_map(&o, map))
		st = EXIT_ERR;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: stdout: %s\n", prog, strerror(errno));
		st = EXIT_ERR;
	}
out:
	lpt_cov_free(cov);
	lpt_cov_image_free(o.img);
	free(map);
	return st;
}
