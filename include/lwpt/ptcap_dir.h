/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader for the ptcap output directory, version 1.
 *
 * The format is defined in Documentation/ptcap-format.rst: a directory with
 * a `config` file (CPU identification and timing ratios), a `maps` file
 * (which file bytes were mapped at which virtual addresses) and one raw
 * Intel PT file per CPU or thread (`*.pt`). The two text files start with a
 * versioned magic line; this reader accepts version 1 only.
 *
 * The parsers work on memory buffers so they can be tested without files;
 * ptcap_dir_read_file() loads a file into such a buffer.
 *
 * Part of libpt's public API (link with -lpt, `pkg-config libpt`): ptflow
 * and ptdump both read capture directories through it. All functions are
 * thread-safe (no global state); errors are negated enum ptcap_dir_error
 * codes, ptcap_dir_strerror() gives their text.
 */
#ifndef LWPT_PTCAP_DIR_H
#define LWPT_PTCAP_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The magic first lines, followed by one space and the version number. */
#define PTCAP_CONFIG_MAGIC	"lwpt-ptcap-config"
#define PTCAP_MAPS_MAGIC	"lwpt-ptcap-maps"
#define PTCAP_FORMAT_VERSION	1

/* File names inside a capture directory. */
#define PTCAP_CONFIG_FILE	"config"
#define PTCAP_MAPS_FILE		"maps"
#define PTCAP_TRACE_SUFFIX	".pt"
/* A `format bts` capture's trace files: raw 24-byte BTS records. */
#define PTCAP_BTS_SUFFIX	".bts"
/* The LBR stack of a thread at its fatal signal (ptcap --lbr-on-crash). */
#define PTCAP_LBR_SUFFIX	".lbr"

/* Errors of this reader, returned negated. */
enum ptcap_dir_error {
	PTCAP_OK = 0,
	PTCAP_E_MAGIC,		/* first line is not the expected magic */
	PTCAP_E_VERSION,	/* format version not supported */
	PTCAP_E_SYNTAX,		/* a line does not follow the grammar */
	PTCAP_E_RANGE,		/* a number is out of range for its field */
	PTCAP_E_IO,		/* a file could not be opened or read */
	PTCAP_E_NOMEM,		/* out of memory */
	PTCAP_E_INVAL,		/* bad argument (caller bug) */
	PTCAP_E_NOT_REGULAR,	/* a device, FIFO, socket or directory */
	PTCAP_E_TOO_LARGE,	/* larger than the limit its reader sets */
	PTCAP_E_SPARSE,		/* a sparse file (holes) where data is read */
};

/*
 * Limits of what a capture names (Documentation/ptcap-format.rst
 * "Limits"): the text files (config, maps, switches, processes, perf maps)
 * are read whole up to PTCAP_TEXT_MAX bytes; a file read whole into memory
 * (a trace in ptcov, a jitdump) up to PTCAP_DATA_MAX; larger files are
 * mapped, not copied.
 */
#define PTCAP_TEXT_MAX		(256ull << 20)
#define PTCAP_DATA_MAX		(4ull << 30)

/* ptcap_file_open() flags. */
#define PTCAP_FILE_NOT_SPARSE	0x1u	/* refuse a file with holes (a trace) */
#define PTCAP_FILE_NOFOLLOW	0x2u	/* refuse a symlink as the last component */

/**
 * ptcap_dir_strerror() - describe a ptcap_dir error code.
 * @err: a code from enum ptcap_dir_error, negated or not.
 *
 * Return: a static string, never NULL ("unknown error" for unknown codes).
 */
const char *ptcap_dir_strerror(int err);

/* Presence bits of struct ptcap_config. */
enum ptcap_config_has {
	PTCAP_HAS_CPU		= 1u << 0,
	PTCAP_HAS_MTC_FREQ	= 1u << 1,
	PTCAP_HAS_NOM_FREQ	= 1u << 2,
	PTCAP_HAS_CPUID_15_EAX	= 1u << 3,
	PTCAP_HAS_CPUID_15_EBX	= 1u << 4,
	PTCAP_HAS_TSC_FREQ	= 1u << 5,
	PTCAP_HAS_FORMAT	= 1u << 6,
};

