/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader for Linux perf's perf.data files with Intel PT data (issue 24)
 * or Intel BTS data (`perf record -e intel_bts//`, issue 37: struct
 * lpt_perf_info bts).
 *
 * lpt_perf_open() reads a perf.data written by `perf record -e intel_pt//`
 * (file format "PERFILE2" or pipe format, from a file or from standard
 * input as "-") and presents it as the capture model lwpt's tools use for
 * a ptcap directory (Documentation/ptcap-format.rst): the decoder
 * parameters (struct ptcap_config), one trace per CPU or per thread with
 * the byte offsets where its packet stream is cut (gaps), the mappings,
 * processes (comm, fork, exit), context switches and the TSC <-> perf time
 * conversion. What is read, and which perf 6.1 source file each rule comes
 * from, is in Documentation/perf-data.rst; the on-disk layouts are in
 * <lwpt/perf_file.h>.
 *
 * The file is mapped, its records streamed once at open and checked
 * against their size before their body is read; the trace data stays in
 * the mapping (memory grows with the number of records, not with the trace
 * size). Standard input and other non-regular files are first copied to an
 * unlinked temporary file in $TMPDIR (or /tmp).
 *
 * Part of libpt's public API (link with -lpt). All functions are
 * thread-safe for different readers; errors are negated enum
 * lpt_perf_error codes, lpt_perf_strerror() gives their text and
 * lpt_perf_last_error() the detail of the last one (which record, which
 * offset).
 */
#ifndef LWPT_PERF_DATA_H
#define LWPT_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <lwpt/ptcap_dir.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Errors of this reader, returned negated. */
enum lpt_perf_error {
	LPT_PERF_OK = 0,
	LPT_PERF_E_MAGIC,	/* not a perf.data (no PERFILE2 magic) */
	LPT_PERF_E_VERSION,	/* perf.data version 1 ("PERFFILE"), or a
				 * HEADER_DIR_FORMAT version other than 1 */
	LPT_PERF_E_SWAPPED,	/* written on a machine of the other byte order */
	LPT_PERF_E_TRUNCATED,	/* a section or record goes past the end */
	LPT_PERF_E_CORRUPT,	/* a header, record or section is malformed */
	LPT_PERF_E_NO_AUX,	/* no Intel PT or BTS data (no
				 * AUXTRACE_INFO/AUXTRACE) */
	LPT_PERF_E_NOT_PT,	/* AUX data of another kind (CoreSight,
				 * SPE...): neither Intel PT nor BTS */
	LPT_PERF_E_COMPRESS,	/* a COMPRESSED record does not decompress */
	LPT_PERF_E_IO,		/* the file could not be opened or read */
	LPT_PERF_E_NOMEM,	/* out of memory */
	LPT_PERF_E_INVAL,	/* bad argument (caller bug) */
	LPT_PERF_E_NO_CODE,	/* lpt_perf_find_code(): no file with the code */
	LPT_PERF_E_BUILD_ID,	/* lpt_perf_find_code(): only other build-ids */
	LPT_PERF_E_OUTSIDE,	/* lpt_perf_find_code(): the recorded path
				 * leads out of --symfs (or the build-id
				 * cache) once ".." and links are resolved */
	LPT_PERF_E_LIMIT,	/* past a limit of the reader (what the
				 * COMPRESSED records decompress to) */
};

/**
 * lpt_perf_strerror() - describe an lpt_perf error code.
 * @err: a code from enum lpt_perf_error, negated or not.
 *
 * Return: a static string, never NULL.
 */
const char *lpt_perf_strerror(int err);

/**
 * lpt_perf_probe() - whether @path is a perf.data, by its magic.
 * @path: a file name, "-" (standard input: not probed, answers 1), a
 *        FIFO (not probed either: answers 1), or a directory written by
 *        `perf record --kcore` (holding `data`).
 *
 * Reads the first 8 bytes only ("PERFILE2" in either byte order, or the
 * version 1 magic "PERFFILE", so that lpt_perf_open() can say why it
 * refuses it).
 * Return: 1 for a perf.data, 0 for anything else (also unreadable files:
 * the caller's own open reports those).
 */
int lpt_perf_probe(const char *path);

