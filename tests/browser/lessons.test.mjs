// Lessons tests: every step of every lesson walked with real input — shapes and numbers typed
// on the keyboard, cells clicked on the heatmap, options clicked — answering wrong once and then
// right; the feedback quotes the live numbers (checked against state(), and against what the
// maps show on hover); progress survives a reload; the URL hash opens a step; knobs can move and
// come back; screenshots of one step per lesson in English and Chinese.
import { test, assert } from './lib/harness.mjs';
import {
  openLab, labState, waitForState, note, layoutRect, clickRect, stableRect, typeInto, waitFrames,
  findHeatmap, cellCenter, hoverCell, screenshotNotBlank, parkMouse, waitReady,
} from './lib/lab.mjs';

const T = 10000;
// One step per lesson is photographed (1-based lesson -> step).
const PHOTO_STEP = { 1: 3, 2: 3, 3: 5, 4: 1, 5: 2, 6: 3, 7: 2 };
// A step on a shipped checkpoint waits for it (fetched, opened, measured head by head).
const MODEL_T = 90000;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** The feedback must show this number as the core printed it (%.Nf of the same double). */
function shows(text, n) {
  const near = [n.value, n.value * (1 + 1e-9), n.value * (1 - 1e-9)].map((v) => v.toFixed(n.decimals));
  return near.some((s) => text.includes(s)) || (Number(near[0]) === 0 && text.includes((0).toFixed(n.decimals)));
}

const lessonIs = (id, step) => (s) => !!s.lesson && s.lesson.id === id && s.lesson.step === step && s.lesson.asked_for_generation;
// ... and asked of the model it needs: the checkpoint is in the stepper, not on its way.
const lessonReady = (id, step) => (s) => lessonIs(id, step)(s) && (!s.lesson.task || (s.lesson.question.ready &&
  s.training.task === s.lesson.task && s.training.weights === 'shipped' && !s.training.fetching && s.stepper.shown_model));

/** Open lesson `id` from the top bar's Lessons menu, by mouse. */
async function openLessonByMenu(t, id) {
  const s0 = await labState(t.page);
  await clickRect(t, layoutRect(s0, 'menu:lessons'));
  await clickRect(t, await stableRect(t, `lesson:${id}`));
  return waitForState(t, lessonReady(id, 1), { timeout: MODEL_T, message: `lesson ${id} step 1 after the menu click` });
}

/** The right answer in the form a learner types it, checked against the page's own tensors where it can be. */
function rightText(s) {
  const q = s.lesson.question;
  if (q.kind === 'shape') return `(${q.answer.join(', ')})`;
  const a = q.answer;
  return a.tolerance === 0 ? String(Math.round(a.value)) : a.value.toFixed(3);
}

function wrongText(s) {
  const q = s.lesson.question;
  if (q.kind === 'shape') return `[${q.answer.slice(0, -1).concat(q.answer[q.answer.length - 1] + 1).join(',')}]`;
  return (q.answer.value + q.answer.tolerance + 0.5).toFixed(2);
}

/** Shape answers against state().stages (the dimension table's numbers) and the config. */
function crossCheckShape(s) {
  const q = s.lesson.question;
  const c = s.config;
  const shapes = new Set();
  for (const st of s.stages) for (const step of st.steps) shapes.add(JSON.stringify(step.shape));
  shapes.add(JSON.stringify([c.batch, c.seq_len, c.heads, c.d_k]));  // view(B, L, h, d_k): the split stage's middle step
  assert(shapes.has(JSON.stringify(q.answer)), `shape answer ${JSON.stringify(q.answer)} is no shape the stages show: ${[...shapes].join(' ')}`);
}

/** Cells answers against the mask built in JS from the config. */
function crossCheckCells(s) {
  const q = s.lesson.question, c = s.config, b = q.target.batch_item;
  const want = [];
  for (let i = 0; i < c.seq_len; i++) {
    for (let j = 0; j < c.kv_len; j++) {
      const keep = c.mask === 'causal' ? j <= i : c.mask === 'padding' ? j < c.padding_lengths[b] : true;
      if (!keep) want.push([i, j]);
    }
  }
  assert(same(want, q.answer), `cells ${JSON.stringify(q.answer)} != mask from the config ${JSON.stringify(want)}`);
}

