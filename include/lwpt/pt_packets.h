/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Intel Processor Trace packet formats: the one home of every opcode byte,
 * packet size, field mask and shift, written from Intel SDM Vol. 3C
 * chapter 33, section 33.4.2 ("Packet Definitions").
 *
 * Shared by the kernel module, the hardware model (which ENCODES packets
 * with these macros) and user space (libpt decodes with them). Only
 * fixed-width types; no libc.
 *
 * Conventions:
 *   PT_OPC_x     first byte of packet x (or its value under PT_OPM_x)
 *   PT_OPM_x     mask selecting the opcode bits of a first byte
 *   PT_EXT_x     second byte of an extended packet (first byte PT_OPC_EXT)
 *   PT_x_SIZE    total packet size in bytes, header included
 *   PT_x_*_OFF   byte offset of a field from the first byte of the packet
 *   PT_x_*_MASK / PT_x_*_SHIFT   field within the byte (or the little-endian
 *                payload) named by the accompanying _OFF
 * All multi-byte payloads are little-endian.
 */
#ifndef _LWPT_PT_PACKETS_H
#define _LWPT_PT_PACKETS_H

#include <lwpt/compiler.h>

#ifdef __KERNEL__
#include <linux/types.h>	/* uint8_t, uint64_t */
#else
#include <stdint.h>
#endif

/* ---------------------------------------------------------------------- */
/* Single-byte and masked opcodes (first byte), SDM 33.4.2               */

/* PAD, SDM 33.4.2.20: a single zero byte. */
#define PT_OPC_PAD		0x00
#define PT_PAD_SIZE		1

/* Extended opcode escape: all two-byte-opcode packets start with it. */
#define PT_OPC_EXT		0x02

/*
 * Short TNT (TNT-8), SDM 33.4.2.1, Table 33-16: bit 0 is 0; bits 7:1 hold
 * 1 to 6 TNT bits followed (towards bit 7) by a 1 stop bit. B1 (oldest) is
 * the bit just below the stop bit, BN (youngest) is bit 1. 0x00 (PAD) and
 * 0x02 (EXT, a stop bit with no payload) are not TNT packets.
 */
#define PT_OPM_TNT_8		0x01
#define PT_OPC_TNT_8		0x00
#define PT_TNT_8_SHIFT		1	/* payload incl. stop bit = byte >> 1 */
#define PT_TNT_8_SIZE		1
#define PT_TNT_8_MAX_BITS	6
/* Encode a short TNT with @n (1..6) bits @bits (B1 in bit n-1). */
#define PT_TNT_8_BYTE(bits, n) \
	((uint8_t)(((((uint64_t)1 << (n)) | ((uint64_t)(bits) & \
		 (((uint64_t)1 << (n)) - 1))) << PT_TNT_8_SHIFT)))

/*
 * IP packets (TIP, TIP.PGE, TIP.PGD, FUP), SDM 33.4.2.2/.4/.5/.6:
 * byte 0 = IPBytes[2:0] << 5 | 5-bit opcode, then 0..8 payload bytes.
 */
#define PT_OPM_IP		0x1f
#define PT_OPC_TIP		0x0d	/* SDM 33.4.2.2 */
#define PT_OPC_TIP_PGE		0x11	/* SDM 33.4.2.4 */
#define PT_OPC_TIP_PGD		0x01	/* SDM 33.4.2.5 */
#define PT_OPC_FUP		0x1d	/* SDM 33.4.2.6 */
#define PT_IPBYTES_SHIFT	5
#define PT_IPBYTES_MASK		0xe0
#define PT_IP_HDR_SIZE		1
/* IPBytes encodings, SDM Table 33-18 "FUP/TIP IP Reconstruction". */
#define PT_IPBYTES_SUPPRESSED	0	/* no payload, IP out of context   */
#define PT_IPBYTES_UPDATE_16	1	/* 2 bytes: LastIP[63:16] | pl[15:0] */
#define PT_IPBYTES_UPDATE_32	2	/* 4 bytes: LastIP[63:32] | pl[31:0] */
#define PT_IPBYTES_SEXT_48	3	/* 6 bytes: sign-extend pl[47]       */
#define PT_IPBYTES_UPDATE_48	4	/* 6 bytes: LastIP[63:48] | pl[47:0] */
#define PT_IPBYTES_RSVD_5	5	/* reserved                          */
#define PT_IPBYTES_FULL		6	/* 8 bytes: pl[63:0]                 */
#define PT_IPBYTES_RSVD_7	7	/* reserved                          */
/* Payload bytes for an IPBytes value; reserved encodings give 0. */
#define PT_IPBYTES_PAYLOAD_SIZE(ipb) \
	((unsigned int)((0x0008000606040200ull >> (((ipb) & 7) * 8)) & 0xff))
