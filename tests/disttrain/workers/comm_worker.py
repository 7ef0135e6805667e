"""Run under torchrun (2+ processes): every CommLedger op once, results per rank to <out>/rank<r>.json."""

import json
import sys

import torch
import torch.distributed as dist

from workflow_scripts.common.launch import init_worker
from workflow_scripts.disttrain.comm import CommLedger


def main(out_dir):
    rank, world, _ = init_worker()
    ledger = CommLedger()
    x = torch.full((10,), float(rank + 1))
    ledger.all_reduce(x, tag="ar")
    gathered = torch.empty(10 * world)
    ledger.all_gather_into_tensor(gathered, torch.full((10,), float(rank)), tag="ag")
    shard = torch.empty(5)
    ledger.reduce_scatter_tensor(shard, torch.ones(5 * world), tag="rs")
    # Uneven all_to_all: rank r sends r+1 rows to every peer.
    splits = [rank + 1] * world
    out_splits = [src + 1 for src in range(world)]
    a2a_out = torch.empty(sum(out_splits), 3)
    ledger.all_to_all_single(a2a_out, torch.full((sum(splits), 3), float(rank)), out_splits, splits, tag="a2a")
    b = torch.arange(4.0) if rank == 0 else torch.zeros(4)
    ledger.broadcast(b, src=0, tag="bc")
    handle = ledger.all_reduce(torch.ones(8, dtype=torch.float64), tag="async", async_op=True)
    handle.wait()
    peer = (rank + 1) % world
    prev = (rank - 1) % world
    if rank % 2 == 0:
        ledger.send(torch.ones(6), peer, tag="p2p")
        got = torch.empty(6)
        ledger.recv(got, prev, tag="p2p")
    else:
        got = torch.empty(6)
        ledger.recv(got, prev, tag="p2p")
        ledger.send(torch.ones(6), peer, tag="p2p")
    recv_handle = ledger.irecv(torch.empty(7), prev, tag="nb")
    send_handle = ledger.isend(torch.ones(7), peer, tag="nb")
    send_handle.wait()
    recv_handle.wait()
    values = {"all_reduce": x.tolist(), "all_gather": gathered.tolist(), "reduce_scatter": shard.tolist(),
              "all_to_all": a2a_out[:, 0].tolist(), "broadcast": b.tolist()}
    records = [r.__dict__ for r in ledger.records()]
    with open(f"{out_dir}/rank{rank}.json", "w") as handle_out:
        json.dump({"values": values, "records": records, "world": world}, handle_out)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1])
