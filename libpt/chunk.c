// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Chunks of one trace cut at PSBs (SDM 33.4.2.17) and the ordered thread
 * pool that decodes them (include/lwpt/pt_chunk.h, issue 34 point 3,
 * Documentation/libpt-chunk.rst).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lwpt/pt_chunk.h"
#include "pkt_internal.h"

size_t lpt_chunk_next(const uint8_t *buf, size_t len, size_t start,
		      size_t target)
{
	const uint8_t *end, *first, *q;
	size_t from;

	if (!buf || start >= len)
		return len;
	end = buf + len;
	if (!target)
		target = 1;
	/* the chunk's own sync point: @start itself unless chunk 0 */
	first = lpt_psb_find_forward(buf, end, buf + start);
	if (!first)
		return len;
	from = target > len - start ? len : start + target;
	if (from <= (size_t)(first - buf))
		from = (size_t)(first - buf) + 1;
	if (from >= len)
		return len;
	q = lpt_psb_find_forward(buf, end, buf + from);
	return q ? (size_t)(q - buf) : len;
}

size_t lpt_chunk_psb_end(const uint8_t *buf, size_t len, size_t psb)
{
	size_t off = psb;
	struct lpt_packet pkt;

	if (!buf || psb >= len)
		return psb;
	for (int i = 0; i < 64; i++) {
		int n = lpt_pkt_decode(buf + off, len - off, NULL, &pkt, 0);

		if (n <= 0 || (i == 0 && pkt.type != LPT_PKT_PSB))
			return psb;
		off += (size_t)n;
		if (pkt.type == LPT_PKT_PSBEND)
			return off;
	}
	return psb;
}

unsigned int lpt_par_jobs(unsigned int nthreads)
{
	long n;

	if (nthreads)
		return nthreads;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > 4096 ? 4096u : (unsigned int)n;
}

enum { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

struct par {
	const struct lpt_par_ops *ops;
	void *ctx;
	size_t job_size, window;
	unsigned char *jobs;	/* window slots of job_size bytes */
	unsigned char *state;	/* SLOT_* per slot */
	uint64_t next_work;	/* lowest job not yet taken by a worker */
	uint64_t made;		/* jobs made so far */
	bool quit;
	pthread_mutex_t lock;
	pthread_cond_t work_cv;	/* workers: a job queued or quit */
	pthread_cond_t done_cv;	/* caller: a job done */
};

struct worker {
	struct par *p;
	unsigned int id;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct par *p = w->p;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		size_t s;

		/* jobs are taken in order: the oldest first */
		while (!p->quit && p->next_work == p->made)
			pthread_cond_wait(&p->work_cv, &p->lock);
		if (p->next_work == p->made)
			break;		/* quit and nothing left */
		s = (size_t)(p->next_work++ % p->window);
		p->state[s] = SLOT_RUNNING;
		pthread_mutex_unlock(&p->lock);
		p->ops->work(p->ctx, w->id, p->jobs + s * p->job_size);
		pthread_mutex_lock(&p->lock);
		p->state[s] = SLOT_DONE;
		pthread_cond_broadcast(&p->done_cv);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Every job on the calling thread, in order. */
static int run_inline(const struct lpt_par_ops *ops, void *ctx, size_t job_size)
{
	void *job = malloc(job_size);
	int ret = 0, r;

	if (!job)
		return -ENOMEM;
	for (;;) {
		memset(job, 0, job_size);
		r = ops->next(ctx, job);
		if (r <= 0) {
			ret = r;
			break;
		}
		ops->work(ctx, 0, job);
		r = ops->emit(ctx, job);
		if (r < 0) {
			ret = r;
			break;
		}
	}
	free(job);
	return ret;
}

int lpt_par_run(const struct lpt_par_ops *ops, void *ctx,
		unsigned int nthreads, size_t job_size, size_t window)
{
	struct par p = { .ops = ops, .ctx = ctx, .job_size = job_size };
	struct worker *w = NULL;
	pthread_t *tid = NULL;
	unsigned int started = 0;
	uint64_t emitted = 0;
	bool producing = true;
	int ret = 0;

	if (!ops || !ops->next || !ops->work || !ops->emit || !job_size)
		return -EINVAL;
	nthreads = lpt_par_jobs(nthreads);
	if (nthreads == 1)
		return run_inline(ops, ctx, job_size);
	p.window = window ? window : 2 * (size_t)nthreads;
	p.jobs = calloc(p.window, job_size);
	p.state = calloc(p.window, 1);
	tid = calloc(nthreads, sizeof(*tid));
	w = calloc(nthreads, sizeof(*w));
	if (!p.jobs || !p.state || !tid || !w) {
		ret = -ENOMEM;
		goto out;
	}
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.work_cv, NULL);
	pthread_cond_init(&p.done_cv, NULL);
	for (; started < nthreads; started++) {
		w[started] = (struct worker){ .p = &p, .id = started };
		if (pthread_create(&tid[started], NULL, worker_main, &w[started]))
			break;
	}
	if (!started) {
		ret = -EAGAIN;
		goto destroy;
	}

	pthread_mutex_lock(&p.lock);
	while (producing || emitted < p.made) {
		size_t s;

		/* fill the window: next() runs unlocked, only the caller
		 * touches a SLOT_FREE slot */
		while (producing && p.made - emitted < p.window) {
			unsigned char *job;
			int r;

			s = (size_t)(p.made % p.window);
			job = p.jobs + s * job_size;
			pthread_mutex_unlock(&p.lock);
			memset(job, 0, job_size);
			r = ops->next(ctx, job);
			pthread_mutex_lock(&p.lock);
			if (r <= 0) {
				if (r < 0 && !ret)
					ret = r;
				producing = false;
				break;
			}
			p.state[s] = SLOT_QUEUED;
			p.made++;
			pthread_cond_signal(&p.work_cv);
		}
		if (emitted == p.made)
			continue;	/* nothing in flight: produce or end */
		s = (size_t)(emitted % p.window);
		while (p.state[s] != SLOT_DONE)
			pthread_cond_wait(&p.done_cv, &p.lock);
		pthread_mutex_unlock(&p.lock);
		{
			int r = ops->emit(ctx, p.jobs + s * job_size);

			if (r < 0 && !ret) {
				ret = r;
				producing = false;
			}
		}
		pthread_mutex_lock(&p.lock);
		p.state[s] = SLOT_FREE;
		emitted++;
	}
	p.quit = true;
	pthread_cond_broadcast(&p.work_cv);
	pthread_mutex_unlock(&p.lock);
destroy:
	for (unsigned int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_cond_destroy(&p.done_cv);
	pthread_cond_destroy(&p.work_cv);
	pthread_mutex_destroy(&p.lock);
out:
	free(w);
	free(tid);
	free(p.state);
	free(p.jobs);
	return ret;
}
