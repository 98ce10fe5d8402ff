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
#include <sys/stat.h>
#include <unistd.h>

#include <lwpt/capture_src.h>
#include <lwpt/perf_data.h>
#include <lwpt/pt_chunk.h>
#include <lwpt/pt_cov.h>
#include <lwpt/ptcap_dir.h>

#include "libpt/cov_internal.h"
#include "tools/pt2perf/split.h"
#include "tools/ptcov/cov_drcov.h"
#include "tools/ptcov/cov_flow.h"
#include "tools/ptcov/cov_lcov.h"
#include "tools/ptcov/cov_merge.h"
#include "tools/ptcov/cov_par.h"
#include "tools/ptcov/cov_module.h"

enum { EXIT_OK = 0, EXIT_ERR = 1, EXIT_USAGE = 2 };

static const char *prog = "ptcov";

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s [<options>] DIR...\n"
"       %s [<options>] --pt FILE... (--elf FILE[:BASE] | --raw FILE[:FROM[-TO]]:ADDR\n"
"                                  | --pagecache PREFIX)...\n"
"\n"
"Coverage of Intel PT traces: every executed branch as an edge (branch\n"
"address, address control went to), an AFL-style map of 8-bit counters, or\n"
"line, function and branch coverage (lcov) or basic blocks (drcov).\n"
"\n"
"  DIR...                  directories ptcap wrote: their *.pt files and maps;\n"
"                          several are summed (a test suite traced test by test).\n"
"                          A perf.data (perf record -e intel_pt//; - reads a\n"
"                          pipe) is read as a ptcap directory, as ptflow does.\n"
"  --symfs DIR             look for a perf.data's binaries below DIR.\n"
"  --max-decompressed SIZE a perf.data's compressed records may decompress to\n"
"                          SIZE bytes (K, M, G): default 64x + 1 MiB, <= 1 GiB.\n"
"  --vmlinux FILE, -k FILE the kernel's code for a perf.data.\n"
"  --pt FILE               raw Intel PT data (several: summed).\n"
"  --elf FILE[:BASE]       executable PT_LOAD segments of an ELF (+BASE).\n"
"  --raw FILE[:FROM[-TO]]:ADDR  bytes FROM..TO of FILE at address ADDR.\n"
"  --pagecache PREFIX      kAFL/Nyx page cache PREFIX.addr + PREFIX.dump.\n"
"  --filter START-END      IP filter range the trace was recorded with (hex,\n"
"                          END exclusive; once per range, at most 4). For a\n"
"                          ptcap directory: default its config's addrN filter.\n"
"  --cpu F/M[/S]           CPU family/model[/stepping] for errata.\n"
"  --edges                 print every distinct edge: SRC DST COUNT (hex hex\n"
"                          decimal), sorted, per trace (the default output).\n"
"  --format edges|lcov|drcov  edges (as --edges); an lcov tracefile (lines from\n"
"                          the DWARF line tables, functions from the symbol\n"
"                          tables, branch outcomes; genhtml reads it); a drcov\n"
"                          file (DynamoRIO drcov version 2: modules, blocks).\n"
"                          lcov also prints a summary per file on stderr.\n"
"  -o, --output FILE       write the lcov or drcov output to FILE (default:\n"
"                          stdout).\n"
"  --test-name NAME        lcov's TN: (default: empty).\n"
"  --all-sources           lcov: keep source files that cannot be read (a\n"
"                          library's debug info without its sources; genhtml\n"
"                          fails on them): left out by default.\n"
"  --force                 use a file whose build-id is not the one the\n"
"                          capture recorded (ptcap's maps, perf.data's build-id\n"
"                          list): by default such a file is left out with an\n"
"                          error naming both build-ids (a rebuilt program is not\n"
"                          the one that was traced).\n"
"  --bitmap FILE           write the map's bytes to FILE.\n"
"  --map-size BYTES        map size, a power of two (default 65536).\n"
"  --xdc                   the map libxdc makes (conditional outcomes only).\n"
"  --repeat N              decode N times with one decoder (a fuzzing loop);\n"
"                          print the time per decode on stderr.\n"
"  --stat                  print decoder statistics on stderr.\n"
"  -j N, --jobs=N          decode a large trace on N threads, cut at PSBs into\n"
"                          chunks (default: the online CPUs; 1 with --stat or\n"
"                          --repeat); the output is the same for every N.\n"
"  --chunk-size BYTES      target chunk size for -j (K, M; default: the trace\n"
"                          over 4N, 1 MiB..4 MiB).\n"
"  --help, --version\n"
"\n"
"Exit status: 0 ok, 1 error (file, decode, code missing), 2 usage.\n",
		prog, prog);
}

enum { FMT_EDGES, FMT_LCOV, FMT_DRCOV };

