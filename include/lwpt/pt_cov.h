/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libpt coverage decoder: Intel PT trace bytes + the traced code -> the
 * executed control-flow edges, as an AFL-style map of 8-bit counters, a
 * libxdc-compatible map, or the list of distinct edges with their counts.
 * Documentation/ptcov.rst describes the edge definition, the slot
 * function, the cache and its memory cap; tools/ptcov is its command line.
 *
 * A fuzzing loop keeps one decoder per image and decodes every trace with
 * it: blocks, edges and TNT-run paths decoded once are reused by every
 * later decode (libxdc's idea, SDM 33.4.2.1 TNT bits as the key).
 *
 *	struct lpt_cov_image *img = lpt_cov_image_alloc();
 *	lpt_cov_image_add_elf(img, "/usr/bin/target", 0);
 *	struct lpt_cov_config cfg;
 *	lpt_cov_config_init(&cfg);
 *	cfg.filter[0].start = 0x400000; cfg.filter[0].end = 0x427000;
 *	cfg.nfilter = 1;
 *	struct lpt_cov *cov = lpt_cov_alloc(&cfg, img);
 *	for (;;) {
 *		memset(map, 0, cfg.map_size);
 *		if (lpt_cov_decode(cov, trace, len, map) < 0) ...
 *	}
 *
 * Any capture source plugs in here: a ptcap directory, a perf.data AUX
 * area or a fuzzer's own buffer only has to give trace bytes, and the
 * code as ELF files, raw blobs, a page cache or a read callback.
 *
 * Errors are libpt's enum lpt_error (lwpt/pt_pkt.h) plus the LPT_ERR_COV_*
 * codes below; lpt_cov_errstr() names all of them.
 */
#ifndef _LWPT_PT_COV_H
#define _LWPT_PT_COV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <lwpt/pt_pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Coverage-decoder errors (below libpt's enum lpt_error). */
enum lpt_cov_error {
	LPT_ERR_COV_NOMAP	= -32,	/* code needed at an address the image
					 * lacks: lpt_cov_fault_addr() names it */
	LPT_ERR_COV_DESYNC	= -33,	/* trace and code disagree (a TNT bit
					 * where the code needs a TIP, ...):
					 * resynchronised at the next PSB */
	LPT_ERR_COV_BADINSN	= -34,	/* no valid instruction at an address
					 * the trace executes */
	LPT_ERR_COV_NOT_REGULAR	= -35,	/* a file to load is a device, FIFO
					 * or directory (never read) */
	LPT_ERR_COV_BUILD_ID	= -36,	/* a file's build-id is not the one
					 * the capture recorded: another
					 * binary than the one traced */
	LPT_ERR_COV_LOOP	= -37,	/* the flow engine (lwpt/pt_flow.h)
					 * followed 65536 direct jumps and
					 * calls without a packet: an endless
					 * loop of them, no trace progress */
};

/**
 * lpt_cov_errstr() - describe a libpt or coverage-decoder error code.
 * @err: an enum lpt_error or enum lpt_cov_error value.
 *
 * Return: a static string, never NULL.
 */
const char *lpt_cov_errstr(int err);

/* ---------------------------------------------------------------------- */
/* Image: the code the trace ran                                          */

struct lpt_cov_image;

/*
 * The caller's memory reader: copy up to @size bytes of the code at
 * linear address @addr into @buf. Return the number of bytes copied from
 * @addr on (0: @addr is not mapped). Called on the cold path only (when a
 * block is decoded for the first time); must not call back into libpt.
 */
typedef size_t (*lpt_cov_read_fn)(void *ctx, uint64_t addr, uint8_t *buf,
				  size_t size);

/**
 * lpt_cov_image_alloc() - an empty image.
 *
 * Return: the image, or NULL with errno = ENOMEM.
 */
struct lpt_cov_image *lpt_cov_image_alloc(void);

/**
 * lpt_cov_image_free() - free an image; NULL is a no-op. Free every
 * decoder using it first.
 * @img: image.
 */
void lpt_cov_image_free(struct lpt_cov_image *img);

/**
 * lpt_cov_image_add() - add a copy of @len bytes of code at address @addr.
 * @img:  image.
 * @addr: linear address of the first byte.
 * @buf:  the bytes (copied).
 * @len:  at least 1; @addr + @len must not wrap past 2^64.
 *
 * Where ranges overlap, the one added first wins (as kAFL's page cache).
 *
 * Return: 0; LPT_ERR_INVALID (NULL, empty, wrapping); LPT_ERR_NOMEM.
 */
int lpt_cov_image_add(struct lpt_cov_image *img, uint64_t addr,
		      const void *buf, size_t len);

/**
 * lpt_cov_image_add_file() - add bytes of a file at an address (a raw blob,
 * as ptflow --raw FILE:FROM-TO:ADDR).
 * @img:    image.
 * @path:   the file.
 * @offset: first byte of the file to load.
 * @size:   bytes to load; 0 for "to the end of the file".
 * @addr:   linear address of the byte at @offset.
 *
 * The file is mapped (once per image, whatever the number of ranges), not
 * copied; it must be a regular file (ptcap_file_open()).
 *
 * Return: 0; LPT_ERR_INVALID (NULL, @offset beyond the end, empty);
 * LPT_ERR_NOMEM; LPT_ERR_COV_NOT_REGULAR for a device, FIFO or directory;
 * LPT_ERR_NOT_SUPPORTED with errno set when the file cannot be read.
 */
int lpt_cov_image_add_file(struct lpt_cov_image *img, const char *path,
			   uint64_t offset, uint64_t size, uint64_t addr);

/**
 * lpt_cov_image_add_elf() - add the executable PT_LOAD segments of an ELF
 * file (32- or 64-bit, System V gABI "Program Header").
 * @img:  image.
 * @path: the ELF file.
 * @base: added to every p_vaddr (the load address of a PIE or shared
 *        object; 0 for a fixed-address executable).
 *
 * The file is mapped as lpt_cov_image_add_file()'s, not copied.
 *
 * Return: 0; LPT_ERR_INVALID (not an ELF file, no executable segment,
 * a segment beyond the file's end); LPT_ERR_NOMEM; LPT_ERR_COV_NOT_REGULAR;
 * LPT_ERR_NOT_SUPPORTED with errno set when the file cannot be read.
 */
int lpt_cov_image_add_elf(struct lpt_cov_image *img, const char *path,
			  uint64_t base);

/**
 * lpt_cov_image_add_pagecache() - add a kAFL/Nyx page cache.
 * @img:    image.
 * @prefix: PREFIX of PREFIX.addr (little-endian uint64 page addresses) and
 *          PREFIX.dump (the 4 KiB pages in the same order). An address
 *          with any of its low 12 bits set marks its page as not mapped;
 *          the first entry for a page wins (kAFL's page_cache.c).
 *
 * Both files are mapped, not copied.
 *
 * Return: the number of pages added (>= 0); LPT_ERR_INVALID when .dump
 * holds fewer pages than .addr names; LPT_ERR_NOMEM;
 * LPT_ERR_COV_NOT_REGULAR; LPT_ERR_NOT_SUPPORTED with errno set when a
 * file cannot be read.
 */
int lpt_cov_image_add_pagecache(struct lpt_cov_image *img, const char *prefix);

struct ptcap_map;

/* lpt_cov_image_set_flags() */
#define LPT_COV_IMAGE_F_ANY_BUILD_ID	0x1u	/* lpt_cov_image_add_ptcap()
						 * maps a file whose build-id
						 * differs from the recorded
						 * one (perf's --force) */

/**
 * lpt_cov_image_set_flags() - how the image loads captures.
 * @img:   image.
 * @flags: LPT_COV_IMAGE_F_* (0: the default, a file whose build-id is not
 *         the recorded one is refused).
 */
void lpt_cov_image_set_flags(struct lpt_cov_image *img, unsigned int flags);

/**
 * lpt_cov_build_id_check() - is a file the one a capture's maps line
 * recorded? Compares the GNU build-id (ELF note NT_GNU_BUILD_ID of a
 * PT_NOTE segment, System V gABI "Note Section") of @path with @m's
 * (ptcap_maps_parse(): "# build-id" lines).
 * @m:       the maps line.
 * @path:    the file as it is opened now (the line's path, below the
 *           capture directory when relative).
 * @id:      if not NULL, receives the file's build-id (PTCAP_BUILD_ID_MAX
 *           bytes of room), *@id_size its length (0: the file has none).
 * @id_size: may be NULL with @id.
 *
 * Return: 0 the same, or nothing recorded to compare with; 1 it differs
 * (another build-id, or none where one was recorded: another binary than
 * the one traced); LPT_ERR_NOT_SUPPORTED with errno set when the file
 * cannot be read (nothing compared); LPT_ERR_INVALID for NULL @m or @path.
 */
int lpt_cov_build_id_check(const struct ptcap_map *m, const char *path,
			   uint8_t *id, uint8_t *id_size);

/*
 * The build-id verdicts of the tools that read a capture's code (ptcov,
 * ptflow): which file to use, what to say, once per file
 * (libpt/cov_buildid.c, Documentation/ptcov.rst "Build-ids").
 */
struct lpt_cov_build_ids;

/* lpt_cov_build_ids_alloc() flags */
#define LPT_COV_BUILD_IDS_F_FORCE	0x1u	/* use a file of another
						 * build-id (a tool's --force):
						 * a warning, not a refusal */

/**
 * lpt_cov_build_ids_alloc() - a new set of verdicts, nothing said yet.
 * @prog:  messages' prefix (the tool's name), copied; NULL: "libpt".
 * @err:   where messages go; NULL: none.
 * @flags: LPT_COV_BUILD_IDS_F_*.
 *
 * Return: the set (release with lpt_cov_build_ids_free()), or NULL with
 * errno ENOMEM, or EINVAL for unknown @flags.
 */
struct lpt_cov_build_ids *lpt_cov_build_ids_alloc(const char *prog, FILE *err,
						  unsigned int flags);

/**
 * lpt_cov_build_ids_use() - may the file @path of a capture's maps line
 * @m be used as the code that was traced? Its GNU build-id is compared
 * with the one the capture recorded (lpt_cov_build_id_check()). When it
 * differs (the binary was rebuilt or replaced since the capture), one
 * message per path names the path, the recorded id and the file's
 * ("none" when it has no note):
 *
 *   PROG: PATH: build-id RECORDED recorded in the capture, the file has
 *   FILE'S: not the binary that was traced: left out (rebuild it as it
 *   was, or --force to use it anyway)
 *
 * and the file is refused (counted, lpt_cov_build_ids_refused()); with
 * LPT_COV_BUILD_IDS_F_FORCE the same line begins "warning: " and ends
 * "used anyway (--force)", and the file is used. Nothing recorded, the
 * same id, or a file that cannot be read (loading it says why): used,
 * nothing said.
 * @b:    the set.
 * @m:    the maps line (ptcap_maps_parse(), lpt_capsrc_maps()).
 * @path: the file as it is opened now (below the capture directory when
 *        the line's path is relative).
 *
 * Return: 1 use it; 0 refused; LPT_ERR_INVALID for NULL arguments.
 */
int lpt_cov_build_ids_use(struct lpt_cov_build_ids *b, const struct ptcap_map *m,
			  const char *path);

/**
 * lpt_cov_build_ids_refused() - the files lpt_cov_build_ids_use() refused
 * (each once); 0 for NULL @b.
 */
unsigned long lpt_cov_build_ids_refused(const struct lpt_cov_build_ids *b);

/** lpt_cov_build_ids_free() - release @b (NULL: nothing). */
void lpt_cov_build_ids_free(struct lpt_cov_build_ids *b);

/**
 * lpt_cov_image_add_ptcap() - add the code of a ptcap capture directory:
 * the mappings of its `maps` file (Documentation/ptcap-format.rst; a later
 * line wins on overlap, paths relative to @dir unless absolute, bytes past
 * a file's end not mapped). A file whose build-id is not the one the maps
 * file recorded (lpt_cov_build_id_check()) is not mapped: @warn gets
 * LPT_ERR_COV_BUILD_ID for it, unless LPT_COV_IMAGE_F_ANY_BUILD_ID is set.
 * @img:  image.
 * @dir:  the directory.
 * @warn: if not NULL, called with the path of each mapped file that cannot
 *        be read (a warning: that range stays without code).
 * @ctx:  passed to @warn.
 *
 * Return: the number of mappings added (>= 0; 0 also when @dir has no
 * maps file); LPT_ERR_INVALID for a maps file that does not parse, is
 * larger than PTCAP_TEXT_MAX, or NULL arguments; LPT_ERR_COV_NOT_REGULAR
 * for a maps that is a device, FIFO or directory; LPT_ERR_NOMEM.
 */
int lpt_cov_image_add_ptcap(struct lpt_cov_image *img, const char *dir,
			    void (*warn)(void *ctx, const char *path, int err),
			    void *ctx);

/**
 * lpt_cov_image_set_read() - read code the image lacks through a callback
 * (a fuzzer reading the target's memory itself).
 * @img: image.
 * @fn:  the reader, NULL to remove it. Consulted only for addresses no
 *       added range covers.
 * @ctx: passed to @fn.
 */
void lpt_cov_image_set_read(struct lpt_cov_image *img, lpt_cov_read_fn fn,
			    void *ctx);

/**
 * lpt_cov_image_read() - read code from an image as the decoder does.
 * @img, @addr, @buf, @size: as lpt_cov_read_fn.
 *
 * Return: bytes copied from @addr on, 0 if @addr is not mapped.
 */
size_t lpt_cov_image_read(const struct lpt_cov_image *img, uint64_t addr,
			  uint8_t *buf, size_t size);

/* ---------------------------------------------------------------------- */
/* Decoder                                                                */

#define LPT_COV_MAX_FILTERS	4	/* IA32_RTIT_ADDR0..3 (SDM 33.2.5.2) */
#define LPT_COV_MAP_SIZE	65536u	/* default map size in bytes */
#define LPT_COV_CACHE_MAX	(256u << 20)	/* default memory cap */

/* lpt_cov_config.flags */
/* The map as libxdc 7a7894a fills it: conditional-branch outcomes only,
 * counted as libxdc counts them (Documentation/ptcov.rst "libxdc map"). */
#define LPT_COV_F_XDC		0x1u
/* Collect every distinct edge with its count for lpt_cov_edges(). */
#define LPT_COV_F_EDGES		0x2u
/* Do not use the TNT-run path cache (every decode walks block by block;
 * for measurements and as a check of the cache: the edges are the same). */
#define LPT_COV_F_NO_PATHS	0x4u
/* The trace is one chunk of a larger one (lwpt/pt_chunk.h) followed by the
 * next chunk's PSB+, through its PSBEND: at a PSBEND that ends the trace,
 * the decoder walks from where it is to that PSB+'s FUP IP, counting the
 * edges on the way (those the whole trace's decode counts when it goes on
 * past the PSB+); the next chunk's decode starts at that FUP. Nothing
 * changes for a PSB+ inside the trace. Documentation/ptcov.rst "Every
 * core". */
#define LPT_COV_F_CHUNK		0x8u
/* Keep the lengths of every cached block's instructions (a byte each,
 * read once when the block is first decoded) for lpt_cov_block_lens():
 * a tool that lists the executed instructions (ptcov --format=lcov) takes
 * them from there instead of decoding the code again. The edges and the
 * map are the same with and without it. */
#define LPT_COV_F_LENS		0x10u
#define LPT_COV_F_ALL		0x1fu

/* An IP filter range [start, end) as programmed in IA32_RTIT_ADDRn_A/B
 * (end = ADDRn_B + 1) with ADDRn_CFG = 1 (FilterEn). */
struct lpt_cov_range {
	uint64_t start;
	uint64_t end;
};

/* Decoder configuration; fill with lpt_cov_config_init() first. */
struct lpt_cov_config {
	size_t size;		/* sizeof(struct lpt_cov_config) */
	uint32_t flags;		/* LPT_COV_F_* */
	uint32_t nfilter;	/* ranges in @filter; 0: no IP filtering */
	struct lpt_cov_range filter[LPT_COV_MAX_FILTERS];
	struct lpt_cpu cpu;	/* for errata: those libipt 2.0.5's
				 * pt_cpu_errata() sets for it, handled as
				 * libipt does (Documentation/ptcov.rst
				 * "Errata"); zero: none */
	size_t map_size;	/* map bytes, a power of two >= 2; default
				 * LPT_COV_MAP_SIZE */
	size_t cache_max;	/* memory cap of the cache in bytes; default
				 * LPT_COV_CACHE_MAX. Checked before each
				 * decode: above it the cache is emptied. */
};

/**
 * lpt_cov_config_init() - the defaults: no flags, no filter, no CPU,
 * 64 KiB map, LPT_COV_CACHE_MAX cap.
 * @cfg: configuration to fill.
 */
void lpt_cov_config_init(struct lpt_cov_config *cfg);

struct lpt_cov;

/**
 * lpt_cov_alloc() - a coverage decoder for traces of one image.
 * @cfg: configuration (copied); cfg->size may be smaller than ours.
 * @img: the code; must outlive the decoder. Changing it later requires
 *       lpt_cov_invalidate() for the changed range.
 *
 * Return: the decoder, or NULL with errno = EINVAL (NULL argument, unknown
 * flags, map_size not a power of two, a filter range empty or more than
 * LPT_COV_MAX_FILTERS) or ENOMEM.
 */
struct lpt_cov *lpt_cov_alloc(const struct lpt_cov_config *cfg,
			      const struct lpt_cov_image *img);

/**
 * lpt_cov_free() - free a decoder and its cache; NULL is a no-op.
 * @cov: decoder.
 */
void lpt_cov_free(struct lpt_cov *cov);

/**
 * lpt_cov_decode() - decode one trace and add its edges to a map.
 * @cov:   decoder.
 * @trace: raw Intel PT packets (SDM 33.4); decoding starts at the first
 *         PSB and resynchronises at the next PSB after an error.
 * @len:   bytes at @trace.
 * @map:   cfg.map_size bytes the caller zeroed (or a map to add to): each
 *         edge adds its count to map[lpt_cov_slot(src, dst, map_size)]
 *         modulo 256 (8-bit counters wrap, as libxdc's and AFL's). May be
 *         NULL when only lpt_cov_edges() is wanted.
 *
 * Edges and map are those of Documentation/ptcov.rst "Edges" (or, with
 * LPT_COV_F_XDC, libxdc's conditional outcomes). A decode error does not
 * stop the decode: what was decoded before it is kept, the decoder
 * resynchronises at the next PSB, and the first error is returned.
 *
 * Return: 0 on success; LPT_ERR_COV_NOMAP (lpt_cov_fault_addr() gives the
 * address), LPT_ERR_COV_DESYNC, LPT_ERR_COV_BADINSN, LPT_ERR_BAD_OPCODE or
 * LPT_ERR_BAD_PACKET for the first error met; LPT_ERR_NOSYNC if the trace
 * has no PSB; LPT_ERR_NOMEM; LPT_ERR_INVALID for NULL @cov or @trace.
 */
int lpt_cov_decode(struct lpt_cov *cov, const uint8_t *trace, size_t len,
		   uint8_t *map);

/* One distinct edge of the last decode (LPT_COV_F_EDGES). */
struct lpt_cov_edge {
	uint64_t src;		/* address of the branch instruction */
	uint64_t dst;		/* address control went to */
	uint64_t count;		/* times executed in the last decode */
};

/**
 * lpt_cov_edges() - the distinct edges of the last lpt_cov_decode().
 * @cov: decoder allocated with LPT_COV_F_EDGES.
 * @out: receives a pointer to an array owned by @cov, sorted by (src,
 *       dst), valid until the next call on @cov.
 *
 * Return: the number of edges (>= 0); LPT_ERR_INVALID (NULL, or the
 * decoder was allocated without LPT_COV_F_EDGES); LPT_ERR_NOMEM.
 */
long lpt_cov_edges(struct lpt_cov *cov, const struct lpt_cov_edge **out);

/**
 * lpt_cov_fault_addr() - the address whose code was missing in the last
 * LPT_ERR_COV_NOMAP (its page is PAGE = addr & ~0xfff).
 * @cov: decoder.
 *
 * Return: the address, 0 if no decode met a missing page.
 */
uint64_t lpt_cov_fault_addr(const struct lpt_cov *cov);

#define LPT_COV_MAX_FAULTS	64	/* pages lpt_cov_faults() keeps */

/**
 * lpt_cov_faults() - every page whose code was missing in the last
 * lpt_cov_decode(), the first met first (the one libipt and libxdc
 * report, since they stop there).
 * @cov:   decoder.
 * @addrs: receives a pointer to an array owned by @cov, valid until the
 *         next decode: per distinct 4 KiB page the first address missed
 *         in it, in the order the decode met them; at most
 *         LPT_COV_MAX_FAULTS.
 * @total: if not NULL, receives the number of distinct pages missed
 *         (may exceed the array's length).
 *
 * Return: the number of addresses at *@addrs (0: none missing);
 * LPT_ERR_INVALID for NULL @cov or @addrs.
 */
long lpt_cov_faults(const struct lpt_cov *cov, const uint64_t **addrs,
		    unsigned long *total);

/* What an instruction is, for coverage built from edges
 * (lpt_cov_insn_at()): the branch kinds of SDM Table 33-1. */
enum lpt_cov_insn_kind {
	LPT_COV_INSN_OTHER = 0,	/* not a branch: control falls through */
	LPT_COV_INSN_JCC,	/* conditional: Jcc, JrCXZ, LOOPcc */
	LPT_COV_INSN_JMP,	/* direct near JMP */
	LPT_COV_INSN_CALL,	/* direct near CALL */
	LPT_COV_INSN_JMP_IND,	/* indirect near JMP */
	LPT_COV_INSN_CALL_IND,	/* indirect near CALL */
	LPT_COV_INSN_RET,	/* near RET */
	LPT_COV_INSN_FAR,	/* far transfer: far JMP/CALL/RET, INT n,
				 * INT3, INT1, INTO, IRET, SYSCALL, SYSRET,
				 * SYSENTER, SYSEXIT, VMLAUNCH, VMRESUME */
	LPT_COV_INSN_UD,	/* UD0/UD1/UD2: #UD, control does not go on */
};

/* One instruction (lpt_cov_insn_at()). */
struct lpt_cov_insn {
	uint64_t addr;		/* its first byte */
	uint64_t target;	/* JCC, JMP, CALL: the target; else 0 */
	uint8_t len;		/* bytes, 1..15 */
	uint8_t kind;		/* enum lpt_cov_insn_kind */
};

/**
 * lpt_cov_insn_at() - classify and measure the instruction at an address
 * of an image, as the coverage decoder does (model/x86 x86_cofi_decode():
 * lengths per SDM Vol. 2 Chapter 2, branch kinds per SDM Table 33-1).
 * @img:  image.
 * @addr: linear address of the instruction.
 * @mode: 16, 32 or 64 (MODE.Exec, SDM 33.4.2.8).
 * @out:  filled on success.
 *
 * Return: 0; LPT_ERR_COV_NOMAP when the image has no code at @addr (or
 * the instruction runs past its end); LPT_ERR_COV_BADINSN when the bytes
 * are no valid instruction in @mode; LPT_ERR_INVALID for NULL @img or
 * @out or a bad @mode.
 */
int lpt_cov_insn_at(const struct lpt_cov_image *img, uint64_t addr,
		    unsigned int mode, struct lpt_cov_insn *out);

/**
 * lpt_cov_insns_at() - lpt_cov_insn_at() for consecutive instructions: up
 * to @max of them from @addr on, each after the one before (branches do
 * not stop it), the code read a window at a time as the decoder's blocks
 * read it (a block's instructions, lpt_cov_block_at(), in one call).
 * @img:  image.
 * @addr: linear address of the first instruction.
 * @mode: 16, 32 or 64 (MODE.Exec, SDM 33.4.2.8).
 * @out:  room for @max instructions.
 * @max:  instructions wanted.
 *
 * Return: the number decoded (>= 0): fewer than @max where the image has
 * no code, or an invalid instruction, at the next address (lpt_cov_insn_at()
 * there says which); LPT_ERR_INVALID for NULL @img, NULL @out with @max,
 * or a bad @mode.
 */
long lpt_cov_insns_at(const struct lpt_cov_image *img, uint64_t addr,
		      unsigned int mode, struct lpt_cov_insn *out, size_t max);

/* Why a block ends (struct lpt_cov_block). */
enum lpt_cov_block_stop {
	LPT_COV_STOP_BRANCH = 0,	/* at its branch: @kind says which */
	LPT_COV_STOP_FILTER,		/* at the end of the IP filter range
					 * it starts in (or it starts outside
					 * every range: no instruction) */
	LPT_COV_STOP_NOMAP,		/* at code the image lacks */
	LPT_COV_STOP_BADINSN,		/* at bytes that are no instruction */
};

/* lpt_cov_block.flags */
#define LPT_COV_BLOCK_F_UD	0x1u	/* holds a UD0/UD1/UD2 before its end
					 * (the decoder walks on: #UD is a
					 * fault, whose trace says where
					 * control went) */

/*
 * One basic block of a decoder's cache (lpt_cov_block_at(),
 * lpt_cov_blocks()): the instructions from @start to its first branch
 * (SDM Table 33-1), to the end of the IP filter range it starts in, or to
 * code the image lacks, decoded in one execution mode. The decoder counts
 * edges, not blocks: a block runs as often as the edges into @start
 * (lpt_cov_edges()) say, plus trace-enable entries.
 */
struct lpt_cov_block {
	uint64_t start;		/* its first instruction */
	uint64_t end;		/* the address after its last instruction:
				 * it is [start, end); with LPT_COV_STOP_NOMAP
				 * the address of the missing instruction */
	uint64_t branch;	/* LPT_COV_STOP_BRANCH: the branch's address
				 * (its length is end - branch); else 0 */
	uint64_t target;	/* a JCC, JMP or CALL branch: its target;
				 * else 0 */
	uint32_t ninsn;		/* instructions, the branch included */
	uint8_t kind;		/* enum lpt_cov_insn_kind of the branch;
				 * LPT_COV_INSN_OTHER when no branch ends it */
	uint8_t stop;		/* enum lpt_cov_block_stop */
	uint8_t mode;		/* 16, 32 or 64 (MODE.Exec, SDM 33.4.2.8) */
	uint8_t flags;		/* LPT_COV_BLOCK_F_* */
};

/**
 * lpt_cov_block_at() - the block the decoder's cache holds at an address.
 * @cov:  decoder.
 * @addr: linear address of the block's first instruction.
 * @mode: 16, 32 or 64: the execution mode it was decoded in.
 * @out:  filled when found.
 *
 * Only blocks the decodes since the last flush (the cache cap,
 * lpt_cov_invalidate()) walked are there: a caller falls back to
 * lpt_cov_insn_at() for the others. The IP filter is @cov's
 * configuration's. A lookup is one hash probe: no code is read.
 *
 * Return: 1 found; 0 not cached; LPT_ERR_INVALID for NULL @cov or @out or
 * a bad @mode.
 */
int lpt_cov_block_at(const struct lpt_cov *cov, uint64_t addr,
		     unsigned int mode, struct lpt_cov_block *out);

/**
 * lpt_cov_block_lens() - lpt_cov_block_at() and the lengths of the block's
 * instructions, for a decoder allocated with LPT_COV_F_LENS.
 * @cov:  decoder.
 * @addr: linear address of the block's first instruction.
 * @mode: 16, 32 or 64: the execution mode it was decoded in.
 * @out:  filled when found.
 * @lens: set when found: @out->ninsn lengths in bytes, the first
 *        instruction's at @addr, each next one after the one before; NULL
 *        when the decoder keeps no lengths (allocated without
 *        LPT_COV_F_LENS) or the block has no instruction. Valid until the
 *        next lpt_cov_decode(), lpt_cov_invalidate() or lpt_cov_free() of
 *        @cov (the cache may be emptied at the start of a decode).
 *
 * One hash probe, as lpt_cov_block_at(): no code is read. The lengths are
 * those the decoder read the block with (x86_cofi_decode()), the same as
 * lpt_cov_insns_at() gives for the block's code.
 *
 * Return: 1 found; 0 not cached; LPT_ERR_INVALID for NULL @cov, @out or
 * @lens, or a bad @mode.
 */
int lpt_cov_block_lens(const struct lpt_cov *cov, uint64_t addr, unsigned int mode,
		       struct lpt_cov_block *out, const uint8_t **lens);

/**
 * lpt_cov_blocks() - call @fn for every block of the decoder's cache, in
 * no particular order.
 * @cov: decoder.
 * @fn:  called with @ctx and a block (valid during the call only); a
 *       non-zero return stops the walk. It must not call lpt_cov_decode()
 *       or lpt_cov_invalidate() on @cov.
 * @ctx: passed to @fn.
 *
 * Return: the number of blocks @fn was called with (>= 0);
 * LPT_ERR_INVALID for NULL @cov or @fn.
 */
long lpt_cov_blocks(const struct lpt_cov *cov,
		    int (*fn)(void *ctx, const struct lpt_cov_block *b),
		    void *ctx);

/**
 * lpt_cov_invalidate() - forget cached work for code in [start, end),
 * after the code there changed (JIT, dlopen, a page added to the image).
 * @cov:   decoder.
 * @start, @end: the changed range; start < end.
 *
 * Every cached block overlapping the range is dropped, and with it every
 * path and edge that could depend on it (at present: the whole cache when
 * any block overlaps; nothing when none does).
 *
 * Return: the number of cached blocks that overlapped (>= 0);
 * LPT_ERR_INVALID.
 */
long lpt_cov_invalidate(struct lpt_cov *cov, uint64_t start, uint64_t end);

/* What the cache holds and what the last decode did (lpt_cov_stats()). */
struct lpt_cov_stats {
	uint64_t blocks;	/* cached basic blocks */
	uint64_t edges;		/* distinct edges known to the cache */
	uint64_t paths;		/* cached TNT-run paths */
	uint64_t cache_bytes;	/* memory held by the cache */
	uint64_t flushes;	/* times the cap emptied the cache */
	/* last decode: */
	uint64_t branches;	/* edges counted (with repeats) */
	uint64_t tnt_bits;	/* TNT bits walked block by block (those
				 * of cached paths not included) */
	uint64_t path_hits;	/* TNT runs and segments served from the
				 * path cache */
	uint64_t insns;		/* instructions in blocks walked (cached
				 * paths not walked, not included) */
	uint64_t errors;	/* decode errors (each resynchronised) */
};

/**
 * lpt_cov_stats() - fill @st.
 * @cov: decoder.
 * @st:  output.
 *
 * Return: 0; LPT_ERR_INVALID for NULL.
 */
int lpt_cov_stats(const struct lpt_cov *cov, struct lpt_cov_stats *st);

/**
 * lpt_cov_slot() - the map slot of an edge (Documentation/ptcov.rst "Slot
 * function", the same as libxdc 7a7894a's):
 *   mix(v) = (v ^ (v >> 31)) * 0x7fb5d329728ea185 (mod 2^64),
 *   slot   = (uint32_t)(mix(dst) ^ (mix(src) >> 1)) & (map_size - 1).
 * @src, @dst: the edge.
 * @map_size:  a power of two.
 *
 * Return: the slot.
 */
uint32_t lpt_cov_slot(uint64_t src, uint64_t dst, size_t map_size);

/**
 * lpt_cov_map_hash() - libxdc's map hash: the low 64 bits of
 * MurmurHash3_x64_128 (Austin Appleby's public-domain algorithm) of the
 * map with seed 0xaaaaaaaa.
 * @map, @size: the map.
 *
 * Return: the hash.
 */
uint64_t lpt_cov_map_hash(const uint8_t *map, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* _LWPT_PT_COV_H */
