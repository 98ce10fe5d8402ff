// SPDX-License-Identifier: GPL-2.0
/*
 * Memory image for ptflow: ELF PT_LOAD segments and raw file ranges.
 * The ELF layout is read from <elf.h> (System V gABI, "Program Header").
 */
#include "tools/ptflow/ptflow_image.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PTFLOW_PAGE_MASK	0xfffull

/* The size of @path in bytes; -pte_bad_file with errno set on failure. */
static int file_size(const char *path, uint64_t *size)
{
	struct stat st;

	if (stat(path, &st))
		return -pte_bad_file;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return -pte_bad_file;
	}
	*size = (uint64_t)st.st_size;
	return 0;
}

const char *ptflow_image_why(const char *path, int err)
{
	static char why[160];
	struct stat st;

	if (err == -pte_bad_file && !stat(path, &st) && !S_ISREG(st.st_mode))
		return "not a regular file (a device, FIFO or directory): not read";
	snprintf(why, sizeof(why), "%s%s%s", pt_errstr(pt_errcode(err)),
		 err == -pte_bad_file ? ": " : "", err == -pte_bad_file ? strerror(errno) : "");
	return why;
}

static int note_section(const struct pt_image *image,
			struct pt_image_section_cache *iscache, int isid,
			uint64_t vaddr, uint64_t size);

int ptflow_image_add_raw(struct pt_image *image,
			 struct pt_image_section_cache *iscache,
			 const char *path, uint64_t offset, uint64_t size,
			 uint64_t vaddr)
{
	uint64_t fsize;
	int isid, err;

	if (!image || !iscache || !path)
		return -pte_invalid;

	err = file_size(path, &fsize);
	if (err)
		return err;
	if (offset >= fsize) {
		errno = EINVAL;
		return -pte_bad_file;
	}
	if (!size || size > fsize - offset)
		size = fsize - offset;
	if (vaddr + size < vaddr && vaddr + size != 0)
		return -pte_bad_image;

	isid = pt_iscache_add_file(iscache, path, offset, size, vaddr);
	if (isid < 0)
		return isid;
	err = pt_image_add_cached(image, iscache, isid, NULL);
	if (err < 0)
		return err;
	return note_section(image, iscache, isid, vaddr, size);
}

/* Every section added, in order (ptflow_image_sections()). */
static struct ptflow_section *sections;
static size_t nsections, sections_cap;

static int note_section(const struct pt_image *image,
			struct pt_image_section_cache *iscache, int isid,
			uint64_t vaddr, uint64_t size)
{
	if (nsections == sections_cap) {
		size_t cap = sections_cap ? 2 * sections_cap : 64;
		struct ptflow_section *n = realloc(sections, cap * sizeof(*n));

		if (!n)
			return -pte_nomem;
		sections = n;
		sections_cap = cap;
	}
	sections[nsections++] = (struct ptflow_section){ image, iscache, isid,
							 vaddr, size };
	return 0;
}

void ptflow_image_forget(void)
{
	free(sections);
	sections = NULL;
	nsections = sections_cap = 0;
}

size_t ptflow_image_sections(const struct ptflow_section **out)
{
	*out = sections;
	return nsections;
}

size_t ptflow_image_read(const struct pt_image *image, uint64_t addr,
			 uint8_t *buf, size_t size)
{
	/* the last section added wins where sections overlap (libipt) */
	for (size_t i = nsections; i-- > 0;) {
		const struct ptflow_section *s = &sections[i];
		uint64_t n;
		int r;

		if (s->image != image || addr < s->vaddr || addr - s->vaddr >= s->size)
			continue;
		n = s->size - (addr - s->vaddr);
		if (n > size)
			n = size;
		/* up to where a later section starts */
		for (size_t j = i + 1; j < nsections; j++)
			if (sections[j].image == image && sections[j].vaddr > addr &&
			    sections[j].vaddr - addr < n)
				n = sections[j].vaddr - addr;
		r = pt_iscache_read(s->iscache, buf, n, s->isid, addr);
		return r > 0 ? (size_t)r : 0;
	}
	return 0;
}