#define PT_IP_HDR(opc, ipb)	((uint8_t)((opc) | ((ipb) << PT_IPBYTES_SHIFT)))
#define PT_IP_MAX_SIZE		9

/* MODE, SDM 33.4.2.8, Table 33-25: 0x99, then Leaf ID[7:5] | Mode bits. */
#define PT_OPC_MODE		0x99
#define PT_MODE_SIZE		2
#define PT_MODE_LEAF_SHIFT	5
#define PT_MODE_LEAF_MASK	0xe0
#define PT_MODE_LEAF_EXEC	0	/* MODE.Exec, Table 33-26 */
#define PT_MODE_LEAF_TSX	1	/* MODE.TSX, Table 33-27  */
#define PT_MODE_EXEC_CSL	0x01	/* (CS.L & IA32_EFER.LMA)  */
#define PT_MODE_EXEC_CSD	0x02	/* CS.D                    */
#define PT_MODE_EXEC_IF		0x04	/* RFLAGS.IF               */
#define PT_MODE_EXEC_MASK	0x07
#define PT_MODE_TSX_INTX	0x01	/* InTX                    */
#define PT_MODE_TSX_TXABORT	0x02	/* TXAbort                 */
#define PT_MODE_TSX_MASK	0x03
#define PT_MODE_BYTE(leaf, bits) \
	((uint8_t)(((leaf) << PT_MODE_LEAF_SHIFT) | (bits)))

/* TSC, SDM 33.4.2.11: 0x19 then SW TSC[55:0], 7 bytes. */
#define PT_OPC_TSC		0x19
#define PT_TSC_SIZE		8
#define PT_TSC_PL_OFF		1
#define PT_TSC_PL_BYTES		7

/* MTC, SDM 33.4.2.12: 0x59 then CTC[N+7:N]. */
#define PT_OPC_MTC		0x59
#define PT_MTC_SIZE		2
#define PT_MTC_CTC_OFF		1

/*
 * CYC, SDM 33.4.2.14, Table 33-33: byte 0 = CycleCounter[4:0] << 3 |
 * Exp << 2 | 11b; while Exp is set another byte follows holding 7 more
 * counter bits in bits 7:1 and its own Exp in bit 0.
 */
#define PT_OPM_CYC		0x03
#define PT_OPC_CYC		0x03
#define PT_CYC_EXP		0x04	/* in byte 0 */
#define PT_CYC_SHIFT		3	/* counter bits in byte 0 */
#define PT_CYC_BITS		5
#define PT_CYCX_EXP		0x01	/* in bytes 1..n */
#define PT_CYCX_SHIFT		1
#define PT_CYCX_BITS		7
/*
 * A 64-bit counter needs 5 + 7 * 9 >= 64 bits: 10 bytes. Our choice (as
 * Linux perf): a CYC longer than that is a bad packet; bits beyond 63 of a
 * 10-byte CYC are dropped. See Documentation/libpt-pkt.rst.
 */
#define PT_CYC_MAX_SIZE		10

/*
 * TRIG (Trigger Tracing), not in the SDM chapter 33 revision we cite; from
 * later SDM revisions as implemented by libipt: 0xd9, flags, TRBV, and a
 * 16-bit ICNT when ICNTV is set.
 */
#define PT_OPC_TRIG		0xd9
#define PT_TRIG_SIZE		3
#define PT_TRIG_ICNT_SIZE	5
#define PT_TRIG_FLAGS_OFF	1
#define PT_TRIG_IP		0x80
#define PT_TRIG_ICNTV		0x40
#define PT_TRIG_MULT		0x20
#define PT_TRIG_TRBV_OFF	2
#define PT_TRIG_ICNT_OFF	3

/* ---------------------------------------------------------------------- */
/* Extended packets: PT_OPC_EXT then the byte below, SDM 33.4.2           */

