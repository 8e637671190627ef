// Formulas arrive as build-time SVG. This script (1) copies their TeX when a selection that
// contains them is copied, and (2) shrinks a cheatsheet formula wider than its column, on
// screen and before printing.
(function () {
  document.addEventListener("copy", function (event) {
    var selection = window.getSelection();
    if (!selection || selection.rangeCount === 0) return;
    var fragment = selection.getRangeAt(0).cloneContents();
    var formulas = fragment.querySelectorAll(".eqc-math");
    if (formulas.length === 0) return;
    formulas.forEach(function (math) {
      var display = math.closest("div.arithmatex") !== null;
      var tex = math.getAttribute("data-tex");
      math.replaceWith(document.createTextNode(display ? "$$" + tex + "$$" : "$" + tex + "$"));
    });
    fragment.querySelectorAll(".eqc-tex").forEach(function (node) { node.remove(); });
    var holder = document.createElement("div");
    holder.appendChild(fragment);
    event.clipboardData.setData("text/plain", holder.textContent);
    event.preventDefault();
  });

  function fit() {
    // Reset, measure, then write: two layouts for the whole page instead of one per formula.
    var formulas = Array.prototype.slice.call(document.querySelectorAll(".eqc-sheet-formula .eqc-math"));
    formulas.forEach(function (math) { math.style.zoom = ""; });
    var sizes = formulas.map(function (math) {
      return [math.closest(".eqc-sheet-formula").getBoundingClientRect().width,
              math.getBoundingClientRect().width];
    });
    formulas.forEach(function (math, i) {
      var room = sizes[i][0], width = sizes[i][1];
      if (room > 0 && width > room) {
        math.style.zoom = String(Math.max(0.4, Math.floor((room / width) * 100) / 100));
      }
    });
  }
  window.eqcFitFormulas = fit;
  if (!document.querySelector(".eqc-cheatsheet")) return;
  window.addEventListener("beforeprint", fit);
  window.addEventListener("afterprint", fit);
  window.addEventListener("resize", fit);
  window.matchMedia("print").addEventListener("change", fit);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fit);
  } else {
    fit();
  }
})();
