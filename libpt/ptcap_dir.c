// SPDX-License-Identifier: GPL-2.0
/*
 * Reader for the ptcap output directory, version 1
 * (Documentation/ptcap-format.rst).
 */
#include <lwpt/ptcap_dir.h>

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *ptcap_dir_strerror(int err)
{
	if (err < 0)
		err = -err;

	switch (err) {
	case PTCAP_OK:		return "success";
	case PTCAP_E_MAGIC:	return "not a ptcap file (bad first line)";
	case PTCAP_E_VERSION:	return "unsupported ptcap format version";
	case PTCAP_E_SYNTAX:	return "syntax error";
	case PTCAP_E_RANGE:	return "value out of range";
	case PTCAP_E_IO:	return "cannot read file";
	case PTCAP_E_NOMEM:	return "out of memory";
	case PTCAP_E_INVAL:	return "invalid argument";
	case PTCAP_E_NOT_REGULAR: return "not a regular file (a device, FIFO or directory)";
	case PTCAP_E_TOO_LARGE:	return "larger than the limit (Documentation/ptcap-format.rst \"Limits\")";
	case PTCAP_E_SPARSE:	return "a sparse file (mostly holes): not a trace";
	}
	return "unknown error";
}

/* A view of one line: [begin, end), without the newline. */
struct line_cursor {
	const char *pos;
	const char *end;
	size_t lineno;
};

