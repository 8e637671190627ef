// MathJax 3 configuration: typeset only what arithmatex marked, fail loudly on unknown macros.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
    // Without noundefined an unknown macro becomes a visible error instead of red text.
    packages: { "[-]": ["noundefined"] },
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};
