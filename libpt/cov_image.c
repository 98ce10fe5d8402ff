// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The coverage decoder's image (lwpt/pt_cov.h): code ranges at linear
 * addresses, from copies, files, ELF PT_LOAD segments (<elf.h>, System V
 * gABI "Program Header") and kAFL/Nyx page caches, plus an optional read
 * callback. Read on the cold path only (first decode of a block).
 */
#include <lwpt/pt_cov.h>

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libpt/cov_internal.h"
#include <lwpt/ptcap_dir.h>

#define COV_PAGE	4096u

struct cov_seg {
	uint64_t addr;
	uint64_t len;
	uint8_t *data;		/* owned, or inside one of the image's files */
	unsigned long seq;	/* order added: the first added wins */
	bool owned;
};

/* A file mapped for the image: each is mapped once (by device and inode),
 * whatever the number of ranges taken from it. */
struct cov_file {
	dev_t dev;
	ino_t ino;
	uint8_t *map;
	size_t len;
};

struct lpt_cov_image {
	struct cov_seg *seg;	/* sorted by addr, non-overlapping */
	size_t nseg, cap;
	unsigned long seq;
	lpt_cov_read_fn read;
	void *ctx;
	struct cov_file *files;
	size_t nfiles, cap_files;
	unsigned int flags;	/* LPT_COV_IMAGE_F_* */
};

struct lpt_cov_image *lpt_cov_image_alloc(void)
{
	return calloc(1, sizeof(struct lpt_cov_image));
}

void lpt_cov_image_free(struct lpt_cov_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nseg; i++)
		if (img->seg[i].owned)
			free(img->seg[i].data);
	for (size_t i = 0; i < img->nfiles; i++)
		if (img->files[i].len)
			munmap(img->files[i].map, img->files[i].len);
	free(img->files);
	free(img->seg);
	free(img);
}

