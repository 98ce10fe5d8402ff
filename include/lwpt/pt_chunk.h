/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Cutting one Intel PT trace at PSBs into chunks that decode independently,
 * and an ordered thread pool that decodes them on every core (issue 34
 * point 3). Documentation/libpt-chunk.rst gives the rules; in short:
 *
 * - Chunk 0 starts at offset 0 (the bytes before the first PSB are skipped
 *   by every decoder, whole or chunked); every other chunk starts at a PSB
 *   (SDM 33.4.2.17) and ends where the next chunk's PSB starts. The packets
 *   before that PSB belong to chunk k.
 * - A decoder of chunk k starts synchronised at its PSB and takes its state
 *   from the PSB+ (SDM 33.3.7: FUP IP, MODE.Exec, TSC, PIP, VMCS, ...), as
 *   a decoder resynchronising at that PSB would. Nothing else crosses a
 *   boundary: what a whole decoder carries over a PSB (the walk's IP, an
 *   OVF not yet followed by a FUP, tracing disabled by a TIP.PGD) is either
 *   given again by the PSB+ or is nothing a consumer counts; the tools that
 *   cut (ptcov, ptdump) document and test what this means for them.
 */
#ifndef LWPT_PT_CHUNK_H
#define LWPT_PT_CHUNK_H

#include <stddef.h>
#include <stdint.h>

/**
 * lpt_chunk_next() - the end of the chunk that starts at @start.
 * @buf:    the whole trace (raw Intel PT packets, SDM 33.4).
 * @len:    bytes at @buf.
 * @start:  offset of the chunk: 0 or a value lpt_chunk_next() returned.
 * @target: wanted chunk size in bytes; 0 is taken as 1 (every PSB starts a
 *          chunk).
 *
 * The chunk ends at the first PSB at an offset >= @start + @target that
 * also lies after the chunk's own first PSB (so that every chunk but a
 * trace without any PSB holds one sync point), or at @len. A PSB is the
 * last 16 bytes of a run of "02 82" pairs, as lpt_pkt_sync_forward() and
 * libipt find it: a cut never lands inside a PSB nor before the pattern
 * bytes a payload happens to end with.
 *
 * Return: the offset where the next chunk starts (a PSB), or @len when the
 * chunk is the last one; @len as well when @start >= @len or @buf is NULL.
 * Calling it again with that value until it returns @len walks the chunks
 * in O(1) memory.
 */
size_t lpt_chunk_next(const uint8_t *buf, size_t len, size_t start,
		      size_t target);

/**
 * lpt_chunk_psb_end() - the end of the PSB+ that starts at @psb.
 * @buf: the whole trace; @len bytes.
 * @psb: offset of a PSB (lpt_chunk_next()'s return value).
 *
 * A decoder of the chunk before @psb that must see the next chunk's state
 * (the coverage decoder's LPT_COV_F_CHUNK) is given the bytes up to here.
 *
 * Return: the offset just past the PSBEND that closes the PSB+ (SDM
 * 33.3.7: a PSB+ holds at most a few dozen packets, none of which is a
 * TNT or TIP), or @psb when there is no PSB at @psb or no PSBEND follows
 * it within 64 packets (a cut or corrupt PSB+).
 */
size_t lpt_chunk_psb_end(const uint8_t *buf, size_t len, size_t psb);

/* Chunk size lpt_chunk_next() is given by the tools by default: large
 * enough that the per-chunk start-up cost (a cold cache) is small, small
 * enough that N cores each get several chunks of a 100 MiB trace. */
#define LPT_CHUNK_DEFAULT	(4u << 20)

/* One job of lpt_par_run(): the caller's, @size bytes of it. */
struct lpt_par_ops {
	/*
	 * next(): called on the calling thread, in order: fill @job (zeroed)
	 * with the next piece of work. Return 1 if it did, 0 at the end,
	 * negative to stop with that error.
	 */
	int (*next)(void *ctx, void *job);
	/*
	 * work(): called on a worker thread (@worker in [0, nthreads)), jobs
	 * in any order and concurrently; two calls never share a @worker
	 * value at once, so per-worker state indexed by it needs no lock.
	 */
	void (*work)(void *ctx, unsigned int worker, void *job);
	/*
	 * emit(): called on the calling thread, in next()'s order, each job
	 * once after its work() ended. Free what the job holds here. Return
	 * 0, or negative to stop (lpt_par_run() returns it).
	 */
	int (*emit)(void *ctx, void *job);
};

/**
 * lpt_par_run() - run jobs on a pool of threads, results in order.
 * @ops:      the callbacks above.
 * @ctx:      passed to them.
 * @nthreads: worker threads; 0 means the online CPUs
 *            (sysconf(_SC_NPROCESSORS_ONLN)); 1 runs every job on the
 *            calling thread (next, work, emit, next, ...), with no thread.
 * @job_size: bytes of one job (the caller's struct).
 * @window:   jobs in flight at most (made, not yet emitted); 0 means
 *            2 * @nthreads. Memory is bounded by @window jobs and what
 *            they hold: job k's emit() waits only for jobs before k, and
 *            job k + @window is not made before job k was emitted.
 *
 * Return: 0; the first negative value next() or emit() returned (jobs
 * already made are still worked and emitted in order, so that they can be
 * freed, and emit()'s value is then ignored);
 * -ENOMEM or -EAGAIN (no memory, no thread; none was run); -EINVAL for a
 * NULL @ops or callback or a zero @job_size.
 */
int lpt_par_run(const struct lpt_par_ops *ops, void *ctx,
		unsigned int nthreads, size_t job_size, size_t window);

/**
 * lpt_par_jobs() - the number of threads @nthreads means: itself when
 * non-zero, else the online CPUs (at least 1).
 * @nthreads: as given to lpt_par_run() (-j N).
 *
 * Return: the thread count, >= 1.
 */
unsigned int lpt_par_jobs(unsigned int nthreads);

#endif /* LWPT_PT_CHUNK_H */
