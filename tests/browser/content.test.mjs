// Content tests: what the checks, the scale stage, padding, the mistakes lab and a loaded
// config file say on screen, with real input (mouse, the real clipboard), in both languages.
// Screenshots (1280x800, EN and 中文) of the scale stage, padding and the mistakes lab go to
// the output folder: scale-*.png, padding-*.png, masks-*.png, mistakes-*.png; glyphs-level2.png
// shows 摞 and 阱 (GB2312 level 2) typed on the English page.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, waitForState, waitSettled, layoutRect, clickRect, parkMouse, note, screenshotNotBlank, stableRect, waitTextFocus,
  scrollSetupTo, typeInto,
} from './lib/lab.mjs';
import { decodePng } from './lib/png.mjs';

const T = 15000;
const LANGS = ['en', 'zh'];
const zhReady = (x) => x.lang !== 'zh' || x.fonts.cjk === 'ready';

/** The screen colour at the centre of a layout rect. */
async function pixelAt(t, rect) {
  const img = decodePng(await t.page.screenshot());
  const x = Math.round(rect.x + rect.w / 2), y = Math.round(rect.y + rect.h / 2);
  const at = (y * img.width + x) * img.channels;
  return [img.data[at], img.data[at + 1], img.data[at + 2]];
}

/** Every number printed in a text, in order. */
const numbers = (text) => (text.match(/-?\d+(\.\d+)?/g) || []).map(Number);

test('content: NaN from fully-masked rows is its own badge, amber, never green, with the reason', async (t) => {
  for (const lang of LANGS) {
    await openLab(t, `#mask=padding&pad=4,0&stage=output&lang=${lang}`);
    let s = await waitForState(t, (x) => x.stage.id === 'output' && zhReady(x), { timeout: T, message: 'output stage' });
    const finite = s.stages[9].checks.find((c) => c.id === 'finite');
    assert(finite.verdict === 'nan_masked' && finite.pass === false, `output check: ${JSON.stringify(finite)}`);
    assert(finite.detail.includes('0/0 = NaN'), `the reason: ${finite.detail}`);
    // h · d_k = d_model and h · d_v = d_model cannot fail after validation: facts, not checks.
    const verdictOf = (id) => s.stages.flatMap((st) => st.checks).find((c) => c.id === id).verdict;
    assert(verdictOf('heads_times_dk') === 'fact' && verdictOf('hdv_is_dmodel') === 'fact', 'the products are facts');
    assert(lang === 'en' ? finite.label === 'output has NaN only in rows whose keys are all masked'
      : finite.label.includes('只在所有键都被掩码的行里出现 NaN'), `label: ${finite.label}`);
    await parkMouse(t);
    s = await waitSettled(t, { timeout: T });
    const [r, g, b] = await pixelAt(t, layoutRect(s, 'badge:finite'));
    assert(r > 200 && g > 140 && g < 210 && b < 100, `the badge is amber (240, 180, 60), not green (90, 200, 120): rgb(${r}, ${g}, ${b})`);
    // The chip of the stage is marked as not passing.
    assert(s.stages.slice(7).every((st) => st.checks.every((c) => c.verdict !== 'pass' || c.pass)), 'verdicts and pass agree');
    await screenshotNotBlank(t, `nan-badge-${lang}.png`);
  }
  // With -1e9 the same rows give numbers: the badge is green.
  await openLab(t, '#mask=padding&pad=4,0&fill=1e9&stage=output');
  const s = await waitSettled(t, { timeout: T });
  assert(s.stages[9].checks[0].verdict === 'pass', `-1e9: ${JSON.stringify(s.stages[9].checks[0])}`);
  const [r, g] = await pixelAt(t, layoutRect(s, 'badge:finite'));
  assert(g > 170 && r < 130, `green for a pass: rgb(${r}, ${g})`);
});