#define PT_EXT_OFF		1	/* offset of the ext opcode byte */

/* TNT-64 (long TNT), SDM 33.4.2.1: 02 a3, then 6 payload bytes with a stop
 * bit; 1..47 TNT bits, B1 just below the stop bit, BN in bit 0.
 */
#define PT_EXT_TNT_64		0xa3
#define PT_TNT_64_SIZE		8
#define PT_TNT_64_PL_OFF	2
#define PT_TNT_64_PL_BYTES	6
#define PT_TNT_64_MAX_BITS	47

/* PIP, SDM 33.4.2.7, Table 33-24: 02 43, then 6 bytes: bit 0 NR
 * (RSVD/NR), bits 47:1 = CR3[51:5].
 */
#define PT_EXT_PIP		0x43
#define PT_PIP_SIZE		8
#define PT_PIP_PL_OFF		2
#define PT_PIP_PL_BYTES		6
#define PT_PIP_NR		0x01ull
#define PT_PIP_CR3_SHR		1	/* payload >> 1 ...             */
#define PT_PIP_CR3_SHL		5	/* ... << 5 = CR3               */
#define PT_PIP_CR3_MASK		0x000ffffffffffe0ull	/* CR3[51:5]  */
#define PT_PIP_PAYLOAD_TO_CR3(pl) \
	((((uint64_t)(pl)) >> PT_PIP_CR3_SHR) << PT_PIP_CR3_SHL)
#define PT_PIP_CR3_TO_PAYLOAD(cr3) \
	(((((uint64_t)(cr3)) & PT_PIP_CR3_MASK) >> PT_PIP_CR3_SHL) << \
	 PT_PIP_CR3_SHR)

/* TraceStop, SDM 33.4.2.9: 02 83. */
#define PT_EXT_TRACESTOP	0x83
#define PT_TRACESTOP_SIZE	2

/* CBR, SDM 33.4.2.10: 02 03, Core:Bus Ratio, reserved byte. */
#define PT_EXT_CBR		0x03
#define PT_CBR_SIZE		4
#define PT_CBR_RATIO_OFF	2

/* TMA, SDM 33.4.2.13, Table 33-32: 02 73, CTC[15:0], reserved byte,
 * FastCounter[7:0], byte with FC[8] in bit 0 (bits 7:1 reserved).
 */
#define PT_EXT_TMA		0x73
#define PT_TMA_SIZE		7
#define PT_TMA_CTC_OFF		2	/* 2 bytes */
#define PT_TMA_RSVD_OFF		4
#define PT_TMA_FC_OFF		5	/* 2 bytes, 9 bits used */
#define PT_TMA_FC_MASK		0x1ff

/* VMCS, SDM 33.4.2.15, Table 33-34: 02 c8, VMCS pointer[51:12]. */
#define PT_EXT_VMCS		0xc8
#define PT_VMCS_SIZE		7
#define PT_VMCS_PL_OFF		2
#define PT_VMCS_PL_BYTES	5
#define PT_VMCS_SHIFT		12

/* OVF, SDM 33.4.2.16: 02 f3. */
#define PT_EXT_OVF		0xf3
#define PT_OVF_SIZE		2

/* PSB, SDM 33.4.2.17, Table 33-36: 02 82 repeated 8 times. */
#define PT_EXT_PSB		0x82
#define PT_PSB_SIZE		16
#define PT_PSB_REPEAT		8
/* The 16-byte pattern read as little-endian 64-bit words, in both phases
 * (PT_PSB_WORD at an even offset into the pattern, PT_PSB_WORD_ODD at an
 * odd one) for word-at-a-time search (libipt's pt_sync).
 */
#define PT_PSB_WORD		0x8202820282028202ull
#define PT_PSB_WORD_ODD		0x0282028202820282ull

/* PSBEND, SDM 33.4.2.18: 02 23. */
#define PT_EXT_PSBEND		0x23
#define PT_PSBEND_SIZE		2

/* MNT, SDM 33.4.2.19, Table 33-38: 02 c3 88, Payload[63:0]. */
#define PT_EXT_MNT		0xc3
#define PT_EXT2_MNT		0x88
#define PT_MNT_SIZE		11
#define PT_MNT_PL_OFF		3
#define PT_MNT_PL_BYTES		8

