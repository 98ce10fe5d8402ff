/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The real traces of ../shared/testdata/pt/real/libxdc (its README's table,
 * cpu 6/94/3) for the tests that compare libpt's decoders with libipt
 * (test_pt_flow, test_pt_cov): which files, their IP filter ranges and
 * libxdc's published hashes, and how a test loads a trace and its page
 * cache. The directory is $LWPT_SHARED/testdata/pt/real/libxdc, with
 * LWPT_SHARED defaulting to ../shared (the tests run from the tree).
 */
#ifndef LWPT_TESTS_REAL_TRACES_H
#define LWPT_TESTS_REAL_TRACES_H

#include <stddef.h>
#include <stdint.h>

#include "tests/libpt/cov_ref.h"

struct lpt_cov_image;

struct real {
	const char *name;	/* its page cache: pagecache/<name>.addr/.dump */
	const char *file;	/* the trace, in real_dir() */
	uint64_t start, end;	/* the IP filter range [start, end) it was
				 * traced with */
	uint64_t hash;		/* libxdc's map hash of it (README) */
};

#define REAL_NTRACES 4

/* Unzip, foo, mruby, icelake_tip, in the README's order. */
extern const struct real reals[REAL_NTRACES];

/**
 * real_dir() - the directory of the real traces (a static buffer).
 */
const char *real_dir(void);

/**
 * real_trace_read() - a file of real_dir() in memory, 64 zero bytes after
 * its end (libipt's PSB search reads on).
 * @file: its name in real_dir().
 * @len:  receives its size in bytes.
 *
 * Return: the malloc()ed bytes; NULL when the file cannot be read, after a
 * line "<test>: <path> missing: skipped" on stdout (the test skips it).
 */
uint8_t *real_trace_read(const char *file, size_t *len);

/**
 * real_code_load() - the page cache pagecache/<name> of real_dir().
 * @name: its name (struct real name).
 * @pc:   if not NULL, receives the pages for libipt (cov_ref_load_pages()).
 * @img:  if not NULL, the pages are added to it
 *        (lpt_cov_image_add_pagecache()).
 *
 * Return: 0; -1 when either fails (the test asserts it does not).
 */
int real_code_load(const char *name, struct cov_ref_pages *pc, struct lpt_cov_image *img);

#endif