/* Index of the first segment ending after @addr (nseg if none). */
static size_t seg_find(const struct lpt_cov_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->nseg;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cov_seg *s = &img->seg[mid];

		if (s->addr + s->len - 1 < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int seg_insert(struct lpt_cov_image *img, uint64_t addr,
		      const uint8_t *buf, uint64_t len, bool copy)
{
	struct cov_seg s;
	size_t i;

	if (img->nseg == img->cap) {
		size_t cap = img->cap ? 2 * img->cap : 16;
		struct cov_seg *n = realloc(img->seg, cap * sizeof(*n));

		if (!n)
			return LPT_ERR_NOMEM;
		img->seg = n;
		img->cap = cap;
	}
	s.addr = addr;
	s.len = len;
	s.seq = img->seq;
	s.owned = copy;
	if (copy) {
		s.data = malloc(len);
		if (!s.data)
			return LPT_ERR_NOMEM;
		memcpy(s.data, buf, len);
	} else {
		s.data = (uint8_t *)buf;
	}
	i = seg_find(img, addr);
	memmove(&img->seg[i + 1], &img->seg[i], (img->nseg - i) * sizeof(s));
	img->seg[i] = s;
	img->nseg++;
	return 0;
}

/* Add [addr, addr+len) where no earlier range is: only the gaps; copied,
 * or (@copy false) referring to @buf, which outlives the image. */
static int add_range(struct lpt_cov_image *img, uint64_t addr,
		     const void *buf, size_t len, bool copy)
{
	const uint8_t *b = buf;
	uint64_t end;

	if (!img || !buf || !len || addr + (len - 1) < addr)
		return LPT_ERR_INVALID;
	end = addr + (len - 1);	/* inclusive */
	img->seq++;
	while (addr <= end) {
		size_t i = seg_find(img, addr);
		uint64_t stop = end;
		int err;

		if (i < img->nseg && img->seg[i].addr <= addr) {
			/* covered: skip to the end of that segment */
			uint64_t last = img->seg[i].addr + img->seg[i].len - 1;

			if (last >= end)
				break;
			b += last + 1 - addr;
			addr = last + 1;
			continue;
		}
		if (i < img->nseg && img->seg[i].addr - 1 < stop)
			stop = img->seg[i].addr - 1;
		err = seg_insert(img, addr, b, stop - addr + 1, copy);
		if (err)
			return err;
		if (stop == end)
			break;
		b += stop + 1 - addr;
		addr = stop + 1;
	}
	return 0;
}

int lpt_cov_image_add(struct lpt_cov_image *img, uint64_t addr,
		      const void *buf, size_t len)
{
	return add_range(img, addr, buf, len, true);
}

void lpt_cov_image_set_read(struct lpt_cov_image *img, lpt_cov_read_fn fn,
			    void *ctx)
{
	if (!img)
		return;
	img->read = fn;
	img->ctx = ctx;
}

size_t lpt_cov_image_read(const struct lpt_cov_image *img, uint64_t addr,
			  uint8_t *buf, size_t size)
{
	size_t done = 0;

	if (!img || !buf)
		return 0;
	while (done < size) {
		uint64_t a = addr + done;
		size_t i = seg_find(img, a), n;

		if (i < img->nseg && img->seg[i].addr <= a) {
			const struct cov_seg *s = &img->seg[i];
			uint64_t off = a - s->addr;

			n = s->len - off < size - done ? (size_t)(s->len - off) :
							 size - done;
			memcpy(buf + done, s->data + off, n);
		} else if (img->read) {
			n = img->read(img->ctx, a, buf + done, size - done);
			if (n > size - done)
				n = size - done;
		} else {
			n = 0;
		}
		if (!n)
			break;
		done += n;
	}
	return done;
}

/*
 * Map a whole file for the image (ptcap_file_open(): a regular file only,
 * never blocking on a FIFO or a device); a file already mapped is shared.
 * *@len 0 (and *@buf NULL) for an empty file. LPT_ERR_NOT_SUPPORTED with
 * errno on failure, LPT_ERR_COV_NOT_REGULAR, LPT_ERR_NOMEM.
 */
static int map_file(struct lpt_cov_image *img, const char *path,
		    const uint8_t **buf, size_t *len)
{
	struct cov_file *f;
	struct stat st;
	uint64_t size;
	void *m = NULL;
	int fd;

	fd = ptcap_file_open(NULL, path, 0, 0, &size);
	if (fd == -PTCAP_E_NOT_REGULAR)
		return LPT_ERR_COV_NOT_REGULAR;
	if (fd == -PTCAP_E_NOMEM)
		return LPT_ERR_NOMEM;
	if (fd < 0)
		return LPT_ERR_NOT_SUPPORTED;
	if (fstat(fd, &st) || size > SIZE_MAX) {
		close(fd);
		errno = EFBIG;
		return LPT_ERR_NOT_SUPPORTED;
	}
	for (size_t i = 0; i < img->nfiles; i++)
		if (img->files[i].dev == st.st_dev && img->files[i].ino == st.st_ino &&
		    img->files[i].len == size) {
			close(fd);
			*buf = img->files[i].map;
			*len = img->files[i].len;
			return 0;
		}
	if (img->nfiles == img->cap_files) {
		size_t cap = img->cap_files ? 2 * img->cap_files : 8;
		struct cov_file *n = realloc(img->files, cap * sizeof(*n));

		if (!n) {
			close(fd);
			return LPT_ERR_NOMEM;
		}
		img->files = n;
		img->cap_files = cap;
	}
	if (size) {
		m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			int e = errno;

			close(fd);
			errno = e;
			return LPT_ERR_NOT_SUPPORTED;
		}
	}
	close(fd);
	f = &img->files[img->nfiles++];
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->map = m;
	f->len = (size_t)size;
	*buf = m;
	*len = (size_t)size;
	return 0;
}

int lpt_cov_image_add_file(struct lpt_cov_image *img, const char *path,
			   uint64_t offset, uint64_t size, uint64_t addr)
{
	const uint8_t *b;
	size_t n;
	int err;

	if (!img || !path)
		return LPT_ERR_INVALID;
	err = map_file(img, path, &b, &n);
	if (err)
		return err;
	if (offset >= n)
		return LPT_ERR_INVALID;
	if (!size || size > n - offset)
		size = n - offset;
	return add_range(img, addr, b + offset, size, false);
}

/* One executable PT_LOAD segment: p_filesz bytes at p_offset. */
static int elf_seg(struct lpt_cov_image *img, const uint8_t *b, size_t n,
		   uint64_t off, uint64_t filesz, uint64_t vaddr, int *added)
{
	if (!filesz)
		return 0;
	if (off > n || filesz > n - off)
		return LPT_ERR_INVALID;
	(*added)++;
	return add_range(img, vaddr, b + off, filesz, false);
}

int lpt_cov_image_add_elf(struct lpt_cov_image *img, const char *path,
			  uint64_t base)
{
	const uint8_t *b;
	size_t n;
	int err, added = 0;

	if (!img || !path)
		return LPT_ERR_INVALID;
	err = map_file(img, path, &b, &n);
	if (err)
		return err;
	err = LPT_ERR_INVALID;
	if (n < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG))
		goto out;
	/* the program headers of either class, field by field */
#define ELF_SEGS(Ehdr, Phdr) do {						\
		Ehdr eh;							\
										\
		memcpy(&eh, b, sizeof(eh));					\
		if (eh.e_phentsize != sizeof(Phdr) || eh.e_phoff > n ||	\
		    (uint64_t)eh.e_phnum * sizeof(Phdr) > n - eh.e_phoff)	\
			goto out;						\
		err = 0;							\
		for (unsigned int i = 0; i < eh.e_phnum && !err; i++) {	\
			Phdr ph;						\
										\
			memcpy(&ph, b + eh.e_phoff + i * sizeof(ph), sizeof(ph)); \
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))	\
				err = elf_seg(img, b, n, ph.p_offset, ph.p_filesz, \
					      ph.p_vaddr + base, &added);	\
		}								\
	} while (0)
	if (b[EI_CLASS] == ELFCLASS64 && n >= sizeof(Elf64_Ehdr))
		ELF_SEGS(Elf64_Ehdr, Elf64_Phdr);
	else if (b[EI_CLASS] == ELFCLASS32 && n >= sizeof(Elf32_Ehdr))
		ELF_SEGS(Elf32_Ehdr, Elf32_Phdr);
