/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libpt packet decoder: Intel PT packets (SDM Vol. 3C, 33.4) from a byte
 * buffer, one at a time or in batches, with PSB synchronisation and a
 * separate last-IP tracker.
 *
 * All symbols start with lpt_/LPT_ so that programs can link libpt and
 * libipt (pt_/ppt_/pte_) together.
 *
 * Typical use:
 *
 *	struct lpt_pkt_decoder *d = lpt_pkt_alloc(buf, len, NULL);
 *	struct lpt_packet pkt;
 *	int ret;
 *
 *	for (ret = lpt_pkt_sync_forward(d); ret >= 0; ) {
 *		ret = lpt_pkt_next(d, &pkt);
 *		if (ret == LPT_ERR_EOS)
 *			break;
 *		if (ret < 0) {		// corruption: report and resync
 *			lpt_pkt_get_offset(d, &off);
 *			fprintf(stderr, "%llx: %s\n", off, lpt_errstr(ret));
 *			ret = lpt_pkt_sync_forward(d);
 *			continue;
 *		}
 *		use(&pkt);
 *	}
 *	lpt_pkt_free(d);
 */
#ifndef _LWPT_PT_PKT_H
#define _LWPT_PT_PKT_H

#include <stddef.h>
#include <stdint.h>

#include <lwpt/pt_packets.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Errors                                                                 */

/*
 * libpt error codes: every libpt function that can fail returns one of
 * these (negative) or a non-negative result. lpt_errstr() names them.
 */
enum lpt_error {
	LPT_OK			= 0,
	LPT_ERR_INTERNAL	= -1,	/* libpt bug                          */
	LPT_ERR_INVALID		= -2,	/* bad argument (NULL, size, ...)     */
	LPT_ERR_NOMEM		= -3,	/* out of memory                      */
	LPT_ERR_EOS		= -4,	/* end of buffer: need more bytes (a
					 * packet is truncated at the end),
					 * or nothing left to decode / find  */
	LPT_ERR_NOSYNC		= -5,	/* decoder not synchronised (no PSB
					 * found yet, or no sync_* call)      */
	LPT_ERR_BAD_OPCODE	= -6,	/* unknown opcode: corrupt trace or a
					 * packet newer than libpt            */
	LPT_ERR_BAD_PACKET	= -7,	/* known opcode, malformed packet:
					 * reserved IPBytes/PayloadBytes/MODE
					 * leaf, TNT without stop bit, CYC
					 * too long, PSB pattern broken       */
	LPT_ERR_NOIP		= -8,	/* last IP: no IP seen yet            */
	LPT_ERR_IP_SUPPRESSED	= -9,	/* last IP: last IP packet had
					 * IPBytes = 0 (SDM Table 33-18)      */
	LPT_ERR_BAD_CONFIG	= -10,	/* config struct size/flags unknown  */
	LPT_ERR_NOT_SUPPORTED	= -11,	/* operation not supported           */
	/* Time tracking (lwpt/pt_time.h, SDM 33.8.3). */
	LPT_ERR_NO_TIME		= -12,	/* no TSC packet seen yet             */
	LPT_ERR_NO_CBR		= -13,	/* no (non-zero) CBR seen yet         */
	LPT_ERR_BAD_CONTEXT	= -14,	/* packet out of the expected context */
	LPT_ERR_OVERFLOW	= -15,	/* arithmetic overflow                */
	LPT_ERR_MAX		= -16,	/* one below the lowest code          */

	LPT_ERR_INVAL		= LPT_ERR_INVALID	/* alias */
};

/**
 * lpt_errstr() - describe a libpt error code.
 * @err: an enum lpt_error value (negative or LPT_OK); any other value
 *       gives "unknown error".
 *
 * Return: a static, NUL-terminated English string; never NULL.
 */
const char *lpt_errstr(int err);

/* ---------------------------------------------------------------------- */
/* Packets                                                                */

