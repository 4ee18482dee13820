// Layout tests at the learner's screen sizes (1280x800, 1024x640), in English and 中文:
// no text is cut anywhere (state().clipped, recorded by the app's one text helper), the
// note or error the learner caused is on screen, the untrained-weights note is where
// weights are, the Single sentence preset brings a sentence, and the √d_k plots keep their
// texts off the curves with the number of keys as a knob.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, waitSettled, layoutRect, clickRect, parkMouse, note, focusCanvas,
  pickExperiment, typeInto, dropFile, screenshotNotBlank, pressUntil, stableRect, scrollSetupTo,
  openIn, assertNothingClipped,
} from './lib/lab.mjs';
import { decodePng } from './lib/png.mjs';

const T = 30000;
const SIZES = [{ width: 1280, height: 800 }, { width: 1024, height: 640 }];
const LANGS = ['en', 'zh'];
const TINY = 'd_model=8&heads=2&seq_len=4&batch=2';
const PAPER = 'd_model=512&heads=8&seq_len=10&batch=2';
const sizeName = (size) => `${size.width}x${size.height}`;

/** A small multiple of heads gets at least a pixel per column and per row. */
function assertHeadMapsReadable(s, where) {
  for (const h of s.heatmaps.filter((x) => x.prefix.length === 2))
    assert(h.cell_w >= 1 && h.cell_h >= 1, `${where}: ${h.tensor}${JSON.stringify(h.prefix)} cells ${h.cell_w.toFixed(2)} x ${h.cell_h.toFixed(2)} px`);
}

const insideRect = (r, box, slack = 0.5) =>
  r.x >= box.x - slack && r.y >= box.y - slack && r.x + r.w <= box.x + box.w + slack && r.y + r.h <= box.y + box.h + slack;

// ---------------------------------------------------------------------------
// Item 10: nothing is cut, anywhere the learner goes.

/** Every stage, one head and all heads ('a'), from the first to the last (Home, →). */
async function walkStepper(t, label) {
  await focusCanvas(t);
  await pressUntil(t, 'Home', (x) => x.stage.index === 0 && !x.experiment, { timeout: T });
  let s = await labState(t.page);
  for (let i = 0; i < s.stages.length; i++) {
    for (const all of [false, true]) {
      s = await labState(t.page);
      if (s.selection.all_heads !== all) await pressUntil(t, 'a', (x) => x.selection.all_heads === all, { timeout: T });
      s = await assertNothingClipped(t, `${label}, stage ${s.stage.id}, ${all ? 'all heads' : 'one head'}`);
      assertHeadMapsReadable(s, `${label}, stage ${s.stage.id}`);
    }
    if (i + 1 < s.stages.length) await pressUntil(t, 'ArrowRight', (x) => x.stage.index === i + 1, { timeout: T });
  }
  await pressUntil(t, 'a', (x) => !x.selection.all_heads, { timeout: T });
}

async function everyExperiment(t, label, shots = '') {
  for (const key of ['scaling', 'heads', 'masks', 'pe', 'mistakes', 'encdec']) {
    await pickExperiment(t, key);
    await waitForState(t, (x) => x.experiment && x.experiment.key === key && x.render.settled, { timeout: T, message: `experiment ${key}` });
    await parkMouse(t);
    await assertNothingClipped(t, `${label}, experiment ${key}`);
    if (shots) await screenshotNotBlank(t, `layout-exp-${key}-${shots}.png`);
  }
  // Every mistake's detail (its titles wrap in the list, its code lines in the detail).
  const s = await labState(t.page);
  for (const key of Object.keys(s.layout).filter((k) => k.startsWith('mistake:'))) {
    await clickRect(t, layoutRect(await labState(t.page), key));
    await assertNothingClipped(t, `${label}, ${key}`);
  }
  await pickExperiment(t, 'none');
  await waitForState(t, (x) => !x.experiment, { timeout: T, message: 'back to the stepper' });
}

