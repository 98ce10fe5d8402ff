/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptflow --export=chrome: the call trace as Chrome Trace Event Format JSON
 * ("JSON Object Format" with a traceEvents array of complete events,
 * "ph": "X", ts and dur in microseconds), which Perfetto's UI,
 * chrome://tracing and speedscope open. One track per thread.
 * Documentation/ptflow.rst, "Timeline export".
 */
#ifndef LWPT_TOOLS_PTFLOW_CHROME_H
#define LWPT_TOOLS_PTFLOW_CHROME_H

#include <stdint.h>
#include <stdio.h>

struct ptflow_chrome;

/**
 * ptflow_chrome_alloc() - an empty timeline.
 *
 * Return: the timeline, or NULL when out of memory.
 */
struct ptflow_chrome *ptflow_chrome_alloc(void);

/**
 * ptflow_chrome_free() - release a timeline; NULL is ignored.
 * @c: the timeline.
 */
void ptflow_chrome_free(struct ptflow_chrome *c);

/**
 * ptflow_chrome_thread() - name a track.
 * @c:    the timeline.
 * @pid:  process id of the track.
 * @tid:  thread id of the track.
 * @name: its label ("tid 123", "cpu 0"), copied.
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_chrome_thread(struct ptflow_chrome *c, uint32_t pid, uint32_t tid,
			 const char *name);

/**
 * ptflow_chrome_add() - one finished function activation.
 * @c:     the timeline.
 * @pid:   its process id.
 * @tid:   its thread id.
 * @name:  the function, copied.
 * @depth: call depth (0: the outermost function of the trace).
 * @begin: time of its call in ns from the start of the capture.
 * @end:   time of its return in ns; @end >= @begin.
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_chrome_add(struct ptflow_chrome *c, uint32_t pid, uint32_t tid,
		      const char *name, uint32_t depth, uint64_t begin,
		      uint64_t end);

/**
 * ptflow_chrome_write() - write the JSON document.
 * @c:   the timeline.
 * @out: the stream.
 *
 * Events are written per thread in order of their begin time, a caller
 * before its callees, so that viewers which nest by order (speedscope)
 * nest them as the call trace does.
 *
 * Return: 0, or -1 on a write error (errno set).
 */
int ptflow_chrome_write(struct ptflow_chrome *c, FILE *out);

#endif /* LWPT_TOOLS_PTFLOW_CHROME_H */