/* What the trace files hold (the `format` key; PT when absent). */
enum ptcap_format {
	PTCAP_FORMAT_PT = 0,	/* *.pt: Intel PT packets (SDM 33.4) */
	PTCAP_FORMAT_BTS,	/* *.bts: 64-bit BTS records, 24 bytes each
				 * (SDM Vol. 3B 17.4.9.1, Figure 17-9) */
};

/*
 * The decoder-relevant content of a `config` file. Fields are valid only if
 * their bit is set in @has. Keys this reader does not know are skipped, so
 * producers may add informational keys without a version change.
 */
struct ptcap_config {
	unsigned int has;		/* enum ptcap_config_has bits */
	uint16_t cpu_family;		/* CPUID.1 display family */
	uint8_t cpu_model;		/* CPUID.1 display model */
	uint8_t cpu_stepping;		/* CPUID.1 stepping, 0 if not given */
	uint8_t mtc_freq;		/* IA32_RTIT_CTL.MTCFreq, SDM 33.2.8.2 */
	uint8_t nom_freq;		/* MSR_PLATFORM_INFO[15:8], SDM 33.8.3 */
	uint32_t cpuid_15_eax;		/* CPUID.15H:EAX (TSC:ART denominator) */
	uint32_t cpuid_15_ebx;		/* CPUID.15H:EBX (TSC:ART numerator) */
	uint64_t tsc_freq_hz;		/* TSC frequency in Hz */
	uint8_t format;			/* enum ptcap_format */
};

/**
 * ptcap_config_parse() - parse the text of a `config` file.
 * @text: the file contents; need not be NUL-terminated.
 * @len:  length of @text in bytes.
 * @cfg:  filled on success (and partially on failure).
 * @line: if not NULL, set to the 1-based line number of the first error.
 *
 * Return: 0 on success; -PTCAP_E_MAGIC if the first line is not
 * "lwpt-ptcap-config <n>", -PTCAP_E_VERSION if <n> is not 1,
 * -PTCAP_E_SYNTAX for a malformed known key (a `format` other than `pt`
 * or `bts`: the traces cannot be read), -PTCAP_E_RANGE for a value
 * that does not fit its field, -PTCAP_E_INVAL if @text or @cfg is NULL.
 */
int ptcap_config_parse(const char *text, size_t len, struct ptcap_config *cfg,
		       size_t *line);

/**
 * ptcap_config_thread() - the thread of a per-thread trace file, from its
 * "thread.<file> tid=<n> pid=<n> ..." line of a `config` file.
 * @text: the config file's contents; need not be NUL-terminated.
 * @len:  length of @text in bytes.
 * @file: the trace file's name, e.g. "tid123.pt".
 * @tid:  receives the thread id.
 * @pid:  receives its process id.
 *
 * Return: 0; -PTCAP_E_RANGE when the file has no such line (or a line
 * without both numbers), -PTCAP_E_INVAL for NULL arguments.
 */
int ptcap_config_thread(const char *text, size_t len, const char *file,
			uint32_t *tid, uint32_t *pid);

/**
 * ptcap_config_bts_start() - where a `format bts` trace file's thread
 * started before its first record, from its "bts-start.<file> <ip>" line
 * of a `config` file (ptcap-format.rst "BTS trace files").
 * @text: the config file's contents; need not be NUL-terminated.
 * @len:  length of @text in bytes.
 * @file: the trace file's name, e.g. "tid123.bts".
 * @ip:   receives the linear address (decimal or 0x hex in the file).
 *
 * Return: 0; -PTCAP_E_RANGE when the file has no such line,
 * -PTCAP_E_SYNTAX for a value that is not a number, -PTCAP_E_INVAL for
 * NULL arguments.
 */
int ptcap_config_bts_start(const char *text, size_t len, const char *file,
			   uint64_t *ip);

