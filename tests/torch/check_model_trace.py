"""check_model_trace.py — PyTorch recomputes `attnlab trace --checkpoint DIR --out DUMP`:
every forward tensor of the stepper's ten stages and of the block's four (embed, add & norm,
FFN, generator) and every gradient of the backward view, from the checkpoint and the
dumped sample alone — FunctionalModel (train_reference.py) in float64 with autograd, its
intermediates kept through its tap() hook — and the logits once more through PyTorch's own
nn.TransformerEncoderLayer / nn.TransformerDecoderLayer stacks loaded with load_state_dict.

usage: /usr/bin/python3 check_model_trace.py DUMP     (exit 0 when everything agrees)
"""
import json
import math
import os
import sys

import numpy as np
import torch

from train_reference import Checkpoint, FunctionalModel, kv_heads, nn_model, positional_encoding

ATTENTION = ["q", "k", "v", "q_heads", "k_groups", "v_groups", "k_heads", "v_heads", "scores", "scaled", "masked", "weights", "context",
             "concat", "output"]


class Recording(FunctionalModel):
    """Keeps every intermediate (first use of a name) with its gradient."""

    def __init__(self, config, state, dtype):
        super().__init__(config, state, dtype)
        self.rec = {}

    def tap(self, name, t):
        if t.requires_grad:
            t.retain_grad()
        self.rec.setdefault(name, t)
        return t


def names(info, cfg):
    """The dump's tensor names -> the Recording's names."""
    block = info["block_name"]
    layer = block.rsplit(".", 1)[0]
    k = 2 if info["kind"] == "cross" else 1
    encdec = cfg["model"] == "encoder_decoder"
    f = 3 if encdec and not layer.startswith("encoder") else 2
    stream = "src" if info["kind"] == "enc_self" and encdec else "dec"  # encoder-only: its stream is dec_in
    top = ("decoder.layers." if encdec else "layers.") + str(cfg["layers"] - 1) + (".norm3" if encdec else ".norm2")
    out = {n: f"{block}/{n}" for n in ATTENTION}
    out.update({"x": block + "/x", "query_in": block + "/x", "memory": block + "/mem", "key_value_in": block + "/mem",
                "embed": stream + "_embed", "embed_out": stream + "_x", "residual": f"{layer}.norm{k}/in",
                "norm_out": f"{layer}.norm{k}/out", "ffn_in": layer + "/ffn_in", "ffn_hidden": layer + "/ffn_hidden",
                "ffn_relu": layer + "/ffn_relu", "ffn_out": layer + "/ffn_out", "ffn_residual": f"{layer}.norm{f}/in",
                "layer_out": f"{layer}.norm{f}/out", "top": top + "/out", "logits": "logits"})
    return out, layer, k, f


