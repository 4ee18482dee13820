#!/usr/bin/env python3
"""mistake_errors.py — runs each buggy line of the mistakes lab in PyTorch and records what
really happens: the exact error text, or "runs" with the shape it gives, for the sizes of
several configurations; and the tutorials' claims measured (a view they say fails, a
softmax axis they say raises IndexError, NaN they say fills every row, ...).

    /usr/bin/python3 tests/torch/mistake_errors.py > tests/fixtures/mistakes/pytorch.tsv

Debian's python3-torch (1.13). tests/test_mistakes_torch.cpp reads the file: the lab's error
texts and measured symptoms must equal PyTorch's for the same sizes. One line per fact:
KEY <TAB> d_model <TAB> h <TAB> L_q <TAB> L_kv <TAB> B <TAB> what PyTorch did. A buggy line
followed on through the code after it gives one fact per line run: KEY:step:I (KEY is
"mask_wrong_length:n=N" for a mask built for N positions), up to the first error.
"""
import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
# (d_model, h, L_q, L_kv, B): Tiny, Paper base, one head, d_k = 128, one position, cross-attention
CONFIGS = [(8, 2, 4, 4, 2), (512, 8, 10, 10, 2), (8, 1, 4, 4, 2), (1024, 8, 4, 4, 1), (8, 2, 1, 1, 2), (8, 2, 3, 5, 2),
           (512, 8, 4, 4, 2)]


def outcome(f):
    try:
        r = f()
        return "runs " + str(list(r.shape)) if isinstance(r, torch.Tensor) else "runs"
    except Exception as e:  # the text a learner sees
        return f"{type(e).__name__}: {e}"


def wrong_mask_length(L_kv):
    """The length the mistake builds its mask for: half the keys (10 -> 5), or 2 more when that is < 2."""
    return L_kv // 2 if L_kv >= 4 else L_kv + 2


def tutorial_pe(seq_len, d_model, twice):
    """The tutorials' NumPy loop (as plain Python): `twice` writes the exponent as 2 * i / d_model with i = 0, 2, 4, ..."""
    pe = [[0.0] * d_model for _ in range(seq_len)]
    for pos in range(seq_len):
        for i in range(0, d_model, 2):
            denom = 10000 ** ((2 * i if twice else i) / d_model)
            pe[pos][i] = math.sin(pos / denom)
            if i + 1 < d_model:
                pe[pos][i + 1] = math.cos(pos / denom)
    return pe


def lines_for(d, h, Lq, Lkv, B):
    dk = d // h
    x, mem = torch.randn(B, Lq, d), torch.randn(B, Lkv, d)
    qh, kh, vh = torch.randn(B, h, Lq, dk), torch.randn(B, h, Lkv, dk), torch.randn(B, h, Lkv, dk)
    context, scores = torch.randn(B, h, Lq, dk), torch.randn(B, h, Lq, Lkv)
    n = wrong_mask_length(Lkv)
    short = torch.tril(torch.ones(n, n))
    yield "hard_coded_dk", outcome(lambda: x.view(B, Lq, h, 128))
    yield "view_infers_length", outcome(lambda: x.view(B, -1, h, 128))
    yield "k_instead_of_kt", outcome(lambda: qh @ kh / math.sqrt(dk))
    yield "view_without_contiguous", outcome(lambda: context.transpose(1, 2).view(B, Lq, h * dk))
    # The mask line, then softmax and @ v: with one key the (n, n) mask broadcasts, and the error comes at @ v.
    yield "mask_wrong_length", outcome(lambda: scores.masked_fill(short == 0, float("-inf")).softmax(-1) @ vh)
    yield "mask_wrong_length:additive", outcome(lambda: (scores + short * -1e9).softmax(-1) @ vh)
    # Claims: a view with the same number of elements runs, in either order.
    yield "claim:view_same_size", outcome(lambda: x.view(B, Lq, h, dk))
    yield "claim:view_heads_first", outcome(lambda: x.view(B, h, Lq, dk))
    # softmax over dim 1 (the heads) runs; only an axis outside [-4, 3] raises IndexError.
    yield "claim:softmax_dim1", outcome(lambda: F.softmax(scores, dim=1))
    yield "claim:softmax_dim4", outcome(lambda: F.softmax(scores, dim=4))
    # masked_fill(mask == 1, -inf) with the causal mask: how many (b, head, i) rows are all NaN.
    causal = torch.tril(torch.ones(Lq, Lkv))
    w = F.softmax(scores.masked_fill(causal == 1, float("-inf")), dim=-1)
    yield "claim:inverted_nan_rows", f"{int(torch.isnan(w).all(-1).sum())} of {B * h * Lq}"
    # The PE with the exponent written twice, against section 3.5's, over the longer sequence's positions.
    right, wrong = tutorial_pe(max(Lq, Lkv), d, False), tutorial_pe(max(Lq, Lkv), d, True)
    gap = max(abs(a - b) for r1, r2 in zip(right, wrong) for a, b in zip(r1, r2))
    yield "pe_exponent_twice:max_abs_diff", f"{gap:.6f}"


def stepper():
    """Runs lines one by one: each one's "runs [shape]" or error text, None once one raised."""
    steps = []

    def step(f):
        what = outcome(f)
        steps.append(what)
        return f() if what.startswith("runs") else None

    return steps, step


# Tutorial 000's class with d_k written as 128, followed to W_o: its own concat (d_model wide)
# and the h * 128 wide one its text describes. Sizes where a view raises, where k raises after q
# ran, and where everything runs.
DK128_CONFIGS = CONFIGS + [(512, 8, 4, 5, 2), (256, 4, 8, 8, 3)]


