#!/usr/bin/python3
"""Attention Lab - check a tensor dump against PyTorch.

Usage: /usr/bin/python3 tests/torch/check_dump.py DIR [--tol T]

DIR is a dump written by `attnlab trace --out DIR` (or a golden fixture directory:
same format). The inputs x, memory, w_*, b_*, mask and the config are taken from the
dump; every tensor is recomputed with the explicit PyTorch pipeline (tests/torch/reference.py)
and, where it applies (scale on), cross-checked with torch's multi_head_attention_forward.
A dumped tensor matches when NaN/inf positions agree and |got - want| <= tol * max(1, max |want|)
+ tol * |want| holds: a float32 dot product over d_model terms carries the rounding of its
largest terms, so a near-zero entry is judged at the tensor's scale (PyTorch with OpenBLAS
rounds such entries differently from the reference BLAS). tol defaults to the agreement
tolerance for float32 sums of d_model terms, (4 * d_model + 16) * 2**-24 (reference.agreement_tol:
2.9e-6 at d_model 8, 1.2e-4 at 512).

Exit status: 0 all match, 1 mismatch, 2 malformed dump.
"""

import argparse
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref  # noqa: E402


def malformed(msg):
    print("check_dump: malformed dump: %s" % msg)
    sys.exit(2)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Compare an Attention Lab dump with a PyTorch recomputation.")
    ap.add_argument("dir", help="dump directory containing manifest.json")
    ap.add_argument("--tol", type=float, default=None,
                    help="atol = rtol (default: the agreement tolerance for the dump's d_model)")
    args = ap.parse_args(argv)

    try:
        config, arrays = ref.load_dump(args.dir)
    except ref.MalformedDump as e:
        malformed(str(e))

    names = ref.expected_names(config)
    missing = [n for n in names if n not in arrays and not (n == "memory" and not config["cross"])]
    if missing:
        malformed("missing tensors: %s" % ", ".join(missing))
    extra = sorted(set(arrays) - set(names))
    if extra:
        print("check_dump: note: ignoring unexpected tensors: %s" % ", ".join(extra))

    T = {n: torch.from_numpy(np.array(a, dtype=np.float32)) for n, a in arrays.items()}
    d = config["d_model"]
    tol = args.tol if args.tol is not None else ref.agreement_tol(d)
    x = T["x"]
    memory = T["memory"] if config["cross"] else x
    params = {n: T[n] for n in ("w_q", "w_k", "w_v", "w_o")}
    for n in ("b_q", "b_k", "b_v", "b_o"):
        width = ref.tensor_shape(config, n)[0]                      # d_model, or h_kv * d_k for b_k, b_v
        params[n] = T[n] if config["bias"] else torch.zeros(width)  # dumped biases are then checked == 0
    mask = T["mask"]
    if not bool(((mask == 0) | (mask == 1)).all()):
        print("check_dump: note: mask has values other than 0/1")

    if config.get("raw"):
        return check_raw(config, arrays, T, tol)
    with torch.no_grad():
        expect = ref.explicit_pipeline(config, x, memory, params, mask)
        expect["mask"] = ref.keep_mask(config)      # the dumped mask must be the one the config implies
        for n in ("b_q", "b_k", "b_v", "b_o"):
            expect[n] = params[n]
        mha = ref.mha_pipeline(config, expect["query_in"], expect["key_value_in"], params, mask)

    rows = [(n, arrays[n], expect[n]) for n in names if n in arrays]
    if mha is None:
        mha_note = ("MHA cross-check skipped (kv_heads < heads: MHA has no shared K/V heads)" if ref.grouped(config)
                    else "MHA cross-check skipped (scale off: MHA always divides by sqrt(d_k))")
    else:
        mha_note = "MHA cross-check on q, k, v, weights, output"
        rows += [("mha:" + n, arrays[n], mha[n]) for n in ("q", "k", "v", "weights", "output")]
    return report(rows, tol, mha_note)


def check_raw(config, arrays, T, tol):
    """A raw SDPA dump (config "raw"): Q, K, V from the dump, every tensor recomputed with the
    tutorial's scaled_dot_product_attention (tests/torch/reference.raw_sdpa_pipeline) and, where
    this torch has it, F.scaled_dot_product_attention; the shapes are the tutorial's."""
    Q, K, V = T["q"], T["k"], T["v"]
    B, L, d = config["batch"], config["seq_len"], config["d_model"]
    if config["heads"] != 1 or list(Q.shape) != [B, L, d] or list(K.shape) != [B, config["kv_len"], d]:
        print("check_dump: raw dump with heads=%d, q %s, k %s: not (B, L, d_k)" % (config["heads"], list(Q.shape), list(K.shape)))
        return 1
    mask = ref.keep_mask(config)
    with torch.no_grad():
        expect = ref.raw_sdpa_pipeline(config, Q, K, V, mask)
        sdpa = ref.torch_sdpa(config, Q, K, V, mask)
    print("raw SDPA: scores %s, output %s (the tutorial prints torch.Size([%d, %d, %d]) and torch.Size([%d, %d, %d]))"
          % (tuple(expect["weights"].squeeze(1).shape), tuple(expect["output"].shape), B, L, config["kv_len"], B, L, d))
    rows = [(n, arrays[n], expect[n]) for n in ref.expected_names(config) if n in arrays]
    if sdpa is None:
        note = "F.scaled_dot_product_attention cross-check skipped (%s)" % (
            "scale off" if hasattr(F, "scaled_dot_product_attention") else "torch %s lacks it" % torch.__version__)
    else:
        note = "F.scaled_dot_product_attention cross-check on context"
        rows.append(("sdpa:context", arrays["context"], sdpa))
    return report(rows, tol, note)


def report(rows, tol, mha_note):
    """Prints one line per (name, dumped, expected) and the verdict; 0 when all match."""
    worst, failed, n_tensors = 0.0, [], 0
    print("tolerance %.3g (relative to max(1, max |want|) + |want|)" % tol)
    print("%-14s %-16s %12s" % ("tensor", "shape", "max abs err"))
    for name, got, want in rows:
        w = want.numpy()
        finite = np.abs(w[np.isfinite(w)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        ok, err, note = ref.compare(got, w, atol=tol * scale, rtol=tol)
        if not name.startswith("mha:"):
            n_tensors += 1
        worst = max(worst, err)
        if not ok:
            failed.append(name)
        nan = int(np.isnan(got).sum())
        print("%-14s %-16s %12.3g  %s%s%s" % (name, "x".join(map(str, got.shape)), err,
                                             "ok" if ok else "MISMATCH",
                                             (" (%s)" % note) if note else "",
                                             (" [%d NaN]" % nan) if nan else ""))
    print(mha_note)
    if failed:
        print("check_dump: %d tensors, max abs err %.2g, MISMATCH in %s" % (n_tensors, worst, ", ".join(failed)))
        return 1
    print("check_dump: %d tensors, max abs err %.2g, OK" % (n_tensors, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