/**
 * ptcap_config_gaps() - where losses cut a trace file's packet stream, from
 * its "gaps.<file> <offset>..." line of a `config` file (ptcap-format.rst).
 * @text:  the config file's contents; need not be NUL-terminated.
 * @len:   length of @text in bytes.
 * @file:  the trace file's name, e.g. "cpu0.pt".
 * @gaps:  receives a malloc()ed array of byte offsets into the file,
 *         ascending (free() it), or NULL when there is none.
 * @count: receives the number of offsets (0: no such line).
 *
 * The bytes from a gap to the next PSB do not continue the packet before
 * it (a ToPA stop ends the output mid-packet, SDM 33.2.7.2): decoders stop
 * at a gap and synchronise again at the next PSB.
 * Return: 0 (also when the file has no such line); -PTCAP_E_SYNTAX for an
 * offset that is not a number or not above the one before it,
 * -PTCAP_E_RANGE for one that does not fit 64 bits, -PTCAP_E_NOMEM,
 * -PTCAP_E_INVAL for NULL arguments.
 */
int ptcap_config_gaps(const char *text, size_t len, const char *file,
		      uint64_t **gaps, size_t *count);

/* IA32_RTIT_ADDRn_CFG values (SDM 33.2.5.2, Table 33-2). */
#define PTCAP_ADDR_RANGES	4
#define PTCAP_ADDR_UNUSED	0
#define PTCAP_ADDR_FILTER	1	/* FilterEn: trace only inside */
#define PTCAP_ADDR_STOP		2	/* TraceStop: stop when reached */

/* One "addr<n> filter|stop <a>-<b>" line: IA32_RTIT_ADDRn_A/B (both
 * inclusive, as the hardware compares) and ADDRn_CFG. */
struct ptcap_addr_range {
	uint32_t cfg;		/* PTCAP_ADDR_* */
	uint64_t a, b;		/* a <= b */
};

/**
 * ptcap_config_addr() - the IP filter ranges of a capture, from the
 * "addr<n> filter|stop <a>-<b>" lines of a `config` file
 * (Documentation/ptcap-format.rst), n = 0..PTCAP_ADDR_RANGES - 1.
 * @text:   the config file's contents; need not be NUL-terminated.
 * @len:    length of @text in bytes.
 * @ranges: receives PTCAP_ADDR_RANGES entries; cfg PTCAP_ADDR_UNUSED for a
 *          range the file does not name.
 *
 * Return: 0; -PTCAP_E_SYNTAX for a line that is not "filter|stop <a>-<b>",
 * -PTCAP_E_RANGE for a number that does not fit 64 bits or a > b,
 * -PTCAP_E_INVAL for NULL arguments.
 */
int ptcap_config_addr(const char *text, size_t len,
		      struct ptcap_addr_range ranges[PTCAP_ADDR_RANGES]);

/* Longest GNU build-id a `maps` file records (SHA-1: ld --build-id). */
#define PTCAP_BUILD_ID_MAX	20

/* One line of a `maps` file: @size bytes of @path from file offset
 * @offset are mapped at virtual address @start. */
struct ptcap_map {
	uint64_t start;		/* first virtual address */
	uint64_t size;		/* bytes; end - start of the line */
	uint64_t offset;	/* file offset of the byte at @start */
	char *path;		/* as written; relative to the directory
				 * unless it starts with '/' */
	/* the file's GNU build-id (ELF note NT_GNU_BUILD_ID) when the
	 * capture was made: a "# build-id <hex> <path>" line of the same
	 * file names it (ptcap-format.rst "maps"); size 0: none recorded */
	uint8_t build_id[PTCAP_BUILD_ID_MAX];
	uint8_t build_id_size;
};

/* All lines of a `maps` file, in file order (later lines win on overlap). */
struct ptcap_maps {
	struct ptcap_map *map;
	size_t nmaps;
};

