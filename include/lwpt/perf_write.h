/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writer of perf.data files with one event, in perf's file format or pipe
 * format, as Linux perf 6.1 reads them: the serialisation behind pt2perf
 * (Documentation/pt2perf.rst) and the perf.data files of libpt's tests. The layouts are include/lwpt/perf_file.h's
 * (perf's tools/perf/Documentation/perf.data-file-format.txt, util/header.c,
 * util/auxtrace.c) and <linux/perf_event.h>'s for the kernel's records.
 *
 * The file is laid out as perf record lays it out: the 104-byte header,
 * the event's ids, its perf_file_attr, the data section (records, written
 * as they come), then the feature section table and the features. The
 * header is written last, so the output must be seekable.
 *
 * In pipe format ([fmt] "Pipe-mode data", what `perf record -o -` writes)
 * nothing is rewritten: the 16-byte header, the attr as
 * PERF_RECORD_HEADER_ATTR, the features perf sends in pipe mode as
 * PERF_RECORD_HEADER_FEATURE records (the strings, HEADER_NRCPUS,
 * HEADER_EVENT_DESC, then the HEADER_LAST_FEATURE mark) before the first
 * data record, build-ids as PERF_RECORD_HEADER_BUILD_ID records where they
 * are added, no HEADER_AUXTRACE index (perf has none in pipe format).
 *
 * Every kernel-type record (COMM, MMAP2, SWITCH...) gets the sample_id
 * trailer its attr's sample_type asks for (sample_id_all=1: TID, TIME, ID,
 * STREAM_ID, CPU, IDENTIFIER in that order, perf's
 * perf_evsel__parse_id_sample() reads it from the end); perf's user-type
 * records (AUXTRACE_INFO, AUXTRACE, TIME_CONV) have none.
 *
 * Part of libpt (link with -lpt). No global state; errors are negative
 * errno values.
 */
#ifndef LWPT_PERF_WRITE_H
#define LWPT_PERF_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

/*
 * perf's TSC to perf-time conversion (tools/perf/util/tsc.c
 * tsc_to_perf_time(), the kernel's cap_user_time_zero fields):
 * time = zero + (tsc >> shift) * mult + (((tsc & (2^shift - 1)) * mult)
 * >> shift).
 */
struct lpt_perf_tc {
	uint16_t shift;
	uint32_t mult;
	uint64_t zero;
};

/**
 * lpt_perf_tc_from_hz() - a conversion for a TSC of @hz ticks per second
 * with time 0 at TSC 0, as the kernel computes its own (arch/x86/kernel/
 * tsc.c set_cyc2ns_scale(): the largest shift, at most 31, whose mult
 * 1e9 * 2^shift / hz fits in 32 bits).
 * @tc: filled.
 * @hz: TSC frequency in Hz; 0 or above 1e18 gives 1 ns per tick
 *      (shift 0, mult 1).
 */
void lpt_perf_tc_from_hz(struct lpt_perf_tc *tc, uint64_t hz);

/**
 * lpt_perf_tsc_to_time() - perf time (ns) of a TSC value.
 * @tc:  conversion.
 * @tsc: TSC ticks.
 *
 * Return: @tsc in perf's clock (modulo 2^64, as perf computes it).
 */
uint64_t lpt_perf_tsc_to_time(const struct lpt_perf_tc *tc, uint64_t tsc);

/* What a kernel record's sample_id trailer holds (fields the attr's
 * sample_type does not ask for are not written). */
struct lpt_perf_sid {
	uint32_t pid, tid;	/* PERF_SAMPLE_TID */
	uint64_t time;		/* PERF_SAMPLE_TIME, perf ns */
	uint32_t cpu;		/* PERF_SAMPLE_CPU */
};

struct lpt_perf_writer;

/**
 * lpt_perf_writer_open() - start a perf.data file with one event.
 * @f:    the output, opened for writing and seekable (a regular file);
 *        written from its start. The caller closes it after
 *        lpt_perf_writer_close().
 * @attr: the event's attributes (attr->size is set to
 *        sizeof(struct perf_event_attr), 128 with perf 6.1's headers);
 *        sample_id_all must be 1 and sample_type must include
 *        PERF_SAMPLE_IDENTIFIER (perf finds the event of every record by
 *        it).
 * @name: the event's name for HEADER_EVENT_DESC (e.g. "intel_pt//").
 * @id:   the event's one id (non-zero; perf needs a non-empty id list).
 * @wp:   receives the writer.
 *
 * Return: 0; -EINVAL for a NULL argument, id 0, sample_id_all 0 or no
 * PERF_SAMPLE_IDENTIFIER; -ENOMEM; -errno of a failed write or seek.
 */
int lpt_perf_writer_open(FILE *f, const struct perf_event_attr *attr,
			 const char *name, uint64_t id,
			 struct lpt_perf_writer **wp);

