#!/usr/bin/env python3
"""compare_train.py — training speed figures (nothing passes or fails on speed).

1. Steps to 99 % held-out exact accuracy and wall time per task at the CLI's defaults, natively
   and compiled to wasm under Node (`attnlab train --target-exact 0.99`, evaluating every 10
   steps, every 50 for induction whose greedy evaluation is longer): training time and
   evaluation time apart.
2. Steps/s of the lab natively against PyTorch training the same model on the same batches
   in the same run (tests/bench/train_torch.py: one thread, the BLAS it loaded is printed).

    /usr/bin/python3 tests/bench/compare_train.py build/native/attnlab build/web/attnlab.js OUT_DIR
"""
import os
import re
import shutil
import subprocess
import sys

DONE = re.compile(r"done: (\d+) steps in ([\d.]+) s training \(([\d.]+) steps/s\) \+ ([\d.]+) s evaluation; "
                  r"held-out exact acc ([\d.]+)")

TASKS = {  # the CLI's defaults per task, capped at these steps
    "copy": "--task copy --steps 600 --eval-every 10",
    "reverse": "--task reverse --steps 600 --eval-every 10",
    "sort": "--task sort --steps 2000 --eval-every 10",
    "induction": "--task induction --steps 3000 --eval-every 50",
    "coref": "--task coref --steps 600 --eval-every 10",  # the pronoun task (zh), encoder-only
    "translate": "--task translate --steps 600 --eval-every 25",  # English -> Chinese, greedy decoding to 。
}


def lab(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = DONE.search(out)
    if not m:
        raise RuntimeError(f"no summary line in: {out[-400:]}")
    steps, train_s, rate, eval_s, exact = m.groups()
    return int(steps), float(train_s), float(rate), float(eval_s), float(exact)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    native, wasm, out = sys.argv[1], ["node", "--no-experimental-fetch", sys.argv[2]], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    print("steps to 99% held-out exact accuracy (256 held-out sequences)")
    print(f"{'task':10} {'steps':>6} {'native train s':>15} {'+ eval s':>9} {'wasm train s':>13} {'+ eval s':>9}"
          f" {'wasm total s':>13} {'exact':>6}")
    for task, flags in TASKS.items():
        args = ["train"] + flags.split() + ["--target-exact", "0.99", "--quiet"]
        n = lab([native] + args)
        w = lab(wasm + args)
        print(f"{task:10} {n[0]:6d} {n[1]:15.3f} {n[3]:9.3f} {w[1]:13.3f} {w[3]:9.3f} {w[1] + w[3]:13.3f} {n[4]:6.3f}"
              + ("" if n[0] == w[0] else f"   (wasm: {w[0]} steps)"))

    print()
    print("steps/s on the same batches: lab natively, lab in wasm, PyTorch (nn.Transformer*Layer stacks + Adam)")
    folders, native_rates = [], {}
    for name, flags in {"reverse": "--task reverse", "induction": "--task induction", "coref": "--task coref",
                        "translate": "--task translate"}.items():
        folder = os.path.join(out, name)
        shutil.rmtree(folder, ignore_errors=True)
        args = ["train"] + flags.split() + ["--steps", "200", "--eval-every", "1000000", "--quiet"]
        n = lab([native] + args + ["--out", folder])
        w = lab(wasm + args)
        folders.append(folder)
        native_rates[name] = n[2]
        print(f"lab {name}: native {n[2]:.1f} steps/s, wasm {w[2]:.1f} steps/s ({n[0]} steps)")
    torch_out = subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(os.path.abspath(__file__)), "train_torch.py")]
                               + folders, check=True, capture_output=True, text=True).stdout
    print(torch_out, end="")
    rates = dict(re.findall(r"torch (\w+): ([\d.]+) steps/s", torch_out))
    for name, rate in native_rates.items():
        print(f"{name}: lab native / PyTorch = {rate / float(rates[name]):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
