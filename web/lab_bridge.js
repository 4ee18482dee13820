// lab_bridge.js — Attention Lab web glue (linked with --post-js): the page's test
// and automation API, and config files dropped on the page.
//   window.lab.ready    true after the first rendered frame (set from C++)
//   window.lab.state()  what is on screen, as an object (see README)
//   window.lab.lastSave / lastCopy   the last export saved / text copied
(function () {
  var lab = window.lab || (window.lab = {});
  lab.ready = false;
  lab.state = function () {
    return JSON.parse(UTF8ToString(Module._lab_state_json()));
  };

  // Drop a JSON or TOML config on the page: its bytes (NUL and invalid UTF-8
  // included, so binary files are recognised) go to the app, which reports
  // problems in the setup panel. Files over the limit are refused unread.
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