/* Read exactly @len bytes at @off; -pte_bad_image if the file is short. */
static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	if (n < 0)
		return -pte_bad_file;
	if ((size_t)n != len)
		return -pte_bad_image;
	return 0;
}

/* One PT_LOAD segment in class-neutral form. */
struct load_seg {
	uint64_t offset, vaddr, filesz;
};

/*
 * Read the PT_LOAD program headers of the ELF open on @fd into @segs (at
 * most @max). Returns the number found or a negative libipt code.
 */
static int read_load_segments(int fd, uint64_t fsize, struct load_seg *segs,
			      int max)
{
	unsigned char ident[EI_NIDENT];
	uint64_t phoff;
	unsigned int phnum, phentsize, i;
	bool is64;
	int n = 0, err;

	err = read_at(fd, ident, sizeof(ident), 0);
	if (err)
		return err;
	if (memcmp(ident, ELFMAG, SELFMAG) || ident[EI_DATA] != ELFDATA2LSB)
		return -pte_bad_image;

	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;

		err = read_at(fd, &eh, sizeof(eh), 0);
		if (err)
			return err;
		if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386)
			return -pte_bad_image;
		is64 = true;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
		if (phentsize != sizeof(Elf64_Phdr))
			return -pte_bad_image;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;

		err = read_at(fd, &eh, sizeof(eh), 0);
		if (err)
			return err;
		if (eh.e_machine != EM_386 && eh.e_machine != EM_X86_64)
			return -pte_bad_image;
		is64 = false;
		phoff = eh.e_phoff;
		phnum = eh.e_phnum;
		phentsize = eh.e_phentsize;
		if (phentsize != sizeof(Elf32_Phdr))
			return -pte_bad_image;
	} else {
		return -pte_bad_image;
	}

	if (phoff > fsize || (uint64_t)phnum * phentsize > fsize - phoff)
		return -pte_bad_image;

	for (i = 0; i < phnum; i++) {
		struct load_seg s;
		uint32_t type;

		if (is64) {
			Elf64_Phdr ph;

			err = read_at(fd, &ph, sizeof(ph), phoff + i * phentsize);
			if (err)
				return err;
			type = ph.p_type;
			s.offset = ph.p_offset;
			s.vaddr = ph.p_vaddr;
			s.filesz = ph.p_filesz;
		} else {
			Elf32_Phdr ph;

			err = read_at(fd, &ph, sizeof(ph), phoff + i * phentsize);
			if (err)
				return err;
			type = ph.p_type;
			s.offset = ph.p_offset;
			s.vaddr = ph.p_vaddr;
			s.filesz = ph.p_filesz;
		}

		if (type != PT_LOAD || !s.filesz)
			continue;
		if (s.offset > fsize || s.filesz > fsize - s.offset)
			return -pte_bad_image;
		if (n == max)
			return -pte_bad_image;
		segs[n++] = s;
	}
	return n;
}

/* More PT_LOAD segments than any sane ELF has. */
#define PTFLOW_MAX_LOAD_SEGS	64

int ptflow_image_add_elf(struct pt_image *image,
			 struct pt_image_section_cache *iscache,
			 const char *path, bool has_base, uint64_t base)
{
	struct load_seg segs[PTFLOW_MAX_LOAD_SEGS];
	uint64_t fsize, bias = 0, low = UINT64_MAX;
	int fd, n, i, err, saved;

	if (!image || !iscache || !path)
		return -pte_invalid;

	err = file_size(path, &fsize);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -pte_bad_file;
	n = read_load_segments(fd, fsize, segs, PTFLOW_MAX_LOAD_SEGS);
	saved = errno;
	close(fd);
	errno = saved;
	if (n < 0)
		return n;
	if (!n)
		return -pte_bad_image;

	if (has_base) {
		for (i = 0; i < n; i++)
			if (segs[i].vaddr < low)
				low = segs[i].vaddr;
		bias = base - (low & ~PTFLOW_PAGE_MASK);
	}

	for (i = 0; i < n; i++) {
		err = ptflow_image_add_raw(image, iscache, path, segs[i].offset,
					   segs[i].filesz,
					   segs[i].vaddr + bias);
		if (err < 0)
			return err;
	}
	return n;
}