/** Estimates of a row's largest weight against the values the map shows on hover. */
async function crossCheckMaxWeight(t, s) {
  const q = s.lesson.question;
  const m = q.marks[0];
  if (!m || m.tensor !== 'weights' || m.rows[0] !== m.rows[1]) return '';
  let max = -1;
  for (let j = m.cols[0]; j <= m.cols[1]; j++) {
    const h = await hoverCell(t, 'weights', m.rows[0], j, { prefix: [m.batch_item, m.head] });
    max = Math.max(max, h.value);
  }
  await parkMouse(t);
  if (q.kind === 'estimate' && Math.abs(q.answer.tolerance - 0.1) < 1e-9) {
    assert(Math.abs(max - q.answer.value) < 1e-6, `estimate answer ${q.answer.value} != largest hovered weight ${max} in row ${m.rows[0]}`);
  }
  return ` hovered max ${max.toFixed(3)}`;
}

/**
 * Steps on a shipped model: the answer against what the maps show on hover (the marked cell,
 * the marked row's largest weight or probability, the zeros of a ReLU row), and shapes against
 * the model's configuration.
 */
async function crossCheckModelStep(t, s) {
  const q = s.lesson.question, m = q.marks[0], c = s.training.config;
  if (q.kind === 'shape') {
    assert(same(q.answer, [1, c.length, c.d_ff]), `shape ${JSON.stringify(q.answer)} vs (1, length, d_ff) of ${JSON.stringify(c)}`);
    return '';
  }
  if (!m || m.rows[0] !== m.rows[1]) return '';
  const prefix = m.tensor === 'weights' ? [m.batch_item, m.head] : [m.batch_item];
  const values = [];
  for (let j = m.cols[0]; j <= m.cols[1]; j++) values.push((await hoverCell(t, m.tensor, m.rows[0], j, { prefix })).value);
  await parkMouse(t);
  const at = values.indexOf(Math.max(...values));
  const number = (name) => q.numbers.find((n) => n.name === name).value;
  if (q.kind === 'cells') {
    assert(same(q.answer, [[m.rows[0], at]]), `cells ${JSON.stringify(q.answer)} vs the hovered row's largest weight at ${at}`);
  } else if (m.tensor === 'ffn_relu') {
    const zeros = values.filter((v) => v === 0).length;
    assert(zeros === number('row0'), `${zeros} hovered zeros in ffn_relu row 0, feedback says ${number('row0')}`);
  } else if (m.tensor === 'probs') {
    assert(Math.abs(values[at] - q.answer.value) < 1e-6, `largest hovered probability ${values[at]} vs ${q.answer.value}`);
  } else if (q.kind === 'estimate') {
    assert(values.some((v) => Math.abs(v - q.answer.value) < 1e-5), `${q.answer.value} is no hovered value of ${m.tensor} row ${m.rows[0]}`);
  }
  return ` hovered ${m.tensor}[${m.rows[0]}, ${m.cols[0]}..${m.cols[1]}]`;
}

/** Type text into the lesson's field and press Enter (or click Check). */
async function typeAnswer(t, s, text, { clickCheck = false } = {}) {
  await typeInto(t, layoutRect(s, 'lesson:input'), text, { fx: 0.3, enter: !clickCheck });
  if (clickCheck) await clickRect(t, layoutRect(await labState(t.page), 'lesson:answer'));
}

async function clickCell(t, s, r, c) {
  const q = s.lesson.question;
  const hm = findHeatmap(s, q.target.tensor, [q.target.batch_item, q.target.head]);
  const p = cellCenter(hm, r, c);
  await t.page.mouse.click(p.x, p.y);
  await waitFrames(t, 1);
}

