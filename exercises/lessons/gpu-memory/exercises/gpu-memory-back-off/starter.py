import torch

# `data`, `start` and `train_step` are already defined (see the example above)
device = "cpu"  # pick "cuda" when a GPU is available
print(data.device.type)  # move `data` to the device first

size = start
# this may run out of memory: catch the error, halve the size and try again
train_step(data[:size])

# then split `data` into pieces of the size that fits, run a step on every piece,
# add up the results on the device, and print the lines the task asks for
