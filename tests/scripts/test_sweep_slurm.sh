#!/usr/bin/env bash
# test_sweep_slurm.sh - a sweep's job array on a real Slurm cluster: the
# test starts a one-node cluster of its own (munged, slurmctld and slurmd
# from Debian's munge and slurm-wlm, as root, with a slurm.conf, key,
# sockets, ports, state and logs in a temporary folder), submits the 4-point
# sweep with `sbatch --array`, waits for it, collects it, and requires the
# same sweep.csv as the same sweep run by make -j2. Every daemon it started
# is stopped by its PID on the way out, also on failure.
# Skips (exit 77) when not root or when munge or slurm-wlm is not installed
# (scripts/setup.sh --test installs them).
# usage: test_sweep_slurm.sh ONNX2HLS SOURCE_DIR BUILD_DIR
set -u
bin=$(realpath "$1") src=$(realpath "$2") build=$(realpath "$3")
[ "$(id -u)" = 0 ] || { echo "skip: the Slurm daemons need root"; exit 77; }
for t in munged slurmctld slurmd sbatch sinfo squeue scancel; do
    command -v "$t" > /dev/null 2>&1 || [ -x "/usr/sbin/$t" ] ||
        { echo "skip: $t not installed (apt-get install slurm-wlm munge)"; exit 77; }
done
export PATH=$PATH:/usr/sbin
work=$build/test_sweep_slurm
rm -rf "$work" && mkdir -p "$work"
# the daemons' folder: short (a munge socket path has at most 108 bytes), private
run=$(mktemp -d /tmp/o2h-slurm.XXXXXX) && chmod 711 "$run"
pids=()
job=""
# stop PID: TERM, then KILL when it is still there after 20 s
stop() {
    local p=$1
    kill "$p" 2> /dev/null || return 0
    for _ in $(seq 200); do
        [ "$(awk '{ print $3 }' "/proc/$p/stat" 2> /dev/null)" = Z ] || [ ! -e "/proc/$p" ] && break
        sleep 0.1
    done
    kill -KILL "$p" 2> /dev/null
    wait "$p" 2> /dev/null
}
# the job first (its steps end while slurmd is there to end them), then the
# daemons in the reverse order of their start
cleanup() {
    if [ -n "$job" ]; then
        scancel "$job" > /dev/null 2>&1
        for _ in $(seq 60); do [ -z "$(squeue -h -j "$job" 2> /dev/null)" ] && break; sleep 0.5; done
    fi
    local i
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do stop "${pids[i]}"; done
    rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fail=1; }
logs() { for f in "$run"/*.log; do echo "--- $f"; tail -15 "$f"; done; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# two free TCP ports for slurmctld and slurmd
free_port() { # free_port FROM: the first port >= FROM nothing listens on
    local p=$1
    while (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; do p=$((p + 1)); done
    echo "$p"
}
ctld_port=$(free_port $((20000 + $$ % 20000)))
d_port=$(free_port $((ctld_port + 1)))

# ---------------------------------------------------------------- munge
t0=$(date +%s.%N)
head -c 1024 /dev/urandom > "$run/munge.key" && chmod 600 "$run/munge.key"
munged -F --force --socket="$run/munge.sock" --key-file="$run/munge.key" --pid-file="$run/munged.pid" \
    --seed-file="$run/munged.seed" > "$run/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$run/munge.sock" ] && break; sleep 0.2; done
[ -S "$run/munge.sock" ] || { echo "FAIL: munged did not start"; logs; exit 1; }

# ---------------------------------------------------------------- Slurm
host=$(uname -n | cut -d. -f1)
node=$(slurmd -C | head -1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
mkdir -p "$run/state" "$run/spool"
cat > "$run/slurm.conf" << EOF
ClusterName=o2hsweep
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$run/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$run/state
SlurmdSpoolDir=$run/spool
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=sweep Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$run/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" > "$run/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" > "$run/slurmd.log" 2>&1 &
pids+=($!)
up=0
for _ in $(seq 120); do
    sinfo -h -o %T 2> /dev/null | grep -qx idle && { up=1; break; }
    sleep 1
done
[ $up = 1 ] || { echo "FAIL: the node did not come up"; sinfo 2>&1; logs; exit 1; }
ok "one-node Slurm cluster up in $(since "$t0") s (ports $ctld_port, $d_port)"

# ---------------------------------------------------------- the sweep on Slurm
cp "$src/samples/mobilenet_tiny.onnx" "$work/model.onnx"
cp "$src/samples/mobilenet_tiny.in.f32" "$work/calib.f32"
cd "$work"
args=(model.onnx --pe-budget 256,512,1024,2048 --precision int8 --calib calib.f32 --quiet)
"$bin" sweep "${args[@]}" -o slurm > sweep.log 2>&1 || { echo "FAIL: sweep"; cat sweep.log; exit 1; }
t1=$(date +%s.%N)
(cd slurm && sbatch --parsable --array=0-3 sweep.sbatch) > sbatch.log 2>&1
job=$(head -1 sbatch.log | cut -d';' -f1)
[[ $job =~ ^[0-9]+$ ]] || { echo "FAIL: sbatch"; cat sbatch.log; logs; exit 1; }
done_=0
for _ in $(seq 900); do
    [ -z "$(squeue -h -j "$job" 2> /dev/null)" ] && { done_=1; break; }
    sleep 1
done
[ $done_ = 1 ] || { echo "FAIL: job $job still queued or running after 900 s"; squeue; logs; exit 1; }
ok "job array $job done in $(since "$t1") s"
n=$(scontrol -o show job "$job" 2> /dev/null | grep -c 'JobState=COMPLETED .*ExitCode=0:0')
[ "$n" = 4 ] && ok "4 tasks completed with exit 0" || { bad "$n of 4 tasks completed with exit 0"; scontrol -o show job "$job"; }
n=$(cat slurm/logs/onnx2hls-sweep-"$job"_*.out 2> /dev/null | grep -c "csim: PASS")
[ "$n" = 4 ] && ok "4 task logs, 4 C simulations passed" || { bad "$n of 4 tasks passed"; tail -n 5 slurm/logs/*; }
job=""
"$bin" sweep --collect slurm > collect.log 2>&1 || bad "collect of the Slurm run"

# ------------------------------------------------------- the same sweep by make
"$bin" sweep "${args[@]}" -o local > sweep2.log 2>&1 || bad "second sweep"
make -C local -j2 > make.log 2>&1 || { bad "make -j2"; tail make.log; }
"$bin" sweep --collect local > collect2.log 2>&1 || bad "collect of the make run"
if [ -s slurm/sweep.csv ] && cmp slurm/sweep.csv local/sweep.csv; then
    ok "the Slurm run and the make run give the same sweep.csv ($(($(wc -l < local/sweep.csv) - 1)) rows)"
else
    bad "sweep.csv differs between Slurm and make"
    diff slurm/sweep.csv local/sweep.csv
fi
grep -q '"pass"' slurm/sweep.csv || bad "no passed csim in the Slurm table"
exit $fail
