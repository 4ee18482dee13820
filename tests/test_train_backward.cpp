// test_train_backward.cpp — every backward function of the training engine against
// central finite differences of its forward, in double precision. The forward of
// each attention step is the core's own (linear, split/concat heads, and
// scaled_dot_product_attention's recorded intermediates: with k = I and scaling
// off, its scores are q itself, so it computes masked_fill / softmax of any matrix).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "attention/attention.h"
#include "grad_check.h"
#include "nn/attention_backward.h"
#include "nn/layers.h"

using namespace lab;

namespace {

std::vector<double> zeros(size_t n) { return std::vector<double>(n, 0.0); }

std::vector<double> identity(int n) {
    std::vector<double> I(static_cast<size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i) I[static_cast<size_t>(i) * n + i] = 1.0;
    return I;
}

// The core's attention on one slice with k = I (L_kv × L_kv): scores = s.
struct SdpaOfMatrix {
    int L_q, L_kv;
    std::vector<double> scores, scaled, masked, weights, context;
    SdpaOfMatrix(int lq, int lkv)
        : L_q(lq), L_kv(lkv), scores(zeros(lq * lkv)), scaled(scores), masked(scores), weights(scores), context(scores) {}
    void run(const std::vector<double>& s, const float* keep, bool scale, MaskFill fill) {
        const std::vector<double> I = identity(L_kv);
        SdpaOutputsT<double> out{scores.data(), scaled.data(), masked.data(), weights.data(), context.data()};
        scaled_dot_product_attention(out, s.data(), I.data(), I.data(), keep, L_q, L_kv, L_kv, L_kv,
                                     SdpaOptions{scale, fill, nullptr});
    }
};

}  // namespace

TEST_CASE("linear_backward matches finite differences of linear") {
    const int rows = 5, n_in = 4, n_out = 3;
    std::vector<double> x = random_values(rows * n_in, 1), w = random_values(n_in * n_out, 2), b = random_values(n_out, 3);
    const std::vector<double> g = random_values(rows * n_out, 4);
    std::vector<double> dx = zeros(x.size()), dw = zeros(w.size()), db = zeros(b.size()), y = zeros(rows * n_out);
    linear_backward(dx.data(), dw.data(), db.data(), g.data(), x.data(), w.data(), rows, n_in, n_out);
    auto loss = [&] {
        linear(y.data(), x.data(), w.data(), b.data(), rows, n_in, n_out);
        return dot(y, g);
    };
    CHECK_GRAD("d_in", check_grad(x, dx, loss));
    CHECK_GRAD("d_w", check_grad(w, dw, loss));
    CHECK_GRAD("d_b", check_grad(b, db, loss));
}

TEST_CASE("split_heads_backward and concat_heads_backward match finite differences") {
    const int B = 2, L = 3, h = 2, dk = 3, n = B * L * h * dk;
    std::vector<double> x = random_values(n, 5), y = zeros(n);
    const std::vector<double> g = random_values(n, 6);
    std::vector<double> dx = zeros(n);
    split_heads_backward(dx.data(), g.data(), B, L, h, dk);
    CHECK_GRAD("split", check_grad(x, dx, [&] {
                   split_heads(y.data(), x.data(), B, L, h, dk);
                   return dot(y, g);
               }));
    std::vector<double> dc = zeros(n);
    concat_heads_backward(dc.data(), g.data(), B, h, L, dk);
    CHECK_GRAD("concat", check_grad(x, dc, [&] {
                   concat_heads(y.data(), x.data(), B, h, L, dk);
                   return dot(y, g);
               }));
}

TEST_CASE("scores_backward matches finite differences of q·kᵀ") {
    const int Lq = 3, Lkv = 4, dk = 5;
    std::vector<double> q = random_values(Lq * dk, 7), k = random_values(Lkv * dk, 8), v = random_values(Lkv * dk, 9);
    const std::vector<double> g = random_values(Lq * Lkv, 10);
    std::vector<double> dq = zeros(q.size()), dkey = zeros(k.size()), scores = zeros(Lq * Lkv), w = scores, ctx = zeros(Lq * dk);
    scores_backward(dq.data(), dkey.data(), g.data(), q.data(), k.data(), Lq, Lkv, dk);
    auto loss = [&] {
        SdpaOutputsT<double> out{scores.data(), nullptr, nullptr, w.data(), ctx.data()};
        scaled_dot_product_attention(out, q.data(), k.data(), v.data(), nullptr, Lq, Lkv, dk, dk);
        return dot(scores, g);
    };
    CHECK_GRAD("d_q", check_grad(q, dq, loss));
    CHECK_GRAD("d_k", check_grad(k, dkey, loss));
}

