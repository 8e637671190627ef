/* Card calculators: evaluate the card's checked function as the reader types.
 *
 * The build writes each calculator as <form class="eqc-calc" data-calculator="{...}">: the body of
 * the JavaScript function the build checked against the card's snippet (eqcards/calculators/), the
 * inputs with their defaults, the outputs with their units, the presets and an optional chart.
 * The inputs live in the URL (?preset=llama-2-70b&T=4096): the preset, then each input that differs
 * from the defaults with the preset applied, so a copied address reproduces the result. Each output
 * carries its raw value in data-value for tests and tools.
 */
(function () {
  "use strict";

  var SUPERSCRIPT = { "-": "\u207b", "0": "\u2070", "1": "\u00b9", "2": "\u00b2", "3": "\u00b3", "4": "\u2074",
                      "5": "\u2075", "6": "\u2076", "7": "\u2077", "8": "\u2078", "9": "\u2079" };
  var BINARY = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
  var DECIMAL = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
  var WORDS = [[1e12, "trillion"], [1e9, "billion"], [1e6, "million"]];
  var TIMES = [[3600, "h"], [60, "min"], [1, "s"], [1e-3, "ms"], [1e-6, "\u00b5s"], [1e-9, "ns"]];

  function scientific(x) {
    var parts = x.toExponential(2).split("e");
    var exponent = String(Number(parts[1]));
    if (exponent === "0") return parts[0];
    return parts[0] + " \u00d7 10" + exponent.split("").map(function (c) { return SUPERSCRIPT[c]; }).join("");
  }

  function scaled(x, units, base) {
    var i = 0;
    while (i < units.length - 1 && Math.abs(x) >= Math.pow(base, i + 1)) i++;
    return Number((x / Math.pow(base, i)).toPrecision(i === 0 ? 15 : 4)) + " " + units[i];
  }

  function duration(seconds) {
    /* The largest unit the time reaches (ns below a microsecond, h from an hour on). */
    var i = 0;
    while (i < TIMES.length - 1 && Math.abs(seconds) < TIMES[i][0]) i++;
    if (seconds === 0) i = 2;
    return Number((seconds / TIMES[i][0]).toPrecision(4)) + " " + TIMES[i][1];
  }

  function grouped(x) {
    /* Thousands grouped by hand, not toLocaleString: the build formats the defaults in QuickJS,
     * which has no locale data, and both must write the same text. */
    var text = String(Math.round(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    for (var i = 0; i < WORDS.length; i++) {
      if (Math.abs(x) >= WORDS[i][0]) return text + " (" + Number((x / WORDS[i][0]).toPrecision(3)) + " " + WORDS[i][1] + ")";
    }
    return text;
  }

  function format(x, unit) {
    if (typeof x !== "number" || !isFinite(x)) return "\u2014";
    switch (unit) {
      case "bytes": return scaled(x, BINARY, 1024) + (Math.abs(x) >= 1000 ? " (" + scaled(x, DECIMAL, 1000) + ")" : "");
      case "bytes/s": return scaled(x, DECIMAL, 1000) + "/s";
      case "FLOPs": return scientific(x) + " FLOPs";
      case "FLOP/s": return scientific(x) + " FLOP/s";
      case "FLOP/byte": return Number(x.toPrecision(4)) + " FLOP/byte";
      case "fraction": return Number(x.toPrecision(4)) + " (" + Number((100 * x).toPrecision(3)) + " %)";
      case "nats": return Number(x.toPrecision(5)) + " nats";
      case "bits": return Number(x.toPrecision(4)) + " bits";
      case "seconds": return duration(x);
      case "tokens/s": return Number(x.toPrecision(4)) + " tokens/s";
      case "parameters": case "tokens": case "count":
        var text = Number.isInteger(x) && Math.abs(x) < 1e15 ? grouped(x)
          : Math.abs(x) >= 1e15 || (Math.abs(x) < 1e-3 && x !== 0) ? scientific(x) : grouped(x);
        return unit === "count" ? text : text + " " + unit;
      case "ratio": default: return String(Number(x.toPrecision(6)));
    }
  }

  function axisLabel(x, unit) {
    /* A chart's tick: the value as its output shows it, without the parenthetical; a count, or a
     * number with no unit the page formats, in scientific notation once it has seven digits. */
    if (unit === "" || unit === "count" || unit === "parameters" || unit === "tokens") {
      var text = Math.abs(x) >= 1e6 ? scientific(x) : String(Number(x.toPrecision(6)));
      return unit === "" || unit === "count" ? text : text + " " + unit;
    }
    return format(x, unit).replace(/ \(.*\)$/, "");
  }

  function escape(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");
  }

  function guarded(fn) {
    /* The card's function, giving null where it throws (an input outside what it can take). */
    return function (inputs) { try { return fn(inputs); } catch (e) { return null; } };
  }

  function Calculator(form) {
    this.form = form;
    this.config = JSON.parse(form.getAttribute("data-calculator"));
    /* The very function the build checked in QuickJS (eqcards/calculators/jscheck.py). */
    this.evaluate = guarded(new Function("inputs", this.config.body));
    this.fields = {};
    this.defaults = {};
    var self = this;
    this.config.inputs.forEach(function (spec) {
      self.fields[spec.name] = form.querySelector('input[name="' + spec.name + '"]');
      self.defaults[spec.name] = spec.default;
    });
    this.select = form.querySelector("select[name=preset]");
    this.link = form.querySelector("#calc-link");
    this.chart = form.querySelector("#calc-chart");
    this.source = form.querySelector("#calc-source");
  }

  Calculator.prototype.base = function () {
    /* The defaults with the chosen preset's values on top. */
    var base = Object.assign({}, this.defaults);
    var preset = this.select && this.config.presets[this.select.value];
    if (preset) Object.assign(base, preset.values);
    return base;
  };

  Calculator.prototype.read = function () {
    var values = {}, ok = true, self = this;
    this.config.inputs.forEach(function (spec) {
      var field = self.fields[spec.name];
      var raw = field.value.trim();
      var x = raw === "" ? NaN : Number(raw);
      var valid = isFinite(x) && x >= spec.min && x <= spec.max;
      if (valid) field.removeAttribute("aria-invalid"); else field.setAttribute("aria-invalid", "true");
      ok = ok && valid;
      values[spec.name] = x;
    });
    return ok ? values : null;
  };

  function shown(config, result) {
    /* Each output's raw value ("" when it is not a finite number) and its text. */
    return config.outputs.map(function (spec) {
      var x = result ? result[spec.name] : NaN;
      var finite = typeof x === "number" && isFinite(x);
      return { name: spec.name, value: finite ? String(x) : "",
               text: finite ? format(x, spec.unit) : "\u2014 (an input is empty or outside its range)" };
    });
  }

  Calculator.prototype.update = function () {
    var values = this.read();
    var result = values && this.evaluate(values);
    var form = this.form;
    shown(this.config, result).forEach(function (item) {
      var out = form.querySelector("#calc-out-" + item.name);
      out.setAttribute("data-value", item.value);
      out.textContent = item.text;
    });
    this.remember();
    if (this.source) this.showSource();
    if (this.chart && values) this.draw(values);
  };

  Calculator.prototype.query = function () {
    var params = new URLSearchParams(), base = this.base(), self = this;
    if (this.select && this.select.value) params.set("preset", this.select.value);
    this.config.inputs.forEach(function (spec) {
      var raw = self.fields[spec.name].value.trim();
      if (raw !== "" && Number(raw) !== base[spec.name]) params.set(spec.name, raw);
    });
    return params.toString();
  };

  Calculator.prototype.remember = function () {
    var url = new URL(location.href);
    url.search = this.query();
    /* The address bar holds the state too (no new history entry per keystroke). */
    history.replaceState(history.state, "", url.href);
    url.hash = "calculator";
    if (this.link) this.link.setAttribute("href", url.href);
  };

  Calculator.prototype.showSource = function () {
    var id = this.select.value;
    var item = id && document.getElementById("calc-source-" + id);
    this.source.textContent = "";
    if (!item) return;
    var anchor = item.querySelector("a");
    this.source.append("Source: ");
    var copy = anchor.cloneNode(true);
    this.source.append(copy, item.lastChild.textContent);
  };

  Calculator.prototype.fill = function (values) {
    var self = this;
    Object.keys(values).forEach(function (name) {
      if (self.fields[name]) self.fields[name].value = String(values[name]);
    });
  };

  Calculator.prototype.start = function () {
    var self = this, params = new URLSearchParams(location.search);
    var preset = params.get("preset");
    if (this.select && preset && this.config.presets[preset]) {
      this.select.value = preset;
      this.fill(this.config.presets[preset].values);
    }
    this.config.inputs.forEach(function (spec) {
      var raw = params.get(spec.name);
      if (raw !== null && raw.trim() !== "" && isFinite(Number(raw))) self.fields[spec.name].value = raw.trim();
    });
    this.form.addEventListener("input", function (event) {
      if (event.target === self.select) return;
      self.update();
    });
    if (this.select) {
      this.select.addEventListener("change", function () {
        if (self.config.presets[self.select.value]) self.fill(self.config.presets[self.select.value].values);
        self.update();
      });
    }
    this.form.addEventListener("submit", function (event) { event.preventDefault(); });
    /* The build wrote the defaults' results and chart into the page (render, below), so a plain
     * visit computes nothing before its first paint: only a preset or values from the address,
     * or fields the browser restored, need the page brought up to date. */
    if (this.edited()) this.update();
  };

  Calculator.prototype.edited = function () {
    var self = this;
    return Boolean(this.select && this.select.value) || this.config.inputs.some(function (spec) {
      var raw = self.fields[spec.name].value.trim();
      return raw === "" || Number(raw) !== spec.default;
    });
  };

  function chartSvg(config, evaluate, values) {
    /* The chosen output against one input over the chart's range, the others as entered: the SVG's
     * markup, or "" when fewer than two points are finite. */
    var spec = config.chart, n = 64, points = [];
    var input = config.inputs.filter(function (i) { return i.name === spec.x; })[0];
    // An input that moves in steps (a count, a step number) is drawn at values it can take:
    // at fractional ones a ceiling or a floor draws a staircase no reader can enter.
    var grain = input && input.step ? input.step : 0;
    for (var k = 0; k <= n; k++) {
      var t = k / n;
      var x = spec.log ? spec.min * Math.pow(spec.max / spec.min, t) : spec.min + (spec.max - spec.min) * t;
      if (grain) {
        x = Math.min(Math.max(Math.round(x / grain) * grain, spec.min), spec.max);
        if (points.length && points[points.length - 1][0] === x) continue;
      }
      var point = Object.assign({}, values);
      point[spec.x] = x;
      var y = (evaluate(point) || {})[spec.output];
      if (typeof y === "number" && isFinite(y)) points.push([x, y]);
    }
    if (points.length < 2 || !input) return "";
    var ys = points.map(function (p) { return p[1]; });
    var low = Math.min.apply(null, ys), high = Math.max.apply(null, ys);
    var logY = spec.log && low > 0 && high / low > 100;
    var W = 320, H = 170, L = 64, R = 10, T = 10, B = 34;
    function sx(x) {
      var t = spec.log ? Math.log(x / spec.min) / Math.log(spec.max / spec.min) : (x - spec.min) / (spec.max - spec.min);
      return L + t * (W - L - R);
    }
    function sy(y) {
      var t = high === low ? 0.5 : logY ? Math.log(y / low) / Math.log(high / low) : (y - low) / (high - low);
      return H - B - t * (H - T - B);
    }
    var unit = config.outputs.filter(function (o) { return o.name === spec.output; })[0].unit;
    function short(y) { return axisLabel(y, unit); }
    /* The horizontal axis's title names its unit: a count's ticks need not repeat it ("1 tokens"). */
    var xunit = spec.xunit === "tokens" || spec.xunit === "parameters" ? "count" : spec.xunit;
    function tick(x) { return axisLabel(x, xunit); }
    var path = points.map(function (p, i) { return (i ? "L" : "M") + sx(p[0]).toFixed(1) + " " + sy(p[1]).toFixed(1); }).join(" ");
    var current = values[spec.x], mark = "";
    var here = evaluate(values);
    if (here && current >= spec.min && current <= spec.max && isFinite(here[spec.output])) {
      mark = '<circle class="eqc-calc-now" cx="' + sx(current).toFixed(1) + '" cy="' + sy(here[spec.output]).toFixed(1) + '" r="4"/>';
    }
    var svg = '<svg viewBox="0 0 ' + W + " " + H + '" role="img" aria-label="' + escape(spec.ylabel + " against " + spec.xlabel +
      ", from " + short(ys[0]) + " to " + short(ys[ys.length - 1])) + '">' +
      '<line class="eqc-calc-axis" x1="' + L + '" y1="' + (H - B) + '" x2="' + (W - R) + '" y2="' + (H - B) + '"/>' +
      '<line class="eqc-calc-axis" x1="' + L + '" y1="' + T + '" x2="' + L + '" y2="' + (H - B) + '"/>' +
      '<path class="eqc-calc-line" d="' + path + '"/>' + mark +
      '<text x="' + (L - 4) + '" y="' + (T + 8) + '" text-anchor="end">' + short(high) + "</text>" +
      '<text x="' + (L - 4) + '" y="' + (H - B) + '" text-anchor="end">' + short(low) + "</text>" +
      '<text x="' + L + '" y="' + (H - B + 14) + '">' + tick(spec.min) + "</text>" +
      '<text x="' + (W - R) + '" y="' + (H - B + 14) + '" text-anchor="end">' + tick(spec.max) + "</text>" +
      '<text x="' + ((L + W - R) / 2) + '" y="' + (H - 4) + '" text-anchor="middle">' + escape(spec.xlabel) + (spec.log ? " (log scale)" : "") + "</text>" +
      "</svg>";
    return svg;
  }

  Calculator.prototype.draw = function (values) {
    var svg = chartSvg(this.config, this.evaluate, values);
    if (!svg) return;
    var old = this.chart.querySelector(":scope > svg");  /* not the caption's formulas */
    var holder = document.createElement("div");
    holder.innerHTML = svg;
    if (old) old.replaceWith(holder.firstChild); else this.chart.insertBefore(holder.firstChild, this.chart.firstChild);
  };

  function start() {
    document.querySelectorAll("form.eqc-calc[data-calculator]").forEach(function (form) {
      new Calculator(form).start();
    });
  }

  function render(config) {
    /* What the page shows at its defaults, for the build to write into the HTML
     * (eqcards/pages/calculator_html.py runs this in QuickJS): each output and the chart's SVG. */
    var evaluate = guarded(new Function("inputs", config.body)), values = {};
    config.inputs.forEach(function (spec) { values[spec.name] = spec.default; });
    return { outputs: shown(config, evaluate(values)),
             chart: config.chart ? chartSvg(config, evaluate, values) : "" };
  }

  /* The page's own formatting and first render, for the build, tests and other tools
   * (tests/calculators/test_format.py). */
  window.eqcCalculator = { format: format, axisLabel: axisLabel, render: render };

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
