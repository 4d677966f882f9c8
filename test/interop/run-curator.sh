#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Usage: run-curator.sh <builddir> <CuratorContender args...>
#
# Compiles test/interop/CuratorContender.java into <builddir>/interop-classes when the class is
# missing or older than the source, then execs the JVM on it with the given arguments.
# Safe to call concurrently (compilation is serialised with flock on a lock file in the class
# directory).
#
# Exit status: CuratorContender's own (0 ok, 1 exception, 2 not connected, 3 OVERLAP,
# 4 NOT_REVOKED, 64 usage);
# 77 when java, javac or a jar is missing (a test should be skipped); 70 when javac fails;
# 64 when <builddir> is not given.

set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 70
src=$here/CuratorContender.java

if [ $# -lt 1 ]; then
    echo "usage: run-curator.sh <builddir> <CuratorContender args...>" >&2
    exit 64
fi
builddir=$1
shift

for tool in java javac; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "run-curator.sh: '$tool' not found (install a JDK, e.g. the Debian package default-jdk-headless)" >&2
        exit 77
    fi
done

cp=$("$here/curator-classpath.sh") || exit $?

classes=$builddir/interop-classes
class=$classes/CuratorContender.class

needs_build() {
    [ ! -f "$class" ] || [ "$src" -nt "$class" ]
}

if needs_build; then
    mkdir -p "$classes" || exit 70
    (
        flock 9 || exit 70
        if needs_build; then
            log=$classes/javac.log
            if ! javac -d "$classes" -cp "$cp" -encoding UTF-8 -Xlint:none -nowarn "$src" >"$log" 2>&1; then
                echo "run-curator.sh: javac failed for $src:" >&2
                cat "$log" >&2
                exit 70
            fi
            # Make the class strictly newer than the source even on coarse-timestamp filesystems.
            touch "$class"
        fi
    ) 9>"$classes/.compile.lock" || exit $?
fi

exec java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto \
    -cp "$cp:$classes" CuratorContender "$@"
