"""Tokens per parameter: Chinchilla's 70B/1.4T point, and later models trained far past it."""

from cardcheck import check_close, check_true

# (parameters, training tokens) as published.
chinchilla = (70e9, 1.4e12)  # Hoffmann et al. 2022, Chinchilla
llama2_7b = (7e9, 2.0e12)  # Touvron et al. 2023, Llama 2
llama3_8b = (8e9, 15e12)  # Llama Team 2024, Llama 3

ratio = chinchilla[1] / chinchilla[0]
print(f"Chinchilla: {chinchilla[1]:.1e} tokens / {chinchilla[0]:.0e} params = {ratio:.1f} tokens/param")
check_close("Chinchilla tokens per parameter vs the stated 20", ratio, 20.0, rtol=1e-12)
for name, (n, d) in {"Llama 2 7B": llama2_7b, "Llama 3 8B": llama3_8b}.items():
    print(f"{name}: {d / n:.0f} tokens/param ({d / n / ratio:.0f}x the Chinchilla ratio)")
check_true("Llama 3 8B sits inside the stated 500-2000 tokens/param over-training range",
           500 <= llama3_8b[1] / llama3_8b[0] <= 2000, f"{llama3_8b[1] / llama3_8b[0]:.0f}")
