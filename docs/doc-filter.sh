#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Doxygen input filter: the public headers document everything in plain C
# comments; this presents them to Doxygen as doc comments without changing
# the files. The first comment of a header describes the file (a license
# line above it, /* SPDX-License-Identifier: ... */, is blanked: the line
# numbers stay); a comment after a member or enumerator on the same line
# documents that member.
# Placeholders such as <uuid> are escaped so they are not read as HTML.
exec sed -e '1{/^\/\* SPDX-License-Identifier: .* \*\/$/{s,.*,,;n;};s,^/\* ,/** @file\n * ,;}' \
         -e '2,$s,^\( *\)/\* ,\1/** ,' \
         -e 's,\([;,{]\) *\(/\*\) ,\1 /**< ,' \
         -e 's,^\( *[A-Za-z_][A-Za-z0-9_]* *= *[^,]*\)\(/\*\) ,\1/**< ,' \
         -e '/^#/!s,<\([A-Za-z][A-Za-z0-9_ .:-]*\)>,\\<\1\\>,g' \
         "$1"
