// SPDX-License-Identifier: GPL-2.0
/*
 * Output buffers. ToPA (SDM 33.2.7.2): naturally aligned buddy blocks as
 * output regions, chained tables of 511 region entries and an END entry,
 * the last table pointing back to the first. Without MENTRY the buffer is
 * one region and its table is entry 0 plus an END entry to itself.
 * Single-range output (SDM 33.2.7.1): one naturally aligned block and no
 * table; OUTPUT_BASE is the block, OUTPUT_MASK_PTRS[31:0] its size - 1.
 */
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/sched.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/io.h>

#include <lwpt/pt_rtit.h>

#include "pt_int.h"

/**
 * pt_buf_free - free a buffer's regions, tables and arrays
 * @b: the buffer (may be partly allocated or empty); zeroed after
 */
void pt_buf_free(struct pt_buf *b)
{
	unsigned long i;

	/* Pages a user mapping still holds stay until it is unmapped. */
	for (i = 0; b->pages && i < b->nr_pages; i++)
		if (b->pages[i])
			__free_page(b->pages[i]);
	for (i = 0; b->tables && i < b->nr_tables; i++)
		if (b->tables[i])
			__free_page(b->tables[i]);
	kvfree(b->pages);
	kvfree(b->tables);
	kvfree(b->region_order);
	kvfree(b->region_off);
	kvfree(b->page_region);
	memset(b, 0, sizeof(*b));
}

/**
 * pt_buf_clear - zero every page of a buffer's output regions
 * @b: an allocated buffer
 *
 * Page by page with cond_resched() between them: a buffer may be as large
 * as half of RAM. May sleep.
 */
void pt_buf_clear(struct pt_buf *b)
{
	unsigned long i;

	for (i = 0; i < b->nr_pages; i++) {
		clear_highpage(b->pages[i]);
		cond_resched();
	}
}

/**
 * pt_buf_write_topa - fill the ToPA tables for a mode
 * @b: an allocated buffer (a single-range buffer has no table: no-op)
 * @mode: LWPT_PT_MODE_*: INT on every region and STOP on the last
 *	(continuous: the gate of pt_output_gate() at START), INT on the last
 *	(wrap, to count wraps), STOP on the last (stop) (SDM 33.2.7.2,
 *	Table 33-3). Without MENTRY the one entry has INT+STOP in continuous
 *	mode (SDM 33.2.7.2 "ToPA PMI and Single Output Region ToPA")
 */
void pt_buf_write_topa(struct pt_buf *b, u32 mode)
{
	unsigned int r, t, e;
	u64 *tab, flags;

	for (t = 0; t < b->nr_tables; t++) {
		u64 next = page_to_phys(b->tables[(t + 1) % b->nr_tables]);

		tab = page_address(b->tables[t]);
		memset(tab, 0, PAGE_SIZE);
		for (e = 0; e < PT_TOPA_REGIONS_PER_TABLE; e++) {
			r = t * PT_TOPA_REGIONS_PER_TABLE + e;
			if (r >= b->nr_regions)
				break;
			flags = 0;
			if (mode == LWPT_PT_MODE_CONTINUOUS)
				flags |= TOPA_ENTRY_INT;
			if (r == b->nr_regions - 1) {
				/*
				 * INT counts wraps; STOP ends stop mode, and
				 * in continuous mode is the gate before the
				 * reader's tail at START (pt_output_gate()).
				 */
				if (mode == LWPT_PT_MODE_WRAP)
					flags |= TOPA_ENTRY_INT;
				if (mode != LWPT_PT_MODE_WRAP)
					flags |= TOPA_ENTRY_STOP;
			}
			tab[e] = topa_entry_make(page_to_phys(b->pages[b->region_off[r] >>
								    PAGE_SHIFT]),
						 b->region_order[r] + PAGE_SHIFT - 12,
						 flags);
		}
		/*
		 * END to the next table, the last one back to the first: a
		 * ring. Without MENTRY entry 1 must be this END with the
		 * table's own base (SDM 33.2.7.2, rule 4c).
		 */
		tab[e] = topa_entry_make(next, 0, TOPA_ENTRY_END);
	}
}

/**
 * pt_buf_alloc - allocate a zeroed ToPA or single-range buffer
 * @b: the buffer, zeroed by the caller
 * @size: bytes, a multiple of PAGE_SIZE (one power of two without MENTRY
 *	or with @single, at most PAGE_SIZE << PT_REGION_ORDER_MAX then)
 * @region_max: largest region, bytes (power of two), 0 for no limit
 * @single: single-range output (SDM 33.2.7.1): one block of @size bytes,
 *	naturally aligned so that OUTPUT_BASE and the mask size - 1 share no
 *	bit ("Single-Range Output Errors"), and no ToPA table
 * @node: NUMA node, or NUMA_NO_NODE
 *
 * Regions are naturally aligned buddy blocks, largest first (SDM 33.2.7.2
 * rule 2b), charged to the memory cgroup of the caller (or of
 * pt_mem_enter()) and zeroed by pt_buf_clear(). May sleep.
 *
 * Return: 0, or -ENOMEM (nothing left allocated).
 */
