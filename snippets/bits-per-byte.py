"""Bits per byte: checked against log2 sums, the Pile form, a uniform model, char vs byte tokenization."""

import numpy as np
from cardcheck import check_close, check_true


# --- formula ---
def bits_per_byte(token_logprobs: np.ndarray, n_bytes: int) -> float:
    """BPB = -(1 / (B ln 2)) * sum_t ln p_theta(x_t | x_<t), whatever the tokens are."""
    return float(-np.sum(token_logprobs) / (n_bytes * np.log(2)))
# --- end formula ---


text = "Größe matters: naïve café, 東京 and Zürich — 🚀 emoji cost four bytes. " * 3
raw = text.encode("utf-8")
B = len(raw)

# A character-bigram model with add-one smoothing, over the characters of the text.
chars = sorted(set(text))
index = {c: i for i, c in enumerate(chars)}
ids = np.array([index[c] for c in text])
counts = np.ones((len(chars) + 1, len(chars)))  # last row: start of text
np.add.at(counts, (np.concatenate([[len(chars)], ids[:-1]]), ids), 1.0)
q = counts / counts.sum(axis=1, keepdims=True)  # q[prev, next] = p(next char | prev char)
prev_ids = np.concatenate([[len(chars)], ids[:-1]])
char_logprobs = np.log(q[prev_ids, ids])

# The same model seen byte by byte: p(next byte | earlier bytes) = mass of the characters whose
# UTF-8 encoding continues the current partial character with that byte, over the mass of the partial.
encodings = [c.encode("utf-8") for c in chars]
byte_logprobs, worst_norm = [], 0.0
for prev, c in zip(prev_ids, text, strict=True):
    row = q[prev]
    enc = c.encode("utf-8")
    for k in range(len(enc)):
        partial = enc[:k]
        mass_partial = sum(row[j] for j, e in enumerate(encodings) if e.startswith(partial))
        next_mass = np.zeros(256)
        for j, e in enumerate(encodings):
            if e.startswith(partial):
                next_mass[e[k]] += row[j]
        worst_norm = max(worst_norm, abs(next_mass.sum() / mass_partial - 1.0))
        byte_logprobs.append(np.log(next_mass[enc[k]] / mass_partial))
byte_logprobs = np.array(byte_logprobs)

bpb_chars = bits_per_byte(char_logprobs, B)
check_close("nats / (B ln 2) vs summing -log2 p directly", bpb_chars,
            np.sum(-np.log2(q[prev_ids, ids])) / B)
mean_loss = -np.mean(char_logprobs)
check_close("Pile form (L_T / L_B) * loss / ln 2", bpb_chars, (len(text) / B) * mean_loss / np.log(2))
check_close("uniform byte model gives exactly 8 bits per byte",
            bits_per_byte(np.full(B, -np.log(256.0)), B), 8.0)
check_close("byte-level conditionals are normalized", worst_norm, 0.0, atol=1e-12)
bpb_bytes = bits_per_byte(byte_logprobs, B)
check_close("same BPB whether the text is scored as characters or as bytes", bpb_chars, bpb_bytes)
ppl_chars, ppl_bytes = np.exp(-char_logprobs.mean()), np.exp(-byte_logprobs.mean())
check_true("while per-token perplexity differs between the two tokenizations",
           abs(ppl_chars - ppl_bytes) > 1.0,
           f"{len(text)} chars: PPL {ppl_chars:.2f}; {B} bytes: PPL {ppl_bytes:.2f}; BPB {bpb_chars:.4f}")

# The page's calculator is checked against bits_per_byte on this grid (cardcalc; the build runs the card's
# JavaScript on the same rows): T tokens that each cost the mean loss ell sum to T ell nats, read by the
# snippet's own function; fewer tokens than bytes, as many, and more (a byte-level tokenizer on UTF-8).
import cardcalc  # noqa: E402

cardcalc.table(lambda ell, T, B: bits_per_byte(np.full(T, -ell), B),
               cardcalc.grid(ell=(0.0, 0.1, 2.0, 10.0), T=(1, 3, 250_000), B=(1, 3, 1_000_000)))
