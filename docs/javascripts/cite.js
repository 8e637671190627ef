// A citation says when its author read the card: the build writes its own date as the date
// accessed (what a reader without scripts sees); this puts in the reader's day instead, in the
// BibTeX urldate and the plain reference's "(accessed ...)", before anything is copied.
//
// A site built without its public address (no SITE_URL) writes each card's link from the site's
// root (data-link, e.g. "cards/entropy/") and says so; this puts in the address the page was
// loaded from instead (data-root leads from the page to the site's root) and drops the note.
(function () {
  function today() {
    var now = new Date();
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return now.getFullYear() + "-" + pad(now.getMonth() + 1) + "-" + pad(now.getDate());
  }
  // Replace `from` by `to` in the box's code, where `before` (the code's text up to it) says it
  // is the value in question. Highlighting splits lines into spans, never inside one value.
  function replaceIn(box, from, to, before) {
    box.querySelectorAll("code").forEach(function (code) {
      var seen = "";
      var walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (var node = walker.nextNode(); node; node = walker.nextNode()) {
        var text = node.nodeValue, at = text.indexOf(from);
        while (at >= 0) {
          if (before.test(seen + text.slice(0, at))) {
            text = text.slice(0, at) + to + text.slice(at + from.length);
            at = text.indexOf(from, at + to.length);
          } else {
            at = text.indexOf(from, at + 1);
          }
        }
        node.nodeValue = text;
        seen += text;
      }
    });
  }
  function stamp(box) {
    var built = box.getAttribute("data-accessed");
    var day = today();
    if (built && built !== day) {
      replaceIn(box, built, day, /(urldate = \{|accessed )$/);
      box.setAttribute("data-accessed", day);
    }
    var link = box.getAttribute("data-link");
    if (link && /^https?:$/.test(location.protocol)) {
      var here = new URL((box.getAttribute("data-root") || "") + link, location.href).href;
      // The link stands alone: not part of a longer path or address.
      replaceIn(box, link, here, /(^|[\s{])$/);
      box.removeAttribute("data-link");
      box.querySelectorAll(".eqc-cite-relative").forEach(function (note) { note.hidden = true; });
    }
  }
  function stampAll() { document.querySelectorAll(".eqc-cite[data-accessed]").forEach(stamp); }
  // The theme's document$ fires for every page it shows (each one, under instant navigation).
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(stampAll);
  else document.addEventListener("DOMContentLoaded", stampAll);
})();