int pt_buf_alloc(struct pt_buf *b, u64 size, u64 region_max, bool single,
		 int node)
{
	bool one = single || !pt_has(LWPT_PT_CAP_MENTRY);

	unsigned int max_order = PT_REGION_ORDER_MAX, order;
	unsigned long done = 0, i;
	struct page *page;

	if (region_max)
		max_order = min_t(unsigned int, max_order,
				  ilog2(region_max) - PAGE_SHIFT);
	b->single = single;
	b->size = size;
	b->nr_pages = size >> PAGE_SHIFT;
	b->pages = kvcalloc(b->nr_pages, sizeof(*b->pages), GFP_KERNEL_ACCOUNT);
	/* At most one region per page. */
	b->region_order = kvcalloc(b->nr_pages, sizeof(*b->region_order),
				   GFP_KERNEL_ACCOUNT);
	b->region_off = kvcalloc(b->nr_pages, sizeof(*b->region_off),
				 GFP_KERNEL_ACCOUNT);
	b->page_region = kvcalloc(b->nr_pages, sizeof(*b->page_region),
				  GFP_KERNEL_ACCOUNT);
	if (!b->pages || !b->region_order || !b->region_off || !b->page_region)
		goto err_free;

	while (done < b->nr_pages) {
		order = min_t(unsigned int, max_order, ilog2(b->nr_pages - done));
		/* Regions are naturally aligned: keep offsets aligned too. */
		if (done)
			order = min_t(unsigned int, order, __ffs(done));
		for (;;) {
			page = alloc_pages_node(node, GFP_KERNEL_ACCOUNT |
						__GFP_NOWARN | __GFP_NORETRY, order);
			if (page || !order)
				break;
			order--;
		}
		if (!page)
			goto err_free;
		if (one && (1UL << order) != b->nr_pages) {
			/* One region only (SDM 33.2.7.2 MENTRY=0, 33.2.7.1). */
			__free_pages(page, order);
			goto err_free;
		}
		split_page(page, order);
		b->region_order[b->nr_regions] = order;
		b->region_off[b->nr_regions] = (u64)done << PAGE_SHIFT;
		b->nr_regions++;
		for (i = 0; i < (1UL << order); i++) {
			b->pages[done + i] = page + i;
			b->page_region[done + i] = b->nr_regions - 1;
		}
		done += 1UL << order;
	}

	pt_buf_clear(b);
	if (single)
		return 0;	/* no table: the block is the output range */
	b->nr_tables = DIV_ROUND_UP(b->nr_regions, PT_TOPA_REGIONS_PER_TABLE);
	b->tables = kvcalloc(b->nr_tables, sizeof(*b->tables), GFP_KERNEL_ACCOUNT);
	if (!b->tables)
		goto err_free;
	for (i = 0; i < b->nr_tables; i++) {
		b->tables[i] = alloc_pages_node(node, GFP_KERNEL_ACCOUNT |
						__GFP_ZERO, 0);
		if (!b->tables[i])
			goto err_free;
	}
	return 0;

err_free:
	pt_buf_free(b);
	return -ENOMEM;
}

/**
 * pt_buf_output_base - IA32_RTIT_OUTPUT_BASE at START (SDM 33.2.8.7)
 * @b: an allocated buffer
 *
 * Return: the physical address of the first ToPA table, or with
 * single-range output that of the block (SDM 33.2.7.1), bytes.
 */
u64 pt_buf_output_base(const struct pt_buf *b)
{
	return page_to_phys(b->single ? b->pages[0] : b->tables[0]);
}

/**
 * pt_buf_output_mask_ptrs - IA32_RTIT_OUTPUT_MASK_PTRS at START
 * @b: an allocated buffer
 *
 * SDM 33.2.8.8: with ToPA, table offset 0 and OutputOffset 0 (7FH, the
 * LowerMask bits read as 1); with single-range output MaskOrTableOffset
 * [31:0] is the mask, @b->size - 1 (contiguous, the low 7 bits set since
 * the size is at least a page), and OutputOffset [63:32] is 0.
 *
 * Return: the MSR value.
 */
u64 pt_buf_output_mask_ptrs(const struct pt_buf *b)
{
	if (b->single)
		return (b->size - 1) & IA32_RTIT_OUTPUT_MASK_PTRS_SINGLE_MASK;
	return IA32_RTIT_OUTPUT_MASK_PTRS_LOWERMASK;
}

/**
 * pt_buf_pos - buffer offset of the processor's output pointers
 * @b: the buffer
 * @base: IA32_RTIT_OUTPUT_BASE (the current table, or the single range)
 * @mask_ptrs: IA32_RTIT_OUTPUT_MASK_PTRS (entry and offset, SDM 33.2.8.8;
 *	mask and offset with single-range output, SDM 33.2.7.1)
 *
 * Return: the offset of the next byte, bytes (the buffer size for a full
 * STOP region), or -1 if the pointers are not in @b.
 */
