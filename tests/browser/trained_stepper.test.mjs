// The stepper on a trained model and the backward view, with real clicks, keys and mouse
// moves: the shipped reverse checkpoint opened in the Train view, then stepped through —
// the cross-attention's weight on the mirrored source position measured per head from the
// hovered cells (each hover's arithmetic recomputed here), the block's four stages with
// their checks and hover derivations, the backward view with gradients beside the values —
// in English and 中文, with screenshots; the selection through the URL hash and a reload;
// on random weights, a fully masked row's NaN gradients explained.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, focusCanvas, note, layoutRect, clickRect, parkMouse, pressUntil, findHeatmap,
  hoverCell, screenshotNotBlank, waitFrames,
} from './lib/lab.mjs';

const T = 30000;
const BLOCK_STAGES = ['embed', 'add_norm', 'ffn', 'generator'];
const HAN = /[\u4e00-\u9fff]/;
const chinese = (x) => x.lang === 'zh' && x.text_lang === 'zh' && x.fonts.cjk === 'ready';
const NUM = '(-?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[+-]?\\d+)?)';

/** The numbers a derivation's text matches, in order (pattern: a template with NUM). */
function numbersOf(text, pattern) {
  const m = text.match(new RegExp(pattern.replaceAll('NUM', NUM)));
  assert(m, `no /${pattern}/ in "${text}"`);
  return m.slice(1).map(Number);
}

/** Half a unit in the last place the page prints (format_value: %.4f, or %.3e below 1e-3). */
const ulp = (x) => (x !== 0 && Math.abs(x) < 1e-3) || Math.abs(x) >= 1e5 ? 5e-4 * Math.abs(x) : 5e-5;

/** a ≈ b within twice the error `err` that printing the numbers can explain. */
function near(a, b, what, err) {
  assert(Math.abs(a - b) <= 2 * err + 1e-12, `${what}: ${a} vs ${b} (allowed ${(2 * err).toExponential(2)})`);
}
/** exp(x - m) / z = v from printed numbers. */
const softmaxCell = (x, m, z, v, what) => near(Math.exp(x - m) / z, v, what, ulp(v) + Math.abs(v) * (ulp(x) + ulp(m) + ulp(z) / z));

async function clickKey(t, key, predicate, message) {
  await clickRect(t, layoutRect(await labState(t.page), key));
  return waitForState(t, predicate, { timeout: T, message: message || `after clicking ${key}` });
}

/** The Train view opens the shipped reverse checkpoint; a stage chip leaves for the stepper, its header shows the model. */
async function openShippedReverse(t, lang) {
  await openLab(t, `#train=reverse&lang=${lang}`);
  if (lang === 'zh') await waitForState(t, chinese, { timeout: T, message: 'the Chinese font' });
  await clickKey(t, 'train:open_trained', (s) => s.training && s.training.weights === 'shipped' && !s.training.fetching,
    'the shipped checkpoint opened');
  const s1 = await clickKey(t, 'chip:softmax', (s) => !s.training.view_open && s.stepper.model_open && s.layout['stepper:weights:model'],
    'the stepper offers the model');
  assert(s1.stepper.weights === 'random' && !s1.stepper.shown_model, 'the knobs\' random weights until the model is picked');
  const s2 = await clickKey(t, 'stepper:weights:model', (s) => s.stepper.shown_model && s.stepper.weights === 'shipped',
    'the stepper shows the model');
  assert(s2.lang === lang, `language ${s2.lang}`);
  // The setup panel says its knobs are the random weights', not the model's sizes.
  assert(!s1.layout['stepper:setup_note'] && s2.layout['stepper:setup_note'], 'the setup panel\'s note while the model is shown');
  // The line naming the weights, in the page's language.
  const label = s2.stepper.weights_label;
  assert(label.includes('reverse') && label.includes(String(s2.stepper.steps)), `weights label: ${label}`);
  assert(lang === 'zh' ? HAN.test(label) : /shipped reverse checkpoint/.test(label), `weights label (${lang}): ${label}`);
  return s2;
}