TEST_CASE("scale_backward, mask_backward and softmax_backward match finite differences") {
    const int Lq = 3, Lkv = 4;
    std::vector<double> s = random_values(Lq * Lkv, 11, 2.0);
    const std::vector<double> g = random_values(Lq * Lkv, 12);
    SdpaOfMatrix f(Lq, Lkv);
    SUBCASE("scale (÷√d_k, d_k = L_kv here)") {
        std::vector<double> ds = zeros(s.size());
        scale_backward(ds.data(), g.data(), Lq, Lkv, Lkv, true);
        CHECK_GRAD("d_scores", check_grad(s, ds, [&] {
                       f.run(s, nullptr, true, MaskFill::NegInf);
                       return dot(f.scaled, g);
                   }));
    }
    SUBCASE("mask (-1e9 fill: masked entries are constants)") {
        const std::vector<float> keep = {1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 1};
        std::vector<double> ds = zeros(s.size());
        mask_backward(ds.data(), g.data(), keep.data(), Lq, Lkv);
        CHECK(ds[1] == 0.0);
        CHECK_GRAD("d_scaled", check_grad(s, ds, [&] {
                       f.run(s, keep.data(), false, MaskFill::NegBillion);
                       // Minus the fill where masked (a constant): the sum then has no 1e9 terms
                       // to cancel, and any dependence of a masked entry on s still shows.
                       double sum = 0;
                       for (size_t e = 0; e < s.size(); ++e) sum += g[e] * (f.masked[e] - (keep[e] ? 0.0 : -1e9));
                       return sum;
                   }));
    }
    SUBCASE("softmax") {
        f.run(s, nullptr, false, MaskFill::NegInf);
        std::vector<double> ds = zeros(s.size());
        softmax_backward(ds.data(), g.data(), f.weights.data(), Lq, Lkv);
        CHECK_GRAD("d_masked", check_grad(s, ds, [&] {
                       f.run(s, nullptr, false, MaskFill::NegInf);
                       return dot(f.weights, g);
                   }));
    }
}

TEST_CASE("context_backward matches finite differences of weights·v") {
    const int Lq = 3, Lkv = 4, dv = 2;
    std::vector<double> a = random_values(Lq * Lkv, 13), v = random_values(Lkv * dv, 14), ctx = zeros(Lq * dv);
    const std::vector<double> g = random_values(Lq * dv, 15);
    std::vector<double> da = zeros(a.size()), dval = zeros(v.size());
    context_backward(da.data(), dval.data(), g.data(), a.data(), v.data(), Lq, Lkv, dv);
    auto loss = [&] {  // weights·v is the core's linear with w = v
        linear(ctx.data(), a.data(), v.data(), static_cast<const double*>(nullptr), Lq, Lkv, dv);
        return dot(ctx, g);
    };
    CHECK_GRAD("d_weights", check_grad(a, da, loss));
    CHECK_GRAD("d_v", check_grad(v, dval, loss));
}

TEST_CASE("scaled_dot_product_attention_backward matches finite differences of the whole slice") {
    const int Lq = 4, Lkv = 4, dk = 3;
    std::vector<double> q = random_values(Lq * dk, 16), k = random_values(Lkv * dk, 17), v = random_values(Lkv * dk, 18);
    const std::vector<double> g = random_values(Lq * dk, 19);
    const std::vector<float> causal = {1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1};
    for (bool scale : {true, false}) {
        CAPTURE(scale);
        std::vector<double> w = zeros(Lq * Lkv), ctx = zeros(Lq * dk);
        auto forward = [&] {
            SdpaOutputsT<double> out{nullptr, nullptr, nullptr, w.data(), ctx.data()};
            scaled_dot_product_attention(out, q.data(), k.data(), v.data(), causal.data(), Lq, Lkv, dk, dk,
                                         SdpaOptions{scale, MaskFill::NegInf, nullptr});
            return dot(ctx, g);
        };
        forward();
        std::vector<double> dq = zeros(q.size()), dkey = zeros(k.size()), dval = zeros(v.size());
        std::vector<double> dw = zeros(w.size()), dm = dw, dsc = dw, dsr = dw;
        scaled_dot_product_attention_backward(dq.data(), dkey.data(), dval.data(),
                                              SdpaGradsT<double>{dw.data(), dm.data(), dsc.data(), dsr.data()},
                                              g.data(), q.data(), k.data(), v.data(), w.data(), causal.data(), Lq, Lkv,
                                              dk, dk, scale);
        CHECK(dsc[1] == 0.0);  // a masked key gets no gradient
        CHECK_GRAD("d_q", check_grad(q, dq, forward));
        CHECK_GRAD("d_k", check_grad(k, dkey, forward));
        CHECK_GRAD("d_v", check_grad(v, dval, forward));
    }
}