/* Packet types, SDM 33.4.2. Values are stable (ABI): append only. */
enum lpt_pkt_type {
	LPT_PKT_INVALID = 0,	/* only with LPT_PKT_F_ERRATUM_SKZ84 */
	LPT_PKT_PAD,		/* 33.4.2.20 */
	LPT_PKT_TNT_8,		/* 33.4.2.1, short TNT */
	LPT_PKT_TNT_64,		/* 33.4.2.1, long TNT */
	LPT_PKT_TIP,		/* 33.4.2.2 */
	LPT_PKT_TIP_PGE,	/* 33.4.2.4 */
	LPT_PKT_TIP_PGD,	/* 33.4.2.5 */
	LPT_PKT_FUP,		/* 33.4.2.6 */
	LPT_PKT_PIP,		/* 33.4.2.7 */
	LPT_PKT_MODE_EXEC,	/* 33.4.2.8 */
	LPT_PKT_MODE_TSX,	/* 33.4.2.8 */
	LPT_PKT_TRACESTOP,	/* 33.4.2.9 */
	LPT_PKT_CBR,		/* 33.4.2.10 */
	LPT_PKT_TSC,		/* 33.4.2.11 */
	LPT_PKT_MTC,		/* 33.4.2.12 */
	LPT_PKT_TMA,		/* 33.4.2.13 */
	LPT_PKT_CYC,		/* 33.4.2.14 */
	LPT_PKT_VMCS,		/* 33.4.2.15 */
	LPT_PKT_OVF,		/* 33.4.2.16 */
	LPT_PKT_PSB,		/* 33.4.2.17 */
	LPT_PKT_PSBEND,		/* 33.4.2.18 */
	LPT_PKT_MNT,		/* 33.4.2.19 */
	LPT_PKT_PTW,		/* 33.4.2.21 */
	LPT_PKT_EXSTOP,		/* 33.4.2.22 */
	LPT_PKT_MWAIT,		/* 33.4.2.23 */
	LPT_PKT_PWRE,		/* 33.4.2.24 */
	LPT_PKT_PWRX,		/* 33.4.2.25 */
	LPT_PKT_BBP,		/* 33.4.2.26 */
	LPT_PKT_BIP,		/* 33.4.2.27 */
	LPT_PKT_BEP,		/* 33.4.2.28 */
	LPT_PKT_CFE,		/* 33.4.2.29 */
	LPT_PKT_EVD,		/* 33.4.2.30 */
	LPT_PKT_TRIG,		/* Trigger Tracing (later SDM; libipt ptdump) */
	LPT_PKT_NR		/* number of types */
};

/**
 * lpt_pkt_type_name() - short lower-case name of a packet type.
 * @type: an enum lpt_pkt_type value.
 *
 * Names follow libipt's ptdump where it has one ("tnt.8", "tip.pge",
 * "mode.exec", "stop" for TraceStop, ...), else the SDM name in lower case
 * ("bbp", "bip", "bep").
 *
 * Return: static string; "invalid" for an unknown @type.
 */
const char *lpt_pkt_type_name(int type);

/* IP compression, the IPBytes field (SDM Table 33-18). Equal to the raw
 * field value. */
enum lpt_ipc {
	LPT_IPC_SUPPRESSED	= PT_IPBYTES_SUPPRESSED,
	LPT_IPC_UPDATE_16	= PT_IPBYTES_UPDATE_16,
	LPT_IPC_UPDATE_32	= PT_IPBYTES_UPDATE_32,
	LPT_IPC_SEXT_48		= PT_IPBYTES_SEXT_48,
	LPT_IPC_UPDATE_48	= PT_IPBYTES_UPDATE_48,
	LPT_IPC_FULL		= PT_IPBYTES_FULL
};

/* TNT-8 / TNT-64: @count (1..47) branch results; bit (count-1) of @bits is
 * B1, the oldest; bit 0 is BN, the youngest; 1 = taken (or compressed
 * RET). Stop bit removed. */
struct lpt_pkt_tnt {
	uint64_t bits;
	uint8_t count;
};

