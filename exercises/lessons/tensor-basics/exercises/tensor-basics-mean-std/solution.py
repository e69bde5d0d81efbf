import torch

readings = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
r = torch.tensor(readings)

print("mean", r.mean().item())
print("std", round(r.std().item(), 4))
print("population std", r.std(correction=0).item())
