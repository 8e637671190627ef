// Formula fragments as token sequences: TeX or typed math ("QK^T/sqrt(d_k)") read into the
// symbols and operators it writes, in order, with equivalent spellings made one (^\top, ^T and
// ^{\mathsf T}; \sqrt{d_k} and sqrt(d_k); \frac{a}{b} and a/b; \mathrm{KL} and KL). Grouping
// (braces, parentheses, \left ... \right) and spacing are dropped: they change how a formula is
// drawn, not which symbols follow which. Pure functions, no DOM: the search worker and the tests
// (QuickJS) load the same file.
var EqFormula = (function () {
  "use strict";

  // Letter runs read as one symbol, typed or as a TeX command: function names. Any other run of
  // letters is a product of single-letter symbols (QK is Q times K).
  var NAMES = new Set([
    "sqrt", "log", "ln", "exp", "softmax", "sum", "prod", "max", "min", "argmax", "argmin", "arg",
    "sup", "inf", "lim", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "gelu", "swish", "silu",
    "det", "tr", "diag", "var", "cov", "clip", "sign", "mean", "std", "erf", "int", "rank",
    "topk", "attention", "dropout", "layernorm", "rmsnorm", "concat", "mlp", "ffn", "pr"
  ]);
  var GREEK = new Set([
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu", "nu", "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"
  ]);
  var GREEK_CHARS = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "ς": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi",
    "ω": "omega", "Γ": "gamma", "Δ": "delta", "Θ": "theta", "Λ": "lambda", "Ξ": "xi",
    "Π": "pi", "Σ": "sigma", "Φ": "phi", "Ψ": "psi", "Ω": "omega"
  };
  // Commands and typed symbols that mean one thing, written as that one token.
  var SAME = {
    le: "≤", leq: "≤", leqslant: "≤", ge: "≥", geq: "≥", geqslant: "≥", ne: "≠", neq: "≠",
    to: "→", rightarrow: "→", longrightarrow: "→", mapsto: "→", gets: "←", leftarrow: "←",
    mid: "|", vert: "|", lvert: "|", rvert: "|", Vert: "‖", lVert: "‖", rVert: "‖", parallel: "‖",
    approx: "≈", sim: "∼", propto: "∝", coloneqq: "=", equiv: "=", triangleq: "=", doteq: "=",
    times: "×", ast: "*", star: "*", "in": "∈", infty: "∞", nabla: "∇", partial: "∂", pm: "±",
    top: "⊤", intercal: "⊤", prime: "'", lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉",
    cdot: "", cdotp: "", ldots: "", cdots: "", dots: "", quad: "", qquad: "", displaystyle: "",
    textstyle: "", scriptstyle: "", limits: "", nolimits: "", left: "", right: "", big: "",
    Big: "", bigg: "", Bigg: "", bigl: "", bigr: "", Bigl: "", Bigr: "", biggl: "", biggr: "",
    langle: "", rangle: "", lbrace: "", rbrace: "", middle: "",
    "√": "sqrt", "∑": "sum", "∏": "prod", "≤": "≤", "≥": "≥", "≠": "≠", "→": "→", "‖": "‖",
    "∞": "∞", "∇": "∇", "∂": "∂", "⊤": "⊤", "ᵀ": "⊤", "·": "", "⋅": "", "×": "×", "−": "-",
    "∈": "∈", "≈": "≈", "∼": "∼", "∝": "∝", "±": "±", "′": "'", "∗": "*"
  };
  // Commands that only change how their argument looks: \mathrm{KL} is KL.
  var WRAPPERS = new Set([
    "operatorname", "mathrm", "mathbf", "mathit", "mathsf", "mathtt", "mathcal", "mathbb", "mathfrak",
    "mathscr", "text", "textrm", "textbf", "textit", "textsf", "texttt", "textnormal", "boldsymbol",
    "bm", "mbox", "hbox", "mathnormal", "pmb", "mathrel", "mathbin", "mathop", "underbrace", "overbrace",
    "smash", "phantom", "boxed"
  ]);
  var ACCENTS = {hat: "hat", widehat: "hat", bar: "bar", overline: "bar", tilde: "tilde",
                 widetilde: "tilde", dot: "dot", ddot: "ddot", vec: "vec", check: "check"};
  var FRACTIONS = new Set(["frac", "tfrac", "dfrac", "cfrac"]);
  // Two-character operators typed in plain text.
  var TYPED_PAIRS = {"<=": "≤", ">=": "≥", "!=": "≠", "->": "→", ":=": "=", "||": "‖"};
  var TRANSPOSED = new Set(["T", "\\top", "\\intercal", "⊤", "ᵀ"]);

  // The reader keeps a position in the text; each read returns the next piece of it.
  function Reader(text) {
    this.text = text;
    this.at = 0;
  }
  Reader.prototype.skipSpace = function () {
    while (this.at < this.text.length && /\s/.test(this.text[this.at])) this.at++;
  };
  // The next argument of a command or script: a braced group's content, a command (with its
  // own argument when it is a wrapper or an accent), or one character.
  Reader.prototype.argument = function () {
    this.skipSpace();
    var text = this.text, start = this.at;
    if (start >= text.length) return "";
    if (text[start] === "{") {
      var depth = 0;
      for (var i = start; i < text.length; i++) {
        if (text[i] === "\\") { i++; continue; }
        if (text[i] === "{") depth++;
        else if (text[i] === "}" && --depth === 0) { this.at = i + 1; return text.slice(start + 1, i); }
      }
      this.at = text.length;  // an unclosed group, as a fragment may have: the rest of it
      return text.slice(start + 1);
    }
    if (text[start] === "\\") {
      var name = /^\\([A-Za-z]+\*?|.)/.exec(text.slice(start));
      this.at = start + name[0].length;
      var bare = name[1].replace(/\*$/, "");
      return WRAPPERS.has(bare) || ACCENTS[bare] ? name[0] + "{" + this.argument() + "}" : name[0];
    }
    var ch = String.fromCodePoint(text.codePointAt(start));
    this.at = start + ch.length;
    return ch;
  };

  function pushRun(out, run) {
    var lower = run.toLowerCase();
    if (NAMES.has(lower)) out.push(lower);
    else if (GREEK.has(lower)) out.push(lower);
    else if (lower.slice(0, 3) === "var" && GREEK.has(lower.slice(3))) out.push(lower.slice(3));
    else for (var i = 0; i < lower.length; i++) out.push(lower[i]);
  }

  // A script's argument stripped of grouping and font: "T", "\top" or "\mathsf T" alike.
  function bareScript(argument) {
    var inner = argument.replace(/\s+/g, "");
    for (var i = 0; i < 3; i++) {
      inner = inner.replace(/^\{(.*)\}$/, "$1")
        .replace(/^\\(?:operatorname|math[a-z]+|text[a-z]*|boldsymbol|bm)\{?(.*?)\}?$/, "$1");
    }
    return inner;
  }

  function read(text, out) {
    var reader = new Reader(text);
    while (reader.at < text.length) {
      var rest = text.slice(reader.at);
      var ch = text[reader.at];
      var match;
      if (/\s/.test(ch) || ch === "{" || ch === "}" || ch === "(" || ch === ")" || ch === "[" ||
          ch === "]" || ch === "&" || ch === "~" || ch === "." || ch === "$") {
        reader.at++;
      } else if ((match = /^\\([A-Za-z]+)\*?/.exec(rest))) {
        reader.at += match[0].length;
        command(match[1], reader, out);
      } else if (ch === "\\") {  // \, \; \! \  \{ \} \\ are spacing or grouping; \| is a norm
        if (text[reader.at + 1] === "|") out.push("‖");
        reader.at += 2;
      } else if ((match = /^[A-Za-z]+/.exec(rest))) {
        reader.at += match[0].length;
        pushRun(out, match[0]);
      } else if ((match = /^[0-9]+(?:\.[0-9]+)?/.exec(rest))) {
        reader.at += match[0].length;
        out.push(match[0]);
      } else if (ch === "^" || ch === "_") {
        reader.at++;
        var argument = reader.argument();
        out.push(ch);
        if (ch === "^" && TRANSPOSED.has(bareScript(argument))) out.push("⊤");
        else if (bareScript(argument) === "*") out.push("*");
        else read(argument, out);
      } else if (TYPED_PAIRS[rest.slice(0, 2)]) {
        out.push(TYPED_PAIRS[rest.slice(0, 2)]);
        reader.at += 2;
      } else if (ch === "*") {  // typed multiplication, like \cdot: written as nothing
        reader.at++;
      } else {
        var symbol = String.fromCodePoint(text.codePointAt(reader.at));
        reader.at += symbol.length;
        if (symbol === "ᵀ") { out.push("^", "⊤"); continue; }
        if (GREEK_CHARS[symbol]) out.push(GREEK_CHARS[symbol]);
        else if (SAME[symbol] !== undefined) { if (SAME[symbol]) out.push(SAME[symbol]); }
        else out.push(symbol.toLowerCase());
      }
    }
    return out;
  }

  function command(name, reader, out) {
    if (FRACTIONS.has(name)) {
      var numerator = reader.argument(), denominator = reader.argument();
      read(numerator, out);
      out.push("/");
      read(denominator, out);
    } else if (name === "sqrt") {
      reader.skipSpace();
      if (reader.text[reader.at] === "[") {  // the root's degree: \sqrt[3]{x}
        var close = reader.text.indexOf("]", reader.at);
        reader.at = close < 0 ? reader.text.length : close + 1;
      }
      out.push("sqrt");
      read(reader.argument(), out);
    } else if (WRAPPERS.has(name)) {
      read(reader.argument(), out);
    } else if (name === "begin" || name === "end") {  // the environment's name is not a symbol
      reader.argument();
    } else if (ACCENTS[name]) {
      out.push(ACCENTS[name]);
      read(reader.argument(), out);
    } else if (SAME[name] !== undefined) {
      if (SAME[name]) out.push(SAME[name]);
      if (name === "left" || name === "right" || /^[bB]ig/.test(name) || name === "middle") {
        reader.skipSpace();  // the delimiter it sizes: a bar stays a bar, a parenthesis goes
        var delimiter = reader.text[reader.at];
        if (delimiter === "." || delimiter === "(" || delimiter === ")" || delimiter === "[" || delimiter === "]") reader.at++;
      }
    } else {
      pushRun(out, name);
    }
  }

  // Accents typed as combining marks (ᾱ) as the TeX accent they stand for; other marks dropped.
  var MARKS = {"\u0302": "\\hat ", "\u0303": "\\tilde ", "\u0304": "\\bar ", "\u0305": "\\bar "};

  // The token sequence of a formula (TeX or typed), lower-case; \arg\max is argmax.
  function tokens(text) {
    var spelled = String(text).normalize("NFD")
      .replace(/(\S)([\u0302-\u0305])/g, function (m, base, mark) { return MARKS[mark] + base; })
      .replace(/[\u0300-\u036f]/g, "").normalize("NFC");
    var raw = read(spelled, []);
    var out = [];
    for (var i = 0; i < raw.length; i++) {
      if (raw[i] === "arg" && (raw[i + 1] === "max" || raw[i + 1] === "min")) out.push("arg" + raw[++i]);
      else out.push(raw[i]);
    }
    return out;
  }

  // Length of the longest run of `query` found, in order and unbroken, in `formula`.
  function longestRun(query, formula) {
    var best = 0, previous = new Array(formula.length + 1).fill(0);
    for (var i = 1; i <= query.length; i++) {
      var current = new Array(formula.length + 1).fill(0);
      for (var j = 1; j <= formula.length; j++) {
        if (query[i - 1] === formula[j - 1]) {
          current[j] = previous[j - 1] + 1;
          if (current[j] > best) best = current[j];
        }
      }
      previous = current;
    }
    return best;
  }

  // Whether a query is written as math rather than as words: a TeX command, a script, an
  // operator between symbols, a function applied to an argument, or a math character.
  // A Greek letter alone does not make math of a query (ε-greedy is a name). A code identifier is
  // not math either: a name written with underscores, each part two characters or more
  // (doc_stride, kv_lora_rank), or with three parts or more of which two are words
  // (top_k_accuracy_score); one ending in an underscore, as torch's in-place functions do
  // (kaiming_normal_); a dotted path (F.layer_norm, multivariate_normal.logpdf). A one-letter part
  // of a two-part name (d_k, alpha_t) is a subscript.
  var MATHLIKE = /\\[A-Za-z]|[_^=/<>|]|[A-Za-z0-9]\s*\(|[\u2200-\u22ff√∑∏ᵀ‖]/;
  var IDENTIFIER = /^[A-Za-z][A-Za-z0-9]+(?:_[A-Za-z0-9]{2,})+$/;
  var NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
  function isIdentifier(text) {
    var parts = text.split(".");
    if (!parts.every(function (part) { return NAME.test(part); })) return false;
    if (parts.length > 1 || IDENTIFIER.test(text) || /[A-Za-z0-9]{2}_$/.test(text)) return true;
    var pieces = text.split("_");
    return pieces.length >= 3 && pieces.filter(function (p) { return p.length >= 3; }).length >= 2;
  }
  function isFormula(query) {
    var text = String(query).trim();
    return MATHLIKE.test(text) && !isIdentifier(text);
  }

  return {tokens: tokens, longestRun: longestRun, isFormula: isFormula};
})();