/* TIP, TIP.PGE, TIP.PGD, FUP: @ip is the raw payload, zero-extended from
 * its PT_IPBYTES_PAYLOAD_SIZE(ipc) bytes; NOT decompressed (use
 * lpt_last_ip_update()). */
struct lpt_pkt_ip {
	uint64_t ip;
	uint8_t ipc;		/* enum lpt_ipc */
};

/* PIP: CR3[51:5] (bits 4:0 zero) and the NR (non-root) bit. */
struct lpt_pkt_pip {
	uint64_t cr3;
	uint8_t nr;
};

/* MODE.Exec, SDM Table 33-26: each flag 0 or 1. */
struct lpt_pkt_mode_exec {
	uint8_t csl;		/* CS.L & IA32_EFER.LMA */
	uint8_t csd;		/* CS.D */
	uint8_t iflag;		/* RFLAGS.IF (only with EventEn) */
	uint8_t bits;		/* raw Mode bits [4:0] */
};

/* MODE.TSX, SDM Table 33-27. */
struct lpt_pkt_mode_tsx {
	uint8_t intx;		/* InTX */
	uint8_t abrt;		/* TXAbort */
	uint8_t bits;		/* raw Mode bits [4:0] */
};

struct lpt_pkt_cbr {
	uint8_t ratio;		/* Core:Bus Ratio */
};

struct lpt_pkt_tsc {
	uint64_t tsc;		/* SW TSC[55:0] */
};

struct lpt_pkt_mtc {
	uint8_t ctc;		/* CTC[N+7:N], N from MTCFreq */
};

/* TMA, SDM Table 33-32. */
struct lpt_pkt_tma {
	uint16_t ctc;		/* CTC[15:0] */
	uint16_t fc;		/* FastCounter[8:0] */
};

/* CYC, SDM Table 33-33: cycles since the last CYC. */
struct lpt_pkt_cyc {
	uint64_t value;
};

/* VMCS, SDM Table 33-34: VMCS pointer[51:12] (bits 11:0 zero). */
struct lpt_pkt_vmcs {
	uint64_t base;
};

/* MNT, SDM Table 33-38: model-specific payload. */
struct lpt_pkt_mnt {
	uint64_t payload;
};

/* PTW, SDM Table 33-40. */
struct lpt_pkt_ptw {
	uint64_t payload;	/* zero-extended */
	uint8_t plc;		/* raw PayloadBytes field: PT_PTW_PLC_4/8 */
	uint8_t bytes;		/* payload size: 4 or 8 */
	uint8_t ip;		/* a FUP with the PTWRITE IP follows */
};

/* EXSTOP, SDM Table 33-41. */
struct lpt_pkt_exstop {
	uint8_t ip;		/* a FUP follows */
};

/* MWAIT, SDM Table 33-42. @hints and @ext are the architectural fields;
 * @raw is the whole 8-byte payload (bytes 2..9), reserved bits included:
 * libipt prints (uint32_t)raw and raw >> 32 as "hints, ext". */
struct lpt_pkt_mwait {
	uint8_t hints;		/* MWAIT Hints[7:0] (EAX) */
	uint8_t ext;		/* EXT[1:0] (ECX) */
	uint64_t raw;
};

/* PWRE, SDM Table 33-43. @raw = bytes 2..3 little-endian (byte 2 in bits
 * 7:0). NOTE: libipt 2.x tests HW at raw bit 3; the SDM (and Linux perf)
 * put it in bit 7 of byte 2, which is what @hw reports. */
struct lpt_pkt_pwre {
	uint8_t state;		/* Resolved Thread C-State (MWAIT encoding) */
	uint8_t sub_state;	/* Resolved Thread Sub C-State */
	uint8_t hw;		/* entry initiated by hardware */
	uint16_t raw;
};

/* PWRX, SDM Table 33-44. */
struct lpt_pkt_pwrx {
	uint8_t last;		/* Last Core C-State (MWAIT encoding) */
	uint8_t deepest;	/* Deepest Core C-State */
	uint8_t wake;		/* Wake Reason, PT_PWRX_WAKE_* bits */
};

