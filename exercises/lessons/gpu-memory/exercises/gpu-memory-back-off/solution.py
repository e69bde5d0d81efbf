import torch

# `data`, `start` and `train_step` are defined before this code runs
device = "cuda" if torch.cuda.is_available() else "cpu"
data = data.to(device)  # one copy, at the start
print(data.device.type)

size = start
while size >= 1:
    try:
        train_step(data[:size])
        break
    except torch.cuda.OutOfMemoryError:
        print(f"{size}: out of memory")
    torch.cuda.empty_cache()  # outside the except block: the failed step is gone
    size //= 2

if size == 0:
    print("no batch size fits")
else:
    print(f"{size}: fits")
    pieces = data.split(size)  # the whole batch, in pieces that fit
    total = sum(train_step(piece) for piece in pieces)  # stays on the device
    print("steps:", len(pieces))
    print(int(total.item()))  # one copy back, at the end
