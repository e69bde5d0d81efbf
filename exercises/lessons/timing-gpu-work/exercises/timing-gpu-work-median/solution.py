import statistics
import time

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
a = torch.rand(256, 256).to(device)


def wait():
    """Block until the GPU has finished everything queued so far (nothing to do on the CPU)."""
    if device == "cuda":
        torch.cuda.synchronize()


a @ a  # warm-up: one-time set-up is not measured
times = []
for _ in range(20):
    wait()
    start = time.perf_counter()
    a @ a
    wait()
    times.append((time.perf_counter() - start) * 1000)

print("device", device)
print("runs", len(times))
# A time changes from run to run: the output is checked line by line against patterns.
print(f"median {statistics.median(times):.3f} ms")
print(f"fastest {min(times):.3f} ms")