async function pickSublayer(t, key) {
  return clickKey(t, `stepper:sublayer:${key}`, (s) => s.stepper.sublayer === key && s.stepper.shown_model, `sublayer ${key}`);
}

async function setHead(t, head) {
  for (let i = 0; i < 8; i++) {
    const s = await labState(t.page);
    if (s.selection.head === head) return s;
    await t.page.keyboard.press(']');
    await waitFrames(t, 2);
  }
  throw new Error(`head ${head} not reached`);
}

/** Hover a weights cell; its derivation's exp(s - max) / Σ recomputed. Returns the weight. */
async function hoverWeight(t, i, j, head) {
  const hv = await hoverCell(t, 'weights', i, j, { prefix: [0, head] });
  const [s, mx, z, v] = numbersOf(hv.text, '= exp\\(NUM - NUM\\) / NUM = NUM');
  softmaxCell(s, mx, z, v, `weights[0, ${head}, ${i}, ${j}]: ${hv.text}`);
  near(v, hv.value, 'the hovered value', ulp(hv.value));
  return hv.value;
}

for (const lang of ['en', 'zh']) {
  test(`trained stepper (${lang}): the shipped reverse model's cross-attention looks at the mirrored position`, async (t) => {
    await openShippedReverse(t, lang);
    const s = await pickSublayer(t, 'cross');
    assert(s.stage.id === 'softmax', `stage ${s.stage.id}`);
    assert(/multihead_attn/.test(s.stepper.block), `block ${s.stepper.block}`);
    const L = s.stepper.key_tokens.length;
    // The decoder reads BOS then the target; target i is source L-1-i (the axis labels say so).
    assert(s.stepper.query_tokens[0] === 'BOS', `first query ${s.stepper.query_tokens[0]}`);
    for (let i = 0; i + 1 < L; i++)
      assert(s.stepper.query_tokens[i + 1] === s.stepper.key_tokens[L - 1 - i], `query ${i + 1} is not source ${L - 1 - i}`);
    await focusCanvas(t);
    const heads = s.config.heads;
    const mirrored = [];
    let elsewhere = 0;
    for (let h = 0; h < heads; h++) {
      await setHead(t, h);
      let sum = 0;
      for (let i = 0; i < L; i++) sum += await hoverWeight(t, i, L - 1 - i, h);
      mirrored.push(sum / L);
      // One cell off the anti-diagonal per head, as a contrast.
      elsewhere = Math.max(elsewhere, await hoverWeight(t, 0, 0, h));
    }
    const best = mirrored.indexOf(Math.max(...mirrored));
    note(t, `${lang}: mean cross-attention weight on the mirrored source position (held-out sample ${s.stepper.sample}, ` +
      `L = ${L}, uniform would be ${(1 / L).toFixed(3)}): ` + mirrored.map((m, h) => `head ${h} ${m.toFixed(3)}`).join(', ') +
      `; weight of query 0 on key 0 at most ${elsewhere.toFixed(3)}`);
    assert(mirrored[best] > 0.5 && mirrored[best] > 3 / L, `no head looks at the mirrored position: ${mirrored}`);
    assert(mirrored.reduce((a, b) => a + b) / heads > 2 / L, `the heads on average: ${mirrored}`);
    await setHead(t, best);
    await parkMouse(t);
    await waitFrames(t, 3);
    await screenshotNotBlank(t, `trained-stepper-cross-softmax-${lang}.png`);
  }, { viewport: { width: 1280, height: 800 }, timeout: 180000 });

  test(`trained stepper (${lang}): the block's stages by keys and chips, their checks and hover derivations`, async (t) => {
    await openShippedReverse(t, lang);
    await pickSublayer(t, 'enc_self');
    await focusCanvas(t);
    // The walk: embed, the ten stages, add & norm, FFN, generator — by keys.
    let s = await pressUntil(t, 'Home', (x) => x.stage.id === 'embed', { timeout: T });
    const places = s.stepper.places;
    assert(places.length === 14 && JSON.stringify(places.slice(0, 2)) === '["embed","input"]' &&
      JSON.stringify(places.slice(11)) === '["add_norm","ffn","generator"]', `places ${places}`);
    s = await pressUntil(t, 'ArrowRight', (x) => x.stage.id === places[1], { timeout: T });
    s = await pressUntil(t, 'End', (x) => x.stage.id === 'generator', { timeout: T });
    s = await pressUntil(t, 'ArrowLeft', (x) => x.stage.id === 'ffn', { timeout: T });
    s = await pressUntil(t, 'ArrowLeft', (x) => x.stage.id === 'add_norm', { timeout: T });
    s = await pressUntil(t, 'ArrowLeft', (x) => x.stage.id === places[10], { timeout: T });
    assert(s.stepper.place === 10, `place ${s.stepper.place}`);
    // Each block stage by its chip: checks pass, a hovered cell's arithmetic holds.
    const verify = {
      embed: ['embed_out', [0, 2, 3], (x) => { const [a, b, v] = numbersOf(x, '= NUM \\+ NUM = NUM'); near(a + b, v, x, ulp(a) + ulp(b) + ulp(v)); }],
      add_norm: ['norm_out', [0, 2, 3], (x) => {
        const [r, m, va, eps, w, b, v] = numbersOf(x, '= \\(NUM - NUM\\) / sqrt\\(NUM \\+ NUM\\) \u00b7 NUM \\+ NUM = NUM');
        const sd = Math.sqrt(va + eps), scaled = (r - m) / sd * w;
        near(scaled + b, v, x, ulp(v) + ulp(b) + Math.abs(w) * (ulp(r) + ulp(m)) / sd +
          Math.abs(scaled) * (ulp(va) / (va + eps) + ulp(w) / Math.abs(w)));
      }],
      ffn: ['ffn_relu', [0, 2, 3], (x) => { const [a, v] = numbersOf(x, '= max\\(0, NUM\\) = NUM'); near(Math.max(0, a), v, x, 0); }],
      generator: ['probs', [0, 2, 3], (x) => {
        const [l, m, z, v] = numbersOf(x, '= exp\\(NUM - NUM\\) / NUM = NUM');
        softmaxCell(l, m, z, v, x);
      }],
    };
    const formulas = { embed: 'E[tokens] \u00b7 \u221ad_model + PE', add_norm: 'LayerNorm', ffn: 'max(0', generator: 'softmax(' };
    const pytorch = { embed: 'math.sqrt(d_model)', add_norm: 'self.norm1(x + self.self_attn', ffn: 'self.linear2(F.relu(self.linear1(x)))',
      generator: 'logits.softmax(dim=-1)' };
    for (const id of BLOCK_STAGES) {
      s = await clickKey(t, `chip:${id}`, (x) => x.stage.id === id, `chip ${id}`);
      const st = s.stages.find((x) => x.id === id);
      assert(st && st.steps.length >= 2, `stage ${id}: ${JSON.stringify(st).slice(0, 300)}`);
      assert(s.stepper.formula.includes(formulas[id]) && s.stepper.pytorch.includes(pytorch[id]),
        `${id}: formula ${s.stepper.formula}, PyTorch ${s.stepper.pytorch}`);
      if (lang === 'zh') assert(HAN.test(st.title) && st.checks.every((c) => HAN.test(c.label + c.detail)), `${id} in Chinese: ${JSON.stringify(st).slice(0, 400)}`);
      assert(st.checks.length >= 2 && st.checks.every((c) => c.pass), `${id} checks: ${JSON.stringify(st.checks)}`);
      const [tensor, [, row, col], check] = verify[id];
      const hm = findHeatmap(s, tensor);
      const hv = await hoverCell(t, tensor, Math.min(row, hm.rows - 1), Math.min(col, hm.cols - 1), { prefix: hm.prefix });
      check(hv.text);
      await parkMouse(t);
      await waitFrames(t, 3);
      await screenshotNotBlank(t, `trained-stepper-${id}-${lang}.png`);
    }
    const gen = s.stages.find((x) => x.id === 'generator');
    assert(gen.checks.some((c) => c.id === 'loss_matches' && c.pass), `the loss check: ${JSON.stringify(gen.checks)}`);
  }, { viewport: { width: 1280, height: 800 }, timeout: 180000 });

  test(`backward view (${lang}): gradients beside the values, backward formulas, hover derivations`, async (t) => {
    await openShippedReverse(t, lang);
    await pickSublayer(t, 'cross');
    await focusCanvas(t);
    // The key g in English, the header's switch in Chinese.
    const shown = (x) => x.backward && x.stepper.backward && x.heatmaps.some((h) => h.tensor === 'd_weights');
    let s = lang === 'en' ? await pressUntil(t, 'g', shown, { timeout: T })
      : await clickKey(t, 'stepper:backward', shown, 'the backward switch');
    assert(s.backward.loss_kind === 'cross_entropy' && Math.abs(s.backward.loss - s.stepper.loss) <= 1e-6 * Math.abs(s.stepper.loss),
      `loss ${s.backward.loss_kind} ${s.backward.loss} vs the engine's ${s.stepper.loss}`);
    assert(s.backward.stage.formula.includes('dS = A \u2218 (dA - rowsum(dA \u2218 A))'), `formula ${s.backward.stage.formula}`);
    assert(s.backward.stage.pairs.map((p) => p.grad).join() === 'd_weights,d_masked', `pairs ${JSON.stringify(s.backward.stage.pairs)}`);
    assert(s.backward.stage.grad_checks.length >= 2 && s.backward.stage.grad_checks.every((c) => c.pass), 'gradient checks pass');
    if (lang === 'zh') assert(s.backward.stage.grad_checks.every((c) => HAN.test(c.label || c.text || JSON.stringify(c))), 'checks in Chinese');
    findHeatmap(s, 'weights', [0, s.selection.head]);
    findHeatmap(s, 'd_weights', [0, s.selection.head]);
    // The softmax's backward for one cell: A_ij · (dA_ij - Σ_k dA_ik A_ik) = the value.
    const hv = await hoverCell(t, 'd_masked', 3, 4, { prefix: [0, s.selection.head] });
    assert(hv.text.startsWith('d_masked[0, '), `d_masked derivation: ${hv.text}`);
    const [a, da, dot, v] = numbersOf(hv.text, '= NUM \u00b7 \\(NUM - NUM\\) = NUM');
    assert(Math.abs(a * (da - dot) - v) <= 1e-3 * Math.abs(v) + 2e-4 * Math.abs(a * da) + 1e-7, `${a}*(${da}-${dot}) != ${v}`);
    await parkMouse(t);
    await waitFrames(t, 3);
    await screenshotNotBlank(t, `backward-softmax-${lang}.png`);
    // A block stage's backward: d_ffn_relu = d_ffn_out · W2ᵀ, its terms summed in the text.
    s = await clickKey(t, 'chip:ffn', (x) => x.stage.id === 'ffn' && x.backward && x.heatmaps.some((h) => h.tensor === 'd_ffn_relu'), 'chip ffn');
    assert(s.backward.stage.pairs.map((p) => p.grad).join() === 'd_layer_out,d_ffn_out,d_ffn_relu,d_ffn_hidden',
      `ffn pairs ${JSON.stringify(s.backward.stage.pairs)}`);
    assert(s.backward.stage.grad_checks.length >= 1 && s.backward.stage.grad_checks.every((c) => c.pass), 'ffn gradient checks');
    assert(s.stepper.formula.includes('FFN(x)'), `forward formula kept for the explain panel: ${s.stepper.formula}`);
    const dr = findHeatmap(s, 'd_ffn_relu');
    const hw = await hoverCell(t, 'd_ffn_relu', Math.min(1, dr.rows - 1), Math.min(2, dr.cols - 1), { prefix: dr.prefix });
    assert(hw.text.includes('(d_ffn_out \u00b7 w_2^T = '), `d_ffn_relu derivation: ${hw.text}`);
    const [pos, neg, dv] = numbersOf(hw.text, lang === 'zh' ? '正项之和 NUM，负项之和 NUM）\\) = NUM' : 'positive sum NUM, negative sum NUM\\)\\) = NUM');
    near(pos + neg, dv, hw.text, ulp(pos) + ulp(neg) + ulp(dv));
    near(dv, hw.value, 'the hovered gradient', ulp(hw.value));
    await parkMouse(t);
    await waitFrames(t, 3);
    await screenshotNotBlank(t, `backward-ffn-${lang}.png`);
  }, { viewport: { width: 1280, height: 800 }, timeout: 180000 });
}

