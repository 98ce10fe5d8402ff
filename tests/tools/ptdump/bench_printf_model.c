// SPDX-License-Identifier: GPL-2.0
/*
 * bench_printf_model: a stand-in for libipt's ptdump, whose binary Debian
 * does not ship, to put ptdump's figures (bench_ptdump) in relation.
 *
 * It decodes each real trace with libipt's own packet decoder
 * (pt_pkt_next(), Debian libipt 2.0.5) and prints every packet the way
 * libipt's ptdump builds a line: the line's fixed-size fields cleared,
 * each field formatted with snprintf(), then one printf("%-*s") per
 * column, to stdio (full buffering) on /dev/null. Only the payload formats
 * of the common packets are modelled; the others print their name. This is
 * a lower bound for libipt's ptdump (which does a little more per line),
 * not a measurement of it.
 *
 * Two uses:
 *   bench_printf_model                 trace MB/s and packets/s of every
 *                                      real trace, best of 5, in process
 *   bench_printf_model [--raw] [--no-pad] FILE
 *                                      the model's text for FILE on stdout,
 *                                      one pass: what bench_ptdump runs and
 *                                      times like a ptdump when libipt's
 *                                      real ptdump could not be built
 *                                      (scripts/build-libipt-ptdump)
 */
#include <intel-pt.h>

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BIG_MIN	(16 << 20)

struct fields {
	char offset[17];
	char raw[33];
	char opcode[10];
	char payload[25];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *name(enum pt_packet_type t)
{
	switch (t) {
	case ppt_pad: return "pad";
	case ppt_psb: return "psb";
	case ppt_psbend: return "psbend";
	case ppt_tnt_8: return "tnt.8";
	case ppt_tnt_64: return "tnt.64";
	case ppt_tip: return "tip";
	case ppt_tip_pge: return "tip.pge";
	case ppt_tip_pgd: return "tip.pgd";
	case ppt_fup: return "fup";
	case ppt_mode: return "mode";
	case ppt_pip: return "pip";
	case ppt_vmcs: return "vmcs";
	case ppt_cbr: return "cbr";
	case ppt_tsc: return "tsc";
	case ppt_mtc: return "mtc";
	case ppt_cyc: return "cyc";
	case ppt_ovf: return "ovf";
	default: return "other";
	}
}

static int opt_raw, opt_no_pad;

/* Print one packet the way the model does. */
static void print_packet(FILE *out, const uint8_t *buf, uint64_t offset,
			 const struct pt_packet *p)
{
	struct fields f;

	memset(&f, 0, sizeof(f));
	snprintf(f.offset, sizeof(f.offset), "%016" PRIx64, offset);
	if (opt_raw) {
		unsigned int i;

		for (i = 0; i < p->size && i < 16; i++)
			snprintf(f.raw + 2 * i, sizeof(f.raw) - 2 * i,
				 "%02x", buf[offset + i]);
	}
	snprintf(f.opcode, sizeof(f.opcode), "%s", name(p->type));
	/* libipt's ptdump, too, builds offset, raw bytes and name of a PAD
	 * before --no-pad skips it (print_packet() sets buffer->skip). */
	if (opt_no_pad && p->type == ppt_pad)
		return;
	switch (p->type) {
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup:
		snprintf(f.payload, sizeof(f.payload), "%x: %016" PRIx64,
			 p->payload.ip.ipc, p->payload.ip.ip);
		break;
	case ppt_tnt_8:
	case ppt_tnt_64: {
		unsigned int i, n = p->payload.tnt.bit_size;

		for (i = 0; i < n && i < sizeof(f.payload) - 1; i++)
			f.payload[i] = (p->payload.tnt.payload >>
					(n - 1 - i)) & 1 ? '!' : '.';
		break;
	}
	case ppt_pip:
		snprintf(f.payload, sizeof(f.payload), "%" PRIx64,
			 p->payload.pip.cr3);
		break;
	case ppt_tsc:
		snprintf(f.payload, sizeof(f.payload), "%" PRIx64,
			 p->payload.tsc.tsc);
		break;
	case ppt_cbr:
		snprintf(f.payload, sizeof(f.payload), "%x",
			 p->payload.cbr.ratio);
		break;
	case ppt_mtc:
		snprintf(f.payload, sizeof(f.payload), "%x",
			 p->payload.mtc.ctc);
		break;
	case ppt_cyc:
		snprintf(f.payload, sizeof(f.payload), "%" PRIx64,
			 p->payload.cyc.value);
		break;
	default:
		break;
	}
	fprintf(out, "%-*s", (int)sizeof(f.offset), f.offset);
	if (opt_raw)
		fprintf(out, " %-*s", (int)sizeof(f.raw), f.raw);
	if (f.payload[0])
		fprintf(out, " %-*s", (int)sizeof(f.opcode), f.opcode);
	else
		fprintf(out, " %s", f.opcode);
	if (f.payload[0])
		fprintf(out, " %s", f.payload);
	fprintf(out, "\n");
}

static int bench(const uint8_t *buf, size_t len, FILE *out, uint64_t *pkts)
{
	struct pt_packet_decoder *dec;
	struct pt_config cfg;
	struct pt_packet p;
	uint64_t off = 0, n = 0;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return -1;
	if (pt_pkt_sync_forward(dec) < 0) {
		pt_pkt_free_decoder(dec);
		return -1;
	}
	for (;;) {
		int ret;

		pt_pkt_get_offset(dec, &off);
		ret = pt_pkt_next(dec, &p, sizeof(p));
		if (ret < 0) {
			if (ret == -pte_eos || pt_pkt_sync_forward(dec) < 0)
				break;
			continue;
		}
		print_packet(out, buf, off, &p);
		n++;
	}
	fflush(out);
	pt_pkt_free_decoder(dec);
	*pkts = n;
	return 0;
}

static void bench_dir(const char *dir, FILE *out)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		size_t nlen = strlen(e->d_name), size, big;
		struct stat st;
		uint8_t *data;
		uint64_t pkts = 0;
		double best = 1e30;
		int fd, r;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			bench_dir(path, out);
			continue;
		}
		if (nlen < 4 || strcmp(e->d_name + nlen - 3, ".pt") ||
		    st.st_size <= 0)
			continue;
		size = (size_t)st.st_size;
		big = ((BIG_MIN + size - 1) / size) * size;
		data = malloc(big);
		fd = open(path, O_RDONLY);
		if (!data || fd < 0 || read(fd, data, size) != (ssize_t)size) {
			free(data);
			if (fd >= 0)
				close(fd);
			continue;
		}
		close(fd);
		for (r = 1; (size_t)r * size < big; r++)
			memcpy(data + (size_t)r * size, data, size);

		for (r = 0; r < 5; r++) {
			double t0 = now(), t;

			if (bench(data, big, out, &pkts) < 0)
				break;
			t = now() - t0;
			if (t < best)
				best = t;
		}
		printf("%-42s %9zu B %9" PRIu64 " pkts %8.1f MB/s %7.2f Mpkt/s\n",
		       e->d_name, big, pkts, (double)big / best / 1e6,
		       (double)pkts / best / 1e6);
		free(data);
	}
	closedir(d);
}

