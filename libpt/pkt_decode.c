// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libpt packet decoding, Intel SDM Vol. 3C 33.4.2.
 *
 * One decoding routine, pkt_decode(), instantiated twice:
 *  - unchecked (fast path): at least PT_MAX_PACKET_SIZE (16) bytes remain,
 *    so every fixed-size packet fits and payloads are read with 8-byte
 *    loads without bounds checks;
 *  - checked (tail): fewer than 16 bytes remain; they are first copied into
 *    a zero-padded local buffer (so 8-byte loads stay in bounds) and every
 *    packet size is compared with the bytes really available, giving
 *    LPT_ERR_EOS for a packet cut short by the end of the buffer.
 * The first byte is dispatched through a 256-entry table (Honeybee style),
 * extended opcodes through a second one.
 */
#include "pkt_internal.h"

/* First-byte classes. */
enum {
	C_BAD = 0, C_PAD, C_TNT8, C_EXT, C_TIP, C_PGE, C_PGD, C_FUP, C_MODE,
	C_TSC, C_MTC, C_CYC, C_TRIG,
};

/* Second-byte (after PT_OPC_EXT) classes. */
enum {
	E_BAD = 0, E_TNT64, E_PIP, E_STOP, E_CBR, E_TMA, E_VMCS, E_OVF, E_PSB,
	E_PSBEND, E_MNT, E_PTW, E_EXSTOP, E_MWAIT, E_PWRE, E_PWRX, E_BBP,
	E_BEP, E_CFE, E_EVD,
};

static uint8_t opc_class[256];
static uint8_t ext_class[256];
/* Size of the IP packet (TIP, TIP.PGE, TIP.PGD, FUP) that starts with this
 * byte (SDM 33.4.2.2, Table 33-18), 0 for other bytes and for reserved
 * IPBytes. */
static uint8_t ip_pkt_size[256];

/*
 * The packets of a PSB+ that lpt_pkt_count() takes without pkt_decode():
 * by second byte (after PT_OPC_EXT), the size of PSB, PSBEND, CBR, VMCS
 * and PIP (fixed, nothing to check but PSB's pattern; SDM 33.4.2.7, .10,
 * .15, .17, .18), 0 for other bytes; and their type.
 */
static const uint8_t ext_psb_size[256] = {
	[PT_EXT_PSB] = PT_PSB_SIZE, [PT_EXT_PSBEND] = PT_PSBEND_SIZE,
	[PT_EXT_CBR] = PT_CBR_SIZE, [PT_EXT_VMCS] = PT_VMCS_SIZE,
	[PT_EXT_PIP] = PT_PIP_SIZE,
};
static const uint8_t ext_psb_type[256] = {
	[PT_EXT_PSB] = LPT_PKT_PSB, [PT_EXT_PSBEND] = LPT_PKT_PSBEND,
	[PT_EXT_CBR] = LPT_PKT_CBR, [PT_EXT_VMCS] = LPT_PKT_VMCS,
	[PT_EXT_PIP] = LPT_PKT_PIP,
};

/* Packet types that cannot occur inside a packet block (SDM Table 33-15),
 * plus the block terminators BEP and OVF (SDM 33.4.1.1): seeing one ends
 * the block. */
static const uint8_t closes_block[LPT_PKT_NR] = {
	[LPT_PKT_TNT_8] = 1, [LPT_PKT_TNT_64] = 1, [LPT_PKT_TIP] = 1,
	[LPT_PKT_TIP_PGE] = 1, [LPT_PKT_TIP_PGD] = 1, [LPT_PKT_MODE_EXEC] = 1,
	[LPT_PKT_MODE_TSX] = 1, [LPT_PKT_PIP] = 1, [LPT_PKT_VMCS] = 1,
	[LPT_PKT_TRACESTOP] = 1, [LPT_PKT_PSB] = 1, [LPT_PKT_PSBEND] = 1,
	[LPT_PKT_PTW] = 1, [LPT_PKT_MWAIT] = 1, [LPT_PKT_BEP] = 1,
	[LPT_PKT_OVF] = 1,
};

/* IP payload masks by IPBytes (SDM Table 33-18); reserved: 0. */
static const uint64_t ip_mask[8] = {
	[PT_IPBYTES_UPDATE_16] = 0xffffull,
	[PT_IPBYTES_UPDATE_32] = 0xffffffffull,
	[PT_IPBYTES_SEXT_48] = 0xffffffffffffull,
	[PT_IPBYTES_UPDATE_48] = 0xffffffffffffull,
	[PT_IPBYTES_FULL] = ~0ull,
};

/* Packet type by the 5 opcode bits of an IP packet. */
static const uint8_t ip_type[32] = {
	[PT_OPC_TIP] = LPT_PKT_TIP, [PT_OPC_TIP_PGE] = LPT_PKT_TIP_PGE,
	[PT_OPC_TIP_PGD] = LPT_PKT_TIP_PGD, [PT_OPC_FUP] = LPT_PKT_FUP,
};

