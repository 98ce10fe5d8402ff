/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building the memory image that libipt's instruction flow decoder reads
 * instructions from: ELF PT_LOAD segments and raw file ranges, added through
 * one image section cache so that several traces can share the mappings.
 *
 * All functions return 0 or a positive count on success and a negative
 * libipt error code (enum pt_error_code, text via pt_errstr()) on failure;
 * on -pte_bad_file errno tells why the file could not be used.
 */
#ifndef LWPT_TOOLS_PTFLOW_IMAGE_H
#define LWPT_TOOLS_PTFLOW_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include <intel-pt.h>

/**
 * ptflow_image_why() - why a file could not be added, for a message.
 * @path: the file ptflow_image_add_raw() or _add_elf() refused.
 * @err:  their negative libipt code (errno as they left it).
 *
 * Return: "not a regular file ..." for a device, FIFO or directory, else
 * libipt's text with strerror(errno) for -pte_bad_file; a static buffer.
 */
const char *ptflow_image_why(const char *path, int err);

/**
 * ptflow_image_add_raw() - map bytes of a file at a virtual address.
 * @image:   the image to add to.
 * @iscache: the section cache the section is added through.
 * @path:    the file.
 * @offset:  file offset in bytes of the first mapped byte.
 * @size:    bytes to map; 0 means "up to the end of the file". Clamped to
 *           the end of the file.
 * @vaddr:   virtual address of the byte at @offset.
 *
 * Sections added later replace overlapping parts of earlier ones (libipt's
 * rule).
 *
 * Return: 0 on success; -pte_bad_file if @path cannot be opened or @offset
 * is at or beyond its end (errno set, EINVAL for a bad offset);
 * -pte_bad_image if @vaddr + size wraps around the address space;
 * -pte_invalid for NULL arguments; other negative libipt codes from
 * pt_iscache_add_file() and pt_image_add_cached().
 */
int ptflow_image_add_raw(struct pt_image *image,
			 struct pt_image_section_cache *iscache,
			 const char *path, uint64_t offset, uint64_t size,
			 uint64_t vaddr);

/**
 * ptflow_image_add_elf() - map the PT_LOAD segments of an ELF file.
 * @image:    the image to add to.
 * @iscache:  the section cache the sections are added through.
 * @path:     an ELF32 or ELF64 little-endian x86 file (executable, shared
 *            object or PIE).
 * @has_base: false: load every segment at its p_vaddr. true: shift all
 *            segments by one bias so that the lowest PT_LOAD p_vaddr,
 *            rounded down to 4 KiB, lands at @base (the load address of a
 *            PIE or shared object as in /proc/PID/maps).
 * @base:     see @has_base.
 *
 * Only the file-backed part of a segment (p_filesz bytes from p_offset) is
 * mapped; the zero-filled rest (p_memsz > p_filesz, .bss) holds no code.
 *
 * Return: the number of segments added (>= 1) on success; -pte_bad_file if
 * @path cannot be opened or read (errno set); -pte_bad_image if it is not an
 * ELF file for x86, a program header lies outside the file, or it has no
 * loadable segment with file contents; -pte_invalid for NULL arguments;
 * other negative libipt codes from the image and section cache.
 */
int ptflow_image_add_elf(struct pt_image *image,
			 struct pt_image_section_cache *iscache,
			 const char *path, bool has_base, uint64_t base);

/* A section added by ptflow_image_add_raw() (ptflow_image_sections()). */
struct ptflow_section {
	const struct pt_image *image;	/* the image it was added to */
	struct pt_image_section_cache *iscache;
	int isid;			/* its id in @iscache */
	uint64_t vaddr, size;		/* where, bytes */
};

/**
 * ptflow_image_sections() - every section added so far, to any image, in
 * the order added (for the lwpt engine, which reads the code itself).
 * @out: receives the array, owned here, valid until the next add.
 *
 * Return: the number of sections.
 */
size_t ptflow_image_sections(const struct ptflow_section **out);

/**
 * ptflow_image_forget() - forget every section noted (a session's end).
 */
void ptflow_image_forget(void);

/**
 * ptflow_image_read() - read code of @image as libipt would: the section
 * added last wins where sections overlap.
 * @image: an image sections were added to with ptflow_image_add_raw().
 * @addr:  virtual address.
 * @buf:   receives the bytes.
 * @size:  bytes wanted.
 *
 * Return: the bytes copied from @addr on (within one section, up to where
 * a later one starts), 0 when no section holds @addr.
 */
size_t ptflow_image_read(const struct pt_image *image, uint64_t addr,
			 uint8_t *buf, size_t size);

#endif /* LWPT_TOOLS_PTFLOW_IMAGE_H */