TEST_CASE("a fully masked row with -inf gives NaN weights and NaN gradients, as PyTorch") {
    // Row 1 masks every key. PyTorch: softmax row NaN; SoftmaxBackward NaN for that row;
    // masked_fill's backward zeroes it again, so d_q stays finite while d_v (weightsᵀ·d_context) is NaN.
    const int L = 3, dk = 2;
    const std::vector<double> q = random_values(L * dk, 20), k = random_values(L * dk, 21), v = random_values(L * dk, 22);
    const std::vector<double> g = random_values(L * dk, 23);
    const std::vector<float> keep = {1, 1, 1, 0, 0, 0, 1, 1, 1};
    std::vector<double> w = zeros(L * L), ctx = zeros(L * dk);
    scaled_dot_product_attention(SdpaOutputsT<double>{nullptr, nullptr, nullptr, w.data(), ctx.data()}, q.data(),
                                 k.data(), v.data(), keep.data(), L, L, dk, dk);
    CHECK(std::isnan(w[3]));
    std::vector<double> dq = zeros(q.size()), dkey = zeros(k.size()), dval = zeros(v.size());
    std::vector<double> dw = zeros(w.size()), dm = dw, dsc = dw, dsr = dw;
    scaled_dot_product_attention_backward(dq.data(), dkey.data(), dval.data(),
                                          SdpaGradsT<double>{dw.data(), dm.data(), dsc.data(), dsr.data()}, g.data(),
                                          q.data(), k.data(), v.data(), w.data(), keep.data(), L, L, dk, dk, true);
    for (int j = 0; j < L; ++j) {
        CHECK(std::isnan(dm[3 + j]));   // dS of the masked row
        CHECK(dsc[3 + j] == 0.0);       // masked_fill's backward
        CHECK(std::isfinite(dm[j]));    // other rows are fine
    }
    for (double x : dval) CHECK(std::isnan(x));
    for (double x : dq) CHECK(std::isfinite(x));
}

TEST_CASE("embedding, positions and residual backward match finite differences") {
    const int vocab = 5, d = 3, B = 2, L = 3, rows = B * L;
    const std::vector<int32_t> tokens = {4, 1, 4, 0, 2, 1};  // token 4 twice: scatter-add
    std::vector<double> table = random_values(vocab * d, 24), out = zeros(rows * d);
    const std::vector<double> g = random_values(rows * d, 25), pe = random_values(L * d, 26);
    const double scale = std::sqrt(3.0);
    std::vector<double> dtable = zeros(table.size());
    embedding_backward(dtable.data(), g.data(), tokens.data(), rows, d, scale);
    CHECK(dtable[3 * d] == 0.0);  // token 3 unused
    CHECK_GRAD("embedding", check_grad(table, dtable, [&] {
                   embedding_forward(out.data(), tokens.data(), table.data(), rows, d, scale);
                   return dot(out, g);
               }));
    std::vector<double> x = random_values(rows * d, 27), dx = zeros(x.size());
    add_positions_backward(dx.data(), g.data(), B, L, d);
    CHECK_GRAD("positions", check_grad(x, dx, [&] {
                   add_positions_forward(out.data(), x.data(), pe.data(), B, L, d);
                   return dot(out, g);
               }));
    std::vector<double> a = random_values(rows * d, 28), b = random_values(rows * d, 29), da = zeros(a.size()), db = da;
    residual_backward(da.data(), db.data(), g.data(), rows * d);
    auto residual = [&] {
        residual_forward(out.data(), a.data(), b.data(), rows * d);
        return dot(out, g);
    };
    CHECK_GRAD("residual a", check_grad(a, da, residual));
    CHECK_GRAD("residual b", check_grad(b, db, residual));
}

TEST_CASE("layer_norm_backward and relu_backward match finite differences") {
    const int rows = 4, d = 5;
    std::vector<double> x = random_values(rows * d, 30, 3.0), w = random_values(d, 31), b = random_values(d, 32);
    const std::vector<double> g = random_values(rows * d, 33);
    std::vector<double> y = zeros(rows * d), mean = zeros(rows), rstd = zeros(rows);
    auto loss = [&] {
        layer_norm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), rows, d, 1e-5);
        return dot(y, g);
    };
    loss();
    std::vector<double> dx = zeros(x.size()), dw = zeros(d), db = zeros(d);
    layer_norm_backward(dx.data(), dw.data(), db.data(), g.data(), x.data(), mean.data(), rstd.data(), w.data(), rows, d);
    CHECK_GRAD("d_in", check_grad(x, dx, loss));
    CHECK_GRAD("d_w", check_grad(w, dw, loss));
    CHECK_GRAD("d_b", check_grad(b, db, loss));

    std::vector<double> r = random_values(rows * d, 34);
    for (double& v : r) v += v > 0 ? 0.1 : -0.1;  // away from the kink
    std::vector<double> dr = zeros(r.size());
    relu_backward(dr.data(), g.data(), r.data(), rows * d);
    CHECK_GRAD("relu", check_grad(r, dr, [&] {
                   relu_forward(y.data(), r.data(), rows * d);
                   return dot(y, g);
               }));
}

