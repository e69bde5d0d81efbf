import time

import torch

device = "cpu"  # pick "cuda" when a GPU is available

torch.manual_seed(0)
a = torch.rand(256, 256).to(device)

start = time.perf_counter()
a @ a
elapsed = time.perf_counter() - start  # one run, in seconds, and no waiting for the GPU

print("device", device)
print("runs", 1)
print("median", elapsed)
