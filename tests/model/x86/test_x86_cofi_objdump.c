// SPDX-License-Identifier: GPL-2.0
/*
 * Differential test of the x86 COFI classifier against GNU objdump on whole
 * binaries: every instruction objdump disassembles in the executable
 * sections of a few large x86-64 files (static glibc with its AVX2/AVX-512
 * string functions, libc.so.6, libcrypto) must have objdump's length, and
 * its COFI class (SDM Table 33-1) must match objdump's mnemonic.
 *
 * Binaries that are not installed are skipped; $LWPT_OBJDUMP_BINS (a
 * colon-separated list) replaces the default list.
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/x86/x86_cofi.h"
#include "tests/check_run.h"

static const char *const default_bins[] = {
	"build/tests/trace_flow_prog",
	"build/sanitize/tests/trace_flow_prog",
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	"/usr/bin/objdump",
};

static const char *const prefixes[] = {
	"bnd", "notrack", "rep", "repz", "repnz", "repe", "repne", "data16",
	"addr32", "lock", "cs", "ds", "es", "ss", "fs", "gs", "rex", "rex.W",
	"xacquire", "xrelease",
};

/* The class objdump's mnemonic @mn implies; -1 for "skip this line". */
static int kind_of(const char *mn, bool star)
{
	/* objdump's "(bad)" and lone REX prefixes: data, not instructions */
	if (!strcmp(mn, "(bad)") || !strncmp(mn, "rex", 3) || mn[0] == '.')
		return -1;
	if (!strcmp(mn, "jmp") || !strcmp(mn, "jmpq") || !strcmp(mn, "jmpw"))
		return star ? X86_COFI_JMP_IND : X86_COFI_JMP_REL;
	if (!strcmp(mn, "call") || !strcmp(mn, "callq") || !strcmp(mn, "callw"))
		return star ? X86_COFI_CALL_IND : X86_COFI_CALL_REL;
	if (!strncmp(mn, "ljmp", 4))
		return X86_COFI_JMP_FAR;
	if (!strncmp(mn, "lcall", 5))
		return X86_COFI_CALL_FAR;
	if (mn[0] == 'j' || !strncmp(mn, "loop", 4))
		return X86_COFI_JCC;
	if (!strcmp(mn, "ret") || !strcmp(mn, "retq") || !strcmp(mn, "retw"))
		return X86_COFI_RET;
	if (!strncmp(mn, "lret", 4))
		return X86_COFI_RET_FAR;
	if (!strncmp(mn, "iret", 4))
		return X86_COFI_IRET;
	if (!strcmp(mn, "int3"))
		return X86_COFI_INT3;
	if (!strcmp(mn, "int1") || !strcmp(mn, "icebp"))
		return X86_COFI_INT1;
	if (!strcmp(mn, "into"))
		return X86_COFI_INTO;
	if (!strcmp(mn, "int"))
		return X86_COFI_INT;
	if (!strcmp(mn, "syscall"))
		return X86_COFI_SYSCALL;
	if (!strncmp(mn, "sysret", 6))
		return X86_COFI_SYSRET;
	if (!strcmp(mn, "sysenter"))
		return X86_COFI_SYSENTER;
	if (!strncmp(mn, "sysexit", 7))
		return X86_COFI_SYSEXIT;
	if (!strcmp(mn, "vmlaunch") || !strcmp(mn, "vmresume"))
		return X86_COFI_VMENTRY;
	if (!strncmp(mn, "ud0", 3) || !strncmp(mn, "ud1", 3) || !strcmp(mn, "ud2"))
		return X86_COFI_UD;
	return X86_COFI_NONE;
}

struct totals {
	unsigned long insns, skipped, bad;
};

static bool is_prefix(const char *tok)
{
	unsigned int i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strcmp(tok, prefixes[i]))
			return true;
	return false;
}

