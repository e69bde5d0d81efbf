import torch

readings = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
r = torch.tensor(readings)

print("mean", 0.0)
print("std", 0.0)
print("population std", 0.0)
