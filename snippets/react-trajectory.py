"""ReAct trajectory probability in a toy question-answering environment: the factorized log-probability
is checked by exhaustive enumeration (it sums to one) and against Monte-Carlo runs of the agent loop."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure

# Toy task: answer a yes/no question with a search tool. Augmented actions: a thought (no effect on
# the world, no observation), search (observation 'hit' or 'miss'), finish[yes] / finish[no].
HORIZON = 4


def policy(context):
    """pi(a_t | c_t): prefers to think first, search until a hit, then answer from the last hit."""
    seen = [o for kind, o in context if kind == "obs"]
    thought = any(kind == "act" and o == "think" for kind, o in context)
    if len(context) >= 2 * HORIZON - 1 or seen[-1:] == ["hit"]:
        return {"finish:yes": 0.85, "finish:no": 0.15} if seen[-1:] == ["hit"] else {"finish:yes": 0.5,
                                                                                     "finish:no": 0.5}
    if not thought:
        return {"think": 0.6, "search": 0.3, "finish:yes": 0.05, "finish:no": 0.05}
    return {"think": 0.1, "search": 0.7, "finish:yes": 0.1, "finish:no": 0.1}


def environment(context):
    """P(o_t | c_t, a_t): the first search hits with 0.5, later ones with 0.8 (depends on history)."""
    searches = sum(1 for kind, o in context if kind == "act" and o == "search")
    p_hit = 0.5 if searches == 1 else 0.8
    return {"hit": p_hit, "miss": 1.0 - p_hit}


def is_tool_action(action):
    return action == "search"


# --- formula ---
def trajectory_log_prob(trajectory):
    """log p(tau | x) = sum_t log pi(a^_t | c_t) + sum over tool actions of log P(o_{t+1} | c_t, a_t).
    A trajectory is a list of (action, observation-or-None); thoughts add no observation term."""
    context = ()
    total = 0.0
    for action, obs in trajectory:
        total += np.log(policy(context)[action])
        context = (*context, ("act", action))
        if is_tool_action(action):
            total += np.log(environment(context)[obs])
            context = (*context, ("obs", obs))
    return total
# --- end formula ---


def step(context, action, obs):
    context = (*context, ("act", action))
    return (*context, ("obs", obs)) if obs is not None else context


def enumerate_trajectories(context=(), prefix=(), prob=1.0):
    """Every complete trajectory with its probability, by branching over the generative process."""
    for action, p_a in policy(context).items():
        if is_tool_action(action):
            outcomes = environment(step(context, action, None)).items()
        else:
            outcomes = [(None, 1.0)]
        for obs, p_o in outcomes:
            traj = (*prefix, (action, obs))
            if action.startswith("finish"):
                yield traj, prob * p_a * p_o
            else:
                yield from enumerate_trajectories(step(context, action, obs), traj, prob * p_a * p_o)


def run_agent(rng):
    context, traj = (), []
    while True:
        pol = policy(context)
        names, probs = list(pol), np.cumsum(list(pol.values()))
        pick = int(np.searchsorted(probs, rng.random() * probs[-1], side="right"))
        action = names[min(pick, len(names) - 1)]
        obs = None
        if is_tool_action(action):
            env = environment(step(context, action, None))
            obs = "hit" if rng.random() < env["hit"] else "miss"
        traj.append((action, obs))
        if action.startswith("finish"):
            return tuple(traj)
        context = step(context, action, obs)


rng = np.random.default_rng(0)
all_traj = list(enumerate_trajectories())
probs_enum = np.array([p for _, p in all_traj])
probs_formula = np.exp([trajectory_log_prob(t) for t, _ in all_traj])
check_close(f"factorized probability vs branching enumeration on all {len(all_traj)} trajectories",
            probs_formula, probs_enum, rtol=1e-12)
check_close("the factorized probabilities of all trajectories sum to 1", probs_formula.sum(), 1.0, rtol=1e-12)

hand = [("think", None), ("search", "miss"), ("search", "hit"), ("finish:yes", None)]
check_close("hand value: 0.6 (think) * 0.7 * 0.5 (search, miss) * 0.7 * 0.8 (search, hit) * 0.85",
            trajectory_log_prob(hand), np.log(0.6 * 0.7 * 0.5 * 0.7 * 0.8 * 0.85), rtol=1e-12)
check_close("a thought adds no observation factor: think, finish[no] = 0.6 * 0.1",
            trajectory_log_prob([("think", None), ("finish:no", None)]), np.log(0.06), rtol=1e-12)

# Monte-Carlo: run the agent loop and compare frequencies of the 8 most likely trajectories.
n_runs = 15000
runs = [run_agent(rng) for _ in range(n_runs)]
counts = {}
for r in runs:
    counts[r] = counts.get(r, 0) + 1
top = sorted(all_traj, key=lambda tp: -tp[1])[:8]
freq = np.array([counts.get(t, 0) / n_runs for t, _ in top])
pred = np.exp([trajectory_log_prob(t) for t, _ in top])
check_close("empirical frequency of the 8 likeliest trajectories vs formula (4 standard errors)", freq, pred,
            atol=4 * np.sqrt(pred.max() * (1 - pred.max()) / n_runs))
p_yes = sum(np.exp(trajectory_log_prob(t)) for t, _ in all_traj if t[-1][0] == "finish:yes")
said_yes = np.mean([r[-1][0] == "finish:yes" for r in runs])
check_close("P(answer yes) from the formula vs the agent loop", said_yes, p_yes,
            atol=4 * np.sqrt(0.25 / n_runs))

# An observation model that ignores history (the seed's p(obs_t | action_t)) gives other numbers here.
lp_wrong = np.log(0.6 * 0.7 * 0.5 * 0.7 * 0.5 * 0.85)
check_true("history matters: P(o | a) alone (hit rate 0.5 every time) misprices the hand trajectory",
           not np.isclose(trajectory_log_prob(hand), lp_wrong))

fig, ax = figure("ReAct toy: probability of each complete trajectory", "trajectory (sorted)",
                 "p(tau | x), log scale")
ax.semilogy(np.sort(probs_formula)[::-1], marker=".", linestyle="none")
