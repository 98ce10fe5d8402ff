/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf.data file format, as Linux perf 6.1 writes and reads it.
 *
 * Shared by libpt's perf.data reader (libpt/perf_read.c) and writer
 * (pt2perf). Everything here is a description of perf's on-disk format in
 * lwpt's words; the perf source that defines each item is named beside it.
 * Sources (Debian's linux-source-6.1):
 *   [fmt]   tools/perf/Documentation/perf.data-file-format.txt
 *   [hdr]   tools/perf/util/header.h        (file/pipe header, features)
 *   [ev]    tools/lib/perf/include/perf/event.h (user record types/layouts)
 *   [aux]   tools/perf/util/auxtrace.h, auxtrace.c (auxtrace type, index)
 *   [ipt]   tools/perf/util/intel-pt.h, intel-pt.c,
 *           tools/perf/arch/x86/util/intel-pt.c (AUXTRACE_INFO priv[])
 * The kernel's own records (struct perf_event_header, PERF_RECORD_MMAP ...
 * PERF_RECORD_SWITCH_CPU_WIDE, struct perf_event_attr, PERF_AUX_FLAG_*,
 * PERF_RECORD_MISC_*) come from <linux/perf_event.h> and are not repeated.
 *
 * All multi-byte fields are in the byte order of the machine that wrote the
 * file; the magic tells a reader which order that was ([fmt] "The magic
 * number also identifies the endian").
 */
#ifndef LWPT_PERF_FILE_H
#define LWPT_PERF_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <lwpt/compiler.h>

/*
 * Magic: the eight bytes "PERFILE2" read as a little-endian u64 [hdr]
 * (header.c: __perf_magic2). A file whose first u64 equals the swapped
 * value was written on a machine of the other byte order. The older
 * "PERFFILE" (version 1) format is not supported.
 */
#define PERF_FILE_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_FILE_MAGIC_SWAPPED	0x50455246494c4532ULL
#define PERF_FILE_MAGIC_STR	"PERFILE2"

/* A (file offset, size) pair naming one part of the file [fmt] [hdr]. */
struct perf_file_section {
	uint64_t offset;	/* bytes from the start of the file */
	uint64_t size;		/* bytes */
};

/* Number of feature bits in the header's bitmap [hdr] HEADER_FEAT_BITS. */
#define PERF_HEADER_FEAT_BITS	256

/*
 * The header of a perf.data in file format [fmt] "struct perf_header",
 * [hdr] struct perf_file_header. @size is sizeof(struct perf_file_header)
 * (104); @attr_size is the size of one struct perf_file_attr entry in the
 * attrs section (a perf_event_attr of the writer's version followed by a
 * perf_file_section naming its ids). The feature bitmap says which optional
 * sections follow the data section, in bit order.
 */
struct perf_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;	/* unused since perf 3.x */
	uint64_t features[PERF_HEADER_FEAT_BITS / 64];
};

/*
 * The header of a perf.data in pipe format [fmt] "Pipe-mode data", [hdr]
 * struct perf_pipe_file_header: magic and @size == 16, then records only.
 * Attributes, features and auxtrace info arrive as records
 * (PERF_RECORD_HEADER_ATTR, PERF_RECORD_HEADER_FEATURE, ...).
 */
struct perf_pipe_file_header {
	uint64_t magic;
	uint64_t size;
};

/*
 * One entry of the attrs section: the attr (attr_size minus 16 bytes, so a
 * reader must use the header's attr_size, not sizeof) then where its u64
 * sample ids are [hdr] header.c perf_session__read_header (struct
 * perf_file_attr). Only the leading, fixed part is declared here.
 */
struct perf_file_attr_ids {
	struct perf_file_section ids;
};

/*
 * Feature bits [hdr] enum HEADER_*, [fmt] "Flags section". Bit N set in
 * perf_file_header.features means a perf_file_section for feature N is
 * present in the table that starts right after the data section; the
 * table holds one section per set bit, in increasing bit order.
 */