struct opts {
	const char *bitmap, *output, *tn, *unknown, *symfs, *vmlinux;
	uint64_t max_decompressed;	/* --max-decompressed, 0: default */
	const char **pts, **dirs;
	size_t npt, ndir;
	int format;
	bool edges, xdc, stat, all_sources;
	bool force;		/* --force: files of other build-ids used */
	bool filter_given;	/* --filter: the capture's ranges not used */
	unsigned long repeat;
	unsigned int jobs;	/* -j N; 0: not given */
	uint64_t chunk;		/* --chunk-size, 0: default */
	struct lpt_cov_config cfg;
	struct lpt_cov_image *img;
	unsigned int nimg;
	struct cov_modules mods;	/* the files of --elf, --raw */
	struct cov_edges acc;		/* edges of the capture, summed */
	struct cov_merge *lcov;		/* lcov of all captures */
	struct cov_lcov_run *run;	/* what all their lcov say once */
	struct cov_lcov_ctx *lctx;	/* the modules' tables, read once */
	struct cov_drcov *drcov;	/* blocks of all captures */
	/* the captures whose edges o->acc sums: of one address-space layout,
	 * so their edges add before the blocks and lines are made once */
	struct lpt_cov_image *pend_img;
	struct lpt_cov *pend_cov;	/* the last one's decoder, of pend_img:
					 * its cached blocks (cov_flow_build()) */
	struct cov_modules pend_mods;
	struct lpt_cov_config pend_cfg;
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
	struct stat st;
	int err;

