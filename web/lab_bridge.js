// lab_bridge.js — Attention Lab web glue (linked with --post-js): the page's test
// and automation API. `window.lab.ready` turns true after the first rendered frame
// (set from C++); `window.lab.state()` returns what is on screen as an object.
(function () {
  var lab = window.lab || (window.lab = {});
  lab.ready = false;
  lab.state = function () {
    return JSON.parse(UTF8ToString(Module._lab_state_json()));
  };
})();
