#!/usr/bin/env bash
# End-to-end test of the cluster path: a live single-node SLURM on this machine runs a slice of the
# workflow through `--profile profiles/slurm`, and the results must equal a local run's.
#
#   tests/cluster/run_slurm_e2e.sh            # root; installs slurm-wlm and munge when missing
#   KEEP=1 tests/cluster/run_slurm_e2e.sh     # keep the work folder for inspection
#
# What it checks:
#   1. every job was submitted with sbatch and ran under slurmd: its log names its SLURM job id, and
#      the controller's log has an allocation for that id;
#   2. a job cancelled with scancel mid-run leaves no output behind, and rerunning the workflow
#      finishes it;
#   3. the deterministic outputs equal those of a local run of the same slice, byte for byte;
#   4. PCGBench's shards are routed by execution model (config pcgbench.cluster): the CUDA shards' jobs asked the
#      scheduler for a GPU on the GPU partition (the test node has one generic GPU, without device files), the
#      serial shards' jobs for none on the CPU partition, as the scheduler's own records (scontrol, and its job
#      completion log) say; without a real GPU the CUDA shard's result says why it was skipped (build-only).
# It stops the daemons it started, also on failure.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
snakemake=${SNAKEMAKE:-$repo/.venv/bin/snakemake}
work=$(mktemp -d "${TMPDIR:-/tmp}/slurm-e2e.XXXXXX")
state=$work/slurm

