// SPDX-License-Identifier: GPL-2.0
/* The second source file of the gcov oracle's program (cov_prog.c). */
int classify(int c);
int fold(const int *v, int n, int (*op)(int, int));

int classify(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return 10 + (c - 'a');
	return -1;
}

int fold(const int *v, int n, int (*op)(int, int))
{
	int acc;

	if (n == 0)
		return 0;
	acc = v[0];
	for (int i = 1; i < n; i++) {
		if (v[i] < 0)
			continue;
		acc = op(acc, v[i]);
	}
	return acc;
}
