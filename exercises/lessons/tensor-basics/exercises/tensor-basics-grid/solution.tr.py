import torch

# `rows` ve `cols` bu kod çalışmadan önce tanımlanır (örnekte 4 ve 5)
grid = torch.arange(rows * cols).reshape(rows, cols)

print(grid.shape)
print(grid[2].tolist())  # üçüncü satır
print(grid[:, -1].tolist())  # son sütun
print(grid.sum().item())
