#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Entry point of the ZooKeeper server image (Dockerfile.zookeeper): writes the
# configuration from the environment, as the compose file sets it, and runs
# Debian's server in the foreground.
#   ZOO_MY_ID     this server's id (1..3)
#   ZOO_SERVERS   "server.1=zk1:2888:3888;2181 server.2=..." (the ensemble)
# Settings match test/ensemble/zk-ensemble.sh, so the suite sees the same
# servers in a container as on loopback.
set -euo pipefail
: "${ZOO_MY_ID:?ZOO_MY_ID must be set}" "${ZOO_SERVERS:?ZOO_SERVERS must be set}"
mkdir -p /data
echo "$ZOO_MY_ID" >/data/myid
{
  echo "tickTime=500"
  echo "maxSessionTimeout=20000"
  echo "initLimit=10"
  echo "syncLimit=5"
  echo "dataDir=/data"
  echo "clientPort=2181"
  echo "maxClientCnxns=0"
  echo "4lw.commands.whitelist=*"
  echo "admin.enableServer=false"
  echo "standaloneEnabled=false"
  echo "reconfigEnabled=false"
  echo "autopurge.purgeInterval=0"
  echo "quorumListenOnAllIPs=true"
  for s in $ZOO_SERVERS; do echo "$s"; done
} >/data/zoo.cfg
exec java -Xms32m -Xmx256m -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
  -Dznode.container.checkIntervalMs=100 \
  -Dzookeeper.snapshot.trust.empty=true \
  -Dzookeeper.admin.enableServer=false \
  -Dzookeeper.DigestAuthenticationProvider.superDigest=super:+OWYLqNhIN27hIORLu3mR4drRSo= \
  -Dlog4j.configuration=file:/etc/zookeeper/conf/log4j.properties -Dzookeeper.root.logger=WARN,CONSOLE \
  -cp /usr/share/java/zookeeper.jar:/usr/share/java/slf4j-log4j12.jar:/usr/share/java/log4j-1.2.jar \
  org.apache.zookeeper.server.quorum.QuorumPeerMain /data/zoo.cfg
