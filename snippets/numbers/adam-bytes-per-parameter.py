"""Mixed-precision Adam: 16 bytes per parameter, counted from the arrays training actually keeps."""

import numpy as np
from cardcheck import check_close

n = 1_000_000  # parameters
state = {
    "weights (fp16/bf16)": np.zeros(n, dtype=np.float16),
    "gradients (fp16/bf16)": np.zeros(n, dtype=np.float16),
    "master weights (fp32)": np.zeros(n, dtype=np.float32),
    "Adam first moment m (fp32)": np.zeros(n, dtype=np.float32),
    "Adam second moment v (fp32)": np.zeros(n, dtype=np.float32),
}
for name, array in state.items():
    print(f"{name:30s} {array.nbytes / n:.0f} bytes/param")
total = sum(a.nbytes for a in state.values()) / n
print(f"{'total':30s} {total:.0f} bytes/param")
check_close("bytes per parameter vs ZeRO's 2 + 2 + 12 = 16", total, 16.0)
