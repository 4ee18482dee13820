// Issue #29, items 5 and 9, as a learner meets them in the mistakes lab (#exp=mistakes), with real
// clicks, wheel and keys, in English and 中文, at 1280x800 and 1024x640:
//  5. "Wrong d_k in view(B, -1, h, 128)" followed line by line through the tutorial's class: silent
//     up to W_o, and the h*128-wide concat the tutorial's text describes is where W_o raises;
//  9. "Mask built for another length" with the mask's length the learner types: seq_len 10 and a
//     mask for 5 give the tutorial's "The size of tensor a (10) must match the size of tensor b (5)".
// Every step's shape or error is compared with what PyTorch 1.13 did on the same lines
// (tests/fixtures/mistakes/pytorch.tsv, written by tests/torch/mistake_errors.py).
// Screenshots: mistakes29-dk128-LANG-WxH.png, mistakes29-mask-LANG-WxH.png.
import { readFileSync } from 'node:fs';
import { test, assert } from './lib/harness.mjs';
import { openLab, waitForState, waitSettled, layoutRect, clickRect, parkMouse, screenshotNotBlank, scrollSetupTo, typeInto } from './lib/lab.mjs';

const T = 20000;
const LANGS = ['en', 'zh'];
const SIZES = [{ width: 1280, height: 800 }, { width: 1024, height: 640 }];
const zhReady = (x) => x.lang !== 'zh' || x.fonts.cjk === 'ready';

/** PyTorch's story steps "KEY:step:I" for one configuration (d_model, h, L_q, L_kv, B), in order. */
function torchSteps(key, cfg) {
  const file = new URL('../fixtures/mistakes/pytorch.tsv', import.meta.url);
  const rows = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith(`${key}:step:`)).map((l) => l.split('\t'));
  return rows.filter((r) => r.slice(1, 6).join(' ') === cfg.join(' ')).map((r) => r[6]);
}

/** A story step as mistake_errors.py writes what PyTorch did. */
const outcome = (step) => step.error || `runs [${step.shape.join(', ')}]`;
const mistakeOf = (s, key) => s.experiment && s.experiment.series && s.experiment.series.find((m) => m.key === key);
const selectedKey = (s) => s.experiment.series[s.experiment.selected].key;
const inside = (r, w) => r && r.y >= w.y - 0.5 && r.y + r.h <= w.y + w.h + 0.5;

async function pickMistake(t, s, key) {
  await clickRect(t, layoutRect(s, `mistake:${key}`), { fx: 0.1 });
  return waitForState(t, (x) => selectedKey(x) === key, { timeout: T, message: `${key} selected` });
}

/** Wheel over the detail panel until the layout rect `key` (a story step's outcome line, the knob) is inside it. */
async function scrollDetailTo(t, key) {
  for (let k = 0; k < 40; k++) {
    const s = await waitSettled(t, { timeout: T });
    const box = layoutRect(s, 'mistake_detail'), r = s.layout[key];
    if (inside(r, box)) return s;
    await t.page.mouse.move(box.x + box.w / 2, box.y + box.h / 2);
    await t.page.mouse.wheel(0, r && r.y < box.y ? -120 : 120);
  }
  throw new Error(`${key} never scrolled into the detail panel`);
}

function noClips(s, where) {
  assert(s.clipped.length === 0, `${where}: text cut: ${JSON.stringify(s.clipped).slice(0, 400)}`);
}

