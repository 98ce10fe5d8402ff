/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The end of every Check suite's main(): run the suite, let Check print
 * its report, and turn the failures into the exit status that make
 * check-unit reads.
 */
#ifndef LWPT_TESTS_CHECK_RUN_H
#define LWPT_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

/**
 * lwpt_check_run() - run a Check suite.
 * @s:    the suite (freed with its runner).
 * @mode: Check's report level (CK_NORMAL; CK_ENV reads CK_VERBOSITY).
 *
 * Return: EXIT_SUCCESS when every test passed, else EXIT_FAILURE.
 */
static inline int lwpt_check_run(Suite *s, enum print_output mode)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, mode);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* LWPT_TESTS_CHECK_RUN_H */
