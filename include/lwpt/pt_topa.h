/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Intel Processor Trace: Table of Physical Addresses (ToPA).
 *
 * Source: Intel SDM Vol. 3C section 33.2.7.2, Figure 33-2 and Table 33-3.
 * A ToPA table is an array of 8-byte entries in physical memory, 4K aligned.
 * Entry layout (MAXPHYADDR from CPUID.80000008H:EAX[7:0]):
 *
 *   bit 0          END    the address is the next table's base, not a region
 *   bit 1          reserved
 *   bit 2          INT    signal a ToPA PMI when the region is filled
 *   bit 3          reserved
 *   bit 4          STOP   set IA32_RTIT_STATUS.Stopped when the region is filled
 *   bit 5          reserved
 *   bits 9:6       Size   region size, 4K << Size (ignored if END=1)
 *   bits 11:10     reserved
 *   bits MAXPHYADDR-1:12   output region base (or next table base if END=1)
 *   bits 63:MAXPHYADDR     reserved
 *
 * Set reserved bits, misaligned bases, END with INT or STOP, END in entry 0
 * and (single output region processors) an entry 1 that is not END back to
 * the table base are operational errors (SDM 33.2.7.2 "ToPA Errors").
 */
#ifndef LWPT_PT_TOPA_H
#define LWPT_PT_TOPA_H

#include <lwpt/compiler.h>

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define TOPA_ENTRY_END			(1ull << 0)
#define TOPA_ENTRY_INT			(1ull << 2)
#define TOPA_ENTRY_STOP			(1ull << 4)
#define TOPA_ENTRY_SIZE_SHIFT		6
#define TOPA_ENTRY_SIZE_MASK		(0xfull << TOPA_ENTRY_SIZE_SHIFT)
#define TOPA_ENTRY_BASE_SHIFT		12
/* Reserved bits below the address field: 1, 3, 5, 11:10. */
#define TOPA_ENTRY_RESERVED_LOW		(0xc2aull)
/* Address field for a given MAXPHYADDR (bits MAXPHYADDR-1:12). */
#define TOPA_ENTRY_BASE_MASK(maxphyaddr) \
	((~0ull << TOPA_ENTRY_BASE_SHIFT) & ~(~0ull << (maxphyaddr)))
/* All reserved bits for a given MAXPHYADDR. */
#define TOPA_ENTRY_RESERVED(maxphyaddr) \
	(TOPA_ENTRY_RESERVED_LOW | (~0ull << (maxphyaddr)))

/* Size encodings, Table 33-3: 0 = 4K ... 15 = 128M. */
#define TOPA_SIZE_4K			0u
#define TOPA_SIZE_8K			1u
#define TOPA_SIZE_16K			2u
#define TOPA_SIZE_32K			3u
#define TOPA_SIZE_64K			4u
#define TOPA_SIZE_128K			5u
#define TOPA_SIZE_256K			6u
#define TOPA_SIZE_512K			7u
#define TOPA_SIZE_1M			8u
#define TOPA_SIZE_2M			9u
#define TOPA_SIZE_4M			10u
#define TOPA_SIZE_8M			11u
#define TOPA_SIZE_16M			12u
#define TOPA_SIZE_32M			13u
#define TOPA_SIZE_64M			14u
#define TOPA_SIZE_128M			15u
#define TOPA_SIZE_MAX			TOPA_SIZE_128M
/* Bytes in a region of size encoding enc (0..15). */
#define TOPA_SIZE_BYTES(enc)		(4096ull << (enc))

/* Tables: 4K aligned; entries 8 bytes; proc_trace_table_offset <= 0FFFFFF8H. */
#define TOPA_TABLE_ALIGN		4096ull
#define TOPA_ENTRY_BYTES		8u
#define TOPA_TABLE_OFFSET_MAX		0x0ffffff8ull
#define TOPA_TABLE_ENTRIES_MAX		(TOPA_TABLE_OFFSET_MAX / TOPA_ENTRY_BYTES + 1)

/* One ToPA entry as it sits in memory (Figure 33-2): a little-endian u64. */
struct pt_topa_entry {
	uint64_t raw;
};

LWPT_STATIC_ASSERT(sizeof(struct pt_topa_entry) == TOPA_ENTRY_BYTES, "SDM Figure 33-2");
LWPT_STATIC_ASSERT(TOPA_ENTRY_RESERVED_LOW == ((1ull << 1) | (1ull << 3) | (1ull << 5) |
					   (3ull << 10)), "SDM Figure 33-2");

/**
 * topa_entry_make() - build a ToPA entry value.
 * @base:  region base (END=0, aligned to the region size) or next table base
 *         (END=1, 4K aligned), a physical address.
 * @size:  size encoding TOPA_SIZE_* (ignored, and encoded as 0, if END is set).
 * @flags: TOPA_ENTRY_END, TOPA_ENTRY_INT and/or TOPA_ENTRY_STOP.
 *
 * Does not validate; see the model or the driver for the rules.
 * Return: the 64-bit entry.
 */
static inline uint64_t topa_entry_make(uint64_t base, unsigned int size, uint64_t flags)
{
	uint64_t sz = (flags & TOPA_ENTRY_END) ? 0 : ((uint64_t)size << TOPA_ENTRY_SIZE_SHIFT);

	return (base & (~0ull << TOPA_ENTRY_BASE_SHIFT)) | (sz & TOPA_ENTRY_SIZE_MASK) |
	       (flags & (TOPA_ENTRY_END | TOPA_ENTRY_INT | TOPA_ENTRY_STOP));
}

/* topa_entry_size() - Size encoding (0..15) of an entry value. */
static inline unsigned int topa_entry_size(uint64_t e)
{
	return (unsigned int)((e & TOPA_ENTRY_SIZE_MASK) >> TOPA_ENTRY_SIZE_SHIFT);
}

/* topa_entry_region_bytes() - bytes in the region an entry (END=0) describes. */
static inline uint64_t topa_entry_region_bytes(uint64_t e)
{
	return TOPA_SIZE_BYTES(topa_entry_size(e));
}

/* topa_entry_base() - the physical address in an entry, for a MAXPHYADDR (<= 52). */
static inline uint64_t topa_entry_base(uint64_t e, unsigned int maxphyaddr)
{
	return e & TOPA_ENTRY_BASE_MASK(maxphyaddr);
}

#endif /* LWPT_PT_TOPA_H */
