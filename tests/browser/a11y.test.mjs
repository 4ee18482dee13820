// a11y.test.mjs — issue 28, items 3 and 4: the page as text and the keyboard everywhere.
//
// The accessibility tree (CDP Accessibility.getFullAXTree) holds what the canvas shows — the
// stage's title, formula, PyTorch line, shapes and checks, the hovered cell's derivation —
// in the interface language, compared with state()'s own values; the page's HTML buttons
// drive the stepper from the keyboard and a polite live region says what changed. Keys only:
// Tab / Shift+Tab walk the widgets with a focus ring (state().nav), Enter and Space press
// them, Esc leaves the canvas for the page's buttons and Tab comes back in; the stage
// shortcuts keep working.
import { test, assert } from './lib/harness.mjs';
import { labState, waitForState, waitFrames, hoverCell, openIn, note, screenshotNotBlank, typeInto, layoutRect } from './lib/lab.mjs';

const T = 30000;
const PAGE_LANG = { en: 'en', zh: 'zh-CN' };

/** The accessibility tree's nodes that are not ignored. */
async function axNodes(t) {
  const cdp = await t.page.context().newCDPSession(t.page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    return nodes.filter((n) => !n.ignored);
  } finally {
    await cdp.detach();
  }
}

const role = (n) => (n.role && n.role.value) || '';
const nameOf = (n) => (n.name && n.name.value) || '';
const texts = (nodes) => nodes.filter((n) => role(n) === 'StaticText').map(nameOf);
const headings = (nodes) => nodes.filter((n) => role(n) === 'heading').map(nameOf);
const prop = (n, key) => { const p = (n.properties || []).find((x) => x.name === key); return p && p.value && p.value.value; };

