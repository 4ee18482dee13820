"""train_reference.py — PyTorch rebuilds of an Attention Lab training run from the
checkpoint folder `attnlab train --out DIR` writes (manifest.json, init/, final/,
batches/, loss.npy, lr.npy, grad1/, logits.npy).

Two independent models, written from the paper and the manifest, not from the C++:
  FunctionalModel  torch.nn.functional ops (any dtype; every switch: scaling, PE sinusoidal or
                   learned, biases, dropout with the lab's masks, shared key/value heads: manifest
                   kv_heads, in_proj_weight (d + 2 h_kv d_k, d), repeat_interleave)
  NnModel          nn.TransformerEncoderLayer / nn.TransformerDecoderLayer stacks that
                   load the checkpoint with load_state_dict (scaling and biases on; evaluation,
                   so no dropout; grouped-query checkpoints as the MHA with K/V rows repeated,
                   as_multi_head)
and replay(), which trains a FunctionalModel on the recorded batches with
torch.optim.Adam at the recorded rates.

Dropout (§5.4, manifest "dropout" = P_drop > 0) is the paper's: on the sums of embeddings and
positional encodings and on every sublayer's output before its residual add; PyTorch's
nn.Transformer*Layer(dropout=p) also drops attention weights and the FFN's hidden units, so the
replay applies it with functional ops. The masks are not in the checkpoint: DropoutMasks
re-derives them from the manifest's seed with an own SplitMix64 (src/base/rng.cpp, written from
its description), in the order src/train/model.h documents: step t seeds
stream_seed(seed, "dropout step t"); site S ("src_x", "dec_x", PREFIX.self_attn,
PREFIX.multihead_attn, PREFIX.ffn) draws from SplitMix64(stream_seed(that, S)), one uniform()
per element in row-major (B, L, d) order, dropped when below P_drop; kept values × 1/(1 − P_drop).

Shared by tests/torch/check_training.py and tests/bench/train_torch.py.
"""
import json
import math
import os

import numpy as np
import torch
import torch.nn.functional as F


class Checkpoint:
    def __init__(self, folder):
        with open(os.path.join(folder, "manifest.json")) as f:
            self.manifest = json.load(f)
        self.config = self.manifest["config"]
        self.folder = folder
        self.names = [p["name"] for p in self.manifest["params"]]
        self.steps = self.manifest["steps"]

    def params(self, part):
        return {n: np.load(os.path.join(self.folder, part, n + ".npy")) for n in self.names}

    def array(self, name):
        return np.load(os.path.join(self.folder, name))

    @property
    def encoder_decoder(self):
        return self.config["model"] == "encoder_decoder"

    def batches(self):
        """(S, B, L) int64 arrays: (src, dec_in, dec_out, loss_mask); src/loss_mask None when absent."""
        b = os.path.join(self.folder, "batches")
        if self.encoder_decoder:  # translate counts its targets up to 。 (tgt_mask); the others all
            mask = os.path.join(b, "tgt_mask.npy")
            return (np.load(os.path.join(b, "src.npy")), np.load(os.path.join(b, "tgt_in.npy")),
                    np.load(os.path.join(b, "tgt_out.npy")), np.load(mask) if os.path.exists(mask) else None)
        return (None, np.load(os.path.join(b, "tokens.npy")), np.load(os.path.join(b, "targets.npy")),
                np.load(os.path.join(b, "loss_mask.npy")))


MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def splitmix64_next(state):
    """(new state, output) of one SplitMix64 step, in Python integers."""
    state = (state + GOLDEN) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def stream_seed(seed, name):
    """The seed of an independent stream: SplitMix64(seed ^ FNV-1a(name)), its first output."""
    h = 0xCBF29CE484222325
    for byte in name.encode():
        h = ((h ^ byte) * 0x100000001B3) & MASK64
    return splitmix64_next((seed ^ h) & MASK64)[1]


def splitmix64_uniforms(seed, n):
    """The first n uniform() values of SplitMix64(seed): (output >> 11) · 2^-53, vectorised."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, n + 1, dtype=np.uint64) * np.uint64(GOLDEN)  # the states, mod 2^64
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


class DropoutMasks:
    """The lab's dropout masks of one run (see the module's text): keep(step, site, shape) is a bool array."""

    def __init__(self, seed, p):
        self.seed, self.p = seed, p
        self.kept = self.total = 0

    def keep(self, step, site, shape):
        n = int(np.prod(shape))
        keep = splitmix64_uniforms(stream_seed(stream_seed(self.seed, f"dropout step {step}"), site), n) >= self.p
        self.kept += int(keep.sum())
        self.total += n
        return keep.reshape(shape)


def positional_encoding(length, d_model):
    """§3.5: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...), float64 then float32."""
    pe = np.zeros((length, d_model))
    pos = np.arange(length)[:, None]
    cols = np.arange(0, d_model, 2)
    angle = pos / np.power(10000.0, cols / d_model)
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe.astype(np.float32)


def task_loss(logits, dec_out, loss_mask, label_smoothing):
    """Mean cross-entropy over every target (encoder-decoder) or where loss_mask is 1."""
    if loss_mask is None:
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), dec_out.reshape(-1),
                               label_smoothing=label_smoothing)
    keep = loss_mask.bool()
    return F.cross_entropy(logits[keep], dec_out[keep], label_smoothing=label_smoothing)


def kv_heads(c):
    """The manifest's key/value heads (written when set; 0 or absent: one per query head)."""
    return c.get("kv_heads", 0) or c["heads"]


