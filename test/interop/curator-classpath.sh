#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Print the Java classpath (colon-separated absolute jar paths) needed to compile and run
# test/interop/CuratorContender.java with Debian's packaged Curator 5.x and ZooKeeper 3.8 jars.
#
# Exit status: 0 and the classpath on stdout; 77 (the usual "skip" code for test harnesses)
# with a message on stderr naming the Debian package to install when a jar is missing.
#
# How the list was derived (Debian bookworm, libcurator-*-java 5.4.0, libzookeeper-java 3.8.0):
#   - Debian does not shade Guava into curator-client (upstream does), so guava.jar is needed;
#     Debian's guava.jar already contains failureaccess (InternalFutureFailureAccess).
#   - jdeps on the three Curator jars: they need only curator-*, zookeeper, zookeeper-jute,
#     guava and slf4j-api. curator-framework's manifest also names jackson-databind, but no
#     class of it is referenced by the lock/latch code paths (jdeps shows none).
#   - The ZooKeeper *client* uses ClientCnxnSocketNIO by default, so none of the netty, jetty,
#     metrics, snappy, commons-* jars named in zookeeper.jar's manifest Class-Path are needed.
#     (The JVM follows those manifest entries anyway when the files exist.)
#   - slf4j-nop silences Curator/ZooKeeper logging and slf4j's "no binding" warning.
#
# JAVA_SHARE (default /usr/share/java) may point elsewhere, for tests on non-Debian hosts that
# lay out the same unversioned jar names.

dir=${JAVA_SHARE:-/usr/share/java}

# jar-name:debian-package
jars="
curator-recipes:libcurator-recipes-java
curator-framework:libcurator-framework-java
curator-client:libcurator-client-java
zookeeper:libzookeeper-java
zookeeper-jute:libzookeeper-java
guava:libguava-java
slf4j-api:libslf4j-java
slf4j-nop:libslf4j-java
"

cp=
missing=
for entry in $jars; do
    name=${entry%%:*}
    pkg=${entry#*:}
    jar=$dir/$name.jar
    if [ ! -r "$jar" ]; then
        echo "curator-classpath.sh: missing $jar (install the Debian package $pkg: apt-get install $pkg)" >&2
        missing="$missing $pkg"
        continue
    fi
    cp=${cp:+$cp:}$jar
done

if [ -n "$missing" ]; then
    exit 77
fi
printf '%s\n' "$cp"
