/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptdump: buffered text output without printf.
 *
 * One large buffer flushed with write(2); numbers are formatted with the
 * small helpers below. A line never exceeds OUT_LINE_MAX bytes, so callers
 * reserve that much once per line with out_reserve() and then write
 * unchecked.
 */
#ifndef PTDUMP_OUT_H
#define PTDUMP_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OUT_LINE_MAX	512

struct out {
	char *buf;
	size_t len;
	size_t cap;
	int fd;
	int error;		/* errno of the first failed write, or 0 */
};

/* Allocate a @cap byte buffer writing to @fd. Returns 0 or -ENOMEM. */
int out_init(struct out *o, int fd, size_t cap);
/* Flush and free. Returns 0 or the negative errno of a failed write. */
int out_fini(struct out *o);
/* Write out what is buffered. Returns 0 or a negative errno. */
int out_flush(struct out *o);

/* Make room for @n more bytes (n <= cap); returns the write position. */
static inline char *out_reserve(struct out *o, size_t n)
{
	if (o->cap - o->len < n)
		out_flush(o);
	return o->buf + o->len;
}

/* Commit what was written since out_reserve() up to @end. */
static inline void out_commit(struct out *o, char *end)
{
	o->len = (size_t)(end - o->buf);
}

static const char out_hexdigits[16] = "0123456789abcdef";

/* Exactly @n hex digits of @v (zero-padded, like %0*lx). */
static inline char *put_hex_n(char *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = n; i > 0; i--) {
		p[i - 1] = out_hexdigits[v & 0xf];
		v >>= 4;
	}
	return p + n;
}

/* Two hex digits for each byte value. */
extern const char out_hexpairs[256][2];

/* Exactly 16 hex digits of @v (like %016lx), two at a time. */
static inline char *put_hex16(char *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--) {
		memcpy(p + 2 * i, out_hexpairs[v & 0xff], 2);
		v >>= 8;
	}
	return p + 16;
}

/* Number of hex digits of @v without leading zeros (1 for 0). */
static inline unsigned int hex_width(uint64_t v)
{
	return v ? (unsigned int)((64 - __builtin_clzll(v) + 3) / 4) : 1;
}

/* @v in hex without leading zeros (like %lx). */
static inline char *put_hex(char *p, uint64_t v)
{
	return put_hex_n(p, v, hex_width(v));
}

/* @v in decimal (like %lu). */
static inline char *put_dec(char *p, uint64_t v)
{
	char tmp[20];
	unsigned int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* The bytes of @s, without the terminating NUL. */
static inline char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

static inline char *put_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* Spaces from @p up to @start + @width (nothing if already past it). */
static inline char *put_pad(char *p, const char *start, size_t width)
{
	while ((size_t)(p - start) < width)
		*p++ = ' ';
	return p;
}

#endif /* PTDUMP_OUT_H */
