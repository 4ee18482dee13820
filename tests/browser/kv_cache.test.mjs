// The KV cache tab (issue 26.1) with real clicks and keys: on the page's untrained model it
// decodes exactly and says the weights are untrained; with the shipped induction checkpoint open, the held-out sample decodes
// token by token, every step equal to the full causal recompute; the cache's bytes follow
// 2·N·h_kv·(t+1)·d_k·4 as the step slider moves; the layer field switches the maps; the
// per-step FLOPs grow linearly with the cache and quadratically without; English and 中文,
// nothing clipped, with screenshots.
import { test, assert } from './lib/harness.mjs';
import {
  openIn, labState, waitForState, note, layoutRect, clickRect, parkMouse, stableRect, typeInto, assertNothingClipped,
  screenshotNotBlank,
} from './lib/lab.mjs';

const T = 30000;

async function clickKey(t, key, predicate, message) {
  await clickRect(t, layoutRect(await labState(t.page), key));
  return waitForState(t, predicate, { timeout: T, message: message || `after clicking ${key}` });
}

/** The Train view opens the shipped induction checkpoint; a chip goes back to the stepper; the KV tab opens. */
async function openInductionKv(t, lang) {
  await openIn(t, lang, 'train=induction', T);
  await clickKey(t, 'train:open_trained', (s) => s.training && s.training.weights === 'shipped' && !s.training.fetching,
    'the shipped induction checkpoint opened');
  await clickKey(t, 'chip:softmax', (s) => !s.training.view_open && s.layout['tab:kv_cache'], 'the stepper and its bottom tabs');
  return clickKey(t, 'tab:kv_cache', (s) => s.kv_cache && s.kv_cache.steps > 0, 'the KV tab decoded the sample');
}

/** The cache formula from the model's sizes, here: 2·N·h_kv·(t+1)·d_k·4 bytes. */
const cacheBytes = (kv, step) => 2 * kv.layers * kv.heads * (step + 1) * kv.d_k * 4;

test('KV cache tab: untrained weights said so; the induction model decodes step by step, each step equal to the recompute', async (t) => {
  let s = await openIn(t, 'en', 'seq_len=6', T);
  await clickRect(t, layoutRect(s, 'tab:kv_cache'));
  // The page's untrained session model (the Train view's default task) decodes exactly; the tab says it is untrained.
  s = await waitForState(t, (x) => x.kv_cache, { timeout: T, message: 'the untrained model decoded' });
  assert(s.kv_cache.weights === 'random' && s.kv_cache.failed === 0, `untrained: ${JSON.stringify(s.kv_cache).slice(0, 200)}`);
  await assertNothingClipped(t, 'the KV tab on untrained weights');

  s = await openInductionKv(t, 'en');
  const kv = s.kv_cache;
  assert(kv.weights === 'shipped', `weights ${kv.weights}`);
  note(t, `decoded ${kv.steps} steps, ${kv.failed} failed, worst ${kv.worst}; step ${kv.step}: |d| ${kv.max_abs_diff} bound ${kv.bound}`);
  assert(kv.failed === 0, `every step equals the recompute: ${kv.failed} failed`);
  assert(kv.worst > 0 && kv.worst <= kv.bound, `worst ${kv.worst} within the bound ${kv.bound} and not zero (two paths)`);
  assert(kv.step === kv.steps - 1, `the last step is shown first: ${kv.step}`);
  assert(kv.tokens.length === kv.steps + 1, `tokens: ${kv.tokens.length} for ${kv.steps} steps`);
  assert(kv.cache_bytes === cacheBytes(kv, kv.step), `cache bytes ${kv.cache_bytes} vs ${cacheBytes(kv, kv.step)}`);
  // Timed by repetition (the page's clock ticks in 0.1 ms); a figure, not a verdict on speed.
  assert(kv.timed_runs >= 3 && kv.cached_ms > 0 && kv.recompute_ms > 0, `timing: ${kv.timed_runs} runs, ${kv.cached_ms} / ${kv.recompute_ms} ms`);
  note(t, `whole decode: ${kv.cached_ms.toFixed(3)} ms cached, ${kv.recompute_ms.toFixed(3)} ms recomputing (${kv.timed_runs} runs each)`);
  const badge = s.layout['badge:kv_equals_recompute'];
  assert(badge, 'the step\'s check is drawn');
  for (let h = 0; h < kv.heads; ++h) assert(s.layout[`kv_head:${h}`], `head ${h}'s maps are drawn`);
  const lastFlops = [kv.flops_cached, kv.flops_full];

  // The slider's left end: step 0, a cache of one position; FLOPs of the two paths meet.
  await clickRect(t, await stableRect(t, 'slider:kv_step', { timeout: T }), { fx: 0.02 });
  s = await waitForState(t, (x) => x.kv_cache.step === 0, { timeout: T, message: 'step 0' });
  assert(s.kv_cache.cache_bytes === cacheBytes(kv, 0), `step 0's cache: ${s.kv_cache.cache_bytes}`);
  assert(s.kv_cache.max_abs_diff <= s.kv_cache.bound, 'step 0 equal');
  const growth = (lastFlops[1] / s.kv_cache.flops_full) / (lastFlops[0] / s.kv_cache.flops_cached);
  note(t, `FLOPs step 0 -> ${kv.step}: cached x${(lastFlops[0] / s.kv_cache.flops_cached).toFixed(2)}, full x${(lastFlops[1] / s.kv_cache.flops_full).toFixed(2)}`);
  assert(growth > 2, `the recompute's FLOPs grow faster than the cached step's: ratio ${growth}`);

  // The layer field, by keys: layer 1 of the two.
  if (kv.layers > 1) {
    await typeInto(t, await stableRect(t, 'knob:kv_layer', { timeout: T }), '1', { fx: 0.03 });
    s = await waitForState(t, (x) => x.kv_cache.layer === 1, { timeout: T, message: 'layer 1' });
  }
  // A middle step by keys on the slider: the triangle and the cache half grown.
  await clickRect(t, await stableRect(t, 'slider:kv_step', { timeout: T }), { fx: 0.5 });
  s = await waitForState(t, (x) => x.kv_cache.step > 0 && x.kv_cache.step < kv.steps - 1, { timeout: T, message: 'a middle step' });
  assert(s.kv_cache.cache_bytes === cacheBytes(kv, s.kv_cache.step), `step ${s.kv_cache.step}'s cache: ${s.kv_cache.cache_bytes}`);
  await parkMouse(t);
  await assertNothingClipped(t, 'the KV tab (en)');
  await screenshotNotBlank(t, 'kv-cache-en.png');
});

test('KV cache tab in 中文: the same decoding, nothing clipped', async (t) => {
  const s = await openInductionKv(t, 'zh');
  assert(s.kv_cache.failed === 0, `failed ${s.kv_cache.failed}`);
  await parkMouse(t);
  await assertNothingClipped(t, 'the KV tab (zh)');
  await screenshotNotBlank(t, 'kv-cache-zh.png');
});