/* Packet size by IPBytes, 0 for reserved encodings. */
static const uint8_t ip_size[8] = {
	[PT_IPBYTES_SUPPRESSED] = 1, [PT_IPBYTES_UPDATE_16] = 3,
	[PT_IPBYTES_UPDATE_32] = 5, [PT_IPBYTES_SEXT_48] = 7,
	[PT_IPBYTES_UPDATE_48] = 7, [PT_IPBYTES_FULL] = 9,
};

__attribute__((constructor))
static void lpt_pkt_tables_init(void)
{
	unsigned int b;

	for (b = 0; b < 256; b++) {
		uint8_t c = C_BAD;

		if (b == PT_OPC_PAD)
			c = C_PAD;
		else if (b == PT_OPC_EXT)
			c = C_EXT;
		else if ((b & PT_OPM_TNT_8) == PT_OPC_TNT_8)
			c = C_TNT8;
		else if ((b & PT_OPM_CYC) == PT_OPC_CYC)
			c = C_CYC;
		else if ((b & PT_OPM_IP) == PT_OPC_TIP)
			c = C_TIP;
		else if ((b & PT_OPM_IP) == PT_OPC_TIP_PGE)
			c = C_PGE;
		else if ((b & PT_OPM_IP) == PT_OPC_TIP_PGD)
			c = C_PGD;
		else if ((b & PT_OPM_IP) == PT_OPC_FUP)
			c = C_FUP;
		else if (b == PT_OPC_MODE)
			c = C_MODE;
		else if (b == PT_OPC_TSC)
			c = C_TSC;
		else if (b == PT_OPC_MTC)
			c = C_MTC;
		else if (b == PT_OPC_TRIG)
			c = C_TRIG;
		opc_class[b] = c;
		if (c == C_TIP || c == C_PGE || c == C_PGD || c == C_FUP)
			ip_pkt_size[b] = ip_size[b >> PT_IPBYTES_SHIFT];

		c = E_BAD;
		if (b == PT_EXT_TNT_64)
			c = E_TNT64;
		else if (b == PT_EXT_PIP)
			c = E_PIP;
		else if (b == PT_EXT_TRACESTOP)
			c = E_STOP;
		else if (b == PT_EXT_CBR)
			c = E_CBR;
		else if (b == PT_EXT_TMA)
			c = E_TMA;
		else if (b == PT_EXT_VMCS)
			c = E_VMCS;
		else if (b == PT_EXT_OVF)
			c = E_OVF;
		else if (b == PT_EXT_PSB)
			c = E_PSB;
		else if (b == PT_EXT_PSBEND)
			c = E_PSBEND;
		else if (b == PT_EXT_MNT)
			c = E_MNT;
		else if ((b & PT_EXTM_PTW) == PT_EXT_PTW)
			c = E_PTW;
		else if ((b & PT_EXTM_EXSTOP) == PT_EXT_EXSTOP)
			c = E_EXSTOP;
		else if (b == PT_EXT_MWAIT)
			c = E_MWAIT;
		else if (b == PT_EXT_PWRE)
			c = E_PWRE;
		else if (b == PT_EXT_PWRX)
			c = E_PWRX;
		else if (b == PT_EXT_BBP)
			c = E_BBP;
		else if ((b & PT_EXTM_BEP) == PT_EXT_BEP)
			c = E_BEP;
		else if (b == PT_EXT_CFE)
			c = E_CFE;
		else if (b == PT_EXT_EVD)
			c = E_EVD;
		ext_class[b] = c;
	}
}

/* In checked mode: fail with EOS unless @n bytes are available. */
#define NEED(n)							\
	do {							\
		if (checked && len < (size_t)(n))		\
			return LPT_ERR_EOS;			\
	} while (0)

/*
 * Decode one packet at @p. @len is the number of valid bytes; in unchecked
 * mode (@checked == 0) the caller guarantees len >= PT_MAX_PACKET_SIZE, in
 * checked mode that p[0..PT_MAX_PACKET_SIZE+8) is readable (zero padding).
 * The block state is read through @blk but updated by the caller. *@pkt
 * is written only once the packet is known to be good.
 */
static inline __attribute__((always_inline))
int pkt_decode(const uint8_t *p, size_t len, const struct lpt_pkt_block *blk,
	       struct lpt_packet *pkt, uint32_t flags, const int checked)
{
	unsigned int b = p[0], e, ipb, n;
	uint64_t v;

