"""fastText word vector = sum of its character n-gram vectors: n-grams vs the paper's example, FNV-1a vs
its published test vectors, the sum vs a bag-of-buckets product, and the score's gradient."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def char_ngrams(word: str, minn: int = 3, maxn: int = 6) -> list[str]:
    """All n-grams, minn <= n <= maxn, of the word wrapped in the boundary symbols < and >."""
    w = "<" + word + ">"
    return [w[i:i + n] for n in range(minn, maxn + 1) for i in range(len(w) - n + 1)]


def fnv1a(data: bytes) -> int:
    """32-bit FNV-1a, as fastText hashes n-grams (bytes are sign-extended first, as in its C++)."""
    h = 2166136261
    for byte in data:
        h ^= (byte - 256 if byte > 127 else byte) & 0xFFFFFFFF
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def ngram_rows(word: str, buckets: int) -> list[int]:
    return [fnv1a(g.encode("utf-8")) % buckets for g in char_ngrams(word)]


def word_vector(word: str, vocab: dict[str, int], w_table: np.ndarray, z_table: np.ndarray) -> np.ndarray:
    """v_w = z_<w> + sum_{g in n-grams(w)} z_g: the word's own row (when the word is in the vocabulary)
    plus the hashed n-gram rows. Out-of-vocabulary words get the n-gram sum alone."""
    v = w_table[vocab[word]].copy() if word in vocab else np.zeros(z_table.shape[1])
    for r in ngram_rows(word, z_table.shape[0]):
        v += z_table[r]
    return v


def score(word, context_vec, vocab, w_table, z_table) -> float:
    """s(w, c) = sum_{g in G_w} z_g . v_c (Bojanowski et al. 2017, Sec. 3.2)."""
    return float(word_vector(word, vocab, w_table, z_table) @ context_vec)
# --- end formula ---


# 1. The paper's example: "where" with n = 3 gives <wh, whe, her, ere, re>; the word "her" is the special
#    sequence <her>, which differs from the trigram her of "where".
check_true("3-grams of 'where' == <wh, whe, her, ere, re>", char_ngrams("where", 3, 3)
           == ["<wh", "whe", "her", "ere", "re>"])
check_true("'her' in the n-grams of 'where' but '<her>' is not", "her" in char_ngrams("where")
           and "<her>" not in char_ngrams("where"))
# Default 3..6 on "<where>" (7 symbols): 5 + 4 + 3 + 2 = 14 n-grams; for "a" ("<a>"): only "<a>".
check_true("'where' has 14 n-grams with n = 3..6, the longest '<wher', 'where', 'here>'",
           len(char_ngrams("where")) == 14 and char_ngrams("where")[-2:] == ["<where", "where>"]
           and "here>" in char_ngrams("where"))
check_true("one-letter word 'a' -> ['<a>']; 'ab' -> ['<ab', 'ab>', '<ab>']",
           char_ngrams("a") == ["<a>"] and char_ngrams("ab") == ["<ab", "ab>", "<ab>"])
check_true("count is sum over n = 3..6 of (len + 3 - n), for lengths 1..12",
           all(len(char_ngrams("x" * L)) == sum(max(0, L + 3 - n) for n in range(3, 7))
               for L in range(1, 13)))

# 2. FNV-1a 32-bit against the published test vectors (Fowler/Noll/Vo): "" -> 0x811c9dc5,
#    "a" -> 0xe40c292c, "foobar" -> 0xbf9cf968.
check_true("FNV-1a('') , ('a'), ('foobar') == 0x811c9dc5, 0xe40c292c, 0xbf9cf968",
           [fnv1a(b""), fnv1a(b"a"), fnv1a(b"foobar")] == [0x811C9DC5, 0xE40C292C, 0xBF9CF968])
# Non-ASCII bytes: fastText sign-extends (char is signed), so it differs from textbook FNV-1a there.
# Textbook FNV-1a of the single byte 0xE9 (computed from the spec's definition by hand:
# (0x811c9dc5 ^ 0xe9) * 16777619 mod 2^32), vs fastText's (0x811c9dc5 ^ 0xffffffe9) * 16777619.
check_true("bytes 0xE9 and 0x80: fastText uses the sign-extended 0xFFFFFFE9, 0xFFFFFF80; 0x7F is unchanged",
           fnv1a(b"\xe9") == ((0x811C9DC5 ^ 0xFFFFFFE9) * 16777619) % 2**32
           and fnv1a(b"\xe9") != ((0x811C9DC5 ^ 0xE9) * 16777619) % 2**32
           and fnv1a(b"\x80") == ((0x811C9DC5 ^ 0xFFFFFF80) * 16777619) % 2**32
           and fnv1a(b"\x7f") == ((0x811C9DC5 ^ 0x7F) * 16777619) % 2**32)

# 3. The word vector equals the bag-of-buckets count vector times the bucket table, plus the
#    word's own row; repeated n-grams ("ana" twice in banana) count twice.
rng = np.random.default_rng(0)
K, d = 2048, 16
Z = rng.normal(size=(K, d))
vocab = {"banana": 0, "where": 1}
W = rng.normal(size=(2, d))
for word in ("banana", "where", "wherever"):
    bag = np.bincount([fnv1a(g.encode()) % K for g in char_ngrams(word)], minlength=K)
    own = W[vocab[word]] if word in vocab else np.zeros(d)
    check_close(f"'{word}': v_w == z_<w> + (bucket counts) @ Z", word_vector(word, vocab, W, Z),
                own + bag @ Z, rtol=1e-12)
check_true("'ana' occurs twice among the n-grams of 'banana'", char_ngrams("banana").count("ana") == 2)

# 4. Score and its gradient: s(w, c) = v_w . v_c, and ds/dz_g = (multiplicity of g) v_c for every
#    n-gram bucket, by finite differences.
vc = rng.normal(size=d)
check_close("s(w, c) == sum_g z_g . v_c", score("banana", vc, vocab, W, Z),
            W[0] @ vc + sum(Z[r] @ vc for r in ngram_rows("banana", K)), rtol=1e-12)
rows = sorted(set(ngram_rows("banana", K)))
eps = 1e-6
fd = []
for r in rows:
    Zp, Zm = Z.copy(), Z.copy()
    Zp[r] += eps * vc
    Zm[r] -= eps * vc
    fd.append((score("banana", vc, vocab, W, Zp) - score("banana", vc, vocab, W, Zm)) / (2 * eps * vc @ vc))
mult = [ngram_rows("banana", K).count(r) for r in rows]
check_close("directional derivative along v_c in each bucket == multiplicity", fd, mult, rtol=1e-6)

# 5. The fastText library averages instead of summing (FastText::getVector divides by the number of
#    rows used). Cosine similarities are unchanged; dot products are not.
def mean_vec(word):
    n = len(ngram_rows(word, K)) + (word in vocab)
    return word_vector(word, vocab, W, Z) / n


def cos(a, b):
    return a @ b / np.linalg.norm(a) / np.linalg.norm(b)


a, b = word_vector("banana", vocab, W, Z), word_vector("wherever", vocab, W, Z)
check_close("cosine(sum vectors) == cosine(library's mean vectors)", cos(a, b),
            cos(mean_vec("banana"), mean_vec("wherever")), rtol=1e-12)

# 6. Shared n-grams make related words similar even for random n-gram vectors: with d = 4000 the cosine
#    of two OOV words is close to (shared n-gram count) / sqrt(|G_1| |G_2|).
Zb = rng.normal(size=(K, 4000))
Wb = np.zeros((0, 4000))
pairs = [("walking", "walked"), ("walking", "talking"), ("walking", "quantum")]
got, expect = [], []
for u, v in pairs:
    gu, gv = ngram_rows(u, K), ngram_rows(v, K)
    shared = sum(min(gu.count(r), gv.count(r)) for r in set(gu))
    got.append(cos(word_vector(u, {}, Wb, Zb), word_vector(v, {}, Wb, Zb)))
    expect.append(shared / np.sqrt(len(gu) * len(gv)))
check_close("cosine of OOV words vs shared-n-gram fraction (random z, d = 4000)", got, expect, atol=0.06)

fig, ax = figure("fastText n-grams: shared pieces make related words similar",
                 "word pair", "cosine of summed n-gram vectors")
ax.bar([f"{u}/{v}" for u, v in pairs], got, label="random n-gram vectors, d = 4000")
ax.plot([f"{u}/{v}" for u, v in pairs], expect, "ko", label="shared n-grams / sqrt(|G1||G2|)")
ax.legend()