/* PTW, SDM 33.4.2.21, Table 33-40: 02, IP[7] | PayloadBytes[6:5] | 10010b,
 * then 4 or 8 payload bytes.
 */
#define PT_EXT_PTW		0x12
#define PT_EXTM_PTW		0x1f	/* mask of the fixed ext bits */
#define PT_PTW_IP		0x80
#define PT_PTW_PLC_SHIFT	5
#define PT_PTW_PLC_MASK		0x60
#define PT_PTW_PLC_4		0	/* 4 payload bytes */
#define PT_PTW_PLC_8		1	/* 8 payload bytes */
#define PT_PTW_PL_OFF		2
#define PT_PTW_PAYLOAD_SIZE(plc) \
	((unsigned int)((0x00000804u >> (((plc) & 3) * 8)) & 0xff))
#define PT_PTW_EXT(plc, ip) \
	((uint8_t)(PT_EXT_PTW | ((plc) << PT_PTW_PLC_SHIFT) | \
		 ((ip) ? PT_PTW_IP : 0)))
#define PT_PTW_MAX_SIZE		10

/* EXSTOP, SDM 33.4.2.22, Table 33-41: 02, IP[7] | 1100010b. */
#define PT_EXT_EXSTOP		0x62
#define PT_EXTM_EXSTOP		0x7f
#define PT_EXSTOP_IP		0x80
#define PT_EXSTOP_SIZE		2

/* MWAIT, SDM 33.4.2.23, Table 33-42: 02 c2, MWAIT Hints[7:0] (EAX) in
 * byte 2, EXT[1:0] (ECX) in byte 6; bytes 3-5 and 7-9 reserved.
 */
#define PT_EXT_MWAIT		0xc2
#define PT_MWAIT_SIZE		10
#define PT_MWAIT_HINTS_OFF	2
#define PT_MWAIT_HINTS_MASK	0xff
#define PT_MWAIT_EXT_OFF	6
#define PT_MWAIT_EXT_MASK	0x03
#define PT_MWAIT_PL_OFF		2	/* raw 8-byte payload */

/* PWRE, SDM 33.4.2.24, Table 33-43: 02 22, byte 2: HW[7] (rest reserved),
 * byte 3: Resolved Thread C-State[7:4] | Sub C-State[3:0].
 */
#define PT_EXT_PWRE		0x22
#define PT_PWRE_SIZE		4
#define PT_PWRE_HW_OFF		2
#define PT_PWRE_HW		0x80
#define PT_PWRE_STATE_OFF	3
#define PT_PWRE_STATE_SHIFT	4
#define PT_PWRE_STATE_MASK	0xf0
#define PT_PWRE_SUB_STATE_MASK	0x0f

/* PWRX, SDM 33.4.2.25, Table 33-44: 02 a2, byte 2: Last Core C-State[7:4] |
 * Deepest Core C-State[3:0], byte 3: Wake Reason[3:0]; bytes 4-6 reserved.
 */
#define PT_EXT_PWRX		0xa2
#define PT_PWRX_SIZE		7
#define PT_PWRX_CSTATE_OFF	2
#define PT_PWRX_LAST_SHIFT	4
#define PT_PWRX_LAST_MASK	0xf0
#define PT_PWRX_DEEPEST_MASK	0x0f
#define PT_PWRX_WAKE_OFF	3
#define PT_PWRX_WAKE_MASK	0x0f
#define PT_PWRX_WAKE_INTERRUPT	0x01	/* external interrupt            */
#define PT_PWRX_WAKE_TIMER	0x02	/* timer deadline (UMWAIT/TPAUSE) */
#define PT_PWRX_WAKE_STORE	0x04	/* store to monitored address    */
#define PT_PWRX_WAKE_HW		0x08	/* HW autonomous (e.g. HDC)      */

/* BBP, SDM 33.4.2.26, Table 33-45: 02 63, SZ[7] | Type[4:0]. */
#define PT_EXT_BBP		0x63
#define PT_BBP_SIZE		3
#define PT_BBP_OFF		2
#define PT_BBP_SZ		0x80	/* 1: 4-byte items, 0: 8-byte items */
#define PT_BBP_TYPE_MASK	0x1f
#define PT_BBP_ITEM_SIZE(sz)	((sz) ? 4 : 8)
/* BBP.Type values, Table 33-45. */
#define PT_BBP_TYPE_GPR		0x01	/* General-Purpose Registers */
#define PT_BBP_TYPE_PEBS_BASIC	0x04
#define PT_BBP_TYPE_PEBS_MEM	0x05
#define PT_BBP_TYPE_LBR_0	0x08
#define PT_BBP_TYPE_LBR_1	0x09
#define PT_BBP_TYPE_LBR_2	0x0a
#define PT_BBP_TYPE_XMM		0x10