	/* The most frequent packets first, before the table dispatch (real
	 * traces: 55% PAD, 28% TNT-8). */
	if (LPT_LIKELY(!blk->in_block)) {
		if (b == PT_OPC_PAD) {
			pkt->type = LPT_PKT_PAD;
			pkt->size = PT_PAD_SIZE;
			return PT_PAD_SIZE;
		}
		if ((b & PT_OPM_TNT_8) == PT_OPC_TNT_8 && b != PT_OPC_EXT)
			goto tnt8;
	} else if ((b & PT_OPM_BIP) == PT_OPC_BIP) {
		/* SDM 33.4.1.1: inside a block, xxxxx100b is a BIP header. */
		/* BBP.SZ: 4-byte items, else 8 (SDM Table 33-45). */
		unsigned int isz = blk->item_size == 4 ? 4 : 8;

		n = 1 + isz;
		NEED(n);
		v = lpt_ld64(p + 1);
		if (isz == 4)
			v &= 0xffffffffull;
		pkt->type = LPT_PKT_BIP;
		pkt->size = (uint8_t)n;
		pkt->payload.bip.value = v;
		pkt->payload.bip.id = (uint8_t)(b >> PT_BIP_ID_SHIFT);
		pkt->payload.bip.bbp_type = blk->bbp_type;
		pkt->payload.bip.size = (uint8_t)isz;
		return (int)n;
	}

	switch (opc_class[b]) {
	case C_PAD:			/* SDM 33.4.2.20 */
		pkt->type = LPT_PKT_PAD;
		pkt->size = PT_PAD_SIZE;
		return PT_PAD_SIZE;

	case C_TNT8: {			/* SDM 33.4.2.1 */
		unsigned int m;
tnt8:
		/* b is even, not 0 or 2: stop bit at bit m >= 2. */
		m = 31u - (unsigned int)__builtin_clz(b);

		pkt->type = LPT_PKT_TNT_8;
		pkt->size = PT_TNT_8_SIZE;
		pkt->payload.tnt.count = (uint8_t)(m - 1);
		pkt->payload.tnt.bits = (b >> PT_TNT_8_SHIFT) &
					((1u << (m - 1)) - 1);
		return PT_TNT_8_SIZE;
	}

	case C_CYC: {			/* SDM 33.4.2.14 */
		unsigned int i = 1, shift = PT_CYC_BITS, c;

		v = b >> PT_CYC_SHIFT;
		if (b & PT_CYC_EXP) {
			do {
				if (i >= PT_CYC_MAX_SIZE)
					return LPT_ERR_BAD_PACKET;
				NEED(i + 1);
				c = p[i++];
				v |= (uint64_t)(c >> PT_CYCX_SHIFT) << shift;
				shift += PT_CYCX_BITS;
			} while (c & PT_CYCX_EXP);
		}
		/* Erratum SKD007: "CYC(02)" then f3 is a corrupted OVF. */
		if (LPT_UNLIKELY(flags & LPT_PKT_F_ERRATUM_SKD007) && i == 2 &&
		    p[1] == PT_OPC_EXT && (!checked || len > 2) &&
		    p[2] == PT_EXT_OVF) {
			pkt->type = LPT_PKT_OVF;
			pkt->size = 3;
			return 3;
		}
		pkt->type = LPT_PKT_CYC;
		pkt->size = (uint8_t)i;
		pkt->payload.cyc.value = v;
		return (int)i;
	}

	case C_TIP:			/* SDM 33.4.2.2, .4, .5, .6 */
	case C_PGE:
	case C_PGD:
	case C_FUP:
		ipb = b >> PT_IPBYTES_SHIFT;
		n = ip_size[ipb];
		if (LPT_UNLIKELY(!n))
			return LPT_ERR_BAD_PACKET;
		NEED(n);
		pkt->type = ip_type[b & PT_OPM_IP];
		pkt->size = (uint8_t)n;
		pkt->payload.ip.ipc = (uint8_t)ipb;
		pkt->payload.ip.ip = lpt_ld64(p + 1) & ip_mask[ipb];
		return (int)n;

	case C_MODE:			/* SDM 33.4.2.8 */
		NEED(PT_MODE_SIZE);
		e = p[1];
		switch (e >> PT_MODE_LEAF_SHIFT) {
		case PT_MODE_LEAF_EXEC:
			pkt->type = LPT_PKT_MODE_EXEC;
			pkt->payload.mode_exec.csl = e & PT_MODE_EXEC_CSL;
			pkt->payload.mode_exec.csd = (e & PT_MODE_EXEC_CSD) >> 1;
			pkt->payload.mode_exec.iflag = (e & PT_MODE_EXEC_IF) >> 2;
			pkt->payload.mode_exec.bits = e & 0x1f;
			break;
		case PT_MODE_LEAF_TSX:
			pkt->type = LPT_PKT_MODE_TSX;
			pkt->payload.mode_tsx.intx = e & PT_MODE_TSX_INTX;
			pkt->payload.mode_tsx.abrt =
				(e & PT_MODE_TSX_TXABORT) >> 1;
			pkt->payload.mode_tsx.bits = e & 0x1f;
			break;
		default:
			return LPT_ERR_BAD_PACKET;
		}
		pkt->size = PT_MODE_SIZE;
		return PT_MODE_SIZE;

	case C_TSC:			/* SDM 33.4.2.11 */
		NEED(PT_TSC_SIZE);
		pkt->type = LPT_PKT_TSC;
		pkt->size = PT_TSC_SIZE;
		pkt->payload.tsc.tsc = lpt_ld64(p + PT_TSC_PL_OFF) &
				       0x00ffffffffffffffull;
		return PT_TSC_SIZE;

	case C_MTC:			/* SDM 33.4.2.12 */
		NEED(PT_MTC_SIZE);
		pkt->type = LPT_PKT_MTC;
		pkt->size = PT_MTC_SIZE;
		pkt->payload.mtc.ctc = p[PT_MTC_CTC_OFF];
		return PT_MTC_SIZE;

	case C_TRIG:			/* Trigger Tracing (libipt layout) */
		if (flags & LPT_PKT_F_NO_TRIG)
			return LPT_ERR_BAD_OPCODE;
		NEED(PT_TRIG_SIZE);
		e = p[PT_TRIG_FLAGS_OFF];
		n = (e & PT_TRIG_ICNTV) ? PT_TRIG_ICNT_SIZE : PT_TRIG_SIZE;
		NEED(n);
		pkt->type = LPT_PKT_TRIG;
		pkt->size = (uint8_t)n;
		pkt->payload.trig.ip = (e & PT_TRIG_IP) ? 1 : 0;
		pkt->payload.trig.icntv = (e & PT_TRIG_ICNTV) ? 1 : 0;
		pkt->payload.trig.mult = (e & PT_TRIG_MULT) ? 1 : 0;
		pkt->payload.trig.trbv = p[PT_TRIG_TRBV_OFF];
		pkt->payload.trig.icnt = (e & PT_TRIG_ICNTV) ?
			lpt_ld16(p + PT_TRIG_ICNT_OFF) : 0;
		return (int)n;

	case C_EXT:
		break;

	default:
		return LPT_ERR_BAD_OPCODE;
	}

