/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptflow: the flow's text formatted without printf (issue 17.3).
 *
 * fprintf() per field cost ptflow --no-inst 2.8x a bare pt_insn_next()
 * loop, and even one locked fwrite() per line 1.5x
 * (Documentation/performance.rst). Lines are built in a 64 KiB buffer with
 * ptdump's hex and decimal helpers (tools/ptdump/out.h, inline only) and
 * handed to the stream in blocks: whoever writes to the same stream by
 * other means calls ptflow_line_flush() first. The bytes are exactly those
 * of the printf formats they replace ("%016" PRIx64, "%" PRIx64, "%02x",
 * "%d", "%s"); tests/tools/ptflow/test_ptflow_line.c pins them against
 * printf.
 */
#ifndef LWPT_TOOLS_PTFLOW_LINE_H
#define LWPT_TOOLS_PTFLOW_LINE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tools/ptdump/out.h"

/* Bytes buffered before they go to the stream. */
#define PTFLOW_LINE_MAX	65536

/*
 * Room kept for a fixed-size field (a number, a short literal); strings
 * longer than PTFLOW_LINE_MAX - PTFLOW_LINE_FIELD are written through.
 */
#define PTFLOW_LINE_FIELD	32

struct ptflow_line {
	FILE *out;
	char *p;			/* next byte to write in @buf */
	struct hex16_cache ip;		/* ptflow_line_ip()'s upper digits */
	char buf[PTFLOW_LINE_MAX];
};

/* Start with an empty buffer for @out. */
static inline void ptflow_line_init(struct ptflow_line *l, FILE *out)
{
	l->out = out;
	l->p = l->buf;
	l->ip.hi = ~0ull;
}

/*
 * Hand what is buffered to the stream (one fwrite_unlocked(): ptflow
 * writes from one thread), and start over.
 */
static inline void ptflow_line_flush(struct ptflow_line *l)
{
	if (l->p != l->buf)
		fwrite_unlocked(l->buf, 1, (size_t)(l->p - l->buf), l->out);
	l->p = l->buf;
}

/* Make sure @n more bytes fit (n <= PTFLOW_LINE_MAX); returns the cursor. */
static inline char *ptflow_line_room(struct ptflow_line *l, size_t n)
{
	if ((size_t)(l->buf + PTFLOW_LINE_MAX - l->p) < n)
		ptflow_line_flush(l);
	return l->p;
}

/* @v as exactly 16 hex digits, like "%016" PRIx64. */
static inline void ptflow_line_hex16(struct ptflow_line *l, uint64_t v)
{
	l->p = put_hex16(ptflow_line_room(l, 16), v);
}

/*
 * ptflow_line_hex16() for instruction addresses: consecutive ones share
 * their upper 32 bits, whose digits are kept.
 */
static inline void ptflow_line_ip(struct ptflow_line *l, uint64_t ip)
{
	l->p = put_hex16_cached(ptflow_line_room(l, 16), ip, &l->ip);
}

/* @v in hex without leading zeros, like "%" PRIx64. */
static inline void ptflow_line_hex(struct ptflow_line *l, uint64_t v)
{
	l->p = put_hex(ptflow_line_room(l, 16), v);
}

/* The low byte of @v as two hex digits, like "%02x" of a byte. */
static inline void ptflow_line_hex2(struct ptflow_line *l, uint8_t v)
{
	l->p = put_hex_n(ptflow_line_room(l, 2), v, 2);
}

/* @v in decimal, like "%d" (INT_MIN included). */
static inline void ptflow_line_int(struct ptflow_line *l, int v)
{
	char *p = ptflow_line_room(l, 12);
	uint64_t u = (uint64_t)(int64_t)v;

	if (v < 0) {
		*p++ = '-';
		u = 0 - u;
	}
	l->p = put_dec(p, u);
}

/* @n bytes of @s; longer than the buffer's room: written through. */
static inline void ptflow_line_mem(struct ptflow_line *l, const char *s,
				   size_t n)
{
	if (n > PTFLOW_LINE_MAX - PTFLOW_LINE_FIELD) {
		ptflow_line_flush(l);
		fwrite_unlocked(s, 1, n, l->out);
		return;
	}
	l->p = put_mem(ptflow_line_room(l, n), s, n);
}

/* The string @s without its NUL, like "%s". */
static inline void ptflow_line_str(struct ptflow_line *l, const char *s)
{
	ptflow_line_mem(l, s, strlen(s));
}

/* One character. */
static inline void ptflow_line_char(struct ptflow_line *l, char c)
{
	*ptflow_line_room(l, 1) = c;
	l->p++;
}

#endif /* LWPT_TOOLS_PTFLOW_LINE_H */