test('trained stepper: the selection goes through the URL hash and a reload', async (t) => {
  await openShippedReverse(t, 'en');
  await pickSublayer(t, 'cross');
  await focusCanvas(t);
  await pressUntil(t, 'End', (x) => x.stage.id === 'generator', { timeout: T });
  await pressUntil(t, 'ArrowLeft', (x) => x.stage.id === 'ffn', { timeout: T });
  let s = await pressUntil(t, 'g', (x) => x.stepper.backward, { timeout: T });
  const hash = s.url_hash;
  for (const part of ['model=1', 'layer=0', 'sublayer=cross', 'stage=ffn', 'grad=1'])
    assert(hash.split('&').includes(part), `url_hash lacks ${part}: ${hash}`);
  await waitForState(t, () => true);
  assert((await t.page.evaluate(() => location.hash)).includes('sublayer=cross'), 'the address bar has the hash');
  // A reload: the selection is back, on the page's new model at initialisation until the checkpoint is opened again.
  await t.page.reload({ waitUntil: 'load' });
  await t.waitFor(() => !!(window.lab && window.lab.ready === true), { timeout: 60000, message: 'ready after reload' });
  s = await waitForState(t, (x) => x.render && x.render.settled && x.stepper.shown_model, { timeout: T, message: 'settled after reload' });
  assert(s.stage.id === 'ffn' && s.stepper.sublayer === 'cross' && s.stepper.backward && s.stepper.weights === 'random' &&
    s.stepper.steps === 0 && /initialisation/.test(s.stepper.weights_label), `after reload: ${JSON.stringify(s.stepper).slice(0, 400)}`);
  assert(s.backward && s.backward.loss_kind === 'cross_entropy', 'the untrained model\'s backward view');
  const untrainedLoss = s.stepper.loss;
  await clickKey(t, 'menu:train', (x) => x.training.view_open, 'the Train view');
  await clickKey(t, 'train:task:reverse', (x) => x.training.task === 'reverse', 'task reverse');
  await clickKey(t, 'train:open_trained', (x) => x.training.weights === 'shipped' && !x.training.fetching, 'the checkpoint');
  await focusCanvas(t);
  s = await pressUntil(t, 'Escape', (x) => !x.training.view_open && x.stepper.shown_model, { timeout: T, message: 'Escape to the stepper' });
  assert(s.stage.id === 'ffn' && s.stepper.sublayer === 'cross' && s.stepper.backward && s.backward.loss_kind === 'cross_entropy',
    `restored: stage ${s.stage.id}, ${JSON.stringify(s.stepper).slice(0, 300)}`);
  assert(s.url_hash === hash, `hash after the round trip: ${s.url_hash} (was ${hash})`);
  note(t, `sample ${s.stepper.sample}'s loss: ${untrainedLoss.toFixed(4)} at initialisation, ${s.stepper.loss.toFixed(6)} shipped`);
  assert(s.stepper.loss < untrainedLoss / 10, `the shipped model's loss ${s.stepper.loss} vs ${untrainedLoss} untrained`);
});

