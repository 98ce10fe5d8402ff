// SPDX-License-Identifier: GPL-2.0
/*
 * ptafl's door to libpt's coverage decoder (ptafl_cov.h over
 * include/lwpt/pt_cov.h, issue 25): the image is PROGRAM's files as they
 * are mapped at its exec (ASLR off, so every run has these addresses),
 * the executable PT_LOAD segments of each (lpt_cov_image_add_elf(), at
 * the load base of a position-independent one); the decoder is told the
 * filter ranges the trace was recorded with and the CPU for errata.
 */
#include "ptafl_cov.h"

#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <lwpt/pt_cov.h>

struct ptafl_cov {
	struct lpt_cov_image *img;
	struct lpt_cov *cov;
};

/* ELF e_type of @path (ET_EXEC 2, ET_DYN 3), 0 if it cannot be read. */
static unsigned int elf_type(const char *path)
{
	unsigned char h[18];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n != sizeof(h) || memcmp(h, "\177ELF", 4))
		return 0;
	return h[16] | h[17] << 8;	/* little-endian x86-64 */
}

/*
 * Code the image lacks, read from ptafl itself: without a filter the
 * trace also holds the child's code between its fork and its exec, which
 * is ptafl's, at the same addresses (the child is a fork of the spawner, a
 * fork of ptafl). process_vm_readv() on ourselves: an unmapped address is
 * an error (0 bytes), never a fault.
 */
static size_t self_read(void *ctx, uint64_t addr, uint8_t *buf, size_t size)
{
	struct iovec local = { .iov_base = buf, .iov_len = size };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = size };
	ssize_t n;

	(void)ctx;
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	return n > 0 ? (size_t)n : 0;
}

/* Add every file of @s->vma once, at the address its offset-0 mapping has. */
static int image_fill(struct lpt_cov_image *img, const struct ptafl_cov_setup *s, char *err,
		      size_t errlen)
{
	size_t i, j;
	int r;

	for (i = 0; i < s->nvma; i++) {
		const struct ptcap_vma *v = &s->vma[i];
		uint64_t base = v->start;
		bool seen = false;

		for (j = 0; j < i; j++)
			seen |= !strcmp(s->vma[j].path, v->path);
		if (seen || v->offset)
			continue;
		if (elf_type(v->path) != 3)
			base = 0;	/* ET_EXEC: at its own addresses */
		r = lpt_cov_image_add_elf(img, v->path, base);
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", v->path, lpt_cov_errstr(r));
			return -EINVAL;
		}
	}
	return 0;
}

/* The CPU ptafl runs on (CPUID leaf 1, SDM Vol. 2A "CPUID"), Intel only. */
static void this_cpu(struct lpt_cpu *cpu)
{
	unsigned int a, b, c, d, fam, model;

	memset(cpu, 0, sizeof(*cpu));
	if (!__get_cpuid(0, &a, &b, &c, &d) || b != 0x756e6547)	/* "Genu" */
		return;
	__get_cpuid(1, &a, &b, &c, &d);
	fam = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	if (fam == 6 || fam == 0xf)
		model += ((a >> 16) & 0xf) << 4;
	*cpu = (struct lpt_cpu){ .vendor = 1, .family = (uint16_t)fam, .model = (uint8_t)model,
				 .stepping = (uint8_t)(a & 0xf) };
}

int ptafl_cov_new(struct ptafl_cov **cp, const struct ptafl_cov_setup *s, char *err,
		  size_t errlen)
{
	struct lpt_cov_config cfg;
	struct ptafl_cov *c;
	unsigned int f = 0, m = 0, st = 0;
	size_t i;
	int r;

	lpt_cov_config_init(&cfg);
	cfg.map_size = s->map_size;
	if (s->nfilter > LPT_COV_MAX_FILTERS) {
		snprintf(err, errlen, "more than %d filter ranges", LPT_COV_MAX_FILTERS);
		return -EINVAL;
	}
	for (i = 0; i < s->nfilter; i++) {
		cfg.filter[i].start = s->filter[i].a;
		cfg.filter[i].end = s->filter[i].b + 1;	/* ADDRn_B is inclusive */
	}
	cfg.nfilter = (uint32_t)s->nfilter;
	if (s->cpu) {
		if (sscanf(s->cpu, "%u/%u/%u", &f, &m, &st) < 2) {
			snprintf(err, errlen, "--cpu=%s: expected FAMILY/MODEL[/STEPPING]", s->cpu);
			return -EINVAL;
		}
		cfg.cpu = (struct lpt_cpu){ .vendor = 1, .family = (uint16_t)f,
					    .model = (uint8_t)m, .stepping = (uint8_t)st };
	} else {
		this_cpu(&cfg.cpu);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->img = lpt_cov_image_alloc();
	if (!c->img) {
		free(c);
		return -ENOMEM;
	}
	r = image_fill(c->img, s, err, errlen);
	if (!s->nfilter)
		lpt_cov_image_set_read(c->img, self_read, NULL);
	if (!r) {
		c->cov = lpt_cov_alloc(&cfg, c->img);
		if (!c->cov) {
			r = -errno;
			snprintf(err, errlen, "the coverage decoder: %s", strerror(errno));
		}
	}
	if (r) {
		lpt_cov_image_free(c->img);
		free(c);
		return r;
	}
	*cp = c;
	return 0;
}

int ptafl_cov_decode(struct ptafl_cov *c, const void *trace, size_t len, uint8_t *map)
{
	int r = lpt_cov_decode(c->cov, trace, len, map);

	if (r == LPT_ERR_COV_NOMAP)
		return -ENOENT;
	return r < 0 ? -EBADMSG : 0;
}

void ptafl_cov_free(struct ptafl_cov *c)
{
	if (!c)
		return;
	lpt_cov_free(c->cov);
	lpt_cov_image_free(c->img);
	free(c);
}

uint32_t ptafl_edge_slot(uint64_t src, uint64_t dst, uint32_t map_size)
{
	return lpt_cov_slot(src, dst, map_size);
}
