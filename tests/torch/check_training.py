#!/usr/bin/env python3
"""check_training.py — PyTorch reproduces `attnlab train` runs from their checkpoint folders.

For each configuration below: runs `ATTNLAB train ... --out DIR`, rebuilds the model in
PyTorch from DIR/init (tests/torch/train_reference.py), replays DIR/batches at the rates of
DIR/lr.npy with torch.optim.Adam, and checks
  - what the replay takes from the manifest against independent values: Adam's β1, β2, ε are the
    paper's (0.9, 0.98, 1e-9, §5.3), LayerNorm's ε is PyTorch's 1e-5, and every rate in lr.npy is
    the schedule recomputed here from the manifest's lr key (§5.3 for paper);
  - the step-1 gradient of every parameter: max |lab − torch| <= 1e-4 · max |torch| + 1e-6;
  - configurations marked "exact" (no amplification: at least 50 steps at constant rates
    <= 3e-3, where PyTorch's own float32 and float64 replays stay within 2e-3): the loss at
    every step, |lab − torch32| <= 2e-3 · |torch32|;
  - the chaotic ones (large rates of the paper's schedule at a tiny d_model, a saturated
    softmax): every correct float32 program parts from the float64 replay at some step, and
    where depends on its rounding. The spread is measured, not assumed: PyTorch float32 from
    init/, and from init/ moved by one ulp (two seeded sign patterns), each part from float64
    (loss beyond 2e-3 relative) at a step P_i. The lab must stay within 2e-3 of float64 until
    min P_i − margin. The margin is what a rounding ROUNDING_HEADROOM (100) times larger
    than PyTorch's costs: the float32/float64 difference grows by a factor g per step
    (measured on this run, from where it passes 1e-5 to where it passes 2e-3), so it reaches
    the tolerance log(100) / log(g) steps earlier (g: the median over the float32 replays). A bug of the size of a wrong constant
    (LayerNorm ε, a missing ÷√d_k, a rate) is far more than 100 float32 roundings and parts
    within the first steps;
  - runs with dropout (P_drop > 0): the replay rebuilds the lab's masks from the seed
    (train_reference.DropoutMasks, its own SplitMix64); their dropped fraction is P_drop within
    5 standard deviations, and the same step-1 gradients without the masks must NOT agree
    (the masks are what makes the replay agree, not a tolerance wide enough to hide them);
  - runs with learned positions: pos_embedding.weight is in init/, final/ and grad1/ and is
    checked like every parameter (gradient, losses, and nn layers given it by load_state_dict);
  - with scaling and biases on: nn.TransformerEncoderLayer / nn.TransformerDecoderLayer stacks
    given the final parameters by load_state_dict produce the lab's logits (DIR/logits.npy) within
    1e-5 · max(1, max |logit|);
  - runs with shared key/value heads (kv_heads): the functional replay splits in_proj_weight
    (d + 2·h_kv·d_k, d) and repeat_interleaves the groups; nn layers load the MHA whose K/V rows
    are the groups' rows repeated (train_reference.as_multi_head), and with 2+ groups the groups
    cycled (.repeat) must disagree; the manifest must hold the flags' --kv-heads (else every replay
    would pass as plain MHA) and in_proj_weight its (d + 2·h_kv·d_k, d) shape.
The first line names the BLAS this process runs on (Debian's torch takes libblas.so.3 from the
first folder of LD_LIBRARY_PATH that has one, then the system's alternative).
Prints one line per configuration; exits 1 if any check fails.

    /usr/bin/python3 tests/torch/check_training.py build/native/attnlab OUT_DIR
"""
import math
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_reference as ref  # noqa: E402