/**
 * ptcap_maps_parse() - parse the text of a `maps` file.
 * @text: the file contents; need not be NUL-terminated.
 * @len:  length of @text in bytes.
 * @maps: on success, owns an array of @maps->nmaps entries; release with
 *        ptcap_maps_free(). Left empty on failure.
 * @line: if not NULL, set to the 1-based line number of the first error.
 *
 * A comment "# build-id <hex> <path>" gives the build-id of every line of
 * <path> (the last such comment for a path wins; one whose hex is not 1 to
 * PTCAP_BUILD_ID_MAX bytes is an ordinary comment): a maps file without
 * them (older ptcap, perf.data) has build_id_size 0 everywhere.
 *
 * Return: 0 on success; -PTCAP_E_MAGIC or -PTCAP_E_VERSION for a bad first
 * line, -PTCAP_E_SYNTAX for a line that is not "<start> <end> <offset>
 * <path>", -PTCAP_E_RANGE if end <= start or a number overflows 64 bits,
 * -PTCAP_E_NOMEM, -PTCAP_E_INVAL if an argument is NULL.
 */
int ptcap_maps_parse(const char *text, size_t len, struct ptcap_maps *maps,
		     size_t *line);

/**
 * ptcap_maps_free() - release what ptcap_maps_parse() allocated.
 * @maps: may be NULL; is left empty.
 */
void ptcap_maps_free(struct ptcap_maps *maps);

/* The optional switches file of a per-CPU capture. */
#define PTCAP_SWITCHES_MAGIC	"lwpt-ptcap-switches"
#define PTCAP_SWITCHES_FILE	"switches"

/* Words after the four columns of a switches line. */
enum ptcap_switch_flags {
	PTCAP_SW_PREV_IDLE	= 1u << 0,	/* prev-idle */
	PTCAP_SW_PREV_KTHREAD	= 1u << 1,	/* prev-kthread */
	PTCAP_SW_NEXT_IDLE	= 1u << 2,	/* next-idle */
	PTCAP_SW_NEXT_KTHREAD	= 1u << 3,	/* next-kthread */
	PTCAP_SW_PREEMPT	= 1u << 4,	/* preempt */
};

/* One line of a `switches` file: on @cpu at @tsc, prev stopped, next ran. */
struct ptcap_switch {
	uint64_t tsc;		/* TSC at the switch (the TSC packets' clock) */
	uint32_t cpu;		/* logical CPU: the trace file cpu<cpu>.pt */
	uint32_t flags;		/* enum ptcap_switch_flags */
	uint32_t prev_pid, prev_tid;	/* switched out */
	uint32_t next_pid, next_tid;	/* switched in; 0/0 the idle task */
	size_t order;		/* position in the file (0, 1, ...) */
	/*
	 * The word tsc=<decimal>: the TSC at the switch where the first
	 * column is not one (a per-CPU BTS capture: the byte position in
	 * cpu<cpu>.bts). Valid only with @has_time; it orders the switches
	 * of different CPUs.
	 */
	uint64_t time;
	bool has_time;		/* the line had a tsc= word */
};

/* All switches, sorted by CPU, then TSC (file order for equal TSCs). */
struct ptcap_switches {
	struct ptcap_switch *sw;
	size_t n;
};

/**
 * ptcap_switches_parse() - parse the text of a `switches` file.
 * @text: the file contents; need not be NUL-terminated.
 * @len:  length of @text in bytes.
 * @sws:  on success, owns the switches sorted by CPU then TSC; release with
 *        ptcap_switches_free(). Left empty on failure.
 * @line: if not NULL, set to the 1-based line number of the first error.
 *
 * A line is "<tsc> <cpu> <prev-pid>/<prev-tid> <next-pid>/<next-tid>"
 * followed by flag words and tsc=<decimal> (the switch's time where the
 * first column is a BTS byte position: struct ptcap_switch.time); unknown
 * words are skipped (a producer may add some within version 1).
 *
 * Return: 0; -PTCAP_E_MAGIC or -PTCAP_E_VERSION for a bad first line,
 * -PTCAP_E_SYNTAX for a malformed line (also a tsc= word twice or whose
 * value is not a decimal number), -PTCAP_E_RANGE for a pid or tid
 * above INT32_MAX, a CPU above UINT32_MAX or a TSC above 64 bits,
 * -PTCAP_E_NOMEM, -PTCAP_E_INVAL if an argument is NULL.
 */
