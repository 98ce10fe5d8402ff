// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libpt packet decoder object: allocation, configuration, synchronisation
 * (SDM 33.4.2.17 PSB) and position queries. Decoding itself is in
 * pkt_decode.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "pkt_internal.h"

void lpt_pkt_config_init(struct lpt_pkt_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

/* Copy a caller's (possibly older, smaller) configuration. */
static int config_from_user(struct lpt_pkt_config *dst,
			    const struct lpt_pkt_config *src)
{
	lpt_pkt_config_init(dst);
	if (!src)
		return 0;
	if (src->size < offsetof(struct lpt_pkt_config, flags) +
			sizeof(src->flags))
		return LPT_ERR_BAD_CONFIG;
	memcpy(dst, src, src->size < sizeof(*dst) ? src->size : sizeof(*dst));
	dst->size = sizeof(*dst);
	if (dst->flags & ~LPT_PKT_F_ALL)
		return LPT_ERR_BAD_CONFIG;
	return 0;
}

struct lpt_pkt_decoder *lpt_pkt_alloc(const uint8_t *buf, size_t len,
				      const struct lpt_pkt_config *cfg)
{
	struct lpt_pkt_decoder *dec;

	if (!buf && len) {
		errno = EINVAL;
		return NULL;
	}
	dec = calloc(1, sizeof(*dec));
	if (!dec) {
		errno = ENOMEM;
		return NULL;
	}
	if (config_from_user(&dec->cfg, cfg) < 0) {
		free(dec);
		errno = EINVAL;
		return NULL;
	}
	/* Erratum workarounds for the configured CPU. */
	dec->cfg.flags |= lpt_cpu_errata(&dec->cfg.cpu);
	lpt_pkt_set_buffer(dec, buf, len);
	return dec;
}

void lpt_pkt_free(struct lpt_pkt_decoder *dec)
{
	free(dec);
}

int lpt_pkt_set_buffer(struct lpt_pkt_decoder *dec, const uint8_t *buf,
		       size_t len)
{
	static const uint8_t empty[1];

	if (!dec || (!buf && len))
		return LPT_ERR_INVALID;
	if (!buf)
		buf = empty;
	dec->begin = buf;
	dec->end = buf + len;
	dec->pos = NULL;
	dec->sync = NULL;
	return 0;
}

int lpt_pkt_sync_forward(struct lpt_pkt_decoder *dec)
{
	const uint8_t *pos, *from, *psb;

	if (!dec)
		return LPT_ERR_INVALID;

	pos = dec->pos ? dec->pos : dec->begin;
	if (dec->sync && pos == dec->sync)
		pos += PT_PSB_SIZE;
	if (pos > dec->end)
		pos = dec->end;
	/* Start up to 15 bytes back: find a PSB that a bad packet before it
	 * partly swallowed (as libipt). */
	from = (pos - dec->begin >= PT_PSB_SIZE - 1) ?
	       pos - (PT_PSB_SIZE - 1) : dec->begin;

	psb = lpt_psb_find_forward(dec->begin, dec->end, from);
	if (!psb)
		return LPT_ERR_EOS;
	dec->sync = psb;
	dec->pos = psb;
	memset(&dec->block, 0, sizeof(dec->block));
	return 0;
}

int lpt_pkt_sync_backward(struct lpt_pkt_decoder *dec)
{
	const uint8_t *pos, *psb;

	if (!dec)
		return LPT_ERR_INVALID;

	pos = dec->pos ? dec->pos : dec->end;
	psb = lpt_psb_find_backward(dec->begin, dec->end, pos);
	if (!psb)
		return LPT_ERR_EOS;
	dec->sync = psb;
	dec->pos = psb;
	memset(&dec->block, 0, sizeof(dec->block));
	return 0;
}

int lpt_pkt_sync_set(struct lpt_pkt_decoder *dec, uint64_t offset)
{
	if (!dec)
		return LPT_ERR_INVALID;
	if (offset > (uint64_t)(dec->end - dec->begin))
		return LPT_ERR_EOS;
	dec->pos = dec->begin + offset;
	dec->sync = dec->pos;
	return 0;
}

int lpt_pkt_get_offset(const struct lpt_pkt_decoder *dec, uint64_t *offset)
{
	if (!dec || !offset)
		return LPT_ERR_INVALID;
	if (!dec->pos)
		return LPT_ERR_NOSYNC;
	*offset = (uint64_t)(dec->pos - dec->begin);
	return 0;
}

int lpt_pkt_get_sync_offset(const struct lpt_pkt_decoder *dec,
			    uint64_t *offset)
{
	if (!dec || !offset)
		return LPT_ERR_INVALID;
	if (!dec->sync)
		return LPT_ERR_NOSYNC;
	*offset = (uint64_t)(dec->sync - dec->begin);
	return 0;
}

/*
 * The errata libipt 2.0.5's pt_cpu_errata() (libipt/src/pt_config.c) sets
 * for a CPU, as LPT_ERRATUM_* bits; family 6 models as there, plus the
 * later SKZ84 models (0xad, 0xae, 0xcf; family 0x13 model 1) lwpt's
 * packet decoder already knew. Stepping is unused, as in libipt.
 */
uint32_t lpt_cpu_errata_all(const struct lpt_cpu *cpu)
{
	if (!cpu || cpu->vendor != 1)
		return 0;
	if (cpu->family == 0x13)
		return cpu->model == 0x01 ? LPT_ERRATUM_SKZ84 : 0;
	if (cpu->family != 6)
		return 0;
	switch (cpu->model) {
	case 0x3d: case 0x47: case 0x4f: case 0x56:
		return LPT_ERRATUM_BDM70 | LPT_ERRATUM_BDM64;
	case 0x4e: case 0x5e: case 0x8e: case 0x9e: case 0xa5: case 0xa6:
		return LPT_ERRATUM_BDM70 | LPT_ERRATUM_SKD007 | LPT_ERRATUM_SKD022 |
		       LPT_ERRATUM_SKD010 | LPT_ERRATUM_SKL014 | LPT_ERRATUM_SKL168;
	case 0x55: case 0x6a: case 0x6c: case 0x8f:
	case 0xad: case 0xae: case 0xcf:
		return LPT_ERRATUM_BDM70 | LPT_ERRATUM_SKL014 | LPT_ERRATUM_SKD022 |
		       LPT_ERRATUM_SKZ84;
	case 0x66: case 0x7d: case 0x7e: case 0x8c: case 0x8d: case 0xa7:
	case 0xa8:
		return LPT_ERRATUM_BDM70 | LPT_ERRATUM_SKL014 | LPT_ERRATUM_SKD022;
	case 0x97: case 0x9a: case 0xbf:
		return LPT_ERRATUM_BDM70 | LPT_ERRATUM_SKL014 | LPT_ERRATUM_SKD022 |
		       LPT_ERRATUM_APL11;
	case 0x5c: case 0x5f:
		return LPT_ERRATUM_APL12 | LPT_ERRATUM_APL11;
	case 0x7a: case 0x86: case 0x96: case 0x9c:
		return LPT_ERRATUM_APL11;
	}
	return 0;
}

uint32_t lpt_cpu_errata(const struct lpt_cpu *cpu)
{
	uint32_t e = lpt_cpu_errata_all(cpu);

	return (e & LPT_ERRATUM_SKD007 ? LPT_PKT_F_ERRATUM_SKD007 : 0) |
	       (e & LPT_ERRATUM_SKZ84 ? LPT_PKT_F_ERRATUM_SKZ84 : 0);
}

const char *lpt_errstr(int err)
{
	switch (err) {
	case LPT_OK:			return "success";
	case LPT_ERR_INTERNAL:		return "internal error";
	case LPT_ERR_INVALID:		return "invalid argument";
	case LPT_ERR_NOMEM:		return "out of memory";
	case LPT_ERR_EOS:		return "end of stream";
	case LPT_ERR_NOSYNC:		return "not synchronized";
	case LPT_ERR_BAD_OPCODE:	return "unknown opcode";
	case LPT_ERR_BAD_PACKET:	return "malformed packet";
	case LPT_ERR_NOIP:		return "no ip";
	case LPT_ERR_IP_SUPPRESSED:	return "ip has been suppressed";
	case LPT_ERR_BAD_CONFIG:	return "bad configuration";
	case LPT_ERR_NOT_SUPPORTED:	return "not supported";
	case LPT_ERR_NO_TIME:		return "no timing information";
	case LPT_ERR_NO_CBR:		return "no core:bus ratio";
	case LPT_ERR_BAD_CONTEXT:	return "unexpected packet context";
	case LPT_ERR_OVERFLOW:		return "overflow";
	default:			return "unknown error";
	}
}
