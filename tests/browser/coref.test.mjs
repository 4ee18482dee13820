// coref tests (issue 24): the pronoun task trained in the page by real clicks in both
// languages — held-out accuracy, the time it took, the head that resolves the pronoun as the
// page measures it — and the stepper on the shipped model reading sentences typed and pasted
// into the tokens field: the answer and the pronoun's attention follow, unknown words are named.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, waitSettled, note, layoutRect, clickRect, parkMouse, scrollSetupTo, screenshotNotBlank,
  waitFrames,
} from './lib/lab.mjs';

const T = 30000;
const RUN_T = 120000;
const chinese = (x) => x.lang === 'zh' && x.text_lang === 'zh' && x.fonts.cjk === 'ready';
const pct = (v) => `${(100 * v).toFixed(1)}%`;

async function clickKey(t, key, predicate, message) {
  await clickRect(t, layoutRect(await labState(t.page), key));
  return waitForState(t, predicate, { timeout: T, message: message || `after clicking ${key}` });
}

async function openCoref(t, lang) {
  const s = await openLab(t, `#train=coref&lang=${lang}`);
  if (lang === 'zh') await waitForState(t, chinese, { timeout: T, message: 'the Chinese font' });
  assert(s.training.view_open && s.training.task === 'coref', `#train=coref: ${s.training.task}`);
  const c = await waitForState(t, (x) => x.training.config.lang === lang, { timeout: T, message: `coref in ${lang}` });
  return c;
}

for (const lang of ['zh', 'en']) {
  test(`coref (${lang}): Start trains to >= 99 % held-out in seconds; a layer-2 head resolves the pronoun`, async (t) => {
    await openCoref(t, lang);
    const started = Date.now();
    await clickKey(t, 'train:start', (x) => x.training.running || x.training.step > 0, 'Start');
    const reached = await waitForState(t, (x) => x.training.exact_acc >= 0.99 || !x.training.running,
      { timeout: RUN_T, message: 'held-out exact accuracy >= 99 % or the end of the run' });
    const wall = (Date.now() - started) / 1000, tr = reached.training;
    assert(tr.exact_acc >= 0.99, `coref ${lang}: held-out exact ${pct(tr.exact_acc)} at step ${tr.step}`);
    note(t, `coref ${lang}: held-out exact ${pct(tr.exact_acc)} at step ${tr.step}: ${tr.train_seconds.toFixed(2)} s inside ` +
      `training, ${wall.toFixed(1)} s after the Start click (wall, loaded machine); ${tr.steps_per_sec.toFixed(0)} steps/s`);
    const done = await waitForState(t, (x) => !x.training.running && x.training.coref, { timeout: RUN_T, message: 'the run ends, heads measured' });
    const c = done.training.coref;
    const best = c.heads[c.resolving];
    note(t, `coref ${lang} heads (held-out ${c.samples}): ` + c.heads.map((h) => `L${h.layer + 1}h${h.head} ref ${h.referent.toFixed(2)} ` +
      `other ${h.other.toFixed(2)} margins ${h.margin_animal.toFixed(2)}/${h.margin_object.toFixed(2)} ko ${pct(h.knockout_exact)}`).join('; '));
    assert(best.layer === 1 && best.margin_animal > 0.3 && best.margin_object > 0.3, `resolving head ${JSON.stringify(best)}`);
    assert(layoutRect(done, 'train:coref:where'), 'the page says where it is resolved');
    await parkMouse(t);
    await waitFrames(t, 3);
    await screenshotNotBlank(t, `coref-train-${lang}.png`);
  });
}

/**
 * Ctrl+A in the field being edited, and wait, as a person looks, until the selection covers
 * the whole text. Under CPU load the press was lost about once in eight runs (the text then
 * went in at the click); a second press is allowed and noted, a second loss fails.
 */
async function selectAll(t) {
  const whole = (x) => x.fields.editing && x.fields.editing.select_start === 0 &&
    x.fields.editing.select_end === [...x.fields.editing.text].length;  // ImGui counts characters
  for (let attempt = 1; ; attempt++) {
    await t.page.keyboard.press('Control+A');
    try {
      return await waitForState(t, whole, { timeout: 3000, message: 'Ctrl+A selects the whole field' });
    } catch (e) {
      if (attempt === 2) throw e;
      note(t, 'Ctrl+A did not select the whole field within 3 s; pressed again');
    }
  }
}

/** Replaces the tokens field's text: select all, then paste (or type) `text`. */
async function retype(t, text, how) {
  const s = await scrollSetupTo(t, 'tokens', T);
  await clickRect(t, layoutRect(s, 'tokens'), { fx: 0.2 });
  await waitForState(t, (x) => x.fields.editing, { timeout: T, message: 'editing the tokens field' });
  await selectAll(t);
  if (how === 'paste') {
    await t.page.evaluate((v) => navigator.clipboard.writeText(v), text);
    await t.page.keyboard.press('Control+V');
  } else {
    await t.page.keyboard.type(text, { delay: 15 });
  }
  await waitSettled(t, { timeout: T });
  return waitForState(t, (x) => x.fields.tokens === text && x.stepper.coref && x.stepper.coref.text === text,
    { timeout: T, message: `the model read ${JSON.stringify(text)}` });
}

