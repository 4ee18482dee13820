// Raw SDPA (issue 29, item 8): tutorial 000's first example, scaled_dot_product_attention(Q, K, V)
// on random (2, 4, 64) tensors with no projections, as a learner meets it: the "Raw SDPA"
// preset and the "raw SDPA (no heads)" switch clicked with the mouse, the stages stepped with
// the keys, in English and 中文, at 1280x800 and 1024x640. The shapes the tutorial prints
// (scores torch.Size([2, 4, 4]), output torch.Size([2, 4, 64])) must be on screen, the
// projection / split / concat / Wᴼ stages marked skipped with their reason, and no text cut.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, waitSettled, layoutRect, clickRect, parkMouse, note, focusCanvas, pressUntil,
  scrollSetupTo, screenshotNotBlank,
  openIn, assertNothingClipped,
} from './lib/lab.mjs';

const T = 30000;
const SIZES = [{ width: 1280, height: 800 }, { width: 1024, height: 640 }];
const LANGS = ['en', 'zh'];
const SKIPPED = ['project', 'split_heads', 'concat', 'output'];
const sizeName = (size) => `${size.width}x${size.height}`;

const lastShape = (stage) => JSON.stringify(stage.steps[stage.steps.length - 1].shape);
const stageOf = (s, id) => s.stages.find((x) => x.id === id);

/** What the page shows at one stage of a raw trace: its skipped mark and note, its words. */
function assertRawStage(s, lang, where) {
  const st = stageOf(s, s.stage.id);
  const skipped = SKIPPED.includes(s.stage.id);
  assert((st.status === 'skipped') === skipped, `${where}: stage ${s.stage.id} status ${st.status}`);
  assert(!!s.layout['note:skipped'] === skipped, `${where}: the skipped note is ${s.layout['note:skipped'] ? 'shown' : 'missing'}`);
  if (skipped) {
    assert(typeof st.skipped_because === 'string' && st.skipped_because.length > 10, `${where}: no reason: ${JSON.stringify(st)}`);
    assert(lang === 'zh' ? /跳过/.test(st.skipped_because) : /Skipped in raw SDPA/.test(st.skipped_because), `${where}: reason ${st.skipped_because}`);
  }
  // The words of a raw stage (its title, the Explain panel's formula and PyTorch line) do not
  // speak of heads or projections that are not there.
  for (const [what, text] of [['title', s.stage.title], ['formula', s.stepper.formula], ['pytorch', s.stepper.pytorch]])
    assert(!/\bheads?\b|W\^Q|W\^K|W\^O|w_q|头/.test(text), `${where}, ${s.stage.id}: ${what} "${text}"`);
}

