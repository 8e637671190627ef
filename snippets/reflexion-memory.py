"""Reflexion's bounded reflection memory: the update is checked against collections.deque(maxlen=Omega),
and a toy trial loop built on it against an exact closed form for the chance of success within T trials."""

from collections import deque

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure


# --- formula ---
def update_memory(memory, reflection, failed, omega):
    """mem_{t+1} = the last Omega items of (mem_t, sr_t) after a failed trial; unchanged otherwise."""
    if not failed:
        return tuple(memory)
    return (*memory, reflection)[-omega:]


def reflexion_loop(act, evaluate, reflect, omega, max_trials):
    """Algorithm 1: act with the memory in the prompt, evaluate, and after a failure reflect (the
    reflection model sees the trajectory, the feedback and the current memory) and store.
    Returns (solved, trials used, final memory)."""
    memory = ()
    for t in range(max_trials):
        trajectory = act(memory)
        feedback = evaluate(trajectory)
        if feedback:
            return True, t + 1, memory
        memory = update_memory(memory, reflect(trajectory, feedback, memory, t), True, omega)
    return False, max_trials, memory
# --- end formula ---


rng = np.random.default_rng(0)

# Against collections.deque(maxlen=omega) on random streams of trial outcomes.
ok = True
max_len = 0
for _ in range(300):
    omega = int(rng.integers(1, 5))
    mem, ref = (), deque(maxlen=omega)
    for t in range(int(rng.integers(1, 12))):
        failed = bool(rng.random() < 0.7)
        mem = update_memory(mem, f"reflection {t}", failed, omega)
        if failed:
            ref.append(f"reflection {t}")
        ok &= mem == tuple(ref)
        max_len = max(max_len, len(mem))
check_true("memory equals deque(maxlen = Omega) after every trial of 300 random runs", ok)
check_true("memory never holds more than Omega = 4 reflections, and does reach 4", max_len == 4)
check_true("oldest reflection is dropped first; a success writes nothing",
           update_memory(("a", "b", "c"), "d", True, 3) == ("b", "c", "d")
           and update_memory(("a", "b"), "d", False, 3) == ("a", "b")
           and update_memory((), "a", True, 1) == ("a",))


# A deterministic task: the attempt succeeds once two lessons are in the prompt at the same time.
def act(memory):
    return len(memory)


def needs_two(n_lessons):
    return n_lessons >= 2


def lesson(traj, feedback, memory, t):
    return f"lesson {t}"


check_true("Omega = 2: fails twice, stores two lessons, succeeds on trial 3",
           reflexion_loop(act, needs_two, lesson, 2, 10) == (True, 3, ("lesson 0", "lesson 1")))
check_true("Omega = 1: never holds two lessons, uses all 5 trials, keeps only the last lesson",
           reflexion_loop(act, needs_two, lesson, 1, 5) == (False, 5, ("lesson 4",)))
check_true("success on the first trial writes no reflection",
           reflexion_loop(act, lambda n: True, lesson, 3, 4) == (True, 1, ()))

# The reflection model reads the memory as it stands before the failed trial (Sec. 3). A reflector
# that logs what it was shown: with Omega = 2 and four failures it must see (), (r0), (r0, r1), (r1, r2).
shown = {}


def logging_reflector(traj, feedback, memory, t):
    shown[t] = memory
    return f"r{t}"


_, _, final = reflexion_loop(act, lambda n: False, logging_reflector, 2, 4)
check_true("Omega = 2, four failures: the reflector saw (), (r0), (r0, r1), (r1, r2); memory ends (r2, r3)",
           shown == {0: (), 1: ("r0",), 2: ("r0", "r1"), 3: ("r1", "r2")} and final == ("r2", "r3"),
           repr(shown))


# Toy trial loop: each reflection in memory cuts the chance of repeating the failure by 30 %.
def success_prob(n_reflections, p0=0.2, gain=0.3):
    return 1.0 - (1.0 - p0) * (1.0 - gain) ** n_reflections


def run_trials(n_trials, omega, rng):
    solved, _, _ = reflexion_loop(lambda mem: rng.random() < success_prob(len(mem)), bool,
                                  lambda traj, fb, mem, t: f"lesson from trial {t}", omega, n_trials)
    return solved


def exact_within(n_trials, omega):
    """Independent route: after j failures the memory holds min(j, Omega) reflections."""
    return 1.0 - np.prod([1.0 - success_prob(min(j, omega)) for j in range(n_trials)])


for omega in (1, 3):
    sim = np.mean([run_trials(6, omega, rng) for _ in range(20000)])
    exact = exact_within(6, omega)
    check_close(f"P(success within 6 trials), Omega = {omega}: simulation vs closed form", sim, exact,
                atol=4 * np.sqrt(exact * (1 - exact) / 20000))
check_true("a larger memory bound helps in this toy: Omega = 3 beats Omega = 1",
           exact_within(6, 3) > exact_within(6, 1))

fig, ax = figure("Toy Reflexion loop: success within T trials", "trials T", "P(success within T trials)")
trials = np.arange(1, 13)
for omega in (0, 1, 3, 12):
    ax.plot(trials, [exact_within(int(T), omega) for T in trials], marker=".", label=f"Omega = {omega}")
ax.legend()