s64 pt_buf_pos(const struct pt_buf *b, u64 base, u64 mask_ptrs)
{
	u64 entry = (mask_ptrs & IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_MASK) >>
		    IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_SHIFT;
	u64 off = mask_ptrs >> IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT;
	unsigned int t;
	u64 r;

	if (b->single) {
		/* The range is circular: the offset is always below the size. */
		if (base != page_to_phys(b->pages[0]) ||
		    mask_ptrs != ((off << IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT) |
				  pt_buf_output_mask_ptrs(b)) ||
		    off >= b->size)
			return -1;
		return off;
	}

	for (t = 0; t < b->nr_tables; t++) {
		if (page_to_phys(b->tables[t]) != base)
			continue;
		r = (u64)t * PT_TOPA_REGIONS_PER_TABLE + entry;
		if (entry >= PT_TOPA_REGIONS_PER_TABLE || r >= b->nr_regions)
			return -1;
		return b->region_off[r] + off;
	}
	return -1;
}

/**
 * pt_buf_ptrs - the output pointers that name a buffer offset
 * @b: the buffer
 * @pos: byte offset in @b, below @b->size
 * @base: out, IA32_RTIT_OUTPUT_BASE: the table holding the region's entry
 *	(SDM 33.2.8.7), or the single range (SDM 33.2.7.1)
 * @mask_ptrs: out, IA32_RTIT_OUTPUT_MASK_PTRS: entry index and offset in
 *	the region (SDM 33.2.8.8), or mask and offset
 *
 * The inverse of pt_buf_pos(): O(1).
 */
void pt_buf_ptrs(const struct pt_buf *b, u64 pos, u64 *base, u64 *mask_ptrs)
{
	unsigned int r = pt_buf_region(b, pos);
	u64 off = pos - b->region_off[r];

	if (b->single) {
		*base = page_to_phys(b->pages[0]);
		*mask_ptrs = (off << IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT) |
			     pt_buf_output_mask_ptrs(b);
		return;
	}
	*base = page_to_phys(b->tables[r / PT_TOPA_REGIONS_PER_TABLE]);
	*mask_ptrs = (off << IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT) |
		     (((u64)(r % PT_TOPA_REGIONS_PER_TABLE) <<
		       IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_SHIFT) &
		      IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_MASK) |
		     IA32_RTIT_OUTPUT_MASK_PTRS_LOWERMASK;
}

/**
 * pt_buf_region - the region of a buffer that holds a byte
 * @b: the buffer
 * @pos: byte offset in @b (@b->size: the end of the last region)
 *
 * O(1), safe in NMI context: a table lookup by page.
 *
 * Return: the region's index, 0 .. @b->nr_regions - 1.
 */
unsigned int pt_buf_region(const struct pt_buf *b, u64 pos)
{
	if (pos >= b->size)
		return b->nr_regions - 1;
	return b->page_region[pos >> PAGE_SHIFT];
}

/**
 * pt_buf_region_end - the buffer offset one past a region
 * @b: the buffer
 * @r: region index, below @b->nr_regions
 *
 * Return: the offset, bytes.
 */
u64 pt_buf_region_end(const struct pt_buf *b, unsigned int r)
{
	return b->region_off[r] + (PAGE_SIZE << b->region_order[r]);
}

/**
 * pt_buf_topa_flags - set the INT and STOP bits of one region's entry
 * @b: a ToPA buffer (no-op for a single range)
 * @r: region index
 * @flags: TOPA_ENTRY_INT and/or TOPA_ENTRY_STOP (Table 33-3)
 *
 * The processor may cache entries: call only while this buffer is not
 * loaded with TraceEn=1 (SDM 33.2.7.2).
 */
void pt_buf_topa_flags(struct pt_buf *b, unsigned int r, u64 flags)
{
	u64 *tab;

	if (b->single || r >= b->nr_regions)
		return;
	tab = page_address(b->tables[r / PT_TOPA_REGIONS_PER_TABLE]);
	tab[r % PT_TOPA_REGIONS_PER_TABLE] =
		(tab[r % PT_TOPA_REGIONS_PER_TABLE] &
		 ~(u64)(TOPA_ENTRY_INT | TOPA_ENTRY_STOP)) | flags;
}

/**
 * pt_buf_pad - fill a single-region buffer from an offset to its end with PAD
 * @b: a buffer not loaded with TraceEn=1 past @from
 * @from: byte offset, below @b->size
 *
 * PAD packets (00H, SDM 33.4.2.20) are skipped by every decoder: the bytes
 * continue the packet stream before them.
 */
void pt_buf_pad(struct pt_buf *b, u64 from)
{
	u64 n;

	while (from < b->size) {
		n = min_t(u64, PAGE_SIZE - offset_in_page(from), b->size - from);
		memset(page_address(b->pages[from >> PAGE_SHIFT]) + offset_in_page(from),
		       0, n);
		from += n;
	}
}
