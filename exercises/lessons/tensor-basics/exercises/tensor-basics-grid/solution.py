import torch

grid = torch.arange(rows * cols).reshape(rows, cols)

print(grid.shape)
print(grid[2].tolist())
print(grid[:, -1].tolist())
print(grid.sum().item())