/** Polls the tree until predicate(nodes) holds (Chromium updates it after the DOM changes). */
async function waitAx(t, predicate, message, timeout = 10000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    t.checkProblems();
    const nodes = await axNodes(t);
    if (predicate(nodes)) return nodes;
    if (Date.now() >= deadline) {
      throw new Error(`accessibility tree: ${message} not met within ${timeout / 1000} s; headings ${JSON.stringify(headings(nodes))}, ` +
                      `texts ${JSON.stringify(texts(nodes).slice(0, 40))}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const activeId = (t) => t.page.evaluate(() => document.activeElement && document.activeElement.id);
async function waitActive(t, id, message) {
  await t.waitFor((want) => document.activeElement && document.activeElement.id === want, { timeout: T, message, arg: id });
}

// A shape step as the explain panel prints it: its op, two spaces, the named shape.
const shapeLine = (st) => `${st.op}  (${st.shape.map((n, i) => `${st.dims[i]}=${n}`).join(', ')})`;

for (const lang of ['en', 'zh']) {
  test(`a11y (${lang}): the accessibility tree holds the stage, formula, shapes and checks; the page's Next button (Tab, Enter) changes them and the live status says so`, async (t) => {
    const s0 = await openIn(t, lang, 'stage=scores');
    const stage0 = s0.stages[s0.stage.index];
    let ax = await waitAx(t, (n) => headings(n).includes(s0.stage.title), `a heading "${s0.stage.title}"`);
    const all = texts(ax);
    assert(all.includes(s0.stepper.formula), `formula "${s0.stepper.formula}" not in the tree`);
    assert(all.includes(s0.stepper.pytorch), `PyTorch line "${s0.stepper.pytorch}" not in the tree`);
    for (const st of stage0.steps) assert(all.includes(shapeLine(st)), `shape step "${shapeLine(st)}" not in the tree`);
    const checks = stage0.checks.filter((c) => c.verdict !== 'fact');
    assert(checks.length > 0, 'stage scores has no checks to look for');
    const passPrefixes = new Set();
    for (const c of checks) {
      const line = all.find((x) => x.includes(c.label) && x.includes(c.detail));
      assert(line, `check "${c.label}" (${c.detail}) not in the tree`);
      if (c.pass) passPrefixes.add(line.slice(0, line.indexOf(c.label)));
    }
    // A pass is said in words (on the canvas only the badge's colour says it).
    assert(passPrefixes.size === 1 && [...passPrefixes][0].trim() !== '', `the passes' verdict words: ${JSON.stringify([...passPrefixes])}`);
    // The language: on <html> and on the text's region; the region is named.
    const langs = await t.page.evaluate(() => ({ html: document.documentElement.lang, mirror: document.getElementById('lab-mirror').lang,
                                                 nav: document.getElementById('lab-nav').lang }));
    assert(langs.html === PAGE_LANG[lang] && langs.mirror === PAGE_LANG[lang] && langs.nav === PAGE_LANG[lang], `lang attributes ${JSON.stringify(langs)}`);
    // The live region: polite, and it names the stage.
    const live = ax.filter((n) => prop(n, 'live') === 'polite' && role(n) === 'status');
    assert(live.length === 1, `polite status regions: ${live.length}`);
    // The canvas says how the keyboard works on it (its description is the buttons' key hint).
    const hint = await t.page.evaluate(() => document.getElementById('lab-keys').textContent);
    const canvasNode = ax.find((n) => n.description && n.description.value === hint);
    assert(hint.length > 20 && canvasNode && nameOf(canvasNode) === await t.page.evaluate(() => document.getElementById('canvas').getAttribute('aria-label')),
      `the canvas's accessible description: ${JSON.stringify(canvasNode && canvasNode.description)} (hint "${hint}")`);
    const status0 = await t.page.evaluate(() => document.getElementById('lab-status').textContent);
    assert(status0.includes(s0.stage.title), `status "${status0}" does not name the stage`);

    // Keyboard only: Esc (nothing to close) leaves the canvas for the first button, Tab to Next, Enter.
    assert(await activeId(t) === 'canvas', `focus on ${await activeId(t)} before Esc`);
    await t.page.keyboard.press('Escape');
    await waitActive(t, 'lab-prev', 'Esc moves the focus to the Previous button');
    await t.page.keyboard.press('Tab');
    await waitActive(t, 'lab-next', 'Tab to the Next button');
    await screenshotNotBlank(t, `a11y-page-buttons-${lang}.png`);
    await t.page.keyboard.press('Enter');
    const s1 = await waitForState(t, (x) => x.stage.index === s0.stage.index + 1, { timeout: T, message: 'Enter on Next: the next stage' });
    const stage1 = s1.stages[s1.stage.index];
    ax = await waitAx(t, (n) => headings(n).includes(s1.stage.title) && !headings(n).includes(s0.stage.title),
                      `the heading "${s1.stage.title}" in place of "${s0.stage.title}"`);
    for (const st of stage1.steps) assert(texts(ax).includes(shapeLine(st)), `next stage's shape step "${shapeLine(st)}" not in the tree`);
    assert(texts(ax).includes(s1.stepper.formula), `next stage's formula "${s1.stepper.formula}" not in the tree`);
    const status1 = await t.page.evaluate(() => document.getElementById('lab-status').textContent);
    assert(status1 !== status0 && status1.includes(s1.stage.title), `status after Next: "${status1}" (was "${status0}")`);
    assert(await activeId(t) === 'lab-next', 'the Next button keeps the focus');
    // The current stage is marked in the page's stage list.
    const current = await t.page.evaluate(() => [...document.querySelectorAll('#lab-stage-list button')].map((b) => b.getAttribute('aria-current')));
    assert(current.indexOf('step') === s1.stage.index && current.filter(Boolean).length === 1, `aria-current ${JSON.stringify(current)}`);
    note(t, `${lang}: "${status0}" -> "${status1}"`);
  });
}

test('a11y: the language button switches the page and the text between English and 中文', async (t) => {
  const s0 = await openIn(t, 'en', 'stage=softmax');
  await t.page.keyboard.press('Escape');
  await waitActive(t, 'lab-prev', 'Esc to the page\'s buttons');
  // Tab along the buttons to the language button, then Enter.
  for (let i = 0; i < 20 && await activeId(t) !== 'lab-lang'; i++) await t.page.keyboard.press('Tab');
  assert(await activeId(t) === 'lab-lang', `never reached the language button (at ${await activeId(t)})`);
  const offer = await t.page.evaluate(() => { const b = document.getElementById('lab-lang'); return { text: b.textContent, lang: b.lang }; });
  assert(offer.lang === 'zh-CN', `the button offers 中文 in its language: ${JSON.stringify(offer)}`);
  await t.page.keyboard.press('Enter');
  const zh = await waitForState(t, (x) => x.lang === 'zh' && x.text_lang === 'zh' && x.fonts.cjk === 'ready', { timeout: T, message: 'Chinese after the button' });
  assert(zh.stage.title !== s0.stage.title, 'the title changed language');
  await waitAx(t, (n) => headings(n).includes(zh.stage.title), `the Chinese heading "${zh.stage.title}"`);
  const langs = await t.page.evaluate(() => [document.documentElement.lang, document.getElementById('lab-mirror').lang, document.getElementById('lab-lang').lang]);
  assert(langs[0] === 'zh-CN' && langs[1] === 'zh-CN' && langs[2] === 'en', `lang attributes after the switch ${JSON.stringify(langs)}`);
  assert(await activeId(t) === 'lab-lang', 'the language button keeps the focus');
});

