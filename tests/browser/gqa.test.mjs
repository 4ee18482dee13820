// Grouped-query attention (issue 26, item 4) as a learner opens it from a link: #heads=4&kv=2
// shows K and V with 2 heads, the split stage's k_groups and the repeat to 4 query heads, the
// two checks that say each query head reads its own group, a k_heads cell's hover naming its
// group, the stages stepped with the keys with no text cut, and the backward view through the
// repeat, in English and 中文 at 1280x800 and 1024x640.
import { test, assert } from './lib/harness.mjs';
import {
  waitSettled, waitForState, parkMouse, note, focusCanvas, pressUntil, screenshotNotBlank, openIn, assertNothingClipped,
  scrollSetupTo, typeInto, layoutRect,
} from './lib/lab.mjs';

const T = 30000;
const SIZES = [{ width: 1280, height: 800 }, { width: 1024, height: 640 }];
const sizeName = (size) => `${size.width}x${size.height}`;
const stageOf = (s, id) => s.stages.find((x) => x.id === id);
const shapes = (st) => st.steps.map((x) => JSON.stringify(x.shape));

for (const size of SIZES) {
  for (const lang of ['en', 'zh']) {
    test(`grouped-query attention from a link: k_groups, the repeat, its checks, every stage by keys (${sizeName(size)}, ${lang})`, async (t) => {
      let s = await openIn(t, lang, 'd_model=16&heads=4&kv=2&seq_len=5&stage=split_heads');
      assert(s.config.kv_heads === 2 && s.errors.length === 0 && s.notes.length === 0,
        `config ${JSON.stringify(s.config)}, errors ${JSON.stringify(s.errors)}, notes ${JSON.stringify(s.notes)}`);
      assert(s.url_hash.includes('kv=2'), `the link ${s.url_hash} does not keep kv`);
      const split = stageOf(s, 'split_heads');
      // q (2,5,16) -> (2,5,4,4) -> (2,4,5,4); k (2,5,8) -> (2,5,2,4) -> k_groups (2,2,5,4) -> k_heads (2,4,5,4)
      assert(shapes(split).join(' ') === '[2,5,16] [2,5,4,4] [2,4,5,4] [2,5,8] [2,5,2,4] [2,2,5,4] [2,4,5,4]', `split steps ${shapes(split)}`);
      for (const id of ['head_columns', 'kv_group_columns', 'kv_repeat']) {
        const ch = split.checks.find((c) => c.id === id);
        assert(ch && ch.verdict === 'pass', `${id}: ${JSON.stringify(ch)}`);
      }
      const groups = s.heatmaps.filter((h) => h.tensor === 'k_groups');
      assert(groups.length === 2, `k_groups maps: ${JSON.stringify(s.heatmaps.map((h) => h.tensor))}`);
      assert(/k\.repeat_interleave\(h \/\/ h_kv, dim=1\)/.test(s.stepper.pytorch), `PyTorch line: ${s.stepper.pytorch}`);
      await parkMouse(t);
      await screenshotNotBlank(t, `gqa-split-${sizeName(size)}-${lang}.png`);
      await focusCanvas(t);
      await pressUntil(t, 'Home', (x) => x.stage.index === 0, { timeout: T });
      for (let i = 0; i < s.stages.length; i++) {
        await parkMouse(t);
        s = await assertNothingClipped(t, `${sizeName(size)} ${lang}, stage ${i + 1}`);
        if (i + 1 < s.stages.length) await pressUntil(t, 'ArrowRight', (x) => x.stage.index === i + 1, { timeout: T });
      }
      await t.page.keyboard.press('g');
      s = await waitSettled(t, { timeout: T });
      assert(s.stepper.backward === true, `the backward view: ${JSON.stringify(s.stepper.backward)}`);
      s = await assertNothingClipped(t, `${sizeName(size)} ${lang}, backward`);
      note(t, `split steps ${shapes(split).join(' ')}; checks ${split.checks.map((c) => `${c.id}:${c.verdict}`).join(', ')}`);
    }, { viewport: size });
  }
}

test('kv_heads has its own Setup knob while set: heads 3 refused by name, mended to multi-query by typing', async (t) => {
  let s = await openIn(t, 'en', 'd_model=24&heads=4&kv=2&seq_len=5');
  assert(s.errors.length === 0 && s.config.kv_heads === 2, `config ${JSON.stringify(s.config)}`);
  // heads 4 -> 3 by its knob: kv_heads=2 no longer divides it; the message names kv_heads and its
  // own knob (shown while kv_heads is set) mends it to 1 (multi-query).
  s = await scrollSetupTo(t, 'knob:heads', T);
  await typeInto(t, layoutRect(s, 'knob:heads'), '3');
  s = await waitForState(t, (x) => x.errors.some((e) => e.param === 'kv_heads'), { timeout: T, message: 'heads 3 refused by kv_heads' });
  const e = s.errors.find((x) => x.param === 'kv_heads');
  assert(/kv_heads=2 must divide heads=3/.test(e.message), `message: ${e.message}`);
  note(t, `heads 3: "${e.message}"`);
  s = await scrollSetupTo(t, 'knob:kv_heads', T);
  await typeInto(t, layoutRect(s, 'knob:kv_heads'), '1');
  s = await waitForState(t, (x) => x.errors.length === 0 && x.config.kv_heads === 1, { timeout: T, message: 'kv_heads 1 typed' });
  assert(s.config.heads === 3 && stageOf(s, 'split_heads').checks.every((c) => c.verdict !== 'fail'), `after kv_heads 1: ${JSON.stringify(s.config)}`);
  await t.waitFor(() => /(^#|&)kv=1(&|$)/.test(location.hash), { timeout: T, message: 'location.hash has kv=1' });
});