enum perf_header_feature {
	PERF_HEADER_RESERVED		= 0,
	PERF_HEADER_TRACING_DATA	= 1,
	PERF_HEADER_BUILD_ID		= 2,	/* build_id records */
	PERF_HEADER_HOSTNAME		= 3,	/* string */
	PERF_HEADER_OSRELEASE		= 4,	/* string */
	PERF_HEADER_VERSION		= 5,	/* string */
	PERF_HEADER_ARCH		= 6,	/* string */
	PERF_HEADER_NRCPUS		= 7,	/* u32 available, u32 online */
	PERF_HEADER_CPUDESC		= 8,	/* string */
	PERF_HEADER_CPUID		= 9,	/* string "Vendor,fam,model,step" */
	PERF_HEADER_TOTAL_MEM		= 10,	/* u64 kB */
	PERF_HEADER_CMDLINE		= 11,	/* string list */
	PERF_HEADER_EVENT_DESC		= 12,	/* attrs with names and ids */
	PERF_HEADER_CPU_TOPOLOGY	= 13,
	PERF_HEADER_NUMA_TOPOLOGY	= 14,
	PERF_HEADER_BRANCH_STACK	= 15,
	PERF_HEADER_PMU_MAPPINGS	= 16,	/* u32 nr, {u32 type, string} */
	PERF_HEADER_GROUP_DESC		= 17,
	PERF_HEADER_AUXTRACE		= 18,	/* index of AUXTRACE records */
	PERF_HEADER_STAT		= 19,
	PERF_HEADER_CACHE		= 20,
	PERF_HEADER_SAMPLE_TIME		= 21,	/* u64 first, u64 last (ns) */
	PERF_HEADER_MEM_TOPOLOGY	= 22,
	PERF_HEADER_CLOCKID		= 23,
	PERF_HEADER_DIR_FORMAT		= 24,
	PERF_HEADER_BPF_PROG_INFO	= 25,
	PERF_HEADER_BPF_BTF		= 26,
	PERF_HEADER_COMPRESSED		= 27,	/* struct perf_compressed_desc */
	PERF_HEADER_CPU_PMU_CAPS	= 28,
	PERF_HEADER_CLOCK_DATA		= 29,
	PERF_HEADER_HYBRID_TOPOLOGY	= 30,
	PERF_HEADER_PMU_CAPS		= 31,
	PERF_HEADER_LAST_FEATURE,
};

/*
 * A string in a feature section [fmt] "struct perf_header_string": a u32
 * length (including the NUL and padding to 8 bytes as perf writes it)
 * followed by that many bytes, NUL-terminated within them. A string list
 * is a u32 count followed by that many strings.
 */
struct perf_header_string {
	uint32_t len;
	char str[];
};

/*
 * HEADER_EVENT_DESC [fmt]: u32 nr, u32 attr_size, then nr times:
 * attr (attr_size bytes), u32 nr_ids, perf_header_string name,
 * u64 ids[nr_ids]. Only the leading counts are declared.
 */
struct perf_event_desc_head {
	uint32_t nr;
	uint32_t attr_size;
};

/*
 * HEADER_AUXTRACE [aux] auxtrace.c auxtrace_index__write(): a u64 count,
 * then that many entries, each naming one PERF_RECORD_AUXTRACE record
 * (the offset of its header in the file, and its header.size plus the
 * size of its trace data).
 */
struct perf_auxtrace_index_entry {
	uint64_t file_offset;
	uint64_t sz;
};

/* HEADER_COMPRESSED [fmt]: compression used by PERF_RECORD_COMPRESSED. */
struct perf_compressed_desc {
	uint32_t version;
	uint32_t type;		/* enum perf_compress_type */
	uint32_t level;
	uint32_t ratio;
	uint32_t mmap_len;	/* largest decompressed chunk perf wrote */
};

/* tools/perf/util/env.h enum perf_compress_type. */
enum perf_compress_type {
	PERF_COMP_NONE = 0,
	PERF_COMP_ZSTD = 1,
};

/*
 * Record types perf itself writes into the data stream, above the kernel's
 * [ev] enum perf_user_event_type, [fmt] "Perf record specific events".
 */