TEST_CASE("cross_entropy_backward matches finite differences, with label smoothing and a row mask") {
    const int rows = 4, C = 5;
    std::vector<double> z = random_values(rows * C, 35, 2.0), probs = zeros(rows * C);
    const std::vector<int32_t> targets = {1, 4, 0, 2};
    const std::vector<uint8_t> mask = {1, 0, 1, 1};
    for (double eps : {0.0, 0.1}) {
        for (const uint8_t* m : {static_cast<const uint8_t*>(nullptr), mask.data()}) {
            CAPTURE(eps);
            auto loss = [&] { return cross_entropy_forward(probs.data(), z.data(), targets.data(), m, rows, C, eps); };
            loss();
            std::vector<double> dz = zeros(z.size());
            cross_entropy_backward(dz.data(), 1.0, probs.data(), targets.data(), m, rows, C, eps);
            CHECK_GRAD("d_logits", check_grad(z, dz, loss));
        }
    }
    // The value itself: uniform logits give log C whatever the smoothing.
    std::vector<double> flat = zeros(rows * C);
    CHECK(cross_entropy_forward(probs.data(), flat.data(), targets.data(), nullptr, rows, C, 0.1) ==
          doctest::Approx(std::log(5.0)).epsilon(1e-12));
}

TEST_CASE("dropout: seeded masks, inverted scaling, and a backward through the same mask") {
    const long n = 4000;
    const double p = 0.3;
    std::vector<uint8_t> keep(n), again(n);
    dropout_mask(keep.data(), n, p, 42);
    dropout_mask(again.data(), n, p, 42);
    CHECK(keep == again);  // the seed is the mask
    dropout_mask(again.data(), n, p, 43);
    CHECK(keep != again);
    long dropped = 0;
    for (uint8_t k : keep) dropped += k == 0;
    CHECK(static_cast<double>(dropped) / n == doctest::Approx(p).epsilon(0.1));  // 1200 ± 29 expected
    std::vector<uint8_t> none(n);
    dropout_mask(none.data(), n, 0.0, 42);
    for (uint8_t k : none) CHECK(k == 1);

    // Forward: kept values × 1/(1 − p), dropped ones 0; the mean is kept (the point of inverting).
    const int m = 12;
    std::vector<double> x = random_values(m, 40), y = zeros(m);
    dropout_forward(y.data(), x.data(), keep.data(), m, p);
    for (int e = 0; e < m; ++e) CHECK(y[e] == doctest::Approx(keep[e] ? x[e] / (1 - p) : 0.0).epsilon(1e-15));
    std::vector<float> ones(n, 1.0f), out(n);
    dropout_forward(out.data(), ones.data(), keep.data(), n, p);
    double mean = 0;
    for (float v : out) mean += v;
    CHECK(mean / n == doctest::Approx(1.0).epsilon(0.05));

    // Backward with the mask fixed: finite differences of the forward.
    const std::vector<double> g = random_values(m, 41);
    std::vector<double> dx = zeros(m);
    dropout_backward(dx.data(), g.data(), keep.data(), m, p);
    CHECK_GRAD("dropout", check_grad(x, dx, [&] {
                   dropout_forward(y.data(), x.data(), keep.data(), m, p);
                   return dot(y, g);
               }));
    for (int e = 0; e < m; ++e)
        if (!keep[e]) CHECK(dx[e] == 0.0);  // a dropped element passes nothing back
}

TEST_CASE("learned positions: positions_table_backward matches finite differences of adding the table") {
    const int B = 3, L = 4, d = 2;
    std::vector<double> x = random_values(B * L * d, 50), pe = random_values(L * d, 51), out = zeros(B * L * d);
    const std::vector<double> g = random_values(B * L * d, 52);
    std::vector<double> dpe = zeros(pe.size());
    positions_table_backward(dpe.data(), g.data(), B, L, d);
    CHECK_GRAD("d_pe", check_grad(pe, dpe, [&] {
                   add_positions_forward(out.data(), x.data(), pe.data(), B, L, d);
                   return dot(out, g);
               }));
}
