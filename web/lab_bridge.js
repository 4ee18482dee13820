// lab_bridge.js — Attention Lab web host, its JavaScript half (linked with --post-js;
// the C++ half is src/platform/host_web.cpp): window.lab, frames on demand, text
// input and paste, downloads and the clipboard, the Chinese font, dropped config files.
//   window.lab.ready          true after the first rendered frame (set from C++)
//   window.lab.state()        what is on screen, as an object (see README)
//   window.lab.wake(n)        draw n frames (default: a few), e.g. after changing the page
//   window.lab.lastSave / lastCopy   the last export saved / text copied
//   window.lab.loadCjkFont()  called by the app the first time it needs Chinese
//   window.lab.goToStage(k) / stepStage(d) / setLanguage('en' | 'zh')   the page's buttons
//   window.lab.mirror(json) / leaveCanvas()   called by the app: the canvas as text, Esc out
(function () {
  var lab = window.lab || (window.lab = {});
  lab.ready = false;

  // ---- frames on demand ------------------------------------------------------
  // The page draws only when something may have changed. GLFW's own callbacks wake
  // it for keys and the pointer; these listeners cover everything else that changes
  // what is shown: text and paste, focus, resize and devicePixelRatio (index.html
  // calls lab.wake), the URL hash, the page becoming visible again.
  lab.wake = function (frames) {
    if (Module.calledRun) Module._lab_wake(frames | 0);
  };
  function wakeSoon() { lab.wake(0); }
  ['keydown', 'keyup', 'mousedown', 'mouseup', 'mousemove', 'touchstart', 'touchmove', 'touchend',
   'focus', 'blur', 'resize', 'hashchange', 'popstate', 'compositionstart', 'compositionupdate',
   'compositionend', 'input', 'paste', 'copy', 'cut'].forEach(function (type) {
    window.addEventListener(type, wakeSoon, { capture: true, passive: true });
  });
  document.addEventListener('visibilitychange', wakeSoon);

  lab.state = function () {
    var s = JSON.parse(UTF8ToString(Module._lab_state_json()));
    var host = JSON.parse(UTF8ToString(Module._lab_host_state_json()));
    for (var key in host) s[key] = host[key];
    return s;
  };

  // ---- the Chinese font --------------------------------------------------------
  // A separate file of the page, fetched only for 中文 (or CJK tokens). When the link
  // or the browser asks for Chinese it is fetched right away, in parallel with the
  // first frames.
  var CJK_FONT_URL = 'lab_cjk.otf';
  var fontPromise = null;
  function fetchCjkFont() {
    if (!fontPromise) {
      fontPromise = fetch(CJK_FONT_URL, { credentials: 'same-origin' }).then(function (response) {
        if (!response.ok) throw new Error(CJK_FONT_URL + ': HTTP ' + response.status);
        return response.arrayBuffer();
      });
    }
    return fontPromise;
  }
  var hashLang = /(?:^#|&)lang=(en|zh)(?:[-_][^&]*)?(?:&|$)/i.exec(window.location.hash);  // else: the browser's
  if (/^zh/i.test(hashLang ? hashLang[1] : (navigator.language || ''))) fetchCjkFont().catch(function () {});
  lab.loadCjkFont = function () {
    fetchCjkFont().then(function (buffer) {
      var bytes = new Uint8Array(buffer);
      var ptr = Module._lab_font_buffer(bytes.length);
      HEAPU8.set(bytes, ptr);  // HEAPU8 is re-read after the call: the buffer may have grown memory
      Module.ccall('lab_font_arrived', null, ['number', 'string'], [1, '']);
    }).catch(function (e) {
      console.warn('Chinese font: ' + e);
      Module.ccall('lab_font_arrived', null, ['number', 'string'], [0, String(e && e.message || e)]);
    });
  };

  // ---- shipped checkpoints ----------------------------------------------------
  // The trained models of web/checkpoints sit next to the page (checkpoints/<task>/):
  // manifest.json, the final/ weights it lists, loss.npy and lr.npy (the run's curve and
  // rates), fetched when the Train view opens one.
  lab.fetchCheckpoint = function (task) {
    var base = 'checkpoints/' + task + '/';
    function get(name) {
      return fetch(base + name, { credentials: 'same-origin' }).then(function (response) {
        if (!response.ok) throw new Error(base + name + ': HTTP ' + response.status);
        return response.arrayBuffer();
      });
    }
    function done(error) { Module.ccall('lab_checkpoint_done', null, ['string', 'string'], [task, error]); }
    get('manifest.json').then(function (manifestBytes) {
      var manifest = JSON.parse(new TextDecoder().decode(manifestBytes));
      var names = manifest.params.map(function (p) { return 'final/' + p.file; }).concat(['loss.npy', 'lr.npy']);
      return Promise.all(names.map(get)).then(function (buffers) {
        names.unshift('manifest.json');
        buffers.unshift(manifestBytes);
        for (var i = 0; i < names.length; i++) {
          var bytes = new Uint8Array(buffers[i]);
          var ptr = Module._lab_checkpoint_buffer(bytes.length);
          HEAPU8.set(bytes, ptr);  // HEAPU8 is re-read after the call: the buffer may have grown memory
          Module.ccall('lab_checkpoint_file', null, ['string'], [names[i]]);
        }
        done('');
      });
    }).catch(function (e) {
      console.warn('checkpoint: ' + e);
      done(String(e && e.message || e));
    });
  };

  // ---- downloads and the clipboard ---------------------------------------------
  lab.saveFile = function (name, data, mime) {
    var a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([data], { type: mime }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    lab.lastSave = { name: name, size: data.length };
  };
  // remember: an export ("Copy as prompt", "Copy link"), reported as lab.lastCopy;
  // otherwise a copy or cut in a text field.
  lab.copyText = function (text, remember) {
    if (remember) lab.lastCopy = text;
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(wakeSoon, function (e) { console.warn('clipboard: ' + e); });
    }
  };

  // ---- typing Chinese, and paste -------------------------------------------------
  // An input method composes text in an editable element, and a canvas is not one.
  // While an ImGui text field is active (lab.textInput, called every frame from C++)
  // a hidden textarea at the caret has the focus; what it receives without a
  // keypress (IME commits, insertText) goes to ImGui. Ordinary keys still reach ImGui
  // through GLFW's window listeners, so the textarea ignores text that a keypress
  // already delivered.
  var ime = document.createElement('textarea');
  ime.id = 'lab-text-input';
  ime.setAttribute('aria-label', 'text input');
  ime.setAttribute('aria-hidden', 'true');  // a screen reader meets it only while a field is edited
  ime.setAttribute('autocomplete', 'off');
  ime.setAttribute('autocapitalize', 'off');
  ime.spellcheck = false;
  ime.style.cssText = 'position:fixed;left:0;top:0;width:2px;height:1.2em;opacity:0;border:0;padding:0;' +
                      'margin:0;resize:none;overflow:hidden;pointer-events:none;';
  document.body.appendChild(ime);
  var sawKeypress = false, justComposed = false, settleFrames = 0, wasActive = false;
  window.addEventListener('keydown', function () { sawKeypress = false; }, true);
  window.addEventListener('keypress', function (e) {
    if (!e.ctrlKey && !e.metaKey && e.charCode >= 32) sawKeypress = true;
  }, true);
  function sendText(text) {
    if (text) Module.ccall('lab_text_input', null, ['string'], [text]);
  }
  ime.addEventListener('compositionend', function (e) {
    sendText(e.data);
    ime.value = '';
    justComposed = true;
    setTimeout(function () { justComposed = false; }, 0);
  });
  ime.addEventListener('input', function (e) {
    if (e.isComposing || e.inputType === 'insertCompositionText' || justComposed) return;
    if (e.inputType === 'insertText' && sawKeypress) sawKeypress = false;  // GLFW has it already
    else if (/^insert(Text|FromDrop|ReplacementText)$/.test(e.inputType)) sendText(e.data != null ? e.data : ime.value);
    ime.value = '';
  });
  // The browser reads the clipboard only for a paste event (Ctrl+V, Shift+Insert,
  // a menu): its text goes to the app, which pastes it into the active field (the
  // C++ half decides between ImGui's paste shortcut and typing it).
  window.addEventListener('paste', function (e) {
    if (!e.clipboardData) return;
    e.preventDefault();
    Module.ccall('lab_paste', null, ['string'], [e.clipboardData.getData('text/plain')]);
  }, true);
  // A click on the canvas moves the focus there; ImGui decides over the next
  // frames whether a field became active, so the textarea waits for that.
  (Module.canvas || document).addEventListener('mousedown', function () { settleFrames = 2; }, true);
  lab.textInput = function (active, x, y) {
    var canvas = Module.canvas;
    if (settleFrames > 0) { settleFrames--; return; }
    var dpr = (window.labCanvas && window.labCanvas.dpr) || 1;
    if (!!active !== wasActive) ime.setAttribute('aria-hidden', active ? 'false' : 'true');
    if (active) {
      ime.style.left = (x / dpr) + 'px';
      ime.style.top = (y / dpr) + 'px';
      if (document.activeElement === canvas || (!wasActive && document.activeElement === document.body)) {
        ime.focus({ preventScroll: true });
      }
    } else if (document.activeElement === ime) {
      canvas.focus({ preventScroll: true });
    }
    wasActive = !!active;
  };

  // ---- touch (issue #28; the gestures are src/platform/touch_input.h) --------------
  // Emscripten's GLFW reads no position from touch events: a finger pressed the
  // mouse button wherever the mouse had been, and a drag moved nothing. Touch
  // events on the canvas stop here (the window's capture phase, before GLFW's
  // canvas listeners), with their default actions (the mouse events a browser makes
  // of a tap, its own scrolling and zooming); the app makes taps, holds, drags and
  // pinches of them. The mouse and a pen still go through GLFW.
  // A tap on a text field focuses the hidden textarea inside this handler, as a
  // phone opens its on-screen keyboard only for a focus the user's gesture made;
  // the textarea's 16 px text keeps a phone from zooming in on it.
  (function () {
    var PHASES = { touchstart: 0, touchmove: 1, touchend: 2, touchcancel: 3 };
    var TAP = 1, TAP_ON_TEXT = 2;
    ime.style.fontSize = '16px';
    function onTouch(e) {
      var canvas = Module.canvas;
      if (e.target !== canvas || !Module.calledRun) return;
      e.stopPropagation();
      if (e.cancelable) e.preventDefault();
      var phase = PHASES[e.type];
      var fingers = phase < 2 ? e.touches : e.changedTouches;  // down now / lifted
      var rect = canvas.getBoundingClientRect();
      var sx = canvas.width / (rect.width || 1), sy = canvas.height / (rect.height || 1);
      var xy = [0, 0, 0, 0];
      for (var i = 0; i < 2 && i < fingers.length; i++) {
        xy[2 * i] = (fingers[i].clientX - rect.left) * sx;
        xy[2 * i + 1] = (fingers[i].clientY - rect.top) * sy;
      }
      var result = Module._lab_touch_event(phase, e.touches.length, xy[0], xy[1], xy[2], xy[3],
                                           e.timeStamp || performance.now());
      if (result === TAP_ON_TEXT) {
        settleFrames = 3;  // the field becomes active over the next frames
        ime.focus({ preventScroll: true });
      } else if (result === TAP) {
        canvas.focus({ preventScroll: true });  // as a click does (index.html); a keyboard closes
      }
    }
    ['touchstart', 'touchmove', 'touchend', 'touchcancel'].forEach(function (type) {
      window.addEventListener(type, onTouch, { capture: true, passive: false });
    });
  })();
  // ---- end of touch ---------------------------------------------------------------
  // ---- issue 28.3 / 28.4: the canvas as text, the page's buttons, the keyboard ---------------
  // The app describes what its panels draw (src/app/page_mirror.cpp) and the host hands the
  // description over when it changed (lab.mirror): this draws it into index.html's
  // #lab-mirror (headings, lists; textContent only) and #lab-status (aria-live), and labels
  // the buttons of #lab-nav, which ask the app for a stage or the language (lab_page_action,
  // applied at its next frame). Keys pressed on those buttons are the page's: GLFW listens
  // on the window and would take Tab, so they stop here. Tab from the last button enters the
  // canvas with the keyboard's focus ring (lab_keyboard_entered); the app's Esc with nothing
  // to close comes back to the first button (lab.leaveCanvas).
  (function () {
    var nav = document.getElementById('lab-nav');
    var main = document.getElementById('lab-mirror');
    var status = document.getElementById('lab-status');
    if (!nav || !main || !status) return;
    var PAGE_ACTION = { place: 0, step: 1, language: 2 };
    function act(kind, value) {
      if (!Module.calledRun) return;
      Module.ccall('lab_page_action', null, ['number', 'number'], [kind, value | 0]);
    }
    lab.goToStage = function (k) { act(PAGE_ACTION.place, k); };
    lab.stepStage = function (d) { act(PAGE_ACTION.step, d < 0 ? -1 : 1); };
    lab.setLanguage = function (code) { act(PAGE_ACTION.language, /^zh/i.test(code) ? 1 : 0); };

    var prev = document.getElementById('lab-prev'), next = document.getElementById('lab-next');
    var lang = document.getElementById('lab-lang'), list = document.getElementById('lab-stage-list');
    var stagesLabel = document.getElementById('lab-stages-label'), keys = document.getElementById('lab-keys');
    var shown = null;  // the description drawn last
    prev.addEventListener('click', function () { if (prev.getAttribute('aria-disabled') !== 'true') lab.stepStage(-1); });
    next.addEventListener('click', function () { if (next.getAttribute('aria-disabled') !== 'true') lab.stepStage(1); });
    lang.addEventListener('click', function () { if (shown) lab.setLanguage(shown.lang === 'en' ? 'zh' : 'en'); });

    function node(tag, text) {
      var e = document.createElement(tag);
      if (text != null) e.textContent = text;
      return e;
    }
    function list_of(items, text) {
      var ul = node('ul');
      items.forEach(function (it) { ul.appendChild(node('li', text ? text(it) : it)); });
      return ul;
    }
    function check_text(c) { return c.detail ? c.text + ' — ' + c.detail : c.text; }
    // The stage list: one button a place, rebuilt only when the walk changes length (a
    // button that has the focus keeps it).
    function drawStages(m) {
      while (list.children.length > m.stages.length) list.lastChild.remove();
      while (list.children.length < m.stages.length) {
        var li = node('li'), b = node('button');
        b.type = 'button';
        b.dataset.place = String(list.children.length);
        b.addEventListener('click', function (e) { lab.goToStage(+e.currentTarget.dataset.place); });
        li.appendChild(b);
        list.appendChild(li);
      }
      m.stages.forEach(function (title, i) {
        var b = list.children[i].firstChild;
        b.textContent = (i + 1) + '. ' + title;
        if (i === m.place) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
      });
    }
    function drawNav(m) {
      var L = m.labels;
      nav.setAttribute('aria-label', L.nav);
      prev.textContent = L.prev;
      next.textContent = L.next;
      prev.setAttribute('aria-disabled', String(m.place <= 0));
      next.setAttribute('aria-disabled', String(m.place >= m.stages.length - 1));
      stagesLabel.textContent = L.stages;
      lang.textContent = L.language;
      lang.setAttribute('lang', L.language_lang);
      keys.textContent = L.keys;
      drawStages(m);
    }
    // The text of the screen, in the explain panel's order.
    function drawMain(m) {
      var L = m.labels, parts = [node('h1', L.region), node('p', L.place)];
      main.setAttribute('aria-label', L.region);
      if (m.view !== 'stepper') {
        parts.push(node('h2', m.view_title));
      } else {
        parts.push(node('h2', m.title), node('h3', L.paper), node('p', m.formula));
      }
      if (m.view === 'stepper' && m.explain) {  // the explain panel (a lesson's card takes its place)
        var pre = node('pre');
        pre.appendChild(node('code', m.pytorch));
        parts.push(node('h3', L.pytorch), pre, node('h3', L.shapes), list_of(m.shapes));
        if (m.backward) {
          parts.push(node('h3', L.backward), node('p', m.backward.formula), node('p', m.backward.why), node('p', m.backward.loss),
                     node('h3', L.grad_checks), m.backward.checks.length ? list_of(m.backward.checks, check_text) : node('p', L.no_checks));
        }
        parts.push(node('h3', L.why), node('p', m.why), node('h3', L.checks),
                   m.checks.length ? list_of(m.checks, check_text) : node('p', L.no_checks));
        if (m.facts.length) parts.push(node('h3', L.facts), list_of(m.facts, check_text));
      }
      if (m.view === 'stepper' && m.hover) parts.push(node('h3', L.hovered), node('p', m.hover.cell), node('p', m.hover.text));
      if (m.lesson) {
        parts.push(node('h2', L.lesson + ': ' + m.lesson.title), node('p', m.lesson.step), node('p', m.lesson.intro),
                   node('h3', L.question), node('p', m.lesson.question));
        if (m.lesson.options.length) parts.push(list_of(m.lesson.options));
        if (m.lesson.feedback) parts.push(node('p', m.lesson.feedback));
      }
      main.replaceChildren.apply(main, parts);
    }
    lab.mirror = function (json) {
      var m;
      try { m = JSON.parse(json); } catch (e) { console.warn('mirror: ' + e); return; }
      shown = m;
      document.documentElement.lang = m.lang;
      [nav, main, status].forEach(function (e) { e.setAttribute('lang', m.lang); });
      nav.hidden = false;
      drawNav(m);
      drawMain(m);  // the host sends it only when something changed
      if (status.textContent !== m.status) status.textContent = m.status;
    };

    // Keys on the page's buttons stay the page's (the window's later listeners are GLFW's).
    var tabbedIn = 0;
    ['keydown', 'keypress', 'keyup'].forEach(function (type) {
      window.addEventListener(type, function (e) {
        if (!nav.contains(e.target)) return;
        e.stopImmediatePropagation();
        if (type === 'keydown' && e.key === 'Tab') {
          tabbedIn = e.shiftKey ? -1 : 1;
          setTimeout(function () { tabbedIn = 0; }, 0);  // the focus moves within this task
          // Nothing comes before the first button: Shift+Tab there goes round into the
          // canvas (its last widget), as Tab after the last button enters at its first.
          if (e.shiftKey && e.target === nav.querySelector('button') && Module.canvas) {
            e.preventDefault();
            Module.canvas.focus();
          }
        }
      }, true);
    });
    var canvas = Module.canvas;
    if (canvas) {
      canvas.setAttribute('aria-describedby', 'lab-keys');  // a screen reader says how Tab and Esc work there
      canvas.addEventListener('focus', function () {
        if (tabbedIn && Module.calledRun) Module.ccall('lab_keyboard_entered', null, ['number'], [tabbedIn]);
        tabbedIn = 0;
      });
    }
    lab.leaveCanvas = function () {
      var first = nav.querySelector('button');
      if (first) first.focus();
    };
  })();

  // ---- config files dropped on the page ------------------------------------------
  // Their bytes (NUL and invalid UTF-8 included, so binary files are recognised) go
  // to the app, which reports problems in the setup panel. Files over the limit are
  // refused unread.
  var MAX_CONFIG_BYTES = 1 << 20;
  var target = Module.canvas || document;
  function load(name, bytes, size) {
    Module.ccall('lab_load_config_bytes', null, ['string', 'array', 'number', 'number'],
                 [name, bytes, bytes.length, size]);
  }
  target.addEventListener('dragover', function (e) { e.preventDefault(); });
  target.addEventListener('drop', function (e) {
    e.preventDefault();
    var file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
    if (!file) return;
    if (file.size > MAX_CONFIG_BYTES) {
      load(file.name, new Uint8Array(0), file.size);
      return;
    }
    file.arrayBuffer().then(function (buffer) {
      load(file.name, new Uint8Array(buffer), file.size);
    });
  });
})();
