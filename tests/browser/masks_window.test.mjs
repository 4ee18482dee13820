// The masks after the paper (issue 26, item 5) on the page: a sliding window and a prefix-LM
// from the URL hash and from the Setup knobs typed with real keys, their mask-stage check, the
// derivation of a cell the window hides, a bad value's red message, the masks experiment's two
// new cases, and both languages at 1024x640 with nothing cut.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, waitForState, note, layoutRect, hoverCell, typeInto, scrollSetupTo, openIn, assertNothingClipped, clickRect, stableRect,
  parkMouse, screenshotNotBlank,
} from './lib/lab.mjs';

const T = 5000;
const ruleCheck = (s) => s.stages.find((st) => st.id === 'mask').checks.find((c) => c.id === 'window_prefix_rule');

test('masks after the paper: #window and #prefix open a windowed causal mask whose check passes and whose hidden cells say why', async (t) => {
  let s = await openLab(t, '#seq_len=6&window=2&prefix=1&stage=mask');
  assert(s.config.window === 2 && s.config.prefix === 1 && s.errors.length === 0 && s.notes.length === 0,
    `config ${JSON.stringify(s.config)}, errors ${JSON.stringify(s.errors)}, notes ${JSON.stringify(s.notes)}`);
  const rule = ruleCheck(s);
  assert(rule && rule.verdict === 'pass', `window/prefix check: ${JSON.stringify(rule)}`);
  assert(rule.label === 'the mask keeps exactly the keys window 2 and prefix 1 allow', `label: ${rule.label}`);
  const leak = s.stages.find((st) => st.id === 'softmax').checks.find((c) => c.id === 'masked_is_zero');
  assert(leak && leak.verdict === 'pass', `softmax: masked keys get 0: ${JSON.stringify(leak)}`);
  // Query 5 and key 2: three behind, outside a window of 2 (key 0 is the prefix: kept).
  const hidden = await hoverCell(t, 'masked', 5, 2);
  assert(/sliding window 2: key 2 lies outside query 5's window \(3 positions away/.test(hidden.text), `hover: ${hidden.text}`);
  note(t, `hover masked${JSON.stringify(hidden.index)}: "${hidden.text}"`);
  const kept = await hoverCell(t, 'masked', 5, 0);
  assert(/mask = 1 here/.test(kept.text), `the prefix key is kept: ${kept.text}`);
  note(t, `hover masked${JSON.stringify(kept.index)} (the prefix): "${kept.text}"`);
  await parkMouse(t);
});

test('masks after the paper: the window knob typed with keys goes to the link; a bad value is red and named, and nothing is lost', async (t) => {
  let s = await openLab(t, '#seq_len=6&stage=softmax');
  s = await scrollSetupTo(t, 'knob:window', T);
  await typeInto(t, layoutRect(s, 'knob:window'), '3');
  s = await waitForState(t, (x) => x.config.window === 3, { timeout: T, message: 'window 3 typed' });
  await t.waitFor(() => /(^#|&)window=3(&|$)/.test(location.hash), { timeout: T, message: 'location.hash has window=3' });
  assert(ruleCheck(s) && ruleCheck(s).verdict === 'pass', `check after typing: ${JSON.stringify(ruleCheck(s))}`);
  s = await scrollSetupTo(t, 'knob:window', T);
  await typeInto(t, layoutRect(s, 'knob:window'), '-1');
  s = await waitForState(t, (x) => x.errors.some((e) => e.param === 'window'), { timeout: T, message: 'window -1 refused' });
  const e = s.errors.find((x) => x.param === 'window');
  assert(/window=-1 must be between 0 \(no window\) and 4096/.test(e.message), `message: ${e.message}`);
  assert(s.stages.length === 10, `the last good trace stays: ${s.stages.length} stages`);
  note(t, `window -1: "${e.message}"`);
  s = await scrollSetupTo(t, 'knob:window', T);
  await typeInto(t, layoutRect(s, 'knob:window'), '0');
  s = await waitForState(t, (x) => !('window' in x.config) && x.errors.length === 0, { timeout: T, message: 'window 0: off again' });
  await t.waitFor(() => !/(^#|&)window=/.test(location.hash), { timeout: T, message: 'window left the link' });
  assert(!ruleCheck(s), 'no window, no window check');
  // A prefix on a padding mask is refused by name, from the link.
  s = await openLab(t, '#mask=padding&prefix=2');
  assert(s.notes.some((n) => /prefix=2 needs mask=causal/.test(n)), `notes: ${JSON.stringify(s.notes)}`);
  assert(!('prefix' in s.config) && s.config.mask === 'causal', `fell back to the defaults: ${JSON.stringify(s.config)}`);
});

test('masks after the paper: the masks experiment shows the sliding window and the prefix-LM beside the others', async (t) => {
  await openLab(t, '#exp=masks');
  const s = await waitForState(t, (x) => x.experiment && x.experiment.cases && x.experiment.cases.length === 7,
    { timeout: 20000, message: 'the masks experiment with 7 cases' });
  const names = s.experiment.cases.map((c) => c.name);
  assert(names[5] === 'sliding window' && names[6] === 'prefix-LM', `cases: ${names.join(', ')}`);
  const w = s.experiment.cases[5], p = s.experiment.cases[6];
  assert(w.future_nonzero === 0 && !w.has_nan, `window case: ${JSON.stringify(w)}`);
  assert(p.future_nonzero > 0, `the prefix sees ahead inside itself: ${JSON.stringify(p)}`);
  note(t, `cases: ${names.join(', ')}; prefix-LM future weights > 0: ${p.future_nonzero}`);
  await screenshotNotBlank(t, 'masks-window-experiment-en.png');
});

for (const lang of ['en', 'zh']) {
  test(`masks after the paper (${lang}) at 1024x640: the knobs, the check and the experiment, nothing cut`, async (t) => {
    let s = await openIn(t, lang, 'seq_len=6&window=2&prefix=1&stage=mask');
    const rule = ruleCheck(s);
    const want = lang === 'zh' ? '掩码恰好保留窗口 2 与前缀 1 允许的键' : 'the mask keeps exactly the keys window 2 and prefix 1 allow';
    assert(rule && rule.label === want, `${lang} label: ${rule && rule.label}`);
    s = await scrollSetupTo(t, 'knob:prefix', T);
    await assertNothingClipped(t, `${lang} setup with the window and prefix knobs`);
    await screenshotNotBlank(t, `masks-window-setup-${lang}.png`);
    await openIn(t, lang, 'exp=masks');
    await waitForState(t, (x) => x.experiment && x.experiment.cases && x.experiment.cases.length === 7,
      { timeout: 20000, message: 'the masks experiment' });
    await assertNothingClipped(t, `${lang} masks experiment`);
    await screenshotNotBlank(t, `masks-window-experiment-${lang}-1024.png`);
  }, { viewport: { width: 1024, height: 640 } });
}

test('flash tiles: the Tiles tab\'s switch by mouse, its knobs by keys, the walk of a query tile, both checks pass, the link keeps it', async (t) => {
  let s = await openLab(t, '#seq_len=6&stage=context');
  assert(!s.flash, 'no flash state before the switch');
  await clickRect(t, layoutRect(s, 'tab:tiles'));
  await clickRect(t, await stableRect(t, 'switch:flash', { timeout: T }), { fx: 0.05 });
  s = await waitForState(t, (x) => x.flash && x.config.flash_tile && x.config.flash_tile.join(',') === '2,2',
    { timeout: T, message: 'the flash switch on: tiles 2,2' });
  assert(s.flash.tiles === 2 * 2 * 3 * 3, `tiles: ${s.flash.tiles}`);
  await t.waitFor(() => /(^#|&)flash_tile=2,2(&|$)/.test(location.hash), { timeout: T, message: 'the link has flash_tile=2,2' });
  const context = s.stages.find((st) => st.id === 'context').checks;
  for (const id of ['flash_equals_naive', 'flash_rescaling_identity']) {
    const ch = context.find((c) => c.id === id);
    assert(ch && ch.verdict === 'pass', `${id}: ${JSON.stringify(ch)}`);
    note(t, `${ch.label}: ${ch.detail}`);
  }
  await typeInto(t, await stableRect(t, 'knob:flash_cols', { timeout: T }), '4', { fx: 0.03 });
  s = await waitForState(t, (x) => x.flash && x.flash.tiles === 2 * 2 * 3 * 2, { timeout: T, message: 'B_c 4: two key tiles' });
  const slider = await stableRect(t, 'slider:flash_query_tile', { timeout: T });
  await clickRect(t, slider, { fx: 0.97 });
  s = await waitForState(t, (x) => x.flash.query_tile === 2, { timeout: T, message: 'the last query tile' });
  await parkMouse(t);
  await assertNothingClipped(t, 'the Tiles tab');
  await screenshotNotBlank(t, 'flash-tiles-en.png');
  // A bad tile in the link: named, and the defaults open.
  s = await openLab(t, '#flash_tile=9,1');
  assert(s.notes.some((n) => /flash_tile=9,1: B_r must be between 1 and L_q=4/.test(n)), `notes: ${JSON.stringify(s.notes)}`);
});
