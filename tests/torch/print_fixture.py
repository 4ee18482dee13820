#!/usr/bin/env python3
"""print_fixture.py — how PyTorch prints tensors, for `attnlab trace --print`.

    /usr/bin/python3 tests/torch/print_fixture.py build/native/attnlab > tests/fixtures/print/torch_print.txt

Two kinds of case, each followed by repr(tensor) as Debian's PyTorch 1.13 prints it:
  case NAME / shape ... / bits ...   float32 values chosen to reach every branch of
                                     torch/_tensor_str.py (fixed, integer and scientific
                                     notation, NaN and inf, summarising, line wrapping);
  cli NAME / args ...                the lab's own numbers: `attnlab trace ARGS --out DIR`
                                     written as .npy, loaded here and indexed [item, head]
                                     as `attnlab trace ARGS --print T --item B --head H` does.
tests/test_torch_print.cpp prints the same values with the lab and compares.
"""
import json
import math
import pathlib
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch


def crafted():
    g = torch.Generator().manual_seed(0)
    yield "randn_4x4", torch.randn(4, 4, generator=g)
    yield "softmax_rows", torch.softmax(torch.randn(3, 5, generator=g) * 3, dim=-1)
    yield "causal_weights", torch.softmax(torch.randn(4, 4, generator=g).masked_fill(torch.triu(torch.ones(4, 4), 1) == 1, -math.inf), -1)
    yield "small_values_sci", torch.tensor([[1e-6, 0.5, 0.25], [3e-5, 1.0, -0.75]])
    yield "large_ratio_sci", torch.tensor([[1.5, 2500.25], [-3.0, 0.001]])
    yield "ints", torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    yield "ints_wide_range", torch.tensor([1.0, 20000.0, -3.0])
    yield "ints_huge", torch.tensor([3.0e9, 1.0])
    yield "zeros", torch.zeros(2, 3)
    yield "negative_zero", torch.tensor([[-0.0, 1.0], [2.0, -3.0]])
    yield "nan_inf", torch.tensor([[math.nan, 0.5, -math.inf], [math.inf, -0.125, 2.0]])
    yield "nan_rows", torch.tensor([[math.nan] * 4, [0.25, 0.25, 0.25, 0.25]])
    yield "all_nan", torch.full((2, 2), math.nan)
    yield "minus_1e9", torch.tensor([[0.5, -1e9], [-1e9, -1e9]])
    yield "wide_row", torch.randn(1, 23, generator=g)
    yield "vector_long", torch.randn(2000, generator=g)
    yield "vector_wrap", torch.randn(17, generator=g) * 100
    yield "matrix_40x40", torch.randn(40, 40, generator=g)
    yield "matrix_10x512", torch.randn(10, 512, generator=g)
    yield "three_d", torch.randn(2, 3, 4, generator=g)
    yield "three_d_big", torch.randn(8, 20, 10, generator=g)
    yield "four_d", torch.randn(2, 2, 2, 3, generator=g)
    yield "tiny_mixed", torch.tensor([[0.0001, 0.00012], [0.5, 1.0]])


CLI = [
    ("tiny_causal_weights_0_0", "--print weights --item 0 --head 0"),
    ("tiny_causal_weights_1_1", "--print weights --item 1 --head 1"),
    ("tiny_scores", "--print scores --item 0 --head 1"),
    ("tiny_mask", "--print mask"),
    ("tiny_padding_nan", "--mask padding:4,0 --print weights --item 1 --head 0"),
    ("tiny_padding_1e9_masked", "--mask padding:4,2 --mask-fill 1e9 --print masked --item 1 --head 1"),
    ("tiny_output", "--print output --item 1"),
    ("paper_weights", "--d-model 512 --heads 8 --seq-len 10 --print weights --item 0 --head 3"),
    ("paper_output", "--d-model 512 --heads 8 --seq-len 10 --print output --item 1"),
    ("paper_w_q", "--d-model 512 --heads 8 --seq-len 10 --print w_q"),
    ("paper_pe", "--d-model 512 --heads 8 --seq-len 10 --print pe"),
    ("unscaled_scores", "--d-model 64 --heads 1 --seq-len 6 --no-scale --print scores"),
    ("cross_k_heads", "--cross --seq-len 3 --kv-len 5 --print k_heads --item 1 --head 1"),
    ("b_q", "--print b_q"),
]


def bits(t):
    return " ".join("%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in t.reshape(-1).tolist())


def cli_tensor(attnlab, args):
    """The tensor `--print` names, indexed as the lab does: a leading B by --item, then h by --head."""
    words = args.split()
    at = words.index("--print")
    name = words[at + 1]
    picks = {"B": 0, "h": 0}
    for flag, dim in (("--item", "B"), ("--head", "h")):
        if flag in words:
            picks[dim] = int(words[words.index(flag) + 1])
    rest = [w for i, w in enumerate(words) if not (at <= i <= at + 1) and w not in ("--item", "--head")
            and not (i > 0 and words[i - 1] in ("--item", "--head"))]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([attnlab, "trace", *rest, "--out", d], check=True, stdout=subprocess.DEVNULL)
        manifest = json.loads(pathlib.Path(d, "manifest.json").read_text())
        dims = next(t["dims"] for t in manifest["tensors"] if t["name"] == name)
        t = torch.from_numpy(np.load(pathlib.Path(d, name + ".npy")))
    for dim in ("B", "h"):
        if dims and dims[0] == dim:
            t, dims = t[picks[dim]], dims[1:]
    return t


def main():
    attnlab = sys.argv[1]
    print(f"# repr() of PyTorch {torch.__version__} (tests/torch/print_fixture.py)")
    for name, t in crafted():
        print(f"case {name}\nshape {' '.join(map(str, t.shape))}\nbits {bits(t.float())}\nrepr\n{t.float()!r}\nend")
    for name, args in CLI:
        print(f"cli {name}\nargs {args}\nrepr\n{cli_tensor(attnlab, args)!r}\nend")


if __name__ == "__main__":
    main()
