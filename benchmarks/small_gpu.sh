#!/usr/bin/env bash
# The small config (config/small.yaml: HPC-Coder fine-tuned from SmolLM2-135M beside a from-scratch model, and
# RLPF from it) end to end on one GPU, in a fresh work folder, within a time limit (default 8 minutes). Every
# training and sampling stage takes the GPU (their devices are `auto`); the harness builds and times programs on
# the CPU cores as always. It prints the headline numbers and the device each stage recorded.
#
#     benchmarks/small_gpu.sh              # on a GPU machine (CUDA build of torch: docs/gpu.md)
#     LIMIT_S=900 benchmarks/small_gpu.sh  # another time limit
#
# Exits 2 without a GPU, 1 when the run failed or ran past the limit (the log's tail is printed).
set -u
cd "$(dirname "$0")/.."
REPO=$PWD
PYTHON=${PYTHON:-$REPO/.venv/bin/python}
LIMIT_S=${LIMIT_S:-480}

available=$("$PYTHON" -c 'import torch; print(torch.cuda.is_available())' 2>&1)
if [ "$available" != True ]; then
    echo "no GPU visible to torch ($available): run this on a GPU machine; on 2 CPU cores the small config took about 30 min (docs/models.md)"
    exit 2
fi
echo "GPU: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/small_gpu.XXXXXX")
# A copy of the workflow's tracked files (not results/): the run starts cold, as a new user's would.
git ls-files -z | xargs -0 cp --parents -t "$WORK"
ln -s "$REPO/.venv" "$WORK/.venv"
cd "$WORK"
echo "work folder: $WORK"
started=$SECONDS
timeout "$LIMIT_S" .venv/bin/snakemake --profile profiles/default --configfile config/small.yaml -- hpccoder rlpf \
    >run.log 2>&1
rc=$?
echo "snakemake exit $rc after $((SECONDS - started)) s (limit $LIMIT_S s)"
if [ $rc -ne 0 ]; then
    [ $rc -eq 124 ] && echo "ran past the limit"
    tail -30 run.log
    exit 1
fi
"$PYTHON" "$REPO/benchmarks/small_report.py" results-small   # config/small.yaml's results folder
