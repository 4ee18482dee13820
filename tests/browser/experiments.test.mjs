// Experiments tests: every panel opened through the Experiments menu (mouse), the
// 'e' key and the URL hash; its headline numbers checked against the paper's
// claims; leaving by Escape / the back button / the menu; the hash and reloads.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, focusCanvas, note, layoutRect, clickRect, parkMouse,
  pressUntil, screenshotNotBlank, waitFrames, waitReady, pickExperiment, stableRect,
} from './lib/lab.mjs';

const T = 5000;
// The scaling panel draws 4000 samples per d_k for 11 values of d_k: allow for a loaded machine.
const COMPUTE_T = 60000;
const KEYS = ['scaling', 'heads', 'masks', 'pe', 'mistakes', 'encdec'];
const MISTAKES = ['softmax_wrong_axis', 'softmax_over_heads', 'no_scaling', 'inverted_mask', 'mask_after_softmax',
  'wrong_split_view', 'concat_without_transpose', 'hard_coded_dk', 'k_instead_of_kt',
  'view_without_contiguous', 'mask_wrong_length', 'pe_exponent_twice', 'view_infers_length', 'additive_mask_convention',
  'gqa_wrong_order'];
// var(q.k) = d_k is checked to 5% in the doctest suite with many samples; the page
// uses 4000 samples per d_k (standard error of a variance ~ sqrt(2/4000) = 2.2%).
const VAR_TOL = 0.10;

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const fmt = (v) => (typeof v === 'number' ? Number(v.toPrecision(4)) : v);
const expIs = (key) => (s) => !!s.experiment && s.experiment.key === key;
const hashHasExp = (h, key) => new RegExp(`(^#?|&)exp=${key}(&|$)`).test(h);

/** Open exp:<key> from the menu by mouse and wait until its numbers are in state(). */
async function openByMenu(t, key) {
  await pickExperiment(t, key);
  return waitForState(t, expIs(key), { timeout: COMPUTE_T, message: `click exp:${key} -> state().experiment.key === '${key}'` });
}

