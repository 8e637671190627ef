"""SSM convolution kernel: checked against explicit matrix powers, the step-by-step recurrence,
scipy.signal.dlsim and numpy.convolve."""

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from scipy.linalg import expm
from scipy.signal import dlsim


# --- formula ---
def ssm_kernel(Abar, Bbar, C, L):
    """K = (C Bbar, C Abar Bbar, ..., C Abar^{L-1} Bbar), built by repeated multiplication."""
    K = np.empty(L)
    v = Bbar[:, 0].copy()
    for i in range(L):
        K[i] = C @ v
        v = Abar @ v
    return K


def causal_conv_fft(K, u):
    """y_k = sum_{i=0}^{k} K_i u_{k-i}, via FFT with zero padding to 2L (no wrap-around)."""
    L = len(u)
    y = np.fft.irfft(np.fft.rfft(K, 2 * L) * np.fft.rfft(u, 2 * L), 2 * L)
    return y[:L]
# --- end formula ---


rng = np.random.default_rng(0)
N, L = 5, 64
A = rng.normal(size=(N, N)) - 2.5 * np.eye(N)  # non-symmetric, stable
B = rng.normal(size=(N, 1))
C = rng.normal(size=N)
delta = 0.1
Abar = expm(delta * A)
Bbar = np.linalg.solve(delta * A, (Abar - np.eye(N)) @ (delta * B))
u = rng.normal(size=L)

K = ssm_kernel(Abar, Bbar, C, L)

# 1. Kernel against explicit matrix powers C Abar^i Bbar.
K_pow = np.array([C @ np.linalg.matrix_power(Abar, i) @ Bbar[:, 0] for i in range(L)])
check_close("K_i == C Abar^i Bbar (matrix_power)", K, K_pow, rtol=1e-11, atol=1e-15)

# 2. Convolution form == the recurrence x_k = Abar x_{k-1} + Bbar u_k, y_k = C x_k.
x = np.zeros(N)
y_rec = []
for k in range(L):
    x = Abar @ x + Bbar[:, 0] * u[k]
    y_rec.append(C @ x)
y_rec = np.array(y_rec)
y_conv = causal_conv_fft(K, u)
check_close("FFT convolution with K == recurrence", y_conv, y_rec, rtol=1e-10, atol=1e-12)

# 3. scipy.signal.dlsim uses x[k+1] = A x[k] + B u[k], y[k] = C x[k] + D u[k]; shifting the state by one
#    step gives the system (Abar, Bbar, C Abar, C Bbar).
_, y_dl, _ = dlsim((Abar, Bbar, (C @ Abar)[None, :], np.array([[C @ Bbar[:, 0]]]), 1.0), u)
check_close("FFT convolution == scipy.signal.dlsim", y_conv, y_dl[:, 0], rtol=1e-10, atol=1e-12)

# 4. Against the direct causal convolution numpy.convolve (truncated to L), with a second input.
u2 = rng.normal(size=L) * np.linspace(3.0, 0.1, L)
check_close("FFT convolution == numpy.convolve[:L]", causal_conv_fft(K, u2), np.convolve(K, u2)[:L],
            rtol=1e-10, atol=1e-12)

# 5. Causality by brute force: changing u_j leaves y_k, k < j, unchanged; the impulse response is K.
j = 40
u3 = u.copy()
u3[j] += 5.0
d = causal_conv_fft(K, u3) - y_conv
check_true("output before the perturbed step is unchanged", np.abs(d[:j]).max() < 1e-12,
           f"max change {np.abs(d[:j]).max():.1e}")
check_close("response to the change is 5 K shifted by j", d[j:], 5.0 * K[: L - j], rtol=1e-9, atol=1e-12)

fig, ax = figure("SSM convolution kernel (ZOH, stable A)", "lag i", r"$K_i = C\bar{A}^i\bar{B}$")
for dt, style in ((0.05, "-"), (0.1, "--"), (0.3, ":")):
    Ab = expm(dt * A)
    Bb = np.linalg.solve(dt * A, (Ab - np.eye(N)) @ (dt * B))
    ax.plot(np.arange(L), ssm_kernel(Ab, Bb, C, L), style, label=rf"$\Delta = {dt}$")
ax.legend()
