"""PyTorch reference for Attention Lab's multi-head attention (Vaswani et al. 2017, section 3.2).

Shared by tests/fixtures/gen_fixtures.py (writes the golden fixtures) and
tests/torch/check_dump.py (verifies a dump written by `attnlab trace --out DIR`).
Conventions and the dump format are those of the engine (see the project docs):
weights are stored (d_in, d_out) so Q = query_in @ w_q + b_q; masks are keep masks
(1 keep, 0 masked); every tensor is a little-endian float32 C-order .npy file.

Two independent computations are provided:
  explicit_pipeline()  step by step, exactly the engine's listed pipeline
  mha_pipeline()       torch.nn.functional.multi_head_attention_forward
and compare() which checks two tensors (NaN positions must agree).
"""

import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

# Tensor names in manifest order.
TENSOR_NAMES = [
    "x", "memory", "pe", "query_in", "key_value_in",
    "w_q", "w_k", "w_v", "w_o", "b_q", "b_k", "b_v", "b_o",
    "q", "k", "v", "q_heads", "k_heads", "v_heads",
    "scores", "scaled", "masked", "weights", "context", "concat", "output", "mask",
]

REQUIRED_CONFIG = ["d_model", "heads", "seq_len", "kv_len", "batch", "mask",
                   "mask_fill", "scale", "pe", "bias", "cross"]
MASK_KINDS = ("none", "causal", "padding", "custom")


class MalformedDump(Exception):
    """The dump/config is structurally invalid (checker exit code 2)."""


# ---------------------------------------------------------------- config

def fill_value(config):
    mf = config["mask_fill"]
    if isinstance(mf, str):
        mf = mf.strip()
        if mf == "-inf":
            return float("-inf")
        if mf == "-1e9":
            return -1e9
        raise MalformedDump("mask_fill must be \"-inf\" or \"-1e9\", got %r" % mf)
    if isinstance(mf, (int, float)) and not isinstance(mf, bool):
        return float(mf)
    raise MalformedDump("mask_fill must be \"-inf\" or \"-1e9\", got %r" % (mf,))


