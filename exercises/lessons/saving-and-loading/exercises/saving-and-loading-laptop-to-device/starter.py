import torch
from torch import nn

# `seed` and `inputs` are already defined (see the task)
device = "cpu"  # choose "cuda" when a GPU is available

torch.manual_seed(seed)
model = nn.Linear(4, 2)  # stays on the CPU
# save model's state_dict to "model.pt"

restored = nn.Linear(4, 2)
# move `restored` to the device and load "model.pt" into it

print("keys", [])
# print where the loaded weights are, whether they equal the saved ones, the
# outputs for `inputs` (evaluation mode, no gradients) and whether they require grad