	/* Extended opcodes: PT_OPC_EXT, then the ext opcode byte. */
	NEED(2);
	e = p[PT_EXT_OFF];
	switch (ext_class[e]) {
	case E_TNT64: {			/* SDM 33.4.2.1 */
		unsigned int m;

		NEED(PT_TNT_64_SIZE);
		v = lpt_ld64(p + PT_TNT_64_PL_OFF) & 0xffffffffffffull;
		if (LPT_UNLIKELY(v < 2))	/* no stop bit or no TNT bit */
			return LPT_ERR_BAD_PACKET;
		m = 63u - (unsigned int)__builtin_clzll(v);
		pkt->type = LPT_PKT_TNT_64;
		pkt->size = PT_TNT_64_SIZE;
		pkt->payload.tnt.count = (uint8_t)m;
		pkt->payload.tnt.bits = v & ~(1ull << m);
		return PT_TNT_64_SIZE;
	}

	case E_PIP:			/* SDM 33.4.2.7 */
		NEED(PT_PIP_SIZE);
		v = lpt_ld64(p + PT_PIP_PL_OFF) & 0xffffffffffffull;
		pkt->type = LPT_PKT_PIP;
		pkt->size = PT_PIP_SIZE;
		pkt->payload.pip.nr = (uint8_t)(v & PT_PIP_NR);
		pkt->payload.pip.cr3 = PT_PIP_PAYLOAD_TO_CR3(v);
		return PT_PIP_SIZE;

	case E_STOP:			/* SDM 33.4.2.9 */
		pkt->type = LPT_PKT_TRACESTOP;
		pkt->size = PT_TRACESTOP_SIZE;
		return PT_TRACESTOP_SIZE;

	case E_CBR:			/* SDM 33.4.2.10 */
		NEED(PT_CBR_SIZE);
		pkt->type = LPT_PKT_CBR;
		pkt->size = PT_CBR_SIZE;
		pkt->payload.cbr.ratio = p[PT_CBR_RATIO_OFF];
		return PT_CBR_SIZE;

	case E_TMA: {			/* SDM 33.4.2.13 */
		unsigned int fc;

		NEED(PT_TMA_SIZE);
		fc = lpt_ld16(p + PT_TMA_FC_OFF);
		if (LPT_UNLIKELY((fc & ~PT_TMA_FC_MASK) ||
				 p[PT_TMA_RSVD_OFF])) {
			if (flags & LPT_PKT_F_ERRATUM_SKZ84) {
				NEED(PT_TMA_SIZE + 1);
				pkt->type = LPT_PKT_INVALID;
				pkt->size = PT_TMA_SIZE + 1;
				return PT_TMA_SIZE + 1;
			}
			if (flags & LPT_PKT_F_STRICT_RSVD)
				return LPT_ERR_BAD_PACKET;
		}
		pkt->type = LPT_PKT_TMA;
		pkt->size = PT_TMA_SIZE;
		pkt->payload.tma.ctc = lpt_ld16(p + PT_TMA_CTC_OFF);
		pkt->payload.tma.fc = (uint16_t)(fc & PT_TMA_FC_MASK);
		return PT_TMA_SIZE;
	}

	case E_VMCS:			/* SDM 33.4.2.15 */
		NEED(PT_VMCS_SIZE);
		pkt->type = LPT_PKT_VMCS;
		pkt->size = PT_VMCS_SIZE;
		pkt->payload.vmcs.base = (lpt_ld64(p + PT_VMCS_PL_OFF) &
					  0xffffffffffull) << PT_VMCS_SHIFT;
		return PT_VMCS_SIZE;

	case E_OVF:			/* SDM 33.4.2.16 */
		pkt->type = LPT_PKT_OVF;
		pkt->size = PT_OVF_SIZE;
		return PT_OVF_SIZE;

	case E_PSB:			/* SDM 33.4.2.17 */
		if (checked && len < PT_PSB_SIZE) {
			unsigned int i;

			/* Truncated: EOS if what we have matches. */
			for (i = 2; i < len; i++)
				if (p[i] != ((i & 1) ? PT_EXT_PSB : PT_OPC_EXT))
					return LPT_ERR_BAD_PACKET;
			return LPT_ERR_EOS;
		}
		if (lpt_ld64(p) != PT_PSB_WORD ||
		    lpt_ld64(p + 8) != PT_PSB_WORD)
			return LPT_ERR_BAD_PACKET;
		pkt->type = LPT_PKT_PSB;
		pkt->size = PT_PSB_SIZE;
		return PT_PSB_SIZE;

	case E_PSBEND:			/* SDM 33.4.2.18 */
		pkt->type = LPT_PKT_PSBEND;
		pkt->size = PT_PSBEND_SIZE;
		return PT_PSBEND_SIZE;

	case E_MNT:			/* SDM 33.4.2.19 */
		NEED(3);
		if (p[2] != PT_EXT2_MNT)
			return LPT_ERR_BAD_OPCODE;
		NEED(PT_MNT_SIZE);
		pkt->type = LPT_PKT_MNT;
		pkt->size = PT_MNT_SIZE;
		pkt->payload.mnt.payload = lpt_ld64(p + PT_MNT_PL_OFF);
		return PT_MNT_SIZE;

	case E_PTW: {			/* SDM 33.4.2.21 */
		unsigned int plc = (e & PT_PTW_PLC_MASK) >> PT_PTW_PLC_SHIFT;

		if (plc > PT_PTW_PLC_8)
			return LPT_ERR_BAD_PACKET;
		n = PT_PTW_PL_OFF + (plc == PT_PTW_PLC_8 ? 8 : 4);
		NEED(n);
		v = lpt_ld64(p + PT_PTW_PL_OFF);
		if (plc == PT_PTW_PLC_4)
			v &= 0xffffffffull;
		pkt->type = LPT_PKT_PTW;
		pkt->size = (uint8_t)n;
		pkt->payload.ptw.payload = v;
		pkt->payload.ptw.plc = (uint8_t)plc;
		pkt->payload.ptw.bytes = (uint8_t)(n - PT_PTW_PL_OFF);
		pkt->payload.ptw.ip = (e & PT_PTW_IP) ? 1 : 0;
		return (int)n;
	}

	case E_EXSTOP:			/* SDM 33.4.2.22 */
		pkt->type = LPT_PKT_EXSTOP;
		pkt->size = PT_EXSTOP_SIZE;
		pkt->payload.exstop.ip = (e & PT_EXSTOP_IP) ? 1 : 0;
		return PT_EXSTOP_SIZE;

	case E_MWAIT:			/* SDM 33.4.2.23 */
		NEED(PT_MWAIT_SIZE);
		pkt->type = LPT_PKT_MWAIT;
		pkt->size = PT_MWAIT_SIZE;
		pkt->payload.mwait.hints = p[PT_MWAIT_HINTS_OFF];
		pkt->payload.mwait.ext = p[PT_MWAIT_EXT_OFF] &
					 PT_MWAIT_EXT_MASK;
		pkt->payload.mwait.raw = lpt_ld64(p + PT_MWAIT_PL_OFF);
		return PT_MWAIT_SIZE;

	case E_PWRE:			/* SDM 33.4.2.24 */
		NEED(PT_PWRE_SIZE);
		pkt->type = LPT_PKT_PWRE;
		pkt->size = PT_PWRE_SIZE;
		pkt->payload.pwre.hw = (p[PT_PWRE_HW_OFF] & PT_PWRE_HW) ? 1 : 0;
		pkt->payload.pwre.state = p[PT_PWRE_STATE_OFF] >>
					  PT_PWRE_STATE_SHIFT;
		pkt->payload.pwre.sub_state = p[PT_PWRE_STATE_OFF] &
					      PT_PWRE_SUB_STATE_MASK;
		pkt->payload.pwre.raw = lpt_ld16(p + PT_PWRE_HW_OFF);
		return PT_PWRE_SIZE;

	case E_PWRX:			/* SDM 33.4.2.25 */
		NEED(PT_PWRX_SIZE);
		pkt->type = LPT_PKT_PWRX;
		pkt->size = PT_PWRX_SIZE;
		pkt->payload.pwrx.last = p[PT_PWRX_CSTATE_OFF] >>
					 PT_PWRX_LAST_SHIFT;
		pkt->payload.pwrx.deepest = p[PT_PWRX_CSTATE_OFF] &
					    PT_PWRX_DEEPEST_MASK;
		pkt->payload.pwrx.wake = p[PT_PWRX_WAKE_OFF] &
					 PT_PWRX_WAKE_MASK;
		return PT_PWRX_SIZE;

	case E_BBP:			/* SDM 33.4.2.26 */
		NEED(PT_BBP_SIZE);
		e = p[PT_BBP_OFF];
		pkt->type = LPT_PKT_BBP;
		pkt->size = PT_BBP_SIZE;
		pkt->payload.bbp.sz = (e & PT_BBP_SZ) ? 1 : 0;
		pkt->payload.bbp.type = e & PT_BBP_TYPE_MASK;
		pkt->payload.bbp.item_size = PT_BBP_ITEM_SIZE(e & PT_BBP_SZ);
		return PT_BBP_SIZE;

	case E_BEP:			/* SDM 33.4.2.28 */
		pkt->type = LPT_PKT_BEP;
		pkt->size = PT_BEP_SIZE;
		pkt->payload.bep.ip = (e & PT_BEP_IP) ? 1 : 0;
		return PT_BEP_SIZE;

	case E_CFE:			/* SDM 33.4.2.29 */
		NEED(PT_CFE_SIZE);
		e = p[PT_CFE_OFF];
		pkt->type = LPT_PKT_CFE;
		pkt->size = PT_CFE_SIZE;
		pkt->payload.cfe.type = e & PT_CFE_TYPE_MASK;
		pkt->payload.cfe.ip = (e & PT_CFE_IP) ? 1 : 0;
		pkt->payload.cfe.vector = p[PT_CFE_VECTOR_OFF];
		return PT_CFE_SIZE;

	case E_EVD:			/* SDM 33.4.2.30 */
		NEED(PT_EVD_SIZE);
		pkt->type = LPT_PKT_EVD;
		pkt->size = PT_EVD_SIZE;
		pkt->payload.evd.type = p[PT_EVD_TYPE_OFF] & PT_EVD_TYPE_MASK;
		pkt->payload.evd.payload = lpt_ld64(p + PT_EVD_PL_OFF);
		return PT_EVD_SIZE;

	default:
		return LPT_ERR_BAD_OPCODE;
	}
}

