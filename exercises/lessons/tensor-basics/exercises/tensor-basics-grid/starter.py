import torch

# `rows` and `cols` are already defined (4 and 5 in the example)
grid = torch.arange(rows * cols)  # the numbers in one row: give it `rows` rows of `cols`

print(grid.shape)
# print the third row, the last column and the total