static bool next_line(struct line_cursor *cur, const char **b, const char **e)
{
	const char *nl;

	if (cur->pos >= cur->end)
		return false;

	nl = memchr(cur->pos, '\n', (size_t)(cur->end - cur->pos));
	*b = cur->pos;
	*e = nl ? nl : cur->end;
	cur->pos = nl ? nl + 1 : cur->end;
	cur->lineno++;

	/* Tolerate CRLF line ends. */
	if (*e > *b && (*e)[-1] == '\r')
		(*e)--;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

static const char *skip_token(const char *p, const char *e)
{
	while (p < e && !is_blank(*p))
		p++;
	return p;
}

/* Blank lines and lines whose first non-blank character is '#'. */
static bool is_comment(const char *b, const char *e)
{
	b = skip_blanks(b, e);
	return b == e || *b == '#';
}

static bool token_is(const char *b, const char *e, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(e - b) == n && !memcmp(b, word, n);
}

/*
 * Parse an unsigned number (decimal, 0x-hex or 0-octal as strtoull) that
 * makes up all of [b, e). -PTCAP_E_SYNTAX if it is not a number,
 * -PTCAP_E_RANGE if it exceeds @max.
 */
static int parse_uint(const char *b, const char *e, uint64_t max, uint64_t *val)
{
	char buf[32];
	char *rest;
	size_t n = (size_t)(e - b);
	unsigned long long v;

	if (!n || n >= sizeof(buf) || *b == '-' || *b == '+')
		return n >= sizeof(buf) ? -PTCAP_E_RANGE : -PTCAP_E_SYNTAX;

	memcpy(buf, b, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &rest, 0);
	if (*rest || rest == buf)
		return -PTCAP_E_SYNTAX;
	if (errno == ERANGE || v > max)
		return -PTCAP_E_RANGE;

	*val = v;
	return 0;
}

/* Check "<magic> <version>" on the first line. */
static int check_magic(struct line_cursor *cur, const char *magic)
{
	const char *b, *e, *t;
	uint64_t version;
	int err;

	if (!next_line(cur, &b, &e))
		return -PTCAP_E_MAGIC;

	t = skip_token(b, e);
	if (!token_is(b, t, magic))
		return -PTCAP_E_MAGIC;

	b = skip_blanks(t, e);
	t = skip_token(b, e);
	err = parse_uint(b, t, UINT32_MAX, &version);
	if (err < 0 || skip_blanks(t, e) != e)
		return -PTCAP_E_MAGIC;
	if (version != PTCAP_FORMAT_VERSION)
		return -PTCAP_E_VERSION;
	return 0;
}

/* "family/model[/stepping]", as ptdump's and ptxed's --cpu. */
static int parse_cpu(const char *b, const char *e, struct ptcap_config *cfg)
{
	const char *s1, *s2;
	uint64_t fam, mod, step = 0;
	int err;

	s1 = memchr(b, '/', (size_t)(e - b));
	if (!s1)
		return -PTCAP_E_SYNTAX;
	s2 = memchr(s1 + 1, '/', (size_t)(e - s1 - 1));

	err = parse_uint(b, s1, UINT16_MAX, &fam);
	if (!err)
		err = parse_uint(s1 + 1, s2 ? s2 : e, UINT8_MAX, &mod);
	if (!err && s2)
		err = parse_uint(s2 + 1, e, UINT8_MAX, &step);
	if (err)
		return err;

	cfg->cpu_family = (uint16_t)fam;
	cfg->cpu_model = (uint8_t)mod;
	cfg->cpu_stepping = (uint8_t)step;
	cfg->has |= PTCAP_HAS_CPU;
	return 0;
}

/*
 * The numeric keys of a config file: key, largest value, the field (its
 * offset and width in struct ptcap_config) and its presence bit.
 */
#define NUM_KEY(k, max, f, bit) \
	{ k, max, offsetof(struct ptcap_config, f), \
	  sizeof(((struct ptcap_config *)0)->f), bit }

static const struct num_key {
	const char *key;
	uint64_t max;
	size_t off;
	size_t width;		/* bytes: 1, 4 or 8 */
	unsigned int has;
} num_keys[] = {
	/* IA32_RTIT_CTL.MTCFreq is 4 bits wide (SDM 33.2.8.2). */
	NUM_KEY("mtc-freq", 15, mtc_freq, PTCAP_HAS_MTC_FREQ),
	NUM_KEY("nom-freq", UINT8_MAX, nom_freq, PTCAP_HAS_NOM_FREQ),
	NUM_KEY("cpuid-0x15.eax", UINT32_MAX, cpuid_15_eax, PTCAP_HAS_CPUID_15_EAX),
	NUM_KEY("cpuid-0x15.ebx", UINT32_MAX, cpuid_15_ebx, PTCAP_HAS_CPUID_15_EBX),
	NUM_KEY("tsc-freq", UINT64_MAX, tsc_freq_hz, PTCAP_HAS_TSC_FREQ),
};

/* Store @v (at most the key's max) into the field @k describes. */
static void num_key_store(const struct num_key *k, struct ptcap_config *cfg,
			  uint64_t v)
{
	char *field = (char *)cfg + k->off;
	uint8_t v8 = (uint8_t)v;
	uint32_t v32 = (uint32_t)v;

	if (k->width == sizeof(v8))
		memcpy(field, &v8, sizeof(v8));
	else if (k->width == sizeof(v32))
		memcpy(field, &v32, sizeof(v32));
	else
		memcpy(field, &v, sizeof(v));
	cfg->has |= k->has;
}

/* Parse one "key value" line into @cfg; unknown keys are skipped. */
static int parse_config_line(const char *b, const char *e,
			     struct ptcap_config *cfg)
{
	const char *kb, *ke, *vb, *ve;
	uint64_t v;
	size_t i;
	int err;

	kb = skip_blanks(b, e);
	ke = skip_token(kb, e);
	vb = skip_blanks(ke, e);
	ve = e;
	while (ve > vb && is_blank(ve[-1]))
		ve--;

	if (token_is(kb, ke, "cpu"))
		return parse_cpu(vb, ve, cfg);
	if (token_is(kb, ke, "format")) {
		if (token_is(vb, ve, "pt"))
			cfg->format = PTCAP_FORMAT_PT;
		else if (token_is(vb, ve, "bts"))
			cfg->format = PTCAP_FORMAT_BTS;
		else
			return -PTCAP_E_SYNTAX;
		cfg->has |= PTCAP_HAS_FORMAT;
		return 0;
	}
	for (i = 0; i < sizeof(num_keys) / sizeof(num_keys[0]); i++) {
		if (!token_is(kb, ke, num_keys[i].key))
			continue;
		err = parse_uint(vb, ve, num_keys[i].max, &v);
		if (!err)
			num_key_store(&num_keys[i], cfg, v);
		return err;
	}

	/* Informational or future keys: skipped by design. */
	return 0;
}

/* The value of "<name>=<n>" among the words of [b, e), or -1. */
static int64_t word_value(const char *b, const char *e, const char *name)
{
	size_t n = strlen(name);
	uint64_t v;

	while (b < e) {
		const char *we;

		b = skip_blanks(b, e);
		we = skip_token(b, e);
		if ((size_t)(we - b) > n + 1 && !memcmp(b, name, n) &&
		    b[n] == '=' && !parse_uint(b + n + 1, we, INT32_MAX, &v))
			return (int64_t)v;
		b = we;
	}
	return -1;
}

/*
 * The "<key>.<file> ..." line of a config text (@key with its dot, e.g.
 * "thread."): true and [*@vb, *@e) the rest of the line after the key, or
 * false if there is none.
 */
static bool file_line(const char *text, size_t len, const char *key,
		      const char *file, const char **vb, const char **e)
{
	size_t klen = strlen(key), flen = strlen(file);
	struct line_cursor cur;
	const char *b;

	cur.pos = text;
	cur.end = text + len;
	cur.lineno = 0;
	while (next_line(&cur, &b, e)) {
		const char *kb = skip_blanks(b, *e), *ke = skip_token(kb, *e);

		if ((size_t)(ke - kb) == klen + flen && !memcmp(kb, key, klen) &&
		    !memcmp(kb + klen, file, flen)) {
			*vb = ke;
			return true;
		}
	}
	return false;
}

int ptcap_config_thread(const char *text, size_t len, const char *file,
			uint32_t *tid, uint32_t *pid)
{
	const char *vb, *e;
	int64_t t, p;

	if (!text || !file || !tid || !pid)
		return -PTCAP_E_INVAL;
	if (!file_line(text, len, "thread.", file, &vb, &e))
		return -PTCAP_E_RANGE;
	t = word_value(vb, e, "tid");
	p = word_value(vb, e, "pid");
	if (t < 0 || p < 0)
		return -PTCAP_E_RANGE;
	*tid = (uint32_t)t;
	*pid = (uint32_t)p;
	return 0;
}

int ptcap_config_bts_start(const char *text, size_t len, const char *file,
			   uint64_t *ip)
{
	const char *vb, *e;

	if (!text || !file || !ip)
		return -PTCAP_E_INVAL;
	if (!file_line(text, len, "bts-start.", file, &vb, &e))
		return -PTCAP_E_RANGE;
	vb = skip_blanks(vb, e);
	while (e > vb && is_blank(e[-1]))
		e--;
	return parse_uint(vb, e, UINT64_MAX, ip);
}

int ptcap_config_parse(const char *text, size_t len, struct ptcap_config *cfg,
		       size_t *line)
{
	struct line_cursor cur;
	const char *b, *e;
	int err;

	if (line)
		*line = 0;
	if (!text || !cfg)
		return -PTCAP_E_INVAL;

	memset(cfg, 0, sizeof(*cfg));
	cur.pos = text;
	cur.end = text + len;
	cur.lineno = 0;

	err = check_magic(&cur, PTCAP_CONFIG_MAGIC);
	while (!err && next_line(&cur, &b, &e)) {
		if (is_comment(b, e))
			continue;
		err = parse_config_line(b, e, cfg);
	}

	if (err && line)
		*line = cur.lineno ? cur.lineno : 1;
	return err;
}

/* Parse "<start> <end> <offset> <path>". */
static int parse_map_line(const char *b, const char *e, struct ptcap_map *map)
{
	const char *t;
	uint64_t start, end, offset;
	int err;

	b = skip_blanks(b, e);
	t = skip_token(b, e);
	err = parse_uint(b, t, UINT64_MAX, &start);
	if (err)
		return err;

	b = skip_blanks(t, e);
	t = skip_token(b, e);
	err = parse_uint(b, t, UINT64_MAX, &end);
	if (err)
		return err;

	b = skip_blanks(t, e);
	t = skip_token(b, e);
	err = parse_uint(b, t, UINT64_MAX, &offset);
	if (err)
		return err;

	/* The path is the rest of the line after one run of blanks. */
	b = skip_blanks(t, e);
	if (b == t || b == e)
		return -PTCAP_E_SYNTAX;
	if (end <= start)
		return -PTCAP_E_RANGE;
	if (memchr(b, '\0', (size_t)(e - b)))
		return -PTCAP_E_SYNTAX;

	map->path = strndup(b, (size_t)(e - b));
	if (!map->path)
		return -PTCAP_E_NOMEM;
	map->build_id_size = 0;
	map->start = start;
	map->size = end - start;
	map->offset = offset;
	return 0;
}

/*
 * The records of a file with a magic first line (maps, switches,
 * processes): each line that is not a comment becomes, through @parse, the
 * next @size-byte element of the array *@arr, grown as needed; *@n counts
 * the elements parsed. On error *@line (if not NULL) is the line's number
 * and *@arr keeps the *@n good elements for the caller to free.
 */
typedef int (*record_fn)(const char *b, const char *e, void *rec, size_t index);

static int parse_records(const char *text, size_t len, const char *magic,
			 size_t size, record_fn parse, void **arr, size_t *n,
			 size_t *line)
{
	struct line_cursor cur;
	const char *b, *e;
	size_t cap = 0;
	int err;

	cur.pos = text;
	cur.end = text + len;
	cur.lineno = 0;
	err = check_magic(&cur, magic);
	while (!err && next_line(&cur, &b, &e)) {
		if (is_comment(b, e))
			continue;
		if (*n == cap) {
			size_t ncap = cap ? 2 * cap : 32;
			void *grown = realloc(*arr, ncap * size);

			if (!grown) {
				err = -PTCAP_E_NOMEM;
				break;
			}
			*arr = grown;
			cap = ncap;
		}
		err = parse((const char *)b, e, (char *)*arr + *n * size, *n);
		if (!err)
			(*n)++;
	}
	if (err && line)
		*line = cur.lineno ? cur.lineno : 1;
	return err;
}

static int map_record(const char *b, const char *e, void *rec, size_t index)
{
	(void)index;
	return parse_map_line(b, e, rec);
}

/* The value of hex digit @c, or -1. */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * A "# build-id <hex> <path>" comment (ptcap-format.rst "maps"): the id's
 * bytes into @id (*@n of them) and the path as [*@pb, *@pe). False for any
 * other comment.
 */
static bool build_id_comment(const char *b, const char *e, uint8_t *id, uint8_t *n,
			     const char **pb, const char **pe)
{
	const char *t;
	size_t k = 0;

	b = skip_blanks(b, e);
	if (b == e || *b != '#')
		return false;
	b = skip_blanks(b + 1, e);
	t = skip_token(b, e);
	if (!token_is(b, t, "build-id"))
		return false;
	b = skip_blanks(t, e);
	t = skip_token(b, e);
	if (t == b || (t - b) % 2 || (size_t)(t - b) / 2 > PTCAP_BUILD_ID_MAX)
		return false;
	for (const char *p = b; p < t; p += 2) {
		int hi = hex_digit(p[0]), lo = hex_digit(p[1]);

		if (hi < 0 || lo < 0)
			return false;
		id[k++] = (uint8_t)(hi << 4 | lo);
	}
	b = skip_blanks(t, e);
	if (b == t || b == e)
		return false;
	*n = (uint8_t)k;
	*pb = b;
	*pe = e;
	return true;
}

/* Every "# build-id" comment's id onto the lines of its path. */
static void maps_build_ids(const char *text, size_t len, struct ptcap_maps *maps)
{
	struct line_cursor cur = { .pos = text, .end = text + len };
	const char *b, *e, *pb, *pe;
	uint8_t id[PTCAP_BUILD_ID_MAX], n;

	while (next_line(&cur, &b, &e)) {
		if (cur.lineno == 1 || !is_comment(b, e) ||
		    !build_id_comment(b, e, id, &n, &pb, &pe))
			continue;
		for (size_t i = 0; i < maps->nmaps; i++) {
			struct ptcap_map *m = &maps->map[i];

			if (strlen(m->path) != (size_t)(pe - pb) ||
			    memcmp(m->path, pb, (size_t)(pe - pb)))
				continue;
			memcpy(m->build_id, id, n);
			m->build_id_size = n;
		}
	}
}

int ptcap_maps_parse(const char *text, size_t len, struct ptcap_maps *maps,
		     size_t *line)
{
	void *arr = NULL;
	int err;

	if (line)
		*line = 0;
	if (!maps)
		return -PTCAP_E_INVAL;
	maps->map = NULL;
	maps->nmaps = 0;
	if (!text)
		return -PTCAP_E_INVAL;
	err = parse_records(text, len, PTCAP_MAPS_MAGIC, sizeof(struct ptcap_map),
			    map_record, &arr, &maps->nmaps, line);
	maps->map = arr;
	if (err)
		ptcap_maps_free(maps);
	else
		maps_build_ids(text, len, maps);
	return err;
}

void ptcap_maps_free(struct ptcap_maps *maps)
{
	size_t i;

	if (!maps)
		return;
	for (i = 0; i < maps->nmaps; i++)
		free(maps->map[i].path);
	free(maps->map);
	maps->map = NULL;
	maps->nmaps = 0;
}

/* "<pid>/<tid>", each at most INT32_MAX. */
static int parse_pid_tid(const char *b, const char *e, uint32_t *pid, uint32_t *tid)
{
	const char *slash = memchr(b, '/', (size_t)(e - b));
	uint64_t p, t;
	int err;

	if (!slash)
		return -PTCAP_E_SYNTAX;
	err = parse_uint(b, slash, INT32_MAX, &p);
	if (!err)
		err = parse_uint(slash + 1, e, INT32_MAX, &t);
	if (err)
		return err;
	*pid = (uint32_t)p;
	*tid = (uint32_t)t;
	return 0;
}

static const struct {
	const char *word;
	uint32_t flag;
} switch_words[] = {
	{ "prev-idle", PTCAP_SW_PREV_IDLE },
	{ "prev-kthread", PTCAP_SW_PREV_KTHREAD },
	{ "next-idle", PTCAP_SW_NEXT_IDLE },
	{ "next-kthread", PTCAP_SW_NEXT_KTHREAD },
	{ "preempt", PTCAP_SW_PREEMPT },
};

/* The value of a tsc=<decimal> word at [b, e), b after the '='. */
static int parse_switch_time(const char *b, const char *e, struct ptcap_switch *sw)
{
	const char *p;

	if (sw->has_time)
		return -PTCAP_E_SYNTAX;	/* twice: which one? */
	for (p = b; p < e; p++)
		if (*p < '0' || *p > '9')
			return -PTCAP_E_SYNTAX;
	/* Leading zeros are decimal here, not octal as parse_uint()'s. */
	while (e - b > 1 && *b == '0')
		b++;
	sw->has_time = true;
	return parse_uint(b, e, UINT64_MAX, &sw->time);
}

/* "<tsc> <cpu> <pid>/<tid> <pid>/<tid> [word...] [tsc=<decimal>]" */
static int parse_switch_line(const char *b, const char *e, struct ptcap_switch *sw)
{
	const char *t;
	uint64_t v;
	size_t i;
	int err;

	memset(sw, 0, sizeof(*sw));
	b = skip_blanks(b, e);
	t = skip_token(b, e);
	err = parse_uint(b, t, UINT64_MAX, &sw->tsc);
	if (err)
		return err;
	b = skip_blanks(t, e);
	t = skip_token(b, e);
	err = parse_uint(b, t, UINT32_MAX, &v);
	if (err)
		return err;
	sw->cpu = (uint32_t)v;
	b = skip_blanks(t, e);
	t = skip_token(b, e);
	err = parse_pid_tid(b, t, &sw->prev_pid, &sw->prev_tid);
	if (err)
		return err;
	b = skip_blanks(t, e);
	t = skip_token(b, e);
	err = parse_pid_tid(b, t, &sw->next_pid, &sw->next_tid);
	if (err)
		return err;
	for (b = skip_blanks(t, e); b < e; b = skip_blanks(t, e)) {
		t = skip_token(b, e);
		if (t - b >= 4 && !memcmp(b, "tsc=", 4)) {
			err = parse_switch_time(b + 4, t, sw);
			if (err)
				return err;
			continue;
		}
		for (i = 0; i < sizeof(switch_words) / sizeof(switch_words[0]); i++)
			if (token_is(b, t, switch_words[i].word))
				sw->flags |= switch_words[i].flag;
	}
	return 0;
}

/* By CPU, then TSC, then file order. */
static int cmp_switch(const void *a, const void *b)
{
	const struct ptcap_switch *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return 0;
}

static int switch_record(const char *b, const char *e, void *rec, size_t index)
{
	struct ptcap_switch *sw = rec;
	int err = parse_switch_line(b, e, sw);

	if (!err)
		sw->order = index;
	return err;
}

int ptcap_switches_parse(const char *text, size_t len, struct ptcap_switches *sws,
			 size_t *line)
{
	void *arr = NULL;
	bool sorted = true;
	size_t i;
	int err;

	if (line)
		*line = 0;
	if (!sws)
		return -PTCAP_E_INVAL;
	sws->sw = NULL;
	sws->n = 0;
	if (!text)
		return -PTCAP_E_INVAL;
	err = parse_records(text, len, PTCAP_SWITCHES_MAGIC, sizeof(struct ptcap_switch),
			    switch_record, &arr, &sws->n, line);
	sws->sw = arr;
	if (err) {
		ptcap_switches_free(sws);
		return err;
	}
	/* ptcap writes each CPU's switches in order, CPUs in chunks. */
	for (i = 1; i < sws->n && sorted; i++)
		sorted = cmp_switch(&sws->sw[i - 1], &sws->sw[i]) <= 0;
	if (!sorted)
		qsort(sws->sw, sws->n, sizeof(*sws->sw), cmp_switch);
	return 0;
}

void ptcap_switches_free(struct ptcap_switches *sws)
{
	if (!sws)
		return;
	free(sws->sw);
	sws->sw = NULL;
	sws->n = 0;
}

const struct ptcap_switch *ptcap_switches_at(const struct ptcap_switches *sws,
					     uint32_t cpu, uint64_t tsc)
{
	size_t lo = 0, hi;

	if (!sws || !sws->sw)
		return NULL;
	/* The first switch after (cpu, tsc); the answer is just before it. */
	hi = sws->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ptcap_switch *m = &sws->sw[mid];

		if (m->cpu < cpu || (m->cpu == cpu && m->tsc <= tsc))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || sws->sw[lo - 1].cpu != cpu)
		return NULL;
	return &sws->sw[lo - 1];
}

