#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Usage: run-kazoo.sh <kazoo_contender.py args...>
#
# Runs test/interop/kazoo_contender.py with the first Python 3 that can import kazoo: python3 on
# PATH, else the system interpreter /usr/bin/python3, for which Debian's python3-kazoo is
# installed (a pyenv or virtualenv python3 first on PATH may lack it).
#
# Exit status: kazoo_contender.py's own (0 ok, 1 exception, 2 not connected, 64 usage); 69 when
# no Python 3 with kazoo is found. That is a failure, not a skip: the suite needs python3-kazoo
# (tools/bootstrap.sh installs it).

here=$(cd "$(dirname "$0")" && pwd) || exit 69
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import kazoo' >/dev/null 2>&1; then
        exec "$py" "$here/kazoo_contender.py" "$@"
    fi
done
echo "run-kazoo.sh: no python3 with the kazoo module (install the Debian package python3-kazoo)" >&2
exit 69
