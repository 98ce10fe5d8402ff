/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libpt capture internals, exposed for unit tests (tests/libpt).
 */
#ifndef LWPT_LIBPT_CAPTURE_INTERNAL_H
#define LWPT_LIBPT_CAPTURE_INTERNAL_H

#include <lwpt/pt.h>

/**
 * lpt_ring_copy() - deliver bytes [@tail, @head) of a ring buffer, oldest
 * first: byte n of the stream is at @map[n % @size]; only the newest @size
 * bytes exist, so the copy starts at max(@tail, @head - @size). A @head
 * below @tail (a new start) reads from 0.
 * @map:	the buffer, @size bytes
 * @size:	bytes of the buffer (> 0)
 * @tail:	bytes already delivered since start
 * @head:	bytes written since start
 * @sink, @arg:	as lpt_dev_read()
 * Return: bytes delivered, or the first negative value of @sink; -EINVAL
 * for @size 0.
 */
int64_t lpt_ring_copy(const uint8_t *map, uint64_t size, uint64_t tail, uint64_t head,
		      lpt_sink_fn sink, void *arg);

/**
 * lpt_range_copy() - deliver a single-range buffer (SDM 33.2.7.1) oldest
 * first when the number of bytes written is not known: bytes [@offset,
 * @size) then [0, @offset), without the zero bytes at the start of that
 * stream (never written if the range did not wrap, else PAD packets).
 * @map:	the buffer, @size bytes
 * @size:	bytes of the buffer (> 0)
 * @offset:	OutputOffset, the next byte the processor writes (< @size)
 * @sink, @arg:	as lpt_dev_read()
 * Return: bytes delivered, or the first negative value of @sink; -EINVAL
 * for @size 0 or @offset not below @size.
 */
int64_t lpt_range_copy(const uint8_t *map, uint64_t size, uint64_t offset,
		       lpt_sink_fn sink, void *arg);

#endif