/* The next blank-separated token of [*b, e) as a number; advances *b. */
static int next_uint(const char **b, const char *e, uint64_t max, uint64_t *val)
{
	const char *p = skip_blanks(*b, e), *t = skip_token(p, e);

	*b = t;
	return parse_uint(p, t, max, val);
}

int ptcap_config_gaps(const char *text, size_t len, const char *file,
		      uint64_t **gaps, size_t *count)
{
	uint64_t *v = NULL, off, prev = 0;
	const char *p, *e;
	size_t n = 0;
	int err = 0;

	if (!text || !file || !gaps || !count)
		return -PTCAP_E_INVAL;
	*gaps = NULL;
	*count = 0;
	if (!file_line(text, len, "gaps.", file, &p, &e))
		return 0;
	while (skip_blanks(p, e) < e) {
		uint64_t *nv;

		err = next_uint(&p, e, UINT64_MAX, &off);
		if (!err && n && off <= prev)
			err = -PTCAP_E_SYNTAX;	/* ascending */
		if (err)
			break;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			err = -PTCAP_E_NOMEM;
			break;
		}
		v = nv;
		v[n++] = prev = off;
	}
	if (err) {
		free(v);
		return err;
	}
	*gaps = v;
	*count = n;
	return 0;
}

int ptcap_config_addr(const char *text, size_t len,
		      struct ptcap_addr_range ranges[PTCAP_ADDR_RANGES])
{
	unsigned int n;