const SENTENCES = {
  zh: { happy: '小猫追着球跑，它玩得很开心。', rolled: '小猫追着球跑，它滚得很远。', unknown: '小猫追着飞机跑，它玩得很开心。', named: '飞 机',
        how: 'paste', nouns: ['小猫', '球'] },
  en: { happy: 'the cat chased the ball, it was very happy.', rolled: 'the cat chased the ball, it rolled far away.',
        unknown: 'the cat chased the plane, it was very happy.', named: 'plane', how: 'type', nouns: ['cat', 'ball'] },
};

for (const lang of ['zh', 'en']) {
  test(`coref (${lang}): the stepper on the shipped model answers typed sentences and names unknown words`, async (t) => {
    await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.origin });
    await openCoref(t, lang);
    await clickKey(t, 'train:open_trained', (x) => x.training.weights === 'shipped' && !x.training.fetching, 'the shipped model');
    await clickKey(t, 'chip:softmax', (x) => !x.training.view_open && x.layout['stepper:weights:model'], 'the stepper');
    await clickKey(t, 'stepper:weights:model', (x) => x.stepper.shown_model && x.stepper.task === 'coref', 'the model in the stepper');
    const w = SENTENCES[lang];
    const before = await labState(t.page);
    const happy = (await retype(t, w.happy, w.how)).stepper.coref;
    assert(happy.answer === w.nouns[0], `${w.happy}: answer ${happy.answer}`);
    assert(happy.nouns.join() === w.nouns.join(), `nouns ${happy.nouns}`);
    const moved = happy.heads.filter((h) => h.layer === 1 && h.on_noun[0] > h.on_noun[1]);
    assert(moved.length > 0, `a layer-2 head on ${w.nouns[0]}: ${JSON.stringify(happy.heads.map((h) => h.on_noun))}`);
    await parkMouse(t);
    await screenshotNotBlank(t, `coref-stepper-${lang}-happy.png`);
    const rolled = (await retype(t, w.rolled, w.how)).stepper.coref;
    assert(rolled.answer === w.nouns[1], `${w.rolled}: answer ${rolled.answer}`);
    const after = moved.map((h) => rolled.heads.find((r) => r.layer === h.layer && r.head === h.head));
    assert(after.some((h) => h.on_noun[1] > h.on_noun[0]), `the weight moved to ${w.nouns[1]}: ${JSON.stringify(after.map((h) => h.on_noun))}`);
    note(t, `coref ${lang} stepper: "${w.happy}" -> ${happy.answer} (${happy.probability.toFixed(3)}), layer-2 heads on nouns ` +
      `${JSON.stringify(happy.heads.filter((h) => h.layer === 1).map((h) => h.on_noun.map((x) => +x.toFixed(3))))}; "${w.rolled}" -> ` +
      `${rolled.answer}, ${JSON.stringify(rolled.heads.filter((h) => h.layer === 1).map((h) => h.on_noun.map((x) => +x.toFixed(3))))}`);
    const query = rolled.query;
    const s = await labState(t.page);
    assert(s.stepper.query_tokens[query] === (lang === 'zh' ? '它' : 'it'), `the trace follows the typed sentence: ${s.stepper.query_tokens}`);
    await parkMouse(t);
    await screenshotNotBlank(t, `coref-stepper-${lang}-rolled.png`);
    const unknown = (await retype(t, w.unknown, w.how)).stepper.coref;
    assert(unknown.answer === null && unknown.note.includes(w.named), `unknown words: ${JSON.stringify(unknown)}`);
    await parkMouse(t);
    await waitFrames(t, 3);
    await screenshotNotBlank(t, `coref-stepper-${lang}-unknown.png`);
    // Typing with the model shown retraces the model only: the knobs' random trace would be
    // thrown away, so none is computed until the random weights are shown again.
    const typed = await labState(t.page);
    assert(typed.random_traces === before.random_traces && typed.generation > before.generation,
      `three sentences typed: ${typed.random_traces - before.random_traces} random traces, ${typed.generation - before.generation} shown`);
    const back = await clickKey(t, 'stepper:weights:random', (x) => !x.stepper.shown_model, 'the random weights');
    assert(back.random_traces === typed.random_traces + 1, `back to random weights: ${back.random_traces - typed.random_traces} traces`);
    note(t, `typing 3 sentences with the model shown: ${typed.generation - before.generation} model traces, 0 random; ` +
      `back to the random weights: 1 random trace`);
  });
}