/** Answer the current step wrong once, then right; returns the state after the right answer. */
async function answerWrongThenRight(t, s, useCheckButton) {
  const q = s.lesson.question;
  const id = s.lesson.id, step = s.lesson.step;
  const after = (n) => (x) => !!x.lesson && x.lesson.id === id && x.lesson.step === step && x.lesson.attempts === n;
  if (q.kind === 'shape' || q.kind === 'estimate') {
    await typeAnswer(t, s, wrongText(s), { clickCheck: useCheckButton });
  } else if (q.kind === 'cells' && q.answer.length === 1) {
    const [r, c] = q.answer[0];  // one cell to find: a neighbour of it first
    await clickCell(t, s, r, (c + 1) % (q.target.cols[1] + 1));
    await clickRect(t, layoutRect(await labState(t.page), 'lesson:answer'));
  } else if (q.kind === 'cells') {
    for (const [r, c] of q.answer.slice(1)) await clickCell(t, s, r, c);  // all but the first
    await clickRect(t, layoutRect(await labState(t.page), 'lesson:answer'));
  } else {
    const wrong = (q.answer + 1) % q.options.length;
    await clickRect(t, layoutRect(s, `lesson:pick:${wrong}`));
  }
  const w = await waitForState(t, after(1), { timeout: T, message: `lesson ${id}.${step}: the wrong answer is read` });
  assert(w.lesson.answered && !w.lesson.correct && w.lesson.hint_shown, `lesson ${id}.${step} after a wrong answer: ${JSON.stringify(w.lesson).slice(0, 400)}`);
  assert(w.lesson.feedback.length > 0, `lesson ${id}.${step}: no verdict for the wrong answer`);
  assert(!q.numbers.some((n) => n.decimals > 0 && shows(w.lesson.feedback, n) && n.value !== 0 && Math.abs(n.value) !== 1),
    `lesson ${id}.${step}: the wrong answer's feedback reveals a number: ${w.lesson.feedback}`);
  // and right
  if (q.kind === 'shape' || q.kind === 'estimate') {
    await typeAnswer(t, w, rightText(w), { clickCheck: !useCheckButton });
  } else if (q.kind === 'cells') {
    const [r, c] = q.answer[0];
    if (q.answer.length === 1) await clickCell(t, w, r, (c + 1) % (q.target.cols[1] + 1));  // unmark the wrong one
    await clickCell(t, w, r, c);
    const marked = await labState(t.page);
    assert(same([...marked.lesson.cells].sort(), [...q.answer].sort()), `marked cells ${JSON.stringify(marked.lesson.cells)} vs ${JSON.stringify(q.answer)}`);
    await clickRect(t, layoutRect(marked, 'lesson:answer'));
  } else {
    await clickRect(t, layoutRect(w, `lesson:pick:${q.answer}`));
  }
  const r = await waitForState(t, after(2), { timeout: T, message: `lesson ${id}.${step}: the right answer is read` });
  assert(r.lesson.correct, `lesson ${id}.${step}: the right answer was not accepted: ${r.lesson.feedback}`);
  for (const n of r.lesson.question.numbers) {
    assert(shows(r.lesson.feedback, n), `lesson ${id}.${step}: feedback lacks ${n.name} = ${n.value.toFixed(n.decimals)}: ${r.lesson.feedback}`);
  }
  return r;
}

/** Walk every step of lesson `id` from the menu, wrong once then right; Finish leaves it. */
async function walkLesson(t, id, steps) {
  let s = await openLessonByMenu(t, id);
  for (let n = 1; n <= steps; n++) {
    s = await waitForState(t, lessonReady(id, n), { timeout: MODEL_T, message: `lesson ${id} step ${n} shown` });
    const q = s.lesson.question;
    assert(q.ready, `lesson ${id}.${n} not ready: ${q.not_ready}`);
    assert(!s.lesson.answered && s.lesson.attempts === 0 && s.lesson.feedback === '', `lesson ${id}.${n} starts answered`);
    assert(new RegExp(`(^|&)lesson=${id}&step=${n}(&|$)`).test(s.url_hash), `hash ${s.url_hash}`);
    assert(s.layout['lesson:prev'] && s.layout['lesson:next'] && s.layout['lesson:setup'], 'navigation buttons missing');
    let hovered = '';
    if (s.lesson.task) {
      hovered = await crossCheckModelStep(t, s);
    } else {
      if (q.kind === 'shape') crossCheckShape(s);
      if (q.kind === 'cells') crossCheckCells(s);
      hovered = q.kind === 'estimate' || q.kind === 'pick_row' ? await crossCheckMaxWeight(t, s) : '';
    }
    const r = await answerWrongThenRight(t, await labState(t.page), n % 2 === 0);
    note(t, `${id}.${n} ${q.kind}: ${r.lesson.feedback.slice(0, 140)}${hovered}`);
    if (PHOTO_STEP[id] === n) {
      await parkMouse(t);
      await waitFrames(t, 2);
      await screenshotNotBlank(t, `lesson-${id}-step-${n}-en.png`);
    }
    await clickRect(t, layoutRect(r, 'lesson:next'));
  }
  s = await waitForState(t, (x) => x.lesson === null, { timeout: T, message: `Finish leaves lesson ${id}` });
  const done = s.lessons.find((l) => l.id === id).done;
  assert(done === '1'.repeat(steps), `lesson ${id} progress ${done}`);
  return s;
}

