"""Bits per character: checked against mean -log2 p, log2 of scipy-gmean perplexity, BPB, uniform model."""

import numpy as np
from cardcheck import check_close, check_true
from scipy.stats import gmean


# --- formula ---
def bits_per_character(token_logprobs: np.ndarray, n_chars: int) -> float:
    """BPC = -(1 / (C ln 2)) * sum_t ln p_theta(x_t | x_<t): total nats over characters, in bits."""
    return float(-np.sum(token_logprobs) / (n_chars * np.log(2)))
# --- end formula ---


train = ("the quick brown fox jumps over the lazy dog while the cat naps in the sun. "
         "über café déjà vu, naïve façade: crème brûlée for the rôle. ") * 20
ascii_text = "the lazy cat jumps over the brown dog in the sun."
accented = "déjà vu: the naïve rôle of crème brûlée at the café."

vocab = sorted(set(train + ascii_text + accented))
index = {c: i for i, c in enumerate(vocab)}
counts = np.full((len(vocab) + 1, len(vocab)), 0.1)  # add-0.1 smoothing; last row = start
train_ids = np.array([index[c] for c in train])
np.add.at(counts, (np.concatenate([[len(vocab)], train_ids[:-1]]), train_ids), 1.0)
model = counts / counts.sum(axis=1, keepdims=True)


def char_logprobs(text: str) -> np.ndarray:
    ids = np.array([index[c] for c in text])
    prev = np.concatenate([[len(vocab)], ids[:-1]])
    return np.log(model[prev, ids])


lp = char_logprobs(ascii_text)
C = len(ascii_text)
bpc = bits_per_character(lp, C)
check_close("nats / (C ln 2) vs mean of -log2 p", bpc, np.mean(-np.log2(np.exp(lp))))
check_close("character-level model: BPC = log2(PPL_char), PPL from scipy gmean(1/p)", bpc,
            np.log2(gmean(1.0 / np.exp(lp))))
B = len(ascii_text.encode("utf-8"))
check_close("ASCII text (B = C): BPC equals BPB", bpc, -np.sum(lp) / (B * np.log(2)))

lp2 = char_logprobs(accented)
C2, B2 = len(accented), len(accented.encode("utf-8"))
bpc2, bpb2 = bits_per_character(lp2, C2), -np.sum(lp2) / (B2 * np.log(2))
check_close("non-ASCII text: BPC = BPB * B / C", bpc2, bpb2 * B2 / C2)
check_true("accented text has more bytes than characters, so BPC > BPB", B2 > C2 and bpc2 > bpb2,
           f"C = {C2}, B = {B2}, BPC {bpc2:.3f} vs BPB {bpb2:.3f}")
check_close("uniform model over 27 symbols gives log2(27) bits per character",
            bits_per_character(np.full(100, -np.log(27.0)), 100), np.log2(27.0))

# The page's calculator is checked against bits_per_character on this grid (cardcalc; the build runs the
# card's JavaScript on the same rows): T tokens that each cost ln PPL nats have perplexity PPL, read by the
# snippet's own function; a certain model (PPL 1), a character-level one (T = C) and subword tokens.
import cardcalc  # noqa: E402

cardcalc.table(lambda PPL, T, C: bits_per_character(np.full(T, -np.log(PPL)), C),
               cardcalc.grid(PPL=(1.0, 1.5, 16.0, 27.0, 50_000.0), T=(1, 4, 250_000), C=(1, 4, 1_000_000)))
