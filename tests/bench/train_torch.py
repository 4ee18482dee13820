#!/usr/bin/env python3
"""train_torch.py — times PyTorch training the lab's model on the lab's batches (figures only).

Given checkpoint folders written by `attnlab train --out DIR`, rebuilds each model from
DIR/init with PyTorch's own layers (nn.TransformerEncoderLayer / DecoderLayer stacks; the
functional rebuild when biases are off), trains it with torch.optim.Adam on DIR/batches at
the rates of DIR/lr.npy, one thread, and prints steps/s and the final loss next to the lab's.

    /usr/bin/python3 tests/bench/train_torch.py DIR [DIR...]
"""
import os
import sys
import time

# One thread for the BLAS too: Debian's OpenBLAS (pthread build) starts one per core whatever
# torch.set_num_threads says, and reads the count when it loads.
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "torch"))
import train_reference as ref  # noqa: E402


def time_training(ck, use_nn):
    if use_nn:
        model = ref.nn_model(ck, "init").train()
        params = list(model.parameters())
        loss_of = model.loss
    else:
        fm = ref.FunctionalModel(ck.config, ck.params("init"), torch.float32)
        params = list(fm.p.values())
        loss_of = fm.loss
    adam = ck.config["adam"]
    opt = torch.optim.Adam(params, lr=1.0, betas=(adam["beta1"], adam["beta2"]), eps=adam["eps"])
    lrs = ck.array("lr.npy")
    batches = ck.batches()
    steps = ck.steps
    tensors = [ref.step_tensors(batches, s) for s in range(steps)]  # not timed: the lab's batches come for free too
    t0 = time.perf_counter()
    for s in range(steps):
        for group in opt.param_groups:
            group["lr"] = float(lrs[s])
        opt.zero_grad()
        loss = loss_of(*tensors[s])
        loss.backward()
        opt.step()
    seconds = time.perf_counter() - t0
    return steps / seconds, loss.item()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    torch.set_num_threads(1)
    for folder in sys.argv[1:]:
        ck = ref.Checkpoint(folder)
        use_nn = ck.config["scale"] and ck.config["bias"]
        time_training(ck, use_nn)  # warm-up (allocator, BLAS)
        rate, loss = time_training(ck, use_nn)
        lab_loss = float(ck.array("loss.npy")[-1])
        print(f"torch {os.path.basename(folder.rstrip('/'))}: {rate:.1f} steps/s ({'nn layers' if use_nn else 'functional'}, "
              f"{ck.steps} steps, last loss {loss:.4f}; lab {lab_loss:.4f})")
    print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} thread (OpenBLAS: OPENBLAS_NUM_THREADS="
          f"{os.environ['OPENBLAS_NUM_THREADS']}), BLAS: {ref.blas_library()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
