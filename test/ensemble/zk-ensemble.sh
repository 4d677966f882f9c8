#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zk-ensemble.sh — a local 3-server ZooKeeper ensemble on loopback for zkcoord tests.
#
# Uses Debian's `zookeeper` package (3.8) jars but none of its configuration: everything
# (configs, data, logs, pid files) lives under $ZKC_ENSEMBLE_DIR, so it needs no access to
# /etc/zookeeper or /var/log/zookeeper and never touches a system ZooKeeper.
#
#   server i (1..3): client 127.0.0.1:(B+i), quorum 127.0.0.1:(B+707+i), election 127.0.0.1:(B+1707+i)
#   with the port base B = 2180 by default: client ports 2181-2183, quorum 2888-2890, election 3888-3890;
#   with relays, server i reaches server j's quorum port through 127.0.0.1:(B+2707+3(i-1)+j-1)
#   with a delay, also its election port through (B+2716+3(i-1)+j-1), and clients reach server i
#   through (B+2724+i)
#
# Usage: zk-ensemble.sh COMMAND [ARGS]   (see usage() below or run with `help`)
#
# Environment:
#   ZKC_ENSEMBLE_DIR        base directory          (default ${TMPDIR:-/tmp}/zkcoord-ensemble)
#   ZKC_ENSEMBLE_PORT_BASE  port base B above (default 2180); the tests read it too
#   ZKC_ENSEMBLE_TIMEOUT    seconds to wait for health (default 60)
#   ZKC_CONTAINER_CHECK_MS  container-node reaper interval in ms (default 100)
#   ZKC_STOP_GRACE          seconds between SIGTERM and SIGKILL (default 5)
#   ZKC_4LW_TIMEOUT         seconds for one 4-letter-word exchange (default 2)
#   ZKC_JAVA                java binary (default: java on PATH)
#   ZKC_JVM_FLAGS           extra JVM flags appended to the defaults
#   ZKC_ENSEMBLE_RELAYS     1 (at start): each server reaches the others' quorum ports through a
#                           relay of its own (socat), which `isolate N` stalls to cut server N off
#                           from the rest while its clients stay connected (a partition); 0: none.
#                           Remembered in the base directory until `clean`.
#   ZKC_ENSEMBLE_DELAY_US   N (at start): a networked ensemble. Every link gets a one-way delay of
#                           N microseconds, made by a relay process per link (zkc_netdelay, built
#                           with the benchmarks; no netem here): each server's quorum and election
#                           links to the others, and a client link per server, whose ports
#                           `connect` then prints (`connect-direct`: the servers' own). Implies the
#                           relays above (isolate/rejoin stall its quorum links). `off`: none.
#                           Remembered in the base directory until `clean`.
#   ZKC_NETDELAY            path of the zkc_netdelay binary (needed at start with a delay)
#   ZKC_ENSEMBLE_TEST_AUTH  1: load the test-only auth provider or fail (needs a JDK; the suite
#                           sets it); unset: load it when a JDK is there, else run without it
set -euo pipefail

readonly NSERVERS=3
readonly ZK_JAR=/usr/share/java/zookeeper.jar
# Debian's zookeeper.jar manifest pulls in slf4j-api but no binding, so without these two the
# server logs nothing at all (SLF4J falls back to NOP). log4j 1.2 is what Debian builds against.
readonly LOG_JARS=(/usr/share/java/slf4j-log4j12.jar /usr/share/java/log4j-1.2.jar)

# Absolute and canonical even if it does not exist yet: the path is how we recognise our JVMs
# in /proc/*/cmdline, so it must be spelled the same way on every call.
BASE=$(realpath -m -- "${ZKC_ENSEMBLE_DIR:-${TMPDIR:-/tmp}/zkcoord-ensemble}")
readonly BASE
readonly TIMEOUT=${ZKC_ENSEMBLE_TIMEOUT:-60}
readonly STOP_GRACE=${ZKC_STOP_GRACE:-5}
readonly FOURLW_TIMEOUT=${ZKC_4LW_TIMEOUT:-2}
readonly JAVA=${ZKC_JAVA:-java}

# ---------------------------------------------------------------------------------------------
# small helpers