for (const lang of ['en', 'zh']) {
  test(`backward view on random weights (${lang}): a fully masked row (-inf) has NaN gradients, explained`, async (t) => {
    const s0 = await openLab(t, `#d_model=16&heads=4&seq_len=5&mask=padding&pad=5,0&stage=softmax&b=1&head=2&lang=${lang}`);
    if (lang === 'zh') await waitForState(t, chinese, { timeout: T, message: 'the Chinese font' });
    assert(!s0.backward && s0.stepper.weights === 'random', 'starts forward, random weights');
    const s = await clickKey(t, 'stepper:backward', (x) => x.backward, 'the backward view');
    assert(s.backward.loss_kind === 'probe' && s.backward.loss === null, `probe loss ${s.backward.loss} (NaN: the output has NaN rows)`);
    const finite = s.backward.stage.grad_checks.find((c) => c.id === 'grad_finite');
    assert(finite && finite.verdict === 'nan_masked' && !finite.pass && /SoftmaxBackward/.test(finite.detail), `finite check: ${JSON.stringify(finite)}`);
    const hv = await hoverCell(t, 'd_masked', 2, 1, { prefix: [1, 2] });
    assert(hv.value === null && /SoftmaxBackward0/.test(hv.text) && /-inf/.test(hv.text), `NaN cell: ${JSON.stringify(hv)}`);
    if (lang === 'zh') assert(HAN.test(hv.text), `explained in Chinese: ${hv.text}`);
    const ok = await hoverCell(t, 'd_weights', 2, 1, { prefix: [1, 2] });
    assert(ok.value !== null, 'd_weights is finite in that row (the NaN starts at the softmax backward)');
    // Item 0 has no padding: its gradients are numbers (the key b shows the next item).
    await focusCanvas(t);
    await pressUntil(t, 'b', (x) => x.heatmaps.some((h) => h.tensor === 'd_masked' && h.prefix[0] === 0), { timeout: T });
    const fine = await hoverCell(t, 'd_masked', 2, 1, { prefix: [0, 2] });
    assert(fine.value !== null && Number.isFinite(fine.value), `item 0: ${JSON.stringify(fine)}`);
    await parkMouse(t);
    await waitFrames(t, 3);
    await screenshotNotBlank(t, `backward-fully-masked-nan-${lang}.png`);
  });
}

