# SPDX-License-Identifier: GPL-2.0
# Sourced by the build-id tests of ptflow and ptcov (issue 35 "Errors")
# after lib.sh, in their temporary directory, with STEP naming
# pt_step_trace.

# build_id FILE: its GNU build-id (hex), empty without one.
build_id() {
	readelf -n "$1" | awk '/Build ID:/ { print $3 }'
}

# buildid_progs: prog and prog.new, one source built twice with two
# build-ids, in $old and $new; the test finishes if that fails.
buildid_progs() {
	cat > prog.c <<'EOF'
int v = VARIANT;
int main(int argc, char **argv)
{
	int s = 0;

	(void)argv;
	for (int i = 0; i < 5 + argc; i++)
		s += i & 1 ? v : 2;
	return s > 1000;
}
EOF
	gcc -O0 -g -static -no-pie -DVARIANT=1 -o prog prog.c 2>cc.err &&
		gcc -O0 -g -static -no-pie -DVARIANT=2 -o prog.new prog.c 2>>cc.err ||
		{ fail "cc: $(cat cc.err)"; finish; }
	old=$(build_id prog)
	new=$(build_id prog.new)
	[ -n "$old" ] && [ -n "$new" ] && [ "$old" != "$new" ] && pass ||
		{ fail "two builds with two build-ids ($old, $new)"; finish; }
}

# buildid_capture: cap, a capture directory of prog's run whose maps
# record prog's build-id, as ptcap's do.
buildid_capture() {
	mkdir cap && printf 'lwpt-ptcap-config 1\n' > cap/config
	"$STEP" -m cap/maps cap/tid100.pt "$tmp/prog" >/dev/null 2>step.err
	[ $? -ne 125 ] || fail "pt_step_trace: $(cat step.err)"
	grep -qx "# build-id $old $tmp/prog" cap/maps && pass ||
		fail "maps records prog's build-id: $(cat cap/maps)"
}