for (const id of [1, 2, 3, 4, 5, 6, 7]) {
  test(`lessons: lesson ${id}, every step answered wrong once then right with the live numbers; progress survives a reload`, async (t) => {
    let s = await openLab(t);
    assert(s.lesson === null, `a lesson is shown without being asked for: ${JSON.stringify(s.lesson)}`);
    assert(s.lessons.length === 7 && s.lessons.every((l) => /^0+$/.test(l.done)), `fresh progress ${JSON.stringify(s.lessons)}`);
    const steps = s.lessons.find((l) => l.id === id).steps;
    await walkLesson(t, id, steps);
    await t.page.reload({ waitUntil: 'load', timeout: 60000 });
    s = await waitReady(t);
    for (const l of s.lessons) {
      assert(l.done === (l.id === id ? '1'.repeat(l.steps) : '0'.repeat(l.steps)), `after reload lesson ${l.id}: ${l.done}`);
    }
    const stored = await t.page.evaluate(() => window.localStorage.getItem('attnlab.lessons'));
    note(t, `localStorage attnlab.lessons = ${stored}`);
    await clickRect(t, layoutRect(s, 'menu:lessons'));
    await stableRect(t, `lesson:${id}`);
    await screenshotNotBlank(t, `lesson-menu-progress-${id}.png`);
  }, { timeout: 300000 });
}

test('lessons: the hash opens a step; bad values are named; knobs move and come back', async (t) => {
  let s = await openLab(t, '#lesson=4&step=3');
  s = await waitForState(t, lessonIs(4, 3), { timeout: T, message: 'hash lesson=4&step=3' });
  assert(s.config.mask === 'padding' && same(s.config.padding_lengths, [5, 3]), `set up: ${JSON.stringify(s.config)}`);
  assert(s.stage.id === 'scores' && s.selection.batch === 1, `stage ${s.stage.id}, item ${s.selection.batch}`);
  // Move a knob: the question follows what is on screen; Set up again restores the step.
  await t.page.evaluate(() => { window.location.hash = '#lesson=1&step=1'; });
  s = await waitForState(t, lessonIs(1, 1), { timeout: T, message: 'hash edit to lesson 1' });
  assert(same(s.lesson.question.answer, [2, 4, 8]), `lesson 1.1 answer ${JSON.stringify(s.lesson.question.answer)}`);
  await typeInto(t, layoutRect(s, 'knob:d_model'), '12');
  s = await waitForState(t, (x) => x.config.d_model === 12 && x.lesson && same(x.lesson.question.answer, [2, 4, 12]),
    { timeout: T, message: 'd_model = 12: the shape question follows' });
  await typeInto(t, layoutRect(s, 'lesson:input'), '(2, 4, 12)');
  s = await waitForState(t, (x) => x.lesson && x.lesson.correct, { timeout: T, message: 'answer about the moved knob' });
  assert(s.lesson.feedback.includes('12'), `feedback ${s.lesson.feedback}`);
  await clickRect(t, layoutRect(s, 'lesson:setup'));
  s = await waitForState(t, (x) => x.config.d_model === 8 && x.lesson && same(x.lesson.question.answer, [2, 4, 8]),
    { timeout: T, message: 'Set up again restores d_model = 8' });
  // A question the trace cannot ask says so (lesson 4.1 with the mask turned off).
  await t.page.evaluate(() => { window.location.hash = '#lesson=4&step=1'; });
  s = await waitForState(t, lessonIs(4, 1), { timeout: T, message: 'lesson 4.1' });
  const maskNone = s.url_hash.replace('mask=causal', 'mask=none');
  await t.page.evaluate((h) => { window.location.hash = '#' + h; }, maskNone);
  s = await waitForState(t, (x) => x.config.mask === 'none' && x.lesson && !x.lesson.question.ready, { timeout: T, message: 'not ready without a mask' });
  assert(s.lesson.question.not_ready.includes('Set up again'), `not_ready: ${s.lesson.question.not_ready}`);
  // Bad values are named.
  await t.page.evaluate(() => { window.location.hash = '#lesson=9'; });
  s = await waitForState(t, (x) => x.lesson === null && x.notes.some((m) => m.includes("lesson='9'")), { timeout: T, message: 'lesson=9 noted' });
  await t.page.evaluate(() => { window.location.hash = '#lesson=2&step=99'; });
  s = await waitForState(t, (x) => !!x.lesson && x.lesson.id === 2 && x.lesson.step === 1 && x.notes.some((m) => m.includes("step='99'")),
    { timeout: T, message: 'step=99 noted, step 1 shown' });
});

