import torch

grid = torch.arange(20)  # 20 numbers in one row: give it 4 rows of 5

print(grid.shape)
# print the third row, the last column and the total