test('a11y: hovering a heatmap cell puts its derivation in the text; the browser\'s find reaches the explanation', async (t) => {
  const s0 = await openIn(t, 'en', 'stage=scores');
  const hover = await hoverCell(t, 'scores', 1, 2);
  assert(hover.text && hover.text.length > 10, `hover text "${hover.text}"`);
  await waitAx(t, (n) => texts(n).includes(hover.text), `the derivation "${hover.text.slice(0, 60)}…"`);
  const cell = await t.page.evaluate(() => document.getElementById('lab-mirror').textContent);
  assert(cell.includes(`${hover.tensor}[${hover.index.join(', ')}]`), `the hovered cell's name scores[${hover.index.join(', ')}] not in the text`);
  // Chromium's find-in-page and window.find() search the same text (its FindBuffer): the
  // formula is found, and the match is in the page's text version (clipped to 1 px).
  const found = await t.page.evaluate((formula) => {
    window.getSelection().removeAllRanges();
    const ok = window.find(formula);
    const sel = window.getSelection();
    return { ok, text: sel.toString(), inMirror: !!(sel.anchorNode && document.getElementById('lab-mirror').contains(sel.anchorNode)) };
  }, s0.stepper.formula);
  assert(found.ok && found.text === s0.stepper.formula && found.inMirror, `find("${s0.stepper.formula}"): ${JSON.stringify(found)}`);
});

test('a11y: a lesson\'s question and the feedback on an answer are in the text and the live status; its shapes are not', async (t) => {
  let s = await openIn(t, 'en', 'lesson=1&step=1');
  s = await waitForState(t, (x) => x.lesson && x.lesson.question.ready && x.lesson.question.kind === 'shape', { timeout: T, message: 'lesson 1.1' });
  let ax = await waitAx(t, (n) => texts(n).includes(s.lesson.question.prompt), `the question "${s.lesson.question.prompt}"`);
  assert(headings(ax).some((h) => h.includes(s.lesson.title)), `no heading names the lesson "${s.lesson.title}"`);
  assert(texts(ax).includes(s.lesson.intro), 'the step\'s intro is not in the text');
  // The answer is a shape: the explain panel's shapes are not on screen, nor in the text.
  const answer = `(${s.lesson.question.answer.join(', ')})`;
  const named = s.stages[s.stage.index].steps.map(shapeLine);
  assert(!texts(ax).some((x) => named.includes(x)), 'the stage\'s shape steps (the answer) are in the text during a shape question');
  await typeInto(t, layoutRect(s, 'lesson:input'), '(1, 2, 3)');
  s = await waitForState(t, (x) => x.lesson.answered && !x.lesson.correct && x.lesson.feedback, { timeout: T, message: 'a wrong answer' });
  ax = await waitAx(t, (n) => texts(n).some((x) => x.includes(s.lesson.feedback)), `the feedback "${s.lesson.feedback}"`);
  const wrong = await t.page.evaluate(() => document.getElementById('lab-status').textContent);
  assert(wrong.includes(s.lesson.feedback), `status "${wrong}" lacks the feedback`);
  await typeInto(t, layoutRect(s, 'lesson:input'), answer);
  s = await waitForState(t, (x) => x.lesson.correct, { timeout: T, message: `the right answer ${answer}` });
  const right = await t.page.evaluate(() => document.getElementById('lab-status').textContent);
  assert(right !== wrong && right.includes(s.lesson.feedback), `status after the right answer "${right}"`);
  note(t, `status: "${wrong}" -> "${right}"`);
});