	if (!text || !ranges)
		return -PTCAP_E_INVAL;
	memset(ranges, 0, PTCAP_ADDR_RANGES * sizeof(*ranges));
	for (n = 0; n < PTCAP_ADDR_RANGES; n++) {
		const char *p, *e, *t, *dash;
		struct ptcap_addr_range *r = &ranges[n];
		char idx[2] = { (char)('0' + n), '\0' };
		int err;

		if (!file_line(text, len, "addr", idx, &p, &e))
			continue;
		p = skip_blanks(p, e);
		t = skip_token(p, e);
		if (token_is(p, t, "filter"))
			r->cfg = PTCAP_ADDR_FILTER;
		else if (token_is(p, t, "stop"))
			r->cfg = PTCAP_ADDR_STOP;
		else
			return -PTCAP_E_SYNTAX;
		p = skip_blanks(t, e);
		t = skip_token(p, e);
		if (skip_blanks(t, e) != e)
			return -PTCAP_E_SYNTAX;
		dash = memchr(p, '-', (size_t)(t - p));
		if (!dash)
			return -PTCAP_E_SYNTAX;
		err = parse_uint(p, dash, UINT64_MAX, &r->a);
		if (!err)
			err = parse_uint(dash + 1, t, UINT64_MAX, &r->b);
		if (!err && r->a > r->b)
			err = -PTCAP_E_RANGE;
		if (err)
			return err;
	}
	return 0;
}

