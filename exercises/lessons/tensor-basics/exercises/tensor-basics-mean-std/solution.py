import torch

r = torch.tensor(readings)  # `readings` is defined before this code runs

print("mean", r.mean().item())
print("std", r.std().item())
print("population std", r.std(correction=0).item())