for (const [lesson, step] of Object.entries(PHOTO_STEP)) {
  test(`lessons: lesson ${lesson} step ${step} in Chinese, answered`, async (t) => {
    let s = await openLab(t, `#lang=zh&lesson=${lesson}&step=${step}`);
    s = await waitForState(t, (x) => lessonReady(Number(lesson), step)(x) && x.text_lang === 'zh' && x.fonts.cjk === 'ready',
      { timeout: MODEL_T, message: 'Chinese lesson page' });
    assert(/[\u4e00-\u9fff]/.test(s.lesson.intro) && /[\u4e00-\u9fff]/.test(s.lesson.question.prompt), `not Chinese: ${s.lesson.intro}`);
    const r = await answerWrongThenRight(t, s, false);
    assert(/[\u4e00-\u9fff]/.test(r.lesson.feedback), `feedback not Chinese: ${r.lesson.feedback}`);
    await parkMouse(t);
    await waitFrames(t, 2);
    await screenshotNotBlank(t, `lesson-${lesson}-step-${step}-zh.png`);
    note(t, r.lesson.feedback.slice(0, 120));
  });
}

for (const lang of ['en', 'zh']) {
  test(`lessons: the card fits at 1024x640 (${lang})`, async (t) => {
    let s = await openLab(t, `#lang=${lang}&lesson=2&step=3`);
    s = await waitForState(t, (x) => lessonIs(2, 3)(x) && x.text_lang === lang, { timeout: 30000, message: `${lang} lesson 2.3` });
    const r = await answerWrongThenRight(t, s, false);
    const card = r.scroll && r.scroll.Lesson;
    assert(card, `no Lesson window in state().scroll: ${Object.keys(r.scroll || {})}`);
    note(t, `${lang}: card ${card.w}x${card.h}, content scroll max_y ${card.max_y}, max_x ${card.max_x}`);
    assert(card.max_x === 0, `${lang}: the card scrolls sideways (text clipped): ${JSON.stringify(card)}`);
    for (const key of ['lesson:next', 'lesson:prev', 'lesson:setup', 'lesson:pick:0', 'lesson:pick:1']) {
      const b = layoutRect(r, key);
      assert(b.x >= card.x && b.x + b.w <= card.x + card.w + 1, `${lang}: ${key} outside the card ${JSON.stringify(b)} vs ${JSON.stringify(card)}`);
    }
    await parkMouse(t);
    await screenshotNotBlank(t, `lesson-small-${lang}.png`);
  }, { viewport: { width: 1024, height: 640 } });
}

