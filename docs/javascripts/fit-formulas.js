// Shrink any cheatsheet formula that is wider than its column, on screen and before printing,
// so no formula overflows or is clipped. Runs after MathJax has typeset the page.
(function () {
  function fit() {
    document.querySelectorAll(".eqc-sheet-formula mjx-container").forEach(function (math) {
      math.style.zoom = "";
      var room = math.parentElement.getBoundingClientRect().width;
      var width = math.getBoundingClientRect().width;
      if (room > 0 && width > room) {
        math.style.zoom = String(Math.max(0.4, Math.floor((room / width) * 100) / 100));
      }
    });
  }
  window.eqcFitFormulas = fit;
  window.addEventListener("beforeprint", fit);
  window.addEventListener("afterprint", fit);
  window.addEventListener("resize", fit);
  window.matchMedia("print").addEventListener("change", fit);
  var ready = function () {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fit);
    } else {
      setTimeout(ready, 50);
    }
  };
  if (document.querySelector(".eqc-cheatsheet")) ready();
})();
