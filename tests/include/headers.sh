#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every public header compiles on its own, as C11 and as C++11, with
# warnings as errors: the JITs and runtimes that link liblwp or libpt are
# often written in C++, and a header must not depend on what its includer
# happened to include before it.
cd "$(dirname "$0")/../.." || exit 1
CC=${CC:-cc}
CXX=${CXX:-c++}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
for h in include/lwpt/*.h include/uapi/lwpt/*.h; do
	rel=${h#include/}
	printf '#include <%s>\n' "$rel" > "$tmp/t.c"
	cp "$tmp/t.c" "$tmp/t.cc"
	for lang in c c++; do
		if [ "$lang" = c ]; then
			cmd="$CC -std=c11 -Wall -Wextra -Werror -Iinclude -c $tmp/t.c -o $tmp/t.o"
		else
			command -v "$CXX" >/dev/null 2>&1 || { echo "skip $rel as C++: no $CXX"; continue; }
			cmd="$CXX -std=c++11 -Wall -Wextra -Werror -Iinclude -c $tmp/t.cc -o $tmp/t.o"
		fi
		if $cmd > "$tmp/log" 2>&1; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "FAIL: $rel as $lang"
			sed -n '1,15p' "$tmp/log"
		fi
	done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