test('content: the scale stage prints footnote 4 with the live numbers, and its words follow them', async (t) => {
  for (const lang of LANGS) {
    for (const [name, hash] of [['tiny', ''], ['paper', 'd_model=512&heads=8&seq_len=10&'], ['plain', 'pe=0&bias=0&']]) {
      await openLab(t, `#${hash}stage=scale&lang=${lang}`);
      await parkMouse(t);
      const s = await waitForState(t, (x) => x.stage.id === 'scale' && zhReady(x), { timeout: T, message: 'scale stage' });
      const facts = Object.fromEntries(s.stages[4].checks.filter((c) => c.verdict === 'fact').map((c) => [c.id, c.detail]));
      const premise = numbers(facts.footnote4_premise), variance = numbers(facts.footnote4_variance);
      const scaled = numbers(facts.footnote4_scaled);
      const dk = s.config.d_model / s.config.heads;
      assert(variance[2] === dk, `d_k ${variance[2]} in ${facts.footnote4_variance}`);
      assert(Math.abs(variance[3] - premise[1]) < 1e-9 && Math.abs(variance[4] - premise[3]) < 1e-9, 'the same var(q), var(k) twice');
      assert(Math.abs(variance[5] - dk * premise[1] * premise[3]) < 0.01 * variance[5] + 0.002, `d_k·var(q)·var(k): ${facts.footnote4_variance}`);
      assert(Math.abs(scaled[0] - variance[0]) < 1e-9 && Math.abs(scaled[2] - scaled[0] / dk) < 0.001, `after ÷√d_k: ${facts.footnote4_scaled}`);
      const near = Math.abs(scaled[2] - 1) <= 0.25;
      const saysNear = lang === 'en' ? facts.footnote4_scaled.includes('close to 1') : facts.footnote4_scaled.includes('接近 1');
      const saysNot = lang === 'en' ? facts.footnote4_scaled.includes('not 1.') : facts.footnote4_scaled.includes('不是 1');
      assert(saysNear === near && saysNot === !near, `${name}/${lang}: var ${scaled[2]} but the text says ${facts.footnote4_scaled}`);
      if (name === 'paper') assert(!near, `Paper base is not near 1: ${scaled[2]}`);
      if (name !== 'plain') {
        const off = numbers(facts.footnote4_without_pe_bias);
        const offNear = lang === 'en' ? facts.footnote4_without_pe_bias.includes('close to 1') : facts.footnote4_without_pe_bias.includes('接近 1');
        assert(offNear === (Math.abs(off[6] - 1) <= 0.25), `PE and biases off: ${facts.footnote4_without_pe_bias}`);
        note(t, `${name}/${lang}: var after scaling ${scaled[2]}, with PE and biases off ${off[6]}`);
      }
      if (name !== 'plain') await screenshotNotBlank(t, `scale-${name}-${lang}.png`);
    }
  }
});

test('content: the PE-and-biases-off numbers are those of a run with them off', async (t) => {
  await openLab(t, '#d_model=512&heads=8&seq_len=10&stage=scale');
  const on = await waitSettled(t, { timeout: T });
  const off = numbers(on.stages[4].checks.find((c) => c.id === 'footnote4_without_pe_bias').detail);
  await openLab(t, '#d_model=512&heads=8&seq_len=10&batch=1&pe=0&bias=0&stage=scale');
  const plain = await waitSettled(t, { timeout: T });
  const premise = numbers(plain.stages[4].checks.find((c) => c.id === 'footnote4_premise').detail);
  const scaled = numbers(plain.stages[4].checks.find((c) => c.id === 'footnote4_scaled').detail);
  assert(off[1] === premise[1] && off[3] === premise[3] && off[6] === scaled[2],
    `off-run fact ${off} against the run itself: var(q) ${premise[1]}, var(k) ${premise[3]}, scaled ${scaled[2]}`);
});