for (const size of SIZES) {
  for (const lang of LANGS) {
    test(`layout: no text cut in the stepper, Tiny and Paper base (${sizeName(size)}, ${lang})`, async (t) => {
      await openIn(t, lang, `${TINY}&stage=input`);
      await walkStepper(t, `Tiny ${sizeName(size)} ${lang}`);
      await openIn(t, lang, `${PAPER}&stage=input`);
      await walkStepper(t, `Paper base ${sizeName(size)} ${lang}`);
      await pressUntil(t, 'End', (x) => x.stage.index === x.stages.length - 1, { timeout: T });
      await focusCanvas(t);
      await pressUntil(t, 'Home', (x) => x.stage.index === 0, { timeout: T });
      await pressUntil(t, 'ArrowRight', (x) => x.stage.id === 'project', { timeout: T });
      await pressUntil(t, 'ArrowRight', (x) => x.stage.id === 'split_heads', { timeout: T });
      await screenshotNotBlank(t, `layout-split-heads-paper-${sizeName(size)}-${lang}.png`);
    }, { viewport: size, timeout: 300000 });

    test(`layout: no text cut in the experiments, Tiny and Paper base (${sizeName(size)}, ${lang})`, async (t) => {
      await openIn(t, lang, `${TINY}&stage=softmax`);
      await everyExperiment(t, `Tiny ${sizeName(size)} ${lang}`);
      await openIn(t, lang, `${PAPER}&stage=softmax`);
      await everyExperiment(t, `Paper base ${sizeName(size)} ${lang}`, `paper-${sizeName(size)}-${lang}`);
    }, { viewport: size, timeout: 300000 });

    test(`layout: no text cut in the help, the cost tab and the setup panel (${sizeName(size)}, ${lang})`, async (t) => {
      await openIn(t, lang, `${PAPER}&stage=softmax`);
      // The help overlay.
      await focusCanvas(t);
      await pressUntil(t, '?', (x) => x.help, { timeout: T });
      await parkMouse(t);
      await assertNothingClipped(t, `help ${sizeName(size)} ${lang}`);
      await screenshotNotBlank(t, `layout-help-${sizeName(size)}-${lang}.png`);
      await t.page.keyboard.press('Escape');
      await waitForState(t, (x) => !x.help, { timeout: T, message: 'help closed' });
      // The cost tab, with the measured sweep.
      let s = await labState(t.page);
      await clickRect(t, layoutRect(s, 'tab:cost'));
      s = await waitForState(t, (x) => x.cost_tab_open && x.layout['cost:sweep'], { timeout: T, message: 'cost tab' });
      const sweep = await stableRect(t, 'cost:sweep');
      s = await labState(t.page);
      const regions = ['Dimensions/cost_table', 'Dimensions/cost_sweep'].map((k) => s.scroll[k]).filter(Boolean);
      assert(regions.some((r) => insideRect(sweep, r)), `the sweep's button is visible: ${JSON.stringify(sweep)} in ${JSON.stringify(regions)}`);
      await clickRect(t, sweep);
      await waitForState(t, (x) => x.sweep.length === 6, { timeout: 120000, message: 'the sweep over L' });
      await parkMouse(t);
      await assertNothingClipped(t, `cost tab ${sizeName(size)} ${lang}`);
      await screenshotNotBlank(t, `layout-cost-${sizeName(size)}-${lang}.png`);
      // The setup panel: padding lengths, a custom mask of 16 x 16, notes about a link.
      await openIn(t, lang, `${TINY}&mask=padding&pad=4,2&heads=x&stage=mask`);
      await assertNothingClipped(t, `setup with padding and a note ${sizeName(size)} ${lang}`);
      await openIn(t, lang, `d_model=8&heads=2&seq_len=16&batch=1&mask=custom&custom=${Array.from({ length: 16 }, (_, i) => '1'.repeat(i + 1) + '0'.repeat(15 - i)).join('.')}&stage=mask`);
      await assertNothingClipped(t, `setup with a 16 x 16 custom mask ${sizeName(size)} ${lang}`);
      await screenshotNotBlank(t, `layout-custom-mask-${sizeName(size)}-${lang}.png`);
    }, { viewport: size, timeout: 300000 });
  }
}

test('layout: the clipping record catches a cut text (a token longer than its heatmap gutter)', async (t) => {
  const long = 'supercalifragilisticexpialidocious';
  const s0 = await openLab(t, `#${TINY}&stage=softmax`);
  assert(s0.clipped.length === 0, `clipped before: ${JSON.stringify(s0.clipped)}`);
  await typeInto(t, layoutRect(s0, 'tokens'), `the ${long} cat sat`);
  const s = await waitForState(t, (x) => x.tokens.includes(long) && x.clipped.length > 0, { timeout: T, message: 'the long token is reported' });
  const cut = s.clipped.find((c) => c.text === long);
  assert(cut && cut.need > cut.have && /row label/.test(cut.where), `record ${JSON.stringify(s.clipped)}`);
  note(t, `reported: ${JSON.stringify(cut)}`);
});