/* Update packet-block state after a successfully decoded packet
 * (SDM 33.4.1.1). */
static inline __attribute__((always_inline))
void block_update(struct lpt_pkt_block *blk, const struct lpt_packet *pkt)
{
	if (LPT_UNLIKELY(pkt->type == LPT_PKT_BBP)) {
		blk->in_block = 1;
		blk->bbp_type = pkt->payload.bbp.type;
		blk->item_size = pkt->payload.bbp.item_size;
	} else if (LPT_UNLIKELY(blk->in_block) && closes_block[pkt->type]) {
		blk->in_block = 0;
	}
}

/* Bytes of zero padding behind the copied tail: covers an 8-byte load at
 * any offset below PT_MAX_PACKET_SIZE. */
#define TAIL_BUF_SIZE	(PT_MAX_PACKET_SIZE + 8)

int lpt_pkt_decode_tail(const uint8_t *buf, size_t len,
			struct lpt_pkt_block *blk, struct lpt_packet *pkt,
			uint32_t flags)
{
	uint8_t tmp[TAIL_BUF_SIZE];
	struct lpt_packet out;
	int ret;

	if (!len)
		return LPT_ERR_EOS;
	memset(tmp, 0, sizeof(tmp));
	memcpy(tmp, buf, len);
	ret = pkt_decode(tmp, len, blk, &out, flags, 1);
	if (ret > 0) {
		block_update(blk, &out);
		*pkt = out;
	}
	return ret;
}

