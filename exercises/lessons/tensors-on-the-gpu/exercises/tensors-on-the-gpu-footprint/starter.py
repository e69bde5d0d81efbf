import torch

# `shape` is already defined: (64, 3, 28, 28) in the example
device = "cpu"  # pick "cuda" when a GPU is available

# Create a float32 tensor of zeros with this shape on `device`, then print its
# shape, dtype, number of elements, size in MB and device.
