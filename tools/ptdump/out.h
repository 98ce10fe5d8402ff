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
/* A buffer that grows instead of writing (fd -1): out_flush() doubles it
 * (ptdump -j: a chunk's text, written later with out_write()). */
int out_init_mem(struct out *o, size_t cap);
/* Write @n bytes at @p after what is buffered. Returns 0 or a negative
 * errno. */
int out_write(struct out *o, const char *p, size_t n);
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

/*
 * 8 hex digits of the low 32 bits of @v as 8 ASCII bytes, most significant
 * digit in the lowest byte (memory order): the nibbles are spread into one
 * byte each, then 0-9 and a-f are made in parallel (SWAR), no table.
 */
static inline uint64_t hex8_word(uint64_t v)
{
	uint64_t x = v & 0xffffffffu, big;

	x = ((x & 0xffff0000u) << 16) | (x & 0xffffu);
	x = ((x & 0x0000ff000000ff00ull) << 8) | (x & 0x000000ff000000ffull);
	x = ((x & 0x00f000f000f000f0ull) << 4) | (x & 0x000f000f000f000full);
	/* 0x01 in every byte whose nibble is >= 10 */
	big = ((x + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull;
	x += 0x3030303030303030ull + big * ('a' - '0' - 10);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(x);
#else
	return x;
#endif
}

/* Exactly 16 hex digits of @v (like %016lx). */
static inline char *put_hex16(char *p, uint64_t v)
{
	uint64_t hi = hex8_word(v >> 32), lo = hex8_word(v);

	memcpy(p, &hi, 8);
	memcpy(p + 8, &lo, 8);
	return p + 16;
}

/*
 * put_hex16() for values that mostly share their upper 32 bits with the
 * previous one (packet offsets): the upper 8 digits are kept.
 */
struct hex16_cache {
	uint64_t hi;		/* v >> 32 of the cached digits, ~0: none */
	uint64_t word;		/* hex8_word(hi) */
};

static inline char *put_hex16_cached(char *p, uint64_t v,
				     struct hex16_cache *c)
{
	uint64_t lo = hex8_word(v);

	if (c->hi != v >> 32) {
		c->hi = v >> 32;
		c->word = hex8_word(v >> 32);
	}
	memcpy(p, &c->word, 8);
	memcpy(p + 8, &lo, 8);
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

/*
 * put_mem() for a short string of varying length (a symbol name): 4 to 32
 * bytes as two overlapping fixed-size copies, no call; reads only @s[0, n).
 */
static inline char *put_str_short(char *p, const char *s, size_t n)
{
	if (n >= 16 && n <= 32) {
		memcpy(p, s, 16);
		memcpy(p + n - 16, s + n - 16, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else {
		memcpy(p, s, n);
	}
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