/* BIP, SDM 33.4.2.27, Table 33-46: ID[4:0] << 3 | 100b, then 8 or 4 payload
 * bytes as set by the preceding BBP.SZ. Same first byte as a TNT-8, told
 * apart only by being inside a block (SDM 33.4.1.1). Item IDs per block
 * type: <lwpt/pebs.h>.
 */
#define PT_OPM_BIP		0x07
#define PT_OPC_BIP		0x04
#define PT_BIP_ID_SHIFT		3
#define PT_BIP_ID_MASK		0xf8
#define PT_BIP_HDR(id)		((uint8_t)(PT_OPC_BIP | ((id) << PT_BIP_ID_SHIFT)))
#define PT_BIP_MAX_SIZE		9

/* BEP, SDM 33.4.2.28, Table 33-48: 02, IP[7] | 0110011b. */
#define PT_EXT_BEP		0x33
#define PT_EXTM_BEP		0x7f
#define PT_BEP_IP		0x80
#define PT_BEP_SIZE		2

/* CFE, SDM 33.4.2.29, Table 33-49: 02 13, IP[7] | Type[4:0], Vector[7:0]. */
#define PT_EXT_CFE		0x13
#define PT_CFE_SIZE		4
#define PT_CFE_OFF		2
#define PT_CFE_IP		0x80
#define PT_CFE_TYPE_MASK	0x1f
#define PT_CFE_VECTOR_OFF	3
/* CFE types, Table 33-50. */
#define PT_CFE_TYPE_INTR	0x01
#define PT_CFE_TYPE_IRET	0x02
#define PT_CFE_TYPE_SMI		0x03
#define PT_CFE_TYPE_RSM		0x04
#define PT_CFE_TYPE_SIPI	0x05
#define PT_CFE_TYPE_INIT	0x06
#define PT_CFE_TYPE_VMENTRY	0x07
#define PT_CFE_TYPE_VMEXIT	0x08
#define PT_CFE_TYPE_VMEXIT_INTR	0x09
#define PT_CFE_TYPE_SHUTDOWN	0x0a
#define PT_CFE_TYPE_UINTR	0x0c
#define PT_CFE_TYPE_UIRET	0x0d
/* Added by SDM revisions later than our copy; libipt names them too. */
#define PT_CFE_TYPE_SWINTR	0x0e
#define PT_CFE_TYPE_SYSCALL	0x0f

/* EVD, SDM 33.4.2.30, Table 33-51: 02 53, Type[5:0], Payload[63:0]. */
#define PT_EXT_EVD		0x53
#define PT_EVD_SIZE		11
#define PT_EVD_TYPE_OFF		2
#define PT_EVD_TYPE_MASK	0x3f
#define PT_EVD_PL_OFF		3
#define PT_EVD_PL_BYTES		8
#define PT_EVD_TYPE_PFA		0x00	/* page fault linear address (CR2) */
#define PT_EVD_TYPE_VMXQ	0x01	/* VMX exit qualification          */
#define PT_EVD_TYPE_VMXR	0x02	/* VMX exit reason                 */

/* The longest packet: PSB. A decoder holding at least this many bytes can
 * decode any packet without bounds checks, except a malformed CYC, which
 * is bounded by PT_CYC_MAX_SIZE < PT_MAX_PACKET_SIZE.
 */
#define PT_MAX_PACKET_SIZE	PT_PSB_SIZE

/* ---------------------------------------------------------------------- */
/* Byte layouts pinned by assertions (SDM 33.4.2 tables).                 */

struct pt_pkt_layout_tma {		/* Table 33-32 */
	uint8_t opc;			/* PT_OPC_EXT */
	uint8_t ext;			/* PT_EXT_TMA */
	uint8_t ctc[2];			/* CTC[15:0] */
	uint8_t rsvd;
	uint8_t fc[2];			/* FastCounter[8:0] */
};

