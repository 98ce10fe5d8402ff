/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A capture source: one interface to what a decoding tool reads of a
 * capture, whether it is a ptcap directory (Documentation/ptcap-format.rst,
 * <lwpt/ptcap_dir.h>) or a perf.data (Documentation/perf-data.rst,
 * <lwpt/perf_data.h>) read in place, without a temporary copy:
 *
 * - the decoder parameters and IP filter ranges (lpt_capsrc_config());
 * - the traces, one per CPU or per thread (perf: per AUX queue; two queues
 *   of one thread stay two traces), each with its CPU or thread and the
 *   offsets where losses cut it (lpt_capsrc_traces(), lpt_capsrc_load());
 * - the code: the mappings of the capture's address space, or, for a
 *   capture decoded per process, of each exec generation of each process
 *   (lpt_capsrc_maps(), lpt_capsrc_processes(), lpt_capsrc_process_maps());
 * - the switch timeline of a per-CPU capture (lpt_capsrc_switches()).
 *
 * What a perf.data gives is what lpt_perf_write_ptcap() would write as a
 * ptcap directory, so both read alike (Documentation/perf-data.rst "As a
 * capture"). Paths in the maps are ready to open: a ptcap directory's
 * relative paths are joined to the directory; a perf.data's are the files
 * lpt_perf_find_code() finds (--symfs, the build-id cache, --vmlinux).
 *
 * Part of libpt's public API (link with -lpt). A source is used by one
 * thread at a time. Errors are negated enum ptcap_dir_error codes
 * (ptcap_dir_strerror()); lpt_capsrc_where() names the file and line.
 */
#ifndef LWPT_CAPTURE_SRC_H
#define LWPT_CAPTURE_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <lwpt/ptcap_dir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a source reads. */
enum lpt_capsrc_kind {
	LPT_CAPSRC_PTCAP_DIR = 1,	/* a ptcap directory */
	LPT_CAPSRC_PERF_DATA,		/* a perf.data, in place */
};

/* Options of lpt_capsrc_open(); fill with lpt_capsrc_opts_init(). */
struct lpt_capsrc_opts {
	size_t size;			/* sizeof(struct lpt_capsrc_opts) */
	const char *symfs;		/* perf.data: perf's --symfs DIR, or NULL */
	const char *vmlinux;		/* perf.data: perf's --vmlinux FILE */
	uint64_t max_decompressed;	/* perf.data: struct lpt_perf_opts'
					 * bound in bytes, 0 the default */
	FILE *err;			/* messages: errors of a perf.data,
					 * missing code, progress; NULL none */
	const char *prog;		/* their prefix (the tool's name) */
	unsigned int flags;		/* enum lpt_capsrc_flags */
};

/* Flags of struct lpt_capsrc_opts. */
enum lpt_capsrc_flags {
	LPT_CAPSRC_ANY_BUILD_ID = 1u << 0,	/* perf.data: a file whose
						 * build-id is not the recorded
						 * one is used when no file has
						 * it (struct lpt_perf_code_opts
						 * any_build_id; a tool's
						 * --force), said once on err
						 * as a warning naming both ids */
	LPT_CAPSRC_NO_CODE = 1u << 1,		/* perf.data: the code of the
						 * mappings is not looked up by
						 * lpt_capsrc_open() (a tool
						 * that reads only the config
						 * and the traces: ptdump), so
						 * nothing is said there of
						 * missing files;
						 * lpt_capsrc_maps() and
						 * lpt_capsrc_process_maps()
						 * look it up when called */
};

/**
 * lpt_capsrc_opts_init() - default options: no --symfs, no --vmlinux,
 * the default decompression bound, messages to stderr prefixed "libpt".
 * @o: filled.
 */
void lpt_capsrc_opts_init(struct lpt_capsrc_opts *o);

struct lpt_capsrc;

/* lpt_capsrc_open() results besides 0 and -1. */
#define LPT_CAPSRC_NOT_CAPTURE	1	/* neither a directory nor a perf.data */

/**
 * lpt_capsrc_open() - open a capture.
 * @path: a ptcap directory, a perf.data file, "-" (a perf.data on standard
 *        input), or a `perf record --kcore`/`--threads` directory
 *        (lpt_perf_probe() tells them apart from a ptcap directory).
 * @o:    options, or NULL for lpt_capsrc_opts_init()'s.
 * @out:  receives the source (release with lpt_capsrc_close()).
 *
 * A perf.data is read whole here (lpt_perf_open(), progress on o->err for
 * files above 64 MiB), its model computed (libpt/perf_model.c) and, unless
 * o->flags has LPT_CAPSRC_NO_CODE, the code of every mapping looked up
 * once, each missing file named once on o->err as the ptcap directory
 * writer named it. A ptcap directory is only
 * checked to be a directory: its files are read by the accessors (a path
 * that stat() fails on is taken as a directory whose reads then fail with
 * the errno, naming the file).
 *
 * Return: 0; LPT_CAPSRC_NOT_CAPTURE (no message: the tool says what to
 * give it) when @path is neither; -1 after a message on o->err naming the
 * file, what is wrong (lpt_perf_strerror(), lpt_perf_last_error()) and what
 * to do, for a perf.data that cannot be read or out of memory.
 */
int lpt_capsrc_open(const char *path, const struct lpt_capsrc_opts *o,
		    struct lpt_capsrc **out);

/**
 * lpt_capsrc_close() - release a source and all it gave.
 * @s: may be NULL.
 */
void lpt_capsrc_close(struct lpt_capsrc *s);

/** lpt_capsrc_kind() - what @s reads. */
enum lpt_capsrc_kind lpt_capsrc_kind(const struct lpt_capsrc *s);

/** lpt_capsrc_path() - the path given to lpt_capsrc_open() (messages). */
const char *lpt_capsrc_path(const struct lpt_capsrc *s);

/**
 * lpt_capsrc_where() - the file of the capture that the last failed
 * accessor of @s was reading ("config", "maps", "maps.<pid>.<gen>",
 * "processes", "switches", a trace's name; "" for the directory itself)
 * and its 1-based line, 0 when not known.
 * @s:    the source.
 * @line: if not NULL, receives the line.
 *
 * Return: the file's name inside the capture, never NULL.
 */
const char *lpt_capsrc_where(const struct lpt_capsrc *s, size_t *line);

/**
 * lpt_capsrc_config() - the decoder parameters and IP filter ranges.
 * @s:    the source.
 * @cfg:  receives a pointer to the parameters (valid until close).
 * @addr: if not NULL, receives a pointer to PTCAP_ADDR_RANGES ranges.
 *
 * A directory: its `config` (ptcap_config_parse(), ptcap_config_addr());
 * a perf.data: lpt_perf_config() and the ranges of its address filters.
 * Return: 0; for a directory the errors of ptcap_dir_read_file(),
 * ptcap_config_parse() and ptcap_config_addr() (errno kept for
 * -PTCAP_E_IO: ENOENT when there is no config).
 */
int lpt_capsrc_config(struct lpt_capsrc *s, const struct ptcap_config **cfg,
		      const struct ptcap_addr_range **addr);

/**
 * lpt_capsrc_config_text() - the text of a ptcap directory's `config`, for
 * keys the other accessors do not give (ptcap's notes on how the capture
 * started: "outcome.<file> wrapped", "attached").
 * @s:   the source.
 * @len: receives its length in bytes.
 *
 * Return: the text (NUL-terminated, valid until close), or NULL (a
 * perf.data has none; a directory whose config cannot be read).
 */
const char *lpt_capsrc_config_text(struct lpt_capsrc *s, size_t *len);

/* One trace of a capture. */
struct lpt_capsrc_trace {
	const char *name;	/* ptcap's file name: "cpu<N>.pt", "tid<N>.pt"
				 * (perf: "cpu<N>.p<idx>.pt" for a second
				 * queue of one CPU or thread) */
	bool per_cpu;		/* per CPU ("cpu<N>" names), else per thread */
	uint32_t cpu;		/* per CPU: the CPU */
	bool has_thread;	/* tid and pid known (config "thread." line;
				 * a perf.data's per-thread queue) */
	uint32_t tid, pid;	/* per thread: its thread and process */
	const uint64_t *gaps;	/* byte offsets where losses cut the packet
				 * stream, ascending (ptcap_config_gaps()) */
	size_t ngaps;
	int gaps_err;		/* 0, or the error of its "gaps." line */
};

/**
 * lpt_capsrc_traces() - the traces, in version order of their names
 * (cpu2 before cpu10; a perf.data's in that order too).
 * @s: the source.
 * @t: receives the array (valid until close).
 * @n: receives its length (0 is not an error).
 *
 * A directory: its regular *.pt files (ptcap_dir_list_traces()), their
 * "thread." and "gaps." config lines found through one pass over the
 * config (never a scan per trace).
 * Return: 0; -PTCAP_E_IO (errno kept) when the directory cannot be read,
 * -PTCAP_E_NOMEM.
 */
int lpt_capsrc_traces(struct lpt_capsrc *s, const struct lpt_capsrc_trace **t,
		      size_t *n);

/**
 * lpt_capsrc_load() - the bytes of trace @i in a new buffer.
 * @s:   the source.
 * @i:   the trace (lpt_capsrc_traces()).
 * @max: the largest size accepted in bytes, 0 none.
 * @pad: zero bytes added after the trace (a decoder's lookahead).
 * @buf: receives the malloc()ed buffer (free() it).
 * @len: receives the trace's size in bytes (without @pad).
 *
 * A directory's trace file is opened with ptcap_file_open(
 * PTCAP_FILE_NOT_SPARSE): no FIFO, no device, no sparse file.
 * Return: 0; -PTCAP_E_IO (errno kept; EIO: the file shrank),
 * -PTCAP_E_NOT_REGULAR, -PTCAP_E_SPARSE, -PTCAP_E_TOO_LARGE (past @max),
 * -PTCAP_E_NOMEM, -PTCAP_E_INVAL for a bad @i.
 */
int lpt_capsrc_load(struct lpt_capsrc *s, size_t i, uint64_t max, size_t pad,
		    uint8_t **buf, size_t *len);

/**
 * lpt_capsrc_maps() - the mappings of the capture's address space: a
 * directory's `maps`; a perf.data's MMAP/MMAP2 records whose code is
 * found (per process: the kernel's only).
 * @s:    the source.
 * @maps: receives a copy (release with ptcap_maps_free()), paths ready
 *        to open, in file order.
 *
 * Each line's build_id is the one the capture recorded for its file, for
 * a tool to compare (lpt_cov_build_id_check()): a directory's "# build-id"
 * lines; a perf.data's (MMAP2, HEADER_BUILD_ID) where the file found has
 * that id (lpt_perf_find_code() compared them; a file taken with another
 * id under LPT_CAPSRC_ANY_BUILD_ID carries none, said once on o->err).
 *
 * Return: 0; the errors of ptcap_dir_read_file() and ptcap_maps_parse()
 * (-PTCAP_E_IO with errno ENOENT: no maps file), -PTCAP_E_NOMEM.
 */
int lpt_capsrc_maps(struct lpt_capsrc *s, struct ptcap_maps *maps);

/**
 * lpt_capsrc_processes() - the processes of a capture decoded per process
 * (ptcap -a; a perf.data per CPU with switches, or per thread of several
 * processes), by pid then exec generation.
 * @s:  the source.
 * @ps: receives a pointer (valid until close); the `maps` of an entry
 *      names it in messages (lpt_capsrc_process_maps() gives its maps).
 *
 * Return: 0; 1 when the capture is not decoded per process (no
 * `processes` file); the errors of ptcap_dir_read_file() and
 * ptcap_processes_parse().
 */
int lpt_capsrc_processes(struct lpt_capsrc *s, const struct ptcap_processes **ps);

/**
 * lpt_capsrc_switches() - the switches of a capture decoded per process,
 * sorted by CPU then TSC (ptcap_switches_parse()).
 * @s:   the source.
 * @sws: receives a pointer (valid until close).
 *
 * Return: 0; the errors of ptcap_dir_read_file() and
 * ptcap_switches_parse().
 */
int lpt_capsrc_switches(struct lpt_capsrc *s, const struct ptcap_switches **sws);

/**
 * lpt_capsrc_process_maps() - the mappings of entry @k of
 * lpt_capsrc_processes(): the kernel's, the generation's own and, for a
 * forked process, its parent's before the fork.
 * @s:    the source.
 * @k:    the entry.
 * @maps: receives a copy (release with ptcap_maps_free()), paths ready
 *        to open, in file order.
 *
 * Return: 0; the errors of ptcap_dir_read_file() and ptcap_maps_parse(),
 * -PTCAP_E_INVAL for a bad @k or a missing process (no maps).
 */
int lpt_capsrc_process_maps(struct lpt_capsrc *s, size_t k, struct ptcap_maps *maps);

#ifdef __cplusplus
}
#endif

#endif /* LWPT_CAPTURE_SRC_H */