/* Check one line of objdump -d -w: "addr:\tbytes \tmnemonic operands". */
static void check_line(char *line, struct totals *t, const char *bin)
{
	uint8_t bytes[32];
	char *p = line, *tab, *text, *hash, *tok, *save = NULL, *mn = NULL;
	unsigned int n = 0, v;
	struct x86_cofi c;
	bool star;
	int want, ret;

	while (*p == ' ')
		p++;
	if (!isxdigit((unsigned char)*p))
		return;
	strtoull(p, &p, 16);
	if (p[0] != ':' || p[1] != '\t')
		return;
	p += 2;
	tab = strchr(p, '\t');
	if (!tab)
		return;		/* bytes only */
	*tab = 0;
	while (n < sizeof(bytes) && sscanf(p, "%2x", &v) == 1) {
		bytes[n++] = (uint8_t)v;
		p += 2;
		while (*p == ' ')
			p++;
	}
	text = tab + 1;
	text[strcspn(text, "\n")] = 0;
	hash = strchr(text, '#');
	if (hash)
		*hash = 0;	/* objdump's comment */
	hash = strchr(text, '<');
	if (hash)
		*hash = 0;	/* symbol names may contain '*' */
	star = strchr(text, '*') != NULL;
	if (strstr(text, "(bad)")) {
		t->skipped++;
		return;
	}
	for (tok = strtok_r(text, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (!is_prefix(tok)) {
			mn = tok;
			break;
		}
	}
	want = mn ? kind_of(mn, star) : -1;
	/*
	 * Not comparable: objdump shows FWAIT (9B) merged with the x87
	 * instruction after it (FSTENV and friends), but it retires as an
	 * instruction of its own; and it decodes 66 + near JMP/CALL/Jcc rel
	 * with a 16-bit displacement (AMD), where Intel reads rel32.
	 */
	if (n > 1 && bytes[0] == 0x9b)
		want = -1;
	if (mn && n > 1 && bytes[0] == 0x66 && !star &&
	    (want == X86_COFI_JCC || want == X86_COFI_JMP_REL ||
	     want == X86_COFI_CALL_REL))
		want = -1;
	if (want < 0 || n > X86_MAX_INSN_LEN) {
		t->skipped++;
		return;
	}
	t->insns++;
	ret = x86_cofi_decode(bytes, n, X86_MODE_64, &c);
	if (ret || c.len != n || (int)c.kind != want) {
		t->bad++;
		if (t->bad <= 20)
			fprintf(stderr, "%s: %s (%u bytes, first %02x %02x %02x): ret %d"
				" len %u kind %s, objdump: %s\n", bin, mn, n, bytes[0],
				n > 1 ? bytes[1] : 0u, n > 2 ? bytes[2] : 0u, ret,
				ret ? 0u : (unsigned int)c.len,
				ret ? "-" : x86_cofi_kind_name(c.kind),
				x86_cofi_kind_name((enum x86_cofi_kind)want));
	}
}

static void check_binary(const char *bin, struct totals *t)
{
	char cmd[4096], line[4096];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "objdump -d -w --insn-width=16 '%s' 2>/dev/null",
		 bin);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		check_line(line, t, bin);
	pclose(f);
}

START_TEST(test_objdump_binaries)
{
	struct totals t = { 0 };
	char *list = getenv("LWPT_OBJDUMP_BINS");
	unsigned int done = 0, i;

	if (system("objdump --version >/dev/null 2>&1") != 0) {
		fprintf(stderr, "objdump not installed: skipped\n");
		return;
	}
	if (list) {
		char *dup = strdup(list), *save = NULL, *b;

		for (b = strtok_r(dup, ":", &save); b; b = strtok_r(NULL, ":", &save)) {
			check_binary(b, &t);
			done++;
		}
		free(dup);
	} else {
		for (i = 0; i < sizeof(default_bins) / sizeof(default_bins[0]); i++) {
			if (access(default_bins[i], R_OK))
				continue;
			check_binary(default_bins[i], &t);
			done++;
		}
	}
	fprintf(stderr, "objdump differential: %u binaries, %lu instructions, "
		"%lu skipped, %lu mismatches\n", done, t.insns, t.skipped, t.bad);
	ck_assert_uint_eq(t.bad, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("x86_cofi_objdump");
	TCase *tc = tcase_create("objdump");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_objdump_binaries);
	suite_add_tcase(s, tc);
	return lwpt_check_run(s, CK_NORMAL);
}