test('content: choosing padding with the mouse starts from lengths L, L-2 and masks keys at once', async (t) => {
  for (const lang of LANGS) {
    await openLab(t, `#stage=softmax&lang=${lang}`);
    let s = await waitForState(t, zhReady, { timeout: T, message: 'fonts' });
    await clickRect(t, layoutRect(s, 'mask'));
    await clickRect(t, await stableRect(t, 'mask_option:padding', { timeout: T }));
    s = await waitForState(t, (x) => x.config.mask === 'padding', { timeout: T, message: 'padding chosen' });
    assert(JSON.stringify(s.config.padding_lengths) === '[4,2]', `lengths ${JSON.stringify(s.config.padding_lengths)}`);
    assert(s.selection.batch === 1, `the view moves to the padded item: ${JSON.stringify(s.selection)}`);
    const masked = s.stages[5].checks.find((c) => c.id === 'fill_applied');
    assert(/^16 /.test(masked.detail), `2 heads x 4 queries x 2 padded keys of item 1 are masked: ${masked.detail}`);
    assert(s.stages.every((st) => st.checks.every((c) => c.verdict === 'pass' || c.verdict === 'fact')), 'no failing check, no NaN');
    await parkMouse(t);
    await waitSettled(t, { timeout: T });
    await screenshotNotBlank(t, `padding-setup-${lang}.png`);
  }
});

test('content: the masks experiment shows a padded item and has an item picker', async (t) => {
  for (const lang of LANGS) {
    await openLab(t, `#exp=masks&lang=${lang}`);
    let s = await waitForState(t, (x) => x.experiment && x.experiment.key === 'masks' && zhReady(x), { timeout: T, message: 'masks' });
    const padding = s.experiment.cases.find((c) => c.name === 'padding');
    assert(JSON.stringify(padding.padding_lengths) === '[4,2]', `padding case ${JSON.stringify(padding)}`);
    assert(s.experiment.item === 1, `the padded item (1) is shown first: ${s.experiment.item}`);
    await parkMouse(t);
    await waitSettled(t, { timeout: T });
    await screenshotNotBlank(t, `masks-padding-${lang}.png`);
    await clickRect(t, layoutRect(s, 'mask_item:0'));
    s = await waitForState(t, (x) => x.experiment.item === 0, { timeout: T, message: 'item 0 picked' });
    await clickRect(t, layoutRect(s, 'mask_item:1'));
    await waitForState(t, (x) => x.experiment.item === 1, { timeout: T, message: 'item 1 picked again' });
  }
});

const NEW_MISTAKES = ['view_without_contiguous', 'mask_wrong_length', 'pe_exponent_twice', 'view_infers_length', 'additive_mask_convention'];

