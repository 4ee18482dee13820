// Grouped-query attention trained in the page (issue 26, item 4): a Train view link with
// kv=2 trains reverse with 4 query heads sharing 2 key/value heads; its kv_heads knob is there;
// the download's PyTorch script loads it into nn.Transformer layers (the groups' K/V rows
// repeated) and agrees with the lab; the stepper shows the trained model's k_groups and the
// repeat with their checks passing; the KV tab caches 2 heads, not 4, and says what it saves.
// A kv_heads that does not divide heads is refused by name and mended by typing into its knob.
// English at 1280x800, 中文 at 1024x640, nothing clipped.
import { test, assert } from './lib/harness.mjs';
import {
  openIn, labState, waitForState, note, layoutRect, clickRect, parkMouse, typeInto, assertNothingClipped,
  screenshotNotBlank, trainExportsAgree,
} from './lib/lab.mjs';

const T = 30000;
const RUN_T = 180000;


async function clickKey(t, key, predicate, { timeout = T, message } = {}) {
  await clickRect(t, layoutRect(await labState(t.page), key));
  return waitForState(t, predicate, { timeout, message: message || `after clicking ${key}` });
}

const stageOf = (s, id) => s.stages.find((x) => x.id === id);

for (const [lang, size] of [['en', { width: 1280, height: 800 }], ['zh', { width: 1024, height: 640 }]]) {
  const name = `${size.width}x${size.height}-${lang}`;
  test(`grouped-query training: kv=2 trains, PyTorch agrees, the stepper's k_groups, the KV tab caches h_kv heads (${name})`, async (t) => {
    let s = await openIn(t, lang, 'train=reverse&heads=4&kv=2&steps=150', T);
    assert(s.training.view_open && s.training.config.kv_heads === 2 && s.training.config.heads === 4 && s.training.errors.length === 0,
      `the link's run: ${JSON.stringify(s.training.config)} errors ${JSON.stringify(s.training.errors)}`);
    layoutRect(s, 'train:knob:kv_heads');
    s = await clickKey(t, 'train:start', (x) => !x.training.running && x.training.step === 150,
      { timeout: RUN_T, message: 'the grouped run ends at step 150' });
    note(t, `reverse, 4 heads sharing 2 K/V heads, 150 steps: loss ${s.training.loss}, held-out exact ${s.training.exact_acc}`);
    assert(s.training.exact_acc > 0.3, `held-out exact accuracy after 150 steps: ${s.training.exact_acc}`);
    await parkMouse(t);
    await assertNothingClipped(t, `the Train view with kv_heads (${name})`);
    await screenshotNotBlank(t, `gqa-train-${name}.png`);

    // The download and its PyTorch script: nn.MultiheadAttention given the groups' rows repeated.
    const exported = await trainExportsAgree(t, s, `gqa-exports-${lang}`);
    note(t, `${exported.pyName}: ${exported.last}`);

    // The stepper on the trained model: the split stage's groups and repeat, its checks.
    await clickKey(t, 'chip:split_heads', (x) => !x.training.view_open && x.stepper.model_open && x.layout['stepper:weights:model'],
      { message: 'the stepper offers the model' });
    s = await clickKey(t, 'stepper:weights:model', (x) => x.stepper.shown_model && x.stage.id === 'split_heads',
      { message: 'the stepper shows the trained model' });
    const split = stageOf(s, 'split_heads');
    for (const id of ['kv_group_columns', 'kv_repeat']) {
      const ch = split.checks.find((c) => c.id === id);
      assert(ch && ch.verdict === 'pass', `${id} on the trained model: ${JSON.stringify(ch)}`);
    }
    const groups = s.heatmaps.filter((h) => h.tensor === 'k_groups');
    assert(groups.length === 2, `k_groups maps: ${JSON.stringify(s.heatmaps.map((h) => h.tensor))}`);
    await parkMouse(t);
    await assertNothingClipped(t, `the trained model's split stage (${name})`);
    await screenshotNotBlank(t, `gqa-trained-split-${name}.png`);

    // The KV tab: the cache holds h_kv = 2 heads per layer; its bytes by 2·N·h_kv·(t+1)·d_k·4.
    s = await clickKey(t, 'tab:kv_cache', (x) => x.kv_cache && x.kv_cache.steps > 0, { message: 'the KV tab decoded' });
    const kv = s.kv_cache;
    assert(kv.kv_heads === 2 && kv.heads === 4 && kv.failed === 0, `KV tab: ${JSON.stringify({ ...kv, tokens: undefined })}`);
    assert(kv.cache_bytes === 2 * kv.layers * 2 * (kv.step + 1) * kv.d_k * 4, `cache bytes ${kv.cache_bytes}`);
    for (let h = 0; h < 4; ++h) assert(s.layout[`kv_head:${h}`], `query head ${h}'s maps are drawn`);
    await parkMouse(t);
    await assertNothingClipped(t, `the KV tab of a grouped model (${name})`);
    await screenshotNotBlank(t, `gqa-kv-${name}.png`);
    note(t, `KV tab: ${kv.steps} steps, ${kv.failed} failed, worst ${kv.worst}; cache ${kv.cache_bytes} bytes at step ${kv.step}`);
  }, { viewport: size, timeout: 420000 });
}

test('grouped-query training: kv=3 with 4 heads refused by name, mended to multi-query by typing into its knob', async (t) => {
  let s = await openIn(t, 'en', 'train=reverse&heads=4&kv=3', T);
  const bad = s.training.errors.find((e) => e.param === 'kv_heads') || s.notes.find((n) => /kv_heads/.test(n));
  assert(bad, `kv=3 of 4 heads: errors ${JSON.stringify(s.training.errors)} notes ${JSON.stringify(s.notes)}`);
  note(t, `kv=3: ${JSON.stringify(bad)}`);
  s = await labState(t.page);
  await typeInto(t, layoutRect(s, 'train:knob:kv_heads'), '1');
  s = await waitForState(t, (x) => x.training.config.kv_heads === 1 && x.training.errors.length === 0,
    { timeout: T, message: 'kv_heads 1 typed' });
  await t.waitFor(() => /(^#|&)kv=1(&|$)/.test(location.hash), { timeout: T, message: 'location.hash has kv=1' });
  await assertNothingClipped(t, 'the Train view after kv_heads 1');
});