/* "<pid> <gen> <first-tsc> <last-tsc> <entry> <maps> <comm>" or "<pid> missing". */
static int parse_process_line(const char *b, const char *e, struct ptcap_process *p)
{
	const char *t;
	uint64_t pid, gen;
	int err;

	memset(p, 0, sizeof(*p));
	err = next_uint(&b, e, INT32_MAX, &pid);
	if (err)
		return err;
	p->pid = (uint32_t)pid;
	b = skip_blanks(b, e);
	t = skip_token(b, e);
	if (token_is(b, t, "missing")) {
		p->missing = true;
		return skip_blanks(t, e) == e ? 0 : -PTCAP_E_SYNTAX;
	}
	err = next_uint(&b, e, UINT32_MAX, &gen);
	if (!err)
		err = next_uint(&b, e, UINT64_MAX, &p->first_tsc);
	if (!err)
		err = next_uint(&b, e, UINT64_MAX, &p->last_tsc);
	if (!err)
		err = next_uint(&b, e, UINT64_MAX, &p->entry);
	if (err)
		return err;
	p->gen = (uint32_t)gen;
	if (p->last_tsc < p->first_tsc)
		return -PTCAP_E_RANGE;
	b = skip_blanks(b, e);
	t = skip_token(b, e);
	if (b == t || memchr(b, '\0', (size_t)(e - b)))
		return -PTCAP_E_SYNTAX;
	p->maps = strndup(b, (size_t)(t - b));
	b = skip_blanks(t, e);
	p->comm = strndup(b, (size_t)(e - b));
	if (!p->maps || !p->comm) {
		free(p->maps);
		free(p->comm);
		return -PTCAP_E_NOMEM;
	}
	return 0;
}