// Headline checks, one per panel. Each returns a one-line summary of the values it judged.
const CHECKS = {
  scaling(e) {
    assert(e.samples === 4000, `scaling: samples ${e.samples}, the page's default is 4000`);
    const dks = e.series.map((p) => p.d_k);
    assert(same(dks, [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]), `scaling: d_k values ${dks}`);
    let worstDot = 0, worstScaled = 0;
    for (const p of e.series) {
      for (const [k, v] of Object.entries(p)) assert(Number.isFinite(v), `scaling d_k=${p.d_k}: ${k} = ${v}`);
      if (p.d_k < 4) continue;
      const relDot = Math.abs(p.var_dot / p.d_k - 1);
      const relScaled = Math.abs(p.var_scaled - 1);
      worstDot = Math.max(worstDot, relDot);
      worstScaled = Math.max(worstScaled, relScaled);
      assert(relDot <= VAR_TOL, `scaling d_k=${p.d_k}: var(q.k) = ${p.var_dot} is ${(100 * relDot).toFixed(1)}% off d_k (> ${100 * VAR_TOL}%)`);
      assert(relScaled <= VAR_TOL, `scaling d_k=${p.d_k}: var(q.k/sqrt(d_k)) = ${p.var_scaled} is ${(100 * relScaled).toFixed(1)}% off 1`);
      // Scaling by 1/sqrt(d_k) divides the variance by d_k exactly (same samples).
      assert(Math.abs(p.var_scaled * p.d_k - p.var_dot) <= 1e-6 * p.var_dot,
        `scaling d_k=${p.d_k}: var_scaled * d_k = ${p.var_scaled * p.d_k} != var_dot ${p.var_dot}`);
    }
    const big = e.series[e.series.length - 1];
    assert(big.jacobian_norm < big.jacobian_norm_scaled,
      `scaling d_k=${big.d_k}: unscaled Jacobian norm ${big.jacobian_norm} is not below the scaled ${big.jacobian_norm_scaled}`);
    assert(big.max_weight > 0.5 && big.max_weight > big.max_weight_scaled,
      `scaling d_k=${big.d_k}: unscaled max weight ${big.max_weight} vs scaled ${big.max_weight_scaled} (expected a near one-hot softmax unscaled)`);
    assert(big.entropy < big.entropy_scaled, `scaling d_k=${big.d_k}: entropy ${big.entropy} not below scaled ${big.entropy_scaled}`);
    const d1 = e.series[0];
    assert(d1.var_dot === d1.var_scaled, `scaling d_k=1: scaling by 1 changed the variance (${d1.var_dot} vs ${d1.var_scaled})`);
    return `worst |var_dot/d_k - 1| ${(100 * worstDot).toFixed(2)}%, worst |var_scaled - 1| ${(100 * worstScaled).toFixed(2)}% (d_k >= 4, ${e.samples} samples); ` +
      `d_k=${big.d_k}: var_dot ${fmt(big.var_dot)}, max weight ${fmt(big.max_weight)} vs ${fmt(big.max_weight_scaled)}, ` +
      `Jacobian ${fmt(big.jacobian_norm)} vs ${fmt(big.jacobian_norm_scaled)}`;
  },
  heads(e, s) {
    const c = s.config;
    const hs = e.series.map((p) => p.heads);
    const want = [1, 2, 4, 8, 16].filter((h) => c.d_model % h === 0);
    assert(same(hs, want), `heads: h values ${hs}, expected ${want} for d_model ${c.d_model}`);
    for (const p of e.series) {
      assert(p.d_k * p.heads === c.d_model, `heads h=${p.heads}: d_k ${p.d_k} * h != d_model ${c.d_model}`);
      assert(same(p.weights_shape, [c.batch, p.heads, c.seq_len, c.kv_len]),
        `heads h=${p.heads}: weights shape [${p.weights_shape}] != [B, h, L_q, L_kv] = [${[c.batch, p.heads, c.seq_len, c.kv_len]}]`);
      assert(p.head_entropy.length === p.heads && p.knockout_delta.length === p.heads,
        `heads h=${p.heads}: ${p.head_entropy.length} entropies, ${p.knockout_delta.length} knockout deltas`);
      const maxEnt = Math.log(c.kv_len) + 1e-6;
      for (const h of p.head_entropy) assert(h >= 0 && h <= maxEnt, `heads h=${p.heads}: entropy ${h} outside [0, ln L_kv = ${maxEnt}]`);
      for (const d of p.knockout_delta) assert(Number.isFinite(d) && d > 0, `heads h=${p.heads}: knockout delta ${d} (expected > 0)`);
      assert(p.output_norm > 0, `heads h=${p.heads}: output norm ${p.output_norm}`);
    }
    return e.series.map((p) => `h=${p.heads}: knockout ${p.knockout_delta.map(fmt).join('/')}`).join('; ');
  },
  masks(e, s) {
    assert(s.config.mask_fill === '-inf', `masks: expected the default fill -inf, config ${JSON.stringify(s.config)}`);
    const names = e.cases.map((k) => k.name);
    const by = (n) => {
      const k = e.cases.find((x) => x.name === n);
      assert(k, `masks: no case "${n}" (have ${names.join(', ')})`);
      return k;
    };
    assert(by('causal').future_nonzero === 0, `masks: causal leaves ${by('causal').future_nonzero} weights above the diagonal`);
    assert(by('none').future_nonzero > 0, `masks: 'none' has no weight above the diagonal (${by('none').future_nonzero})`);
    assert(!by('causal').has_nan && !by('none').has_nan, 'masks: NaN with the none or causal mask');
    const inv = by('inverted causal');
    assert(inv.has_nan === true && inv.fully_masked_rows > 0,
      `masks: inverted causal with fill -inf should give fully masked NaN rows: ${JSON.stringify(inv)}`);
    assert(e.fully_masked_inf_nan === true && e.fully_masked_1e9_nan === false,
      `masks: a fully masked row should be NaN with -inf and not with -1e9: inf ${e.fully_masked_inf_nan}, 1e9 ${e.fully_masked_1e9_nan}`);
    return e.cases.map((k) => `${k.name}: future ${k.future_nonzero}, masked rows ${k.fully_masked_rows}${k.has_nan ? ' NaN' : ''}`).join('; ');
  },
  pe(e, s) {
    assert(e.offset_only === true, `pe: PE_i.PE_j does not depend on j - i only (max deviation ${e.max_offset_deviation})`);
    assert(e.max_offset_deviation >= 0 && e.max_offset_deviation < 1e-4, `pe: max offset deviation ${e.max_offset_deviation}`);
    assert(e.d_model === s.config.d_model, `pe: d_model ${e.d_model} != config ${s.config.d_model}`);
    assert(e.length > e.train_length && e.train_length > 0, `pe: length ${e.length}, training length ${e.train_length}`);
    assert(e.dims.length > 0 && e.dims.every((d) => Number.isInteger(d) && d >= 0 && d < e.d_model), `pe: dims ${e.dims}`);
    const dup = e.dims.filter((d, i) => e.dims.indexOf(d) !== i);
    return `length ${e.length}, train_length ${e.train_length}, max deviation ${e.max_offset_deviation}, dims [${e.dims}]` +
      (dup.length ? ` (plots dims ${[...new Set(dup)]} twice at d_model ${e.d_model})` : '');
  },
  mistakes(e) {
    const keys = e.series.map((m) => m.key);
    assert(same(keys, MISTAKES), `mistakes: keys ${keys}`);
    const raising = e.series.filter((m) => !m.runs);
    assert(raising.length >= 1, 'mistakes: no mistake makes PyTorch raise');
    for (const m of raising) {
      assert(/^RuntimeError/.test(m.error), `mistakes ${m.key}: error "${m.error}" does not start with RuntimeError`);
      assert(m.stops_at && m.symptom, `mistakes ${m.key}: no stage or symptom: ${JSON.stringify(m)}`);
    }
    for (const m of e.series.filter((x) => x.runs)) {
      assert(m.error === '', `mistakes ${m.key}: runs but reports an error "${m.error}"`);
      // Every mistake that runs must visibly change something.
      const visible = m.output_diff > 1e-3 || m.max_row_sum_error > 1e-3 || m.future_weight > 1e-3 || /NaN/.test(m.symptom);
      assert(visible, `mistakes ${m.key}: runs with no measured symptom: ${JSON.stringify(m)}`);
    }
    assert(Number.isInteger(e.selected) && e.selected >= 0 && e.selected < keys.length, `mistakes: selected ${e.selected}`);
    return `raise: ${raising.map((m) => `${m.key} at ${m.stops_at}`).join(', ')}; ` +
      e.series.filter((m) => m.runs).map((m) => `${m.key} ${fmt(m.output_diff)}`).join(', ');
  },
  encdec(e, s) {
    const c = s.config;
    assert(e.kinds.length === 3, `encdec: ${e.kinds.length} kinds`);
    const find = (re) => {
      const k = e.kinds.find((x) => re.test(x.name));
      assert(k, `encdec: no kind matching ${re} (have ${e.kinds.map((x) => x.name).join(', ')})`);
      return k;
    };
    const enc = find(/^encoder self/), dec = find(/^decoder/), cross = find(/encoder-decoder/);
    for (const k of e.kinds) assert(k.weights_shape.length === 4 && k.weights_shape[0] === c.batch && k.weights_shape[1] === c.heads, `encdec ${k.name}: weights [${k.weights_shape}]`);
    const [, , encQ, encK] = enc.weights_shape, [, , decQ, decK] = dec.weights_shape, [, , xQ, xK] = cross.weights_shape;
    assert(encQ === encK && decQ === decK, `encdec: self-attention weights not square: enc [${enc.weights_shape}], dec [${dec.weights_shape}]`);
    assert(xQ !== xK, `encdec: encoder-decoder weights [${cross.weights_shape}] are square (L_dec should differ from L_enc)`);
    assert(xQ === decQ && xK === encK, `encdec: encoder-decoder weights [${cross.weights_shape}] should be (L_dec = ${decQ}) x (L_enc = ${encK})`);
    return e.kinds.map((k) => `${k.name} [${k.weights_shape}]`).join('; ');
  },
};