cleanup() {
  "$repo/tests/cluster/slurm_local.sh" stop "$state" || true
  if [ "${KEEP:-0}" = 1 ]; then echo "work folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

# One rule (or more) of every study that can run without the long training stages; the disttrain
# calibration launches torchrun with 2 processes inside the allocation.
targets=(
  results/monitoring/data/truth.json
  results/jorge/numerics.json
  results/pcgbench/prompts.json
  results/disttrain/network/calibration.json
  results/disttrain/tensor3d/projection.json
)
# Outputs that do not depend on timing: the cluster run must reproduce them exactly.
deterministic=(
  results/monitoring/data/truth.json
  results/monitoring/data/runs.parquet
  results/pcgbench/prompts.json
  results/disttrain/tensor3d/projection.json
)
cancel_rule=disttrain_network
# PCGBench's reference generator on one problem, sharded by execution model: a serial shard and a CUDA one.
pcgbench_targets=(results/pcgbench/reference/results.parquet results/pcgbench/reference_speedups.json)

copy_repo() {  # the files git would check out, without results or caches
  mkdir -p "$1"
  (cd "$repo" && git ls-files --cached --others --exclude-standard -z | xargs -0 cp --parents -t "$1")
  cat > "$1/e2e_config.yaml" <<'CONF'
monitoring:
  synthetic: {days: 10, change_point_day: 5}
pcgbench:
  problems: [reduce_average]
  models: [serial, cuda]
  generators: [reference]
  language_models: []
  translation: {enabled: false}
  shards: {by_model: true}
  cluster:
    cpu: {slurm_partition: e2e, gpu: 0}
    gpu: {slurm_partition: gpu, gpu: 1}
  evaluate: {max_cores: 1}
measure: {warmup: 0, reps: 2}
CONF
}

echo "== local run"
copy_repo "$work/local"
(cd "$work/local" && "$snakemake" --cores 2 --configfile=e2e_config.yaml "${targets[@]}" >"$work/local.log" 2>&1) \
  || { tail -n 40 "$work/local.log"; exit 1; }

echo "== starting SLURM"
slurm_env=$("$repo/tests/cluster/slurm_local.sh" start "$state")
eval "$slurm_env"
partition=$(sinfo -h -o '%P' | head -n 1 | tr -d '*')

copy_repo "$work/cluster"
cluster_snakemake() {
  # The site-specific choices a user makes on the command line or in the profile: no accounts here,
  # no accounting database (so squeue), this test's partition.
  "$snakemake" --profile profiles/slurm --configfile=e2e_config.yaml \
    --slurm-no-account --slurm-status-command squeue --slurm-init-seconds-before-status-checks 2 \
    --default-resources "slurm_partition=$partition" mem_mb=2000 runtime=30 cpus_per_task=1 \
    --latency-wait 10 "$@" "${targets[@]}"
}

echo "== cluster run, cancelling $cancel_rule mid-run"
cd "$work/cluster"
cluster_snakemake --retries 0 >"$work/cluster1.log" 2>&1 &
smk=$!
cancelled=""
for _ in $(seq 600); do
  cancelled=$(squeue -h -t RUNNING -o '%i %k' | awk -v r="rule_${cancel_rule}" 'index($2, r) == 1 {print $1; exit}')
  [ -n "$cancelled" ] && break
  kill -0 "$smk" 2>/dev/null || break
  sleep 0.2
done
[ -n "$cancelled" ] || { tail -n 40 "$work/cluster1.log"; echo "FAIL: never saw $cancel_rule running"; exit 1; }
sleep 1
scancel "$cancelled"
echo "cancelled SLURM job $cancelled ($cancel_rule)"
if wait "$smk"; then echo "FAIL: the run with a cancelled job reported success"; exit 1; fi
[ ! -e results/disttrain/network/calibration.json ] || { echo "FAIL: the cancelled job left its output"; exit 1; }

echo "== cluster rerun, with PCGBench's shards"
cluster_snakemake "${pcgbench_targets[@]}" >"$work/cluster2.log" 2>&1 || { tail -n 60 "$work/cluster2.log"; exit 1; }

echo "== checks"
status=0
for target in "${targets[@]}"; do
  [ -s "$target" ] || { echo "FAIL: $target missing"; status=1; }
done
# Every job log names its SLURM job id, and the controller allocated that job.
jobs_seen=0
while IFS= read -r log; do
  id=$(grep -o 'SLURM job [0-9]*' "$log" | tail -n 1 | awk '{print $3}' || true)
  if [ -z "$id" ]; then echo "FAIL: $log does not name a SLURM job"; status=1; continue; fi
  # started by the main scheduler ("Allocate") or, for jobs queued together, by the backfill one ("Started")
  grep -qE "(Allocate|Started) JobId=$id " "$state/log/slurmctld.log" \
    || { echo "FAIL: job $id ($log) unknown to slurmctld"; status=1; }
  jobs_seen=$((jobs_seen + 1))
done < <(find results -path '*/logs/*.log' -newer "$work/local.log")
[ "$jobs_seen" -ge "${#targets[@]}" ] || { echo "FAIL: only $jobs_seen job logs"; status=1; }
submitted=$(cat "$work/cluster1.log" "$work/cluster2.log" | grep -c 'has been submitted with SLURM jobid' || true)
[ "$submitted" -ge "${#targets[@]}" ] || { echo "FAIL: only $submitted jobs were submitted with sbatch"; status=1; }
echo "job logs with a SLURM job id: $jobs_seen; jobs submitted with sbatch: $submitted"
for output in "${deterministic[@]}"; do
  cmp -s "$work/local/$output" "$work/cluster/$output" || { echo "FAIL: $output differs from the local run"; status=1; }
done
# The GPU routing, from the scheduler's records of the jobs the PCGBench shard rules submitted.
routed=0
declare -A job_of
for rule in pcgbench_build pcgbench_evaluate pcgbench_reference_speedups_shard; do
  for shard in serial cuda; do
    log=$(find ".snakemake/slurm_logs/rule_$rule" -path "*${shard}*" -name '*.log' 2>/dev/null | head -n 1)
    [ -n "$log" ] || { echo "FAIL: no SLURM log of $rule for shard $shard"; status=1; continue; }
    id=$(basename "$log" .log)
    job_of[$rule.$shard]=$id
    record=$(scontrol show job "$id" 2>/dev/null || true)
    completion=$(grep "JobId=$id " "$state/log/jobcomp.log" || true)
    [ -n "$completion" ] || { echo "FAIL: job $id ($rule, $shard) is not in the job completion log"; status=1; }
    if [ "$shard" = cuda ]; then
      partition=gpu; gpus_wanted=yes
    else
      partition=e2e; gpus_wanted=no
    fi
    grep -q "Partition=$partition " <<<"$completion" \
      || { echo "FAIL: job $id ($rule, $shard) ran outside partition $partition: $completion"; status=1; }
    if grep -q "gpu" <<<"$(grep -o 'TresPer[A-Za-z]*=[^ ]*' <<<"$record")"; then gpus=yes; else gpus=no; fi
    [ -n "$record" ] || { echo "FAIL: scontrol no longer knows job $id"; status=1; }
    [ "$gpus" = "$gpus_wanted" ] || { echo "FAIL: job $id ($rule, $shard): GPU requested: $gpus"; status=1; }
    echo "routed: $rule shard $shard -> job $id, partition $partition, GPU requested: $gpus"
    routed=$((routed + 1))
  done
done
[ "$routed" = 6 ] || { echo "FAIL: $routed of 6 PCGBench shard jobs checked"; status=1; }
# Timing jobs on nodes of their own do not wait for each other (the workflow's timing_slot is counted per job on a
# cluster): the two reference shards, ready from the start, were in the scheduler together, each submitted before
# the other ended.
times() { scontrol show job "$1" | grep -o "$2=[^ ]*" | cut -d= -f2; }
serial_job=${job_of[pcgbench_reference_speedups_shard.serial]:-} cuda_job=${job_of[pcgbench_reference_speedups_shard.cuda]:-}
if [ -n "$serial_job" ] && [ -n "$cuda_job" ]; then
  if [[ "$(times "$serial_job" SubmitTime)" < "$(times "$cuda_job" EndTime)" \
        && "$(times "$cuda_job" SubmitTime)" < "$(times "$serial_job" EndTime)" ]]; then
    echo "timing jobs overlapped: reference shards $serial_job and $cuda_job were queued together"
  else
    echo "FAIL: reference shard jobs $serial_job and $cuda_job ran one after the other (a global timing_slot?)"
    status=1
  fi
fi
python3 - <<'PY' || status=1
import json
metrics = json.load(open("results/pcgbench/reference/metrics.json"))
why = metrics["skipped_models"].get("cuda", "")
counts = metrics["verdict_counts"]["reference"]
print(f"PCGBench reference: verdicts {counts}; cuda: {why or 'ran'}")
assert counts.get("ok", 0) >= 1, "the serial shard's reference did not pass"
assert why or counts.get("ok", 0) == 2, "the CUDA shard neither ran nor said why not"
PY
leftovers=$(find results -name '.tmp-*' | head -n 5)
[ -z "$leftovers" ] || { echo "FAIL: half-written files left: $leftovers"; status=1; }
[ "$status" = 0 ] && echo "slurm e2e: PASS"
exit "$status"
