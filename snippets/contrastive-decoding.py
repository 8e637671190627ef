"""Contrastive decoding: the adaptive plausibility head and the CD score against an explicit computation
from probabilities, both sides of the head's threshold, and what the constraint prevents."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from decoding_fixture import AMATEUR_LOGITS, CONTEXT, EXPERT_LOGITS, TOKENS, V
from scipy.special import log_softmax, softmax


# --- formula ---
def plausible_head(log_p_exp, alpha):
    """V_head = {i : p_EXP(i) >= alpha * max_w p_EXP(w)}, tested on log-probabilities."""
    return log_p_exp >= np.log(alpha) + log_p_exp.max()


def cd_score(log_p_exp, log_p_ama, alpha):
    """log p_EXP(i) - log p_AMA(i) for i in V_head, -inf for every other token."""
    return np.where(plausible_head(log_p_exp, alpha), log_p_exp - log_p_ama, -np.inf)


def cd_next_token(log_p_exp, log_p_ama, alpha):
    """The token with the highest CD score (one greedy step of the CD objective)."""
    return int(np.argmax(cd_score(log_p_exp, log_p_ama, alpha)))
# --- end formula ---


le, la = log_softmax(EXPERT_LOGITS), log_softmax(AMATEUR_LOGITS)
pe, pa = softmax(EXPERT_LOGITS), softmax(AMATEUR_LOGITS)

# 1. The head and the score against an explicit loop over tokens on the probabilities (scipy softmax),
#    with the score as the log of the probability ratio.
for alpha in (0.05, 0.1, 0.3, 1.0):
    head_ref = np.array([pe[i] >= alpha * max(pe) for i in range(V)])
    score_ref = np.array([np.log(pe[i] / pa[i]) if head_ref[i] else -np.inf for i in range(V)])
    s = cd_score(le, la, alpha)
    check_true(f"alpha = {alpha}: V_head = {{i : p_EXP(i) >= alpha max p_EXP}} (explicit loop)",
               np.array_equal(plausible_head(le, alpha), head_ref), f"{head_ref.sum()} tokens")
    check_close(f"alpha = {alpha}: CD score on V_head = log(p_EXP / p_AMA)", s[head_ref],
                score_ref[head_ref], rtol=1e-12)
    check_true(f"alpha = {alpha}: CD score is -inf outside V_head", bool(np.all(np.isneginf(s[~head_ref]))),
               f"{(~head_ref).sum()} tokens masked")

# 2. Both sides of the head's threshold, on probabilities exact in floating point:
#    p_max = 0.5 and alpha = 0.5 put the threshold exactly on the 0.25 token (kept), not on 0.125.
lp_dy = np.log(np.array([0.125, 0.5, 0.25, 0.125]))
check_true("alpha = 0.5: a token exactly at alpha p_max is plausible, one below is not",
           plausible_head(lp_dy, 0.5).tolist() == [False, True, True, False],
           f"head {plausible_head(lp_dy, 0.5).tolist()}")
s_dy = cd_score(lp_dy, np.log(np.full(4, 0.25)), 0.5)
check_close("dyadic example, uniform amateur: scores log(0.5 / 0.25) and log(0.25 / 0.25) on the head",
            s_dy[1:3], [np.log(2.0), 0.0], rtol=1e-12, atol=1e-15)
check_true("dyadic example: the two tokens below the threshold score -inf",
           bool(np.all(np.isneginf(s_dy[[0, 3]]))), f"scores {s_dy.tolist()}")

# 3. What the constraint does on "The cat sat on the". With alpha = 0.1 CD picks a token the expert
#    finds plausible and the amateur does not; without it (alpha -> 0) the largest ratio belongs to a
#    token the expert gives 0.06%; alpha = 1 keeps only the expert's argmax.
picks = {a: TOKENS[cd_next_token(le, la, a)] for a in (1e-12, 0.1, 1.0)}
ratio = le - la
check_true("alpha = 0.1 picks ' windowsill'; alpha -> 0 picks the implausible ' banana'; alpha = 1 "
           "the expert's argmax ' mat'",
           picks == {1e-12: " banana", 0.1: " windowsill", 1.0: " mat"},
           f"picks {picks}; ' banana': p_EXP = {pe[-1]:.4f}, log ratio {ratio[-1]:.2f}")
check_true("the unconstrained argmax of the log ratio lies outside V_head (alpha = 0.1)",
           not plausible_head(le, 0.1)[np.argmax(ratio)], f"argmax '{TOKENS[np.argmax(ratio)]}'")

# --- in code: transformers ---
import torch  # noqa: E402
from transformers import MinPLogitsWarper  # noqa: E402

# The plausibility head is min-p with p_base = alpha on the expert: MinPLogitsWarper(alpha) leaves the
# head's logits and sets the others to -inf. The score is then the difference of the two models'
# log_softmax on the head. Float64 log_softmax of 20 logits: a few ulps of |log p| < 7, so 1e-12.
expert, amateur = torch.tensor(EXPERT_LOGITS)[None, :], torch.tensor(AMATEUR_LOGITS)[None, :]
head_hf = torch.isfinite(MinPLogitsWarper(min_p=0.1)(None, expert))[0]
cd_hf = torch.where(head_hf, torch.log_softmax(expert, -1) - torch.log_softmax(amateur, -1), -torch.inf)[0]
check_true("MinPLogitsWarper(min_p=alpha) on the expert's logits keeps exactly V_head (alpha = 0.1)",
           np.array_equal(head_hf.numpy(), plausible_head(le, 0.1)), f"{int(head_hf.sum())} tokens")
check_close("CD score from log_softmax(expert) - log_softmax(amateur) on that head = the card's",
            cd_hf[head_hf].numpy(), cd_score(le, la, 0.1)[plausible_head(le, 0.1)], rtol=1e-12)
# log_softmax of the warped logits renormalizes the expert over the head: every score moves by
# -log(mass of the head). The chosen token stays, the scores (and any sum over steps) do not.
warped = MinPLogitsWarper(min_p=0.1)(None, expert)
shifted = (torch.log_softmax(warped, -1) - torch.log_softmax(amateur, -1))[0]
check_close("pitfall: log_softmax of the warped expert logits shifts every score by -log(head mass)",
            shifted[head_hf].numpy(), cd_score(le, la, 0.1)[plausible_head(le, 0.1)]
            - np.log(pe[plausible_head(le, 0.1)].sum()), rtol=1e-12)
# --- end in code ---

x = np.arange(V)
head = plausible_head(le, 0.1)
fig, ax = figure(f'Contrastive decoding after "{CONTEXT}" ' + r"($\alpha$ = 0.1)", "next token",
                 r"$\log p_{\mathrm{EXP}} - \log p_{\mathrm{AMA}}$", size=(7.0, 3.8))
ax.bar(x[head], ratio[head], color="tab:blue", label=r"CD score (token in $V_{\mathrm{head}}$)")
ax.bar(x[~head], ratio[~head], facecolor="none", edgecolor="gray",
       label=r"outside $V_{\mathrm{head}}$: score $-\infty$")
ax.axhline(0, color="black", lw=0.8)
ax.set_xticks(x, [t.strip() or t for t in TOKENS], rotation=60, ha="right", fontsize=8)
ax.legend(fontsize=8)
