import torch

# `shape` is defined before this code runs
device = "cuda" if torch.cuda.is_available() else "cpu"

batch = torch.zeros(shape, device=device)
print(batch.shape)
print(batch.dtype)
print(batch.nelement())
print(batch.nelement() * batch.element_size() / 1_000_000, "MB")
print(batch.device)