#undef ELF_SEGS
	if (!err && !added)
		err = LPT_ERR_INVALID;
out:
	return err;
}

int lpt_cov_image_add_pagecache(struct lpt_cov_image *img, const char *prefix)
{
	char *path;
	const uint8_t *a = NULL, *d = NULL;
	size_t alen = 0, dlen = 0, npages;
	int err, added = 0;

	if (!img || !prefix)
		return LPT_ERR_INVALID;
	path = malloc(strlen(prefix) + 6);
	if (!path)
		return LPT_ERR_NOMEM;
	sprintf(path, "%s.addr", prefix);
	err = map_file(img, path, &a, &alen);
	if (!err) {
		sprintf(path, "%s.dump", prefix);
		err = map_file(img, path, &d, &dlen);
	}
	free(path);
	if (err)
		goto out;
	npages = alen / 8;
	if (dlen / COV_PAGE < npages) {
		err = LPT_ERR_INVALID;
		goto out;
	}
	for (size_t i = 0; i < npages && !err; i++) {
		uint64_t pa;

		memcpy(&pa, a + 8 * i, 8);
		pa = le64toh(pa);
		if (pa & (COV_PAGE - 1))
			continue;	/* marked not mapped */
		err = add_range(img, pa, d + i * COV_PAGE, COV_PAGE, false);
		added++;
	}
out:
	return err ? err : added;
}

void lpt_cov_image_set_flags(struct lpt_cov_image *img, unsigned int flags)
{
	if (img)
		img->flags = flags;
}

/* Header fields of a program header of either class. */
struct phdr_view {
	uint32_t type;
	uint64_t offset, filesz, align;
};

static bool phdr_at(const uint8_t *b, size_t n, bool is64, uint64_t at, struct phdr_view *v)
{
	if (is64) {
		Elf64_Phdr ph;

		if (at > n || n - at < sizeof(ph))
			return false;
		memcpy(&ph, b + at, sizeof(ph));
		*v = (struct phdr_view){ ph.p_type, ph.p_offset, ph.p_filesz, ph.p_align };
	} else {
		Elf32_Phdr ph;

		if (at > n || n - at < sizeof(ph))
			return false;
		memcpy(&ph, b + at, sizeof(ph));
		*v = (struct phdr_view){ ph.p_type, ph.p_offset, ph.p_filesz, ph.p_align };
	}
	return true;
}

/*
 * The GNU build-id of the ELF file at @b (@n bytes): the NT_GNU_BUILD_ID
 * note, owner "GNU", of a PT_NOTE segment (System V gABI "Note Section";
 * name and descriptor padded to the segment's 4- or 8-byte alignment),
 * into @id. Returns its length (1..PTCAP_BUILD_ID_MAX), 0 when there is
 * none or the file is not ELF. Read by hand as the PT_LOAD segments are
 * (no libelf in the decoder's image); every offset checked against @n.
 */
