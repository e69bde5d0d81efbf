import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

hours = torch.tensor(table, device=device)
shares = hours / hours.sum(dim=1, keepdim=True)  # (rows, 1) broadcasts across columns

print(hours.shape)
print("shares", shares.tolist())
print("largest", shares.argmax(dim=1).tolist())
print("above half", (shares > 0.5).sum().item())
print("column means", shares.mean(dim=0).tolist())
print(shares.device.type)