int lpt_pkt_decode(const uint8_t *buf, size_t len,
		   struct lpt_pkt_block *block, struct lpt_packet *pkt,
		   uint32_t flags)
{
	struct lpt_pkt_block none = { 0, 0, 0 };
	struct lpt_pkt_block *blk = block ? block : &none;
	int ret;

	if (!buf || !pkt)
		return LPT_ERR_INVALID;
	if (len < PT_MAX_PACKET_SIZE)
		return lpt_pkt_decode_tail(buf, len, blk, pkt, flags);

	ret = pkt_decode(buf, len, blk, pkt, flags, 0);
	if (ret > 0)
		block_update(blk, pkt);
	return ret;
}

int lpt_pkt_next_batch(struct lpt_pkt_decoder *dec, struct lpt_packet *pkts,
		       int n)
{
	const uint8_t *pos, *end;
	struct lpt_pkt_block blk;
	uint32_t flags;
	int i = 0, ret = 0;

	if (!dec || !pkts || n <= 0)
		return LPT_ERR_INVALID;
	pos = dec->pos;
	if (!pos)
		return LPT_ERR_NOSYNC;

	end = dec->end;
	blk = dec->block;
	flags = dec->cfg.flags;

	/* Fast path: no bounds checks while a whole max-size packet fits.
	 * The block state lives in a local whose address never escapes, so it
	 * stays in registers. */
	{
		struct lpt_pkt_block fb = blk;
		struct lpt_packet *pkt = pkts, *pkt_end = pkts + n;

		while (pkt < pkt_end &&
		       (size_t)(end - pos) >= PT_MAX_PACKET_SIZE) {
			/* Runs of PAD (SDM 33.4.2.20) are common: emit them
			 * without the general dispatch or block update. */
			if (*pos == PT_OPC_PAD) {
				pkt->type = LPT_PKT_PAD;
				pkt->size = PT_PAD_SIZE;
				pos++;
				pkt++;
				continue;
			}
			ret = pkt_decode(pos, PT_MAX_PACKET_SIZE, &fb, pkt,
					 flags, 0);
			if (LPT_UNLIKELY(ret <= 0))
				break;
			block_update(&fb, pkt);
			pos += ret;
			pkt++;
		}
		i = (int)(pkt - pkts);
		blk = fb;
		if (ret < 0)
			goto out;
	}
	/* Bounds-checked tail. */
	while (i < n) {
		ret = lpt_pkt_decode_tail(pos, (size_t)(end - pos), &blk,
					  &pkts[i], flags);
		if (ret <= 0)
			goto out;
		pos += ret;
		i++;
	}
out:
	dec->pos = pos;
	dec->block = blk;
	return i ? i : ret;
}

