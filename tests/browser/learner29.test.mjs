// What a learner still tripped over (issue #29, items 1-4, 6, 7), met the way a person
// meets it: clicks, typed keys, the pointer resting where the hand left it.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, waitSettled, layoutRect, clickRect, parkMouse, note, rectPoint, findStepButtons,
} from './lib/lab.mjs';

const T = 20000;
const HAN = /[\u4e00-\u9fff]/;

async function clickKey(t, key, predicate, message) {
  await clickRect(t, layoutRect(await labState(t.page), key));
  return waitForState(t, predicate, { timeout: T, message: message || `after clicking ${key}` });
}

const overlaps = (a, b) => a.x < b.x + b.w && a.x + a.w > b.x && a.y < b.y + b.h && a.y + a.h > b.y;
const headers = (s) => Object.entries(s.layout).filter(([k]) => k.startsWith('header:')).map(([, r]) => r);

// Every heatmap's axes: all labels, or positions marked "#k", or an unlabelled axis's numbers.
function checkAxisLabels(s, where) {
  assert(s.heatmaps.length > 0, `${where}: no heatmaps`);
  for (const h of s.heatmaps) {
    for (const [mode, labels, n, axis] of [[h.row_mode, h.row_labels, h.rows, 'rows'], [h.col_mode, h.col_labels, h.cols, 'columns']]) {
      const what = `${where}: ${h.tensor} ${axis} (${mode}: ${labels.slice(0, 12).join(' ')})`;
      if (mode === 'positions') assert(labels.length > 0 && labels.every((l) => /^#\d+$/.test(l)), what);
      else if (mode === 'numbers') assert(labels.every((l) => /^\d+$/.test(l)), what);
      else assert(labels.length === n, `${what}: ${labels.length} of ${n} labels drawn`);
    }
  }
}

for (const lang of ['en', 'zh']) {
  test(`learner29 (${lang}): digits typed beside an experiment's field are not shortcuts, and are said`, async (t) => {
    let s = await openLab(t, `#exp=scaling&lang=${lang}`);
    const keys0 = s.experiment.keys;
    const field = layoutRect(s, 'xv:keys');
    const { minus } = await findStepButtons(t, field);
    await t.page.mouse.click(minus.x, minus.y);
    s = await waitForState(t, (x) => x.experiment.keys === keys0 - 1, { timeout: T, message: 'the - button lowers keys' });
    const stage0 = s.stage.id;
    await t.page.keyboard.type('10', { delay: 60 });
    s = await waitForState(t, (x) => x.held_keys === '10', { timeout: T, message: 'the typed 10 is held and said' });
    assert(s.experiment && s.experiment.key === 'scaling' && s.stage.id === stage0, `still the experiment: ${s.experiment && s.experiment.key}, stage ${s.stage.id}`);
    assert(s.notes.some((m) => m.includes('10')) || JSON.stringify(s.layout).includes('message:'), 'a message says where 10 went');
    const shot = await t.page.screenshot({ path: `${t.out}/learner29-held-keys-${lang}.png` });
    assert(shot.length > 0, 'screenshot');
    // Typing into the field itself still works: click it, select all, type.
    await t.page.mouse.click(field.x + 10, field.y + field.h / 2);
    await t.page.keyboard.press('Control+A');
    await t.page.keyboard.type('10');
    await t.page.keyboard.press('Enter');
    s = await waitForState(t, (x) => x.experiment.keys === 10, { timeout: T, message: 'typed into the field: keys = 10' });
    // Over the maps the digits are shortcuts again.
    await t.page.keyboard.press('Escape');
    s = await waitForState(t, (x) => !x.experiment, { timeout: T, message: 'Esc leaves the experiment' });
    const stage = layoutRect(s, s.layout['stage:view'] ? 'stage:view' : 'chip:scores');
    await t.page.mouse.move(s.heatmaps.length ? s.heatmaps[0].x + 4 : stage.x + 40, s.heatmaps.length ? s.heatmaps[0].y + 4 : 300);
    await t.page.keyboard.type('3');
    s = await waitForState(t, (x) => x.stage.index === 2, { timeout: T, message: '3 over the maps jumps to stage 3' });
    assert(s.held_keys === '', `held keys cleared: "${s.held_keys}"`);
  });

  test(`learner29 (${lang}): a training experiment's live figures are provisional, the verdict waits for the end`, async (t) => {
    // Not openLab: it waits for the page to settle, which is after the training. 1000 steps a model.
    await t.goto(`#exp=train_pe&lang=${lang}`);
    await t.waitFor(() => !!(window.lab && window.lab.ready === true), { timeout: 60000, interval: 50, message: 'ready' });
    let s = await waitForState(t, (x) => x.experiment && x.experiment.series && x.experiment.progress > 0, { timeout: T, message: 'training starts' });
    const steps = layoutRect(s, 'tx:steps');
    await t.page.mouse.click(steps.x + 7 * s.font_size - 2, steps.y + steps.h / 2);  // the slider (7 font sizes wide) at its right end: 1000 steps
    s = await waitForState(t, (x) => x.experiment.series[0].config.steps === 1000 && x.experiment.progress > 0.05 && !x.experiment.done,
      { timeout: T, message: 'training 1000 steps a model' });
    assert(/verdict waits|结论要等/.test(s.experiment.verdict), `while training: ${s.experiment.verdict}`);
    await t.page.screenshot({ path: `${t.out}/learner29-train-pe-live-${lang}.png` });
    s = await waitForState(t, (x) => x.experiment.done, { timeout: 240000, message: 'the four models train' });
    const v = s.experiment.verdict;
    assert(/reverse .*with PE|反转 有位置编码/.test(v), `final verdict with figures: ${v}`);
    assert(lang === 'zh' ? HAN.test(v) : !HAN.test(v), `verdict language: ${v}`);
    // The figures in the verdict are the final evaluations'.
    const finals = s.experiment.series.map((r) => r.exact_acc);
    if (finals.every((x) => typeof x === 'number')) {
      for (const f of finals) assert(v.includes((100 * f).toFixed(1)), `verdict ${v} lacks ${(100 * f).toFixed(1)}`);
    } else note(t, `series without evals: ${Object.keys(s.experiment.series[0] || {}).join(',')}`);
    await t.page.screenshot({ path: `${t.out}/learner29-train-pe-done-${lang}.png` });
    assert(s.clipped.length === 0, `clipped: ${JSON.stringify(s.clipped).slice(0, 300)}`);
  });
}

for (const [w, h] of [[1280, 800], [1024, 640]]) {
  for (const lang of ['en', 'zh']) {
    test(`learner29 (${lang}, ${w}x${h}): axis labels are all there, smaller, upright or positions; never a subset`, async (t) => {
      let s = await openLab(t, `#lang=${lang}`);
      s = await clickKey(t, 'preset:Single sentence', (x) => x.tokens.length >= 9, 'the Single sentence preset');
      for (const stage of ['1', '3', '6', '7']) {
        await parkMouse(t);
        await t.page.keyboard.type(stage);
        s = await waitSettled(t, { timeout: T });
        checkAxisLabels(s, `Single sentence, stage ${stage}`);
      }
      await t.page.keyboard.press('a');  // all heads: small multiples, the narrowest maps
      s = await waitSettled(t, { timeout: T });
      checkAxisLabels(s, 'Single sentence, all heads');
      await t.page.screenshot({ path: `${t.out}/learner29-labels-${lang}-${w}x${h}.png` });
      assert(s.clipped.length === 0, `clipped: ${JSON.stringify(s.clipped).slice(0, 300)}`);
      const modes = new Set(s.heatmaps.flatMap((x) => [x.row_mode, x.col_mode]));
      note(t, `label modes with all heads: ${[...modes].join(', ')}`);
    }, { viewport: { width: w, height: h } });

    test(`learner29 (${lang}, ${w}x${h}): the setup shows a shown model's sizes, read-only; the recompute line is whole`, async (t) => {
      let s = await openLab(t, `#train=reverse&lang=${lang}`);
      s = await clickKey(t, 'train:open_trained', (x) => x.training && x.training.weights === 'shipped' && !x.training.fetching, 'shipped');
      s = await clickKey(t, 'chip:softmax', (x) => !x.training.view_open && x.layout['stepper:weights:model'] && x.scroll.Setup && x.layout['setup:recomputed'], 'stepper');
      assert(s.layout['knob:d_model'] && s.layout['setup:recomputed'], 'knobs and the recompute line before the model');
      const win = s.scroll.Setup, line = s.layout['setup:recomputed'];
      assert(line.y >= win.y && line.y + line.h <= win.y + win.h + 0.5, `recompute line inside the setup: ${JSON.stringify(line)} in ${JSON.stringify(win)}`);
      s = await clickKey(t, 'stepper:weights:model', (x) => x.stepper.shown_model, 'the model is shown');
      s = await waitSettled(t, { timeout: T });
      assert(s.layout['stepper:model_sizes'] && !s.layout['knob:d_model'] && !s.layout['preset:Tiny'],
        'the model\'s sizes replace the knobs');
      checkAxisLabels(s, 'shipped reverse model');
      await parkMouse(t);
      s = await waitSettled(t, { timeout: T });
      await t.page.screenshot({ path: `${t.out}/learner29-model-sizes-${lang}-${w}x${h}.png` });
      assert(s.clipped.length === 0, `clipped: ${JSON.stringify(s.clipped).slice(0, 300)}`);
      s = await clickKey(t, 'stepper:weights:random', (x) => !x.stepper.shown_model && x.layout['knob:d_model'], 'random weights: the knobs again');
    }, { viewport: { width: w, height: h } });
  }
}

for (const lang of ['en', 'zh']) {
  test(`learner29 (${lang}): tooltips keep off the headers and go away on a click`, async (t) => {
    let s = await openLab(t, `#lang=${lang}`);
    const chip = layoutRect(s, 'chip:softmax');
    const p = rectPoint(chip);
    await t.page.mouse.move(p.x, p.y);
    s = await waitForState(t, (x) => x.tooltip && x.layout.tooltip, { timeout: T, message: 'the chip\'s tooltip' });
    const tip = s.layout.tooltip;
    const hs = headers(s);
    assert(hs.length >= 2, `headers noted: ${hs.length}`);
    for (const hd of hs) assert(!overlaps(tip, hd), `tooltip ${JSON.stringify(tip)} covers header ${JSON.stringify(hd)}`);
    await t.page.screenshot({ path: `${t.out}/learner29-tooltip-${lang}.png` });
    await t.page.mouse.down();
    await t.page.mouse.up();
    s = await waitForState(t, (x) => x.stage.id === 'softmax' && !x.tooltip && !x.layout.tooltip, { timeout: T, message: 'the click hides the tooltip' });
    await new Promise((r) => setTimeout(r, 800));
    s = await waitSettled(t, { timeout: T });
    assert(!s.tooltip, `the tooltip stays hidden while the pointer rests: ${s.tooltip}`);
    // A knob's tooltip sits beside the setup panel, off the next knob's label.
    const knob = layoutRect(s, 'knob:d_model');
    await t.page.mouse.move(knob.x + knob.w * 0.3, knob.y + knob.h / 2);
    s = await waitForState(t, (x) => x.layout.tooltip, { timeout: T, message: 'the knob\'s tooltip' });
    const setup = s.scroll.Setup;
    assert(s.layout.tooltip.x >= setup.x + setup.w - 0.5, `knob tooltip beside the setup: ${JSON.stringify(s.layout.tooltip)}`);
  });
}
