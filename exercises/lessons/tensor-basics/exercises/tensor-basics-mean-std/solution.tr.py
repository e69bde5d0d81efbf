import torch

r = torch.tensor(readings)  # `readings` bu koddan önce tanımlanır

print("mean", r.mean().item())
print("std", r.std().item())
print("population std", r.std(correction=0).item())
