#!/usr/bin/env python3
"""compare_torch.py — Attention Lab vs PyTorch, timed in the same run (figures only).

Runs the lab's benchmark natively (attnlab bench --json) and compiled to wasm under
Node (lab_bench.js --json), times PyTorch's nn.MultiheadAttention forward (one
thread, per-head weights, causal mask) on the same shapes, and prints the ratios.
The native benchmark and PyTorch take turns, ROUNDS times: on a shared machine the speed
of the moment drifts by ±15 % within a minute, and a ratio of two figures taken minutes
apart measures the drift. Figures are medians over the rounds; each round's ratio is printed.

    /usr/bin/python3 tests/bench/compare_torch.py build/native/attnlab build/web/lab_bench.js
"""
import json
import os
import statistics
import subprocess
import sys
import time

# One thread means one for the BLAS too: Debian's OpenBLAS (pthread build) starts a thread
# per core whatever torch.set_num_threads says, and reads the count when it loads. The
# all-cores figure (what a user gets by default) comes from a child process run without it.
ALL_CORES = "--torch-all-cores" in sys.argv
if not ALL_CORES:
    os.environ["OPENBLAS_NUM_THREADS"] = "1"

import torch  # noqa: E402

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
        times, cpu = [], []
        for _ in range(repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            mha(x, x, x, attn_mask=mask, need_weights=True, average_attn_weights=False)
            cpu.append((time.process_time() - c0) * 1000)
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), statistics.median(cpu)


def openblas_threads():
    """The thread count OpenBLAS itself reports (None when another BLAS is loaded)."""
    import ctypes
    for lib in blas_library().split(", "):
        if "openblas" in lib:
            try:
                return ctypes.CDLL(lib).openblas_get_num_threads()
            except (OSError, AttributeError):
                return None
    return None


