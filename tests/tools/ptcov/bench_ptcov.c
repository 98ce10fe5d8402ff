// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptcov (issue 25 point 4): libpt's coverage decoder against libxdc
 * 7a7894a (dlopen()ed from $(O)/libxdc/libxdc.so, built from
 * ../shared/reference by scripts/build-libxdc with its own flags) and
 * libipt 2.0.5's block decoder (pt_blk_next(), Debian's libipt), on kAFL's
 * real traces with their page caches (../shared/testdata/pt/real/libxdc).
 *
 *   warm: one decoder, the same trace decoded again and again (a fuzzing
 *         loop; 200 decodes, fewer for libipt on long traces);
 *   cold: a new decoder for every decode (set-up included).
 * Time per decode: the fastest of many, the decoders alternating decode
 * by decode; ratios from this one run (make bench). Both map decoders fill the
 * same libxdc-compatible 64 KiB map; the bench checks their hashes agree.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lwpt/pt_cov.h>

#include "tests/libpt/cov_ref.h"

#define MAP_SIZE 65536u

struct xdc_api {
	void *(*init)(uint64_t filter[4][2], void *(*fetch)(void *, uint64_t, bool *),
		      void *opaque, void *bitmap, size_t size);
	int (*decode)(void *self, uint8_t *data, size_t len);
	uint64_t (*hash)(void *self);
	void (*reset)(void *self);
	void (*free)(void *self);
};

struct pages {			/* sorted copy of a page cache */
	size_t n;
	uint64_t *addr;
	const uint8_t **data;
	uint64_t last;
	const uint8_t *last_p;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const uint8_t *page_get(struct pages *pg, uint64_t page)
{
	size_t lo = 0, hi = pg->n;

	if (page == pg->last)
		return pg->last_p;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;

		if (pg->addr[m] < page)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo < pg->n && pg->addr[lo] == page) {
		pg->last = page;
		pg->last_p = pg->data[lo];
		return pg->last_p;
	}
	return NULL;
}

/* libxdc's page_cache_fetch contract (test/page_cache.c). */
static void *xdc_fetch(void *opaque, uint64_t addr, bool *success)
{
	const uint8_t *p = page_get(opaque, addr & ~0xfffull);

	*success = p != NULL;
	return (void *)p;
}

static int ipt_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	size_t done = 0;

	(void)asid;
	while (done < size) {
		const uint8_t *p = page_get(ctx, (ip + done) & ~0xfffull);
		size_t off = (ip + done) & 0xfff, n = 4096 - off;

		if (!p)
			break;
		if (n > size - done)
			n = size - done;
		memcpy(buf + done, p + off, n);
		done += n;
	}
	return done ? (int)done : -pte_nomap;
}

static size_t cov_read(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
	int n = ipt_read(buf, size, NULL, addr, ctx);

	return n < 0 ? 0 : (size_t)n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = **(const uint64_t *const *)a, y = **(const uint64_t *const *)b;

	return x < y ? -1 : x > y;
}

static void pages_from(struct pages *pg, const struct cov_ref_pages *pc)
{
	uint64_t **idx = malloc(pc->n * sizeof(*idx));
	size_t w = 0;

	pg->addr = malloc(pc->n * sizeof(*pg->addr));
	pg->data = malloc(pc->n * sizeof(*pg->data));
	for (size_t i = 0; i < pc->n; i++)
		idx[i] = &pc->addr[i];
	/* stable by address: qsort is not, so break ties by position */
	qsort(idx, pc->n, sizeof(*idx), cmp_u64);
	for (size_t i = 0; i < pc->n; i++) {
		size_t k = (size_t)(idx[i] - pc->addr);
		uint64_t a = *idx[i];

		if (a & 0xfff)
			continue;
		if (w && pg->addr[w - 1] == a) {	/* first entry wins */
			size_t kp = (size_t)(pg->data[w - 1] - pc->data) / 4096;

			if (k < kp)
				pg->data[w - 1] = pc->data + k * 4096;
			continue;
		}
		pg->addr[w] = a;
		pg->data[w++] = pc->data + k * 4096;
	}
	pg->n = w;
	pg->last = 1;
	free(idx);
}

struct trace {
	const char *name, *file, *pages;
	uint64_t start, end;
};

static const struct trace traces[] = {
	{ "Unzip", "Unzip__trace.pt", "Unzip", 0x400000, 0x427000 },
	{ "foo", "foo__trace.pt", "foo", 0x7ffff7819000, 0x7ffff79ca000 },
	{ "mruby", "mruby__trace.pt", "mruby", 0x400000, 0x4b6000 },
	{ "icelake_tip", "icelake_tip__ptlog.pt", "icelake_tip", 0x1000,
	  0xfffffffffffff000 },
};