/**
 * lpt_perf_writer_open_pipe() - start a perf.data stream in pipe format
 * (util/synthetic-events.c perf_event__synthesize_for_pipe()).
 * @f:    the output, opened for writing; never seeked (a pipe, a socket,
 *        standard output). The caller closes it after
 *        lpt_perf_writer_close().
 * @attr, @name, @id, @wp: as lpt_perf_writer_open().
 *
 * Set the features (lpt_perf_set_string(), lpt_perf_set_nrcpus()) before
 * the first record: they are written with it.
 *
 * Return: as lpt_perf_writer_open().
 */
int lpt_perf_writer_open_pipe(FILE *f, const struct perf_event_attr *attr,
			      const char *name, uint64_t id,
			      struct lpt_perf_writer **wp);

/**
 * lpt_perf_write_comm() - PERF_RECORD_COMM: thread @tid of process @pid
 * is named @comm (truncated to 15 bytes, TASK_COMM_LEN).
 * @w:    writer.
 * @pid, @tid: the thread.
 * @comm: its name.
 * @exec: the name comes from an execve (PERF_RECORD_MISC_COMM_EXEC).
 * @sid:  the trailer's values.
 *
 * Return: 0; -EINVAL for NULL arguments; -errno of a failed write.
 */
int lpt_perf_write_comm(struct lpt_perf_writer *w, uint32_t pid, uint32_t tid,
			const char *comm, bool exec, const struct lpt_perf_sid *sid);

/* One file mapping for PERF_RECORD_MMAP2. */
struct lpt_perf_mmap {
	uint32_t pid, tid;
	uint64_t start, len, pgoff;	/* address, bytes, file offset */
	uint32_t prot, flags;		/* PROT_*, MAP_* */
	const uint8_t *build_id;	/* NULL: none (maj/min/ino 0) */
	size_t build_id_size;		/* 1..20 */
	const char *filename;
};

/**
 * lpt_perf_write_mmap2() - PERF_RECORD_MMAP2 of a user-mode file mapping
 * (misc PERF_RECORD_MISC_USER; with a build-id, also
 * PERF_RECORD_MISC_MMAP_BUILD_ID and the id in the record, which perf
 * 6.1 uses to find the file, util/machine.c machine__process_mmap2_event).
 * @w:   writer.
 * @m:   the mapping.
 * @sid: the trailer's values.
 *
 * Return: 0; -EINVAL for NULL arguments or a build-id longer than 20
 * bytes; -errno of a failed write.
 */
int lpt_perf_write_mmap2(struct lpt_perf_writer *w, const struct lpt_perf_mmap *m,
			 const struct lpt_perf_sid *sid);

/**
 * lpt_perf_write_switch() - PERF_RECORD_SWITCH_CPU_WIDE: on the trailer's
 * CPU, the trailer's thread leaves (@out) or enters the CPU; the other
 * thread is @np_pid/@np_tid (the next one when @out, the previous one
 * when not).
 * @w:       writer.
 * @out:     PERF_RECORD_MISC_SWITCH_OUT.
 * @preempt: with @out: the thread was preempted
 *           (PERF_RECORD_MISC_SWITCH_OUT_PREEMPT).
 * @np_pid, @np_tid: the other thread.
 * @sid:     the trailer's values.
 *
 * Return: 0; -EINVAL for NULL arguments; -errno of a failed write.
 */
int lpt_perf_write_switch(struct lpt_perf_writer *w, bool out, bool preempt,
			  uint32_t np_pid, uint32_t np_tid, const struct lpt_perf_sid *sid);

/**
 * lpt_perf_write_record() - a record this header has no function for
 * (FORK, EXIT, ITRACE_START, AUX, MMAP, COMPRESSED, ...), as given: the
 * header, @body, then, when @sid is not NULL, the sample_id trailer. The
 * layouts are <linux/perf_event.h>'s and include/lwpt/perf_file.h's; the
 * writer checks none of them (a wrong body gives a wrong file).
 * @w:    writer.
 * @type: the record type (enum perf_event_type, enum perf_user_event_type).
 * @misc: header.misc.
 * @body: the bytes after the header, up to the trailer, padded by the
 *        caller as the record type asks (kernel records: to 8 bytes).
 * @len:  their number.
 * @sid:  the trailer's values; NULL for perf's user-type records (no
 *        trailer) and records the kernel writes without one.
 *
 * Return: 0; -EINVAL for a NULL @w, NULL @body with @len > 0 or a record
 * above 64 KiB; -errno of a failed write.
 */
int lpt_perf_write_record(struct lpt_perf_writer *w, uint32_t type, uint16_t misc,
			  const void *body, size_t len, const struct lpt_perf_sid *sid);

/**
 * lpt_perf_write_time_conv() - PERF_RECORD_TIME_CONV with @tc (perf 6.1's
 * 56-byte layout; time_cycles and time_mask 0, cap_user_time_short 0).
 * @w:  writer.
 * @tc: the conversion.
 * @cap_user_time_zero: the conversion is valid (perf's flag of the same
 *      name).
 *
 * Return: 0; -EINVAL for NULL arguments; -errno of a failed write.
 */
int lpt_perf_write_time_conv(struct lpt_perf_writer *w, const struct lpt_perf_tc *tc,
			     bool cap_user_time_zero);