/* By pid, then generation (file order breaks ties). */
static int cmp_process(const void *a, const void *b)
{
	const struct ptcap_process *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return 0;
}

static int process_record(const char *b, const char *e, void *rec, size_t index)
{
	(void)index;
	return parse_process_line(b, e, rec);
}

int ptcap_processes_parse(const char *text, size_t len,
			  struct ptcap_processes *ps, size_t *line)
{
	void *arr = NULL;
	int err;

	if (line)
		*line = 0;
	if (!ps)
		return -PTCAP_E_INVAL;
	ps->p = NULL;
	ps->n = 0;
	if (!text)
		return -PTCAP_E_INVAL;
	err = parse_records(text, len, PTCAP_PROCESSES_MAGIC, sizeof(struct ptcap_process),
			    process_record, &arr, &ps->n, line);
	ps->p = arr;
	if (err) {
		ptcap_processes_free(ps);
		return err;
	}
	if (ps->n)
		qsort(ps->p, ps->n, sizeof(*ps->p), cmp_process);
	return 0;
}

void ptcap_processes_free(struct ptcap_processes *ps)
{
	size_t i;

	if (!ps)
		return;
	for (i = 0; i < ps->n; i++) {
		free(ps->p[i].maps);
		free(ps->p[i].comm);
	}
	free(ps->p);
	ps->p = NULL;
	ps->n = 0;
}