STEPS = 60
TOLERANCE = 2e-3  # relative, loss per step
GROWTH_FROM = 1e-5  # relative float32/float64 loss difference where the growth rate is measured from
ROUNDING_HEADROOM = 100.0  # the lab may round this many times worse than PyTorch and still pass
ULP_SEEDS = (1, 2)  # sign patterns of the one-ulp moves of init/
PAPER_ADAM = {"beta1": 0.9, "beta2": 0.98, "eps": 1e-9}  # §5.3
TORCH_LAYER_NORM_EPS = 1e-5  # nn.LayerNorm's default, as in nn.Transformer*Layer
# name -> (flags, must the float32/float64 replays stay together?)
CONFIGS = {
    "reverse": ("--task reverse", True),  # the CLI defaults
    "sort_odd_sizes_2_layers_ls": ("--task sort --vocab 7 --length 5 --layers 2 --d-model 24 --heads 3 --d-ff 40 "
                                   "--label-smoothing 0.1 --lr const:0.002", True),
    "copy_no_scale_no_pe": ("--task copy --vocab 6 --length 6 --d-model 16 --heads 2 --d-ff 24 --no-scale --no-pe "
                            "--lr const:0.001", True),
    "reverse_no_bias_odd": ("--task reverse --d-model 24 --heads 3 --d-ff 40 --no-bias --batch 8", True),
    "induction_gap_2_layers": ("--task induction --vocab 10 --length 6 --layers 2 --batch 16", True),
    "induction_fixed_ls_no_pe_no_bias": ("--task induction --vocab 8 --length 5 --gap 0 --layers 2 --d-model 24 "
                                         "--heads 3 --d-ff 40 --label-smoothing 0.1 --no-pe --no-bias", True),
    "induction_1_layer_no_scale": ("--task induction --vocab 9 --length 6 --gap 3 --layers 1 --no-scale "
                                   "--lr const:0.003", True),
    # Encoder-only classifiers (issue 24): the pronoun's output classified, padding keys masked.
    "coref_zh": ("--task coref", True),
    "coref_en_4_heads_ls": ("--task coref --lang en --heads 4 --d-model 24 --label-smoothing 0.1", True),
    # Dropout (§5.4) and learned positions (Table 3 row E), for issue 25's Table 3 rows (D) and (E).
    "reverse_dropout_2_layers": ("--task reverse --layers 2 --dropout 0.1", True),
    "induction_learned_pe": ("--task induction --vocab 10 --length 6 --layers 2 --batch 16 --position learned", True),
    "sort_learned_pe_dropout_0.2": ("--task sort --vocab 7 --length 5 --position learned --dropout 0.2 "
                                    "--lr const:0.002", True),
    "coref_dropout_learned_pe": ("--task coref --dropout 0.1 --position learned", True),  # encoder-only
    # Grouped-query and multi-query attention (issue 26.4): shared key/value heads.
    "reverse_gqa_4_heads_2_kv": ("--task reverse --heads 4 --kv-heads 2", True),
    "induction_mqa_2_layers": ("--task induction --vocab 10 --length 6 --layers 2 --batch 16 --kv-heads 1", True),
    "coref_en_gqa_4_2_dropout": ("--task coref --lang en --heads 4 --kv-heads 2 --d-model 24 --dropout 0.1", True),
    # Translation (issue 25): an encoder-decoder on a padded source (src_ and memory_key_padding_mask),
    # targets counted up to 。.
    "translate": ("--task translate", True),
    "translate_dropout_learned_pe": ("--task translate --dropout 0.1 --position learned", True),
    # Where float32 rounding is amplified: large rates of the paper's schedule at a tiny d_model,
    # and an unscaled softmax that saturates (d_k = 64).
    "paper_schedule_tiny": ("--task reverse --d-model 16 --heads 2 --d-ff 32 --lr paper:2:50 --steps 200", False),
    "no_scale_saturated": ("--task reverse --d-model 64 --heads 1 --d-ff 64 --no-scale --lr const:0.003 --steps 150", False),
}


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def first_beyond(losses, reference, bound, start=0):
    """The first step (0-based) whose loss is beyond `bound` relative to the reference, or None."""
    return next((s for s in range(start, len(reference)) if rel(losses[s], reference[s]) > bound), None)


def expected_rates(config, steps):
    """§5.3's schedule (or the constant rate) from the manifest's lr key, step counting from 1."""
    lr = config["lr"]
    if lr["schedule"] == "const":
        return np.full(steps, lr["rate"])
    s = np.arange(1, steps + 1, dtype=np.float64)
    return lr["factor"] / math.sqrt(config["d_model"]) * np.minimum(s ** -0.5, s * lr["warmup"] ** -1.5)