test('lessons: lesson 7 from the hash opens its checkpoint in the stepper after a reload; not ready while it loads', async (t) => {
  // Hold the reverse checkpoint's manifest back: the step must say it is loading, never answer meanwhile.
  let release;
  const held = new Promise((r) => { release = r; });
  await t.page.route('**/checkpoints/reverse/manifest.json', async (route) => { await held; await route.continue(); });
  await t.goto('#lesson=7&step=2');  // not openLab: the page does not settle while a checkpoint is on its way
  let s = await waitReady(t);
  s = await waitForState(t, (x) => lessonIs(7, 2)(x) && x.training.fetching === 'reverse', { timeout: T, message: 'lesson 7.2 fetching reverse' });
  await waitFrames(t, 5);
  s = await labState(t.page);
  assert(!s.lesson.question.ready && /Opening the shipped checkpoint 'reverse'/.test(s.lesson.question.not_ready),
    `while loading: ${JSON.stringify(s.lesson.question).slice(0, 300)}`);
  assert(!s.layout['lesson:answer'] && !s.layout['lesson:pick:0'], 'answer widgets shown while the checkpoint loads');
  note(t, `while loading: ${s.lesson.question.not_ready}`);
  release();
  s = await waitForState(t, lessonReady(7, 2), { timeout: MODEL_T, message: 'lesson 7.2 ready once reverse is open' });
  assert(s.stepper.shown_model && s.stepper.sublayer === 'cross' && s.stepper.weights === 'shipped', `stepper ${JSON.stringify(s.stepper).slice(0, 300)}`);
  await t.page.unroute('**/checkpoints/reverse/manifest.json');
  // Another step's checkpoint, by editing the hash; then a reload opens it again from the hash alone.
  await t.page.evaluate(() => { window.location.hash = '#lesson=7&step=5'; });
  s = await waitForState(t, lessonReady(7, 5), { timeout: MODEL_T, message: 'lesson 7.5: the induction model' });
  assert(s.training.task === 'induction' && s.stepper.layer === 1 && s.stepper.sublayer === 'dec_self', `${s.training.task} ${s.stepper.layer} ${s.stepper.sublayer}`);
  await t.page.reload({ waitUntil: 'load', timeout: 60000 });
  s = await waitReady(t);
  s = await waitForState(t, lessonReady(7, 5), { timeout: MODEL_T, message: 'lesson 7.5 after the reload' });
  assert(new RegExp('(^|&)lesson=7&step=5(&|$)').test(s.url_hash) && /model=1/.test(s.url_hash), `hash ${s.url_hash}`);
  const r = await answerWrongThenRight(t, s, false);
  note(t, `after reload 7.5: ${r.lesson.feedback.slice(0, 160)}`);
  // Leaving the model (the stepper back on the knobs' weights): the step asks for Set up again.
  await t.page.evaluate(() => { window.location.hash = '#lesson=7&step=5&d_model=8'; });
  s = await waitForState(t, (x) => lessonIs(7, 5)(x) && !x.stepper.shown_model && !x.lesson.question.ready, { timeout: T, message: 'model=0: not ready' });
  assert(s.lesson.question.not_ready.includes('Set up again'), `not_ready: ${s.lesson.question.not_ready}`);
  await clickRect(t, layoutRect(s, 'lesson:setup'));
  await waitForState(t, lessonReady(7, 5), { timeout: MODEL_T, message: 'Set up again shows the induction model' });
}, { timeout: 300000 });

// The card with a model step's widest answers (four heads to pick, three LayerNorm outcomes).
for (const [lesson, step, lang, width, height] of [[7, 5, 'en', 1024, 640], [7, 5, 'zh', 1024, 640], [7, 5, 'en', 1280, 800],
  [7, 5, 'zh', 1280, 800], [6, 3, 'zh', 1024, 640], [6, 3, 'en', 1280, 800]]) {
  test(`lessons: the card of lesson ${lesson}.${step} fits at ${width}x${height} (${lang})`, async (t) => {
    let s = await openLab(t, `#lang=${lang}&lesson=${lesson}&step=${step}`);
    s = await waitForState(t, (x) => lessonReady(lesson, step)(x) && x.text_lang === lang, { timeout: MODEL_T, message: `${lang} lesson ${lesson}.${step}` });
    const r = await answerWrongThenRight(t, s, false);
    const card = r.scroll && r.scroll.Lesson;
    assert(card, `no Lesson window in state().scroll: ${Object.keys(r.scroll || {})}`);
    note(t, `${lang} ${width}x${height}: card ${card.w}x${card.h}, content scroll max_y ${card.max_y}, max_x ${card.max_x}`);
    assert(card.max_x === 0, `${lang}: the card scrolls sideways (text clipped): ${JSON.stringify(card)}`);
    const picks = r.lesson.question.options.map((_, i) => `lesson:pick:${i}`);
    for (const key of ['lesson:next', 'lesson:prev', 'lesson:setup', ...picks]) {
      const b = layoutRect(r, key);
      assert(b.x >= card.x && b.x + b.w <= card.x + card.w + 1, `${lang}: ${key} outside the card ${JSON.stringify(b)} vs ${JSON.stringify(card)}`);
    }
    await parkMouse(t);
    await screenshotNotBlank(t, `lesson-${lesson}-${step}-${width}-${lang}.png`);
  }, { viewport: { width, height }, timeout: 180000 });
}
