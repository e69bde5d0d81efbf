import torch

# `rows` ve `cols` zaten tanımlı (örnekte 4 ve 5)
grid = torch.arange(rows * cols)  # tek satırdaki sayılar: onu `rows` satır `cols` sütun yapın

print(grid.shape)
# üçüncü satırı, son sütunu ve toplamı yazdırın
