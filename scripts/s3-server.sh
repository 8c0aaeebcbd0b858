#!/usr/bin/env bash
# A real S3 server for the tests: Ceph's radosgw from Debian, on loopback only,
# with one monitor and one in-memory OSD (memstore; nothing touches the disk but
# logs), no cephx, a SigV4 user with a fixed key, a private bucket and a bucket
# anyone may read (GetObject + ListBucket policy).
#
# Usage: scripts/s3-server.sh install | packages | start | stop | status
#   install  apt-get the Ceph packages if missing (idempotent)
#   packages print the names of the Debian packages it needs (install-deps.sh
#            installs them with the others)
#   start    (re)start the server, create the buckets, write the env file and print it;
#            when it fails, it says at which stage and prints the end of every log
#   stop     stop the processes this script started (PID files in the state dir)
#   status   exit 0 when the S3 port answers
#
# Env (all optional):
#   NCZ_S3_DIR     state dir (default: target/s3-server in the repo)
#   NCZ_S3_PORT    S3 port on 127.0.0.1 (default 17480)
#   NCZ_S3_MON_PORT, NCZ_S3_OSD_PORTS  Ceph's ports (default 16790, 16900-16999)
#   NCZ_S3_MEMSTORE_BYTES  what the in-memory OSD holds (default 2 GiB); once it is
#                  full the OSD blocks writes, and a PUT then waits forever
#   (or S3TS_DIR, S3TS_PORT, S3TS_MON_PORT, S3TS_OSD_PORTS, as the shared tool names them)
#
# The env file ($NCZ_S3_DIR/env) exports what the tests read:
#   NCZ_S3_ENDPOINT, NCZ_S3_BUCKET, NCZ_S3_PUBLIC_BUCKET, NCZ_S3_REGION,
#   NCZ_S3_ACCESS_KEY_ID, NCZ_S3_SECRET_ACCESS_KEY
# (not AWS_* themselves, so that tests choose how credentials reach the library).
# `start` also prints S3_ENDPOINT, S3_BUCKET, AWS_ACCESS_KEY_ID, ... on stdout,
# the interface of /work/shared/tools/s3-test-server.sh that bench/run.py reads.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# (The S3TS_* names of /work/shared/tools/s3-test-server.sh work too: bench/run.py uses them.)
dir=${NCZ_S3_DIR:-${S3TS_DIR:-$root/target/s3-server}}
port=${NCZ_S3_PORT:-${S3TS_PORT:-17480}}
mon_port=${NCZ_S3_MON_PORT:-${S3TS_MON_PORT:-16790}}
osd_ports=${NCZ_S3_OSD_PORTS:-${S3TS_OSD_PORTS:-16900-16999}}
memstore_bytes=${NCZ_S3_MEMSTORE_BYTES:-2147483648}
ak=NCZARRTESTKEY0000001
sk=nczarr-test-secret-not-a-real-one
region=us-east-1
bucket=nczarr-test
public=nczarr-public
ep="http://127.0.0.1:$port"
packages=(radosgw ceph-mon ceph-osd curl)

say() { echo "s3-server: $*" >&2; }

# wait_until SECONDS DESCRIPTION COMMAND...
wait_until() {
    local limit=$1 what=$2
    shift 2
    local end=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= end)); then
            say "gave up waiting for $what after ${limit}s (logs in $dir/log)"
            return 1
        fi
        sleep 0.2
    done
}

# retry TRIES COMMAND...: a ceph command again after a failure, a second
# later: the monitor refuses a client's first commands now and then ('wrong
# fsid', EPERM). Its stdout is the last try's.
retry() {
    local tries=$1 n=1
    shift
    until "$@"; do
        ((n < tries)) || return 1
        say "$1 failed (try $n of $tries); again"
        n=$((n + 1))
        sleep 1
    done
}

# signed METHOD PATH [curl args]: a SigV4 request as the test user.
signed() {
    local method=$1 path=$2
    shift 2
    curl -sS -f -X "$method" --aws-sigv4 "aws:amz:$region:s3" --user "$ak:$sk" \
        -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@" "$ep/$path"
}