// ---------------------------------------------------------------------------
// Item 3: the message the learner caused is on screen.

/** Every message the panel shows lies inside the viewport and inside the panel's visible part. */
function assertMessagesOnScreen(s, vp, want, where) {
  const panel = layoutRect(s, 'messages');
  assert(insideRect(panel, { x: 0, y: 0, w: vp.width, h: vp.height }), `${where}: messages panel ${JSON.stringify(panel)} outside ${vp.width}x${vp.height}`);
  const visible = s.scroll.Messages ? { x: s.scroll.Messages.x, y: s.scroll.Messages.y, w: s.scroll.Messages.w, h: s.scroll.Messages.h } : panel;
  const texts = [...s.errors.map((e) => e.message), ...s.notes];
  const index = texts.findIndex((m) => want.test(m));
  assert(index >= 0, `${where}: no message matches ${want} (errors ${JSON.stringify(s.errors)}, notes ${JSON.stringify(s.notes)})`);
  const rects = Object.keys(s.layout).filter((k) => k.startsWith('message:')).map((k) => s.layout[k]);
  assert(rects.length >= texts.length, `${where}: ${rects.length} message rects for ${texts.length} messages`);
  for (const r of rects.slice(0, index + 1))
    assert(insideRect(r, visible), `${where}: message ${JSON.stringify(r)} not inside the visible panel ${JSON.stringify(visible)}`);
}

/** Wheel over the setup panel until layout[key] lies inside its visible part. */
for (const size of SIZES) {
  for (const lang of LANGS) {
    test(`notes: what the learner caused is on screen: a bad link, ignored keys, a refused file, a bad knob (${sizeName(size)}, ${lang})`, async (t) => {
      await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.origin });
      const tag = `${sizeName(size)}-${lang}`;
      // A bad link.
      await openIn(t, lang, 'heads=x&stage=mask');
      let s = await waitForState(t, (x) => x.notes.some((n) => n.includes("heads='x'")), { timeout: T, message: 'the link note' });
      assertMessagesOnScreen(s, size, /heads='x'/, `bad link ${tag}`);
      await assertNothingClipped(t, `bad link ${tag}`);
      await screenshotNotBlank(t, `notes-link-${tag}.png`);
      await clickRect(t, layoutRect(s, 'messages:dismiss'));
      s = await waitForState(t, (x) => x.notes.length === 0 && !x.layout.messages, { timeout: T, message: 'dismissed' });
      // A config pasted into the config box (scrolled to with the wheel), with keys the lab ignores.
      s = await scrollSetupTo(t, 'config_text');
      await clickRect(t, layoutRect(s, 'config_text'));
      await waitForState(t, (x) => x.fields.editing, { timeout: T, message: 'editing the config box' });
      await t.page.evaluate((text) => navigator.clipboard.writeText(text), '{"d_model": 64, "h": 4, "d_ff": 2048, "warmup_steps": 4000}');
      await t.page.keyboard.press('Control+V');
      await waitForState(t, (x) => x.fields.config.includes('warmup_steps'), { timeout: T, message: 'pasted' });
      s = await scrollSetupTo(t, 'config_load');
      await clickRect(t, layoutRect(s, 'config_load'));
      s = await waitForState(t, (x) => x.config.d_model === 64 && x.notes.some((n) => n.includes('warmup_steps')), { timeout: T, message: 'loaded, keys ignored' });
      assertMessagesOnScreen(s, size, /d_ff.*warmup_steps/, `ignored keys ${tag}`);
      await parkMouse(t);
      await assertNothingClipped(t, `ignored keys ${tag}`);
      await screenshotNotBlank(t, `notes-ignored-keys-${tag}.png`);
      // A file over the limit, dropped on the page.
      await dropFile(t, 'big.json', '{"d_model": 64}' + ' '.repeat((1 << 20) + 10));
      s = await waitForState(t, (x) => x.notes.length === 1 && x.notes[0].startsWith('big.json'), { timeout: T, message: 'big.json refused' });
      assertMessagesOnScreen(s, size, /1 MiB/, `refused file ${tag}`);
      await assertNothingClipped(t, `refused file ${tag}`);
      await screenshotNotBlank(t, `notes-refused-file-${tag}.png`);
      // An invalid knob, typed at the top of the panel: its error shows below, on screen; the knob turns red.
      s = await scrollSetupTo(t, 'knob:heads');
      await typeInto(t, layoutRect(s, 'knob:heads'), '3');
      s = await waitForState(t, (x) => x.errors.length > 0, { timeout: T, message: 'heads=3 refused' });
      assertMessagesOnScreen(s, size, /3/, `invalid knob ${tag}`);
      await parkMouse(t);
      await assertNothingClipped(t, `invalid knob ${tag}`);
      await screenshotNotBlank(t, `notes-invalid-knob-${tag}.png`);
    }, { viewport: size });
  }
}