/* BBP, SDM Table 33-45. */
struct lpt_pkt_bbp {
	uint8_t sz;		/* raw SZ bit: 1 = 4-byte items */
	uint8_t type;		/* Type[4:0], PT_BBP_TYPE_* */
	uint8_t item_size;	/* 4 or 8 */
};

/* BIP, SDM Table 33-46/33-47: the item (bbp_type, id) names a PEBS record
 * field, see <lwpt/pebs.h> and lpt_bip_name(). */
struct lpt_pkt_bip {
	uint64_t value;		/* zero-extended payload */
	uint8_t id;		/* ID[4:0] */
	uint8_t bbp_type;	/* Type of the enclosing BBP */
	uint8_t size;		/* payload bytes: 4 or 8 (from BBP.SZ) */
};

/* BEP, SDM Table 33-48. */
struct lpt_pkt_bep {
	uint8_t ip;		/* a FUP follows */
};

/* CFE, SDM Table 33-49/33-50. */
struct lpt_pkt_cfe {
	uint8_t type;		/* PT_CFE_TYPE_* */
	uint8_t vector;		/* valid for INTR, SIPI, VMEXIT_INTR, UINTR */
	uint8_t ip;		/* a stand-alone FUP follows */
};

/* EVD, SDM Table 33-51. */
struct lpt_pkt_evd {
	uint64_t payload;
	uint8_t type;		/* PT_EVD_TYPE_* */
};

/* TRIG (not in the cited SDM revision; libipt's layout). */
struct lpt_pkt_trig {
	uint16_t icnt;		/* valid if icntv */
	uint8_t trbv;		/* trigger bit vector */
	uint8_t ip;
	uint8_t icntv;
	uint8_t mult;
};

/*
 * A decoded packet. @type selects the @payload member:
 *   TNT_8/TNT_64: tnt    TIP/TIP_PGE/TIP_PGD/FUP: ip    PIP: pip
 *   MODE_EXEC: mode_exec MODE_TSX: mode_tsx  CBR: cbr  TSC: tsc  MTC: mtc
 *   TMA: tma  CYC: cyc  VMCS: vmcs  MNT: mnt  PTW: ptw  EXSTOP: exstop
 *   MWAIT: mwait  PWRE: pwre  PWRX: pwrx  BBP: bbp  BIP: bip  BEP: bep
 *   CFE: cfe  EVD: evd  TRIG: trig
 *   PAD, TRACESTOP, OVF, PSB, PSBEND: no payload.
 * Payload members not selected by @type are unspecified.
 */
struct lpt_packet {
	uint8_t type;		/* enum lpt_pkt_type */
	uint8_t size;		/* packet size in bytes (1..16) */
	union {
		struct lpt_pkt_tnt tnt;
		struct lpt_pkt_ip ip;
		struct lpt_pkt_pip pip;
		struct lpt_pkt_mode_exec mode_exec;
		struct lpt_pkt_mode_tsx mode_tsx;
		struct lpt_pkt_cbr cbr;
		struct lpt_pkt_tsc tsc;
		struct lpt_pkt_mtc mtc;
		struct lpt_pkt_tma tma;
		struct lpt_pkt_cyc cyc;
		struct lpt_pkt_vmcs vmcs;
		struct lpt_pkt_mnt mnt;
		struct lpt_pkt_ptw ptw;
		struct lpt_pkt_exstop exstop;
		struct lpt_pkt_mwait mwait;
		struct lpt_pkt_pwre pwre;
		struct lpt_pkt_pwrx pwrx;
		struct lpt_pkt_bbp bbp;
		struct lpt_pkt_bip bip;
		struct lpt_pkt_bep bep;
		struct lpt_pkt_cfe cfe;
		struct lpt_pkt_evd evd;
		struct lpt_pkt_trig trig;
	} payload;
};

/* ---------------------------------------------------------------------- */
/* Stateless single-packet decode                                         */

/*
 * Packet-block state (SDM 33.4.1.1): between a BBP and the block's end a
 * first byte xxxxx100b is a BIP, whose payload size is the BBP's SZ.
 * Zero-initialise for "outside a block".
 */
