import torch

# `scores` and `pass_mark` are already defined (see the task).
device = "cpu"  # choose "cuda" when a GPU is available

marks = torch.tensor(scores).to(device)
mean = marks.mean()

print(marks.dtype)
# print passed, rate and mean, then the dtype and the device type of the mean