	/* FILE:BASE unless FILE:BASE names a file (stat: never opened here,
	 * so a FIFO cannot block; lpt_cov_image_add_elf() refuses it). */
	if (stat(arg, &st) && c && !parse_u64(c + 1, &base, 0))
		*c = '\0';
	err = lpt_cov_image_add_elf(o->img, arg, base);
	if (err < 0)
		return img_err("--elf", arg, err);
	if (cov_modules_add_elf(&o->mods, arg, base) == -1)
		return img_err("--elf", arg, LPT_ERR_NOMEM);
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
	if (!to) {
		struct stat st;

		/* lpt_cov_image_add_file() took a regular file's bytes. */
		if (!stat(arg, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
			to = (uint64_t)st.st_size;
	}
	if (to > from && cov_modules_add(&o->mods, arg, addr, addr + (to - from), from,
					 false) < 0)
		return img_err("--raw", arg, LPT_ERR_NOMEM);
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
	if (err == LPT_ERR_COV_BUILD_ID)
		return;		/* cov_modules_build_id_ok() says it, with the ids */
	fprintf(stderr, "%s: warning: %s: %s%s%s\n", prog, path, lpt_cov_errstr(err),
		err == LPT_ERR_NOT_SUPPORTED ? ": " : "",
		err == LPT_ERR_NOT_SUPPORTED ? strerror(errno) : "");
}

/* "DIR/FILE" of a ptcap directory, "PERF.DATA: FILE" of a perf.data: the
 * file of a capture a message is about, into @buf. */
static const char *src_file(struct lpt_capsrc *src, const char *file, char *buf, size_t size)
{
	bool dir = lpt_capsrc_kind(src) == LPT_CAPSRC_PTCAP_DIR;

	snprintf(buf, size, "%s%s%s", lpt_capsrc_path(src), dir ? "/" : ": ", file);
	return buf;
}

/* An error reading a file (not of what it says). */
static bool read_error(int err)
{
	return err != -PTCAP_E_MAGIC && err != -PTCAP_E_VERSION && err != -PTCAP_E_SYNTAX &&
	       err != -PTCAP_E_RANGE;
}

/* The code of @m (paths ready to open) into @img and @mods: the image
 * takes the last line first (in it the first added wins). A file whose
 * build-id is not the one the capture recorded (ptcap's "# build-id"
 * lines; a perf.data's build-id list, lpt_capsrc_maps()) is left out, or
 * used with --force: cov_modules_build_id_ok() says it once per path and
 * counts it in mods->refused. Returns the number of files the image took,
 * or -1 after a message (@where: the maps file) when out of memory. */
static int add_maps(const struct ptcap_maps *m, struct lpt_cov_image *img,
		    struct cov_modules *mods, const char *where)
{
	bool *use = calloc(m->nmaps ? m->nmaps : 1, sizeof(*use));
	int added = 0, err;

	if (!use) {
		fprintf(stderr, "%s: %s: %s\n", prog, where, strerror(ENOMEM));
		return -1;
	}
	/* each file's build-id read once for its run of lines, in file order */
	for (size_t i = 0; i < m->nmaps; i++) {
		const struct ptcap_map *e = &m->map[i], *p = i ? &m->map[i - 1] : NULL;

		if (p && !strcmp(p->path, e->path) && p->build_id_size == e->build_id_size &&
		    !memcmp(p->build_id, e->build_id, e->build_id_size))
			use[i] = use[i - 1];
		else
			use[i] = cov_modules_build_id_ok(mods, e, e->path);
	}
	for (size_t i = m->nmaps; i-- > 0;) {
		const struct ptcap_map *e = &m->map[i];

		if (!use[i])
			continue;
		err = lpt_cov_image_add_file(img, e->path, e->offset, e->size, e->start);
		if (err == LPT_ERR_NOMEM) {
			fprintf(stderr, "%s: %s: %s\n", prog, where, lpt_cov_errstr(err));
			free(use);
			return -1;
		}
		if (err < 0)
			map_warn(NULL, e->path, err);
		else if (!err)
			added++;
	}
	for (size_t i = 0; i < m->nmaps; i++) {
		const struct ptcap_map *e = &m->map[i];

		if (use[i] && cov_modules_add(mods, e->path, e->start, e->start + e->size,
					      e->offset, false) < 0) {
			fprintf(stderr, "%s: %s: %s\n", prog, where,
				strerror(errno ? errno : EINVAL));
			free(use);
			return -1;
		}
	}
	free(use);
	return added;
}

/* The code of a capture (its maps) and its CPU and IP filter (its
 * config), into @img, @mods and @cfg. A config or maps that is not there
 * is no error; one that does not parse is not used. */
static int load_dir(struct opts *o, struct lpt_capsrc *src, struct lpt_cov_image *img,
		    struct cov_modules *mods, struct lpt_cov_config *cfg)
{
	const struct ptcap_addr_range *ar;
	const struct ptcap_config *pc;
	struct ptcap_maps maps;
	char where[4400];
	int n, err;

	err = lpt_capsrc_config(src, &pc, &ar);
	if (err && read_error(err) && (err != -PTCAP_E_IO || errno != ENOENT)) {
		/* a config that is there but not a file ptcov may read */
		fprintf(stderr, "%s: %s: %s\n", prog, src_file(src, "config", where, sizeof(where)),
			err == -PTCAP_E_IO ? strerror(errno) : ptcap_dir_strerror(err));
		return -1;
	}
	if (!err && pc->format == PTCAP_FORMAT_BTS) {
		fprintf(stderr, "%s: %s: a BTS capture (format bts): ptcov reads PT "
			"captures; ptflow decodes this one\n", prog, lpt_capsrc_path(src));
		return -1;
	}
	if (!err) {
		if ((pc->has & PTCAP_HAS_CPU) && !cfg->cpu.vendor) {
			cfg->cpu.vendor = 1;
			cfg->cpu.family = pc->cpu_family;
			cfg->cpu.model = pc->cpu_model;
			cfg->cpu.stepping = pc->cpu_stepping;
		}
		/* the IP filter ranges it was recorded with, unless --filter
		 * gave some (ADDRn_B inclusive) */
		for (unsigned int i = 0; i < PTCAP_ADDR_RANGES && !o->filter_given; i++)
			if (ar[i].cfg == PTCAP_ADDR_FILTER && ar[i].b != UINT64_MAX &&
			    cfg->nfilter < LPT_COV_MAX_FILTERS)
				cfg->filter[cfg->nfilter++] =
					(struct lpt_cov_range){ ar[i].a, ar[i].b + 1 };
	}
	/* a file of another build-id than recorded: refused, unless --force */
	mods->any_build_id = o->force;
	mods->prog = prog;
	src_file(src, "maps", where, sizeof(where));
	err = lpt_capsrc_maps(src, &maps);
	if (err == -PTCAP_E_NOT_REGULAR)
		n = LPT_ERR_COV_NOT_REGULAR;
	else if (err == -PTCAP_E_NOMEM)
		n = LPT_ERR_NOMEM;
	else if (err == -PTCAP_E_TOO_LARGE || (err && !read_error(err)))
		n = LPT_ERR_INVALID;
	else
		n = 0;		/* no maps file: no code */
	if (n < 0) {
		fprintf(stderr, "%s: %s: %s\n", prog, where, lpt_cov_errstr(n));
		return -1;
	}
	if (err)
		return 0;
	n = add_maps(&maps, img, mods, where);
	ptcap_maps_free(&maps);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Every page the last decode missed, the first met first. */
static void report_faults(const struct lpt_cov *cov, const char *name)
{
	const uint64_t *a;
	unsigned long total = 0;
	long n = lpt_cov_faults(cov, &a, &total);

	if (n <= 0) {	/* cannot happen with LPT_ERR_COV_NOMAP: the last */
		uint64_t f = lpt_cov_fault_addr(cov);

		fprintf(stderr, "%s: %s: code missing at 0x%" PRIx64 " (page 0x%" PRIx64
			"): add it with --elf, --raw or --pagecache\n",
			prog, name, f, f & ~(uint64_t)0xfff);
		return;
	}
	for (long i = 0; i < n; i++)
		fprintf(stderr, "%s: %s: code missing at 0x%" PRIx64 " (page 0x%" PRIx64
			")%s\n", prog, name, a[i], a[i] & ~(uint64_t)0xfff,
			i ? "" : ": add it with --elf, --raw or --pagecache");
	if (total > (unsigned long)n)
		fprintf(stderr, "%s: %s: and %lu more pages missing\n", prog, name,
			total - (unsigned long)n);
}

/* The chunk size of -j for a trace of @len bytes (lpt_chunk_next()). */
static size_t chunk_size(const struct opts *o, unsigned int jobs, size_t len)
{
	size_t c = len / (4 * (size_t)jobs);

	if (o->chunk)
		return (size_t)o->chunk;
	if (c < (1u << 20))
		c = 1u << 20;
	return c > LPT_CHUNK_DEFAULT ? LPT_CHUNK_DEFAULT : c;
}

/* Decode one trace; print/write what was asked. With -j, a trace of more
 * than one chunk is decoded in chunks (cov_par.c): @cfg and @img are
 * @cov's, for the other threads' decoders. */
static int run(struct opts *o, struct lpt_cov *cov, const struct lpt_cov_config *cfg,
	       const struct lpt_cov_image *img, const char *name,
	       const uint8_t *buf, size_t len, uint8_t *map)
{
	double t0 = now(), t = 0;
	int ret = 0;
	unsigned int jobs = lpt_par_jobs(o->jobs);
	size_t chunk = chunk_size(o, jobs, len);
	struct cov_par_result par_res, *par = NULL;

	if (jobs > 1 && lpt_chunk_next(buf, len, 0, chunk) < len)
		par = &par_res;
	for (unsigned long i = 0; i < o->repeat; i++) {
		memset(map, 0, o->cfg.map_size);
		if (!par) {
			ret = lpt_cov_decode(cov, buf, len, map);
		} else {
			if (i)
				cov_edges_free(&par->edges);
			if (cov_par_decode(cfg, img, jobs, chunk, buf, len, map, par)) {
				fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
				return -1;
			}
			ret = par->ret;
			if (ret < 0) {
				/* an error: the trace may be corrupt, and a
				 * chunk then need not start where the whole
				 * decode is (ptcov.rst "Every core"): decode
				 * it whole, as -j 1 */
				cov_edges_free(&par->edges);
				par = NULL;
				memset(map, 0, o->cfg.map_size);
				ret = lpt_cov_decode(cov, buf, len, map);
			}
		}
		if (i == 0)
			t = now() - t0;
	}
	if (o->repeat > 1) {
		double all = now() - t0;

		fprintf(stderr, "%s: %s: first decode %.3f ms, then %.3f ms per decode (%lu decodes)\n",
			prog, name, t * 1e3, (all - t) * 1e3 / (double)(o->repeat - 1),
			o->repeat);
	}
	if (ret == LPT_ERR_COV_NOMAP)	/* of a whole decode (-j: on errors) */
		report_faults(cov, name);
	else if (ret < 0)
		fprintf(stderr, "%s: %s: %s\n", prog, name, lpt_cov_errstr(ret));
	if (o->edges || o->format != FMT_EDGES) {
		const struct lpt_cov_edge *e = par ? par->edges.e : NULL;
		const struct cov_blk *const *dst = NULL;
		uint64_t gen = 0;
		/* lcov, drcov: with the destinations' blocks (cov_flow_build()
		 * takes them from the decoder without a lookup) */
		long n = par ? (long)par->edges.n :
			 o->format != FMT_EDGES ? cov_edges_dst(cov, &e, &dst, &gen) :
			 lpt_cov_edges(cov, &e);

		for (long i = 0; o->edges && i < n; i++)
			printf("%" PRIx64 " %" PRIx64 " %" PRIu64 "\n", e[i].src,
			       e[i].dst, e[i].count);
		if (o->format != FMT_EDGES &&
		    (n < 0 || cov_edges_add_dst(&o->acc, e, (size_t)n, dst, cov, gen))) {
			fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(ENOMEM));
			if (par)
				cov_edges_free(&par->edges);
			return -1;
		}
	}
	if (par)
		cov_edges_free(&par->edges);
	if (o->stat) {
		struct lpt_cov_stats st;

		if (par)
			st = par->st;	/* summed over the chunks and threads */
		else
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

/* One capture's summed edges into the lcov sum or the drcov set. */
static int capture_out(struct opts *o, const struct lpt_cov_image *img,
		       const struct cov_modules *mods, const struct lpt_cov_config *cfg,
		       const struct lpt_cov *cov)
{
	uint64_t *entries = calloc(mods->nmod + 1, sizeof(*entries));
	size_t nent = 0;
	struct cov_flow f;
	int ret = 0;

	cov_edges_sort(&o->acc);
	for (size_t m = 0; entries && m < mods->nmod; m++) {
		int type;

		if (!mods->mod[m].synthetic) {
			cov_modules_elf(mods, m, &type, &entries[nent]);
			nent += entries[nent] != 0;
		}
	}
	if (!entries || cov_flow_build(&f, img, cfg, &o->acc, entries, nent, cov,
					       o->format != FMT_DRCOV)) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		free(entries);
		return -1;
	}
	free(entries);
	if (o->format == FMT_DRCOV) {
		ret = cov_drcov_add(o->drcov, &f, mods, o->unknown ? o->unknown : "code");
	} else {
		size_t outside = 0;

		for (size_t i = 0; i < f.ninsn; i++) {
			long m = cov_modules_find(mods, f.insn[i].addr);

			outside += m < 0 || mods->mod[m].synthetic;
		}
		if (outside)
			fprintf(stderr, "%s: %zu of %zu executed instructions are in no ELF file "
				"(a page cache): no lines or functions for them; "
				"--format=drcov covers them\n", prog, outside, f.ninsn);
		/* the records straight into the sum of all captures */
		ret = cov_lcov_write(o->lcov, stderr, prog, &f, &o->acc, mods, img, o->run,
				     o->lctx);
	}
	if (ret)
		fprintf(stderr, "%s: %s\n", prog, strerror(errno ? errno : ENOMEM));
	cov_flow_free(&f);
	cov_edges_free(&o->acc);
	return ret;
}

static int write_output(struct opts *o)
{
	FILE *out = stdout;
	int ret;

	if (o->output) {
		out = fopen(o->output, "wb");
		if (!out) {
			fprintf(stderr, "%s: %s: %s\n", prog, o->output, strerror(errno));
			return -1;
		}
	}
	if (o->format == FMT_DRCOV)
		ret = cov_drcov_write(o->drcov, out);
	else
		ret = cov_merge_write(o->lcov, out, stderr, o->tn, o->all_sources);
	if (o->format == FMT_LCOV)	/* functions without lines, summed */
		cov_lcov_run_write(o->run, stderr);
	if (o->output && fclose(out))
		ret = -1;
	if (ret)
		fprintf(stderr, "%s: %s: %s\n", prog, o->output ? o->output : "stdout",
			strerror(errno));
	return ret;
}

/* Two captures with the same files at the same addresses and the same
 * decoder configuration: their edges can be summed before decoding
 * blocks and looking up lines. */
static bool same_layout(const struct cov_modules *a, const struct lpt_cov_config *ca,
			const struct cov_modules *b, const struct lpt_cov_config *cb)
{
	if (a->nmap != b->nmap || ca->nfilter != cb->nfilter ||
	    memcmp(ca->filter, cb->filter, sizeof(ca->filter)))
		return false;
	for (size_t i = 0; i < a->nmap; i++) {
		const struct cov_map *x = &a->map[i], *y = &b->map[i];

		if (x->start != y->start || x->end != y->end || x->offset != y->offset ||
		    strcmp(a->mod[x->mod].path, b->mod[y->mod].path))
			return false;
	}
	return true;
}

/* The summed edges of the pending captures into the output. */
static int flush_pending(struct opts *o)
{
	int ret = 0;

	if (!o->pend_img)
		return 0;
	ret = capture_out(o, o->pend_img, &o->pend_mods, &o->pend_cfg, o->pend_cov);
	lpt_cov_free(o->pend_cov);	/* it reads pend_img: before the image */
	o->pend_cov = NULL;
	lpt_cov_image_free(o->pend_img);
	o->pend_img = NULL;
	cov_modules_free(&o->pend_mods);
	return ret;
}

/* The code of --elf, --raw, --pagecache for a ptcap directory's image. */
static size_t read_opts_image(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
	return lpt_cov_image_read(ctx, addr, buf, size);
}

/* One exec generation of one process of a system-wide capture. */
struct sys_proc {
	size_t level;
	uint32_t pid;
	size_t gen;
	struct lpt_cov_image *img;
	struct cov_modules mods;
	struct lpt_cov *cov;
	struct cov_edges acc;
};

/* The maps of process entry @k (@pr) of level @lv: a directory's
 * maps.<pid>.<gen> (relative paths joined to the level's directory, which
 * may be a snapshot's), a perf.data's from the source. Then into @img
 * and @mods (add_maps()). */
static int load_maps(struct lpt_capsrc *src, const struct p2p_level *lv,
		     const struct ptcap_process *pr, size_t k, struct lpt_cov_image *img,
		     struct cov_modules *mods)
{
	struct ptcap_maps m;
	char *text;
	size_t len;
	int err;

	if (lpt_capsrc_kind(src) == LPT_CAPSRC_PERF_DATA) {
		if (lpt_capsrc_process_maps(src, k, &m))
			return -1;
	} else {
		if (ptcap_dir_read_file(lv->dir, pr->maps, &text, &len))
			return -1;
		err = ptcap_maps_parse(text, len, &m, NULL);
		free(text);
		if (err)
			return -1;
		for (size_t i = 0; i < m.nmaps; i++) {
			char *path;

			if (m.map[i].path[0] == '/')
				continue;
			if (asprintf(&path, "%s/%s", lv->dir, m.map[i].path) < 0) {
				ptcap_maps_free(&m);
				return -1;
			}
			free(m.map[i].path);
			m.map[i].path = path;
		}
	}
	err = add_maps(&m, img, mods, pr->maps) < 0 ? -1 : 0;
	ptcap_maps_free(&m);
	return err;
}

/*
 * A system-wide capture (ptcap -a): every CPU's trace cut into spans, each
 * given to its thread and its process's exec generation by pt2perf's split
 * (ptflow's rules: spans whose owner is not known are left out, as ptflow
 * leaves them); each generation decoded with the code of its own maps
 * (maps.<pid>.<gen>), its coverage added to the sum.
 */
static int run_system(struct opts *o, struct lpt_capsrc *src, const struct lpt_cov_config *cfg,
		      uint8_t *all)
{
	struct p2p_capture cap = { 0 };
	struct p2p_split_stats sst;
	struct sys_proc *ps = NULL;
	size_t nps = 0;
	uint8_t *map = calloc(1, o->cfg.map_size);
	int st = -1;

	const char *dir = lpt_capsrc_path(src);

	if (!map || flush_pending(o))
		goto out;
	/* a directory's snapshots are levels of its own (p2p_capture_load()) */
	if (lpt_capsrc_kind(src) == LPT_CAPSRC_PERF_DATA ?
	    p2p_capture_from_src(src, &cap, prog) : p2p_capture_load(dir, &cap, prog))
		goto out;
	if (!cap.per_cpu || p2p_split_threads(&cap, &sst, prog))
		goto out;
	if (!cap.split) {
		fprintf(stderr, "%s: %s: no span of the capture could be given to a thread\n",
			prog, dir);
		goto out;
	}
	st = 0;
	for (size_t i = 0; i < cap.npieces; i++) {
		const struct p2p_piece *pc = &cap.pieces[i];
		const struct p2p_file *f = &cap.files[pc->file];
		const struct p2p_level *lv = &cap.lv[f->level];
		const struct ptcap_process *pr;
		struct sys_proc *sp;
		size_t ngen = 0;
		char name[64];

		pr = ptcap_processes_find(&lv->procs, f->pid, &ngen);
		if (!pr || pc->gen >= ngen || pr[pc->gen].missing || !pr[pc->gen].maps)
			continue;
		size_t k;

		for (k = 0; k < nps; k++)
			if (ps[k].level == f->level && ps[k].pid == f->pid && ps[k].gen == pc->gen)
				break;
		if (k < nps) {
			sp = &ps[k];
		} else {
			struct sys_proc *n = realloc(ps, (nps + 1) * sizeof(*n));

			if (!n)
				goto nomem;
			ps = n;
			sp = &ps[nps++];
			memset(sp, 0, sizeof(*sp));
			sp->level = f->level;
			sp->pid = f->pid;
			sp->gen = pc->gen;
			sp->img = lpt_cov_image_alloc();
			if (!sp->img)
				goto nomem;
			sp->mods.any_build_id = o->force;
			sp->mods.prog = prog;
			if (load_maps(src, lv, &pr[pc->gen],
				      (size_t)(&pr[pc->gen] - lv->procs.p), sp->img, &sp->mods)) {
				fprintf(stderr, "%s: %s/%s: %s\n", prog, lv->dir, pr[pc->gen].maps,
					"cannot be read");
				st = -1;
			}
			if (sp->mods.refused)
				st = -1;	/* a binary of another build-id */
			sp->cov = lpt_cov_alloc(cfg, sp->img);
			if (!sp->cov)
				goto nomem;
		}
		snprintf(name, sizeof(name), "pid %u gen %zu", f->pid, pc->gen);
		/* its edges into this generation's sum */
		struct cov_edges keep = o->acc;

		o->acc = sp->acc;
		if (run(o, sp->cov, cfg, sp->img, name, f->data + pc->off, pc->len, map))
			st = -1;
		sp->acc = o->acc;
		o->acc = keep;
		for (size_t j = 0; j < o->cfg.map_size; j++)
			all[j] += map[j];
	}
	for (size_t k = 0; k < nps; k++) {
		if (o->format == FMT_EDGES)
			continue;
		struct cov_edges keep = o->acc;

		o->acc = ps[k].acc;
		if (capture_out(o, ps[k].img, &ps[k].mods, cfg, ps[k].cov))
			st = -1;
		ps[k].acc = o->acc;	/* emptied by capture_out() */
		o->acc = keep;
	}
	goto out;
nomem:
	fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
	st = -1;
out:
	for (size_t k = 0; k < nps; k++) {
		lpt_cov_free(ps[k].cov);
		lpt_cov_image_free(ps[k].img);
		cov_modules_free(&ps[k].mods);
		cov_edges_free(&ps[k].acc);
	}
	free(ps);
	free(map);
	p2p_capture_free(&cap);
	return st;
}

/* Decode every trace of a capture with the code of its maps. */
static int run_dir(struct opts *o, struct lpt_capsrc *src, uint8_t *all)
{
	struct lpt_cov_config cfg = o->cfg;
	struct lpt_cov_image *img = lpt_cov_image_alloc();
	struct cov_modules mods = { 0 };
	struct lpt_cov *cov = NULL;
	uint8_t *map = calloc(1, o->cfg.map_size);
	const char *dir = lpt_capsrc_path(src);
	const struct lpt_capsrc_trace *tr;
	const struct ptcap_processes *ps;
	size_t count = 0;
	unsigned long refused = 0;
	int st = -1, n;

	if (!img || !map) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		goto out;
	}
	n = load_dir(o, src, img, &mods, &cfg);
	if (n < 0)
		goto out;
	refused = mods.refused;	/* decoded without them; an error at the end */
	if (lpt_capsrc_processes(src, &ps) != 1) {
		/* ptcap -a: per process, its config's CPU and filters */
		st = run_system(o, src, &cfg, all);
		goto out;
	}
	if (!n && !o->nimg) {
		if (!refused)	/* else said: the files of other build-ids */
			fprintf(stderr, "%s: %s: no code: a ptcap directory with maps, or --elf, "
				"--raw, --pagecache\n", prog, dir);
		goto out;
	}
	/* the code of --elf, --raw, --pagecache too (after the maps: the
	 * capture's own files win) */
	for (size_t i = 0; i < o->mods.nmap; i++) {
		const struct cov_map *m = &o->mods.map[i];

		if (cov_modules_add(&mods, o->mods.mod[m->mod].path, m->start, m->end,
				    m->offset, o->mods.mod[m->mod].synthetic) < 0)
			goto nomem;
	}
	lpt_cov_image_set_read(img, o->nimg ? read_opts_image : NULL, o->img);
	/* another layout: the pending captures' coverage out first */
	if (o->format != FMT_EDGES && o->pend_img &&
	    !same_layout(&o->pend_mods, &o->pend_cfg, &mods, &cfg) && flush_pending(o))
		goto out;
	cov = lpt_cov_alloc(&cfg, img);
	if (!cov || lpt_capsrc_traces(src, &tr, &count)) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(errno));
		goto out;
	}
	st = 0;
	for (size_t i = 0; i < count; i++) {
		char path[4400];
		uint8_t *buf;
		size_t len;
		int err = lpt_capsrc_load(src, i, PTCAP_DATA_MAX, 0, &buf, &len);

		src_file(src, tr[i].name, path, sizeof(path));
		if (err) {
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				err == -PTCAP_E_IO ? strerror(errno) : ptcap_dir_strerror(err));
			st = -1;
			continue;
		}
		if (run(o, cov, &cfg, img, path, buf, len, map))
			st = -1;
		for (size_t j = 0; j < o->cfg.map_size; j++)
			all[j] += map[j];
		free(buf);
	}
	if (o->format != FMT_EDGES) {
		/* pending until a capture of another layout or the end: the
		 * edges of one layout's captures sum first (a test suite) */
		lpt_cov_free(o->pend_cov);	/* it reads pend_img: first */
		lpt_cov_image_free(o->pend_img);
		cov_modules_free(&o->pend_mods);
		o->pend_img = img;
		o->pend_cov = cov;
		o->pend_mods = mods;
		o->pend_cfg = cfg;
		cov = NULL;
		img = NULL;
		memset(&mods, 0, sizeof(mods));
	}
	goto out;
