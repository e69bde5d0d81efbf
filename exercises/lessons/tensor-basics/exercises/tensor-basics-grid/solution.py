import torch

grid = torch.arange(20).reshape(4, 5)

print(grid.shape)
print(grid[2].tolist())
print(grid[:, -1].tolist())
print(grid.sum().item())