/* One pass over @path to stdout, like `ptdump [--raw] [--no-pad] FILE`. */
static int dump_file(const char *path)
{
	struct stat st;
	uint64_t pkts;
	uint8_t *data;
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
		perror(path);
		return 1;
	}
	data = malloc((size_t)st.st_size);
	if (!data || read(fd, data, (size_t)st.st_size) != st.st_size) {
		perror(path);
		return 1;
	}
	close(fd);
	ret = bench(data, (size_t)st.st_size, stdout, &pkts);
	free(data);
	return ret < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("LWPT_SHARED");
	const char *cands[] = { env, "../shared" };
	char real[PATH_MAX];
	FILE *out;
	size_t i;
	int a;

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--raw")) {
			opt_raw = 1;
		} else if (!strcmp(argv[a], "--no-pad")) {
			opt_no_pad = 1;
		} else {
			fprintf(stderr, "usage: %s [--raw] [--no-pad] [FILE]\n",
				argv[0]);
			return 1;
		}
	}
	if (a < argc)
		return dump_file(argv[a]);

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		struct stat st;

		if (!cands[i])
			continue;
		snprintf(real, sizeof(real), "%s/testdata/pt/real", cands[i]);
		if (!stat(real, &st) && S_ISDIR(st.st_mode))
			break;
	}
	if (i == sizeof(cands) / sizeof(cands[0])) {
		printf("bench_printf_model: no shared test data, skipped\n");
		return 0;
	}
	out = fopen("/dev/null", "w");
	if (!out)
		return 1;
	printf("printf-per-field model of libipt's ptdump (libipt pt_pkt_next, "
	       "snprintf per field, printf per column), best of 5\n");
	bench_dir(real, out);
	fclose(out);
	return 0;
}
