// SPDX-License-Identifier: GPL-2.0
/*
 * pt_mixcred: a root process whose threads hold different credentials
 * (tests/vm/cases/64-pt-suid.sh (i), issue 39 point 2). Credentials are per
 * thread: glibc's setresuid() changes every thread (it broadcasts), the
 * system call only the caller's. Started as root:
 *
 *   thread A drops to uid and gid 1000 with the raw system calls
 *   (syscall(SYS_setresgid), syscall(SYS_setresuid)); the main thread B
 *   stays root and then makes the process dumpable again (the credential
 *   change cleared it, commit_creds()), as a daemon that wants core dumps
 *   does. B runs secret-dependent code: per bit of a secret, a conditional
 *   branch and an indirect call to one of two functions; all of it is in
 *   the section secret_text, whose bounds the program prints.
 *
 * It prints "ready a=TID b=TID secret=LO-HI public=LO-HI" (hex bounds,
 * 16 digits) and then obeys lines on stdin, which thread A reads:
 *   r  B runs one secret round, A one public round; then "round N"
 *   t  B creates thread C (root), which runs a secret round; A creates
 *      thread A2 (uid 1000: a new thread has its creator's credentials),
 *      which runs public rounds and ends; then "spawned c=TID a2=TID"
 *   q  (or end of input) every thread ends; exit status 0
 * Every step is answered only once it is done: the caller waits for the
 * line, never for a time.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define USER_ID		1000
#define SECRET		__attribute__((noinline, used, section("secret_text")))
#define PUBLIC		__attribute__((noinline, used, section("public_text")))

extern const char __start_secret_text[], __stop_secret_text[];
extern const char __start_public_text[], __stop_public_text[];

static const unsigned char secret[] = "S3cr3t!";
static volatile unsigned int sink;

SECRET static void secret_bit0(void)
{
	sink += 1;
}

SECRET static void secret_bit1(void)
{
	sink += 2;
}

static void (*volatile const bit_fn[2])(void) = { secret_bit0, secret_bit1 };

/* One conditional branch and one indirect call per bit of the secret. */
SECRET static void secret_round(void)
{
	unsigned int i, b, bit;

	for (i = 0; i < sizeof(secret) - 1; i++)
		for (b = 0; b < 8; b++) {
			bit = (secret[i] >> b) & 1;
			if (bit)
				sink ^= i;
			bit_fn[bit]();
		}
}

PUBLIC static void public_step(void)
{
	sink += 3;
}

static void (*volatile const public_fn)(void) = public_step;

/* The public code (A's and A2's), in public_text. */
PUBLIC static void public_round(void)
{
	int i;

	for (i = 0; i < 32; i++)
		public_fn();
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int dropped, quit, spawn, c_done;
static unsigned int req_round, done_round;
static pid_t tid_c, tid_a2;

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* C: created by B, root like B; one secret round, then waits for q. */
static void *thread_c(void *arg)
{
	(void)arg;
	secret_round();
	pthread_mutex_lock(&mu);
	tid_c = gettid_();
	c_done = 1;
	pthread_cond_broadcast(&cv);
	while (!quit)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* A2: created by A, uid 1000. */
static void *thread_a2(void *arg)
{
	int i;

	(void)arg;
	tid_a2 = gettid_();
	for (i = 0; i < 4; i++)
		public_round();
	return NULL;
}

/* A: drops with the raw system calls, then serves stdin. */
static void *thread_a(void *arg)
{
	pthread_t a2;
	char line[16];

	(void)arg;
	if (syscall(SYS_setresgid, USER_ID, USER_ID, USER_ID) ||
	    syscall(SYS_setresuid, USER_ID, USER_ID, USER_ID)) {
		perror("setresuid");
		_exit(100);
	}
	pthread_mutex_lock(&mu);
	dropped = gettid_();
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	while (fgets(line, sizeof(line), stdin) && line[0] != 'q') {
		if (line[0] == 'r') {
			pthread_mutex_lock(&mu);
			req_round++;
			pthread_cond_broadcast(&cv);
			while (done_round != req_round)
				pthread_cond_wait(&cv, &mu);
			pthread_mutex_unlock(&mu);
			public_round();
			printf("round %u\n", req_round);
		} else if (line[0] == 't') {
			pthread_mutex_lock(&mu);
			spawn = 1;
			pthread_cond_broadcast(&cv);
			while (!c_done)
				pthread_cond_wait(&cv, &mu);
			pthread_mutex_unlock(&mu);
			if (pthread_create(&a2, NULL, thread_a2, NULL) || pthread_join(a2, NULL))
				_exit(101);
			printf("spawned c=%d a2=%d\n", (int)tid_c, (int)tid_a2);
		}
	}
	pthread_mutex_lock(&mu);
	quit = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(void)
{
	pthread_t a, c;
	int have_c = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getuid() || geteuid()) {
		fprintf(stderr, "pt_mixcred: run as root\n");
		return 2;
	}
	if (pthread_create(&a, NULL, thread_a, NULL))
		return 3;
	pthread_mutex_lock(&mu);
	while (!dropped)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	/*
	 * A's credential change made the process non-dumpable: undo it. B
	 * is still root: the raw call changed A only.
	 */
	if (prctl(PR_SET_DUMPABLE, 1) || getuid() || prctl(PR_GET_DUMPABLE) != 1) {
		fprintf(stderr, "pt_mixcred: B uid %d, dumpable %d\n", (int)getuid(),
			prctl(PR_GET_DUMPABLE));
		return 4;
	}
	secret_round();
	printf("ready a=%d b=%d secret=%016lx-%016lx public=%016lx-%016lx\n", dropped,
	       gettid_(), (unsigned long)(uintptr_t)__start_secret_text,
	       (unsigned long)(uintptr_t)__stop_secret_text,
	       (unsigned long)(uintptr_t)__start_public_text,
	       (unsigned long)(uintptr_t)__stop_public_text);
	pthread_mutex_lock(&mu);
	while (!quit) {
		if (done_round != req_round) {
			pthread_mutex_unlock(&mu);
			secret_round();
			pthread_mutex_lock(&mu);
			done_round = req_round;
			pthread_cond_broadcast(&cv);
			continue;
		}
		if (spawn && !have_c) {
			pthread_mutex_unlock(&mu);
			if (pthread_create(&c, NULL, thread_c, NULL))
				_exit(102);
			have_c = 1;
			pthread_mutex_lock(&mu);
			continue;
		}
		pthread_cond_wait(&cv, &mu);
	}
	pthread_mutex_unlock(&mu);
	pthread_join(a, NULL);
	if (have_c)
		pthread_join(c, NULL);
	return 0;
}