struct pt_pkt_layout_mnt {		/* Table 33-38 */
	uint8_t opc, ext, ext2;
	uint8_t payload[8];
};

struct pt_pkt_layout_mwait {		/* Table 33-42 */
	uint8_t opc, ext;
	uint8_t hints;
	uint8_t rsvd0[3];
	uint8_t ext_bits;
	uint8_t rsvd1[3];
};

struct pt_pkt_layout_pwrx {		/* Table 33-44 */
	uint8_t opc, ext;
	uint8_t cstate;			/* Last[7:4] | Deepest[3:0] */
	uint8_t wake;			/* Wake Reason[3:0] */
	uint8_t rsvd[3];
};

struct pt_pkt_layout_evd {		/* Table 33-51 */
	uint8_t opc, ext;
	uint8_t type;
	uint8_t payload[8];
};

#define PT_LAYOUT_ASSERT(c, m)	LWPT_STATIC_ASSERT(c, m)
PT_LAYOUT_ASSERT(sizeof(struct pt_pkt_layout_tma) == PT_TMA_SIZE, "TMA size");
PT_LAYOUT_ASSERT(__builtin_offsetof(struct pt_pkt_layout_tma, fc) ==
		 PT_TMA_FC_OFF, "TMA FastCounter offset");
PT_LAYOUT_ASSERT(sizeof(struct pt_pkt_layout_mnt) == PT_MNT_SIZE, "MNT size");
PT_LAYOUT_ASSERT(sizeof(struct pt_pkt_layout_mwait) == PT_MWAIT_SIZE,
		 "MWAIT size");
PT_LAYOUT_ASSERT(__builtin_offsetof(struct pt_pkt_layout_mwait, ext_bits) ==
		 PT_MWAIT_EXT_OFF, "MWAIT EXT offset");
PT_LAYOUT_ASSERT(sizeof(struct pt_pkt_layout_pwrx) == PT_PWRX_SIZE,
		 "PWRX size");
PT_LAYOUT_ASSERT(sizeof(struct pt_pkt_layout_evd) == PT_EVD_SIZE, "EVD size");
PT_LAYOUT_ASSERT(__builtin_offsetof(struct pt_pkt_layout_evd, payload) ==
		 PT_EVD_PL_OFF, "EVD payload offset");
PT_LAYOUT_ASSERT(PT_TNT_64_PL_OFF + PT_TNT_64_PL_BYTES == PT_TNT_64_SIZE,
		 "TNT-64 layout");
PT_LAYOUT_ASSERT(PT_PIP_PL_OFF + PT_PIP_PL_BYTES == PT_PIP_SIZE,
		 "PIP layout");
PT_LAYOUT_ASSERT(PT_VMCS_PL_OFF + PT_VMCS_PL_BYTES == PT_VMCS_SIZE,
		 "VMCS layout");
PT_LAYOUT_ASSERT(PT_TSC_PL_OFF + PT_TSC_PL_BYTES == PT_TSC_SIZE,
		 "TSC layout");
PT_LAYOUT_ASSERT(PT_PSB_REPEAT * 2 == PT_PSB_SIZE, "PSB layout");
PT_LAYOUT_ASSERT(PT_CYC_MAX_SIZE <= PT_MAX_PACKET_SIZE, "CYC bound");
PT_LAYOUT_ASSERT(PT_IPBYTES_PAYLOAD_SIZE(PT_IPBYTES_SEXT_48) == 6 &&
		 PT_IPBYTES_PAYLOAD_SIZE(PT_IPBYTES_FULL) == 8 &&
		 PT_IPBYTES_PAYLOAD_SIZE(PT_IPBYTES_RSVD_5) == 0,
		 "IPBytes sizes (Table 33-18)");
PT_LAYOUT_ASSERT(PT_PTW_PAYLOAD_SIZE(PT_PTW_PLC_4) == 4 &&
		 PT_PTW_PAYLOAD_SIZE(PT_PTW_PLC_8) == 8 &&
		 PT_PTW_PAYLOAD_SIZE(2) == 0, "PTW sizes (Table 33-40)");
PT_LAYOUT_ASSERT(PT_MNT_SIZE <= PT_MAX_PACKET_SIZE, "max size");

#endif /* _LWPT_PT_PACKETS_H */
