// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap_pattern FILE: check that FILE (a trace file ptcap saved) holds a
 * contiguous run of lwpt_sim's pt_inject pattern, byte i of a CPU's stream
 * being (i mod 251) + 1 (kmod/sim/pt_sim.c). Prints "len=N first=K" with K
 * the index mod 251 of the first byte; exit 0 if contiguous (or empty),
 * 1 with the offset of the first break otherwise, 2 on an I/O error.
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	unsigned long long off = 0;
	int c, first = -1, want = 0;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: ptcap_pattern FILE\n");
		return 2;
	}
	while ((c = getc(f)) != EOF) {
		if (c < 1 || c > 251) {
			printf("break at 0x%llx: byte 0x%02x not a pattern byte\n", off, c);
			return 1;
		}
		if (first < 0) {
			first = c - 1;
			want = c;
		}
		if (c != want) {
			printf("break at 0x%llx: 0x%02x, expected 0x%02x\n", off, c, want);
			return 1;
		}
		want = want % 251 + 1;
		off++;
	}
	if (ferror(f))
		return 2;
	printf("len=%llu first=%d\n", off, first < 0 ? 0 : first);
	return 0;
}