// ---------------------------------------------------------------------------

test('experiments: every panel opens from the menu by mouse and shows the paper\'s claims', async (t) => {
  const s0 = await openLab(t);
  assert(s0.experiment === null, `experiment ${JSON.stringify(s0.experiment)} at start`);
  assert(!Object.keys(s0.layout).some((k) => k.startsWith('exp:')), 'menu entries in the layout before the menu was opened');
  for (const key of KEYS) {
    const s = await openByMenu(t, key);
    // The popup closes after the click; the panel replaces the stage view.
    const after = await waitForState(t, (st) => expIs(key)(st) && !st.layout['exp:scaling'] && !!st.layout['exp:back'],
      { timeout: T, message: `${key}: menu closed and the panel's back button shown` });
    assert(!after.layout['export:csv'], `${key}: the stage's export buttons are still laid out`);
    assert(hashHasExp(after.url_hash, key), `${key}: url_hash ${after.url_hash}`);
    note(t, `${key}: ${CHECKS[key](s.experiment, s)} (computed in ${s.experiment.compute_ms} ms)`);
    await parkMouse(t);
    await waitFrames(t, 2);
    await screenshotNotBlank(t, `${key}.png`);

    if (key === 'mistakes') {
      // The radio buttons pick the mistake shown on the right.
      const keys = s.experiment.series.map((m) => m.key);
      const layoutKeys = Object.keys(after.layout).filter((k) => k.startsWith('mistake:')).map((k) => k.slice(8));
      assert(same(layoutKeys, keys), `mistake radio buttons ${layoutKeys} != series ${keys}`);
      const raising = keys.indexOf(s.experiment.series.find((m) => !m.runs).key);
      for (const idx of [raising, keys.length - 1, 2]) {
        const cur = (await labState(t.page)).experiment.selected;
        if (idx === cur) continue; // each click must change the selection to count
        await clickRect(t, layoutRect(after, `mistake:${keys[idx]}`));
        await waitForState(t, (st) => expIs('mistakes')(st) && st.experiment.selected === idx,
          { timeout: T, message: `click mistake:${keys[idx]} -> selected ${idx} (was ${cur})` });
      }
      await parkMouse(t);
      await waitFrames(t, 2);
      await screenshotNotBlank(t, 'mistakes-selected.png');
    }
  }
}, { timeout: 240000 });