static int elf_build_id(const uint8_t *b, size_t n, uint8_t *id)
{
	uint64_t phoff;
	unsigned int phnum, phentsize;
	bool is64;

	if (n < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG))
		return 0;
	is64 = b[EI_CLASS] == ELFCLASS64;
	if (is64 && n >= sizeof(Elf64_Ehdr)) {
		Elf64_Ehdr eh;

		memcpy(&eh, b, sizeof(eh));
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
	} else if (b[EI_CLASS] == ELFCLASS32 && n >= sizeof(Elf32_Ehdr)) {
		Elf32_Ehdr eh;

		memcpy(&eh, b, sizeof(eh));
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
	} else {
		return 0;
	}
	if (phentsize != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return 0;
	for (unsigned int i = 0; i < phnum; i++) {
		struct phdr_view ph;
		uint64_t al, pos, end;

		if (phoff > n || !phdr_at(b, n, is64, phoff + (uint64_t)i * phentsize, &ph))
			return 0;
		if (ph.type != PT_NOTE || ph.offset > n || ph.filesz > n - ph.offset)
			continue;
		al = ph.align == 8 ? 8 : 4;
		pos = ph.offset;
		end = ph.offset + ph.filesz;
		while (end - pos >= 12) {
			uint32_t h[3];	/* namesz, descsz, type */
			uint64_t name, desc;

			memcpy(h, b + pos, sizeof(h));
			name = pos + 12;
			if (h[0] > end - name)
				break;
			desc = (name + h[0] + al - 1) & ~(al - 1);
			if (desc > end || h[1] > end - desc)
				break;
			if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 && !memcmp(b + name, "GNU", 4) &&
			    h[1] >= 1 && h[1] <= PTCAP_BUILD_ID_MAX) {
				memcpy(id, b + desc, h[1]);
				return (int)h[1];
			}
			pos = (desc + h[1] + al - 1) & ~(al - 1);
			if (pos > end)
				break;
		}
	}
	return 0;
}

int lpt_cov_build_id_check(const struct ptcap_map *m, const char *path,
			   uint8_t *id, uint8_t *id_size)
{
	uint8_t have[PTCAP_BUILD_ID_MAX];
	uint64_t size;
	void *map = NULL;
	int fd, n = 0;

	if (!m || !path)
		return LPT_ERR_INVALID;
	if (id_size)
		*id_size = 0;
	if (!m->build_id_size)
		return 0;
	/* the note of the file as it is now: a regular file only */
	fd = ptcap_file_open(NULL, path, 0, 0, &size);
	if (fd < 0) {
		if (fd == -PTCAP_E_NOT_REGULAR)
			errno = EINVAL;
		else if (!errno)
			errno = EIO;
		return LPT_ERR_NOT_SUPPORTED;
	}
	if (size > SIZE_MAX) {
		close(fd);
		errno = EFBIG;
		return LPT_ERR_NOT_SUPPORTED;
	}
	if (size) {
		map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			int e = errno;

			close(fd);
			errno = e;
			return LPT_ERR_NOT_SUPPORTED;
		}
		n = elf_build_id(map, (size_t)size, have);
		munmap(map, (size_t)size);
	}
	close(fd);
	if (id) {
		memcpy(id, have, (size_t)n);
		if (id_size)
			*id_size = (uint8_t)n;
	}
	return n != m->build_id_size || memcmp(have, m->build_id, (size_t)n) ? 1 : 0;
}

int lpt_cov_image_add_ptcap(struct lpt_cov_image *img, const char *dir,
			    void (*warn)(void *ctx, const char *path, int err),
			    void *ctx)
{
	struct ptcap_maps maps;
	char *text;
	size_t len;
	int added = 0, err;

	if (!img || !dir)
		return LPT_ERR_INVALID;
	err = ptcap_dir_read_file(dir, "maps", &text, &len);
	if (err == -PTCAP_E_NOT_REGULAR)
		return LPT_ERR_COV_NOT_REGULAR;
	if (err == -PTCAP_E_NOMEM)
		return LPT_ERR_NOMEM;
	if (err == -PTCAP_E_TOO_LARGE)
		return LPT_ERR_INVALID;
	if (err)
		return 0;
	err = ptcap_maps_parse(text, len, &maps, NULL);
	free(text);
	if (err)
		return err == -PTCAP_E_NOMEM ? LPT_ERR_NOMEM : LPT_ERR_INVALID;
	/* last line first: in the image the first added wins */
	for (size_t i = maps.nmaps; i-- > 0;) {
		const struct ptcap_map *m = &maps.map[i];
		char *path = malloc(strlen(dir) + strlen(m->path) + 2);

		if (!path) {
			ptcap_maps_free(&maps);
			return LPT_ERR_NOMEM;
		}
		if (m->path[0] == '/')
			strcpy(path, m->path);
		else
			sprintf(path, "%s/%s", dir, m->path);
		/* another binary than the one traced: its code is not the
		 * trace's (a read error is add_file()'s to report) */
		if (!(img->flags & LPT_COV_IMAGE_F_ANY_BUILD_ID) &&
		    lpt_cov_build_id_check(m, path, NULL, NULL) == 1) {
			if (warn)
				warn(ctx, path, LPT_ERR_COV_BUILD_ID);
			free(path);
			continue;
		}
		err = lpt_cov_image_add_file(img, path, m->offset, m->size, m->start);
		if (err == LPT_ERR_NOMEM) {
			free(path);
			ptcap_maps_free(&maps);
			return err;
		}
		if (err < 0 && warn)
			warn(ctx, path, err);
		else if (!err)
			added++;
		free(path);
	}
	ptcap_maps_free(&maps);
	return added;
}
