// SPDX-License-Identifier: GPL-2.0
/*
 * ptdump: print the packets of an Intel PT trace (SDM 33.4) in the text
 * format of libipt's ptdump, with its options, its time tracking (SDM
 * 33.8.3, libpt/time.c) and its error recovery: report the offset and the
 * reason of a bad packet, resynchronise at the next PSB, go on.
 *
 * Output is built in one large buffer with hand-written number formatting;
 * no printf per field. Layout of a line (columns separated by spaces, as
 * libipt pads them; compare with diff -b):
 *
 *   offset(16 hex, width 17) [raw bytes (width 33)] name (width 10 if a
 *   payload follows) [payload (width 25 if a tracking column follows)
 *   [tracking id (width 5) tracking value]]
 *
 * See Documentation/ptdump.rst.
 */
#include "tools/ptdump/errata.h"
#include "tools/ptdump/options.h"
#include "tools/ptdump/out.h"
#include <lwpt/capture_src.h>
#include <lwpt/perf_data.h>
#include <lwpt/ptcap_dir.h>

#include <lwpt/pt_chunk.h>
#include <lwpt/pt_pkt.h>
#include <lwpt/pt_time.h>

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* libipt's ptdump column widths (field buffer sizes). */
#define COL_OFFSET	17
#define COL_RAW		33
#define COL_OPCODE	10
#define COL_PAYLOAD	25
#define COL_TRACK_ID	5
/* Longest payload text libipt keeps: the standard field (24 characters)
 * or, for TNT and TRIG, the extended one (47). */
#define STD_PAYLOAD_MAX	24
#define EXT_PAYLOAD_MAX	47

#define BATCH		256

struct stats {
	struct lpt_pkt_stats pkt;	/* per type */
	uint64_t errors;
	uint64_t skipped;	/* bytes not decoded (before sync, resync) */
};

struct dump {
	const struct ptdump_options *opts;
	struct out out;
	const uint8_t *buf;
	size_t len;
	const uint64_t *gaps;	/* offsets into @buf where output was lost */
	size_t ngaps;
	struct lpt_pkt_decoder *dec;
	struct ptdump_errata errata;
	struct lpt_time_config tcfg;

	/* Tracking state, reset at every resynchronisation. */
	struct lpt_last_ip last_ip;
	struct lpt_time time;
	struct lpt_tcal tcal;
	uint64_t last_tsc;	/* for --time-delta */
	uint64_t last_fcr;	/* for --tcal --time-delta */
	int in_header;		/* between PSB and PSBEND */
	/* -j: a chunk's last-IP depends on the chunks before it when its
	 * first IP packet (before any reset) is not a full one */
	int chunk_fresh;	/* no IP packet nor reset yet in the chunk */
	int chunk_dep;		/* its first IP packet was compressed */
	uint64_t stop;		/* dump_piece(): where decoding ended */

	struct stats stats;
	struct hex16_cache offset_hex;	/* of the offset column */
	int fast_pad;		/* PAD lines need no options */
	int fast_pad_raw;	/* PAD lines need only --raw */
	int skip_pad;		/* PAD prints nothing (--no-pad, --quiet) */
};

/*
 * Packet names, space-padded to 16 bytes so that a line copies a fixed
 * block and advances by the name's length or by its column width.
 */
struct name {
	char text[16];
	uint8_t len;
};

static struct name names[LPT_PKT_NR + 1];
#define NAME_UNKNOWN	LPT_PKT_NR

static void init_names(void)
{
	int t;

	for (t = 0; t <= LPT_PKT_NR; t++) {
		const char *s = t == LPT_PKT_INVALID ? "<invalid>" :
				t == NAME_UNKNOWN ? "<unknown>" :
				lpt_pkt_type_name(t);
		size_t n = strlen(s);

		if (n > 15)
			n = 15;
		memset(names[t].text, ' ', sizeof(names[t].text));
		memcpy(names[t].text, s, n);
		names[t].len = (uint8_t)n;
	}
}

/* One output line under construction. */
struct line {
	const struct name *name;
	char payload[64];
	size_t plen;
	char track[48];
	size_t tlen;
	const char *track_id;
	int skip;
	int skip_time;
	int skip_tcal;
};

/* libipt's wording for our error codes, so that error lines compare. */
static const char *ipt_errstr(int err)
{
	switch (err) {
	case LPT_OK:			return "OK";
	case LPT_ERR_INTERNAL:		return "internal error";
	case LPT_ERR_INVALID:		return "invalid argument";
	case LPT_ERR_NOMEM:		return "out of memory";
	case LPT_ERR_EOS:		return "reached end of trace stream";
	case LPT_ERR_NOSYNC:		return "decoder out of sync";
	case LPT_ERR_BAD_OPCODE:	return "unknown opcode";
	case LPT_ERR_BAD_PACKET:	return "unknown packet";
	case LPT_ERR_NOIP:		return "no ip";
	case LPT_ERR_IP_SUPPRESSED:	return "ip has been suppressed";
	case LPT_ERR_BAD_CONFIG:	return "bad configuration";
	case LPT_ERR_NOT_SUPPORTED:	return "not supported";
	case LPT_ERR_NO_TIME:		return "no timing information";
	case LPT_ERR_NO_CBR:		return "no core:bus ratio";
	case LPT_ERR_BAD_CONTEXT:	return "unexpected packet context";
	case LPT_ERR_OVERFLOW:		return "overflow";
	}
	return lpt_errstr(err);
}

/* "[offset: msg]" or "[offset: msg: reason]" on the packet output. */
static void diag(struct dump *d, uint64_t offset, const char *msg, int err)
{
	char *p = out_reserve(&d->out, OUT_LINE_MAX);

	*p++ = '[';
	p = put_hex(p, offset);
	*p++ = ':';
	*p++ = ' ';
	p = put_str(p, msg);
	if (err) {
		*p++ = ':';
		*p++ = ' ';
		p = put_str(p, ipt_errstr(err));
	}
	*p++ = ']';
	*p++ = '\n';
	out_commit(&d->out, p);
}

/* ---------------------------------------------------------------------- */
/* Payload text                                                           */

static char *put_hex_sep(char *p, uint64_t v)
{
	p = put_hex(p, v);
	*p++ = ',';
	*p++ = ' ';
	return p;
}

static void payload_done(struct line *l, char *end, size_t max)
{
	l->plen = (size_t)(end - l->payload);
	if (l->plen > max)
		l->plen = max;
}

/* "N: ????????????hhhh", the IP as far as the packet gives it. */
static void fmt_ip(struct line *l, const struct lpt_pkt_ip *ip)
{
	char *p = l->payload;
	unsigned int digits;

	*p++ = (char)('0' + (ip->ipc & 7));
	*p++ = ':';
	*p++ = ' ';
	switch (ip->ipc) {
	case LPT_IPC_SUPPRESSED:
		memset(p, '?', 16);
		p += 16;
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	case LPT_IPC_UPDATE_16:
		digits = 4;
		break;
	case LPT_IPC_UPDATE_32:
		digits = 8;
		break;
	case LPT_IPC_UPDATE_48:
		digits = 12;
		break;
	case LPT_IPC_SEXT_48:
		p = put_hex16(p, (uint64_t)((int64_t)(ip->ip << 16) >> 16));
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	default:
		digits = 16;
		break;
	}
	/* All 16 digits, then '?' over those the packet does not give. */
	put_hex16(p, ip->ip);
	memset(p, '?', 16 - digits);
	payload_done(l, p + 16, STD_PAYLOAD_MAX);
}

/*
 * TNT text of a byte's bits, most significant first: tnt_chars[b][i] is
 * '!' if bit 7 - i of b is set, '.' if not.
 */
static char tnt_chars[256][8];

static void init_tnt_chars(void)
{
	int b, i;

	for (b = 0; b < 256; b++)
		for (i = 0; i < 8; i++)
			tnt_chars[b][i] = (b >> (7 - i)) & 1 ? '!' : '.';
}

