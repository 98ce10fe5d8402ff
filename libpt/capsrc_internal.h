/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backends of a capture source (include/lwpt/capture_src.h): a ptcap
 * directory (libpt/capsrc_dir.c) and a perf.data read in place
 * (libpt/capsrc_perf.c). Only libpt/capture_src.c calls them; they call
 * none of it. Each function of struct lpt_capsrc_be implements the
 * lpt_capsrc_*() function of its name (same arguments and errors, the
 * backend's state in @be); on error it sets *@at to the file and line.
 */
#ifndef LWPT_LIBPT_CAPSRC_INTERNAL_H
#define LWPT_LIBPT_CAPSRC_INTERNAL_H

#include <lwpt/capture_src.h>

/* Where an error was met: a file of the capture and its line (0 none). */
struct lpt_capsrc_at {
	char file[256];
	size_t line;
};

struct lpt_capsrc_be {
	enum lpt_capsrc_kind kind;
	void (*close)(void *be);
	int (*config)(void *be, struct lpt_capsrc_at *at, const struct ptcap_config **cfg,
		      const struct ptcap_addr_range **addr);
	const char *(*config_text)(void *be, size_t *len);
	int (*traces)(void *be, struct lpt_capsrc_at *at, const struct lpt_capsrc_trace **t,
		      size_t *n);
	int (*load)(void *be, struct lpt_capsrc_at *at, size_t i, uint64_t max, size_t pad,
		    uint8_t **buf, size_t *len);
	int (*maps)(void *be, struct lpt_capsrc_at *at, struct ptcap_maps *maps);
	int (*processes)(void *be, struct lpt_capsrc_at *at,
			 const struct ptcap_processes **ps);
	int (*switches)(void *be, struct lpt_capsrc_at *at,
			const struct ptcap_switches **sws);
	int (*process_maps)(void *be, struct lpt_capsrc_at *at, size_t k,
			    struct ptcap_maps *maps);
};

/* The ptcap directory backend: @path a directory. 0 or -PTCAP_E_NOMEM. */
extern const struct lpt_capsrc_be lpt_capsrc_dir_be;
int lpt_capsrc_dir_open(const char *path, void **be);

/* The perf.data backend: 0, or -1 after a message on o->err. */
extern const struct lpt_capsrc_be lpt_capsrc_perf_be;
int lpt_capsrc_perf_open(const char *path, const struct lpt_capsrc_opts *o, void **be);

#endif