test('content: the mistakes lab lists the tutorials\' mistakes with PyTorch\'s texts and the claims it corrects', async (t) => {
  for (const lang of LANGS) {
    await openLab(t, `#d_model=512&heads=8&seq_len=10&exp=mistakes&lang=${lang}`);
    let s = await waitForState(t, (x) => x.experiment && x.experiment.series && zhReady(x), { timeout: T, message: 'mistakes' });
    const by = Object.fromEntries(s.experiment.series.map((m) => [m.key, m]));
    for (const key of NEW_MISTAKES) assert(by[key], `mistake ${key} listed`);
    assert(by.view_without_contiguous.error === "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
      `contiguous: ${by.view_without_contiguous.error}`);
    assert(by.mask_wrong_length.error === 'RuntimeError: The size of tensor a (5) must match the size of tensor b (10) at non-singleton dimension 3',
      `mask: ${by.mask_wrong_length.error}`);
    assert(by.mask_wrong_length.symptom.includes('The size of tensor a (10) must match the size of tensor b (5) at non-singleton dimension 3'), 'the tutorial\'s text, additive form');
    assert(by.view_infers_length.runs && by.view_infers_length.output_diff > 0.1, `d_k 128 runs silently: ${JSON.stringify(by.view_infers_length)}`);
    assert(by.pe_exponent_twice.runs && /1\.80\d/.test(by.pe_exponent_twice.symptom), `PE gap 1.800: ${by.pe_exponent_twice.symptom}`);
    assert(by.additive_mask_convention.future_weight > 0.5, `additive: ${by.additive_mask_convention.future_weight}`);
    for (const key of ['wrong_split_view', 'softmax_over_heads', 'inverted_mask', 'view_infers_length'])
      assert(by[key].claim.length > 80, `${key} states what really happens: ${by[key].claim}`);
    assert(by.softmax_over_heads.claim.includes('IndexError: Dimension out of range (expected to be in range of [-4, 3], but got 4)'), 'dim=4 text');
    assert(by.inverted_mask.claim.includes('16'), `NaN rows measured: ${by.inverted_mask.claim}`);
    // Every title fits in the list at 1280x800 (none is cut by the list's edge or its scrollbar).
    const list = layoutRect(s, 'mistake_list');
    for (const m of s.experiment.series) {
      const r = layoutRect(s, `mistake:${m.key}`);
      assert(r.x + r.w <= list.x + list.w - 8, `${lang}: the title of ${m.key} ends at ${r.x + r.w}, the list at ${list.x + list.w}`);
    }
    for (const key of ['view_infers_length', 'softmax_over_heads']) {
      await clickRect(t, layoutRect(s, `mistake:${key}`), { fx: 0.1 });
      s = await waitForState(t, (x) => x.experiment.series[x.experiment.selected].key === key, { timeout: T, message: `${key} selected` });
      await parkMouse(t);
      await waitSettled(t, { timeout: T });
      await screenshotNotBlank(t, `mistakes-${key}-${lang}.png`);
    }
  }
});

test('content: pasting transformer_base.json with Ctrl+V says what came from the file and what was kept', async (t) => {
  const json = '{ "d_model": 512, "h": 8, "d_k": 64, "d_v": 64, "d_ff": 2048, "N_encoder_layers": 6, "N_decoder_layers": 6, '
    + '"P_drop": 0.1, "warmup_steps": 4000, "beta1": 0.9, "beta2": 0.98, "epsilon": 1e-9, "label_smoothing": 0.1 }';
  await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.origin });
  for (const lang of LANGS) {
    await openLab(t, `#stage=mask&lang=${lang}`);
    let s = await waitForState(t, zhReady, { timeout: T, message: 'fonts' });
    s = await scrollSetupTo(t, 'config_load', T);  // the box and its Load button, below the knobs at 800 px
    await clickRect(t, layoutRect(s, 'config_text'));
    await waitForState(t, (x) => x.fields.editing, { timeout: T, message: 'editing the config box' });
    await t.page.evaluate((text) => navigator.clipboard.writeText(text), json);
    await t.page.keyboard.press('Control+A');  // the box keeps its text when only the hash changes
    await waitSettled(t, { timeout: T });
    await t.page.keyboard.press('Control+V');
    s = await waitForState(t, (x) => x.fields.config === json, { timeout: T, message: 'pasted' });
    s = await scrollSetupTo(t, 'config_load', T);
    await clickRect(t, layoutRect(s, 'config_load'));
    s = await waitForState(t, (x) => x.config.d_model === 512, { timeout: T, message: 'loaded' });
    const notes = s.notes.join('\n');
    const want = lang === 'en'
      ? ['from the file: d_model=512, heads=8', 'kept from before (the file does not set them): seq_len=4, batch=2, seed=42, mask=causal', 'pe=on, bias=on']
      : ['来自文件：d_model=512, heads=8', '沿用之前的设置（文件没有指定）：seq_len=4', 'mask=causal'];
    for (const w of want) assert(notes.includes(w), `notes lack ${JSON.stringify(w)}: ${notes}`);
    assert(s.config.mask === 'causal', 'the causal mask is still on, and the note says why');
    note(t, `${lang}: ${notes.replace(/\n/g, ' | ')}`);
  }
});

