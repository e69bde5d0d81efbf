import torch
from torch import nn

# `points` is already defined: a list of [x, y] pairs (see the task)
device = "cpu"  # choose "cuda" when a GPU is available

data = torch.tensor(points)
x = data[:, :1]  # shape (n, 1); still on the CPU
y = data[:, 1:]

torch.manual_seed(0)
model = nn.Linear(1, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()

for step in range(1, 201):
    loss = loss_fn(model(x), y)
    # clear the gradients, compute new ones, update the weights
    if step == 1:
        print(f"first loss {loss.item():.4f}")
print(f"last loss {loss.item():.4f}")
print(f"weight {model.weight.item():.4f} bias {model.bias.item():.4f}")

# predictions for x = 0, 1 and 2, in evaluation mode and without gradients
