// A cheatsheet built without a public address (no site_url) prints, in the margin of every page,
// the address it was read at instead, so that a printout still says where it came from.
(function () {
  if (!document.querySelector(".eqc-cheatsheet[data-print-address]")) return;
  // A quoted CSS string: backslash and quote escaped, "<" kept from closing the style element.
  var quoted = '"' + window.location.href.replace(/[\\"]/g, "\\$&").replace(/</g, "\\3C ")
    .replace(/[\n\r\f]/g, " ") + '"';
  var style = document.createElement("style");
  style.textContent = "@page { @bottom-left { content: " + quoted + "; } }";
  document.head.appendChild(style);
})();