int ptcap_switches_parse(const char *text, size_t len, struct ptcap_switches *sws,
			 size_t *line);

/**
 * ptcap_switches_free() - release what ptcap_switches_parse() allocated.
 * @sws: may be NULL; is left empty.
 */
void ptcap_switches_free(struct ptcap_switches *sws);

/**
 * ptcap_switches_at() - the switch that put the running thread on @cpu at
 * time @tsc: the last switch on @cpu with a TSC at or before @tsc (its
 * next_pid/next_tid ran from then until the following switch on @cpu).
 * @sws: parsed switches.
 * @cpu: the CPU (of the trace file).
 * @tsc: a time in TSC ticks, e.g. of a TSC packet or libipt's estimate.
 *
 * Return: the switch, or NULL if @cpu has none at or before @tsc (the
 * thread running then is not known).
 */
const struct ptcap_switch *ptcap_switches_at(const struct ptcap_switches *sws,
					     uint32_t cpu, uint64_t tsc);

/* The processes file of a system-wide capture (ptcap -a). */
#define PTCAP_PROCESSES_MAGIC	"lwpt-ptcap-processes"
#define PTCAP_PROCESSES_FILE	"processes"

/*
 * One line of a `processes` file: one exec generation of a process that ran
 * during the capture, or a process whose maps could not be read (@missing).
 */
struct ptcap_process {
	uint32_t pid;		/* process id (thread group id) */
	uint32_t gen;		/* exec generation, 0 first */
	bool missing;		/* exited before ptcap read it: no maps */
	uint64_t first_tsc;	/* TSC of ptcap's first read finding @gen */
	uint64_t last_tsc;	/* TSC of its last read finding @gen */
	uint64_t entry;		/* first user IP after its exec (ld.so's or
				 * the program's entry point); 0 unknown */
	char *maps;		/* its maps file (maps format), relative to
				 * the directory; NULL if @missing */
	char *comm;		/* its comm (may be empty); NULL if @missing */
};

/* All lines of a `processes` file, sorted by pid, then generation. */
struct ptcap_processes {
	struct ptcap_process *p;
	size_t n;
};

/**
 * ptcap_processes_parse() - parse the text of a `processes` file.
 * @text: the file contents; need not be NUL-terminated.
 * @len:  length of @text in bytes.
 * @ps:   on success, owns the entries sorted by pid then generation;
 *        release with ptcap_processes_free(). Left empty on failure.
 * @line: if not NULL, set to the 1-based line number of the first error.
 *
 * A line is "<pid> <gen> <first-tsc> <last-tsc> <entry> <maps> <comm>"
 * (comm: the rest of the line) or "<pid> missing"
 * (Documentation/ptcap-format.rst, "processes").
 *
 * Return: 0; -PTCAP_E_MAGIC or -PTCAP_E_VERSION for a bad first line,
 * -PTCAP_E_SYNTAX for a malformed line, -PTCAP_E_RANGE for a pid above
 * INT32_MAX, a number above 64 bits or last-tsc < first-tsc,
 * -PTCAP_E_NOMEM, -PTCAP_E_INVAL if an argument is NULL.
 */
int ptcap_processes_parse(const char *text, size_t len,
			  struct ptcap_processes *ps, size_t *line);

/**
 * ptcap_processes_free() - release what ptcap_processes_parse() allocated.
 * @ps: may be NULL; is left empty.
 */
void ptcap_processes_free(struct ptcap_processes *ps);

/**
 * ptcap_processes_find() - the entries of one process.
 * @ps:   parsed processes.
 * @pid:  the process id.
 * @ngen: if not NULL, receives the number of entries (its generations, or
 *        1 for a missing process); 0 when not found.
 *
 * Return: the first entry of @pid (generation order), or NULL.
 */
const struct ptcap_process *ptcap_processes_find(const struct ptcap_processes *ps,
						 uint32_t pid, size_t *ngen);