// ---------------------------------------------------------------------------
// Item 6: the weights are said to be untrained where weights and maps appear.

for (const lang of LANGS) {
  test(`untrained note: in the stepper and beside every experiment's attention maps (${lang}, 1024x640)`, async (t) => {
    let s = await openIn(t, lang, `${TINY}&seed=7&stage=softmax`);
    const vp = { x: 0, y: 0, w: 1024, h: 640 };
    assert(insideRect(layoutRect(s, 'note:untrained'), vp), `note ${JSON.stringify(s.layout['note:untrained'])}`);
    assert(s.weights_note.source === 'random' && /Xavier/.test(s.weights_note.text) && s.weights_note.text.includes('7'),
      `note ${JSON.stringify(s.weights_note)}`);
    assert(lang === 'en' ? /chance/.test(s.weights_note.text) : /巧合/.test(s.weights_note.text), `implication: ${s.weights_note.text}`);
    assert(s.weights_note.detail.includes('W_Q') && s.weights_note.detail.length > s.weights_note.text.length, `detail ${s.weights_note.detail}`);
    for (const key of ['heads', 'masks', 'encdec', 'scaling', 'pe']) {
      await pickExperiment(t, key);
      s = await waitForState(t, (x) => x.experiment && x.experiment.key === key && x.render.settled, { timeout: T, message: key });
      const shows = ['heads', 'masks', 'encdec'].includes(key);
      assert(!!s.layout['note:untrained'] === shows, `${key}: note ${shows ? 'missing' : 'where no weights are'}`);
      if (shows) assert(insideRect(s.layout['note:untrained'], vp), `${key}: note off screen ${JSON.stringify(s.layout['note:untrained'])}`);
    }
    await pickExperiment(t, 'heads');
    s = await waitForState(t, (x) => x.experiment && x.experiment.key === 'heads' && x.render.settled, { timeout: T, message: 'heads' });
    await screenshotNotBlank(t, `untrained-note-heads-${lang}.png`);
    // The note's pointer opens the Train view, where weights learn.
    assert(insideRect(layoutRect(s, 'note:train'), vp), `pointer ${JSON.stringify(s.layout['note:train'])}`);
    await clickRect(t, layoutRect(s, 'note:train'));
    s = await waitForState(t, (x) => x.training && x.training.view_open && !x.experiment, { timeout: T, message: 'the Train view opened by note:train' });
  }, { viewport: { width: 1024, height: 640 } });
}

// ---------------------------------------------------------------------------
// Item 7: the Single sentence preset.

for (const size of SIZES) {
  for (const lang of LANGS) {
    test(`presets: Single sentence brings a sentence in the interface's language (${sizeName(size)}, ${lang})`, async (t) => {
      let s = await openIn(t, lang, 'stage=softmax');
      await clickRect(t, layoutRect(s, 'preset:Single sentence'));
      const want = lang === 'en' ? 'the cat sat on the mat because it was tired' : '小猫追着球跑，它玩得很开心。';
      const count = lang === 'en' ? 10 : 14;
      s = await waitForState(t, (x) => x.tokens.length === count, { timeout: T, message: `${count} tokens` });
      assert(s.fields.tokens === want, `the tokens field holds ${JSON.stringify(s.fields.tokens)}`);
      assert(s.config.seq_len === count && s.config.d_model === 512 && s.config.heads === 8 && s.config.batch === 1 && s.errors.length === 0,
        `config ${JSON.stringify(s.config)}`);
      const weights = s.heatmaps.find((h) => h.tensor === 'weights');
      assert(weights && weights.rows === count && weights.cols === count, `weights map ${JSON.stringify(weights)}`);
      await parkMouse(t);
      await assertNothingClipped(t, `Single sentence ${sizeName(size)} ${lang}`);
      await screenshotNotBlank(t, `preset-single-sentence-${sizeName(size)}-${lang}.png`);
    }, { viewport: size });
  }
}