for (const size of SIZES) {
  for (const lang of LANGS) {
    test(`raw SDPA preset: the tutorial's (2, 4, 64) Q, K, V stepped with the keys (${sizeName(size)}, ${lang})`, async (t) => {
      let s = await openIn(t, lang, '');
      await clickRect(t, layoutRect(s, 'preset:Raw SDPA'));
      s = await waitForState(t, (x) => x.config.raw === true, { timeout: T, message: 'raw on after the preset' });
      const c = s.config;
      assert(c.d_model === 64 && c.heads === 1 && c.seq_len === 4 && c.batch === 2 && c.mask === 'none' && !c.pe && !c.bias && s.errors.length === 0,
        `config ${JSON.stringify(c)}, errors ${JSON.stringify(s.errors)}`);
      assert(s.url_hash.includes('raw=1'), `the link ${s.url_hash} does not keep raw`);
      // The shapes tutorial 000 prints: scores torch.Size([2, 4, 4]), output torch.Size([2, 4, 64]).
      assert(lastShape(stageOf(s, 'softmax')) === '[2,4,4]', `weights ${lastShape(stageOf(s, 'softmax'))}`);
      assert(lastShape(stageOf(s, 'scores')) === '[2,4,4]', `scores ${lastShape(stageOf(s, 'scores'))}`);
      assert(lastShape(stageOf(s, 'context')) === '[2,4,64]', `output ${lastShape(stageOf(s, 'context'))}`);
      assert(stageOf(s, 'input').steps.every((x) => JSON.stringify(x.shape) === '[2,4,64]'), 'Q, K, V are not (2, 4, 64)');
      assert(s.weights_note && /Q, K, V|Q、K、V/.test(s.weights_note.text), `weights note ${JSON.stringify(s.weights_note)}`);
      await focusCanvas(t);
      await pressUntil(t, 'Home', (x) => x.stage.index === 0, { timeout: T });
      for (let i = 0; i < s.stages.length; i++) {
        await parkMouse(t);
        s = await assertNothingClipped(t, `${sizeName(size)} ${lang}, stage ${i + 1}`);
        assertRawStage(s, lang, `${sizeName(size)} ${lang}`);
        if (s.stage.id === 'softmax') {
          const w = s.heatmaps.find((h) => h.tensor === 'weights');
          assert(w && w.rows === 4 && w.cols === 4, `weights map ${JSON.stringify(w)}`);
          await screenshotNotBlank(t, `raw-softmax-${sizeName(size)}-${lang}.png`);
        }
        if (s.stage.id === 'project') await screenshotNotBlank(t, `raw-project-${sizeName(size)}-${lang}.png`);
        if (i + 1 < s.stages.length) await pressUntil(t, 'ArrowRight', (x) => x.stage.index === i + 1, { timeout: T });
      }
      note(t, `stages: ${s.stages.map((x) => `${x.id}${x.status ? `(${x.status})` : ''} ${lastShape(x)}`).join(', ')}`);
      // No projections for gradients to flow through: 'g' (the backward view) stays off, and its switch says why.
      await parkMouse(t);
      await t.page.keyboard.press('g');
      s = await waitSettled(t, { timeout: T });
      assert(s.stepper.backward === false && !s.backward, `backward view in raw SDPA: ${JSON.stringify(s.stepper.backward)}`);
      const sw = layoutRect(s, 'stepper:backward');
      await t.page.mouse.move(sw.x + sw.w / 2, sw.y + sw.h / 2);
      s = await waitForState(t, (x) => x.tooltip, { timeout: T, message: 'the greyed backward switch\'s tooltip' });
      assert(lang === 'zh' ? /原始 SDPA/.test(s.tooltip) : /raw SDPA/.test(s.tooltip), `tooltip: ${s.tooltip}`);
    }, { viewport: size });

    test(`raw SDPA switch alone, at the output stage: inputs redrawn, no crash, and back (${sizeName(size)}, ${lang})`, async (t) => {
      let s = await openIn(t, lang, 'stage=output');
      assert(s.stage.id === 'output' && !s.config.raw && s.config.heads === 2, `start ${JSON.stringify(s.config)}`);
      s = await scrollSetupTo(t, 'switch:raw', T);
      await clickRect(t, layoutRect(s, 'switch:raw'), { fx: 0.05 });
      s = await waitForState(t, (x) => x.config.raw === true, { timeout: T, message: 'raw on by the switch' });
      assert(s.errors.length === 0 && s.config.heads === 1 && !s.config.pe && !s.config.bias, `after the switch: ${JSON.stringify(s.config)} ${JSON.stringify(s.errors)}`);
      assert(s.stage.id === 'output', `the view left the output stage: ${s.stage.id}`);
      assert(stageOf(s, 'output').status === 'skipped', 'output not marked skipped');
      // Default sizes d_model 8, B 2, L 4: the output is softmax(QKᵀ/√d_k)V of (2, 4, 8).
      assert(lastShape(stageOf(s, 'output')) === '[2,4,8]', `output ${lastShape(stageOf(s, 'output'))}`);
      await parkMouse(t);
      s = await assertNothingClipped(t, `switch on, output stage ${sizeName(size)} ${lang}`);
      assertRawStage(s, lang, 'switch on');
      const out = s.heatmaps.find((h) => h.tensor === 'output');
      assert(out && out.rows === 4 && out.cols === 8, `output map ${JSON.stringify(out)}`);
      await screenshotNotBlank(t, `raw-switch-output-${sizeName(size)}-${lang}.png`);
      await focusCanvas(t);
      await pressUntil(t, 'ArrowLeft', (x) => x.stage.id === 'concat', { timeout: T });
      s = await scrollSetupTo(t, 'switch:raw', T);
      await clickRect(t, layoutRect(s, 'switch:raw'), { fx: 0.05 });
      // Off, raw is not written (state().config as manifest.json: links and dumps without it stay as they were).
      s = await waitForState(t, (x) => !('raw' in x.config), { timeout: T, message: 'raw off by the switch' });
      assert(s.errors.length === 0 && s.stages.every((x) => x.status === undefined), `after switching off: ${JSON.stringify(s.errors)}`);
      assert(!s.url_hash.includes('raw'), `the link still says raw: ${s.url_hash}`);
      await parkMouse(t);
      await assertNothingClipped(t, `switch off ${sizeName(size)} ${lang}`);
    }, { viewport: size });
  }
}

test('raw SDPA from a link with heads=4: the note names heads, the page opens the defaults', async (t) => {
  const s = await openIn(t, 'en', 'raw=1&d_model=64&heads=4&pe=0&bias=0');
  assert(s.notes.some((n) => n.includes('heads: heads=4 but raw SDPA (raw=1)')), `notes ${JSON.stringify(s.notes)}`);
  assert(!('raw' in s.config) && s.config.heads === 2 && s.stages.every((x) => x.status === undefined), `config ${JSON.stringify(s.config)}`);
  await parkMouse(t);
  await assertNothingClipped(t, 'the invalid raw link');
  await screenshotNotBlank(t, 'raw-invalid-heads.png');
});