struct ctx {
	const struct trace *t;
	uint8_t *buf;		/* trace + libxdc's 0x55 end mark */
	size_t len;
	struct pages pg;
	struct lpt_cov_image *img;
	uint8_t map[MAP_SIZE];
	struct xdc_api *xdc;
	char dump[4200];	/* PREFIX.dump */
	const struct cov_ref_pages *pc;
};

/* Seconds one run of @body takes; keeps the minimum in @best. */
#define TIME1(best, body) do {						\
		double t0_ = now(), t_;					\
		body;							\
		t_ = now() - t0_;					\
		if (t_ < (best))					\
			(best) = t_;					\
	} while (0)

static struct lpt_cov *cov_new(struct ctx *c)
{
	struct lpt_cov_config cfg;

	lpt_cov_config_init(&cfg);
	cfg.flags = LPT_COV_F_XDC;
	cfg.nfilter = 1;
	cfg.filter[0].start = c->t->start;
	cfg.filter[0].end = c->t->end;
	return lpt_cov_alloc(&cfg, c->img);
}

static void *xdc_new(struct ctx *c)
{
	uint64_t f[4][2] = { { c->t->start, c->t->end } };

	return c->xdc->init(f, xdc_fetch, &c->pg, c->map, MAP_SIZE);
}

static void ipt_decode(struct ctx *c, struct pt_image *img)
{
	struct pt_config cfg;
	struct pt_block_decoder *d;
	int st;

	cov_ref_config(&cfg, c->buf, c->len, c->t->start, c->t->end, 6, 94, 3);
	d = pt_blk_alloc_decoder(&cfg);
	pt_blk_set_image(d, img);
	for (;;) {
		st = pt_blk_sync_forward(d);
		if (st < 0)
			break;
		for (;;) {
			struct pt_block blk;

			while (st & pts_event_pending) {
				struct pt_event ev;

				st = pt_blk_event(d, &ev, sizeof(ev));
				if (st < 0)
					break;
			}
			if (st < 0)
				break;
			st = pt_blk_next(d, &blk, sizeof(blk));
			if (st < 0)
				break;
		}
	}
	pt_blk_free_decoder(d);
}

