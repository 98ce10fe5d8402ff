/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the PT subsystem, shared by its files (one per spec concept):
 *   pt_config.c  capabilities (SDM 33.3.1), validation and permissions of a
 *                configuration (SDM 33.2.8), the size-versioned ABI structs
 *   pt_buf.c     ToPA output buffers (SDM 33.2.7.2)
 *   pt_core.c    /dev/pt: sessions, ioctls, per-CPU capture, the ToPA PMI
 */
#ifndef LWPT_KMOD_PT_PT_INT_H
#define LWPT_KMOD_PT_PT_INT_H

#include <linux/mm.h>
#include <linux/types.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_topa.h>

#include "pt.h"

/* Region entries per ToPA table page; the last entry is the END entry. */
#define PT_TOPA_REGIONS_PER_TABLE	(PAGE_SIZE / TOPA_ENTRY_BYTES - 1)
/* Largest region: one buddy block (naturally aligned, SDM 33.2.7.2 2b). */
#define PT_REGION_ORDER_MAX		min_t(unsigned int, MAX_ORDER - 1, \
					      TOPA_SIZE_MAX + 12 - PAGE_SHIFT)

/**
 * struct pt_buf - the trace buffer of one CPU: regions and ToPA tables
 * @size: bytes, the sum of the regions
 * @nr_regions: output regions
 * @region_order: page order of each region (region i has 4K << order bytes)
 * @region_off: byte offset of each region within the buffer
 * @nr_pages: @size / PAGE_SIZE
 * @pages: every page of the buffer in buffer order (split, for mmap)
 * @nr_tables: ToPA table pages
 * @tables: the table pages; table t holds regions t * 511 ... and an END
 */
struct pt_buf {
	u64 size;
	unsigned int nr_regions;
	u8 *region_order;
	u64 *region_off;
	unsigned long nr_pages;
	struct page **pages;
	unsigned int nr_tables;
	struct page **tables;
};

/* The capabilities, decoded once at load (pt_config.c). */
extern struct pt_cpuid_leaf pt_leaf;
extern struct lwpt_pt_caps pt_caps;

static inline bool pt_has(u32 cap)
{
	return pt_caps.caps & cap;
}

/* pt_config.c */
int pt_copy_in(void *kbuf, size_t ksize, size_t ver0, const void __user *ubuf,
	       u32 *usize);
int pt_copy_out(void __user *ubuf, void *kbuf, size_t ksize, u32 usize);
void pt_caps_decode(const struct lwpt_caps *caps);
long pt_ioctl_get_caps(void __user *arg);
int pt_config_check(struct lwpt_pt_config *cfg, u64 *ctlp);
int pt_config_permit(struct lwpt_pt_config *cfg, u64 *cr3);

/* pt_buf.c */
int pt_buf_alloc(struct pt_buf *b, u64 size, u64 region_max, int node);
void pt_buf_free(struct pt_buf *b);
void pt_buf_write_topa(struct pt_buf *b, u32 mode);
s64 pt_buf_pos(const struct pt_buf *b, u64 base, u64 mask_ptrs);

#endif /* LWPT_KMOD_PT_PT_INT_H */
