/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Marking the cuts of a raw trace file so that a decoder reading it alone
 * (libipt, perf) never decodes a wrong flow across them (issue 27 section 1).
 */
#ifndef LWPT_TOOLS_PTCAP_GAPMARK_H
#define LWPT_TOOLS_PTCAP_GAPMARK_H

#include <stdint.h>

/**
 * ptcap_gap_mark() - turn a cut of the packet stream into OVF and PADs
 * @buf:	the trace file's bytes (written in place)
 * @size:	bytes at @buf
 * @cut:	offset in @buf where a loss cut the stream (gaps.<file>): the
 *		bytes before it end mid-packet (SDM 33.2.7.2 "ToPA STOP"), the
 *		bytes after it do not continue that packet
 *
 * From the last PSB before @cut (SDM 33.4.2.17) the packets are walked to
 * the last one that ends at or before @cut; from its end (one packet
 * earlier if fewer than two bytes remain) up to the first PSB at or after
 * @cut (or the end of @buf) the bytes become an OVF packet (02 F3, SDM
 * 33.4.2.16: packets were lost) and PAD packets (00, 33.4.2.20). A decoder
 * then ends the flow before the loss, reads "tracing disabled by an
 * overflow" (libipt: OVF, then no FUP before PSB) and starts again at the
 * PSB+; the bytes replaced could not be decoded anyway. A PSB's 16 bytes
 * cannot be walked into: the search starts at a PSB boundary.
 *
 * Return: bytes replaced (> 0); 0 when nothing was changed: @cut at or
 * beyond @size, or the packets before it do not decode (a corrupt file:
 * decoders resynchronise there anyway).
 */
uint64_t ptcap_gap_mark(uint8_t *buf, uint64_t size, uint64_t cut);

#endif /* LWPT_TOOLS_PTCAP_GAPMARK_H */