static void fmt_tnt(struct line *l, const struct lpt_pkt_tnt *tnt)
{
	unsigned int n = tnt->count, i;
	uint64_t bits;

	if (n > EXT_PAYLOAD_MAX + 1)
		n = EXT_PAYLOAD_MAX + 1;
	/* The n oldest bits, oldest in bit 63, 8 characters at a time. */
	bits = tnt->count ? tnt->bits << (64 - tnt->count) : 0;
	for (i = 0; i < n; i += 8, bits <<= 8)
		memcpy(l->payload + i, tnt_chars[bits >> 56], 8);
	l->plen = n;
}

static void track_hex16(struct line *l, const char *id, uint64_t v)
{
	l->track_id = id;
	put_hex16(l->track, v);
	l->tlen = 16;
}

static void track_str(struct line *l, const char *id, const char *s)
{
	size_t n = strlen(s);

	/* libipt's values fit in 16 characters; BIP field names may not. */
	if (n > sizeof(l->track))
		n = sizeof(l->track);
	l->track_id = id;
	memcpy(l->track, s, n);
	l->tlen = n;
}

/* CFE subtype name (SDM Table 33-50), "unknown" as libipt prints it. */
static const char *cfe_name(unsigned int type)
{
	const char *name = lpt_cfe_type_name(type);

	return name ? name : "unknown";
}

/* Whether the CFE's vector field is valid, and printed in hex (SIPI). */
static int cfe_vector(unsigned int type, int *hex)
{
	*hex = type == PT_CFE_TYPE_SIPI;
	return type == PT_CFE_TYPE_INTR || type == PT_CFE_TYPE_VMEXIT_INTR ||
	       type == PT_CFE_TYPE_UINTR || type == 0xe ||
	       type == PT_CFE_TYPE_SIPI;
}

static const char *evd_name(unsigned int type)
{
	switch (type) {
	case PT_EVD_TYPE_PFA:	return "cr2";
	case PT_EVD_TYPE_VMXQ:	return "vmxq";
	case PT_EVD_TYPE_VMXR:	return "vmxr";
	}
	return "unknown";
}

/* ---------------------------------------------------------------------- */
/* Time tracking (SDM 33.8.3), printing as libipt's ptdump does           */

static void reset_tracking(struct dump *d)
{
	lpt_last_ip_init(&d->last_ip);
	lpt_time_init(&d->time);
	lpt_tcal_init(&d->tcal);
	d->last_tsc = 0;
	d->last_fcr = 0;
	d->in_header = 0;
	d->chunk_fresh = 0;	/* the state no longer comes from before */
}

/* The calibration as "%.3f" (or "%+.3f" for a delta) of fcr / 256. */
static size_t fmt_fcr(char *p, uint64_t fcr, uint64_t old, int delta)
{
	char *s = p;
	double v = (double)fcr / (double)(1u << LPT_TCAL_FCR_SHIFT);
	int n;

	if (delta) {
		v -= (double)old / (double)(1u << LPT_TCAL_FCR_SHIFT);
		n = snprintf(s, 17, "%+.3f", v);
	} else {
		n = snprintf(s, 17, "%.3f", v);
	}
	if (n < 0)
		return 0;
	return n > 16 ? 16 : (size_t)n;
}

static void show_tcal(struct dump *d, struct line *l, uint64_t offset)
{
	uint64_t fcr;
	int err;

	l->track_id = "fcr";
	err = lpt_tcal_fcr(&d->tcal, &fcr);
	if (err < 0) {
		track_str(l, "fcr", "<unavailable>");
		diag(d, offset, "error printing time", err);
		return;
	}
	l->tlen = fmt_fcr(l->track, fcr, d->last_fcr, d->opts->time_delta);
	if (d->opts->time_delta)
		d->last_fcr = fcr;
}

static void show_time(struct dump *d, struct line *l, uint64_t offset)
{
	uint64_t tsc;
	char *p = l->track;
	int err;

	l->track_id = "tsc";
	err = lpt_time_query_tsc(&d->time, &tsc, NULL, NULL);
	if (err < 0 && !(err == LPT_ERR_NO_TIME && d->opts->no_wall_clock)) {
		diag(d, offset, "error printing time", err);
		track_str(l, "tsc", "<unavailable>");
		return;
	}
	if (d->opts->time_delta) {
		if (d->last_tsc <= tsc) {
			*p++ = '+';
			p = put_hex(p, tsc - d->last_tsc);
		} else {
			*p++ = '-';
			p = put_hex(p, d->last_tsc - tsc);
		}
		d->last_tsc = tsc;
	} else {
		p = put_hex16(p, tsc);
	}
	l->tlen = (size_t)(p - l->track);
	if (l->tlen > 16)
		l->tlen = 16;
}

static void show_timing(struct dump *d, struct line *l, uint64_t offset)
{
	if (d->opts->show_tcal && !l->skip_tcal)
		show_tcal(d, l, offset);
	if (d->opts->show_time && !l->skip_time)
		show_time(d, l, offset);
}

static void track_tsc(struct dump *d, struct line *l, uint64_t offset,
		      uint64_t tsc)
{
	int err;

	if (!d->opts->no_tcal) {
		err = d->in_header ?
			lpt_tcal_header_tsc(&d->tcal, tsc, &d->tcfg) :
			lpt_tcal_update_tsc(&d->tcal, tsc, &d->tcfg);
		if (err < 0)
			diag(d, offset, "error calibrating time", err);
	}
	err = lpt_time_update_tsc(&d->time, tsc, &d->tcfg);
	if (err < 0)
		diag(d, offset, "error updating time", err);
	show_timing(d, l, offset);
}

static void track_cbr(struct dump *d, struct line *l, uint64_t offset,
		      uint8_t ratio)
{
	int err;

	if (!d->opts->no_tcal) {
		err = d->in_header ?
			lpt_tcal_header_cbr(&d->tcal, ratio, &d->tcfg) :
			lpt_tcal_update_cbr(&d->tcal, ratio, &d->tcfg);
		if (err < 0)
			diag(d, offset, "error calibrating time", err);
	}
	err = lpt_time_update_cbr(&d->time, ratio, &d->tcfg);
	if (err < 0)
		diag(d, offset, "error updating time", err);
	l->skip_time = 1;	/* CBR does not move time */
	show_timing(d, l, offset);
}

static void track_tma(struct dump *d, struct line *l, uint64_t offset,
		      const struct lpt_pkt_tma *tma)
{
	int err;

	if (!d->opts->no_tcal) {
		err = lpt_tcal_update_tma(&d->tcal, tma->ctc, tma->fc,
					  &d->tcfg);
		if (err < 0)
			diag(d, offset, "error calibrating time", err);
	}
	err = lpt_time_update_tma(&d->time, tma->ctc, tma->fc, &d->tcfg);
	if (err < 0)
		diag(d, offset, "error updating time", err);
	l->skip_tcal = 1;	/* TMA does not calibrate */
	show_timing(d, l, offset);
}

static void track_mtc(struct dump *d, struct line *l, uint64_t offset,
		      uint8_t ctc)
{
	int err;

	if (!d->opts->no_tcal) {
		err = lpt_tcal_update_mtc(&d->tcal, ctc, &d->tcfg);
		if (err < 0)
			diag(d, offset, "error calibrating time", err);
	}
	err = lpt_time_update_mtc(&d->time, ctc, &d->tcfg);
	if (err < 0)
		diag(d, offset, "error updating time", err);
	show_timing(d, l, offset);
}

static void track_cyc(struct dump *d, struct line *l, uint64_t offset,
		      uint64_t cyc)
{
	uint64_t fcr = 0;
	int err;

	if (!d->opts->no_tcal) {
		err = lpt_tcal_fcr(&d->tcal, &fcr);
		if (err < 0) {
			fcr = 0;
			diag(d, offset, "calibration error", err);
		}
		err = lpt_tcal_update_cyc(&d->tcal, cyc, &d->tcfg);
		if (err < 0)
			diag(d, offset, "error calibrating time", err);
	}
	err = lpt_time_update_cyc(&d->time, cyc, &d->tcfg, fcr);
	if (err < 0)
		diag(d, offset, "error updating time", err);
	else if (!fcr)
		diag(d, offset, "error updating time: no calibration", 0);
	l->skip_tcal = 1;	/* CYC does not calibrate by itself */
	show_timing(d, l, offset);
}