def dk128_story(d, h, Lq, Lkv, B):
    lin = [torch.nn.Linear(d, d) for _ in range(4)]
    x, mem = torch.randn(B, Lq, d), torch.randn(B, Lkv, d)
    steps, step = stepper()
    heads = []
    for proj, seq in ((lin[0], x), (lin[1], mem), (lin[2], mem)):
        t = step(lambda: proj(seq).view(B, -1, h, 128).transpose(1, 2))
        if t is None:
            return steps
        heads.append(t)
    q, k, v = heads
    attn = step(lambda: F.softmax(q @ k.transpose(-2, -1) / math.sqrt(128), dim=-1))
    out = step(lambda: attn @ v)
    cat = step(lambda: out.transpose(1, 2).contiguous().view(B, -1, d))
    step(lambda: lin[3](cat))
    if h * 128 != d:
        wide = step(lambda: out.transpose(1, 2).contiguous().view(B, -1, h * 128))
        step(lambda: lin[3](wide))
    return steps


# A mask built for n positions at several lengths: the mask line, then softmax, weights @ v and the
# concat's view up to the first error; where masked_fill raises, the same mask filled in place and added.
MASK_CONFIGS = [((512, 8, 10, 10, 2), [1, 3, 5, 7, 10, 12, 20]), ((8, 2, 4, 4, 2), [1, 2, 3, 4, 6]),
                ((8, 2, 1, 1, 2), [1, 3]), ((8, 2, 3, 5, 2), [1, 2, 3, 5, 7]), ((8, 2, 1, 5, 2), [3, 5])]


def mask_story(d, h, Lq, Lkv, B, n):
    dk = d // h
    scores, v = torch.randn(B, h, Lq, Lkv), torch.randn(B, h, Lkv, dk)
    steps, step = stepper()
    mask = step(lambda: torch.tril(torch.ones(n, n)))
    masked = step(lambda: scores.masked_fill(mask == 0, float("-inf")))
    if masked is None:
        step(lambda: scores.clone().masked_fill_(mask == 0, float("-inf")))
        step(lambda: scores + (1 - mask) * -1e9)
        return steps
    weights = step(lambda: masked.softmax(dim=-1))
    context = step(lambda: weights @ v)
    if context is not None:
        step(lambda: context.transpose(1, 2).contiguous().view(B, Lq, h * dk))
    return steps


def tutorial_mha_with_dk_128():
    """Tutorial 000's MultiHeadAttention with d_k written as 128 (d_model 512, h 8) on x (2, 10, 512)."""
    d_model, h, d_k = 512, 8, 128
    lin = [torch.nn.Linear(d_model, d_model) for _ in range(4)]
    x = torch.randn(2, 10, d_model)
    q, k, v = (lin[i](x).view(2, -1, h, d_k).transpose(1, 2) for i in range(3))
    attn = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1)
    out = (attn @ v).transpose(1, 2).contiguous().view(2, -1, d_model)
    return f"attn {list(attn.shape)} output {list(lin[3](out).shape)}"


def anomaly_text():
    """The error a tutorial quotes for NaN weights appears only in anomaly mode, named SoftmaxBackward0."""
    s = torch.randn(1, 1, 4, 4, requires_grad=True)
    w = F.softmax(s.masked_fill(torch.tril(torch.ones(4, 4)) == 1, float("-inf")), dim=-1)
    plain = outcome(lambda: w.sum().backward())
    with torch.autograd.detect_anomaly():
        s2 = torch.randn(1, 1, 4, 4, requires_grad=True)
        w2 = F.softmax(s2.masked_fill(torch.tril(torch.ones(4, 4)) == 1, float("-inf")), dim=-1)
        anomaly = outcome(lambda: w2.sum().backward())
    return plain, anomaly


def main():
    import warnings

    warnings.filterwarnings("ignore")
    print(f"# PyTorch {torch.__version__}: what the mistakes lab's buggy lines do (tests/torch/mistake_errors.py)")
    for cfg in CONFIGS:
        for key, what in lines_for(*cfg):
            print("\t".join([key] + [str(v) for v in cfg] + [what]))
    for cfg in DK128_CONFIGS:
        for i, what in enumerate(dk128_story(*cfg)):
            print("\t".join([f"view_infers_length:step:{i}"] + [str(v) for v in cfg] + [what]))
    for cfg, lengths in MASK_CONFIGS:
        for n in lengths:
            for i, what in enumerate(mask_story(*cfg, n)):
                print("\t".join([f"mask_wrong_length:n={n}:step:{i}"] + [str(v) for v in cfg] + [what]))
    print("\t".join(["claim:tutorial_mha_dk_128", "512", "8", "10", "10", "2", tutorial_mha_with_dk_128()]))
    # Grouped-query K/V: which group each query head reads, .repeat against repeat_interleave (h 4, h_kv 2).
    groups = torch.arange(2).view(1, 2, 1, 1)
    tiled, interleaved = groups.repeat(1, 2, 1, 1).flatten().tolist(), groups.repeat_interleave(2, dim=1).flatten().tolist()
    print("\t".join(["claim:gqa_repeat_groups", "8", "4", "4", "4", "2", f"repeat {tiled} repeat_interleave {interleaved}"]))
    plain, anomaly = anomaly_text()
    print("\t".join(["claim:nan_backward", "0", "4", "4", "4", "1", plain]))
    print("\t".join(["claim:nan_backward_anomaly", "0", "4", "4", "4", "1", anomaly]))


if __name__ == "__main__":
    main()