enum perf_user_record_type {
	PERF_RECORD_USER_TYPE_START	= 64,
	PERF_RECORD_HEADER_ATTR		= 64,
	PERF_RECORD_HEADER_EVENT_TYPE	= 65,	/* deprecated */
	PERF_RECORD_HEADER_TRACING_DATA	= 66,
	PERF_RECORD_HEADER_BUILD_ID	= 67,
	PERF_RECORD_FINISHED_ROUND	= 68,
	PERF_RECORD_ID_INDEX		= 69,
	PERF_RECORD_AUXTRACE_INFO	= 70,
	PERF_RECORD_AUXTRACE		= 71,
	PERF_RECORD_AUXTRACE_ERROR	= 72,
	PERF_RECORD_THREAD_MAP		= 73,
	PERF_RECORD_CPU_MAP		= 74,
	PERF_RECORD_STAT_CONFIG		= 75,
	PERF_RECORD_STAT		= 76,
	PERF_RECORD_STAT_ROUND		= 77,
	PERF_RECORD_EVENT_UPDATE	= 78,
	PERF_RECORD_TIME_CONV		= 79,
	PERF_RECORD_HEADER_FEATURE	= 80,
	PERF_RECORD_COMPRESSED		= 81,
	PERF_RECORD_FINISHED_INIT	= 82,
	PERF_RECORD_HEADER_MAX,
};

/*
 * PERF_RECORD_HEADER_ATTR [ev] struct perf_record_header_attr: the attr
 * (its own attr.size bytes) followed by its u64 ids up to header.size.
 */
struct perf_rec_header_attr {
	struct perf_event_header header;
	/* struct perf_event_attr attr (attr.size bytes); uint64_t id[]; */
};

/*
 * PERF_RECORD_HEADER_BUILD_ID and the HEADER_BUILD_ID feature entries [ev]
 * struct perf_record_header_build_id, [fmt] "struct build_id_event". With
 * PERF_RECORD_MISC_BUILD_ID_SIZE in header.misc, build_id[20] holds the
 * length of the id; otherwise the id is 20 bytes. The NUL-terminated file
 * name follows, padded, up to header.size.
 */
#define PERF_BUILD_ID_MAX	20
#define PERF_RECORD_MISC_BUILD_ID_SIZE	(1 << 15)	/* [ev] */
struct perf_rec_build_id {
	struct perf_event_header header;
	int32_t pid;
	uint8_t build_id[24];
	/* char filename[]; */
};

/* PERF_RECORD_HEADER_FEATURE [ev]: one feature section as a record. */
struct perf_rec_header_feature {
	struct perf_event_header header;
	uint64_t feat_id;
	/* feature section bytes up to header.size */
};

/* PERF_RECORD_ID_INDEX [ev] struct perf_record_id_index. */
struct perf_rec_id_index_entry {
	uint64_t id;
	uint64_t idx;
	uint64_t cpu;
	uint64_t tid;
};

struct perf_rec_id_index {
	struct perf_event_header header;
	uint64_t nr;
	/* struct perf_rec_id_index_entry entries[nr]; */
};

/*
 * PERF_RECORD_AUXTRACE_INFO [ev] struct perf_record_auxtrace_info: the
 * auxtrace type (enum perf_auxtrace_type) and type-specific u64 priv[] up
 * to header.size. For Intel PT, priv[] is indexed by enum
 * perf_intel_pt_info below.
 */
struct perf_rec_auxtrace_info {
	struct perf_event_header header;
	uint32_t type;
	uint32_t reserved;
	/* uint64_t priv[]; */
};

/* [aux] auxtrace.h enum auxtrace_type. */
enum perf_auxtrace_type {
	PERF_AUXTRACE_UNKNOWN	= 0,
	PERF_AUXTRACE_INTEL_PT	= 1,
	PERF_AUXTRACE_INTEL_BTS	= 2,
	PERF_AUXTRACE_CS_ETM	= 3,
	PERF_AUXTRACE_ARM_SPE	= 4,
	PERF_AUXTRACE_S390_CPUMSF = 5,
};

/*
 * PERF_RECORD_AUXTRACE [ev] struct perf_record_auxtrace: @size bytes of
 * trace data follow the record (they are not counted in header.size), so
 * the record occupies header.size + size bytes in the stream. @offset is
 * the position of the data in the AUX buffer's stream, @reference a value
 * (a TSC in Intel PT's case, arch/x86/util/intel-pt.c
 * intel_pt_reference()) used to order buffers, @idx the mmap index, @tid
 * the thread (per-thread mode) or -1, @cpu the CPU (per-CPU mode) or -1.
 * Data sizes are a multiple of 8 (PERF_AUXTRACE_RECORD_ALIGNMENT [aux]).
 */
struct perf_rec_auxtrace {
	struct perf_event_header header;
	uint64_t size;
	uint64_t offset;
	uint64_t reference;
	uint32_t idx;
	uint32_t tid;
	uint32_t cpu;
	uint32_t reserved;
};

