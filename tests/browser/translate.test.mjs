// English → 中文 translation trained in the page (issue 25): #train=translate trains an
// encoder–decoder on the grammar's sentence pairs to a held-out BLEU above 90 in a few hundred
// steps; the held-out sample's greedy output ends at 。; the maps are cut to the source's words and
// the target through 。 (the cross-attention map is the alignment figure); the download's PyTorch
// script (nn.Transformer layers with src_ and memory_key_padding_mask) agrees with the lab; the
// stepper traces the trained cross-attention with the source's padding keys masked and no check
// failing; the shipped translator opens at once. English at 1280x800, 中文 at 1024x640, nothing clipped.
import { test, assert } from './lib/harness.mjs';
import {
  openIn, labState, waitForState, note, layoutRect, clickRect, parkMouse, assertNothingClipped,
  screenshotNotBlank, trainExportsAgree,
} from './lib/lab.mjs';

const T = 30000;
const RUN_T = 240000;
const STEPS = 300;


async function clickKey(t, key, predicate, { timeout = T, message } = {}) {
  await clickRect(t, layoutRect(await labState(t.page), key));
  return waitForState(t, predicate, { timeout, message: message || `after clicking ${key}` });
}

for (const [lang, size] of [['en', { width: 1280, height: 800 }], ['zh', { width: 1024, height: 640 }]]) {
  const name = `${size.width}x${size.height}-${lang}`;
  test(`translate: trains to BLEU > 90, maps cut to the sentence, PyTorch agrees, the stepper's cross-attention (${name})`, async (t) => {
    let s = await openIn(t, lang, `train=translate&steps=${STEPS}`, T);
    assert(s.training.view_open && s.training.task === 'translate' && s.training.errors.length === 0,
      `the link's run: ${JSON.stringify(s.training.config)} errors ${JSON.stringify(s.training.errors)}`);
    const pad = s.training.config.vocab;  // BOS, the source's padding: id V
    const t0 = Date.now();
    s = await clickKey(t, 'train:start', (x) => !x.training.running && x.training.step === STEPS,
      { timeout: RUN_T, message: `the translate run ends at step ${STEPS}` });
    const wall = (Date.now() - t0) / 1000;
    const tr = s.training, hist = tr.history;
    note(t, `translate, ${STEPS} steps in ${tr.train_seconds.toFixed(1)} s of training (${wall.toFixed(1)} s wall): loss ${tr.loss}, ` +
      `held-out exact ${tr.exact_acc}, tokens ${tr.token_acc}, BLEU ${tr.bleu}; BLEU by evaluation ` +
      hist.map((e) => `${e.step}:${e.bleu.toFixed(1)}`).join(' '));
    assert(hist.length >= 2 && hist.every((e) => typeof e.bleu === 'number' && e.bleu >= 0 && e.bleu <= 100), `history ${JSON.stringify(hist)}`);
    assert(hist[0].bleu < hist.at(-1).bleu, `BLEU did not grow: ${hist.map((e) => e.bleu)}`);
    assert(tr.bleu > 90 && tr.exact_acc > 0.9, `after ${STEPS} steps: BLEU ${tr.bleu}, exact ${tr.exact_acc}`);
    // The held-out sample: its output ends at 。 (the stop token), the maps cut to the sentence.
    const words = tr.sample.src.indexOf(pad) < 0 ? tr.sample.src.length : tr.sample.src.indexOf(pad);
    const target = tr.sample.expected.length;
    assert(tr.sample.output.length >= 1 && tr.sample.output.at(-1) === tr.sample.expected.at(-1),
      `output ${tr.sample.output} expected ${tr.sample.expected}`);
    for (const m of tr.maps) {
      const q = m.kind === 'enc_self' ? words : target, k = m.kind === 'dec_self' ? target : words;
      assert(m.L_q === q && m.L_kv === k, `${m.kind} layer ${m.layer}: ${m.L_q} x ${m.L_kv}, want ${q} x ${k}`);
    }
    assert(tr.maps.filter((m) => m.kind === 'cross').length === 2, `maps ${JSON.stringify(tr.maps.map((m) => m.kind))}`);
    await parkMouse(t);
    await assertNothingClipped(t, `the Train view of translate (${name})`);
    await screenshotNotBlank(t, `translate-train-${name}.png`);

    // The download and its PyTorch script: the padding masks as nn.Transformer's layers take them.
    const exported = await trainExportsAgree(t, s, `translate-exports-${lang}`);
    note(t, `${exported.pyName}: ${exported.last}`);

    // The stepper on the trained model's cross-attention: the source's padding keys masked.
    await clickKey(t, 'chip:softmax', (x) => !x.training.view_open && x.stepper.model_open && x.layout['stepper:weights:model'],
      { message: 'the stepper offers the model' });
    await clickKey(t, 'stepper:weights:model', (x) => x.stepper.shown_model, { message: 'the stepper shows the trained model' });
    s = await clickKey(t, 'stepper:sublayer:cross', (x) => x.stepper.sublayer === 'cross' && x.stepper.shown_model,
      { message: 'the cross-attention sublayer' });
    assert(s.config.mask === 'padding', `the stepper's mask on the cross-attention: ${s.config.mask}`);
    assert(s.stepper.key_tokens.slice(0, words).every((w) => /^[a-z.]+$/.test(w)), `source words ${s.stepper.key_tokens}`);
    const failing = (s.stages || []).flatMap((st) => (st.checks || []).filter((c) => c.verdict === 'fail').map((c) => `${st.id}:${c.id}`));
    assert(failing.length === 0, `failing checks on the trained translator: ${failing}`);
    await parkMouse(t);
    await assertNothingClipped(t, `the trained translator's cross-attention (${name})`);
    await screenshotNotBlank(t, `translate-stepper-cross-${name}.png`);
    note(t, `stepper: ${s.stepper.block}, keys ${s.stepper.key_tokens.join(' ')}; queries ${s.stepper.query_tokens.join('')}`);
  }, { viewport: size, timeout: 480000 });
}

test('translate: the shipped translator opens at once with its held-out BLEU, the sample translated', async (t) => {
  let s = await openIn(t, 'en', 'train=translate', T);
  s = await clickKey(t, 'train:open_trained', (x) => x.training.weights === 'shipped' && !x.training.fetching && x.training.sample,
    { message: 'the shipped translate checkpoint opened' });
  const tr = s.training;
  assert(tr.bleu >= 99 && tr.exact_acc >= 0.98, `shipped translate: BLEU ${tr.bleu}, exact ${tr.exact_acc}`);
  assert(tr.sample.correct.every(Boolean), `the held-out sample: ${JSON.stringify(tr.sample)}`);
  assert(s.fonts.cjk === 'ready', `the Chinese font on the English page: ${s.fonts.cjk}`);
  await parkMouse(t);
  await assertNothingClipped(t, 'the shipped translator');
  note(t, `shipped: step ${tr.step}, BLEU ${tr.bleu}, exact ${tr.exact_acc}; status ${tr.status}`);
}, { viewport: { width: 1280, height: 800 }, timeout: 120000 });
