// Formula search: a tokenizer that understands LaTeX and Greek, and a field-weighted ranking
// with prefix and typo matching; formula queries ranked by structure (search-formula.js), the
// query syntax read by search-query.js, both loaded before this file. Pure functions, no DOM:
// the search worker uses it in the browser and the tests run it in QuickJS (tests/pages/test_search.py).
var EqSearch = (function () {
  "use strict";

  var GREEK_NAMES = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "ϵ": "epsilon",
    "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
    "ς": "sigma", "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi",
    "ω": "omega", "Γ": "gamma", "Δ": "delta", "Θ": "theta", "Λ": "lambda", "Ξ": "xi",
    "Π": "pi", "Σ": "sigma", "Φ": "phi", "Ψ": "psi", "Ω": "omega"
  };
  // Typed symbols become the LaTeX they stand for, so "p_θ" and "p_\theta" are one word.
  var TYPED = {"√": "\\sqrt ", "∑": "\\sum ", "∏": "\\prod ", "∇": "\\nabla ", "∞": "\\infty ",
               "⊤": "^t "};
  // Accents that change a symbol's meaning (ᾱ is \bar\alpha); any other mark is dropped (é is e).
  var ACCENTS = {"\u0302": "\\hat ", "\u0303": "\\tilde ", "\u0304": "\\bar ", "\u0305": "\\bar "};
  Object.keys(GREEK_NAMES).forEach(function (ch) { TYPED[ch] = "\\" + GREEK_NAMES[ch] + " "; });
  // Font and text wrappers say how a letter looks, not what it is: \mathrm{KL} is KL.
  var WRAPPERS = /\\(?:operatorname\*?|math(?:rm|bf|cal|bb|it|sf|tt|frak|scr)|text(?:rm|bf|it|sf|tt)?|boldsymbol|bm|mbox)\s*\{([^{}]*)\}/g;
  var TRANSPOSE = /\^\s*(?:\{\s*\\?(?:top|intercal|t|mathsf\{t\})\s*\}|\\(?:top|intercal)(?![a-z])|t(?![a-z]))/g;
  var TIGHT_SCRIPT = /([_^])\s*\{\s*([a-z0-9]+)\s*\}/g;   // d_{k} -> d_k
  var SCRIPT_COMMAND = /([_^])\s*\\([a-z]+)/g;              // w_\theta -> w_theta
  var COMMAND = /\\([a-z]+)/g;
  var SPLIT = /[^a-z0-9_^]+/;
  var STOP = new Set(["a", "an", "and", "the", "of", "in", "on", "for", "to", "is", "by", "with", "as",
                      "at", "or", "be", "it"]);

  // A code name ending in an underscore, torch's mark of an in-place function (orthogonal_,
  // xavier_normal_), is another name than the one without it; TeX's scripts (x_{t-1}, \beta_t) are
  // not names: a script opens a brace or a command, or follows a backslash or one letter.
  var IN_PLACE = /(?<![\w\\])([a-z][a-z0-9_]*[a-z0-9])_(?![\w{\\^])/gi;

  function normalize(text) {
    var out = String(text).replace(IN_PLACE, "$1_inplace ")
      .replace(/\u1d40/g, "^T ").normalize("NFKD")  // U+1D40 is a superscript T
      .replace(/(\S)([\u0302-\u0305])/g, function (m, base, mark) { return ACCENTS[mark] + base; })
      .replace(/[\u0300-\u036f]/g, "")
      .replace(/[^\x00-\x7f]/g, function (ch) { return TYPED[ch] !== undefined ? TYPED[ch] : ch; })
      .replace(/\s+([_^])/g, "$1");
    out = out.replace(WRAPPERS, " $1 ").toLowerCase();
    // Run twice: a wrapper may sit inside another (\mathrm{\mathbf{x}}).
    out = out.replace(WRAPPERS, " $1 ");
    out = out.replace(TRANSPOSE, "^t ").replace(SCRIPT_COMMAND, "$1$2")
      .replace(TIGHT_SCRIPT, "$1$2").replace(COMMAND, " $1");
    return out;
  }

  // Plural "s" only: enough for "divergences", safe for formula names like "relu" or "adam".
  function stem(word) {
    if (word.length < 4 || /[^a-z]/.test(word)) return word;
    if (/ies$/.test(word)) return word.slice(0, -3) + "y";
    if (/(?:ss|us|is)$/.test(word)) return word;
    if (/s$/.test(word)) return word.slice(0, -1);
    return word;
  }

  var COMPOUND = /[_^]/;

  // The words of a text in order, stop words dropped; a word is stemmed unless it is a symbol
  // with a sub- or superscript (d_k, qk^t), which is kept as written.
  function words(text) {
    var out = [];
    normalize(text).split(SPLIT).forEach(function (raw) {
      var word = raw.replace(/^[_^]+|[_^]+$/g, "");
      if (word && !STOP.has(word)) out.push(COMPOUND.test(word) ? word : stem(word));
    });
    return out;
  }

  // Other spellings of a symbol: d_k is also "dk", and "d" and "k".
  function symbolVariants(word) {
    return [word.replace(/[_^]/g, "")].concat(word.split(/[_^]+/).filter(Boolean));
  }

  // What the index stores: every word, and each symbol's other spellings as well, so "d_k",
  // "dk" and "d k" all find it.
  function tokenize(text) {
    var out = [];
    words(text).forEach(function (word) {
      out.push(word);
      if (COMPOUND.test(word)) out.push.apply(out, symbolVariants(word));
    });
    return out;
  }

  // The words of a query: each once, in the order typed.
  function queryWords(query) {
    return Array.from(new Set(words(query)));
  }

  // Optimal string alignment distance, stopping early once it exceeds `limit`.
  function editDistance(a, b, limit) {
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var prev2 = null, prev = [], cur;
    for (var j = 0; j <= b.length; j++) prev.push(j);
    for (var i = 1; i <= a.length; i++) {
      cur = [i];
      var best = i;
      for (var k = 1; k <= b.length; k++) {
        var cost = a[i - 1] === b[k - 1] ? 0 : 1;
        var v = Math.min(prev[k] + 1, cur[k - 1] + 1, prev[k - 1] + cost);
        if (prev2 && i > 1 && k > 1 && a[i - 1] === b[k - 2] && a[i - 2] === b[k - 1])
          v = Math.min(v, prev2[k - 2] + 1);
        cur.push(v);
        if (v < best) best = v;
      }
      if (best > limit) return limit + 1;
      prev2 = prev; prev = cur;
    }
    return prev[b.length];
  }

  function asList(value) {
    if (value === undefined || value === null) return [];
    return Array.isArray(value) ? value : [value];
  }

  // Documents in the order of their addresses (as JavaScript compares strings), so that a
  // document's number breaks ties between equal scores the way its address would; the site's
  // index files number them the same way (eqcards/pages/search_index.py).
  function byLocation(docs) {
    return docs.slice().sort(function (a, b) { return a.location < b.location ? -1 : a.location > b.location ? 1 : 0; });
  }

  // A name or symbol as the ranking compares it with the query: its words joined by spaces.
  function spell(text) { return queryWords(text).join(" "); }

  // Each spelled name (or symbol) under its first word: [[spelled, doc], ...] by word.
  function byFirstWord(map, spelled, n) {
    var first = spelled.split(" ")[0];
    if (!first) return;
    var list = map.get(first);
    if (!list) map.set(first, list = []);
    list.push([spelled, n]);
  }

  // The whole index in memory, from documents with every field (the tests build it so; the site
  // writes the same thing in pieces, search_index.py, and the worker loads the pieces a query needs).
  // Index shape, shared by both: vocabulary (sorted) with df (documents holding each word) and
  // idf; postings Map word -> flat [doc, weight, doc, weight, ...]; names and symbols Map first
  // word -> [[spelled, doc]]; per document its display record (docs), fields, formula token
  // sequences and part/topic (facets). Maps, not objects, so a word such as "constructor" is
  // just a word.
  function build(data) {
    var weights = (data.config && data.config.fields) || {};
    var index = emptyIndex(data.docs.length);
    byLocation(data.docs).forEach(function (doc, n) {
      var fields = doc.fields || {};
      // A name the same as the title is left out of the index (eqcards/pages/search.py, split_text).
      if (fields.name === undefined) fields = Object.assign({name: doc.title}, fields);
      postingsOfDocument(weights, fields).forEach(function (value, word) {
        var list = index.postings.get(word);
        if (!list) index.postings.set(word, list = []);
        list.push(n, value);
      });
      [fields.name].concat(asList(fields.alias)).filter(Boolean).forEach(function (name) {
        byFirstWord(index.names, spell(name), n);
      });
      asList(fields.symbol).forEach(function (symbol) { byFirstWord(index.symbols, spell(symbol), n); });
      index.docs[n] = {location: doc.location, title: doc.title, teaser: doc.teaser || "", preview: doc.preview};
      index.fields[n] = fields;
      index.formulas[n] = asList(fields.tex).map(EqFormula.tokens);
      formulaGrams(index.formulas[n]).forEach(function (gram) {
        var list = index.grams.get(gram);
        if (!list) index.grams.set(gram, list = []);
        list.push(n);
      });
      index.facets[n] = {part: doc.part, topic: doc.topic};
    });
    var df = new Map();
    index.postings.forEach(function (list, word) { df.set(word, list.length / 2); });
    setVocabulary(index, df);
    return index;
  }

  // A document's weight for each word it holds: each field's weight times a saturating term
  // frequency (the tenth mention adds little over the second), added up over the fields.
  function postingsOfDocument(weights, fields) {
    var score = new Map();
    Object.keys(weights).forEach(function (field) {
      var counts = new Map();
      asList(fields[field]).forEach(function (value) {
        tokenize(value).forEach(function (word) { counts.set(word, (counts.get(word) || 0) + 1); });
      });
      counts.forEach(function (count, word) {
        score.set(word, (score.get(word) || 0) + weights[field] * 2 * count / (count + 1));
      });
    });
    return score;
  }

  function emptyIndex(count) {
    return {count: count, vocabulary: [], df: new Map(), idf: new Map(), postings: new Map(),
            names: new Map(), symbols: new Map(), docs: [], fields: [], formulas: [], facets: [],
            grams: new Map(), expansions: new Map(),
            phraseText: new Map(), want: null};
  }

  // The words of the index, sorted, with how many documents hold each and its idf.
  function setVocabulary(index, df) {
    index.df = df;
    index.vocabulary = Array.from(df.keys()).sort();
    df.forEach(function (count, word) {
      index.idf.set(word, Math.log(1 + (index.count - count + 0.5) / (count + 0.5)));
    });
  }

  // An index that holds only its vocabulary ({terms, df}, as the site writes it): what a query
  // needs beyond that, each piece is asked for by the ranking as it reaches for it (index.want,
  // see need below) and added by the loader (search-loader.js), and the query is ranked again.
  function partial(count, vocabulary) {
    var index = emptyIndex(count);
    var df = new Map();
    vocabulary.terms.forEach(function (term, i) { df.set(term, vocabulary.df[i]); });
    setVocabulary(index, df);
    index.shardStarts = vocabulary.shards;
    index.loadedShards = new Set();
    index.gramShards = vocabulary.gramShards;
    index.loadedGramShards = new Set();
    index.facets = null;
    return index;
  }

  // Records a piece of the index a ranking reached for and did not find; a whole index never
  // misses one. kind: "shard" or "gramShard" (by number), "doc", "fields" or "formula" (by
  // document), "facets" (all documents').
  function need(index, kind, key) {
    if (!index.want) {
      index.want = {shard: new Set(), gramShard: new Set(), doc: new Set(), fields: new Set(),
                    formula: new Set(), facets: false};
    }
    if (key === undefined) index.want[kind] = true;
    else index.want[kind].add(key);
  }

  // The shard holding a word's postings (and the names and symbols that begin with it): shards
  // are runs of the sorted vocabulary, each starting at the word numbered in shardStarts.
  function shardOf(index, word) {
    var starts = index.shardStarts, lo = 0, hi = starts.length - 1;
    var at = lowerBound(index.vocabulary, word);
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= at) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function lowerBound(sorted, word) {
    var lo = 0, hi = sorted.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (sorted[mid] < word) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // Whether the postings, names and symbols filed under a word are in memory (asking for them if not).
  function present(index, word) {
    if (!index.shardStarts) return true;
    var shard = shardOf(index, word);
    if (index.loadedShards.has(shard)) return true;
    need(index, "shard", shard);
    return false;
  }

  function postingsOf(index, word) {
    return index.df.has(word) && present(index, word) ? index.postings.get(word) || [] : [];
  }

  // [[spelled, doc]] of the names (or symbols) whose first word is `word`, or, with `prefix`,
  // begins with it.
  function spelledUnder(index, map, word, prefix) {
    var out = [];
    var words = [word];
    if (prefix) {
      words = [];
      for (var i = lowerBound(index.vocabulary, word); i < index.vocabulary.length &&
           index.vocabulary[i].lastIndexOf(word, 0) === 0; i++) words.push(index.vocabulary[i]);
    }
    words.forEach(function (w) {
      if (index.df.has(w) && present(index, w)) out.push.apply(out, map.get(w) || []);
    });
    return out;
  }

  function docOf(index, n) {
    if (index.docs[n] === undefined) need(index, "doc", n);
    return index.docs[n];
  }

  function fieldsOf(index, n) {
    if (index.fields[n] === undefined) need(index, "fields", n);
    return index.fields[n];
  }

  function formulasOf(index, n) {
    if (index.formulas[n] === undefined) { need(index, "formula", n); return []; }
    return index.formulas[n];
  }

  // The runs of FORMULA_TOKENS tokens in a document's formulas, each once, spelled with spaces.
  // A formula sharing a run of that length or more with a query shares one of these with it.
  function formulaGrams(sequences) {
    var grams = new Set();
    sequences.forEach(function (tokens) {
      for (var i = 0; i + FORMULA_TOKENS <= tokens.length; i++) grams.add(tokens.slice(i, i + FORMULA_TOKENS).join(" "));
    });
    return grams;
  }

  // Which gram shard holds a gram's documents: a hash of its UTF-16 code units (the build
  // computes the same one, eqcards/pages/search_index.py, gram_shard).
  function gramShard(gram, shards) {
    var hash = 0;
    for (var i = 0; i < gram.length; i++) hash = (hash * 31 + gram.charCodeAt(i)) >>> 0;
    return hash % shards;
  }

  // The documents whose formulas share a run of FORMULA_TOKENS tokens with the query's: the only
  // ones whose formulas can match it (longestRun) well enough to count.
  function formulaCandidates(index, formula) {
    var found = new Set();
    formulaGrams([formula]).forEach(function (gram) {
      if (index.gramShards) {
        var shard = gramShard(gram, index.gramShards);
        if (!index.loadedGramShards.has(shard)) { need(index, "gramShard", shard); return; }
      }
      (index.grams.get(gram) || []).forEach(function (n) { found.add(n); });
    });
    return found;
  }

  function facetsOf(index, n) {
    if (!index.facets) { need(index, "facets"); return {}; }
    return index.facets[n] || {};
  }

  // Index words a query word stands for, each with how much it counts: itself, words it
  // begins (when long enough to mean something), and words one or two typos away.
  // expand, remembered per index: it reads only the vocabulary, and a query on a partial index
  // is ranked again after each load (and typed again letter by letter).
  function expanded(index, word, isLast) {
    var key = (isLast ? "last " : "") + word;
    if (!index.expansions.has(key)) index.expansions.set(key, expand(index, word, isLast));
    return index.expansions.get(key);
  }

  function expand(index, word, isLast) {
    var found = new Map();
    var offer = function (term, weight) {
      if (index.df.has(term) && !(found.get(term) >= weight)) found.set(term, weight);
    };
    offer(word, 1);
    var prefixFrom = isLast ? 1 : 3;
    var typos = word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0;
    if (COMPOUND.test(word)) {
      // A symbol the index spells differently (beta_t against \beta_{t-1}): its joined
      // spelling counts almost fully, its parts a little.
      typos = 0;
      symbolVariants(word).forEach(function (variant, i) { offer(variant, i === 0 ? 0.9 : 0.3); });
    }
    index.vocabulary.forEach(function (term) {
      if (term === word) return;
      if (word.length >= prefixFrom && term.length > word.length && term.lastIndexOf(word, 0) === 0) {
        offer(term, 0.6 * word.length / term.length + 0.2);
      } else if (typos && editDistance(word, term, typos) <= typos) {
        offer(term, 0.5);
      }
    });
    return found;
  }

  function escapeHtml(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;");
  }

  // Each document that matched any word of `words`: Map doc -> {score, covered, terms}, where
  // covered is the share of the words it matched, and a card named by the words or defining them
  // as a symbol counts more.
  function wordScores(index, words) {
    var perDoc = new Map();  // doc -> {score, hits: Set of query words it matched}
    var resolved = [];  // each word as the index spells it: the best of its matches
    words.forEach(function (word, position) {
      var matches = expanded(index, word, position === words.length - 1);
      var ranked = Array.from(matches.keys()).sort(function (a, b) {
        return matches.get(b) - matches.get(a) || index.df.get(b) - index.df.get(a);
      });
      resolved.push(ranked.length ? ranked[0] : word);
      var best = new Map();
      matches.forEach(function (strength, term) {
        var weight = strength * index.idf.get(term);
        var list = postingsOf(index, term);
        for (var i = 0; i < list.length; i += 2) {
          var value = weight * list[i + 1];
          if (!(best.get(list[i]) >= value)) best.set(list[i], value);
        }
      });
      best.forEach(function (value, doc) {
        var entry = perDoc.get(doc);
        if (!entry) perDoc.set(doc, entry = {score: 0, hits: new Set()});
        entry.score += value;
        entry.hits.add(word);
      });
    });
    var phrase = resolved.join(" ");
    var named = nameMatches(index, phrase);
    var scores = new Map();
    perDoc.forEach(function (entry, n) {
      var covered = entry.hits.size / words.length;
      var score = entry.score * covered * covered;
      // The query is the card's name or one of its aliases: that card is what was meant.
      if (named.whole.has(n)) score *= 3;
      else if (named.start.has(n)) score *= 1.5;
      // The query is a whole symbol the card defines (β, d_k): the card's own notation.
      if (named.symbol.has(n)) score *= 2;
      var terms = Object.create(null);
      words.forEach(function (word) { terms[word] = entry.hits.has(word); });
      scores.set(n, {score: score, covered: covered, terms: terms});
    });
    return scores;
  }

  // The documents with a name (or alias) that is the phrase (whole) or begins with it (start),
  // and with a symbol that is the phrase. A one-word phrase may begin a name's first word; in a
  // longer one the first word is a name's first word whole.
  function nameMatches(index, phrase) {
    var first = phrase.split(" ")[0];
    var found = {whole: new Set(), start: new Set(), symbol: new Set()};
    spelledUnder(index, index.names, first, phrase.indexOf(" ") < 0).forEach(function (entry) {
      if (entry[0] === phrase) found.whole.add(entry[1]);
      else if (entry[0].lastIndexOf(phrase, 0) === 0) found.start.add(entry[1]);
    });
    spelledUnder(index, index.symbols, first, false).forEach(function (entry) {
      if (entry[0] === phrase) found.symbol.add(entry[1]);
    });
    return found;
  }

  // A formula query shorter than this many tokens (β, d_k's "d _ k" is three) is ranked by its
  // words alone: too short to have a structure worth matching.
  var FORMULA_TOKENS = 3;
  var FLOOR = 0.02;  // results scoring under this share of the best one are not listed

  // Whether a document's words hold a phrase's words, in order and unbroken, within one field.
  function hasPhrase(index, n, phrase) {
    if (!index.phraseText.has(n)) {
      var fields = fieldsOf(index, n);
      if (!fields) return false;
      var values = [];
      Object.keys(fields).forEach(function (field) {
        asList(fields[field]).forEach(function (value) { values.push(words(value).join(" ")); });
      });
      index.phraseText.set(n, " " + values.join(" | ") + " ");
    }
    return index.phraseText.get(n).indexOf(" " + words(phrase).join(" ") + " ") >= 0;
  }

  // One alternative of a query ranked: [{n, run, score, terms}]. A query written as math is
  // matched against each card's formulas as a token sequence (search-formula.js): cards holding
  // the longest unbroken run of it come first, ties broken by the word ranking; a document
  // matching none of its structure is listed only if it matched every word.
  function rankAlternative(index, alternative) {
    var queryText = [alternative.text].concat(alternative.phrases).join(" ");
    var terms = queryWords(queryText);
    var scores = terms.length ? wordScores(index, terms) : new Map();
    var formula = EqFormula.isFormula(alternative.text) ? EqFormula.tokens(alternative.text) : [];
    var out = [];
    if (formula.length >= FORMULA_TOKENS) {
      var candidates = formulaCandidates(index, formula);
      for (var n = 0; n < index.count; n++) {
        var run = 0;
        if (candidates.has(n)) formulasOf(index, n).forEach(function (tokens) { run = Math.max(run, EqFormula.longestRun(formula, tokens)); });
        var entry = scores.get(n);
        if (run >= FORMULA_TOKENS) {
          var allTerms = Object.create(null);
          terms.forEach(function (word) { allTerms[word] = run === formula.length || !!(entry && entry.terms[word]); });
          out.push({n: n, run: run, score: entry ? entry.score : 0, terms: allTerms});
        } else if (entry && entry.covered === 1) {
          out.push({n: n, run: 0, score: entry.score, terms: entry.terms});
        }
      }
    } else {
      scores.forEach(function (entry, n) { out.push({n: n, run: 0, score: entry.score, terms: entry.terms}); });
    }
    var top = out.reduce(function (best, r) { return r.run ? best : Math.max(best, r.score); }, 0);
    return out.filter(function (r) {
      return (r.run || r.score >= top * FLOOR) && alternative.phrases.every(function (p) {
        // A document holding the phrase holds each of its words, so it matched each (every field
        // is indexed): one that did not is passed over without reading its fields.
        var entry = scores.get(r.n);
        return !!entry && words(p).every(function (w) { return entry.terms[w]; }) && hasPhrase(index, r.n, p);
      });
    });
  }

  function better(a, b) {
    return a.run - b.run || a.score - b.score;
  }

  // Ranked documents for a query (syntax in search-query.js): [{location, title, teaser,
  // preview, score, terms}], best first. Ties go to the document numbered first, which is the
  // first by address (build, byLocation). On a partial index the answer is complete only if
  // index.want is left empty; otherwise it names what to load before ranking again.
  function search(index, query, limit) {
    index.want = null;
    var parsed = EqQuery.parse(query);
    var best = new Map();
    if (parsed.alternatives.length) {
      parsed.alternatives.forEach(function (alternative) {
        rankAlternative(index, alternative).forEach(function (r) {
          if (!best.has(r.n) || better(r, best.get(r.n)) > 0) best.set(r.n, r);
        });
      });
    } else if (Object.keys(parsed.filters).length) {  // filters alone: every document they pass
      for (var n = 0; n < index.count; n++) best.set(n, {n: n, run: 0, score: 0, terms: {}});
      limit = limit || index.count;
    }
    var excluded = new Set();
    parsed.excluded.forEach(function (word) {
      queryWords(word).forEach(function (term) {
        var list = postingsOf(index, term);
        for (var i = 0; i < list.length; i += 2) excluded.add(list[i]);
      });
    });
    var ranked = [], filtered = Object.keys(parsed.filters).length > 0;
    best.forEach(function (r, n) {
      if (excluded.has(n)) return;
      if (filtered && !EqQuery.passes(parsed.filters, facetsOf(index, n))) return;
      ranked.push(r);
    });
    ranked.sort(function (a, b) { return better(b, a) || a.n - b.n; });
    // Records are asked for once the ranking lacked nothing else: the results it gives now are final.
    var final = !index.want;
    return ranked.slice(0, limit || 50).map(function (r) {
      var doc = (final && docOf(index, r.n)) || {};
      return {location: doc.location, title: doc.title, teaser: doc.teaser, preview: doc.preview,
              run: r.run, score: r.score, terms: r.terms};
    });
  }

  // What a partial index asked for in its last ranking (search), or null when it had all it needed.
  function wanted(index) {
    return index.want;
  }

  // Pieces of the index as the site writes them (eqcards/pages/search_index.py), added to a
  // partial index. A shard: {postings: {word: [doc gap, weight, ...]}, names, symbols: {word:
  // [[spelled, doc]]}}, where each doc number is given as its distance from the one before.
  function addShard(index, number, shard) {
    Object.keys(shard.postings).forEach(function (word) {
      var gaps = shard.postings[word], list = [], doc = 0;
      for (var i = 0; i < gaps.length; i += 2) {
        doc += gaps[i];
        list.push(doc, gaps[i + 1]);
      }
      index.postings.set(word, list);
    });
    ["names", "symbols"].forEach(function (kind) {
      Object.keys(shard[kind]).forEach(function (word) { index[kind].set(word, shard[kind][word]); });
    });
    index.loadedShards.add(number);
  }

  function addDoc(index, n, doc) { index.docs[n] = doc; }

  function addFields(index, n, fields) { index.fields[n] = fields; }

  function addFormula(index, n, texs) { index.formulas[n] = texs.map(EqFormula.tokens); }

  // A gram shard: {gram: [doc gap, ...]}.
  function addGramShard(index, number, shard) {
    Object.keys(shard).forEach(function (gram) {
      var doc = 0;
      index.grams.set(gram, shard[gram].map(function (gap) { return (doc += gap); }));
    });
    index.loadedGramShards.add(number);
  }

  function addFacets(index, facets) {
    index.facets = facets.map(function (f) { return f ? {part: f[0], topic: f[1]} : {}; });
  }

  return {normalize: normalize, tokenize: tokenize, queryWords: queryWords, spell: spell,
          editDistance: editDistance, build: build, search: search, escapeHtml: escapeHtml,
          partial: partial, wanted: wanted, addShard: addShard, addDoc: addDoc, addFields: addFields,
          addFormula: addFormula, addGramShard: addGramShard, addFacets: addFacets,
          gramShard: gramShard};
})();
