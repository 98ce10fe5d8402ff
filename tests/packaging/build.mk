# SPDX-License-Identifier: GPL-2.0
# Packaging (issue 16 point 7): install into a DESTDIR and use it as an
# outside program would (tests/packaging/install.sh).
SCRIPT_TESTS += tests/packaging/install.sh
# Exported symbols: only the documented API (tests/packaging/exports.sh).
SCRIPT_TESTS += tests/packaging/exports.sh
