import time

import torch

# `size` and `repeats` are defined before this code runs
device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
a = torch.randint(-2, 3, (size, size)).float().to(device)  # made on the CPU, then moved


def wait():
    """Block until the GPU has finished everything queued so far (nothing to do on the CPU)."""
    if device == "cuda":
        torch.cuda.synchronize()


def time_ms(fn, repeats):
    fn()  # warm-up: one-time set-up is not measured
    times = []
    for _ in range(repeats):
        wait()  # start from an empty queue
        start = time.perf_counter()
        result = fn()
        wait()  # stop once the work is done, not once it is queued
        times.append((time.perf_counter() - start) * 1000)
    return times, result


times, result = time_ms(lambda: a @ a, repeats)
print(result.device.type)
print(len(times))
print(all(t > 0 for t in times))
print(torch.equal(result.cpu(), a.cpu() @ a.cpu()))
print(int(result.sum().item()))
