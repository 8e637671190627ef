"""Entity co-occurrence adjacency A = B^T B - diag: brute force, degrees, normalised spectrum."""

from itertools import combinations

import numpy as np
from cardcheck import check_close, check_true
from cardplot import figure
from graph_fixture import CHUNKS, ENTITIES, N_ENTITIES


# --- formula ---
def cooccurrence_adjacency(chunks: list[list[int]], n: int) -> np.ndarray:
    """A_ij = number of chunks mentioning both entity i and entity j (i != j); A_ii = 0."""
    b = np.zeros((len(chunks), n))  # chunk-entity incidence, 1 if the chunk mentions the entity
    for c, ents in enumerate(chunks):
        b[c, list(set(ents))] = 1.0
    a = b.T @ b
    return a - np.diag(np.diag(a))


def sym_normalize(a: np.ndarray) -> np.ndarray:
    """D^{-1/2} A D^{-1/2}, with isolated nodes (degree 0) left at zero."""
    k = a @ np.ones(len(a))
    inv_sqrt = np.zeros_like(k)
    nz = k > 0
    inv_sqrt[nz] = 1.0 / np.sqrt(k[nz])
    return inv_sqrt[:, None] * a * inv_sqrt[None, :]
# --- end formula ---


a = cooccurrence_adjacency(CHUNKS, N_ENTITIES)

# 1. Brute force: loop over chunks and over unordered pairs of distinct entities in each chunk.
ref = np.zeros((N_ENTITIES, N_ENTITIES))
for ents in CHUNKS:
    for i, j in combinations(sorted(set(ents)), 2):
        ref[i, j] += 1
        ref[j, i] += 1
check_close("incidence-matrix route vs loop over chunks and entity pairs", a, ref)
check_true("symmetric with zero diagonal", bool(np.array_equal(a, a.T) and not np.any(np.diag(a))))
n_pairs = sum(len(set(e)) * (len(set(e)) - 1) // 2 for e in CHUNKS)
check_close("handshake: sum of degrees = 2 x (co-occurring pairs counted over chunks)", a.sum(), 2 * n_pairs)
check_close("a duplicated mention inside one chunk counts once",
            cooccurrence_adjacency([[0, 1, 1, 0]], 2), np.array([[0.0, 1.0], [1.0, 0.0]]))
i_max, j_max = divmod(int(np.argmax(a)), N_ENTITIES)
print("strongest edge:", ENTITIES[i_max], "-", ENTITIES[j_max],
      f"({int(a.max())} chunks)")

# 2. Symmetric normalisation: entries a_ij / sqrt(k_i k_j) by brute force, spectrum in [-1, 1],
#    top eigenvalue 1 with eigenvector proportional to sqrt(degree) (scipy-free, numpy.linalg.eigh).
s = sym_normalize(a)
deg = ref.sum(axis=1)
ref_s = np.array([[ref[i, j] / np.sqrt(deg[i] * deg[j]) if ref[i, j] else 0.0 for j in range(N_ENTITIES)]
                  for i in range(N_ENTITIES)])
check_close("normalised entries vs a_ij / sqrt(k_i k_j) entry by entry", s, ref_s, rtol=1e-12)
ev, vec = np.linalg.eigh(s)
check_true("all eigenvalues of D^-1/2 A D^-1/2 lie in [-1, 1]", bool(np.all(np.abs(ev) <= 1 + 1e-12)))
check_close("largest eigenvalue is 1", ev[-1], 1.0, rtol=1e-12)
top = np.abs(vec[:, -1])
check_close("its eigenvector is proportional to sqrt(degree)", top / top.sum(),
            np.sqrt(deg) / np.sqrt(deg).sum(), rtol=1e-9)

# 3. A bipartite graph (4-cycle) reaches -1; an isolated entity keeps a zero row and no NaN.
cycle = np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]], dtype=float)
check_close("bipartite 4-cycle: smallest eigenvalue is -1", np.linalg.eigvalsh(sym_normalize(cycle))[0], -1.0,
            rtol=1e-12)
iso = sym_normalize(cooccurrence_adjacency([[0, 1], [2]], 3))
check_close("entity seen alone: isolated node, zero row, no NaN", iso,
            np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))

fig, ax = figure("Entity co-occurrence counts A_ij", "entity j", "entity i", size=(6.0, 5.0))
im = ax.imshow(a, cmap="Greys")
ax.set_xticks(range(N_ENTITIES), ENTITIES, rotation=60, ha="right", fontsize=7)
ax.set_yticks(range(N_ENTITIES), ENTITIES, fontsize=7)
fig.colorbar(im, ax=ax, label="chunks mentioning both")