def validate_config(config):
    """Raise MalformedDump unless config has every key the pipeline needs."""
    if not isinstance(config, dict):
        raise MalformedDump("config is not an object")
    missing = [k for k in REQUIRED_CONFIG if k not in config]
    if missing:
        raise MalformedDump("config lacks keys: %s" % ", ".join(missing))
    for k in ("d_model", "heads", "seq_len", "kv_len", "batch"):
        v = config[k]
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise MalformedDump("config.%s must be a positive int, got %r" % (k, v))
    for k in ("scale", "pe", "bias", "cross"):
        if not isinstance(config[k], bool):
            raise MalformedDump("config.%s must be a bool, got %r" % (k, config[k]))
    d_model, h = config["d_model"], config["heads"]
    if d_model % h:
        raise MalformedDump("d_model %d not divisible by heads %d" % (d_model, h))
    for k in ("d_k", "d_v"):
        if k in config and config[k] != d_model // h:
            raise MalformedDump("config.%s = %r but d_model/heads = %d" % (k, config[k], d_model // h))
    if not config["cross"] and config["kv_len"] != config["seq_len"]:
        raise MalformedDump("kv_len != seq_len without cross")
    if config["mask"] not in MASK_KINDS:
        raise MalformedDump("config.mask must be one of %s, got %r" % (MASK_KINDS, config["mask"]))
    fill_value(config)
    if config["mask"] == "padding":
        pl = config.get("padding_lengths")
        if (not isinstance(pl, list) or len(pl) != config["batch"]
                or any(not isinstance(n, int) or isinstance(n, bool) or n < 0 or n > config["kv_len"] for n in pl)):
            raise MalformedDump("padding_lengths must be %d ints in [0, kv_len]" % config["batch"])
    if config["mask"] == "custom":
        cm = config.get("custom_mask")
        ok = (isinstance(cm, list) and len(cm) == config["seq_len"]
              and all(isinstance(r, list) and len(r) == config["kv_len"] and all(c in (0, 1) for c in r) for r in cm))
        if not ok:
            raise MalformedDump("custom_mask must be seq_len x kv_len of 0/1")


def kv_heads(config):
    """Key/value heads: the manifest's kv_heads (written only when fewer than heads), else heads."""
    n = config.get("kv_heads", 0)
    return n if isinstance(n, int) and 0 < n < config["heads"] else config["heads"]


def grouped(config):
    return kv_heads(config) < config["heads"]


def tensor_dims(config):
    """Symbolic dims of every tensor (also the shape source: see tensor_shape)."""
    bl = ["B", "L_q", "d_model"]
    bkv = ["B", "L_kv", "d_model"]
    sq = ["d_model", "d_model"]
    dims = {
        "x": bl, "memory": bkv, "pe": ["L_max", "d_model"], "query_in": bl, "key_value_in": bkv,
        "w_q": sq, "w_k": sq, "w_v": sq, "w_o": sq,
        "b_q": ["d_model"], "b_k": ["d_model"], "b_v": ["d_model"], "b_o": ["d_model"],
        "q": bl, "k": bkv, "v": bkv,
        "q_heads": ["B", "h", "L_q", "d_k"], "k_heads": ["B", "h", "L_kv", "d_k"],
        "v_heads": ["B", "h", "L_kv", "d_k"],
        "scores": ["B", "h", "L_q", "L_kv"], "scaled": ["B", "h", "L_q", "L_kv"],
        "masked": ["B", "h", "L_q", "L_kv"], "weights": ["B", "h", "L_q", "L_kv"],
        "context": ["B", "h", "L_q", "d_k"], "concat": bl, "output": bl,
        "mask": ["B", "L_q", "L_kv"] if config["mask"] == "padding" else ["L_q", "L_kv"],
    }
    if grouped(config):  # W^K, W^V (d_model, h_kv * d_k); K, V's groups before repeat_interleave
        for n in ("w_k", "w_v"):
            dims[n] = ["d_model", "kv_dim"]
        for n in ("b_k", "b_v"):
            dims[n] = ["kv_dim"]
        for n in ("k", "v"):
            dims[n] = ["B", "L_kv", "kv_dim"]
        for n in ("k_groups", "v_groups"):
            dims[n] = ["B", "h_kv", "L_kv", "d_k"]
    return {k: list(v) for k, v in dims.items()}


def tensor_shape(config, name):
    sizes = {"B": config["batch"], "L_q": config["seq_len"], "L_kv": config["kv_len"],
             "L_max": max(config["seq_len"], config["kv_len"]), "d_model": config["d_model"],
             "h": config["heads"], "d_k": config["d_model"] // config["heads"], "h_kv": kv_heads(config),
             "kv_dim": kv_heads(config) * (config["d_model"] // config["heads"])}
    return [sizes[d] for d in tensor_dims(config)[name]]


def expected_names(config):
    names = [n for n in TENSOR_NAMES if n != "pe" or config["pe"]]
    return names + (["k_groups", "v_groups"] if grouped(config) else [])


# ---------------------------------------------------------------- building blocks

def sinusoidal_pe(length, d_model):
    """Sinusoidal PE as in the paper (section 3.5), computed in float64, returned float32.

    pe[pos, 2i] = sin(pos / 10000^(2i/d_model)), pe[pos, 2i+1] = cos(same angle);
    for odd d_model the last column is a sin column.
    """
    pos = torch.arange(length, dtype=torch.float64).unsqueeze(1)       # (L, 1)
    col = torch.arange(d_model, dtype=torch.float64)
    two_i = col - torch.remainder(col, 2)                               # 2i for both 2i and 2i+1
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d_model)
    pe = torch.where(torch.remainder(col, 2) == 0, torch.sin(angle), torch.cos(angle))
    return pe.to(torch.float32)


def keep_mask(config):
    """Keep mask from config: (L_q,L_kv) for none/causal/custom, (B,L_q,L_kv) for padding."""
    lq, lkv, b = config["seq_len"], config["kv_len"], config["batch"]
    kind = config["mask"]
    if kind == "none":
        return torch.ones(lq, lkv, dtype=torch.float32)
    if kind == "causal":
        return 1.0 - torch.triu(torch.ones(lq, lkv, dtype=torch.float32), 1)
    if kind == "custom":
        return torch.tensor(config["custom_mask"], dtype=torch.float32)
    if kind == "padding":
        j = torch.arange(lkv).view(1, 1, lkv)
        lens = torch.tensor(config["padding_lengths"]).view(b, 1, 1)
        return (j < lens).to(torch.float32).expand(b, lq, lkv).contiguous()
    raise MalformedDump("unknown mask kind %r" % kind)


# ---------------------------------------------------------------- path (a): explicit pipeline

def explicit_pipeline(config, x, memory, params, mask):
    """Tutorial-style step-by-step pipeline in float32. Returns every named tensor.

    params: dict w_q,w_k,w_v,w_o (d_in,d_out) and b_q,b_k,b_v,b_o (d_model), float32 tensors.
    mask: keep mask as returned by keep_mask (1 keep, 0 masked).
    """
    B, Lq, Lkv = config["batch"], config["seq_len"], config["kv_len"]
    d_model, h = config["d_model"], config["heads"]
    d_k = d_model // h
    if not config["cross"]:
        memory = x
    t = {"x": x, "memory": memory}
    t.update(params)
    if config["pe"]:
        pe = sinusoidal_pe(max(Lq, Lkv), d_model)
        t["pe"] = pe
        query_in = x + pe[:Lq]
        key_value_in = memory + pe[:Lkv]
    else:
        query_in, key_value_in = x, memory
    t["query_in"], t["key_value_in"] = query_in, key_value_in

    q = query_in @ params["w_q"] + params["b_q"]
    k = key_value_in @ params["w_k"] + params["b_k"]
    v = key_value_in @ params["w_v"] + params["b_v"]
    t["q"], t["k"], t["v"] = q, k, v

    q_heads = q.view(B, Lq, h, d_k).transpose(1, 2)
    h_kv = kv_heads(config)  # grouped-query attention: h_kv K/V heads, each read by h // h_kv query heads
    k_groups = k.view(B, Lkv, h_kv, d_k).transpose(1, 2)
    v_groups = v.view(B, Lkv, h_kv, d_k).transpose(1, 2)
    if h_kv < h:
        t["k_groups"], t["v_groups"] = k_groups, v_groups
    k_heads = k_groups.repeat_interleave(h // h_kv, dim=1)
    v_heads = v_groups.repeat_interleave(h // h_kv, dim=1)
    t["q_heads"], t["k_heads"], t["v_heads"] = q_heads, k_heads, v_heads

    scores = q_heads @ k_heads.transpose(-2, -1)
    scaled = scores / math.sqrt(d_k) if config["scale"] else scores
    m = mask if mask.dim() == 2 else mask.unsqueeze(1)        # (B,L_q,L_kv) -> (B,1,L_q,L_kv)
    masked = scaled.masked_fill(m == 0, fill_value(config))
    weights = F.softmax(masked, dim=-1)
    context = weights @ v_heads
    concat = context.transpose(1, 2).contiguous().view(B, Lq, d_model)
    output = concat @ params["w_o"] + params["b_o"]
    t.update(scores=scores, scaled=scaled, masked=masked, weights=weights,
             context=context, concat=concat, output=output, mask=mask)
    return {k: val.contiguous() for k, val in t.items()}


def raw_sdpa_pipeline(config, Q, K, V, mask):
    """Raw SDPA (config "raw": tutorial 000's first example), written as the tutorial writes it:
    scores = Q K^T (/ sqrt(d_k)), masked_fill, softmax, @ V on 3-D (B, L, d) tensors. Returns
    every tensor under the lab's names: x and the projections' inputs are Q, the weights are
    identity with zero biases, the head tensors carry a head axis of 1, concat = output = context."""
    d_k = Q.size(-1)
    scores = torch.matmul(Q, K.transpose(-2, -1))                      # (B, L_q, L_kv)
    scaled = scores / math.sqrt(d_k) if config["scale"] else scores
    masked = scaled.masked_fill(mask == 0, fill_value(config))         # (L_q, L_kv) or (B, L_q, L_kv) broadcasts
    weights = F.softmax(masked, dim=-1)
    output = torch.matmul(weights, V)                                  # (B, L_q, d_v)
    d = config["d_model"]
    t = {"x": Q, "memory": Q, "query_in": Q, "key_value_in": Q, "q": Q, "k": K, "v": V,
         "q_heads": Q.unsqueeze(1), "k_heads": K.unsqueeze(1), "v_heads": V.unsqueeze(1), "mask": mask,
         "concat": output, "output": output}
    for n in ("q", "k", "v", "o"):
        t["w_" + n], t["b_" + n] = torch.eye(d), torch.zeros(d)
    for n, val in (("scores", scores), ("scaled", scaled), ("masked", masked), ("weights", weights), ("context", output)):
        t[n] = val.unsqueeze(1)                                        # the lab's (B, 1, L_q, L_kv)
    return {k: val.contiguous() for k, val in t.items()}


def torch_sdpa(config, Q, K, V, mask):
    """torch.nn.functional.scaled_dot_product_attention (torch 2.0+), or None where this torch
    lacks it or it does not apply (scaling off: it always divides by sqrt(d_k)). Returns
    (B, 1, L_q, d_v) like the lab's context."""
    if not hasattr(F, "scaled_dot_product_attention") or not config["scale"]:
        return None
    attn_mask = None if config["mask"] == "none" else mask != 0       # bool: True = take part
    if attn_mask is not None and config["mask_fill"] != "-inf":
        attn_mask = torch.zeros(mask.shape).masked_fill(mask == 0, -1e9)
    return F.scaled_dot_product_attention(Q, K, V, attn_mask=attn_mask).unsqueeze(1)


# ---------------------------------------------------------------- path (b): torch MHA

def mha_pipeline(config, query_in, key_value_in, params, mask):
    """torch.nn.functional.multi_head_attention_forward on the same inputs.

    Returns {"q","k","v": the in-projections as MHA computes them (F.linear on the packed
    in_proj_weight), "weights": (B,h,L_q,L_kv), "output": (B,L_q,d_model)}, or None when scale is off
    (MHA always divides by sqrt(d_k), so only the explicit path applies then).
    Torch conventions: in_proj rows are Linear weights (out,in) => transpose of our (in,out);
    bool attn_mask / key_padding_mask True = masked. The -1e9 fill uses a float additive mask.
    """
    if not config["scale"] or grouped(config):  # MHA gives every head its own K and V
        return None
    B, Lq, Lkv = config["batch"], config["seq_len"], config["kv_len"]
    d_model, h = config["d_model"], config["heads"]
    fill = fill_value(config)
    attn_mask = key_padding_mask = None
    if math.isinf(fill) and fill < 0:
        if config["mask"] == "padding":
            key_padding_mask = mask[:, 0, :] == 0                        # (B, L_kv), True = ignored
        elif config["mask"] != "none":
            attn_mask = mask == 0                                        # (L_q, L_kv), True = masked
    elif config["mask"] != "none":
        full = mask if mask.dim() == 3 else mask.unsqueeze(0).expand(B, Lq, Lkv)
        add = torch.zeros(B, Lq, Lkv, dtype=torch.float32).masked_fill(full == 0, fill)
        attn_mask = add.unsqueeze(1).expand(B, h, Lq, Lkv).reshape(B * h, Lq, Lkv)
    in_w = torch.cat([params["w_q"].t(), params["w_k"].t(), params["w_v"].t()], 0)
    in_b = torch.cat([params["b_q"], params["b_k"], params["b_v"]], 0)
    out, w = F.multi_head_attention_forward(
        query_in.transpose(0, 1), key_value_in.transpose(0, 1), key_value_in.transpose(0, 1),
        d_model, h, in_w, in_b, None, None, False, 0.0,
        params["w_o"].t(), params["b_o"], training=False,
        key_padding_mask=key_padding_mask, need_weights=True, attn_mask=attn_mask,
        average_attn_weights=False)
    wq, wk, wv = in_w.chunk(3)
    bq, bk, bv = in_b.chunk(3)
    return {"q": F.linear(query_in, wq, bq), "k": F.linear(key_value_in, wk, bk),
            "v": F.linear(key_value_in, wv, bv),
            "weights": w.contiguous(), "output": out.transpose(0, 1).contiguous()}


# ---------------------------------------------------------------- comparison

def agreement_tol(d_model):
    """Tolerance of two float32 computations of the lab's tensors, sized for float32 sums
    of d_model terms (the rule of tests/compare.h, where it is explained): two roundings of
    a sum of n products differ by about 2*n*u times the terms' size (u = 2**-24); every
    tensor lies behind at most two chained sums of at most d_model terms; 16*u more for the
    elementwise steps. Judged as |got - want| <= tol * (max(1, max|want|) + |want|)."""
    return (4.0 * d_model + 16) * 2.0 ** -24


def compare(a, b, atol=1e-5, rtol=1e-5):
    """Return (ok, max_abs_err, note). NaN positions and +-inf positions must agree;
    finite entries must satisfy |a-b| <= atol + rtol*|b|. max_abs_err is over finite pairs."""
    a = torch.as_tensor(np.asarray(a), dtype=torch.float64)
    b = torch.as_tensor(np.asarray(b), dtype=torch.float64)
    if a.shape != b.shape:
        return False, float("inf"), "shape %s vs %s" % (list(a.shape), list(b.shape))
    na, nb = torch.isnan(a), torch.isnan(b)
    if not torch.equal(na, nb):
        return False, float("inf"), "NaN positions differ (%d vs %d NaN)" % (int(na.sum()), int(nb.sum()))
    ia, ib = torch.isinf(a), torch.isinf(b)
    if not torch.equal(ia, ib) or not torch.equal(a[ia], b[ib]):
        return False, float("inf"), "inf positions differ"
    fin = torch.isfinite(a) & torch.isfinite(b)
    if not fin.any():
        return True, 0.0, ""
    diff = (a[fin] - b[fin]).abs()
    ok = bool((diff <= atol + rtol * b[fin].abs()).all())
    return ok, float(diff.max()), "" if ok else "values differ"


# ---------------------------------------------------------------- dump I/O

def save_dump(out_dir, config, tensors):
    """Write manifest.json + <name>.npy ('<f4', C order) for every expected tensor."""
    os.makedirs(out_dir, exist_ok=True)
    dims = tensor_dims(config)
    entries = []
    for name in expected_names(config):
        arr = np.ascontiguousarray(tensors[name].detach().cpu().numpy(), dtype="<f4")
        assert list(arr.shape) == tensor_shape(config, name), (name, arr.shape)
        fname = name + ".npy"
        np.save(os.path.join(out_dir, fname), arr, allow_pickle=False)
        entries.append({"name": name, "file": fname, "shape": list(arr.shape), "dims": dims[name]})
    # One config key / one tensor entry per line: diff-friendly and still plain JSON.
    cfg_lines = ",\n".join("    %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in config.items())
    ent_lines = ",\n".join("    " + json.dumps(e) for e in entries)
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        f.write('{\n  "config": {\n%s\n  },\n  "tensors": [\n%s\n  ]\n}\n' % (cfg_lines, ent_lines))


def _read_npy(path):
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        arr = np.load(path, allow_pickle=False)
    except Exception as e:  # noqa: BLE001 - any read failure is a malformed dump
        raise MalformedDump("cannot read %s: %s" % (path, e))
    if dtype.str != "<f4":
        raise MalformedDump("%s: dtype %s, expected <f4" % (path, dtype.str))
    if fortran:
        raise MalformedDump("%s: fortran_order True, expected C order" % path)
    return arr


def load_dump(dump_dir):
    """Read a dump directory. Returns (config, {name: np.ndarray}). Raises MalformedDump."""
    mpath = os.path.join(dump_dir, "manifest.json")
    try:
        with open(mpath) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise MalformedDump("cannot read %s: %s" % (mpath, e))
    if not isinstance(manifest, dict) or "config" not in manifest or not isinstance(manifest.get("tensors"), list):
        raise MalformedDump("manifest.json needs \"config\" and a \"tensors\" list")
    config = manifest["config"]
    validate_config(config)
    arrays = {}
    for e in manifest["tensors"]:
        if not isinstance(e, dict) or not all(k in e for k in ("name", "file", "shape")):
            raise MalformedDump("tensor entry lacks name/file/shape: %r" % (e,))
        name = e["name"]
        if name in arrays:
            raise MalformedDump("tensor %r listed twice" % name)
        arr = _read_npy(os.path.join(dump_dir, e["file"]))
        if list(arr.shape) != list(e["shape"]):
            raise MalformedDump("%s: file shape %s != manifest shape %s" % (name, list(arr.shape), e["shape"]))
        if name in TENSOR_NAMES:
            want = tensor_shape(config, name)
            if list(arr.shape) != want:
                raise MalformedDump("%s: shape %s, config implies %s" % (name, list(arr.shape), want))
        arrays[name] = arr
    return config, arrays