for (const [w, h] of [[1280, 800], [1024, 640]]) {
  test(`trained stepper at ${w}x${h}: header and chips fit, in both languages`, async (t) => {
    await openShippedReverse(t, 'en');
    for (const lang of ['en', 'zh']) {
      if (lang === 'zh') await clickKey(t, 'lang:zh', chinese, 'Chinese');
      await focusCanvas(t);
      for (const backward of [false, true]) {
        let s = await labState(t.page);
        if (s.stepper.backward !== backward) s = await pressUntil(t, 'g', (x) => x.stepper.backward === backward, { timeout: T });
        s = await waitFrames(t, 3);
        const rects = Object.entries(s.layout).filter(([key]) => /^(stepper:|chip:)/.test(key));
        assert(rects.length >= 14 + 4, `rects ${rects.map(([k]) => k)}`);
        for (const [key, r] of rects)
          assert(r.x >= 0 && r.x + r.w <= w + 0.5 && r.y >= 0 && r.y + r.h <= h + 0.5, `${key} off screen at ${w}x${h} (${lang}): ${JSON.stringify(r)}`);
        // The header's buttons never overlap (they wrap like words).
        const header = rects.filter(([key]) => key.startsWith('stepper:'));
        for (let i = 0; i < header.length; i++)
          for (let j = i + 1; j < header.length; j++) {
            const [ka, a] = header[i];
            const [kb, b] = header[j];
            const overlap = a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
            assert(!overlap, `${ka} overlaps ${kb} at ${w}x${h} (${lang})`);
          }
        await parkMouse(t);
        await screenshotNotBlank(t, `trained-stepper-${w}x${h}-${lang}${backward ? '-backward' : ''}.png`);
      }
    }
  }, { viewport: { width: w, height: h }, timeout: 180000 });
}
