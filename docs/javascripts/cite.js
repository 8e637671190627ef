// A citation says when its author read the card: the build writes its own date as the date
// accessed (what a reader without scripts sees); this puts in the reader's day instead, in the
// BibTeX urldate and the plain reference's "(accessed ...)", before anything is copied.
(function () {
  function today() {
    var now = new Date();
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return now.getFullYear() + "-" + pad(now.getMonth() + 1) + "-" + pad(now.getDate());
  }
  function stamp(box) {
    var built = box.getAttribute("data-accessed");
    var day = today();
    if (!built || built === day) return;
    box.querySelectorAll("code").forEach(function (code) {
      var before = "";  // the code's text up to the node being read: highlighting splits lines
      var walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (var node = walker.nextNode(); node; node = walker.nextNode()) {
        var text = node.nodeValue, at = text.indexOf(built);
        while (at >= 0) {
          if (/(urldate = \{|accessed )$/.test(before + text.slice(0, at))) {
            text = text.slice(0, at) + day + text.slice(at + built.length);
          }
          at = text.indexOf(built, at + 1);
        }
        node.nodeValue = text;
        before += text;
      }
    });
    box.setAttribute("data-accessed", day);
  }
  function stampAll() { document.querySelectorAll(".eqc-cite[data-accessed]").forEach(stamp); }
  // The theme's document$ fires for every page it shows (each one, under instant navigation).
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(stampAll);
  else document.addEventListener("DOMContentLoaded", stampAll);
})();