static void track_last_ip(struct dump *d, struct line *l, uint64_t offset,
			  const struct lpt_pkt_ip *ip)
{
	uint64_t value;
	int err;

	l->track_id = "ip";
	if (d->chunk_fresh) {
		d->chunk_fresh = 0;
		d->chunk_dep = ip->ipc != PT_IPBYTES_SEXT_48 &&
			       ip->ipc != PT_IPBYTES_FULL;
	}
	err = lpt_last_ip_update(&d->last_ip, ip->ipc, ip->ip);
	if (err < 0) {
		track_str(l, "ip", "<unavailable>");
		diag(d, offset, "error tracking last-ip", err);
		return;
	}
	err = lpt_last_ip_query(&d->last_ip, &value);
	if (err == LPT_ERR_IP_SUPPRESSED) {
		track_str(l, "ip", "<suppressed>");
	} else if (err < 0) {
		track_str(l, "ip", "<unavailable>");
		diag(d, offset, "error tracking last-ip", err);
	} else {
		track_hex16(l, "ip", value);
	}
}

/* ---------------------------------------------------------------------- */
/* One packet                                                             */

/*
 * Fill @l for @pkt at @offset, updating the tracking state and printing
 * any diagnostics (they come before the packet's line, as in libipt).
 */
static void format_packet(struct dump *d, struct line *l, uint64_t offset,
			  const struct lpt_packet *pkt)
{
	const struct ptdump_options *o = d->opts;
	char *p = l->payload;

	l->name = &names[pkt->type < LPT_PKT_NR ? pkt->type : NAME_UNKNOWN];

	switch (pkt->type) {
	case LPT_PKT_PAD:
		l->skip = o->no_pad;
		return;
	case LPT_PKT_PSB:
		if (o->track_time) {
			int err = lpt_tcal_update_psb(&d->tcal, &d->tcfg);

			if (err < 0)
				diag(d, offset, "error calibrating time", err);
		}
		d->in_header = 1;
		return;
	case LPT_PKT_PSBEND:
		d->in_header = 0;
		return;
	case LPT_PKT_OVF:
		if (o->track_time) {
			if (o->keep_tcal_on_ovf)
				lpt_tcal_update_ovf(&d->tcal, &d->tcfg);
			else
				lpt_tcal_init(&d->tcal);
		}
		return;
	case LPT_PKT_TRACESTOP:
		return;
	case LPT_PKT_INVALID:
		/* A TMA corrupted by erratum SKZ84 (decoder flag). */
		return;
	case LPT_PKT_TNT_8:
	case LPT_PKT_TNT_64:
		fmt_tnt(l, &pkt->payload.tnt);
		return;
	case LPT_PKT_TIP:
	case LPT_PKT_TIP_PGE:
	case LPT_PKT_TIP_PGD:
	case LPT_PKT_FUP:
		fmt_ip(l, &pkt->payload.ip);
		if (o->show_last_ip)
			track_last_ip(d, l, offset, &pkt->payload.ip);
		return;
	case LPT_PKT_PIP:
		p = put_hex(p, pkt->payload.pip.cr3);
		if (pkt->payload.pip.nr)
			p = put_mem(p, ", nr", 4);
		payload_done(l, p, STD_PAYLOAD_MAX);
		track_hex16(l, "cr3", pkt->payload.pip.cr3);
		return;
	case LPT_PKT_VMCS:
		p = put_hex(p, pkt->payload.vmcs.base);
		payload_done(l, p, STD_PAYLOAD_MAX);
		track_hex16(l, "vmcs", pkt->payload.vmcs.base);
		return;
	case LPT_PKT_MODE_EXEC: {
		const struct lpt_pkt_mode_exec *m = &pkt->payload.mode_exec;

		if (m->csd)
			p = put_mem(p, "cs.d", 4);
		if (m->csl) {
			if (m->csd)
				p = put_mem(p, ", ", 2);
			p = put_mem(p, "cs.l", 4);
		}
		if (m->iflag) {
			if (m->csd || m->csl)
				p = put_mem(p, ", ", 2);
			p = put_mem(p, "if", 2);
		}
		payload_done(l, p, STD_PAYLOAD_MAX);
		if (o->show_exec_mode)
			track_str(l, "em", m->csl ? (m->csd ? "unknown" :
						     "64-bit") :
				  m->csd ? "32-bit" : "16-bit");
		return;
	}
	case LPT_PKT_MODE_TSX: {
		const struct lpt_pkt_mode_tsx *m = &pkt->payload.mode_tsx;

		if (m->intx)
			p = put_mem(p, "intx", 4);
		if (m->abrt) {
			if (m->intx)
				p = put_mem(p, ", ", 2);
			p = put_mem(p, "abrt", 4);
		}
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	}
	case LPT_PKT_TSC:
		p = put_hex(p, pkt->payload.tsc.tsc);
		payload_done(l, p, STD_PAYLOAD_MAX);
		if (o->track_time)
			track_tsc(d, l, offset, pkt->payload.tsc.tsc);
		l->skip = o->no_timing;
		return;
	case LPT_PKT_CBR:
		p = put_hex(p, pkt->payload.cbr.ratio);
		payload_done(l, p, STD_PAYLOAD_MAX);
		if (o->track_time)
			track_cbr(d, l, offset, pkt->payload.cbr.ratio);
		l->skip = o->no_timing;
		return;
	case LPT_PKT_TMA:
		p = put_hex_sep(p, pkt->payload.tma.ctc);
		p = put_hex(p, pkt->payload.tma.fc);
		payload_done(l, p, STD_PAYLOAD_MAX);
		if (o->track_time)
			track_tma(d, l, offset, &pkt->payload.tma);
		l->skip = o->no_timing;
		return;
	case LPT_PKT_MTC:
		p = put_hex(p, pkt->payload.mtc.ctc);
		payload_done(l, p, STD_PAYLOAD_MAX);
		if (o->track_time)
			track_mtc(d, l, offset, pkt->payload.mtc.ctc);
		l->skip = o->no_timing;
		return;
	case LPT_PKT_CYC:
		p = put_hex(p, pkt->payload.cyc.value);
		payload_done(l, p, STD_PAYLOAD_MAX);
		if (o->track_time && !o->no_cyc)
			track_cyc(d, l, offset, pkt->payload.cyc.value);
		l->skip = o->no_timing || o->no_cyc;
		return;
	case LPT_PKT_MNT:
		p = put_hex(p, pkt->payload.mnt.payload);
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	case LPT_PKT_EXSTOP:
		if (pkt->payload.exstop.ip)
			p = put_mem(p, "ip", 2);
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	case LPT_PKT_MWAIT:
		/* libipt prints the payload's two 32-bit halves. */
		p = put_hex_n(p, (uint32_t)pkt->payload.mwait.raw, 8);
		p = put_mem(p, ", ", 2);
		p = put_hex_n(p, pkt->payload.mwait.raw >> 32, 8);
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	case LPT_PKT_PWRE: {
		const struct lpt_pkt_pwre *w = &pkt->payload.pwre;

		*p++ = 'c';
		p = put_dec(p, (w->state + 1u) & 0xf);
		*p++ = '.';
		p = put_dec(p, (w->sub_state + 1u) & 0xf);
		/*
		 * SDM Table 33-43 puts HW in bit 7 of byte 2; libipt (and its
		 * test vectors) use bit 3, reserved in the SDM. Either shows
		 * "hw", so both real traces and libipt's vectors print right.
		 */
		if (w->hw || (w->raw & 0x08))
			p = put_mem(p, ", hw", 4);
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	}
	case LPT_PKT_PWRX: {
		const struct lpt_pkt_pwrx *x = &pkt->payload.pwrx;
		const char *wr = NULL;
		int bad = 0;

		if (x->wake & PT_PWRX_WAKE_INTERRUPT)
			wr = "int";
		if (x->wake & PT_PWRX_WAKE_STORE) {
			bad |= wr != NULL;
			wr = "st";
		}
		if (x->wake & PT_PWRX_WAKE_HW) {
			bad |= wr != NULL;
			wr = "hw";
		}
		/* Timer deadline (SDM Table 33-44 bit 1; libipt: "bad"). */
		if (!wr && x->wake == PT_PWRX_WAKE_TIMER)
			wr = "tmr";
		if (!wr || bad)
			wr = "bad";
		p = put_str(p, wr);
		p = put_mem(p, ": c", 3);
		p = put_dec(p, (x->last + 1u) & 0xf);
		p = put_mem(p, ", c", 3);
		p = put_dec(p, (x->deepest + 1u) & 0xf);
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	}
	case LPT_PKT_PTW:
		p = put_hex(p, pkt->payload.ptw.plc);
		p = put_mem(p, ": ", 2);
		p = put_hex(p, pkt->payload.ptw.payload);
		if (pkt->payload.ptw.ip)
			p = put_mem(p, ", ip", 4);
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	case LPT_PKT_CFE: {
		const struct lpt_pkt_cfe *c = &pkt->payload.cfe;
		int hex;

		p = put_dec(p, c->type);
		if (cfe_vector(c->type, &hex)) {
			p = put_mem(p, ": ", 2);
			p = hex ? put_hex(p, c->vector) : put_dec(p, c->vector);
		}
		if (c->ip)
			p = put_mem(p, ", ip", 4);
		payload_done(l, p, STD_PAYLOAD_MAX);
		track_str(l, "type", cfe_name(c->type));
		return;
	}
	case LPT_PKT_EVD:
		p = put_dec(p, pkt->payload.evd.type);
		p = put_mem(p, ": ", 2);
		p = put_hex(p, pkt->payload.evd.payload);
		payload_done(l, p, STD_PAYLOAD_MAX);
		track_str(l, "type", evd_name(pkt->payload.evd.type));
		return;
	case LPT_PKT_TRIG: {
		const struct lpt_pkt_trig *t = &pkt->payload.trig;

		p = put_hex_n(p, t->trbv, 2);
		if (t->ip)
			p = put_mem(p, ", ip", 4);
		if (t->mult)
			p = put_mem(p, ", mult", 6);
		if (t->icntv) {
			p = put_mem(p, ", icnt: ", 8);
			p = put_dec(p, t->icnt);
		}
		payload_done(l, p, EXT_PAYLOAD_MAX);
		return;
	}
	/*
	 * PEBS-via-PT blocks (SDM 33.4.2.26-28): libipt does not know these
	 * packets; this format is ours (Documentation/ptdump.rst).
	 */
	case LPT_PKT_BBP:
		p = put_hex(p, pkt->payload.bbp.type);
		p = put_mem(p, ", sz: ", 6);
		p = put_dec(p, pkt->payload.bbp.item_size);
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	case LPT_PKT_BIP: {
		const struct lpt_pkt_bip *b = &pkt->payload.bip;
		const char *name = lpt_bip_name(b->bbp_type, b->id);

		p = put_hex(p, b->id);
		p = put_mem(p, ": ", 2);
		p = put_hex_n(p, b->value, b->size == 4 ? 8 : 16);
		payload_done(l, p, STD_PAYLOAD_MAX);
		if (name)
			track_str(l, "pebs", name);
		return;
	}
	case LPT_PKT_BEP:
		if (pkt->payload.bep.ip)
			p = put_mem(p, "ip", 2);
		payload_done(l, p, STD_PAYLOAD_MAX);
		return;
	}
	l->name = &names[NAME_UNKNOWN];
}

