"""1 nat in bits: 1/ln 2, checked against an entropy measured in both units."""

import numpy as np
from cardcheck import check_close
from scipy.stats import entropy

bits_per_nat = 1 / np.log(2)
print(f"1 nat = 1/ln 2 = {bits_per_nat:.6f} bits")
check_close("1/ln 2 vs the stated 1.4427 bits", bits_per_nat, 1.4427, rtol=5e-5)
p = np.random.default_rng(0).dirichlet(np.ones(10))
check_close("entropy in bits = entropy in nats x 1/ln 2 (scipy, base 2 vs base e)",
            entropy(p, base=2), entropy(p) * bits_per_nat, rtol=1e-12)