install() {
    local missing=() p
    for p in "${packages[@]}"; do
        [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        say "packages already installed"
        return
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            say "these packages are missing, and installing them needs root (or password-less sudo): ${missing[*]}"
            exit 1
        fi
    fi
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
}

stop() {
    [ -d "$dir/run" ] || return 0
    local f pid
    # Gateway first, then the OSD, then the monitor.
    for f in "$dir"/run/client.rgw.*.pid "$dir"/run/osd.*.pid "$dir"/run/mon.*.pid; do
        [ -f "$f" ] || continue
        pid=$(cat "$f")
        # SIGKILL at once: the data is throwaway, and a memstore OSD asked to
        # stop politely first writes its whole store into the state dir (slowly,
        # and possibly into the next run's fresh directory).
        if kill -0 "$pid" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
            for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        fi
        rm -f "$f"
    done
}

# On a failed start (the EXIT trap of start): which stage failed, and the end
# of the setup log and of every daemon's log, on stderr.
stage='' failed_command=''
start_failed() {
    local rc=$1 f
    say "start FAILED (exit $rc) while starting $stage, in: ${failed_command:-?}"
    say "the end of its logs follows (all in $dir/log)"
    for f in "$dir"/log/*; do
        [ -s "$f" ] || continue
        echo "----- $f (last 25 lines)" >&2
        tail -n 25 "$f" >&2
    done
}

start() {
    command -v radosgw >/dev/null && command -v ceph-mon >/dev/null || {
        say "Ceph is not installed (run: $0 install)"
        exit 1
    }
    stage="the state directory $dir"
    # The command that failed (errtrace: also inside functions), then the logs.
    set -E
    trap 'failed_command=$BASH_COMMAND' ERR
    trap 'rc=$?; [ $rc -eq 0 ] || start_failed $rc' EXIT
    stop
    rm -rf "$dir"
    mkdir -p "$dir"/{mon,osd,log,run,rgw}
    local t0=$SECONDS fsid osd_uuid id
    fsid=$(cat /proc/sys/kernel/random/uuid)
    cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$mon_port
mon initial members = a
public network = 127.0.0.0/8
ms bind ipv4 = true
ms bind ipv6 = false
ms bind port min = ${osd_ports%-*}
ms bind port max = ${osd_ports#*-}
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = true
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd crush chooseleaf type = 0
osd objectstore = memstore
# We put the OSD into the CRUSH map ourselves. Left on, these make the OSD send
# the monitor commands at start that the monitor sometimes refuses ('wrong
# fsid', EPERM: it answers before the client has its fsid), and the OSD then
# exits 250 (seen in about half of the starts on a busy machine).
osd crush update on start = false
osd class update on start = false
memstore device bytes = $memstore_bytes
osd memory target = 536870912
mon data = $dir/mon/\$cluster-\$id
osd data = $dir/osd/\$cluster-\$id
log file = $dir/log/\$name.log
run dir = $dir/run
admin socket = $dir/run/\$name.asok
pid file = $dir/run/\$name.pid
[client.rgw.a]
# tcp_nodelay: without it small responses wait ~40 ms for a delayed ACK.
rgw frontends = beast endpoint=127.0.0.1:$port tcp_nodelay=1
rgw data = $dir/rgw
rgw dns name = localhost
EOF
    local c=(-c "$dir/ceph.conf") setup="$dir/log/setup.log"
    stage="the monitor (ceph-mon on port $mon_port)"
    monmaptool --create --fsid "$fsid" --addv a "[v1:127.0.0.1:$mon_port]" "$dir/monmap" >>"$setup" 2>&1
    ceph-mon "${c[@]}" --mkfs -i a --monmap "$dir/monmap" >>"$setup" 2>&1
    ceph-mon "${c[@]}" -i a >>"$setup" 2>&1
    wait_until 60 ceph-mon ceph "${c[@]}" --connect-timeout 5 mon stat
    stage="the OSD (ceph-osd, ports $osd_ports)"
    osd_uuid=$(cat /proc/sys/kernel/random/uuid)
    # (osd create of the same uuid gives the same id; crush add is idempotent)
    id=$(retry 5 ceph "${c[@]}" osd create "$osd_uuid" 2>>"$setup")
    mkdir -p "$dir/osd/ceph-$id"
    ceph-osd "${c[@]}" -i "$id" --mkfs --osd-uuid "$osd_uuid" >>"$setup" 2>&1
    retry 5 ceph "${c[@]}" osd crush add "osd.$id" 1.0 root=default host=localhost >>"$setup" 2>&1
    retry 3 ceph-osd "${c[@]}" -i "$id" >>"$setup" 2>&1
    wait_until 60 "the OSD" bash -c "ceph -c '$dir/ceph.conf' osd stat 2>/dev/null | grep -q '1 up'"
    stage="radosgw (port $port)"
    radosgw "${c[@]}" -n client.rgw.a >>"$setup" 2>&1
    wait_until 90 radosgw curl -sf -o /dev/null "$ep/"
    stage="the test user and its buckets"
    radosgw-admin "${c[@]}" user create --uid=nczarr-test --display-name=nczarr-test \
        --access-key="$ak" --secret="$sk" >"$dir/user.json" 2>>"$setup"
    wait_until 30 "the test user" signed GET "" -o /dev/null
    local b
    for b in "$bucket" "$public"; do
        signed PUT "$b" -o /dev/null
    done
    local policy
    policy=$(printf '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::%s","arn:aws:s3:::%s/*"]}]}' "$public" "$public")
    signed PUT "$public?policy=" -H 'Content-Type: application/json' --data-binary "$policy" -o /dev/null
    cat >"$dir/env" <<EOF
export NCZ_S3_ENDPOINT=$ep
export NCZ_S3_BUCKET=$bucket
export NCZ_S3_PUBLIC_BUCKET=$public
export NCZ_S3_REGION=$region
export NCZ_S3_ACCESS_KEY_ID=$ak
export NCZ_S3_SECRET_ACCESS_KEY=$sk
EOF
    trap - EXIT
    say "radosgw ready at $ep after $((SECONDS - t0))s; env in $dir/env"
    cat "$dir/env"
    # Also on stdout only (not in the env file): the lines of the shared tool's
    # interface, which bench/run.py reads.
    cat <<EOF
export S3_ENDPOINT=$ep
export S3_BUCKET=$bucket
export S3_PUBLIC_BUCKET=$public
export S3_REGION=$region
export AWS_REGION=$region
export AWS_ACCESS_KEY_ID=$ak
export AWS_SECRET_ACCESS_KEY=$sk
EOF
}

case "${1:-}" in
install) install ;;
packages) echo "${packages[*]}" ;;
start) start ;;
stop) stop ;;
status) curl -sf -o /dev/null "$ep/" && echo "up at $ep" || { echo down; exit 1; } ;;
*)
    echo "usage: $0 install|packages|start|stop|status" >&2
    exit 2
    ;;
esac