/**
 * lpt_perf_write_auxtrace_info() - PERF_RECORD_AUXTRACE_INFO.
 * @w:    writer.
 * @type: enum perf_auxtrace_type (PERF_AUXTRACE_INTEL_PT).
 * @priv: @n u64 words of type-specific data (Intel PT: indexed by enum
 *        perf_intel_pt_info).
 * @n:    number of words.
 *
 * Return: 0; -EINVAL for NULL @priv with @n > 0 or a record above 64 KiB;
 * -errno of a failed write.
 */
int lpt_perf_write_auxtrace_info(struct lpt_perf_writer *w, uint32_t type,
				 const uint64_t *priv, size_t n);

/* Where one PERF_RECORD_AUXTRACE's data belongs (perf_rec_auxtrace). */
struct lpt_perf_aux {
	uint64_t offset;	/* position in the AUX stream of its queue */
	uint64_t reference;	/* Intel PT: a TSC near the data */
	uint32_t idx;		/* the queue (perf's mmap index) */
	uint32_t tid;		/* per-thread: the thread, else (u32)-1 */
	uint32_t cpu;		/* per-CPU: the CPU, else (u32)-1 */
};

/**
 * lpt_perf_write_auxtrace() - PERF_RECORD_AUXTRACE followed by @len bytes
 * of trace, padded with zero bytes (PAD packets for Intel PT) to a
 * multiple of 8 as perf record pads (PERF_AUXTRACE_RECORD_ALIGNMENT); the
 * record's size counts the padding. The record is listed in the
 * HEADER_AUXTRACE index written at close (auxtrace.c
 * auxtrace_index__write()).
 * @w:    writer.
 * @data: the trace bytes.
 * @len:  their number (> 0).
 * @aux:  queue, thread/CPU, offset and reference.
 *
 * Return: 0; -EINVAL for NULL arguments or @len 0; -ENOMEM; -errno of a
 * failed write.
 */
int lpt_perf_write_auxtrace(struct lpt_perf_writer *w, const void *data, size_t len,
			    const struct lpt_perf_aux *aux);

/**
 * lpt_perf_add_build_id() - add a HEADER_BUILD_ID entry (written at close,
 * as util/build-id.c write_buildid(): misc | PERF_RECORD_MISC_BUILD_ID_SIZE,
 * the file name padded to 64 bytes).
 * @w:        writer.
 * @pid:      the machine's pid: -1 (HOST_KERNEL_ID) for the host.
 * @misc:     PERF_RECORD_MISC_USER or PERF_RECORD_MISC_KERNEL.
 * @id:       the build-id bytes (NT_GNU_BUILD_ID's descriptor).
 * @len:      1..20.
 * @filename: the file's path as the MMAP records name it.
 *
 * In pipe format the entry is written at once as a
 * PERF_RECORD_HEADER_BUILD_ID record (what `perf inject` writes to a pipe).
 *
 * Return: 0; -EINVAL for NULL arguments or a bad @len; -ENOMEM; in pipe
 * format -errno of a failed write.
 */
int lpt_perf_add_build_id(struct lpt_perf_writer *w, int32_t pid, uint16_t misc,
			  const uint8_t *id, size_t len, const char *filename);

/**
 * lpt_perf_set_string() - set a string feature (HEADER_HOSTNAME,
 * HEADER_OSRELEASE, HEADER_VERSION, HEADER_ARCH, HEADER_CPUDESC,
 * HEADER_CPUID), written at close as util/header.c do_write_string(): u32
 * length of the string with its NUL padded to 64 bytes, then the bytes.
 * @w:    writer.
 * @feat: the feature bit (enum perf_header_feature).
 * @s:    the string; copied.
 *
 * Return: 0; -EINVAL for a feature that is not one of those or NULL
 * arguments; -ENOMEM; -EBUSY in pipe format once the features are written
 * (after the first record).
 */
int lpt_perf_set_string(struct lpt_perf_writer *w, unsigned int feat, const char *s);

/**
 * lpt_perf_set_nrcpus() - set HEADER_NRCPUS (u32 available, u32 online).
 * @w:      writer.
 * @avail:  CPUs the machine has.
 * @online: CPUs online.
 *
 * In pipe format, ignored once the features are written (after the first
 * record).
 */
void lpt_perf_set_nrcpus(struct lpt_perf_writer *w, uint32_t avail, uint32_t online);

/**
 * lpt_perf_writer_close() - file format: write the features
 * (HEADER_BUILD_ID, the strings, HEADER_NRCPUS, HEADER_EVENT_DESC,
 * HEADER_AUXTRACE) and the file header; pipe format: the features if no
 * record was written. Then flush, and free the writer.
 * @w: writer; freed in every case (NULL is a no-op returning 0).
 *
 * Return: 0; the first error of any earlier call that failed, or -errno of
 * a failed write, seek or flush. After an error the file is not a valid
 * perf.data: the caller removes it.
 */
int lpt_perf_writer_close(struct lpt_perf_writer *w);

#endif /* LWPT_PERF_WRITE_H */
