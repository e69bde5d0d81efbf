import torch

# `table` is already defined: a list of rows (see the task).
device = "cuda" if torch.cuda.is_available() else "cpu"

hours = torch.tensor(table, device=device)
shares = hours / hours.sum(dim=1)  # each row should add up to 1, but does it?

print(hours.shape)
print("shares", shares.tolist())
# print largest, above half, column means and the device type of the shares
