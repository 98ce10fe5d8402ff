// SPDX-License-Identifier: GPL-2.0
/*
 * ptafl_magic: the fuzz target of ptafl's tests (issue 26, "Tests"): it
 * crashes (SIGSEGV) only when its input starts with the 4-byte magic
 * "LWPT", compared byte by byte (one conditional branch per byte, so each
 * right byte is a new edge a coverage-guided fuzzer can climb), and hangs
 * when the input starts with "LWPH" and the environment has
 * PTAFL_MAGIC_HANG=1 (time-out tests; a fuzzer without it finds no hang). Input: the file
 * named by argv[1], else standard input. No C library (-nostdlib,
 * -static): a few hundred instructions per run, so that single-stepping
 * (ptafl --trace-source=ptrace) and the PT model stay quick.
 */
#include <stddef.h>

static long sys3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

#define SYS_read	0
#define SYS_open	2
#define SYS_exit_group	231

/* Byte by byte, never merged into one 32-bit compare (volatile reads). */
static int check(const volatile unsigned char *b, long n)
{
	if (n < 4)
		return 0;
	if (b[0] != 'L')
		return 0;
	if (b[1] != 'W')
		return 0;
	if (b[2] != 'P')
		return 0;
	if (b[3] == 'T')
		return 1;
	if (b[3] == 'H')
		return 2;
	return 0;
}

/* Whether the environment holds PTAFL_MAGIC_HANG=1. */
static int hang_wanted(char **envp)
{
	static const char want[] = "PTAFL_MAGIC_HANG=1";
	unsigned int i;

	for (; *envp; envp++) {
		for (i = 0; want[i] && (*envp)[i] == want[i]; i++)
			;
		if (!want[i] && !(*envp)[i])
			return 1;
	}
	return 0;
}

__attribute__((used)) void ptafl_magic_main(long *sp)
{
	static unsigned char buf[64];
	long argc = sp[0];
	char **argv = (char **)(sp + 1);
	long fd = 0, n;
	int r;

	if (argc > 1) {
		fd = sys3(SYS_open, (long)argv[1], 0, 0);
		if (fd < 0)
			sys3(SYS_exit_group, 2, 0, 0);
	}
	n = sys3(SYS_read, fd, (long)buf, sizeof(buf));
	r = check(buf, n);
	if (r == 1)
		/* cppcheck-suppress nullPointer ; the crash is the point */
		*(volatile int *)NULL = 0;
	while (r == 2 && hang_wanted(argv + argc + 1))
		__asm__ volatile("" ::: "memory");	/* the hang */
	sys3(SYS_exit_group, 0, 0, 0);
}

__asm__(".globl _start\n"
	"_start:\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call ptafl_magic_main\n"
	"	hlt\n");
