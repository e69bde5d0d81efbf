import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

# `seed`, `samples` and `batch_size` are defined before this code runs
device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(seed)
inputs = torch.randn(samples, 32)  # made on the CPU: the same numbers on every machine
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
loader = DataLoader(TensorDataset(inputs), batch_size=batch_size, pin_memory=device == "cuda")

worst = torch.zeros((), device=device)  # the largest difference so far, on the device
total = torch.zeros((), device=device)  # sum of |float32 output|, on the device
with torch.no_grad():
    for (xb,) in loader:
        xb = xb.to(device, non_blocking=True)
        full = model(xb)
        with torch.autocast(device_type=device, dtype=torch.bfloat16):
            half = model(xb)
        worst = torch.maximum(worst, (half.float() - full).abs().max())
        total += full.abs().sum()

worst = worst.item()  # the only copies back: after the loop
print("batches:", len(loader))
print(half.dtype)
print(half.device.type)
print("differs:", worst > 0)
print("within 0.05:", worst < 0.05)
print(f"mean |output|: {total.item() / (samples * 4):.4f}")