/*
 * lpt_pkt_count(): lpt_pkt_next_batch()'s loop with the packets kept in a
 * local that never escapes (the compiler drops the payload stores), and
 * the packets that make up most real traces counted before the general
 * dispatch (real traces: 55% PAD, 28% TNT-8, 12% TIP/TIP.PGE/TIP.PGD):
 *  - a run of PAD is counted a word at a time: the number of zero bytes
 *    that lead the next 8 bytes (ctz), again while all 8 are zero; runs
 *    of up to 8 PAD (most of them) cost one step and no branch on their
 *    length;
 *  - TNT-8 and the IP packets, whose size the first byte gives, are
 *    counted in registers and in a local table by first byte, folded into
 *    @st at the end; so are the packets of a PSB+ (PSB, PSBEND, CBR, VMCS,
 *    PIP by their second byte, MODE by its leaf); only the other packets
 *    touch @st in the loop.
 * (Tried and slower on the real traces: a branch-free count of the leading
 * run of one-byte packets in each 8-byte word, a size table for TNT-8 as
 * for the IP packets (a load-to-load dependency per packet instead of a
 * predicted branch); see Documentation/performance.rst.)
 */
int lpt_pkt_count(struct lpt_pkt_decoder *dec, struct lpt_pkt_stats *st)
{
	const uint8_t *pos, *end;
	struct lpt_pkt_block blk;
	struct lpt_packet pkt;
	uint64_t npad = 0, ntnt = 0, nip[256], next[256], nmode[2];
	uint32_t flags;
	unsigned int b, n;
	int ret;

	if (!dec || !st)
		return LPT_ERR_INVALID;
	pos = dec->pos;
	if (!pos)
		return LPT_ERR_NOSYNC;
	end = dec->end;
	blk = dec->block;
	flags = dec->cfg.flags;
	memset(nip, 0, sizeof(nip));
	memset(next, 0, sizeof(next));
	memset(nmode, 0, sizeof(nmode));

	/* Fast path: a whole max-size packet fits (see lpt_pkt_next_batch). */
	while ((size_t)(end - pos) >= PT_MAX_PACKET_SIZE) {
		b = *pos;
		if (b == PT_OPC_PAD) {
			/* PAD (SDM 33.4.2.20) is a PAD inside a block too. */
			do {
				uint64_t w = lpt_ld64(pos);

				n = w ? (unsigned int)__builtin_ctzll(w) / 8 : 8;
				npad += n;
				pos += n;
			} while (n == 8 &&
				 (size_t)(end - pos) >= PT_MAX_PACKET_SIZE);
			if ((size_t)(end - pos) < PT_MAX_PACKET_SIZE)
				break;
			b = *pos;
		}
		/* Outside a block (inside, xxxxx100b is a BIP). */
		if (LPT_LIKELY(!blk.in_block)) {
			/* TNT-8 (SDM 33.4.2.1) */
			if ((b & PT_OPM_TNT_8) == PT_OPC_TNT_8 &&
			    b != PT_OPC_EXT) {
				ntnt++;
				pos += PT_TNT_8_SIZE;
				continue;
			}
			/* TIP, TIP.PGE, TIP.PGD, FUP (SDM 33.4.2.2-6) with a
			 * valid IPBytes: their size is the first byte's. */
			n = ip_pkt_size[b];
			if (n) {
				nip[b]++;
				pos += n;
				continue;
			}
			if (b == PT_OPC_EXT) {
				unsigned int e = pos[PT_EXT_OFF];

				n = ext_psb_size[e];
				if (n && (e != PT_EXT_PSB ||
					  (lpt_ld64(pos) == PT_PSB_WORD &&
					   lpt_ld64(pos + 8) == PT_PSB_WORD))) {
					next[e]++;
					pos += n;
					continue;
				}
			} else if (b == PT_OPC_MODE) {
				/* SDM 33.4.2.8: leaf 0 Exec, 1 TSX. */
				unsigned int leaf = pos[1] >> PT_MODE_LEAF_SHIFT;

				if (leaf == PT_MODE_LEAF_EXEC ||
				    leaf == PT_MODE_LEAF_TSX) {
					nmode[leaf == PT_MODE_LEAF_TSX]++;
					pos += PT_MODE_SIZE;
					continue;
				}
			}
		}
		ret = pkt_decode(pos, PT_MAX_PACKET_SIZE, &blk, &pkt, flags, 0);
		if (LPT_UNLIKELY(ret <= 0))
			goto out;
		block_update(&blk, &pkt);
		st->count[pkt.type]++;
		st->bytes[pkt.type] += (unsigned int)ret;
		pos += ret;
	}
	/* Bounds-checked tail. */
	for (;;) {
		ret = lpt_pkt_decode_tail(pos, (size_t)(end - pos), &blk, &pkt,
					  flags);
		if (ret <= 0)
			break;
		st->count[pkt.type]++;
		st->bytes[pkt.type] += (unsigned int)ret;
		pos += ret;
	}
out:
	st->count[LPT_PKT_PAD] += npad;
	st->bytes[LPT_PKT_PAD] += npad * PT_PAD_SIZE;
	st->count[LPT_PKT_TNT_8] += ntnt;
	st->bytes[LPT_PKT_TNT_8] += ntnt * PT_TNT_8_SIZE;
	for (b = 0; b < 256; b++) {
		if (nip[b]) {
			st->count[ip_type[b & PT_OPM_IP]] += nip[b];
			st->bytes[ip_type[b & PT_OPM_IP]] +=
				nip[b] * ip_pkt_size[b];
		}
		if (next[b]) {
			st->count[ext_psb_type[b]] += next[b];
			st->bytes[ext_psb_type[b]] += next[b] * ext_psb_size[b];
		}
	}
	st->count[LPT_PKT_MODE_EXEC] += nmode[0];
	st->bytes[LPT_PKT_MODE_EXEC] += nmode[0] * PT_MODE_SIZE;
	st->count[LPT_PKT_MODE_TSX] += nmode[1];
	st->bytes[LPT_PKT_MODE_TSX] += nmode[1] * PT_MODE_SIZE;
	dec->pos = pos;
	dec->block = blk;
	return ret;
}