def constant_problems(ck):
    """What the replay takes from the manifest, against values that do not come from the lab."""
    problems = []
    c = ck.config
    for key, want in PAPER_ADAM.items():
        if c["adam"][key] != want:
            problems.append(f"manifest adam.{key} = {c['adam'][key]}, the paper's is {want}")
    if c["layer_norm_eps"] != TORCH_LAYER_NORM_EPS:
        problems.append(f"manifest layer_norm_eps = {c['layer_norm_eps']}, PyTorch's is {TORCH_LAYER_NORM_EPS}")
    lrs = ck.array("lr.npy").astype(np.float64)
    want = expected_rates(c, len(lrs))
    off = next((s for s in range(len(lrs)) if rel(lrs[s], want[s]) > 1e-6), None)
    if off is not None:
        problems.append(f"lr.npy at step {off + 1} is {lrs[off]:.6g}, the schedule gives {want[off]:.6g}")
    return problems


def gradient_check(ck, folder, g32):
    """Step-1 gradients, tensor by tensor: (worst ratio to the bound, its tensor, problems, max |Δ| overall)."""
    problems, worst, worst_name, max_abs = [], 0.0, "", 0.0
    for n in ck.names:
        lab = np.load(os.path.join(folder, "grad1", n + ".npy")).astype(np.float64)
        want = g32[n]
        if lab.shape != want.shape:
            problems.append(f"grad {n}: shape {lab.shape} vs {want.shape}")
            continue
        max_abs = max(max_abs, float(np.max(np.abs(lab - want))))
        ratio = np.max(np.abs(lab - want)) / (1e-4 * np.max(np.abs(want)) + 1e-6)
        if ratio > worst:
            worst, worst_name = ratio, n
    if worst > 1:
        problems.append(f"step-1 gradient of {worst_name}: max |Δ| is {worst:.2f}x the bound")
    return worst, worst_name, problems, max_abs


def exact_check(lab, t32, t64):
    """No amplification: the lab follows PyTorch float32 at every step. (summary, problems)"""
    S, problems = len(lab), []
    apart = first_beyond(t32, t64, TOLERANCE)
    if apart is not None or S < 50:
        problems.append(f"PyTorch float32/float64 part at step {apart + 1 if apart is not None else '-'} of {S}: "
                        "this configuration must stay exact for >= 50 steps")
    off = first_beyond(lab, t32, TOLERANCE)
    if off is not None:
        problems.append(f"loss differs from PyTorch float32 at step {off + 1}: lab {lab[off]:.6g}, torch {t32[off]:.6g}")
    worst = max(rel(lab[s], t32[s]) for s in range(S))
    worst_abs = max(abs(lab[s] - t32[s]) for s in range(S))
    parting = "within 2e-3 throughout" if apart is None else f"beyond 2e-3 at step {apart + 1}"
    return (f"loss over {S} steps: lab/torch32 max rel Δ {worst:.1e}, max |Δ| {worst_abs:.1e} "
            f"(torch32/torch64 {parting})"), problems


def one_ulp_moved(state, seed):
    """init/ with every value moved by one float32 ulp, up or down by a seeded sign pattern."""
    rng = np.random.default_rng(seed)
    moved = {}
    for name in sorted(state):
        a = state[name].astype(np.float32)
        up = rng.random(a.shape) < 0.5
        moved[name] = np.where(up, np.nextafter(a, np.float32(np.inf)), np.nextafter(a, np.float32(-np.inf)))
    return moved


def growth_per_step(t32, t64):
    """How fast the float32/float64 difference grows once it has begun (factor per step)."""
    start = first_beyond(t32, t64, GROWTH_FROM)
    end = first_beyond(t32, t64, TOLERANCE, 0 if start is None else start)
    if start is None or end is None or end <= start:
        return None
    return (rel(t32[end], t64[end]) / rel(t32[start], t64[start])) ** (1.0 / (end - start))