#define PERF_AUXTRACE_RECORD_ALIGNMENT	8

/* PERF_RECORD_AUXTRACE_ERROR [ev] struct perf_record_auxtrace_error. */
#define PERF_AUXTRACE_ERROR_MSG_LEN	64
struct perf_rec_auxtrace_error {
	struct perf_event_header header;
	uint32_t type;
	uint32_t code;
	uint32_t cpu;
	uint32_t pid;
	uint32_t tid;
	uint32_t fmt;
	uint64_t ip;
	uint64_t time;		/* present when fmt >= 1 */
	char msg[PERF_AUXTRACE_ERROR_MSG_LEN];
	/* fmt >= 2: uint32_t machine_pid, vcpu; */
};

/*
 * PERF_RECORD_TIME_CONV [ev] struct perf_record_time_conv. perf before
 * 5.10 wrote only the first three fields (header.size 32); the rest is
 * present when header.size covers it. TSC to perf time (tools/perf/util/
 * tsc.c tsc_to_perf_time): quot = tsc >> shift, rem = tsc & ((1 << shift)
 * - 1), ns = time_zero + quot * mult + ((rem * mult) >> shift).
 */
struct perf_rec_time_conv {
	struct perf_event_header header;
	uint64_t time_shift;
	uint64_t time_mult;
	uint64_t time_zero;
	uint64_t time_cycles;
	uint64_t time_mask;
	uint8_t cap_user_time_zero;
	uint8_t cap_user_time_short;
	uint8_t reserved[6];
};

#define PERF_TIME_CONV_MIN_SIZE	offsetof(struct perf_rec_time_conv, time_cycles)

/* PERF_RECORD_COMPRESSED [ev]: zstd frame(s) up to header.size. */
struct perf_rec_compressed {
	struct perf_event_header header;
	/* compressed bytes */
};

/*
 * Intel PT's PERF_RECORD_AUXTRACE_INFO priv[] indices [ipt] intel-pt.h
 * (enum INTEL_PT_*), filled by arch/x86/util/intel-pt.c
 * intel_pt_info_fill() and read by util/intel-pt.c
 * intel_pt_process_auxtrace_info(). The *_BIT entries (TSC_BIT,
 * NORETCOMP_BIT, MTC_BIT, MTC_FREQ_BITS, CYC_BIT) are not bit positions but
 * masks of the intel_pt event's attr.config, from perf_pmu__format_bits():
 * TSC_BIT 0x400 means config bit 10 enables TSC packets, MTC_FREQ_BITS
 * 0x3c000 covers the mtc_period field (config bits 17:14), as in the 4.14
 * recordings. Readers test attr.config & mask; writers store the mask.
 * Entries up to PER_CPU_MMAPS are always present;
 * MTC_BIT..CYC_BIT, MAX_NONTURBO_RATIO and FILTER_STR_LEN each only if the
 * record is long enough to hold them (intel_pt_has()). FILTER_STR_LEN
 * bytes of NUL-terminated address-filter string (padded to 8) follow
 * priv[FILTER_STR_LEN].
 */
enum perf_intel_pt_info {
	PERF_INTEL_PT_PMU_TYPE		= 0,
	PERF_INTEL_PT_TIME_SHIFT	= 1,
	PERF_INTEL_PT_TIME_MULT		= 2,
	PERF_INTEL_PT_TIME_ZERO		= 3,
	PERF_INTEL_PT_CAP_USER_TIME_ZERO = 4,
	PERF_INTEL_PT_TSC_BIT		= 5,
	PERF_INTEL_PT_NORETCOMP_BIT	= 6,
	PERF_INTEL_PT_HAVE_SCHED_SWITCH	= 7,
	PERF_INTEL_PT_SNAPSHOT_MODE	= 8,
	PERF_INTEL_PT_PER_CPU_MMAPS	= 9,
	PERF_INTEL_PT_MTC_BIT		= 10,
	PERF_INTEL_PT_MTC_FREQ_BITS	= 11,
	PERF_INTEL_PT_TSC_CTC_N		= 12,
	PERF_INTEL_PT_TSC_CTC_D		= 13,
	PERF_INTEL_PT_CYC_BIT		= 14,
	PERF_INTEL_PT_MAX_NONTURBO_RATIO = 15,
	PERF_INTEL_PT_FILTER_STR_LEN	= 16,
	PERF_INTEL_PT_INFO_MAX		= 17,
};

