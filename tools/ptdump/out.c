// SPDX-License-Identifier: GPL-2.0
/* ptdump: buffered text output without printf. */
#include "tools/ptdump/out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEXC(d)	((char)((d) < 10 ? '0' + (d) : 'a' - 10 + (d)))
#define P(n)	{ HEXC((n) >> 4), HEXC((n) & 15) }
#define P4(n)	P(n), P((n) + 1), P((n) + 2), P((n) + 3)
#define P16(n)	P4(n), P4((n) + 4), P4((n) + 8), P4((n) + 12)
#define P64(n)	P16(n), P16((n) + 16), P16((n) + 32), P16((n) + 48)

const char out_hexpairs[256][2] = { P64(0), P64(64), P64(128), P64(192) };

int out_init(struct out *o, int fd, size_t cap)
{
	if (cap < OUT_LINE_MAX)
		cap = OUT_LINE_MAX;
	o->buf = malloc(cap);
	if (!o->buf)
		return -ENOMEM;
	o->len = 0;
	o->cap = cap;
	o->fd = fd;
	o->error = 0;
	return 0;
}

int out_init_mem(struct out *o, size_t cap)
{
	return out_init(o, -1, cap);
}

/* A memory buffer: twice as large, what it holds kept. */
static int out_grow(struct out *o)
{
	char *n = o->error ? NULL : realloc(o->buf, 2 * o->cap);

	if (!n) {
		/* as a failed write: keep going, discarding */
		if (!o->error)
			o->error = ENOMEM;
		o->len = 0;
		return -o->error;
	}
	o->buf = n;
	o->cap *= 2;
	return 0;
}

int out_write(struct out *o, const char *p, size_t n)
{
	int err = o->fd < 0 ? 0 : out_flush(o);
	size_t done = 0;

	if (o->fd < 0) {
		while (!o->error && o->cap - o->len < n)
			out_grow(o);
		if (o->error)
			return -o->error;
		memcpy(o->buf + o->len, p, n);
		o->len += n;
		return 0;
	}
	while (!err && done < n) {
		ssize_t w = write(o->fd, p + done, n - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			o->error = errno;
			return -o->error;
		}
		done += (size_t)w;
	}
	return err;
}

int out_flush(struct out *o)
{
	size_t done = 0;

	if (o->fd < 0)
		return out_grow(o);

	while (done < o->len) {
		ssize_t n;

		if (o->error)
			break;
		n = write(o->fd, o->buf + done, o->len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Keep going (and discarding) so we never loop. */
			o->error = errno;
			break;
		}
		done += (size_t)n;
	}
	o->len = 0;
	return o->error ? -o->error : 0;
}

int out_fini(struct out *o)
{
	int err = o->fd < 0 ? -o->error : out_flush(o);

	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
	return err;
}