nomem:
	fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
out:
	lpt_cov_free(cov);
	lpt_cov_image_free(img);
	cov_modules_free(&mods);
	free(map);
	return refused ? -1 : st;
}

static int push(const char ***arr, size_t *n, const char *s)
{
	const char **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return -1;
	a[(*n)++] = s;
	*arr = a;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .repeat = 1, .tn = "" };
	struct lpt_cov *cov = NULL;
	uint8_t *map = NULL, *all = NULL;
	int st = EXIT_OK, r;

	lpt_cov_config_init(&o.cfg);
	o.img = lpt_cov_image_alloc();
	o.lcov = cov_merge_alloc();
	o.run = cov_lcov_run_alloc();
	o.lctx = cov_lcov_ctx_alloc();
	o.drcov = cov_drcov_alloc();
	if (!o.img || !o.lcov || !o.run || !o.lctx || !o.drcov) {
		perror(prog);
		st = EXIT_ERR;
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t n;

		r = 0;
		if (!strncmp(a, "--format=", 9)) {
			v = a + 9;
			a = "--format";
			i--;
		} else if (!strncmp(a, "--jobs=", 7) || (!strncmp(a, "-j", 2) && a[2])) {
			v = a + (a[1] == 'j' ? 2 : 7);
			a = "--jobs";
			i--;
		} else if (!strcmp(a, "-j")) {
			a = "--jobs";
		}
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
		} else if (!strcmp(a, "--all-sources")) {
			o.all_sources = true;
			continue;
		} else if (!strcmp(a, "--force")) {
			o.force = true;
			continue;
		} else if ((a[0] == '-' && a[1] == '-' && strcmp(a, "--")) || !strcmp(a, "-o") ||
			   !strcmp(a, "-k")) {
			if (!v) {
				fprintf(stderr, "%s: %s: missing argument\n", prog, a);
				st = EXIT_USAGE;
				goto out;
			}
			i++;
			if (!strcmp(a, "--pt")) {
				r = push(&o.pts, &o.npt, v) ? -1 : 0;
			} else if (!strcmp(a, "--elf")) {
				r = add_elf(&o, v);
			} else if (!strcmp(a, "--raw")) {
				r = add_raw(&o, v);
			} else if (!strcmp(a, "--pagecache")) {
				r = lpt_cov_image_add_pagecache(o.img, v);
				if (r < 0) {
					r = img_err("--pagecache", v, r);
				} else {
					const char *b = strrchr(v, '/');

					o.unknown = b ? b + 1 : v;
					o.nimg++, r = 0;
				}
			} else if (!strcmp(a, "--filter")) {
				r = add_filter(&o, v);
			} else if (!strcmp(a, "--cpu")) {
				r = parse_cpu(&o, v);
			} else if (!strcmp(a, "--bitmap")) {
				o.bitmap = v;
			} else if (!strcmp(a, "--format")) {
				if (!strcmp(v, "edges")) {
					o.format = FMT_EDGES;
					o.edges = true;
				} else if (!strcmp(v, "lcov")) {
					o.format = FMT_LCOV;
				} else if (!strcmp(v, "drcov")) {
					o.format = FMT_DRCOV;
				} else {
					fprintf(stderr, "%s: --format: want edges, lcov or drcov\n", prog);
					r = -2;
				}
			} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
				o.output = v;
			} else if (!strcmp(a, "--symfs")) {
				o.symfs = v;
			} else if (!strcmp(a, "--max-decompressed")) {
				if (lpt_perf_parse_size(v, &o.max_decompressed)) {
					fprintf(stderr, "%s: --max-decompressed %s: give a size (bytes, or with K, M, G, T)\n",
						prog, v);
					r = -2;
				}
			} else if (!strcmp(a, "--vmlinux") || !strcmp(a, "-k")) {
				o.vmlinux = v;
			} else if (!strcmp(a, "--test-name")) {
				o.tn = v;
			} else if (!strcmp(a, "--map-size")) {
				if (parse_u64(v, &n, 0) || n < 2 || (n & (n - 1)) ||
				    n > (1ull << 30)) {
					fprintf(stderr, "%s: --map-size: want a power of two, 2..2^30\n", prog);
					r = -2;
				}
				o.cfg.map_size = (size_t)n;
			} else if (!strcmp(a, "--jobs")) {
				if (parse_u64(v, &n, 10) || !n || n > 4096) {
					fprintf(stderr, "%s: -j: want 1..4096 threads\n", prog);
					r = -2;
				}
				o.jobs = (unsigned int)n;
			} else if (!strcmp(a, "--chunk-size")) {
				if (lpt_perf_parse_size(v, &o.chunk) || !o.chunk) {
					fprintf(stderr, "%s: --chunk-size %s: give a size (bytes, or with K, M, G)\n",
						prog, v);
					r = -2;
				}
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
		} else if (a[0] != '-' || !strcmp(a, "-")) {
			r = push(&o.dirs, &o.ndir, a) ? -1 : 0;
		} else {
			fprintf(stderr, "%s: unexpected argument %s (see --help)\n", prog, a);
			r = -2;
		}
		if (r) {
			st = r == -2 ? EXIT_USAGE : EXIT_ERR;
			goto out;
		}
	}
	if (!o.npt == !o.ndir) {
		fprintf(stderr, "%s: give ptcap directories or --pt FILE (see --help)\n", prog);
		st = EXIT_USAGE;
		goto out;
	}
	if (o.output && o.format == FMT_EDGES) {
		fprintf(stderr, "%s: -o is for --format=lcov or drcov\n", prog);
		st = EXIT_USAGE;
		goto out;
	}
	if (o.npt && !o.nimg) {
		fprintf(stderr, "%s: no code: give --elf, --raw or --pagecache (or a ptcap directory with maps)\n", prog);
		st = EXIT_USAGE;
		goto out;
	}
	if (o.format == FMT_EDGES && !o.bitmap && !o.stat && o.repeat == 1)
		o.edges = true;
	if (!o.jobs && (o.stat || o.repeat > 1))
		o.jobs = 1;	/* they measure one decoder */
	if (o.edges || o.format != FMT_EDGES)
		o.cfg.flags |= LPT_COV_F_EDGES;
	if (o.format == FMT_LCOV)	/* the instructions from the decoder's blocks */
		o.cfg.flags |= LPT_COV_F_LENS;
	map = calloc(1, o.cfg.map_size);
	all = calloc(1, o.cfg.map_size);
	if (!map || !all) {
		fprintf(stderr, "%s: %s\n", prog, strerror(ENOMEM));
		st = EXIT_ERR;
		goto out;
	}
	if (o.npt) {
		cov = lpt_cov_alloc(&o.cfg, o.img);
		if (!cov) {
			fprintf(stderr, "%s: %s\n", prog, strerror(errno ? errno : ENOMEM));
			st = EXIT_ERR;
			goto out;
		}
		for (size_t i = 0; i < o.npt; i++) {
			uint8_t *buf;
			size_t len;

			if (read_file(o.pts[i], &buf, &len)) {
				st = EXIT_ERR;
				continue;
			}
			if (run(&o, cov, &o.cfg, o.img, o.pts[i], buf, len, map))
				st = EXIT_ERR;
			for (size_t j = 0; j < o.cfg.map_size; j++)
				all[j] += map[j];
			free(buf);
		}
		if (o.format != FMT_EDGES && capture_out(&o, o.img, &o.mods, &o.cfg, cov))
			st = EXIT_ERR;
	}
	for (size_t i = 0; i < o.ndir; i++) {
		const char *d = o.dirs[i];
		struct lpt_capsrc_opts so;
		struct lpt_capsrc *src;
		struct stat sb = { 0 };

		if (strcmp(d, "-") && !lpt_perf_probe(d) && (stat(d, &sb) || !S_ISDIR(sb.st_mode))) {
			fprintf(stderr, "%s: %s: %s\n", prog, d,
				errno && !sb.st_mode ? strerror(errno) :
				"not a ptcap directory or perf.data (a raw trace: --pt FILE --elf PROGRAM)");
			st = EXIT_ERR;
			continue;
		}
		/* a ptcap directory, or a perf.data read in place */
		lpt_capsrc_opts_init(&so);
		so.symfs = o.symfs;
		so.vmlinux = o.vmlinux;
		so.max_decompressed = o.max_decompressed;
		so.err = stderr;
		so.prog = prog;
		/* --force: a perf.data's file of another build-id is used */
		so.flags = o.force ? LPT_CAPSRC_ANY_BUILD_ID : 0;
		if (lpt_capsrc_open(d, &so, &src)) {
			st = EXIT_ERR;
			continue;
		}
		if (run_dir(&o, src, all))
			st = EXIT_ERR;
		lpt_capsrc_close(src);
	}
	if (flush_pending(&o))
		st = EXIT_ERR;
	if (o.format != FMT_EDGES && write_output(&o))
		st = EXIT_ERR;
	if (o.bitmap && write_map(&o, all))
		st = EXIT_ERR;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: stdout: %s\n", prog, strerror(errno));
		st = EXIT_ERR;
	}
out:
	lpt_cov_free(cov);
	lpt_cov_image_free(o.img);
	cov_modules_free(&o.mods);
	cov_edges_free(&o.acc);
	lpt_cov_free(o.pend_cov);
	lpt_cov_image_free(o.pend_img);
	cov_modules_free(&o.pend_mods);
	cov_merge_free(o.lcov);
	cov_lcov_run_free(o.run);
	cov_lcov_ctx_free(o.lctx);
	cov_drcov_free(o.drcov);
	free(o.pts);
	free(o.dirs);
	free(map);
	free(all);
	return st;
}