int lpt_pkt_next(struct lpt_pkt_decoder *dec, struct lpt_packet *pkt)
{
	const uint8_t *pos;
	size_t left;
	int ret;

	if (!dec || !pkt)
		return LPT_ERR_INVALID;
	pos = dec->pos;
	if (!pos)
		return LPT_ERR_NOSYNC;

	left = (size_t)(dec->end - pos);
	if (LPT_LIKELY(left >= PT_MAX_PACKET_SIZE)) {
		/* PAD (SDM 33.4.2.20), the most frequent packet, is a PAD
		 * inside a packet block too. */
		if (*pos == PT_OPC_PAD) {
			pkt->type = LPT_PKT_PAD;
			pkt->size = PT_PAD_SIZE;
			dec->pos = pos + PT_PAD_SIZE;
			return PT_PAD_SIZE;
		}
		/* pkt_decode() writes *pkt only once it cannot fail. */
		ret = pkt_decode(pos, left, &dec->block, pkt, dec->cfg.flags,
				 0);
		if (LPT_UNLIKELY(ret <= 0))
			return ret;
		block_update(&dec->block, pkt);
	} else {
		ret = lpt_pkt_decode_tail(pos, left, &dec->block, pkt,
					  dec->cfg.flags);
		if (ret <= 0)
			return ret;
	}
	dec->pos = pos + ret;
	return ret;
}