static int bench_one(struct ctx *c)
{
	double xw = 1e9, cw = 1e9, xc = 1e9, cc = 1e9, iw = 1e9;
	uint64_t hx = 0, hc;
	struct lpt_cov *cov = cov_new(c);
	void *x = c->xdc ? xdc_new(c) : NULL;
	struct pt_image *img = pt_image_alloc("bench");
	unsigned long n = 200;

	/* libipt at its best: the pages as file sections of PREFIX.dump in
	 * its section cache, added last to first (a later section wins in
	 * libipt's image, the first entry in a page cache) */
	struct pt_image_section_cache *isc = pt_iscache_alloc("bench");

	for (size_t i = c->pc->n; i-- > 0;) {
		int isid;

		if (c->pc->addr[i] & 0xfff)
			continue;
		isid = pt_iscache_add_file(isc, c->dump, i * 4096, 4096, c->pc->addr[i]);
		if (isid >= 0)
			pt_image_add_cached(img, isc, isid, NULL);
	}
	memset(c->map, 0, MAP_SIZE);
	lpt_cov_decode(cov, c->buf, c->len, c->map);
	hc = lpt_cov_map_hash(c->map, MAP_SIZE);
	if (x) {
		c->xdc->reset(x);
		c->xdc->decode(x, c->buf, c->len);
		hx = c->xdc->hash(x);
	}
	/*
	 * The decoders alternate decode by decode, and each keeps its
	 * fastest: on a loaded machine the minimum over many samples is
	 * what each one costs, and both see the same machine.
	 */
	for (unsigned long r = 0; r < n; r++) {
		if (x)
			TIME1(xw, { c->xdc->reset(x); c->xdc->decode(x, c->buf, c->len); });
		TIME1(cw, { memset(c->map, 0, MAP_SIZE);
			    lpt_cov_decode(cov, c->buf, c->len, c->map); });
	}
	for (unsigned long r = 0; r < n / 4; r++) {
		if (x)
			TIME1(xc, { void *y = xdc_new(c);
				    c->xdc->decode(y, c->buf, c->len); c->xdc->free(y); });
		TIME1(cc, { struct lpt_cov *k = cov_new(c);
			    memset(c->map, 0, MAP_SIZE);
			    lpt_cov_decode(k, c->buf, c->len, c->map); lpt_cov_free(k); });
	}
	for (double t0 = now(); now() - t0 < 3.0;)
		TIME1(iw, ipt_decode(c, img));
	printf("%-12s %9.3f %9.3f %6.2fx  %9.3f %9.3f %6.2fx  %9.3f %7.1fx %7.1fx  %s\n",
	       c->t->name, cw * 1e3, x ? xw * 1e3 : 0, x ? xw / cw : 0,
	       cc * 1e3, x ? xc * 1e3 : 0, x ? xc / cc : 0, iw * 1e3,
	       iw / cw, iw / cc,
	       !x ? "(no libxdc)" : hx == hc ? "hash ok" : "HASH DIFFERS");
	if (x)
		c->xdc->free(x);
	lpt_cov_free(cov);
	pt_image_free(img);
	pt_iscache_free(isc);
	return x && hx != hc ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *shared = getenv("LWPT_SHARED");
	const char *o = getenv("O");
	char xdc_so[4096], dir[4096];
	struct xdc_api api;
	struct xdc_api *xdc = NULL;
	void *h;
	int ret = 0;

	snprintf(xdc_so, sizeof(xdc_so), "%s", argc > 1 ? argv[1] : "");
	if (argc <= 1)
		snprintf(xdc_so, sizeof(xdc_so), "%s/libxdc/libxdc.so", o ? o : "build");
	if (!strchr(xdc_so, '/'))	/* dlopen() searches the path otherwise */
		snprintf(xdc_so, sizeof(xdc_so), "./%s/libxdc/libxdc.so", o ? o : "build");
	snprintf(dir, sizeof(dir), "%s/testdata/pt/real/libxdc", shared ? shared : "../shared");
	h = dlopen(xdc_so, RTLD_NOW | RTLD_LOCAL);
	if (h) {
		api.init = (void *(*)(uint64_t[4][2], void *(*)(void *, uint64_t, bool *),
				      void *, void *, size_t))dlsym(h, "libxdc_init");
		api.decode = (int (*)(void *, uint8_t *, size_t))dlsym(h, "libxdc_decode");
		api.hash = (uint64_t (*)(void *))dlsym(h, "libxdc_bitmap_get_hash");
		api.reset = (void (*)(void *))dlsym(h, "libxdc_bitmap_reset");
		api.free = (void (*)(void *))dlsym(h, "libxdc_free");
		if (api.init && api.decode && api.hash && api.reset && api.free)
			xdc = &api;
	}
	if (!xdc)
		printf("bench_ptcov: no libxdc (%s: %s): libxdc columns are 0\n",
		       xdc_so, dlerror());
	printf("ms per decode (fastest of 200 warm, 50 cold, 3 s of libipt); ratio = other / ptcov (above 1: ptcov faster)\n");
	printf("%-12s %9s %9s %7s  %9s %9s %7s  %9s %8s %8s\n", "trace",
	       "warm", "libxdc", "ratio", "cold", "libxdc", "ratio", "libipt-blk",
	       "/warm", "/cold");
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		struct ctx *c = calloc(1, sizeof(*c));
		struct cov_ref_pages pc;
		char path[4096 + 64];
		FILE *f;

		c->t = &traces[i];
		c->xdc = xdc;
		snprintf(path, sizeof(path), "%s/pagecache/%s", dir, c->t->pages);
		if (cov_ref_load_pages(&pc, path)) {
			printf("bench_ptcov: %s missing: skipped\n", path);
			free(c);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, c->t->file);
		f = fopen(path, "rb");
		if (!f) {
			printf("bench_ptcov: %s missing: skipped\n", path);
			cov_ref_free_pages(&pc);
			free(c);
			continue;
		}
		fseek(f, 0, SEEK_END);
		c->len = (size_t)ftell(f);
		fseek(f, 0, SEEK_SET);
		c->buf = malloc(c->len + 16);
		if (fread(c->buf, 1, c->len, f) != c->len)
			c->len = 0;
		fclose(f);
		memset(c->buf + c->len, 0x55, 16);	/* libxdc's end mark */
		pages_from(&c->pg, &pc);
		c->pc = &pc;
		snprintf(c->dump, sizeof(c->dump), "%s/pagecache/%s.dump", dir, c->t->pages);
		c->img = lpt_cov_image_alloc();
		lpt_cov_image_set_read(c->img, cov_read, &c->pg);
		ret |= bench_one(c);
		lpt_cov_image_free(c->img);
		free(c->pg.addr);
		free(c->pg.data);
		cov_ref_free_pages(&pc);
		free(c->buf);
		free(c);
	}
	return ret;
}