test('experiments: the e key opens the menu, a click picks the panel', async (t) => {
  const s0 = await openLab(t, '#stage=softmax');
  await focusCanvas(t);
  assert(!s0.layout['exp:encdec'], 'menu open at start');
  const menu = await pressUntil(t, 'e', (s) => !!s.layout['exp:encdec'] && !!s.layout['exp:none'],
    { timeout: T, message: "'e' -> the Experiments menu with exp:encdec and exp:none" });
  assert(KEYS.every((k) => menu.layout[`exp:${k}`]), `menu entries: ${Object.keys(menu.layout).filter((k) => k.startsWith('exp:'))}`);
  assert(menu.experiment === null, "'e' alone opened an experiment");
  await clickRect(t, await stableRect(t, 'exp:encdec'));
  const s = await waitForState(t, expIs('encdec'), { timeout: COMPUTE_T, message: "'e' + click exp:encdec" });
  note(t, `encdec via 'e': ${CHECKS.encdec(s.experiment, s)}`);
  await parkMouse(t);
  await waitFrames(t, 2);
  await screenshotNotBlank(t, 'encdec-via-e.png');
  // The stage the stepper was on is kept underneath.
  assert(s.stage.id === 'softmax', `stage under the experiment: ${s.stage.id}`);
});

test('experiments: #exp=pe in the URL opens the PE panel', async (t) => {
  const s0 = await openLab(t, '#d_model=16&heads=4&exp=pe');
  const s = s0.experiment && s0.experiment.key === 'pe' ? s0
    : await waitForState(t, expIs('pe'), { timeout: COMPUTE_T, message: '#exp=pe -> pe panel' });
  assert(s.notes.length === 0 && s.errors.length === 0, `notes ${JSON.stringify(s.notes)} errors ${JSON.stringify(s.errors)}`);
  assert(s.config.d_model === 16 && s.config.heads === 4, `config from the hash: ${JSON.stringify(s.config)}`);
  note(t, `pe via URL: ${CHECKS.pe(s.experiment, s)}`);
  assert(s.experiment.d_model === 16, `pe follows the hash's d_model: ${s.experiment.d_model}`);
  await parkMouse(t);
  await waitFrames(t, 2);
  await screenshotNotBlank(t, 'pe.png');
});