log() { printf 'zk-ensemble: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
    cat <<EOF
usage: ${0##*/} COMMAND [ARGS]

  start            (re)write configs, start all servers not yet running, wait until healthy
  stop             stop all servers (SIGTERM, SIGKILL after ${STOP_GRACE}s); idempotent
  status           print each server's state; exit 0 only if the ensemble is healthy
  wait             wait until healthy (all 3 serving, one leader with 2 synced followers)
  heal [SECONDS]   resume paused servers, start stopped ones, wait SECONDS (default 30) for
                   health; still not healthy: restart all three (data kept) and wait;
                   fails if no ensemble was started in the directory
  clean            stop, then remove $BASE
  start-server N   start server N only (no health wait)
  stop-server N    SIGTERM server N and wait for it to exit
  kill N           SIGKILL server N (crash)
  isolate N        (relays) stall every relay to and from server N: it keeps its clients and
                   answers them from its own state until it notices (syncLimit x tickTime)
  rejoin N         (relays) let server N's relays forward again
  pause N          SIGSTOP server N
  resume N         SIGCONT server N
  pid N            print the pid of server N
  port N           print the client port of server N
  log N            print the path of server N's log file
  leader           print the number (1..$NSERVERS) of the current leader
  connect          print the client connect string (with a delay: through the client relays)
  connect-direct   print the servers' own client ports, never relayed
  4lw N WORD       print server N's answer to a 4-letter word (mntr, srvr, cons, dump, wchc, ...)
EOF
}

server_dir()  { printf '%s/zk%d' "$BASE" "$1"; }
readonly PORT_BASE=${ZKC_ENSEMBLE_PORT_BASE:-2180}
[[ $PORT_BASE =~ ^[0-9]+$ ]] && ((PORT_BASE >= 1024 && PORT_BASE <= 60000)) ||
    { echo "zk-ensemble: ZKC_ENSEMBLE_PORT_BASE must be a number in 1024..60000" >&2; exit 2; }
client_port() { echo $((PORT_BASE + $1)); }
quorum_port() { echo $((PORT_BASE + 707 + $1)); }
elect_port()  { echo $((PORT_BASE + 1707 + $1)); }
log_file()    { printf '%s/logs/zookeeper.log' "$(server_dir "$1")"; }
relay_port()  { echo $((PORT_BASE + 2707 + 3 * ($1 - 1) + $2 - 1)); }  # server $1 to server $2
erelay_port() { echo $((PORT_BASE + 2716 + 3 * ($1 - 1) + $2 - 1)); }  # election, $1 to $2
crelay_port() { echo $((PORT_BASE + 2724 + $1)); }                     # clients to server $1

# Validates a server number argument.
check_n() {
    if ! [[ ${1-} =~ ^[0-9]+$ ]] || (($1 < 1 || $1 > NSERVERS)); then
        die "server number must be 1..$NSERVERS, got '${1-}'"
    fi
}

# Float seconds since the epoch as integer milliseconds (bash 5, no fork).
now_ms() { local t=${EPOCHREALTIME/[.,]/}; echo $((10#$t / 1000)); }

# ---------------------------------------------------------------------------------------------
# finding our processes

# Prints the pids of live JVMs running server $1 of *this* base directory. Pid files can be
# stale (crash, reboot, pid reuse), so the truth is /proc: a QuorumPeerMain whose last argument
# is exactly our zoo.cfg. Zombies have an empty cmdline and so never match.
server_pids() {
    local cfg proc args
    cfg="$(server_dir "$1")/zoo.cfg"
    for proc in /proc/[0-9]*; do
        mapfile -d '' -t args 2>/dev/null <"$proc/cmdline" || continue
        ((${#args[@]} >= 2)) || continue
        [[ ${args[-1]} == "$cfg" && ${args[-2]} == *QuorumPeerMain ]] || continue
        echo "${proc#/proc/}"
    done
}

# Prints the (first) pid of server $1, or fails if it is not running.
server_pid() {
    local pids
    pids=$(server_pids "$1")
    [[ -n $pids ]] || return 1
    echo "${pids%%$'\n'*}"
}

# True if process $1 is stopped (SIGSTOP), from the state field of /proc/PID/stat.
is_stopped() {
    local stat
    read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
    stat=${stat##*) }
    [[ ${stat:0:1} == [Tt] ]]
}

# True if pid $1 is gone. A killed child of a non-reaping init lingers as a zombie, which
# `kill -0` still reports as alive, so zombies count as gone.
is_gone() {
    local stat
    read -r stat 2>/dev/null <"/proc/$1/stat" || return 0
    stat=${stat##*) }
    [[ ${stat:0:1} == Z ]]
}

# True if something listens on TCP port $1 (any address), read from /proc to avoid ss/netstat.
port_listening() {
    local hex
    hex=$(printf ':%04X' "$1")
    awk -v p="$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# ---------------------------------------------------------------------------------------------
# 4-letter words

# Prints the answer of 127.0.0.1:$1 to 4-letter word $2. Pure bash /dev/tcp; `timeout` guards
# against a paused (SIGSTOPped) server whose kernel still accepts the connection.
fourlw_port() {
    # shellcheck disable=SC2016  # $0/$1 expand in the inner bash
    timeout "$FOURLW_TIMEOUT" bash -c '
        exec 3<>"/dev/tcp/127.0.0.1/$0" || exit 1
        printf %s "$1" >&3
        while IFS= read -r line <&3 || [[ -n $line ]]; do printf "%s\n" "$line"; done
    ' "$1" "$2" 2>/dev/null
}

fourlw() { fourlw_port "$(client_port "$1")" "$2"; }

# Prints leader|follower|observer|standalone for a serving server, fails otherwise
# (down, paused, or up but without quorum: "not currently serving requests").
server_mode() {
    local pid out
    pid=$(server_pid "$1") || return 1
    is_stopped "$pid" && return 1
    out=$(fourlw "$1" srvr) || return 1
    [[ $out =~ Mode:\ ([a-z]+) ]] || return 1
    echo "${BASH_REMATCH[1]}"
}

# Prints one mntr value ($2) of server $1.
mntr_value() {
    fourlw "$1" mntr | awk -v k="$2" '$1 == k { print $2; found = 1 } END { exit !found }'
}

# ---------------------------------------------------------------------------------------------
# health

# Prints the number of the one server that leads a quorum, or fails. A resumed old leader can
# claim "leader" for a moment, so with several claimants only one with synced followers counts.
find_leader() {
    local i leaders=() real=()
    for ((i = 1; i <= NSERVERS; i++)); do
        [[ $(server_mode "$i" || true) == leader ]] && leaders+=("$i")
    done
    ((${#leaders[@]} > 0)) || return 1
    if ((${#leaders[@]} == 1)); then echo "${leaders[0]}"; return 0; fi
    for i in "${leaders[@]}"; do
        (($(mntr_value "$i" zk_synced_followers || echo 0) >= 1)) && real+=("$i")
    done
    ((${#real[@]} == 1)) || return 1
    echo "${real[0]}"
}

# The "ensemble healthy" predicate: every server answers ruok=imok and serves, exactly one
# leader, and that leader reports all other servers as synced followers.
is_healthy() {
    local i mode nleaders=0 leader=0
    for ((i = 1; i <= NSERVERS; i++)); do
        # server_mode first: it skips down and paused servers without a 4lw timeout.
        mode=$(server_mode "$i") || return 1
        [[ $(fourlw "$i" ruok || true) == imok ]] || return 1
        case $mode in
            leader) nleaders=$((nleaders + 1)); leader=$i ;;
            follower) ;;
            *) return 1 ;;
        esac
    done
    ((nleaders == 1)) || return 1
    [[ $(mntr_value "$leader" zk_synced_followers || true) == $((NSERVERS - 1)) ]]
}

show_log_tails() {
    local i f
    for ((i = 1; i <= NSERVERS; i++)); do
        for f in "$(log_file "$i")" "$(server_dir "$i")/logs/zookeeper.out"; do
            [[ -s $f ]] || continue
            printf '\n----- zk%d: tail of %s -----\n' "$i" "$f" >&2
            # 4lw polling floods the log with "Processing srvr command" lines; skip them.
            grep -v 'Processing [a-z]\{4\} command from' "$f" | tail -n 25 >&2 || true
        done
    done
}

# How many servers `start` may start again that died on their own while it waited (a JVM
# seen to exit at launch, once, with nothing in its log). Other commands: none.
START_AGAIN=0

# Fails if a server is not running: waiting cannot fix that, so don't burn the timeout. A
# server whose pid file is still there died on its own (kill/stop remove it): show its logs,
# and within `start` launch it again, once.
check_all_running() {
    local i
    for ((i = 1; i <= NSERVERS; i++)); do
        server_pid "$i" >/dev/null && continue
        if [[ -f $(server_dir "$i")/zk.pid ]]; then
            show_log_tails
            if ((START_AGAIN > 0)); then
                START_AGAIN=$((START_AGAIN - 1))
                log "zk$i died while starting (logs above): starting it again, once"
                start_server "$i"
                continue
            fi
            die "zk$i died (logs above)"
        fi
        die "zk$i is down; the ensemble cannot become healthy (start-server $i)"
    done
}

# Waits until healthy or $1 s pass; fails (quietly) on timeout.
healthy_within() {
    local deadline
    deadline=$(($(now_ms) + $1 * 1000))
    while :; do
        is_healthy && return 0
        check_all_running
        (($(now_ms) < deadline)) || return 1
        sleep 0.1
    done
}

# Waits until healthy or $TIMEOUT s pass.
wait_healthy() {
    healthy_within "$TIMEOUT" && return 0
    print_status >&2 || true
    show_log_tails
    die "ensemble not healthy after ${TIMEOUT}s (logs above)"
}

# The quorum's own story since the last start: elections, who led, why a leader or follower
# gave up, refused learners. Enough to tell a stuck election from a hung leader.
show_quorum_events() {
    local i
    for ((i = 1; i <= NSERVERS; i++)); do
        [[ -s $(log_file "$i") ]] || continue
        printf '\n----- zk%d: quorum events (last 30) -----\n' "$i" >&2
        grep -E 'LOOKING$|LEADING$|FOLLOWING$|ELECTION TOOK|Shutdown called|ahead of the leader|Exception when following|GOODBYE|Unexpected exception|ERROR' \
            "$(log_file "$i")" | tail -n 30 | cut -c1-240 >&2 || true
    done
}

# Brings the ensemble back to health whatever a test left: paused servers are continued, stopped
# ones started; if it is still not healthy after $1 s (default 30), every server is restarted
# (data kept) and waited for as by `start`. Says what it did on stderr; exit 0 once healthy.
cmd_heal() {
    local grace=${1:-30} i pid
    [[ $grace =~ ^[0-9]+$ ]] || die "heal takes a number of seconds, got '$grace'"
    check_install
    # Only an ensemble that was started: one made here would have neither the
    # start's settings (relays, test auth) nor anyone to stop it, and a case
    # pointed at the wrong ports would pass on it instead of failing.
    [[ -f $(server_dir 1)/zoo.cfg ]] ||
        die "no ensemble was started in $BASE (port base $PORT_BASE): heal restores one, start makes one"
    if relayed; then
        signal_relays CONT
        start_relays
    fi
    for ((i = 1; i <= NSERVERS; i++)); do
        if pid=$(server_pid "$i"); then
            if is_stopped "$pid"; then
                log "zk$i was paused; resuming it"
                signal_server "$i" CONT
            fi
        else
            log "zk$i was down; starting it"
            start_server "$i"
        fi
    done
    if healthy_within "$grace"; then
        log "ensemble healthy; leader zk$(find_leader || echo ?)"
        return 0
    fi
    print_status >&2 || true
    show_quorum_events
    log "ensemble not healthy ${grace}s after every server ran: restarting all three (data kept)"
    stop_servers $(seq 1 "$NSERVERS")
    for ((i = 1; i <= NSERVERS; i++)); do start_server "$i"; done
    wait_healthy
    log "ensemble healthy again after the restart; leader zk$(find_leader || echo ?)"
}

# ---------------------------------------------------------------------------------------------
# quorum relays (ZKC_ENSEMBLE_RELAYS=1): a partition on loopback

relayed() { [[ -f $BASE/relayed ]] || delayed; }
delayed() { [[ -f $BASE/delay_us ]]; }

# Prints the pids of the relay from server $1 to server $2 (its listener and the children it
# forked for each connection: one process group), found by their command line.
relay_pids() {
    local want port proc args
    port=$(relay_port "$1" "$2")
    want="TCP-LISTEN:$port,"
    for proc in /proc/[0-9]*; do
        mapfile -d '' -t args 2>/dev/null <"$proc/cmdline" || continue
        ((${#args[@]} >= 3)) || continue
        if [[ ${args[0]##*/} == socat && ${args[-2]} == "$want"* ]] ||
            [[ ${args[0]##*/} == zkc_netdelay && ${args[2]} == "$port" ]]; then
            echo "${proc#/proc/}"
        fi
    done
}

# Prints "PID DELAY_US LISTEN_PORT" for every delay relay of this port base, any link.
delay_relays() {
    local proc args lo=$((PORT_BASE + 2707)) hi=$((PORT_BASE + 2727))
    for proc in /proc/[0-9]*; do
        mapfile -d '' -t args 2>/dev/null <"$proc/cmdline" || continue
        ((${#args[@]} == 4)) && [[ ${args[0]##*/} == zkc_netdelay ]] || continue
        [[ ${args[2]} =~ ^[0-9]+$ ]] && ((args[2] >= lo && args[2] <= hi)) || continue
        echo "${proc#/proc/} ${args[1]} ${args[2]}"
    done
}

# Starts one delay relay (as start_server starts a server: its own session, no fds).
start_delay_relay() {
    local bin
    bin=$(<"$BASE/netdelay")
    [[ -x $bin ]] || die "$bin is not an executable zkc_netdelay (set ZKC_NETDELAY)"
    ! port_listening "$1" || die "port $1 needed by a delay relay is already in use:
$(ss -ltnp "sport = :$1" 2>/dev/null | tail -n +2)"
    (
        for fd in "/proc/$BASHPID/fd/"*; do
            fd=${fd##*/}
            ((fd > 2)) && eval "exec $fd>&-"
        done
        exec setsid "$bin" "$(<"$BASE/delay_us")" "$1" "$2"
    ) </dev/null >/dev/null 2>&1 &
}

# Starts the delay relays not running; those running with another delay are replaced.
start_delay_relays() {
    local d i j pid dus port running=" "
    d=$(<"$BASE/delay_us")
    while read -r pid dus port; do
        [[ -n $pid ]] || continue
        if [[ $dus == "$d" ]]; then
            running+="$port "
        else
            kill -s CONT "$pid" 2>/dev/null || true
            kill "$pid" 2>/dev/null || true
        fi
    done < <(delay_relays)
    for ((i = 1; i <= NSERVERS; i++)); do
        [[ $running == *" $(crelay_port "$i") "* ]] || start_delay_relay "$(crelay_port "$i")" "$(client_port "$i")"
        for ((j = 1; j <= NSERVERS; j++)); do
            ((i != j)) || continue
            [[ $running == *" $(relay_port "$i" "$j") "* ]] ||
                start_delay_relay "$(relay_port "$i" "$j")" "$(quorum_port "$j")"
            [[ $running == *" $(erelay_port "$i" "$j") "* ]] ||
                start_delay_relay "$(erelay_port "$i" "$j")" "$(elect_port "$j")"
        done
    done
}

# Stops every delay relay of this port base and waits for them to be gone.
stop_delay_relays() {
    local pid rest pids=() t
    while read -r pid rest; do
        [[ -n $pid ]] && pids+=("$pid")
    done < <(delay_relays)
    ((${#pids[@]})) || return 0
    kill -s CONT "${pids[@]}" 2>/dev/null || true
    kill "${pids[@]}" 2>/dev/null || true
    for ((t = 0; t < 100; t++)); do
        for pid in "${pids[@]}"; do is_gone "$pid" || { sleep 0.05; continue 2; }; done
        return 0
    done
    kill -s KILL "${pids[@]}" 2>/dev/null || true
}

# Starts every relay not running (as start_server starts a server: its own session, no fds).
start_relays() {
    local i j
    relayed || return 0
    if delayed; then
        start_delay_relays
        return 0
    fi
    command -v socat >/dev/null || die "socat not found: the relayed ensemble needs it (apt-get install socat)"
    for ((i = 1; i <= NSERVERS; i++)); do
        for ((j = 1; j <= NSERVERS; j++)); do
            ((i != j)) && [[ -z $(relay_pids "$i" "$j") ]] || continue
            (
                for fd in "/proc/$BASHPID/fd/"*; do
                    fd=${fd##*/}
                    ((fd > 2)) && eval "exec $fd>&-"
                done
                # nodelay both ways: with Nagle's algorithm the relayed quorum
                # traffic met the peers' delayed acknowledgements, and every
                # write of a client on the leader took about 40 ms.
                # The relay accepts before it connects, so a follower that reached
                # it before a new leader listened saw its connection close and
                # gave up the round; the leader then waited out initLimit for it,
                # and recovery from a leader's crash took 5 to 21 s instead of
                # well under 1. Retrying the connect for 3 s keeps what a direct
                # connection gives: the follower waits until the leader listens.
                exec setsid socat "TCP-LISTEN:$(relay_port "$i" "$j"),bind=127.0.0.1,reuseaddr,fork,nodelay" \
                    "TCP:127.0.0.1:$(quorum_port "$j"),nodelay,retry=30,interval=0.1"
            ) </dev/null >/dev/null 2>&1 &
        done
    done
}

# Sends signal $1 to the relays between server $2 and every other server (both ways), or to
# all relays without $2.
signal_relays() {
    local sig=$1 i j pid
    for ((i = 1; i <= NSERVERS; i++)); do
        for ((j = 1; j <= NSERVERS; j++)); do
            ((i != j)) || continue
            [[ -z ${2-} || $i == "$2" || $j == "$2" ]] || continue
            for pid in $(relay_pids "$i" "$j"); do kill -s "$sig" "$pid" 2>/dev/null || true; done
        done
    done
}

stop_relays() { signal_relays CONT; signal_relays TERM; stop_delay_relays; }

# ---------------------------------------------------------------------------------------------
# configuration

write_log4j() {
    # ${zookeeper.log.dir} is set per JVM, so one file serves all three servers.
    cat >"$BASE/log4j.properties" <<'EOF'
# Written by zk-ensemble.sh; one rolling file per server in ${zookeeper.log.dir}.
log4j.rootLogger=INFO, ROLLINGFILE
log4j.appender.ROLLINGFILE=org.apache.log4j.RollingFileAppender
log4j.appender.ROLLINGFILE.File=${zookeeper.log.dir}/zookeeper.log
log4j.appender.ROLLINGFILE.MaxFileSize=10MB
log4j.appender.ROLLINGFILE.MaxBackupIndex=2
log4j.appender.ROLLINGFILE.layout=org.apache.log4j.PatternLayout
log4j.appender.ROLLINGFILE.layout.ConversionPattern=%d{ISO8601} [myid:%X{myid}] - %-5p [%t:%C{1}@%L] - %m%n
EOF
}

# Writes zk$1/zoo.cfg and myid. Data is kept: `start` after `stop` resumes the same state,
# `clean` is the way to a fresh ensemble.
write_server_config() {
    local i=$1 dir j
    dir=$(server_dir "$i")
    mkdir -p "$dir/data" "$dir/logs"
    echo "$i" >"$dir/data/myid"
    {
        echo "# Written by zk-ensemble.sh; rewritten on every start."
        echo "tickTime=500"         # sessions 1 s .. 20 s (2..40 ticks)
        # The default maximum is 20 ticks, 10 s: a client asking for more (deadline.*: 20 s,
        # to outlive a silence of the whole ensemble and its recovery) would silently get 10 s.
        echo "maxSessionTimeout=20000"
        echo "initLimit=10"
        echo "syncLimit=5"
        echo "dataDir=$dir/data"
        echo "clientPort=$(client_port "$i")"
        echo "clientPortAddress=127.0.0.1"
        echo "maxClientCnxns=0"     # default 60 is per IP, and every test client is 127.0.0.1
        echo "4lw.commands.whitelist=*"
        echo "admin.enableServer=false"   # else all three fight for 0.0.0.0:8080 (jetty is on the classpath)
        echo "standaloneEnabled=false"
        echo "reconfigEnabled=false"
        echo "autopurge.purgeInterval=0"
        echo "quorumListenOnAllIPs=false"
        for ((j = 1; j <= NSERVERS; j++)); do
            if delayed && ((i != j)); then
                echo "server.$j=127.0.0.1:$(relay_port "$i" "$j"):$(erelay_port "$i" "$j")"
            elif relayed && ((i != j)); then
                echo "server.$j=127.0.0.1:$(relay_port "$i" "$j"):$(elect_port "$j")"
            else
                echo "server.$j=127.0.0.1:$(quorum_port "$j"):$(elect_port "$j")"
            fi
        done
    } >"$dir/zoo.cfg"
}

# The test-only authentication provider (RefusingDigestProvider.java beside this script): the
# digest scheme as usual, except that the user "refused" is rejected, so that the tests can
# produce a session in state AUTH_FAILED. Compiled once into $BASE/classes. Only the test suite
# needs it (its fixture sets ZKC_ENSEMBLE_TEST_AUTH=1: then a missing JDK is an error); an
# ensemble for the demo or the CLI runs on a JRE alone, with the plain digest scheme.
readonly PROVIDER_SRC="$(dirname -- "$(realpath -- "${BASH_SOURCE[0]}")")/RefusingDigestProvider.java"
AUTH_FLAGS=()
use_provider() {
    AUTH_FLAGS=()
    if [[ ! -f $BASE/classes/RefusingDigestProvider.class ]]; then
        if ! command -v javac >/dev/null; then
            [[ ${ZKC_ENSEMBLE_TEST_AUTH:-0} == 1 ]] &&
                die "javac not found: the test suite's ensemble needs a JDK (apt-get install default-jdk-headless)"
            return 0
        fi
        mkdir -p "$BASE/classes"
        javac -nowarn -d "$BASE/classes" -cp "$ZK_JAR" "$PROVIDER_SRC" ||
            die "cannot compile $PROVIDER_SRC"
    fi
    AUTH_FLAGS=(-Dzookeeper.authProvider.1=RefusingDigestProvider)
}

write_configs() {
    local i
    mkdir -p "$BASE"
    case ${ZKC_ENSEMBLE_RELAYS-} in
        1) touch "$BASE/relayed" ;;
        0) rm -f "$BASE/relayed" ;;
    esac
    case ${ZKC_ENSEMBLE_DELAY_US-} in
        '') ;;
        off) rm -f "$BASE/delay_us" "$BASE/netdelay" ;;
        *)
            [[ $ZKC_ENSEMBLE_DELAY_US =~ ^[0-9]+$ ]] && ((10#$ZKC_ENSEMBLE_DELAY_US <= 10000000)) ||
                die "ZKC_ENSEMBLE_DELAY_US must be microseconds (0..10000000) or off"
            [[ -n ${ZKC_NETDELAY-} && -x ${ZKC_NETDELAY-} ]] ||
                die "ZKC_ENSEMBLE_DELAY_US needs ZKC_NETDELAY, the built zkc_netdelay (bench/netdelay.c)"
            realpath -- "$ZKC_NETDELAY" >"$BASE/netdelay"
            echo "$((10#$ZKC_ENSEMBLE_DELAY_US))" >"$BASE/delay_us"
            ;;
    esac
    write_log4j
    for ((i = 1; i <= NSERVERS; i++)); do write_server_config "$i"; done
}

check_install() {
    local f
    command -v "$JAVA" >/dev/null || die "java not found (install a JDK or set ZKC_JAVA)"
    for f in "$ZK_JAR" "${LOG_JARS[@]}"; do
        [[ -r $f ]] || die "$f missing (apt-get install zookeeper liblog4j1.2-java libslf4j-java)"
    done
}

# ---------------------------------------------------------------------------------------------
# starting and stopping

# Fails if a port server $1 needs is held by a process that is not this server of ours.
check_ports_free() {
    local i=$1 p
    for p in "$(client_port "$i")" "$(quorum_port "$i")" "$(elect_port "$i")"; do
        port_listening "$p" || continue
        die "port $p needed by zk$i is already in use by another process:
$(ss -ltnp "sport = :$p" 2>/dev/null | tail -n +2)"
    done
}

jvm_flags() {
    local dir=$1
    # shellcheck disable=SC2206  # ZKC_JVM_FLAGS is deliberately word-split
    JVM_FLAGS=(
        -Xms32m -Xmx256m -XX:+UseSerialGC  # 3 JVMs on 2 cores: small heap, no GC threads
        -XX:+ExitOnOutOfMemoryError
        -Djava.net.preferIPv4Stack=true
        -Dzookeeper.log.dir="$dir/logs"
        -Dlog4j.configuration="file:$BASE/log4j.properties"
        -Dznode.container.checkIntervalMs="${ZKC_CONTAINER_CHECK_MS:-100}"  # reap containers fast
        # Not needed on an empty dir (the first election writes snapshot.0), but without it a
        # server whose snapshots were deleted and txn logs kept refuses to start (ZOOKEEPER-3056).
        -Dzookeeper.snapshot.trust.empty=true
        -Dzookeeper.admin.enableServer=false
        # A test-only superuser ("super:zkt-super"): the tests' inspection handle uses it to
        # clean up nodes that the ACL tests lock away from everyone else.
        -Dzookeeper.DigestAuthenticationProvider.superDigest=super:+OWYLqNhIN27hIORLu3mR4drRSo=
        "${AUTH_FLAGS[@]}"
        ${ZKC_JVM_FLAGS-}
    )
}

# Starts server $1 unless it already runs; records the pid. Does not wait for health.
start_server() {
    local i=$1 dir pid cp
    dir=$(server_dir "$i")
    if pid=$(server_pid "$i"); then
        echo "$pid" >"$dir/zk.pid"
        log "zk$i already running (pid $pid)"
        return 0
    fi
    [[ -f $dir/zoo.cfg ]] || write_configs
    check_ports_free "$i"
    use_provider
    jvm_flags "$dir"
    cp="$BASE/classes:$ZK_JAR:$(IFS=:; echo "${LOG_JARS[*]}")"
    # New session: a Ctrl-C aimed at the caller's terminal must not hit the servers. All fds
    # above 2 are closed so that a caller reading our output through a pipe (bats, ctest, $(...))
    # does not wait for the JVM to exit.
    (
        for fd in "/proc/$BASHPID/fd/"*; do
            fd=${fd##*/}
            ((fd > 2)) && eval "exec $fd>&-"
        done
        cd "$dir"
        exec setsid "$JAVA" "${JVM_FLAGS[@]}" -cp "$cp" \
            org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg"
    ) </dev/null >"$dir/logs/zookeeper.out" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/zk.pid"
    log "started zk$i (pid $pid, client port $(client_port "$i"))"
}

# Sends signal $2 to every process of server $1.
signal_server() {
    local pid
    for pid in $(server_pids "$1"); do kill -s "$2" "$pid" 2>/dev/null || true; done
}

# True once no server in "$@" has a live process.
all_gone() {
    local i pid
    for i in "$@"; do
        for pid in $(server_pids "$i"); do is_gone "$pid" || return 1; done
    done
}

# Waits up to $1 seconds for all servers in "${@:2}" to be gone.
wait_gone() {
    local deadline
    deadline=$(($(now_ms) + $1 * 1000))
    until all_gone "${@:2}"; do
        (($(now_ms) < deadline)) || return 1
        sleep 0.05
    done
}

# Stops the servers given as arguments: SIGTERM (plus SIGCONT, since a paused JVM cannot act on
# SIGTERM), SIGKILL after the grace period. All are signalled before waiting, so stopping three
# costs one grace period, not three. Idempotent; pid files go even if nothing ran.
stop_servers() {
    local i running=()
    for i in "$@"; do
        [[ -n $(server_pids "$i") ]] && running+=("$i")
    done
    for i in "${running[@]}"; do signal_server "$i" TERM; signal_server "$i" CONT; done
    if ! wait_gone "$STOP_GRACE" "${running[@]}"; then
        log "still running ${STOP_GRACE}s after SIGTERM; sending SIGKILL"
        for i in "${running[@]}"; do signal_server "$i" KILL; done
        wait_gone 5 "${running[@]}" || die "a server survived SIGKILL"
    fi
    for i in "$@"; do rm -f "$(server_dir "$i")/zk.pid"; done
    for i in "${running[@]}"; do log "stopped zk$i"; done
}

# SIGKILL: a crash, with no chance to close sessions or sockets cleanly.
kill_server() {
    local i=$1
    server_pid "$i" >/dev/null || die "zk$i is not running"
    signal_server "$i" KILL
    wait_gone 5 "$i" || die "zk$i survived SIGKILL"
    rm -f "$(server_dir "$i")/zk.pid"
}

stop_all() { stop_servers $(seq 1 "$NSERVERS"); stop_relays; }

# ---------------------------------------------------------------------------------------------
# commands

# One line per server: "zkN 127.0.0.1:PORT pid PID STATE", then a summary line.
# STATE is leader, follower, down, paused (SIGSTOP), or not-serving (up, no quorum).
print_status() {
    local i pid state serving=0 healthy=1
    for ((i = 1; i <= NSERVERS; i++)); do
        if ! pid=$(server_pid "$i"); then
            pid=- state=down
        elif is_stopped "$pid"; then
            state=paused
        elif ! state=$(server_mode "$i"); then
            state=not-serving
        fi
        [[ $state == leader || $state == follower ]] && serving=$((serving + 1))
        printf 'zk%d 127.0.0.1:%d pid %s %s\n' "$i" "$(client_port "$i")" "$pid" "$state"
    done
    if is_healthy; then
        echo "ensemble: healthy ($serving/$NSERVERS serving)"
    else
        healthy=0
        echo "ensemble: NOT healthy ($serving/$NSERVERS serving)"
    fi
    ((healthy))
}

cmd_start() {
    local i t0
    t0=$(now_ms)
    check_install
    write_configs
    signal_relays CONT
    start_relays
    for ((i = 1; i <= NSERVERS; i++)); do
        start_server "$i"
        # A server left paused by an aborted fault test would make start time out.
        if is_stopped "$(server_pid "$i")"; then
            log "zk$i was paused; resuming it"
            signal_server "$i" CONT
        fi
    done
    START_AGAIN=1
    wait_healthy
    START_AGAIN=0
    log "ensemble healthy after $(($(now_ms) - t0)) ms; leader zk$(find_leader || echo ?)"
}

cmd_clean() {
    stop_all
    # Refuse to rm -rf something that does not look like ours.
    if [[ -d $BASE ]]; then
        [[ -f $BASE/log4j.properties || -d $BASE/zk1 ]] || die "$BASE does not look like an ensemble dir; not removing"
        rm -rf -- "$BASE"
        log "removed $BASE"
    fi
}

# Serialises commands that start or stop servers: test binaries run in parallel (ctest -j)
# may all call `start` at once. The lock sits beside $BASE because `clean` removes $BASE; the
# launcher closes the fd, so the JVMs do not inherit the lock.
take_lock() {
    mkdir -p "${BASE%/*}"
    exec 9>"$BASE.lock"
    flock -w $((TIMEOUT + 30)) 9 || die "timed out waiting for $BASE.lock"
}

main() {
    local cmd=${1-help}
    shift || true
    case $cmd in
        start | stop | clean | heal | start-server | stop-server) take_lock ;;
    esac
    case $cmd in
        start) cmd_start ;;
        stop) stop_all ;;
        status) print_status ;;
        wait) wait_healthy ;;
        heal) cmd_heal "${1-}" ;;
        clean) cmd_clean ;;
        start-server) check_n "${1-}"; check_install; start_server "$1" ;;
        stop-server) check_n "${1-}"; stop_servers "$1" ;;
        kill) check_n "${1-}"; kill_server "$1" ;;
        pause) check_n "${1-}"; server_pid "$1" >/dev/null || die "zk$1 is not running"; signal_server "$1" STOP ;;
        resume) check_n "${1-}"; server_pid "$1" >/dev/null || die "zk$1 is not running"; signal_server "$1" CONT ;;
        pid) check_n "${1-}"; server_pid "$1" || die "zk$1 is not running" ;;
        isolate) check_n "${1-}"; relayed || die "isolate needs relays (start with ZKC_ENSEMBLE_RELAYS=1)"
                 signal_relays STOP "$1"; log "zk$1 cut off from the quorum (relays stalled)" ;;
        rejoin) check_n "${1-}"; relayed || die "rejoin needs relays (start with ZKC_ENSEMBLE_RELAYS=1)"
                signal_relays CONT "$1"; log "zk$1 rejoined (relays forward)" ;;
        port) check_n "${1-}"; client_port "$1" ;;
        log) check_n "${1-}"; log_file "$1" ;;
        leader) find_leader || die "no leader" ;;
        connect | connect-direct)
                 local i s=() port=client_port
                 [[ $cmd == connect ]] && delayed && port=crelay_port
                 for ((i = 1; i <= NSERVERS; i++)); do s+=("127.0.0.1:$($port "$i")"); done
                 (IFS=,; echo "${s[*]}") ;;
        4lw) check_n "${1-}"; [[ ${2-} =~ ^[a-z]{4}$ ]] || die "4lw needs a 4-letter word, got '${2-}'"
             fourlw "$1" "$2" || die "no answer from zk$1 to '$2'" ;;
        help | -h | --help) usage ;;
        *) usage >&2; exit 2 ;;
    esac
}

main "$@"