def as_multi_head(c, state, cycle=False):
    """A grouped-query checkpoint as nn.MultiheadAttention's state: shared key/value heads are an MHA
    whose K and V rows are their group's rows repeated, head i's rows group i // (h // h_kv)'s
    (repeat_interleave). Plain MHA state is returned as it is. cycle: the classic bug instead,
    .repeat (head i reads group i % h_kv), for a check that must disagree."""
    h, h_kv = c["heads"], kv_heads(c)
    if h_kv == h:
        return state
    d = c["d_model"]
    dk = d // h
    out = dict(state)
    for key, value in state.items():
        if not key.endswith(("in_proj_weight", "in_proj_bias")):
            continue
        t = torch.as_tensor(value)
        q, k, v = t[:d], t[d:d + h_kv * dk], t[d + h_kv * dk:]
        def widen(x):
            groups = x.reshape(h_kv, dk, *x.shape[1:])
            tiled = groups.repeat(h // h_kv, *([1] * (groups.dim() - 1))) if cycle else groups.repeat_interleave(h // h_kv, dim=0)
            return tiled.reshape(d, *x.shape[1:])
        out[key] = torch.cat([q, widen(k), widen(v)]).numpy()
    return out


def causal_keep(n):
    return torch.ones(n, n, dtype=torch.bool).tril()


class FunctionalModel:
    """The paper's post-LN Transformer with the checkpoint's switches, in plain functional ops."""

    def __init__(self, config, state, dtype):
        self.c = config
        self.dtype = dtype
        self.p = {k: torch.tensor(v, dtype=dtype, requires_grad=True) for k, v in state.items()}
        length = max(config["src_len"], config["dec_len"])
        self.pe = torch.tensor(positional_encoding(length, config["d_model"]), dtype=dtype)
        self.learned = config.get("position", "sinusoid") == "learned"  # the key is written when not the default
        self.p_drop = config.get("dropout", 0.0)
        self.masks = DropoutMasks(config["seed"], self.p_drop) if self.p_drop > 0 else None
        self.step = None  # a training step's number (from 1): dropout on; None: evaluation

    def drop(self, site, x):
        """Inverted dropout with the lab's mask of this step and site (identity when evaluating)."""
        if self.masks is None or self.step is None:
            return x
        keep = torch.from_numpy(self.masks.keep(self.step, site, tuple(x.shape)))
        return x * (keep.to(self.dtype) / (1 - self.p_drop))

    def tap(self, name, t):
        """Every intermediate passes through here by name (a subclass can keep it)."""
        return t

    def mha(self, prefix, xq, xkv, causal, key_pad=None):
        """key_pad: (B, L_kv) True where the key is the padding token (masked out), or None."""
        p, c, tap = self.p, self.c, self.tap
        xq, xkv = tap(prefix + "/x", xq), tap(prefix + "/mem", xkv)
        w = p[prefix + ".in_proj_weight"]
        d = w.shape[1]
        h, h_kv = c["heads"], kv_heads(c)
        dk = d // h
        kv = h_kv * dk  # K's and V's width: d_model, or h_kv * d_k with shared key/value heads
        b = p.get(prefix + ".in_proj_bias")
        bq, bk, bv = (b[:d], b[d:d + kv], b[d + kv:]) if b is not None else (None, None, None)
        q, k, v = F.linear(xq, w[:d], bq), F.linear(xkv, w[d:d + kv], bk), F.linear(xkv, w[d + kv:], bv)
        q, k, v = tap(prefix + "/q", q), tap(prefix + "/k", k), tap(prefix + "/v", v)
        B, Lq, Lk = q.shape[0], q.shape[1], k.shape[1]
        q = tap(prefix + "/q_heads", q.view(B, Lq, h, dk).transpose(1, 2))
        k = k.view(B, Lk, h_kv, dk).transpose(1, 2)
        v = v.view(B, Lk, h_kv, dk).transpose(1, 2)
        if h_kv < h:  # grouped-query: query head i reads key/value head i // (h // h_kv)
            k = tap(prefix + "/k_groups", k).repeat_interleave(h // h_kv, dim=1)
            v = tap(prefix + "/v_groups", v).repeat_interleave(h // h_kv, dim=1)
        k, v = tap(prefix + "/k_heads", k), tap(prefix + "/v_heads", v)
        s = tap(prefix + "/scores", q @ k.transpose(-2, -1))
        if c["scale"]:
            s = s / math.sqrt(dk)
        s = tap(prefix + "/scaled", s)
        if causal:
            s = s.masked_fill(~causal_keep(Lq), float("-inf"))
        if key_pad is not None:
            s = s.masked_fill(key_pad[:, None, None, :], float("-inf"))
        s = tap(prefix + "/masked", s)
        a = tap(prefix + "/weights", torch.softmax(s, dim=-1))
        ctx = tap(prefix + "/context", a @ v)
        ctx = tap(prefix + "/concat", ctx.transpose(1, 2).reshape(B, Lq, d))
        return tap(prefix + "/output", F.linear(ctx, p[prefix + ".out_proj.weight"], p.get(prefix + ".out_proj.bias")))

    def norm(self, prefix, x):
        x = self.tap(prefix + "/in", x)
        return self.tap(prefix + "/out", F.layer_norm(x, (x.shape[-1],), self.p[prefix + ".weight"],
                                                      self.p[prefix + ".bias"], self.c["layer_norm_eps"]))

    def ffn(self, prefix, x):
        p, tap = self.p, self.tap
        x = tap(prefix + "/ffn_in", x)
        hidden = tap(prefix + "/ffn_hidden", F.linear(x, p[prefix + ".linear1.weight"], p[prefix + ".linear1.bias"]))
        hidden = tap(prefix + "/ffn_relu", F.relu(hidden))
        return tap(prefix + "/ffn_out", F.linear(hidden, p[prefix + ".linear2.weight"], p[prefix + ".linear2.bias"]))

    def embed(self, tokens, stream=""):
        x = self.tap(stream + "_embed", F.embedding(tokens, self.p["embedding.weight"]) * math.sqrt(self.c["d_model"]))
        pe = self.p["pos_embedding.weight"] if self.learned else self.pe
        return self.tap(stream + "_x", self.drop(stream + "_x", x + pe[: tokens.shape[1]] if self.c["pe"] else x))

    def logits(self, src, dec_in):
        c = self.c
        if c["model"] == "encoder_decoder":
            src_pad = src == c["pad"] if "pad" in c else None  # translate: the source's padding keys
            mem = self.embed(src, "src")
            for i in range(c["layers"]):
                pre = f"encoder.layers.{i}"
                mem = self.norm(pre + ".norm1",
                                mem + self.drop(pre + ".self_attn", self.mha(pre + ".self_attn", mem, mem, False, src_pad)))
                mem = self.norm(pre + ".norm2", mem + self.drop(pre + ".ffn", self.ffn(pre, mem)))
            x = self.embed(dec_in, "dec")
            for i in range(c["layers"]):
                pre = f"decoder.layers.{i}"
                x = self.norm(pre + ".norm1", x + self.drop(pre + ".self_attn", self.mha(pre + ".self_attn", x, x, True)))
                x = self.norm(pre + ".norm2",
                              x + self.drop(pre + ".multihead_attn", self.mha(pre + ".multihead_attn", x, mem, False, src_pad)))
                x = self.norm(pre + ".norm3", x + self.drop(pre + ".ffn", self.ffn(pre, x)))
        else:  # decoder-only (causal) or encoder-only (unmasked but for the padding keys)
            causal = c["model"] == "decoder_only"
            key_pad = None if causal or "pad" not in c else dec_in == c["pad"]
            x = self.embed(dec_in, "dec")
            for i in range(c["layers"]):
                pre = f"layers.{i}"
                x = self.norm(pre + ".norm1",
                              x + self.drop(pre + ".self_attn", self.mha(pre + ".self_attn", x, x, causal, key_pad)))
                x = self.norm(pre + ".norm2", x + self.drop(pre + ".ffn", self.ffn(pre, x)))
        return self.tap("logits", F.linear(x, self.p["generator.weight"], self.p["generator.bias"]))

    def loss(self, src, dec_in, dec_out, loss_mask):
        return task_loss(self.logits(src, dec_in), dec_out, loss_mask, self.c["label_smoothing"])


def step_tensors(batches, s):
    src, dec_in, dec_out, mask = batches
    t = lambda a: None if a is None else torch.from_numpy(a[s])
    return t(src), t(dec_in), t(dec_out), t(mask)


def replay(ck, dtype, steps=None, init=None, model_out=None):
    """Trains a FunctionalModel from init/ (or the given {name: array}) on the recorded batches
    at the recorded rates, step t with step t's dropout masks. Returns (losses per step,
    {name: step-1 gradient as float64 numpy}); model_out (a list) receives the model."""
    model = FunctionalModel(ck.config, ck.params("init") if init is None else init, dtype)
    if model_out is not None:
        model_out.append(model)
    adam = ck.config["adam"]
    opt = torch.optim.Adam(list(model.p.values()), lr=1.0, betas=(adam["beta1"], adam["beta2"]), eps=adam["eps"])
    lrs = ck.array("lr.npy")
    batches = ck.batches()
    losses, grads1 = [], {}
    for s in range(steps if steps is not None else ck.steps):
        for group in opt.param_groups:
            group["lr"] = float(lrs[s])
        opt.zero_grad()
        model.step = s + 1
        loss = model.loss(*step_tensors(batches, s))
        loss.backward()
        losses.append(loss.item())
        if s == 0:
            grads1 = {n: t.grad.detach().double().numpy() for n, t in model.p.items()}
        opt.step()
    return losses, grads1


class NnModel(torch.nn.Module):
    """PyTorch's own layers, keyed exactly as the checkpoint: embedding, encoder.layers /
    decoder.layers (or layers for decoder-only), generator."""

    def __init__(self, c):
        super().__init__()
        d, h, ff, eps = c["d_model"], c["heads"], c["d_ff"], c["layer_norm_eps"]
        self.c = c
        self.embedding = torch.nn.Embedding(c["vocab_size"], d)
        enc_layer = lambda: torch.nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, activation="relu",
                                                             layer_norm_eps=eps, batch_first=True, norm_first=False)
        if c["model"] == "encoder_decoder":
            self.encoder = torch.nn.Module()
            self.encoder.layers = torch.nn.ModuleList(enc_layer() for _ in range(c["layers"]))
            self.decoder = torch.nn.Module()
            self.decoder.layers = torch.nn.ModuleList(
                torch.nn.TransformerDecoderLayer(d, h, ff, dropout=0.0, activation="relu", layer_norm_eps=eps,
                                                 batch_first=True, norm_first=False) for _ in range(c["layers"]))
        else:
            self.layers = torch.nn.ModuleList(enc_layer() for _ in range(c["layers"]))
        self.generator = torch.nn.Linear(d, c["vocab_out"])
        max_len = max(c["src_len"], c["dec_len"])
        self.learned = c.get("position", "sinusoid") == "learned"
        if self.learned:  # Table 3 row E: a learned table in place of the sinusoids
            self.pos_embedding = torch.nn.Embedding(max_len, d)
        self.register_buffer("pe", torch.from_numpy(positional_encoding(max_len, d)))

    def embed(self, tokens):
        x = self.embedding(tokens) * math.sqrt(self.c["d_model"])
        if not self.c["pe"]:
            return x
        n = tokens.shape[1]
        return x + (self.pos_embedding(torch.arange(n)) if self.learned else self.pe[:n])

    def forward(self, src, dec_in):
        n = dec_in.shape[1]
        causal = torch.nn.Transformer.generate_square_subsequent_mask(n)
        if self.c["model"] == "encoder_decoder":
            src_pad = src == self.c["pad"] if "pad" in self.c else None  # translate's padded source
            mem = self.embed(src)
            for layer in self.encoder.layers:
                mem = layer(mem, src_key_padding_mask=src_pad)
            x = self.embed(dec_in)
            for layer in self.decoder.layers:
                x = layer(x, mem, tgt_mask=causal, memory_key_padding_mask=src_pad)
        elif self.c["model"] == "encoder_only":
            x = self.embed(dec_in)
            for layer in self.layers:
                x = layer(x, src_key_padding_mask=dec_in == self.c["pad"])
        else:
            x = self.embed(dec_in)
            for layer in self.layers:
                x = layer(x, src_mask=causal)
        return self.generator(x)

    def loss(self, src, dec_in, dec_out, loss_mask):
        return task_loss(self.forward(src, dec_in), dec_out, loss_mask, self.c["label_smoothing"])


def nn_model(ck, part, cycle=False):
    model = NnModel(ck.config)
    state = as_multi_head(ck.config, ck.params(part), cycle)  # grouped-query: the groups' K/V rows repeated
    model.load_state_dict({n: torch.from_numpy(v) for n, v in state.items()}, strict=False)
    missing = set(model.state_dict()) - set(ck.names) - {"pe"}
    if missing:
        raise ValueError(f"checkpoint lacks {sorted(missing)}")
    return model


def blas_library():
    """Which BLAS this process mapped (Debian's torch follows libblas.so.3's alternative)."""
    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1] for line in maps if "blas" in line.lower() and "/" in line}
    return ", ".join(sorted(libs)) or "unknown"