def params(info, cfg):
    """The dump's parameter tensors -> (state_dict key, how to cut it into the lab's (d_in, d_out) layout)."""
    block, d = info["block_name"], cfg["d_model"]
    layer = block.rsplit(".", 1)[0]
    _, _, k, f = names(info, cfg)
    kv = kv_heads(cfg) * (d // cfg["heads"])  # K's and V's rows of in_proj: d, or h_kv * d_k when shared
    rows = lambda a, b: (lambda t: t[a:b].T)
    out = {"w_q": (block + ".in_proj_weight", rows(0, d)), "w_k": (block + ".in_proj_weight", rows(d, d + kv)),
           "w_v": (block + ".in_proj_weight", rows(d + kv, d + 2 * kv)), "w_o": (block + ".out_proj.weight", lambda t: t.T),
           "embedding": ("embedding.weight", None), "norm_w": (f"{layer}.norm{k}.weight", None),
           "norm_b": (f"{layer}.norm{k}.bias", None), "w_1": (layer + ".linear1.weight", lambda t: t.T),
           "b_1": (layer + ".linear1.bias", None), "w_2": (layer + ".linear2.weight", lambda t: t.T),
           "b_2": (layer + ".linear2.bias", None), "ffn_norm_w": (f"{layer}.norm{f}.weight", None),
           "ffn_norm_b": (f"{layer}.norm{f}.bias", None), "w_gen": ("generator.weight", lambda t: t.T),
           "b_gen": ("generator.bias", None)}
    if cfg["bias"]:
        out.update({"b_q": (block + ".in_proj_bias", lambda t: t[:d]), "b_k": (block + ".in_proj_bias", lambda t: t[d:d + kv]),
                    "b_v": (block + ".in_proj_bias", lambda t: t[d + kv:]), "b_o": (block + ".out_proj.bias", None)})
    return out


def error(lab, ref):
    """max |lab - ref| and max |ref| (NaN-aware: matching NaNs are equal)."""
    lab, ref = np.asarray(lab, np.float64), np.asarray(ref, np.float64)
    if lab.shape != ref.shape:
        return math.inf, 0.0
    same = (np.isnan(lab) & np.isnan(ref)) | (lab == ref)  # NaN where both are, and equal infinities
    with np.errstate(invalid="ignore"):
        diff = np.where(same, 0.0, np.abs(lab - ref))
    return float(np.nan_to_num(diff, nan=math.inf).max()), float(np.abs(ref[np.isfinite(ref)]).max(initial=0.0))


def main(dump):
    with open(os.path.join(dump, "manifest.json")) as fh:
        manifest = json.load(fh)
    info = manifest["model"]
    ck = Checkpoint(info["checkpoint"])
    cfg = ck.config
    state = ck.params(info["part"])
    model = Recording(cfg, state, torch.float64)
    t = lambda a: torch.tensor([a], dtype=torch.long)
    src = t(info["src"]) if info["src"] else None
    dec_in, dec_out = t(info["dec_in"]), t(info["dec_out"])
    mask = torch.tensor([info["loss_mask"]], dtype=torch.uint8) if info["loss_mask"] else None
    loss = model.loss(src, dec_in, dec_out, mask)
    loss.backward()
    load = lambda name: np.load(os.path.join(dump, name + ".npy"))
    rec, _, _, _ = names(info, cfg)
    par = params(info, cfg)
    stream = src if src is not None and info["kind"] == "enc_self" else dec_in
    consts = {"tokens": stream.numpy().astype(np.float32), "targets": dec_out.numpy().astype(np.float32),
              "probs": torch.softmax(model.rec["logits"], -1).detach().numpy(),
              "embed_pe": (state["pos_embedding.weight"][: stream.shape[1]] if model.learned  # Table 3 row E
                           else positional_encoding(stream.shape[1], cfg["d_model"]))}
    failures, worst_fwd, worst_grad, counted = [], 0.0, (0.0, ""), [0, 0]
    for entry in manifest["tensors"]:
        n = entry["name"]
        if n in rec:
            ref = model.rec[rec[n]].detach().numpy()
        elif n in par:
            key, cut = par[n]
            ref = state[key] if cut is None else cut(state[key])
        elif n in consts:
            ref = consts[n]
        else:
            continue  # the mask: compared through masked and weights
        err, scale = error(load(n), ref)
        rel = err / (1 + scale)
        worst_fwd = max(worst_fwd, rel)
        counted[0] += 1
        if not rel <= 2e-5:
            failures.append(f"{n}: max |lab - torch| {err:.3g} at scale {scale:.3g}")
    for entry in manifest["grads"]:
        n = entry["name"][2:]
        if n in rec:
            g = model.rec[rec[n]].grad
        else:
            key, cut = par[n]
            g = model.p[key].grad
            g = g if cut is None else cut(g)
        err, scale = error(load("d_" + n), g.detach().numpy())
        if scale > 1e-5 and err / scale > worst_grad[0]:
            worst_grad = (err / scale, "d_" + n)
        counted[1] += 1
        if not err <= 1e-4 * scale + 1e-6:
            failures.append(f"d_{n}: max |lab - autograd| {err:.3g} at scale {scale:.3g}")
    logits_note = ""
    if cfg["scale"] and cfg["bias"] and cfg["pe"]:
        # PyTorch's own layers, run in float64 (the exact answer) and in float32 (how far float32
        # itself lands from it, on whatever BLAS this process mapped). The lab's float32 logits must
        # be as close to the float64 ones as a float32 forward pass gets: 4x PyTorch's own float32
        # error, and never less than 32 float32 ulps of the largest logit (so the verdict does not
        # hang on how accurate the mapped BLAS happens to be). A wrong layer misses by >= 1e-3.
        nn32 = nn_model(ck, info["part"])
        nn64 = nn_model(ck, info["part"]).double()
        with torch.no_grad():
            exact = nn64(src, dec_in).numpy()
            own, _ = error(nn32(src, dec_in).numpy(), exact)
        err, scale = error(load("logits"), exact)
        bound = max(4 * own, 32 * float(np.finfo(np.float32).eps) * (1 + scale))
        logits_note = (f", nn.Transformer*Layer logits (float64) max |diff| {err:.2g} of {bound:.2g} (PyTorch float32 "
                       f"{own:.2g}, largest |logit| {scale:.3g})")
        if not err <= bound:
            failures.append(f"logits vs nn.TransformerEncoderLayer/DecoderLayer in float64: {err:.3g}, more than "
                            f"{bound:.3g} (PyTorch's own float32 error {own:.3g})")
    lab_loss = manifest["loss"]
    if not abs(lab_loss - loss.item()) <= 1e-5 * (1 + abs(loss.item())):
        failures.append(f"loss: lab {lab_loss} vs torch {loss.item()}")
    for f in failures:
        print("FAIL", f)
    print(f"{info['task']} {info['block_name']} sample {info['sample']}: {counted[0]} tensors (worst |diff|/(1+scale) "
          f"{worst_fwd:.2g}) and {counted[1]} gradients (worst |diff|/scale {worst_grad[0]:.2g}, {worst_grad[1]}) agree with PyTorch autograd "
          f"(float64), loss {loss.item():.6g}{logits_note}" if not failures else f"{len(failures)} mismatches")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