/**
 * ptcap_dir_read_file() - read a whole (small) file into memory.
 * @dir:  directory, or NULL to use @name as is.
 * @name: file name inside @dir.
 * @buf:  on success, a malloc'ed buffer of @len bytes plus a NUL byte.
 * @len:  size of the file in bytes.
 *
 * A regular file of at most PTCAP_TEXT_MAX bytes (ptcap_file_open()).
 *
 * Return: 0 on success, -PTCAP_E_IO if the file cannot be opened or read
 * (errno is preserved), -PTCAP_E_NOT_REGULAR for a device, FIFO or
 * directory, -PTCAP_E_TOO_LARGE past the limit, -PTCAP_E_NOMEM,
 * -PTCAP_E_INVAL for NULL arguments.
 */
int ptcap_dir_read_file(const char *dir, const char *name, char **buf,
			size_t *len);

/**
 * ptcap_dir_read_file_max() - ptcap_dir_read_file() with another limit.
 * @dir:  directory, or NULL to use @name as is.
 * @name: file name inside @dir.
 * @max:  largest size read, in bytes (ptcap_dir_read_file(): PTCAP_TEXT_MAX).
 * @buf:  on success, a malloc'ed buffer of @len bytes plus a NUL byte.
 * @len:  size of the file in bytes.
 *
 * The file is opened with ptcap_file_open(PTCAP_FILE_NOT_SPARSE): what is
 * read whole is never mostly holes.
 *
 * Return: 0, or the errors of ptcap_file_open() and -PTCAP_E_NOMEM.
 */
int ptcap_dir_read_file_max(const char *dir, const char *name, uint64_t max,
			    char **buf, size_t *len);

/**
 * ptcap_file_open() - open a file a capture names, safely, for reading.
 * @dir:   directory, or NULL to use @name as is.
 * @name:  file name inside @dir (or a path).
 * @max:   largest size accepted, in bytes; 0 for no limit.
 * @flags: PTCAP_FILE_NOT_SPARSE: refuse a file of more than 16 MiB with
 *         less than 1/64 of it allocated (st_blocks: a trace never has
 *         holes, a 16 GB hole is not worth reading); PTCAP_FILE_NOFOLLOW:
 *         refuse a symbolic link (O_NOFOLLOW).
 * @size:  on success (if not NULL), the file's size in bytes.
 *
 * Opens with O_NONBLOCK, so that neither a FIFO nor a device blocks, then
 * fstat()s the descriptor: only a regular file is kept (blocking mode is
 * restored for it). Every file a capture directory or a perf.data names is
 * opened through this function.
 *
 * Return: a file descriptor (close-on-exec) on success; -PTCAP_E_IO if it
 * cannot be opened (errno is preserved: ELOOP for a refused symlink),
 * -PTCAP_E_NOT_REGULAR, -PTCAP_E_TOO_LARGE (more than @max bytes),
 * -PTCAP_E_SPARSE, -PTCAP_E_NOMEM, -PTCAP_E_INVAL for a NULL @name.
 */
int ptcap_file_open(const char *dir, const char *name, uint64_t max,
		    unsigned int flags, uint64_t *size);

/**
 * ptcap_dir_list_traces() - list the trace files of a capture directory.
 * @dir:   the capture directory.
 * @names: on success, a malloc'ed array of @count malloc'ed file names
 *         (regular files ending in ".pt", or ".bts" in a `format bts`
 *         capture), in version order (cpu2 before
 *         cpu10); release with ptcap_dir_free_names().
 * @count: number of names; 0 is not an error.
 *
 * Return: 0 on success, -PTCAP_E_IO if @dir cannot be read (errno is
 * preserved), -PTCAP_E_NOMEM, -PTCAP_E_INVAL for NULL arguments.
 */
int ptcap_dir_list_traces(const char *dir, char ***names, size_t *count);

/**
 * ptcap_dir_free_names() - release a list from ptcap_dir_list_traces().
 * @names: the array, may be NULL.
 * @count: its number of entries.
 */
void ptcap_dir_free_names(char **names, size_t count);

#endif /* LWPT_PTCAP_DIR_H */