/* Print @l as one line for the packet of @size bytes at @offset. */
static void emit_line(struct dump *d, const struct line *l, uint64_t offset,
		      unsigned int size)
{
	const struct ptdump_options *o = d->opts;
	char *p = out_reserve(&d->out, OUT_LINE_MAX);
	char *col;
	int sep = 0;

	if (o->show_offset) {
		p = put_hex16_cached(p, offset, &d->offset_hex);
		*p++ = ' ';
		sep = 1;
	}
	if (o->show_raw) {
		const uint8_t *b = d->buf + offset;
		unsigned int i;

		if (sep)
			*p++ = ' ';
		col = p;
		/*
		 * An OVF hidden in a CYC by erratum SKD007 spans 3 bytes;
		 * libipt shows it as the 2-byte OVF at the CYC's offset.
		 */
		if (l->name == &names[LPT_PKT_OVF] && size > PT_OVF_SIZE)
			size = PT_OVF_SIZE;
		/* At most 16 bytes = 32 digits: pad the column up front. */
		memset(col, ' ', COL_RAW);
		for (i = 0; i < size && i < 16; i++, p += 2)
			memcpy(p, out_hexpairs[b[i]], 2);
		p = col + COL_RAW;
		sep = 1;
	}
	if (sep)
		*p++ = ' ';
	memcpy(p, l->name->text, sizeof(l->name->text));
	if (l->plen && l->name->len < COL_OPCODE)
		p += COL_OPCODE;
	else
		p += l->name->len;

	if (l->track_id) {
		size_t n = strlen(l->track_id);

		_Static_assert(COL_OFFSET + 1 + COL_RAW + 1 + 16 + 1 +
			       EXT_PAYLOAD_MAX + 1 + 32 + 1 + 8 +
			       sizeof(l->track) + 1 < OUT_LINE_MAX,
			       "the fixed-size copies fit a line's reserve");
		/* Fixed-size copies and fills; what lies beyond a field's
		 * end is overwritten by the next one or by the next line. */
		*p++ = ' ';
		col = p;
		memcpy(col, l->payload, EXT_PAYLOAD_MAX + 1);
		memset(col + l->plen, ' ', 32);
		p = col + (l->plen > COL_PAYLOAD ? l->plen : COL_PAYLOAD);
		*p++ = ' ';
		memset(p, ' ', 8);
		memcpy(p, l->track_id, n);
		p += n > COL_TRACK_ID ? n : COL_TRACK_ID;
		memcpy(p, l->track, sizeof(l->track));
		p += l->tlen;
	} else if (l->plen) {
		/* A fixed-size copy (payload <= 48 bytes, the buffer has
		 * OUT_LINE_MAX); what lies beyond plen is overwritten. */
		*p++ = ' ';
		memcpy(p, l->payload, EXT_PAYLOAD_MAX + 1);
		p += l->plen;
	}
	*p++ = '\n';
	out_commit(&d->out, p);
}

/* PAD, the most frequent packet, in the default layout. */
static inline void emit_pad(struct dump *d, uint64_t offset)
{
	char *p = out_reserve(&d->out, OUT_LINE_MAX);

	p = put_hex16_cached(p, offset, &d->offset_hex);
	memcpy(p, "  pad\n", 6);
	out_commit(&d->out, p + 6);
}

/* PAD with --raw: the raw column is always "00". */
static inline void emit_pad_raw(struct dump *d, uint64_t offset)
{
	static const char tail[] = "  00                                pad\n";
	char *p = out_reserve(&d->out, OUT_LINE_MAX);

	_Static_assert(sizeof(tail) - 1 == 2 + COL_RAW + 1 + 3 + 1,
		       "offset separator, raw column, name");
	p = put_hex16_cached(p, offset, &d->offset_hex);
	memcpy(p, tail, sizeof(tail) - 1);
	out_commit(&d->out, p + sizeof(tail) - 1);
}

static void dump_packet(struct dump *d, uint64_t offset,
			const struct lpt_packet *pkt)
{
	struct line l;

	l.name = NULL;
	l.plen = 0;
	l.tlen = 0;
	l.track_id = NULL;
	l.skip = 0;
	l.skip_time = 0;
	l.skip_tcal = 0;

	format_packet(d, &l, offset, pkt);
	if (!l.skip && !d->opts->quiet)
		emit_line(d, &l, offset, pkt->size);
}

/*
 * Decode and print packets from the current position until the end
 * (return 0) or a decode error (return it, after printing it).
 */
