import torch
from torch import nn

# `points` is defined before this code runs: a list of [x, y] pairs
device = "cuda" if torch.cuda.is_available() else "cpu"

data = torch.tensor(points)  # made on the CPU
x = data[:, :1].to(device)  # shape (n, 1): one input per row
y = data[:, 1:].to(device)

torch.manual_seed(0)
model = nn.Linear(1, 1).to(device)  # initialised on the CPU, then moved
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()

for step in range(1, 201):
    loss = loss_fn(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step == 1:
        print(f"first loss {loss.item():.4f}")
print(f"last loss {loss.item():.4f}")
print(f"weight {model.weight.item():.4f} bias {model.bias.item():.4f}")

model.eval()
with torch.no_grad():
    prediction = model(torch.tensor([[0.0], [1.0], [2.0]], device=device))
print("predictions", [round(value, 4) for value in prediction.flatten().tolist()])
print("requires grad", prediction.requires_grad)
print("device", model.weight.device.type)