/* Where the trace of one struct lpt_perf_trace was recorded. */
struct lpt_perf_trace {
	char name[32];		/* "cpu<N>.pt" or "tid<N>.pt" (ptcap names) */
	bool per_cpu;		/* recorded per CPU (else per thread) */
	int32_t cpu;		/* the CPU; -1 per thread */
	int32_t pid, tid;	/* per thread: its process and thread; per
				 * CPU: the thread of the first ITRACE_START
				 * on the CPU, -1 if none */
	uint32_t idx;		/* perf's mmap index (AUXTRACE idx) */
	uint64_t size;		/* bytes of trace (all AUXTRACE data) */
	size_t nbufs;		/* AUXTRACE records */
	const uint64_t *gaps;	/* byte offsets into the trace where its
				 * packet stream is cut, ascending (see
				 * ptcap_config_gaps()) */
	size_t ngaps;
	uint64_t truncated;	/* AUX records with PERF_AUX_FLAG_TRUNCATED */
	uint64_t partial;	/* ... with PERF_AUX_FLAG_PARTIAL */
	uint64_t collision;	/* ... with PERF_AUX_FLAG_COLLISION */
};

/* A mapping (PERF_RECORD_MMAP or MMAP2), in record order. */
struct lpt_perf_map {
	int32_t pid, tid;	/* -1/0 for the kernel's own maps */
	uint64_t time;		/* perf time (ns) of the record; 0 unknown */
	uint64_t start;		/* first virtual address */
	uint64_t size;		/* bytes */
	uint64_t pgoff;		/* file offset of @start (kernel: see
				 * Documentation/perf-data.rst) */
	uint32_t prot;		/* PROT_* (MMAP2; PROT_EXEC for MMAP) */
	bool kernel;		/* PERF_RECORD_MISC_KERNEL cpumode */
	bool exec;		/* an executable mapping (MMAP: always) */
	uint8_t build_id[20];	/* from MMAP2 or the build-id list */
	uint8_t build_id_size;	/* 0: none known */
	const char *path;	/* as recorded (NUL-terminated) */
};

/* A COMM, FORK or EXIT record, in record order. */
enum lpt_perf_task_kind { LPT_PERF_COMM, LPT_PERF_FORK, LPT_PERF_EXIT };
struct lpt_perf_task {
	enum lpt_perf_task_kind kind;
	int32_t pid, tid;	/* the task */
	int32_t ppid, ptid;	/* FORK/EXIT: its parent; COMM: -1 */
	uint64_t time;		/* perf time (ns); 0 unknown */
	int32_t cpu;		/* from the sample id trailer; -1 unknown */
	bool exec;		/* COMM: PERF_RECORD_MISC_COMM_EXEC */
	char comm[16];		/* COMM: the name, NUL-terminated */
};

/* A SWITCH or SWITCH_CPU_WIDE record (or ITRACE_START), in record order. */
struct lpt_perf_switch {
	uint64_t time;		/* perf time (ns) */
	uint64_t tsc;		/* @time as TSC (lpt_perf_ns_to_tsc()) */
	int32_t cpu;		/* -1 unknown */
	int32_t pid, tid;	/* the sample's task: out of / into the CPU */
	int32_t other_pid, other_tid;	/* CPU-wide: the next (OUT) or
					 * previous (IN) task; -1 per-thread */
	bool out;		/* PERF_RECORD_MISC_SWITCH_OUT */
	bool preempt;		/* PERF_RECORD_MISC_SWITCH_OUT_PREEMPT */
	bool cpu_wide;		/* PERF_RECORD_SWITCH_CPU_WIDE */
	bool itrace_start;	/* an ITRACE_START: @pid/@tid start tracing */
};

/* A build-id list entry (HEADER_BUILD_ID or PERF_RECORD_HEADER_BUILD_ID). */
struct lpt_perf_build_id {
	int32_t pid;
	bool kernel;		/* cpumode PERF_RECORD_MISC_KERNEL */
	uint8_t id[20];
	uint8_t size;
	const char *path;
};