static int dump_packets(struct dump *d)
{
	struct lpt_packet pkts[BATCH];
	uint64_t offset;
	int n, i, err;

	for (;;) {
		err = lpt_pkt_get_offset(d->dec, &offset);
		if (err < 0) {
			diag(d, offset, "error getting offset", err);
			return err;
		}
		if (d->opts->stats) {
			/* --stats: count without writing packets out. */
			n = lpt_pkt_count(d->dec, &d->stats.pkt);
			return n == LPT_ERR_EOS ? 0 : n;
		}
		n = lpt_pkt_next_batch(d->dec, pkts, BATCH);
		if (n < 0) {
			if (n == LPT_ERR_EOS)
				return 0;
			diag(d, offset, "error decoding packet", n);
			return n;
		}
		for (i = 0; i < n; i++) {
			struct lpt_packet *pkt = &pkts[i];

			if (pkt->type != LPT_PKT_PAD)
				dump_packet(d, offset, pkt);
			else if (d->fast_pad)
				emit_pad(d, offset);
			else if (d->fast_pad_raw)
				emit_pad_raw(d, offset);
			else if (!d->skip_pad)	/* PAD tracks nothing */
				dump_packet(d, offset, pkt);
			offset += pkt->size;
		}
	}
}

/* Whether the PSB pattern (SDM 33.4.2.17) starts at @off of the trace. */
static int psb_at(const struct dump *d, uint64_t off, uint64_t end)
{
	uint64_t w[2];

	if (end - off < PT_PSB_SIZE)
		return 0;
	memcpy(w, d->buf + off, sizeof(w));
	return le64toh(w[0]) == PT_PSB_WORD && le64toh(w[1]) == PT_PSB_WORD;
}

/*
 * Synchronise for the piece [@start, @end) of the trace: at its first PSB
 * (at @start itself after a gap when one starts there), or at @start with
 * --no-sync. Returns 0, LPT_ERR_EOS when the piece has no PSB, or another
 * error (printed).
 */
static int sync_piece(struct dump *d, uint64_t start, uint64_t end)
{
	uint64_t sync;
	int err;

	if (d->opts->no_sync || (start && psb_at(d, start, end))) {
		err = lpt_pkt_sync_set(d->dec, start);
	} else if (!start) {
		err = lpt_pkt_sync_forward(d->dec);	/* a PSB at 0 counts */
	} else {
		/* The search starts after the sync point: past @start. */
		err = lpt_pkt_sync_set(d->dec, start);
		if (!err)
			err = lpt_pkt_sync_forward(d->dec);
	}
	if (err == LPT_ERR_EOS) {
		d->stats.skipped += end - start;
		return err;
	}
	if (err < 0) {
		diag(d, start, "sync error", err);
		return err;
	}
	lpt_pkt_get_sync_offset(d->dec, &sync);
	d->stats.skipped += sync - start;
	return 0;
}

/*
 * Dump the piece [@start, @end) of the trace: sync, dump, and on every error
 * resync at the next PSB (libipt's loop). Returns 0 or a sync error.
 */
static int dump_piece(struct dump *d, uint64_t start, uint64_t end)
{
	uint64_t pos = start, sync;
	int err;

	err = lpt_pkt_set_buffer(d->dec, d->buf, end);
	if (!err)
		err = sync_piece(d, start, end);
	if (err)
		return err;
	for (;;) {
		err = dump_packets(d);
		if (!err) {
			/* A packet cut by the end of the piece: not decoded. */
			if (!lpt_pkt_get_offset(d->dec, &pos) && pos < end)
				d->stats.skipped += end - pos;
			d->stop = pos;
			break;
		}
		d->stats.errors++;
		lpt_pkt_get_offset(d->dec, &pos);

		err = lpt_pkt_sync_forward(d->dec);
		if (err == LPT_ERR_EOS) {
			d->stats.skipped += end - pos;
			d->stop = end;	/* no PSB before @end */
			/* as if resynchronised at @end (-j: the next chunk's
			 * PSB, where a whole dump resets) */
			reset_tracking(d);
			return 0;
		}
		if (err < 0) {
			diag(d, 0, "sync error", err);
			return err;
		}
		lpt_pkt_get_sync_offset(d->dec, &sync);
		if (sync > pos)
			d->stats.skipped += sync - pos;
		reset_tracking(d);
	}
	return 0;
}

/*
 * Dump the trace piece by piece: a gap of its ptcap directory (trace lost,
 * the packet before it cut; ptcap-format.rst "gaps.<file>") ends a piece,
 * and the next is decoded on its own from its first PSB, after a line
 * "[OFFSET: gap: ...]".
 */