struct lpt_pkt_block {
	uint8_t in_block;	/* 1 after a BBP until BEP/OVF/PSB/... */
	uint8_t bbp_type;	/* Type of that BBP */
	uint8_t item_size;	/* 4 or 8 */
};

/**
 * lpt_pkt_decode() - decode one packet at the start of a buffer.
 * @buf:   packet bytes.
 * @len:   bytes available at @buf.
 * @block: packet-block state (SDM 33.4.1.1), read and updated: a BBP opens
 *         a block; BEP, OVF, another BBP or any packet forbidden inside a
 *         block (SDM Table 33-15) closes it. May be NULL (then a BIP is
 *         never recognised and BBPs are not remembered).
 * @pkt:   output; written only on success.
 * @flags: LPT_PKT_F_* below, 0 for the defaults.
 *
 * Never reads @buf beyond @len bytes.
 *
 * Return: the packet size in bytes (> 0); LPT_ERR_EOS if @len is 0 or the
 * packet is cut short by the end of the buffer (more bytes could complete
 * it); LPT_ERR_BAD_OPCODE for an unknown first or extended opcode;
 * LPT_ERR_BAD_PACKET for a malformed packet; LPT_ERR_INVALID if @buf or
 * @pkt is NULL. On error @block is unchanged.
 */
int lpt_pkt_decode(const uint8_t *buf, size_t len,
		   struct lpt_pkt_block *block, struct lpt_packet *pkt,
		   uint32_t flags);

/* Decode flags (also lpt_pkt_config.flags). */
/* Reject set reserved bits where libipt does (TMA byte 4, FC bits 15:9).
 * The SDM says reserved bits are not guaranteed 0, so the default accepts
 * and ignores them. */
#define LPT_PKT_F_STRICT_RSVD	0x1u
/* Do not recognise TRIG (0xd9): report LPT_ERR_BAD_OPCODE as libipt < 2.1
 * and the cited SDM revision would. */
#define LPT_PKT_F_NO_TRIG	0x2u
/* Erratum SKD007 workaround (as libipt): a 2-byte CYC whose second byte is
 * 0x02 followed by 0xf3 is an OVF whose ext opcode was corrupted into a
 * CYC; decode the 3 bytes as one OVF packet (size 3). */
#define LPT_PKT_F_ERRATUM_SKD007 0x4u
/* Erratum SKZ84 workaround (as libipt): a TMA with reserved bits set is
 * corrupt and one byte longer; return it as a successful packet of type
 * LPT_PKT_INVALID and size PT_TMA_SIZE + 1. */
#define LPT_PKT_F_ERRATUM_SKZ84	0x8u
#define LPT_PKT_F_ALL		0xfu

/* ---------------------------------------------------------------------- */
/* Decoder object                                                         */

/* CPU identification (for errata). vendor: 0 unknown, 1 Intel. */
struct lpt_cpu {
	uint8_t vendor;
	uint8_t model;
	uint16_t family;
	uint8_t stepping;
};

/**
 * lpt_cpu_errata() - packet-decoder erratum workarounds a CPU needs.
 * @cpu: vendor 1 (Intel), family, model (stepping unused so far).
 *
 * Return: a mask of LPT_PKT_F_ERRATUM_* to OR into lpt_pkt_config.flags
 * (or pass to lpt_pkt_decode()); 0 for unaffected or unknown CPUs. The CPU
 * lists follow Intel's specification updates as libipt applies them.
 */
uint32_t lpt_cpu_errata(const struct lpt_cpu *cpu);

/* Decoder configuration; fill with lpt_pkt_config_init() first. */
struct lpt_pkt_config {
	size_t size;		/* sizeof(struct lpt_pkt_config) */
	uint32_t flags;		/* LPT_PKT_F_* */
	struct lpt_cpu cpu;	/* zero: unknown. An Intel CPU here makes the
				 * decoder add lpt_cpu_errata(&cpu) to flags. */
};

/**
 * lpt_pkt_config_init() - set a configuration to the defaults.
 * @cfg: configuration to fill; sets cfg->size, everything else 0.
 */