def torch_all_cores():
    """PyTorch's wall and CPU ms per case with every core (a child process: the BLAS reads its thread count once)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, __file__, "--torch-all-cores"], check=True, capture_output=True,
                         text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def blas_library():
    """Which BLAS this PyTorch process mapped (Debian's generic build follows libblas.so.3's alternative)."""
    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line}
    return ", ".join(sorted(libs)) or "unknown"


def lab_run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


ROUNDS = 5


def median_of(rounds, key):
    """The median over rounds of one figure of a case (key: a function of the case's JSON)."""
    return statistics.median(key(r) for r in rounds)


def verdict(ok):
    return "met" if ok else "NOT met"


def main():
    if ALL_CORES:
        torch_ms(1, 4, 8, 2, 1)
        times = {name: torch_ms(B, L, d, h, repeats=15 if L >= 256 else 300) for name, (B, L, d, h) in CASES.items()}
        print(json.dumps({"threads": [torch.get_num_threads(), openblas_threads()], "times": times}))
        return 0
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    torch.set_num_threads(1)
    torch_ms(1, 4, 8, 2, 1)  # loads the BLAS
    native_rounds, torch_rounds = {name: [] for name in CASES}, {name: [] for name in CASES}
    for _ in range(ROUNDS):  # the native benchmark and PyTorch in turns
        native_run = lab_run([sys.argv[1], "bench", "--json"])
        for c in native_run["cases"]:
            native_rounds[c["name"]].append(c)
        for name, (B, L, d, h) in CASES.items():
            torch_rounds[name].append(torch_ms(B, L, d, h, repeats=15 if L >= 256 else 300))
    wasm_run = lab_run(["node", "--no-experimental-fetch", sys.argv[2], "--json"])
    wasm = {c["name"]: c for c in wasm_run["cases"]}
    native = {name: {"trace_ms": {"median": median_of(rs, lambda c: c["trace_ms"]["median"])},
                     "trace_cpu_ms": {"median": median_of(rs, lambda c: c["trace_cpu_ms"]["median"])},
                     "recompute_ms": {"median": median_of(rs, lambda c: c["recompute_ms"]["median"])},
                     "recompute_cpu_ms": {"median": median_of(rs, lambda c: c["recompute_cpu_ms"]["median"])},
                     "compute_ms": median_of(rs, lambda c: c["compute_ms"]),
                     "peak_memory_mb": max(c["peak_memory_mb"] for c in rs)}
              for name, rs in native_rounds.items()}
    blas = blas_library()
    print(f"PyTorch {torch.__version__}, 1 thread (torch {torch.get_num_threads()}, OpenBLAS {openblas_threads()}), "
          f"BLAS: {blas}; lab times are medians of the full trace "
          "(every intermediate recorded + invariant checks) and of its compute stages; "
          f"native and PyTorch: medians over {ROUNDS} rounds taken in turns, wasm: one run")
    if "openblas" not in blas.lower():
        print("WARNING: PyTorch did not load OpenBLAS (scripts/install-deps.sh bench installs libopenblas0-pthread)")
    print(f"{'case':26} {'torch ms':>9} {'native ms':>10} {'(compute)':>10} {'wasm ms':>9} {'(compute)':>10}"
          f" {'torch/native':>13} {'wasm/torch':>11}")
    wall, cpu, inplace = {}, {}, {}
    for name in CASES:
        t, t_cpu = (statistics.median(r[i] for r in torch_rounds[name]) for i in (0, 1))
        n, w = native[name], wasm[name]
        wall[name] = (t, n["trace_ms"]["median"], w["trace_ms"]["median"])
        cpu[name] = (t_cpu, n["trace_cpu_ms"]["median"], w["trace_cpu_ms"]["median"])
        print(f"{name:26} {t:9.3f} {n['trace_ms']['median']:10.3f} {n['compute_ms']:10.3f} "
              f"{w['trace_ms']['median']:9.3f} {w['compute_ms']:10.3f} "
              f"{t / n['trace_ms']['median']:12.2f}x {w['trace_ms']['median'] / t:10.2f}x")
    print("CPU time (what each computation used of a core; on a busy machine wall time also counts waiting):")
    for name, (t, n, w) in cpu.items():
        print(f"{name:26} {t:9.3f} {n:10.3f} {'':10} {w:9.3f} {'':10} {t / n:12.2f}x {w / t:10.2f}x")
    print("in place (the page's knob change: the previous trace's buffers reused, no new memory to fault in):")
    for name in CASES:
        n = native[name]["recompute_ms"]["median"], native[name]["recompute_cpu_ms"]["median"]
        w = wasm[name]["recompute_ms"]["median"], wasm[name]["recompute_cpu_ms"]["median"]
        inplace[name] = (n, w)
        print(f"{name:26} native {n[0]:9.3f} ms (CPU {n[1]:8.3f})   wasm {w[0]:9.3f} ms (CPU {w[1]:8.3f})   "
              f"torch/native {wall[name][0] / n[0]:.2f}x (CPU {cpu[name][0] / n[1]:.2f}x)")
    every = torch_all_cores()
    print(f"PyTorch with every core (torch {every['threads'][0]} threads, OpenBLAS {every['threads'][1]}; "
          "what a user gets by default; the lab uses one thread):")
    for name in CASES:
        t, t_cpu = every["times"][name]
        print(f"{name:26} wall {t:9.3f} ms (CPU {t_cpu:8.3f})   torch/native {t / wall[name][1]:.2f}x, "
              f"in place {t / inplace[name][0][0]:.2f}x")
    print(f"each round's torch/native (full trace, wall), in turn: the spread is the machine's drift")
    for name in CASES:
        ratios = [t[0] / n["trace_ms"]["median"] for t, n in zip(torch_rounds[name], native_rounds[name])]
        print(f"{name:26} " + " ".join(f"{r:.2f}x" for r in ratios) + f"   median {statistics.median(ratios):.2f}x")
    load = os.getloadavg()[0]
    print(f"load average {load:.2f} on {os.cpu_count()} cores" + ("  (busy machine: wall times inflated)" if load > 1.5 else ""))
    for name in ("B1_L512_d512_h8_causal", "B2_L10_d512_h8_causal"):
        for label, (t, n, _) in (("wall", wall[name]), ("CPU", cpu[name])):
            print(f"target: native full trace at least as fast as PyTorch+OpenBLAS at {name} ({label}): "
                  f"torch/native {t / n:.2f}x >= 1   {verdict(t >= n)}")
        (n_wall, n_cpu), _ = inplace[name]
        print(f"        in place (knob change): wall {wall[name][0] / n_wall:.2f}x {verdict(wall[name][0] >= n_wall)}, "
              f"CPU {cpu[name][0] / n_cpu:.2f}x {verdict(cpu[name][0] >= n_cpu)}")
    big = "B1_L512_d512_h8_causal"
    for label, times in (("wall", wall), ("CPU", cpu)):
        w512 = times[big][2]
        print(f"target: wasm full trace at B1_L512 <= 100 ms under Node ({label}): {w512:.1f} ms   {verdict(w512 <= 100)}")
    w_wall, w_cpu = inplace[big][1]
    print(f"        in place (knob change): wall {w_wall:.1f} ms {verdict(w_wall <= 100)}, CPU {w_cpu:.1f} ms {verdict(w_cpu <= 100)}")
    print(f"memory: L512 trace peak RSS native {native[big]['peak_memory_mb']:.1f} MB, wasm heap "
          f"{wasm[big]['peak_memory_mb']:.1f} MB; training (reverse, 200 steps, measured first) peak RSS native "
          f"{native_run['training']['peak_memory_mb']:.1f} MB, wasm heap {wasm_run['training']['peak_memory_mb']:.1f} MB "
          "(growth across 1,000 knob changes: tests/test_memory.cpp, native and wasm)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