static int dump(struct dump *d)
{
	uint64_t start = 0, end;
	int err, synced = 0;
	size_t k;

	for (k = 0; k <= d->ngaps; k++) {
		end = k < d->ngaps ? d->gaps[k] : d->len;
		if (k) {
			reset_tracking(d);
			diag(d, start, "gap: trace lost here (the output "
			     "stopped mid-packet); decoding resumes at the "
			     "next PSB", 0);
		}
		err = dump_piece(d, start, end);
		if (err == LPT_ERR_EOS)
			err = 0;	/* no PSB in this piece */
		else if (!err)
			synced = 1;
		if (err < 0)
			return err;
		start = end;
	}
	if (!synced && !d->opts->no_sync) {
		fprintf(stderr, "%s: %s: no PSB packet in its %zu bytes, so no "
			"packet can be decoded: this is not a raw Intel PT "
			"trace, or its PSBs were lost (a wrapped or truncated "
			"buffer). --no-sync decodes from offset 0 anyway.\n",
			d->opts->prog, ptdump_name(d->opts), d->len);
		return LPT_ERR_EOS;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* -j N: the trace cut at PSBs (lwpt/pt_chunk.h), chunks dumped at once     */

/*
 * A chunk starts at a PSB with the tracking state reset: what a whole dump
 * has there, since without the time options (ptdump -j runs them on one
 * thread) the only state a PSB does not reset in libipt's ptdump is the
 * last IP of --lastip. A chunk whose first IP packet is compressed is
 * dumped again, in order, from the last IP the chunks before it left. A
 * chunk whose last packet runs past its end (a PSB pattern inside a
 * packet: corrupt data) ends the parallel dump: the rest of the trace is
 * dumped in order from that chunk on. Documentation/ptdump.rst "-j".
 */
#define PAR_SPARE	64	/* text buffers kept (> the window: 2N) */

struct par_job {
	uint64_t start, end;
	struct out out;		/* the chunk's text */
	struct lpt_last_ip last_ip;	/* at its end */
	int dep, cut, err;
	int have_ip;		/* an IP packet or a reset in the chunk */
};

struct par_dump {
	struct dump *d;		/* the caller's: emits, redumps */
	struct dump *w;		/* per worker */
	const struct lpt_pkt_config *cfg;
	uint64_t pos, chunk;
	struct lpt_last_ip carry;	/* the last IP after the emitted chunks */
	int stopped, ret;
	/* text buffers of emitted chunks, for the next ones: a fresh one
	 * per chunk costs its page faults (as much CPU as the dump) */
	pthread_mutex_t lock;
	struct out spare[PAR_SPARE];
	int nspare;
};

/* A text buffer for a chunk: a spare one, or a new one. */
static int par_buf(struct par_dump *p, struct out *o)
{
	int have = 0;

	pthread_mutex_lock(&p->lock);
	if (p->nspare) {
		*o = p->spare[--p->nspare];
		have = 1;
	}
	pthread_mutex_unlock(&p->lock);
	if (!have)
		return out_init_mem(o, 1u << 20);
	o->len = 0;
	o->error = 0;
	return 0;
}

/* Keep @o's buffer for a later chunk, or free it. */
static void par_unbuf(struct par_dump *p, struct out *o)
{
	pthread_mutex_lock(&p->lock);
	if (p->nspare < PAR_SPARE && o->buf) {
		p->spare[p->nspare++] = *o;
		o->buf = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	if (o->buf)
		out_fini(o);
}

static int par_next(void *vctx, void *vjob)
{
	struct par_dump *p = vctx;
	struct par_job *j = vjob;

	if (p->stopped || p->pos >= p->d->len)
		return 0;
	j->start = p->pos;
	j->end = lpt_chunk_next(p->d->buf, p->d->len, p->pos, p->chunk);
	p->pos = j->end;
	return 1;
}

/* Dump [@start, @end) with @d's decoder, from @lip. */
static int dump_chunk(struct dump *d, uint64_t start, uint64_t end,
		      const struct lpt_last_ip *lip)
{
	reset_tracking(d);
	if (lip)
		d->last_ip = *lip;
	d->chunk_fresh = 1;
	d->chunk_dep = 0;
	d->stop = end;
	return dump_piece(d, start, end);
}

static void par_work(void *vctx, unsigned int worker, void *vjob)
{
	struct par_dump *p = vctx;
	struct par_job *j = vjob;
	struct dump *d = &p->w[worker];

	if (par_buf(p, &j->out) < 0) {
		j->err = LPT_ERR_NOMEM;
		return;
	}
	d->out = j->out;
	j->err = dump_chunk(d, j->start, j->end, NULL);
	j->out = d->out;
	j->dep = d->chunk_dep;
	j->have_ip = !d->chunk_fresh;
	j->cut = d->stop != j->end;
	j->last_ip = d->last_ip;
}

static int par_emit(void *vctx, void *vjob)
{
	struct par_dump *p = vctx;
	struct par_job *j = vjob;
	struct dump *d = p->d;
	int err;

	if (p->stopped)
		goto out;
	if (j->err == LPT_ERR_NOMEM) {
		fprintf(stderr, "%s: out of memory.\n", d->opts->prog);
		p->ret = j->err;
		p->stopped = 1;
		goto out;
	}
	if (j->cut || (j->dep && d->opts->show_last_ip)) {
		/* in order, from the state the chunks before left */
		uint64_t end = j->cut ? d->len : j->end;

		err = dump_chunk(d, j->start, end, &p->carry);
		if (!d->chunk_fresh)
			p->carry = d->last_ip;
		if (err < 0 || j->cut) {
			p->ret = err < 0 ? err : 0;
			p->stopped = 1;
		}
		goto out;
	}
	if (out_write(&d->out, j->out.buf, j->out.len) < 0)
		p->stopped = 1;	/* reported by out_fini() */
	if (j->have_ip)
		p->carry = j->last_ip;
	if (j->err < 0) {
		/* a sync error: the whole dump stops there */
		p->ret = j->err;
		p->stopped = 1;
	}
out:
	par_unbuf(p, &j->out);
	return 0;
}

/*
 * Dump on @jobs threads (2 or more). @cfg: the decoders' configuration.
 * Returns as dump(), or 1 when the trace is not cut (one chunk, a gap, an
 * option that needs the order): then dump() does it.
 */
static int dump_par(struct dump *d, const struct lpt_pkt_config *cfg)
{
	static const struct lpt_par_ops ops = {
		.next = par_next, .work = par_work, .emit = par_emit,
	};
	const struct ptdump_options *o = d->opts;
	unsigned int jobs = lpt_par_jobs(o->jobs);
	struct par_dump p = { .d = d, .cfg = cfg };
	unsigned int i;
	int err;

	p.chunk = o->chunk ? o->chunk : PTDUMP_CHUNK;
	if (jobs < 2 || d->ngaps || o->no_sync || o->stats || o->track_time ||
	    o->time_delta || lpt_chunk_next(d->buf, d->len, 0, p.chunk) >= d->len)
		return 1;
	p.w = calloc(jobs, sizeof(*p.w));
	if (!p.w)
		return 1;
	pthread_mutex_init(&p.lock, NULL);
	for (i = 0; i < jobs; i++) {
		p.w[i] = *d;
		p.w[i].out.buf = NULL;
		p.w[i].dec = lpt_pkt_alloc(d->buf, d->len, cfg);
		if (!p.w[i].dec)
			break;
	}
	err = i < jobs ? LPT_ERR_NOMEM :
	      lpt_par_run(&ops, &p, jobs, sizeof(struct par_job), 0);
	while (i--)
		lpt_pkt_free(p.w[i].dec);
	free(p.w);
	while (p.nspare)
		out_fini(&p.spare[--p.nspare]);
	pthread_mutex_destroy(&p.lock);
	if (err < 0) {
		fprintf(stderr, "%s: %s: cannot run threads.\n", o->prog,
			ptdump_name(o));
		return 1;	/* nothing was written: dump in order */
	}
	return p.ret;
}

static void print_stats(struct dump *d)
{
	const struct stats *s = &d->stats;
	uint64_t packets = 0, bytes = 0;
	char *p;
	int t;

	for (t = 0; t < LPT_PKT_NR; t++) {
		packets += s->pkt.count[t];
		bytes += s->pkt.bytes[t];
	}

	p = out_reserve(&d->out, OUT_LINE_MAX);
	p = put_str(p, "file bytes:     ");
	p = put_dec(p, d->len);
	p = put_str(p, "\npackets:        ");
	p = put_dec(p, packets);
	p = put_str(p, "\npacket bytes:   ");
	p = put_dec(p, bytes);
	p = put_str(p, "\nskipped bytes:  ");
	p = put_dec(p, s->skipped);
	p = put_str(p, "\ndecode errors:  ");
	p = put_dec(p, s->errors);
	p = put_str(p, "\n\ntype            count            bytes\n");
	out_commit(&d->out, p);

	for (t = 0; t < LPT_PKT_NR; t++) {
		char *col;

		if (!s->pkt.count[t])
			continue;
		p = out_reserve(&d->out, OUT_LINE_MAX);
		col = p;
		p = put_str(p, t == LPT_PKT_INVALID ? "<invalid>" :
			    lpt_pkt_type_name(t));
		p = put_pad(p, col, 10);
		col = p;
		p = put_dec(p, s->pkt.count[t]);
		while (p - col < 11) {	/* right-align in 11 columns */
			memmove(col + 1, col, (size_t)(p - col));
			*col = ' ';
			p++;
		}
		col = p;
		p = put_dec(p, s->pkt.bytes[t]);
		while (p - col < 17) {
			memmove(col + 1, col, (size_t)(p - col));
			*col = ' ';
			p++;
		}
		*p++ = '\n';
		out_commit(&d->out, p);
	}
}

/* The loaded trace: mapped if possible, else read into memory. */
struct trace {
	uint8_t *buf;		/* first byte of [from, from + len) */
	size_t len;
	void *map;		/* mmap base, or NULL if @buf was malloc'ed */
	size_t map_len;
};

/*
 * Load [from, from+size) of the trace file (size 0: to the end). Messages
 * and checks follow libipt's ptdump.
 */
static int load_trace(const struct ptdump_options *o, struct trace *t)
{
	struct stat st;
	uint64_t end;
	size_t done = 0;
	int fd;

	memset(t, 0, sizeof(*t));
	/* never blocks on a FIFO or device; a sparse file is no trace */
	fd = ptcap_file_open(NULL, o->file, 0, PTCAP_FILE_NOT_SPARSE, NULL);
	if (fd == -PTCAP_E_NOT_REGULAR || fd == -PTCAP_E_SPARSE) {
		fprintf(stderr, "%s: %s: %s; give ptdump a trace file (such as a "
			"ptcap directory's cpu0.pt) or a ptcap directory.\n", o->prog,
			ptdump_name(o), ptcap_dir_strerror(fd));
		return -1;
	}
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s.%s\n", o->prog, ptdump_name(o),
			strerror(errno), errno == EACCES ?
			" Check the file's permissions (ptcap writes its files "
			"for the user who ran it)." : errno == ENOENT ?
			" Check the name: ptdump wants a raw Intel PT trace, "
			"such as a ptcap directory's cpu0.pt, or the directory."
			: "");
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: cannot get the size of %s: %s.\n",
			o->prog, ptdump_name(o), strerror(errno));
		goto err_fd;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s is not a regular file; give ptdump a "
			"trace file (such as a ptcap directory's cpu0.pt) or a "
			"ptcap directory.\n", o->prog, ptdump_name(o));
		goto err_fd;
	}
	if (!st.st_size) {
		fprintf(stderr, "%s: %s is empty: nothing to decode (was "
			"anything traced? ptcap's config has a status line per "
			"file).\n", o->prog, ptdump_name(o));
		goto err_fd;
	}
	if ((uint64_t)st.st_size <= o->from) {
		fprintf(stderr, "%s: offset 0x%llx is beyond the end of %s (%llu "
			"bytes); give an offset below its size.\n", o->prog,
			(unsigned long long)o->from, ptdump_name(o),
			(unsigned long long)st.st_size);
		goto err_fd;
	}
	end = (uint64_t)st.st_size;
	if (o->size) {
		if (o->from + o->size < o->from ||
		    o->from + o->size > end) {
			fprintf(stderr, "%s: range end 0x%llx is beyond the end "
				"of %s (%llu bytes); give an end up to its "
				"size.\n", o->prog,
				(unsigned long long)(o->from + o->size),
				ptdump_name(o), (unsigned long long)st.st_size);
			goto err_fd;
		}
		end = o->from + o->size;
	}
	t->len = (size_t)(end - o->from);

	{
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t base = o->from & ~(page - 1);

		t->map_len = (size_t)(end - base);
		t->map = mmap(NULL, t->map_len, PROT_READ, MAP_PRIVATE, fd,
			      (off_t)base);
		if (t->map != MAP_FAILED) {
			t->buf = (uint8_t *)t->map + (o->from - base);
			close(fd);
			return 0;
		}
		t->map = NULL;
	}

	t->buf = malloc(t->len);
	if (!t->buf) {
		fprintf(stderr, "%s: out of memory for the %zu bytes of %s; "
			"dump it in parts with %s:FROM-TO.\n", o->prog, t->len,
			ptdump_name(o), ptdump_name(o));
		goto err_fd;
	}
	while (done < t->len) {
		ssize_t n = pread(fd, t->buf + done, t->len - done,
				  (off_t)(o->from + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "%s: cannot read %s: %s.\n",
				o->prog, ptdump_name(o),
				n < 0 ? strerror(errno) : "file shrank while read");
			free(t->buf);
			t->buf = NULL;
			goto err_fd;
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;

err_fd:
	close(fd);
	return -1;
}

static void unload_trace(struct trace *t)
{
	if (t->map)
		munmap(t->map, t->map_len);
	else
		free(t->buf);
	t->buf = NULL;
}

/* A trace of a capture (lwpt/capture_src.h): its entry and, for a
 * perf.data's, its bytes. */
struct cap_trace {
	const struct lpt_capsrc_trace *t;	/* gaps */
	uint8_t *buf;		/* a perf.data's bytes (the dump frees
				 * them), NULL: @o->file is loaded */
	size_t len;
	const char *dir;	/* a ptcap directory, for messages */
};

/*
 * The gaps of @ct inside the loaded bytes [@o->from, @o->from + @len) as
 * offsets from @o->from, ascending, in a malloc()ed array (*@gaps, NULL if
 * none); a perf.data's as the reader gives them. Returns 0; -1 when the
 * directory's gaps line for the file is malformed or memory ran out (said
 * on stderr).
 */
static int trace_gaps(const struct ptdump_options *o, const struct cap_trace *ct,
		      size_t len, uint64_t **gaps, size_t *count)
{
	const struct lpt_capsrc_trace *t = ct ? ct->t : NULL;
	size_t i;

	*gaps = NULL;
	*count = 0;
	if (t && !ct->buf && t->gaps_err) {
		fprintf(stderr, "%s: %s/config: the gaps.%s line: %s. The trace "
			"after a loss would decode as if nothing were lost; "
			"was the config edited?\n", o->prog, ct->dir, t->name,
			ptcap_dir_strerror(t->gaps_err));
		return -1;
	}
	if (!t || !t->ngaps)
		return 0;
	*gaps = malloc(t->ngaps * sizeof(**gaps));
	if (!*gaps) {
		fprintf(stderr, "%s: out of memory.\n", o->prog);
		return -1;
	}
	for (i = 0; i < t->ngaps; i++)
		if (ct->buf || (t->gaps[i] > o->from && t->gaps[i] - o->from < len))
			(*gaps)[(*count)++] = ct->buf ? t->gaps[i] : t->gaps[i] - o->from;
	return 0;
}

/* Dump @opts->file, or @ct's bytes when it has them; return the exit
 * status (enum ptdump_exit). */
static int dump_trace(const struct ptdump_options *o, const struct cap_trace *ct)
{
	struct ptdump_options opts = *o;
	struct lpt_pkt_config cfg;
	struct dump d;
	struct trace trace;
	uint64_t *gaps = NULL;
	int ret, err;

	memset(&d, 0, sizeof(d));
	d.opts = &opts;
	/*
	 * The text is written out whenever this fills: 1 MiB, or 64 KiB for a
	 * perf.data's trace of less than 64 KiB (a perf.data may hold 20,000
	 * tiny queues: a 1 MiB buffer each costs an mmap() and, under the
	 * sanitizers, its shadow memory every time).
	 */
	if (out_init(&d.out, STDOUT_FILENO,
		     ct && ct->buf && ct->len < (1u << 16) ? 1u << 16 : 1u << 20) < 0) {
		fprintf(stderr, "%s: out of memory.\n", opts.prog);
		return PTDUMP_EXIT_ERROR;
	}

	lpt_pkt_config_init(&cfg);
	/* libipt rejects set reserved bits in TMA; so do we, to compare. */
	cfg.flags |= LPT_PKT_F_STRICT_RSVD;
	if (opts.have_cpu) {
		cfg.cpu.vendor = 1;
		cfg.cpu.family = opts.family;
		cfg.cpu.model = opts.model;
		cfg.cpu.stepping = opts.stepping;
		if (ptdump_cpu_errata(&d.errata, opts.family, opts.model) < 0)
			diag(&d, 0, "failed to determine errata: unknown cpu",
			     0);
	}

	d.tcfg.mtc_freq = opts.mtc_freq;
	d.tcfg.nom_freq = opts.nom_freq;
	d.tcfg.cpuid_0x15_eax = opts.cpuid_0x15_eax;
	d.tcfg.cpuid_0x15_ebx = opts.cpuid_0x15_ebx;
	d.tcfg.errata_skl168 = d.errata.skl168;

	if (ct && ct->buf) {
		memset(&trace, 0, sizeof(trace));
		trace.buf = ct->buf;	/* the caller's: unload_trace() frees it */
		trace.len = ct->len;
	} else if (load_trace(&opts, &trace) < 0) {
		out_fini(&d.out);
		return PTDUMP_EXIT_ERROR;
	}
	d.buf = trace.buf;
	d.len = trace.len;
	if (trace_gaps(&opts, ct, d.len, &gaps, &d.ngaps) < 0) {
		unload_trace(&trace);
		out_fini(&d.out);
		return PTDUMP_EXIT_ERROR;
	}
	d.gaps = gaps;

	d.dec = lpt_pkt_alloc(d.buf, d.len, &cfg);
	if (!d.dec) {
		diag(&d, 0, "failed to allocate decoder", 0);
		unload_trace(&trace);
		free(gaps);
		out_fini(&d.out);
		return PTDUMP_EXIT_ERROR;
	}
	reset_tracking(&d);
	init_names();
	init_tnt_chars();
	d.offset_hex.hi = ~0ull;
	d.fast_pad = opts.show_offset && !opts.show_raw && !opts.quiet &&
		     !opts.no_pad;
	d.fast_pad_raw = opts.show_offset && opts.show_raw && !opts.quiet &&
			 !opts.no_pad;
	d.skip_pad = opts.no_pad || opts.quiet;

	ret = dump_par(&d, &cfg);
	if (ret == 1)
		ret = dump(&d);
	if (opts.stats)
		print_stats(&d);

	lpt_pkt_free(d.dec);
	unload_trace(&trace);
	free(gaps);
	err = out_fini(&d.out);
	if (err < 0) {
		fprintf(stderr, "%s: cannot write the output: %s.\n",
			opts.prog, strerror(-err));
		return PTDUMP_EXIT_ERROR;
	}
	return ret < 0 ? PTDUMP_EXIT_ERROR : PTDUMP_EXIT_OK;
}

/*
 * The decoder parameters of capture @s as the defaults of the options not
 * given (a ptcap directory's config, issue 15 point 7; a perf.data's
 * AUXTRACE_INFO and CPUID). @dir names a directory in messages. Returns 0;
 * -1 after a message when a directory's config cannot be read or parsed,
 * or is a BTS capture's.
 */
static int capture_config(struct ptdump_options *o, struct lpt_capsrc *s, const char *dir)
{
	const struct ptcap_config *cfg = NULL;
	struct ptcap_config parsed;
	const char *text;
	size_t len, line = 0;
	int err, e;

	err = lpt_capsrc_config(s, &cfg, NULL);
	e = errno;
	if (err && !(text = lpt_capsrc_config_text(s, &len))) {
		fprintf(stderr, "%s: cannot read %s/config: %s. A ptcap directory "
			"needs its config file (see ptcap(1)); give the timing "
			"options by hand otherwise.\n", o->prog, dir,
			err == -PTCAP_E_IO ? strerror(e) : ptcap_dir_strerror(err));
		return -1;
	}
	/* its parameters parsed, the config may still have a bad addr<N>
	 * line: that is ptflow's business (ptdump has no IP filter) */
	if (err && (err = ptcap_config_parse(text, len, &parsed, &line))) {
		fprintf(stderr, "%s: %s/config, line %zu: %s. Is it a ptcap "
			"directory of this lwpt version (ptcap-format.rst)?\n",
			o->prog, dir, line, ptcap_dir_strerror(err));
		return -1;
	}
	if (!cfg)
		cfg = &parsed;
	if (cfg->format == PTCAP_FORMAT_BTS) {
		fprintf(stderr, "%s: %s: a BTS capture (format bts): its *.bts files hold "
			"BTS records, not PT packets; ptflow decodes them\n", o->prog, dir);
		return -1;
	}
	ptdump_options_config(o, cfg);
	return 0;
}

/* Open @path, a ptcap directory or a perf.data (lwpt/capture_src.h): 0,
 * or -1 after a message. */
static int capture_open(const struct ptdump_options *o, const char *path,
			struct lpt_capsrc **s)
{
	struct lpt_capsrc_opts co;
	int r;

	lpt_capsrc_opts_init(&co);
	co.prog = o->prog;
	co.max_decompressed = o->max_decompressed;
	co.flags = LPT_CAPSRC_NO_CODE;	/* packets only: no code looked up */
	r = lpt_capsrc_open(path, &co, s);
	if (r == LPT_CAPSRC_NOT_CAPTURE)
		fprintf(stderr, "%s: %s is neither a ptcap directory nor a perf.data.\n",
			o->prog, path);
	return r ? -1 : 0;
}

/* A perf.data's trace @i in memory, in @ct (-1 after a message). */
static int perf_trace(const struct ptdump_options *o, struct lpt_capsrc *s, size_t i,
		      struct cap_trace *ct)
{
	int err = lpt_capsrc_load(s, i, 0, 0, &ct->buf, &ct->len);

	if (!err && !ct->len) {
		free(ct->buf);
		ct->buf = NULL;
	}
	if (!err && ct->len)
		return 0;
	if (!err || err == -PTCAP_E_TOO_LARGE)
		fprintf(stderr, "%s: %s is %s: nothing to decode.\n", o->prog,
			ptdump_name(o), err ? "too large" : "empty");
	else
		fprintf(stderr, "%s: %s: %s.\n", o->prog, ptdump_name(o),
			err == -PTCAP_E_NOMEM ? "out of memory" : "cannot read the trace");
	return -1;
}

/*
 * ptdump DIR or ptdump PERF.DATA, through the capture source (issue 36:
 * a perf.data read in place, no temporary file): every trace, in version
 * order of its name, each after a line "== DIR/NAME" (a perf.data's
 * "== FILE:NAME"), with the capture's decoder parameters. Returns the
 * worst exit status.
 */
static int dump_capture(struct ptdump_options *o)
{
	const char *path = o->file;
	const struct lpt_capsrc_trace *t;
	char file[PATH_MAX], label[PATH_MAX + 64];
	struct lpt_capsrc *s;
	bool perf;
	size_t n, i;
	int ret = PTDUMP_EXIT_OK, r;

	if (o->from || o->size) {	/* a directory's: a perf.data's is a file */
		fprintf(stderr, "%s: %s is a directory: a range applies to one "
			"trace file (%s/cpu0.pt:FROM-TO).\n", o->prog, path, path);
		return PTDUMP_EXIT_USAGE;
	}
	if (capture_open(o, path, &s) < 0)
		return PTDUMP_EXIT_ERROR;
	perf = lpt_capsrc_kind(s) == LPT_CAPSRC_PERF_DATA;
	if (capture_config(o, s, path) < 0) {
		lpt_capsrc_close(s);
		return PTDUMP_EXIT_ERROR;
	}
	if (lpt_capsrc_traces(s, &t, &n)) {
		fprintf(stderr, "%s: cannot list %s: %s.\n", o->prog, path,
			strerror(errno));
		lpt_capsrc_close(s);
		return PTDUMP_EXIT_ERROR;
	}
	if (!n && !perf)
		fprintf(stderr, "%s: %s holds no *.pt trace file: did the "
			"capture end before tracing started?\n", o->prog, path);
	for (i = 0; i < n; i++) {
		struct cap_trace ct = { &t[i], NULL, 0, path };

		snprintf(file, sizeof(file), "%s/%s", path, t[i].name);
		snprintf(label, sizeof(label), "%s:%s", path, t[i].name);
		printf("== %s\n", perf ? label : file);
		fflush(stdout);
		o->file = file;
		o->name = perf ? label : NULL;
		if (perf && perf_trace(o, s, i, &ct) < 0)
			r = PTDUMP_EXIT_ERROR;
		else
			r = dump_trace(o, &ct);
		if (r > ret)
			ret = r;
	}
	o->file = (char *)path;
	o->name = NULL;
	lpt_capsrc_close(s);
	return n ? ret : PTDUMP_EXIT_ERROR;
}

/*
 * The directory of trace file @file in @dir: 1 when it holds a `config`
 * (whatever its content; one that is not a regular file is refused by
 * capture_config() with a message), else 0 (a trace on its own).
 */
static int capture_dir_of(const char *file, char *dir, size_t size)
{
	const char *slash = strrchr(file, '/');
	char cfg[PATH_MAX + 16];
	struct stat st;
	int n;

	if (!slash)
		n = snprintf(dir, size, ".");
	else if (slash == file)
		n = snprintf(dir, size, "/");
	else
		n = snprintf(dir, size, "%.*s", (int)(slash - file), file);
	if (n < 0 || (size_t)n >= size)
		return 0;
	snprintf(cfg, sizeof(cfg), "%s/%s", dir, PTCAP_CONFIG_FILE);
	return !stat(cfg, &st) && !S_ISDIR(st.st_mode);
}

/*
 * ptdump FILE[:RANGE]: one trace file. In a ptcap directory (DIR/cpu0.pt)
 * DIR/config gives the defaults of the options and the file's gaps.
 */
static int dump_file(struct ptdump_options *o)
{
	const struct lpt_capsrc_trace *t;
	struct cap_trace ct = { NULL, NULL, 0, NULL };
	const char *base = strrchr(o->file, '/');
	struct lpt_capsrc *s = NULL;
	char dir[PATH_MAX];
	size_t n, i;
	int ret;

	if (capture_dir_of(o->file, dir, sizeof(dir)) && !capture_open(o, dir, &s) &&
	    lpt_capsrc_kind(s) == LPT_CAPSRC_PTCAP_DIR) {
		if (capture_config(o, s, dir) < 0)
			fprintf(stderr, "%s: going on without %s/config.\n", o->prog, dir);
		base = base ? base + 1 : o->file;
		ct.dir = dir;
		if (!lpt_capsrc_traces(s, &t, &n))
			for (i = 0; i < n && !ct.t; i++)
				if (!strcmp(t[i].name, base))
					ct.t = &t[i];
	}
	ret = dump_trace(o, &ct);
	lpt_capsrc_close(s);
	return ret;
}

int main(int argc, char **argv)
{
	struct ptdump_options opts;
	struct stat st;
	int ret;

	ret = ptdump_parse_args(argc, argv, &opts);
	if (ret)
		return ret > 0 ? PTDUMP_EXIT_OK : PTDUMP_EXIT_USAGE;

	if ((!opts.from && !opts.size && lpt_perf_probe(opts.file)) ||
	    (!stat(opts.file, &st) && S_ISDIR(st.st_mode)))
		return dump_capture(&opts);
	return dump_file(&opts);
}