/*
 * The intel_pt PMU's attr.config bits perf reads by fixed position rather
 * than through priv[] (intel-pt.c: intel_pt_timeless_decoding() etc. use
 * the *_BIT values; the PT enable bit is RTIT_CTL bit 0 as config bit 0).
 * mtc_period is config bits 17:14 (sysfs format "config:14-17",
 * arch/x86/events/intel/pt.c PMU_FORMAT_ATTR), cyc_thresh bits 22:19,
 * psb_period 27:24.
 */
#define PERF_INTEL_PT_CFG_MTC_PERIOD_SHIFT	14
#define PERF_INTEL_PT_CFG_MTC_PERIOD_MASK	0xfULL
#define PERF_INTEL_PT_CFG_CYC_THRESH_SHIFT	19
#define PERF_INTEL_PT_CFG_CYC_THRESH_MASK	0xfULL
#define PERF_INTEL_PT_CFG_PSB_PERIOD_SHIFT	24
#define PERF_INTEL_PT_CFG_PSB_PERIOD_MASK	0xfULL

/*
 * Intel BTS's PERF_RECORD_AUXTRACE_INFO priv[] indices, perf 6.1's
 * util/intel-bts.h (enum INTEL_BTS_*), filled by arch/x86/util/intel-bts.c
 * intel_bts_info_fill() and read by util/intel-bts.c
 * intel_bts_process_auxtrace_info(), which needs all six. The PMU type is
 * the intel_bts event's attr.type (sysfs
 * /sys/bus/event_source/devices/intel_bts/type); the time fields are the
 * kernel's TSC conversion as for Intel PT. The AUXTRACE data is the BTS
 * buffer as the processor wrote it: 24-byte records (from, to, flags; SDM
 * Vol. 3B Figure 17-9, include/uapi/lwpt/bts.h), no time, no header.
 */
enum perf_intel_bts_info {
	PERF_INTEL_BTS_PMU_TYPE		= 0,
	PERF_INTEL_BTS_TIME_SHIFT	= 1,
	PERF_INTEL_BTS_TIME_MULT	= 2,
	PERF_INTEL_BTS_TIME_ZERO	= 3,
	PERF_INTEL_BTS_CAP_USER_TIME_ZERO = 4,
	PERF_INTEL_BTS_SNAPSHOT_MODE	= 5,
	PERF_INTEL_BTS_INFO_MAX		= 6,
};

/* Layouts pinned to perf's on-disk sizes. */
LWPT_STATIC_ASSERT(sizeof(struct perf_file_section) == 16, "perf_file_section");
LWPT_STATIC_ASSERT(sizeof(struct perf_file_header) == 104, "perf_file_header");
LWPT_STATIC_ASSERT(sizeof(struct perf_pipe_file_header) == 16, "pipe header");
LWPT_STATIC_ASSERT(sizeof(struct perf_auxtrace_index_entry) == 16, "index");
LWPT_STATIC_ASSERT(sizeof(struct perf_compressed_desc) == 20, "compressed");
LWPT_STATIC_ASSERT(sizeof(struct perf_rec_build_id) == 36, "build_id rec");
LWPT_STATIC_ASSERT(sizeof(struct perf_rec_header_feature) == 16, "feature rec");
LWPT_STATIC_ASSERT(sizeof(struct perf_rec_id_index_entry) == 32, "id index");
LWPT_STATIC_ASSERT(sizeof(struct perf_rec_id_index) == 16, "id index rec");
LWPT_STATIC_ASSERT(sizeof(struct perf_rec_auxtrace_info) == 16, "auxtrace_info");
LWPT_STATIC_ASSERT(sizeof(struct perf_rec_auxtrace) == 48, "auxtrace rec");
LWPT_STATIC_ASSERT(sizeof(struct perf_rec_auxtrace_error) == 112, "aux error");
LWPT_STATIC_ASSERT(sizeof(struct perf_rec_time_conv) == 56, "time_conv rec");
LWPT_STATIC_ASSERT(PERF_TIME_CONV_MIN_SIZE == 32, "time_conv v1");
LWPT_STATIC_ASSERT(offsetof(struct perf_file_header, features) == 72, "flags");

#endif /* LWPT_PERF_FILE_H */
