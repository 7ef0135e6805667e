"""Jorge under DistributedDataParallel (gloo, 2 processes) equals single-process training on the full batch."""

import os
import tempfile

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from workflow_scripts.jorge.optim import Jorge

STEPS = 4


def _data():
    g = torch.Generator().manual_seed(11)
    return [(torch.randn(16, 5, generator=g), torch.randint(0, 3, (16,), generator=g)) for _ in range(STEPS)]


def _model():
    torch.manual_seed(12)
    return torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3))


def _train(model, data, rank=0, world=1):
    opt = Jorge(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3, decay=0.9)
    for x, y in data:
        shard = slice(rank * len(x) // world, (rank + 1) * len(x) // world)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x[shard]), y[shard]).backward()
        opt.step()
    return opt


def _worker(rank, world, init_file, out_dir):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    ddp = torch.nn.parallel.DistributedDataParallel(_model())
    opt = _train(ddp, _data(), rank, world)
    torch.save({"params": [p.detach() for p in ddp.module.parameters()],
                "left": opt.state[ddp.module[0].weight]["left"]}, os.path.join(out_dir, f"rank{rank}.pt"))  # fmt: skip
    dist.destroy_process_group()


@pytest.mark.multiprocess
def test_ddp_ranks_agree_and_match_full_batch(tmp_path):
    init_file = tempfile.mktemp(dir=tmp_path)
    mp.spawn(_worker, args=(2, init_file, str(tmp_path)), nprocs=2, join=True)
    ranks = [torch.load(tmp_path / f"rank{r}.pt") for r in range(2)]
    for a, b in zip(ranks[0]["params"], ranks[1]["params"], strict=True):
        assert torch.equal(a, b)  # identical factors and weights on every rank, no extra communication
    assert torch.equal(ranks[0]["left"], ranks[1]["left"])
    single = _model()
    _train(single, _data())  # equal shards: DDP's averaged gradient is the full-batch gradient
    for a, b in zip(ranks[0]["params"], single.parameters(), strict=True):
        torch.testing.assert_close(a, b.detach(), rtol=1e-4, atol=1e-5)