// ---------------------------------------------------------------------------
// Item 9: the √d_k plots.

function segmentHitsRect(ax, ay, bx, by, r) {
  // Liang–Barsky clipping of the segment against the rectangle.
  let t0 = 0, t1 = 1;
  const dx = bx - ax, dy = by - ay;
  for (const [p, q] of [[-dx, ax - r.x], [dx, r.x + r.w - ax], [-dy, ay - r.y], [dy, r.y + r.h - ay]]) {
    if (p === 0) { if (q < 0) return false; continue; }
    const u = q / p;
    if (p < 0) t0 = Math.max(t0, u); else t1 = Math.min(t1, u);
    if (t0 > t1) return false;
  }
  return true;
}
const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
const shrink = (r, d = 1) => ({ x: r.box.x + d, y: r.box.y + d, w: r.box.w - 2 * d, h: r.box.h - 2 * d });

function checkPlotGeometry(plot, where) {
  const texts = plot.texts.map((x) => ({ ...x, r: shrink(x) }));
  for (const x of texts) {
    assert(insideRect(x.box, plot.box, 1), `${where} ${plot.id}: ${x.kind} "${x.text}" ${JSON.stringify(x.box)} outside the plot ${JSON.stringify(plot.box)}`);
    for (const line of plot.lines)
      for (let i = 2; i + 1 < line.points.length; i += 2)
        assert(!segmentHitsRect(line.points[i - 2], line.points[i - 1], line.points[i], line.points[i + 1], x.r),
          `${where} ${plot.id}: ${x.kind} "${x.text}" lies on the curve "${line.label}"`);
  }
  for (let i = 0; i < texts.length; i++)
    for (let j = i + 1; j < texts.length; j++)
      assert(!overlap(texts[i].r, texts[j].r), `${where} ${plot.id}: "${texts[i].text}" and "${texts[j].text}" overlap`);
  for (const line of plot.lines) {
    assert(insideRect(line.sample, plot.box, 1) && !overlap(line.sample, plot.area), `${where} ${plot.id}: legend sample of "${line.label}" in the data area`);
    for (let i = 0; i < line.points.length; i += 2)
      assert(insideRect({ x: line.points[i], y: line.points[i + 1], w: 0, h: 0 }, plot.area, 1), `${where} ${plot.id}: "${line.label}" leaves the data area`);
  }
}

/** Pixels along a legend sample's middle: how much of it is drawn (vs the background left of it). */
function sampleInk(img, sample) {
  const px = (x, y) => { const o = (y * img.width + x) * img.channels; return [img.data[o], img.data[o + 1], img.data[o + 2]]; };
  const mid = sample.y + sample.h / 2;
  const rows = [Math.floor(mid - 0.5), Math.floor(mid)];
  const bg = px(Math.round(sample.x - 4), rows[0]);
  const ink = [];
  for (let x = Math.ceil(sample.x) + 1; x < Math.floor(sample.x + sample.w) - 1; x++) {
    const d = Math.max(...rows.map((y) => { const c = px(x, y); return Math.abs(c[0] - bg[0]) + Math.abs(c[1] - bg[1]) + Math.abs(c[2] - bg[2]); }));
    ink.push(d > 40);
  }
  let gaps = 0, run = 0;
  for (const on of ink) { if (!on) { run++; if (run === 2) gaps++; } else run = 0; }
  return { share: ink.filter(Boolean).length / ink.length, gaps };
}