test('a11y keys only: Tab / Shift+Tab walk the widgets with a ring, Enter and Space press them, Esc leaves for the page\'s buttons, Tab comes back, the shortcuts still work', async (t) => {
  // No mouse at all after the page has loaded.
  let s = await openIn(t, 'en', 'stage=scores');
  assert(await activeId(t) === 'canvas', 'the canvas has the focus after loading');
  assert(s.nav && s.nav.keyboard === false && s.nav.visible === false, `no ring before a key: ${JSON.stringify(s.nav)}`);
  await t.page.keyboard.press('Tab');
  s = await waitForState(t, (x) => x.nav.keyboard && x.nav.visible && x.nav.focused, { timeout: T, message: 'Tab shows the ring on a widget' });
  const first = s.nav.focused;
  await t.page.keyboard.press('Tab');
  s = await waitForState(t, (x) => x.nav.visible && x.nav.focused && JSON.stringify(x.nav.focused.rect) !== JSON.stringify(first.rect),
    { timeout: T, message: 'a second Tab moves the ring' });
  const second = s.nav.focused;
  await t.page.keyboard.press('Shift+Tab');
  s = await waitForState(t, (x) => x.nav.visible && x.nav.focused && JSON.stringify(x.nav.focused.rect) === JSON.stringify(first.rect),
    { timeout: T, message: 'Shift+Tab moves it back' });
  note(t, `Tab: "${first.label}" (${first.rect_id}) -> "${second.label}" (${second.rect_id}); Shift+Tab back`);
  await screenshotNotBlank(t, 'a11y-focus-ring.png');

  // Walk to the Cross-attention preset, press it with Enter.
  const seen = [];
  const walkTo = async (rectId) => {  // null: the first heatmap
    for (let i = 0; i < 150; i++) {
      s = await labState(t.page);
      if (s.nav.focused && (rectId ? s.nav.focused.rect_id === rectId : s.nav.focused.heatmap)) return s;
      seen.push(s.nav.focused && (s.nav.focused.rect_id || s.nav.focused.label));
      const before = JSON.stringify(s.nav.focused);
      await t.page.keyboard.press('Tab');
      await waitForState(t, (x) => JSON.stringify(x.nav.focused) !== before, { timeout: T, message: `Tab moves on from ${before}` });
    }
    throw new Error(`Tab never reached ${rectId || 'a heatmap'}; visited ${JSON.stringify(seen)}`);
  };
  await walkTo('preset:Cross-attention');
  assert(s.config.cross === false, 'cross-attention is off before the preset');
  await t.page.keyboard.press('Enter');
  s = await waitForState(t, (x) => x.config.cross === true && x.config.kv_len === 6, { timeout: T, message: 'Enter presses the Cross-attention preset' });
  // Space ticks a switch, and again unticks it.
  await walkTo('switch:raw');
  const raw0 = s.config.raw;
  await t.page.keyboard.press('Space');
  s = await waitForState(t, (x) => x.config.raw === !raw0, { timeout: T, message: 'Space ticks the raw SDPA switch' });
  await t.page.keyboard.press('Space');
  s = await waitForState(t, (x) => x.config.raw === raw0, { timeout: T, message: 'Space again unticks it' });
  assert(s.nav.visible && s.nav.focused.rect_id === 'switch:raw', `the ring stays on the switch: ${JSON.stringify(s.nav.focused)}`);

  // With the ring shown the arrows move it, not the stage; j / k and the digits still switch stages.
  const stage = s.stage.index;
  await t.page.keyboard.press('ArrowDown');
  s = await waitForState(t, (x) => x.nav.focused && x.nav.focused.rect_id !== 'switch:raw', { timeout: T, message: 'ArrowDown moves the ring' });
  await t.page.keyboard.press('ArrowRight');
  await waitFrames(t, 3);
  s = await labState(t.page);
  assert(s.stage.index === stage, `ArrowRight with the ring shown moved the stage ${stage} -> ${s.stage.index}`);
  s = await pressUntilStage(t, 'j', stage + 1);
  s = await pressUntilStage(t, 'k', stage);
  s = await pressUntilStage(t, '7', 6);
  // On a heatmap the arrows move a cell, whose derivation shows as for the mouse's hover.
  await walkTo(null);
  const grid = s.nav.focused.rect;
  const hm = s.heatmaps.find((h) => Math.abs(h.y - grid.y) < h.cell_h * 3 && h.x > grid.x && h.x < grid.x + grid.w);
  assert(hm, `the focused grid ${JSON.stringify(grid)} is no heatmap on screen`);
  const cellIs = (r, c) => (x) => x.selection.hover && x.selection.hover.tensor === hm.tensor &&
    x.selection.hover.index.slice(-2).join() === `${r},${c}`;
  s = await waitForState(t, cellIs(0, 0), { timeout: T, message: `the ring on ${hm.tensor}: its cell (0, 0) hovered` });
  await t.page.keyboard.press('ArrowRight');
  s = await waitForState(t, cellIs(0, 1), { timeout: T, message: 'ArrowRight: cell (0, 1)' });
  await t.page.keyboard.press('ArrowDown');
  s = await waitForState(t, cellIs(1, 1), { timeout: T, message: 'ArrowDown: cell (1, 1)' });
  assert(s.stage.index === 6 && s.nav.focused.heatmap, `the arrows stayed on the grid: stage ${s.stage.index}, ${JSON.stringify(s.nav.focused)}`);
  await waitAx(t, (n) => texts(n).includes(s.selection.hover.text), 'the keyboard cell\'s derivation in the text');
  await screenshotNotBlank(t, 'a11y-keyboard-cell.png');
  note(t, `keyboard cell ${hm.tensor}[${s.selection.hover.index}]: ${s.selection.hover.text.slice(0, 80)}`);

  // Esc: nothing to close, so out of the canvas to the page's first button; the ring goes.
  await t.page.keyboard.press('Escape');
  await waitActive(t, 'lab-prev', 'Esc moves the focus to the page\'s first button');
  s = await waitForState(t, (x) => !x.nav.keyboard && !x.nav.visible, { timeout: T, message: 'no ring once the canvas is left' });
  await screenshotNotBlank(t, 'a11y-page-buttons.png');
  const bar = await t.page.evaluate(() => { const r = document.getElementById('lab-nav').getBoundingClientRect(); return { w: r.width, h: r.height }; });
  assert(bar.w > 200 && bar.h > 20, `the page's buttons show as a bar while one has the focus: ${JSON.stringify(bar)}`);
  // Tab along the buttons and on into the canvas: the ring is back.
  const order = [];
  for (let i = 0; i < 20 && (await activeId(t)) !== 'canvas'; i++) {
    order.push(await activeId(t));
    await t.page.keyboard.press('Tab');
  }
  assert(await activeId(t) === 'canvas', `Tab never came back into the canvas: ${JSON.stringify(order)}`);
  assert(order[order.length - 1] === 'lab-lang', `the last button before the canvas: ${order[order.length - 1]}`);
  s = await waitForState(t, (x) => x.nav.keyboard && x.nav.visible && x.nav.focused, { timeout: T, message: 'the ring shows after Tab into the canvas' });
  // The shortcuts work from there too, and Esc still closes the help before it leaves.
  s = await pressUntilStage(t, '3', 2);
  await t.page.keyboard.press('?');
  await waitForState(t, (x) => x.help, { timeout: T, message: '? opens the help' });
  await t.page.keyboard.press('Escape');
  await waitForState(t, (x) => !x.help, { timeout: T, message: 'Esc closes the help' });
  assert(await activeId(t) === 'canvas', `Esc that closed the help left the canvas (focus on ${await activeId(t)})`);
  // Backwards: Shift+Tab on the first button goes round into the canvas, at its last widget.
  await t.page.keyboard.press('Escape');
  await waitActive(t, 'lab-prev', 'Esc to the page\'s first button again');
  const last = s.nav.items;
  await t.page.keyboard.press('Shift+Tab');
  await waitActive(t, 'canvas', 'Shift+Tab on the first button goes into the canvas');
  s = await waitForState(t, (x) => x.nav.keyboard && x.nav.visible && x.nav.focused, { timeout: T, message: 'the ring after Shift+Tab into the canvas' });
  note(t, `Shift+Tab into the canvas: ring on "${s.nav.focused.label}" (${s.nav.focused.window}), ${last} widgets`);
  // The text input is out of the tree until a field is edited.
  const hidden = await t.page.evaluate(() => document.getElementById('lab-text-input').getAttribute('aria-hidden'));
  assert(hidden === 'true', `the hidden text input is exposed while no field is edited (aria-hidden ${hidden})`);
});

async function pressUntilStage(t, key, index) {
  await t.page.keyboard.press(key);
  return waitForState(t, (x) => x.stage.index === index, { timeout: T, message: `${key} -> stage ${index + 1}` });
}