test('experiments: Escape, the back button and the menu leave; the hash and reloads follow', async (t) => {
  // A bogus experiment key in the hash: a note, and the stepper.
  const bogus = await openLab(t, '#stage=scores&exp=bogus');
  assert(bogus.experiment === null, `#exp=bogus opened ${JSON.stringify(bogus.experiment)}`);
  assert(bogus.notes.some((n) => /bogus/.test(n) && /no experiment/.test(n)), `notes for #exp=bogus: ${JSON.stringify(bogus.notes)}`);
  assert(bogus.stage.id === 'scores' && bogus.heatmaps.some((h) => h.tensor === 'scores') && bogus.layout['export:csv'],
    `#exp=bogus does not show the stepper at stage scores: stage ${bogus.stage.id}, heatmaps ${bogus.heatmaps.map((h) => h.tensor)}`);
  assert(!/exp=/.test(bogus.url_hash), `url_hash keeps the bogus key: ${bogus.url_hash}`);
  await t.waitFor(() => !/exp=/.test(location.hash), { timeout: T, message: 'location.hash without exp= after #exp=bogus' });

  const stepperBack = (st) => st.experiment === null && st.stage.id === 'scores' &&
    st.heatmaps.some((h) => h.tensor === 'scores') && !!st.layout['export:csv'] && !st.layout['exp:back'] && !/exp=/.test(st.url_hash);

  // 1. Escape.
  let s = await openByMenu(t, 'masks');
  assert(hashHasExp(s.url_hash, 'masks') && !s.heatmaps.some((h) => h.tensor === 'scores'), `in masks: url_hash ${s.url_hash}`);
  await t.waitFor(() => /(^#|&)exp=masks(&|$)/.test(location.hash), { timeout: T, message: 'location.hash has exp=masks' });
  await parkMouse(t);
  await pressUntil(t, 'Escape', stepperBack, { timeout: T, message: 'Escape -> the stepper at stage scores, no exp= in the hash' });
  await t.waitFor(() => !/exp=/.test(location.hash), { timeout: T, message: 'location.hash without exp= after Escape' });
  // Keys work in the stepper again.
  await pressUntil(t, 'ArrowRight', (st) => st.stage.id === 'scale', { timeout: T, message: 'ArrowRight after Escape' });
  await pressUntil(t, 'ArrowLeft', (st) => st.stage.id === 'scores', { timeout: T, message: 'ArrowLeft after Escape' });

  // 2. The back button.
  s = await openByMenu(t, 'heads');
  assert(hashHasExp(s.url_hash, 'heads'), `in heads: url_hash ${s.url_hash}`);
  // Aim at the button once the panel's layout has settled, hover it for a frame, then click.
  const back = await stableRect(t, 'exp:back');
  await t.page.mouse.move(back.x + back.w / 2, back.y + back.h / 2);
  await waitFrames(t, 1);
  await clickRect(t, back);
  await waitForState(t, stepperBack, { timeout: T, message: 'exp:back -> the stepper at stage scores' });

  // 3. The menu's "Back to the stage stepper".
  await openByMenu(t, 'pe');
  await pickExperiment(t, 'none');
  await waitForState(t, stepperBack, { timeout: T, message: 'exp:none -> the stepper' });

  // 4. Switching panels inside the menu, then a reload with #exp=masks restores masks.
  await openByMenu(t, 'encdec');
  await openByMenu(t, 'masks');
  await t.waitFor(() => /(^#|&)exp=masks(&|$)/.test(location.hash), { timeout: T, message: 'location.hash has exp=masks' });
  await t.page.reload({ waitUntil: 'load' });
  await waitReady(t);
  const r = await waitForState(t, expIs('masks'), { timeout: COMPUTE_T, message: 'reload -> masks again' });
  assert(r.stage.id === 'scores' && r.notes.length === 0, `after reload: stage ${r.stage.id}, notes ${JSON.stringify(r.notes)}`);
  CHECKS.masks(r.experiment, r);
  await parkMouse(t);
  await pressUntil(t, 'Escape', stepperBack, { timeout: T, message: 'Escape after the reload' });

  // 5. A digit key jumps to a stage and leaves the experiment too.
  await openByMenu(t, 'pe');
  await parkMouse(t);
  await pressUntil(t, '7', (st) => st.experiment === null && st.stage.id === 'softmax', { timeout: T, message: "'7' inside pe -> stepper at softmax" });
}, { timeout: 240000 });