void lpt_pkt_config_init(struct lpt_pkt_config *cfg);

struct lpt_pkt_decoder;

/**
 * lpt_pkt_alloc() - allocate a packet decoder over a trace buffer.
 * @buf: raw PT bytes (SDM 33.4), not copied: must outlive the decoder.
 * @len: bytes at @buf (may be 0).
 * @cfg: configuration, or NULL for defaults. cfg->size may be smaller
 *       than ours (older caller); unknown flags are rejected.
 *
 * The decoder starts unsynchronised: call lpt_pkt_sync_forward(),
 * lpt_pkt_sync_backward() or lpt_pkt_sync_set() before lpt_pkt_next().
 *
 * Return: the decoder, or NULL with errno = EINVAL (NULL @buf with
 * non-zero @len, bad @cfg) or ENOMEM.
 */
struct lpt_pkt_decoder *lpt_pkt_alloc(const uint8_t *buf, size_t len,
				      const struct lpt_pkt_config *cfg);

/**
 * lpt_pkt_free() - free a decoder from lpt_pkt_alloc(); NULL is a no-op.
 * @dec: decoder.
 */
void lpt_pkt_free(struct lpt_pkt_decoder *dec);

/**
 * lpt_pkt_set_buffer() - point a decoder at a new buffer (e.g. the next
 * chunk of a stream, or a chunk with a split packet stitched in front).
 * @dec: decoder.
 * @buf: new bytes, not copied.
 * @len: bytes at @buf.
 *
 * The decoder becomes unsynchronised; packet-block state is kept (call
 * lpt_pkt_sync_set(dec, 0) to continue decoding at the new buffer's start
 * as part of the same stream).
 *
 * Return: 0, or LPT_ERR_INVALID (NULL @dec, NULL @buf with @len > 0).
 */
int lpt_pkt_set_buffer(struct lpt_pkt_decoder *dec, const uint8_t *buf,
		       size_t len);

/**
 * lpt_pkt_sync_forward() - synchronise at the next PSB (SDM 33.4.2.17).
 * @dec: decoder.
 *
 * Searches forward for the PSB pattern, starting after the current sync
 * point (so repeated calls visit every PSB) and up to 15 bytes before the
 * current position (a PSB partly consumed by a bad packet is found). The
 * search compares 8 bytes at a time against both phases of the pattern.
 * On success the next lpt_pkt_next() returns that PSB. Packet-block state
 * is reset.
 *
 * Return: 0; LPT_ERR_EOS if no complete PSB follows (position unchanged);
 * LPT_ERR_INVALID for NULL @dec.
 */
int lpt_pkt_sync_forward(struct lpt_pkt_decoder *dec);

/**
 * lpt_pkt_sync_backward() - synchronise at the previous PSB.
 * @dec: decoder.
 *
 * Searches backward for the last complete PSB that starts before the
 * current position (before the end of the buffer if unsynchronised).
 *
 * Return: 0; LPT_ERR_EOS if there is none; LPT_ERR_INVALID for NULL @dec.
 */
int lpt_pkt_sync_backward(struct lpt_pkt_decoder *dec);

/**
 * lpt_pkt_sync_set() - set the decoding position without looking for PSB.
 * @dec:    decoder.
 * @offset: byte offset into the buffer (0..len).
 *
 * The caller asserts a packet starts at @offset. Packet-block state is kept.
 *
 * Return: 0; LPT_ERR_EOS if @offset > len; LPT_ERR_INVALID for NULL @dec.
 */
int lpt_pkt_sync_set(struct lpt_pkt_decoder *dec, uint64_t offset);

/**
 * lpt_pkt_get_offset() - byte offset of the next packet to decode.
 * @dec:    decoder.
 * @offset: output.
 *
 * After an lpt_pkt_next() error this is the offset of the offending packet.
 *
 * Return: 0; LPT_ERR_NOSYNC if not synchronised; LPT_ERR_INVALID for NULL.
 */
