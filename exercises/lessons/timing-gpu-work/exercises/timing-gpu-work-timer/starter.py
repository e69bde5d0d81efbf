import time

import torch

# `size` and `repeats` are already defined: 96 and 5 in the example
device = "cpu"  # pick "cuda" when a GPU is available

torch.manual_seed(0)
a = torch.randint(-2, 3, (size, size)).float()  # then move it to the device


def wait():
    pass  # synchronize, but only on a GPU


def time_ms(fn, repeats):
    start = time.perf_counter()
    result = fn()
    return [(time.perf_counter() - start) * 1000], result


times, result = time_ms(lambda: a @ a, repeats)
# print the device type, how many times, all positive?, equal to the CPU product?, the sum
