import itertools

import torch
from torch import nn

# `layers` and `batch_size` are defined before this code runs
device = "cuda" if torch.cuda.is_available() else "cpu"


def build():
    parts = []
    for inputs, outputs in itertools.pairwise(layers):
        parts += [nn.Linear(inputs, outputs), nn.ReLU()]
    return nn.Sequential(*parts[:-1])  # no ReLU after the last layer


def weight_bytes(model):
    return sum(p.nelement() * p.element_size() for p in model.parameters())


with torch.device("meta"):  # shapes and dtypes only: nothing is allocated
    planned = build()
    out = planned(torch.empty(batch_size, layers[0]))
predicted = weight_bytes(planned)
print(sum(p.nelement() for p in planned.parameters()), "parameters")
print(predicted, "bytes of weights")
print(4 * predicted, "bytes to train with Adam")
print(list(out.shape))

model = build().to(device)  # now for real
print(next(model.parameters()).device.type)
print(weight_bytes(model) == predicted)
