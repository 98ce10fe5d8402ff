// SPDX-License-Identifier: GPL-2.0
/*
 * liblwp_stress: the workload of the hang in issue 28 §0, through liblwp's
 * public API on the hardware backend (lwpt_sim.ko in the VM).
 *
 * A worker pinned to CPU 0 opens and starts a session (LWPVAL with
 * EventInterval1 0, a ring of 256 records, Threshold 32 records, INT) and
 * stores N LWPVAL records (default 20000) in batches of 8 with
 * sched_yield() between batches, while a busy thread on CPU 0 forces
 * context switches; the main thread drains the ring on lwp_wait(). The
 * ring may overflow (MissedEvents): the program checks only that the API
 * calls succeed and that some records and interrupts arrive, and prints
 * the counts. Exit 0 on success, 1 on an API failure.
 *
 * Usage: liblwp_stress [N]
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <lwpt/lwp.h>

static struct lwp_session *sess;
static atomic_int stage;	/* 1: session started, 2: stores done, 3: drained */
static atomic_int busy_stop;
static int worker_err;
static unsigned long n_records = 20000;

static void pin0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *busy(void *arg)
{
	(void)arg;
	pin0();
	while (!atomic_load(&busy_stop))
		;
	return NULL;
}

static void *worker(void *arg)
{
	struct lwp_config cfg = LWP_CONFIG_INIT;
	unsigned long i;
	int ret;

	(void)arg;
	pin0();
	cfg.backend = LWP_BACKEND_HW;
	cfg.flags |= LWP_FLAG_INT;
	cfg.interval[LWP_EVENT_VAL] = 0;
	cfg.buffer_records = 256;
	cfg.threshold_records = 32;
	ret = lwp_open(&sess, &cfg);
	if (!ret)
		ret = lwp_start(sess);
	if (ret) {
		worker_err = ret;
		atomic_store(&stage, 3);
		return NULL;
	}
	atomic_store(&stage, 1);
	for (i = 0; i < n_records; i++) {
		lwp_val32(i, (uint32_t)i, 0);
		if (i % 8 == 7)
			sched_yield();
	}
	worker_err = lwp_stop(sess);
	atomic_store(&stage, 2);
	while (atomic_load(&stage) != 3)
		sched_yield();
	lwp_close(sess);
	return NULL;
}

int main(int argc, char **argv)
{
	struct lwp_event ev[256];
	unsigned long got = 0, wakes = 0;
	pthread_t tw, tb;
	ssize_t n;
	int ret, err = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1)
		n_records = strtoul(argv[1], NULL, 0);
	pthread_create(&tb, NULL, busy, NULL);
	pthread_create(&tw, NULL, worker, NULL);
	while (atomic_load(&stage) == 0)
		sched_yield();
	while (atomic_load(&stage) == 1) {
		ret = lwp_wait(sess, 1000);
		if (ret < 0 && ret != -EINTR) {
			printf("liblwp_stress: lwp_wait: %d\n", ret);
			err = 1;
			break;
		}
		wakes += ret == 1;
		while ((n = lwp_read(sess, ev, 256)) > 0)
			got += (unsigned long)n;
	}
	if (atomic_load(&stage) == 2)
		while ((n = lwp_read(sess, ev, 256)) > 0)
			got += (unsigned long)n;
	atomic_store(&stage, 3);
	pthread_join(tw, NULL);
	atomic_store(&busy_stop, 1);
	pthread_join(tb, NULL);
	if (worker_err) {
		printf("liblwp_stress: worker: %d\n", worker_err);
		err = 1;
	}
	if (!err && (!got || !wakes)) {
		printf("liblwp_stress: %lu records, %lu wake-ups: none\n", got, wakes);
		err = 1;
	}
	printf("liblwp_stress: %lu LWPVAL, %lu records read, %lu wake-ups: %s\n",
	       n_records, got, wakes, err ? "FAIL" : "ok");
	return err;
}
