// The console's only script: it refreshes the live part of the page
// ([data-live]) from the server every POLL_MS, while nobody types in it.
// The server renders that part (?fragment=1), every value escaped.
(function () {
  "use strict";
  var POLL_MS = 1500;
  var live = document.querySelector("[data-live]");
  if (!live) { return; }
  function typing() {
    var a = document.activeElement;
    return a && live.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName);
  }
  function tick() {
    if (typing() || document.hidden) { setTimeout(tick, POLL_MS); return; }
    var u = new URL(window.location.href);
    u.searchParams.set("fragment", "1");
    fetch(u, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (r.status === 401) { window.location.reload(); return null; }
        return r.ok ? r.text() : null;
      })
      .then(function (html) {
        if (html !== null && html !== live.innerHTML && !typing()) { live.innerHTML = html; }
      })
      .catch(function () {})
      .then(function () { setTimeout(tick, POLL_MS); });
  }
  setTimeout(tick, POLL_MS);
})();
