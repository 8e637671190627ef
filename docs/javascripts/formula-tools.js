// The main formula's tools on a card (eqcards/pages/render.py, formula_tools): "Copy TeX" puts
// the card's TeX on the clipboard (only a script can, so the button is shown by this script),
// "Permalink" also copies the formula's address, and "Cite" opens the citation box it leads to.
// Each says what it did in a status line that screen readers announce. No network is used.
(function () {
  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    // Pages opened from a file or a plain-http address: the older command still copies.
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.cssText = "position:fixed;top:0;left:0;opacity:0";
    document.body.appendChild(area);
    area.select();
    var done = document.execCommand("copy");
    area.remove();
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  function say(tools, message) {
    var status = tools.querySelector(".eqc-tool-status");
    if (!status) return;
    status.textContent = message;
    clearTimeout(status.eqcTimer);
    status.eqcTimer = setTimeout(function () { status.textContent = ""; }, 4000);
  }
  function setUp() {
    document.querySelectorAll(".eqc-formula-tools").forEach(function (tools) {
      if (tools.eqcReady) return;
      tools.eqcReady = true;
      var math = tools.parentElement.querySelector(".eqc-math[data-tex]");
      var button = tools.querySelector("[data-eqc-copy]");
      if (button && math) {
        button.hidden = false;
        button.addEventListener("click", function () {
          copy(math.getAttribute("data-tex")).then(
            function () { say(tools, "TeX copied"); },
            function () { say(tools, "Could not copy: select the TeX in the citation box instead"); });
        });
      }
      var permalink = tools.querySelector("[data-eqc-permalink]");
      if (permalink) {
        permalink.addEventListener("click", function () {
          copy(permalink.href).then(function () { say(tools, "Link to the formula copied"); },
                                    function () {});
        });
      }
      var cite = tools.querySelector("[data-eqc-cite]");
      if (cite) {
        cite.addEventListener("click", function () {
          var box = document.querySelector(".eqc-cite details");
          if (box) box.open = true;
        });
      }
    });
  }
  // The theme's document$ fires for every page it shows (each one, under instant navigation).
  if (window.document$ && window.document$.subscribe) window.document$.subscribe(setUp);
  else document.addEventListener("DOMContentLoaded", setUp);
})();
