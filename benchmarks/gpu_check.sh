#!/usr/bin/env bash
# Every GPU path of the workflow, tiny, in a few minutes on one GPU: one line per path, PASS or FAIL with its
# key numbers. Run it first on a new GPU machine (after installing the CUDA build of torch: docs/gpu.md, "On a GPU
# machine"); it checks that each stage runs on the GPU its config asks for and records that it did.
#
#     benchmarks/gpu_check.sh            # on a GPU machine; exits 1 if a path failed, 2 without a GPU
#     benchmarks/gpu_check.sh --cpu      # the same commands on the CPU (CUDA references: build only),
#                                        # to check the script itself where there is no GPU
#
# Paths (benchmarks/gpu_check.py has the details): pcgbench_cuda (nvcc build + run + timing of a few CUDA
# references), pretrain_zero2 (HPC-Coder, DeepSpeed ZeRO-2 under torchrun, 5 steps), rlpf_grpo (one GRPO step),
# jorge (one epoch of SGD and Jorge, a step-cost table), generate_hf (the hf backend in bfloat16).
# Each path has its own time limit (PATH_LIMIT_S, default 150 s); the logs stay in the work folder it prints.
set -u
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
PATH_LIMIT_S=${PATH_LIMIT_S:-150}
DEVICE=cuda
if [ "${1:-}" = "--cpu" ]; then
    DEVICE=cpu
elif [ $# -gt 0 ]; then
    echo "usage: $0 [--cpu]" >&2
    exit 2
fi

if [ "$DEVICE" = cuda ]; then
    probe=$("$PYTHON" -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.device_count())' 2>&1)
    read -r torch_version torch_cuda available count <<<"$probe"
    if [ "${available:-}" != True ]; then
        echo "no GPU: nothing checked (torch ${torch_version:-?}, built for CUDA ${torch_cuda:-?}, cuda available: ${available:-?}; CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>})"
        echo "  on a GPU node, install the CUDA build of torch (docs/gpu.md); without one: $0 --cpu"
        exit 2
    fi
    echo "torch $torch_version (CUDA $torch_cuda), $count GPU(s): $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpu_check.XXXXXX")
echo "device $DEVICE; work folder and logs: $WORK"
failed=0
started=$SECONDS
for path in pcgbench_cuda pretrain_zero2 rlpf_grpo jorge generate_hf; do
    t0=$SECONDS
    log="$WORK/$path.log"
    if timeout "$PATH_LIMIT_S" "$PYTHON" benchmarks/gpu_check.py "$path" --device "$DEVICE" --work "$WORK/$path" >"$log" 2>&1; then
        line=$(grep '^PASS ' "$log" | tail -1)
        echo "$line ($((SECONDS - t0)) s)"
    else
        rc=$?
        reason=$(grep -v '^\s*$' "$log" | tail -1)
        [ $rc -eq 124 ] && reason="timed out after $PATH_LIMIT_S s"
        echo "FAIL $path: $reason ($((SECONDS - t0)) s; log $log)"
        failed=1
    fi
done
echo "all paths: $((SECONDS - started)) s"
exit $failed
