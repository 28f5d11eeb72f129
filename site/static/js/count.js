// Studyloop web app: a live character count under a text box with a
// limit (textarea[data-max-chars]), counted as the server counts: Unicode
// characters, a line break as one whatever the browser sends. Only an
// enhancement: the server checks the limit either way, and the page works
// without script. Served from our own origin, so the strict
// Content-Security-Policy allows it.
(function () {
  "use strict";
  var lang = document.documentElement.lang || "en";
  Array.prototype.forEach.call(document.querySelectorAll("textarea[data-max-chars]"), function (field) {
    var max = Number(field.getAttribute("data-max-chars"));
    var out = document.getElementById(field.getAttribute("data-count"));
    if (!out || !(max > 0)) {
      return;
    }
    var format = out.getAttribute("data-format") || "{n} of {max} characters";
    var pending = false;
    function show() {
      pending = false;
      var n = 0;
      // Code points, not UTF-16 units; CRLF and CR count as one.
      for (var ch of field.value.replace(/\r\n?/g, "\n")) {
        n++;
      }
      out.textContent = format.replace("{n}", n.toLocaleString(lang)).replace("{max}", max.toLocaleString(lang));
      out.classList.toggle("over", n > max);
    }
    field.addEventListener("input", function () {
      if (!pending) {
        pending = true;
        window.requestAnimationFrame(show);
      }
    });
    out.hidden = false;
    show();
  });
})();
