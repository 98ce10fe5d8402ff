// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow: the last branches of a thread killed by a signal (ptflow_lbr.h).
 */
#include "tools/ptflow/ptflow_lbr.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ptflow/ptflow_decode.h"
#include "tools/ptflow/ptflow_sym.h"

/* The next line of [*pos, end) into @buf (NUL-terminated); false at the end. */
static bool next_line(const char **pos, const char *end, char *buf, size_t size)
{
	const char *b = *pos, *e;
	size_t n;

	if (b >= end)
		return false;
	e = memchr(b, '\n', (size_t)(end - b));
	if (!e)
		e = end;
	n = (size_t)(e - b);
	if (n >= size)
		n = size - 1;
	memcpy(buf, b, n);
	buf[n] = '\0';
	*pos = e < end ? e + 1 : end;
	return true;
}

/* The words after a branch's addresses into entry @i; false if malformed. */
static bool branch_words(char *words, struct ptflow_lbr *out, unsigned int i)
{
	char *save = NULL, *w, *e;
	unsigned long c;

	out->cycles[i] = -1;
	for (w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(w, "mispred")) {
			out->mispred[i] = true;
		} else if (!strcmp(w, "in_tx")) {
			out->in_tx[i] = true;
		} else if (!strcmp(w, "abort")) {
			out->abort[i] = true;
		} else if (!strncmp(w, "cycles=", 7)) {
			if (w[7] < '0' || w[7] > '9')
				return false;
			c = strtoul(w + 7, &e, 10);
			if (*e || c > 0xffff)
				return false;
			out->cycles[i] = (int32_t)c;
		}
	}
	return true;
}

int ptflow_lbr_parse(const char *text, size_t len, struct ptflow_lbr *out)
{
	const char *pos = text, *end = text + len;
	char line[256];
	unsigned long long from, to;
	bool first = true;
	int n, used;

	memset(out, 0, sizeof(*out));
	while (next_line(&pos, end, line, sizeof(line))) {
		if (first) {
			if (strcmp(line, "lwpt-lbr 1"))
				return -1;
			first = false;
			continue;
		}
		if (!strncmp(line, "branch ", 7)) {
			used = 0;
			n = sscanf(line + 7, "%llx %llx%n", &from, &to, &used);
			if (n < 2 || out->nr == PTFLOW_LBR_MAX ||
			    !branch_words(line + 7 + used, out, out->nr))
				return -1;
			out->from[out->nr] = from;
			out->to[out->nr] = to;
			out->nr++;
		} else if (!strncmp(line, "tid ", 4)) {
			out->tid = (uint32_t)strtoul(line + 4, NULL, 10);
		} else if (!strncmp(line, "signal ", 7)) {
			out->signal = (int)strtol(line + 7, NULL, 10);
		} else if (!strncmp(line, "depth ", 6)) {
			out->depth = (unsigned int)strtoul(line + 6, NULL, 10);
		}
	}
	return first ? -1 : 0;
}

bool ptflow_lbr_config_file(const char *config, size_t clen, const char *trace,
			    char *file, size_t size)
{
	const char *pos = config, *end = config + clen;
	char line[512], key[300], name[256];

	if (snprintf(key, sizeof(key), "lbr-crash.%s ", trace) >= (int)sizeof(key))
		return false;
	while (next_line(&pos, end, line, sizeof(line))) {
		if (strncmp(line, key, strlen(key)))
			continue;
		if (sscanf(line + strlen(key), "%255s", name) != 1 || strchr(name, '/') ||
		    strlen(name) >= size)
			return false;
		strcpy(file, name);
		return true;
	}
	return false;
}

/* "0xADDR sym+0xOFF" (or the address alone) of @addr. */
static void print_addr(struct ptflow *pf, uint64_t addr)
{
	struct ptflow_symbol s;

	fprintf(pf->out, "0x%" PRIx64, addr);
	if (ptflow_sym_lookup(pf->sym, addr, false, &s) && s.name)
		fprintf(pf->out, " %.*s+0x%" PRIx64, (int)s.name_len, s.name, s.offset);
}

void ptflow_lbr_print(struct ptflow *pf, const struct ptflow_lbr *lbr)
{
	unsigned int i;

	fprintf(pf->out, "last branches of tid %" PRIu32 " (signal %d), most recent first:\n",
		lbr->tid, lbr->signal);
	for (i = 0; i < lbr->nr; i++) {
		fprintf(pf->out, "  %2u  ", i);
		print_addr(pf, lbr->from[i]);
		fprintf(pf->out, " -> ");
		print_addr(pf, lbr->to[i]);
		fprintf(pf->out, "%s%s%s", lbr->mispred[i] ? "  (mispredicted)" : "",
			lbr->in_tx[i] ? "  (in transaction)" : "",
			lbr->abort[i] ? "  (transaction abort)" : "");
		if (lbr->cycles[i] >= 0)
			fprintf(pf->out, "  %" PRId32 " cycles", lbr->cycles[i]);
		fputc('\n', pf->out);
	}
}