test('content: 摞 and 阱 (GB2312 level 2) draw from the lazily loaded font, typed with an input method', async (t) => {
  let s = await openLab(t, '#stage=scores');
  assert(s.fonts.cjk === 'none', `the English page has not fetched the Chinese font: ${s.fonts.cjk}`);
  await clickRect(t, layoutRect(s, 'tokens'), { fx: 0.2 });
  await waitTextFocus(t, { timeout: T, message: 'editing the tokens' });
  await t.page.keyboard.insertText('一摞书掉进陷阱');
  await t.page.keyboard.press('Enter');
  s = await waitForState(t, (x) => x.tokens.length === 7 && x.fonts.cjk === 'ready', { timeout: 30000, message: 'tokens and the font' });
  assert(s.tokens.join('') === '一摞书掉进陷阱' && s.glyph_notes.length === 0, `tokens ${s.tokens}, notes ${s.glyph_notes}`);
  assert(s.fonts.cjk_glyphs >= 6763, `glyphs in the atlas: ${s.fonts.cjk_glyphs}`);
  note(t, `lab_cjk.otf ${s.fonts.cjk_bytes} bytes, ${s.fonts.cjk_glyphs} CJK glyphs, ready after ${s.fonts.cjk_load_ms.toFixed(0)} ms`);
  await parkMouse(t);
  await waitSettled(t, { timeout: T });
  await screenshotNotBlank(t, 'glyphs-level2.png');
});

test('content: a mask knob keeps the inputs; new tokens make new ones (the page reuses x between knob changes)', async (t) => {
  // footnote 4's premise quotes mean and variance of q and k: a function of x, W and the PE.
  const premise = (s) => s.stages[4].checks.find((c) => c.id === 'footnote4_premise').detail;
  const pickMask = async (name) => {
    const s = await scrollSetupTo(t, 'mask', T);
    await clickRect(t, layoutRect(s, 'mask'));
    await clickRect(t, await stableRect(t, `mask_option:${name}`, { timeout: T }));
    return waitForState(t, (x) => x.config.mask === name, { timeout: T, message: `mask ${name}` });
  };
  let s = await openLab(t, '#stage=scale&seq_len=4');
  const first = premise(s);
  s = await pickMask('none');
  assert(premise(s) === first, `a mask change keeps x: ${premise(s)} vs ${first}`);
  s = await scrollSetupTo(t, 'tokens', T);
  await typeInto(t, layoutRect(s, 'tokens'), 'the cat sat down');
  s = await waitForState(t, (x) => x.tokens.length === 4, { timeout: T, message: 'tokens typed' });
  let withTokens = premise(s);
  assert(withTokens !== first, `typed tokens embed into x: ${withTokens}`);
  // Four other tokens in one edit (pasted over the selection): seq_len stays 4, only the words change.
  await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.origin });
  await t.page.evaluate((text) => navigator.clipboard.writeText(text), 'a dog ran off');
  await clickRect(t, layoutRect(s, 'tokens'), { fx: 0.2 });
  await waitForState(t, (x) => x.fields.editing, { timeout: T, message: 'editing the tokens' });
  await t.page.keyboard.press('Control+A');
  await t.page.keyboard.press('Control+V');
  await t.page.keyboard.press('Enter');
  s = await waitForState(t, (x) => x.tokens.join(' ') === 'a dog ran off', { timeout: T, message: 'tokens pasted' });
  assert(premise(s) !== withTokens, `the same number of other tokens makes another x: ${premise(s)}`);
  withTokens = premise(s);
  s = await pickMask('causal');
  assert(premise(s) === withTokens, `the mask knob keeps the tokens' x: ${premise(s)} vs ${withTokens}`);
  note(t, `premise: ${first} | with tokens: ${withTokens}`);
});
