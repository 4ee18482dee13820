#!/usr/bin/env python3
"""Writes tests/fixtures/bleu_cases.txt: random corpora of token ids and their corpus BLEU
computed here, independently of the lab (Papineni et al. 2002: clipped n-gram precisions for
n = 1..4 summed over the corpus, geometric mean, brevity penalty exp(1 - r/c) when c <= r,
no smoothing, x100), the way sacrebleu's corpus_bleu and nltk's corpus_bleu (default weights,
no smoothing) compute it. test_translate.cpp reads the file and compares bleu_score.

usage: python3 tests/torch/bleu_reference.py [OUT]   (default: tests/fixtures/bleu_cases.txt)
"""
import math
import os
import random
import sys
from collections import Counter
from fractions import Fraction


def ngrams(tokens, n):
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def corpus_bleu(pairs):
    matches, totals = [0] * 4, [0] * 4
    c = r = 0
    for hyp, ref in pairs:
        c += len(hyp)
        r += len(ref)
        for n in range(1, 5):
            h, rc = ngrams(hyp, n), ngrams(ref, n)
            matches[n - 1] += sum(min(k, rc[g]) for g, k in h.items())
            totals[n - 1] += sum(h.values())
    if min(matches) == 0 or min(totals) == 0:
        return 0.0
    log_p = sum(math.log(Fraction(m, t)) for m, t in zip(matches, totals)) / 4
    bp = 1.0 if c > r else math.exp(1 - r / c)
    return 100 * bp * math.exp(log_p)


def corrupt(ref, rng):
    """A hypothesis near the reference: some tokens replaced, dropped or inserted."""
    out = []
    for t in ref:
        u = rng.random()
        if u < 0.1:
            continue
        out.append(rng.randrange(12) if u < 0.25 else t)
        if rng.random() < 0.05:
            out.append(rng.randrange(12))
    return out or [rng.randrange(12)]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "fixtures", "bleu_cases.txt")
    rng = random.Random(25)
    lines = ["# corpus BLEU cases: a line 'PAIRS BLEU', then PAIRS times a hypothesis line and a reference line",
             "# (token ids). Written by tests/torch/bleu_reference.py; read by tests/test_translate.cpp."]
    for case in range(24):
        pairs = []
        for _ in range(rng.randint(1, 8)):
            ref = [rng.randrange(12) for _ in range(rng.randint(4, 20))]
            hyp = ref[:] if case % 6 == 0 else corrupt(ref, rng)
            if case % 6 == 1:
                hyp = hyp[: max(1, len(hyp) // 2)]  # short: the brevity penalty
            pairs.append((hyp, ref))
        lines.append(f"{len(pairs)} {corpus_bleu(pairs):.15g}")
        for hyp, ref in pairs:
            lines.append(" ".join(map(str, hyp)))
            lines.append(" ".join(map(str, ref)))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {out}: 24 corpora")


if __name__ == "__main__":
    main()