/* What the file says about itself and about the recording. */
struct lpt_perf_info {
	bool pipe;		/* pipe format */
	bool per_cpu;		/* AUXTRACE_INFO PER_CPU_MMAPS */
	bool snapshot;		/* AUXTRACE_INFO SNAPSHOT_MODE (perf -S) */
	bool compressed;	/* COMPRESSED records were read */
	bool has_index;		/* a HEADER_AUXTRACE index was present */
	bool has_time_conv;	/* time_* below are set */
	uint64_t time_shift, time_mult, time_zero;	/* tsc.c */
	uint64_t pt_config;	/* the intel_pt event's attr.config */
	uint32_t pmu_type;	/* intel_pt PMU type (priv[PMU_TYPE]) */
	uint32_t have_sched_switch;	/* priv[HAVE_SCHED_SWITCH] */
	uint32_t tsc_ctc_n, tsc_ctc_d;	/* priv[TSC_CTC_N/D] */
	uint32_t max_nonturbo_ratio;	/* priv[MAX_NONTURBO_RATIO] */
	const char *filter;	/* IP filter string, "" if none */
	const char *cpuid;	/* HEADER_CPUID text, "" if none */
	const char *event_name;	/* EVENT_DESC name of the PT event, or "" */
	uint64_t records;	/* records read (inside COMPRESSED too) */
	uint64_t unknown_records;	/* of types this reader skips */
	uint64_t lost;		/* PERF_RECORD_LOST: lost sideband records */
	uint64_t aux_errors;	/* PERF_RECORD_AUXTRACE_ERROR records */
	uint64_t first_time;	/* smallest sample-id time seen, ns; 0 none */
	uint64_t last_time;
	bool per_task;		/* the intel_pt event follows tasks, not CPUs:
				 * a workload's recording (`perf record --
				 * prog`, attr.enable_on_exec); only the
				 * workload's tasks are traced */
	bool inherit;		/* ... and their children (attr.inherit) */
	uint32_t dir_files;	/* directory format (perf record --threads):
				 * the non-empty data.N files read besides
				 * `data`; 0 for one file */
	bool bts;		/* the AUX data is Intel BTS (perf record -e
				 * intel_bts//): 24-byte records, traces
				 * named "tid<N>.bts" (per CPU "cpu<N>.bts"
				 * when every AUXTRACE record names a CPU),
				 * lpt_perf_config() format
				 * PTCAP_FORMAT_BTS (Documentation/
				 * perf-data.rst "Intel BTS") */
};

/* Options of lpt_perf_open(); fill with lpt_perf_opts_init(). */
struct lpt_perf_opts {
	size_t size;		/* sizeof(struct lpt_perf_opts) */
	/* Called now and then with bytes done and total (0 when unknown,
	 * e.g. while copying a pipe); NULL for none. */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	unsigned int flags;	/* enum lpt_perf_open_flags */
	/* The most bytes the COMPRESSED records may decompress to, in all
	 * (tools' --max-decompressed); 0: the default bound, 64 times the
	 * compressed bytes read plus 1 MiB, at most 1 GiB
	 * (Documentation/perf-data.rst "Limits"). Past it lpt_perf_open()
	 * fails with -LPT_PERF_E_LIMIT naming the record. */
	uint64_t max_decompressed;
};

/* Flags of struct lpt_perf_opts. */
enum lpt_perf_open_flags {
	/* Accept a perf.data without Intel PT data (no AUXTRACE_INFO or
	 * AUXTRACE): its sideband only, no trace. */
	LPT_PERF_SIDEBAND_ONLY = 1u << 0,
};

/**
 * lpt_perf_parse_size() - a size as tools' --max-decompressed takes it.
 * @s: decimal digits with an optional suffix K, M, G or T (powers of 1024).
 * @v: receives the number of bytes.
 *
 * Return: 0; -LPT_PERF_E_INVAL for anything else, 0, or past 2^64 - 1.
 */
int lpt_perf_parse_size(const char *s, uint64_t *v);

/**
 * lpt_perf_opts_init() - default options (no progress callback).
 * @o: filled.
 */
void lpt_perf_opts_init(struct lpt_perf_opts *o);

struct lpt_perf;