int lpt_pkt_get_offset(const struct lpt_pkt_decoder *dec, uint64_t *offset);

/**
 * lpt_pkt_get_sync_offset() - byte offset of the last sync point (the PSB
 * found by sync_forward/backward, or the offset given to sync_set).
 * @dec:    decoder.
 * @offset: output.
 *
 * Return: 0; LPT_ERR_NOSYNC; LPT_ERR_INVALID.
 */
int lpt_pkt_get_sync_offset(const struct lpt_pkt_decoder *dec,
			    uint64_t *offset);

/**
 * lpt_pkt_next() - decode the packet at the current position and advance.
 * @dec: synchronised decoder.
 * @pkt: output; written only on success.
 *
 * Implements SDM 33.4.2 for every packet of 33.4.2.1-33.4.2.30 (and TRIG),
 * keeping packet-block state across calls for BIP (33.4.1.1). Never reads
 * past the buffer.
 *
 * Return: the packet size in bytes (> 0). On error the position does not
 * move: LPT_ERR_EOS at the end of the buffer or for a packet truncated by
 * it (more bytes may complete it); LPT_ERR_BAD_OPCODE / LPT_ERR_BAD_PACKET
 * for corruption (report lpt_pkt_get_offset() and resynchronise with
 * lpt_pkt_sync_forward()); LPT_ERR_NOSYNC if not synchronised;
 * LPT_ERR_INVALID for NULL arguments.
 */
int lpt_pkt_next(struct lpt_pkt_decoder *dec, struct lpt_packet *pkt);

/**
 * lpt_pkt_next_batch() - decode up to @n packets.
 * @dec:  synchronised decoder.
 * @pkts: output array of @n packets.
 * @n:    capacity of @pkts (> 0).
 *
 * Equivalent to calling lpt_pkt_next() until it fails or @n packets are
 * decoded, but faster. The offset of pkts[i] is the offset before the call
 * plus the sizes of pkts[0..i-1].
 *
 * Return: the number of packets decoded (1..n), or, if the very first
 * packet fails, that error (as lpt_pkt_next()). A later failure ends the
 * batch early; the next call reports it. Entries of @pkts beyond the
 * returned count are unspecified.
 */
int lpt_pkt_next_batch(struct lpt_pkt_decoder *dec, struct lpt_packet *pkts,
		       int n);

/* Packets and bytes per type, summed by lpt_pkt_count(). */
struct lpt_pkt_stats {
	uint64_t count[LPT_PKT_NR];	/* packets, by enum lpt_pkt_type */
	uint64_t bytes[LPT_PKT_NR];	/* their bytes */
};

/**
 * lpt_pkt_count() - decode packets to the end of the buffer, only counting
 * them.
 * @dec: synchronised decoder.
 * @st:  packets and bytes per type are added to it (not cleared).
 *
 * Equivalent to calling lpt_pkt_next() until it fails and adding each
 * packet's type and size to @st, but faster: no packet is written out
 * (runs of PAD, SDM 33.4.2.20, are counted a word at a time; TNT-8,
 * 33.4.2.1, and the IP packets, 33.4.2.2-6, sized by their first byte,
 * without the general dispatch). For `ptdump --stats`.
 *
 * Return: the error that ended it, as lpt_pkt_next() returns it, with the
 * position at the failing packet: LPT_ERR_EOS at the end of the buffer
 * (the normal end), LPT_ERR_BAD_OPCODE / LPT_ERR_BAD_PACKET for corruption
 * (resynchronise with lpt_pkt_sync_forward() and call again),
 * LPT_ERR_NOSYNC if not synchronised, LPT_ERR_INVALID for NULL arguments.
 */
int lpt_pkt_count(struct lpt_pkt_decoder *dec, struct lpt_pkt_stats *st);

/* ---------------------------------------------------------------------- */
/* Last IP (SDM 33.4.2.2, "IP Compression", Table 33-18)                  */

/*
 * The decoder-side copy of the processor's "Last IP". Initialise with
 * lpt_last_ip_init(); the hardware resets it to 0 at each PSB, so call
 * lpt_last_ip_init() again on PSB (libipt's ptdump does not; --lastip
 * output therefore may differ before the first full IP after a PSB).
 */