for (const size of SIZES) {
  for (const lang of LANGS) {
    test(`scaling plots: own axes for weight and entropy, texts off the curves, legend styles, keys as a knob (${sizeName(size)}, ${lang})`, async (t) => {
      const tag = `${sizeName(size)}-${lang}`;
      await openIn(t, lang, 'exp=scaling');
      let s = await waitForState(t, (x) => x.experiment && x.experiment.plots && x.experiment.plots.length === 4 && x.render.settled,
        { timeout: T, message: 'four plots' });
      assert(s.experiment.keys === 64 && s.experiment.options.keys === 64, `default keys ${s.experiment.keys}`);
      assert(s.url_hash.includes('scaling.keys=64'), `hash ${s.url_hash}`);
      const ids = s.experiment.plots.map((p) => p.id).join();
      assert(ids === 'variance,max_weight,entropy,gradient', `plots ${ids}`);
      for (const p of s.experiment.plots) checkPlotGeometry(p, tag);
      const weight = s.experiment.plots[1], entropy = s.experiment.plots[2];
      const yTicks = (p) => p.texts.filter((x) => x.kind === 'y_tick').map((x) => x.text);
      assert(yTicks(weight).includes('1.0') && yTicks(weight).includes('0.0') && !yTicks(weight).some((x) => /^0\.9\d/.test(x)),
        `max weight ticks ${yTicks(weight)}`);
      assert(yTicks(entropy).some((x) => Number(x) >= Math.log(64)), `entropy ticks ${yTicks(entropy)} reach ln 64`);
      const xTicks = s.experiment.plots[0].texts.filter((x) => x.kind === 'x_tick').map((x) => x.text);
      assert(xTicks.includes('1024') && !xTicks.includes('10000'), `d_k ticks ${xTicks}`);
      // Legend samples are drawn in their series' style.
      await parkMouse(t);
      const img = decodePng(await t.page.screenshot());
      for (const p of s.experiment.plots)
        for (const line of p.lines) {
          const ink = sampleInk(img, line.sample);
          const ok = line.style === 'solid' ? ink.gaps === 0 && ink.share > 0.9 : ink.gaps >= 2 && ink.share < 0.85;
          assert(ok, `${tag} ${p.id}: legend of "${line.label}" (${line.style}) draws ${JSON.stringify(ink)}`);
        }
      await assertNothingClipped(t, `scaling ${tag}`);
      await screenshotNotBlank(t, `scaling-${tag}.png`);
      // The number of keys: 10, as in the tutorials.
      const before = s.experiment.series;
      await typeInto(t, layoutRect(s, 'xv:keys'), '10');
      s = await waitForState(t, (x) => x.experiment.keys === 10 && x.experiment.plots.length === 4 && x.render.settled, { timeout: T, message: 'keys = 10' });
      assert(s.url_hash.includes('scaling.keys=10') && s.experiment.options.keys === 10, `hash ${s.url_hash}`);
      for (let i = 0; i < before.length; i++) {
        const a = s.experiment.series[i], b = before[i];
        assert(a.entropy_scaled <= Math.log(10) + 1e-9 && a.entropy_scaled < b.entropy_scaled && a.max_weight_scaled > b.max_weight_scaled,
          `d_k ${a.d_k}: 10 keys ${a.entropy_scaled}/${a.max_weight_scaled}, 64 keys ${b.entropy_scaled}/${b.max_weight_scaled}`);
        assert(a.var_dot === b.var_dot, `d_k ${a.d_k}: the variances do not depend on the keys`);
      }
      assert(s.experiment.plots[2].texts.find((x) => x.kind === 'title').text.includes('n = 10'), 'entropy title names n = 10');
      for (const p of s.experiment.plots) checkPlotGeometry(p, `${tag} keys 10`);
      await parkMouse(t);
      await assertNothingClipped(t, `scaling keys 10 ${tag}`);
      await screenshotNotBlank(t, `scaling-keys10-${tag}.png`);
    }, { viewport: size });
  }
}

test('scaling plots: a link carries the number of keys; a bad value is a note naming scaling.keys', async (t) => {
  let s = await openLab(t, '#exp=scaling&scaling.keys=12&scaling.samples=1000');
  s = await waitForState(t, (x) => x.experiment && x.experiment.keys === 12 && x.experiment.samples === 1000, { timeout: T, message: 'keys 12 from the link' });
  assert(s.notes.length === 0, `notes ${s.notes}`);
  assert(s.experiment.series.every((p) => p.entropy_scaled <= Math.log(12) + 1e-9), 'entropy within ln 12');
  // An edited link (the address bar): the page reads it again.
  await t.page.evaluate(() => { window.location.hash = '#exp=scaling&scaling.keys=1&scaling.colour=red'; });
  s = await waitForState(t, (x) => x.notes.length === 2, { timeout: T, message: 'two notes' });
  assert(s.notes.some((n) => n.includes("scaling.keys='1'") && n.includes('[2, 1024]')) && s.notes.some((n) => n.includes('scaling.colour')),
    `notes ${JSON.stringify(s.notes)}`);
  assert(s.experiment.keys === 12, `keys kept: ${s.experiment.keys}`);
});