const struct ptcap_process *ptcap_processes_find(const struct ptcap_processes *ps,
						 uint32_t pid, size_t *ngen)
{
	size_t lo = 0, hi, k;

	if (ngen)
		*ngen = 0;
	if (!ps || !ps->p)
		return NULL;
	hi = ps->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ps->p[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ps->n || ps->p[lo].pid != pid)
		return NULL;
	for (k = lo; k < ps->n && ps->p[k].pid == pid; k++)
		;
	if (ngen)
		*ngen = k - lo;
	return &ps->p[lo];
}

/* Join @dir and @name into a malloc'ed path; @dir may be NULL. */
static char *join_path(const char *dir, const char *name)
{
	char *p;

	if (!dir)
		return strdup(name);
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s && !strcmp(name + n - s, suffix);
}

/* A trace file: PT's, or a `format bts` capture's. */
static bool has_trace_suffix(const char *name)
{
	return has_suffix(name, PTCAP_TRACE_SUFFIX) || has_suffix(name, PTCAP_BTS_SUFFIX);
}

int ptcap_dir_list_traces(const char *dir, char ***names, size_t *count)
{
	struct dirent *de;
	char **list = NULL;
	size_t n = 0, cap = 0;
	DIR *d;
	int err = 0, saved;

	if (!dir || !names || !count)
		return -PTCAP_E_INVAL;

	d = opendir(dir);
	if (!d)
		return -PTCAP_E_IO;

	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (!has_trace_suffix(de->d_name))
			continue;

		path = join_path(dir, de->d_name);
		if (!path) {
			err = -PTCAP_E_NOMEM;
			break;
		}
		saved = stat(path, &st);
		free(path);
		if (saved || !S_ISREG(st.st_mode))
			continue;

		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			char **nl = realloc(list, ncap * sizeof(*nl));

			if (!nl) {
				err = -PTCAP_E_NOMEM;
				break;
			}
			list = nl;
			cap = ncap;
		}
		list[n] = strdup(de->d_name);
		if (!list[n]) {
			err = -PTCAP_E_NOMEM;
			break;
		}
		n++;
	}
	closedir(d);

	if (err) {
		ptcap_dir_free_names(list, n);
		return err;
	}
	if (n)
		qsort(list, n, sizeof(*list), cmp_names);
	*names = list;
	*count = n;
	return 0;
}

void ptcap_dir_free_names(char **names, size_t count)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}
