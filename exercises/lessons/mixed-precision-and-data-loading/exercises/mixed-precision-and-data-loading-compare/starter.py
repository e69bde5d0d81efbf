import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# `seed`, `samples` and `batch_size` are already defined: 0, 64 and 16 in the example
device = "cpu"  # pick "cuda" when a GPU is available

torch.manual_seed(seed)
inputs = torch.randn(samples, 32)
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
loader = DataLoader(TensorDataset(inputs), batch_size=batch_size)

with torch.no_grad():
    for (xb,) in loader:
        full = model(xb)
        print(full.abs().mean().item())  # a copy back on every batch: keep values on the device

# run each batch in float32 and under autocast (bfloat16), track the largest
# difference and the sum of |float32 output| on the device, then print the six lines