/**
 * lpt_perf_open() - read a perf.data.
 * @path: a file, "-" for standard input, or a `perf record --kcore`
 *        directory (its `data` file is read, its `kcore_dir/kcore` kept
 *        as the kernel's code), or a `perf record --threads` directory
 *        (HEADER_DIR_FORMAT: `data` and every non-empty regular `data.*`
 *        file, libpt/perf_dir.c; the maps, tasks and switches then come
 *        sorted by time, Documentation/perf-data.rst "Directory format").
 * @opts: options, or NULL for the defaults.
 * @out:  receives the reader on success (release with lpt_perf_close()).
 *
 * Return: 0; -LPT_PERF_E_MAGIC, -E_VERSION, -E_SWAPPED (byte-swapped
 * files are refused), -E_TRUNCATED, -E_CORRUPT, -E_NO_AUX (no Intel PT
 * data at all, unless LPT_PERF_SIDEBAND_ONLY), -E_NOT_PT, -E_COMPRESS,
 * -E_LIMIT (the COMPRESSED records decompress past the bound), -E_IO (errno preserved),
 * -E_NOMEM, -E_INVAL. On failure *@out is NULL and lpt_perf_last_error()
 * describes the error (with the offset of the record at fault).
 */
int lpt_perf_open(const char *path, const struct lpt_perf_opts *opts,
		  struct lpt_perf **out);

/**
 * lpt_perf_last_error() - the detail of the last failed lpt_perf_open() in
 * this thread, e.g. "record at 0x2e8 (type 70, size 152): ...".
 *
 * Return: a thread-local string, "" when there is none.
 */
const char *lpt_perf_last_error(void);

/**
 * lpt_perf_close() - release a reader and its mapping.
 * @p: may be NULL.
 */
void lpt_perf_close(struct lpt_perf *p);

/** lpt_perf_info() - what the file says about the recording. */
const struct lpt_perf_info *lpt_perf_info(const struct lpt_perf *p);

/**
 * lpt_perf_config() - the decoder parameters in ptcap's form: CPU
 * family/model/stepping from HEADER_CPUID, MTCFreq from the PT event's
 * config (mtc_period), CPUID.15H from TSC_CTC_D/N, the nominal ratio from
 * MAX_NONTURBO_RATIO and the TSC frequency from the time conversion
 * (intel-pt.c intel_pt_process_auxtrace_info, tsc.c).
 * @p: the reader.
 *
 * Return: the parameters (fields valid per their PTCAP_HAS_* bit).
 */
const struct ptcap_config *lpt_perf_config(const struct lpt_perf *p);

/** lpt_perf_ntraces() - the number of traces (CPUs or threads). */
size_t lpt_perf_ntraces(const struct lpt_perf *p);

/**
 * lpt_perf_trace() - trace @i, ordered by CPU or by thread id.
 * Return: the trace, or NULL when @i >= lpt_perf_ntraces().
 */
const struct lpt_perf_trace *lpt_perf_trace(const struct lpt_perf *p, size_t i);

/**
 * lpt_perf_trace_read() - copy bytes of trace @i: the data of its
 * AUXTRACE records concatenated in file order.
 * @p:   the reader.
 * @i:   the trace.
 * @off: first byte (0 .. size).
 * @buf: receives min(@len, size - @off) bytes.
 * @len: bytes wanted.
 *
 * Return: bytes copied (0 at the end); -LPT_PERF_E_INVAL for a bad @i.
 */
int64_t lpt_perf_trace_read(const struct lpt_perf *p, size_t i, uint64_t off,
			    uint8_t *buf, size_t len);

/** lpt_perf_maps() - all mappings; @n receives their number. */
const struct lpt_perf_map *lpt_perf_maps(const struct lpt_perf *p, size_t *n);

/** lpt_perf_tasks() - all COMM/FORK/EXIT records; @n their number. */
const struct lpt_perf_task *lpt_perf_tasks(const struct lpt_perf *p, size_t *n);

/** lpt_perf_switches() - all SWITCH*, ITRACE_START records; @n their number. */
const struct lpt_perf_switch *lpt_perf_switches(const struct lpt_perf *p,
						size_t *n);

/** lpt_perf_build_ids() - the build-id list; @n receives its length. */
const struct lpt_perf_build_id *lpt_perf_build_ids(const struct lpt_perf *p,
						   size_t *n);

/**
 * lpt_perf_tsc_to_ns() - a TSC value as perf time in ns (tools/perf/util/
 * tsc.c tsc_to_perf_time()). Without a time conversion, returns @tsc.
 */
uint64_t lpt_perf_tsc_to_ns(const struct lpt_perf *p, uint64_t tsc);

/**
 * lpt_perf_ns_to_tsc() - perf time (ns) as TSC (tsc.c perf_time_to_tsc()).
 * Without a time conversion, returns @ns.
 */
