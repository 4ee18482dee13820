#!/usr/bin/env python3
"""compare_torch.py — Attention Lab vs PyTorch, timed in the same run (figures only).

Runs the lab's benchmark natively (attnlab bench --json) and compiled to wasm under
Node (lab_bench.js --json), times PyTorch's nn.MultiheadAttention forward (one
thread, per-head weights, causal mask) on the same shapes, and prints the ratios.

    /usr/bin/python3 tests/bench/compare_torch.py build/native/attnlab build/web/lab_bench.js
"""
import json
import statistics
import subprocess
import sys
import time

import torch

CASES = {  # name -> (B, L, d_model, h), as in src/cli/bench.cpp
    "B1_L512_d512_h8_causal": (1, 512, 512, 8),
    "B2_L10_d512_h8_causal": (2, 10, 512, 8),
    "B2_L4_d8_h2_causal": (2, 4, 8, 2),
}


def torch_ms(B, L, d, h, repeats):
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(d, h, batch_first=True)
    x = torch.randn(B, L, d)
    mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)  # True = masked (future)
    with torch.no_grad():
        for _ in range(3):
            mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def blas_library():
    """Which BLAS this PyTorch process mapped (Debian's generic build follows libblas.so.3's alternative)."""
    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line}
    return ", ".join(sorted(libs)) or "unknown"


def lab_run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {c["name"]: c for c in json.loads(out.strip().splitlines()[-1])["cases"]}


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    torch.set_num_threads(1)
    native = lab_run([sys.argv[1], "bench", "--json"])
    wasm = lab_run(["node", "--no-experimental-fetch", sys.argv[2], "--json"])
    torch_ms(1, 4, 8, 2, 1)  # loads the BLAS
    print(f"PyTorch {torch.__version__}, 1 thread, BLAS: {blas_library()}; lab times are medians of the full trace "
          "(every intermediate recorded + invariant checks) and of its compute stages")
    print(f"{'case':26} {'torch ms':>9} {'native ms':>10} {'(compute)':>10} {'wasm ms':>9} {'(compute)':>10}"
          f" {'torch/native':>13} {'wasm/torch':>11}")
    for name, (B, L, d, h) in CASES.items():
        t = torch_ms(B, L, d, h, repeats=15 if L >= 256 else 300)
        n, w = native[name], wasm[name]
        print(f"{name:26} {t:9.3f} {n['trace_ms']['median']:10.3f} {n['compute_ms']:10.3f} "
              f"{w['trace_ms']['median']:9.3f} {w['compute_ms']:10.3f} "
              f"{t / n['trace_ms']['median']:12.2f}x {w['trace_ms']['median'] / t:10.2f}x")
    print("targets (issue #5): wasm/torch <= 1.0 at B1_L512; torch/native >= 4 (native 4x faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
