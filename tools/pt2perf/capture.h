/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt2perf: a ptcap directory (Documentation/ptcap-format.rst) loaded as
 * what a perf.data needs: its levels (the snap.<n> directories of
 * `ptcap --snapshot`, oldest first, then the top directory), each level's
 * maps, switches and processes, and the trace files cut into contiguous
 * pieces at the config's gaps.<file> offsets, each piece with the first
 * TSC packet in it (SDM 33.4.2.11), which becomes the piece's
 * PERF_RECORD_AUXTRACE reference.
 */
#ifndef LWPT_TOOLS_PT2PERF_CAPTURE_H
#define LWPT_TOOLS_PT2PERF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lwpt/ptcap_dir.h>

/* One directory: the top one or a snap.<n>. */
struct p2p_level {
	char *dir;
	char *config;			/* the config file's text */
	size_t config_len;
	struct ptcap_maps maps;
	struct ptcap_switches sws;	/* empty without a switches file */
	struct ptcap_processes procs;	/* empty without a processes file */
};

/* One trace file of one level, mapped. */
struct p2p_file {
	size_t level;
	char *name;			/* e.g. "tid123.pt", "cpu0.pt" */
	const uint8_t *data;		/* mmap()ed, @size bytes */
	size_t size;
	uint32_t cpu;			/* per-CPU: its CPU */
	uint32_t pid, tid;		/* per-thread: its thread */
	uint32_t queue;			/* perf's queue (AUXTRACE idx) */
	bool owned;			/* @data is malloc()ed (split.h), not
					 * mapped */
};

/* A contiguous piece of a trace file: no loss inside it. */
struct p2p_piece {
	size_t file;
	uint64_t off, len;
	bool have_tsc;
	uint64_t first_tsc;		/* its first TSC packet's value */
	size_t gen;			/* split.h: the exec generation of its
					 * span's process (ptflow_span.gen) */
};

struct p2p_capture {
	struct ptcap_config cfg;	/* the top directory's */
	bool per_cpu;
	bool split;			/* per-CPU traces cut into one trace per
					 * thread (split.h) */
	bool bts;			/* format bts: *.bts files of 24-byte
					 * BTS records, not PT packets */
	bool snapshot;			/* ptcap --snapshot */
	bool wrapped;			/* some file lost its oldest bytes */
	bool have_ctl;
	uint64_t rtit_ctl;		/* IA32_RTIT_CTL used, if known */
	char *command;			/* the traced command's name, or NULL */
	struct p2p_level *lv;
	size_t nlv;
	struct p2p_file *files;
	size_t nfiles;
	struct p2p_piece *pieces;
	size_t npieces;
	uint32_t nqueues;
	uint32_t max_cpu;		/* highest CPU seen (files, switches) */
	bool seen_tsc, seen_mtc, seen_cyc;	/* packets present in the trace */
	bool have_min_tsc;
	uint64_t min_tsc;		/* earliest TSC of trace and sideband */
};

/**
 * p2p_capture_load() - load a ptcap directory.
 * @dir:  the directory.
 * @cap:  filled; release with p2p_capture_free() (also after an error).
 * @prog: program name for messages.
 *
 * Messages about what is wrong go to stderr.
 * Return: 0, or -1 (not a ptcap directory, unreadable or malformed
 * files, no trace).
 */
int p2p_capture_load(const char *dir, struct p2p_capture *cap, const char *prog);

struct lpt_capsrc;

/**
 * p2p_capture_from_src() - load a capture through a capture source
 * (include/lwpt/capture_src.h; ptcov reads a perf.data in place with it):
 * one level (no snapshots), its config, maps, switches and processes, and
 * its traces copied into memory (at most PTCAP_DATA_MAX bytes each) and
 * cut at their gaps.
 * @src:  the source (kept by the caller).
 * @cap:  filled; release with p2p_capture_free() (also after an error).
 * @prog: program name for messages.
 *
 * Messages about what is wrong go to stderr.
 * Return: 0, or -1 (unreadable or malformed files, no trace data).
 */
int p2p_capture_from_src(struct lpt_capsrc *src, struct p2p_capture *cap, const char *prog);

/**
 * p2p_piece_scan() - note a piece's first TSC packet and which timing
 * packets the capture has (SDM 33.4.2).
 * @cap: the capture; its seen_tsc, seen_mtc and seen_cyc are set.
 * @buf: the piece's file data.
 * @pc:  the piece; its have_tsc and first_tsc are set.
 */
void p2p_piece_scan(struct p2p_capture *cap, const uint8_t *buf, struct p2p_piece *pc);

/**
 * p2p_files_free() - release trace files: unmap or free their data, free
 * their names and the array.
 * @files: may be NULL.
 * @n:     their number.
 */
void p2p_files_free(struct p2p_file *files, size_t n);

/**
 * p2p_capture_free() - release a capture; @cap is left zeroed.
 * @cap: may be partly loaded.
 */
void p2p_capture_free(struct p2p_capture *cap);

/**
 * p2p_config_value() - the value of the last "<key> <value>" line of a
 * config text, without trailing blanks.
 * @text, @len: the config file.
 * @key:        the key.
 * @buf, @size: receives the value, NUL-terminated, truncated to @size.
 *
 * Return: true if the key is present.
 */
bool p2p_config_value(const char *text, size_t len, const char *key, char *buf,
		      size_t size);

#endif /* LWPT_TOOLS_PT2PERF_CAPTURE_H */
