// SPDX-License-Identifier: GPL-2.0
/*
 * pt_victim: the set-user-ID program of the /dev/pt privilege-boundary
 * cases (tests/vm/cases/64-pt-suid.sh, issue 13 point 1). It reads a secret
 * from a file only root can read (argv[1]) and makes one indirect call per
 * bit of it, from a thread it creates: a PT trace of it would show the
 * secret as the TIP targets (one of two functions per bit). Linked at
 * 0x30000000 (tests/vm/build.mk) so that its text is told apart from the
 * attacker's in a decoded trace. With a second argument it lingers 1.5 s
 * before it exits. Exit status: 0 it read the secret, 2 not.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static unsigned char secret[16];
static ssize_t secret_len;
static volatile unsigned int sink;

static __attribute__((noinline)) void bit0(void)
{
	sink += 1;
}

static __attribute__((noinline)) void bit1(void)
{
	sink += 2;
}

static void (*volatile const bit_fn[2])(void) = { bit0, bit1 };

/* One indirect call per bit of the secret: TIP to bit0 or bit1. */
static void *leak(void *arg)
{
	ssize_t i;
	int b;

	(void)arg;
	for (i = 0; i < secret_len; i++)
		for (b = 0; b < 8; b++)
			bit_fn[(secret[i] >> b) & 1]();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	int fd;

	if (argc < 2)
		return 2;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 2;
	secret_len = read(fd, secret, sizeof(secret));
	close(fd);
	if (secret_len <= 0)
		return 2;
	leak(NULL);
	if (pthread_create(&t, NULL, leak, NULL) || pthread_join(t, NULL))
		return 3;
	/* "linger": stay alive a while, a target for a late CONFIGURE. */
	if (argc > 2)
		usleep(1500000);
	return 0;
}