for (const size of SIZES) {
  const tag = `${size.width}x${size.height}`;

  test(`mistakes29: d_k written as 128, followed line by line: silent through W_o, the h*128 concat raises there (${tag})`, async (t) => {
    for (const lang of LANGS) {
      let s = await openLab(t, `#exp=mistakes&lang=${lang}`);
      s = await waitForState(t, (x) => mistakeOf(x, 'view_infers_length') && zhReady(x), { timeout: T, message: 'mistakes lab' });
      s = await pickMistake(t, s, 'view_infers_length');
      // Tiny (d_model 8, h 2, L 4): the first view already raises, and the story says only that.
      let m = mistakeOf(s, 'view_infers_length');
      assert(m.story.map(outcome).join('\n') === torchSteps('view_infers_length', [8, 2, 4, 4, 2]).join('\n'), `Tiny story: ${JSON.stringify(m.story)}`);
      // The Paper base preset, clicked in the setup panel: d_model 512, h 8, seq_len 10.
      s = await scrollSetupTo(t, 'preset:Paper base');
      await clickRect(t, layoutRect(s, 'preset:Paper base'));
      s = await waitForState(t, (x) => x.config.d_model === 512 && mistakeOf(x, 'view_infers_length').story.length > 1, { timeout: T, message: 'Paper base' });
      assert(selectedKey(s) === 'view_infers_length', `the mistake stays selected: ${selectedKey(s)}`);
      m = mistakeOf(s, 'view_infers_length');
      const torch = torchSteps('view_infers_length', [512, 8, 10, 10, 2]);
      assert(torch.length === 9 && m.story.length === torch.length, `${m.story.length} steps, PyTorch ran ${torch.length}`);
      m.story.forEach((step, i) => assert(outcome(step) === torch[i], `step ${i} ${step.code}: lab "${outcome(step)}", PyTorch "${torch[i]}"`));
      // The tutorial's own lines run silently to the end; W_o raises only after the h*128-wide concat.
      const main = m.story.filter((x) => x.branch === 0), wide = m.story.filter((x) => x.branch === 1);
      assert(main.every((x) => x.error === '') && main.at(-1).code.includes('W_o'), 'the tutorial\'s class runs through W_o');
      assert(wide.length === 2 && wide[0].note.length > 10 && wide[1].error === 'RuntimeError: mat1 and mat2 shapes cannot be multiplied (10x1024 and 512x512)',
        `the wide concat: ${JSON.stringify(wide)}`);
      assert(m.claim.includes(wide[1].error.slice('RuntimeError: '.length)), `the claim quotes W_o's error: ${m.claim}`);
      assert(lang === 'zh' ? /教程/.test(wide[0].note) : /tutorial's text/.test(wide[0].note), `note in ${lang}: ${wide[0].note}`);
      // The learner scrolls the detail panel with the wheel to W_o's error and reads it whole.
      await parkMouse(t);
      s = await scrollDetailTo(t, `mistake_step:${m.story.length - 1}`);
      await parkMouse(t);
      s = await waitSettled(t, { timeout: T });
      noClips(s, `${lang} ${tag} d_k 128`);
      await screenshotNotBlank(t, `mistakes29-dk128-${lang}-${tag}.png`);
    }
  }, { viewport: size });

  test(`mistakes29: the wrong mask's length follows seq_len and the learner's knob; 10 with 5 gives the tutorial's text (${tag})`, async (t) => {
    const tutorial = 'The size of tensor a (10) must match the size of tensor b (5) at non-singleton dimension 3';
    for (const lang of LANGS) {
      await t.page.goto('about:blank');  // a fresh page: a new hash alone keeps the panel's last choice
      let s = await openLab(t, `#exp=mistakes&lang=${lang}`);
      s = await waitForState(t, (x) => mistakeOf(x, 'mask_wrong_length') && zhReady(x), { timeout: T, message: 'mistakes lab' });
      s = await pickMistake(t, s, 'mask_wrong_length');
      assert(mistakeOf(s, 'mask_wrong_length').error.includes('a (2) must match the size of tensor b (4)'), `Tiny: the seed's (2) vs (4): ${JSON.stringify(mistakeOf(s, 'mask_wrong_length'))}`);
      // seq_len 10, typed into the setup knob: the mask follows (half the keys: 5).
      s = await scrollSetupTo(t, 'knob:seq_len');
      await typeInto(t, layoutRect(s, 'knob:seq_len'), '10');
      s = await waitForState(t, (x) => x.config.seq_len === 10 && mistakeOf(x, 'mask_wrong_length').mask_length === 5, { timeout: T, message: 'seq_len 10' });
      // The broadcast errors name only the lengths, so PyTorch's at Paper base are the texts for any d_model.
      const check = (x, n) => {
        const m = mistakeOf(x, 'mask_wrong_length'), torch = torchSteps(`mask_wrong_length:n=${n}`, [512, 8, 10, 10, 2]);
        assert(m.mask_length === n && m.buggy_line.includes(`torch.ones(${n}, ${n})`), `n = ${n}: ${m.buggy_line}`);
        assert(m.story.length === torch.length, `n = ${n}: ${m.story.length} steps, PyTorch ran ${torch.length}`);
        m.story.forEach((step, i) => assert(!step.error ? torch[i].startsWith('runs') : step.error === torch[i], `n = ${n} step ${i}: "${step.error}" vs "${torch[i]}"`));
        return m;
      };
      let m = check(s, 5);
      assert(m.story[2].error === `RuntimeError: ${tutorial}` && m.story[3].error === `RuntimeError: ${tutorial}`, 'in place and added: the tutorial\'s text');
      assert(m.error.includes('a (5) must match the size of tensor b (10)'), `masked_fill puts the mask first: ${m.error}`);
      assert(m.symptom.includes(tutorial), 'the symptom quotes it too');
      await parkMouse(t);
      s = await scrollDetailTo(t, 'mistake_step:3');
      noClips(s, `${lang} ${tag} mask 5`);
      await screenshotNotBlank(t, `mistakes29-mask-${lang}-${tag}.png`);
      // The learner types other lengths into the mistake's own knob.
      s = await scrollDetailTo(t, 'xv:mask_len');
      for (const n of [7, 10, 5]) {
        // Into the number itself: the group's rect also holds the - and + buttons and the label.
        const knob = layoutRect(s, 'xv:mask_len');
        await typeInto(t, knob, String(n), { fx: 20 / knob.w });
        s = await waitForState(t, (x) => mistakeOf(x, 'mask_wrong_length').mask_length === n && x.render.settled, { timeout: T, message: `mask for ${n}` });
        m = check(s, n);
        assert(m.runs === (n === 10), `n = ${n}: runs ${m.runs}`);
        assert(s.url_hash.includes(`mistakes.mask_len=${n}`), `the link keeps it: ${s.url_hash}`);
        assert(s.config.seq_len === 10, 'typing into the knob changed nothing else');
        noClips(s, `${lang} ${tag} mask ${n}`);
      }
      // The link reopens the same choice.
      const hash = s.url_hash;
      await t.page.goto('about:blank');
      s = await openLab(t, `#${hash}`);
      s = await waitForState(t, (x) => mistakeOf(x, 'mask_wrong_length') && zhReady(x), { timeout: T, message: 'link reopened' });
      assert(mistakeOf(s, 'mask_wrong_length').mask_length === 5, `link ${hash}: mask ${mistakeOf(s, 'mask_wrong_length').mask_length}`);
    }
  }, { viewport: size });
}
