# SPDX-License-Identifier: GPL-2.0
# Every public function of liblwp and libpt is in its man page (NAME and
# SYNOPSIS): liblwp/man/liblwp.3, libpt/man/libpt.3.
SCRIPT_TESTS += tests/man/public_api.sh