def chaotic_check(ck, lab, t32, t64):
    """Where float32 rounding is amplified: the lab parts from float64 no earlier than the
    correct float32 programs do, less the margin of ROUNDING_HEADROOM. (summary, problems)"""
    S = len(lab)
    replays = {"torch32": t32}
    init = ck.params("init")
    for seed in ULP_SEEDS:
        replays[f"ulp{seed}"] = ref.replay(ck, torch.float32, init=one_ulp_moved(init, seed))[0]
    parts = {k: first_beyond(v, t64, TOLERANCE) for k, v in replays.items()}
    steps = [S if p is None else p for p in parts.values()]
    rates = sorted(g for g in (growth_per_step(v, t64) for v in replays.values()) if g is not None and g > 1)
    g = rates[len(rates) // 2] if rates else None  # the median: one replay's estimate is noisy
    margin = 0 if g is None else math.ceil(math.log(ROUNDING_HEADROOM) / math.log(g))
    must_hold = max(0, min(steps) - margin)
    lab_part = first_beyond(lab, t64, TOLERANCE)
    problems = []
    if lab_part is not None and lab_part < must_hold:
        problems.append(f"loss parts from PyTorch float64 at step {lab_part + 1} (lab {lab[lab_part]:.6g}, "
                        f"torch64 {t64[lab_part]:.6g}); correct float32 replays hold until step >= {must_hold}")
    shown = ", ".join(f"{k} {'never' if p is None else p + 1}" for k, p in parts.items())
    growth = "no growth seen" if g is None else f"grows x{g:.2f}/step"
    return (f"loss over {S} steps vs torch64: float32 replays part at steps [{shown}] ({growth}, margin {margin}); "
            f"lab parts at {'never' if lab_part is None else lab_part + 1}, must hold until {must_hold}"), problems


def dropout_check(ck, folder, model):
    """The replay's masks: their dropped fraction, and that without them the step-1 gradients part. (text, problems)"""
    c = ck.config
    p = c.get("dropout", 0.0)
    if p == 0:
        return "", []
    m = model.masks
    dropped = 1 - m.kept / m.total
    sd = math.sqrt(p * (1 - p) / m.total)
    problems = [] if abs(dropped - p) <= 5 * sd else [f"masks drop {dropped:.4f} of {m.total}, P_drop is {p}"]
    plain = ref.FunctionalModel(c, ck.params("init"), torch.float32)  # step None: no dropout
    plain.loss(*ref.step_tensors(ck.batches(), 0)).backward()
    g = {n: t.grad.detach().double().numpy() for n, t in plain.p.items()}
    without, _, _, _ = gradient_check(ck, folder, g)
    if without <= 1:
        problems.append(f"step-1 gradients without the dropout masks also agree ({without:.2f}x the bound): "
                        "the check cannot see the masks")
    return (f"; dropout {p}: {dropped:.4f} of {m.total} mask elements dropped, without the masks grads "
            f"{without:.0f}x the bound"), problems


def nn_layers_check(ck):
    """PyTorch's own layers, given the final parameters by load_state_dict. (text, problems)"""
    c = ck.config
    if not (c["scale"] and c["bias"]):
        return "nn layers: n/a (no-scale or no-bias)", []
    model = ref.nn_model(ck, "final").eval()
    src, dec_in, _, _ = ref.step_tensors(ck.batches(), 0)
    with torch.no_grad():
        nn_logits = model(src, dec_in).double().numpy()
    lab_logits = ck.array("logits.npy").astype(np.float64)
    diff = np.max(np.abs(nn_logits - lab_logits))
    bound = 1e-5 * max(1.0, np.max(np.abs(lab_logits)))
    problems = [] if diff <= bound else [f"nn.Transformer*Layer logits differ by {diff:.3g} > {bound:.3g}"]
    text = f"nn layers' logits max |Δ| {diff:.2e} (bound {bound:.1e})"
    if 1 < ref.kv_heads(c) < c["heads"]:  # with 2+ groups their order matters: .repeat instead of repeat_interleave must not agree
        with torch.no_grad():
            cycled = ref.nn_model(ck, "final", cycle=True).eval()(src, dec_in).double().numpy()
        wrong = np.max(np.abs(cycled - lab_logits))
        text += f"; groups cycled (.repeat) |Δ| {wrong:.2e}"
        if not wrong > 100 * bound:
            problems.append(f"K/V groups in the wrong order still agree ({wrong:.3g}): the check cannot see the order")
    return text, problems


def grouped_check(ck, folder, flags):
    """Shared key/value heads: the manifest holds the flags' --kv-heads (so the replays above did not
    pass as plain MHA), and in_proj_weight is (d + 2·h_kv·d_k, d) in init/ and grad1/. (text, problems)"""
    c = ck.config
    h, h_kv, d = c["heads"], ref.kv_heads(c), c["d_model"]
    asked = re.search(r"--kv-heads (\d+)", flags)
    if asked and int(asked.group(1)) != h_kv:
        return "", [f"--kv-heads {asked.group(1)} asked, the manifest says kv_heads {h_kv}"]
    if h_kv == h:
        return "", []
    want = (d + 2 * h_kv * (d // h), d)
    problems = []
    for part in ("init", "grad1"):
        for name in ck.names:
            if name.endswith("in_proj_weight"):
                shape = np.load(os.path.join(folder, part, name + ".npy")).shape
                if shape != want:
                    problems.append(f"{part}/{name} is {shape}, not {want} for h={h}, kv_heads={h_kv}")
    return f"; kv_heads {h_kv} of {h}: in_proj_weight {want}", problems


def check_config(attnlab, out_root, name, flags, exact):
    folder = os.path.join(out_root, name)
    shutil.rmtree(folder, ignore_errors=True)
    args = [attnlab, "train"] + flags.split() + ["--out", folder, "--quiet", "--eval-every", "1000000"]
    if "--steps" not in flags:
        args += ["--steps", str(STEPS)]
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode != 0:
        print(f"FAIL {name}: attnlab exited {run.returncode}: {run.stderr.strip()}")
        return False
    ck = ref.Checkpoint(folder)
    lab = ck.array("loss.npy").astype(np.float64)
    model32 = []
    t32, g32 = ref.replay(ck, torch.float32, model_out=model32)
    t64, _ = ref.replay(ck, torch.float64)
    problems = constant_problems(ck)
    worst, worst_name, grad_problems, grad_abs = gradient_check(ck, folder, g32)
    drop_text, drop_problems = dropout_check(ck, folder, model32[0])
    loss_text, loss_problems = exact_check(lab, t32, t64) if exact else chaotic_check(ck, lab, t32, t64)
    nn_text, nn_problems = nn_layers_check(ck)
    gqa_text, gqa_problems = grouped_check(ck, folder, flags)
    problems += grad_problems + loss_problems + nn_problems + drop_problems + gqa_problems
    print(f"{'ok  ' if not problems else 'FAIL'} {name}: {len(ck.names)} tensors, step-1 grads worst {worst:.3f} of the "
          f"bound ({worst_name}), max |Δ| {grad_abs:.1e}; {loss_text}; {nn_text}{drop_text}{gqa_text}")
    for p in problems:
        print(f"     {p}")
    return not problems


def check_nan_row():
    """PyTorch's gradients for a fully masked row (-inf): what the lab's doctest asserts."""
    q, k, v = (torch.randn(3, 2, dtype=torch.float64, requires_grad=True) for _ in range(3))
    keep = torch.tensor([[1, 1, 1], [0, 0, 0], [1, 1, 1]], dtype=torch.bool)
    a = torch.softmax((q @ k.T / 2 ** 0.5).masked_fill(~keep, float("-inf")), dim=-1)
    (a @ v).mul(torch.randn(3, 2, dtype=torch.float64)).sum().backward()
    ok = bool(torch.isnan(a[1]).all() and torch.isnan(v.grad).all() and torch.isfinite(q.grad).all())
    print(f"{'ok  ' if ok else 'FAIL'} fully masked row: PyTorch gives NaN weights, NaN d_v, finite d_q (as the lab)")
    return ok


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    torch.set_num_threads(1)
    attnlab, out_root = sys.argv[1], sys.argv[2]
    torch.ones(2, 2) @ torch.ones(2, 2)  # maps the BLAS
    blas = ref.blas_library()
    print(f"PyTorch {torch.__version__} on BLAS {blas}, {torch.get_num_threads()} thread")
    expected = os.environ.get("LAB_EXPECT_BLAS")  # the test command names the provider it asked the loader for
    if expected and not any(lib.startswith(expected) and "libblas" in lib for lib in blas.split(", ")):
        print(f"FAIL the BLAS mapped is not the one from {expected}: {blas}")
        return 1
    os.makedirs(out_root, exist_ok=True)
    only = os.environ.get("LAB_TRAIN_CONFIGS")  # a comma-separated subset, for a quick look
    chosen = {n: v for n, v in CONFIGS.items() if not only or n in only.split(",")}
    results = [check_config(attnlab, out_root, n, f, e) for n, (f, e) in chosen.items()]
    results.append(check_nan_row())
    print(f"{sum(results)} of {len(results)} training checks agree with PyTorch")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