uint64_t lpt_perf_ns_to_tsc(const struct lpt_perf *p, uint64_t ns);

/* Where to look for code; fill with lpt_perf_code_opts_init(). */
struct lpt_perf_code_opts {
	const char *symfs;	/* perf --symfs DIR, or NULL */
	const char *buildid_dir;/* build-id cache, default $HOME/.debug */
	const char *vmlinux;	/* perf --vmlinux FILE, or NULL */
	const char *kcore;	/* a kcore copy (set by lpt_perf_open() for
				 * a --kcore directory), or NULL */
	bool no_code;		/* lpt_perf_write_ptcap(): write no maps */
	bool any_build_id;	/* lpt_perf_find_code(): a file whose build-id
				 * differs from the recorded one is used
				 * (perf's --force), when no file has it */
};

/** lpt_perf_code_opts_init() - no symfs, $HOME/.debug, the file's kcore. */
void lpt_perf_code_opts_init(const struct lpt_perf *p,
			     struct lpt_perf_code_opts *o);

/**
 * lpt_perf_find_code() - the file holding the code of mapping @m, where
 * perf looks for it (util/dso.c dso__read_binary_type_filename, symbol.c
 * dso__load): below --symfs (DIR/recorded-path), in the build-id cache
 * (DIR/.build-id/xx/yyyy.../elf), at the recorded path. A candidate whose
 * ELF build-id differs from the recorded one is skipped (with @o
 * any_build_id, the first such one is taken when no candidate has the
 * recorded build-id: perf's --force). For the kernel's
 * maps: the kcore copy, else --vmlinux; a kernel mapping named by a path
 * (a module) is looked for as user files are, and only a file that is not
 * ELF is taken (its raw bytes hold the code at ip - start).
 * @p:    the reader.
 * @m:    a mapping of lpt_perf_maps().
 * @o:    where to look.
 * @path: receives the file's name.
 * @size: size of @path.
 *
 * Return: 0; -LPT_PERF_E_NO_CODE when no candidate exists,
 * -LPT_PERF_E_BUILD_ID when every existing one has another build-id,
 * -LPT_PERF_E_OUTSIDE when the recorded path leads out of --symfs or the
 * build-id cache (a ".." above its start, or a link out, once resolved;
 * perf follows it: Documentation/perf-data.rst "Code"), -LPT_PERF_E_INVAL
 * for NULL arguments or a too small @path. Only regular files are code.
 */
int lpt_perf_find_code(const struct lpt_perf *p, const struct lpt_perf_map *m,
		       const struct lpt_perf_code_opts *o, char *path,
		       size_t size);

/**
 * lpt_perf_elf_build_id() - the GNU build-id note of an ELF file.
 * @path: the file.
 * @id:   receives up to 20 bytes.
 * Return: the id's length (1..20), 0 if the file has none or is not ELF,
 * -LPT_PERF_E_IO if it cannot be read.
 */
int lpt_perf_elf_build_id(const char *path, uint8_t id[20]);

/**
 * lpt_perf_write_ptcap() - write the capture as a ptcap directory
 * (Documentation/ptcap-format.rst), the same capture that
 * lpt_capsrc_open() reads in place (include/lwpt/capture_src.h): config (decoder parameters, thread.* and gaps.* lines),
 * maps (per-thread) or processes + maps.<pid>.<gen> + switches (per CPU),
 * and one cpu<N>.pt / tid<N>.pt per trace, streamed from the mapping.
 * Maps name the files lpt_perf_find_code() finds; each mapping whose code
 * is missing is named once on @warn and left out ("code unavailable").
 * @p:    the reader.
 * @dir:  an existing, empty directory.
 * @o:    where to look for code.
 * @warn: where warnings go, or NULL.
 * @prog: prefix of the warnings (the tool's name).
 *
 * Return: 0; -LPT_PERF_E_IO (errno preserved), -LPT_PERF_E_NOMEM,
 * -LPT_PERF_E_INVAL.
 */
int lpt_perf_write_ptcap(const struct lpt_perf *p, const char *dir,
			 const struct lpt_perf_code_opts *o, FILE *warn,
			 const char *prog);

#ifdef __cplusplus
}
#endif

#endif /* LWPT_PERF_DATA_H */