struct lpt_last_ip {
	uint64_t ip;		/* last reconstructed IP */
	uint8_t have_ip;	/* an IP packet with IPBytes != 0 was seen */
	uint8_t suppressed;	/* the latest IP packet had IPBytes == 0 */
};

/**
 * lpt_last_ip_init() - reset to "Last IP = 0, nothing seen".
 * @lip: tracker.
 */
void lpt_last_ip_init(struct lpt_last_ip *lip);

/**
 * lpt_last_ip_update() - apply one IP packet payload (Table 33-18).
 * @lip: tracker.
 * @ipc: IPBytes (enum lpt_ipc).
 * @payload: raw payload as in struct lpt_pkt_ip.ip.
 *
 * IPBytes 0 marks the IP suppressed and leaves Last IP (SDM: "Last IP is
 * not cleared"); 1, 2, 4 replace the low 16, 32, 48 bits; 3 sign-extends
 * bit 47; 6 replaces all 64 bits.
 *
 * Return: 0; LPT_ERR_BAD_PACKET for reserved IPBytes (5, 7 or > 7);
 * LPT_ERR_INVALID for NULL @lip.
 */
int lpt_last_ip_update(struct lpt_last_ip *lip, uint8_t ipc,
		       uint64_t payload);

/**
 * lpt_last_ip_update_pkt() - lpt_last_ip_update() for a TIP, TIP.PGE,
 * TIP.PGD or FUP packet.
 * @lip: tracker.
 * @pkt: decoded packet.
 *
 * Return: as lpt_last_ip_update(); LPT_ERR_INVALID if @pkt is not an IP
 * packet.
 */
int lpt_last_ip_update_pkt(struct lpt_last_ip *lip,
			   const struct lpt_packet *pkt);

/**
 * lpt_last_ip_query() - the current decompressed IP.
 * @lip: tracker.
 * @ip:  output (may be NULL); set to the Last IP value even on
 *       LPT_ERR_IP_SUPPRESSED, to 0 on LPT_ERR_NOIP.
 *
 * Return: 0; LPT_ERR_NOIP if no IP was seen since init;
 * LPT_ERR_IP_SUPPRESSED if the latest IP packet had IPBytes 0;
 * LPT_ERR_INVALID for NULL @lip.
 */
int lpt_last_ip_query(const struct lpt_last_ip *lip, uint64_t *ip);

/* ---------------------------------------------------------------------- */
/* Names                                                                  */

/**
 * lpt_bip_name() - the PEBS record field a BIP carries (SDM Table 33-47).
 * @bbp_type: Type of the enclosing BBP (PT_BBP_TYPE_*).
 * @id:       BIP ID (0..31).
 *
 * Return: static string such as "R/EAX", "LBR[TOS-3]_FROM_IP", "XMM7_Q1",
 * "MemAccessLatency"; NULL for a reserved (type, id).
 */
const char *lpt_bip_name(unsigned int bbp_type, unsigned int id);

/**
 * lpt_bbp_type_name() - block name of a BBP type (SDM Table 33-45).
 * @type: BBP Type[4:0].
 *
 * Return: static string ("General-Purpose Registers", "PEBS Basic", ...),
 * NULL if reserved.
 */
const char *lpt_bbp_type_name(unsigned int type);

/**
 * lpt_cfe_type_name() - CFE subtype name (SDM Table 33-50), e.g. "intr",
 * "iret", "vmexit_intr"; NULL if reserved.
 * @type: CFE Type[4:0].
 */
const char *lpt_cfe_type_name(unsigned int type);

/**
 * lpt_evd_type_name() - EVD type name (SDM Table 33-51): "pfa", "vmxq",
 * "vmxr"; NULL if reserved.
 * @type: EVD Type[5:0].
 */
const char *lpt_evd_type_name(unsigned int type);

#ifdef __cplusplus
}
#endif

#endif /* _LWPT_PT_PKT_H */
