import torch

device = "cuda" if torch.cuda.is_available() else "cpu"

marks = torch.tensor(scores, device=device)  # whole numbers stay int64
passed = marks >= pass_mark  # a bool tensor
mean = marks.float().mean()  # mean needs floating point

print(marks.dtype)
print("passed", passed.sum().item())
print("rate", passed.float().mean().item())
print("mean", mean.item())
print(mean.dtype)
print(mean.device.type)
