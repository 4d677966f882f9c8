#!/bin/sh
# Doxygen input filter: the public headers document everything in plain C
# comments; this presents them to Doxygen as doc comments without changing
# the files. The first comment of a header describes the file; a comment
# after a member or enumerator on the same line documents that member.
# Placeholders such as <uuid> are escaped so they are not read as HTML.
exec sed -e '1s,^/\* ,/** @file\n * ,' \
         -e '2,$s,^\( *\)/\* ,\1/** ,' \
         -e 's,\([;,{]\) *\(/\*\) ,\1 /**< ,' \
         -e 's,^\( *[A-Za-z_][A-Za-z0-9_]* *= *[^,]*\)\(/\*\) ,\1/**< ,' \
         -e '/^#/!s,<\([A-Za-z][A-Za-z0-9_ .:-]*\)>,\\<\1\\>,g' \
         "$1"
