// Formulas arrive as build-time SVG. This script copies their TeX when a selection that contains
// them is copied. (Sizes are CSS's alone: on screen a formula keeps its size and scrolls in its
// own block; in print a cheatsheet formula wider than its column is scaled to it.)
(function () {
  document.addEventListener("copy", function (event) {
    var selection = window.getSelection();
    if (!selection || selection.rangeCount === 0) return;
    var fragment = selection.getRangeAt(0).cloneContents();
    // A card's main formula is drawn twice (for wide and narrow screens, one shown): copy it once.
    fragment.querySelectorAll(".eqc-fit-wide + .eqc-fit-narrow").forEach(function (n) { n.remove(); });
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
})();
